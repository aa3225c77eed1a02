"""Totals and paired differences of per-document log-likelihood estimates, with their errors.

A study scores C candidate models on the same D held-out documents: estimates L-hat_cd =
log P-hat_c(w_d) with Monte Carlo standard errors s_cd (the runs' spread,
``topiceval.evaluation.combine_runs``), independent across candidates and documents (every
candidate has its own random streams).  Two questions, two errors (docs/methods/experiments.md,
"study"):

**Is candidate c worse than the best candidate b?**  The per-document differences
delta-hat_d = L-hat_bd - L-hat_cd sum to Delta-hat = sum_d delta-hat_d.  The documents are a
sample from the documents the models will meet, so Delta-hat varies with the documents drawn
and with the Monte Carlo runs:

    Var(Delta-hat) = D sigma^2 + sum_d v_d,      v_d = s_bd^2 + s_cd^2,

sigma^2 the variance of the true per-document differences.  The pairing is what makes sigma^2
small: documents that every model finds hard (long, rare words) cancel.  Since each observed
delta-hat_d = delta_d + e_d with independent noise of variance v_d, the sample variance s^2 of
the delta-hat_d has expectation sigma^2 + mean_d(v_d), so sigma-hat^2 = s^2 - mean_d(v_d) is
unbiased and

    se(Delta-hat)^2 = D sigma-hat^2 + sum_d v_d = D s^2,

floored at sum_d v_d (the Monte Carlo part alone, which D s^2 can undershoot by chance):
``se^2 = max(D s^2, sum_d v_d)``.  ``se_sampling`` = sqrt(D sigma-hat^2) (0 when negative) and
``se_monte_carlo`` = sqrt(sum_d v_d) say which part dominates.  A candidate within two standard
errors of the best (Delta-hat <= 2 se) is a tie.

**What is the total over all N held-out documents, from a sample of n of them?**  With the n
documents drawn at random without replacement, T-hat = (N / n) sum_{d in S} L-hat_d and

    Var(T-hat) = N^2 (1 - n/N) S^2 / n + (N / n)^2 sum_{d in S} v_d,

S^2 the variance of the true L_d over the N documents (the finite-population correction
1 - n/N: scoring every document leaves only the Monte Carlo part).  As above, S^2 is
estimated by the sample variance of the L-hat_d less their mean v_d (floored at 0).  When the
token counts of all N documents are known (they are: only the scoring is expensive), the ratio
estimator T-hat = tau sum_S L-hat_d / sum_S t_d (tau the N documents' tokens) has the same form
with the residuals e_d = L-hat_d - R-hat t_d in place of the L-hat_d, and the Monte Carlo part
scaled by tau / sum_S t_d; log-likelihoods being nearly proportional to length, its sampling
error is several times smaller.  Both are normal approximations: with 50 documents drawn from a
skewed corpus the +/- 2 se interval covered the full total 92.5% of the time instead of 95.4%,
from 200 on at its rate (tests/test_study_statistics.py), hence the study's smallest sample of
100.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from topiceval.claims import MARGIN
from topiceval.seeds import generator

__all__ = ["PairedDifference", "SampledTotal", "paired_difference", "sample_positions",
           "sampled_total"]

# a candidate within this many standard errors of the best is a tie: the one tie rule of the
# papers' ledger too (topiceval.claims)
TIE_SES = MARGIN
_KEY_SAMPLE = "study-sample"  # stream purpose: the sampled held-out documents


@dataclass(frozen=True)
class PairedDifference:
    """Delta-hat = sum_d (L-hat_bd - L-hat_cd) over D documents and its standard error."""

    difference: float
    se: float
    se_sampling: float
    se_monte_carlo: float
    documents: int

    @property
    def tie(self) -> bool:
        """Within ``TIE_SES`` standard errors of the best (the best is its own tie)."""
        return bool(self.difference <= TIE_SES * self.se)


@dataclass(frozen=True)
class SampledTotal:
    """T-hat, the estimated total log-likelihood of N documents from n of them, with errors."""

    total: float
    se: float
    se_sampling: float
    se_monte_carlo: float
    sampled: int
    population: int

    @property
    def dominant(self) -> str:
        """"sampling" or "Monte Carlo": the larger part of the error."""
        return "sampling" if self.se_sampling > self.se_monte_carlo else "Monte Carlo"


def _variances(stderr: np.ndarray) -> np.ndarray:
    """Monte Carlo variances; NaN standard errors (one run) are refused."""
    v = np.asarray(stderr, dtype=np.float64) ** 2
    if not np.all(np.isfinite(v)):
        raise ValueError("every estimate needs a finite standard error (at least 2 runs)")
    return v


def paired_difference(best: np.ndarray, other: np.ndarray, best_se: np.ndarray,
                      other_se: np.ndarray) -> PairedDifference:
    """The paired difference of two candidates' per-document estimates (module docstring).

    Parameters
    ----------
    best, other : (D,) float
        L-hat_bd and L-hat_cd on the same D documents (nats).
    best_se, other_se : (D,) float
        Their Monte Carlo standard errors (0 for exact estimates).

    Returns
    -------
    PairedDifference
        ``difference`` = sum_d (best - other) >= 0 when ``best`` is the better total; ``se``,
        ``se_sampling``, ``se_monte_carlo``.
    """
    delta = np.asarray(best, np.float64) - np.asarray(other, np.float64)
    d = delta.shape[0]
    if d < 2:
        raise ValueError(f"a paired standard error needs at least 2 documents, got {d}")
    mc = float(np.sum(_variances(best_se) + _variances(other_se)))
    spread = d * float(np.var(delta, ddof=1))
    return PairedDifference(
        difference=float(delta.sum()), se=float(np.sqrt(max(spread, mc))),
        se_sampling=float(np.sqrt(max(spread - mc, 0.0))), se_monte_carlo=float(np.sqrt(mc)),
        documents=d)


def sampled_total(logp: np.ndarray, stderr: np.ndarray, population: int, *,
                  tokens: np.ndarray | None = None, population_tokens: int | None = None,
                  shared: np.ndarray | None = None) -> SampledTotal:
    """T-hat and its standard error from n documents drawn without replacement from N.

    Without ``tokens``: the expansion estimator T-hat = (N / n) sum_S L-hat_d (module
    docstring).  With the sampled documents' ``tokens`` and the ``population_tokens`` tau of
    all N documents: the ratio estimator T-hat = tau * sum_S L-hat_d / sum_S t_d, whose
    sampling error comes from the residuals e_d = L-hat_d - R-hat t_d instead of the L-hat_d
    (log-likelihoods are nearly proportional to length, so it is far smaller), and whose Monte
    Carlo part is (tau / sum_S t_d)^2 sum_S v_d.

    Parameters
    ----------
    logp, stderr : (n,) float
        The sampled documents' estimates and Monte Carlo standard errors (nats).
    population : int
        N, the number of documents the sample was drawn from (N = n: every document).
    tokens : (n,) int, optional
        The sampled documents' token counts (with ``population_tokens``).
    population_tokens : int, optional
        tau, the tokens of all N documents.
    shared : (n,) float, optional
        The part of each standard error that a method's runs share
        (``Evaluation.shared_stderr``, ``topiceval.error_bars``): not independent across
        documents, so added rather than in quadrature, as ``Evaluation.total_stderr`` does.
        The Monte Carlo part is then scale * (sqrt(sum_S (v_d - shared_d^2)) + sum_S shared_d),
        and only the runs' part v_d - shared_d^2 is taken from the documents' spread.

    Returns
    -------
    SampledTotal
    """
    logp = np.asarray(logp, np.float64)
    n = logp.shape[0]
    if not 1 <= n <= population:
        raise ValueError(f"a sample of {n} documents from {population} is not a sample")
    v = _variances(stderr)
    shared = np.zeros(n) if shared is None else np.asarray(shared, np.float64)
    own = v - shared ** 2
    if tokens is None:
        scale, residual = population / n, logp
    else:
        t = np.asarray(tokens, np.float64)
        scale = float(population_tokens) / float(t.sum())
        residual = logp - t * float(logp.sum()) / float(t.sum())
    mc = (scale * (np.sqrt(float(own.sum())) + float(shared.sum()))) ** 2 if shared.any() \
        else scale ** 2 * float(v.sum())
    spread = float(np.var(residual, ddof=1)) - float(own.mean()) if n > 1 else 0.0
    sampling = population ** 2 * (1.0 - n / population) * max(spread, 0.0) / n
    return SampledTotal(
        total=scale * float(logp.sum()), se=float(np.sqrt(mc + sampling)),
        se_sampling=float(np.sqrt(sampling)), se_monte_carlo=float(np.sqrt(mc)), sampled=n,
        population=int(population))


def sample_positions(population: int, n: int | None, seed: int) -> np.ndarray:
    """The positions of ``n`` documents of ``population`` drawn without replacement by the
    stream (``seed``, "study-sample"), sorted; all of them when ``n`` is None or not smaller."""
    if n is None or n >= population:
        return np.arange(population)
    pick = generator(seed, _KEY_SAMPLE).choice(population, size=int(n), replace=False)
    return np.sort(pick)
