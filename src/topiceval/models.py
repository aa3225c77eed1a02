"""Saved models: the point estimates every estimator evaluates, with their provenance.

Two families:

* ``LDAModel``: topics ``phi`` (T x V, rows on the simplex, strictly positive), Dirichlet
  pseudo-counts ``alpha_m`` (T,) = alpha * m, and the symmetric word pseudo-count ``beta``
  (beta * u_v, per word; ``None`` for models without a topic prior, e.g. Béchard & Gervet's VEM).
* ``GaPModel``: beta-gamma Poisson factor analysis, ``phi`` (T x V, non-negative), ``p`` (T,) in
  (0, 1), ``r`` (T,) positive (docs/methods/gapfa.md#model).

A model file is one ``.npz`` (no pickles) holding the arrays, an optional vocabulary and a JSON
metadata string (trainer, T, priors, sweeps, seed, corpus checksum, ...).  It is written
atomically; ``load_model`` validates shapes and positivity and names any violation.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np

from topiceval.io import atomic_path
from topiceval.npzfile import NpzMembers, read_npz
from topiceval.vocabulary import unstorable_word

FORMAT_VERSION = 1
PHI_SUM_TOL = 1e-6
# Dirichlet pseudo-counts alpha m and GaP-FA shapes r: the range in which every estimator's
# arithmetic is exact (tests/test_precision.py sweeps it); beyond it sums overflow and the
# gamma draws fall off the double range
PARAM_RANGE = (1e-301, 1e301)


class ModelError(ValueError):
    """A model file or model arrays violate the format."""


def _float_array(values, name: str) -> np.ndarray:
    """``values`` as a contiguous float64 array; a ValueError naming ``name`` if it is not
    numeric (strings, None, objects)."""
    arr = np.asarray(values) if values is not None else None
    if arr is None or arr.dtype.kind not in "biuf":
        kind = "None" if arr is None else f"dtype {arr.dtype}"
        raise ValueError(f"{name} must be an array of numbers, got {kind}")
    return np.ascontiguousarray(arr, dtype=np.float64)


def check_lda_params(phi, alpha_m) -> tuple[np.ndarray, np.ndarray]:
    """Validate LDA point estimates; return float64 contiguous copies.

    ``phi``: (T, V), every entry > 0 and finite, rows summing to 1 within 1e-6.
    ``alpha_m``: (T,) (or (D, T) for document-dependent priors), every entry > 0 and finite.
    """
    phi = _float_array(phi, "phi")
    alpha_m = _float_array(alpha_m, "alpha_m")
    if phi.ndim != 2 or phi.shape[0] < 1 or phi.shape[1] < 1:
        raise ValueError(f"phi must be a non-empty (T, V) matrix, got shape {phi.shape}")
    if not np.all(np.isfinite(phi)):
        raise ValueError("phi contains NaN or infinite entries")
    if np.any(phi <= 0):
        t, v = np.argwhere(phi <= 0)[0]
        raise ValueError(f"phi must be strictly positive; phi[{t}, {v}] = {phi[t, v]}")
    row_sums = phi.sum(axis=1)
    worst = int(np.argmax(np.abs(row_sums - 1.0)))
    if abs(row_sums[worst] - 1.0) > PHI_SUM_TOL:
        raise ValueError(f"phi rows must sum to 1; row {worst} sums to {row_sums[worst]:.9g}")
    if alpha_m.shape[-1:] != (phi.shape[0],) or alpha_m.ndim not in (1, 2):
        raise ValueError(
            f"alpha_m must have shape (T,) = ({phi.shape[0]},) to match phi, got {alpha_m.shape}"
        )
    if not np.all(np.isfinite(alpha_m)) or np.any(alpha_m <= 0):
        raise ValueError("alpha_m must be finite and strictly positive")
    sums = alpha_m.sum(axis=-1)
    if alpha_m.min() < PARAM_RANGE[0] or alpha_m.max() > PARAM_RANGE[1] or np.any(
            sums > 10 * PARAM_RANGE[1]):
        raise ValueError(
            f"alpha_m must lie in [{PARAM_RANGE[0]:g}, {PARAM_RANGE[1]:g}] and sum to at most "
            f"{10 * PARAM_RANGE[1]:g} (got min {alpha_m.min():.3g}, sum {sums.max():.3g}); every "
            "estimator has reached its alpha m -> 0 / -> inf limit long before")
    return phi, alpha_m


def check_gapfa_params(phi, p, r) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate GaP-FA point estimates: phi (T, V) >= 0, p (T,) in (0, 1), r (T,) > 0."""
    phi = _float_array(phi, "phi")
    p = _float_array(p, "p").reshape(-1)
    r = _float_array(r, "r").reshape(-1)
    if phi.ndim != 2 or phi.shape[0] < 1 or phi.shape[1] < 1:
        raise ValueError(f"phi must be a non-empty (T, V) matrix, got shape {phi.shape}")
    if not np.all(np.isfinite(phi)) or np.any(phi < 0):
        raise ValueError("phi must be finite and non-negative")
    n_topics = phi.shape[0]
    if r.shape == (1,):
        r = np.full(n_topics, r[0])
    for name, arr in (("p", p), ("r", r)):
        if arr.shape != (n_topics,):
            raise ValueError(f"{name} must have shape (T,) = ({n_topics},), got {arr.shape}")
    if not np.all((p > 0) & (p < 1)):
        raise ValueError(f"p must lie in (0, 1); got range [{p.min()}, {p.max()}]")
    if not np.all(np.isfinite(r)) or np.any(r <= 0):
        raise ValueError("r must be finite and strictly positive")
    if r.min() < PARAM_RANGE[0] or r.max() > PARAM_RANGE[1]:
        raise ValueError(
            f"r must lie in [{PARAM_RANGE[0]:g}, {PARAM_RANGE[1]:g}] (got range [{r.min():.3g}, "
            f"{r.max():.3g}]): beyond it r log(1 - Q) leaves the range of doubles")
    return phi, p, r


class _Topics:
    """Sizes shared by the model families: ``phi`` is (T, V)."""

    phi: np.ndarray

    @property
    def n_topics(self) -> int:
        return self.phi.shape[0]

    @property
    def n_types(self) -> int:
        return self.phi.shape[1]


@dataclass(frozen=True, eq=False)
class LDAModel(_Topics):
    """LDA point estimates: phi[t, v] = phi_{v|t}, alpha_m[t] = alpha m_t.

    Described in docs/methods/lda.md#point-estimates.

    Parameters
    ----------
    phi : (T, V) array of float
        Topic-word probabilities, strictly positive, rows summing to 1.
    alpha_m : (T,) array of float
        The Dirichlet pseudo-counts alpha * m_t of the document-topic prior.
    beta : float, optional
        The symmetric topic-word pseudo-count per word (None: no topic prior).
    vocab : (V,) sequence of str, optional
        The word of every column of ``phi``.
    meta : dict, optional
        JSON-serialisable provenance (trainer or importer, settings, ``tokenizer``: how the
        training text was split into words, ``topiceval.tokenizer``).
    """

    phi: np.ndarray
    alpha_m: np.ndarray
    beta: float | None = None
    vocab: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    family = "lda"

    def __post_init__(self) -> None:
        phi, alpha_m = check_lda_params(self.phi, self.alpha_m)
        if alpha_m.ndim != 1:
            raise ModelError("a saved LDA model has a single prior alpha_m of shape (T,)")
        object.__setattr__(self, "phi", phi)
        object.__setattr__(self, "alpha_m", alpha_m)
        if self.beta is not None and not (np.isfinite(self.beta) and self.beta > 0):
            raise ModelError(f"beta must be positive, got {self.beta}")
        _check_vocab(self.vocab, phi.shape[1])

    def arrays(self) -> dict:
        out = {"phi": self.phi, "alpha_m": self.alpha_m}
        if self.beta is not None:
            out["beta"] = np.float64(self.beta)
        return out


@dataclass(frozen=True, eq=False)
class GaPModel(_Topics):
    """Beta-gamma PFA point estimates.

    Described in docs/methods/gapfa.md#model and docs/methods/gapfa.md#training.

    Parameters
    ----------
    phi : (T, V) array of float
        Topic loadings, non-negative.
    p : (T,) array of float
        The gamma factors' probabilities, in (0, 1).
    r : (T,) array of float
        The gamma factors' shapes, positive.
    vocab : (V,) sequence of str, optional
        The word of every column of ``phi``.
    meta : dict, optional
        JSON-serialisable provenance.
    """

    phi: np.ndarray
    p: np.ndarray
    r: np.ndarray
    vocab: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    family = "gapfa"

    def __post_init__(self) -> None:
        phi, p, r = check_gapfa_params(self.phi, self.p, self.r)
        object.__setattr__(self, "phi", phi)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "r", r)
        _check_vocab(self.vocab, phi.shape[1])

    def arrays(self) -> dict:
        return {"phi": self.phi, "p": self.p, "r": self.r}


def _check_vocab(vocab, n_types: int) -> None:
    """The model's word list: one per column of phi, none that storage would alter."""
    if vocab is None:
        return
    words = np.asarray(vocab, dtype=object)
    if words.shape != (n_types,):
        raise ModelError(f"vocab has shape {words.shape}, expected ({n_types},) to match phi")
    bad_word = unstorable_word([str(w) for w in words.tolist()])
    if bad_word:
        raise ModelError(f"vocab: {bad_word}")


def save_model(path: str | os.PathLike, model: LDAModel | GaPModel) -> None:
    """Write a model as one ``.npz`` file, atomically.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (its directory must exist); replaced only once the new file is
        complete.  ``load_model`` reads it back; nothing in it is a pickle.
    model : LDAModel or GaPModel
        The model: its arrays, its vocabulary if it has one, and its ``meta`` (provenance,
        and how its training text was split into words, ``meta["tokenizer"]``), which must be
        JSON-serialisable.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from topiceval.models import LDAModel, load_model, save_model
    >>> model = LDAModel(np.array([[0.5, 0.5], [0.9, 0.1]]), np.array([0.1, 0.1]),
    ...                  vocab=["cat", "dog"], meta={"trainer": "example"})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_model(Path(folder) / "model.npz", model)
    ...     again = load_model(Path(folder) / "model.npz")
    >>> again.n_topics, again.vocab.tolist(), again.meta
    (2, ['cat', 'dog'], {'trainer': 'example'})
    """
    payload = dict(model.arrays())
    if model.vocab is not None:
        payload["vocab"] = np.asarray(model.vocab, dtype=str)
    payload["family"] = np.array(model.family)
    payload["format_version"] = np.int64(FORMAT_VERSION)
    payload["meta"] = np.array(json.dumps(model.meta, sort_keys=True))
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, **payload)


FAMILY_ARRAYS = {"lda": ("phi", "alpha_m"), "gapfa": ("phi", "p", "r"),
                 "logistic_normal": ("mu", "sigma", "beta")}
CORPUS_ARRAYS = frozenset({"offsets", "tokens", "split"})


def load_model(path: str | os.PathLike) -> LDAModel | GaPModel:
    """Read and validate a model file.

    Parameters
    ----------
    path
        A ``.npz`` file written by ``save_model``.

    Returns
    -------
    LDAModel, GaPModel or topiceval.logistic_normal.LogisticNormalModel

    Raises
    ------
    ModelError
        One line naming the file and what is wrong with it (missing, not a model file,
        damaged, arrays of the wrong kind, invalid values).  Nothing is ever unpickled.
    """
    with read_npz(path, ModelError, "model") as data:
        family = _model_family(data)
        if family == "logistic_normal":
            from topiceval.logistic_normal.model import from_npz  # it builds on this module
            return from_npz(data)
        meta = data.json_object("meta")
        vocab = data.strings("vocab") if "vocab" in data.files else None
        arrays = [data.numbers(name) for name in FAMILY_ARRAYS[family]]
        beta = data.scalar("beta") if family == "lda" and "beta" in data.files else None
    try:
        if family == "lda":
            return LDAModel(*arrays, beta, vocab, meta)
        return GaPModel(*arrays, vocab, meta)
    except ValueError as exc:
        raise ModelError(f"{path}: {exc}") from None


def _model_family(data: NpzMembers) -> str:
    """The model family a file holds, after checking it is a model file of this version."""
    if "family" not in data.files or "meta" not in data.files:
        if CORPUS_ARRAYS <= data.files:
            raise data.fail("not a topiceval model file: it is a corpus file (offsets, "
                            "tokens, split)")
        held = ", ".join(sorted(data.files)) or "no arrays"
        raise data.fail(f"not a topiceval model file: it holds {held}, without family and meta")
    version = data.scalar("format_version", integer=True) if "format_version" in data.files else 0
    if version != FORMAT_VERSION:
        raise data.fail(f"model format version {version}, expected {FORMAT_VERSION}")
    family = data.text("family")
    if family not in FAMILY_ARRAYS:
        raise data.fail(f"unknown model family {family!r} (expected lda, gapfa or "
                        "logistic_normal)")
    return family
