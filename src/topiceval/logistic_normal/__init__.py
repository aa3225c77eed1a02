"""The logistic-normal family: ProdLDA, ETM, the correlated topic model.

Described in docs/methods/logistic-normal.md.

* ``model``: ``LogisticNormalModel`` (mu, Sigma, the decoder, an optional encoder) and
  ``fold_batch_norm``; ``encoder``: a neural model's amortized q(z | w), arrays only;
* ``likelihood``: log p(w_d | z) and the Gaussian prior, numba kernels;
* ``laplace``: the posterior mode and curvature of one document (the Laplace proposal);
* ``is_prior``, ``is_laplace``, ``is_encoder``, ``ais``: unbiased estimators of P(w_d);
* ``bdmc``: reverse AIS from exact posterior samples, a stochastic upper bound;
* ``elbo``: the evidence lower bound of a diagonal Gaussian q (the libraries' number);
* ``exact``: Gauss-Hermite quadrature of P(w_d) for K <= 3, the oracle of the tests.
* ``simulate``: documents drawn from a model, with the z that generated each.
* ``registry``, ``runs``: the methods by name and their runs on many documents, priced first
  (what ``topiceval.evaluate`` calls);
* ``completion``: document completion log P(w2 | w1);
* ``importers`` (with ``importers_torch``, ``importers_numpy``, ``importers_encoders``),
  ``torchfile``: models saved by contextualized-topic-models, pyro's ProdLDA, ETM and scholar,
  read without torch (the encoders of pyro's ProdLDA and ETM too); OCTIS's output refused.
"""

from topiceval.logistic_normal.model import LogisticNormalModel, fold_batch_norm

__all__ = ["LogisticNormalModel", "fold_batch_norm"]
