"""Topic coherence: NPMI (and UMass, C_V for comparison) of each topic's top words over a
stated reference corpus, with bootstrap intervals over its documents (docs/coherence.md).

    table = coherence_table(model, reference)            # NPMI and UMass, document windows
    table = coherence_table(model, reference, window=10) # gensim's c_npmi sliding window

The reference is a ``topiceval.corpus.Corpus`` (by default, for a study, its held-out
documents).  Each topic's top words are the model's highest-probability words (ties broken by
column); a topic's score at a cardinality n is a mean over pairs of its top n words
(``measures``) and its reported score the mean over the cardinalities ``top_n``
(Lau and Baldwin 2016).  The model's score is the mean over topics.

Intervals: ``scipy.stats.bootstrap``'s basic (reflected percentile) interval over the reference
documents.  Each of ``replicates`` replicates draws D documents with replacement from the D
reference documents (its counts are the per-document counts ``_counts`` weighted by how often
it drew each document) and scores every topic; with q_lo, q_hi the replicates' central
``level`` range and e the estimate, the interval is [2 e - q_hi, 2 e - q_lo], per topic and for
the model mean.  It is an interval for the population value (the score over an unlimited
reference from the same source), which the estimate misses by a bias on small references: the
replicates' percentile range repeats that bias instead of removing it (docs/coherence.md).  It
holds the estimate exactly when q_lo <= e <= q_hi.  The draws come from the stream
``seeds.generator(seed, "coherence")``, so a seed gives bit-identical intervals.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.stats import bootstrap

from topiceval.coherence._counts import reference_counts, relevant_pairs
from topiceval.coherence.measures import MEASURES, topic_scores
from topiceval.corpus import Corpus
from topiceval.models import GaPModel, LDAModel
from topiceval.seeds import generator
from topiceval.vocabulary import MODEL_COLUMNS

__all__ = ["DEFAULT_TOP_N", "coherence_table", "top_word_columns"]

DEFAULT_TOP_N = (5, 10, 15, 20)
REPLICATE_BLOCK = 25  # replicates scored at once (memory: D x block weights)


def top_word_columns(model: LDAModel | GaPModel, n: int) -> np.ndarray:
    """(T, n) column ids of each topic's n most probable words, ties broken by column.

    The same as ``np.argsort(-phi, axis=1, kind="stable")[:, :n]`` without sorting whole rows:
    the words at least as probable as the n-th largest probability, sorted stably.

    Parameters
    ----------
    model : LDAModel or GaPModel
        The model whose topic-word matrix ``phi`` is read.
    n : int
        How many top words per topic, at most the vocabulary's size.
    """
    phi = model.phi
    nth = -np.partition(-phi, n - 1, axis=1)[:, n - 1]
    out = np.empty((phi.shape[0], n), dtype=np.int64)
    for t, row in enumerate(phi):
        candidates = np.flatnonzero(row >= nth[t])
        out[t] = candidates[np.argsort(-row[candidates], kind="stable")[:n]]
    return out


def _check(model, reference, window, top_n, measures, replicates, level):
    if not isinstance(model, (LDAModel, GaPModel)):
        raise ValueError(f"model must be an LDAModel or GaPModel, not {type(model).__name__}")
    if not isinstance(reference, Corpus):
        raise ValueError(f"reference must be a topiceval Corpus, not {type(reference).__name__}")
    if reference.tokens.size == 0:
        raise ValueError("the reference corpus has no tokens: coherence needs documents")
    if window is not None and (isinstance(window, bool) or not isinstance(window, (int, np.integer))
                               or window < 2):
        raise ValueError(f"window must be None (whole documents) or an integer >= 2; "
                         f"got {window!r}")
    top_n = tuple(top_n)
    if not top_n or any(isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2
                        for n in top_n):
        raise ValueError(f"top_n must be integers >= 2; got {top_n!r}")
    if max(top_n) > model.n_types:
        raise ValueError(f"top_n {max(top_n)} exceeds the model's {model.n_types} words")
    unknown = [m for m in measures if m not in MEASURES]
    if unknown or not measures:
        raise ValueError(f"measures must be among {', '.join(MEASURES)}; got {list(measures)!r}")
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) \
            or replicates < 1:
        raise ValueError(f"replicates must be a positive integer; got {replicates!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    if len(reference) < 2:
        raise ValueError("the reference corpus has one document: its bootstrap intervals need "
                         "at least two")
    return top_n


def _reference_ids(model, reference) -> np.ndarray:
    """For every model column, its id in the reference's vocabulary (-1: not there)."""
    if model.vocab is None:
        if reference.meta.get("vocab") == MODEL_COLUMNS and len(reference.vocab) == model.n_types:
            return np.arange(model.n_types)
        raise ValueError("the model has no words, so its top words cannot be found in the "
                         "reference; build the reference with Corpus.from_documents(ids, model)")
    where = {word: i for i, word in enumerate(reference.vocab.tolist())}
    return np.array([where.get(word, -1) for word in np.asarray(model.vocab).tolist()])


def coherence_table(model: LDAModel | GaPModel, reference: Corpus, *, window: int | None = None,
                    top_n=DEFAULT_TOP_N, measures=("npmi", "umass"), replicates: int = 200,
                    level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Coherence of every topic of ``model`` over ``reference``, with bootstrap intervals.

    Parameters
    ----------
    model : LDAModel or GaPModel
        Its rows ``phi`` give the top words; its ``vocab`` is matched word by word to the
        reference's.
    reference : Corpus
        The reference documents (all of them; select a split first if needed).
    window : int or None, default None
        None: two words co-occur when they share a document.  An integer: when they share a
        boolean sliding window of that many tokens (gensim's c_npmi uses 10, c_v 110).
    top_n : sequence of int, default (5, 10, 15, 20)
        Cardinalities averaged over.
    measures : sequence of {"npmi", "umass", "c_v"}, default ("npmi", "umass")
    replicates : int, default 200
        Bootstrap replicates over the reference documents.
    level : float, default 0.95
        Coverage of the intervals: basic bootstrap intervals of the population value (module
        docstring); docs/coherence.md gives their measured coverage by reference size.
    seed : int, default 0

    Returns
    -------
    pandas.DataFrame
        One row per topic (``topic`` "0", "1", ...) and a last row ``topic`` "mean" (the mean
        over topics), with ``top_words`` (the top max(top_n) words, space-separated),
        ``absent_words`` (those of them that no reference window holds; empty when none),
        for each measure its value and ``_low``/``_high`` interval ends, and the settings:
        ``window`` ("document" or "sliding N"), ``top_n``, ``reference_documents``,
        ``reference_windows``, ``replicates``, ``level``, ``seed``.

    Raises
    ------
    ValueError
        For a bad argument, or a model whose columns cannot be matched to the reference.
    """
    top_n = _check(model, reference, window, top_n, measures, replicates, level)
    top, top_local, pair_index, counts, windows = _per_document_counts(model, reference, window,
                                                                      top_n)
    full = _scores(measures, np.asarray(counts.sum(axis=0), float).T, windows.sum()[None],
                   top_local, pair_index, top_n)
    interval = _bootstrap(measures, counts, windows, top_local, pair_index, top_n, replicates,
                          level, seed)
    word_totals = np.asarray(counts[:, :top_local.max() + 1].sum(axis=0)).ravel()
    return _table(model, top, top_local, word_totals, measures, full, interval, {
        "window": "document" if window is None else f"sliding {int(window)}",
        "top_n": ",".join(map(str, top_n)), "reference_documents": len(reference),
        "reference_windows": int(windows.sum()), "replicates": int(replicates),
        "level": float(level), "seed": int(seed)})


def _per_document_counts(model, reference, window, top_n):
    """The top words (model columns ``top`` and local ids ``top_local``), ``pair_index``, and
    the (D, W + P) per-document counts of the W relevant words and P pairs with the (D,)
    windows per document (``_counts``)."""
    top = top_word_columns(model, max(top_n))
    in_reference = _reference_ids(model, reference)
    relevant, top_local = np.unique(top, return_inverse=True)
    top_local = top_local.reshape(top.shape)
    local = np.full(len(reference.vocab), -1, dtype=np.int64)
    found = in_reference[relevant] >= 0
    local[in_reference[relevant][found]] = np.flatnonzero(found)
    pairs, pair_index = relevant_pairs(top_local, len(relevant))
    counts, windows = reference_counts(reference.offsets, reference.tokens, local, pairs,
                                       len(relevant), window)
    return top, top_local, pair_index, counts, windows


def _scores(measures, totals, windows, top_local, pair_index, top_n):
    """{measure: (T + 1, B)}: each topic's score averaged over ``top_n``, then the mean row."""
    out = {}
    for measure in measures:
        per_topic = topic_scores(measure, totals, windows, top_local, pair_index,
                                 top_n).mean(axis=1)
        out[measure] = np.vstack([per_topic, per_topic.mean(axis=0, keepdims=True)])
    return out


def _bootstrap(measures, counts, windows, top_local, pair_index, top_n, replicates, level,
               seed):
    """``scipy.stats.bootstrap``'s basic interval of every measure's (T + 1) scores, stacked
    measure by measure (module docstring): its data are the document ids, and a replicate's
    counts are the per-document counts weighted by how often it drew each document."""
    D = counts.shape[0]
    by_column = counts.T.tocsr().astype(float)

    def scores(ids, axis=-1):  # scipy passes ``axis``; the ids run along the last axis
        rows = np.atleast_2d(ids)
        drawn = (rows + D * np.arange(len(rows))[:, None]).ravel()
        weights = np.bincount(drawn, minlength=D * len(rows)).reshape(len(rows), D).T
        scored = _scores(measures, by_column @ weights, windows @ weights, top_local,
                         pair_index, top_n)
        stacked = np.vstack([scored[m] for m in measures])
        return stacked[:, 0] if np.ndim(ids) == 1 else stacked

    with warnings.catch_warnings():
        if replicates == 1:  # scipy's standard error of one replicate (not used) warns
            warnings.filterwarnings("ignore", "Degrees of freedom", RuntimeWarning)
            warnings.filterwarnings("ignore", "invalid value encountered", RuntimeWarning)
        return bootstrap((np.arange(D),), scores, vectorized=True, method="basic",
                         n_resamples=replicates, batch=REPLICATE_BLOCK, confidence_level=level,
                         rng=generator(seed, "coherence"))


def _table(model, top, top_local, word_totals, measures, full, interval, settings):
    words = (np.asarray(model.vocab, dtype=str) if model.vocab is not None
             else np.arange(model.n_types).astype(str))
    absent = word_totals[top_local] == 0
    T = top.shape[0]
    frame = pd.DataFrame({
        "topic": [str(t) for t in range(T)] + ["mean"],
        "top_words": [" ".join(words[row]) for row in top] + [""],
        "absent_words": [" ".join(words[row][gone]) for row, gone in zip(top, absent, strict=True)]
        + [" ".join(sorted(set(words[top[absent]])))],
    })
    low, high = (np.reshape(end, (len(measures), T + 1)) for end in interval.confidence_interval)
    for k, measure in enumerate(measures):
        frame[measure] = full[measure][:, 0]
        frame[f"{measure}_low"] = low[k]
        frame[f"{measure}_high"] = high[k]
    for name, value in settings.items():
        frame[name] = value
    return frame
