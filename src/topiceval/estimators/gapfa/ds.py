"""DS: direct sampling of theta from the prior (docs/methods/gapfa.md#direct-sampling,
capdevila2018 eq. 9).

    theta^(s)_t ~ Ga(r_t, p_t / (1 - p_t)),   l_s = log p(y_d | theta^(s))
    log p-hat(y_d) = LSE_s(l_s) - log S

Unbiased for p(y_d) (not for its log).  Cost O(S T J).  One stream per (document, run) task,
keyed (seed, KEY, document key, run); the running estimate is recorded at every checkpoint.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from topiceval import interrupt
from topiceval._numba import lse_add, lse_value, seed_into
from topiceval.diagnostics import record_reset, record_weight
from topiceval.estimators.gapfa._data import n_words
from topiceval.estimators.gapfa._kernels import (
    document_loadings,
    log_factorials,
    log_likelihood,
    record,
    sample_theta,
    shape_cache,
    transposed,
)
from topiceval.estimators.method import Method, Setting
from topiceval.interrupt import stopped

KEY = 401


@njit(cache=True)
def ds_document(rng, counts, phiw, log_phiw, params, checkpoints, out_row, rec, stop):
    """Running DS estimates at ``checkpoints`` into ``out_row``, the weights in the record
    ``rec`` (``topiceval.diagnostics``); unfinished once ``stop`` is set (polled once per
    sample)."""
    n_topics = params.p.shape[0]
    log_scale = np.empty(n_topics)
    zeros = np.zeros(n_topics)
    for t in range(n_topics):
        log_scale[t] = params.log_p[t] - params.log1m_p[t]
    log_theta = np.empty(n_topics)
    theta = np.empty(n_topics)
    lam = np.empty(counts.shape[0])
    phi_tj = transposed(phiw)
    shapes = shape_cache(n_topics)
    log_fact = log_factorials(counts)
    m, s = -np.inf, 0.0
    k = 0
    record_reset(rec)
    for i in range(checkpoints[-1]):
        if stopped(stop):
            return
        sample_theta(rng, params.r, zeros, log_scale, log_theta, shapes, False)
        ll = log_likelihood(counts, phi_tj, log_phiw, log_theta, params.phi_sum, log_fact, theta,
                            lam)
        m, s = lse_add(m, s, ll)
        record_weight(rec, ll)
        k = record(out_row, checkpoints, k, i + 1, lse_value(m, s) - math.log(i + 1.0))


@njit(cache=True, parallel=True, nogil=True)
def _ds_kernel(docs, params, seed, keys, run_keys, checkpoints, out, stats, stop):
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
        ds_document(rng, counts[lo:hi], phiw, log_phiw, params, checkpoints, out[d, i],
                    stats[d, i], stop)


def run(docs, params, *, seed, keys, run_keys, checkpoints, out, stats):
    """Fill ``out`` (D, R, K) with running DS estimates at the sample sizes ``checkpoints`` and
    ``stats`` (D, R, W) with the records of ``topiceval.diagnostics``;
    task (d, i) uses the stream (seed, KEY, keys[d], run_keys[i]); Ctrl-C stops it
    (``interrupt.run``)."""
    interrupt.run(_ds_kernel, docs, params, seed, keys, run_keys, checkpoints, out, stats)


# the declaration of the method (estimators/method.py): S T J topic-word site updates
DS = Method(
    "ds", (Setting("samples", 1000, "prior samples S", minimum=1),),
    cost=lambda docs, t, s: s["samples"] * t * (n_words(docs) + 1), formula="S T (J + 1)",
    budget="samples", key=KEY, run=run, diagnostics="weights",
    nature="unbiased for p(y), very high variance (direct sampling from the prior)")
