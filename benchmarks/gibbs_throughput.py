"""Gibbs-sampling throughput of topiceval's LDA trainer against peer implementations.

    .venv/bin/python benchmarks/gibbs_throughput.py [--sweeps 100] [--topics 20 50 100 200 500]
        [--corpus results/.../corpus.npz ... --split train] [--repeats 3] [--skip SYSTEM ...]
        [--threads 1 2]
        [--out benchmarks/out]

Corpora: a synthetic LDA corpus (D = 2,000 documents of 200 tokens; 50 true topics, αm_t = 0.1,
topics ~ Dir(0.05) over 5,000 word types; unused types removed) and each real corpus given with
``--corpus`` (e.g. 20 Newsgroups ``bechard2018`` and AP ``asis``, training split).  For each
corpus and T, every system runs the same number of sweeps from a random start with αm_t = 0.1
and βu_v = 0.01 (no hyper-parameter optimisation), on the same machine:

* ``topiceval`` with 1 and 2 threads (``fit_gibbs``; the sparse sampler of
  ``topiceval.training.lda.sampler``), and a plain dense numba collapsed Gibbs sampler (this file)
  as the O(T)-per-token baseline;
* ``tomotopy`` with 1 and 2 workers (``optim_interval = 0``), the ``lda`` package;

topiceval and tomotopy run ``--repeats`` interleaved rounds (fastest and median kept), the others
once;
* scikit-learn's batch variational LDA and gensim's ``LdaModel`` (time per pass over the corpus;
  their passes are not Gibbs sweeps).

Reported per row: wall and process-CPU seconds (each including the system's random
initialisation), token updates per wall second and per CPU second (sweeps x tokens / seconds) for
the Gibbs samplers, wall seconds per pass for the variational ones, and, as a check that the
samplers did comparable work, the collapsed log joint (1.7) per token of each Gibbs sampler's
final state.  Per-core comparisons use CPU seconds of single-threaded runs, which other jobs on a
shared machine cannot inflate; thread scaling uses wall seconds and needs an idle machine (the load
average is recorded before and after each row).  Output: ``gibbs_throughput.csv`` and ``.md`` in
``--out``.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit
from scipy.special import gammaln

from topiceval._numba import seed_into, uniform
from topiceval.corpus import Corpus
from topiceval.io import atomic_path
from topiceval.models import LDAModel
from topiceval.training.lda import fit_gibbs, synthetic_corpus
from topiceval.training.lda.sampler import random_assignments

ALPHA = 0.1
BETA = 0.01


# --------------------------------------------------------------------------- corpora
def synthetic(seed: int = 0) -> Corpus:
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(5000, 0.05), size=50)
    phi = np.maximum(phi, 1e-300)
    phi /= phi.sum(axis=1, keepdims=True)
    corpus = synthetic_corpus(LDAModel(phi, np.full(50, ALPHA)), 2000, 200, seed=seed)
    return compact(corpus)


def compact(corpus: Corpus) -> Corpus:
    """Drop word types that never occur (every system then sees the same V)."""
    used = np.unique(corpus.tokens)
    remap = np.full(corpus.n_types, -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    docs = [remap[d] for d in corpus]
    return Corpus.from_documents(docs, corpus.vocab[used], corpus.names, corpus.split, corpus.meta)


# --------------------------------------------------------------------------- log joint
def log_joint_per_token(docs_z, docs_w, n_topics, n_types):
    """(1.7) per token for assignments given as per-document arrays."""
    ndt = np.zeros((len(docs_z), n_topics), dtype=np.int64)
    nwt = np.zeros((n_topics, n_types), dtype=np.int64)
    for d, (z, w) in enumerate(zip(docs_z, docs_w, strict=True)):
        np.add.at(ndt[d], z, 1)
        np.add.at(nwt, (z, w), 1)
    words = np.sum(gammaln(n_types * BETA) - n_types * gammaln(BETA)
                   + gammaln(nwt + BETA).sum(axis=1) - gammaln(nwt.sum(axis=1) + n_types * BETA))
    a = n_topics * ALPHA
    docs = np.sum(gammaln(a) - gammaln(ndt.sum(axis=1) + a)
                  + (gammaln(ndt + ALPHA) - gammaln(ALPHA)).sum(axis=1))
    return float((words + docs) / nwt.sum())


# --------------------------------------------------------------------------- dense baseline
@njit(cache=True)
def _dense_sweeps(offsets, tokens, z, ndt, nwt, nt, alpha, beta, seed, sweeps):
    n_topics = nt.shape[0]
    beta_sum = nwt.shape[0] * beta
    cum = np.empty(n_topics)
    rng = np.empty(4, dtype=np.uint64)
    for s in range(sweeps):
        seed_into(rng, seed, 999, s, 0)
        for d in range(offsets.shape[0] - 1):
            for i in range(offsets[d], offsets[d + 1]):
                v = tokens[i]
                t = z[i]
                ndt[d, t] -= 1
                nwt[v, t] -= 1
                nt[t] -= 1
                total = 0.0
                for k in range(n_topics):
                    total += (nwt[v, k] + beta) / (nt[k] + beta_sum) * (ndt[d, k] + alpha)
                    cum[k] = total
                u = uniform(rng) * total
                t = 0
                while t < n_topics - 1 and cum[t] <= u:
                    t += 1
                z[i] = t
                ndt[d, t] += 1
                nwt[v, t] += 1
                nt[t] += 1


def run_dense(corpus, n_topics, sweeps, seed):
    z = random_assignments(seed, corpus.n_tokens, n_topics)
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.lengths)
    ndt = np.zeros((corpus.n_docs, n_topics), dtype=np.int64)
    nwt = np.zeros((corpus.n_types, n_topics), dtype=np.int64)
    np.add.at(ndt, (doc_of, z), 1)
    np.add.at(nwt, (corpus.tokens, z), 1)
    nt = nwt.sum(axis=0)
    tokens = corpus.tokens.astype(np.int64)
    _dense_sweeps(corpus.offsets, tokens, z.copy(), ndt.copy(), nwt.copy(), nt.copy(), ALPHA,
                  BETA, seed, 1)  # compile
    with Clock() as clock:
        _dense_sweeps(corpus.offsets, tokens, z, ndt, nwt, nt, ALPHA, BETA, seed, sweeps)
    docs_z = np.split(z, corpus.offsets[1:-1])
    return clock, log_joint_per_token(docs_z, list(corpus), n_topics, corpus.n_types)


# --------------------------------------------------------------------------- systems
class Clock:
    """Wall and process CPU seconds of a block (CPU time is what a loaded machine cannot
    inflate for a single-threaded run)."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def run_ours(corpus, n_topics, sweeps, seed, threads):
    fit_gibbs(corpus, n_topics, sweeps=1, alpha_m=ALPHA, beta=BETA, threads=threads)  # compile
    with Clock() as clock:  # includes set-up: layout, random start, (1.7) at start and end
        result = fit_gibbs(corpus, n_topics, sweeps=sweeps, alpha_m=ALPHA, beta=BETA,
                           threads=threads, seed=seed, record_every=sweeps)
    return clock, float(result.log_joint["log_joint"].iloc[-1]) / corpus.n_tokens


def run_tomotopy(corpus, n_topics, sweeps, seed, workers):
    import tomotopy as tp

    model = tp.LDAModel(k=n_topics, alpha=ALPHA, eta=BETA, seed=seed, min_cf=0, rm_top=0)
    model.optim_interval = 0
    for doc in corpus:
        model.add_doc([str(v) for v in doc])
    with warnings.catch_warnings(), Clock() as clock:  # includes initialisation, train(0)
        warnings.simplefilter("ignore")  # "results may differ with workers != 1"
        model.train(0, workers=workers)
        model.train(sweeps, workers=workers)
    docs_z = [np.asarray(d.topics) for d in model.docs]
    docs_w = [np.asarray(d.words) for d in model.docs]
    return clock, log_joint_per_token(docs_z, docs_w, n_topics, len(model.used_vocabs))


def run_lda_package(corpus, n_topics, sweeps, seed):
    import lda

    X = corpus.counts()
    model = lda.LDA(n_topics=n_topics, n_iter=sweeps, alpha=ALPHA, eta=BETA, random_state=seed,
                    refresh=10**9)
    with Clock() as clock:  # includes its random initialisation
        model.fit(X)
    ndz, nzw = model.ndz_, model.nzw_
    n_types = corpus.n_types
    words = np.sum(gammaln(n_types * BETA) - n_types * gammaln(BETA)
                   + gammaln(nzw + BETA).sum(axis=1) - gammaln(nzw.sum(axis=1) + n_types * BETA))
    a = n_topics * ALPHA
    docs = np.sum(gammaln(a) - gammaln(ndz.sum(axis=1) + a)
                  + (gammaln(ndz + ALPHA) - gammaln(ALPHA)).sum(axis=1))
    return clock, float((words + docs) / corpus.n_tokens)


def run_sklearn(corpus, n_topics, passes, seed):
    from sklearn.decomposition import LatentDirichletAllocation

    est = LatentDirichletAllocation(n_components=n_topics, learning_method="batch",
                                    max_iter=passes, random_state=seed, evaluate_every=-1)
    X = corpus.counts()
    with Clock() as clock:
        est.fit(X)
    return clock, math.nan


def run_gensim(corpus, n_topics, passes, seed):
    from gensim.models import LdaModel

    logging.getLogger("gensim").setLevel(logging.WARNING)
    bow = [list(zip(*np.unique(doc, return_counts=True), strict=True)) for doc in corpus]
    bow = [[(int(w), int(c)) for w, c in doc] for doc in bow]
    id2word = {i: str(w) for i, w in enumerate(corpus.vocab)}
    with Clock() as clock:
        LdaModel(corpus=bow, id2word=id2word, num_topics=n_topics, passes=passes, alpha=ALPHA,
                 eta=BETA, random_state=seed)
    return clock, math.nan


# --------------------------------------------------------------------------- driver
def load() -> float:
    return os.getloadavg()[0]


def machine() -> str:
    """The CPU's model name (``/proc/cpuinfo``) and core count, for the output's header."""
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
        name = next(line.split(":", 1)[1].strip() for line in lines
                    if line.startswith("model name"))
    except (OSError, StopIteration):
        name = platform.processor() or platform.machine()
    return f"{name}, {os.cpu_count()} CPUs"


SYSTEMS = (  # (system, threads, kind, runner(corpus, T, sweeps, passes, seed))
    ("topiceval", 1, "gibbs", lambda c, t, s, p, seed: run_ours(c, t, s, seed, 1)),
    ("topiceval", 2, "gibbs", lambda c, t, s, p, seed: run_ours(c, t, s, seed, 2)),
    ("tomotopy", 1, "gibbs", lambda c, t, s, p, seed: run_tomotopy(c, t, s, seed, 1)),
    ("tomotopy", 2, "gibbs", lambda c, t, s, p, seed: run_tomotopy(c, t, s, seed, 2)),
    ("dense-numba", 1, "gibbs", lambda c, t, s, p, seed: run_dense(c, t, s, seed)),
    ("lda", 1, "gibbs", lambda c, t, s, p, seed: run_lda_package(c, t, s, seed)),
    ("sklearn", 1, "vb", lambda c, t, s, p, seed: run_sklearn(c, t, p, seed)),
    ("gensim", 1, "vb", lambda c, t, s, p, seed: run_gensim(c, t, p, seed)),
)


REPEATED = ("topiceval", "tomotopy")  # the systems of the target ratios


def benchmark(name, corpus, topics, sweeps, passes, seed, skip, thread_counts, repeats):
    """One row per (T, system) among those with a thread count in ``thread_counts``.  topiceval
    and tomotopy (the systems of the target ratios) run ``repeats`` rounds, interleaved (every
    system once per round, so a change in the machine's load hits both), and report their
    fastest and their median run; the others run once."""
    rows = []
    for t in topics:
        systems = [s for s in SYSTEMS if s[0] not in skip and s[1] in thread_counts]
        runs = [[] for _ in systems]
        for r in range(repeats):
            for i, (system, threads, _kind, runner) in enumerate(systems):
                if r > 0 and system not in REPEATED:
                    continue
                before = load()
                clock, lj = runner(corpus, t, sweeps, passes, seed)
                runs[i].append((clock, lj, before, load()))
                print(f"{name} T={t} {system}/{threads} round {r + 1}: wall {clock.wall:.2f} s, "
                      f"cpu {clock.cpu:.2f} s, log joint/token {lj:.4f}, "
                      f"load {before:.2f} -> {runs[i][-1][3]:.2f}", flush=True)
        for (system, threads, kind, _), system_runs in zip(systems, runs, strict=True):
            rows.append(row(name, corpus, t, system, threads, kind, sweeps, passes, system_runs))
    return rows


def row(name, corpus, n_topics, system, threads, kind, sweeps, passes, runs):
    """The table row of one system's runs: the fastest run (by CPU time), the median CPU time
    and the load average before the first and after the last run."""
    clock, lj, _, _ = min(runs, key=lambda run: run[0].cpu)
    cpu_median = float(np.median([run[0].cpu for run in runs]))
    gibbs = kind == "gibbs"
    work = sweeps * corpus.n_tokens / 1e6
    return {"corpus": name, "D": corpus.n_docs, "V": corpus.n_types,
            "tokens": corpus.n_tokens, "T": n_topics, "system": system, "threads": threads,
            "kind": kind, "sweeps": sweeps if gibbs else passes,
            "wall_s": clock.wall, "cpu_s": clock.cpu, "cpu_s_median": cpu_median,
            "Mtok_per_wall_s": work / clock.wall if gibbs else math.nan,
            "Mtok_per_cpu_s": work / clock.cpu if gibbs else math.nan,
            "Mtok_per_cpu_s_median": work / cpu_median if gibbs else math.nan,
            "wall_s_per_pass": clock.wall / (sweeps if gibbs else passes),
            "log_joint_per_token": lj, "runs": len(runs), "load_before": runs[0][2],
            "load_after": runs[-1][3]}


def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Per core: topiceval / tomotopy throughput per CPU second, one thread each (CPU time is
    robust to other jobs on the machine), of the fastest runs and of the median runs.  Scaling:
    2-thread / 1-thread wall-clock throughput (meaningful only on an otherwise idle machine; see
    the load columns)."""
    out = []
    gibbs = df[df["kind"] == "gibbs"].set_index(["corpus", "T", "system", "threads"])
    for corpus, t in sorted({(c, t) for c, t, _, _ in gibbs.index}):
        def get(column, system, threads, c=corpus, tt=t):
            return gibbs[column].get((c, tt, system, threads), math.nan)
        out.append({
            "corpus": corpus, "T": t,
            "ours/tomotopy per core (cpu, fastest)": get("Mtok_per_cpu_s", "topiceval", 1)
            / get("Mtok_per_cpu_s", "tomotopy", 1),
            "ours/tomotopy per core (cpu, median)": get("Mtok_per_cpu_s_median", "topiceval", 1)
            / get("Mtok_per_cpu_s_median", "tomotopy", 1),
            "ours/tomotopy 2 threads (wall)": get("Mtok_per_wall_s", "topiceval", 2)
            / get("Mtok_per_wall_s", "tomotopy", 2),
            "ours 2/1 threads (wall)": get("Mtok_per_wall_s", "topiceval", 2)
            / get("Mtok_per_wall_s", "topiceval", 1),
            "tomotopy 2/1 workers (wall)": get("Mtok_per_wall_s", "tomotopy", 2)
            / get("Mtok_per_wall_s", "tomotopy", 1),
        })
    return pd.DataFrame(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sweeps", type=int, default=100)
    parser.add_argument("--passes", type=int, default=2, help="passes of the VB systems")
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 50, 100, 200, 500])
    parser.add_argument("--corpus", nargs="*", default=[],
                        help="real corpus files (e.g. 20 Newsgroups bechard2018, AP)")
    parser.add_argument("--split", default="train")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", nargs="*", default=[], help="systems to leave out")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                        help="thread counts to run (1: the per-core comparison alone)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="interleaved rounds of topiceval and tomotopy per T (fastest and "
                             "median reported)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "out"))
    args = parser.parse_args(argv)
    corpora = [("synthetic", synthetic(args.seed))]
    for path in args.corpus:
        real = Corpus.load(path)
        real = real.select_split(args.split) if args.split else real
        name = real.meta.get("dataset", Path(path).stem)
        corpora.append((name, compact(real)))
    rows = []
    for name, corpus in corpora:
        rows += benchmark(name, corpus, args.topics, args.sweeps, args.passes, args.seed,
                          set(args.skip), set(args.threads), args.repeats)
    df = pd.DataFrame(rows)
    summary = ratios(df)
    out = Path(args.out)
    with atomic_path(out / "gibbs_throughput.csv") as tmp:
        df.to_csv(tmp, index=False)
    text = (f"## Gibbs throughput\n\nMachine: {machine()}\n\n"
            + df.to_markdown(index=False, floatfmt=".3g")
            + "\n\n## Ratios\n\n" + summary.to_markdown(index=False, floatfmt=".2f") + "\n")
    with atomic_path(out / "gibbs_throughput.md") as tmp:
        tmp.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
