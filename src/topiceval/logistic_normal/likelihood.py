"""log p(w_d | z) and the Gaussian log density, numba kernels shared by the estimators.

Described in docs/methods/logistic-normal.md#likelihood.

A document is its distinct words ``words`` (J,) and their counts ``counts`` (J,), N = sum counts.
With theta = softmax(z) (computed from z - max z, so no exp overflows):

    mixture:  log p(w_d | z) = sum_j c_j log sum_k theta_k beta[k, w_j]
    product:  log p(w_d | z) = sum_j c_j (eta_{w_j} - log sum_v exp eta_v),  eta = theta' B + b

The mixture costs O(J K) per evaluation, the product O(K V) (its normaliser runs over the whole
vocabulary).  ``Decoder`` holds what both need; ``document_decoder`` builds it for one document.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from topiceval._numba import standard_normal
from topiceval.logistic_normal.model import LogisticNormalModel

MIXTURE = 0
PRODUCT = 1
LOG_2PI = math.log(2.0 * math.pi)


class Decoder(NamedTuple):
    """One document under one model, as the kernels read it."""

    code: int  # MIXTURE or PRODUCT
    beta: np.ndarray  # (K, V) topics or logit weights B
    bias: np.ndarray  # (V,) logit offsets b (zeros for the mixture)
    words: np.ndarray  # (J,) int64 distinct word ids of the document
    counts: np.ndarray  # (J,) float64 their counts
    mu: np.ndarray  # (K,) prior mean
    chol: np.ndarray  # (K, K) lower Cholesky factor of Sigma


# The family's work unit (docs/methods/logistic-normal.md#cost): about 0.5 ns of one core, the
# CPU time of one mixture decoder term (a multiply-add of sum_k theta_k beta[k, w]); the weights
# of the other parts of an evaluation in those units, fitted to CPU time (benchmarks/ln_rate.py)
PRODUCT_TERM = 0.7  # one of the product decoder's K V multiply-adds (theta' B)
WORD = 12.0  # one log or exp per distinct word (mixture) or per vocabulary word (product)
TOPIC = 40.0  # per topic: a normal draw, theta's exp
TOPIC_PAIR = 1.0  # per K^2: colouring and whitening a draw with the Cholesky factor
EVALUATION = 2000.0  # fixed: the kernel's call, the random stream, the log weight
# a mixture document reads beta[k, w] a cache line (64 bytes) apiece, strided by V: once its J K
# lines outgrow a core's 2 MiB cache (the test machine's L2), each term costs MISS units
CACHE_TERMS = 2**15
MISS = 4.0


def evaluation_cost(decoder: str, distinct, n_topics: int, n_types: int) -> np.ndarray:
    """c (D,): the work units of one evaluation of log p(w_d | z) at a fresh draw of z, for each
    document, from its J distinct words ``distinct``:

        mixture:  J K + WORD J + TOPIC_PAIR K^2 + TOPIC K + EVALUATION
                  (MISS J K in place of J K when J K > CACHE_TERMS)
        product:  PRODUCT_TERM K V + WORD V + TOPIC_PAIR K^2 + TOPIC K + EVALUATION

    (the family's unit, above; docs/methods/logistic-normal.md#cost)."""
    distinct = np.asarray(distinct, dtype=np.float64)
    fixed = TOPIC_PAIR * n_topics**2 + TOPIC * n_topics + EVALUATION
    if decoder == "mixture":
        terms = distinct * n_topics
        return np.where(terms > CACHE_TERMS, MISS, 1.0) * terms + WORD * distinct + fixed
    return np.full(distinct.shape, (PRODUCT_TERM * n_topics + WORD) * n_types + fixed)


def document_counts(ids, n_types: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct word ids of a document of token ids (model columns) and their counts."""
    ids = np.asarray(ids)
    if ids.ndim != 1 or (ids.size and ids.dtype.kind not in "iu"):
        raise ValueError(f"a document must be a 1-D sequence of token ids, got {ids.dtype} "
                         f"of shape {ids.shape}")
    if ids.size and (ids.min() < 0 or ids.max() >= n_types):
        raise ValueError(f"token ids must lie in [0, {n_types}); found {ids.min()}..{ids.max()}")
    words, counts = np.unique(ids.astype(np.int64), return_counts=True)
    return words, counts.astype(np.float64)


def document_decoder(model: LogisticNormalModel, ids) -> Decoder:
    """The kernels' view of document ``ids`` (token ids in the model's columns)."""
    words, counts = document_counts(ids, model.n_types)
    code = MIXTURE if model.decoder == "mixture" else PRODUCT
    return Decoder(code, model.beta, model.bias, words, counts, model.mu, model.prior_cholesky)


@njit(cache=True)
def softmax_into(z, theta):
    """theta = softmax(z), from z - max z."""
    top = z.max()
    total = 0.0
    for k in range(z.shape[0]):
        theta[k] = math.exp(z[k] - top)
        total += theta[k]
    for k in range(z.shape[0]):
        theta[k] /= total


@njit(cache=True)
def log_p_given_z(code, beta, bias, words, counts, z, theta, logits):
    """log p(w_d | z) (module docstring); ``theta`` (K,) and ``logits`` (V,) are scratch."""
    n_topics, n_types = beta.shape
    softmax_into(z, theta)
    ell = 0.0
    if code == MIXTURE:
        for j in range(words.shape[0]):
            v = words[j]
            s = 0.0
            for k in range(n_topics):
                s += theta[k] * beta[k, v]
            ell += counts[j] * math.log(s)
        return ell
    for v in range(n_types):
        logits[v] = bias[v]
    for k in range(n_topics):
        tk = theta[k]
        for v in range(n_types):
            logits[v] += tk * beta[k, v]
    top = logits.max()
    total = 0.0
    for v in range(n_types):
        total += math.exp(logits[v] - top)
    lse = top + math.log(total)
    for j in range(words.shape[0]):
        ell += counts[j] * (logits[words[j]] - lse)
    return ell


@njit(cache=True)
def whiten_into(chol, centre, z, out):
    """out = L^{-1} (z - centre) by forward substitution (L lower triangular)."""
    n = z.shape[0]
    for i in range(n):
        s = z[i] - centre[i]
        for j in range(i):
            s -= chol[i, j] * out[j]
        out[i] = s / chol[i, i]


@njit(cache=True)
def log_det_chol(chol):
    """log |L L'| = 2 sum_i log L_ii."""
    s = 0.0
    for i in range(chol.shape[0]):
        s += math.log(chol[i, i])
    return 2.0 * s


@njit(cache=True)
def gaussian_log_density(chol, centre, log_det, z, scratch):
    """log N(z; centre, L L') = -(|L^{-1}(z - centre)|^2 + log|Sigma| + K log 2 pi) / 2."""
    whiten_into(chol, centre, z, scratch)
    q = 0.0
    for i in range(z.shape[0]):
        q += scratch[i] * scratch[i]
    return -0.5 * (q + log_det + z.shape[0] * LOG_2PI)


@njit(cache=True)
def colour_into(chol, centre, eps, scale, out):
    """out = centre + scale * L eps: a draw of N(centre, scale^2 L L') from eps ~ N(0, I)."""
    n = eps.shape[0]
    for i in range(n):
        s = 0.0
        for j in range(i + 1):
            s += chol[i, j] * eps[j]
        out[i] = centre[i] + scale * s


@njit(cache=True)
def gaussian_draw_into(rng, chol, centre, eps, out):
    """out = centre + L eps with eps ~ N(0, I) drawn into ``eps`` (k = 0..K-1 in order)."""
    for k in range(eps.shape[0]):
        eps[k] = standard_normal(rng)
    colour_into(chol, centre, eps, 1.0, out)
