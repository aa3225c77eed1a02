"""One left-to-right particle with rejuvenation over cached row totals.

Described in docs/methods/implementation.md#left-to-right-kernel and
docs/methods/lda-estimators.md#left-to-right.

For n = 1..N the particle sweeps positions 1..n-1 with site updates (1.5), then evaluates
Z_n = sum_t pw[row_n, t] (N_t + alpha m_t) and draws z_n from the same weights, exactly as
``chains.left_to_right`` (two ``chains.scan`` calls per position).  What differs is how the
document bucket sum_t pw[row, t] N_t is found.  ``chains.scan`` sums it over the topics in use at
every site.  Here it is kept for every row r of the document in ``cache[r]`` and updated when a
count changes:

    cache[r] = D_r = sum_t pw[r, t] N_t   (counts including every position drawn so far)
    z_i: old -> k    =>   cache[r] += pw[r, k] - pw[r, old]   for every row r,
    z_n drawn = k    =>   cache[r] += pw[r, k].

A row enters the cache (its sum over the topics in use, ascending) at its first position; rows
are renumbered in order of first appearance, so the rows in the cache are a prefix and each
update is one vectorised loop over the ``(T, rows)`` transposed table (padded to a multiple of 8
rows; padding rows and rows not yet seen take updates that are never read).

The site update of position i (row r, old topic, c = N_old without the site) then costs O(1)
when the topic is kept, which is most sites (about 78% on the 002-T1 workload document):

    total = (cache[r] - pw[r, old]) + cq[r, T-1],  x = u * total;   keep old if x < pw[r, old] c;

otherwise x - pw[r, old] c is looked up in the cumulative sums of the other topics in use
(ascending, summed while scanning), then, past their total, in ``cq[r]`` (bisection; the last
topic if rounding puts x past every sum).  This is the layout of ``chains.scan``'s sparse site
update with the cached total, used for any number of topics in use.  The draw of z_n takes
x = u * Z_n, Z_n = cache[row_n] + cq[row_n, T-1], and looks it up the same way with no old topic
(the topics in use, then ``cq``).  Both run as one loop body, so the two share one copy of the
search and of the count and cache updates.

Rounding: the cache is a running sum, so it differs from a fresh sum by about sqrt(updates)
ulps of the largest pw[r, t]; relative to Z_n >= max_t pw[r, t] alpha m_t that is below 1e-10
for min_t alpha m_t >= 1e-3 over a 10^6-update particle.  Every particle starts from an empty
cache.

Cost: a topic change updates as many cache entries as there are rows seen so far, so the cache
pays while a document has few distinct rows.  ``use_cache`` decides from the document's row
count alone (deterministic, so the reference follows it): with the cache LR runs 1.1-1.4x faster
up to 300 rows at T = 20-200, about as fast at 400-700 rows, and 1.5x slower at 1,100 rows
(T = 50, N = 2,000; benchmarks/lr_row_cache.py).  The list updates of the topics in use
are inline for the reason given in chains.py (per-site helper calls cost more than the update).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from topiceval._numba import uniform
from topiceval.interrupt import stopped

# Documents with at most this many distinct rows use the cache (see "Cost" above)
MAX_CACHED_ROWS = 320
_PAD = 8


class RowCache(NamedTuple):
    local: np.ndarray  # uint64 (N,): row of each position, numbered by first appearance
    pwt: np.ndarray  # float64 (T + 1, padded rows): pwt[t, r] = pw[row r, t]; row T zeros
    cache: np.ndarray  # float64 (padded rows,): D_r


@njit(cache=True)
def use_cache(n_rows):
    """Whether a document with ``n_rows`` distinct rows runs LR over the cached totals."""
    return n_rows <= MAX_CACHED_ROWS


@njit(cache=True)
def new_row_cache(pw, rows):
    """The cache tables of one document: ``rows`` its table rows (positions in order)."""
    n_tokens = rows.shape[0]
    n_topics = pw.shape[1]
    lo = rows.min()
    seen = np.full(rows.max() - lo + 1, -1, np.int64)
    local = np.empty(n_tokens, np.uint64)
    first = np.empty(n_tokens, np.int64)
    m = 0
    for n in range(n_tokens):
        g = rows[n] - lo
        if seen[g] < 0:
            seen[g] = m
            first[m] = rows[n]
            m += 1
        local[n] = seen[g]
    padded = (m + _PAD - 1) // _PAD * _PAD
    pwt = np.zeros((n_topics + 1, padded))  # row T: zeros, the "old topic" of a new position
    for r in range(m):
        for t in range(n_topics):
            pwt[t, r] = pw[first[r], t]
    return RowCache(local, pwt, np.zeros(padded))


@njit(cache=True)
def particle(ch, rc, pw, cq, rows, am, values, rng, stop):
    """One particle from the empty state: values[n] = log Z_n for n = 0..N-1.

    Step i of position n is the site update of position i for i < n and the draw of z_n for
    i = n; the draw has no old topic (``old`` = T, whose row of ``pwt`` is zero).  ``stop``
    (``topiceval.interrupt``) is polled once per position; once it is set, the particle is
    unfinished.
    """
    z = ch.z
    cnt = ch.cnt
    nz = ch.nz
    local = rc.local
    pwt = rc.pwt
    cache = rc.cache
    n_topics = am.shape[0]
    last = n_topics - 1
    cnt[:] = 0
    nnz = 0
    seen = 0  # rows in the cache: local rows 0..seen-1
    width = np.uint64(0)  # seen, rounded up to a multiple of _PAD
    for n in range(rows.shape[0]):
        if stopped(stop):
            break
        for i in range(n + 1):
            ui = np.uint64(i)
            row = np.uint64(rows[ui])
            r = local[ui]
            c = 0
            if i < n:  # site update (1.5): the old topic first
                # inlined copy (remove z_i, drop its topic from the list in use): see also
                # chains.scan, chains.walk
                old = np.uint64(z[ui])
                c = cnt[old] - 1
                cnt[old] = c
                if c == 0:
                    j = 0
                    while nz[j] != np.int64(old):
                        j += 1
                    for jj in range(j, nnz - 1):
                        nz[jj] = nz[jj + 1]
                    nnz -= 1
                p_old = pw[row, old]
                x = uniform(rng) * (cache[r] - p_old + cq[row, last])
                w_old = p_old * c
                if x < w_old:
                    cnt[old] = c + 1
                    continue
                x -= w_old
                cnt[old] = 0  # the other topics in use (old's weight is spent)
            else:  # draw z_n: Z_n = cache[row] + prior bucket
                old = np.uint64(n_topics)
                if r == seen:
                    acc = 0.0
                    for j in range(nnz):
                        t = np.uint64(nz[j])
                        acc += pw[row, t] * cnt[t]
                    cache[r] = acc
                    seen += 1
                    width = np.uint64((seen + _PAD - 1) // _PAD * _PAD)
                total = cache[r] + cq[row, last]
                values[n] = math.log(total)
                x = uniform(rng) * total
            acc = 0.0
            k = -1
            for j in range(nnz):  # the topics in use, ascending
                t = np.uint64(nz[j])
                acc += pw[row, t] * cnt[t]
                if acc > x:
                    k = nz[j]
                    break
            if i < n:
                cnt[old] = c
            if k < 0:  # x falls in the prior bucket
                # inlined copy (bisection of cq): see also chains.scan
                x -= acc
                a = 0
                b = last
                while a < b:
                    mid = (a + b) >> 1
                    if cq[row, mid] > x:
                        b = mid
                    else:
                        a = mid + 1
                k = a
            uk = np.uint64(k)
            if uk != old:
                z[ui] = k
                for q in range(width):
                    cache[q] += pwt[uk, q] - pwt[old, q]
            # inlined copy (add the topic to the list in use): see also chains.scan, chains.walk
            c = cnt[uk]
            cnt[uk] = c + 1
            if c == 0:
                j = nnz
                while j > 0 and nz[j - 1] > k:
                    nz[j] = nz[j - 1]
                    j -= 1
                nz[j] = k
                nnz += 1
    ch.nnz[0] = nnz
