"""Compare two results directories produced from the same config (local run vs SLURM run).

Every output file under the first directory (logs and Snakemake benchmark files excepted, as
they hold timings) must exist in the second with the same content: .npz archives array by array
(zip member timestamps differ between runs), everything else byte for byte.  Exits 1 with a list
of differences.
"""

import sys
from pathlib import Path

import numpy as np

SKIP = {"logs", "benchmarks"}


def outputs(root: Path) -> set[Path]:
    return {
        p.relative_to(root)
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).parts[0] not in SKIP and p.name != "README.md"
    }


def same_npz(a: Path, b: Path) -> bool:
    with np.load(a, allow_pickle=False) as x, np.load(b, allow_pickle=False) as y:
        return sorted(x.files) == sorted(y.files) and all(
            x[k].dtype == y[k].dtype and np.array_equal(x[k], y[k]) for k in x.files
        )


def main(first: str, second: str) -> int:
    a_root, b_root = Path(first), Path(second)
    a_files, b_files = outputs(a_root), outputs(b_root)
    problems = [f"missing in {b_root}: {p}" for p in sorted(a_files - b_files)]
    problems += [f"missing in {a_root}: {p}" for p in sorted(b_files - a_files)]
    for rel in sorted(a_files & b_files):
        a, b = a_root / rel, b_root / rel
        equal = same_npz(a, b) if rel.suffix == ".npz" else a.read_bytes() == b.read_bytes()
        if not equal:
            problems.append(f"differs: {rel}")
    print(f"compared {len(a_files & b_files)} output files: {len(problems)} problem(s)")
    for line in problems:
        print("  " + line)
    return 1 if problems or not a_files else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
