"""Held-out likelihood estimators for LDA (wallach2009; docs/methods/lda-estimators.md)::

    from topiceval.estimators import lda
    logp = lda.estimate(method, docs, phi, alpha_m, *, seed=0, **settings)    # (D,)
    logp2 = lda.complete(method, docs, phi, alpha_m, *, seed=0, **settings)   # log P(w2 | w1), (D,)

``docs``: a sequence of 1-D integer token arrays in document order (a ``Corpus`` works);
``phi``: (T, V), strictly positive rows summing to 1; ``alpha_m``: (T,) positive.  Natural-log
estimates, one per document.  Document d's estimate depends only on (seed, its key = its position
in ``docs``, method, settings): the same seed gives bit-identical results for any number of
threads, and two copies of a document at different positions get independent estimates.

``estimate`` methods: ``is_pt``, ``is_pzw``, ``is_ip``, ``hm``, ``ais``, ``chib``, ``lr``
(sequential, unbiased), ``lr_wallach`` (Algorithm 3 as printed), ``exact``.  ``complete``
methods: ``et``, ``ais``, ``lr``, ``lr_wallach``, ``exact``; setting ``split`` = N1 (an int or one
per document; default floor(N / 2)).  Settings and defaults: ``registry.ESTIMATE`` /
``registry.COMPLETE``.

Costs: ``return_cost=True`` returns ``(logp, Cost(site_updates, seconds))``: the Gibbs site updates
(or equivalent O(T) evaluations, as counted by Wallach et al. 2009 Table 1) actually performed, and
the wall-clock seconds of the call.  ``estimate_runs`` / ``complete_runs`` run R independent runs
per document in one parallel call and return per-(document, run) estimates and site updates
(``Runs``); run 0 of ``estimate_runs`` equals ``estimate`` for the same seed.

Model comparison (foulds_smyth, docs/methods/lda-estimators.md#ratio-ais, ratio_ais.py):
``lda.compare(docs, (phi_a, alpha_m_a), (phi_b, alpha_m_b), samples=1, temperatures=100)``
returns a ``Comparison`` with ``log_ratio`` = log P-hat(w | A) - log P-hat(w | B) by ratio-AIS,
the reversed runs' estimate, ``reciprocal_gap`` and ``suspect`` (each (D,));
``lda.compare_standard`` is the standard difference of two independent AIS estimates.
"""

from topiceval.estimators.lda.api import (
    COMPLETION_METHODS,
    METHODS,
    Cost,
    Runs,
    check_limits,
    complete,
    complete_runs,
    estimate,
    estimate_runs,
)
from topiceval.estimators.lda.ratio_ais import Comparison, compare, compare_standard

__all__ = [
    "COMPLETION_METHODS",
    "METHODS",
    "Comparison",
    "Cost",
    "Runs",
    "check_limits",
    "compare",
    "compare_standard",
    "complete",
    "complete_runs",
    "estimate",
    "estimate_runs",
]
