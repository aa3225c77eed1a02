"""Slow NumPy references of every LDA estimator kernel (one document, one run).

Each reference takes the same random stream as the kernel's task (``rng_state(seed, key,
document key, run)``) and draws from it with the shared ``topiceval._numba`` functions in the
same order, so on the same inputs it must produce the same estimate.  The arithmetic is written
position by position from the equations (docs/methods/lda-estimators.md), with numpy
cumulative sums for the inverse-CDF draws, scipy for log-sum-exp and the Pólya urn product for
log P(z | alpha m).

The one non-obvious shared convention is the inverse CDF of the Gibbs conditional (1.5),
``draw`` below: with m topics in use, the sparse layout (2 m <= T) looks the topic up first in
the "document bucket" pw_t N_t over the topics in use (ascending), then in the "prior bucket"
pw_t alpha m_t; a site update (the site's old topic given) first tries the old topic's
document-bucket weight and leaves it out of the document bucket; the dense layout uses
pw_t (N_t + alpha m_t).  All are exact inverse CDFs of the same distribution (tested); the
kernel documents which one it uses (chains.py).  Left-to-right with rejuvenation on documents
with few distinct rows uses ``draw_cached`` instead, the same site-update layout with the total
taken from a running per-row sum (rejuvenation.py), which the reference keeps the same way.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.special import gammaln, logsumexp

from reference.lda_exact import log_urn
from topiceval import _numba as nb
from topiceval.estimators.lda.is_theta import DEFENSIVE
from topiceval.estimators.lda.rejuvenation import MAX_CACHED_ROWS

# --------------------------------------------------------------------------- building blocks
BRANCHES: Counter = Counter()


def weights_total(pw, am, cnt):
    """(total, layout data) of the conditional pw_t (N_t + alpha m_t) as the kernel lays it out."""
    nz = np.flatnonzero(cnt)
    if 2 * nz.size <= am.size:
        cum = np.cumsum(pw[nz] * cnt[nz])
        doc = cum[-1] if nz.size else 0.0
        return doc + np.cumsum(pw * am)[-1], ("sparse", nz, cum, doc)
    cum = np.cumsum(pw * (cnt + am))
    return cum[-1], ("dense", None, cum, -1.0)


def draw(pw, am, cnt, u, old=None):
    """Topic drawn by uniform u from P(t) ∝ pw_t (N_t + alpha m_t) (see the module docstring).

    ``old`` (a site update: the counts exclude the site) puts the old topic's document-bucket
    weight first in the sparse layout.  ``BRANCHES`` counts which part of the CDF each draw
    landed in, so tests can check that they exercised all of them.
    """
    total, (layout, nz, cum, doc) = weights_total(pw, am, cnt)
    x = u * total
    if layout == "dense":
        BRANCHES["dense"] += 1
        return min(int(np.searchsorted(cum, x, side="right")), am.size - 1)
    if old is not None:
        w_old = pw[old] * cnt[old]
        if x < w_old:
            BRANCHES["old topic"] += 1
            return old
        x -= w_old
        nz = nz[nz != old]
        cum = np.cumsum(pw[nz] * cnt[nz])
        doc = cum[-1] if nz.size else 0.0
    if x < doc:
        BRANCHES["document bucket"] += 1
        return int(nz[np.searchsorted(cum, x, side="right")])
    BRANCHES["prior bucket"] += 1
    prior = np.cumsum(pw * am)
    return min(int(np.searchsorted(prior, x - doc, side="right")), am.size - 1)


def gibbs_site(z, cnt, n, pw, am, rng):
    cnt[z[n]] -= 1
    z[n] = draw(pw, am, cnt, nb.uniform(rng), old=z[n])
    cnt[z[n]] += 1


def gibbs_sweep(z, cnt, positions, pw_of, am, rng):
    """Site updates in the given order; ``pw_of(n)`` is the weight row of position n."""
    for n in positions:
        gibbs_site(z, cnt, n, pw_of(n), am, rng)


def uniform_init(n, n_topics, rng):
    z = np.array([nb.randint(rng, n_topics) for _ in range(n)], dtype=np.int64)
    return z, np.bincount(z, minlength=n_topics).astype(np.int64)


def log_prior(cnt, am):
    """log P(z | alpha m), eq. (1.1), as the Pólya urn's product of (alpha m_t + k) / (alpha + k)
    (``lda_exact.log_urn``: a sum of logarithms, exact for every alpha m)."""
    return float(log_urn(np.asarray(cnt)[None, :], am)[0])


def log_joint(doc, z, phi, am):
    """log P(w, z | Phi, alpha m), eq. (1.3)."""
    cnt = np.bincount(z, minlength=am.size)
    return np.log(phi[z, doc]).sum() + log_prior(cnt, am)


def lse_mean(values):
    return logsumexp(values) - np.log(len(values))


# --------------------------------------------------------------------------- §2 estimators
def is_pt(doc, phi, am, samples, rng, weights=None):
    """§2.1: theta ~ Dir(alpha m) (log space); l = sum_n log sum_t theta_t phi_{w_n|t}; the
    log weights l_s are appended to the list ``weights`` if one is given."""
    ells = [] if weights is None else weights
    lt = np.empty(am.size)
    for _ in range(samples):
        nb.log_dirichlet_into(rng, am, lt)
        ells.append(sum(logsumexp(lt + np.log(phi[:, w])) for w in doc))
    return lse_mean(ells)


def log_dirichlet(lt, a):
    """log Dir(theta; a) at log theta = ``lt``."""
    return gammaln(a.sum()) - gammaln(a).sum() + ((a - 1.0) * lt).sum()


def is_theta(doc, phi, am, samples, draws, burnin, rng, weights=None):
    """IS-θ (2.10): B + S forward Gibbs sweeps, the counts n_s of the last S, then M draws of
    theta from eps Dir(alpha m) + (1 - eps) mean_s Dir(alpha m + n_s), each weighted by
    P(w | theta) Dir(theta; alpha m) / q(theta) with every density written out."""
    n = len(doc)
    z, cnt = uniform_init(n, am.size, rng)

    def pw_of(i):
        return phi[:, doc[i]]

    counts = []
    for it in range(burnin + samples):
        gibbs_sweep(z, cnt, range(n), pw_of, am, rng)
        if it >= burnin:
            counts.append(cnt.astype(float))
    ells = [] if weights is None else weights
    lt = np.empty(am.size)
    for _ in range(draws):
        if nb.uniform(rng) < DEFENSIVE:
            nb.log_dirichlet_into(rng, am, lt)
        else:
            nb.log_dirichlet_into(rng, am + counts[nb.randint(rng, samples)], lt)
        log_q = logsumexp([np.log(DEFENSIVE) + log_dirichlet(lt, am)]
                          + [np.log((1 - DEFENSIVE) / samples) + log_dirichlet(lt, am + c)
                             for c in counts])
        log_lik = sum(logsumexp(lt + np.log(phi[:, w])) for w in doc)
        ells.append(log_lik + log_dirichlet(lt, am) - log_q)
    return lse_mean(ells)


def bridge_theta(doc, phi, am, samples, draws, burnin, rng):
    """Bridge-theta (2.11): IS-theta's proposal and draws from it (as ``is_theta``), then a
    second chain from a uniform start whose states after ``burnin`` sweeps each give theta ~
    Dir(alpha m + n(z)); the fixed point of (2.11) from IS-theta's estimate, with every density
    written out."""
    n = len(doc)

    def pw_of(i):
        return phi[:, doc[i]]

    def log_weight(lt):
        log_q = logsumexp([np.log(DEFENSIVE) + log_dirichlet(lt, am)]
                          + [np.log((1 - DEFENSIVE) / samples) + log_dirichlet(lt, am + c)
                             for c in counts])
        log_lik = sum(logsumexp(lt + np.log(phi[:, w])) for w in doc)
        return log_lik + log_dirichlet(lt, am) - log_q

    z, cnt = uniform_init(n, am.size, rng)
    counts = []
    for it in range(burnin + samples):
        gibbs_sweep(z, cnt, range(n), pw_of, am, rng)
        if it >= burnin:
            counts.append(cnt.astype(float))
    lt = np.empty(am.size)
    forward = []
    for _ in range(draws):
        if nb.uniform(rng) < DEFENSIVE:
            nb.log_dirichlet_into(rng, am, lt)
        else:
            nb.log_dirichlet_into(rng, am + counts[nb.randint(rng, samples)], lt)
        forward.append(log_weight(lt))
    z, cnt = uniform_init(n, am.size, rng)
    backward = []
    for it in range(burnin + draws):
        gibbs_sweep(z, cnt, range(n), pw_of, am, rng)
        if it >= burnin:
            nb.log_dirichlet_into(rng, am + cnt, lt)
            backward.append(log_weight(lt))
    forward, backward = np.array(forward), np.array(backward)
    log_sk = np.log(len(backward) / (len(backward) + len(forward)))
    log_sm = np.log(len(forward) / (len(backward) + len(forward)))
    r = lse_mean(forward)
    for _ in range(1000):
        new = (lse_mean(forward - np.logaddexp(log_sk + forward, log_sm + r))
               - lse_mean(-np.logaddexp(log_sk + backward, log_sm + r)))
        if abs(new - r) <= 1e-12:
            return new
        r = new
    return r


def _is_from_proposal(doc, phi, am, q, samples, rng):
    """IS with independent per-position proposals q[n] (rows summing to 1, up to rounding)."""
    ells = []
    for _ in range(samples):
        z = np.empty(len(doc), dtype=np.int64)
        for n in range(len(doc)):
            cum = np.cumsum(q[n])
            z[n] = min(int(np.searchsorted(cum, nb.uniform(rng) * cum[-1], side="right")),
                       am.size - 1)
        log_q = np.log(q[np.arange(len(doc)), z]) - np.log(q.sum(axis=1))
        ells.append(log_joint(doc, z, phi, am) - log_q.sum())
    return lse_mean(ells)


def is_pzw(doc, phi, am, samples, rng):
    """§2.2: Q(z_n) ∝ alpha m_t phi_{w_n|t}."""
    q = (am[:, None] * phi[:, doc]).T
    return _is_from_proposal(doc, phi, am, q, samples, rng)


def iterated_q(doc, phi, am, iterations):
    """§2.3, eq. (11): synchronous updates of the per-position proposals."""
    q = (am[:, None] * phi[:, doc]).T
    q /= q.sum(axis=1, keepdims=True)
    n = len(doc)
    for _ in range(iterations):
        others = np.array([q[np.arange(n) != i].sum(axis=0) for i in range(n)])  # n' != n
        q = (am[None, :] + others) * phi[:, doc].T
        q /= q.sum(axis=1, keepdims=True)
    return q


def is_ip(doc, phi, am, iterations, samples, rng):
    return _is_from_proposal(doc, phi, am, iterated_q(doc, phi, am, iterations), samples, rng)


def hm(doc, phi, am, burnin, samples, rng):
    """§2.4: uniform start, B sweeps, then S sweeps each followed by l_s = log P(w | z)."""
    z, cnt = uniform_init(len(doc), am.size, rng)

    def pw_of(n):
        return phi[:, doc[n]]

    for _ in range(burnin):
        gibbs_sweep(z, cnt, range(len(doc)), pw_of, am, rng)
    ells = []
    for _ in range(samples):
        gibbs_sweep(z, cnt, range(len(doc)), pw_of, am, rng)
        ells.append(np.log(phi[z, doc]).sum())
    return np.log(samples) - logsumexp(-np.array(ells))


def urn_draw(z, cnt, positions, am, rng):
    """z_n ∝ N_t + alpha m_t over the given new positions (prior / Pólya urn)."""
    for n in positions:
        z[n] = draw(np.ones(am.size), am, cnt, nb.uniform(rng))
        cnt[z[n]] += 1


def ais(doc, phi, am, tau, rng):
    """§2.5 Algorithm 1 with schedule tau = (0, τ_1, ..., 1)."""
    return ais_state(doc, phi, am, tau, rng)[0]


def ais_state(doc, phi, am, tau, rng):
    """``ais``, and the final state (z, counts)."""
    n = len(doc)
    z = np.zeros(n, dtype=np.int64)
    cnt = np.zeros(am.size, dtype=np.int64)
    urn_draw(z, cnt, range(n), am, rng)
    logw = (tau[1] - tau[0]) * np.log(phi[z, doc]).sum()
    for s in range(1, len(tau) - 1):
        gibbs_sweep(z, cnt, range(n), lambda i, s=s: np.exp(tau[s] * np.log(phi[:, doc[i]])),
                    am, rng)
        logw += (tau[s + 1] - tau[s]) * np.log(phi[z, doc]).sum()
    return logw, z, cnt


def bdmc(doc, phi, am, tau, burnin, rng, start=None):
    """BDMC: (lower, upper).  Forward AIS; then from ``start`` (a posterior sample z) or the
    forward run's final state, ``burnin`` forward sweeps at τ = 1, and the reverse run: the
    sweeps of the schedule backwards, each in the reverse site order N..1, adding
    (τ_s - τ_{s-1}) log P(w | z^(s)) from s = S down to 1."""
    n = len(doc)
    lower, z, cnt = ais_state(doc, phi, am, tau, rng)
    if start is not None:
        z = np.asarray(start, dtype=np.int64).copy()
        cnt = np.bincount(z, minlength=am.size)
    for _ in range(burnin):
        gibbs_sweep(z, cnt, range(n), lambda i: phi[:, doc[i]], am, rng)
    upper = (tau[-1] - tau[-2]) * np.log(phi[z, doc]).sum()
    for s in range(len(tau) - 2, 0, -1):
        gibbs_sweep(z, cnt, range(n - 1, -1, -1),
                    lambda i, s=s: np.exp(tau[s] * np.log(phi[:, doc[i]])), am, rng)
        upper += (tau[s] - tau[s - 1]) * np.log(phi[z, doc]).sum()
    return lower, upper


def log_transition(z, zstar, doc, phi, am):
    """log T(z* <- z), eq. (2.2), written as the product of normalised conditionals."""
    z = z.copy()
    cnt = np.bincount(z, minlength=am.size)
    out = 0.0
    for n in range(len(doc)):
        cnt[z[n]] -= 1
        total, _ = weights_total(phi[:, doc[n]], am, cnt)
        t = zstar[n]
        out += np.log(phi[t, doc[n]] * (cnt[t] + am[t])) - np.log(total)
        z[n] = t
        cnt[t] += 1
    return out


def chib(doc, phi, am, samples, burnin, iterations, rng, chain=None):
    """§2.6 Algorithm 2 with z* from G0 sweeps and ICM; the chain's log-likelihoods
    log P(w | z^(s), Phi), s = 1..S, are appended to the list ``chain`` if one is given."""
    n = len(doc)
    z, cnt = uniform_init(n, am.size, rng)

    def pw_of(i):
        return phi[:, doc[i]]

    for _ in range(burnin):
        gibbs_sweep(z, cnt, range(n), pw_of, am, rng)
    for _ in range(iterations):
        changed = False
        for i in range(n):
            cnt[z[i]] -= 1
            best = int(np.argmax(phi[:, doc[i]] * (cnt + am)))
            changed |= best != z[i]
            z[i] = best
            cnt[best] += 1
        if not changed:
            break
    zstar = z.copy()
    start = nb.randint(rng, samples)
    states = {}
    gibbs_sweep(z, cnt, range(n - 1, -1, -1), pw_of, am, rng)
    states[start] = z.copy()
    for s in range(start + 1, samples):
        gibbs_sweep(z, cnt, range(n), pw_of, am, rng)
        states[s] = z.copy()
    z = states[start].copy()
    cnt = np.bincount(z, minlength=am.size)
    for s in range(start - 1, -1, -1):
        gibbs_sweep(z, cnt, range(n - 1, -1, -1), pw_of, am, rng)
        states[s] = z.copy()
    log_t = [log_transition(states[s], zstar, doc, phi, am) for s in range(samples)]
    if chain is not None:
        chain.extend(np.log(phi[states[s], doc]).sum() for s in range(samples))
    return log_joint(doc, zstar, phi, am) - lse_mean(log_t)


def draw_cached(pw, am, cnt, u, old, doc_total):
    """rejuvenation.py's site update: the old topic first against the cached row total.

    ``doc_total`` is the row's cached sum_t pw_t N_t with the site still counted; ``cnt``
    excludes the site.  Past the old topic: the other topics in use, then the prior bucket.
    """
    prior = np.cumsum(pw * am)
    x = u * (doc_total - pw[old] + prior[-1])
    w_old = pw[old] * cnt[old]
    if x < w_old:
        BRANCHES["old topic"] += 1
        return old
    x -= w_old
    nz = np.flatnonzero(cnt)
    nz = nz[nz != old]
    cum = np.cumsum(pw[nz] * cnt[nz])
    i = int(np.searchsorted(cum, x, side="right"))
    if i < nz.size:
        BRANCHES["document bucket"] += 1
        return int(nz[i])
    x -= cum[-1] if nz.size else 0.0
    BRANCHES["prior bucket"] += 1
    return min(int(np.searchsorted(prior, x, side="right")), am.size - 1)


def particle_log_weights(doc, phi, am, particles, resample, rng, row_keys=None):
    """§2.7: a[n, r] for every position and particle.

    With rejuvenation, a document of at most ``MAX_CACHED_ROWS`` distinct rows (``row_keys``:
    the word of each position, or its (part, word) in completion) follows the kernel's cached
    row totals (rejuvenation.py); longer ones use ``draw`` as chains.left_to_right does.
    """
    n_tok = len(doc)
    alpha = am.sum()
    keys = doc if row_keys is None else row_keys
    first = {}
    local = np.array([first.setdefault(k, len(first)) for k in keys])  # rows by first position
    cached = resample and len(first) <= MAX_CACHED_ROWS
    pwt = phi[:, np.asarray(doc)[np.unique(local, return_index=True)[1]]]  # (T, rows)
    a = np.empty((n_tok, particles))
    for r in range(particles):
        z = np.zeros(n_tok, dtype=np.int64)
        cnt = np.zeros(am.size, dtype=np.int64)
        cache = np.zeros(len(first))  # the kernel's running row totals
        for n in range(n_tok):
            pw = phi[:, doc[n]]
            if cached:
                for i in range(n):
                    cnt[z[i]] -= 1
                    k = draw_cached(phi[:, doc[i]], am, cnt, nb.uniform(rng), z[i],
                                    cache[local[i]])
                    if k != z[i]:
                        cache += pwt[k] - pwt[z[i]]
                        z[i] = k
                    cnt[k] += 1
                nz = np.flatnonzero(cnt)
                cum = np.cumsum(pw[nz] * cnt[nz])
                if local[n] not in local[:n]:  # the row's first position: sum it afresh
                    cache[local[n]] = cum[-1] if nz.size else 0.0
                doc_total = cache[local[n]]
                prior = np.cumsum(pw * am)
                total = doc_total + prior[-1]
                a[n, r] = np.log(total) - np.log(n + alpha)
                x = nb.uniform(rng) * total
                i = int(np.searchsorted(cum, x, side="right"))
                if i < nz.size:
                    z[n] = nz[i]
                else:
                    x -= cum[-1] if nz.size else 0.0
                    z[n] = min(int(np.searchsorted(prior, x, side="right")), am.size - 1)
                cache += pwt[z[n]]
            else:
                if resample:
                    gibbs_sweep(z, cnt, range(n), lambda i: phi[:, doc[i]], am, rng)
                total, _ = weights_total(pw, am, cnt)
                a[n, r] = np.log(total) - np.log(n + alpha)
                z[n] = draw(pw, am, cnt, nb.uniform(rng))
            cnt[z[n]] += 1
    return a


def lr(doc, phi, am, particles, resample, rng):
    """(sequential (2.5), Wallach (2.4)) from the same particles."""
    a = particle_log_weights(doc, phi, am, particles, resample, rng)
    seq = logsumexp(a.sum(axis=0)) - np.log(particles)
    wallach = np.sum(logsumexp(a, axis=1) - np.log(particles))
    return seq, wallach


# --------------------------------------------------------------------------- §3 completion
def et(doc, n1, phi, am, burnin, samples, rng):
    """§3.1: estimated theta from Gibbs on w1, clamped over w2."""
    z, cnt = uniform_init(n1, am.size, rng)
    alpha = am.sum()
    for _ in range(burnin):
        gibbs_sweep(z, cnt, range(n1), lambda i: phi[:, doc[i]], am, rng)
    ells = []
    for _ in range(samples):
        gibbs_sweep(z, cnt, range(n1), lambda i: phi[:, doc[i]], am, rng)
        theta = (cnt + am) / (n1 + alpha)
        ells.append(sum(np.log(phi[:, w] @ theta) for w in doc[n1:]))
    return lse_mean(ells)


def ais_dc(doc, n1, phi, am, burnin, tau, rng):
    """§3.2 with target (3.1): w1 untempered, w2 tempered."""
    n = len(doc)
    z = np.zeros(n, dtype=np.int64)
    z[:n1], cnt = uniform_init(n1, am.size, rng)
    for _ in range(burnin):
        gibbs_sweep(z, cnt, range(n1), lambda i: phi[:, doc[i]], am, rng)
    urn_draw(z, cnt, range(n1, n), am, rng)

    def ll2():
        return np.log(phi[z[n1:], doc[n1:]]).sum()

    logw = (tau[1] - tau[0]) * ll2()
    for s in range(1, len(tau) - 1):
        def pw_of(i, s=s):
            row = np.log(phi[:, doc[i]])
            return np.exp(tau[s] * row) if i >= n1 else phi[:, doc[i]]

        gibbs_sweep(z, cnt, range(n), pw_of, am, rng)
        logw += (tau[s + 1] - tau[s]) * ll2()
    return logw


def lr_dc(doc, n1, phi, am, particles, resample, rng):
    """§3.3: (sequential ratio, Wallach form over w2)."""
    row_keys = np.asarray(doc) + phi.shape[1] * (np.arange(len(doc)) >= n1)  # (part, word)
    a = particle_log_weights(doc, phi, am, particles, resample, rng, row_keys)
    seq = logsumexp(a.sum(axis=0)) - logsumexp(a[:n1].sum(axis=0))
    wallach = np.sum(logsumexp(a[n1:], axis=1) - np.log(particles))
    return seq, wallach
