"""Work and memory limits: every estimator call knows its cost before it starts.

Each method's declaration (``topiceval.estimators.method.Method``) predicts the work of one
(document, run) task from the document's size and the settings (LDA: Gibbs site updates, the
units of Wallach et al. 2009 Table 1; GaP-FA: topic-word site updates).  Before any kernel runs,
``check_work`` refuses a call in which some task would exceed the limit, naming the document, the
predicted work, the limit and the largest value of the method's budget setting that would fit
(``fitting_budget``); ``check_memory`` refuses a call whose working arrays would not fit in
memory (numba would otherwise fail deep inside the kernel with an unreadable error).

Defaults: ``DEFAULT_WORK_LIMIT`` per (document, run) task, a few minutes of one core at the
measured speeds (LDA about 4e7 site updates per second, GaP-FA about 1e8 topic-word updates per
second, ``benchmarks/README.md``).  ``work_limit=None`` lifts the limit (the workflow does for
the papers' own budgets, whose cost it predicts itself).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from topiceval.estimators.method import Method

DEFAULT_WORK_LIMIT = {"lda": 10**10, "gapfa": 10**11}
MEMORY_FRACTION = 0.5  # of the machine's physical memory, for one call's working arrays


class WorkLimitError(ValueError):
    """A call would exceed its work or memory limit; nothing was run."""


def resolve_limit(limit, default: int) -> float | None:
    """``"default"`` -> the family default; ``None`` -> no limit; else a positive number."""
    if isinstance(limit, str) and limit == "default":
        return float(default)
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, numbers.Real) or not limit > 0:
        raise ValueError(f"work_limit must be a positive number or None, got {limit!r}")
    return float(limit)


def check_work(work: np.ndarray, limit: float | None, *, method: str, units: str,
               lengths: np.ndarray, fitting: Callable[[int], str],
               size_unit: str = "tokens") -> None:
    """Refuse at once if any task's predicted ``work`` (per document, one run) exceeds ``limit``.

    ``lengths``: each document's size (in ``size_unit``) for the message; ``fitting(d)``: a
    phrase naming the cheaper settings that would fit for document d.
    """
    if limit is None or work.size == 0:
        return
    d = int(np.argmax(work))
    if work[d] <= limit:
        return
    over = int(np.count_nonzero(work > limit))
    others = "" if over == 1 else f"; {over} documents are over it"
    raise WorkLimitError(
        f"{method}: document {d} ({int(lengths[d]):,} {size_unit}) needs "
        f"{float(work[d]):.3g} {units} per run, above the limit of {limit:.3g} per document and "
        f"run (a few minutes of one core){others}: {fitting(d)}, or split the document, or "
        "pass a larger work_limit (work_limit=None lifts it)"
    )


def physical_memory() -> int:
    """Bytes of physical memory (0 if the platform does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 0


def check_memory(bytes_per_task: np.ndarray, threads: int, *, method: str,
                 setting: str) -> None:
    """Refuse a call whose concurrent tasks' working arrays would exceed ``MEMORY_FRACTION`` of
    physical memory (``threads`` tasks run at once)."""
    total = physical_memory()
    if not total or bytes_per_task.size == 0:
        return
    worst = float(np.max(bytes_per_task))
    peak = worst * min(threads, bytes_per_task.size)
    if peak > MEMORY_FRACTION * total:
        raise WorkLimitError(
            f"{method}: the working arrays would need {peak / 2**30:,.1f} GiB "
            f"({worst / 2**30:,.2f} GiB per task x {min(threads, bytes_per_task.size)} threads), "
            f"more than {MEMORY_FRACTION:.0%} of this machine's {total / 2**30:,.1f} GiB; "
            f"lower {setting} or the number of threads"
        )


def fitting_budget(method: Method, cost_at: Callable[[int], float], current: dict,
                   limit: float) -> str:
    """A phrase naming the largest value of ``method.budget`` whose cost stays within ``limit``.

    ``cost_at(k)``: the cost of the task with the budget setting at ``k``.  Every cost is affine
    in its budget setting, so two evaluations give the line.
    """
    name = method.budget
    if name is None or not isinstance(current.get(name), (int, np.integer)):
        return f"lower the settings of {method.name}"
    one, two = cost_at(1), cost_at(2)
    step = two - one
    largest = int((limit - (one - step)) // step) if step > 0 else 0
    if largest >= 1:
        return f"use {name} <= {largest:,} (now {current[name]:,})"
    if method.cheaper:
        return f"even {name} = 1 is over it: {method.cheaper}"
    return f"even {name} = 1 is over it"
