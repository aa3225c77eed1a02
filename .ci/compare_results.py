"""Compare two results directories produced from the same config (local run vs SLURM run).

Every output file under the first directory must exist in the second, and hold the same content:

* ``.npz`` archives array by array (zip member timestamps differ between runs);
* files under a ``timings/`` directory hold wall-clock measurements next to deterministic work
  counts: CSVs are compared on every column except the timing ones (``TIMING``: seconds,
  nanoseconds or hours of this machine, and the thread count the run happened to use), captions
  only for existence, and so are the report's pages of those tables (``report/timings/``);
* everything else (estimate tables, captions, figures, corpora) byte for byte, so estimates must
  be bit-identical.

Logs, Snakemake benchmark files, hidden files (caches) and results/README.md are not outputs.
Exits 1 with a list of differences.
"""

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

SKIP = {"logs", "benchmarks"}
TIMING = re.compile(r"second|^ns_|_ns_|hours|^threads$")


def outputs(root: Path) -> set[Path]:
    return {
        p.relative_to(root)
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).parts[0] not in SKIP and p.name != "README.md"
        and not p.name.startswith(".")  # caches (a study's .checked stamp), not outputs
    }


def same_npz(a: Path, b: Path) -> bool:
    with np.load(a, allow_pickle=False) as x, np.load(b, allow_pickle=False) as y:
        return sorted(x.files) == sorted(y.files) and all(
            x[k].dtype == y[k].dtype and np.array_equal(x[k], y[k]) for k in x.files
        )


def same_timing_csv(a: Path, b: Path) -> bool:
    x, y = pd.read_csv(a), pd.read_csv(b)
    if list(x.columns) != list(y.columns) or len(x) != len(y):
        return False
    keep = [c for c in x.columns if not TIMING.search(c)]
    return x[keep].equals(y[keep])


def same(rel: Path, a: Path, b: Path) -> bool:
    if rel.suffix == ".npz":
        return same_npz(a, b)
    if "timings" in rel.parts[:-1]:  # results/timings/, and a study's studies/NAME/timings/
        return same_timing_csv(a, b) if rel.suffix == ".csv" else True
    if rel.parts[:2] == ("report", "timings"):  # the page of a timing table compared above
        return True
    return a.read_bytes() == b.read_bytes()


def main(first: str, second: str) -> int:
    a_root, b_root = Path(first), Path(second)
    a_files, b_files = outputs(a_root), outputs(b_root)
    problems = [f"missing in {b_root}: {p}" for p in sorted(a_files - b_files)]
    problems += [f"missing in {a_root}: {p}" for p in sorted(b_files - a_files)]
    common = sorted(a_files & b_files)
    problems += [f"differs: {rel}" for rel in common if not same(rel, a_root / rel, b_root / rel)]
    exact = sum(1 for rel in common if "timings" not in rel.parts[:2])
    print(f"compared {len(common)} output files ({exact} byte for byte or array by array, "
          f"{len(common) - exact} timing files without their timing columns): "
          f"{len(problems)} problem(s)")
    for line in problems:
        print("  " + line)
    return 1 if problems or not a_files else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
