"""Béchard & Gervet (``bechard2018``, LDA course project): experiments 001-F4, 001-T1, 001-T2.

Every function takes corpora or fitted models and returns a tidy ``pandas.DataFrame``; the workflow
saves the tables and the plotting functions of :mod:`topiceval.plots.bechard2018` draw them.

001-F4, choosing T.  :func:`perplexity_run` trains one model (trainer x T x seed) on the training
split and reports training and test perplexity; :func:`perplexity_vs_topics` loops over a grid.
Which perplexity each row is (column ``definition``, docs/methods/lda.md#perplexity):

* ``vem`` (our Béchard & Gervet VEM, α_t = 1/T, no topic prior): ``P2`` plug-in with θ = γ/Σγ
  (training γ, or the variational fold-in on test documents), and ``P1-bound``, exp(−Σ_d L_d/N) from
  the per-document ELBO (V1), an upper bound on the true marginal perplexity (P1).
* ``gibbs`` (our collapsed Gibbs, αm_t = 50/T, βu_v = 0.01): ``P2`` plug-in with training θ̂ (1.8)
  or, on test documents, θ̃ from query sampling (1.16).  P2 on test documents re-uses the test
  words to fit θ̃ and is OPTIMISTIC (``optimistic`` column).
* ``sklearn`` (scikit-learn's batch variational LDA, priors 1/T, ``max_iter`` 10): ``P4``,
  sklearn's bound-based perplexity (what Béchard & Gervet Fig. 4 shows).

Beyond the paper, :func:`honest_rows` estimates for every model the true held-out marginal
perplexity P1 with topiceval's unbiased estimators (``P1-CS``, Chib-style; ``P1-LR``, sequential
left-to-right), with a Monte Carlo error bar, on one seeded subset of the test documents: the
question a reader of seed 001 has is how far the T that the plug-in values and bounds pick is
from the honest estimate's lowest T, in nats and in standard errors.

:func:`f4_summary` averages the rows over seeds, :func:`minimum_table` states where each test
curve is lowest against the paper's T = 12, and :func:`topiceval.plots.bechard2018.f4_caption`
(beside the figure) says it in words.

001-T1 / 001-T2: :func:`match_paper_topics` pairs the paper's six labelled topics with ours
(assignment maximising the probability mass our topic gives to the paper's five words) and lists
our top words next to the paper's; :func:`theme_recovery` counts per theme our topic's words
among the paper's; :func:`tables_caption` summarises the match and states the ledger's verdict on it
(``topiceval.ledger.caption_verdicts``: one tie rule).

Workflow (``workflow/rules/bechard2018.smk``): :func:`workflow_plan` turns the config block
``bechard2018`` into the training jobs at DAG-build time; :func:`train_job` (one job per
trainer x T x seed) saves the model and its perplexity rows, :func:`honest_job` adds the honest
estimate of that model, :func:`f4_tables_job` gathers the rows into the 001-F4 table and the
minimum table, :func:`topic_table_job` writes 001-T1 / 001-T2
and their captions.  No table holds wall-clock times (the rules' ``benchmark:`` files do), so the
outputs are bit-identical for any thread count: VEM and fold-in results do not depend on threads,
the Gibbs sampler depends only on its configured block count ``gibbs_blocks``, and scikit-learn
runs with one BLAS thread.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment
from threadpoolctl import threadpool_limits

from topiceval.claims import AGREES, tie_rule
from topiceval.corpus import Corpus
from topiceval.estimators import lda
from topiceval.evaluation import combine_runs
from topiceval.io import write_csv_atomic, write_text_atomic
from topiceval.ledger import caption_verdicts
from topiceval.models import LDAModel, load_model, save_model
from topiceval.seeds import derive_seed, generator
from topiceval.threads import numba_threads
from topiceval.training.lda import (
    fit_gibbs,
    fit_vem,
    fold_in,
    plugin_log_likelihood,
    pooled_perplexity,
    sklearn_bound_perplexity,
    top_words,
    vem_fold_in,
)

TRAINERS = ("vem", "gibbs", "sklearn")
DEFINITIONS = ("P2", "P1-bound", "P4", "P1-CS", "P1-LR")
# the honest estimates of P1 (docs/methods/lda.md#perplexity): the estimator method behind each
HONEST = {"P1-CS": "chib", "P1-LR": "lr"}
_KEY_HONEST_DOCS = 1  # stream purpose: the test documents of the honest estimate
SPLITS = ("train", "test")
# the grid of 001-F4 (not printed in the paper; docs/methods/experiments.md#bechard2018)
PAPER_TOPICS = (2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 25, 30)
PAPER_BEST_T = 12
DEFAULTS = {
    "gibbs_sweeps": 1000,
    "gibbs_blocks": 1,  # B of the Gibbs sampler: the model depends on it, not on threads
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
TABLE_TRAINERS = {"T1": "vem", "T2": "gibbs"}
COLUMNS = ["trainer", "T", "seed", "split", "definition", "optimistic", "perplexity",
           "log_likelihood", "log_likelihood_se", "tokens", "documents", "untrusted"]
# ``untrusted``: the honest estimates' documents the diagnostics do not trust (docs/trust.md);
# empty for plug-in values and bounds, and absent from tables written before the diagnostics
OPTIONAL_COLUMNS = {"untrusted"}
SUMMARY_COLUMNS = ["trainer", "definition", "optimistic", "split", "T", "perplexity",
                   "perplexity_min", "perplexity_max", "log_likelihood", "log_likelihood_se",
                   "seeds", "tokens", "documents", "untrusted"]


def _non_empty(corpus: Corpus) -> Corpus:
    keep = np.flatnonzero(corpus.lengths > 0)
    return corpus if keep.size == corpus.n_docs else corpus.subset(keep)


def _row(trainer, n_topics, seed, split, definition, optimistic, log_probs, corpus, se=np.nan,
         untrusted=np.nan):
    """One table row from per-document log-probabilities (or a pooled one) of ``corpus``;
    ``se`` is the Monte Carlo standard error of their sum and ``untrusted`` the documents whose
    estimate the diagnostics do not trust (both NaN for plug-in values and bounds)."""
    log_probs = np.atleast_1d(log_probs)
    lengths = corpus.lengths if log_probs.size == corpus.n_docs else [corpus.n_tokens]
    return {
        "trainer": trainer,
        "T": n_topics,
        "seed": seed,
        "split": split,
        "definition": definition,
        "optimistic": optimistic,
        "perplexity": pooled_perplexity(log_probs, lengths),
        "log_likelihood": float(np.sum(log_probs)),
        "log_likelihood_se": float(se),
        "tokens": corpus.n_tokens,
        "documents": corpus.n_docs,
        "untrusted": untrusted,
    }


def _sklearn_lda(n_topics, seed, max_iter):
    from sklearn.decomposition import LatentDirichletAllocation

    return LatentDirichletAllocation(n_components=n_topics, learning_method="batch",
                                     max_iter=max_iter, random_state=seed)


def perplexity_run(train: Corpus, test: Corpus, trainer: str, n_topics: int, *, seed: int = 0,
                   threads: int = 1, **settings) -> tuple[pd.DataFrame, LDAModel]:
    """Train one model on ``train`` and return (perplexity rows, fitted model) for 001-F4.

    ``settings`` override :data:`DEFAULTS` (``gibbs_sweeps``, ``gibbs_blocks``,
    ``foldin_sweeps``, ``vem_max_iter``, ``vem_tol``, ``sklearn_max_iter``).  ``threads`` only
    changes speed (VEM and fold-in); the Gibbs model depends on ``gibbs_blocks`` instead.  Empty
    documents are dropped.  The sklearn model is returned as an LDAModel with Φ = λ/Σλ and
    α = 1/T; it is fitted with one BLAS thread so that its numbers do not depend on the machine.
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
    if test.n_docs == 0:
        raise ValueError("the test corpus has no non-empty documents")
    rows = []
    if trainer == "vem":
        fit = fit_vem(train, n_topics, max_iter=opts["vem_max_iter"], tol=opts["vem_tol"],
                      seed=seed, threads=threads)
        model = fit.model
        folded = vem_fold_in(model, test, threads=threads)
        theta_train = fit.gamma / fit.gamma.sum(axis=1, keepdims=True)
        for split, corpus, theta, bound in (("train", train, theta_train, fit.doc_elbo),
                                            ("test", test, folded.theta, folded.doc_elbo)):
            rows.append(_row(trainer, n_topics, seed, split, "P2", split == "test",
                             plugin_log_likelihood(corpus, theta, model.phi), corpus))
            rows.append(_row(trainer, n_topics, seed, split, "P1-bound", False, bound, corpus))
    elif trainer == "gibbs":
        fit = fit_gibbs(train, n_topics, sweeps=opts["gibbs_sweeps"], seed=seed,
                        threads=opts["gibbs_blocks"])
        model = fit.model
        folded = fold_in(fit, test, method="query", sweeps=opts["foldin_sweeps"], seed=seed,
                         threads=threads)
        for split, corpus, theta in (("train", train, fit.theta), ("test", test, folded.theta)):
            rows.append(_row(trainer, n_topics, seed, split, "P2", split == "test",
                             plugin_log_likelihood(corpus, theta, model.phi), corpus))
    else:
        with threadpool_limits(limits=1):
            est = _sklearn_lda(n_topics, seed, opts["sklearn_max_iter"]).fit(train.counts())
            bounds = {split: -np.log(sklearn_bound_perplexity(est, corpus.counts()))
                      * corpus.n_tokens for split, corpus in (("train", train), ("test", test))}
        phi = est.components_ / est.components_.sum(axis=1, keepdims=True)
        model = LDAModel(phi, np.full(n_topics, 1.0 / n_topics), None, train.vocab,
                         {"trainer": "sklearn-batch-vb", "T": n_topics, "seed": seed,
                          "max_iter": opts["sklearn_max_iter"], "topic_word_prior": 1.0 / n_topics,
                          "corpus_checksum": train.checksum()})
        for split, corpus in (("train", train), ("test", test)):
            rows.append(_row(trainer, n_topics, seed, split, "P4", False, bounds[split], corpus))
    return pd.DataFrame(rows, columns=COLUMNS), model


def perplexity_vs_topics(train: Corpus, test: Corpus, topics=PAPER_TOPICS, trainers=TRAINERS, *,
                         seed: int = 0, threads: int = 1, **settings) -> pd.DataFrame:
    """001-F4: :func:`perplexity_run` over the grid ``topics`` x ``trainers``."""
    tables = [perplexity_run(train, test, trainer, int(t), seed=seed, threads=threads,
                             **settings)[0]
              for trainer in trainers for t in topics]
    return pd.concat(tables, ignore_index=True)


def honest_documents(test: Corpus, n_docs: int | None, seed: int) -> Corpus:
    """The test documents of the honest estimate: ``n_docs`` non-empty documents drawn without
    replacement (in corpus order) by the stream ``(seed, purpose)``, or all of them
    (``n_docs`` None or at least their number).  The same for every model of a seed, so the
    curves over T are compared on one document set."""
    test = _non_empty(test)
    if n_docs is None or n_docs >= test.n_docs:
        return test
    pick = generator(seed, _KEY_HONEST_DOCS).choice(test.n_docs, size=int(n_docs), replace=False)
    return test.subset(np.sort(pick))


def honest_rows(model: LDAModel, test: Corpus, trainer: str, n_topics: int, *, seed: int,
                methods: Mapping[str, Mapping], runs: int, n_docs: int | None = None,
                threads: int = 1) -> pd.DataFrame:
    """001-F4 beyond the paper: the held-out marginal perplexity P1 of ``model`` estimated by
    topiceval's own estimators, with its Monte Carlo error.

    ``methods`` maps a definition of :data:`HONEST` (``P1-CS``: Chib-style, ``P1-LR``:
    sequential left-to-right, both unbiased for P(w_d | Phi, alpha m)) to the estimator's
    settings.  Each document is estimated ``runs`` times; the runs are averaged in probability
    and the standard error of the summed log-likelihood is the delta-method one
    (``topiceval.evaluation.combine_runs``), so the perplexity's interval is
    exp(-(LL +- 2 se) / N).  The documents are :func:`honest_documents` of the test split, and
    the estimator streams are named (seed, "001-F4", definition, trainer, T).
    """
    if runs < 2:
        raise ValueError(f"the honest estimate needs at least 2 runs for its error bar, got {runs}")
    docs = honest_documents(test, n_docs, seed).align(model, oov="error")
    rows = []
    with numba_threads(threads):
        for definition, settings in methods.items():
            if definition not in HONEST:
                raise ValueError(f"unknown honest definition {definition!r}; expected one of "
                                 f"{sorted(HONEST)}")
            result = lda.estimate_runs(HONEST[definition], docs, model.phi, model.alpha_m,
                                       runs=runs, seed=derive_seed(seed, "001-F4", definition,
                                                                   trainer, n_topics),
                                       work_limit=None, **settings)
            logp, se = combine_runs(result.logp)
            rows.append(_row(trainer, n_topics, seed, "test", definition, False, logp, docs,
                             se=float(np.sqrt(np.sum(se ** 2))),
                             untrusted=int((~result.diagnostics["trusted"]).sum())))
    return pd.DataFrame(rows, columns=COLUMNS)


# --------------------------------------------------------------------------- 001-F4 summaries
def _ordered(df: pd.DataFrame) -> pd.DataFrame:
    """Rows in a fixed order (trainer, definition, split as listed above, then T and seed)."""
    ranks = {"trainer": TRAINERS, "definition": DEFINITIONS, "split": SPLITS}
    keyed = df.copy()
    for column, values in ranks.items():
        unknown = sorted(set(df[column]) - set(values))
        if unknown:
            raise ValueError(f"unknown {column} value(s) {unknown}; expected {values}")
        keyed[f"_{column}"] = df[column].map({v: i for i, v in enumerate(values)})
    keys = [f"_{c}" for c in ranks] + ["T"] + (["seed"] if "seed" in df.columns else [])
    return (keyed.sort_values(keys, kind="stable").drop(columns=[f"_{c}" for c in ranks])
            .reset_index(drop=True))


def f4_table(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The 001-F4 table: the rows of every training job, checked and in a fixed order."""
    df = pd.concat(list(tables), ignore_index=True)
    if missing := set(COLUMNS) - set(df.columns):
        raise ValueError(f"perplexity rows lack column(s) {sorted(missing)}")
    df = _ordered(df[COLUMNS])
    if df.duplicated(["trainer", "T", "seed", "split", "definition"]).any():
        raise ValueError("duplicate (trainer, T, seed, split, definition) rows")
    return df


def f4_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Mean perplexity over seeds of each (trainer, definition, split, T), with its range;
    ``tokens`` is the mean over seeds (the honest estimates' subsets differ between seeds)."""
    if missing := set(COLUMNS) - OPTIONAL_COLUMNS - set(df.columns):
        raise ValueError(f"table lacks column(s) {sorted(missing)}")
    if df.empty:
        raise ValueError("the perplexity table has no rows")
    keys = ["trainer", "definition", "optimistic", "split", "T"]
    if "untrusted" not in df:
        df = df.assign(untrusted=np.nan)
    summary = df.assign(_var=df["log_likelihood_se"] ** 2).groupby(keys, sort=False).agg(
        perplexity=("perplexity", "mean"), perplexity_min=("perplexity", "min"),
        perplexity_max=("perplexity", "max"), log_likelihood=("log_likelihood", "mean"),
        _var=("_var", "sum"), seeds=("seed", "nunique"),
        tokens=("tokens", "mean"), documents=("documents", "first"),
        untrusted=("untrusted", lambda u: u.sum(min_count=1))).reset_index()
    # the Monte Carlo error of the mean over seeds (NaN where the rows have none)
    summary["log_likelihood_se"] = np.sqrt(summary["_var"].where(summary["_var"] > 0)) \
        / summary["seeds"]
    return _ordered(summary[SUMMARY_COLUMNS])


def minimum_table(df: pd.DataFrame, paper_t: int = PAPER_BEST_T) -> pd.DataFrame:
    """Where each test-perplexity curve of :func:`f4_summary` is lowest, against ``paper_t``.

    One row per (trainer, definition): the grid, the number of seeds, ``best_T`` and its
    perplexity (mean over seeds; the smallest T on ties), the perplexity at the paper's T and how
    much higher it is (``excess_at_paper_T``; NaN when ``paper_t`` is not in the grid),
    ``edge`` (the minimum lies at an end of the grid: no interior minimum), ``seed_best_T``
    (each seed's own minimum, in seed order), ``train_monotone`` (training perplexity strictly
    decreasing in T) and, for the honest estimates (:data:`HONEST`), ``within_2se``: every T
    whose test log-likelihood is within two combined Monte Carlo standard errors of the best
    one's (the Ts the estimate cannot tell from the best; empty for plug-in values and bounds).
    """
    summary = f4_summary(df)
    df = df.reset_index(drop=True)
    rows = []
    for (trainer, definition), part in summary.groupby(["trainer", "definition"], sort=False):
        test = part[part["split"] == "test"].sort_values("T")
        train = part[part["split"] == "train"].sort_values("T")
        if test.empty:
            raise ValueError(f"no test rows for {trainer} ({definition})")
        best = test.loc[test["perplexity"].idxmin()]
        grid = test["T"].to_numpy()
        at_paper = test.loc[test["T"] == paper_t, "perplexity"]
        at_paper = float(at_paper.iloc[0]) if len(at_paper) else float("nan")
        runs = df[(df["trainer"] == trainer) & (df["definition"] == definition)
                  & (df["split"] == "test")].sort_values(["seed", "T"])
        seed_best = runs.loc[runs.groupby("seed", sort=True)["perplexity"].idxmin(), "T"]
        rows.append({
            "trainer": trainer,
            "definition": definition,
            "optimistic": bool(best["optimistic"]),
            "grid": " ".join(str(int(t)) for t in grid),
            "seeds": int(best["seeds"]),
            "best_T": int(best["T"]),
            "best_perplexity": float(best["perplexity"]),
            "paper_best_T": int(paper_t),
            "perplexity_at_paper_T": at_paper,
            "excess_at_paper_T": at_paper / float(best["perplexity"]) - 1.0,
            "edge": bool(grid.size > 1 and best["T"] in (grid.min(), grid.max())),
            "seed_best_T": " ".join(str(int(t)) for t in seed_best),
            "train_monotone": bool(train.size and np.all(np.diff(train["perplexity"]) < 0)),
            "within_2se": _within_2se(test, best) if definition in HONEST else "",
        })
    return pd.DataFrame(rows)


def _within_2se(test: pd.DataFrame, best: pd.Series) -> str:
    """The Ts of a test curve whose log-likelihood ``best``'s does not exceed by more than 2
    combined standard errors (the estimates of different models are independent): the ledger's
    tie rule, :func:`topiceval.claims.tie_rule`, does not find ``best`` higher.  A T whose
    standard error is unknown is left out."""
    gap = best["log_likelihood"] - test["log_likelihood"]
    se = np.sqrt(best["log_likelihood_se"] ** 2 + test["log_likelihood_se"] ** 2)
    tied = [np.isfinite(g) and np.isfinite(e) and tie_rule(float(g), float(e)) != AGREES
            for g, e in zip(gap, se, strict=True)]
    return " ".join(str(int(t)) for t in test.loc[tied, "T"])


PAPER = "Béchard & Gervet"


# --------------------------------------------------------------------------- 001-T1 / 001-T2
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


def theme_recovery(matches: pd.DataFrame) -> pd.DataFrame:
    """Per label of :func:`match_paper_topics`' table: ``theme_words``, how many of our topic's
    words are among the words the paper lists for that label in either of its tables (Tables 1
    and 2 name the same six themes).  Whether a theme is found is the ledger's verdict
    (``topiceval.claims``, claims ``001-T1-themes`` and ``001-T2-themes``)."""
    themes = {label: {w for table in PAPER_TABLES.values() for w in table[label]}
              for label in PAPER_TABLES["T1"]}
    shared = [len(set(str(words).split()) & themes[label])
              for label, words in zip(matches["label"], matches["words"], strict=True)]
    return pd.DataFrame({"label": matches["label"], "theme_words": shared})


def tables_caption(matches: pd.DataFrame, table: str) -> str:
    """Summary of :func:`match_paper_topics`: how the topics are matched, how many of the
    paper's words we recover, which paper words our vocabulary lacks, the side-by-side table
    (markdown) with each theme's words (:func:`theme_recovery`), and the ledger's verdicts."""
    if table not in PAPER_TABLES:
        raise ValueError(f"unknown paper table {table!r}; expected one of {sorted(PAPER_TABLES)}")
    total = int(matches["overlap"].sum())
    found = ", ".join(f"{r.label} {r.overlap}/5" for r in matches.itertuples())
    trainer = "variational EM" if TABLE_TRAINERS[table] == "vem" else "collapsed Gibbs"
    missing = sorted({w for m in matches["missing"] if isinstance(m, str) for w in m.split()})
    themes = theme_recovery(matches)
    lines = [f"{PAPER}, Table {table[1]}, lists the top-5 words of six hand-labelled topics of a "
             f"12-topic {trainer} model. Each label is matched to a different one of our 12 "
             f"topics by the one-to-one assignment (Hungarian algorithm) that maximises the "
             f"total probability our topics give to the paper's five words of their labels; our "
             f"top-5 lists contain {total} of the paper's 30 words ({found})."]
    if missing:
        lines[0] += (f" Paper words absent from our vocabulary (lemmatised or outside it): "
                     f"{', '.join(missing)}.")
    lines[0] += (" Theme words: how many of our topic's top-5 words are among the words the "
                 "paper lists for that label in either table (Tables 1 and 2 name the same six "
                 "themes with different words); the verdicts below judge them.")
    lines += ["", "| label | paper | ours (topic) | shared | theme words |",
              "|---|---|---|---|---|"]
    lines += [f"| {r.label} | {r.paper_words} | {r.words} ({r.topic}) | {r.overlap}/5 | "
              f"{t.theme_words}/5 |"
              for r, t in zip(matches.itertuples(), themes.itertuples(), strict=True)]
    lines += ["", *caption_verdicts(f"001-{table}-", {f"bechard2018-{table}.csv": matches})]
    return "\n".join(lines)


# --------------------------------------------------------------------------- workflow
@dataclass(frozen=True)
class Plan:
    """The jobs of a ``bechard2018`` config block: corpus, training runs (trainer, T, seed),
    the run behind each topic table, the trainer settings and the honest estimate's settings
    (``honest``: ``docs``, ``runs`` and ``methods``; no methods, no honest jobs)."""

    dataset: str
    variant: str
    runs: tuple[tuple[str, int, int], ...]
    tables: dict
    settings: dict
    honest: dict


def workflow_plan(cfg: Mapping) -> Plan:
    """The training jobs of 001-F4 (trainers x topics x seeds) and of 001-T1/T2 (the VEM and the
    Gibbs model of ``table_topics`` topics, first seed), from the config block."""
    dataset, sep, variant = str(cfg["corpus"]).partition("/")
    if not (sep and dataset and variant) or "/" in variant:
        raise ValueError(f"bechard2018.corpus must be 'dataset/variant', got {cfg['corpus']!r}")
    trainers = list(dict.fromkeys(cfg["trainers"]))
    if unknown := [t for t in trainers if t not in TRAINERS]:
        raise ValueError(f"bechard2018.trainers: unknown trainer(s) {unknown}; "
                         f"expected some of {TRAINERS}")
    topics = sorted({int(t) for t in cfg["topics"]})
    seeds = list(dict.fromkeys(int(s) for s in cfg["seeds"]))
    if not (trainers and topics and seeds):
        raise ValueError("bechard2018: trainers, topics and seeds must each be non-empty")
    if min(topics) < 1 or int(cfg["table_topics"]) < 1:
        raise ValueError("bechard2018: numbers of topics must be positive")
    runs = tuple((trainer, t, s) for trainer in trainers for t in topics for s in seeds)
    tables = {table: (trainer, int(cfg["table_topics"]), seeds[0])
              for table, trainer in TABLE_TRAINERS.items()}
    settings = {key: cfg[key] for key in DEFAULTS if key in cfg}
    honest = dict(cfg.get("honest") or {})
    methods = dict(honest.get("methods") or {})
    if unknown := sorted(set(methods) - set(HONEST)):
        raise ValueError(f"bechard2018.honest.methods: unknown definition(s) {unknown}; "
                         f"expected some of {sorted(HONEST)}")
    honest = {"docs": honest.get("docs"), "runs": int(honest.get("runs", 4)),
              "methods": {k: dict(v or {}) for k, v in methods.items()}}
    return Plan(dataset, variant, runs, tables, settings, honest)


def train_job(corpus_path, trainer: str, n_topics: int, seed: int, model_path, table_path, *,
              threads: int = 1, **settings) -> pd.DataFrame:
    """Rule ``bechard2018_train``: train one model on the corpus's training split, save it
    (:func:`topiceval.models.save_model`) and its perplexity rows (train and test splits)."""
    corpus = Corpus.load(corpus_path)
    rows, model = perplexity_run(corpus.select_split("train"), corpus.select_split("test"),
                                 trainer, int(n_topics), seed=int(seed), threads=threads,
                                 **settings)
    save_model(model_path, model)
    write_csv_atomic(table_path, rows)
    return rows


def honest_job(corpus_path, model_path, trainer: str, n_topics: int, seed: int, table_path, *,
               docs: int | None, runs: int, methods: Mapping[str, Mapping],
               threads: int = 1) -> pd.DataFrame:
    """Rule ``bechard2018_honest``: :func:`honest_rows` of one trained model on the corpus's
    test split, written as perplexity rows."""
    test = Corpus.load(corpus_path).select_split("test")
    rows = honest_rows(load_model(model_path), test, trainer, int(n_topics), seed=int(seed),
                       methods=methods, runs=runs, n_docs=docs, threads=threads)
    write_csv_atomic(table_path, rows)
    return rows


def f4_tables_job(job_tables: Sequence[str | os.PathLike], table_path, minimum_path) -> None:
    """Rule ``bechard2018_f4_tables``: the 001-F4 table (every training and honest job's rows)
    and its minimum table (:func:`minimum_table`)."""
    df = f4_table([pd.read_csv(p) for p in job_tables])
    write_csv_atomic(table_path, df)
    write_csv_atomic(minimum_path, minimum_table(df))


def topic_table_job(model_path, table: str, csv_path, caption_path) -> pd.DataFrame:
    """Rule ``bechard2018_topics``: 001-T1 or 001-T2 (:func:`match_paper_topics`) and its
    caption (:func:`tables_caption`)."""
    matches = match_paper_topics(load_model(model_path), table)
    write_csv_atomic(csv_path, matches)
    write_text_atomic(caption_path, tables_caption(matches, table) + "\n")
    return matches
