"""The IS-Laplace mode search's price against the work it does (issue 49).

On K = 20, V = 2,000 models (mixture and product decoders; prior scales sigma 1 and 3; topic
concentrations or logit-weight scales 1 to 10) and 10 synthetic documents of 10, 100 and 1,000
tokens each, ``laplace.fit``'s evaluations of f are counted, and its CPU-seconds turned into
work units at the measured rate ``limits.RATE`` against the price ``laplace.search_work``
(``PRICED_EVALUATIONS`` evaluations); with the CPU-seconds of the search and of 500 t_5 weights
of the same document (compilation excluded by a first call).

    nice python benchmarks/ln_mode_search.py
"""

import time

import numpy as np

from topiceval.limits import RATE
from topiceval.logistic_normal import LogisticNormalModel, laplace
from topiceval.logistic_normal.is_laplace import is_laplace_weights
from topiceval.logistic_normal.likelihood import document_decoder
from topiceval.logistic_normal.simulate import sample_documents
from topiceval.logistic_normal.weights import stream

K, V, SAMPLES = 20, 2000, 500


def model(decoder, scale, sigma, seed=0):
    rng = np.random.default_rng(seed)
    if decoder == "mixture":
        return LogisticNormalModel(np.zeros(K), np.full(K, sigma),
                                   rng.dirichlet(np.full(V, 0.05 / scale), size=K))
    return LogisticNormalModel(np.zeros(K), np.full(K, sigma), scale * rng.normal(size=(K, V)),
                               decoder="product", bias=rng.normal(size=V))


def weights_seconds(dec, fitted):
    out = np.empty(SAMPLES)
    t0 = time.process_time()
    is_laplace_weights(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu, dec.chol,
                       fitted.mode, np.linalg.cholesky(fitted.cov), 5.0,
                       stream("is_laplace", 0, 0), out)
    return time.process_time() - t0


def main():
    warm = model("product", 1.0, 1.0)
    doc = document_decoder(warm, np.array([0, 1]))
    weights_seconds(doc, laplace.fit(doc))
    print("decoder  scale sigma     N  evals  spent/price  fit ms  500 weights ms")
    for decoder in ("mixture", "product"):
        for scale in (1.0, 10.0):
            for sigma in (1.0, 3.0):
                m = model(decoder, scale, sigma)
                for length in (10, 100, 1000):
                    docs, _ = sample_documents(m, [length] * 10, seed=1)
                    evals, ratios, fit_s, weights_s = [], [], 0.0, 0.0
                    for ids in docs:
                        dec = document_decoder(m, ids)
                        t0 = time.process_time()
                        fitted = laplace.fit(dec)
                        spent = time.process_time() - t0
                        fit_s += spent
                        weights_s += weights_seconds(dec, fitted)
                        evals.append(fitted.evaluations)
                        price = laplace.search_work(decoder, [dec.words.size], K, V)[0]
                        ratios.append(spent * RATE["logistic_normal"] / price)
                    print(f"{decoder:8s} {scale:5g} {sigma:5g} {length:5d} {min(evals):3d}-"
                          f"{max(evals):2d} {min(ratios):6.2f}-{max(ratios):4.2f} "
                          f"{1e3 * fit_s / len(docs):8.1f} {1e3 * weights_s / len(docs):8.1f}",
                          flush=True)


if __name__ == "__main__":
    main()
