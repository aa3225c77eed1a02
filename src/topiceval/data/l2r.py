"""Reader for the L2R authors' released files (github.com/jcapde/L2R;
docs/methods/validation.md#released-gap-fa-values).

* ``*_GaP_<D>N_<V>W_<T>T.mat`` (MATLAB v5): ``y`` (V x D counts), ``U_avg`` (V x T, Phi^T,
  columns sum to 1), ``qr_avg`` (1 x T, p), ``s`` (scalar r, broadcast to every topic as the
  reference loader does), ``alpha`` (Dirichlet 0.1), ``V_avg`` (D x T, theta; not needed).
  ``load_l2r_model`` returns the counts as a D x V int64 CSR matrix and a ``GaPModel``.
* ``Exact_*.json``: a JSON string that itself encodes ``{"value": total, "value_doc": [...]}``;
  ``load_l2r_exact`` returns (total, per-document array).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

from topiceval.counts import as_count_matrix
from topiceval.io import sha256_file
from topiceval.models import GaPModel

_REQUIRED = ("y", "U_avg", "qr_avg", "s")


def load_l2r_model(path: str | os.PathLike) -> tuple[sp.csr_matrix, GaPModel]:
    """(counts D x V, model) from a released ``.mat`` file; ``ValueError`` names a bad file."""
    path = Path(path)
    try:
        mat = scipy.io.loadmat(path, mat_dtype=True)
    except (OSError, ValueError, NotImplementedError, scipy.io.matlab.MatReadError) as exc:
        raise ValueError(f"{path}: cannot read MATLAB file ({exc})") from exc
    missing = [k for k in _REQUIRED if k not in mat]
    if missing:
        raise ValueError(f"{path}: not an L2R model file, missing variables {missing}")
    y = mat["y"]
    phi_t = np.asarray(mat["U_avg"], dtype=np.float64)
    p = np.asarray(mat["qr_avg"], dtype=np.float64).reshape(-1)
    r_scalar = np.asarray(mat["s"], dtype=np.float64).reshape(-1)
    if r_scalar.size != 1:
        raise ValueError(f"{path}: expected a scalar shape s, got {r_scalar.size} values")
    if phi_t.ndim != 2 or y.shape[0] != phi_t.shape[0]:
        raise ValueError(
            f"{path}: y has {y.shape[0]} rows (words) but U_avg has shape {phi_t.shape}"
        )
    try:
        counts = as_count_matrix(y.T, n_types=phi_t.shape[0])
        model = GaPModel(
            phi_t.T,
            p,
            np.full(p.size, r_scalar[0]),
            meta={
                "source": "jcapde/L2R released model",
                "file": path.name,
                "sha256": sha256_file(path),
                "a_phi": float(np.asarray(mat["alpha"]).reshape(-1)[0]) if "alpha" in mat else None,
                "n_docs": int(counts.shape[0]),
            },
        )
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return counts, model


def load_l2r_exact(path: str | os.PathLike) -> tuple[float, np.ndarray]:
    """(sum, per-document values) of a released ``Exact_*.json`` file."""
    path = Path(path)
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(payload, str):
            payload = json.loads(payload)
        return float(payload["value"]), np.asarray(payload["value_doc"], dtype=np.float64)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not an L2R exact-values file ({exc})") from exc
