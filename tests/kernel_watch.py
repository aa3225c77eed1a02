"""Act once this process's kernels have run for a while (tests/test_interrupt.py).

``KernelWatch(seconds, action)`` stands in for ``topiceval.interrupt.run``: it times every kernel
call from the moment the kernel is compiled and handed over, and its watcher thread calls
``action()`` once, as soon as the kernels have run ``seconds`` in all and one of them is running.
A signal sent by ``action`` then lands while a kernel runs, not in start-up, compilation or
loading.
"""

from __future__ import annotations

import threading
import time

from topiceval import interrupt

POLL = 0.005  # seconds between the watcher's looks


class KernelWatch:
    def __init__(self, seconds: float, action) -> None:
        self.seconds, self.action = seconds, action
        self.original = interrupt.run
        self.done = 0.0  # seconds of the calls that returned
        self.since: float | None = None  # start of the call running now

    def run(self, kernel, *args):
        """``interrupt.run``, timed (compiled first, so that compilation is not counted)."""
        if not kernel.overloads:
            kernel.compile(tuple(kernel.typeof_pyval(a) for a in (*args, interrupt.new_flag())))
        self.since = time.perf_counter()
        try:
            return self.original(kernel, *args)
        finally:
            self.done += time.perf_counter() - self.since
            self.since = None

    def start(self) -> None:
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while True:
            since = self.since
            if since is not None and self.done + time.perf_counter() - since >= self.seconds:
                self.action()
                return
            time.sleep(POLL)
