"""Most probable words of each topic (Béchard & Gervet Tables 1 and 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from topiceval.models import LDAModel


def top_words(model: LDAModel, n: int = 5, vocab=None) -> pd.DataFrame:
    """Tidy table (topic, rank, word, prob) of the ``n`` largest φ_{v|t} per topic.

    Ties are broken by word id.  ``vocab`` defaults to the model's vocabulary (word ids as strings
    when it has none).

    Parameters
    ----------
    model : LDAModel
        The model.
    n : int, default 5
        Words per topic.
    vocab : (V,) sequence of str, optional
        The words of phi's columns (default: the model's).
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    phi = model.phi
    vocab = model.vocab if vocab is None else vocab
    vocab = np.asarray([str(v) for v in range(phi.shape[1])] if vocab is None else vocab, dtype=str)
    if vocab.shape != (phi.shape[1],):
        raise ValueError(f"vocab has {vocab.shape[0]} words for V = {phi.shape[1]}")
    n = min(int(n), phi.shape[1])
    order = np.argsort(-phi, axis=1, kind="stable")[:, :n]
    rows = [
        (t, r + 1, str(vocab[v]), float(phi[t, v]))
        for t in range(phi.shape[0])
        for r, v in enumerate(order[t])
    ]
    return pd.DataFrame(rows, columns=["topic", "rank", "word", "prob"])
