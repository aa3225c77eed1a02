"""The GaP-FA estimators by name: their settings, defaults, the function that runs them and
their cost.

| method      | settings (defaults)                                                  | spec  |
|-------------|----------------------------------------------------------------------|-------|
| exact       | max_terms (1e9), algorithm ("auto" / "enumerate" / "dp")             | §6.3  |
| ds          | samples (1000)                                                       | §6.4  |
| hm          | samples (1000), burnin (100)                                         | §6.5  |
| l2r         | samples (1000), inner_samples S' (1), gibbs G (1), proposal ("paper") | §6.6  |
| l2r_exact   | samples (1000), gibbs G (1)                                          | §6.6  |
| l2r_seq     | samples = particles R (1000), gibbs G (1; 0 = no rejuvenation)       | §6.6  |

``l2r_seq`` is the unbiased sequential variant (not in Capdevila et al. 2018), kept for testing L2R.

Cost (``predicted_work``; ``Runs.work`` of ``gapfa.estimate_runs``): the work of one run on one
document, known before the run from the document's J non-zero words, their counts y_j, T and
the settings.  The unit of the sampling methods is the *topic-word site update*: one O(1) pass
over one (non-zero word, topic) pair, counted from the kernels' loops (§6.9 gives the orders):

* a Gibbs update of row x_j. (6.11)/(6.13): T (its multinomial weights phi_jt theta_t);
* one term lambda_j of log p(y_d | theta) (§6.4): T;
* the L2R proposal rho of word j (6.16): T; one proposal draw b with its weight (6.17): T;
* the exact conditional (6.15) of word j by convolution: T (y_j + 1) NB pmf values plus
  (T - 1) (y_j + 1) (y_j + 2) / 2 convolution terms.

Not counted: per-iteration O(T) work that touches no word (theta draws (6.10)/(6.12), the
zero-word block (6.18)), per-document set-up (O(T J)) and the y_j categorical draws of a row
(each O(T) for T < 32, O(log T) above).  With S samples, B burn-in, G Gibbs iterations, S'
inner samples, per document and run:

| method    | work                                                                        |
|-----------|-----------------------------------------------------------------------------|
| ds        | S T J                                                                       |
| hm        | (B + S) T J (Gibbs) + S T J (likelihood) = (B + 2 S) T J                     |
| l2r       | S T (G J (J + 1) / 2 + (S' + 1) J)                                          |
| l2r_exact | S (G T J (J + 1) / 2 + sum_j [2 T + T (y_j + 1) + (T - 1)(y_j + 1)(y_j + 2) / 2]) |
| l2r_seq   | S T (G J (J - 1) / 2 + 2 J)                                                 |
| exact     | terms of the algorithm used (``exact.n_terms``): prod_j C(y_j + T - 1, T - 1)  |
|           | summands (enumeration) or T (C(Y + T, T) - 1) state x topic updates (DP)   |

L2R's G J (J + 1) / 2: before each sample of factor j = 1..J + 1 (the last is the zero block),
G Gibbs sweeps over the j - 1 left rows; l2r_seq rejuvenates only before words 2..J.  Counts
are exact integers below 2**53 and saturate at ``MAX_WORK`` (an exact marginal too large to
compute).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from topiceval.counts import as_count_matrix
from topiceval.estimators.gapfa import ds, exact, hm, l2r
from topiceval.estimators.gapfa._data import Docs

MAX_WORK = 9_000_000_000_000_000_000  # < 2**63


class Method(NamedTuple):
    run: Callable
    defaults: dict
    sampled: bool
    description: str
    cost: Callable  # (docs: Docs, n_topics, resolved settings) -> float64 (D,)


def _n_words(docs) -> np.ndarray:
    return np.diff(docs.offsets).astype(np.float64)


def _per_document(docs, values) -> np.ndarray:
    """sum over each document's non-zero words of ``values`` (one per non-zero word)."""
    out = np.zeros(docs.offsets.shape[0] - 1)
    np.add.at(out, np.repeat(np.arange(out.size), np.diff(docs.offsets)), values)
    return out


def _ds_cost(docs, t, s):
    return s["samples"] * t * _n_words(docs)


def _hm_cost(docs, t, s):
    return (s["burnin"] + 2 * s["samples"]) * t * _n_words(docs)


def _l2r_cost(docs, t, s):
    j = _n_words(docs)
    return s["samples"] * t * (s["gibbs"] * j * (j + 1) / 2 + (s["inner_samples"] + 1) * j)


def _l2r_exact_cost(docs, t, s):
    j = _n_words(docs)
    y = docs.counts.astype(np.float64)
    conditional = _per_document(docs, 2 * t + t * (y + 1) + (t - 1) * (y + 1) * (y + 2) / 2)
    return s["samples"] * (s["gibbs"] * t * j * (j + 1) / 2 + conditional)


def _l2r_seq_cost(docs, t, s):
    j = _n_words(docs)
    return s["samples"] * t * (s["gibbs"] * j * (j - 1) / 2 + 2 * j)


def _exact_cost(docs, t, s):
    return exact.n_terms(docs, t, s["algorithm"])


METHODS: dict[str, Method] = {
    "exact": Method(exact.run, {"max_terms": 1e9, "algorithm": "auto"}, False,
                    "exact marginal: enumeration (6.7) or DP (6.9)", _exact_cost),
    "ds": Method(ds.run, {"samples": 1000}, True, "direct sampling from the prior (6.4)",
                 _ds_cost),
    "hm": Method(hm.run, {"samples": 1000, "burnin": 100}, True,
                 "harmonic mean over posterior Gibbs draws (6.5)", _hm_cost),
    "l2r": Method(l2r.run,
                  {"samples": 1000, "inner_samples": 1, "gibbs": 1, "proposal": "paper"}, True,
                  "left-to-right with importance-sampled conditionals (6.6)", _l2r_cost),
    "l2r_exact": Method(l2r.run_exact, {"samples": 1000, "gibbs": 1}, True,
                        "left-to-right with exact conditionals, L2R-E (6.15)", _l2r_exact_cost),
    "l2r_seq": Method(l2r.run_sequential, {"samples": 1000, "gibbs": 1}, True,
                      "unbiased sequential left-to-right variant (6.6, optional)", _l2r_seq_cost),
}

_COUNTS = {"samples": 1, "inner_samples": 1, "gibbs": 0, "burnin": 0}


def get(method: str) -> Method:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"unknown GaP-FA method {method!r}; choose one of {sorted(METHODS)}")
    return METHODS[method]


def resolve_settings(method: str, settings: dict) -> dict:
    """Defaults overridden by ``settings``; ``ValueError`` for an unknown or invalid setting."""
    spec = get(method)
    unknown = sorted(set(settings) - set(spec.defaults))
    if unknown:
        raise ValueError(
            f"unknown setting(s) {unknown} for method {method!r}; "
            f"allowed: {sorted(spec.defaults)}"
        )
    out = {**spec.defaults, **settings}
    for name, value in out.items():
        if name in _COUNTS:
            if (not isinstance(value, numbers.Integral) or isinstance(value, bool)
                    or value < _COUNTS[name]):
                raise ValueError(f"{name} must be an integer >= {_COUNTS[name]}, got {value!r}")
            out[name] = int(value)
    if method in ("l2r", "l2r_exact") and out["gibbs"] < 1:
        raise ValueError(f"gibbs must be >= 1 for {method!r}: its left-posterior chain needs at "
                         f"least one Gibbs iteration per sample, got {out['gibbs']}")
    if "max_terms" in out:
        value = out["max_terms"]
        if not isinstance(value, numbers.Real) or not value > 0:
            raise ValueError(f"max_terms must be a positive number, got {value!r}")
    return out


def work(method: str, docs: Docs, n_topics: int, resolved: dict) -> np.ndarray:
    """Cost of one run per document (D,) int64 for prepared ``docs`` and resolved settings."""
    with np.errstate(over="ignore", invalid="ignore"):
        value = np.asarray(get(method).cost(docs, n_topics, resolved), dtype=np.float64)
    return np.where(value < MAX_WORK, value, MAX_WORK).astype(np.int64)


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
    resolved = resolve_settings(method, dict(settings or {}))
    if (not isinstance(n_topics, numbers.Integral) or isinstance(n_topics, bool)
            or n_topics < 1):
        raise ValueError(f"n_topics must be a positive integer, got {n_topics!r}")
    mat = as_count_matrix(counts)
    docs = Docs(mat.indptr.astype(np.int64), mat.indices.astype(np.int64),
                mat.data.astype(np.int64))
    return work(method, docs, int(n_topics), resolved)
