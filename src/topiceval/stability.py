"""Topic stability across seeds: do the same topics come back when only the seed changes?

    table = stability_table([model_seed0, model_seed1, model_seed2])

Models that differ only in seed name their topics in arbitrary order, so topics are first
matched: for two models a and b, the one-to-one matching of a's topics to b's that minimises
the summed distance between matched topic-word rows (linear assignment, the Hungarian method:
``scipy.optimize.linear_sum_assignment``; a greedy nearest-topic match can pair one topic
twice).  The distance is

* ``"jensen_shannon"`` (default): the Jensen-Shannon distance in bits,
  d(p, q) = sqrt(H((p + q) / 2) - (H(p) + H(q)) / 2), between 0 (same distribution) and 1
  (disjoint supports);
* ``"cosine"``: 1 - p.q / (|p| |q|), between 0 and 1 for non-negative rows.

The similarity of two matched topics is s = 1 - d: 1 for a topic found again unchanged.
A topic's stability is the mean of s over the other models, its topic of the first model
(the anchor) matched in each; the model's stability is the mean of the matched similarities
over every pair of models, with its spread over those pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

from topiceval.models import GaPModel, LDAModel

__all__ = ["DISTANCES", "match_topics", "stability_table", "topic_distances"]

DISTANCES = ("jensen_shannon", "cosine")


def topic_distances(phi_a: np.ndarray, phi_b: np.ndarray,
                    distance: str = "jensen_shannon") -> np.ndarray:
    """(T_a, T_b) distances between the rows of two topic-word matrices (module docstring).

    Parameters
    ----------
    phi_a, phi_b : (T_a, V) and (T_b, V) arrays of float
        Topic-word matrices over the same vocabulary, rows summing to 1.
    distance : {"jensen_shannon", "cosine"}
        The Jensen-Shannon distance in bits (the square root of the divergence, in [0, 1]) or
        the cosine distance.
    """
    if distance == "jensen_shannon":
        nats = cdist(phi_a, phi_b, "jensenshannon")  # sqrt of the divergence in nats
        return np.clip(nats / np.sqrt(np.log(2.0)), 0.0, 1.0)
    if distance == "cosine":
        return np.clip(cdist(phi_a, phi_b, "cosine"), 0.0, 1.0)
    raise ValueError(f"distance must be one of {', '.join(DISTANCES)}; got {distance!r}")


def match_topics(distances: np.ndarray) -> np.ndarray:
    """``match[t]``: the column matched to row t by minimum-total-distance assignment.

    Parameters
    ----------
    distances : (T_a, T_b) array of float
        ``topic_distances`` of two models with the same number of topics.
    """
    rows, cols = linear_sum_assignment(distances)
    match = np.empty(distances.shape[0], dtype=np.int64)
    match[rows] = cols
    return match


def _rows(models) -> list[np.ndarray]:
    if isinstance(models, (LDAModel, GaPModel, np.ndarray)) or len(models) < 2:
        raise ValueError("stability needs a sequence of at least two models (one per seed)")
    rows = []
    for k, model in enumerate(models):
        phi = model.phi if isinstance(model, (LDAModel, GaPModel)) else np.asarray(model, float)
        if phi.ndim != 2 or not np.all(np.isfinite(phi)) or np.any(phi < 0) \
                or not np.allclose(phi.sum(axis=1), 1.0):
            raise ValueError(f"model {k}: topic-word rows must be non-negative and sum to 1")
        if rows and phi.shape != rows[0].shape:
            raise ValueError(f"model {k} has shape {phi.shape}, model 0 {rows[0].shape}: seeds "
                             "of one candidate have the same topics count and words")
        rows.append(phi)
    vocabs = [getattr(m, "vocab", None) for m in models]
    if any(v is not None for v in vocabs) and not all(
            v is not None and np.array_equal(np.asarray(v), np.asarray(vocabs[0])) for v in vocabs):
        raise ValueError("the models' word lists differ: stability compares topics of one "
                         "vocabulary, column by column")
    return rows


def stability_table(models: Sequence[LDAModel | GaPModel | np.ndarray], *,
                    distance: str = "jensen_shannon", top_n: int = 10) -> pd.DataFrame:
    """Per-topic and mean stability of models that differ only in seed.

    Parameters
    ----------
    models : sequence of LDAModel, GaPModel or (T, V) arrays
        Two or more; the first is the anchor whose topics are the table's rows.
    distance : {"jensen_shannon", "cosine"}, default "jensen_shannon"
    top_n : int, default 10
        Top words shown per topic (of the anchor).

    Returns
    -------
    pandas.DataFrame
        One row per anchor topic (``topic`` "0", "1", ...): ``stability`` (mean similarity of
        its matches in the other models), ``stability_sd``, ``stability_min`` and
        ``stability_max`` over those models; then a row ``topic`` "mean": the mean matched
        similarity over all pairs of models, with sd, min and max over the pairs.  Also
        ``top_words``, ``models`` and ``distance``.
    """
    rows = _rows(models)
    if distance not in DISTANCES:
        raise ValueError(f"distance must be one of {', '.join(DISTANCES)}; got {distance!r}")
    matched = {}
    for a, b in combinations(range(len(rows)), 2):
        d = topic_distances(rows[a], rows[b], distance)
        matched[a, b] = 1.0 - d[np.arange(len(d)), match_topics(d)]
    anchor = np.stack([matched[0, b] for b in range(1, len(rows))], axis=1)
    pairs = np.array([s.mean() for s in matched.values()])
    words = getattr(models[0], "vocab", None)
    words = np.asarray(words, str) if words is not None else np.arange(rows[0].shape[1]).astype(str)
    top = np.argsort(-rows[0], axis=1, kind="stable")[:, :top_n]
    T = rows[0].shape[0]
    return pd.DataFrame({
        "topic": [str(t) for t in range(T)] + ["mean"],
        "top_words": [" ".join(words[r]) for r in top] + [""],
        "stability": np.append(anchor.mean(axis=1), pairs.mean()),
        "stability_sd": np.append(anchor.std(axis=1), pairs.std()),
        "stability_min": np.append(anchor.min(axis=1), pairs.min()),
        "stability_max": np.append(anchor.max(axis=1), pairs.max()),
        "models": len(rows),
        "distance": distance,
    })
