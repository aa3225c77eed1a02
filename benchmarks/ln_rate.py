"""The logistic-normal family's work rate: decoder terms per CPU-second of ``evaluate``.

For the default method (IS-Laplace, t_5, 1,000 samples x 4 runs), AIS (1,000 temperatures x 4
runs) and IS-prior, on models of K = 3, 20 and 50 topics with V = 2,000 words (mixture and
product decoders) and 20 synthetic documents of 10, 50 and 200 tokens: the predicted work of
the call, the CPU-seconds of the whole call (the mode search included, compilation excluded by
a first call) and their ratio.  ``topiceval.limits.RATE["logistic_normal"]`` is set from it.

    nice python benchmarks/ln_rate.py
"""

import time

import numpy as np

import topiceval
from topiceval.logistic_normal import LogisticNormalModel
from topiceval.logistic_normal.simulate import sample_documents


def model(decoder, k, v, seed=0):
    rng = np.random.default_rng(seed)
    sigma = np.full(k, 1.0)
    if decoder == "mixture":
        return LogisticNormalModel(np.zeros(k), sigma, rng.dirichlet(np.full(v, 0.05), size=k))
    return LogisticNormalModel(np.zeros(k), sigma, rng.normal(size=(k, v)), decoder="product",
                               bias=rng.normal(size=v))


def main():
    warm = model("mixture", 3, 20)
    for method in ("is_laplace", "ais", "is_prior"):
        topiceval.evaluate(warm, [np.array([0, 1])], method, progress=False)
    for decoder in ("mixture", "product"):
        for k in (3, 20, 50):
            m = model(decoder, k, 2000)
            for length in (10, 50, 200):
                docs, _ = sample_documents(m, [length] * 20, seed=1)
                for method in ("is_laplace", "ais", "is_prior"):
                    t0 = time.process_time()
                    res = topiceval.evaluate(m, docs, method, progress=False, work_limit=None)
                    secs = time.process_time() - t0
                    print(f"{decoder:8s} K={k:3d} N={length:4d} {method:11s} "
                          f"work {res.predicted_work:10.3g} actual {res.work.sum():10.3g} "
                          f"cpu {secs:7.3f} s rate {res.work.sum() / secs:9.3g}/s", flush=True)


if __name__ == "__main__":
    main()
