"""The GaP-FA estimators by name: the declarations of their modules (``estimators.method.Method``:
settings with defaults and bounds, the function that runs them, their cost), collected.

Methods (docs/methods/gapfa.md): ``exact`` (§6.3, exact.py), ``ds`` (§6.4, ds.py), ``hm``
(§6.5, hm.py), ``l2r``, ``l2r_exact`` and ``l2r_seq`` (§6.6, l2r.py), ``ais`` and ``bdmc``
(annealing, bdmc.py); each module declares its methods' settings, defaults and cost formula.

``l2r_seq`` is the unbiased sequential variant (not in Capdevila et al. 2018), kept for testing L2R.

Cost (``Method.cost`` and ``Method.formula``; ``predicted_work``; ``Runs.work`` of
``gapfa.estimate_runs``): the work of one run on one document, known before the run from the
document's J non-zero words, their counts y_j (Y = sum_j y_j), T and the settings.  The unit of
the sampling methods is the *topic-word site update*: one O(1) step of the kernels' loops,
counted from those loops (§6.9 gives the orders), so that the work grows with everything a
kernel loops over -- the distinct words, the topics and the counts:

* a Gibbs update of row x_j. (6.11)/(6.13): T (its multinomial weights phi_jt theta_t), and
  one step per latent count drawn into it: y_j;
* the theta draws of one iteration (6.10)/(6.12): T (one gamma draw per topic);
* one term lambda_j of log p(y_d | theta) (§6.4): T;
* the L2R proposal rho of word j (6.16): T; one proposal draw b with its weight (6.17): T and
  its y_j latent counts; the zero-word block (6.18): T;
* the exact conditional (6.15) of word j by convolution: T (y_j + 1) NB pmf values plus
  (T - 1) (y_j + 1) (y_j + 2) / 2 convolution terms.

The steps differ in price (measured on one core, ``benchmarks/README.md``: about 1 ns per row
or likelihood site, 5 ns per latent count draw at T = 5 and 25 ns at T = 100, 90 ns per theta
draw); the unit bounds the work, and the family's measured rate (``limits.RATE``) converts it
to time within a few times.  Not counted: per-document set-up (O(T J)).  With S samples, B
burn-in, G Gibbs iterations, S' inner samples, the work per document and run is each method's
``Method.formula`` (e.g. ds S T (J + 1); hm (B + S) (T (J + 1) + Y) + S T J; exact: the terms of
the algorithm used, ``exact.n_terms``, not site updates).  An all-zero document costs its
per-sample O(T) steps (theta draws, zero block).

L2R's G J (J + 1) / 2: before each sample of factor j = 1..J + 1 (the last is the zero block),
G Gibbs sweeps over the j - 1 left rows, so row j is redrawn (its y_j counts) J + 1 - j times;
l2r_seq rejuvenates only before words 2..J.  Counts are exact integers below 2**53 and saturate
at ``MAX_WORK`` (an exact marginal too large to compute).
"""

from __future__ import annotations

import numpy as np

from topiceval.counts import as_count_matrix
from topiceval.estimators.gapfa._data import Docs
from topiceval.estimators.gapfa.bdmc import AIS, BDMC
from topiceval.estimators.gapfa.ds import DS
from topiceval.estimators.gapfa.exact import EXACT
from topiceval.estimators.gapfa.hm import HM
from topiceval.estimators.gapfa.l2r import L2R, L2R_EXACT, L2R_SEQ
from topiceval.estimators.method import Method, lookup, table
from topiceval.validation import check_integer

MAX_WORK = 9_000_000_000_000_000_000  # < 2**63

METHODS: dict[str, Method] = table(EXACT, DS, HM, L2R, L2R_EXACT, L2R_SEQ, AIS, BDMC)


def get(method: str) -> Method:
    """The declaration of GaP-FA method ``method``; ``ValueError`` naming the choices."""
    return lookup(METHODS, method, "GaP-FA")


def document_work(method: Method, docs: Docs, n_topics: int, resolved: dict) -> np.ndarray:
    """Cost of one run per document (D,) int64 for prepared ``docs`` and resolved settings."""
    with np.errstate(over="ignore", invalid="ignore"):
        value = np.asarray(method.cost(docs, n_topics, resolved), dtype=np.float64)
    return np.where(value < MAX_WORK, value, MAX_WORK).astype(np.int64)


def document_memory(docs: Docs, n_topics: int) -> np.ndarray:
    """Bytes of the working arrays of one (document, run) task, (D,) float64, an upper bound for
    every sampling method: 8 J T doubles (the word loadings and their logs, their transpose, the
    rows' running sums, L2R's prefix terms) and 4 (y_max + 1) (L2R's log-factorial table and
    its three convolution arrays)."""
    sizes = np.diff(docs.offsets)
    largest = np.zeros(sizes.shape[0])
    if docs.counts.size:
        starts = docs.offsets[:-1][sizes > 0]
        largest[sizes > 0] = np.maximum.reduceat(docs.counts, starts)
    return 8.0 * (8.0 * sizes * n_topics + 4.0 * (largest + 1.0))


def predicted_work(method: str, counts, n_topics: int, settings: dict | None = None) -> np.ndarray:
    """The work of one run of ``method`` on every document, before running it.

    Parameters
    ----------
    method : str
        One of ``METHODS``.
    counts : array_like or scipy.sparse matrix
        (D, V) non-negative integer counts.
    n_topics : int
        T, the number of factors of the model.
    settings : dict, optional
        The method's settings; missing ones take their defaults.

    Returns
    -------
    numpy.ndarray
        (D,) int64: topic-word site updates per document and run for the sampling methods,
        terms of the exact algorithm for ``exact`` (see the module docstring); R runs cost R
        times as much.

    Raises
    ------
    ValueError
        For an unknown method or setting, invalid counts or a non-positive ``n_topics``.
    """
    m = get(method)
    resolved = m.resolve(dict(settings or {}))
    n_topics = check_integer("n_topics", n_topics, 1)
    mat = as_count_matrix(counts)
    docs = Docs(mat.indptr.astype(np.int64), mat.indices.astype(np.int64),
                mat.data.astype(np.int64))
    return document_work(m, docs, n_topics, resolved)
