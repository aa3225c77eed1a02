"""Foulds & Smyth (``foulds_smyth``): experiment 003-F1 and the reciprocal check 003-X1.

Tidy ``pandas.DataFrame`` tables in and out (docs/methods/experiments.md#foulds_smyth); the
Snakemake rules call these functions and ``topiceval.plots.foulds_smyth`` draws the tables.

* 003-F1 ``f1_tasks`` (``Task`` rows) -> ``run_shard`` -> ``f1_summary``: for every held-out
  document, the log likelihood ratio log R_d = log P(w_d | Phi, alpha m) - log P(w_d | Phi_pert,
  alpha m) of a trained model (model A) against its perturbed copy Phi_pert = 0.95 Phi + 0.05
  Phi_rand (rows of Phi_rand ~ Dir(1_V), ``perturbed_topics``; model B), estimated by

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
* ``projected_cost``: seconds per document measured in the timing rows, extrapolated to a corpus.
* Workflow (``workflow/rules/foulds_smyth.smk``): ``train_model`` (collapsed Gibbs with fixed
  alpha m and beta, §5.5), ``workflow_shards`` (the shards of the config block ``foulds_smyth``
  at DAG-build time, one table per named perturbation), ``evaluate_shard``, ``summarise`` and
  ``plots.foulds_smyth.write_figures`` (the figures and, beside them, their captions: what the
  paper found and what these tables show); estimates and wall-clock seconds go to separate
  files, so result tables are bit-identical for any thread count and machine.

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
from topiceval.experiments.rows import read_shards
from topiceval.experiments.tasks import Shards, blocks, check_block, group_shards, scaled, slug
from topiceval.experiments.timings import TIMING_COLUMNS, write_split
from topiceval.experiments.trained import gibbs_model, load_matched
from topiceval.io import write_csv_atomic
from topiceval.models import LDAModel
from topiceval.seeds import derive_seed
from topiceval.threads import numba_threads
from topiceval.validation import is_integer

PERTURB_WEIGHT = 0.05
BURNIN = 100
THRESHOLD = 1.0
METHODS = ("standard", "ratio_ais")
PAPER_SHARES = {("ratio_ais", "cheap"): 0.95, ("standard", "cheap"): 0.52}
ROW_COLUMNS = ["method", "budget", "samples", "temperatures", "doc", "tokens", "log_ratio",
               "reverse", "reciprocal_gap", "suspect", "site_updates", "seconds", "threads"]
ESTIMATE_COLUMNS = [c for c in ROW_COLUMNS if c not in TIMING_COLUMNS]
TIMING_KEYS = ["method", "budget", "samples", "temperatures", "doc", "tokens", "site_updates"]


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


# --------------------------------------------------------------------------- tasks
@dataclass(frozen=True)
class Task:
    """One (method, budget, block ``[doc_start, doc_stop)`` of held-out documents) of 003-F1."""

    method: str
    budget: Budget
    doc_start: int
    doc_stop: int

    @property
    def name(self) -> str:
        """The task's name, e.g. "f1-ratio-ais-cheap-00010"."""
        return f"f1-{slug(self.method)}-{self.budget.name}-{self.doc_start:05d}"


def f1_tasks(n_docs: int, *, scale: float = 1.0, block: int = 10,
             methods: Sequence[str] = METHODS) -> list[Task]:
    """003-F1 tasks: one per (method, budget, block of ``block`` documents)."""
    doc_blocks = blocks(n_docs, block)
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {list(METHODS)}")
    return [Task(method, b, lo, hi) for method in methods for b in budgets(scale)
            for lo, hi in doc_blocks]


def run_shard(task: Task, docs, phi, alpha_m, *, seed: int = 0, perturbation_seed: int = 0,
              weight: float = PERTURB_WEIGHT, concentration: float = 1.0, burnin: int = BURNIN,
              threshold: float = THRESHOLD, threads: int | None = 1) -> pd.DataFrame:
    """Evaluate one ``Task`` of ``f1_tasks``: tidy rows, one per document of the block.

    ``docs``: the whole held-out list (document keys are positions in it); model A = (phi,
    alpha_m), model B = (``perturbed_topics(phi, weight=weight, seed=perturbation_seed,
    concentration=concentration)``, alpha_m).  Each document is one call on ``threads`` threads;
    ``seconds`` is its kernel time.  Standard rows have no reverse estimate or gap (NaN,
    ``suspect`` False).  The random streams depend on (seed, method, budget, document), not on
    the perturbation: every perturbation is evaluated with common random numbers.
    """
    method, budget = task.method, task.budget.name
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {list(METHODS)}")
    lo, hi = task.doc_start, task.doc_stop
    check_block(lo, hi, len(docs))
    samples, temps = task.budget.samples, task.budget.temperatures
    model_a = (np.asarray(phi, dtype=np.float64), np.asarray(alpha_m, dtype=np.float64))
    model_b = (perturbed_topics(model_a[0], weight=weight, seed=perturbation_seed,
                                concentration=concentration), model_a[1])
    stream = derive_seed(seed, "003-F1", method, budget)
    rows = []
    with numba_threads(threads) as n_threads:
        for d in range(lo, hi):
            doc = np.asarray(docs[d])
            if method == "ratio_ais":
                res = lda.compare([doc], model_a, model_b, samples=samples, temperatures=temps,
                                  seed=stream, burnin=burnin, threshold=threshold,
                                  doc_keys=[d], work_limit=None)
                values = (res.log_ratio[0], res.reverse[0], res.reciprocal_gap[0],
                          bool(res.suspect[0]), int(res.site_updates[0]), res.seconds)
            else:
                log_ratio, cost = lda.compare_standard([doc], model_a, model_b, samples=samples,
                                                       temperatures=temps, seed=stream,
                                                       doc_keys=[d], return_cost=True,
                                                       work_limit=None)
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


# --------------------------------------------------------------------------- workflow
# What the Snakemake rules (workflow/rules/foulds_smyth.smk) call: the shard grid of the config
# block ``foulds_smyth`` at DAG-build time, then one entry point per rule (paths in, files out,
# written atomically).
TRAINER = "gibbs"
SHARD_LEVELS = ("task", "perturbation")


def train_model(corpus: Corpus, topics: int, *, alpha_m: float = 0.1, beta: float = 0.01,
                sweeps: int = 1000, blocks: int = 1, seed: int = 0) -> LDAModel:
    """The Foulds & Smyth model (§5.5): collapsed Gibbs on the training split with fixed symmetric
    alpha m_t = ``alpha_m`` and beta u_v = ``beta``, the point estimate (1.8) of the final state
    (``gibbs_model``; ``blocks`` sampler blocks, bit-identical for a given ``blocks``)."""
    return gibbs_model(corpus, topics, trainer_name="foulds_smyth", sweeps=sweeps,
                       alpha_m=alpha_m, beta=beta, blocks=blocks, seed=seed)


def test_documents(corpus: Corpus, n_docs: int | None = None) -> list[np.ndarray]:
    """The first ``n_docs`` documents of the test split (all when None), in corpus order (the
    split is random, so the first ones are a random subset; keys are positions in this list)."""
    docs = list(corpus.select_split("test"))
    if n_docs is not None:
        if not is_integer(n_docs) or n_docs < 1:
            raise ValueError(f"the number of documents must be a positive integer, got "
                             f"{n_docs!r}")
        if n_docs > len(docs):
            raise ValueError(f"{n_docs} held-out documents requested but the corpus has "
                             f"{len(docs)} in its test split")
        docs = docs[:n_docs]
    if not docs:
        raise ValueError("the corpus has no test documents")
    return docs


def workflow_shards(cfg: Mapping) -> Shards:
    """The tasks of a ``foulds_smyth`` config block by (perturbation, shard): ``f1_tasks`` for
    every perturbation.  ``shards.by``: "task" (one job per perturbation x method x budget x
    block of ``shards.block`` documents) or "perturbation" (one job per perturbation and block,
    every method and budget)."""
    by = cfg["shards"]["by"]
    if by not in SHARD_LEVELS:
        raise ValueError(f"unknown shards.by {by!r}; choose from {list(SHARD_LEVELS)}")
    if cfg["headline"] not in cfg["perturbations"]:
        raise ValueError(f"headline {cfg['headline']!r} is not one of the perturbations "
                         f"{list(cfg['perturbations'])}")
    tasks = f1_tasks(cfg["docs"], scale=cfg["scale"], block=cfg["shards"]["block"])
    return group_shards(((name, task.name if by == "task" else f"f1-all-{task.doc_start:05d}"),
                         task) for name in cfg["perturbations"] for task in tasks)


def evaluate_shard(tasks: Sequence[Task], corpus_path, model_path, rows_path, timings_path,
                   *, docs: int | None = None, seed: int = 0, perturbation: Mapping,
                   burnin: int = BURNIN, threshold: float = THRESHOLD,
                   threads: int | None = 1) -> None:
    """Rule ``foulds_smyth_shard``: ``run_shard`` for each task on the first ``docs`` held-out
    documents of the corpus, against the model's copy perturbed as ``perturbation`` says
    (``concentration``, ``weight``, ``seed``); estimates and timings to separate files
    (``timings.write_split``)."""
    corpus, model = load_matched(corpus_path, model_path, "lda",
                                 "Foulds & Smyth compare LDA models")
    unknown = sorted(set(perturbation) - {"concentration", "weight", "seed"})
    if unknown:
        raise ValueError(f"unknown perturbation setting(s) {unknown}; allowed: concentration, "
                         "weight, seed")
    held = test_documents(corpus, docs)
    write_split((run_shard(t, held, model.phi, model.alpha_m, seed=seed,
                           perturbation_seed=perturbation.get("seed", 0),
                           weight=perturbation.get("weight", PERTURB_WEIGHT),
                           concentration=perturbation.get("concentration", 1.0),
                           burnin=burnin, threshold=threshold, threads=threads)
                 for t in tasks), TIMING_KEYS, rows_path, timings_path)


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
    rows = _sorted_rows(read_shards(rows_paths))
    timings = read_shards(timings_paths)
    write_csv_atomic(rows_out, rows)
    write_csv_atomic(f1_out, f1_summary(rows))
    write_csv_atomic(x1_out, reciprocal_summary(rows))
    write_csv_atomic(cost_out, projected_cost(timings, projected_docs))
