"""The note while numba compiles the kernels on first use moves (issue 47): elapsed time, the
functions compiled and the one being compiled, and a last line with the total; nothing when
the kernels load from the cache."""

from __future__ import annotations

import io
import re

import numba

from topiceval.compiling import COMPILE_NOTE, CompileProgress, compile_note


def test_the_line_says_elapsed_time_count_and_current_function():
    now = [100.0]
    progress = CompileProgress(clock=lambda: now[0])
    assert progress.start("run_tasks") and not progress.start("scan")
    assert progress.line() == f"{COMPILE_NOTE} 0 s, 0 function(s) compiled; now scan"
    progress.end()
    now[0] = 112.4
    assert progress.line() == f"{COMPILE_NOTE} 12 s, 1 function(s) compiled; now run_tasks"
    progress.end()
    now[0] = 131.0
    assert progress.summary() == ("topiceval: compiled 2 function(s) of the estimator's kernels "
                                  "in 31 s (cached for later runs)")


def fresh_kernel(x):
    return x + 1


def test_a_compile_is_said_and_the_line_rewritten_in_a_terminal():
    out = io.StringIO()
    with compile_note(True, live=True, stream=out):
        numba.njit(fresh_kernel)(1)  # a new dispatcher each time: compiled, never cached
    text = out.getvalue()
    assert text.startswith(f"\r{COMPILE_NOTE} 0 s, 0 function(s) compiled; now fresh_kernel")
    assert re.search(r"\rtopiceval: compiled 1 function\(s\) of the estimator's kernels in "
                     r"\d+ s \(cached for later runs\) *\n$", text)
    assert text.count("\n") == 1


def test_in_a_log_only_the_first_and_last_lines():
    out = io.StringIO()
    with compile_note(True, live=False, stream=out):
        numba.njit(fresh_kernel)(1)
    first, last = out.getvalue().splitlines()
    assert first.startswith(COMPILE_NOTE) and last.startswith("topiceval: compiled 1 function")


def test_nothing_is_said_when_nothing_compiles():
    out = io.StringIO()
    kernel = numba.njit(fresh_kernel)
    kernel(1)
    with compile_note(True, live=True, stream=out):
        kernel(2)
    with compile_note(False, live=True, stream=out):
        numba.njit(fresh_kernel)(1)
    assert out.getvalue() == ""
