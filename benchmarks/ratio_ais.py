"""Speed of ratio-AIS model comparison (seed 003) against the standard method, as a table.

    .venv/bin/python benchmarks/ratio_ais.py [--docs 8] [--expensive-docs 2] [--repeats 2]
        [--tokens 1000] [--model M.npz --corpus C.npz --split test]   # a saved model instead

Measures seconds per document and Gibbs site updates per second (kernel time; best of
``--repeats``; process CPU time too, robust to other jobs on a shared machine) with 1 and 2
numba threads, at the two budgets of experiment 003-F1:

* cheap: 1 importance sample x 100 temperatures; expensive: 100 samples x 1,000 temperatures
  (on ``--expensive-docs`` documents only); the cost of 003-F1 on 130 documents is projected in
  core-hours from the CPU seconds per token and the mean document length (of the whole split
  with ``--model``);
* ``ratio_ais``: ``lda.compare`` with the reciprocal run (both directions, burn-in 100), the
  model against its perturbed copy (equal priors: tempered tables, sparse Gibbs draws);
  ``ratio_ais_one_way``: without the reversed run; ``ratio_ais_priors``: the model against the
  perturbed copy with a different alpha m (the dense different-prior bridge, cheap budget only);
  ``standard``: ``lda.compare_standard``, two independent Wallach-AIS estimates.

Without ``--model`` the problem is synthetic and NIPS-sized: T = 50 topics over V = 10,000 words
(rows Dir(0.05)), alpha m_t = 0.1 (the §5.5 default), documents of ``--tokens`` tokens drawn from
the model.  Writes ``benchmarks/out/ratio_ais.csv`` and ``ratio_ais.md`` (with the load average:
the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd

from topiceval.corpus import Corpus
from topiceval.estimators import lda
from topiceval.experiments import foulds_smyth as fs
from topiceval.io import write_text_atomic
from topiceval.models import load_model
from topiceval.threads import numba_threads

OUT = Path(__file__).parent / "out"
PAPER_DOCS = 130


def synthetic_problem(n_docs, n_tokens=1000, n_topics=50, n_types=10_000, seed=0):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_types, 0.05), size=n_topics)
    phi = (phi + 1e-10) / (phi + 1e-10).sum(axis=1, keepdims=True)
    alpha_m = np.full(n_topics, 0.1)
    cum = np.cumsum(phi, axis=1)
    docs = []
    for _ in range(n_docs):
        z = rng.choice(n_topics, size=n_tokens, p=rng.dirichlet(alpha_m))
        u = rng.random(n_tokens)
        docs.append(np.minimum([np.searchsorted(cum[t], x) for t, x in zip(z, u, strict=True)],
                               n_types - 1))
    return docs, phi, alpha_m


def call(method, docs, model_a, model_b, samples, temperatures, seed):
    """(site updates, kernel seconds) of one call."""
    if method == "standard":
        _, cost = lda.compare_standard(docs, model_a, model_b, samples=samples,
                                       temperatures=temperatures, seed=seed, return_cost=True)
    else:
        _, cost = lda.compare(docs, model_a, model_b, samples=samples,
                              temperatures=temperatures, seed=seed, return_cost=True,
                              reciprocal=method != "ratio_ais_one_way")
    return cost.site_updates, cost.seconds


def measure(method, budget, docs, model_a, model_b, repeats, mean_length) -> list[dict]:
    call(method, docs[:1], model_a, model_b, 1, 3, 0)  # load or compile outside the timing
    rows = []
    for threads in (1, 2):
        best, cpu = np.inf, np.inf
        with numba_threads(threads) as used:
            for r in range(repeats):
                start = time.process_time()
                sites, seconds = call(method, docs, model_a, model_b, budget.samples,
                                      budget.temperatures, r)
                cpu = min(cpu, time.process_time() - start)
                best = min(best, seconds)
        rows.append({"method": method, "budget": budget.name, "samples": budget.samples,
                     "temperatures": budget.temperatures, "threads": used, "docs": len(docs),
                     "tokens": int(sum(len(d) for d in docs)), "site_updates": sites,
                     "seconds": best, "seconds_per_doc": best / len(docs),
                     "site_updates_per_s": sites / best, "cpu_seconds": cpu,
                     "cpu_ns_per_site_update": 1e9 * cpu / sites,
                     f"projected_{PAPER_DOCS}_docs_core_hours":
                         cpu / sum(len(d) for d in docs) * mean_length * PAPER_DOCS / 3600})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=8, help="documents at the cheap budget")
    parser.add_argument("--expensive-docs", type=int, default=2,
                        help="documents at the expensive budget (0: skip it)")
    parser.add_argument("--tokens", type=int, default=1000, help="synthetic document length")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--model", help="LDA model .npz (default: synthetic problem)")
    parser.add_argument("--corpus", help="corpus .npz with the documents (with --model)")
    parser.add_argument("--split", default=None)
    args = parser.parse_args(argv)
    n_docs = max(args.docs, args.expensive_docs)
    if args.model:
        model = load_model(args.model)
        corpus = Corpus.load(args.corpus)
        if args.split:
            corpus = corpus.select_split(args.split)
        mean_length = float(corpus.lengths.mean())
        docs, phi, alpha_m = list(corpus)[:n_docs], model.phi, model.alpha_m
        source = f"{args.model} / {args.corpus}, T={phi.shape[0]}, V={phi.shape[1]}"
    else:
        docs, phi, alpha_m = synthetic_problem(n_docs, args.tokens)
        mean_length = float(args.tokens)
        source = f"synthetic T=50, V=10000, N={args.tokens}, alpha m_t = 0.1"
    model_a = (phi, alpha_m)
    model_b = (fs.perturbed_topics(phi, seed=1), alpha_m)
    model_c = (model_b[0], alpha_m * np.linspace(0.5, 1.5, alpha_m.shape[0]))
    cheap, expensive = fs.budgets(1.0)
    load_before = os.getloadavg()
    start = time.perf_counter()
    rows = []
    for method in ("ratio_ais", "ratio_ais_one_way", "standard"):
        rows += measure(method, cheap, docs[: args.docs], model_a, model_b, args.repeats,
                        mean_length)
    rows += measure("ratio_ais_priors", cheap, docs[: args.docs], model_a, model_c,
                    args.repeats, mean_length)
    if args.expensive_docs:
        for method in ("ratio_ais", "standard"):
            rows += measure(method, expensive, docs[: args.expensive_docs], model_a, model_b, 1,
                            mean_length)
    load_after = os.getloadavg()
    table = pd.DataFrame(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    table.to_csv(OUT / "ratio_ais.csv", index=False)
    header = (f"Ratio-AIS vs standard AIS comparison, {source}; best of {args.repeats} "
              f"(expensive: 1 run); projections: {PAPER_DOCS} documents of mean length "
              f"{mean_length:.0f} tokens; {platform.processor() or platform.machine()}, "
              f"{os.cpu_count()} CPUs; load average before {load_before[0]:.2f}, after "
              f"{load_after[0]:.2f}; {time.perf_counter() - start:.0f} s in total.")
    text = header + "\n\n" + table.to_markdown(index=False, floatfmt=".4g") + "\n"
    write_text_atomic(OUT / "ratio_ais.md", text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
