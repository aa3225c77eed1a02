"""The logistic-normal family's default method, chosen by accuracy per CPU-second (issue 49).

Candidates (each as ``topiceval.evaluate`` would run it, one document at a time):
IS-Laplace with a Gaussian proposal and with a t_5 proposal (1,000 samples x 4 runs), AIS with
elliptical slice sampling (1,000 temperatures x 4 runs) and IS from the prior (1,000 x 4).
The default, IS-Laplace t_5 with 500 samples x 8 runs, pools the same 4,000 weights into the
same estimate (the runs are averaged in probability); only its standard error, from 8 runs
instead of 4, is better determined.

References: Gauss-Hermite quadrature (``logistic_normal.exact``, to 1e-9) for K = 2 and 3; for
K = 20 a BDMC sandwich, long AIS (10,000 temperatures x 4 runs) below and reverse AIS from the
z that generated each synthetic document above, whose midpoint is the reference (the gap is
printed: the reference is good to half of it).  Documents are drawn from each model
(``simulate.sample_documents``) at 20 and 100 tokens, 6 of each.

Prints, per problem and method: RMSE of log P-hat against the reference (nats), the largest
error, and mean CPU-seconds per document (``time.process_time``; the machine is shared).

    nice python benchmarks/ln_default_method.py
"""

import time

import numpy as np

from topiceval.logistic_normal import LogisticNormalModel
from topiceval.logistic_normal.ais import ais
from topiceval.logistic_normal.bdmc import bdmc_upper
from topiceval.logistic_normal.exact import exact
from topiceval.logistic_normal.is_laplace import is_laplace
from topiceval.logistic_normal.is_prior import is_prior
from topiceval.logistic_normal.simulate import sample_documents
from topiceval.logistic_normal.weights import estimate_from_weights

LENGTHS = [20] * 6 + [100] * 6
RUNS = 4


def model(decoder, k, v, seed):
    rng = np.random.default_rng(seed)
    spread = rng.normal(size=(k, k))
    sigma = spread @ spread.T / k + 0.3 * np.eye(k)
    if decoder == "mixture":
        return LogisticNormalModel(rng.normal(size=k), sigma,
                                   rng.dirichlet(np.full(v, 0.1), size=k))
    return LogisticNormalModel(rng.normal(size=k), sigma, 2.0 * rng.normal(size=(k, v)),
                               decoder="product", bias=rng.normal(size=v))


def pooled(estimates):
    return estimate_from_weights(np.array([e.log_p for e in estimates])).log_p


def candidates(m, doc, d):
    return {
        "is_laplace_gauss": lambda: pooled([is_laplace(m, doc, samples=1000, seed=r,
                                                       document=d) for r in range(RUNS)]),
        "is_laplace_t5": lambda: pooled([is_laplace(m, doc, samples=1000, df=5.0, seed=r,
                                                    document=d) for r in range(RUNS)]),
        "ais_1000": lambda: ais(m, doc, temperatures=1000, runs=RUNS, document=d)[0].log_p,
        "is_prior": lambda: pooled([is_prior(m, doc, samples=1000, seed=r, document=d)
                                    for r in range(RUNS)]),
    }


def reference(m, doc, z, d):
    if m.n_topics <= 3:
        return exact(m, doc).log_p, 0.0
    lower = ais(m, doc, temperatures=10000, runs=RUNS, seed=99, document=d)[0].log_p
    upper = bdmc_upper(m, doc, np.repeat(z[None], RUNS, axis=0), temperatures=10000, seed=99,
                       document=d).log_p
    return 0.5 * (lower + upper), upper - lower


def main():
    problems = {"mixture K=3 V=50": model("mixture", 3, 50, 1),
                "product K=2 V=50": model("product", 2, 50, 2),
                "mixture K=20 V=500": model("mixture", 20, 500, 3),
                "product K=20 V=500": model("product", 20, 500, 4)}
    warm = model("mixture", 2, 5, 0)
    for f in candidates(warm, np.array([0, 1]), 0).values():  # compile first
        f()
    for name, m in problems.items():
        docs, z = sample_documents(m, LENGTHS, seed=7)
        refs = [reference(m, doc, z[d], d) for d, doc in enumerate(docs)]
        gaps = [g for _, g in refs]
        print(f"{name}: reference gap (BDMC) max {max(gaps):.3f} nats")
        for method in candidates(m, docs[0], 0):
            for length in sorted(set(LENGTHS)):
                errors, secs = [], []
                for d, doc in enumerate(docs):
                    if LENGTHS[d] != length:
                        continue
                    t0 = time.process_time()
                    value = candidates(m, doc, d)[method]()
                    secs.append(time.process_time() - t0)
                    errors.append(value - refs[d][0])
                errors = np.array(errors)
                print(f"  {method:18s} N={length:4d} rmse {np.sqrt(np.mean(errors**2)):.3f} "
                      f"max|err| {np.abs(errors).max():.3f} cpu {np.mean(secs)*1e3:8.1f} ms/doc")


if __name__ == "__main__":
    main()
