"""Gibbs site updates for one document's topic assignments (docs/methods/lda.md#model eq. (1.5)).

A ``Chain`` holds the assignments z (N,), the topic counts N_t (T,), and the ascending list of
topics in use (``nz[:nnz[0]]``).  A site update of position n removes z_n from the counts and
draws from

    P(z_n = t | z_{\\n}) ∝ pw[row_n, t] (N_t^{\\n} + alpha m_t)                          (1.5)

with one uniform u by inverse CDF.  ``pw`` is phi_w (τ = 1), a tempered table phi_w^τ (AIS,
(2.1)), or a row of ones (the Pólya urn, an exact draw from P(z | alpha m)).  Rows are per
distinct word type (inputs.py); position n uses row ``rows[n] - row_base``.

Three layouts of the same distribution; which one is used depends only on the state and on
whether the site had a topic before the draw, so a reference implementation can follow it
exactly:

* sparse draw of a new position (EXTEND), when 2 * (topics in use) <= T: the weights split into
  a "document bucket" pw[row, t] N_t over the topics in use (cumulative sums in ascending topic
  order) and a "prior bucket" pw[row, t] alpha m_t whose cumulative sums ``cq[row]`` are
  precomputed.  With doc = document-bucket total and x = u * (doc + cq[row, T-1]): t is the
  first topic in use whose document-bucket cumulative exceeds x if x < doc, else the first t
  with cq[row, t] > x - doc.  Cost O(topics in use + log T).
* sparse site update (SWEEP), same condition: the same buckets, with the old topic's
  document-bucket weight w_old = pw[row, old] N_old^{\\n} moved to the front.  The weight sum
  (doc, no cumulative sums stored) gives x = u * (doc + cq[row, T-1]); x < w_old keeps the old
  topic; otherwise x - w_old is looked up in the cumulative sums of the other topics in use
  (recomputed while scanning, ascending), then, past their total, in ``cq[row]``.  Most site
  updates keep their topic (about 78% on the 002-T1 workload document), and then no cumulative
  sum is stored and nothing is searched: the sweep runs at about 0.75x the time of the
  document-bucket layout above (benchmarks/README.md).
* dense otherwise: cumulative sums of pw[row, t] (N_t + alpha m_t) over all t, x = u * total,
  t = the first index whose cumulative exceeds x.  Cost O(T).

Searches (bisection over all topics, a linear scan over the topics in use) return the last
index if rounding puts x past every cumulative sum.

Performance note: numba increments and decrements the reference counts of the arrays a function
uses, and its pruning pass leaves these (atomic) updates in functions with branches, so a helper
called once per site costs more than the site update itself (measured: the site update split
into ``inline="always"`` helpers runs 4.7x slower).  All per-site work therefore happens inside
two loops, each called once per sweep:

* ``scan``, the draws: ``SWEEP``, site updates (1.5) of positions lo..hi-1 (``reverse``: hi-1
  down to lo); ``EXTEND``, draw z_n for new positions from (1.5) given the counts so far (no
  removal) and return sum_n log Z_n, Z_n = sum_t pw[row_n, t] (N_t + alpha m_t) (left-to-right,
  Pólya urn); ``EVAL``, return sum_n log Z_n without changing the state (ET);
* ``walk``, the walk of (2.2): remove z_n, multiply in P(target_n | ...) (normalised (1.5)), set
  z_n = target_n; returns log T(target <- z).  It draws nothing, keeps no cumulative sums and
  multiplies the conditionals into a running product that goes to the log sum only before it
  could underflow, instead of taking two logarithms per site.

``left_to_right`` (one particle of the left-to-right algorithm with rejuvenation, §2.7) calls
``scan`` twice per position: SWEEP 0..n-1, then EXTEND n.  LR uses it for documents with many
distinct rows; shorter ones run rejuvenation.py, which keeps the document bucket's total per row
instead of summing it at every site.  ``walk`` repeats the removal and the
weight sum of ``scan`` on purpose (a shared per-site helper is the 4.7x above); CS runs about
0.77x the time it did when the walk was a mode of ``scan`` (benchmarks/README.md).  Even the rare
list updates (a topic leaving or entering the list in use, about 2% of sites) stay inline in
both loops: moved into two small helpers called only on those sites, they made LR R = 20 about
1.2x slower (9.5 -> 11.4 ms, same session, alternating runs) for 1% more instructions.

A "site update" in the cost counts is one such draw or evaluation, as in Table 1 of Wallach et
al. 2009.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from topiceval._numba import log_rising, lse_value, randint, uniform
from topiceval.interrupt import stopped

SWEEP, EXTEND, EVAL = 0, 1, 2


class Chain(NamedTuple):
    z: np.ndarray  # int64 (N,)
    cnt: np.ndarray  # int64 (T,)
    nz: np.ndarray  # int64 (T,): topics with cnt > 0, ascending, first nnz[0] entries
    nnz: np.ndarray  # int64 (1,)
    buf: np.ndarray  # float64 (T,): cumulative weights of the current site


@njit(cache=True)
def new_chain(n_tokens, n_topics):
    return Chain(
        np.zeros(n_tokens, np.int64),
        np.zeros(n_topics, np.int64),
        np.zeros(n_topics, np.int64),
        np.zeros(1, np.int64),
        np.zeros(n_topics, np.float64),
    )


@njit(cache=True)
def copy_into(src, dst):
    """Make ``dst`` an exact copy of ``src`` (same sizes)."""
    dst.z[:] = src.z
    dst.cnt[:] = src.cnt
    dst.nz[:] = src.nz
    dst.nnz[0] = src.nnz[0]


@njit(cache=True)
def set_state(ch, z, lo, hi):
    """Replace the counts by those of z[lo:hi] (positions outside are not counted)."""
    ch.cnt[:] = 0
    for n in range(lo, hi):
        ch.z[n] = z[n]
        ch.cnt[z[n]] += 1
    k = 0
    for t in range(ch.cnt.shape[0]):
        if ch.cnt[t] > 0:
            ch.nz[k] = t
            k += 1
    ch.nnz[0] = k


@njit(cache=True)
def init_uniform(ch, lo, hi, n_topics, rng):
    """z_n uniform on the topics for n = lo..hi-1 (one ``randint`` each), then recount."""
    for n in range(lo, hi):
        ch.z[n] = randint(rng, n_topics)
    set_state(ch, ch.z, lo, hi)


@njit(cache=True)
def scan(ch, pw, cq, rows, row_base, am, lo, hi, reverse, mode, values, rng):
    """Per-site operation ``mode`` (SWEEP, EXTEND or EVAL) over positions lo..hi-1.

    EXTEND and EVAL store log Z_n in ``values[n]`` when ``values`` is not empty.
    """
    z = ch.z
    cnt = ch.cnt
    nz = ch.nz
    buf = ch.buf
    nnz = ch.nnz[0]
    n_topics = am.shape[0]
    store = values.shape[0] > 0
    out = 0.0
    for i in range(hi - lo):
        n = np.uint64(hi - 1 - i if reverse else lo + i)  # unsigned: no wraparound checks
        row = np.uint64(rows[n] - row_base)
        if mode == SWEEP:
            # inlined copy (remove z_n, drop its topic from the list in use): see also walk,
            # rejuvenation.particle
            old = np.uint64(z[n])
            c = cnt[old] - 1
            cnt[old] = c
            if c == 0:
                j = 0
                while nz[j] != np.int64(old):
                    j += 1
                for jj in range(j, nnz - 1):
                    nz[jj] = nz[jj + 1]
                nnz -= 1
        acc = 0.0
        k = -1
        if mode == SWEEP and 2 * nnz <= n_topics:  # sparse site update, old topic first
            for j in range(nnz):
                t = np.uint64(nz[j])
                acc += pw[row, t] * cnt[t]
            x = uniform(rng) * (acc + cq[row, n_topics - 1])
            w_old = pw[row, old] * c
            if x < w_old:
                cnt[old] = c + 1
                continue
            x -= w_old
            cnt[old] = 0  # the other topics in use, ascending (old's weight is spent)
            acc = 0.0
            for j in range(nnz):
                t = np.uint64(nz[j])
                acc += pw[row, t] * cnt[t]
                if acc > x:
                    k = nz[j]
                    break
            cnt[old] = c
            if k < 0:
                x -= acc
        else:
            if 2 * nnz <= n_topics:
                for j in range(nnz):
                    t = np.uint64(nz[j])
                    acc += pw[row, t] * cnt[t]
                    buf[j] = acc
                doc = acc
                total = acc + cq[row, n_topics - 1]
            else:
                for t in range(n_topics):
                    acc += pw[row, t] * (cnt[t] + am[t])
                    buf[t] = acc
                doc = -1.0
                total = acc
            if mode != SWEEP:
                log_total = math.log(total)
                out += log_total
                if store:
                    values[n] = log_total
                if mode == EVAL:
                    continue
            x = uniform(rng) * total
            if doc < 0.0:
                # inlined copy (bisection of the cumulative weights): see also
                # _numba.search_cumulative
                a = 0
                b = n_topics - 1
                while a < b:
                    mid = (a + b) >> 1
                    if buf[mid] > x:
                        b = mid
                    else:
                        a = mid + 1
                k = a
            elif x < doc:
                ua = np.uint64(0)
                while buf[ua] <= x:  # linear: faster than bisection for few topics in use
                    ua += np.uint64(1)
                k = nz[ua]
            else:
                x -= doc
        if k < 0:  # x falls in the prior bucket
            # inlined copy (bisection of cq): see also rejuvenation.particle
            a = 0
            b = n_topics - 1
            while a < b:
                mid = (a + b) >> 1
                if cq[row, mid] > x:
                    b = mid
                else:
                    a = mid + 1
            k = a
        # inlined copy (set z_n, add its topic to the list in use): see also walk,
        # rejuvenation.particle
        z[n] = k
        uk = np.uint64(k)
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
    return out


# A running product of conditionals in (0, 1] is flushed into the log sum below _FLUSH; single
# factors below _TINY go to the log sum directly, so the product never leaves the normal range.
_FLUSH = 1e-200
_TINY = 1e-100


@njit(cache=True)
def walk(ch, pw, cq, rows, am, target):
    """WALK all positions to ``target``: returns log T(target <- z), eq. (2.2)."""
    z = ch.z
    cnt = ch.cnt
    nz = ch.nz
    nnz = ch.nnz[0]
    n_topics = am.shape[0]
    prod = 1.0
    out = 0.0
    for n in range(rows.shape[0]):
        row = np.uint64(rows[n])
        # inlined copy (remove z_n, drop its topic from the list in use): see also scan,
        # rejuvenation.particle
        old = np.uint64(z[n])
        c = cnt[old] - 1
        cnt[old] = c
        if c == 0:
            j = 0
            while nz[j] != np.int64(old):
                j += 1
            for jj in range(j, nnz - 1):
                nz[jj] = nz[jj + 1]
            nnz -= 1
        acc = 0.0
        if 2 * nnz <= n_topics:  # inlined copy (the weight sum Z_n): see also scan
            for j in range(nnz):
                t = np.uint64(nz[j])
                acc += pw[row, t] * cnt[t]
            total = acc + cq[row, n_topics - 1]
        else:
            for t in range(n_topics):
                acc += pw[row, t] * (cnt[t] + am[t])
            total = acc
        k = target[n]
        uk = np.uint64(k)
        c = cnt[uk]
        factor = pw[row, uk] * (c + am[uk]) / total
        if factor < _TINY:
            out += math.log(factor)
        else:
            prod *= factor
            if prod < _FLUSH:
                out += math.log(prod)
                prod = 1.0
        # inlined copy (set z_n, add its topic to the list in use): see also scan,
        # rejuvenation.particle
        z[n] = k
        cnt[uk] = c + 1
        if c == 0:
            j = nnz
            while j > 0 and nz[j - 1] > k:
                nz[j] = nz[j - 1]
                j -= 1
            nz[j] = k
            nnz += 1
    ch.nnz[0] = nnz
    return out + math.log(prod)


# The wrappers below pass every scalar through np.int64 / np.bool_: numba compiles a separate
# specialisation of a function for each combination of literal (constant) arguments, and
# ``scan`` is the one function worth compiling only once.
@njit(cache=True)
def sweep_chain(ch, pw, cq, rows, row_base, am, lo, hi, reverse, rng):
    """Gibbs site updates (1.5) of positions lo..hi-1, in reverse order if ``reverse``."""
    scan(ch, pw, cq, rows, np.int64(row_base), am, np.int64(lo), np.int64(hi),
         np.bool_(reverse), np.int64(SWEEP), np.empty(0), rng)


@njit(cache=True)
def extend(ch, pw, cq, rows, row_base, am, lo, hi, values, rng):
    """EXTEND positions lo..hi-1 (draw each given the counts so far); log Z_n -> values[n]."""
    return scan(ch, pw, cq, rows, np.int64(row_base), am, np.int64(lo), np.int64(hi),
                np.bool_(False), np.int64(EXTEND), values, rng)


@njit(cache=True)
def left_to_right(ch, pw, cq, rows, am, values, rng, stop):
    """One left-to-right particle with rejuvenation: for n = 1..N, sweep 1..n-1, extend n
    (unfinished once ``stop`` is set: polled once per position)."""
    out = 0.0
    none = np.empty(0)
    for n in range(rows.shape[0]):
        if stopped(stop):
            break
        scan(ch, pw, cq, rows, np.int64(0), am, np.int64(0), np.int64(n), np.bool_(False),
             np.int64(SWEEP), none, rng)
        out += scan(ch, pw, cq, rows, np.int64(0), am, np.int64(n), np.int64(n + 1),
                    np.bool_(False), np.int64(EXTEND), values, rng)
    return out


@njit(cache=True)
def sum_log_normalisers(ch, pw, cq, rows, am, lo, hi, rng):
    """EVAL positions lo..hi-1: sum_n log Z_n, the state unchanged."""
    return scan(ch, pw, cq, rows, np.int64(0), am, np.int64(lo), np.int64(hi),
                np.bool_(False), np.int64(EVAL), np.empty(0), rng)


@njit(cache=True)
def log_prior(cnt, am, alpha, n_tokens):
    """log P(z | alpha m) from the topic counts, eq. (1.1).

    Notes
    -----
    (1.1) is Gamma(alpha) / Gamma(N + alpha) prod_t Gamma(N_t + alpha m_t) / Gamma(alpha m_t),
    a product of rising factorials, so

        log P(z | alpha m) = sum_{t: N_t > 0} log (alpha m_t)_(N_t) - log (alpha)_N

    with ``log_rising`` (_numba.py): the difference of two ``lgamma`` values it replaces lost
    all precision for alpha m_t >~ 1e14 (positive log probabilities at 1e15).
    """
    s = -log_rising(alpha, n_tokens)
    for t in range(am.shape[0]):
        if cnt[t] > 0:
            s += log_rising(am[t], cnt[t])
    return s


@njit(cache=True)
def log_lik(z, logpw, rows, row_base, lo, hi):
    """sum_{n=lo}^{hi-1} log phi_{w_n | z_n}, eq. (1.2)."""
    s = 0.0
    for n in range(lo, hi):
        s += logpw[rows[n] - row_base, z[n]]
    return s


@njit(cache=True)
def temper_rows(logpw, am, tau, src_lo, src_hi, pw_out, cq_out):
    """pw_out[r] = exp(tau * logpw[src_lo + r]) and its cumulative prior-bucket sums."""
    n_topics = am.shape[0]
    for r in range(src_hi - src_lo):
        acc = 0.0
        for t in range(n_topics):
            p = math.exp(tau * logpw[src_lo + r, t])
            pw_out[r, t] = p
            acc += p * am[t]
            cq_out[r, t] = acc


@njit(cache=True)
def urn_draw(ch, am, lo, hi, rng):
    """z_n ∝ N_t(counts so far) + alpha m_t for n = lo..hi-1: the Pólya urn (exact prior draw)."""
    n_topics = am.shape[0]
    ones = np.ones((1, n_topics))
    cum = np.empty((1, n_topics))
    acc = 0.0
    for t in range(n_topics):
        acc += am[t]
        cum[0, t] = acc
    extend(ch, ones, cum, np.zeros(hi, np.int64), 0, am, lo, hi, np.empty(0), rng)


@njit(cache=True)
def lse_finish(m, s, count):
    """Running log-sum-exp (m, s) minus log(count): the log of a mean in probability space."""
    return lse_value(m, s) - math.log(count)
