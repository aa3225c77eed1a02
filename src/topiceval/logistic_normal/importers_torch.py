"""pyro's ProdLDA and the Embedded Topic Model, from the PyTorch files their users save, as
``LogisticNormalModel``.

Described in docs/logistic-normal.md#import-a-saved-model.  Both are read by
``torchfile.read_torch_file``, without torch and without running anything the file names; a
module saved whole (``torch.save(model)``) is flattened to its ``state_dict`` names by
``torchfile.module_arrays``.

``from_pyro_prodlda``: the ProdLDA module of pyro's tutorial "Probabilistic Topic Modeling"
(the tutorial defines it; pyro has no ProdLDA class), saved with
``torch.save(prodLDA.state_dict(), path)`` (or the module whole).  Its model:

    logtheta ~ N(0, I)                                   the prior, mu = 0, sigma = 1
    p(w | theta) = softmax(BN(theta' W' + c))            decoder.beta (Linear, W (V, K)),
                                                         decoder.bn (BatchNorm1d, eps 1e-5)

in evaluation mode, the batch norm's running statistics folded in by ``fold_batch_norm``; the
encoder (the guide's network) is read too when the file holds it (``importers_encoders``).  The
tutorial's decoder has no bias c and a batch norm without affine parameters; an earlier version
of the tutorial had both, and they are folded in when the file holds them.  pyro's parameter
store (``pyro.get_param_store().save``) is refused: it lacks the running statistics.

``from_etm``: the Embedded Topic Model (Dieng, Ruiz and Blei 2020).  The reference code
(adjidieng/ETM, main.py) and the pip package ``embedded-topic-model`` (its ``ETM(...,
model_path=...)``) both save the whole module with ``torch.save(model, f)``, so that file is
what a user has; a ``state_dict`` works too.  Their module's arrays:

    rho (V, E)        word embeddings: ``rho.weight`` when trained, the attribute ``rho`` when
                      fixed (given embeddings; a ``state_dict`` then leaves it out)
    alphas.weight     topic embeddings alpha (K, E)
    beta = softmax over words of rho alpha', (K, V)      ``get_beta``
    p(w | theta) = theta' beta,  z ~ N(0, I)             the KL term of its ELBO is to N(0, I)

A module saved whole also gives its encoder q_theta (``importers_encoders``).  Neither file holds
the vocabulary: pass ``vocab=`` (the words of the columns, in order).
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from topiceval.logistic_normal.importers_encoders import etm_encoder, pyro_encoder
from topiceval.logistic_normal.model import LogisticNormalModel, fold_batch_norm
from topiceval.logistic_normal.torchfile import Inert, module_arrays, read_torch_file

BATCH_NORM_EPS = 1e-5  # torch.nn.BatchNorm1d's default, which the tutorial keeps
PYRO_REQUIRED = ("beta.weight", "bn.running_mean", "bn.running_var")
PYRO_OPTIONAL = ("beta.bias", "bn.weight", "bn.bias")


def from_pyro_prodlda(path, *, vocab=None) -> LogisticNormalModel:
    """The model of a pyro ProdLDA file (the module docstring).

    Parameters
    ----------
    path : str or path-like
        ``torch.save(prodLDA.state_dict(), path)`` (the whole module, or its ``decoder``'s
        state_dict, work too).
    vocab : sequence of str, optional
        The words of the columns (the tutorial's ``vectorizer.get_feature_names_out()``).

    Raises
    ------
    ValueError
        Naming the file and what is missing.
    """
    state = _state(read_torch_file(path), path)
    params = state.get("params")
    if isinstance(params, dict) and any("$$$" in str(name) for name in params):
        raise ValueError(f"{path}: a pyro parameter store, which lacks the decoder's batch-norm "
                         "running statistics; save torch.save(prodLDA.state_dict(), path)")
    prefix = "decoder." if "decoder.beta.weight" in state else ""
    arrays = _take(state, [prefix + name for name in PYRO_REQUIRED], path,
                   "not a pyro ProdLDA state_dict")
    present = [name for name in PYRO_OPTIONAL if prefix + name in state]
    extra = dict.fromkeys(PYRO_OPTIONAL)
    extra.update(zip(present, _take(state, [prefix + name for name in present], path, ""),
                     strict=True))
    weight, mean, var = arrays
    if weight.ndim != 2:
        raise ValueError(f"{path}: {prefix}beta.weight must be a (V, K) matrix, got shape "
                         f"{weight.shape}")
    beta, bias = fold_batch_norm(weight.T, extra["beta.bias"], mean, var, extra["bn.weight"],
                                 extra["bn.bias"], eps=BATCH_NORM_EPS)
    return _model(path, beta, "product", bias, vocab, "pyro ProdLDA",
                  pyro_encoder(state, "encoder." if prefix else ""))


def from_etm(path, *, vocab=None, bow_norm: bool = True) -> LogisticNormalModel:
    """The model of an Embedded Topic Model file (the module docstring).

    Parameters
    ----------
    path : str or path-like
        ``torch.save(model, path)`` as the reference code and ``embedded-topic-model`` save it,
        or ``torch.save(model.state_dict(), path)``.
    vocab : sequence of str, optional
        The words of the columns (``embedded-topic-model``: the ``vocabulary`` it was given).
    bow_norm : bool, default True
        Whether the model was trained on normalised bags of words (both libraries' default):
        what its encoder reads.

    Raises
    ------
    ValueError
        Naming the file and what is missing.
    """
    saved = read_torch_file(path)
    state = _state(saved, path)
    rho_name = "rho.weight" if "rho.weight" in state else "rho"
    if rho_name not in state and "alphas.weight" in state:
        raise ValueError(f"{path}: lacks the word embeddings rho (a state_dict leaves fixed "
                         "embeddings out); save the whole model: torch.save(model, path)")
    rho, alphas = _take(state, [rho_name, "alphas.weight"], path, "not an ETM model")
    if rho.ndim != 2 or alphas.ndim != 2 or rho.shape[1] != alphas.shape[1]:
        raise ValueError(f"{path}: rho {rho.shape} and alphas.weight {alphas.shape} must be "
                         "(V, E) and (K, E) matrices")
    topics = softmax(rho @ alphas.T, axis=0).T  # get_beta: softmax over the vocabulary
    return _model(path, topics, "mixture", None, vocab, "ETM",
                  etm_encoder(saved, state, bool(bow_norm), path))


def _model(path, beta, decoder, bias, vocab, source, encoder) -> LogisticNormalModel:
    """The model with the N(0, I) prior both libraries use and its ``encoder`` (or None); its
    errors name the file."""
    n_topics = beta.shape[0]
    try:
        return LogisticNormalModel(np.zeros(n_topics), np.ones(n_topics), beta, decoder, bias,
                                   vocab, {"source": source, "file": str(path)}, encoder)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _state(saved, path) -> dict:
    """A flat ``{name: value}`` of a saved state_dict or of a module saved whole."""
    if isinstance(saved, Inert):
        return module_arrays(saved)
    if isinstance(saved, dict):
        return dict(saved)
    raise ValueError(f"{path}: holds a {type(saved).__name__}, not a state_dict or a module")


def _take(state: dict, names, path, what: str) -> list[np.ndarray]:
    """The float64 arrays ``names`` of ``state``; ``ValueError`` naming those missing."""
    missing = [name for name in names if name not in state]
    if missing:
        raise ValueError(f"{path}: {what}: it lacks {', '.join(missing)}")
    odd = [name for name in names if not isinstance(state[name], np.ndarray)]
    if odd:
        raise ValueError(f"{path}: {', '.join(odd)} are not tensors ({state[odd[0]]!r})")
    return [np.asarray(state[name], dtype=np.float64) for name in names]
