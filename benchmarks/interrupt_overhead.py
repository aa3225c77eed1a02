"""What stopping on Ctrl-C costs the kernels (``topiceval.interrupt``), written as a table.

    .venv/bin/python benchmarks/interrupt_overhead.py [--rounds 30] [--before REV]

Compares, in one process and one thread, the time per unit of work of kernels called directly
(no ``interrupt.run``) in several builds of the package, each a copy of ``src/topiceval`` under
another package name in a temporary directory, so that all of them are compiled and run side by
side in interleaved rounds (best of ``--rounds``):

* ``copy``: the tree as it is, compiled a second time: the noise floor between two compilations
  of the same source (code placement alone moves a kernel by a few per cent);
* ``now``: the tree;
* ``no polls``: the tree with ``interrupt.stopped`` compiled to ``False``, so every poll of the
  stop flag is removed by the compiler;
* with ``--before REV``: ``src/topiceval`` at git revision REV (e.g. the commit before the stop
  flag was added).

Kernels (synthetic problems of benchmarks/estimators.py, T = 50): the LDA estimators' parallel
driver ``tasks.run_tasks`` (ns per site update), the LDA Gibbs training sweep (ns per token) and
the GaP-FA L2R kernel (ns per topic-word site update).  Then the cost of ``interrupt.run`` itself
against a direct call of a kernel that does nothing (microseconds per call).

Writes ``benchmarks/out/interrupt_overhead.{csv,md}``.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from estimators import synthetic_problem

from topiceval import interrupt
from topiceval.io import write_text_atomic

OUT = Path(__file__).parent / "out"
ROOT = Path(__file__).resolve().parents[1]
LDA_CASES = {"chib": {"samples": 1000}, "hm": {"burnin": 200, "samples": 200},
             "lr": {"particles": 20}, "is_pt": {"samples": 400}, "ais": {"temperatures": 400}}


def build(package: Path, name: str, into: Path) -> str:
    """Copy ``package`` (a ``topiceval`` tree) to ``into/name`` with its imports renamed."""
    target = into / name
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__"))
    for path in target.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"\btopiceval\.", f"{name}.", text)
        text = text.replace("from topiceval import", f"from {name} import")
        path.write_text(text, encoding="utf-8")
    return name


def builds(before: str | None, into: Path) -> dict[str, str]:
    """Label -> importable package name of every build compared."""
    out = {"copy": build(ROOT / "src" / "topiceval", "topiceval_copy", into), "now": "topiceval"}
    nopoll = build(ROOT / "src" / "topiceval", "topiceval_nopoll", into)
    flag = into / nopoll / "interrupt.py"
    flag.write_text(flag.read_text().replace("return _relaxed_load(stop) != 0", "return False"))
    out["no polls"] = nopoll
    if before:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", before, "src/topiceval"],
                                 check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(into / "archive", filter="data")
        out[f"before ({before})"] = build(into / "archive" / "src" / "topiceval",
                                          "topiceval_before", into)
    return out


def _flag_if_taken(kernel) -> tuple:
    """The stop flag if this build's ``kernel`` takes one (builds before it did not)."""
    taken = "stop" in inspect.signature(kernel.py_func).parameters
    return (interrupt.new_flag(),) if taken else ()


def _records_if_taken(kernel, shape: tuple) -> tuple:
    """Records of ``topiceval.diagnostics`` (zeros of ``shape``) if this build's ``kernel``
    writes them (builds before the diagnostics did not)."""
    taken = "stats" in inspect.signature(kernel.py_func).parameters
    return (np.zeros(shape),) if taken else ()


def kernel_calls(package: str) -> dict[str, object]:
    """Kernel name -> a call of that build's kernel returning its units of work."""
    def module(name):
        return importlib.import_module(f"{package}.{name}")

    tasks, inputs = module("estimators.lda.tasks"), module("estimators.lda.inputs")
    registry, settings = module("estimators.lda.registry"), module("estimators.lda.settings")
    docs, phi, alpha_m = synthetic_problem(4, 200, 50, 5000)
    flag = _flag_if_taken(tasks.run_tasks)
    calls = {}
    for name, given in LDA_CASES.items():
        method = registry.ESTIMATE[name]
        resolved = method.resolve(given)
        tab = inputs.build_tables(docs, phi, alpha_m, np.arange(len(docs)))
        ipar, tau = settings.int_settings(resolved), registry.schedule_of(resolved)
        out, alt = np.empty((len(docs), 2)), np.empty((len(docs), 2))
        sites = np.zeros((len(docs), 2), np.int64)
        width = method.record_width(resolved, 2) if hasattr(method, "record_width") else 0
        records = _records_if_taken(tasks.run_tasks, (len(docs), 2, width))

        def lda_call(method=method, tab=tab, ipar=ipar, tau=tau, out=out, alt=alt, sites=sites,
                     records=records):
            tasks.run_tasks(method.code, tab, ipar, tau, 0, method.key, np.arange(2), out, alt,
                            sites, *records, *flag)
            return int(sites.sum())

        calls[f"LDA {name} (ns per site update)"] = lda_call
    calls["LDA Gibbs training sweep (ns per token)"] = _gibbs_call(module)
    calls["GaP-FA l2r (ns per topic-word update)"] = _l2r_call(module)
    return calls


def _gibbs_call(module):
    sampler, documents = module("training.lda.sampler"), module("training.lda.documents")
    rng = np.random.default_rng(1)
    train = [rng.integers(0, 2000, 100) for _ in range(2000)]
    offsets, tokens, n_types, _, _ = documents.prepare_documents(train, 2000)
    layout = sampler.build_layout(offsets, tokens, n_types, 50, 1)
    state = sampler.build_state(layout, sampler.random_assignments(0, tokens.shape[0], 50), 50)
    flag = _flag_if_taken(sampler._sweep)

    def call():
        sampler._sweep(layout, state, np.full(50, 0.1), 0.01, 0, 1, *flag)
        return tokens.size

    return call


def _l2r_call(module):
    l2r, data = module("estimators.gapfa.l2r"), module("estimators.gapfa._data")
    rng = np.random.default_rng(2)
    counts = np.zeros((4, 2000), np.int64)
    for d in range(4):
        np.add.at(counts[d], rng.integers(0, 2000, 300), 1)
    docs, params = data.prepare(counts, rng.dirichlet(np.full(2000, 0.05), size=50),
                                np.full(50, 0.5), np.ones(50))
    settings = {"samples": 200, "gibbs": 1, "inner_samples": 1}
    work = 2 * float(l2r.L2R.cost(docs, 50, settings).sum())
    out = np.empty((4, 2, 1))
    flag = _flag_if_taken(l2r._l2r_kernel)
    width = l2r.L2R.record_width(settings, 2) if hasattr(l2r.L2R, "record_width") else 0
    records = _records_if_taken(l2r._l2r_kernel, (4, 2, width))

    def call():
        l2r._l2r_kernel(docs, params, 0, 1, 1, 0, l2r.KEY, np.arange(4), np.arange(2),
                        np.array([200]), out, *records, *flag)
        return work

    return call


def kernel_table(labels: dict[str, str], rounds: int) -> pd.DataFrame:
    """Least process CPU ns per unit of work, kernels x builds, in interleaved rounds."""
    calls = {label: kernel_calls(package) for label, package in labels.items()}
    best: dict[tuple[str, str], float] = {}
    for by_kernel in calls.values():
        for call in by_kernel.values():
            call()  # compile or load
    kernels = list(next(iter(calls.values())))
    for r in range(rounds):
        order = list(labels) if r % 2 else list(labels)[::-1]
        for kernel in kernels:
            for label in order:
                start = time.process_time()
                units = calls[label][kernel]()
                ns = 1e9 * (time.process_time() - start) / units
                best[kernel, label] = min(best.get((kernel, label), np.inf), ns)
    return pd.DataFrame([{"kernel": k, **{label: best[k, label] for label in labels}}
                         for k in kernels])


@numba.njit(nogil=True)
def _nothing(values, stop):
    values[0] = 1.0


def call_overhead(calls: int = 2000) -> dict[str, float]:
    """Microseconds per call: the kernel called directly, and through ``interrupt.run``."""
    values, flag = np.zeros(1), interrupt.new_flag()
    out = {}
    for label, call in (("direct call (us)", lambda: _nothing(values, flag)),
                        ("interrupt.run (us)", lambda: interrupt.run(_nothing, values))):
        call()
        best = np.inf
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(calls):
                call()
            best = min(best, (time.perf_counter() - start) / calls)
        out[label] = 1e6 * best
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--before", help="git revision to compare with (default: none)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    start = time.perf_counter()
    numba.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        table = kernel_table(builds(args.before, Path(tmp)), args.rounds)
    overhead = call_overhead()
    load_after = os.getloadavg()
    OUT.mkdir(parents=True, exist_ok=True)
    table.to_csv(OUT / "interrupt_overhead.csv", index=False)
    header = (f"Kernels called directly, one thread, least process CPU time of {args.rounds} "
              f"interleaved rounds; {platform.processor() or platform.machine()}, "
              f"{os.cpu_count()} CPUs; load average before {load_before[0]:.2f}, after "
              f"{load_after[0]:.2f}; {time.perf_counter() - start:.0f} s in total.")
    calls = ", ".join(f"{k} {v:.1f}" for k, v in overhead.items())
    text = "\n\n".join([header, table.to_markdown(index=False, floatfmt=".2f"),
                        f"A kernel that does nothing: {calls}."]) + "\n"
    write_text_atomic(OUT / "interrupt_overhead.md", text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
