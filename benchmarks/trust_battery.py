"""The diagnostics' exact-answer battery as a table (issue 31; docs/trust.md#the-battery).

    python benchmarks/trust_battery.py [--seeds 11 12 ...] [--out benchmarks/out/trust_battery]
        [--uncertified] [--logistic-normal]

Runs ``tests/trust_battery.py`` on the problems of ``--seeds`` and writes one row per estimate
(``.csv``) and, per class of estimate (bad: off by more than 4 standard errors + 0.1 nats; good:
within 2 standard errors), how many the diagnostics flag, by family and method (``.md``).  The
thresholds of ``topiceval.diagnostics`` were fixed (and recalibrated, and the L2R factor rule
chosen) on the calibration seeds 101 and 102, the floor's interval form on seeds 1001-1040,
before the test's seeds 11-30 were run, certified estimates before seeds 31-50 and the tighter
ceiling before seeds 51-70 (``TEST_SEEDS``; docs/trust.md#the-battery).  Without ``--seeds``,
the three sets.
``--uncertified`` judges the same estimates as if certified estimates (an estimate within 0.1
nats of both the floor and the ceiling is trusted) were not part of the rule: what they take
back (docs/trust.md, "Certified estimates").
``--logistic-normal`` runs that family's battery instead
(``tests/trust_battery_logistic_normal.py``; without ``--seeds``, the fresh seeds of its
cross-check's protocol, ``CROSSCHECK_SEEDS``; default
``--out`` benchmarks/out/trust_battery_logistic_normal; docs/trust.md, "The logistic-normal
family").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from topiceval import diagnostics

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import trust_battery_logistic_normal as logistic_normal  # noqa: E402
from trust_battery import TEST_SEEDS, battery  # noqa: E402


def flag_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """Per family, method and class: estimates, flagged, share flagged."""
    out = (frame.assign(flagged=~frame["trusted"])
           .groupby(["family", "method", "class"])["flagged"].agg(["size", "sum"])
           .rename(columns={"size": "estimates", "sum": "flagged"}).reset_index())
    out["share"] = out["flagged"] / out["estimates"]
    return out


def judge_uncertified() -> None:
    """From now on, ``diagnostics.trust`` judges every estimate as if none were certified (no
    error bound from the floor and the ceiling): the rule without certified estimates."""
    rule = diagnostics.trust

    def uncertified(kind, rows, *args, **kwargs):
        rows.error_bound = np.full(rows.khat.shape, np.nan)
        return rule(kind, rows, *args, **kwargs)

    diagnostics.trust = uncertified


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+")
    parser.add_argument("--out")
    parser.add_argument("--uncertified", action="store_true",
                        help="judge as if no estimate were certified by the floor and ceiling")
    parser.add_argument("--logistic-normal", action="store_true",
                        help="the logistic-normal family's battery (default: LDA and GaP-FA's)")
    args = parser.parse_args(argv)
    if args.uncertified:
        judge_uncertified()
    if args.seeds is None:
        args.seeds = (list(logistic_normal.CROSSCHECK_SEEDS) if args.logistic_normal
                      else [seed for seeds in TEST_SEEDS.values() for seed in seeds])
    frame = (logistic_normal.battery if args.logistic_normal else battery)(args.seeds)
    out = Path(args.out or HERE / "out" / ("trust_battery_logistic_normal"
                                           if args.logistic_normal else "trust_battery"))
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
