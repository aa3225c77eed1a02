"""Tidy rows back from shard files: the CSV tables of a group's shards as one frame.

A shard writes its rows as CSV; the summary job of a group reads every shard back (in the
given order, ``read_shards``) and, where the order of the shards is not the order of the
table, sorts the rows by their keys (``in_order``), so that a table never depends on how the
work was cut into shards.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["in_order", "read_shards", "untrusted_documents"]


def read_shards(paths: Sequence[str | os.PathLike], *,
                text: Sequence[str] = ()) -> pd.DataFrame:
    """The CSV files ``paths`` concatenated in order, with a fresh index.

    Parameters
    ----------
    paths : sequence of path
        Shard tables with the same columns.
    text : sequence of str
        Columns of strings that may be empty (CSV writes "" as an empty field, which reads back
        as missing): read as strings, empty where the field is empty.

    Returns
    -------
    pandas.DataFrame
    """
    frame = pd.concat([pd.read_csv(p, dtype=dict.fromkeys(text, str)) for p in paths],
                      ignore_index=True)
    for column in text:
        frame[column] = frame[column].fillna("")
    return frame


def in_order(frame: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """``frame`` sorted by ``keys`` (numeric keys by value, the others in order of first
    appearance), with a fresh index.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of several shards.
    keys : sequence of str
        Sort keys, most significant first.

    Returns
    -------
    pandas.DataFrame
    """
    order = [frame[k] if pd.api.types.is_numeric_dtype(frame[k])
             else frame[k].map({v: i for i, v in enumerate(dict.fromkeys(frame[k]))})
             for k in keys]
    index = np.lexsort([o.to_numpy() for o in reversed(order)])
    return frame.iloc[index].reset_index(drop=True)


def untrusted_documents(group: pd.DataFrame) -> dict:
    """``{"untrusted": n}``, the documents of a group of rows whose estimate the diagnostics do
    not trust (``trusted`` False on their rows; docs/trust.md), or ``{}`` for rows written
    before the diagnostics (no ``trusted`` column).

    Parameters
    ----------
    group : pandas.DataFrame
        Tidy rows with ``doc`` and, per row, its document's ``trusted`` (empty for a row not
        diagnosed, such as an intermediate sample size of a convergence curve).

    Returns
    -------
    dict
    """
    if "trusted" not in group:
        return {}
    flagged = group["trusted"].astype(str).str.lower() == "false"  # empty: not diagnosed
    return {"untrusted": int(flagged.groupby(group["doc"]).any().sum())}
