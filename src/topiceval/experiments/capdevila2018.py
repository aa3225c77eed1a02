"""Capdevila, Cerquides, Torres, Petitjean & Buntine 2018 (``capdevila2018``): L2R for GaP-FA.

Experiment functions return tidy ``pandas.DataFrame`` tables; the Snakemake rules call them and
the plot functions of ``topiceval.plots.capdevila2018`` draw them
(docs/methods/experiments.md#capdevila2018).

* 004-T1 ``corpus_table``: V, D, document length (mean, sd) of the six collections, beside the
  paper's Table 1.  ``STAND_INS`` says which staged corpus stands in for which collection.
* 004-F2 ``accuracy_curves`` -> ``summarise_accuracy``: KL divergence (6.19, bits) between exact and
  estimated probabilities of the tractable documents against the number of samples, for DS, HM, L2R
  and L2R-E; ``repeats`` runs, mean and standard error.  Curves come from prefixes of one run
  (``estimate_curve``), at ``checkpoints`` (Capdevila et al. 2018: 100 equally spaced sizes up to
  10,000).
* 004-F1 ``kl_vs_length``: KL of L2R and DS at the largest S against the average document length.
* 004-F3 ``loglik_curves``: sum of log p-hat over the first documents against S (DS, HM, L2R);
  ``loglik_convergence``: per document, each method's distance from its own final value and the
  paired differences between methods, the statistics of 004-F3's verdicts.
* ``caption_t1``: what the paper found for Table 1, what ours shows and the ledger's verdict;
  the figures' captions (§9.4 headlines) are drawn up beside the figures, in
  ``topiceval.plots.capdevila2018``.

Every function takes the size of its run as parameters (documents, checkpoints, repeats), so the
quick and default configurations are small and the paper's is a matter of settings.

Workflow layer (``workflow/rules/capdevila2018.smk``; each rule script calls one of these):

* ``train_job``: ``fit_gapfa`` on a corpus (Capdevila et al.'s settings), model saved with its
  vocabulary;
* ``accuracy_shard``: 004-F2 curves of one panel (a trained collection, or a released L2R model
  read by ``topiceval.data.l2r.load_l2r_model``) for one block of repeats;
* ``accuracy_tables``: shards -> 004-F2 summary table and 004-F1 table;
* ``loglik_shard`` / ``loglik_table``: 004-F3 estimates of one method on part i of K of a
  collection's documents (``loglik_part``), then their sums over the parts;
* ``corpus_table_job``: 004-T1 and its caption.

A shard's rows depend only on (seed, panel, repeat) for F2 and on (seed, collection, document,
method, repeat) for F3, never on the blocking (``topiceval.experiments.tasks.blocks`` for F2's
repeats, ``tasks.work_blocks`` for F3's documents), so a cluster may cut the work finer.
The curves run with ``work_limit=None``: the papers' budgets exceed the interactive limit per
document (S = 10,000 at T = 100 on NIPS-length documents), and the workflow predicts and budgets
their cost itself: 004-F3's K parts of a (collection, method) hold about equal predicted work
(``loglik_work``, the estimators' own ``gapfa.predicted_work``), K set per (collection, method)
by the configuration (``f3_parts``); F2 shards are blocks of repeats
(``benchmarks/cluster_walltime.py``, the SLURM profile).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from topiceval.corpus import Corpus
from topiceval.counts import as_count_matrix
from topiceval.data.l2r import load_l2r_model
from topiceval.estimators import gapfa
from topiceval.estimators.gapfa.exact import tractable_documents
from topiceval.experiments.rows import in_order, read_shards
from topiceval.experiments.tasks import work_blocks
from topiceval.experiments.trained import load_matched
from topiceval.io import write_csv_atomic, write_text_atomic
from topiceval.ledger import caption_verdicts
from topiceval.models import GaPModel, save_model
from topiceval.seeds import derive_seed
from topiceval.training.gapfa import fit_gapfa

COLLECTIONS = ("NIPS", "AP", "20NGs", "Reuters", "Twitter", "WS")

# seed 004 Table 1: vocabulary, documents, document length mean and sd
PAPER_TABLE1 = {
    "NIPS": (11_463, 5_811, 1_899, 513),
    "AP": (10_473, 2_246, 194, 111),
    "20NGs": (11_928, 18_846, 123, 247),
    "Reuters": (8_843, 19_043, 79, 75),
    "Twitter": (6_344, 10_523, 25, 4),
    "WS": (4_679, 12_309, 9, 3),
}

STAND_INS = {
    "NIPS": "nips-wallach (NIPS 1987-2003 raw text; paper: NIPS as published, 5,811 papers); "
            "L2R release NIPS_GaP_5802N_100W_5T counts for the released-model panel",
    "AP": "ap (Blei's lda-c AP, 2,246 documents: the paper's collection)",
    "20NGs": "20newsgroups (bydate, 18,846 messages: the paper's collection)",
    "Reuters": "reuters21578 (Distribution 1.0, 21,578 articles; paper: 19,043 documents)",
    "Twitter": "sttm-shorttext Tweet (2,472 tweets; paper: 10,523); L2R release "
               "Twitter_GaP_10653N_100W_5T counts for the released-model panel",
    "WS": "sttm-shorttext SearchSnippets (12,295 web snippets; paper: 12,309)",
}

PAPER = "Capdevila, Cerquides, Torres, Petitjean & Buntine (2018)"
DESCRIBE_T1 = (f"{PAPER}, Table 1: vocabulary size, number of documents and document length "
               "(tokens, mean and standard deviation) of each collection, ours beside the "
               "paper's.")

PAPER_T1 = "Collections ordered by decreasing average document length, from NIPS (1,899) to WS (9)."

F2_METHODS = ("ds", "hm", "l2r", "l2r_exact")
F3_METHODS = ("ds", "hm", "l2r")
# the columns of 004-F3's per-document rows (loglik_documents)
LOGLIK_COLUMNS = ("collection", "method", "repeat", "doc", "samples", "logp")
# labelled extra curves: an estimator run with fixed settings (same seed as its base method, so
# the two curves share their random numbers); also l2r_inner<k> and l2r_code_inner<k>, L2R with
# S' = k inner samples and the paper's or the code's proposal (method_variant)
METHOD_VARIANTS = {"l2r_code": ("l2r", {"proposal": "code"})}
INNER_VARIANT = re.compile(r"(?P<base>l2r|l2r_code)_inner(?P<k>[1-9][0-9]*)")
LABELS = {"ds": "DS", "hm": "HM", "l2r": "L2R", "l2r_exact": "L2R-E", "exact": "Exact",
          "l2r_code": "L2R (code's proposal)"}
# the panels of short texts, where the paper finds L2R worse than DS (the released Twitter
# model's documents are tweets too)
SHORT_TEXTS = ("Twitter", "WS", "Twitter (L2R release)")

# workflow names: staged dataset -> the paper's collection; released L2R model -> (file, panel)
DATASETS = {"nips": "NIPS", "ap": "AP", "20newsgroups": "20NGs", "reuters21578": "Reuters",
            "tweet": "Twitter", "searchsnippets": "WS"}
RELEASES = {"nips": ("NIPS_GaP_5802N_100W_5T.mat", "NIPS (L2R release)"),
            "twitter": ("Twitter_GaP_10653N_100W_5T.mat", "Twitter (L2R release)")}


# --------------------------------------------------------------------------- helpers
def counts_of(data):
    """The D x V count matrix of a ``Corpus`` or of a count matrix (validated CSR)."""
    return data.counts() if isinstance(data, Corpus) else as_count_matrix(data)


def checkpoint_grid(max_samples: int, n_points: int = 100, spacing: str = "linear") -> np.ndarray:
    """Sample sizes at which curves are recorded: ``n_points`` equally spaced sizes ending at
    ``max_samples`` (the reference code's partials), or log-spaced (``spacing="log"``)."""
    if max_samples < 1 or n_points < 1:
        raise ValueError("max_samples and n_points must be positive")
    if spacing == "linear":
        step = max(max_samples // n_points, 1)
        grid = np.arange(step, max_samples + 1, step)
    elif spacing == "log":
        grid = np.geomspace(1, max_samples, n_points)
    else:
        raise ValueError(f"spacing must be 'linear' or 'log', got {spacing!r}")
    return np.unique(np.append(np.round(grid).astype(np.int64), max_samples))


def kl_bits(log_exact, log_estimate) -> float:
    """KL(P || Q) in bits (6.19), P and Q the exact and estimated probabilities normalised over
    the evaluated documents; computed from logs with LSE (no probability is exponentiated
    unnormalised)."""
    log_p = np.asarray(log_exact, dtype=np.float64)
    log_q = np.asarray(log_estimate, dtype=np.float64)
    log_p = log_p - logsumexp(log_p)
    log_q = log_q - logsumexp(log_q)
    return float(np.sum(np.exp(log_p) * (log_p - log_q)) / math.log(2.0))


def method_variant(name: str) -> tuple[str, dict] | None:
    """(base method, fixed settings) of a labelled extra curve: a ``METHOD_VARIANTS`` entry, or
    ``l2r_inner<k>`` (k >= 2), L2R with k inner samples S' (the paper's proposal), or
    ``l2r_code_inner<k>``, the same with the code's proposal (``l2r_code``'s fixed settings
    and k inner samples); None for an estimator method itself."""
    if name in METHOD_VARIANTS:
        return METHOD_VARIANTS[name]
    match = INNER_VARIANT.fullmatch(name)
    if match and int(match["k"]) >= 2:
        fixed = METHOD_VARIANTS[match["base"]][1] if match["base"] in METHOD_VARIANTS else {}
        return "l2r", {**fixed, "inner_samples": int(match["k"])}
    return None


def label(method: str) -> str:
    """A method's label in figures and captions ("L2R-E", "L2R (S' = 4)", "L2R (code's proposal,
    S' = 4)", ...)."""
    variant = method_variant(method)
    if method not in LABELS and variant is not None and "inner_samples" in variant[1]:
        code = "code's proposal, " if variant[1].get("proposal") == "code" else ""
        return f"L2R ({code}S' = {variant[1]['inner_samples']})"
    return LABELS.get(method, method)


def _method(name: str, settings: Mapping[str, Mapping] | None) -> tuple[str, dict]:
    """(estimator method, settings) of a method or a variant (``method_variant``); a variant
    takes its base method's settings, then its own fixed ones, then ``settings[name]``."""
    settings = settings or {}
    base, fixed = method_variant(name) or (name, {})
    if base not in gapfa.METHODS:
        raise ValueError(f"unknown method {name!r}; choose from "
                         f"{sorted(set(gapfa.METHODS) | set(METHOD_VARIANTS))}, l2r_inner<k> or "
                         "l2r_code_inner<k> (k >= 2)")
    extra = {**settings.get(base, {}), **fixed} if name != base else {}
    return base, {**extra, **settings.get(name, {})}


# --------------------------------------------------------------------------- 004-T1
def corpus_table(collections: Mapping[str, object],
                 sources: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Table 1: one row per collection (``Corpus`` or count matrix), ours beside the paper's."""
    rows = []
    for name, data in collections.items():
        counts = counts_of(data)
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        paper = PAPER_TABLE1.get(name, (np.nan,) * 4)
        rows.append({
            "collection": name,
            "source": (sources or STAND_INS).get(name, ""),
            "vocabulary": counts.shape[1],
            "documents": counts.shape[0],
            "mean_length": float(lengths.mean()),
            "sd_length": float(lengths.std(ddof=1)) if lengths.size > 1 else float("nan"),
            "paper_vocabulary": paper[0],
            "paper_documents": paper[1],
            "paper_mean_length": paper[2],
            "paper_sd_length": paper[3],
        })
    return pd.DataFrame(rows)


def caption_t1(table: pd.DataFrame) -> str:
    """Table 004-T1's caption: what the paper found, our collections and their order by mean
    length, and the ledger's verdict on the paper's order (``topiceval.ledger``)."""
    ordered = table.sort_values("mean_length", ascending=False)["collection"].tolist()
    sources = "; ".join(f"{c}: {s}" for c, s in zip(table["collection"], table["source"],
                                                     strict=True))
    verdicts = caption_verdicts("004-T1-", {"capdevila2018-T1.csv": table})
    return "\n".join([
        f"{DESCRIBE_T1}\nPaper: {PAPER_T1} Ours: order by mean length {' > '.join(ordered)}; "
        f"staged stand-ins: {sources}. The documents counted are those the paper's "
        "preprocessing leaves non-empty (documents left empty are dropped), so a count can be "
        "below the collection size its stand-in names.", *verdicts])


# --------------------------------------------------------------------------- 004-F2
def accuracy_curves(
    counts,
    model: GaPModel,
    *,
    collection: str,
    methods: Sequence[str] = F2_METHODS,
    checkpoints: Iterable[int],
    repeats: int = 10,
    seed: int = 0,
    max_docs: int = 1000,
    max_summands: float = 1e9,
    settings: Mapping[str, Mapping] | None = None,
    first_repeat: int = 0,
    threads: int | None = None,
) -> pd.DataFrame:
    """KL (bits) and mean absolute log error against the exact marginal, per method, repeat and
    sample size, on the first ``max_docs`` tractable documents (fewer than ``max_summands``
    summands and at least two non-zero words, file order; G4-15).

    Columns: collection, method, repeat, samples, kl_bits, mae, n_docs, untrusted (the
    documents whose estimate the diagnostics do not trust, at the largest sample size only:
    the diagnostics are of the whole run; docs/trust.md).  ``settings`` maps a
    method to its estimator settings (e.g. ``{"hm": {"burnin": 100}}``); ``methods`` may name
    ``METHOD_VARIANTS`` (e.g. ``"l2r_code"``).  Repeats ``first_repeat .. first_repeat +
    repeats - 1`` are run (repeat k with seed ``derive_seed(seed, "accuracy", k)``), so blocks of
    repeats can run apart.
    """
    mat = counts_of(counts)
    docs = tractable_documents(mat, model.n_topics, max_summands=max_summands, limit=max_docs)
    if docs.size == 0:
        raise ValueError(f"{collection}: no tractable documents (< {max_summands:g} summands, "
                         ">= 2 non-zero words)")
    sub = mat[docs]
    exact = gapfa.estimate("exact", sub, model.phi, model.p, model.r, max_terms=max_summands,
                           threads=threads)
    checks = np.asarray(list(checkpoints), dtype=np.int64)
    rows = []
    for method in methods:
        base, extra = _method(method, settings)
        for k in range(first_repeat, first_repeat + repeats):
            curve, diagnosed = gapfa.estimate_curve(
                base, sub, model.phi, model.p, model.r, checkpoints=checks,
                seed=derive_seed(seed, "accuracy", k), threads=threads, work_limit=None,
                return_diagnostics=True, **extra)
            untrusted = int((~diagnosed["trusted"]).sum())
            for i, s in enumerate(checks):
                rows.append({
                    "collection": collection, "method": method, "repeat": k,
                    "samples": int(s), "kl_bits": kl_bits(exact, curve[:, i]),
                    "mae": float(np.mean(np.abs(curve[:, i] - exact))), "n_docs": docs.size,
                    "untrusted": untrusted if i == len(checks) - 1 else np.nan,
                })
    return pd.DataFrame(rows)


def summarise_accuracy(curves: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error over repeats of KL and MAE per (collection, method, samples).

    With a single evaluated document KL (6.19) is 0 by construction (both distributions are a
    point mass); the MAE of log p-hat is the informative metric there.
    """
    grouped = curves.groupby(["collection", "method", "samples"], sort=False)
    extra = ({"untrusted": ("untrusted", lambda u: u.sum(min_count=1))}
             if "untrusted" in curves else {})  # summed over the repeats
    out = grouped.agg(kl_bits=("kl_bits", "mean"), kl_sd=("kl_bits", "std"),
                      mae=("mae", "mean"), mae_sd=("mae", "std"),
                      repeats=("repeat", "nunique"), n_docs=("n_docs", "first"),
                      **extra).reset_index()
    for name in ("kl", "mae"):
        out[f"{name}_se"] = out[f"{name}_sd"].fillna(0.0) / np.sqrt(out["repeats"])
    return out.drop(columns=["kl_sd", "mae_sd"])


def final_accuracy(summary: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``summarise_accuracy`` at each (collection, method)'s largest sample size."""
    idx = summary.groupby(["collection", "method"], sort=False)["samples"].idxmax()
    return summary.loc[idx].reset_index(drop=True)


# --------------------------------------------------------------------------- 004-F1
def mean_document_length(counts) -> float:
    """Average number of tokens per document of a (downsized) corpus."""
    return float(np.asarray(counts_of(counts).sum(axis=1)).mean())


def kl_vs_length(summary: pd.DataFrame, lengths: Mapping[str, float],
                 methods: Sequence[str] = ("l2r", "l2r_code", "ds")) -> pd.DataFrame:
    """Figure 1 table: KL at the largest S of each method of ``methods`` that ``summary`` has
    (L2R with the paper's proposal and with the authors' code's, and DS) against the
    collection's average document length.  Columns: collection, mean_length, method, kl_bits,
    kl_se, n_docs."""
    final = final_accuracy(summary)
    final = final[final["method"].isin(methods) & final["collection"].isin(list(lengths))]
    out = final[["collection", "method", "kl_bits", "kl_se", "n_docs"]].copy()
    out.insert(1, "mean_length", out["collection"].map(dict(lengths)).astype(float))
    return out.sort_values(["mean_length", "method"]).reset_index(drop=True)


# --------------------------------------------------------------------------- 004-F3
def loglik_documents(
    counts,
    model: GaPModel,
    *,
    collection: str,
    methods: Sequence[str] = F3_METHODS,
    checkpoints: Iterable[int],
    start: int = 0,
    n_docs: int = 1000,
    every: int = 1,
    repeats: int = 1,
    seed: int = 0,
    settings: Mapping[str, Mapping] | None = None,
    threads: int | None = None,
) -> pd.DataFrame:
    """log p-hat(y_d) against S for the non-empty documents ``start, start + every, ...`` below
    ``start + n_docs`` (positions among the non-empty documents, file order), one row per
    document, method, repeat and sample size.  Document d of repeat k is run with its own seed
    (``topiceval.seeds.derive_seed(seed, repeat, position)``), so its rows do not depend on
    ``start``/``n_docs``/``every``: a subset (``every`` > 1) gives the same rows as the whole
    run on the documents it keeps.

    Columns: ``LOGLIK_COLUMNS`` (collection, method, repeat, doc, samples, logp).
    """
    mat = counts_of(counts)
    nonempty = np.flatnonzero(np.diff(mat.indptr) > 0)
    if not 0 <= start < nonempty.size or n_docs < 1:
        raise ValueError(f"{collection}: documents {start}..{start + n_docs - 1} asked for, "
                         f"but there are {nonempty.size} non-empty documents")
    if every < 1:
        raise ValueError(f"{collection}: every={every} asked for; it must be at least 1")
    positions = np.arange(start, min(start + n_docs, nonempty.size), every)
    checks = np.asarray(list(checkpoints), dtype=np.int64)
    frames = []
    for method in methods:
        base, extra = _method(method, settings)
        for k in range(repeats):
            for pos in positions:
                row = mat[nonempty[pos]: nonempty[pos] + 1]
                curve = gapfa.estimate_curve(base, row, model.phi, model.p, model.r,
                                             checkpoints=checks,
                                             seed=derive_seed(seed, k, pos),
                                             threads=threads, work_limit=None, **extra)
                frames.append(pd.DataFrame({
                    "collection": collection, "method": method, "repeat": k, "doc": int(pos),
                    "samples": checks, "logp": curve[0]}))
    return pd.concat(frames, ignore_index=True)


def sum_loglik(documents: pd.DataFrame) -> pd.DataFrame:
    """Sum of log p-hat over documents per (collection, method, repeat, samples), from the rows
    of ``loglik_documents`` (blocks concatenated in any order): ``math.fsum`` (exactly rounded)
    so the total does not depend on the order or the blocking.

    Columns: collection, method, repeat, samples, loglik, n_docs, doc_stride (the step between
    the document positions summed: 1 for consecutive documents, k for every k-th, 1 for one).
    """
    keys = ["collection", "method", "repeat", "samples"]
    dup = documents.duplicated([*keys, "doc"])
    if dup.any():
        raise ValueError(f"document rows given twice: {documents[dup].head(3).to_dict('records')}")
    out = documents.groupby(keys, sort=False).agg(
        loglik=("logp", math.fsum), n_docs=("doc", "nunique"),
        doc_stride=("doc", _stride)).reset_index()
    counts = out.groupby(["collection", "method", "repeat"])["n_docs"].nunique()
    if (counts > 1).any():
        raise ValueError("document blocks cover different documents at different sample sizes")
    return out


def loglik_convergence(documents: pd.DataFrame, reference: str = "l2r") -> pd.DataFrame:
    """004-F3's convergence measure (docs/methods/experiments.md#capdevila2018): per collection,
    sample size and method, the mean over documents and its standard error of

    * ``distance``: |log p-hat_d(S) - log p-hat_d(S_max)|, how far the method's estimate still
      is from its own final value;
    * ``distance_minus_<reference>``: the method's distance minus ``reference``'s on the same
      document (paired), for the other methods;
    * ``estimate_minus_<reference>``: log p-hat_d(S) minus ``reference``'s (paired).

    Rows of ``loglik_documents`` in; a document's repeats are averaged first (its log p-hat
    per S is the mean over repeats).  Columns: collection, samples, statistic, method, mean,
    se, n_docs (se is NaN with one document).
    """
    keys = ["collection", "method", "doc", "samples"]
    logp = documents.groupby(keys, sort=False)["logp"].mean()
    out = []
    for collection, part in logp.groupby(level="collection", sort=False):
        wide = part.droplevel("collection").unstack("samples")  # (method, doc) x samples
        methods = list(dict.fromkeys(wide.index.get_level_values("method")))
        estimate = {m: wide.loc[m] for m in methods}
        distance = {m: (e.sub(e[e.columns.max()], axis=0)).abs() for m, e in estimate.items()}
        stats = [("distance", m, distance[m]) for m in methods]
        if reference in methods:
            for m in (m for m in methods if m != reference):
                stats += [(f"distance_minus_{reference}", m, distance[m] - distance[reference]),
                          (f"estimate_minus_{reference}", m, estimate[m] - estimate[reference])]
        for statistic, method, values in stats:
            n = values.notna().sum()
            out.append(pd.DataFrame({
                "collection": collection, "samples": values.columns.astype(np.int64),
                "statistic": statistic, "method": method, "mean": values.mean().to_numpy(),
                "se": (values.std(ddof=1) / np.sqrt(n)).to_numpy(), "n_docs": n.to_numpy()}))
    return pd.concat(out, ignore_index=True)


def _stride(positions: pd.Series) -> int:
    steps = np.diff(np.unique(positions.to_numpy()))
    return int(steps.min()) if steps.size else 1


def loglik_curves(counts, model: GaPModel, **options) -> pd.DataFrame:
    """Sum of log p-hat(y_d) over the first ``n_docs`` non-empty documents against S:
    ``sum_loglik`` of ``loglik_documents`` with the same ``options`` (from document 0).

    Columns: collection, method, repeat, samples, loglik, n_docs.
    """
    if "start" in options:
        raise ValueError("loglik_curves sums from the first document; use loglik_documents")
    return sum_loglik(loglik_documents(counts, model, **options))


def loglik_work(counts, *, topics: int, samples: int, methods: Sequence[str] = F3_METHODS,
                n_docs: int = 1000, every: int = 1, repeats: int = 1,
                settings: Mapping[str, Mapping] | None = None) -> dict[str, np.ndarray]:
    """Predicted work of every (document, method) item of ``loglik_documents`` with the same
    options, before running it: ``gapfa.predicted_work`` of one run of the method at
    ``samples`` (the last checkpoint) times ``repeats``, in topic-word site updates.

    ``counts``: the corpus the model was trained on (its columns may differ from the model's
    by order only, which does not change any document's distinct words J).

    Returns
    -------
    dict of str to numpy.ndarray
        Method -> (n,) float64 work of every ``every``-th of the first min(``n_docs``,
        non-empty documents) non-empty documents (positions 0, ``every``, ...), in file order.
    """
    mat = counts_of(counts)
    rows = mat[np.flatnonzero(np.diff(mat.indptr) > 0)[:n_docs][::every]]
    out = {}
    for method in methods:
        base, extra = _method(method, settings)
        work = gapfa.predicted_work(base, rows, topics, {**extra, "samples": samples})
        out[method] = work.astype(np.float64) * repeats
    return out


def loglik_part(counts, *, method: str, part: int, parts: int, **options) -> tuple[int, int]:
    """Items ``start .. stop - 1`` of ``loglik_work``'s documents (with ``every`` = 1, positions
    among the non-empty documents, as in ``loglik_documents``; else position = item x
    ``every``) of part ``part`` of ``parts`` of one method's 004-F3 run: the documents cut in
    order at the quantiles of their predicted work (``loglik_work`` with ``options``;
    ``topiceval.experiments.tasks.work_blocks``), so each part holds about 1 / ``parts`` of the
    work plus at most one document's.  Empty (``start == stop``) when no document's work falls
    in the part."""
    if not 0 <= part < parts:
        raise ValueError(f"part {part} of {parts} asked for; parts are numbered 0 .. {parts - 1}")
    work = loglik_work(counts, methods=[method], **options)[method]
    return work_blocks(work, parts)[part]


def f3_parts(parts: Mapping, method: str, dataset: str) -> int:
    """K, the number of parts (jobs) of the 004-F3 run of ``method`` on ``dataset``, from the
    configuration's ``capdevila2018.realistic.parts``: ``parts[method][dataset]``, else
    ``parts[method]["default"]``, else ``parts["default"]``."""
    own = parts.get(method, {})
    return own.get(dataset, own.get("default", parts["default"]))


# --------------------------------------------------------------------------- workflow jobs
def train_job(corpus_path, model_path, *, topics: int, iterations: int, burnin: int,
              a_phi: float = 0.1, r: float = 1.0, c: float = 1.0, seed: int = 0,
              threads: int | None = None) -> None:
    """Fit beta-gamma PFA (``fit_gapfa``, §6.7) to a whole corpus (Capdevila et al. 2018 train on
    the complete collection, G4-17) and save it with the corpus vocabulary and provenance."""
    corpus = Corpus.load(corpus_path)
    model = fit_gapfa(corpus.counts(), topics, iterations=iterations, burnin=burnin,
                      a_phi=a_phi, r=r, c=c, seed=seed, threads=threads)
    meta = {**model.meta, "corpus": {"dataset": corpus.meta.get("dataset"),
                                     "variant": corpus.meta.get("variant"),
                                     "checksum": corpus.checksum()}}
    save_model(model_path, GaPModel(model.phi, model.p, model.r, vocab=corpus.vocab, meta=meta))


def load_panel(paths: Sequence) -> tuple[object, GaPModel]:
    """(counts, model) of a panel: ``[corpus.npz, model.npz]`` of a trained collection, or
    ``[release.mat]`` of a released L2R model (its own counts)."""
    if len(paths) == 1:
        return load_l2r_model(paths[0])
    corpus, model = load_matched(*paths, "gapfa", "Capdevila et al. (2018) evaluate GaP-FA models")
    return corpus.counts(), model  # columns matched by word


def accuracy_shard(paths: Sequence, out, *, collection: str, samples: int, checkpoints: int,
                   spacing: str = "linear", first_repeat: int = 0, repeats: int = 1,
                   max_docs: int = 1000, max_summands: float = 1e9,
                   methods: Sequence[str] = F2_METHODS,
                   settings: Mapping[str, Mapping] | None = None, seed: int = 0,
                   threads: int | None = None) -> None:
    """004-F2 curves of one panel (``load_panel``) for repeats ``first_repeat ..
    first_repeat + repeats - 1``, written as CSV (``accuracy_curves`` columns)."""
    counts, model = load_panel(paths)
    curves = accuracy_curves(counts, model, collection=collection, methods=methods,
                             checkpoints=checkpoint_grid(samples, checkpoints, spacing),
                             repeats=repeats, first_repeat=first_repeat, seed=seed,
                             max_docs=max_docs, max_summands=max_summands, settings=settings,
                             threads=threads)
    write_csv_atomic(out, curves)


def accuracy_tables(shards: Sequence, cropped: Mapping[str, object], f2_out, f1_out) -> None:
    """004-F2 summary (``summarise_accuracy``) of the shards, and the 004-F1 table
    (``kl_vs_length``) of the collections in ``cropped`` (collection -> downsized corpus)."""
    curves = in_order(read_shards(shards), ["collection", "method", "repeat", "samples"])
    summary = summarise_accuracy(curves)
    lengths = {name: mean_document_length(Corpus.load(path)) for name, path in cropped.items()}
    write_csv_atomic(f2_out, summary)
    write_csv_atomic(f1_out, kl_vs_length(summary, lengths))


def loglik_shard(paths: Sequence, out, *, collection: str, method: str, part: int, parts: int,
                 docs: int, samples: int, checkpoints: int, spacing: str = "linear",
                 every: int = 1, repeats: int = 1,
                 settings: Mapping[str, Mapping] | None = None, seed: int = 0,
                 threads: int | None = None) -> None:
    """004-F3 per-document estimates (``loglik_documents``) by ``method`` of part ``part`` of
    ``parts`` of every ``every``-th of the first ``docs`` non-empty documents (``loglik_part``;
    the model's T is the topics of the work).  An empty part writes the columns only."""
    counts, model = load_panel(paths)
    start, stop = loglik_part(counts, method=method, part=part, parts=parts,
                              topics=model.n_topics, samples=samples, n_docs=docs, every=every,
                              repeats=repeats, settings=settings)
    if start == stop:
        rows = pd.DataFrame(columns=LOGLIK_COLUMNS)
    else:
        rows = loglik_documents(counts, model, collection=collection, methods=[method],
                                checkpoints=checkpoint_grid(samples, checkpoints, spacing),
                                start=start * every, n_docs=(stop - start) * every,
                                every=every, repeats=repeats, seed=seed, settings=settings,
                                threads=threads)
    write_csv_atomic(out, rows)


def loglik_table(shards: Sequence, out, convergence_out=None) -> None:
    """004-F3 tables: the shards' per-document rows summed over documents (``sum_loglik``) and,
    when ``convergence_out`` is given, their per-document statistics (``loglik_convergence``);
    shards of no document (empty parts) are skipped."""
    frames = [frame for frame in map(pd.read_csv, shards) if len(frame)]
    if not frames:
        raise ValueError("the 004-F3 shards hold no document")
    rows = in_order(pd.concat(frames, ignore_index=True),
                    ["collection", "method", "repeat", "doc", "samples"])
    write_csv_atomic(out, sum_loglik(rows))
    if convergence_out is not None:
        write_csv_atomic(convergence_out, loglik_convergence(rows))


def corpus_table_job(corpora: Mapping[str, object], out, caption) -> None:
    """004-T1 (``corpus_table``) of the collections (name -> corpus file) and its caption."""
    table = corpus_table({name: Corpus.load(path) for name, path in corpora.items()})
    write_csv_atomic(out, table)
    write_text_atomic(caption, caption_t1(table) + "\n")
