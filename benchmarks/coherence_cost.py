"""What coherence costs against the reference's size and the topics count (issue 50).

    nice python benchmarks/coherence_cost.py [--docs 10000,30000,100000] [--topics 50,200]

A synthetic reference drawn from an LDA model (V = 20,000 words with Zipf-like topics, alpha =
0.1 per topic, documents of 50-250 tokens, mean 150) and that model's topics as the model to
score.  Per (D, T, window): wall seconds of ``coherence_table`` with ``replicates=1`` (the
per-document counts, the numba kernel, and the scores) and with the default 200 replicates
(adding the bootstrap), best of one run after a warm-up on a small reference (compilation
excluded), and the non-zeros of the per-document count matrix.  Writes
``benchmarks/coherence_cost/coherence_cost.{csv,md}`` (committed) and names the machine.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from study import machine

from topiceval.coherence import coherence_table, top_word_columns
from topiceval.coherence._counts import reference_counts, relevant_pairs
from topiceval.corpus import Corpus
from topiceval.models import LDAModel

OUT = Path(__file__).parent / "coherence_cost"
V = 20_000


def synthetic(D: int, T: int, seed: int = 0) -> tuple[LDAModel, Corpus]:
    rng = np.random.default_rng(seed)
    base = 1.0 / np.arange(1, V + 1) ** 1.1
    phi = np.empty((T, V))
    for t in range(T):
        phi[t] = rng.permutation(base) * rng.gamma(0.5, size=V) + 1e-9
    phi /= phi.sum(axis=1, keepdims=True)
    vocab = np.array([f"w{i}" for i in range(V)])
    model = LDAModel(phi, np.full(T, 0.1), vocab=vocab)
    lengths = rng.integers(50, 251, size=D)
    theta = rng.dirichlet(np.full(T, 0.1), size=D)
    doc = np.repeat(np.arange(D), lengths)
    z = (rng.random(doc.size)[:, None] > np.cumsum(theta, 1)[doc]).sum(1).clip(0, T - 1) \
        if T <= 50 else _topics_in_blocks(rng, theta, doc, T)
    tokens = np.empty(doc.size, dtype=np.int64)
    for t in range(T):
        at = np.flatnonzero(z == t)
        tokens[at] = rng.choice(V, size=at.size, p=phi[t])
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    corpus = Corpus(offsets, tokens, vocab, np.arange(D).astype(str), np.full(D, "test"))
    return model, corpus


def _topics_in_blocks(rng, theta, doc, T):
    """Each token's topic by inverse CDF, in blocks (the (tokens, T) comparison is large)."""
    z = np.empty(doc.size, dtype=np.int64)
    cdf = np.cumsum(theta, 1)
    for start in range(0, doc.size, 1_000_000):
        part = doc[start:start + 1_000_000]
        u = rng.random(part.size)
        z[start:start + part.size] = np.minimum(
            (u[:, None] > cdf[part]).sum(1), T - 1)
    return z


def count_nnz(model, corpus, window):
    top = top_word_columns(model, 20)
    relevant, top_local = np.unique(top, return_inverse=True)
    pairs, _ = relevant_pairs(top_local.reshape(top.shape), len(relevant))
    local = np.full(V, -1)
    local[relevant] = np.arange(len(relevant))
    counts, _ = reference_counts(corpus.offsets, corpus.tokens, local, pairs, len(relevant),
                                 window)
    return counts.nnz, len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", default="10000,30000,100000")
    parser.add_argument("--topics", default="50,200")
    args = parser.parse_args()
    where = machine()
    warm_model, warm_corpus = synthetic(200, 10)
    for window in (None, 10):
        coherence_table(warm_model, warm_corpus, window=window, replicates=2)
    rows = []
    for T in map(int, args.topics.split(",")):
        for D in map(int, args.docs.split(",")):
            model, corpus = synthetic(D, T)
            for window in (None, 10):
                nnz, n_pairs = count_nnz(model, corpus, window)
                start = time.perf_counter()
                coherence_table(model, corpus, window=window, replicates=1)
                counts_s = time.perf_counter() - start
                start = time.perf_counter()
                coherence_table(model, corpus, window=window, replicates=200)
                full_s = time.perf_counter() - start
                rows.append({"documents": D, "tokens": corpus.tokens.size, "topics": T,
                             "window": "document" if window is None else f"sliding {window}",
                             "pairs": n_pairs, "count_nonzeros": nnz,
                             "seconds_no_bootstrap": round(counts_s, 2),
                             "seconds_200_replicates": round(full_s, 2)})
                print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    frame.to_csv(OUT / "coherence_cost.csv", index=False)
    (OUT / "coherence_cost.md").write_text(
        f"# coherence_table cost (benchmarks/coherence_cost.py)\n\nMachine: {where}; "
        f"load average {__import__('os').getloadavg()[0]:.2f} at the end. Wall seconds, "
        "one run each, compilation excluded; top-20 words, top-n 5,10,15,20, NPMI and UMass.\n\n"
        + frame.to_markdown(index=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
