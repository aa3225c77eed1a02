"""What every importer shares: lazy imports of the peer libraries and the model they build.

Each importer turns a peer library's LDA model into a ``topiceval.models.LDAModel``: ``phi``
(T x V, float64, rows summing to 1), ``alpha_m`` (T,), an optional scalar ``beta``, ``vocab`` (the
word of every column of ``phi``, in the library's own order) and ``meta`` (JSON-serialisable
provenance: library, version, importer, priors, how ``phi`` was formed).
"""

from __future__ import annotations

import importlib
import importlib.metadata
from types import ModuleType

import numpy as np

from topiceval import tokenizer
from topiceval.models import LDAModel

# topiceval's adapters extra, from a clone (the distribution is not on the package index yet)
INSTALL_HINT = '(or pip install -e ".[adapters]" in a clone of topiceval)'


def require(module: str, package: str, importer: str) -> ModuleType:
    """Import ``module`` of the peer library ``package``, or say how to install it.

    Parameters
    ----------
    module
        Dotted module name, e.g. ``"gensim.models.ldamodel"``.
    package
        The distribution to install, e.g. ``"gensim"``.
    importer
        The function that needs it (named in the error).

    Raises
    ------
    ImportError
        When the package is not installed (other import failures propagate unchanged).
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (module == exc.name or module.startswith(exc.name + ".")):
            raise
        raise ImportError(
            f"{importer} needs the {package!r} package, which is not installed: "
            f"pip install {package} {INSTALL_HINT}"
        ) from exc


def package_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None if pip does not know it."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def normalise_rows(weights: np.ndarray, what: str) -> np.ndarray:
    """Rows of non-negative topic-word weights divided by their sums, in float64.

    Raises ``ValueError`` for non-finite or negative weights or a row summing to zero.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2:
        raise ValueError(f"{what} must be a (T, V) matrix, got shape {weights.shape}")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError(f"{what} holds negative, NaN or infinite entries")
    sums = weights.sum(axis=1, keepdims=True)
    if np.any(sums <= 0):
        raise ValueError(f"{what}: topic {int(np.argmin(sums))} has no weight")
    return weights / sums


def build_model(
    *,
    importer: str,
    library: str,
    distribution: str | None,
    phi: np.ndarray,
    alpha_m: np.ndarray,
    beta: float | None,
    vocab: np.ndarray,
    how: str,
    **extra,
) -> LDAModel:
    """The ``LDAModel`` of an importer, with the provenance every importer records.

    Parameters
    ----------
    importer
        The public function's name (``meta["importer"]``).
    library, distribution
        The library's name and its pip distribution (for ``meta["library_version"]``; None when
        the version cannot be known, e.g. MALLET's text files).
    phi
        (T, V) float64, rows summing to 1: phi[t, v] = P(word v | topic t).
    alpha_m
        (T,) Dirichlet pseudo-counts alpha * m_t of the document-topic prior.
    beta
        The symmetric topic-word pseudo-count per word, or None.
    vocab
        (V,) words in the column order of ``phi``, as read by
        ``topiceval.vocabulary.vocabulary_words``.
    how
        One short phrase saying how ``phi`` was formed (``meta["phi"]``).
    **extra
        Further JSON-serialisable metadata (library settings, asymmetric priors, source path);
        ``tokenizer`` is the ``topiceval.tokenizer`` record of how the training text was split
        into words (default: unknown, the library's model does not record it).
    """
    alpha_m = np.asarray(alpha_m, dtype=np.float64)
    meta = {
        "library": library,
        "library_version": package_version(distribution) if distribution else None,
        "importer": importer,
        "T": int(phi.shape[0]),
        "V": int(phi.shape[1]),
        "alpha_m": alpha_m.tolist(),
        "alpha_sum": float(alpha_m.sum()),
        "beta": None if beta is None else float(beta),
        "phi": how,
        "tokenizer": tokenizer.unknown(f"a {library} model does not record how its training "
                                       "text was split into words"),
        **extra,
    }
    return LDAModel(phi, alpha_m, None if beta is None else float(beta), vocab, meta)


def vectorizer_tokenizer(vocabulary) -> dict:
    """The ``topiceval.tokenizer`` record of ``vocabulary`` when it is the fitted scikit-learn
    vectorizer (its analyzer's settings), or why it is unknown (a word list or mapping)."""
    if hasattr(vocabulary, "build_analyzer"):
        return tokenizer.from_vectorizer(vocabulary)
    return tokenizer.unknown("the vocabulary was given as words, not as the fitted vectorizer "
                             "whose settings split the training text")
