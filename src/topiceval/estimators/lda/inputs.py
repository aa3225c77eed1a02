"""Validated inputs of the LDA estimators: documents, point estimates, per-document word tables.

Every estimator reads the same ``Tables`` (a NamedTuple of arrays handed to the numba kernels).
For each document the distinct word types get one *row* each (or one row per (part, type) when
a document-completion split is given, so that the observed part w1 and the evaluated part w2 of
one document never share a row):

* ``pw[row, t] = phi[t, v]`` and ``logpw = log pw``: the per-document matrix ``phi_w`` of
  docs/methods/lda-estimators.md#conventions, stored once per distinct type;
* ``cq[row, t] = sum_{t' <= t} pw[row, t'] * alpha_m[t']``: cumulative "prior bucket" weights,
  which serve both the sparse Gibbs draw (chains.py) and the IS-PZW proposal
  Q(z_n) ∝ alpha m_t phi_{w_n|t} (§2.2);
* ``rows[i]``: the table row of token i (positions of document d are
  ``doc_off[d]:doc_off[d + 1]``); ``row_count[row]``: how often the row's type occurs in its
  document (part);
* ``split[d] = N1``: the number of observed tokens in document completion (N when unused);
* ``keys[d]``: the integer that keys document d's random streams (its position in ``docs``
  unless the caller passes the positions of a block inside a larger list);
* ``start[i]``: a posterior sample's topic of token i, where the reverse run of BDMC starts
  (bdmc.py; empty without one).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from topiceval.models import check_lda_params
from topiceval.validation import check_token_ids, token_documents

# Table entries per batch: documents are evaluated in batches whose tables hold at most this
# many floats per array (keys are per document, so batching never changes a result).
BATCH_ENTRIES = 1 << 23


class Tables(NamedTuple):
    doc_off: np.ndarray  # int64 (D + 1,)
    rows: np.ndarray  # int64 (tokens,)
    tab_off: np.ndarray  # int64 (D + 1,)
    row_count: np.ndarray  # int64 (rows,)
    pw: np.ndarray  # float64 (rows, T)
    logpw: np.ndarray  # float64 (rows, T)
    cq: np.ndarray  # float64 (rows, T)
    am: np.ndarray  # float64 (T,)
    alpha: float
    split: np.ndarray  # int64 (D,)
    keys: np.ndarray  # int64 (D,)
    start: np.ndarray  # int64 (tokens,) or (0,)


def check_params(phi, alpha_m) -> tuple[np.ndarray, np.ndarray]:
    """``phi`` (T, V) strictly positive with rows summing to 1; ``alpha_m`` (T,) positive."""
    phi, alpha_m = check_lda_params(phi, alpha_m)
    if alpha_m.ndim != 1:
        raise ValueError(f"alpha_m must have shape (T,) = ({phi.shape[0]},), got {alpha_m.shape}")
    return phi, alpha_m


def check_documents(docs, n_types: int, *, min_length: int = 1) -> list[np.ndarray]:
    """Documents as int64 arrays (``validation.token_documents``), each with >= ``min_length``
    tokens, all inside the vocabulary of phi."""
    out = token_documents(docs)
    if not out:
        raise ValueError("docs is empty: pass at least one document")
    lengths = np.array([doc.shape[0] for doc in out])
    short = np.flatnonzero(lengths < min_length)
    if short.size:
        d = int(short[0])
        if lengths[d] == 0:
            raise ValueError(f"document {d} is empty")
        raise ValueError(
            f"document {d} has {lengths[d]} token(s); document completion needs at least "
            f"{min_length} (an observed and an evaluated part)"
        )
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    check_token_ids(offsets, np.concatenate(out), n_types, "the vocabulary of phi")
    return out


def check_prior_weights(docs: list[np.ndarray], phi: np.ndarray, alpha_m: np.ndarray) -> None:
    """Refuse prior weights alpha m_t phi_(v|t) below the smallest normal double for a word of
    the documents: the samplers draw from weights proportional to them (the prior bucket of
    ``build_tables``, IS-PZW's proposal) and subnormal weights lose their precision."""
    used = np.unique(np.concatenate(docs))
    am = alpha_m.reshape(-1, alpha_m.shape[-1]).min(axis=0)
    weights = am[:, None] * phi[:, used]
    if weights.min() < np.finfo(np.float64).tiny:
        t, j = np.unravel_index(int(np.argmin(weights)), weights.shape)
        v = int(used[j])
        d = next(i for i, doc in enumerate(docs) if np.any(doc == v))
        raise ValueError(
            f"alpha_m[{t}] * phi[{t}, {v}] = {weights[t, j]:.3g} (word {v} of document {d}) is "
            "below the smallest normal double 2.2e-308: the samplers draw from weights "
            "proportional to alpha m_t phi_(v|t) and would lose their precision; rescale alpha_m")


def check_posterior(posterior, docs: list[np.ndarray], n_topics: int) -> list[np.ndarray]:
    """``posterior``: one topic assignment z per document, as many entries as its tokens, each
    in 0..T-1 (an exact posterior sample makes the BDMC upper bound a true bound)."""
    if isinstance(posterior, (str, bytes)) or not hasattr(posterior, "__len__"):
        raise ValueError(f"posterior must be one topic array per document, got "
                         f"{type(posterior).__name__}")
    if len(posterior) != len(docs):
        raise ValueError(f"posterior has {len(posterior)} topic arrays for {len(docs)} "
                         "documents; pass one per document")
    out = []
    for d, (z, doc) in enumerate(zip(posterior, docs, strict=True)):
        z = np.asarray(z)
        if z.ndim != 1 or z.shape[0] != doc.shape[0] or (
                z.size and not np.issubdtype(z.dtype, np.integer)):
            raise ValueError(f"posterior[{d}] must be {doc.shape[0]} integer topics (one per "
                             f"token of document {d}), got shape {z.shape} of {z.dtype}")
        if z.size and (z.min() < 0 or z.max() >= n_topics):
            raise ValueError(f"posterior[{d}] has topic {int(z.min() if z.min() < 0 else z.max())}"
                             f"; topics are 0..{n_topics - 1}")
        out.append(z.astype(np.int64))
    return out


def completion_split(docs: list[np.ndarray], split) -> np.ndarray:
    """N1 per document: ``None`` -> floor(N / 2) (spec §3); an int or one int per document."""
    lengths = np.array([d.shape[0] for d in docs], dtype=np.int64)
    if split is None:
        n1 = lengths // 2
    else:
        arr = np.asarray(split)
        if not np.issubdtype(arr.dtype, np.integer) or arr.ndim > 1:
            raise ValueError(f"split must be None, an int or one int per document, got {split!r}")
        n1 = np.broadcast_to(arr, lengths.shape).astype(np.int64) if arr.ndim == 0 else arr
        if n1.shape != lengths.shape:
            raise ValueError(f"split has {n1.shape[0]} entries for {lengths.shape[0]} documents")
    bad = np.flatnonzero((n1 < 1) | (n1 >= lengths))
    if bad.size:
        d = int(bad[0])
        raise ValueError(
            f"split of document {d} is {int(n1[d])}, but it must leave at least one observed and "
            f"one evaluated token (1 <= N1 < N = {int(lengths[d])})"
        )
    return n1.astype(np.int64)


def build_tables(docs, phi, alpha_m, keys, split=None, start=None) -> Tables:
    """Tables for ``docs`` (already checked); ``split`` (N1 per document) separates the parts;
    ``start``: one checked posterior sample z per document (``check_posterior``), or None."""
    n_types = phi.shape[1]
    lengths = np.array([d.shape[0] for d in docs], dtype=np.int64)
    doc_off = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=doc_off[1:])
    n1 = lengths.copy() if split is None else np.asarray(split, dtype=np.int64)
    doc_of = np.repeat(np.arange(len(docs), dtype=np.int64), lengths)
    position = np.arange(doc_off[-1], dtype=np.int64) - doc_off[doc_of]
    part = (position >= n1[doc_of]).astype(np.int64)
    # one row per (document, part, word), ordered by document, then part, then word id
    key = (doc_of * 2 + part) * n_types + np.concatenate(docs)
    uniq, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    tab_off = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum(np.bincount(uniq // (2 * n_types), minlength=len(docs)), out=tab_off[1:])
    pw = np.ascontiguousarray(phi[:, uniq % n_types].T)
    cq = np.cumsum(pw * alpha_m, axis=1)
    return Tables(
        doc_off=doc_off,
        rows=inverse.astype(np.int64).reshape(-1),
        tab_off=tab_off,
        row_count=counts.astype(np.int64),
        pw=pw,
        logpw=np.log(pw),
        cq=np.ascontiguousarray(cq),
        am=alpha_m,
        alpha=float(alpha_m.sum()),
        split=n1,
        keys=np.asarray(keys, dtype=np.int64),
        start=(np.empty(0, np.int64) if start is None
               else np.concatenate(start).astype(np.int64)),
    )


def batches(docs: list[np.ndarray], n_topics: int) -> list[slice]:
    """Consecutive document blocks whose tables hold at most ``BATCH_ENTRIES`` floats."""
    out, start, size = [], 0, 0
    for d, doc in enumerate(docs):
        need = doc.shape[0] * n_topics
        if size and size + need > BATCH_ENTRIES:
            out.append(slice(start, d))
            start, size = d, 0
        size += need
    out.append(slice(start, len(docs)))
    return out
