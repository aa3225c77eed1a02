"""LDA training and evaluation helpers (docs/methods/lda.md).

* :func:`fit_gibbs` — collapsed Gibbs sampler (sparse, optionally multi-threaded), §1.2, with
  hyper-parameter optimisation §1.3 (:mod:`topiceval.training.lda.hyper`).
* :func:`fit_vem` — variational EM of Béchard & Gervet, §1.4; :func:`vem_fold_in` its fold-in.
* :func:`fold_in` — query sampling (1.16) and fixed-Φ fold-in (1.5), §1.5.
* :mod:`topiceval.training.lda.perplexity` — P1-P5 of §1.6, each named for what it is.
* :func:`synthetic_corpus`, :func:`seed002_synthetic_set` — §1.1 and the §9.2 synthetic sets;
  :func:`synthetic_sample` also returns the topic assignments that generated each document.
* :func:`top_words` — most probable words per topic.
"""

from topiceval.training.lda.foldin import FoldInResult, fold_in
from topiceval.training.lda.gibbs import GibbsResult, fit_gibbs
from topiceval.training.lda.perplexity import (
    completion_perplexity,
    marginal_perplexity,
    plugin_log_likelihood,
    plugin_perplexity,
    pooled_perplexity,
    sklearn_bound_perplexity,
)
from topiceval.training.lda.synthetic import (
    sample_documents,
    seed002_synthetic_set,
    synthetic_corpus,
    synthetic_sample,
)
from topiceval.training.lda.topwords import top_words
from topiceval.training.lda.vem import VemFoldIn, VemResult, fit_vem, vem_fold_in

__all__ = [
    "FoldInResult",
    "GibbsResult",
    "VemFoldIn",
    "VemResult",
    "completion_perplexity",
    "fit_gibbs",
    "fit_vem",
    "fold_in",
    "marginal_perplexity",
    "plugin_log_likelihood",
    "plugin_perplexity",
    "pooled_perplexity",
    "sample_documents",
    "seed002_synthetic_set",
    "sklearn_bound_perplexity",
    "synthetic_corpus",
    "synthetic_sample",
    "top_words",
    "vem_fold_in",
]
