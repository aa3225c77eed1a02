"""Which library trains ProdLDA for a study on a CPU-only machine (issue 49, item 5).

    python benchmarks/prodlda_trainers.py install NAME PIP-ARGS...   # a fresh venv: seconds, MB
    python benchmarks/prodlda_trainers.py train {pyro,ctm} [--topics 20 50] [--epochs 5]
        [--batch-size 64]
    python benchmarks/prodlda_trainers.py score [--topics 10 50]     # the estimate's CPU rate

``install`` makes a venv in a temporary folder, upgrades its pip, then times
``pip install PIP-ARGS`` and measures the folder's growth (du); one line to stdout.  ``train``
reads AP (the data mirror's ap/ap.dat, $TOPICEVAL_DATA_MIRROR or ../shared/data) as counts and
trains ProdLDA on its first 90% of documents for ``--epochs`` epochs at each T, on one torch
thread: ``pyro`` through topiceval.training.prodlda (run it in topiceval's venv with the
``neural`` extra), ``ctm`` through contextualized-topic-models' CombinedTM on the bag of words
alone (contextual_size=0: no sentence embeddings, which need a model download; run it in a
venv with contextualized-topic-models installed).  Prints seconds per epoch.  ``score`` trains
pyro's ProdLDA for one epoch at each T and scores 3 of the other AP documents by the family's
default (is_laplace, 500 samples, 8 runs): CPU ns per decoder term of the work ``check_limits``
predicts (the study's ``LN_ESTIMATE_NS``).  Numbers: benchmarks/README.md, "ProdLDA trainers".
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

MIRROR = Path(os.environ.get("TOPICEVAL_DATA_MIRROR",
                             Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def du_mb(path: Path) -> int:
    out = subprocess.run(["du", "-sm", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def install(name: str, args: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / name
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True, capture_output=True)
        before = du_mb(venv)
        start = time.perf_counter()
        done = subprocess.run([*pip, *args], capture_output=True, text=True)
        seconds = time.perf_counter() - start
        print(f"{name}: exit {done.returncode}, {seconds:.0f} s, {du_mb(venv) - before} MB "
              f"added ({' '.join(args)}); load {os.getloadavg()[0]:.1f}")
        shutil.rmtree(venv)


def ap_counts() -> tuple[sp.csr_matrix, list[str]]:
    """AP (lda-c format) as a (D, V) count matrix and its words."""
    vocab = (MIRROR / "ap" / "vocab.txt").read_text().split()
    rows, cols, vals = [], [], []
    for d, line in enumerate((MIRROR / "ap" / "ap.dat").read_text().splitlines()):
        for pair in line.split()[1:]:
            v, c = pair.split(":")
            rows.append(d)
            cols.append(int(v))
            vals.append(int(c))
    counts = sp.csr_matrix((vals, (rows, cols)), shape=(max(rows) + 1, len(vocab)))
    return counts, vocab


def train(library: str, topics: list[int], epochs: int, batch_size: int) -> None:
    import torch

    torch.set_num_threads(1)
    counts, vocab = ap_counts()
    counts = counts[: int(0.9 * counts.shape[0])]
    print(f"AP training part: {counts.shape[0]} documents, {counts.shape[1]} words, "
          f"{int(counts.sum())} tokens; {platform.processor() or platform.machine()}, "
          f"torch {torch.__version__}, load {os.getloadavg()[0]:.1f}")
    for k in topics:
        start = time.perf_counter()
        if library == "pyro":
            from topiceval.training.prodlda import fit_prodlda

            fit_prodlda(counts, vocab, k, seed=0, epochs=epochs, batch_size=batch_size)
        else:
            from contextualized_topic_models.datasets.dataset import CTMDataset
            from contextualized_topic_models.models.ctm import CombinedTM

            data = CTMDataset(np.zeros((counts.shape[0], 0), np.float32),
                              counts.astype(np.float32), dict(enumerate(vocab)))
            CombinedTM(bow_size=len(vocab), contextual_size=0, n_components=k,
                       num_epochs=epochs, batch_size=batch_size).fit(data)
        seconds = time.perf_counter() - start
        print(f"{library} T={k}, batch {batch_size}: {seconds / epochs:.2f} s per epoch "
              f"({epochs} epochs, {seconds:.1f} s with imports and setup); load "
              f"{os.getloadavg()[0]:.1f}")


def score(topics: list[int]) -> None:
    from topiceval.logistic_normal import runs
    from topiceval.training.prodlda import fit_prodlda, to_model

    counts, vocab = ap_counts()
    cut = int(0.9 * counts.shape[0])
    held = counts[cut:cut + 3]
    docs = [np.repeat(row.indices, row.data).astype(np.int64) for row in held]
    for k in topics:
        model = to_model(fit_prodlda(counts[:cut], vocab, k, seed=0, epochs=1))
        settings = {"samples": 500, "df": 5.0}
        runs.estimate_runs("is_laplace", [d[:2] for d in docs], model, runs=1, work_limit=None,
                           **settings)  # compiled before the clock starts
        work = runs.check_limits("is_laplace", docs, model, runs=8, work_limit=None, **settings)
        start = time.process_time()
        runs.estimate_runs("is_laplace", docs, model, runs=8, work_limit=None, **settings)
        cpu = time.process_time() - start
        print(f"is_laplace T={k}, documents of {[len(d) for d in docs]} tokens: {cpu:.2f} CPU s, "
              f"{cpu / (8 * work.sum()) * 1e9:.3f} ns per predicted decoder term; load "
              f"{os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("install")
    p.add_argument("name")
    p.add_argument("pip_args", nargs=argparse.REMAINDER)
    t = sub.add_parser("train")
    t.add_argument("library", choices=["pyro", "ctm"])
    t.add_argument("--topics", type=int, nargs="+", default=[20, 50])
    t.add_argument("--epochs", type=int, default=5)
    t.add_argument("--batch-size", type=int, default=64, help="64: CTM's default")
    c = sub.add_parser("score")
    c.add_argument("--topics", type=int, nargs="+", default=[10, 50])
    a = parser.parse_args()
    if a.what == "install":
        install(a.name, a.pip_args)
    elif a.what == "score":
        score(a.topics)
    else:
        train(a.library, a.topics, a.epochs, a.batch_size)


if __name__ == "__main__":
    main()
