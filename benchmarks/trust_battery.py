"""The diagnostics' exact-answer battery as a table (issue 31; docs/trust.md#the-battery).

    python benchmarks/trust_battery.py [--seeds 11 12 ...] [--out benchmarks/out/trust_battery]

Runs ``tests/trust_battery.py`` on the problems of ``--seeds`` and writes one row per estimate
(``.csv``) and, per class of estimate (bad: off by more than 4 standard errors + 0.1 nats; good:
within 2 standard errors), how many the diagnostics flag, by family and method (``.md``).  The
thresholds of ``topiceval.diagnostics`` were fixed (and recalibrated, and the L2R factor rule
chosen) on the calibration seeds 101 and 102, the floor's interval form on seeds 1001-1040,
before the test's seeds (``TEST_SEEDS``, 11-30) were run (docs/trust.md#the-battery).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from trust_battery import TEST_SEEDS, battery  # noqa: E402


def flag_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """Per family, method and class: estimates, flagged, share flagged."""
    out = (frame.assign(flagged=~frame["trusted"])
           .groupby(["family", "method", "class"])["flagged"].agg(["size", "sum"])
           .rename(columns={"size": "estimates", "sum": "flagged"}).reset_index())
    out["share"] = out["flagged"] / out["estimates"]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(TEST_SEEDS))
    parser.add_argument("--out", default=str(HERE / "out" / "trust_battery"))
    args = parser.parse_args(argv)
    frame = battery(args.seeds)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out.with_suffix(".csv"), index=False)
    rates = flag_rates(frame)
    totals = frame.assign(flagged=~frame["trusted"]).groupby("class")["flagged"].agg(
        ["size", "sum"])
    text = (f"seeds {args.seeds}: {len(frame)} estimates\n\n{totals.to_markdown()}\n\n"
            f"{rates.to_markdown(index=False, floatfmt='.2f')}\n")
    out.with_suffix(".md").write_text(text)
    print(text)
    missed = frame[(frame["class"] == "bad") & frame["trusted"]]
    if len(missed):
        print("bad estimates not flagged:")
        with pd.option_context("display.width", 250):
            print(missed.drop(columns=["exact"]).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
