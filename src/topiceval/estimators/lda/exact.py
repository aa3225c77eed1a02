"""Exact P(w | Phi, alpha m) by a forward recursion over topic-count vectors.

Described in docs/methods/lda-estimators.md#exact-recursion.

The collapsed joint depends on z only through the order-free Pólya-urn factors, so summing over
z position by position only needs the count vector c (sum_t c_t = n):

    g_0(0) = 1
    g_n(c) = sum_{t: c_t >= 1} g_{n-1}(c - e_t) phi_{w_n|t} (c_t - 1 + alpha m_t) / (n - 1 + alpha)
    P(w_{<=n}) = sum_{|c| = n} g_n(c)                                                        (7.2)

Layers are stored in log space, indexed by the lexicographic rank of a weak composition

    rank(c) = sum_{t=1}^{T-1} [ C(ρ_t + T - t, T - t) - C(ρ_t - c_t + T - t, T - t) ],
    ρ_1 = n, ρ_{t+1} = ρ_t - c_t                                                             (7.3)

By-products: every prefix probability P(w_{<=n}) (hence exact left-to-right conditionals and
exact document completion P(w2 | w1) = P(w) / P(w1)), and exact posterior draws of z by the
backward pass: c_N ∝ g_N(c); then for n = N..1, z_n = t with probability
∝ g_{n-1}(c - e_t) phi_{w_n|t} (c_t - 1 + alpha m_t); c <- c - e_t.

Work: sum_n C(n + T - 1, T - 1) = C(N + T, T) - 1 states, each costing O(T^2) (T predecessors,
O(T) to rank each).  Documents needing more than ``max_work`` = T^2 C(N + T, T) operations are
refused with a ValueError before any work is done.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval import interrupt
from topiceval._numba import categorical, rng_state
from topiceval.estimators.lda.inputs import check_documents, check_params
from topiceval.estimators.method import Method, Setting
from topiceval.interrupt import stopped
from topiceval.validation import is_integer

DEFAULT_MAX_WORK = 400_000_000


def work(n_tokens: int, n_topics: int) -> int:
    """Operations of the exact recursion: T^2 C(N + T, T)."""
    return n_topics * n_topics * math.comb(n_tokens + n_topics, n_topics)


def check_size(n_tokens: int, n_topics: int, max_work: int, what: str = "the document") -> int:
    need = work(n_tokens, n_topics)
    if need > max_work:
        raise ValueError(
            f"exact evaluation of {what} (N = {n_tokens} tokens, T = {n_topics} topics) needs "
            f"{need:.3g} operations (T^2 C(N+T, T)), more than max_work = {max_work:.3g}; use a "
            "shorter document or fewer topics, or raise max_work"
        )
    return need


@njit(cache=True)
def _binomials(m_max, k_max):
    """W[m, k] = C(m + k, k), the number of weak compositions of m into k + 1 parts.

    Pascal's rule C(m + k, k) = C(m + k - 1, k - 1) + C(m + k - 1, k) in grid form; the largest
    entry, C(m_max + k_max, k_max), is bounded by the work limit, so int64 never overflows.
    """
    w = np.ones((m_max + 1, k_max + 1), np.int64)
    for m in range(1, m_max + 1):
        for k in range(1, k_max + 1):
            w[m, k] = w[m, k - 1] + w[m - 1, k]
    return w


@njit(cache=True)
def _rank(c, n, binom):
    """Lexicographic rank (7.3) of the weak composition c of n (``binom`` from _binomials)."""
    n_topics = c.shape[0]
    r = 0
    rho = n
    for t in range(n_topics - 1):
        k = n_topics - 1 - t
        r += binom[rho, k] - binom[rho - c[t], k]
        rho -= c[t]
    return r


@njit(cache=True)
def _next(c):
    """Advance c to the next weak composition (same total) in ascending lexicographic order."""
    n_topics = c.shape[0]
    rem = c[n_topics - 1]
    j = n_topics - 2
    while j >= 0:
        if rem > 0:
            c[j] += 1
            rem -= 1
            break
        rem += c[j]
        c[j] = 0
        j -= 1
    c[n_topics - 1] = rem


@njit(cache=True)
def _unrank(i, n, binom, c):
    """Fill c with the weak composition of n whose rank is i."""
    n_topics = c.shape[0]
    rho = n
    for t in range(n_topics - 1):
        k = n_topics - 2 - t
        v = 0
        while True:
            count = binom[rho - v, k]
            if i < count:
                break
            i -= count
            v += 1
        c[t] = v
        rho -= v
    c[n_topics - 1] = rho


@njit(cache=True, nogil=True)
def _forward(logphi_w, am, keep, stop):
    """Layers of (7.2): (prefix log P(w_{<=n}) for n = 1..N, flat layers, layer offsets).

    With ``keep`` every layer is kept (for the backward pass); otherwise only the last two.
    ``stop`` (``topiceval.interrupt``) is polled once per layer; once it is set, the layers
    are unfinished.
    """
    n_tokens, n_topics = logphi_w.shape
    alpha = am.sum()
    binom = _binomials(n_tokens, n_topics)
    sizes = np.empty(n_tokens + 1, np.int64)
    for n in range(n_tokens + 1):
        sizes[n] = binom[n, n_topics - 1]
    offsets = np.zeros(n_tokens + 2, np.int64)
    for n in range(n_tokens + 1):
        offsets[n + 1] = offsets[n] + (sizes[n] if keep else 0)
    if keep:
        layers = np.empty(offsets[n_tokens + 1])
    else:
        layers = np.empty(0)
    prev = np.zeros(1)
    if keep:
        layers[0] = 0.0
    prefix = np.empty(n_tokens)
    log_am = np.empty((n_tokens + 1, n_topics))
    for k in range(n_tokens + 1):
        for t in range(n_topics):
            log_am[k, t] = math.log(k + am[t])
    c = np.zeros(n_topics, np.int64)
    terms = np.empty(n_topics)
    for n in range(1, n_tokens + 1):
        if stopped(stop):
            break
        cur = np.empty(sizes[n])
        c[:] = 0
        c[n_topics - 1] = n
        norm = math.log(n - 1 + alpha)
        for i in range(sizes[n]):
            top = -np.inf
            for t in range(n_topics):
                if c[t] >= 1:
                    c[t] -= 1
                    v = prev[_rank(c, n - 1, binom)] + logphi_w[n - 1, t] + log_am[c[t], t]
                    c[t] += 1
                else:
                    v = -np.inf
                terms[t] = v
                if v > top:
                    top = v
            s = 0.0
            for t in range(n_topics):
                if terms[t] > -np.inf:
                    s += math.exp(terms[t] - top)
            cur[i] = top + math.log(s) - norm
            _next(c)
        top = cur.max()
        s = 0.0
        for i in range(sizes[n]):
            s += math.exp(cur[i] - top)
        prefix[n - 1] = top + math.log(s)
        if keep:
            layers[offsets[n] : offsets[n + 1]] = cur
        prev = cur
    return prefix, layers, offsets


@njit(cache=True, nogil=True)
def _backward(logphi_w, am, layers, offsets, size, rng, stop):
    """``size`` exact posterior draws of z (size, N) by the backward pass of (7.2) (unfinished
    once ``stop`` is set: polled once per draw)."""
    n_tokens, n_topics = logphi_w.shape
    binom = _binomials(n_tokens, n_topics)
    last = layers[offsets[n_tokens] : offsets[n_tokens + 1]]
    top = last.max()
    probs = np.empty(last.shape[0])
    for i in range(last.shape[0]):
        probs[i] = math.exp(last[i] - top)
    out = np.empty((size, n_tokens), np.int64)
    c = np.zeros(n_topics, np.int64)
    w = np.empty(n_topics)
    v = np.empty(n_topics)
    for k in range(size):
        if stopped(stop):
            break
        _unrank(categorical(rng, probs, probs.shape[0]), n_tokens, binom, c)
        for n in range(n_tokens, 0, -1):
            layer = layers[offsets[n - 1] : offsets[n]]
            top = -np.inf
            for t in range(n_topics):
                if c[t] >= 1:
                    c[t] -= 1
                    v[t] = layer[_rank(c, n - 1, binom)] + logphi_w[n - 1, t] + math.log(
                        c[t] + am[t]
                    )
                    c[t] += 1
                    if v[t] > top:
                        top = v[t]
                else:
                    v[t] = -np.inf
            for t in range(n_topics):
                w[t] = math.exp(v[t] - top) if c[t] >= 1 else 0.0
            t = categorical(rng, w, n_topics)
            out[k, n - 1] = t
            c[t] -= 1
    return out


def _logphi_w(doc, phi):
    return np.ascontiguousarray(np.log(phi[:, doc]).T)


def prefix_log_probs(doc, phi, alpha_m, *, max_work: int = DEFAULT_MAX_WORK) -> np.ndarray:
    """Exact log P(w_{<=n} | Phi, alpha m) for n = 1..N (array of length N)."""
    phi, alpha_m = check_params(phi, alpha_m)
    (doc,) = check_documents([doc], phi.shape[1])
    check_size(doc.shape[0], phi.shape[0], max_work)
    prefix, _, _ = interrupt.run(_forward, _logphi_w(doc, phi), alpha_m, False)
    return prefix


def log_prob(doc, phi, alpha_m, *, max_work: int = DEFAULT_MAX_WORK) -> float:
    """Exact log P(w | Phi, alpha m) of one document (eq. 1.4)."""
    return float(prefix_log_probs(doc, phi, alpha_m, max_work=max_work)[-1])


def posterior_samples(
    doc, phi, alpha_m, size: int, *, seed: int = 0, max_work: int = DEFAULT_MAX_WORK
) -> np.ndarray:
    """``size`` independent exact draws z ~ P(z | w, Phi, alpha m), shape (size, N).

    The draws use the stream ``rng_state(seed, 0, 0, 0)``; different seeds give independent
    draws.  All layers of (7.2) are kept, so memory is C(N + T, T) floats.
    """
    phi, alpha_m = check_params(phi, alpha_m)
    (doc,) = check_documents([doc], phi.shape[1])
    if not is_integer(size) or size < 1:
        raise ValueError(f"size must be a positive integer, got {size!r}")
    check_size(doc.shape[0], phi.shape[0], max_work)
    logphi_w = _logphi_w(doc, phi)
    _, layers, offsets = interrupt.run(_forward, logphi_w, alpha_m, True)
    return interrupt.run(_backward, logphi_w, alpha_m, layers, offsets, int(size),
                         rng_state(seed))


# the declaration of the method (estimators/method.py), of both ``estimate`` and ``complete``: its
# work is that of the recursion, refused above ``max_work`` (``check_size``), not site updates
EXACT = Method(
    "exact", (Setting("max_work", DEFAULT_MAX_WORK, "most operations of the exact recursion",
                      minimum=1),),
    cost=lambda n, n1, s: 0, formula="T^2 C(N + T, T) operations (no site updates)",
    sampled=False, nature="exact (forward recursion)")
