"""How often coherence intervals cover the population NPMI, by reference size (issue 50).

    nice python benchmarks/coherence_coverage.py [--sizes 40,100,200,1000,5000] [--references 200]
        [--lengths 20,80] [--out coverage]

A known generative model: an LDA model with T = 10 Zipf-like topics over V = 2,000 words (alpha
= 0.1 per topic, documents of 20-80 tokens, or ``--lengths``); the model scored is its own
topics, top_n (5, 10, 15, 20), document co-occurrence. The population NPMI (per topic and the
mean) is the score over a 200,000-document reference from the model. For each reference size D,
``--references`` independent references of D documents (seeds 1, 2, ...) each get the point
estimate, ``replicates`` bootstrap replicates (``topiceval.coherence``'s draws) and the D
jackknife leave-one-out scores, and from them every candidate interval at levels 0.8 and 0.95:

* ``percentile``: the replicates' central range (topiceval before issue 50's fix);
* ``basic``: the percentile range reflected about the estimate, [2 e - q_hi, 2 e - q_lo];
* ``bca``: Efron's bias-corrected and accelerated percentile interval (z0 from the share of
  replicates below the estimate, acceleration from the jackknife);
* ``shipped``: what ``coherence_table`` returns now (scipy's basic interval, on the same
  replicates).

Per (D, level, method): coverage of the population value over the references and topic rows
(and of the mean row alone), the share of intervals that contain their own point estimate, the
mean width, and the mean row's bias (estimate minus population, averaged over references).
Writes ``benchmarks/coherence_coverage/<out>.{csv,md}`` (committed: ``coverage`` for the
defaults, ``coverage_short`` for ``--lengths 5,30 --sizes 200,1000 --references 100``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from topiceval.coherence import (
    DEFAULT_TOP_N,
    _bootstrap,
    _per_document_counts,
    _scores,
    coherence_table,
)
from topiceval.corpus import Corpus
from topiceval.models import LDAModel

OUT = Path(__file__).parent / "coherence_coverage"
V, T, ALPHA = 2_000, 10, 0.1
POPULATION_DOCS = 200_000
REPLICATES = 200


def generative_model(seed: int = 0) -> LDAModel:
    rng = np.random.default_rng(seed)
    base = 1.0 / np.arange(1, V + 1) ** 1.1
    phi = np.array([rng.permutation(base) * rng.gamma(0.5, size=V) + 1e-9 for _ in range(T)])
    phi /= phi.sum(axis=1, keepdims=True)
    return LDAModel(phi, np.full(T, ALPHA), vocab=np.array([f"w{i}" for i in range(V)]))


def documents(model: LDAModel, D: int, seed: int, lengths=(20, 80)) -> Corpus:
    """D documents of the LDA model (lengths uniform on ``lengths``), drawn in bulk."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(lengths[0], lengths[1] + 1, size=D)
    theta = rng.dirichlet(np.full(T, ALPHA), size=D)
    doc = np.repeat(np.arange(D), lengths)
    z = (rng.random(doc.size)[:, None] > np.cumsum(theta, 1)[doc]).sum(1).clip(0, T - 1)
    cdf = np.cumsum(model.phi, 1)
    w = np.empty(doc.size, dtype=np.int64)
    for t in range(T):
        at = np.flatnonzero(z == t)
        w[at] = np.searchsorted(cdf[t], rng.random(at.size) * cdf[t, -1], side="right")
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    return Corpus.from_documents([w[offsets[d]:offsets[d + 1]] for d in range(D)],
                                 model.vocab.tolist())


def estimate_draws_jackknife(model, reference, seed):
    """Point estimate (T + 1,), bootstrap replicates (T + 1, B), jackknife (T + 1, D)."""
    top, top_local, pair_index, counts, windows = _per_document_counts(model, reference, None,
                                                                       DEFAULT_TOP_N)
    total = np.asarray(counts.sum(axis=0), float).ravel()
    full = _scores(("npmi",), total[:, None], windows.sum()[None], top_local, pair_index,
                   DEFAULT_TOP_N)["npmi"][:, 0]
    draws = _bootstrap(("npmi",), counts, windows, top_local, pair_index, DEFAULT_TOP_N,
                       REPLICATES, 0.95, seed).bootstrap_distribution
    by_column = counts.T.tocsc().astype(float)
    jack = []
    for start in range(0, counts.shape[0], 500):
        block = slice(start, min(start + 500, counts.shape[0]))
        left_out = total[:, None] - by_column[:, block].toarray()
        jack.append(_scores(("npmi",), left_out, windows.sum() - windows[block], top_local,
                            pair_index, DEFAULT_TOP_N)["npmi"])
    return full, draws, np.hstack(jack)


def intervals(full, draws, jack, level):
    """{method: (low, high)} per row, by the formulas of the module docstring."""
    tail = (1 - level) / 2
    q_lo, q_hi = np.quantile(draws, [tail, 1 - tail], axis=1)
    below = (draws < full[:, None]).mean(1) + 0.5 * (draws == full[:, None]).mean(1)
    z0 = ndtri(np.clip(below, 0.5 / draws.shape[1], 1 - 0.5 / draws.shape[1]))
    d = jack.mean(1, keepdims=True) - jack
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.nan_to_num((d ** 3).sum(1) / (6 * ((d ** 2).sum(1)) ** 1.5))
    bca = []
    for z in (ndtri(tail), ndtri(1 - tail)):
        p = ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))
        bca.append(np.array([np.quantile(row, pi) for row, pi in zip(draws, p, strict=True)]))
    return {"percentile": (q_lo, q_hi), "basic": (2 * full - q_hi, 2 * full - q_lo),
            "bca": tuple(bca)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="40,100,200,1000,5000")
    parser.add_argument("--references", type=int, default=200)
    parser.add_argument("--lengths", default="20,80", help="shortest,longest document")
    parser.add_argument("--out", default="coverage")
    args = parser.parse_args()
    lengths = tuple(map(int, args.lengths.split(",")))
    model = generative_model()
    start = time.perf_counter()
    truth = coherence_table(model, documents(model, POPULATION_DOCS, 10**6, lengths),
                            measures=("npmi",), replicates=1)["npmi"].to_numpy()
    print(f"population NPMI (mean row {truth[-1]:.4f}) in {time.perf_counter() - start:.0f} s",
          flush=True)
    rows = []
    for D in map(int, args.sizes.split(",")):
        start = time.perf_counter()
        hits = []
        for r in range(args.references):
            reference = documents(model, D, r + 1, lengths)
            full, draws, jack = estimate_draws_jackknife(model, reference, seed=r)
            for level in (0.8, 0.95):
                found = intervals(full, draws, jack, level)
                shipped = coherence_table(model, reference, measures=("npmi",), level=level,
                                          replicates=REPLICATES, seed=r)
                found["shipped"] = (shipped["npmi_low"].to_numpy(),
                                    shipped["npmi_high"].to_numpy())
                for method, (low, high) in found.items():
                    hits.append({"D": D, "level": level, "method": method,
                                 "covers": (low <= truth) & (truth <= high),
                                 "holds_estimate": (low <= full) & (full <= high),
                                 "width": high - low, "bias": full - truth})
        frame = pd.DataFrame(hits)
        for (level, method), group in frame.groupby(["level", "method"], sort=False):
            covers = np.vstack(group["covers"])
            rows.append({"D": D, "level": level, "method": method,
                         "coverage_topics": covers[:, :-1].mean(),
                         "coverage_mean_row": covers[:, -1].mean(),
                         "holds_estimate": np.vstack(group["holds_estimate"]).mean(),
                         "mean_width": np.vstack(group["width"]).mean(),
                         "mean_row_bias": np.vstack(group["bias"])[:, -1].mean()})
        print(pd.DataFrame(rows[-8:]).round(3).to_string(index=False),
              f"\n({time.perf_counter() - start:.0f} s)", flush=True)
    OUT.mkdir(exist_ok=True)
    table = pd.DataFrame(rows)
    table["references"] = args.references
    table["lengths"] = args.lengths
    table.to_csv(OUT / f"{args.out}.csv", index=False)
    (OUT / f"{args.out}.md").write_text(table.round(3).to_markdown(index=False) + "\n")


if __name__ == "__main__":
    main()
