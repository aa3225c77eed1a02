"""Synthetic documents from a logistic-normal model, with the z that generated each.

The generative process (11.1) of docs/methods/logistic-normal.md#model, per document d on its
own stream (seed, "logistic-normal synthetic", d): z_d ~ N(mu, Sigma), theta_d = softmax(z_d),
then N_d tokens drawn independently from p(w | theta_d) (the mixture theta' beta, or
softmax(theta' B + b)).  (z_d, w_d) is a draw from the joint, so z_d is an exact posterior
sample given w_d: the start of a reverse annealing run that makes BDMC's upper bound a true one.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.seeds import generator
from topiceval.validation import check_integer, check_seed


def word_probabilities(model: LogisticNormalModel, theta: np.ndarray) -> np.ndarray:
    """p(w | theta) over the vocabulary (V,)."""
    if model.decoder == "mixture":
        return theta @ model.beta
    return softmax(theta @ model.beta + model.bias)


def sample_documents(model: LogisticNormalModel, lengths, seed: int = 0):
    """Draw one document of each length in ``lengths`` from ``model``.

    Parameters
    ----------
    model : LogisticNormalModel
    lengths : sequence of int
        N_d >= 1 tokens for each document d.
    seed : int, default 0
        Seed; document d depends only on (seed, d) and its length.

    Returns
    -------
    docs : list of numpy.ndarray
        Token ids (the model's columns), in the order drawn.
    z : numpy.ndarray, shape (D, K)
        The documents' log-proportions.
    """
    lengths = [check_integer("lengths", n, 1) for n in np.atleast_1d(lengths).tolist()]
    seed = check_seed(seed)
    chol = model.prior_cholesky
    docs, z = [], np.empty((len(lengths), model.n_topics))
    for d, n in enumerate(lengths):
        rng = generator(seed, "logistic-normal synthetic", d)
        z[d] = model.mu + chol @ rng.standard_normal(model.n_topics)
        p = word_probabilities(model, softmax(z[d]))
        docs.append(rng.choice(model.n_types, size=n, p=p / p.sum()).astype(np.int64))
    return docs, z
