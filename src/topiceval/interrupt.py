"""Kernels that stop on Ctrl-C (docs/methods/implementation.md#stopping-a-run).

CPython runs a Python signal handler only when its main thread is back in bytecode: while the
main thread is inside a numba kernel, Ctrl-C (SIGINT, raised as ``KeyboardInterrupt``) waits
until the kernel returns, which can be minutes.  So every long kernel is called through
``run``:

* the kernel runs in the kernel thread (``WORKER_NAME``), compiled ``nogil=True`` so that it
  does not hold the GIL, with the calling thread's numba thread count and parallel chunk size;
* the calling thread waits for it in slices of ``WAIT_SLICE`` seconds, so a signal handler runs
  within a slice;
* whatever interrupts the wait (``KeyboardInterrupt``, or ``SystemExit`` from a SIGTERM
  handler) sets the kernel's *stop flag*; the kernel polls it between tasks and once per
  sample, sweep or other step of bounded work, and returns at once, its outputs unfinished.
  The calling thread waits for that return (a kernel is never left running behind the caller's
  back) and re-raises the exception, so the unfinished outputs are never read.

The kernel thread lives as long as the process and serves one call at a time, so that the
thread pool of a parallel kernel (OpenMP's is per calling thread) is made once, not at every
call; a call made while it is busy (from another Python thread) gets a thread of its own.  A
call costs about 0.1 ms more than calling the kernel directly.

The stop flag is the kernel's last argument, a (1,) uint8 array (``new_flag``); kernels read it
with ``stopped``, a relaxed atomic load (one ``mov`` on x86) that the compiler may not hoist out
of a loop.  The polls read no random number and change no arithmetic: results are bit-identical
to those of the kernels without them.  A kernel's first use in the process is compiled (or
loaded from numba's cache) in the calling thread before it is handed over, so Ctrl-C also
interrupts that compilation.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from topiceval import _kernel_cache

_kernel_cache.use_keyed_cache()  # before the first kernel: none may outlive its source (issue 46)

WORKER_NAME = "topiceval-kernel"
WAIT_SLICE = 0.05  # seconds between the calling thread's checks for a signal


def new_flag() -> np.ndarray:
    """A stop flag, not set: the last argument of an interruptible kernel."""
    return np.zeros(1, np.uint8)


@intrinsic
def _relaxed_load(typingctx, flag):
    """``flag[0]`` by an atomic load with monotonic (relaxed) ordering."""
    if not (isinstance(flag, types.Array) and flag.dtype == types.uint8):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.load_atomic(array.data, "monotonic", 1)

    return types.uint8(flag), codegen


@njit(cache=True, inline="always")
def stopped(stop):
    """True once the caller has asked the kernel to stop (``stop`` from ``new_flag``)."""
    return _relaxed_load(stop) != 0


class _Call:
    """One kernel call, run once by whichever thread takes it first; ``done`` is set after."""

    def __init__(self, kernel: Callable, args: tuple) -> None:
        self.kernel, self.args = kernel, args
        self.threads, self.chunk = numba.get_num_threads(), numba.get_parallel_chunksize()
        self.taken = threading.Lock()
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def __call__(self) -> None:
        if not self.taken.acquire(blocking=False):  # another thread runs or ran it
            return
        numba.set_num_threads(self.threads)
        numba.set_parallel_chunksize(self.chunk)
        try:
            self.value = self.kernel(*self.args)
        except BaseException as exc:  # handed to the calling thread
            self.error = exc
        finally:
            self.done.set()


class _KernelThread:
    """The long-lived kernel thread and its queue of calls (one at a time)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # held by the caller whose call it runs
        self.calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None

    def serve(self) -> None:
        while True:
            self.calls.get()()

    def submit(self, call: _Call) -> None:
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self.serve, name=WORKER_NAME, daemon=True)
            self.thread.start()
        self.calls.put(call)


_KERNEL_THREAD = _KernelThread()
if hasattr(os, "register_at_fork"):  # a forked child has none of its parent's threads
    os.register_at_fork(after_in_child=_KERNEL_THREAD.__init__)


def run(kernel: Callable, *args: Any) -> Any:
    """``kernel(*args, stop)`` in the kernel thread, stopped if the calling thread is interrupted.

    Parameters
    ----------
    kernel
        A numba dispatcher compiled with ``nogil=True`` whose last parameter is the stop flag
        (see the module docstring).
    *args
        Its other arguments.

    Returns
    -------
    object
        What the kernel returns.

    Raises
    ------
    BaseException
        What interrupted the wait (``KeyboardInterrupt``), once the kernel has returned; or what
        the kernel raised.
    """
    stop = new_flag()
    call = _Call(kernel, (*args, stop))
    if not kernel.overloads:  # first use: compile or load it here, where Ctrl-C interrupts
        kernel.compile(tuple(kernel.typeof_pyval(a) for a in call.args))
    owner = _KERNEL_THREAD.lock.acquire(blocking=False)  # else another thread is using it
    try:
        if owner:
            _KERNEL_THREAD.submit(call)
        else:
            threading.Thread(target=call, name=WORKER_NAME, daemon=True).start()
        while not call.done.wait(WAIT_SLICE):
            pass
    except BaseException:  # KeyboardInterrupt: stop the kernel, wait for it, re-raise
        stop[0] = 1
        call()  # if no thread has taken it yet, here: it returns at its first poll
        call.done.wait()
        raise
    finally:
        if owner:
            _KERNEL_THREAD.lock.release()
    if call.error is not None:
        raise call.error
    return call.value
