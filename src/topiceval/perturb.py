"""Perturbed LDA parameters for the sensitivity study of wallach2009 §6.4
(docs/methods/lda-estimators.md#perturbation-study).

    Phi_λ = (1 - λ) Phi + λ Phi',   rows phi'_t ~ Dir(c 1_V), drawn once
    m_λ   = (1 - λ) m + λ m',       m' ~ Dir(c 1_T), drawn once; α unchanged
    λ in {0, 0.25, 0.5, 0.75}

Rows stay normalised, and every entry stays positive for λ < 1.  The distribution of the
"randomly-generated" Phi' and m' is not stated in Wallach et al. 2009 [G2-18]; the default c = 1
(uniform on the simplex) can be changed with ``concentration``.  Draws use the keyed streams of
``topiceval._numba`` (key (seed, 4, kind, row)), so Phi' and m' depend only on ``seed``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from topiceval import _numba as nb
from topiceval.models import check_lda_params

LAMBDAS = (0.0, 0.25, 0.5, 0.75)
KINDS = ("phi", "m")
_STREAM = 4
_KIND_KEY = {"phi": 1, "m": 2}


def _dirichlet_rows(n_rows: int, size: int, concentration: float, seed: int, kind: str):
    if not (np.isfinite(concentration) and concentration > 0):
        raise ValueError(f"concentration must be positive, got {concentration}")
    out = np.empty((n_rows, size))
    alpha = np.full(size, float(concentration))
    for row in range(n_rows):
        rng = nb.rng_state(seed, _STREAM, _KIND_KEY[kind], row)
        nb.dirichlet_into(rng, alpha, out[row])
    return out


def random_topics(n_topics: int, n_types: int, *, seed: int, concentration: float = 1.0):
    """Phi' (T, V): rows drawn from Dir(concentration 1_V)."""
    return _dirichlet_rows(n_topics, n_types, concentration, seed, "phi")


def random_base_measure(n_topics: int, *, seed: int, concentration: float = 1.0):
    """m' (T,) drawn from Dir(concentration 1_T)."""
    return _dirichlet_rows(1, n_topics, concentration, seed, "m")[0]


def _check_lambda(lam: float) -> float:
    lam = float(lam)
    if not 0.0 <= lam < 1.0:
        raise ValueError(f"lambda must lie in [0, 1), got {lam}")
    return lam


def perturb_phi(phi, lam: float, phi_random) -> np.ndarray:
    """(1 - λ) Phi + λ Phi'."""
    lam = _check_lambda(lam)
    phi_random = np.asarray(phi_random, dtype=np.float64)
    if phi_random.shape != np.shape(phi):
        raise ValueError(f"Phi' has shape {phi_random.shape}, expected {np.shape(phi)}")
    return (1.0 - lam) * np.asarray(phi, dtype=np.float64) + lam * phi_random


def perturb_alpha_m(alpha_m, lam: float, m_random) -> np.ndarray:
    """α ((1 - λ) m + λ m'), with α = sum(alpha_m) and m = alpha_m / α."""
    lam = _check_lambda(lam)
    alpha_m = np.asarray(alpha_m, dtype=np.float64)
    m_random = np.asarray(m_random, dtype=np.float64)
    if m_random.shape != alpha_m.shape:
        raise ValueError(f"m' has shape {m_random.shape}, expected {alpha_m.shape}")
    alpha = alpha_m.sum()
    return alpha * ((1.0 - lam) * alpha_m / alpha + lam * m_random)


def perturbations(
    phi, alpha_m, kind: str, lambdas: Sequence[float] = LAMBDAS, *, seed: int = 0,
    concentration: float = 1.0,
) -> Iterator[tuple[float, np.ndarray, np.ndarray]]:
    """(λ, Phi_λ, alpha m_λ) for each λ; ``kind`` "phi" perturbs Phi, "m" perturbs m."""
    phi, alpha_m = check_lda_params(phi, alpha_m)
    if kind == "phi":
        phi_random = random_topics(*phi.shape, seed=seed, concentration=concentration)
        for lam in lambdas:
            yield float(lam), perturb_phi(phi, lam, phi_random), alpha_m
    elif kind == "m":
        m_random = random_base_measure(phi.shape[0], seed=seed, concentration=concentration)
        for lam in lambdas:
            yield float(lam), phi, perturb_alpha_m(alpha_m, lam, m_random)
    else:
        raise ValueError(f"unknown perturbation kind {kind!r}; choose one of {KINDS}")
