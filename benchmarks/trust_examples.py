"""The examples of issue 31 reproduced with the current code, and what the diagnostics say.

    python benchmarks/trust_examples.py [--out benchmarks/out/trust_examples] [--seeds 40]

Each example is a tiny problem with an exact answer (``tests/trust_battery.py`` builds it), an
estimate as a user gets it, its error against the exact value, its standard error, and the
diagnostics' row (docs/trust.md shows this table).  Writes ``.csv`` and ``.md``.  Then GaP-FA's
default (AIS) on the issue's repeated word over ``--seeds`` seeds of its runs (seeds 0..N-1),
at its budget and at 3, 4 and 16 times it as more temperatures or more runs: the median and
largest error, and how many estimates are bad, and of them unflagged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from trust_battery import (  # noqa: E402
    EXAMPLE_SEED,
    GAPFA_MODELS,
    classify,
    combine_runs,
    examples,
    gapfa,
    gapfa_problem,
)

COLUMNS = ["example", "doc", "error", "stderr", "khat", "ess", "rhat", "runs_spread", "repeats",
           "trusted", "reason"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "out" / "trust_examples"))
    parser.add_argument("--seeds", type=int, default=40,
                        help="seeds of GaP-FA's default on the repeated word (0: none)")
    args = parser.parse_args(argv)
    frame = examples()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out.with_suffix(".csv"), index=False)
    text = frame[COLUMNS].to_markdown(index=False, floatfmt=".3g")
    out.with_suffix(".md").write_text(text + "\n")
    with pd.option_context("display.width", 250, "display.max_colwidth", 80):
        print(frame[COLUMNS].to_string())
    if args.seeds:
        print(default_over_seeds(args.seeds).to_string())
    return 0


# (runs, temperatures) of AIS on the repeated word: the default, then 3, 4 and 16 times its work
# as more temperatures or more runs
BUDGETS = ((4, 1000), (4, 3000), (4, 4000), (16, 1000), (4, 16000), (64, 1000))


def default_over_seeds(n_seeds: int) -> pd.DataFrame:
    """GaP-FA's AIS on the issue's repeated word (the example's problem, ordinary model) over
    seeds 0..n_seeds-1 at each of ``BUDGETS``: the median and largest error, and the bad
    estimates, flagged or not."""
    phi, counts, _ = gapfa_problem(EXAMPLE_SEED)
    p, r = GAPFA_MODELS["ordinary"]
    exact = gapfa.estimate("exact", counts[4:], phi, p, r)[0]
    rows = []
    for runs, temperatures in BUDGETS:
        for seed in range(n_seeds):
            res = gapfa.estimate_runs("ais", counts[4:], phi, p, r, runs=runs, seed=seed,
                                      temperatures=temperatures)
            logp, se = combine_runs(res.logp)
            rows.append({"runs": runs, "temperatures": temperatures, "error": logp[0] - exact,
                         "stderr": se[0], "trusted": bool(res.diagnostics["trusted"].iloc[0])})
    frame = pd.DataFrame(rows)
    frame["bad"] = classify(frame["error"].to_numpy(), frame["stderr"].to_numpy()) == "bad"
    frame["bad_unflagged"] = frame["bad"] & frame["trusted"]
    frame["abs_error"] = frame["error"].abs()
    return frame.groupby(["runs", "temperatures"], sort=False).agg(
        median_error=("error", "median"), largest_error=("abs_error", "max"), bad=("bad", "sum"),
        bad_unflagged=("bad_unflagged", "sum"))


if __name__ == "__main__":
    raise SystemExit(main())
