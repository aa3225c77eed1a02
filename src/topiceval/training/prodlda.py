"""ProdLDA (Srivastava and Sutton 2017) trained with pyro: the study's trainer ``prodlda``.

Described in docs/logistic-normal.md#prodlda-in-a-study; the library was chosen by
benchmarks/prodlda_trainers.py (benchmarks/README.md, "ProdLDA trainers").

The model is pyro's ProdLDA example with the paper's prior:

    z_d ~ N(mu, diag(sigma2)),  mu = 0, sigma2_k = 1 - 1/K     (the Laplace approximation of a
                                                                Dirichlet(1) in the softmax basis)
    theta_d = softmax(z_d)
    log p(w_d | theta_d) = sum_v x_dv log softmax_v(BN(theta_d' W))    (x_dv: counts of word v)

BN is a batch norm without affine parameters (training mode: the minibatch's statistics;
evaluation mode: its running statistics).  The guide q(z_d | w_d) = N(loc_d, diag(scale_d^2)) is
the paper's encoder: two softplus layers of ``hidden`` units, dropout, and batch-normed linear
heads.  Training is pyro's SVI on ``Trace_ELBO`` with Adam, ``epochs`` passes over shuffled
minibatches; on one torch thread, a seed gives the same model bit for bit.

:func:`to_model` reads the trained decoder in evaluation mode as a ``LogisticNormalModel``:
p(w | theta) = softmax(theta' B + b) with the running statistics folded in
(``logistic_normal.fold_batch_norm``) and the prior above; so ``topiceval.evaluate`` scores the
model whose ELBO :func:`elbo_number` reports (the library's own number, a lower bound on the
same log P(w_d)).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from topiceval.adapters._common import INSTALL_HINT
from topiceval.logistic_normal.model import LogisticNormalModel, fold_batch_norm

SETTINGS = {"epochs": 50, "hidden": 100, "dropout": 0.2, "batch_size": 32,
            "learning_rate": 1e-3}
OWN_PARTICLES = 10  # single-particle ELBO estimates averaged for the own number
EXTRA = "neural"  # the optional extra that installs pyro (pyproject.toml)


def available() -> bool:
    """Whether pyro (and so torch) is installed."""
    return importlib.util.find_spec("pyro") is not None


def require_pyro(where: str) -> None:
    """``ValueError`` naming the extra when pyro is not installed."""
    if not available():
        raise ValueError(f"{where} needs the 'pyro-ppl' package, which is not installed: pip "
                         f"install 'topiceval-heldout[{EXTRA}]' {INSTALL_HINT}")


def prior(n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """(mu, sigma2): ProdLDA's Laplace approximation of a Dirichlet(1) prior, mu_k = 0 and
    sigma2_k = (1 - 2/K) + (1/K^2) sum_j 1 = 1 - 1/K (Srivastava and Sutton 2017, eq. 3)."""
    return np.zeros(n_topics), np.full(n_topics, 1.0 - 1.0 / n_topics)


@dataclass
class ProdLDAFit:
    """A trained ProdLDA: the torch modules (``encoder``, ``decoder``, in evaluation mode),
    the prior, the vocabulary, the seed and the training losses (one per epoch, nats per
    training document)."""

    encoder: object
    decoder: object
    mu: np.ndarray
    sigma2: np.ndarray
    vocab: np.ndarray
    seed: int
    losses: list


def _modules(n_types: int, n_topics: int, hidden: int, dropout: float):
    import torch
    from torch import nn

    class Encoder(nn.Module):
        """w_d (counts) -> (loc, scale) of q(z_d | w_d)."""

        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(dropout)
            self.fc1 = nn.Linear(n_types, hidden)
            self.fc2 = nn.Linear(hidden, hidden)
            self.fcmu = nn.Linear(hidden, n_topics)
            self.fclv = nn.Linear(hidden, n_topics)
            self.bnmu = nn.BatchNorm1d(n_topics, affine=False)
            self.bnlv = nn.BatchNorm1d(n_topics, affine=False)

        def forward(self, x):
            h = self.drop(nn.functional.softplus(self.fc2(nn.functional.softplus(self.fc1(x)))))
            return self.bnmu(self.fcmu(h)), torch.exp(0.5 * self.bnlv(self.fclv(h)))

    class Decoder(nn.Module):
        """theta_d -> log softmax(BN(theta_d' W))."""

        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(dropout)
            self.beta = nn.Linear(n_topics, n_types, bias=False)
            self.bn = nn.BatchNorm1d(n_types, affine=False)

        def forward(self, theta):
            return nn.functional.log_softmax(self.bn(self.beta(self.drop(theta))), dim=1)

    return Encoder(), Decoder()


def _model_guide(encoder, decoder, mu: np.ndarray, sigma2: np.ndarray):
    """pyro's (model, guide) of ProdLDA over a (B, V) float tensor of counts."""
    import pyro
    import pyro.distributions as dist
    import torch

    loc0 = torch.tensor(mu, dtype=torch.float32)
    scale0 = torch.tensor(np.sqrt(sigma2), dtype=torch.float32)

    def model(docs):
        pyro.module("decoder", decoder)
        with pyro.plate("documents", docs.shape[0]):
            z = pyro.sample("logtheta", dist.Normal(loc0, scale0).to_event(1))
            logp = decoder(torch.softmax(z, dim=-1))
            pyro.factor("obs", (docs * logp).sum(-1))

    def guide(docs):
        pyro.module("encoder", encoder)
        with pyro.plate("documents", docs.shape[0]):
            loc, scale = encoder(docs)
            pyro.sample("logtheta", dist.Normal(loc, scale).to_event(1))

    return model, guide


def _dense(counts: sp.csr_matrix, rows):
    import torch

    return torch.tensor(counts[rows].toarray(), dtype=torch.float32)


def _one_thread():
    """Run torch on one thread (the study's jobs ask for one); returns the restore call."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    return lambda: torch.set_num_threads(before)


def fit_prodlda(counts, vocab, n_topics: int, *, seed: int = 0, **settings) -> ProdLDAFit:
    """Train ProdLDA on a (D, V) count matrix (documents by the words ``vocab``).

    ``settings``: :data:`SETTINGS` (``epochs``, ``hidden``, ``dropout``, ``batch_size``,
    ``learning_rate``).  A minibatch of one document is skipped (a batch norm needs two).
    """
    require_pyro("fit_prodlda")
    import pyro
    import torch

    settings = {**SETTINGS, **settings}
    counts = sp.csr_matrix(counts, dtype=np.float32)
    n_docs, n_types = counts.shape
    restore = _one_thread()
    try:
        pyro.clear_param_store()
        pyro.set_rng_seed(int(seed))
        encoder, decoder = _modules(n_types, int(n_topics), int(settings["hidden"]),
                                    float(settings["dropout"]))
        mu, sigma2 = prior(int(n_topics))
        model, guide = _model_guide(encoder, decoder, mu, sigma2)
        adam = pyro.optim.Adam({"lr": float(settings["learning_rate"])})
        svi = pyro.infer.SVI(model, guide, adam, loss=pyro.infer.Trace_ELBO())
        order = torch.Generator().manual_seed(int(seed))
        size = int(settings["batch_size"])
        losses = []
        for _ in range(int(settings["epochs"])):
            perm = torch.randperm(n_docs, generator=order).numpy()
            total = 0.0
            for start in range(0, n_docs, size):
                rows = perm[start:start + size]
                if rows.size > 1:
                    total += svi.step(_dense(counts, rows))
            losses.append(total / n_docs)
        encoder.eval()
        decoder.eval()
    finally:
        restore()
    return ProdLDAFit(encoder, decoder, mu, sigma2, np.asarray(vocab, dtype=str), int(seed),
                      losses)


def to_model(fit: ProdLDAFit, meta: dict | None = None) -> LogisticNormalModel:
    """The trained ProdLDA in evaluation mode as a ``LogisticNormalModel``: B = W' with the
    decoder's batch norm (running statistics, its eps) folded in, bias b, the prior as
    trained."""
    bn = fit.decoder.bn
    weight = fit.decoder.beta.weight.detach().double().numpy().T  # (K, V)
    beta, bias = fold_batch_norm(weight, None, bn.running_mean.double().numpy(),
                                 bn.running_var.double().numpy(), eps=float(bn.eps))
    return LogisticNormalModel(fit.mu, fit.sigma2, beta, "product", bias, fit.vocab,
                               {"source": "pyro ProdLDA (topiceval.training.prodlda)",
                                **(meta or {})})


def elbo_number(fit: ProdLDAFit, counts, *, seed: int = 0) -> tuple[float, float]:
    """(total, standard error) of the ELBO of the documents ``counts`` (D, V) in nats: pyro's
    ``Trace_ELBO().loss`` with the trained guide, both networks in evaluation mode, averaged
    over :data:`OWN_PARTICLES` single-particle estimates (the error is their spread).  It is
    a lower bound on sum_d log P(w_d) under :func:`to_model`'s model (in expectation)."""
    import pyro
    import torch

    counts = sp.csr_matrix(counts, dtype=np.float32)
    model, guide = _model_guide(fit.encoder, fit.decoder, fit.mu, fit.sigma2)
    restore = _one_thread()
    try:
        pyro.set_rng_seed(int(seed))
        docs = _dense(counts, np.arange(counts.shape[0]))
        elbo = pyro.infer.Trace_ELBO()
        with torch.no_grad():
            values = np.array([-elbo.loss(model, guide, docs) for _ in range(OWN_PARTICLES)])
    finally:
        restore()
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(values.size))


def elbo_own_number(fit: ProdLDAFit, counts, *, seed: int = 0):
    """pyro's ELBO of the held-out documents ``counts`` (D, V over the model's words) as an
    ``OwnNumber``: ProdLDA's "approximated perplexity" exp(-ELBO / N) (:func:`elbo_number`)."""
    from topiceval.adapters.own_numbers import OwnNumber

    counts = sp.csr_matrix(counts)
    total, stderr = elbo_number(fit, counts, seed=seed)
    tokens = int(counts.sum())
    return OwnNumber(
        "pyro", "-pyro.infer.Trace_ELBO().loss(model, guide, docs)", float(np.exp(-total / tokens)),
        "perplexity exp(-ELBO / N), as ProdLDA's code prints it ('approximated perplexity')",
        "variational bound", total, stderr, tokens, int((counts.sum(axis=1) > 0).sum()),
        "held-out", "every held-out token over the study's vocabulary",
        f"the mean of {OWN_PARTICLES} single-sample ELBOs with the trained encoder as q, both "
        "networks in evaluation mode: a lower bound on the log-likelihood that topiceval "
        "estimates for the same model")
