"""Bridge-theta's runs and budget on the real-length battery's calibration part (issue 44).

Which split of a fixed budget between runs and chain length gives bridge-theta an error bar
that holds?  Each variant scores the calibration part's 72 documents through
``topiceval.evaluate`` (seed ``long_battery.ESTIMATE_SEED``) and is judged by
``long_battery.judge`` against the part's committed truth:

    b4    4 runs of samples=200, draws=1000 (the battery's bridge-theta until the second fresh
          part)
    b8    8 runs of the same (twice the cost)
    b8h   8 runs of samples=100, draws=500 (about b4's cost; the defaults since)
    b8hb  b8h with burnin=100
    b16q  16 runs of samples=50, draws=250 (about b4's cost)

Run (about 40 CPU minutes; results in benchmarks/long_battery/calibration/bridge_variants.csv and
bridge_variants.md):

    python benchmarks/long_battery_bridge.py --mirror ../shared/data
    python benchmarks/long_battery_bridge.py --analyse-only
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import long_battery as lb
import pandas as pd

import topiceval
from topiceval.corpus import Corpus

VARIANTS = {
    "b4": {"runs": 4, "samples": 200, "draws": 1000},
    "b8": {"runs": 8, "samples": 200, "draws": 1000},
    "b8h": {"runs": 8, "samples": 100, "draws": 500},
    "b8hb": {"runs": 8, "samples": 100, "draws": 500, "burnin": 100},
    "b16q": {"runs": 16, "samples": 50, "draws": 250},
}
OUT = lb.HERE / "long_battery" / "calibration"


def variant_rows(truth: pd.DataFrame, mirror: Path) -> pd.DataFrame:
    rows = []
    for (name, length, seed), cell in truth.groupby(["model", "length", "seed"], sort=False):
        model = lb.model_of(name, mirror)
        docs, _ = lb.documents(model, name, int(length), int(seed))
        for variant, spec in VARIANTS.items():
            settings = dict(spec)
            runs = settings.pop("runs")
            start = time.process_time()
            result = topiceval.evaluate(model, Corpus.from_documents(docs, model), "bridge_theta",
                                        runs=runs, seed=lb.ESTIMATE_SEED, progress=False,
                                        work_limit=None, **settings)
            cpu = (time.process_time() - start) / len(docs)
            for i, row in enumerate(cell.itertuples()):
                rows.append(dict(model=name, T=row.T, length=length, seed=seed, doc=row.doc,
                                 estimator=variant, estimate=result.logp[i],
                                 se=result.stderr[i], trusted=bool(result.trusted[i]),
                                 reason=result.diagnostics["reason"].iloc[i], cpu=cpu))
        lb.log(f"variants {name} N={length} seed {seed}")
    return pd.DataFrame(rows)


def table(judged: pd.DataFrame) -> str:
    by_t = judged.groupby(["estimator", "T"]).agg(
        docs=("covered", "size"), coverage=("covered", "mean"),
        median_abs_error=("error", lambda e: e.abs().median()), bad=("bad", "sum"),
        cpu=("cpu", "mean"))
    overall = judged.groupby("estimator").agg(coverage=("covered", "mean"), cpu=("cpu", "mean"))
    return "\n\n".join(["# Bridge-theta: runs against chain length (calibration part)",
                        by_t.round(3).to_markdown(), overall.round(3).to_markdown(), ""])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=lb.HERE.parent.parent / "shared" / "data")
    parser.add_argument("--analyse-only", action="store_true")
    args = parser.parse_args(argv)
    truth = lb.pin(pd.read_csv(OUT / "truth.csv"))
    path = OUT / "bridge_variants.csv"
    est = pd.read_csv(path) if args.analyse_only else variant_rows(truth, args.mirror)
    if not args.analyse_only:
        est.to_csv(path, index=False)
    text = table(lb.judge(est, truth))
    (OUT / "bridge_variants.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
