"""Corpus statistics next to the papers' own tables.

``corpus_stats(items)`` gives one row per (dataset, variant, split) with split in ``all`` and each
split label present (``variant`` is the corpus's name in the workflow config, ``meta["variant"]``,
e.g. ``capdevila2018-top100`` for the recipe ``capdevila2018`` cropped to 100 words; it defaults to
the recipe): D, V (vocabulary size), V_present (types occurring in that split), tokens, mean / sd
(ddof=1) / median / max document length.  On the ``all`` row of a (dataset, recipe) that a paper
describes (variant equal to the recipe), it adds the paper's numbers (``ref_*``) and our/their
ratios (``ratio_*``): Wallach et al. 2009 Table 2 (20 Newsgroups, ``wallach2009``), Capdevila et al.
2018 Table 1 (``capdevila2018``; AP as published is ``asis``; NIPS, Twitter and WS are stand-ins,
see ``note``), Béchard & Gervet (V = 3,000 by construction, ``bechard2018``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np
import pandas as pd

from topiceval.corpus import Corpus
from topiceval.io import atomic_path

_T1 = "seed004 Table 1"
_WS = ("WS", 4679, 12309, 9, 3, "STTM SearchSnippets stands in for WS")
_TW = ("Twitter", 6344, 10523, 25, 4, "STTM Tweet (2,472 docs) stands in for Twitter")
_AP = ("AP", 10473, 2246, 194, 111, "")
# (dataset, recipe) -> (source, row name, V, D, mean, sd, note); None = not given by the paper.
PAPER_REFERENCES: dict[tuple[str, str], tuple] = {
    ("20newsgroups", "wallach2009"): (
        "seed002 Table 2", "20 Newsgroups", 22695, None, 120.4, 296.2, ""
    ),
    ("20newsgroups", "bechard2018"): ("seed001 3.1", "20 Newsgroups", 3000, None, None, None, ""),
    ("20newsgroups", "capdevila2018"): (_T1, "20NGs", 11928, 18846, 123, 247, ""),
    ("reuters21578", "capdevila2018"): (_T1, "Reuters", 8843, 19043, 79, 75, ""),
    ("ap", "asis"): (_T1, *_AP),
    ("ap", "capdevila2018"): (_T1, *_AP[:5], "the paper's AP numbers equal the published lda-c AP"),
    ("nips", "capdevila2018"): (
        _T1, "NIPS", 11463, 5811, 1899, 513,
        "paper used a different NIPS (1987-2015, as published); ours is 1987-2003 raw text",
    ),
    ("tweet", "asis"): (_T1, *_TW),
    ("tweet", "capdevila2018"): (_T1, *_TW),
    ("searchsnippets", "asis"): (_T1, *_WS),
    ("searchsnippets", "capdevila2018"): (_T1, *_WS),
}
_REF_COLUMNS = ["reference", "ref_name", "ref_V", "ref_D", "ref_mean", "ref_sd", "note"]


def _as_corpora(items) -> list[Corpus]:
    if isinstance(items, Corpus | str | os.PathLike):
        items = [items]
    return [item if isinstance(item, Corpus) else Corpus.load(item) for item in items]


def _split_row(corpus: Corpus, label: str) -> dict:
    part = corpus if label == "all" else corpus.select_split(label)
    lengths = part.lengths
    return {
        "split": label,
        "D": len(part),
        "V": part.n_types,
        "V_present": int(np.unique(part.tokens).size),
        "tokens": part.n_tokens,
        "mean_length": float(lengths.mean()) if len(part) else float("nan"),
        "sd_length": float(lengths.std(ddof=1)) if len(part) > 1 else float("nan"),
        "median_length": float(np.median(lengths)) if len(part) else float("nan"),
        "max_length": int(lengths.max()) if len(part) else 0,
    }


def corpus_stats(items: Corpus | str | os.PathLike | Iterable) -> pd.DataFrame:
    """Statistics table of corpora (``Corpus`` objects or ``.npz`` paths); see module doc."""
    rows = []
    for corpus in _as_corpora(items):
        dataset = str(corpus.meta.get("dataset", ""))
        recipe = str(corpus.meta.get("recipe", ""))
        variant = str(corpus.meta.get("variant", recipe))
        ref = PAPER_REFERENCES.get((dataset, recipe)) if variant == recipe else None
        for label in ["all", *sorted(set(corpus.split.tolist()))]:
            row = {"dataset": dataset, "variant": variant, "recipe": recipe,
                   **_split_row(corpus, label)}
            row["ordered"] = bool(corpus.meta.get("ordered", True))
            if ref is not None and label == "all":
                row.update(dict(zip(_REF_COLUMNS, ref, strict=True)))
                for ours, theirs in (("V", "ref_V"), ("D", "ref_D"), ("mean_length", "ref_mean"),
                                     ("sd_length", "ref_sd")):
                    name = "ratio_" + theirs.removeprefix("ref_")
                    row[name] = row[ours] / row[theirs] if row[theirs] else float("nan")
            rows.append(row)
    columns = [
        "dataset", "variant", "recipe", "split", "D", "V", "V_present", "tokens", "mean_length",
        "sd_length", "median_length", "max_length", "ordered", *_REF_COLUMNS,
        "ratio_V", "ratio_D", "ratio_mean", "ratio_sd",
    ]
    table = pd.DataFrame(rows).reindex(columns=columns)
    return table.astype({"ref_V": "Int64", "ref_D": "Int64"})


def write_corpus_stats(items, csv_path: str | os.PathLike) -> pd.DataFrame:
    """``corpus_stats(items)`` written atomically to ``csv_path``; returns the table."""
    table = corpus_stats(items)
    with atomic_path(csv_path) as tmp:
        table.to_csv(tmp, index=False, float_format="%.6g")
    return table
