"""config/paper.yaml's 004-F3 parts (``capdevila2018.realistic.parts``) priced at a rate: what the
comment above ``parts`` states.

    .venv/bin/python benchmarks/f3_parts.py RUN/results [--long-ns 2.1] [--limit 12]

RUN/results: a results directory holding the ``capdevila2018`` corpora of every 004-F3
collection (``benchmarks/f3_rates.py``'s run builds them).  Every (collection, method) of 004-F3
is cut into its configured K parts as the workflow cuts it (``capdevila2018.loglik_work`` at
config/paper.yaml's settings, ``tasks.work_blocks``) and priced at CPU ns per unit of predicted
work: ``--long-ns`` for every method on the long-document collections, ``f3_rates.TABLE_RATES``'
short-text rates (measured at paper size on Tweet) on Tweet and SearchSnippets.  Per (collection,
method): K, the least K for which every part of several documents is predicted at most
``--limit`` minutes, the empty parts (a document of more than 1 / K of the work takes a part
alone and can leave the next one empty), the largest part of several documents, and the single
documents predicted above 15 minutes.  Writes ``benchmarks/out/f3_parts.md``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
from cluster_walltime import OUT, Measurements, paper_config
from f3_rates import SHORT_TEXTS, TABLE_RATES

from topiceval.experiments import capdevila2018 as C4
from topiceval.experiments.tasks import work_blocks
from topiceval.io import write_text_atomic

ALONE_MINUTES = 15.0  # single documents above this are listed


def part_minutes(minutes: pd.Series, parts: int) -> list[tuple[int, float]]:
    """(documents, minutes) of each of ``parts`` parts of documents of ``minutes`` each."""
    return [(stop - start, float(minutes[start:stop].sum()))
            for start, stop in work_blocks(minutes.to_numpy(), parts)]


def largest_shared(parts: list[tuple[int, float]]) -> float:
    """The minutes of the largest part of several documents (0 if none)."""
    return max((m for n, m in parts if n > 1), default=0.0)


def parts_table(results: Path, long_ns: float, limit: float) -> pd.DataFrame:
    m = Measurements({"paper": results})
    realistic = paper_config()["capdevila2018"]["realistic"]
    rows = []
    for dataset in realistic["collections"]:
        for method in realistic["methods"]:
            rate = TABLE_RATES["short"][method] if dataset in SHORT_TEXTS else long_ns
            minutes = pd.Series(m.f3_work(dataset, method, None) * rate * 1e-9 / 60)
            k = C4.f3_parts(realistic["parts"], method, dataset)
            parts = part_minutes(minutes, k)
            least = next(n for n in range(1, len(minutes) + 1)
                         if largest_shared(part_minutes(minutes, n)) <= limit)
            alone = sorted(round(v, 1) for v in minutes if v > ALONE_MINUTES)
            rows.append({"collection": dataset, "method": method, "K": k, "least K": least,
                         "empty parts": sum(n == 0 for n, _ in parts),
                         "largest part of several documents (min)": largest_shared(parts),
                         "all parts (min)": float(minutes.sum()),
                         f"documents over {ALONE_MINUTES:g} min": ", ".join(map(str, alone))})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="results_dir holding the capdevila2018 corpora")
    parser.add_argument("--long-ns", type=float, default=2.1,
                        help="CPU ns per unit of predicted work on long documents (default 2.1)")
    parser.add_argument("--limit", type=float, default=12.0,
                        help="minutes a part of several documents may take (default 12)")
    args = parser.parse_args(argv)
    table = parts_table(args.results, args.long_ns, args.limit)
    jobs = int(table["K"].sum())
    text = "\n\n".join([
        "# config/paper.yaml's 004-F3 parts",
        f"Long documents at {args.long_ns:g} ns per unit of predicted work, short texts at "
        f"{TABLE_RATES['short']}; least K: every part of several documents at most "
        f"{args.limit:g} minutes.",
        table.to_markdown(index=False, floatfmt=".1f"),
        f"{jobs} jobs ({jobs - int(table['empty parts'].sum())} with documents).",
    ])
    OUT.mkdir(exist_ok=True)
    write_text_atomic(OUT / "f3_parts.md", text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
