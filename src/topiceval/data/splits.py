"""Train/test assignment and deterministic subsampling of raw documents.

* ``assign_splits``: ``"archive"`` keeps the source's own split (20 Newsgroups train/test,
  Reuters-21578 ModApte), ``"none"`` labels every document ``train`` (as for models trained on the
  complete collection), ``"random"`` draws a held-out set of ``test_size`` documents (or
  ``round(test_fraction * D)``) uniformly without replacement.
* ``subsample``: at most ``max_docs`` documents per split label, drawn uniformly without
  replacement and kept in source order.

Randomness comes from ``topiceval.seeds.generator(seed, purpose[, split label])``, so a
seed always gives the same documents, independent of anything else in the run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from topiceval.seeds import generator

POLICIES = ("archive", "none", "random")
_RANDOM_SPLIT, _SUBSAMPLE = 1, 2


def assign_splits(
    archive_splits: Sequence[str | None],
    policy: str,
    test_fraction: float | None = None,
    test_size: int | None = None,
    seed: int = 0,
) -> np.ndarray:
    """Split label per document under ``policy`` (see the module docstring)."""
    n = len(archive_splits)
    if policy not in POLICIES:
        raise ValueError(f"unknown split policy {policy!r}; expected one of {POLICIES}")
    if policy != "random" and (test_fraction is not None or test_size is not None):
        raise ValueError(f"test_fraction/test_size apply only to split 'random', not {policy!r}")
    if policy == "archive":
        missing = sum(s is None for s in archive_splits)
        if missing:
            raise ValueError(
                f"split 'archive' needs a split from the source, but {missing} of {n} documents "
                "have none (use 'none' or 'random')"
            )
        return np.array(archive_splits, dtype=str)
    labels = np.full(n, "train", dtype="<U5")
    if policy == "none":
        return labels
    if (test_fraction is None) == (test_size is None):
        raise ValueError("split 'random' needs exactly one of test_fraction or test_size")
    if test_size is None:
        if not 0.0 < test_fraction < 1.0:
            raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
        test_size = int(round(test_fraction * n))
    if not 1 <= test_size < n:
        raise ValueError(f"test_size must lie in [1, {n - 1}] for {n} documents, got {test_size}")
    rng = generator(seed, _RANDOM_SPLIT)
    labels[rng.choice(n, size=test_size, replace=False)] = "test"
    return labels


def subsample(labels: np.ndarray, max_docs: int | None, seed: int = 0) -> np.ndarray:
    """Indices (sorted) of at most ``max_docs`` documents per split label."""
    labels = np.asarray(labels)
    if max_docs is None:
        return np.arange(labels.shape[0])
    if int(max_docs) < 1:
        raise ValueError(f"max_docs must be a positive integer, got {max_docs}")
    keep = []
    for label in sorted(set(labels.tolist())):
        idx = np.flatnonzero(labels == label)
        if idx.size > max_docs:
            rng = generator(seed, _SUBSAMPLE, label)
            idx = np.sort(rng.choice(idx, size=int(max_docs), replace=False))
        keep.append(idx)
    return np.sort(np.concatenate(keep)) if keep else np.zeros(0, dtype=np.int64)
