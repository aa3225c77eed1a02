"""CPU time per unit of predicted work of real config/paper.yaml 004-F3 jobs, and what
config/paper.yaml costs when each long-document collection's L2R is priced at its own rate.

    .venv/bin/python benchmarks/f3_rates.py RUN/results

RUN/results: the results directory of a run of config/paper.yaml that computed some
``capdevila2018_loglik`` parts (``capdevila2018/f3/{dataset}/{method}/part{i}of{K}.csv``) and
built the ``capdevila2018`` corpora of every 004-F3 collection, for example (one core)::

    NUMBA_NUM_THREADS=1 snakemake --cores 1 --configfile config/paper.yaml --config \\
        data_mirror=DATA results_dir=RUN/results resources_dir=RUN/resources -- \\
        RUN/results/capdevila2018/f3/ap/l2r/part0of32.csv ... \\
        RUN/results/corpora/{nips,ap,20newsgroups,reuters21578,tweet,searchsnippets}/capdevila2018.npz

1. Per part: its documents and predicted work (``capdevila2018.loglik_work`` cut as the job cuts
   it, ``cluster_walltime.Measurements.f3_part_work``), the CPU seconds of its ``benchmark:`` file
   (extrapolated to the end of the job, ``cluster_walltime.last_sample``) and CPU ns per unit.
2. ``capdevila2018_loglik``'s core-hours: every (collection, method)'s predicted work times a
   rate.  On the cluster table's basis (the rows docs/cluster.md had until its 2026-11-28
   re-measurement, measured on 2026-11-23 on an AMD EPYC VM): the table's rates
   (``TABLE_RATES``) with AP's and Reuters' L2R divided by the issue-34 speed-up on AP
   (``AP_SPEEDUP``), and every other long-document collection's L2R at that rate times its own
   measured rate over AP's (the machine cancels in the ratio), scaled as the table is
   (``TABLE_LOGLIK_HOURS`` over the same sum at the table's rates).  Directly: long-document
   L2R at this run's measured rates (Reuters at AP's), the rest on the table's basis.  Plus the
   table's other rules (``TABLE_OTHER_HOURS``) for config/paper.yaml's total.

Writes ``benchmarks/out/paper_f3_rates.csv`` (per part) and ``paper_f3_rates.md``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd
from cluster_walltime import C4_VARIANTS, OUT, Measurements, paper_config

from topiceval.experiments.tasks import work_blocks
from topiceval.io import write_text_atomic

# docs/cluster.md's table of 2026-11-23 (AMD EPYC; replaced on 2026-11-28 by a re-measurement
# with the current code): CPU ns per unit of predicted work
TABLE_RATES = {"long": {"l2r": 1.84, "ds": 1.7, "hm": 1.2},
               "short": {"l2r": 15.3, "ds": 11.7, "hm": 7.7}}  # Tweet, SearchSnippets
SHORT_TEXTS = ("tweet", "searchsnippets")
AP_SPEEDUP = 2.28  # issue-34 L2R against the issue-18 code, AP-length documents (README)
TABLE_LOGLIK_HOURS = 48.3  # the table's capdevila2018_loglik row
TABLE_OTHER_HOURS = 11.77  # the table's other rows (config/paper.yaml: 60.07 in all)
_PART = re.compile(r"capdevila2018/f3/(?P<dataset>[^/]+)/(?P<method>[^/]+)/"
                   r"part(?P<part>\d+)of(?P<parts>\d+)\.tsv$")


def part_rates(results: Path) -> pd.DataFrame:
    """Every 004-F3 part benchmarked under ``results``: documents, predicted work, CPU and wall
    seconds, CPU ns per unit of predicted work."""
    m = Measurements({"paper": results})
    rows = []
    for file in sorted((results / "benchmarks" / "capdevila2018" / "f3").rglob("part*.tsv")):
        path = file.relative_to(results / "benchmarks").as_posix()
        wc = _PART.search(path).groupdict()
        part, parts = int(wc["part"]), int(wc["parts"])
        start, stop = work_blocks(m.f3_work(wc["dataset"], wc["method"], None), parts)[part]
        work = m.f3_part_work(wc["dataset"], wc["method"], part, parts)
        bench = m.row("paper", path)
        rows.append({"dataset": wc["dataset"], "method": wc["method"], "part": part,
                     "parts": parts, "documents": f"{start}-{stop - 1}", "n_documents":
                     stop - start, "work": work, "cpu_s": bench["cpu_s"], "wall_s": bench["s"],
                     "max_rss_mb": bench["max_rss_mb"], "ns_per_unit": bench["cpu_s"] / work * 1e9})
    if not rows:
        raise FileNotFoundError(f"no 004-F3 benchmark file under {results}/benchmarks")
    return pd.DataFrame(rows)


def collection_work(results: Path) -> pd.DataFrame:
    """Predicted work of every (collection, method) of config/paper.yaml's 004-F3."""
    m = Measurements({"paper": results})
    realistic = paper_config()["capdevila2018"]["realistic"]
    missing = [d for d in realistic["collections"]
               if not (results / "corpora" / d / f"{C4_VARIANTS['realistic']}.npz").is_file()]
    if missing:
        raise FileNotFoundError(f"corpora {missing} not under {results}/corpora: build them in "
                                "the run (the docstring's targets)")
    return pd.DataFrame([{"dataset": d, "method": meth, "work": m.f3_work(d, meth, None).sum()}
                         for d in realistic["collections"] for meth in realistic["methods"]])


def table_rate(dataset: str, method: str) -> float:
    return TABLE_RATES["short" if dataset in SHORT_TEXTS else "long"][method]


def predicted_hours(work: pd.DataFrame, rates: pd.Series) -> pd.DataFrame:
    """Core-hours of every (collection, method) on the table's basis and directly, the L2R of
    long-document collections at the measured ``rates`` (dataset -> ns, AP's required)."""
    ap_table = TABLE_RATES["long"]["l2r"] / AP_SPEEDUP
    scale = TABLE_LOGLIK_HOURS / (sum(w * table_rate(d, m) for d, m, w in
                                      work[["dataset", "method", "work"]].itertuples(False))
                                  * 1e-9 / 3600)
    rows = []
    for d, meth, w in work[["dataset", "method", "work"]].itertuples(index=False):
        measured = meth == "l2r" and d not in SHORT_TEXTS
        own = rates.get(d, rates["ap"])
        table = ap_table * own / rates["ap"] if measured else table_rate(d, meth)
        rows.append({"dataset": d, "method": meth, "work": w,
                     "ns_table_basis": table, "ns_here": own if measured else float("nan"),
                     "hours_table_basis": w * table * 1e-9 / 3600 * scale,
                     "hours_direct": w * (own * 1e-9 / 3600 if measured
                                          else table * 1e-9 / 3600 * scale)})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="results_dir of the run of config/paper.yaml")
    args = parser.parse_args(argv)

    parts = part_rates(args.results)
    l2r = parts[(parts["method"] == "l2r") & ~parts["dataset"].isin(SHORT_TEXTS)]
    rates = l2r.groupby("dataset")["cpu_s"].sum() / l2r.groupby("dataset")["work"].sum() * 1e9
    if "ap" not in rates:
        raise FileNotFoundError("no AP L2R part in the run: AP is the reference (part0of32)")
    hours = predicted_hours(collection_work(args.results), rates)
    totals = {basis: hours[f"hours_{basis}"].sum() for basis in ("table_basis", "direct")}

    OUT.mkdir(exist_ok=True)
    parts.to_csv(OUT / "paper_f3_rates.csv", index=False)
    text = "\n\n".join([
        "# 004-F3 at measured rates (config/paper.yaml)",
        f"Run: {args.results}.  Per part (CPU ns per unit of predicted work):",
        parts.to_markdown(index=False, floatfmt=".4g"),
        "Long-document L2R per collection (its parts' CPU seconds over their work): "
        + ", ".join(f"{d} {r:.3f} ns" for d, r in rates.items()) + ".",
        hours.to_markdown(index=False, floatfmt=".4g"),
        f"capdevila2018_loglik: {totals['table_basis']:.1f} core-hours on the table's basis, "
        f"{totals['direct']:.1f} directly; config/paper.yaml "
        f"{totals['table_basis'] + TABLE_OTHER_HOURS:.1f} and "
        f"{totals['direct'] + TABLE_OTHER_HOURS:.1f} (the table's other rules: "
        f"{TABLE_OTHER_HOURS} core-hours).",
    ])
    write_text_atomic(OUT / "paper_f3_rates.md", text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
