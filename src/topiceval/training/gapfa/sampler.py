"""Beta-gamma Poisson factor analysis: the blocked Gibbs sampler
(docs/methods/gapfa.md#training).

Model (Zhou, Hannah, Dunson & Carin 2012, with Capdevila et al.'s settings)::

    phi_t ~ Dir(a_phi 1_V),  p_t ~ Beta(c eps, c (1 - eps)),  theta_dt ~ Ga(r, p_t / (1 - p_t)),
    x_dvt ~ Pois(theta_dt phi_tv),  y_dv = sum_t x_dvt          (r fixed, shared by all topics)

One iteration (``sweep``) draws, in this order (the order matters, §6.7 erratum):

1. x_dv. | phi, theta ~ Mult(y_dv; phi_tv theta_dt / sum_t' phi_t'v theta_dt')   (per document)
2. phi_t | x ~ Dir(a_phi + x_.1t, ..., a_phi + x_.Vt)                          (per topic)
3. p_t | x ~ Beta(c eps + x_..t, c (1 - eps) + D r)       (theta integrated out)
4. theta_dt | x, p ~ Ga(r + x_d.t, scale p_t)             (rows of phi sum to 1; per document)

Point estimates are the averages of phi and p over the iterations after burn-in.

Determinism: every random number comes from a stream keyed by (seed, step, iteration, index):
step 1 and 4 by document, step 2 by topic, step 3 by iteration.  Word-topic counts are reduced
from per-chunk integer tables (exact in any order), so a trained model is bit-identical for any
thread count.  (Parallel kernels unpack NamedTuple fields into locals before ``prange``:
numba 0.68 silently drops ``tuple.field[i] = ...`` stores made directly in a prange body.)
theta and phi are drawn in log space (``log_gamma_variate``, ``log_dirichlet_into``) so that
topics whose p_t collapses towards 0 never produce 0/0 weights (step 1 multiplies phi by theta
scaled by its per-document maximum and falls back to log space if every product of a word
underflows); p draws are clamped to [P_MIN, 1 - P_MAX_GAP] so a collapsed topic keeps a valid
(if negligible) p.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from topiceval import interrupt
from topiceval._numba import (
    beta_variate,
    log_dirichlet_into,
    log_gamma_variate,
    multinomial_into,
    seed_into,
)
from topiceval.interrupt import stopped

# stream keys (key0) of the sampler's steps
KEY_INIT_P, KEY_INIT_PHI, KEY_INIT_THETA = 600, 601, 602
KEY_X, KEY_PHI, KEY_P, KEY_THETA = 610, 611, 612, 613
P_MIN = 1e-300
P_MAX_GAP = 1e-15


class Counts(NamedTuple):
    """A D x V count matrix in CSR form (int64 arrays)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray


class Hyper(NamedTuple):
    """Prior settings: Dirichlet a_phi, gamma shape r, beta c and eps."""

    a_phi: float
    r: float
    c: float
    epsilon: float


class State(NamedTuple):
    """Sampler state; the count tables are outputs of step 1, the rest are the parameters."""

    log_theta: np.ndarray  # (D, T)
    log_phi: np.ndarray  # (T, V)
    p: np.ndarray  # (T,)
    x_doc: np.ndarray  # (D, T) int64: x_d.t
    x_word: np.ndarray  # (V, T) int64: x_.vt


def new_state(n_docs: int, n_types: int, n_topics: int) -> State:
    return State(
        np.zeros((n_docs, n_topics)),
        np.zeros((n_topics, n_types)),
        np.zeros(n_topics),
        np.zeros((n_docs, n_topics), dtype=np.int64),
        np.zeros((n_types, n_topics), dtype=np.int64),
    )


@njit(cache=True)
def _clamp_p(p):
    return min(max(p, P_MIN), 1.0 - P_MAX_GAP)


@njit(cache=True, nogil=True)
def _init_state(state, hyper, seed, stop):
    """Draw p, phi and theta from their priors (§6.7, "Initialisation"); runs once, serially
    (unfinished once ``stop`` is set: polled once per topic and per document)."""
    log_theta, log_phi, p = state.log_theta, state.log_phi, state.p
    n_docs, n_topics = log_theta.shape
    rng = np.empty(4, dtype=np.uint64)
    seed_into(rng, seed, KEY_INIT_P, 0, 0)
    for t in range(n_topics):
        p[t] = _clamp_p(beta_variate(rng, hyper.c * hyper.epsilon, hyper.c * (1.0 - hyper.epsilon)))
    alpha = np.full(log_phi.shape[1], hyper.a_phi)
    for t in range(n_topics):
        if stopped(stop):
            return
        seed_into(rng, seed, KEY_INIT_PHI, 0, t)
        log_dirichlet_into(rng, alpha, log_phi[t])
    for d in range(n_docs):
        if stopped(stop):
            return
        seed_into(rng, seed, KEY_INIT_THETA, 0, d)
        for t in range(n_topics):
            log_theta[d, t] = log_gamma_variate(rng, hyper.r) + math.log(p[t] / (1.0 - p[t]))


@njit(cache=True, inline="always")
def _sample_x_doc(rng, counts, d, phi_vt, log_phi, log_theta, x_doc, table, work, draw):
    """Step 1 for document d: x_dv. | phi, theta for every word of d; adds into ``table``.

    Weights phi_tv theta_dt use theta scaled by its maximum over topics (one exp per topic and
    document); a word whose products all underflow is redone in log space.
    """
    n_topics = draw.shape[0]
    theta, weights, cumulative = work[0], work[1], work[2]
    m = -np.inf
    for t in range(n_topics):
        x_doc[d, t] = 0
        m = max(m, log_theta[d, t])
    for t in range(n_topics):
        theta[t] = math.exp(log_theta[d, t] - m)
    for k in range(counts.indptr[d], counts.indptr[d + 1]):
        v = counts.indices[k]
        total = 0.0
        for t in range(n_topics):
            weights[t] = phi_vt[v, t] * theta[t]
            total += weights[t]
        if total == 0.0:
            mv = -np.inf
            for t in range(n_topics):
                mv = max(mv, log_phi[t, v] + log_theta[d, t])
            for t in range(n_topics):
                weights[t] = math.exp(log_phi[t, v] + log_theta[d, t] - mv)
        multinomial_into(rng, counts.data[k], weights, cumulative, draw)
        for t in range(n_topics):
            x_doc[d, t] += draw[t]
            table[v, t] += draw[t]


@njit(cache=True, parallel=True, nogil=True)
def _sample_x(counts, state, seed, iteration, n_chunks, stop):
    """Step 1 for all documents, in ``n_chunks`` contiguous chunks with private count tables
    (unfinished once ``stop`` is set: polled once per document)."""
    x_word, x_doc, log_phi, log_theta = state.x_word, state.x_doc, state.log_phi, state.log_theta
    n_docs, n_topics = x_doc.shape
    n_types = x_word.shape[0]
    phi_vt = np.empty((n_types, n_topics))  # phi transposed: a word's loadings are contiguous
    for v in range(n_types):
        for t in range(n_topics):
            phi_vt[v, t] = math.exp(log_phi[t, v])
    tables = np.zeros((n_chunks, n_types, n_topics), dtype=np.int64)
    for c in prange(n_chunks):
        rng = np.empty(4, dtype=np.uint64)
        work = np.empty((3, n_topics))
        draw = np.empty(n_topics, dtype=np.int64)
        for d in range((c * n_docs) // n_chunks, ((c + 1) * n_docs) // n_chunks):
            if stopped(stop):
                break
            seed_into(rng, seed, KEY_X, iteration, d)
            _sample_x_doc(rng, counts, d, phi_vt, log_phi, log_theta, x_doc, tables[c], work,
                          draw)
    for v in range(n_types):  # serial: integer sums, exact in any order
        for t in range(n_topics):
            total = 0
            for c in range(n_chunks):
                total += tables[c, v, t]
            x_word[v, t] = total


@njit(cache=True, parallel=True, nogil=True)
def _sample_globals(state, hyper, seed, iteration, stop):
    """Steps 2 (phi | x, per topic) and 3 (p | x, theta integrated out); unfinished once
    ``stop`` is set (polled once per topic)."""
    x_word, x_doc, log_phi, p = state.x_word, state.x_doc, state.log_phi, state.p
    n_docs, n_topics = x_doc.shape
    n_types = x_word.shape[0]
    a_phi = hyper.a_phi
    for t in prange(n_topics):
        if stopped(stop):
            continue
        rng = np.empty(4, dtype=np.uint64)
        seed_into(rng, seed, KEY_PHI, iteration, t)
        alpha = np.empty(n_types)
        for v in range(n_types):
            alpha[v] = a_phi + x_word[v, t]
        log_dirichlet_into(rng, alpha, log_phi[t])
    rng = np.empty(4, dtype=np.uint64)
    seed_into(rng, seed, KEY_P, iteration, 0)
    for t in range(n_topics):
        total = 0
        for d in range(n_docs):
            total += x_doc[d, t]
        a = hyper.c * hyper.epsilon + total
        b = hyper.c * (1.0 - hyper.epsilon) + n_docs * hyper.r
        p[t] = _clamp_p(beta_variate(rng, a, b))


@njit(cache=True, parallel=True, nogil=True)
def _sample_theta(state, hyper, seed, iteration, stop):
    """Step 4: theta_dt | x, p ~ Ga(r + x_d.t, scale p_t), in log space (unfinished once
    ``stop`` is set: polled once per document)."""
    log_theta, x_doc, p = state.log_theta, state.x_doc, state.p
    n_docs, n_topics = x_doc.shape
    r = hyper.r
    for d in prange(n_docs):
        if stopped(stop):
            continue
        rng = np.empty(4, dtype=np.uint64)
        seed_into(rng, seed, KEY_THETA, iteration, d)
        for t in range(n_topics):
            log_theta[d, t] = log_gamma_variate(rng, r + x_doc[d, t]) + math.log(p[t])


def init_state(state: State, hyper: Hyper, seed: int) -> None:
    """Draw the starting state from the priors, in place (``_init_state``); Ctrl-C stops it
    (``interrupt.run``)."""
    interrupt.run(_init_state, state, hyper, seed)


def sweep(counts: Counts, state: State, hyper: Hyper, seed: int, iteration: int) -> None:
    """One full Gibbs iteration (steps 1-4) on ``state``, in place; Ctrl-C stops it
    (``interrupt.run``), leaving the state unfinished."""
    n_chunks = max(1, min(numba.get_num_threads(), state.x_doc.shape[0]))
    interrupt.run(_sample_x, counts, state, seed, iteration, n_chunks)
    interrupt.run(_sample_globals, state, hyper, seed, iteration)
    interrupt.run(_sample_theta, state, hyper, seed, iteration)
