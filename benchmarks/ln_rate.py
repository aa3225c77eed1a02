"""The logistic-normal family's work rate: work units per CPU-second of ``evaluate``.

For IS-Laplace (t_5, 8 runs), IS-prior (8 runs) and AIS (8 runs), on models of K = 3, 20 and 50
topics with V = 500 and 10,000 words (mixture and product decoders) and 3 synthetic documents of
10, 200 and 1,000 tokens: the predicted work of the call (``Evaluation.predicted_work``), the
median CPU-seconds of ``REPEATS`` calls (``time.process_time``, the mode search included,
compilation excluded by a first call) and their ratio.  The samples (temperatures for AIS) are
chosen so that each call is priced near ``TARGET`` work units (20 to 500).  The last lines give
the spread of the rates (largest / smallest) and their median, which
``topiceval.limits.RATE["logistic_normal"]`` is set from.

    NUMBA_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice python benchmarks/ln_rate.py
"""

import time

import numpy as np

import topiceval
from topiceval.logistic_normal import LogisticNormalModel
from topiceval.logistic_normal.ais import AIS_EVALUATIONS
from topiceval.logistic_normal.runs import evaluation_costs
from topiceval.logistic_normal.simulate import sample_documents

REPEATS = 3
TARGET = 4e8
RUNS = 8


def model(decoder, k, v, seed=0):
    rng = np.random.default_rng(seed)
    sigma = np.full(k, 1.0)
    if decoder == "mixture":
        return LogisticNormalModel(np.zeros(k), sigma, rng.dirichlet(np.full(v, 0.05), size=k))
    return LogisticNormalModel(np.zeros(k), sigma, rng.normal(size=(k, v)), decoder="product",
                               bias=rng.normal(size=v))


def budget(method, m, docs):
    """Samples (or temperatures) pricing the call near TARGET, within 20 to 500."""
    per = RUNS * float(evaluation_costs(m, docs).sum()) * (AIS_EVALUATIONS if method == "ais"
                                                            else 1.0)
    return int(np.clip(TARGET / per, 20, 500))


def cpu_seconds(m, docs, method, settings):
    times = []
    for _ in range(REPEATS):
        t0 = time.process_time()
        res = topiceval.evaluate(m, docs, method, runs=RUNS, progress=False, work_limit=None,
                                 **settings)
        times.append(time.process_time() - t0)
    return res, float(np.median(times))


def main():
    warm = model("mixture", 3, 20)
    for method in ("is_laplace", "ais", "is_prior"):
        topiceval.evaluate(warm, [np.array([0, 1])], method, progress=False)
    rates = []
    print(f"{'decoder':8s} {'K':>3s} {'V':>6s} {'N':>5s} {'method':11s} {'S':>4s} "
          f"{'work':>9s} {'cpu s':>7s} {'rate /s':>9s}")
    for decoder in ("mixture", "product"):
        for k in (3, 20, 50):
            for v in (500, 10_000):
                m = model(decoder, k, v)
                for length in (10, 200, 1000):
                    docs, _ = sample_documents(m, [length] * 3, seed=1)
                    for method in ("is_laplace", "is_prior", "ais"):
                        s = budget(method, m, docs)
                        name = "temperatures" if method == "ais" else "samples"
                        res, secs = cpu_seconds(m, docs, method, {name: s})
                        work = float(res.work.sum())
                        rates.append(work / secs)
                        print(f"{decoder:8s} {k:3d} {v:6d} {length:5d} {method:11s} {s:4d} "
                              f"{work:9.3g} {secs:7.3f} {work / secs:9.3g}", flush=True)
    rates = np.array(rates)
    print(f"rates: median {np.median(rates):.3g}/s, {rates.min():.3g} to {rates.max():.3g} "
          f"(a factor of {rates.max() / rates.min():.2f})")


if __name__ == "__main__":
    main()
