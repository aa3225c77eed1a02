"""Seed 004 (Capdevila, Cerquides, Torres, Petitjean & Buntine 2018): L2R for GaP-FA.

Experiment functions return tidy ``pandas.DataFrame`` tables; the Snakemake rules call them and
the plot functions of ``topiceval.plots.capdevila2018`` draw them (ESTIMATORS.md §9.4).

* 004-T1 ``corpus_table``: V, D, document length (mean, sd) of the six collections, beside the
  paper's Table 1.  ``STAND_INS`` says which staged corpus stands in for which collection.
* 004-F2 ``accuracy_curves`` -> ``summarise_accuracy``: KL divergence (6.19, bits) between exact
  and estimated probabilities of the tractable documents against the number of samples, for DS,
  HM, L2R and L2R-E; ``repeats`` runs, mean and standard error.  Curves come from prefixes of one
  run (``estimate_curve``), at ``checkpoints`` (seed 004: 100 equally spaced sizes up to 10,000).
* 004-F1 ``kl_vs_length``: KL of L2R and DS at the largest S against the average document length.
* 004-F3 ``loglik_curves``: sum of log p-hat over the first documents against S (DS, HM, L2R).
* ``caption_*``: what the paper found (§9.4 headlines) and what the table shows.

Every function takes the size of its run as parameters (documents, checkpoints, repeats), so the
quick and default configurations are small and the paper's is a matter of settings.

Wiring (one rule per collection and figure; tables concatenated before plotting)::

    counts = Corpus.load(corpus_npz)          # capdevila2018 recipe, 100-word crop for F1/F2
    model = load_model(model_npz)             # fit_gapfa(counts.counts(), 5), seed-004 settings
    curves = accuracy_curves(counts, model, collection="AP",
                             checkpoints=checkpoint_grid(10_000, 100), repeats=10,
                             max_docs=1000, settings={"hm": {"burnin": 100}})
    # released-model panels: the L2R authors' counts and model, no training
    counts, model = topiceval.data.l2r.load_l2r_model(".../Twitter_GaP_10653N_100W_5T.mat")
    curves = accuracy_curves(counts, model, collection="Twitter (L2R release)", ...)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from topiceval.corpus import Corpus
from topiceval.estimators import gapfa
from topiceval.estimators.gapfa.exact import tractable_documents
from topiceval.gapfa.counts import as_count_matrix
from topiceval.models import GaPModel

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

# the paper's headlines (ESTIMATORS.md §9.4)
PAPER_F2 = ("L2R-E has the lowest KL on all six collections, L2R (S' = 1) the second lowest "
            "on four; L2R is worse than DS on Twitter and WS, the shortest texts.")
PAPER_F1 = ("KL(L2R) improves relative to KL(DS) as the average document length grows "
            "(a favourable trend for L2R with longer documents).")
PAPER_F3 = ("L2R converges faster than DS on all six collections; HM converges fast on the four "
            "longest-document sets but likely overestimates; L2R's estimates lie between DS "
            "(below) and HM (above); a few hundred samples suffice for L2R.")
PAPER_T1 = "Collections ordered by decreasing average document length, from NIPS (1,899) to WS (9)."

F2_METHODS = ("ds", "hm", "l2r", "l2r_exact")
F3_METHODS = ("ds", "hm", "l2r")
LABELS = {"ds": "DS", "hm": "HM", "l2r": "L2R", "l2r_exact": "L2R-E", "exact": "Exact"}


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


def _repeat_seed(seed: int, repeat: int) -> int:
    """Repeat k of a run with base ``seed`` uses seed + k (streams are hashed, so independent)."""
    return int(seed) + int(repeat)


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
    ordered = table.sort_values("mean_length", ascending=False)["collection"].tolist()
    same = ordered == [c for c in COLLECTIONS if c in ordered]
    sources = "; ".join(f"{c}: {s}" for c, s in zip(table["collection"], table["source"],
                                                     strict=True))
    return (f"Paper: {PAPER_T1} Ours: order by mean length {' > '.join(ordered)}"
            f"{' (same order as the paper)' if same else ' (differs from the paper)'}; "
            f"staged stand-ins: {sources}.")


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
    threads: int | None = None,
) -> pd.DataFrame:
    """KL (bits) and mean absolute log error against the exact marginal, per method, repeat and
    sample size, on the first ``max_docs`` tractable documents (fewer than ``max_summands``
    summands and at least two non-zero words, file order; G4-15).

    Columns: collection, method, repeat, samples, kl_bits, mae, n_docs.  ``settings`` maps a
    method to its estimator settings (e.g. ``{"hm": {"burnin": 100}}``).
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
        extra = dict((settings or {}).get(method, {}))
        for k in range(repeats):
            curve = gapfa.estimate_curve(method, sub, model.phi, model.p, model.r,
                                         checkpoints=checks, seed=_repeat_seed(seed, k),
                                         threads=threads, **extra)
            for i, s in enumerate(checks):
                rows.append({
                    "collection": collection, "method": method, "repeat": k,
                    "samples": int(s), "kl_bits": kl_bits(exact, curve[:, i]),
                    "mae": float(np.mean(np.abs(curve[:, i] - exact))), "n_docs": docs.size,
                })
    return pd.DataFrame(rows)


def summarise_accuracy(curves: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error over repeats of KL and MAE per (collection, method, samples).

    With a single evaluated document KL (6.19) is 0 by construction (both distributions are a
    point mass); the MAE of log p-hat is the informative metric there.
    """
    grouped = curves.groupby(["collection", "method", "samples"], sort=False)
    out = grouped.agg(kl_bits=("kl_bits", "mean"), kl_sd=("kl_bits", "std"),
                      mae=("mae", "mean"), mae_sd=("mae", "std"),
                      repeats=("repeat", "nunique"), n_docs=("n_docs", "first")).reset_index()
    for name in ("kl", "mae"):
        out[f"{name}_se"] = out[f"{name}_sd"].fillna(0.0) / np.sqrt(out["repeats"])
    return out.drop(columns=["kl_sd", "mae_sd"])


def final_accuracy(summary: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``summarise_accuracy`` at each (collection, method)'s largest sample size."""
    idx = summary.groupby(["collection", "method"], sort=False)["samples"].idxmax()
    return summary.loc[idx].reset_index(drop=True)


def caption_f2(summary: pd.DataFrame) -> str:
    final = final_accuracy(summary)
    lines = []
    lowest_e, second_l2r, worse_than_ds = [], [], []
    for coll, group in final.groupby("collection", sort=False):
        single = int(group["n_docs"].iloc[0]) < 2  # KL is 0 by construction: rank by MAE
        metric = "mae" if single else "kl_bits"
        ranked = group.sort_values(metric)["method"].tolist()
        kl = group.set_index("method")[metric]
        lines.append(f"{coll}{' (1 document, by MAE)' if single else ''}: "
                     + " < ".join(LABELS.get(m, m) for m in ranked))
        if ranked[0] == "l2r_exact":
            lowest_e.append(coll)
        if len(ranked) > 1 and ranked[1] == "l2r":
            second_l2r.append(coll)
        if "l2r" in kl and "ds" in kl and kl["l2r"] > kl["ds"]:
            worse_than_ds.append(coll)
    n = final["collection"].nunique()
    s_max = int(final["samples"].max())
    return (f"Paper: {PAPER_F2} Ours (KL at S = {s_max}, mean over repeats): "
            f"L2R-E lowest on {len(lowest_e)} of {n} ({', '.join(lowest_e) or 'none'}); "
            f"L2R second on {len(second_l2r)} ({', '.join(second_l2r) or 'none'}); "
            f"L2R worse than DS on {', '.join(worse_than_ds) or 'none'}. "
            f"Ranking by KL: {'; '.join(lines)}.")


# --------------------------------------------------------------------------- 004-F1
def mean_document_length(counts) -> float:
    """Average number of tokens per document of a (downsized) corpus."""
    return float(np.asarray(counts_of(counts).sum(axis=1)).mean())


def kl_vs_length(summary: pd.DataFrame, lengths: Mapping[str, float],
                 methods: Sequence[str] = ("l2r", "ds")) -> pd.DataFrame:
    """Figure 1 table: KL at the largest S of each method against the collection's average
    document length.  Columns: collection, mean_length, method, kl_bits, kl_se, n_docs."""
    final = final_accuracy(summary)
    final = final[final["method"].isin(methods) & final["collection"].isin(list(lengths))]
    out = final[["collection", "method", "kl_bits", "kl_se", "n_docs"]].copy()
    out.insert(1, "mean_length", out["collection"].map(dict(lengths)).astype(float))
    return out.sort_values(["mean_length", "method"]).reset_index(drop=True)


def caption_f1(table: pd.DataFrame) -> str:
    usable = table[table["n_docs"] >= 2]  # KL of a single document is 0 by construction
    wide = usable.pivot_table(index=["collection", "mean_length"], columns="method",
                              values="kl_bits").reset_index().sort_values("mean_length")
    if not {"l2r", "ds"} <= set(wide.columns) or len(wide) < 2:
        return (f"Paper: {PAPER_F1} Ours: fewer than two collections with two or more "
                "evaluated documents and both L2R and DS.")
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log(wide["l2r"].to_numpy() / wide["ds"].to_numpy())
    rho = pd.Series(ratio).corr(pd.Series(np.log(wide["mean_length"].to_numpy())),
                                method="spearman")
    pairs = ", ".join(f"{c} ({length:.1f} tokens): {r:.2f}" for c, length, r in
                      zip(wide["collection"], wide["mean_length"], np.exp(ratio), strict=True))
    if not np.isfinite(rho):
        trend = "undetermined"
    else:
        trend = "favourable to L2R" if rho < 0 else "not favourable to L2R"
    return (f"Paper: {PAPER_F1} Ours: KL(L2R)/KL(DS) by collection, shortest first: {pairs}; "
            f"Spearman correlation of log ratio with log length {rho:.2f} ({trend}).")


# --------------------------------------------------------------------------- 004-F3
def loglik_curves(
    counts,
    model: GaPModel,
    *,
    collection: str,
    methods: Sequence[str] = F3_METHODS,
    checkpoints: Iterable[int],
    n_docs: int = 1000,
    repeats: int = 1,
    seed: int = 0,
    settings: Mapping[str, Mapping] | None = None,
    threads: int | None = None,
) -> pd.DataFrame:
    """Sum of log p-hat(y_d) over the first ``n_docs`` non-empty documents against S.

    Columns: collection, method, repeat, samples, loglik, n_docs.
    """
    mat = counts_of(counts)
    nonempty = np.flatnonzero(np.diff(mat.indptr) > 0)[:n_docs]
    sub = mat[nonempty]
    checks = np.asarray(list(checkpoints), dtype=np.int64)
    rows = []
    for method in methods:
        extra = dict((settings or {}).get(method, {}))
        for k in range(repeats):
            curve = gapfa.estimate_curve(method, sub, model.phi, model.p, model.r,
                                         checkpoints=checks, seed=_repeat_seed(seed, k),
                                         threads=threads, **extra)
            total = curve.sum(axis=0)
            rows.extend({"collection": collection, "method": method, "repeat": k,
                         "samples": int(s), "loglik": float(v), "n_docs": nonempty.size}
                        for s, v in zip(checks, total, strict=True))
    return pd.DataFrame(rows)


def samples_to_converge(curve: pd.DataFrame, tolerance: float) -> int:
    """Smallest S after which a log-likelihood curve stays within ``tolerance`` nats of its
    final value."""
    curve = curve.sort_values("samples")
    dev = np.abs(curve["loglik"].to_numpy() - curve["loglik"].to_numpy()[-1])
    outside = np.flatnonzero(dev > tolerance)
    idx = 0 if outside.size == 0 else min(outside[-1] + 1, dev.size - 1)
    return int(curve["samples"].to_numpy()[idx])


def caption_f3(curves: pd.DataFrame, tolerance_per_doc: float = 0.01) -> str:
    mean = curves.groupby(["collection", "method", "samples"], sort=False)["loglik"].mean()
    mean = mean.reset_index()
    parts, faster, sandwiched = [], [], []
    for coll, group in mean.groupby("collection", sort=False):
        n_docs = int(curves.loc[curves["collection"] == coll, "n_docs"].iloc[0])
        tol = tolerance_per_doc * n_docs
        conv = {m: samples_to_converge(g, tol) for m, g in group.groupby("method")}
        final = group.loc[group.groupby("method")["samples"].idxmax()].set_index("method")
        final = final["loglik"]
        if "l2r" in conv and "ds" in conv and conv["l2r"] < conv["ds"]:
            faster.append(coll)
        if {"ds", "hm", "l2r"} <= set(final.index) and final["ds"] <= final["l2r"] <= final["hm"]:
            sandwiched.append(coll)
        parts.append(f"{coll}: " + ", ".join(f"{LABELS.get(m, m)} {final[m]:.1f} "
                                              f"(within {tol:g} nats from S = {conv[m]})"
                                              for m in final.index))
    n = mean["collection"].nunique()
    return (f"Paper: {PAPER_F3} Ours: L2R reaches its final value (within "
            f"{tolerance_per_doc} nats per document) before DS on {len(faster)} of {n} "
            f"({', '.join(faster) or 'none'}); DS <= L2R <= HM at the largest S on "
            f"{len(sandwiched)} of {n} ({', '.join(sandwiched) or 'none'}). "
            f"Final sums: {'; '.join(parts)}.")
