"""scholar's output folder as a ``LogisticNormalModel``, and OCTIS's saved output refused.

Described in docs/logistic-normal.md#import-a-saved-model.  Both are NumPy files, read with
``allow_pickle=False`` (``topiceval.npzfile.read_npz``), so nothing in them runs.

``from_scholar``: scholar (Card, Tan and Smith 2018), whose ``run_scholar.py`` writes, in its
output folder (``-o``), ``beta.npz`` (``beta``, the topic weights B (K, V)), ``bg.npz`` (``bg``,
the background log-frequencies b (V,)) and ``vocab.json`` (the words of the columns).  Its
decoder, in evaluation mode (the batch norm on eta annealed away, ``eta_bn_prop=0``), is the
product of experts with a background term

    eta = b + theta' B,   p(w | theta) = softmax(eta)

and its prior on z, theta = softmax(z), is the Laplace approximation (in the softmax basis) to
Dirichlet(alpha), fixed from ``--alpha`` (default 1, symmetric), which scholar does not save:

    mu_k = log alpha_k - (1/K) sum_i log alpha_i
    sigma_k^2 = (1/alpha_k)(1 - 2/K) + (1/K^2) sum_i 1/alpha_i

A model with topic or prior covariates (``beta_c.npz``, ``prior_w.npz`` in the folder) is refused:
its p(w | theta) or prior depends on each document's covariates.

``from_octis``: OCTIS's ``save_model_output`` keeps the topic-word and topic-document matrices,
not a prior on the topic proportions, so no likelihood of a new document follows from it; the
refusal says which of OCTIS's trained objects to import instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NoReturn

import numpy as np

from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.npzfile import read_npz

SCHOLAR_COVARIATE_FILES = ("beta_c.npz", "beta_ci.npz", "prior_w.npz")
OCTIS_KEYS = ("topic-word-matrix", "topic-document-matrix")
OCTIS_INSTEAD = ("OCTIS's output holds no prior on the topic proportions, so it gives no "
                 "likelihood of new documents; import the trained model instead: LDA with "
                 "topiceval.adapters.from_gensim(octis_model.trained_model), ETM with "
                 "torch.save(octis_model.model, f) and from_etm, ProdLDA, NeuralLDA and CTM with "
                 "torch.save(octis_model.model.model, f) and from_ctm")


def scholar_prior(alpha, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """(mu, sigma^2) of the Laplace approximation to Dirichlet(alpha) (the module docstring);
    ``alpha`` a positive number (symmetric) or (K,) vector."""
    alpha = np.asarray(alpha, dtype=np.float64)
    if alpha.ndim == 0:
        alpha = np.full(n_topics, float(alpha))
    if alpha.shape != (n_topics,) or not np.all(np.isfinite(alpha)) or np.any(alpha <= 0):
        raise ValueError(f"alpha must be a positive number or {n_topics} positive numbers, got "
                         f"{alpha.tolist()}")
    mu = np.log(alpha) - np.log(alpha).mean()
    var = (1.0 / alpha) * (1.0 - 2.0 / n_topics) + np.sum(1.0 / alpha) / n_topics**2
    return mu, var


def from_scholar(folder, *, alpha=1.0, vocab=None) -> LogisticNormalModel:
    """The model of scholar's output folder (the module docstring).

    Parameters
    ----------
    folder : str or path-like
        The folder ``run_scholar.py -o`` wrote (or its ``beta.npz``).
    alpha : float or (K,) array of float, default 1.0
        The ``--alpha`` the model was trained with (scholar's default is 1).
    vocab : sequence of str, optional
        The words of the columns, when the folder has no ``vocab.json`` (scholar writes one).

    Raises
    ------
    ValueError
        Naming the folder or file and what is missing.
    """
    folder = Path(folder)
    if folder.name == "beta.npz":
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a folder (pass the folder run_scholar.py -o wrote)")
    covariates = [name for name in SCHOLAR_COVARIATE_FILES if (folder / name).exists()]
    if covariates:
        raise ValueError(f"{folder}: a scholar model with covariates ({', '.join(covariates)}): "
                         "its word distribution or prior depends on each document's covariates")
    for name in ("beta.npz", "bg.npz"):
        if not (folder / name).is_file():
            raise ValueError(f"{folder}: not a scholar output folder: it lacks {name}")
    with read_npz(folder / "beta.npz", ValueError, "scholar beta") as data:
        beta = data.numbers("beta", ndim=2)
    with read_npz(folder / "bg.npz", ValueError, "scholar background") as data:
        bg = data.numbers("bg", ndim=1)
    if (folder / "vocab.json").is_file():
        words = _scholar_vocab(folder / "vocab.json")
        if vocab is not None and list(vocab) != words:
            raise ValueError(f"{folder}: holds its own vocabulary (vocab.json), which differs "
                             "from vocab; leave vocab out")
        vocab = words
    mu, var = scholar_prior(alpha, beta.shape[0])
    alpha_meta = np.asarray(alpha, dtype=np.float64).tolist()
    try:
        return LogisticNormalModel(mu, var, beta, "product", bg, vocab,
                                   {"source": "scholar", "file": str(folder),
                                    "alpha": alpha_meta})
    except ValueError as exc:
        raise ValueError(f"{folder}: {exc}") from None


def _scholar_vocab(path: Path) -> list[str]:
    try:
        words = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{path}: cannot be read as scholar's JSON vocabulary ({exc})") from None
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise ValueError(f"{path}: must be a JSON list of words, as run_scholar.py writes it")
    return words


def from_octis(output) -> NoReturn:
    """Refuse an OCTIS model output (the ``.npz`` ``save_model_output`` writes, or the
    dictionary ``train_model`` returns) with what to import instead.

    Parameters
    ----------
    output : str, path-like or dict
        The ``.npz`` file ``save_model_output`` wrote, or the dictionary itself.

    Raises
    ------
    ValueError
        Always: naming the file and why it cannot be scored (or that it is not OCTIS's).
    """
    if isinstance(output, dict):
        where, keys = "the OCTIS output dictionary", set(output)
    else:
        where = str(output)
        with read_npz(output, ValueError, "OCTIS output") as data:
            keys = set(data.files)
    if not any(key in keys for key in OCTIS_KEYS):
        raise ValueError(f"{where}: not an OCTIS model output (it has no "
                         f"{' or '.join(OCTIS_KEYS)})")
    raise ValueError(f"{where}: {OCTIS_INSTEAD}")
