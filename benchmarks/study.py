"""What a study costs: CPU time per candidate and per 1,000 held-out documents, measured.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/study.py \\
        [--study results/studies/ap-example] [--docs 200] [--train-scale 0.1]

From a finished study (``config/study-example.yaml``: its corpus and its trained models) it
measures, with ``time.process_time`` on one numba thread and one BLAS thread, kernels compiled
before the timed calls:

* **estimating**: every candidate's default estimate (``topiceval.evaluation.DEFAULTS``, its
  runs) of the first ``--docs`` scored held-out documents, as the study's estimate job runs it;
  reported as CPU seconds per 1,000 documents (at the held-out set's mean length) and as CPU
  nanoseconds per predicted site update (``topiceval.estimators.lda.check_limits``), the unit a
  study prices its SLURM jobs in (``topiceval.experiments.study.ESTIMATE_NS``);
* **training**: each trainer of the study at each of its numbers of topics on the study's
  training documents, at ``--train-scale`` of the study's effort (sweeps, iterations, passes;
  the cost is linear in it), reported as CPU seconds per candidate at full effort, per 1,000
  training documents, and as nanoseconds per token x effort x topic
  (``topiceval.experiments.study.TRAIN_NS``).

Then the scaling statement of the README: a study of 10 candidates (the example's mix of
libraries at T = 50, its most expensive number of topics) scoring 100,000 held-out documents of
the example's length, and training on 100,000 documents, per core and on a 32-core node (the
jobs are independent: parts of the scored documents per candidate, ``estimate.parts``).

Outputs (git-ignored): ``benchmarks/out/study.md``, ``benchmarks/out/study.csv`` and
``benchmarks/out/study_run.txt`` (how and where it was measured); ``--analyse-only`` rebuilds
the page from them.  Run it
alone if you can: CPU time is robust to other jobs on the machine, not to memory-bandwidth
contention, so the largest rates are taken as the prices.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported

import argparse  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from topiceval.corpus import Corpus  # noqa: E402
from topiceval.estimators import lda  # noqa: E402
from topiceval.experiments import study as S  # noqa: E402
from topiceval.io import write_text_atomic  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
ROOT = Path(__file__).resolve().parents[1]
TARGET_DOCS = 100_000
TARGET_CANDIDATES = 10
NODE_CORES = 32


def machine() -> str:
    """The CPU model (lscpu), cores and the load when the measurement started."""
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        model = next(line.split(":", 1)[1].strip() for line in lscpu.splitlines()
                     if line.startswith("Model name"))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        model = platform.processor() or platform.machine()
    return (f"{model}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the "
            "start")


def estimate_rows(study: Path, plan: S.StudyPlan, n_docs: int) -> pd.DataFrame:
    """CPU seconds of each candidate's default estimate of the first ``n_docs`` scored
    documents, with their predicted work."""
    corpus_path = study / "corpus.npz"
    rows = []
    warm = set()
    for c in plan.candidates:
        docs, scored, model = S._scored(corpus_path, study / "candidates" / c.name / "model.npz",
                                        plan.sample)
        docs = docs.subset(np.arange(min(n_docs, docs.n_docs)))
        work, _ = S.estimate_work(docs, model, plan.estimate)
        parts, runs = S.estimate_parts(plan.estimate, docs.lengths)
        for part in parts:  # compile (or load) the kernels outside the timed calls
            if part.method not in warm:
                lda.estimate_runs(part.method, [docs[0][:2]], model.phi, model.alpha_m, runs=1,
                                  work_limit=None, **part.settings)
                warm.add(part.method)
        start = time.process_time()
        for part in parts:  # each document by its method, as the study's jobs score it
            lda.estimate_runs(part.method, [docs[int(d)] for d in part.docs], model.phi,
                              model.alpha_m, runs=runs, seed=0, work_limit=None,
                              **part.settings)
        cpu = time.process_time() - start
        rows.append({"what": "estimate", "candidate": c.name, "trainer": c.trainer,
                     "topics": model.n_topics, "documents": docs.n_docs,
                     "tokens": docs.n_tokens, "cpu_s": cpu,
                     "cpu_s_per_1000_docs": cpu / docs.n_docs * 1000,
                     "work": float(work.sum()) * runs,
                     "ns_per_unit": cpu / (float(work.sum()) * runs) * 1e9})
        print(f"estimate {c.name}: {cpu:.1f} CPU s for {docs.n_docs} documents "
              f"({rows[-1]['ns_per_unit']:.1f} ns per site update)", flush=True)
    return pd.DataFrame(rows)


def train_rows(study: Path, plan: S.StudyPlan, scale: float) -> pd.DataFrame:
    """CPU seconds of training each trainer x T at ``scale`` of the study's effort."""
    corpus = Corpus.load(study / "corpus.npz")
    train = corpus.select_split("train")
    topics = sorted({c.topics for c in plan.trained})
    rows = []
    for trainer in dict.fromkeys(c.trainer for c in plan.trained):
        full = plan.train[trainer]
        effort = S.TRAIN_EFFORT[trainer]
        settings = {**full, effort: max(1, int(round(full[effort] * scale)))}
        for t in topics:
            with threadpool_limits(limits=1):
                start = time.process_time()
                S.train_candidate(train, trainer, t, 0, settings)
                cpu = time.process_time() - start
            units = train.n_tokens * settings[effort]
            full_cpu = cpu * full[effort] / settings[effort]
            rows.append({"what": "train", "candidate": f"{trainer}-T{t}", "trainer": trainer,
                         "topics": t, "documents": train.n_docs, "tokens": train.n_tokens,
                         "cpu_s": full_cpu, "cpu_s_per_1000_docs": full_cpu / train.n_docs * 1000,
                         "work": units * full[effort] / settings[effort],
                         "ns_per_unit": cpu / (train.n_tokens * settings[effort]) * 1e9,
                         "effort": f"{effort}={settings[effort]} of {full[effort]}"})
            print(f"train {trainer} T={t}: {cpu:.1f} CPU s at {settings[effort]} {effort} "
                  f"-> {full_cpu:.1f} s at {full[effort]} ({rows[-1]['ns_per_unit']:.2f} ns "
                  "per token x effort)", flush=True)
    return pd.DataFrame(rows)


def scaling(est: pd.DataFrame, trn: pd.DataFrame) -> list[str]:
    """The README's statement: 10 candidates at the largest T, 100,000 documents."""
    top = est["topics"].max()
    at_top = est[est["topics"] == top]
    per_doc = at_top["cpu_s_per_1000_docs"].mean() / 1000
    score_h = TARGET_CANDIDATES * TARGET_DOCS * per_doc / 3600
    tr_top = trn[trn["topics"] == top]
    train_h = TARGET_CANDIDATES * tr_top["cpu_s_per_1000_docs"].mean() / 1000 * TARGET_DOCS / 3600
    worst = TARGET_CANDIDATES * tr_top["cpu_s_per_1000_docs"].max() / 1000 * TARGET_DOCS / 3600
    total = score_h + train_h
    longest = tr_top["cpu_s_per_1000_docs"].max() * TARGET_DOCS / 1000 / 3600
    node_h = max(total / NODE_CORES, longest)
    mean_len = est["tokens"].sum() / est["documents"].sum()
    return [
        f"* Scoring: {at_top['cpu_s_per_1000_docs'].mean():,.0f} CPU s per 1,000 held-out "
        f"documents per candidate at T = {top} (mean over its {len(at_top)} candidates; "
        f"{est['cpu_s_per_1000_docs'].min():,.0f}-{est['cpu_s_per_1000_docs'].max():,.0f} "
        f"over all), documents of {mean_len:.0f} tokens: {TARGET_CANDIDATES} candidates x "
        f"{TARGET_DOCS:,} documents = {score_h:,.1f} CPU-hours.",
        f"* Training {TARGET_CANDIDATES} candidates at T = {top} on {TARGET_DOCS:,} documents "
        f"of AP's length (the study's efforts): {train_h:,.1f} CPU-hours for the example's mix "
        f"of libraries ({worst:,.1f} if all were the slowest, "
        f"{tr_top.loc[tr_top['cpu_s_per_1000_docs'].idxmax(), 'trainer']}).",
        f"* Together {total:,.1f} CPU-hours: about {total:,.0f} hours on one core; on a "
        f"{NODE_CORES}-core node about {node_h * 60:,.0f} minutes, the larger of "
        f"{total / NODE_CORES * 60:,.0f} minutes of work per core (the scoring parts spread "
        f"over the cores) and the slowest single training job ({longest * 60:,.0f} minutes).",
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", type=Path, default=ROOT / "results" / "studies" / "ap-example")
    parser.add_argument("--config", type=Path, default=ROOT / "config" / "study-example.yaml")
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--train-scale", type=float, default=0.1)
    parser.add_argument("--mirror", default=os.environ.get("TOPICEVAL_DATA_MIRROR"))
    parser.add_argument("--analyse-only", action="store_true",
                        help="rebuild study.md from an earlier run's study.csv")
    args = parser.parse_args(argv)
    import yaml

    cpu0, wall0 = time.process_time(), time.time()
    if args.analyse_only:
        frame = pd.read_csv(OUT / "study.csv")
        measured = (OUT / "study_run.txt").read_text().strip()
    else:
        where = machine()
        plan = S.study_plan(yaml.safe_load(args.config.read_text())["study"],
                            mirror=args.mirror)
        frame = pd.concat([estimate_rows(args.study, plan, args.docs),
                           train_rows(args.study, plan, args.train_scale)], ignore_index=True)
        OUT.mkdir(parents=True, exist_ok=True)
        frame.to_csv(OUT / "study.csv", index=False)
        measured = (f"`{' '.join(['benchmarks/study.py', *(argv or sys.argv[1:])])}`, "
                    f"{time.strftime('%Y-%m-%d %H:%M')}, {where}; "
                    f"{(time.process_time() - cpu0) / 60:.1f} CPU minutes "
                    f"({(time.time() - wall0) / 60:.1f} wall), one numba and BLAS thread.")
        write_text_atomic(OUT / "study_run.txt", measured + "\n")
    est, trn = frame[frame["what"] == "estimate"], frame[frame["what"] == "train"]
    top = trn["topics"].max()
    rates = trn[trn["topics"] == top].groupby("trainer")["ns_per_unit"].max()
    est_rate = est.loc[est["topics"] == est["topics"].max(), "ns_per_unit"].max()
    lines = [
        "# What a study costs", "", measured, "",
        "## Scaling", "", *scaling(est, trn), "",
        "## Prices (topiceval.experiments.study)", "",
        f"* ESTIMATE_NS: {est_rate:.1f} ns per predicted site update, the largest at "
        f"T = {est['topics'].max()} (median over all {est['ns_per_unit'].median():.1f}; the "
        "rate grows with T, so a job's price scales by T / PRICED_TOPICS beyond it).",
        "* TRAIN_NS: " + ", ".join(f"{k} {v:,.0f}" for k, v in rates.items())
        + f" ns per training token x effort (sweep, iteration or pass) at T = {top}, the "
        "largest measured.", "",
        "## Every measurement", "", frame.to_markdown(index=False, floatfmt=".3g"), ""]
    write_text_atomic(OUT / "study.md", "\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
