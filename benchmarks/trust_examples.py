"""The examples of issue 31 reproduced with the current code, and what the diagnostics say.

    python benchmarks/trust_examples.py [--out benchmarks/out/trust_examples]

Each example is a tiny problem with an exact answer (``tests/trust_battery.py`` builds it), an
estimate as a user gets it, its error against the exact value, its standard error, and the
diagnostics' row (docs/trust.md shows this table).  Writes ``.csv`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from trust_battery import examples  # noqa: E402

COLUMNS = ["example", "doc", "error", "stderr", "khat", "ess", "rhat", "runs_spread", "repeats",
           "trusted", "reason"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "out" / "trust_examples"))
    args = parser.parse_args(argv)
    frame = examples()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out.with_suffix(".csv"), index=False)
    text = frame[COLUMNS].to_markdown(index=False, floatfmt=".3g")
    out.with_suffix(".md").write_text(text + "\n")
    with pd.option_context("display.width", 250, "display.max_colwidth", 80):
        print(frame[COLUMNS].to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
