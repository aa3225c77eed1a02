"""HM: harmonic mean of the likelihood over posterior draws of theta.

Described in docs/methods/gapfa.md#harmonic-mean.

Gibbs sampler on the augmented model of the whole document (zero-count words observed):

    theta_t | x ~ Ga(r_t + sum_j x_jt, scale p_t / (1 - p_t + p_t Phi_t))            (6.10)
    x_j. | theta ~ Mult(y_j; phi_jt theta_t / sum_t' phi_jt' theta_t')                  (6.11)

theta starts from the prior; ``burnin`` iterations of [x | theta; theta | x] (reference code
default 100), then ``samples`` more, each followed by l_s = log p(y_d | theta^(s)):

    log p-hat(y_d) = log S - LSE_s(-l_s)

Biased upward (Capdevila et al. 2018 calls it unbiased [G4-9]; only 1/p-hat is, under exact
posterior draws).  Cost O((B + S) T J).  One chain per (document, run) task, stream keyed (seed,
KEY, document key, run).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from topiceval import interrupt
from topiceval._numba import lse_add, lse_value, seed_into
from topiceval.diagnostics import record_reset, record_weight
from topiceval.estimators.gapfa._data import n_tokens, n_words
from topiceval.estimators.gapfa._kernels import (
    document_loadings,
    log_factorials,
    log_likelihood,
    record,
    rows_work,
    sample_rows,
    sample_theta,
    shape_cache,
    transposed,
)
from topiceval.estimators.method import Method, Setting
from topiceval.interrupt import stopped

KEY = 402


@njit(cache=True)
def hm_document(rng, counts, phiw, log_phiw, params, burnin, checkpoints, out_row, rec, stop):
    """Running HM estimates at ``checkpoints`` into ``out_row``, the weights 1 / p(y | theta)
    in the record ``rec``; unfinished once ``stop`` is set (polled once per Gibbs
    iteration)."""
    n_words = counts.shape[0]
    n_topics = params.p.shape[0]
    log_prior_scale = np.empty(n_topics)
    log_scale = np.empty(n_topics)
    for t in range(n_topics):
        log_prior_scale[t] = params.log_p[t] - params.log1m_p[t]
        log_scale[t] = params.log_p[t] - math.log(
            (1.0 - params.p[t]) + params.p[t] * params.phi_sum[t]
        )
    x_sum = np.zeros(n_topics, dtype=np.int64)
    log_theta = np.empty(n_topics)
    phi_tj = transposed(phiw)
    work = rows_work(n_words, n_topics)
    lam = np.empty(n_words)
    shapes = shape_cache(n_topics)
    log_fact = log_factorials(counts)
    sample_theta(rng, params.r, x_sum, log_prior_scale, log_theta, shapes, False)
    for _ in range(burnin):
        if stopped(stop):
            return
        sample_rows(rng, n_words, counts, phi_tj, phiw, log_phiw, log_theta, x_sum, work)
        sample_theta(rng, params.r, x_sum, log_scale, log_theta, shapes, False)
    m, s = -np.inf, 0.0
    k = 0
    record_reset(rec)
    for i in range(checkpoints[-1]):
        if stopped(stop):
            return
        sample_rows(rng, n_words, counts, phi_tj, phiw, log_phiw, log_theta, x_sum, work)
        sample_theta(rng, params.r, x_sum, log_scale, log_theta, shapes, False)
        ll = log_likelihood(counts, phi_tj, log_phiw, log_theta, params.phi_sum, log_fact, work[0],
                            lam)
        m, s = lse_add(m, s, -ll)
        record_weight(rec, -ll)
        k = record(out_row, checkpoints, k, i + 1, math.log(i + 1.0) - lse_value(m, s))


@njit(cache=True, parallel=True, nogil=True)
def _hm_kernel(docs, params, burnin, seed, keys, run_keys, checkpoints, out, stats, stop):
    offsets, words, counts = docs.offsets, docs.words, docs.counts
    n_runs = run_keys.shape[0]
    for task in prange((offsets.shape[0] - 1) * n_runs):
        if stopped(stop):
            continue
        d = task // n_runs
        i = task - d * n_runs
        rng = np.empty(4, dtype=np.uint64)
        seed_into(rng, seed, KEY, keys[d], run_keys[i])
        lo, hi = offsets[d], offsets[d + 1]
        phiw, log_phiw = document_loadings(words[lo:hi], params)
        hm_document(rng, counts[lo:hi], phiw, log_phiw, params, burnin, checkpoints,
                    out[d, i], stats[d, i], stop)


def run(docs, params, *, seed, keys, run_keys, checkpoints, out, stats, burnin=100):
    """Fill ``out`` (D, R, K) with running HM estimates at the sample sizes ``checkpoints`` and
    ``stats`` with the records of ``topiceval.diagnostics``;
    task (d, i) uses the stream (seed, KEY, keys[d], run_keys[i]); Ctrl-C stops it
    (``interrupt.run``)."""
    interrupt.run(_hm_kernel, docs, params, burnin, seed, keys, run_keys, checkpoints, out,
                  stats)


def _cost(docs, t, s):
    """(B + S) Gibbs iterations of T J row updates, Y latent count draws and T theta draws, and
    S likelihoods of T J terms."""
    return ((s["burnin"] + s["samples"]) * (t * (n_words(docs) + 1) + n_tokens(docs))
            + s["samples"] * t * n_words(docs))


# the declaration of the method (estimators/method.py)
HM = Method(
    "hm", (Setting("samples", 1000, "posterior samples S", minimum=1),
           Setting("burnin", 100, "Gibbs iterations B before sampling")),
    cost=_cost, formula="(B + S) (T (J + 1) + Y) + S T J", budget="samples",
    cheaper=("burnin",), key=KEY, run=run, diagnostics="weights", consistent=False,
    nature="biased upward: the harmonic mean; never use it to compare models")
