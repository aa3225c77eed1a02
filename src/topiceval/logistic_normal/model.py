"""``LogisticNormalModel``: a logistic-normal prior on the topic proportions and a decoder.

Described in docs/methods/logistic-normal.md#model.

    z_d ~ N(mu, Sigma)                     mu (K,), Sigma (K, K) or its diagonal (K,)
    theta_d = softmax(z_d)
    w_dn | theta_d ~ p(w | theta_d)        for n = 1..N_d, independently

with one of two decoders (``decoder``):

* ``"mixture"`` (CTM, ETM): p(w | theta) = sum_k theta_k beta[k, w]; ``beta`` (K, V) holds
  topics, rows on the simplex (ETM's softmax(rho alpha') is one such matrix);
* ``"product"`` (ProdLDA, the contextualized topic models): p(w | theta) = softmax_w(theta' B +
  b); ``beta`` is B (K, V) and ``bias`` is b (V,), any real numbers.  A decoder that normalises
  the logits in evaluation mode (batch norm with running statistics) is affine in them, so it is
  folded into B and b by ``fold_batch_norm``.

Documents are matched to the model by word (``vocab``) through ``topiceval.documents``, like
``LDAModel`` and ``GaPModel``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from topiceval.logistic_normal.encoder import Encoder, encoder_from_npz
from topiceval.models import PHI_SUM_TOL, ModelError, _check_vocab, _float_array

DECODERS = ("mixture", "product")
SYMMETRY_TOL = 1e-9


def check_prior(mu, sigma) -> tuple[np.ndarray, np.ndarray]:
    """mu (K,) finite; Sigma (K,) positive variances or (K, K) symmetric positive definite.
    Returns float64 copies, Sigma as given (vector or matrix)."""
    mu = _float_array(mu, "mu")
    sigma = _float_array(sigma, "sigma")
    if mu.ndim != 1 or mu.size < 1:
        raise ValueError(f"mu must be a non-empty (K,) vector, got shape {mu.shape}")
    if not np.all(np.isfinite(mu)):
        raise ValueError("mu contains NaN or infinite entries")
    n_topics = mu.size
    if not np.all(np.isfinite(sigma)):
        raise ValueError("sigma contains NaN or infinite entries")
    if sigma.shape == (n_topics,):
        if np.any(sigma <= 0):
            k = int(np.argmin(sigma))
            raise ValueError(f"sigma (the diagonal of Sigma) must be positive; sigma[{k}] = "
                             f"{sigma[k]}")
        return mu, sigma
    if sigma.shape != (n_topics, n_topics):
        raise ValueError(f"sigma must have shape (K,) or (K, K) with K = {n_topics} to match mu, "
                         f"got {sigma.shape}")
    asym = np.abs(sigma - sigma.T).max()
    if asym > SYMMETRY_TOL * max(1.0, np.abs(sigma).max()):
        raise ValueError(f"sigma must be symmetric; the largest |Sigma - Sigma'| is {asym:.3g}")
    try:
        np.linalg.cholesky(sigma)
    except np.linalg.LinAlgError:
        low = np.linalg.eigvalsh(sigma).min()
        raise ValueError(f"sigma is not positive definite (smallest eigenvalue {low:.3g})"
                         ) from None
    return mu, sigma


def check_decoder(decoder: str, beta, bias, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """``beta`` (K, V) and ``bias`` (V,) for the ``decoder``; float64 copies (bias of zeros for
    the mixture, or for a product decoder without one)."""
    if decoder not in DECODERS:
        raise ValueError(f"decoder must be 'mixture' or 'product', got {decoder!r}")
    beta = _float_array(beta, "beta")
    if beta.ndim != 2 or beta.shape[0] != n_topics or beta.shape[1] < 1:
        raise ValueError(f"beta must be a (K, V) matrix with K = {n_topics} rows to match mu, "
                         f"got shape {beta.shape}")
    if not np.all(np.isfinite(beta)):
        raise ValueError("beta contains NaN or infinite entries")
    n_types = beta.shape[1]
    if decoder == "mixture":
        if bias is not None:
            raise ValueError("bias belongs to the product decoder; a mixture decoder has none")
        if np.any(beta < 0):
            k, v = np.argwhere(beta < 0)[0]
            raise ValueError(f"a mixture decoder's beta must be non-negative; beta[{k}, {v}] = "
                             f"{beta[k, v]}")
        sums = beta.sum(axis=1)
        worst = int(np.argmax(np.abs(sums - 1.0)))
        if abs(sums[worst] - 1.0) > PHI_SUM_TOL:
            raise ValueError(f"a mixture decoder's beta rows must sum to 1; row {worst} sums to "
                             f"{sums[worst]:.9g}")
        dead = np.flatnonzero(beta.max(axis=0) <= 0)
        if dead.size:
            raise ValueError(f"word column {dead[0]} has probability 0 under every topic, so no "
                             "document holding it has a likelihood")
        return beta, np.zeros(n_types)
    bias = np.zeros(n_types) if bias is None else _float_array(bias, "bias")
    if bias.shape != (n_types,):
        raise ValueError(f"bias must have shape (V,) = ({n_types},) to match beta, got "
                         f"{bias.shape}")
    if not np.all(np.isfinite(bias)):
        raise ValueError("bias contains NaN or infinite entries")
    return beta, bias


def fold_batch_norm(weight, bias, running_mean, running_var, scale=None, shift=None,
                    eps: float = 1e-5) -> tuple[np.ndarray, np.ndarray]:
    """A product decoder's (B, b) with an evaluation-mode batch norm of its logits folded in.

    ProdLDA's decoder computes eta = theta' W + c and then, in evaluation mode,
    BN(eta)_v = scale_v (eta_v - running_mean_v) / sqrt(running_var_v + eps) + shift_v, which is
    affine in eta, so p(w | theta) = softmax(BN(eta)) = softmax(theta' B + b) with
    B = W * s, b = (c - running_mean) * s + shift, s = scale / sqrt(running_var + eps).
    ``scale``/``shift`` are the affine parameters (ones/zeros for a batch norm without them,
    as in ProdLDA, whose ``affine=False``).

    Parameters
    ----------
    weight : (K, V) array of float
        W, the decoder's weights from theta to the logits.
    bias : (V,) array of float or None
        c, the decoder's logit offsets (None: zeros).
    running_mean, running_var : (V,) array of float
        The batch norm's running statistics.
    scale, shift : (V,) array of float, optional
        The batch norm's affine parameters (default ones and zeros).
    eps : float, default 1e-5
        The batch norm's epsilon (torch's default).

    Returns
    -------
    (B, b) : ((K, V) array, (V,) array)
        The folded decoder: p(w | theta) = softmax(theta' B + b).
    """
    weight = _float_array(weight, "weight")
    n_types = weight.shape[-1]
    arrays = {}
    for name, value, default in (("bias", bias, 0.0), ("running_mean", running_mean, None),
                                 ("running_var", running_var, None), ("scale", scale, 1.0),
                                 ("shift", shift, 0.0)):
        arr = np.full(n_types, default) if value is None and default is not None else \
            _float_array(value, name)
        if arr.shape != (n_types,):
            raise ValueError(f"{name} must have shape (V,) = ({n_types},) to match the decoder's "
                             f"weight, got {arr.shape}")
        arrays[name] = arr
    if np.any(arrays["running_var"] + eps <= 0):
        raise ValueError("running_var + eps must be positive")
    s = arrays["scale"] / np.sqrt(arrays["running_var"] + eps)
    return weight * s, (arrays["bias"] - arrays["running_mean"]) * s + arrays["shift"]


@dataclass(frozen=True, eq=False)
class LogisticNormalModel:
    """A logistic-normal topic model's point estimates.

    Described in docs/methods/logistic-normal.md#model.

    Parameters
    ----------
    mu : (K,) array of float
        The prior mean of z = log-proportions up to a constant.
    sigma : (K,) or (K, K) array of float
        The prior's variances (diagonal Sigma, as ProdLDA's Laplace-approximated Dirichlet and
        ETM's standard normal) or its full covariance (CTM), positive definite.
    beta : (K, V) array of float
        ``decoder="mixture"``: topics, rows on the simplex; ``"product"``: the logit weights B.
    decoder : {"mixture", "product"}
        p(w | theta) = theta' beta, or softmax(theta' B + bias).
    bias : (V,) array of float, optional
        The product decoder's logit offsets (eval-mode normalisation folded in:
        ``fold_batch_norm``).
    vocab : (V,) sequence of str, optional
        The word of every column of ``beta``.
    meta : dict, optional
        JSON-serialisable provenance.
    encoder : Encoder, optional
        The amortized posterior q(z | w) of a neural topic model (its importer fills it when the
        file holds it), the proposal of ``is_encoder``.
    """

    mu: np.ndarray
    sigma: np.ndarray
    beta: np.ndarray
    decoder: str = "mixture"
    bias: np.ndarray | None = None
    vocab: np.ndarray | None = None
    meta: dict = field(default_factory=dict)
    encoder: Encoder | None = None

    family = "logistic_normal"

    def __post_init__(self) -> None:
        mu, sigma = check_prior(self.mu, self.sigma)
        beta, bias = check_decoder(self.decoder, self.beta, self.bias, mu.size)
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "beta", beta)
        object.__setattr__(self, "bias", bias)
        _check_vocab(self.vocab, beta.shape[1])
        if self.encoder is not None:
            check_encoder(self.encoder, mu.size, beta.shape[1])

    @property
    def n_topics(self) -> int:
        return self.beta.shape[0]

    @property
    def n_types(self) -> int:
        return self.beta.shape[1]

    @property
    def covariance(self) -> np.ndarray:
        """Sigma as a (K, K) matrix."""
        return np.diag(self.sigma) if self.sigma.ndim == 1 else self.sigma

    @property
    def prior_cholesky(self) -> np.ndarray:
        """The lower Cholesky factor L of Sigma = L L'."""
        return np.linalg.cholesky(self.covariance)

    def arrays(self) -> dict:
        out = {"mu": self.mu, "sigma": self.sigma, "beta": self.beta,
               "decoder": np.array(self.decoder)}
        if self.decoder == "product":
            out["bias"] = self.bias
        if self.encoder is not None:
            out.update(self.encoder.arrays())
        return out


def check_encoder(enc, n_topics: int, n_types: int) -> None:
    """``enc`` an ``Encoder`` reading V = ``n_types`` words and giving K = ``n_topics``."""
    if not isinstance(enc, Encoder):
        raise ValueError(f"encoder must be a topiceval.logistic_normal.encoder.Encoder, got "
                         f"{type(enc).__name__}")
    if enc.n_inputs != n_types or enc.n_topics != n_topics:
        raise ValueError(f"the encoder reads {enc.n_inputs} words and gives {enc.n_topics} "
                         f"topics; the model has V = {n_types}, K = {n_topics}")


def from_npz(data) -> LogisticNormalModel:
    """The model held by an open model file (``topiceval.npzfile.NpzMembers``) of family
    ``logistic_normal``; ``ModelError`` naming the file and the problem."""
    vocab = data.strings("vocab") if "vocab" in data.files else None
    arrays = [data.numbers(name) for name in ("mu", "sigma", "beta")]
    decoder = data.text("decoder")
    bias = data.numbers("bias") if "bias" in data.files else None
    meta = data.json_object("meta")
    try:
        enc = encoder_from_npz(data) if "encoder_inputs" in data.files else None
        return LogisticNormalModel(*arrays, decoder, bias, vocab, meta, enc)
    except ValueError as exc:
        raise ModelError(f"{data.path}: {exc}") from None
