"""Gamma-Poisson factor analysis (Capdevila et al. 2018): beta-gamma PFA training, NB/NM pmfs.

* ``fit_gapfa(counts, n_topics, ...)`` -> ``GaPModel`` (Gibbs sampler,
  docs/methods/gapfa.md#training);
* ``pmf``: negative binomial / negative multinomial log pmfs (§6.2);
* ``as_count_matrix`` (from ``topiceval.counts``): the validated D x V count matrix every GaP-FA
  function accepts.

The held-out likelihood estimators live in ``topiceval.estimators.gapfa``.
"""

from topiceval.counts import as_count_matrix
from topiceval.training.gapfa.fit import fit_gapfa

__all__ = ["as_count_matrix", "fit_gapfa"]
