"""Thread-count control for numba ``prange`` kernels."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numba

from topiceval.validation import check_integer


def resolve_threads(threads: int | None) -> int:
    """``None`` or 0 means every thread numba was started with; otherwise 1..that number."""
    limit = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        return limit
    threads = check_integer("threads", threads, 0)
    return min(threads, limit) if threads else limit


@contextlib.contextmanager
def numba_threads(threads: int | None) -> Iterator[int]:
    """Run the block with ``threads`` numba threads, restoring the previous setting after."""
    previous = numba.get_num_threads()
    n = resolve_threads(threads)
    numba.set_num_threads(n)
    try:
        yield n
    finally:
        numba.set_num_threads(previous)
