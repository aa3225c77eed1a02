"""Slow Python references of the GaP-FA sampling estimators (DS, HM, L2R, L2R-E, l2r_seq).

Each reproduces its kernel's random-number consumption exactly: the same keyed stream
(``rng_state(seed, key, d, particle)``), the same draw functions (``log_gamma_variate_zig`` from
the shared module, with its own reference in reference/ziggurat_ref.py, ``multinomial_into`` from
``topiceval._numba``) called in the same order.
The arithmetic is plain NumPy/scipy: NB/multinomial log pmfs from scipy.stats, the exact
conditional (6.15) by enumerating comp(y_j, T), LSE from scipy.  One dense document at a time.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats
from scipy.special import gammaln, logsumexp

from reference.gapfa_exact import compositions
from topiceval._numba import log_gamma_variate_zig, multinomial_into, rng_state


def _theta(rng, shapes, log_scales):
    return np.array([log_gamma_variate_zig(rng, a) + ls
                     for a, ls in zip(shapes, log_scales, strict=True)])


def _rows(rng, ys, phiw, log_theta, n_rows):
    x = np.zeros((n_rows, phiw.shape[1]), dtype=np.int64)
    for j in range(n_rows):
        logits = np.log(phiw[j]) + log_theta
        weights = np.exp(logits - logits.max())
        multinomial_into(rng, int(ys[j]), weights, np.empty(weights.size), x[j])
    return x


def _loglik(ys, phiw, log_theta, phi_sum):
    lam = np.exp(log_theta) @ phiw.T
    with np.errstate(divide="ignore"):
        return float(np.sum(ys * np.log(lam) - gammaln(ys + 1.0)) - np.exp(log_theta) @ phi_sum)


def _curve(values, checkpoints):
    return np.array([logsumexp(values[:c]) - math.log(c) for c in checkpoints])


def _doc(y, phi):
    words = np.flatnonzero(y)
    return y[words].astype(np.int64), phi[:, words].T.copy()


def ds(y, phi, p, r, *, seed, d, checkpoints, key=401):
    ys, phiw = _doc(y, phi)
    rng = rng_state(seed, key, d, 0)
    log_scale = np.log(p) - np.log1p(-p)
    ll = [_loglik(ys, phiw, _theta(rng, r, log_scale), phi.sum(1))
          for _ in range(checkpoints[-1])]
    return _curve(np.asarray(ll), checkpoints)


def hm(y, phi, p, r, *, seed, d, checkpoints, burnin, key=402):
    ys, phiw = _doc(y, phi)
    rng = rng_state(seed, key, d, 0)
    log_scale = np.log(p) - np.log(1 - p + p * phi.sum(1))
    log_theta = _theta(rng, r, np.log(p) - np.log1p(-p))
    neg = []
    for i in range(burnin + checkpoints[-1]):
        x = _rows(rng, ys, phiw, log_theta, len(ys))
        log_theta = _theta(rng, r + x.sum(0), log_scale)
        if i >= burnin:
            neg.append(-_loglik(ys, phiw, log_theta, phi.sum(1)))
    return -_curve(np.asarray(neg), checkpoints)


def _log_nb(b, a, pi):
    return float(np.sum(stats.nbinom.logpmf(b, a, 1.0 - pi)))


def _exact_conditional(y, a, pi):
    return logsumexp([_log_nb(np.array(b), a, pi) for b in compositions(y, a.size)])


def _proposal(phi_j, a, left_scale, pi_j, mode):
    w = a * pi_j * phi_j if mode == "code" else a * left_scale * phi_j
    return w / w.sum()


def l2r(y, phi, p, r, *, seed, d, checkpoints, inner=1, gibbs=1, mode="paper", key=403):
    """mode: "paper" / "code" (importance-sampled conditionals) or "exact" (L2R-E)."""
    ys, phiw = _doc(y, phi)
    n_words, n_topics = phiw.shape
    rng = rng_state(seed, key, d, 0)
    cum = np.vstack([np.zeros(n_topics), np.cumsum(phiw, axis=0)])  # F(j), j = 0..J
    left_scale = p / (1 - p + p * cum)  # (J+1, T)
    pi = p * phiw / (1 - p + p * cum[1:])
    zero = (1 - p + p * cum[-1]) / (1 - p + p * phi.sum(1))
    x = np.zeros((n_words, n_topics), dtype=np.int64)
    total = np.zeros(len(checkpoints))
    for j in range(n_words + 1):
        log_c = []
        for _ in range(checkpoints[-1]):
            if j > 0:
                for _ in range(gibbs):
                    log_theta = _theta(rng, r + x[:j].sum(0), np.log(left_scale[j]))
                    x[:j] = _rows(rng, ys, phiw, log_theta, j)
            a = r + x[:j].sum(0)
            if j == n_words:
                log_c.append(float(a @ np.log(zero)))
                continue
            rho = _proposal(phiw[j], a, left_scale[j], pi[j], mode)
            if mode == "exact":
                multinomial_into(rng, int(ys[j]), rho, np.empty(n_topics), x[j])
                log_c.append(_exact_conditional(int(ys[j]), a, pi[j]))
                continue
            logw = []
            for _ in range(inner):
                multinomial_into(rng, int(ys[j]), rho, np.empty(n_topics), x[j])
                logw.append(_log_nb(x[j], a, pi[j])
                            - stats.multinomial.logpmf(x[j], int(ys[j]), rho))
            log_c.append(logsumexp(logw) - math.log(inner))
        total += _curve(np.asarray(log_c), checkpoints)
    return total


def l2r_seq(y, phi, p, r, *, seed, d, checkpoints, gibbs=1, key=405):
    ys, phiw = _doc(y, phi)
    n_words, n_topics = phiw.shape
    cum = np.vstack([np.zeros(n_topics), np.cumsum(phiw, axis=0)])
    left_scale = p / (1 - p + p * cum)
    pi = p * phiw / (1 - p + p * cum[1:])
    zero = (1 - p + p * cum[-1]) / (1 - p + p * phi.sum(1))
    log_w = []
    for i in range(checkpoints[-1]):
        rng = rng_state(seed, key, d, i)
        x = np.zeros((n_words, n_topics), dtype=np.int64)
        lw = 0.0
        for j in range(n_words):
            if j > 0:
                for _ in range(gibbs):
                    log_theta = _theta(rng, r + x[:j].sum(0), np.log(left_scale[j]))
                    x[:j] = _rows(rng, ys, phiw, log_theta, j)
            a = r + x[:j].sum(0)
            rho = _proposal(phiw[j], a, left_scale[j], pi[j], "paper")
            multinomial_into(rng, int(ys[j]), rho, np.empty(n_topics), x[j])
            lw += _log_nb(x[j], a, pi[j]) - stats.multinomial.logpmf(x[j], int(ys[j]), rho)
        log_w.append(lw + float((r + x.sum(0)) @ np.log(zero)))
    return _curve(np.asarray(log_w), checkpoints)


def _path(ys, phiw, p, r):
    """log m_t and sum_j [y_j log c_j - log y_j!] of the annealed path (6.20)-(6.22)."""
    log_m = np.log(r) + np.log(p) - np.log1p(-p)
    with np.errstate(divide="ignore"):
        log_c = logsumexp(np.log(phiw) + log_m, axis=1) if len(ys) else np.zeros(0)
    return log_m, float(np.sum(ys * log_c - gammaln(ys + 1.0)))


def _increment(x_sum, log_theta, log_m, phi_sum):
    """g(theta, X) of (6.22)."""
    keep = x_sum > 0
    return float(np.sum(x_sum[keep] * (log_theta[keep] - log_m[keep]))
                 - np.exp(log_theta[phi_sum > 0]) @ phi_sum[phi_sum > 0])


def _tempered_theta(rng, tau, x_sum, p, r, phi_sum):
    """theta | x at τ (6.21)."""
    return _theta(rng, r + tau * x_sum, np.log(p) - np.log((1.0 - p) + tau * p * phi_sum))


def _tempered_rows(rng, tau, ys, phiw, log_m, log_theta):
    """The topic totals X of x | theta at τ (6.20)."""
    return _rows(rng, ys, phiw, (1.0 - tau) * log_m + tau * log_theta, len(ys)).sum(0)


def anneal(y, phi, p, r, *, seed, d, run, tau, burnin=0, start=None, reverse=False, key=406):
    """AIS (``reverse`` False: the estimate) or BDMC (the pair lower, upper) for one document
    and run: the forward run from (theta ~ prior, x ~ rho), a sweep x | theta, theta | x per
    temperature; then from the topic totals ``start`` (or the forward run's final ones after
    ``burnin`` sweeps at τ = 1), theta | X at τ = 1 and the reversed sweeps (theta | x, then
    x | theta) down the schedule."""
    ys, phiw = _doc(y, phi)
    phi_sum = phi.sum(1)
    rng = rng_state(seed, key, d, run)
    log_m, const = _path(ys, phiw, p, r)
    log_theta = _theta(rng, r, np.log(p) - np.log1p(-p))
    x_sum = _rows(rng, ys, phiw, log_m, len(ys)).sum(0)
    lower = (tau[1] - tau[0]) * _increment(x_sum, log_theta, log_m, phi_sum)
    for s in range(1, len(tau) - 1):
        x_sum = _tempered_rows(rng, tau[s], ys, phiw, log_m, log_theta)
        log_theta = _tempered_theta(rng, tau[s], x_sum, p, r, phi_sum)
        lower += (tau[s + 1] - tau[s]) * _increment(x_sum, log_theta, log_m, phi_sum)
    if not reverse:
        return lower + const
    if start is not None:
        x_sum = np.asarray(start)
    for _ in range(burnin):
        x_sum = _tempered_rows(rng, 1.0, ys, phiw, log_m, log_theta)
        log_theta = _tempered_theta(rng, 1.0, x_sum, p, r, phi_sum)
    log_theta = _tempered_theta(rng, 1.0, x_sum, p, r, phi_sum)
    upper = (tau[-1] - tau[-2]) * _increment(x_sum, log_theta, log_m, phi_sum)
    for s in range(len(tau) - 2, 0, -1):
        log_theta = _tempered_theta(rng, tau[s], x_sum, p, r, phi_sum)
        x_sum = _tempered_rows(rng, tau[s], ys, phiw, log_m, log_theta)
        upper += (tau[s] - tau[s - 1]) * _increment(x_sum, log_theta, log_m, phi_sum)
    return lower + const, upper + const
