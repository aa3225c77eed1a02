"""L2R seconds per document of two or more versions of topiceval, interleaved, one thread.

    .venv/bin/python benchmarks/l2r_versions.py --trees OLD/src NEW/src [--rounds 3] \
        [--problems synthetic-T100 nips-release nips-T100] [--samples S] [--mirror DIR]

Each version is a ``src`` directory (e.g. ``git archive 753c689 src | tar -x -C /tmp/base``);
every round runs each problem once per version, in turn, each in its own process with
``PYTHONPATH`` set to the version, so a change in the machine's load hits every version alike.
A run is the process CPU time of ``gapfa.estimate("l2r", ...)`` (S' = 1, G = 1) over the
problem's documents, best of two after a warm-up call (compilation excluded), per document.
A run includes what ``estimate`` computes once per document whatever S (its floor and ceiling,
from issue 31 on: about 44 ms on a NIPS paper at T = 100); ``--samples`` runs every problem at
another S, so that two runs give the cost per sample.
Problems:

* ``synthetic-T100``: 3 documents of 150 tokens from a T = 100, V = 5,000 model (r = 1), S = 300;
* ``nips-release``: the first 3 documents of the L2R authors' NIPS model (T = 5), S = 2,000;
* ``nips-T100``: NIPS papers 0, 100 and 200 of the ``capdevila2018`` corpus (250-350 distinct
  words) under a random T = 100 model over its vocabulary (r = 1), S = 20: 004-F3's largest
  collection.

Prints every run and, per problem and version, the fastest and the median run and their ratio
to the first version; writes nothing else.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SAMPLES = {"synthetic-T100": 300, "nips-release": 2000, "nips-T100": 20}


def problem(name: str, mirror: Path, nips_counts: Path | None):
    """(counts, model) of a problem (see the module docstring); ``nips_counts``: the NIPS
    papers of ``nips-T100`` (``nips_papers``)."""
    from topiceval.models import GaPModel

    rng = np.random.default_rng(0)
    if name == "nips-release":
        from topiceval.data.l2r import load_l2r_model

        counts, model = load_l2r_model(mirror / "l2r-capdevila" / "NIPS_GaP_5802N_100W_5T.mat")
        return counts[:3], model
    if name == "synthetic-T100":
        import scipy.sparse as sp

        phi = rng.dirichlet(np.full(5000, 0.05), size=100)
        p = rng.beta(0.5, 0.5, size=100).clip(1e-3, 1 - 1e-3)
        rows = []
        for _ in range(3):
            mix = rng.gamma(1.0, p / (1 - p)) @ phi
            rows.append(rng.multinomial(150, mix / mix.sum()))
        return sp.csr_matrix(np.array(rows)), GaPModel(phi, p, np.ones(100))
    import scipy.sparse as sp

    counts = sp.load_npz(nips_counts)
    phi = rng.dirichlet(np.full(counts.shape[1], 0.05), size=100)
    p = rng.beta(0.5, 0.5, size=100).clip(1e-3, 1 - 1e-3)
    return counts, GaPModel(phi, p, np.ones(100))


def nips_papers(mirror: Path, out: Path) -> None:
    """Counts (scipy .npz, readable by every version) of NIPS papers 0, 100 and 200 of the
    ``capdevila2018`` corpus, built once by this version."""
    import scipy.sparse as sp

    from topiceval.data.prepare import build_corpus

    corpus = build_corpus("nips", mirror, "capdevila2018", nltk_data=mirror / "nltk_data")
    sp.save_npz(out, corpus.counts()[::100][:3].tocsr())


def child(name: str, mirror: Path, nips_counts: Path | None, samples: int | None = None) -> float:
    """CPU seconds per document of L2R on one problem, best of two after a warm-up."""
    from topiceval.estimators import gapfa
    from topiceval.threads import numba_threads

    counts, model = problem(name, mirror, nips_counts)
    settings = {"inner_samples": 1, "gibbs": 1}
    with numba_threads(1):
        gapfa.estimate("l2r", counts[:1], model.phi, model.p, model.r, samples=2, **settings)
        best = np.inf
        for seed in range(2):
            start = time.process_time()
            gapfa.estimate("l2r", counts, model.phi, model.p, model.r, seed=seed,
                           samples=samples or SAMPLES[name], **settings)
            best = min(best, time.process_time() - start)
    return best / counts.shape[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trees", nargs="+", default=[])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--problems", nargs="+", default=list(SAMPLES), choices=list(SAMPLES))
    parser.add_argument("--samples", type=int,
                        help="S for every problem instead of its own (SAMPLES)")
    parser.add_argument("--mirror", type=Path,
                        default=Path(os.environ.get("TOPICEVAL_DATA_MIRROR", "../shared/data")))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--nips-counts", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(child(args.child, args.mirror, args.nips_counts, args.samples))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        nips_counts = Path(tmp) / "nips.npz"
        if "nips-T100" in args.problems:
            nips_papers(args.mirror, nips_counts)
        compare(args, nips_counts)
    return 0


def compare(args, nips_counts: Path) -> None:
    """The interleaved rounds of ``main`` and their summary lines."""
    for name in args.problems:
        runs = {tree: [] for tree in args.trees}
        for r in range(args.rounds):
            for tree in args.trees:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", name, "--mirror", str(args.mirror),
                     "--nips-counts", str(nips_counts),
                     *(["--samples", str(args.samples)] if args.samples else [])],
                    env={**os.environ, "PYTHONPATH": tree}, capture_output=True, text=True,
                    check=True)
                runs[tree].append(float(out.stdout.split()[-1]))
                print(f"{name} round {r + 1} {tree}: {runs[tree][-1]:.4f} s/doc, load "
                      f"{os.getloadavg()[0]:.2f}", flush=True)
        first = args.trees[0]
        for tree, times in runs.items():
            samples = args.samples or SAMPLES[name]
            print(f"{name} S = {samples} {tree}: fastest {min(times):.4f}, median "
                  f"{np.median(times):.4f} s/doc; {first} / this: fastest "
                  f"{min(runs[first]) / min(times):.2f}x, median "
                  f"{np.median(runs[first]) / np.median(times):.2f}x")


if __name__ == "__main__":
    raise SystemExit(main())
