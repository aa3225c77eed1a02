"""The logistic-normal estimators by name: the declarations of their modules
(``estimators.method.Method``), collected, and their cost before they run.

Described in docs/methods/logistic-normal.md#cost.

Cost unit: the *decoder term*, one multiply-add of an evaluation of log p(w_d | z): c = J K for the
mixture decoder (J distinct words), c = K V for the product (``likelihood.evaluation_cost``).  The
work of one (document, run), known before it runs from J, K, V and the settings, is each method's
``Method.formula``: ``is_prior`` S c; ``is_laplace`` S (c + K^2) plus the mode search priced at
its bound ``laplace.search_work`` (``laplace.MAX_EVALUATIONS`` evaluations) and charged to every
run (an upper bound); ``is_encoder`` S (c + K^2) plus the encoder's forward pass
(``encoder.Encoder.work``, the ``extra`` of ``run_work``) charged to every run; ``ais``
``ais.AIS_EVALUATIONS`` S c (the work recorded is the evaluations made); ``bdmc`` twice that
(recorded as predicted); ``exact`` the nodes of every quadrature order up to the largest, times c
(an upper bound; the work recorded is that of the orders evaluated).
"""

from __future__ import annotations

import numpy as np

from topiceval.estimators.method import Method, lookup, table
from topiceval.logistic_normal.ais import AIS
from topiceval.logistic_normal.bdmc import BDMC
from topiceval.logistic_normal.exact import EXACT
from topiceval.logistic_normal.is_encoder import IS_ENCODER
from topiceval.logistic_normal.is_laplace import IS_LAPLACE
from topiceval.logistic_normal.is_prior import IS_PRIOR

METHODS: dict[str, Method] = table(IS_LAPLACE, AIS, BDMC, IS_PRIOR, EXACT, IS_ENCODER)


def declaration(method) -> Method:
    """The declaration of logistic-normal method ``method``; ``ValueError`` naming the
    choices."""
    return lookup(METHODS, method, "logistic-normal")


def run_work(spec: Method, c: np.ndarray, n_topics: int, resolved: dict,
             extra=0.0) -> np.ndarray:
    """Predicted decoder terms of one run per document (D,) float64, from each document's cost
    of one likelihood evaluation ``c`` (D,), plus ``extra`` (D,) (the model's own work a method
    adds: ``is_encoder``'s forward pass of the encoder)."""
    c = np.asarray(c, dtype=np.float64)
    return (np.asarray(spec.cost(c, n_topics, resolved), dtype=np.float64) * np.ones(c.shape)
            + extra)
