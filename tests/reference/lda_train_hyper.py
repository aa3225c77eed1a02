"""MALLET's Dirichlet optimisers written out literally, in plain Python.

Described in docs/methods/lda.md#hyperparameter-optimisation.

``learn_parameters`` follows ``Dirichlet.learnParameters(parameters, observations,
observationLengths, shape, scale, numIterations)`` with the full digamma recurrence up to each
histogram's largest non-zero bin; ``form`` selects the update line (2012 "new version", the 2009
"old version", or plain Minka without the hyper-prior).  ``learn_symmetric`` follows
``learnSymmetricConcentration`` but always iterates the recurrence (no digamma shortcut).
Histograms are dense lists indexed by the count.
"""

from __future__ import annotations


def learn_parameters(parameters, observations, lengths, shape, scale, iterations, form):
    params = [float(p) for p in parameters]
    total = sum(params)
    limits = [max((k for k, c in enumerate(h) if c > 0), default=-1) for h in observations]
    for _ in range(iterations):
        denominator = 0.0
        digamma = 0.0
        for i in range(1, len(lengths)):
            digamma += 1.0 / (total + i - 1)
            denominator += lengths[i] * digamma
        if form != "minka":
            denominator -= 1.0 / scale
        total = 0.0
        for k, hist in enumerate(observations):
            old = params[k]
            num = 0.0
            digamma = 0.0
            for i in range(1, limits[k] + 1):
                digamma += 1.0 / (old + i - 1)
                num += hist[i] * digamma
            if form == "mallet2012":
                params[k] = old * (num + shape) / denominator
            elif form == "mallet2009":
                params[k] = (old * num + shape) / denominator
            else:
                params[k] = old * num / denominator
            total += params[k]
    return params


def learn_symmetric(count_histogram, lengths, n_dims, value, iterations=200):
    largest = max((k for k, c in enumerate(count_histogram) if c > 0), default=0)
    for _ in range(iterations):
        param = value / n_dims
        digamma = 0.0
        numerator = 0.0
        for k in range(1, largest + 1):
            digamma += 1.0 / (param + k - 1)
            numerator += count_histogram[k] * digamma
        digamma = 0.0
        denominator = 0.0
        for k in range(1, len(lengths)):
            digamma += 1.0 / (value + k - 1)
            denominator += lengths[k] * digamma
        value = param * numerator / denominator
    return value
