"""Task grids of the experiments: blocks of documents (or repeats), task names and shards.

Blocks come in two kinds: ``blocks`` cuts items into runs of at most a given count,
``work_blocks`` into a given number of runs of about equal predicted work (items of very
different cost).

A task is one piece of a paper's grid (e.g. a data set x setting x block of documents) whose
rows depend only on the seed and on what it evaluates, never on the blocking; a shard is the
set of tasks one workflow job runs.  A paper module builds its tasks as typed dataclasses and
groups them into ``Shards``: ``{(group, shard name): [task, ...]}`` in grid order, where the
group is the part of the output path above the shard (a figure, a perturbation).  The Snakemake
rules read the shard names of a group (``shard_names``) and pass one shard's tasks to its job
(``shard_tasks``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

import numpy as np

from topiceval.validation import is_integer

__all__ = ["Shards", "blocks", "check_block", "group_shards", "scaled", "shard_names",
           "shard_tasks", "slug", "work_blocks"]

T = TypeVar("T")
Shards = dict[tuple[str, str], list[T]]


def blocks(total: int, size: int) -> list[tuple[int, int]]:
    """Half-open blocks ``[start, stop)`` of at most ``size`` covering ``0 .. total - 1``.

    Parameters
    ----------
    total : int
        The number of items (documents, repeats); a positive integer.
    size : int
        The largest block; a positive integer.

    Returns
    -------
    list of (int, int)
    """
    for name, value in (("the number of items to cut into blocks", total),
                        ("the block size", size)):
        if not is_integer(value) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return [(lo, min(lo + size, total)) for lo in range(0, total, size)]


def work_blocks(work: Sequence[float], parts: int) -> list[tuple[int, int]]:
    """``parts`` half-open blocks ``[start, stop)`` of consecutive items, cut at the quantiles
    of the items' cumulative work.

    Item d, of work w_d after W_d of work before it (W of all items), goes to block
    ``floor(parts * (W_d + w_d / 2) / W)`` (at most ``parts - 1``; all to block 0 when W is 0):
    its midpoint's quantile.  The blocks are contiguous and in order, cover every item once,
    depend only on the items' work and ``parts``, and each holds at most W / parts + the largest
    w_d of work (its items' midpoints lie in an interval of length W / parts).  A block may be
    empty (``start == stop``): more parts than items, or an item of more than W / parts.

    Parameters
    ----------
    work : sequence of float
        The predicted work of each item (non-negative, finite).
    parts : int
        The number of blocks; a positive integer.

    Returns
    -------
    list of (int, int)
        ``parts`` blocks, in order, the first starting at 0 and the last stopping at
        ``len(work)``.
    """
    if not is_integer(parts) or parts < 1:
        raise ValueError(f"the number of blocks must be a positive integer, got {parts!r}")
    values = np.asarray(work, dtype=np.float64)
    if values.ndim != 1 or not np.all(np.isfinite(values) & (values >= 0)):
        raise ValueError("the work of the items must be a list of non-negative finite numbers")
    total = values.sum()
    if total > 0:
        middle = np.cumsum(values) - values / 2
        block = np.minimum(np.floor(parts * middle / total), parts - 1).astype(np.int64)
    else:
        block = np.zeros(values.size, dtype=np.int64)
    edges = np.searchsorted(block, np.arange(parts + 1))
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def scaled(count: float, scale: float) -> int:
    """A paper's sample, burn-in or temperature count times the configuration's ``scale``.

    Parameters
    ----------
    count : float
        The paper's count.
    scale : float
        A positive factor (1 is the paper's size).

    Returns
    -------
    int
        round(count * scale), at least 1.
    """
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be positive, got {scale}")
    return max(1, int(round(count * scale)))


def check_block(start: int, stop: int, n_docs: int) -> None:
    """Raise ``ValueError`` unless ``[start, stop)`` is a non-empty block of ``n_docs`` items.

    Parameters
    ----------
    start, stop : int
        The task's block.
    n_docs : int
        The number of documents the task is run on.
    """
    if not 0 <= start < stop <= n_docs:
        raise ValueError(f"task block [{start}, {stop}) does not fit {n_docs} documents")


def slug(text: str) -> str:
    """``text`` for a task or shard name: lower case, every character other than a letter or a
    digit a hyphen, no hyphen at either end (``"IS-PT 1"`` -> ``"is-pt-1"``).

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def group_shards(keyed: Iterable[tuple[tuple[str, str], T]]) -> Shards:
    """Tasks grouped by shard.

    Parameters
    ----------
    keyed : iterable of ((str, str), task)
        ((group, shard name), task) for every task, in grid order.

    Returns
    -------
    Shards
        The shards in order of first appearance, each with its tasks in grid order.
    """
    out: Shards = {}
    for key, task in keyed:
        out.setdefault(key, []).append(task)
    return out


def shard_names(shards: Shards, group: str) -> list[str]:
    """The shard names of ``group`` (a figure, a perturbation), in grid order.

    Parameters
    ----------
    shards : Shards
    group : str

    Returns
    -------
    list of str
    """
    return [name for g, name in shards if g == group]


def shard_tasks(shards: Shards, group: str, name: str) -> list:
    """The tasks of shard ``name`` of ``group``, what its job runs.

    Parameters
    ----------
    shards : Shards
    group, name : str
        The shard's group and name (``ValueError`` when there is no such shard).

    Returns
    -------
    list
        Its tasks, in grid order.
    """
    if (group, name) not in shards:
        raise ValueError(f"no tasks in shard {group}/{name}")
    return shards[group, name]
