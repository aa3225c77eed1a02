"""Compiled kernels cannot outlive their source (issue 46; ``topiceval._kernel_cache``): numba's
cache of the package's kernels lives in a directory keyed to the version and the kernels'
source, so an upgrade in place, or a change to a function a kernel calls from another file,
compiles them again."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import topiceval
from topiceval import _kernel_cache

SRC = Path(__file__).resolve().parents[1] / "src" / "topiceval"
# the particles' sum of the left-to-right estimator (estimators/lda/lr.py), a kernel that calls
# _numba.logsumexp from another file
ESTIMATE = ("import numpy as np; from topiceval.estimators.lda.lr import sequential; "
            "print(repr(sequential(np.array([[0.0, 1.0], [2.0, -1.0]]), 0, 2)))")
LOGSUMEXP_END = "    return m + math.log(s)\n"


def _run(site: Path, cache: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(site), "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", ESTIMATE], env=env, cwd=site.parent,
                          capture_output=True, text=True, check=True)
    return float(done.stdout)


@pytest.mark.slow
def test_an_upgrade_in_place_computes_the_new_numbers(tmp_path):
    """The issue's sequence: a non-editable install (a copy of the package), a kernel run and
    cached, then ``_numba.logsumexp`` changed in place (+1 nat) with the file of the kernel
    that calls it untouched; a new process gives the new numbers, not the cached ones."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    shutil.copytree(Path(topiceval.__file__).parent, site / "topiceval",
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = _run(site, cache)
    assert list((cache / "topiceval").rglob("*.nbi")), "the first run cached nothing"
    assert _run(site, cache) == before
    numba_py = site / "topiceval" / "_numba.py"
    head, found, tail = numba_py.read_text().partition("def logsumexp(a):")
    assert found and LOGSUMEXP_END in tail
    tail = tail.replace(LOGSUMEXP_END, "    return m + math.log(s) + 1.0\n", 1)
    numba_py.write_text(head + found + tail)
    assert _run(site, cache) == pytest.approx(before + 1.0)
    assert len(list((cache / "topiceval").iterdir())) == 2  # one directory per source


def test_the_cache_directory_is_keyed_to_version_and_source(tmp_path, monkeypatch):
    """``cache_dir()``: under ``$NUMBA_CACHE_DIR/topiceval`` when set, named by the version and
    a hash that changes with any module of the package (a kernel freezes the constants it reads
    from other modules), and only with the source."""
    package = tmp_path / "topiceval"
    shutil.copytree(SRC, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(_kernel_cache, "PACKAGE", package)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))

    def key() -> str:
        _kernel_cache.source_key.cache_clear()
        return _kernel_cache.source_key()

    try:
        first = key()
        assert first.startswith(f"{topiceval.__version__}-")
        assert _kernel_cache.cache_dir() == tmp_path / "mine" / "topiceval" / first
        (package / "py.typed").write_text("changed, not a module\n")
        assert key() == first
        settings = package / "estimators" / "lda" / "settings.py"
        settings.write_text(settings.read_text() + "\n# changed\n")
        assert key() != first
        monkeypatch.delenv("NUMBA_CACHE_DIR")
        assert _kernel_cache.cache_root().parts[-2:] == ("topiceval", "numba")
    finally:
        _kernel_cache.source_key.cache_clear()


def test_every_kernel_is_cached_in_the_keyed_directory():
    """A kernel defined before the keyed locator is installed would be cached beside its
    source, where an upgrade leaves it: every cached kernel of the package uses
    ``KeyedCacheLocator``."""
    from numba.core.dispatcher import Dispatcher

    cached = {}
    for path in sorted(SRC.rglob("*.py")):
        if "cache=True" not in path.read_text():
            continue
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        module = importlib.import_module(".".join(parts))
        for name, value in vars(module).items():
            if isinstance(value, Dispatcher) and value._cache.__class__.__name__ != "NullCache":
                cached[f"{module.__name__}.{name}"] = type(value._cache._impl.locator)
    assert cached
    offenders = [name for name, locator in cached.items()
                 if locator is not _kernel_cache.KeyedCacheLocator]
    assert not offenders, offenders



RACE = r"""
import pathlib, sys, time
import numpy as np
from numba.core import event
from topiceval import _numba

here = pathlib.Path(sys.argv[1])
compiled = []

class SlowCompile(event.Listener):  # widens the window in which the other process could compile
    def on_start(self, ev):
        if ev.data["dispatcher"].py_func.__name__ == "logsumexp":
            compiled.append(1)
            time.sleep(3)
    def on_end(self, ev):
        pass

event.register("numba:compile", SlowCompile())
(here / f"ready-{sys.argv[2]}").touch()
while not (here / "go").exists():
    time.sleep(0.005)
_numba.logsumexp(np.zeros(3))
print(len(compiled))
"""


@pytest.mark.slow
def test_processes_started_together_compile_a_kernel_once(tmp_path):
    """``CompileOnce`` (issue 47): two processes that need the same kernel at the same moment,
    on an empty cache, compile it once between them; the other waits and loads it.  Each holds
    the compilation open for 3 seconds, so without the lock both would compile; with it the
    count is 1 whatever the timing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    procs = [subprocess.Popen([sys.executable, "-c", RACE, str(tmp_path), str(i)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    while not all((tmp_path / f"ready-{i}").exists() for i in range(2)):
        assert all(p.poll() is None for p in procs), procs[0].communicate()
        time.sleep(0.01)
    (tmp_path / "go").touch()
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert sorted(int(out.split()[-1]) for out, _ in outs) == [0, 1], outs
