"""Foulds & Smyth (``foulds_smyth``): experiment 003-F1 and the reciprocal check 003-X1.

Tidy ``pandas.DataFrame`` tables in and out (docs/methods/experiments.md#foulds_smyth); the
Snakemake rules call these functions and ``topiceval.plots.foulds_smyth`` draws the tables.

* 003-F1 ``f1_tasks`` -> ``run_shard`` -> ``f1_summary``: for every held-out document, the log
  likelihood ratio log R_d = log P(w_d | Phi, alpha m) - log P(w_d | Phi_pert, alpha m) of a
  trained model (model A) against its perturbed copy Phi_pert = 0.95 Phi + 0.05 Phi_rand (rows of
  Phi_rand ~ Dir(1_V), ``perturbed_topics``; model B), estimated by

  - ``standard``: two independent Wallach-AIS estimates, difference of logs
    (``lda.compare_standard``), and
  - ``ratio_ais``: ratio-AIS from B's posterior to A with the reversed run for the reciprocal
    check (``lda.compare``, Gibbs start with ``burnin`` sweeps),

  at the cheap budget (1 importance sample, 100 temperatures) and the expensive one (100
  samples, 1,000 temperatures).  Summary: the share of documents with log R-hat_d > 0 (the
  unperturbed model judged better) per method and budget with a Wilson binomial interval over
  documents; the paper reports 95% (ratio-AIS) against 52% (standard) at the cheap budget.
* 003-X1 ``reciprocal_summary``: the distribution of the ratio-AIS reciprocal gaps per budget
  and the share of documents flagged (|gap| > threshold).
* ``caption_f1`` / ``caption_reciprocal``: what the paper found and what these tables show;
  ``projected_cost``: seconds per document measured in the timing rows, extrapolated to a corpus.
* Workflow (``workflow/rules/foulds_smyth.smk``): ``train_model`` (collapsed Gibbs with fixed
  alpha m and beta, §5.5), ``workflow_tasks`` (the shard grid of the config block
  ``foulds_smyth`` at DAG-build time, one table per named perturbation), ``evaluate_shard``,
  ``summarise`` and ``plots.foulds_smyth.write_figures``; estimates and wall-clock seconds go to
  separate files, so result tables are bit-identical for any thread count and machine.

The random topics: Foulds & Smyth say only "random topics" [G3-6].  ``concentration`` c sets rows of
Phi_rand ~ Dir(c 1_V): c = 1 (uniform on the simplex, the §5.5 default) spreads 5% of every
topic's mass over the whole vocabulary, which acts as extra smoothing and helps held-out text under
a sparse Gibbs point estimate; c = beta (the model's own topic prior, sparse random topics) moves
the mass to a few arbitrary words, a perturbation that makes every topic worse.

``scale`` multiplies the expensive budget's samples and temperatures (never below the cheap
budget), so the quick and default configurations stay small; ``scale=1`` is the paper's.  A task
is one (method, budget, block of documents); its rows depend only on (seed, method, budget,
document position), never on the blocking.  The perturbed copy depends only on
``perturbation_seed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from topiceval import perturb
from topiceval.corpus import Corpus
from topiceval.estimators import lda
from topiceval.experiments.wallach2009 import derived_seed, scaled
from topiceval.io import write_csv_atomic
from topiceval.models import LDAModel, load_model
from topiceval.threads import numba_threads
from topiceval.training.lda import fit_gibbs

PERTURB_WEIGHT = 0.05
BURNIN = 100
THRESHOLD = 1.0
METHODS = ("standard", "ratio_ais")
LABELS = {"standard": "standard (two AIS runs)", "ratio_ais": "ratio-AIS"}
PAPER = "Foulds & Smyth"
PAPER_SHARES = {("ratio_ais", "cheap"): 0.95, ("standard", "cheap"): 0.52}
PAPER_F1 = ("On 130 held-out NIPS documents, with cheap runs (1 importance sample, 100 "
            "temperatures) ratio-AIS preferred the unperturbed topics for 95% of the documents, "
            "the standard method (two independent AIS runs) for 52%; ratio-AIS 'remained "
            "accurate on a budget'.")
PAPER_X1 = ("Running ratio-AIS in both directions detects convergence failures when the two "
            "estimates are 'wildly different' (no numbers given).")
ROW_COLUMNS = ["method", "budget", "samples", "temperatures", "doc", "tokens", "log_ratio",
               "reverse", "reciprocal_gap", "suspect", "site_updates", "seconds", "threads"]
TIMING_COLUMNS = ["seconds", "threads"]
ESTIMATE_COLUMNS = [c for c in ROW_COLUMNS if c not in TIMING_COLUMNS]


@dataclass(frozen=True)
class Budget:
    """Importance samples M and temperatures n per run."""

    name: str
    samples: int
    temperatures: int


def budgets(scale: float = 1.0) -> tuple[Budget, Budget]:
    """(cheap, expensive): (1, 100) and (100, 1000) times ``scale``, at least (1, 100)."""
    return (Budget("cheap", 1, 100),
            Budget("expensive", scaled(100, scale), max(100, scaled(1000, scale))))


def perturbed_topics(phi, *, weight: float = PERTURB_WEIGHT, seed: int = 0,
                     concentration: float = 1.0) -> np.ndarray:
    """(1 - weight) Phi + weight Phi_rand, rows of Phi_rand ~ Dir(concentration 1_V) (§5.5)."""
    phi = np.asarray(phi, dtype=np.float64)
    rand = perturb.random_topics(*phi.shape, seed=seed, concentration=concentration)
    return perturb.perturb_phi(phi, weight, rand)


# --------------------------------------------------------------------------- tasks and shards
def f1_tasks(n_docs: int, *, scale: float = 1.0, block: int = 10,
             methods: Sequence[str] = METHODS) -> pd.DataFrame:
    """003-F1 shards: one row per (method, budget, block of ``block`` documents)."""
    if not isinstance(n_docs, (int, np.integer)) or n_docs < 1:
        raise ValueError(f"the number of documents must be a positive integer, got {n_docs!r}")
    if not isinstance(block, (int, np.integer)) or block < 1:
        raise ValueError(f"block must be a positive integer, got {block!r}")
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {list(METHODS)}")
    rows = []
    for method in methods:
        for b in budgets(scale):
            for lo in range(0, n_docs, block):
                rows.append({"task": f"f1-{method.replace('_', '-')}-{b.name}-{lo:05d}",
                             "method": method, "budget": b.name, "samples": b.samples,
                             "temperatures": b.temperatures, "doc_start": lo,
                             "doc_stop": min(lo + block, n_docs)})
    return pd.DataFrame(rows)


def run_shard(task, docs, phi, alpha_m, *, seed: int = 0, perturbation_seed: int = 0,
              weight: float = PERTURB_WEIGHT, concentration: float = 1.0, burnin: int = BURNIN,
              threshold: float = THRESHOLD, threads: int | None = 1) -> pd.DataFrame:
    """Evaluate one row of ``f1_tasks``: tidy rows, one per document of the block.

    ``docs``: the whole held-out list (document keys are positions in it); model A = (phi,
    alpha_m), model B = (``perturbed_topics(phi, weight=weight, seed=perturbation_seed,
    concentration=concentration)``, alpha_m).  Each document is one call on ``threads`` threads;
    ``seconds`` is its kernel time.  Standard rows have no reverse estimate or gap (NaN,
    ``suspect`` False).  The random streams depend on (seed, method, budget, document), not on
    the perturbation: every perturbation is evaluated with common random numbers.
    """
    method, budget = task["method"], task["budget"]
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {list(METHODS)}")
    lo, hi = int(task["doc_start"]), int(task["doc_stop"])
    if not 0 <= lo < hi <= len(docs):
        raise ValueError(f"task block [{lo}, {hi}) does not fit {len(docs)} documents")
    samples, temps = int(task["samples"]), int(task["temperatures"])
    model_a = (np.asarray(phi, dtype=np.float64), np.asarray(alpha_m, dtype=np.float64))
    model_b = (perturbed_topics(model_a[0], weight=weight, seed=perturbation_seed,
                                concentration=concentration), model_a[1])
    stream = derived_seed(seed, "003-F1", method, budget)
    rows = []
    with numba_threads(threads) as n_threads:
        for d in range(lo, hi):
            doc = np.asarray(docs[d])
            if method == "ratio_ais":
                res = lda.compare([doc], model_a, model_b, samples=samples, temperatures=temps,
                                  seed=stream, burnin=burnin, threshold=threshold,
                                  doc_keys=[d])
                values = (res.log_ratio[0], res.reverse[0], res.reciprocal_gap[0],
                          bool(res.suspect[0]), int(res.site_updates[0]), res.seconds)
            else:
                log_ratio, cost = lda.compare_standard([doc], model_a, model_b, samples=samples,
                                                       temperatures=temps, seed=stream,
                                                       doc_keys=[d], return_cost=True)
                values = (log_ratio[0], np.nan, np.nan, False, cost.site_updates, cost.seconds)
            rows.append((method, budget, samples, temps, d, doc.shape[0], *values, n_threads))
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


# --------------------------------------------------------------------------- aggregation
def _check_rows(rows: pd.DataFrame) -> None:
    missing = sorted(set(ESTIMATE_COLUMNS) - set(rows.columns))
    if missing:
        raise ValueError(f"003-F1 rows lack column(s) {missing}")
    dup = rows.duplicated(["method", "budget", "doc"])
    if dup.any():
        r = rows[dup].iloc[0]
        raise ValueError(f"003-F1 rows repeat document {r['doc']} for {r['method']}/"
                         f"{r['budget']}")


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    order = {m: i for i, m in enumerate(METHODS)}
    budget_order = {"cheap": 0, "expensive": 1}
    return frame.sort_values(["method", "budget"], key=lambda s: s.map(
        order if s.name == "method" else budget_order), ignore_index=True)


def f1_summary(rows: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Per (method, budget): share of documents with log R-hat > 0 and its Wilson interval.

    The interval treats documents as independent Bernoulli trials (it describes the document
    sample, not the Monte Carlo error of each estimate).  ``agree_with_reference``: the share
    of documents whose sign matches the expensive ratio-AIS estimate (the most accurate one,
    when present).  Also the spread of the log ratios, the reciprocal flags, the cost in site
    updates (deterministic; seconds are in ``projected_cost``), and the paper's share where it
    gives one.  Rows may lack the timing columns.
    """
    _check_rows(rows)
    reference = rows[(rows["method"] == "ratio_ais") & (rows["budget"] == "expensive")]
    ref_sign = reference.set_index("doc")["log_ratio"] > 0
    out = []
    for (method, budget), g in rows.groupby(["method", "budget"], sort=False):
        k, n = int((g["log_ratio"] > 0).sum()), len(g)
        ci = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        both = g.set_index("doc")["log_ratio"].reindex(ref_sign.index).dropna()
        gaps = g["reciprocal_gap"].dropna()
        out.append({
            "method": method, "budget": budget, "samples": int(g["samples"].iloc[0]),
            "temperatures": int(g["temperatures"].iloc[0]), "docs": n, "prefer_a": k,
            "share": k / n, "ci_low": float(ci.low), "ci_high": float(ci.high),
            "paper_share": PAPER_SHARES.get((method, budget), np.nan),
            "mean_log_ratio": float(g["log_ratio"].mean()),
            "median_log_ratio": float(g["log_ratio"].median()),
            "sd_log_ratio": float(g["log_ratio"].std(ddof=1)) if n > 1 else np.nan,
            "agree_with_reference": (float(((both > 0) == ref_sign[both.index]).mean())
                                     if len(both) else np.nan),
            "suspect_share": float(g["suspect"].mean()) if len(gaps) else np.nan,
            "median_gap": float(gaps.median()) if len(gaps) else np.nan,
            "tokens": int(g["tokens"].sum()),
            "site_updates": int(g["site_updates"].sum()),
            "site_updates_per_doc": float(g["site_updates"].mean()),
        })
    return _ordered(pd.DataFrame(out))


def reciprocal_summary(rows: pd.DataFrame, *,
                       quantiles: Sequence[float] = (0.05, 0.25, 0.5, 0.75, 0.95)
                       ) -> pd.DataFrame:
    """003-X1: per budget, quantiles of the ratio-AIS reciprocal gap and the flagged share."""
    _check_rows(rows)
    ratio = rows[rows["method"] == "ratio_ais"]
    if ratio.empty:
        raise ValueError("no ratio-AIS rows: the reciprocal check needs method 'ratio_ais'")
    out = []
    for budget, g in ratio.groupby("budget", sort=False):
        gap = g["reciprocal_gap"].to_numpy()
        row = {"method": "ratio_ais", "budget": budget, "docs": len(g),
               "mean_gap": float(gap.mean()), "negative_share": float((gap < 0).mean()),
               "suspect": int(g["suspect"].sum()), "suspect_share": float(g["suspect"].mean())}
        row.update({f"q{round(100 * q):02d}": float(np.quantile(gap, q)) for q in quantiles})
        out.append(row)
    return _ordered(pd.DataFrame(out))


def projected_cost(timings: pd.DataFrame, n_docs: int = 130) -> pd.DataFrame:
    """Per method and budget: measured kernel seconds per document (timing rows: ``method``,
    ``budget``, ``samples``, ``temperatures``, ``doc``, ``site_updates``, ``seconds``,
    ``threads``), nanoseconds per site update, and the hours for ``n_docs`` documents."""
    missing = sorted({"method", "budget", "samples", "temperatures", "doc", "site_updates",
                      *TIMING_COLUMNS} - set(timings.columns))
    if missing:
        raise ValueError(f"003-F1 timing rows lack column(s) {missing}")
    out = timings.groupby(["method", "budget"], sort=False).agg(
        samples=("samples", "first"), temperatures=("temperatures", "first"),
        docs=("doc", "nunique"), threads=("threads", "max"),
        site_updates=("site_updates", "sum"), seconds=("seconds", "sum")).reset_index()
    out["seconds_per_doc"] = out["seconds"] / out["docs"]
    out["ns_per_site_update"] = 1e9 * out["seconds"] / out["site_updates"].clip(lower=1)
    out["projected_docs"] = n_docs
    out["projected_hours"] = out["seconds_per_doc"] * n_docs / 3600.0
    return _ordered(out)


# --------------------------------------------------------------------------- captions
def _row(summary, method, budget):
    rows = summary[(summary["method"] == method) & (summary["budget"] == budget)]
    return rows.iloc[0] if len(rows) else None


def _share(row) -> str:
    return (f"{100 * row['share']:.0f}% ({row['prefer_a']}/{row['docs']}; 95% interval "
            f"{100 * row['ci_low']:.0f}-{100 * row['ci_high']:.0f}%)")


def describe_perturbation(concentration: float = 1.0, weight: float = PERTURB_WEIGHT) -> str:
    """The perturbed topics in words: Phi_pert and the kind of random topics."""
    kind = ("dense random topics, uniform on the simplex: the perturbation spreads "
            f"{100 * weight:g}% of every topic's mass over the whole vocabulary (extra smoothing)"
            if concentration >= 1.0 else
            "sparse random topics, like draws from the model's own topic prior Dir(beta u) when "
            f"c = beta: the perturbation moves {100 * weight:g}% of every topic's mass to a few "
            "arbitrary words")
    return (f"Phi_pert = {1 - weight:g} Phi + {weight:g} Phi_rand with rows of Phi_rand ~ "
            f"Dir(c 1_V), c = {concentration:g} ({kind})")


def caption_f1(summary: pd.DataFrame, *, concentration: float = 1.0,
               weight: float = PERTURB_WEIGHT, note: str = "") -> str:
    """Figure 003-F1's caption: the paper's finding, ours, and whether they agree.

    ``concentration`` and ``weight`` describe the perturbation; ``note`` (optional) is a sentence
    on its role (headline or variant).  Only deterministic numbers: no wall-clock time.
    """
    sizes = "; ".join(f"{b} = {int(g['samples'].iloc[0])} x {int(g['temperatures'].iloc[0])}"
                      for b, g in summary.groupby("budget", sort=False))
    lines = [f"{PAPER}, Figure 1: per held-out document d, the estimated log-likelihood ratio "
             "log P(w_d | Phi) - log P(w_d | Phi_pert) in nats (> 0: the document prefers the "
             f"unperturbed topics), {describe_perturbation(concentration, weight)}; left, "
             "histogram of the standard method's estimates (difference of two independent AIS "
             "estimates); middle, ratio-AIS's; right, every estimate against the expensive "
             "ratio-AIS one (symmetric log axis beyond +/-10 nats); budgets (importance samples "
             f"x annealing temperatures): {sizes}.", f"Paper: {PAPER_F1}"]
    if note:
        lines.append(note)
    lines.append("Ours:")
    for r in summary.itertuples():
        extra = ""
        if not np.isnan(r.paper_share):
            extra = f" (paper {100 * r.paper_share:.0f}%)"
        agree = ("" if np.isnan(r.agree_with_reference) else
                 f"; same sign as expensive ratio-AIS on {100 * r.agree_with_reference:.0f}%")
        lines.append(f"- {LABELS[r.method]}, {r.budget}: prefers the unperturbed topics on "
                     f"{_share(r._asdict())}{extra}; median log ratio {r.median_log_ratio:+.2f} "
                     f"nats, sd {r.sd_log_ratio:.2f}{agree}; {r.site_updates_per_doc:.3g} Gibbs "
                     "site updates per document.")
    ratio, std = _row(summary, "ratio_ais", "cheap"), _row(summary, "standard", "cheap")
    ref = _row(summary, "ratio_ais", "expensive")
    if ratio is not None and std is not None:
        ok = ratio["ci_low"] > std["ci_high"] and ratio["share"] >= 0.8
        lines.append(f"- Headline, cheap budget: ratio-AIS prefers the unperturbed topics on "
                     f"{100 * ratio['share']:.0f}%, the standard method on "
                     f"{100 * std['share']:.0f}% ({'agrees' if ok else 'DISAGREES'} with the "
                     "paper's 95% against 52%).")
    if ratio is not None and std is not None and ref is not None:
        a, b = ratio["agree_with_reference"], std["agree_with_reference"]
        ok = a >= 0.9 and a > b
        lines.append(f"- Accuracy on a budget: the cheap ratio-AIS estimate has the sign of the "
                     f"expensive ratio-AIS estimate on {100 * a:.0f}% of the documents, the cheap "
                     f"standard one on {100 * b:.0f}% ({'agrees' if ok else 'DISAGREES'} with "
                     "'ratio-AIS remains accurate on a budget, the standard method does not').")
        lines.append(f"- The expensive ratio-AIS estimates (median reciprocal gap "
                     f"{ref['median_gap']:+.3f} nats) prefer the unperturbed topics on "
                     f"{100 * ref['share']:.0f}% of the documents: where this is far below "
                     "100%, the perturbed topics really are better for the other documents, "
                     "and the share preferring the unperturbed ones measures the data, not the "
                     "estimator.")
    return "\n".join(lines)


def caption_reciprocal(reciprocal: pd.DataFrame, *, threshold: float = THRESHOLD) -> str:
    """Figure 003-X1's caption: gap distribution per budget and the flagged documents."""
    lines = [f"{PAPER}, the reciprocal check of ratio-AIS (not a figure of the paper): per "
             "held-out document, the reciprocal gap -(L12 + L21) in nats, L12 the ratio-AIS "
             "estimate of log P(w_d | Phi) - log P(w_d | Phi_pert) (annealing from the perturbed "
             "topics to the unperturbed ones) and L21 that of the reverse ratio (annealing back); "
             "both are low in expectation, so the gap is >= 0 in expectation and a large one "
             f"flags a run that did not converge; documents are flagged when |gap| > "
             f"{threshold:g} nat; left, histogram of the gaps; right, the share of documents "
             "whose |gap| is at most x.", f"Paper: {PAPER_X1}", "Ours:"]
    for r in reciprocal.itertuples():
        lines.append(f"- {r.budget}: median gap {r.q50:+.3f}, 5-95% range [{r.q05:+.3f}, "
                     f"{r.q95:+.3f}], negative on {100 * r.negative_share:.0f}% of documents; "
                     f"flagged {r.suspect} of {r.docs}.")
    return "\n".join(lines)


# --------------------------------------------------------------------------- workflow
# What the Snakemake rules (workflow/rules/foulds_smyth.smk) call: the shard grid of the config
# block ``foulds_smyth`` at DAG-build time, then one entry point per rule (paths in, files out,
# written atomically).
TRAINER = "gibbs"
SHARD_LEVELS = ("task", "perturbation")
TRAIN_DEFAULTS = {"alpha_m": 0.1, "beta": 0.01, "sweeps": 1000, "blocks": 1}


def train_model(corpus: Corpus, topics: int, *, alpha_m: float = 0.1, beta: float = 0.01,
                sweeps: int = 1000, blocks: int = 1, seed: int = 0) -> LDAModel:
    """The Foulds & Smyth model (§5.5): collapsed Gibbs on the training split with fixed symmetric
    alpha m_t = ``alpha_m`` and beta u_v = ``beta``, the point estimate (1.8) of the final state
    (``fit_gibbs``; ``blocks`` sampler blocks, bit-identical for a given ``blocks``)."""
    result = fit_gibbs(corpus.select_split("train"), topics, sweeps=sweeps, alpha_m=alpha_m,
                       beta=beta, threads=blocks, seed=seed)
    model = result.model
    model.meta.update({"trainer_name": "foulds_smyth", "split": "train",
                       "corpus": {k: corpus.meta.get(k) for k in ("dataset", "variant")},
                       "final_log_joint": float(result.log_joint["log_joint"].iloc[-1])})
    return model


def heldout_documents(corpus: Corpus, n_docs: int | None = None) -> list[np.ndarray]:
    """The first ``n_docs`` documents of the test split (all when None), in corpus order (the
    split is random, so the first ones are a random subset; keys are positions in this list)."""
    docs = list(corpus.select_split("test"))
    if n_docs is not None:
        if not isinstance(n_docs, (int, np.integer)) or n_docs < 1:
            raise ValueError(f"the number of documents must be a positive integer, got "
                             f"{n_docs!r}")
        if n_docs > len(docs):
            raise ValueError(f"{n_docs} held-out documents requested but the corpus has "
                             f"{len(docs)} in its test split")
        docs = docs[:n_docs]
    if not docs:
        raise ValueError("the corpus has no test documents")
    return docs


def workflow_tasks(cfg: Mapping) -> pd.DataFrame:
    """The shards of a ``foulds_smyth`` config block: ``f1_tasks`` for every perturbation, with
    columns ``perturbation`` and ``shard``.  ``shards.by``: "task" (one job per perturbation x
    method x budget x block of ``shards.block`` documents) or "perturbation" (one job per
    perturbation and block, every method and budget)."""
    by = cfg["shards"]["by"]
    if by not in SHARD_LEVELS:
        raise ValueError(f"unknown shards.by {by!r}; choose from {list(SHARD_LEVELS)}")
    if cfg["headline"] not in cfg["perturbations"]:
        raise ValueError(f"headline {cfg['headline']!r} is not one of the perturbations "
                         f"{list(cfg['perturbations'])}")
    frames = []
    for name in cfg["perturbations"]:
        tasks = f1_tasks(cfg["docs"], scale=cfg["scale"], block=cfg["shards"]["block"])
        shard = (tasks["task"] if by == "task"
                 else tasks["doc_start"].map(lambda lo: f"f1-all-{lo:05d}"))
        frames.append(tasks.assign(perturbation=name, shard=shard))
    return pd.concat(frames, ignore_index=True)


def shard_tasks(tasks: pd.DataFrame, perturbation: str, shard: str) -> list[dict]:
    """The task rows of one shard, as plain dicts (Snakemake params)."""
    part = tasks[(tasks["perturbation"] == perturbation) & (tasks["shard"] == shard)]
    if part.empty:
        raise ValueError(f"no foulds_smyth shard {perturbation}/{shard}")
    cols = ["task", "method", "budget", "samples", "temperatures", "doc_start", "doc_stop"]
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for row in part[cols].to_dict("records")]


def split_timings(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(estimates without wall-clock columns, timing rows keyed like the estimates)."""
    keys = ["method", "budget", "samples", "temperatures", "doc", "tokens", "site_updates"]
    return rows[ESTIMATE_COLUMNS], rows[keys + TIMING_COLUMNS]



def evaluate_shard(tasks: Sequence[Mapping], corpus_path, model_path, rows_path, timings_path,
                   *, docs: int | None = None, seed: int = 0, perturbation: Mapping,
                   burnin: int = BURNIN, threshold: float = THRESHOLD,
                   threads: int | None = 1) -> None:
    """Rule ``foulds_smyth_shard``: ``run_shard`` for each task on the first ``docs`` held-out
    documents of the corpus, against the model's copy perturbed as ``perturbation`` says
    (``concentration``, ``weight``, ``seed``); estimates and timings to separate files."""
    model = load_model(model_path)
    corpus = Corpus.load(corpus_path)
    if model.family != "lda":
        raise ValueError(f"{model_path}: a {model.family} model; Foulds & Smyth compare LDA "
                         "models")
    corpus = corpus.align(model, oov="error")  # by word: the model's ids are its own words
    unknown = sorted(set(perturbation) - {"concentration", "weight", "seed"})
    if unknown:
        raise ValueError(f"unknown perturbation setting(s) {unknown}; allowed: concentration, "
                         "weight, seed")
    held = heldout_documents(corpus, docs)
    rows = pd.concat([run_shard(t, held, model.phi, model.alpha_m, seed=seed,
                                perturbation_seed=perturbation.get("seed", 0),
                                weight=perturbation.get("weight", PERTURB_WEIGHT),
                                concentration=perturbation.get("concentration", 1.0),
                                burnin=burnin, threshold=threshold, threads=threads)
                      for t in tasks], ignore_index=True)
    estimates, timings = split_timings(rows)
    write_csv_atomic(rows_path, estimates)
    write_csv_atomic(timings_path, timings)


def _sorted_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows in (method, budget, doc) order, whatever the sharding."""
    order = {m: i for i, m in enumerate(METHODS)} | {"cheap": 0, "expensive": 1}
    return rows.sort_values(["method", "budget", "doc"], key=lambda s: s.map(order)
                            if s.name != "doc" else s, ignore_index=True)


def summarise(rows_paths: Sequence, timings_paths: Sequence, rows_out, f1_out, x1_out,
              cost_out, *, projected_docs: int = 130) -> None:
    """Rule ``foulds_smyth_summary``: the shards of one perturbation into the per-document rows,
    the 003-F1 table (``f1_summary``), the 003-X1 table (``reciprocal_summary``, when ratio-AIS
    ran) and the cost table (``projected_cost``, wall-clock: under timings/)."""
    rows = _sorted_rows(pd.concat([pd.read_csv(p) for p in rows_paths], ignore_index=True))
    timings = pd.concat([pd.read_csv(p) for p in timings_paths], ignore_index=True)
    write_csv_atomic(rows_out, rows)
    write_csv_atomic(f1_out, f1_summary(rows))
    write_csv_atomic(x1_out, reciprocal_summary(rows))
    write_csv_atomic(cost_out, projected_cost(timings, projected_docs))
