"""Slow NumPy reference of the ratio-AIS kernel (ratio_ais.py).

Described in docs/methods/lda-estimators.md#ratio-ais.

One importance sample at a time, written position by position from the equations, drawing from the
same random stream as the kernel (``rng_state(seed, 21 + stream, document key, sample)``) with
the shared ``topiceval._numba`` functions in the same order.  The Gibbs draws of the start model
and of the equal-prior bridge reuse the inverse-CDF convention of the single-model reference
(``lda_estimators_ref.draw``: sparse/dense layout); the different-prior bridge draws topic t with
weight exp(lp_t + β log(N_t + a_t) + (1 - β) log(N_t + b_t)) by a plain cumulative sum.  With
equal priors and a linear schedule of n temperatures (``linear``), the tempered row of word v at
β_s, s >= 2, is the row at β_(s-1) times exp((log phi1_v - log phi2_v) / n), as in the kernel.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from reference import lda_estimators_ref as ref
from topiceval import _numba as nb

KEY_BASE = 21


def bridge_log_row(l1, l2, beta):
    """β l1 + (1 - β) l2 shifted so its maximum is 0 (the log of the tempered phi row)."""
    x = beta * l1 + (1.0 - beta) * l2
    return x - x.max()


def bridge_row(l1, l2, beta):
    return np.array([math.exp(v) for v in bridge_log_row(l1, l2, beta)])


def log_f_ratio(doc, z, logphi1, logphi2, am1, am2):
    """Δ(z) = log P(w, z | model 1) - log P(w, z | model 2), eq. (1.3) twice."""
    out = 0.0
    for n in range(len(doc)):
        out += logphi1[z[n], doc[n]]
    other = 0.0
    for n in range(len(doc)):
        other += logphi2[z[n], doc[n]]
    out -= other
    if not np.array_equal(am1, am2):
        cnt = np.bincount(z, minlength=am1.size)
        out += ref.log_prior(cnt, am1) - ref.log_prior(cnt, am2)
    return out


def general_site(z, cnt, n, lp, am1, am2, beta, rng):
    """One site update of (5.1) with different priors."""
    cnt[z[n]] -= 1
    w = [math.exp(lp[t] + beta * math.log(cnt[t] + am1[t])
                  + (1.0 - beta) * math.log(cnt[t] + am2[t])) for t in range(am1.size)]
    cum = np.cumsum(w)
    x = nb.uniform(rng) * cum[-1]
    z[n] = min(int(np.searchsorted(cum, x, side="right")), am1.size - 1)
    cnt[z[n]] += 1


def sample(doc, phi1, am1, phi2, am2, tau, burnin, rng, start=None, linear=False):
    """log w of one importance sample annealing from model 2's posterior to model 1 (§5.2).

    ``start``: an exact posterior state under model 2 (no urn draw, no burn-in), or None.
    """
    doc = np.asarray(doc)
    n_tok = len(doc)
    logphi1, logphi2 = np.log(phi1), np.log(phi2)
    same = np.array_equal(am1, am2)
    if start is None:
        z = np.zeros(n_tok, dtype=np.int64)
        cnt = np.zeros(am2.size, dtype=np.int64)
        ref.urn_draw(z, cnt, range(n_tok), am2, rng)
        for _ in range(burnin):
            ref.gibbs_sweep(z, cnt, range(n_tok),
                            lambda i: bridge_row(logphi1[:, doc[i]], logphi2[:, doc[i]], 0.0),
                            am2, rng)
    else:
        z = np.array(start, dtype=np.int64)
        cnt = np.bincount(z, minlength=am2.size)
    logw = (tau[1] - tau[0]) * log_f_ratio(doc, z, logphi1, logphi2, am1, am2)
    n_temps = len(tau) - 1
    table = {}  # word -> tempered row (equal priors)
    for s in range(1, n_temps):
        beta = tau[s]
        if same:
            for v in set(doc.tolist()):
                if linear and s > 1:
                    factor = np.array([math.exp(x / n_temps)
                                       for x in logphi1[:, v] - logphi2[:, v]])
                    table[v] = table[v] * factor
                else:
                    table[v] = bridge_row(logphi1[:, v], logphi2[:, v], beta)
            ref.gibbs_sweep(z, cnt, range(n_tok), lambda i: table[doc[i]], am1, rng)
        else:
            for n in range(n_tok):
                lp = bridge_log_row(logphi1[:, doc[n]], logphi2[:, doc[n]], beta)
                general_site(z, cnt, n, lp, am1, am2, beta, rng)
        logw += (tau[s + 1] - tau[s]) * log_f_ratio(doc, z, logphi1, logphi2, am1, am2)
    return logw


def run(doc, stream, n1, model_a, model_b, tau, burnin, samples, seed, key, starts=None,
        linear=False):
    """The ``samples`` log weights of run ``stream`` (0: w, B -> A; 1: w, A -> B; 2: w^a,
    B -> A; 3: w^a, A -> B) on one document."""
    target, start = (model_a, model_b) if stream % 2 == 0 else (model_b, model_a)
    part = doc if stream < 2 else doc[:n1]
    return np.array([
        sample(part, *target, *start, tau, burnin, nb.rng_state(seed, KEY_BASE + stream, key, i),
               None if starts is None else starts[i], linear)
        for i in range(samples)
    ])


def lse_mean(logw):
    return logsumexp(logw) - np.log(len(logw))
