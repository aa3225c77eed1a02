"""Wall-clock timings apart from estimates: a shard's tidy rows split into two files.

The estimates (every column but the timing ones) go to the result tables, which are therefore
bit-identical for any thread count and machine; the timing rows (the keys that identify an
estimate, and ``seconds`` and ``threads``) go under ``timings/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

import pandas as pd

from topiceval.io import write_csv_atomic

__all__ = ["TIMING_COLUMNS", "split_timings", "write_split"]

TIMING_COLUMNS = ["seconds", "threads"]


def split_timings(rows: pd.DataFrame, keys: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the estimates: ``rows`` without ``TIMING_COLUMNS``, the timing rows: ``keys`` and
    ``TIMING_COLUMNS``).

    Parameters
    ----------
    rows : pandas.DataFrame
        Tidy rows with the columns ``TIMING_COLUMNS``.
    keys : sequence of str
        The columns that identify an estimate (kept in the timing rows, in this order).

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
    """
    return rows.drop(columns=TIMING_COLUMNS), rows[[*keys, *TIMING_COLUMNS]]


def write_split(frames: Iterable[pd.DataFrame], keys: Sequence[str],
                rows_path: str | os.PathLike, timings_path: str | os.PathLike) -> None:
    """A shard's rows (the tidy rows of each of its tasks, in order) written as
    ``split_timings(rows, keys)``: the estimates to ``rows_path``, the timing rows to
    ``timings_path`` (CSV, atomically)."""
    estimates, timings = split_timings(pd.concat(list(frames), ignore_index=True), keys)
    write_csv_atomic(rows_path, estimates)
    write_csv_atomic(timings_path, timings)
