"""Predicted wall time of ``config/paper.yaml`` on a SLURM cluster, from measured per-job costs.

    .venv/bin/python benchmarks/cluster_walltime.py --paper /tmp/paperbench/results \\
        --reduced /tmp/reducedbench/results [--cores-per-node 32] [--nodes 1 4 16 64] \\
        [--check RUN/results]

1. Jobs, groups and dependencies: a dry run of config/paper.yaml through the SLURM profile
   (``snakemake -n --profile workflow/profiles/slurm``) into a fresh directory, so that every job
   is listed with its group submission; dependencies come from the jobs' input and output files.
2. The cost of every job in core-seconds at the paper's size: the CPU time of a ``benchmark:``
   file of a real run (``cpu_time`` extrapolated from Snakemake's last sample to the end of the
   job, ``last_sample``) (``--paper``: runs of config/paper.yaml itself; ``--reduced``:
   runs of config/paper.yaml with fewer documents, samples or iterations, where the paper-size job
   would not fit the measuring budget), times a work ratio when the job is not the measured one
   itself.  ``cost_*`` below say which measurement stands for which jobs and why; work ratios
   are Gibbs site updates (documents x tokens x samples x temperatures x runs, from the task
   grids and the staged corpora) or training tokens x sweeps.  CPU time rather than wall time
   because the measuring machine was shared (wall >= CPU under load; on a dedicated core the
   two agree).
3. Wall time on N nodes of C cores: a list schedule of the submissions (a group runs its members
   one after another on one core, as the profile's ``group_slots: 1`` makes it; other jobs use
   their threads) over the DAG, critical path first, with no queueing delay; and the lower bound
   max(total core-hours / (N C), critical path).
4. With ``--check RUN``: the jobs of a real paper-size run (its results directory) against their
   predictions and the profile's ``runtime`` and ``mem_mb`` (``check_run``: every job whose
   ``benchmark:`` file, as the dry run names it, the run holds).

Measuring runs (one core, about 40 CPU-minutes in all; every benchmark file named in ``cost_*``):

    snakemake TARGETS --cores 1 --configfile config/paper.yaml [reduced.yaml] --config \
        data_mirror=MIRROR results_dir=DIR/results resources_dir=DIR/resources

asking for the outputs of the measured jobs (so only they and their upstream jobs run).  Paper
run (DIR = /tmp/paperbench): tables/corpus_stats.csv (every corpus); the 002 shards
f1-ap-{ais,hm,cs-2,lr-2,is-pt-2,is-pzw-2,is-ip-2}-00000, f2-ap-{ais,et,lr}-00000 and
f1-synthetic-3-{exact,cs-2}-00000, the 20 Newsgroups T = 200 model, the held-out sets of
20newsgroups and kos; the 003 shards prior/shards/f1-{standard,ratio-ais}-cheap-00000; the 004
shards f2/tweet/repeats0-1, f3/tweet/{ds,hm,l2r}/part0of1, f2-released/twitter/repeats0-1 and the
tractable and realistic AP models; the 001 gibbs and sklearn models at T = 30 and the honest
estimates (001-F4, Chib-style and left-to-right) of the gibbs models at T = 2 and T = 30.
Reduced run (DIR = /tmp/reducedbench, the paper run's corpora and models copied in with their
times, its resources linked), overlay ``reduced.yaml``::

    foulds_smyth: {scale: 0.2}
    bechard2018: {vem_max_iter: 50}
    capdevila2018: {tractable: {max_docs: 100}, realistic: {samples: 1000}}

with targets prior/shards/f1-{standard,ratio-ais}-expensive-00000, f2/ap/repeats0-1,
f2-released/nips/repeats0-1, f3/ap/{ds,hm}/part0of1, f3/ap/l2r/part0of32 and the 001 vem model at
T = 30.  Measure with the numba cache warm (run both a second time with ``--forcerun`` of the
measured rules): a job that compiles its kernels measures the compiler too, which a cluster pays
once, in its first jobs (2026-11-28: the Twitter 004-F2 job 218 CPU s and 1,175 MB cold, 79 s
and 226 MB warm).

Writes ``benchmarks/out/cluster_walltime.csv`` (per rule), ``cluster_walltime_jobs.csv`` (per
job), ``cluster_walltime_nodes.csv`` (per N and dry run) and ``cluster_walltime.md`` (the
tables and the measurements used).
"""

from __future__ import annotations

import argparse
import heapq
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from topiceval.corpus import Corpus
from topiceval.data.l2r import load_l2r_model
from topiceval.estimators.gapfa.exact import tractable_documents
from topiceval.experiments import capdevila2018 as C4
from topiceval.experiments.tasks import work_blocks
from topiceval.io import write_text_atomic

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).parent / "out"
PROFILE = ROOT / "workflow" / "profiles" / "slurm"
FLAT_SECONDS = 30.0  # jobs without a benchmark: tables, figures, downloads from a mirror
REDUCED_F3_SAMPLES = 1000  # realistic.samples of the reduced run (overlay below)

# --------------------------------------------------------------------------- the dry run


@dataclass
class Job:
    rule: str
    wildcards: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    threads: int = 1
    group: int | None = None
    resources: dict = field(default_factory=dict)
    benchmark: str | None = None  # its benchmark file, relative to the results directory


_RULE = re.compile(r"^(\s*)(?:local)?rule (\w+):$")


def parse_dry_run(text: str) -> tuple[list[Job], int]:
    """Jobs (rule, wildcards, files, threads, group index, benchmark file) of ``snakemake -n``
    output (paths as the dry run gives them), and the
    number of group submissions.  A group is printed as "Group job NAME (...)" followed by its
    members, indented."""
    jobs: list[Job] = []
    groups = 0
    in_group = False
    for line in text.splitlines():
        if "Group job" in line and "jobs in lexicogr. order" in line:
            groups += 1
            in_group = True
            continue
        match = _RULE.match(line)
        if match:
            member = in_group and len(match.group(1)) > 0
            in_group = member
            jobs.append(Job(match.group(2), group=groups - 1 if member else None))
            continue
        if not jobs or not line.startswith(" "):
            continue
        key, _, value = line.strip().partition(": ")
        if key == "input":
            jobs[-1].inputs = value.split(", ")
        elif key == "output":
            jobs[-1].outputs = value.split(", ")
        elif key == "wildcards":
            jobs[-1].wildcards = dict(kv.split("=", 1) for kv in value.split(", "))
        elif key == "threads":
            jobs[-1].threads = int(value)
        elif key == "resources":
            jobs[-1].resources = dict(kv.split("=", 1) for kv in value.split(", "))
        elif key == "benchmark":
            jobs[-1].benchmark = value
    return jobs, groups


def dry_run(profile: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        # --executor dryrun: the profile's groups and resources without the SLURM plugin
        cmd = [sys.executable, "-m", "snakemake", "-n", "--profile", str(profile),
               "--executor", "dryrun", "--configfile", "config/paper.yaml", "--config",
               f"results_dir={tmp}/results", f"resources_dir={tmp}/resources"]
        result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"dry run failed:\n{result.stderr[-3000:]}")
    # the results' paths relative to the results directory, which any run can hold
    return (result.stdout + result.stderr).replace(f"{tmp}/results/", "")


# --------------------------------------------------------------------------- measurements


@dataclass(frozen=True)
class Estimate:
    """A job's cost: ``factor`` x the CPU seconds of benchmark ``path`` of run ``run``."""

    run: str      # "paper" or "reduced"
    path: str     # benchmark TSV, relative to the run's results directory
    size: str     # what the measured job computed
    factor: float = 1.0
    basis: str = "measured at paper size"


class Measurements:
    def __init__(self, dirs: Mapping[str, Path]):
        self.dirs = dirs

    @cache  # noqa: B019 (one instance per run of the script)
    def row(self, run: str, path: str) -> dict:
        file = self.dirs[run] / "benchmarks" / path
        if not file.is_file():
            raise FileNotFoundError(f"benchmark {file} not found: run the measurement first "
                                    "(docs/cluster.md, 'Running on a cluster')")
        row = pd.read_csv(file, sep="\t").iloc[-1]
        wall = float(row["s"])
        return {"s": wall, "cpu_s": float(row["cpu_time"]) * wall / last_sample(wall),
                "max_rss_mb": float(row["max_rss"])}

    @cache  # noqa: B019
    def corpus(self, run: str, dataset: str, variant: str) -> Corpus:
        return Corpus.load(self.dirs[run] / "corpora" / dataset / f"{variant}.npz")

    @cache  # noqa: B019
    def heldout_tokens(self, name: str) -> np.ndarray:
        """Tokens of each held-out document of a seed-002 data set (paper run)."""
        config = paper_config()["wallach2009"]
        length = config["datasets"].get(name, {}).get("doc_length")
        if length is not None:  # synthetic: fixed length
            return np.full(config["n_docs"], length)
        corpus = Corpus.load(self.dirs["paper"] / "wallach2009" / "heldout" / f"{name}.npz")
        return np.diff(corpus.offsets)

    @cache  # noqa: B019
    def f3_work(self, dataset: str, method: str, samples: int | None) -> np.ndarray:
        """Predicted work of each 004-F3 document of ``method`` (config/paper.yaml's realistic
        settings, ``samples`` if given)."""
        cfg = paper_config()["capdevila2018"]["realistic"]
        counts = self.corpus("paper", dataset, C4_VARIANTS["realistic"]).counts()
        return C4.loglik_work(counts, topics=cfg["topics"], samples=samples or cfg["samples"],
                              methods=[method], n_docs=cfg["docs"], repeats=cfg["repeats"],
                              settings=cfg["settings"])[method]

    def f3_part_work(self, dataset: str, method: str, part: int, parts: int,
                     samples: int | None = None) -> float:
        """Predicted work of part ``part`` of ``parts`` (``capdevila2018.loglik_part``)."""
        work = self.f3_work(dataset, method, samples)
        start, stop = work_blocks(work, parts)[part]
        return float(work[start:stop].sum())

    def train_tokens(self, dataset: str, variant: str) -> int:
        corpus = self.corpus("paper", dataset, variant)
        if corpus.split is not None and "train" in set(corpus.split):
            corpus = corpus.select_split("train")
        return int(corpus.offsets[-1])


def last_sample(wall: float) -> float:
    """Time of Snakemake's last benchmark sample of a job that ran ``wall`` seconds.

    Snakemake samples a benchmarked job's CPU time and RSS every 0.5 s for the first 30 samples,
    then every 30 s (``snakemake.benchmark``), so ``cpu_time`` is the CPU time at that last
    sample: up to 30 s short.  The job's CPU time is extrapolated to its end at the CPU share it
    had until then (``cpu_time * wall / last_sample``).
    """
    if wall <= 15:
        return max(0.5, 0.5 * np.floor(2 * wall))
    return 15 + 30 * np.floor((wall - 15) / 30)


@cache
def paper_config() -> dict:
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    update_config(config, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()))
    return config


# --------------------------------------------------------------------------- cost model
# Each cost_<rule>(wildcards, m) returns the Estimate of one job of that rule.

W2_REF = "ap"  # seed 002 shards measured at paper size on AP (T = 200, the data set's own model)
# shard method token -> (measured AP shard, work relative to it).  "-1" settings have half the
# samples of "-2" (S_CS = 1000 vs 2000); "AIS 2" twice the temperatures of "AIS"; 002-F3 runs
# IS-PT, LR and CS at S_CS = 1000 and ET at the 002-F2 settings.
W2_METHODS = {
    "f1": {"exact": None, "ais-2": ("f1-ap-ais", 2.0), "ais": ("f1-ap-ais", 1.0),
           "hm": ("f1-ap-hm", 1.0), "cs-1": ("f1-ap-cs-2", 0.5), "cs-2": ("f1-ap-cs-2", 1.0),
           "lr-1": ("f1-ap-lr-2", 0.5), "lr-2": ("f1-ap-lr-2", 1.0),
           "is-pt-1": ("f1-ap-is-pt-2", 0.5), "is-pt-2": ("f1-ap-is-pt-2", 1.0),
           "is-pzw-1": ("f1-ap-is-pzw-2", 0.5), "is-pzw-2": ("f1-ap-is-pzw-2", 1.0),
           "is-ip-1": ("f1-ap-is-ip-2", 0.5), "is-ip-2": ("f1-ap-is-ip-2", 1.0)},
    "f2": {"ais": ("f2-ap-ais", 1.0), "et": ("f2-ap-et", 1.0), "lr": ("f2-ap-lr", 1.0)},
    "f3": {"is-pt": ("f1-ap-is-pt-2", 0.5), "lr": ("f1-ap-lr-2", 0.5),
           "cs": ("f1-ap-cs-2", 0.5), "et": ("f2-ap-et", 1.0)},
}
W2_SYNTHETIC_EXACT = "f1-synthetic-3-exact-00000"


def _w2_parse(shard: str) -> tuple[str, str, str, int]:
    """(figure, data set, method token, first document) of a seed-002 shard name."""
    names = sorted(paper_config()["wallach2009"]["datasets"], key=len, reverse=True)
    figure, rest = shard.split("-", 1)
    dataset = next(n for n in names if rest.startswith(n + "-"))
    body, start = rest[len(dataset) + 1:].rsplit("-", 1)
    if figure == "f3":  # {kind}-{lambda}-{method}
        body = next(t for t in sorted(W2_METHODS["f3"], key=len, reverse=True)
                    if body.endswith(t))
    return figure, dataset, body, int(start)


def cost_wallach2009_shard(wc, m: Measurements) -> Estimate:
    figure, dataset, method, start = _w2_parse(wc["shard"])
    block = paper_config()["wallach2009"]["shards"]["block"]
    tokens = m.heldout_tokens(dataset)[start:start + block].sum()
    if method == "exact":
        path = f"wallach2009/shards/f1/{W2_SYNTHETIC_EXACT}.tsv"
        return Estimate("paper", path, "exact (7.2), synthetic-3 (T = 3), 10 documents of 500 "
                        "tokens", 1.0, "measured at paper size")
    ref, work = W2_METHODS[figure][method]
    ref_tokens = m.heldout_tokens(W2_REF)[:block].sum()
    ratio = work * tokens / ref_tokens
    basis = ("measured at paper size" if ratio == 1 else "AP shard of the method x samples x "
             "the block's tokens (AP's T = 200 cost per update: an upper bound for T = 3, 50)")
    fig = ref.split("-", 1)[0]
    return Estimate("paper", f"wallach2009/shards/{fig}/{ref}-00000.tsv",
                    f"{ref}-00000: AP, T = 200, 10 documents x 10 runs", ratio, basis)


def cost_wallach2009_train(wc, m: Measurements) -> Estimate:
    """AP and 20 Newsgroups (T = 200) and NIPS (T = 3) measured at paper size; KOS scaled from
    AP, NIPS T = 50 from 20 Newsgroups T = 200, by training tokens (the sparse sampler's cost per
    token grows slowly with T, so this is an upper bound)."""
    measured = {("ap", "200"): "ap/asis", ("20newsgroups", "200"): "20newsgroups/wallach2009",
                ("nips", "3"): "nips/wallach2009"}
    key = (wc["dataset"], wc["topics"])
    ref = measured.get(key) or ("ap/asis" if wc["dataset"] == "kos" else
                                "20newsgroups/wallach2009")
    ref_topics = "3" if ref.startswith("nips") else "200"
    path = f"wallach2009/models/{ref}/wallach2009-T{ref_topics}-seed0.tsv"
    size = f"{ref}, T = {ref_topics}, 1000 sweeps"
    if key in measured:
        return Estimate("paper", path, size)
    ratio = (m.train_tokens(wc["dataset"], wc["variant"])
             / m.train_tokens(*ref.split("/")))
    return Estimate("paper", path, size, ratio, "x training tokens (upper bound for T < 200)")


def cost_foulds_smyth_train(wc, m: Measurements) -> Estimate:
    return Estimate("paper", f"foulds_smyth/models/{wc['dataset']}/{wc['variant']}/"
                    f"{wc['trainer']}-T{wc['topics']}-seed{wc['seed']}.tsv",
                    "NIPS 1,370 papers, T = 50, 1000 sweeps")


def cost_foulds_smyth_shard(wc, m: Measurements) -> Estimate:
    """Cheap budget (1 x 100) measured at paper size; expensive budget (100 samples x 1,000
    temperatures) measured with 20 x 200 (foulds_smyth.scale 0.2) on the same 10 papers and
    scaled by 25 (site updates)."""
    kind = re.sub(r"-\d+$", "", wc["shard"])
    path = f"foulds_smyth/prior/shards/{kind}-00000.tsv"
    if kind.endswith("cheap"):
        return Estimate("paper", path, f"{kind}: 10 papers, 1 sample x 100 temperatures")
    return Estimate("reduced", path, f"{kind}: 10 papers, 20 samples x 200 temperatures", 25.0,
                    "x 25 site updates (100 x 1000 / 20 x 200; start-up included: upper bound)")


def cost_bechard2018_train(wc, m: Measurements) -> Estimate:
    """Gibbs (1000 sweeps) and sklearn (10 iterations) measured at paper size with T = 30, the
    largest T; VEM measured with T = 30 and 50 EM iterations, scaled to the paper's cap of 2000
    (an upper bound: it stops earlier when the ELBO converges).  sklearn and VEM are scaled
    linearly in T; Gibbs (sparse sampler, cost nearly flat in T) is not."""
    trainer, topics = wc["trainer"], int(wc["T"])
    base = f"bechard2018/train/{wc['dataset']}/{wc['variant']}/{trainer}-T30-seed0.tsv"
    if trainer == "gibbs":
        return Estimate("paper", base, "20 Newsgroups, T = 30, 1000 sweeps + 100 fold-in",
                        1.0, "T = 30 measurement for every T (upper bound)")
    if trainer == "sklearn":
        return Estimate("paper", base, "20 Newsgroups, T = 30, 10 iterations", topics / 30,
                        "x T / 30")
    return Estimate("reduced", base, "20 Newsgroups, T = 30, 50 VEM iterations",
                    topics / 30 * 2000 / 50, "x T / 30 x 2000 / 50 iterations (upper bound)")


def cost_bechard2018_honest(wc, m: Measurements) -> Estimate:
    """Chib-style and left-to-right P1 of one model on the paper's 1,000 honest documents,
    measured at paper size for the Gibbs models of T = 2 and T = 30 (the work is the same for
    every trainer: same documents, same settings) and interpolated linearly in T between them
    (both kernels are dense in T; the intercept is loading and compiling)."""
    base = f"bechard2018/honest/{wc['dataset']}/{wc['variant']}/gibbs-T{{}}-seed0.tsv"
    low, high = (m.row("paper", base.format(t))["cpu_s"] for t in (2, 30))
    topics = int(wc["T"])
    size = "20 Newsgroups, gibbs T = 30, 1,000 documents x 4 runs, CS and LR"
    if topics == 30:
        return Estimate("paper", base.format(30), size)
    return Estimate("paper", base.format(30), size, (low + (high - low) * (topics - 2) / 28)
                    / high, "interpolated in T between the T = 2 and T = 30 measurements")


def cost_capdevila2018_train(wc, m: Measurements) -> Estimate:
    """AP measured at paper size in both settings (T = 5 on the 100-word crop, T = 100 on the
    whole vocabulary, 1000 iterations), Tweet too; the other collections scaled from AP (Tweet
    from Tweet) by tokens."""
    setting, dataset = wc["setting"], wc["dataset"]
    variant = C4_VARIANTS[setting]
    ref = "tweet" if dataset in ("tweet", "searchsnippets") else "ap"
    path = f"capdevila2018/models/{setting}/{ref}.tsv"
    size = f"{ref}, {setting} (T = {paper_config()['capdevila2018'][setting]['topics']}), " \
           f"{paper_config()['capdevila2018'][setting]['iterations']} iterations"
    if dataset == ref:
        return Estimate("paper", path, size)
    ratio = m.train_tokens(dataset, variant) / m.train_tokens(ref, variant)
    return Estimate("paper", path, size, ratio, "x tokens")


C4_VARIANTS = {"tractable": "capdevila2018-top100", "realistic": "capdevila2018"}


def _tractable_tokens(m: Measurements, dataset: str | None, release: str | None,
                      limit: int) -> int:
    """Tokens of the first ``limit`` tractable documents of a panel (seed-004 filter)."""
    cfg = paper_config()["capdevila2018"]["tractable"]
    if release:
        path = next((m.dirs["paper"].parent / "resources" / "raw").rglob(C4.RELEASES[release][0]))
        counts, _ = load_l2r_model(path)
    else:
        counts = m.corpus("paper", dataset, C4_VARIANTS["tractable"]).counts()
    docs = tractable_documents(counts, cfg["topics"], max_summands=float(cfg["max_summands"]),
                               limit=limit)
    return int(counts[docs].sum())


def cost_capdevila2018_accuracy(wc, m: Measurements, release: str | None = None) -> Estimate:
    """One repeat over the first 1,000 tractable documents with S = 10,000 (5 methods).  Tweet
    and the Twitter release measured at paper size; AP and the NIPS release with the first 100
    tractable documents, every other collection scaled from AP by the tokens of its tractable
    documents (the estimators' work is per token and sample)."""
    limit = paper_config()["capdevila2018"]["tractable"]["max_docs"]
    if release == "twitter":
        return Estimate("paper", "capdevila2018/f2-released/twitter/repeats0-1.tsv",
                        "Twitter release, 1 repeat, S = 10,000")
    if release == "nips":
        ratio = (_tractable_tokens(m, None, "nips", limit)
                 / _tractable_tokens(m, None, "nips", 100))
        return Estimate("reduced", "capdevila2018/f2-released/nips/repeats0-1.tsv",
                        "NIPS release, 1 repeat, 100 documents, S = 10,000", ratio,
                        "x tokens of the tractable documents")
    dataset = wc["dataset"]
    if dataset == "tweet":
        return Estimate("paper", "capdevila2018/f2/tweet/repeats0-1.tsv",
                        "Tweet, 1 repeat, S = 10,000")
    ratio = _tractable_tokens(m, dataset, None, limit) / _tractable_tokens(m, "ap", None, 100)
    return Estimate("reduced", "capdevila2018/f2/ap/repeats0-1.tsv",
                    "AP, 1 repeat, 100 documents, S = 10,000", ratio,
                    "x tokens of the tractable documents")


def cost_capdevila2018_accuracy_released(wc, m: Measurements) -> Estimate:
    return cost_capdevila2018_accuracy(wc, m, release=wc["release"])


def cost_capdevila2018_loglik(wc, m: Measurements) -> Estimate:
    """Part i of K of one method's 004-F3 run on a collection (T = 100, S = 10,000): the CPU
    seconds per unit of predicted work (``capdevila2018.loglik_work``, the estimators' own
    ``gapfa.predicted_work``) of the same method, measured on Tweet at paper size (for Tweet and
    SearchSnippets: documents of a few words) or on AP's first part with S = 1,000 (for the
    others), times the part's predicted work."""
    dataset, method = wc["dataset"], wc["method"]
    ref = "tweet" if dataset in ("tweet", "searchsnippets") else "ap"
    run, samples = ("paper", None) if ref == "tweet" else ("reduced", REDUCED_F3_SAMPLES)
    ref_parts = C4.f3_parts(paper_config()["capdevila2018"]["realistic"]["parts"], method, ref)
    ref_work = m.f3_part_work(ref, method, 0, ref_parts, samples)
    work = m.f3_part_work(dataset, method, int(wc["part"]), int(wc["parts"]))
    size = f"{ref}, {method}, part 0 of {ref_parts}, S = {samples or 10000:,}"
    basis = ("measured at paper size" if (dataset, wc["part"]) == (ref, "0") and run == "paper"
             else "x the part's predicted work")
    return Estimate(run, f"capdevila2018/f3/{ref}/{method}/part0of{ref_parts}.tsv", size,
                    work / ref_work, basis)


def cost_corpus(wc, m: Measurements) -> Estimate:
    return Estimate("paper", f"corpora/{wc['dataset']}/{wc['variant']}.tsv",
                    f"{wc['dataset']}/{wc['variant']}, whole collection")


ESTIMATOR_RULES = ("wallach2009_shard", "foulds_smyth_shard", "capdevila2018_accuracy",
                   "capdevila2018_accuracy_released", "capdevila2018_loglik")
COSTS: dict[str, Callable[[dict, Measurements], Estimate]] = {
    "corpus": cost_corpus,
    "bechard2018_train": cost_bechard2018_train,
    "bechard2018_honest": cost_bechard2018_honest,
    "wallach2009_train": cost_wallach2009_train,
    "wallach2009_shard": cost_wallach2009_shard,
    "foulds_smyth_train": cost_foulds_smyth_train,
    "foulds_smyth_shard": cost_foulds_smyth_shard,
    "capdevila2018_train": cost_capdevila2018_train,
    "capdevila2018_accuracy": cost_capdevila2018_accuracy,
    "capdevila2018_accuracy_released": cost_capdevila2018_accuracy_released,
    "capdevila2018_loglik": cost_capdevila2018_loglik,
}


def job_costs(jobs: list[Job], m: Measurements) -> pd.DataFrame:
    rows = []
    for i, job in enumerate(jobs):
        row = {"job": i, "rule": job.rule, "wildcards": ",".join(
            f"{k}={v}" for k, v in job.wildcards.items()), "group": job.group,
            "threads": job.threads,
            "profile_runtime_min": float(job.resources.get("runtime", "nan")),
            "profile_mem_mb": float(job.resources.get("mem_mb", "nan")),
            "benchmark": job.benchmark}
        if job.rule == "all":
            rows.append({**row, "seconds": 0.0, "basis": "target only"})
            continue
        if job.rule not in COSTS:
            rows.append({**row, "seconds": FLAT_SECONDS,
                         "basis": f"not benchmarked: {FLAT_SECONDS:g} s assumed"})
            continue
        est = COSTS[job.rule](job.wildcards, m)
        bench = m.row(est.run, est.path)
        rows.append({**row, "seconds": bench["cpu_s"] * est.factor, "run": est.run,
                     "measured": est.path, "measured_size": est.size,
                     "measured_cpu_s": bench["cpu_s"], "measured_wall_s": bench["s"],
                     "max_rss_mb": bench["max_rss_mb"], "factor": est.factor,
                     "basis": est.basis})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- scheduling


def submissions(jobs: list[Job], costs: pd.DataFrame):
    """Submission units (a group, or one ungrouped job): duration, cores, dependencies."""
    unit_of = {}
    units: list[list[int]] = []
    by_group: dict[int, int] = {}
    for i, job in enumerate(jobs):
        if job.group is None:
            unit_of[i] = len(units)
            units.append([i])
        else:
            if job.group not in by_group:
                by_group[job.group] = len(units)
                units.append([])
            unit_of[i] = by_group[job.group]
            units[unit_of[i]].append(i)
    producer = {path: i for i, job in enumerate(jobs) for path in job.outputs}
    deps = [set() for _ in units]
    for i, job in enumerate(jobs):
        for path in job.inputs:
            if path in producer and unit_of[producer[path]] != unit_of[i]:
                deps[unit_of[i]].add(unit_of[producer[path]])
    seconds = costs["seconds"].to_numpy()
    duration = np.array([seconds[u].sum() for u in units])
    cores = np.array([max(jobs[i].threads for i in u) for u in units])
    return units, duration, cores, deps


def bottom_levels(duration, deps) -> np.ndarray:
    """Longest path from each unit to the end (its own duration included)."""
    children = defaultdict(list)
    for u, ds in enumerate(deps):
        for d in ds:
            children[d].append(u)
    level = np.zeros(len(duration))
    for u in reversed(_toposort(deps)):
        level[u] = duration[u] + max((level[c] for c in children[u]), default=0.0)
    return level


def _toposort(deps) -> list[int]:
    indegree = [len(d) for d in deps]
    children = defaultdict(list)
    for u, ds in enumerate(deps):
        for d in ds:
            children[d].append(u)
    order, ready = [], [u for u, n in enumerate(indegree) if n == 0]
    while ready:
        u = ready.pop()
        order.append(u)
        for c in children[u]:
            indegree[c] -= 1
            if indegree[c] == 0:
                ready.append(c)
    if len(order) != len(deps):
        raise ValueError("the job graph has a cycle")
    return order


def list_schedule(duration, cores, deps, total_cores: int) -> float:
    """Makespan of a list schedule on ``total_cores`` cores: whenever cores are free, start the
    ready unit with the longest path to the end that fits."""
    level = bottom_levels(duration, deps)
    waiting = [len(d) for d in deps]
    children = defaultdict(list)
    for u, ds in enumerate(deps):
        for d in ds:
            children[d].append(u)
    ready = [(-level[u], u) for u, n in enumerate(waiting) if n == 0]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []
    free, now = total_cores, 0.0
    while ready or running:
        blocked = []
        while ready:
            item = heapq.heappop(ready)
            need = min(int(cores[item[1]]), total_cores)
            if need <= free:
                free -= need
                heapq.heappush(running, (now + duration[item[1]], item[1]))
            else:
                blocked.append(item)
        for item in blocked:
            heapq.heappush(ready, item)
        now, u = heapq.heappop(running)
        free += min(int(cores[u]), total_cores)
        for c in children[u]:
            waiting[c] -= 1
            if waiting[c] == 0:
                heapq.heappush(ready, (-level[c], c))
    return now


# --------------------------------------------------------------------------- tables


def rule_table(costs: pd.DataFrame) -> pd.DataFrame:
    """Per rule: jobs, group submissions, predicted seconds per job, core-hours, and the
    profile's memory and runtime against the measured RSS and the predicted time."""
    rows = []
    for rule, df in costs.groupby("rule", sort=False):
        if rule == "all":
            continue
        rows.append({
            "rule": rule, "jobs": len(df), "in_groups": int(df["group"].notna().sum()),
            "s_per_job_mean": df["seconds"].mean(), "s_per_job_max": df["seconds"].max(),
            "core_hours": df["seconds"].sum() / 3600,
            "max_rss_mb": df["max_rss_mb"].max() if "max_rss_mb" in df else np.nan,
            "profile_mem_mb": df["profile_mem_mb"].min(),
            "profile_runtime_min": _span(df["profile_runtime_min"]),
            # the profile's runtime over the predicted time, at the tightest job of the rule
            "runtime_headroom": (df["profile_runtime_min"] * 60 / df["seconds"]).min(),
        })
    return pd.DataFrame(rows).sort_values("core_hours", ascending=False)


def measurement_table(costs: pd.DataFrame) -> pd.DataFrame:
    """Per benchmark file used: what it measured, its CPU and wall seconds and RSS, and the
    jobs it stands for (with how they were scaled from it)."""
    measured = costs.dropna(subset=["measured"])
    rows = []
    for (rule, run, path), df in measured.groupby(["rule", "run", "measured"], sort=False):
        first = df.iloc[0]
        rows.append({"rule": rule, "benchmark": f"{run}: {path}", "size": first["measured_size"],
                     "cpu_s": first["measured_cpu_s"], "wall_s": first["measured_wall_s"],
                     "max_rss_mb": first["max_rss_mb"], "jobs": len(df),
                     "scaling": "; ".join(dict.fromkeys(df["basis"]))})
    return pd.DataFrame(rows)


def _span(values: pd.Series) -> str:
    lo, hi = values.min(), values.max()
    return f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"


def node_table(duration, cores, deps, nodes, cores_per_node) -> pd.DataFrame:
    critical = bottom_levels(duration, deps).max()
    total = float((duration * cores).sum())
    rows = []
    for n in nodes:
        p = n * cores_per_node
        rows.append({"nodes": n, "cores": p,
                     "lower_bound_h": max(total / p, critical) / 3600,
                     "list_schedule_h": list_schedule(duration, cores, deps, p) / 3600,
                     "critical_path_h": critical / 3600, "core_hours": total / 3600})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- checking a run
def check_run(costs: pd.DataFrame, run: Path) -> pd.DataFrame:
    """Per rule: the jobs of a real paper-size run (results directory ``run``) whose benchmark
    files it holds, against their predictions and the profile's limits: predicted and measured
    CPU hours, the spread of measured / predicted per job, the longest job's wall time against
    its ``runtime`` and the largest resident set against ``mem_mb``."""
    rows, measured = [], Measurements({"run": run})
    for job in costs.dropna(subset=["benchmark"]).to_dict("records"):
        path = job["benchmark"].removeprefix("benchmarks/")
        if not (run / "benchmarks" / path).is_file():
            continue
        row = measured.row("run", path)
        rows.append({"rule": job["rule"], "predicted_s": job["seconds"],
                     "measured_s": row["cpu_s"], "wall_s": row["s"],
                     "runtime_s": 60 * job["profile_runtime_min"], "rss_mb": row["max_rss_mb"],
                     "mem_mb": job["profile_mem_mb"]})
    if not rows:
        raise FileNotFoundError(f"no benchmark file of config/paper.yaml's jobs under {run}")
    jobs = pd.DataFrame(rows).assign(ratio=lambda d: d["measured_s"] / d["predicted_s"])
    return jobs.groupby("rule").agg(
        jobs=("ratio", "size"), predicted_h=("predicted_s", lambda x: x.sum() / 3600),
        measured_h=("measured_s", lambda x: x.sum() / 3600),
        ratio_median=("ratio", "median"), ratio_max=("ratio", "max"),
        longest_wall_s=("wall_s", "max"),
        over_runtime=("wall_s", lambda x: int((x > jobs.loc[x.index, "runtime_s"]).sum())),
        max_rss_mb=("rss_mb", "max"),
        over_mem=("rss_mb", lambda x: int((x > jobs.loc[x.index, "mem_mb"]).sum()))).reset_index()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paper", type=Path, required=True,
                        help="results_dir of the paper-size measuring runs (with their "
                        "resources_dir beside it, as DIR/../resources)")
    parser.add_argument("--reduced", type=Path, required=True,
                        help="results_dir of the reduced-size measuring runs")
    parser.add_argument("--profile", type=Path, default=PROFILE)
    parser.add_argument("--cores-per-node", type=int, default=32)
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--dry-runs", type=int, default=3,
                        help="Snakemake picks the members of each group afresh in every run, "
                        "so the schedule is computed for this many dry runs (min-max shown)")
    parser.add_argument("--check", type=Path,
                        help="results_dir of a real paper-size run: compare its jobs' measured "
                        "CPU time, wall time and memory with the predictions and the profile")
    args = parser.parse_args(argv)

    m = Measurements({"paper": args.paper, "reduced": args.reduced})
    node_rows = []
    for i in range(args.dry_runs):
        jobs, n_groups = parse_dry_run(dry_run(args.profile))
        costs = job_costs(jobs, m)
        units, duration, cores, deps = submissions(jobs, costs)
        node_rows.append(node_table(duration, cores, deps, args.nodes, args.cores_per_node)
                         .assign(dry_run=i))
    nodes = pd.concat(node_rows, ignore_index=True)
    rules, measurements = rule_table(costs), measurement_table(costs)

    OUT.mkdir(exist_ok=True)
    costs.to_csv(OUT / "cluster_walltime_jobs.csv", index=False)
    rules.to_csv(OUT / "cluster_walltime.csv", index=False)
    nodes.to_csv(OUT / "cluster_walltime_nodes.csv", index=False)
    summary = nodes.groupby(["nodes", "cores"], sort=False).agg(
        core_hours=("core_hours", "first"),
        lower_bound_h=("lower_bound_h", _range), list_schedule_h=("list_schedule_h", _range),
        critical_path_h=("critical_path_h", _range)).reset_index()
    estimators = int(costs["rule"].isin(ESTIMATOR_RULES).sum())
    submitted = len(units) - sum(1 for job in jobs if job.rule == "all")  # `all` runs nothing
    text = "\n\n".join([
        "# Predicted wall time of config/paper.yaml on a SLURM cluster",
        f"{len(jobs)} jobs ({estimators} estimator jobs) in {submitted} submissions "
        f"({n_groups} of them groups); {rules['core_hours'].sum():.1f} "
        f"core-hours.  Costs: CPU seconds of the benchmark files of {args.paper} and "
        f"{args.reduced} times work ratios (the script's docstring); hours as min-max over "
        f"{args.dry_runs} dry runs (group membership differs between runs).",
        f"## Wall time on N nodes of {args.cores_per_node} cores",
        summary.to_markdown(index=False, floatfmt=".1f"),
        "## Per rule",
        rules.to_markdown(index=False, floatfmt=".1f"),
        "## Measurements",
        measurements.to_markdown(index=False, floatfmt=".1f"),
    ])
    if args.check:
        check = check_run(costs, args.check)
        check.to_csv(OUT / "cluster_walltime_check.csv", index=False)
        text += "\n\n" + "\n\n".join([
            f"## Predictions against the run in {args.check}",
            "Per rule, the jobs found in that run: CPU hours predicted and measured, measured / "
            "predicted per job (median, max), the longest wall time, the jobs whose wall time "
            "exceeded the profile's runtime or whose peak memory exceeded its mem_mb.",
            check.to_markdown(index=False, floatfmt=".2f")])
    write_text_atomic(OUT / "cluster_walltime.md", text + "\n")
    print(text)
    return 0


def _range(values: pd.Series) -> str:
    lo, hi = values.min(), values.max()
    return f"{lo:.2f}" if round(lo, 2) == round(hi, 2) else f"{lo:.2f}-{hi:.2f}"


if __name__ == "__main__":
    sys.exit(main())
