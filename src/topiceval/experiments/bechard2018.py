"""Seed 001 (Béchard & Gervet, LDA course project) experiments: 001-F4, 001-T1, 001-T2 (§9.1).

Every function takes corpora or fitted models and returns a tidy ``pandas.DataFrame``; the workflow
saves the tables and the plotting functions of :mod:`topiceval.plots.bechard2018` draw them.

001-F4, choosing T.  :func:`perplexity_run` trains one model (trainer x T) on the training split
and reports training and test perplexity; :func:`perplexity_vs_topics` loops over a grid.  Which
perplexity each row is (column ``definition``, ESTIMATORS.md §1.6):

* ``vem`` (our seed-001 VEM, α_t = 1/T, no topic prior): ``P2`` plug-in with θ = γ/Σγ (training
  γ, or the variational fold-in on test documents), and ``P1-bound``, exp(−Σ_d L_d/N) from the
  per-document ELBO (V1), an upper bound on the true marginal perplexity (P1).
* ``gibbs`` (our collapsed Gibbs, αm_t = 50/T, βu_v = 0.01): ``P2`` plug-in with training θ̂ (1.8)
  or, on test documents, θ̃ from query sampling (1.16).  P2 on test documents re-uses the test
  words to fit θ̃ and is OPTIMISTIC (``optimistic`` column).
* ``sklearn`` (scikit-learn's batch variational LDA, priors 1/T, ``max_iter`` 10): ``P4``,
  sklearn's bound-based perplexity (what seed 001 Fig. 4 shows).

001-T1 / 001-T2: :func:`match_paper_topics` pairs the paper's six labelled topics with ours
(assignment maximising the probability mass our topic gives to the paper's five words) and lists
our top words next to the paper's.  :func:`f4_caption` and :func:`tables_caption` state what the
paper found and what we find, computed from the tables.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from topiceval.corpus import Corpus
from topiceval.lda import (
    fit_gibbs,
    fit_vem,
    fold_in,
    plugin_log_likelihood,
    pooled_perplexity,
    sklearn_bound_perplexity,
    top_words,
    vem_fold_in,
)
from topiceval.models import LDAModel

TRAINERS = ("vem", "gibbs", "sklearn")
PAPER_TOPICS = (2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 25, 30)  # ESTIMATORS.md §9.1 default grid
PAPER_BEST_T = 12
DEFAULTS = {
    "gibbs_sweeps": 1000,
    "foldin_sweeps": 100,
    "vem_max_iter": 200,
    "vem_tol": 1e-5,
    "sklearn_max_iter": 10,
}
PAPER_TABLES = {
    "T1": {  # variational EM, seed 001 Table 1
        "SPACE": ("space", "nasa", "program", "earth", "launch"),
        "COMPUTER": ("use", "windows", "file", "card", "window"),
        "RELIGION": ("god", "people", "believe", "jesus", "know"),
        "NUMBERS": ("10", "00", "25", "15", "11"),
        "MID-EAST": ("armenian", "people", "jews", "turkish", "war"),
        "SPORT": ("game", "team", "year", "games", "time"),
    },
    "T2": {  # collapsed Gibbs, seed 001 Table 2
        "SPACE": ("space", "nasa", "mission", "data", "lunar"),
        "COMPUTER": ("drive", "card", "disk", "system", "controller"),
        "RELIGION": ("god", "jesus", "christ", "life", "sin"),
        "NUMBERS": ("1", "2", "0", "3", "4"),
        "MID-EAST": ("armenian", "jew", "turkish", "muslim", "people"),
        "SPORT": ("game", "year", "team", "run", "player"),
    },
}
COLUMNS = ["trainer", "T", "split", "definition", "optimistic", "perplexity", "log_likelihood",
           "tokens", "documents", "seconds"]


def _non_empty(corpus: Corpus) -> Corpus:
    keep = np.flatnonzero(corpus.lengths > 0)
    return corpus if keep.size == corpus.n_docs else corpus.subset(keep)


def _row(trainer, n_topics, split, definition, optimistic, log_probs, corpus, seconds):
    """One table row from per-document log-probabilities (or a pooled one) of ``corpus``."""
    log_probs = np.atleast_1d(log_probs)
    lengths = corpus.lengths if log_probs.size == corpus.n_docs else [corpus.n_tokens]
    return {
        "trainer": trainer,
        "T": n_topics,
        "split": split,
        "definition": definition,
        "optimistic": optimistic,
        "perplexity": pooled_perplexity(log_probs, lengths),
        "log_likelihood": float(np.sum(log_probs)),
        "tokens": corpus.n_tokens,
        "documents": corpus.n_docs,
        "seconds": seconds,
    }


def _sklearn_lda(n_topics, seed, max_iter):
    from sklearn.decomposition import LatentDirichletAllocation

    return LatentDirichletAllocation(n_components=n_topics, learning_method="batch",
                                     max_iter=max_iter, random_state=seed)


def perplexity_run(train: Corpus, test: Corpus, trainer: str, n_topics: int, *, seed: int = 0,
                   threads: int = 1, **settings) -> tuple[pd.DataFrame, LDAModel]:
    """Train one model on ``train`` and return (perplexity rows, fitted model) for 001-F4.

    ``settings`` override :data:`DEFAULTS` (``gibbs_sweeps``, ``foldin_sweeps``,
    ``vem_max_iter``, ``vem_tol``, ``sklearn_max_iter``).  Empty documents are dropped.  The
    sklearn model is returned as an LDAModel with Φ = λ/Σλ and α = 1/T.
    """
    if trainer not in TRAINERS:
        raise ValueError(f"unknown trainer {trainer!r}; expected one of {TRAINERS}")
    unknown = set(settings) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown setting(s) {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    opts = {**DEFAULTS, **settings}
    train, test = _non_empty(train), _non_empty(test)
    if train.n_types != test.n_types:
        raise ValueError("train and test corpora must share one vocabulary")
    rows = []
    started = time.perf_counter()
    if trainer == "vem":
        fit = fit_vem(train, n_topics, max_iter=opts["vem_max_iter"], tol=opts["vem_tol"],
                      seed=seed, threads=threads)
        model = fit.model
        seconds = time.perf_counter() - started
        folded = vem_fold_in(model, test, threads=threads)
        theta_train = fit.gamma / fit.gamma.sum(axis=1, keepdims=True)
        for split, corpus, theta, bound in (("train", train, theta_train, fit.doc_elbo),
                                            ("test", test, folded.theta, folded.doc_elbo)):
            rows.append(_row(trainer, n_topics, split, "P2", split == "test",
                             plugin_log_likelihood(corpus, theta, model.phi), corpus, seconds))
            rows.append(_row(trainer, n_topics, split, "P1-bound", False, bound, corpus,
                             seconds))
    elif trainer == "gibbs":
        fit = fit_gibbs(train, n_topics, sweeps=opts["gibbs_sweeps"], seed=seed,
                        threads=threads)
        model = fit.model
        seconds = time.perf_counter() - started
        folded = fold_in(fit, test, method="query", sweeps=opts["foldin_sweeps"], seed=seed,
                         threads=threads)
        for split, corpus, theta in (("train", train, fit.theta), ("test", test, folded.theta)):
            rows.append(_row(trainer, n_topics, split, "P2", split == "test",
                             plugin_log_likelihood(corpus, theta, model.phi), corpus, seconds))
    else:
        est = _sklearn_lda(n_topics, seed, opts["sklearn_max_iter"]).fit(train.counts())
        seconds = time.perf_counter() - started
        phi = est.components_ / est.components_.sum(axis=1, keepdims=True)
        model = LDAModel(phi, np.full(n_topics, 1.0 / n_topics), None, train.vocab,
                         {"trainer": "sklearn-batch-vb", "T": n_topics, "seed": seed,
                          "max_iter": opts["sklearn_max_iter"]})
        for split, corpus in (("train", train), ("test", test)):
            bound = -np.log(sklearn_bound_perplexity(est, corpus.counts())) * corpus.n_tokens
            rows.append(_row(trainer, n_topics, split, "P4", False, bound, corpus, seconds))
    return pd.DataFrame(rows, columns=COLUMNS), model


def perplexity_vs_topics(train: Corpus, test: Corpus, topics=PAPER_TOPICS, trainers=TRAINERS, *,
                         seed: int = 0, threads: int = 1, **settings) -> pd.DataFrame:
    """001-F4: :func:`perplexity_run` over the grid ``topics`` x ``trainers``."""
    tables = [perplexity_run(train, test, trainer, int(t), seed=seed, threads=threads,
                             **settings)[0]
              for trainer in trainers for t in topics]
    return pd.concat(tables, ignore_index=True)


def match_paper_topics(model: LDAModel, table: str, n: int = 5) -> pd.DataFrame:
    """001-T1/T2: the paper's labelled topics of ``table`` ("T1" or "T2") matched to ours.

    Columns: label, paper_words, topic (ours), words (our top ``n``), overlap (how many of the
    paper's words are among ours), mass (Σ of our φ over the paper's words in the vocabulary),
    missing (paper words absent from the vocabulary).
    """
    if table not in PAPER_TABLES:
        raise ValueError(f"unknown paper table {table!r}; expected one of {sorted(PAPER_TABLES)}")
    if model.vocab is None:
        raise ValueError("the model has no vocabulary to match words against")
    labels = PAPER_TABLES[table]
    index = {str(w): i for i, w in enumerate(model.vocab)}
    mass = np.zeros((len(labels), model.n_topics))
    for i, words in enumerate(labels.values()):
        ids = [index[w] for w in words if w in index]
        mass[i] = model.phi[:, ids].sum(axis=1)
    rows_idx, cols_idx = linear_sum_assignment(-mass)
    ours = top_words(model, n)
    rows = []
    for i, t in zip(rows_idx, cols_idx, strict=True):
        label, words = list(labels.items())[i]
        mine = ours.loc[ours["topic"] == t, "word"].tolist()
        rows.append({
            "label": label,
            "paper_words": " ".join(words),
            "topic": int(t),
            "words": " ".join(mine),
            "overlap": len(set(mine) & set(words)),
            "mass": float(mass[i, t]),
            "missing": " ".join(w for w in words if w not in index),
        })
    return pd.DataFrame(rows)


def f4_caption(df: pd.DataFrame) -> str:
    """What seed 001 found for Fig. 4 and what the table ``df`` of :func:`perplexity_vs_topics`
    shows: where test perplexity is lowest and whether training perplexity falls monotonically."""
    parts = [f"Seed 001 (sklearn batch VB, P4): training perplexity decreases monotonically with "
             f"T and the test perplexity is lowest at T = {PAPER_BEST_T}."]
    for (trainer, definition), group in df.groupby(["trainer", "definition"], sort=False):
        test = group[group["split"] == "test"].sort_values("T")
        train = group[group["split"] == "train"].sort_values("T")
        best = int(test.loc[test["perplexity"].idxmin(), "T"])
        monotone = bool(np.all(np.diff(train["perplexity"].to_numpy()) < 0))
        label = f"{trainer} ({definition}{', optimistic on test' if definition == 'P2' else ''})"
        parts.append(f"Ours, {label}: test minimum at T = {best}; training perplexity "
                     f"{'decreases monotonically' if monotone else 'is not monotone'} in T "
                     f"(T = {int(train['T'].min())}..{int(train['T'].max())}).")
    return " ".join(parts)


def tables_caption(matches: pd.DataFrame, table: str) -> str:
    """Summary of :func:`match_paper_topics`: how many of the paper's words we recover."""
    total = matches["overlap"].sum()
    found = ", ".join(f"{r.label} {r.overlap}/5" for r in matches.itertuples())
    trainer = "variational EM" if table == "T1" else "collapsed Gibbs"
    return (f"Seed 001 Table {table[1]} lists top-5 words of six hand-labelled topics of a "
            f"12-topic {trainer} model. Matching our topics to those labels, our top-5 lists "
            f"contain {total} of the paper's 30 words ({found}).")
