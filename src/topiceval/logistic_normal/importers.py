"""Logistic-normal models saved by other libraries, as ``LogisticNormalModel``.

Described in docs/logistic-normal.md#import-a-saved-model.

``from_ctm``: contextualized-topic-models (CombinedTM, ZeroShotTM; Bianchi et al. 2021), the file
``CTM.save`` writes (``torch.save({"state_dict": ..., "dcue_dict": ctm.__dict__})``) or a bare
``state_dict`` of its ``DecoderNetwork``.  Read by ``torchfile.read_torch_file``, without torch
and without running anything the file names.  The decoder network's arrays:

    prior_mean (K,), prior_variance (K,)        z ~ N(mu, diag(sigma^2))
    beta (K, V)                                 the topic-word weights
    beta_batchnorm.running_mean, .running_var   its batch norm (affine=False, eps 1e-5),
                                                in evaluation mode

``model_type="prodLDA"``: p(w | theta) = softmax(BN(theta' beta)), the product decoder with the
batch norm folded in (``fold_batch_norm``).  ``model_type="LDA"``: p(w | theta) = theta'
softmax(BN(beta)), the mixture decoder with topics softmax(BN(beta)) row by row.  The model type
and the vocabulary (``idx2token``) are read from the CTM object's saved attributes when the file
has them.  A decoder network saved whole (``torch.save(network)``, as OCTIS's ProdLDA and CTM
hold one) is read too, its arrays flattened by ``torchfile.module_arrays``.

The importers of the other libraries live beside this one and are imported from here too:
``from_pyro_prodlda`` and ``from_etm`` (``importers_torch``), ``from_scholar`` and the refusal
``from_octis`` (``importers_numpy``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from topiceval.logistic_normal.importers_numpy import from_octis, from_scholar
from topiceval.logistic_normal.importers_torch import from_etm, from_pyro_prodlda
from topiceval.logistic_normal.model import LogisticNormalModel, fold_batch_norm
from topiceval.logistic_normal.torchfile import Inert, module_arrays, read_torch_file

__all__ = ["from_ctm", "from_etm", "from_octis", "from_pyro_prodlda", "from_scholar"]

CTM_ARRAYS = ("prior_mean", "prior_variance", "beta", "beta_batchnorm.running_mean",
              "beta_batchnorm.running_var")
CTM_MODEL_TYPES = ("prodLDA", "LDA")
BATCH_NORM_EPS = 1e-5  # torch.nn.BatchNorm1d's default, which the library keeps


def from_ctm(path, *, vocab=None, model_type: str | None = None) -> LogisticNormalModel:
    """The model of a contextualized-topic-models file (the module docstring).

    Parameters
    ----------
    path : str or path-like
        The ``.pth`` file ``CTM.save`` wrote, a saved ``DecoderNetwork.state_dict()``, or the
        decoder network saved whole.
    vocab : sequence of str, optional
        The words of the columns, when the file does not hold them (``idx2token``).
    model_type : {"prodLDA", "LDA"}, optional
        When the file does not say it (a bare state_dict).

    Raises
    ------
    ValueError
        Naming the file and what is missing or inconsistent.
    """
    saved = read_torch_file(path)
    state, attributes = _ctm_parts(saved, path)
    missing = [name for name in CTM_ARRAYS if name not in state]
    if missing:
        raise ValueError(f"{path}: not a contextualized-topic-models decoder: it lacks "
                         f"{', '.join(missing)}")
    odd = [name for name in CTM_ARRAYS if isinstance(state[name], Inert)]
    if odd:
        raise ValueError(f"{path}: {', '.join(odd)} are not tensors ({state[odd[0]]!r})")
    arrays = {name: np.asarray(state[name], dtype=np.float64) for name in CTM_ARRAYS}
    model_type = _ctm_model_type(attributes.get("model_type"), model_type, path)
    words = _ctm_vocab(attributes.get("idx2token"), vocab, arrays["beta"].shape[1], path)
    beta = arrays["beta"]
    meta = {"source": "contextualized-topic-models", "model_type": model_type,
            "file": str(path)}
    if model_type == "prodLDA":
        weights, bias = fold_batch_norm(beta, None, arrays["beta_batchnorm.running_mean"],
                                        arrays["beta_batchnorm.running_var"],
                                        eps=BATCH_NORM_EPS)
        return LogisticNormalModel(arrays["prior_mean"], arrays["prior_variance"], weights,
                                   "product", bias, words, meta)
    scale = 1.0 / np.sqrt(arrays["beta_batchnorm.running_var"] + BATCH_NORM_EPS)
    topics = softmax((beta - arrays["beta_batchnorm.running_mean"]) * scale, axis=1)
    return LogisticNormalModel(arrays["prior_mean"], arrays["prior_variance"], topics,
                               "mixture", None, words, meta)


def _ctm_parts(saved, path) -> tuple[dict, dict]:
    """(the state_dict, the CTM object's attributes) of what the file holds."""
    if isinstance(saved, dict) and "state_dict" in saved:
        attributes = saved.get("dcue_dict")
        return dict(saved["state_dict"]), attributes if isinstance(attributes, dict) else {}
    if isinstance(saved, dict):
        return dict(saved), {}
    if isinstance(saved, Inert) and isinstance(saved.state, dict):
        return module_arrays(saved), {"model_type": saved.state.get("model_type")}
    raise ValueError(f"{path}: holds a {type(saved).__name__}, not a state_dict or the "
                     "dictionary CTM.save writes")


def _ctm_model_type(saved, given, path) -> str:
    if given is not None and given not in CTM_MODEL_TYPES:
        raise ValueError(f"model_type must be 'prodLDA' or 'LDA', got {given!r}")
    if isinstance(saved, str):
        if given is not None and given != saved:
            raise ValueError(f"{path}: the file says model_type {saved!r}, not {given!r}")
        if saved not in CTM_MODEL_TYPES:
            raise ValueError(f"{path}: unknown model_type {saved!r} (expected prodLDA or LDA)")
        return saved
    if given is None:
        raise ValueError(f"{path}: the file does not say whether the decoder is ProdLDA's or "
                         "LDA's: pass model_type='prodLDA' or 'LDA' (CTM's model_type)")
    return given


def _ctm_vocab(idx2token, given, n_types: int, path):
    if isinstance(idx2token, dict):
        if sorted(idx2token) != list(range(n_types)):
            raise ValueError(f"{path}: its idx2token does not name the {n_types} columns "
                             "0..V-1")
        words = [str(idx2token[v]) for v in range(n_types)]
        if given is not None and list(given) != words:
            raise ValueError(f"{path}: holds its own vocabulary (idx2token), which differs "
                             "from vocab; leave vocab out")
        return words
    return given
