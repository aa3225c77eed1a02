"""The bootstrap of summed held-out log-likelihoods over runs (Wallach et al. 2009 §6.2).

An estimator run R times on each of D documents gives a (D, R) matrix of log estimates
log P-hat_{d,r}.  A document's estimate is their mean in probability space (2.0),
log P-bar_d = LSE_r log P-hat_{d,r} - log R, and a data set's is sum_d log P-bar_d.  Its
bootstrap replicates resample every document's runs with replacement.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

__all__ = ["bootstrap_totals", "document_means"]


def document_means(logp: np.ndarray) -> np.ndarray:
    """log P-bar_d = LSE_r log P-hat_{d,r} - log R (2.0): the mean in probability space.

    Parameters
    ----------
    logp : numpy.ndarray
        (documents, runs) log estimates.

    Returns
    -------
    numpy.ndarray
        One value per document.
    """
    return logsumexp(logp, axis=1) - np.log(logp.shape[1])


def bootstrap_totals(logp: np.ndarray, n_boot: int, rng: np.random.Generator,
                     chunk: int = 1000) -> np.ndarray:
    """``n_boot`` bootstrap replicates of sum_d log P-bar_d: runs resampled per document.

    Parameters
    ----------
    logp : numpy.ndarray
        (documents, runs) log estimates.
    n_boot : int
        Number of replicates.
    rng : numpy.random.Generator
        The stream of the resampling (``topiceval.seeds.generator(seed, "bootstrap", *group)``);
        two calls with identical generators resample the same runs (a paired bootstrap).
    chunk : int
        Replicates drawn per batch (bounds the memory).

    Returns
    -------
    numpy.ndarray
        The ``n_boot`` replicates.
    """
    n_docs, n_runs = logp.shape
    out = np.empty(n_boot)
    rows = np.arange(n_docs)[None, :, None]
    for lo in range(0, n_boot, chunk):
        k = min(chunk, n_boot - lo)
        idx = rng.integers(0, n_runs, size=(k, n_docs, n_runs))
        sample = logp[rows, idx]
        out[lo:lo + k] = (logsumexp(sample, axis=2) - np.log(n_runs)).sum(axis=1)
    return out
