"""The note that moves while numba compiles the estimator's kernels on their first use.

In a fresh installation the first call compiles the kernels (tens of seconds, minutes on a
loaded machine); later calls, in any process, load them from numba's cache in under a second.
``compile_note`` listens to numba's ``numba:compile`` events, which fire only on a cache miss,
so nothing is printed when the kernels load from the cache.  At the first event it prints
``COMPILE_NOTE``; while compiling goes on, the line is rewritten once a second (``live``: a
terminal or a notebook) with the elapsed time, the functions compiled so far and the one being
compiled; at the end one line says how long it took.  Where the line cannot be rewritten (a
log file), only the first and the last line are written.  Where the cache lives is numba's
business, not this module's.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

COMPILE_NOTE = ("topiceval: compiling the estimator's kernels on first use (cached for later "
                "runs) ...")
TICK_SECONDS = 1.0


class CompileProgress:
    """What numba has compiled since the first ``numba:compile`` event, and the line saying it.

    Parameters
    ----------
    clock : callable, default time.monotonic
        Seconds, for the elapsed time.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started: float | None = None
        self.compiled = 0
        self.stack: list[str] = []
        self.lock = threading.Lock()

    def start(self, name: str) -> bool:
        """A function starts compiling; True for the first of the call."""
        with self.lock:
            first = self.started is None
            if first:
                self.started = self.clock()
            self.stack.append(name)
            return first

    def end(self) -> None:
        """The function compiling last has been compiled."""
        with self.lock:
            if self.stack:
                self.stack.pop()
            self.compiled += 1

    def line(self) -> str:
        """``COMPILE_NOTE`` with the elapsed time, the functions compiled and the current one."""
        with self.lock:
            elapsed = self.clock() - (self.started or self.clock())
            now = f"; now {self.stack[-1]}" if self.stack else ""
            return (f"{COMPILE_NOTE} {elapsed:.0f} s, {self.compiled} function(s) "
                    f"compiled{now}")

    def summary(self) -> str:
        """The last line: how long compiling took."""
        with self.lock:
            elapsed = self.clock() - (self.started or self.clock())
            return (f"topiceval: compiled {self.compiled} function(s) of the estimator's "
                    f"kernels in {elapsed:.0f} s (cached for later runs)")


@contextlib.contextmanager
def compile_note(enabled: bool, live: bool, stream: TextIO | None = None) -> Iterator[None]:
    """Say on ``stream`` (standard error) what numba compiles inside the block, if anything.

    Parameters
    ----------
    enabled : bool
        False: say nothing.
    live : bool
        Rewrite the line once a second (a terminal, a notebook); otherwise write only the first
        line and the last.
    stream : text stream, optional
        Where to write (default: ``sys.stderr`` at the time of the call).
    """
    if not enabled:
        yield
        return
    from numba.core import event

    out = stream if stream is not None else sys.stderr
    progress = CompileProgress()
    shown = [0]  # the length of the line on screen, to blank a longer earlier one

    def show(text: str, end: str = "") -> None:
        if live:
            out.write("\r" + text.ljust(shown[0]) + end)
            shown[0] = 0 if end else len(text)
        else:
            out.write(text + "\n")
        out.flush()

    class Listener(event.Listener):
        def on_start(self, ev) -> None:
            function = getattr(ev.data.get("dispatcher"), "py_func", None)
            if progress.start(getattr(function, "__name__", "?")):
                show(progress.line())

        def on_end(self, ev) -> None:
            progress.end()

    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(TICK_SECONDS):
            if progress.started is not None:
                show(progress.line())

    ticker = threading.Thread(target=tick, name="topiceval-compile-note", daemon=True)
    if live:
        ticker.start()
    try:
        with event.install_listener("numba:compile", Listener()):
            yield
    finally:
        stop.set()
        if live:
            ticker.join()
        if progress.started is not None:
            show(progress.summary(), end="\n")
