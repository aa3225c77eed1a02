"""The logistic-normal estimators by name: the declarations of their modules
(``estimators.method.Method``), collected, and their cost before they run.

Described in docs/methods/logistic-normal.md#cost.

Cost unit: the *work unit*, about the CPU time of one mixture decoder term (a multiply-add of
sum_k theta_k beta[k, w]); c, one evaluation of log p(w_d | z) at a fresh draw, weighs its
decoder terms (J K for the mixture, K V for the product), its logs and exps and its fixed
overhead in those units (``likelihood.evaluation_cost``), fitted to CPU time
(benchmarks/ln_rate.py).  The work of one (document, run), known before it runs from J, K, V, R
and the settings, is each method's ``Method.formula``: ``is_prior`` S c; ``is_laplace`` S c plus
the mode search (``laplace.search_work``, priced at ``laplace.PRICED_EVALUATIONS`` evaluations)
made once per document and shared by its R runs; ``is_encoder`` S c plus the encoder's forward
pass (``encoder.Encoder.work``), shared likewise; ``ais`` ``ais.AIS_EVALUATIONS`` S c (the work
recorded is the evaluations made); ``bdmc`` twice that (recorded as predicted); ``exact`` the
nodes of every quadrature order up to the largest, times c (an upper bound; the work recorded
is that of the orders evaluated).
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
             once=0.0, runs: int = 1) -> np.ndarray:
    """Predicted work units of one run per document (D,) float64, whole units rounded up, from
    each document's cost of one likelihood evaluation ``c`` (D,), plus its share of ``once``
    (D,), the work a method makes once per document for all its ``runs`` runs (the mode search,
    the encoder's forward pass: ``runs.work_once_per_document``)."""
    c = np.asarray(c, dtype=np.float64)
    per_run = np.asarray(spec.cost(c, n_topics, resolved), dtype=np.float64) * np.ones(c.shape)
    return np.ceil(per_run + np.asarray(once, dtype=np.float64) / runs)
