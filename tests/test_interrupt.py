"""Ctrl-C stops a run (topiceval.interrupt; docs/methods/implementation.md#stopping-a-run).

Every command that runs kernels for long (``evaluate``, ``estimate``, ``compare``, ``train``) gets
SIGINT while its kernels run: it must exit with status 130 and the one line "topiceval <command>:
interrupted" on standard error, without a traceback, leaving neither its output files nor a
temporary.  The Python API (``topiceval.evaluate``, ``estimators.lda.estimate``,
``estimators.gapfa.estimate``) must raise ``KeyboardInterrupt`` and stay usable.

Tests bound work, not wall-clock time.  Each run is sized in work: the same kernel is first timed
on a small problem in this process (one thread, this machine at its current load) and the run
is made ``RUN_SECONDS`` long at that rate, 20 times the stop time aimed at (``STOP_SECONDS``).
The signal is sent once the kernels have run for ``KERNEL_SECONDS`` (``kernel_watch``), so it
lands inside a kernel, and the run must then stop within a quarter of the time it would have
needed: well before it could have finished, by a margin that a loaded machine, which slows the
run and its stop alike, does not erase.  The estimators' work lies in one to four tasks of one
document, each of ten seconds or more, so a stop only between tasks or blocks would not pass;
the trainers' work is many short sweeps, each stopped within.
"""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numba
import numpy as np
import pytest

import topiceval
from kernel_watch import KernelWatch
from topiceval import evaluation, interrupt
from topiceval.corpus import Corpus
from topiceval.estimators import gapfa, lda
from topiceval.models import GaPModel, LDAModel, save_model
from topiceval.threads import numba_threads
from topiceval.training.gapfa import fit_gapfa
from topiceval.training.lda import fit_gibbs, fit_vem

STOP_SECONDS = 2.0  # what a stop should take at most
RUN_SECONDS = 20 * STOP_SECONDS  # each interrupted run, at the rate measured before it
KERNEL_SECONDS = 0.5  # kernel time before the signal
MARK = "kernels running"
TESTS = Path(__file__).resolve().parent
V, T = 60, 20
WORDS = [f"w{v:02d}" for v in range(V)]

CHILD = f"""
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with SIGINT ignored
sys.path.insert(0, sys.argv[1])
from kernel_watch import KernelWatch
from topiceval import cli, interrupt

watch = KernelWatch(float(sys.argv[2]), lambda: print({MARK!r}, file=sys.stderr, flush=True))
interrupt.run = watch.run
watch.start()
sys.exit(cli.main(sys.argv[3:]))
"""


# ------------------------------------------------------------------------------ problems
def _lda_model(seed: int) -> LDAModel:
    rng = np.random.default_rng(seed)
    return LDAModel(rng.dirichlet(np.full(V, 0.3), size=T), np.full(T, 0.1), vocab=WORDS)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    gap = GaPModel(rng.dirichlet(np.full(V, 0.3), size=T), np.full(T, 0.5), np.ones(T),
                   vocab=WORDS)
    doc = rng.integers(0, V, size=100)
    long_doc = rng.integers(0, V, size=1000)
    training = [rng.integers(0, V, size=50) for _ in range(500)]
    return {"lda": _lda_model(1), "lda_b": _lda_model(2), "gapfa": gap, "doc": doc,
            "long_doc": long_doc,
            "heldout": Corpus.from_documents([doc], WORDS, split="test"),
            "training": Corpus.from_documents(training, WORDS)}


@pytest.fixture()
def files(problem, tmp_path):
    """The inputs of the commands, in an otherwise empty directory."""
    save_model(tmp_path / "lda.npz", problem["lda"])
    save_model(tmp_path / "lda_b.npz", problem["lda_b"])
    save_model(tmp_path / "gapfa.npz", problem["gapfa"])
    problem["heldout"].save(tmp_path / "heldout.npz")
    problem["training"].save(tmp_path / "training.npz")
    return tmp_path


def units_for(seconds_of, small: int) -> int:
    """Units of work (samples, sweeps, ...) that take ``RUN_SECONDS`` on one thread at the rate
    measured now: ``seconds_of(n)`` runs ``n`` units and returns the seconds they took."""
    with numba_threads(1):
        seconds_of(small)  # compiles or loads the kernels
        per_unit = min(seconds_of(small) for _ in range(2)) / small
    return math.ceil(RUN_SECONDS / per_unit)


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _chib(problem, n):
    model = problem["lda"]
    return lda.estimate_runs("chib", [problem["doc"]], model.phi, model.alpha_m, samples=n,
                             burnin=0).seconds


def _gapfa(problem, method, n):
    model = problem["gapfa"]
    return gapfa.estimate_runs(method, problem["heldout"].counts(), model.phi, model.p,
                               model.r, samples=n).seconds


# ------------------------------------------------------------------------------ the commands
def _commands():
    """(name, argv without the size, the size option, a timer of n units of the same work)."""
    return [
        ("evaluate", ["evaluate", "--model", "lda.npz", "--docs", "heldout.npz", "--method",
                      "chib", "--burnin", "0", "--runs", "1", "--no-progress", "--work-limit",
                      "none", "--out", "out.csv"], "--samples", 20_000, _chib),
        ("estimate", ["estimate", "--model", "gapfa.npz", "--docs", "heldout.npz", "--method",
                      "l2r", "--no-progress", "--work-limit", "none", "--out", "out.csv"],
         "--samples", 500,
         lambda p, n: _gapfa(p, "l2r", n)),
        ("compare", ["compare", "--model-a", "lda.npz", "--model-b", "lda_b.npz", "--docs",
                     "heldout.npz", "--temperatures", "200", "--burnin", "0", "--work-limit",
                     "none", "--out", "out.csv"], "--samples", 50,
         lambda p, n: lda.compare([p["doc"]], p["lda"], p["lda_b"], samples=n,
                                  temperatures=200, burnin=0, return_cost=True)[1].seconds),
        ("train lda gibbs", ["train", "lda", "--corpus", "training.npz", "--topics", str(T),
                             "--trainer", "gibbs", "--out", "model.npz", "--trace",
                             "trace.csv"], "--sweeps", 100,
         lambda p, n: fit_gibbs(p["training"], T, sweeps=n).seconds),
        ("train lda vem", ["train", "lda", "--corpus", "training.npz", "--topics", str(T),
                           "--trainer", "vem", "--variant", "full", "--tol", "1e-300", "--out",
                           "model.npz", "--trace", "trace.csv"], "--max-iter", 3,
         lambda p, n: fit_vem(p["training"], T, variant="full", max_iter=n,
                              tol=1e-300).seconds),
        ("train gapfa", ["train", "gapfa", "--corpus", "training.npz", "--topics", str(T),
                         "--burnin", "1", "--out", "model.npz"], "--iterations", 100,
         lambda p, n: _timed(lambda: fit_gapfa(p["training"].counts(), T, iterations=n,
                                               burnin=1, threads=1))),
    ]


def _interrupt_command(argv: list[str], cwd: Path) -> tuple[int, str, float]:
    """Run ``topiceval argv`` in ``cwd``; SIGINT once its kernels run.  Returns the exit status,
    standard error and the seconds from the signal to the exit."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(TESTS), str(KERNEL_SECONDS),
                             *argv], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.strip() == MARK:
            break
    else:
        proc.wait()
        pytest.fail(f"the run ended before its kernels ran for {KERNEL_SECONDS} s (status "
                    f"{proc.returncode}): {''.join(seen)}")
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    try:
        rest = proc.communicate(timeout=RUN_SECONDS / 4)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"still running {RUN_SECONDS / 4:.0f} s after SIGINT: {argv}")
    return proc.returncode, "".join(seen) + rest, time.perf_counter() - sent


@pytest.mark.slow
@pytest.mark.parametrize("name, argv, option, small, seconds_of", _commands(),
                         ids=[c[0] for c in _commands()])
def test_ctrl_c_stops_the_command_and_writes_nothing(problem, files, name, argv, option, small,
                                                     seconds_of):
    size = units_for(lambda n: seconds_of(problem, n), small)
    inputs = sorted(p.name for p in files.iterdir())
    status, stderr, seconds = _interrupt_command(
        [*argv, option, str(size), "--threads", "1"], files)
    assert status == 130, stderr
    lines = [line for line in stderr.splitlines() if line.strip() and line.strip() != MARK]
    assert lines[-1] == f"topiceval {argv[0]}: interrupted", stderr
    assert "Traceback" not in stderr
    assert sorted(p.name for p in files.iterdir()) == inputs  # no output, no temporary
    assert seconds < RUN_SECONDS / 4, f"{name}: {seconds:.1f} s to stop"
    print(f"{name}: stopped {seconds:.2f} s after SIGINT ({option} {size:,})")


# ------------------------------------------------------------------------------ the API
@pytest.fixture()
def interrupt_call(monkeypatch):
    """``interrupt_call(call)``: run ``call()``, SIGINT the main thread once its kernels run;
    returns the seconds from the signal to ``KeyboardInterrupt``."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent: list[float] = []

    def send():
        sent.append(time.perf_counter())
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    def interrupted(call) -> float:
        watch = KernelWatch(KERNEL_SECONDS, send)
        monkeypatch.setattr(interrupt, "run", watch.run)
        watch.start()
        with pytest.raises(KeyboardInterrupt):
            call()
        monkeypatch.setattr(interrupt, "run", watch.original)
        return time.perf_counter() - sent[0]

    yield interrupted
    signal.signal(signal.SIGINT, previous)


def _api_calls():
    """(name, the call of n units, a small call whose result must not change, the timer)."""
    def evaluate(p, n):
        return topiceval.evaluate(p["lda"], p["heldout"], "chib", runs=1, threads=1,
                                  samples=n, burnin=0, work_limit=None).logp_runs

    def lda_estimate(p, n):
        return lda.estimate("lr", [p["long_doc"]], p["lda"].phi, p["lda"].alpha_m,
                            particles=n, work_limit=None)

    def gapfa_estimate(p, n):
        m = p["gapfa"]
        return gapfa.estimate("l2r_seq", p["heldout"].counts(), m.phi, m.p, m.r, samples=n,
                              threads=1, work_limit=None)

    def lr_seconds(p, n):
        return lda.estimate_runs("lr", [p["long_doc"]], p["lda"].phi, p["lda"].alpha_m,
                                 particles=n).seconds

    return [("topiceval.evaluate", evaluate, 200, _chib),
            ("estimators.lda.estimate", lda_estimate, 10, lr_seconds),
            ("estimators.gapfa.estimate", gapfa_estimate, 500,
             lambda p, n: _gapfa(p, "l2r_seq", n))]


@pytest.mark.parametrize("name, call, small, seconds_of", _api_calls(),
                         ids=[c[0] for c in _api_calls()])
def test_ctrl_c_interrupts_the_api_promptly(problem, interrupt_call, name, call, small,
                                            seconds_of):
    before = call(problem, small)
    size = units_for(lambda n: seconds_of(problem, n), small)
    with numba_threads(1):
        seconds = interrupt_call(lambda: call(problem, size))
    assert seconds < RUN_SECONDS / 4, f"{name}: {seconds:.1f} s to stop"
    np.testing.assert_array_equal(call(problem, small), before)  # usable again, unchanged
    print(f"{name}: stopped {seconds:.2f} s after SIGINT (size {size:,})")


# ------------------------------------------------------------------------------ the pieces
@numba.njit(nogil=True)
def _threads_seen(stop):
    return numba.get_num_threads()


@numba.njit(nogil=True)
def _failing(stop):
    raise ValueError("from the kernel")


@numba.njit(nogil=True)
def _total(values, stop):
    return values.sum()


def test_run_uses_the_callers_thread_count_and_passes_errors_on():
    for n in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        with numba_threads(n):
            assert interrupt.run(_threads_seen) == n
    with pytest.raises(ValueError, match="from the kernel"):
        interrupt.run(_failing)


def test_concurrent_callers_each_get_their_result():
    """Calls from several Python threads at once: one uses the kernel thread, the others
    threads of their own."""
    values = [np.arange(n, dtype=np.float64) for n in range(1, 200)]
    results = {}

    def call(k):
        results[k] = [interrupt.run(_total, v) for v in values[k::4]]

    workers = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert results == {k: [v.sum() for v in values[k::4]] for k in range(4)}


def test_documents_go_in_blocks_of_bounded_work(problem, monkeypatch):
    """run_in_blocks splits the documents into blocks of about BLOCK_SECONDS of work per
    thread, even without a progress bar, and the blocking changes no result."""
    docs = [problem["doc"][: 20 + 10 * k] for k in range(8)]
    whole = topiceval.evaluate(problem["lda"], docs, runs=2)
    calls = []
    run = lda.estimate_runs

    def counted(*args, **kwargs):
        calls.append(kwargs["doc_keys"])
        return run(*args, **kwargs)

    monkeypatch.setattr(lda, "estimate_runs", counted)
    monkeypatch.setattr(evaluation, "RATE", {"lda": 1, "gapfa": 1})
    blocked = topiceval.evaluate(problem["lda"], docs, runs=2)
    np.testing.assert_array_equal(blocked.logp_runs, whole.logp_runs)
    assert [list(keys) for keys in calls[1:]] == [[d] for d in range(len(docs))]  # 1: warm-up
    assert evaluation.block_count(0.0, "lda") == 1
    per_block = evaluation.BLOCK_SECONDS * 10**8 * numba.get_num_threads()
    monkeypatch.setattr(evaluation, "RATE", {"lda": 10**8})
    assert evaluation.block_count(2.5 * per_block, "lda") == 3


WRITER = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from topiceval.io import atomic_path
with atomic_path(sys.argv[1]) as tmp:
    tmp.write_text("half a file")
    print(tmp, flush=True)
    time.sleep(600)
"""


def test_ctrl_c_during_a_write_leaves_no_temporary(tmp_path):
    """Outputs are written atomically: a writer stopped by Ctrl-C leaves neither the target
    nor its temporary."""
    target = tmp_path / "out.csv"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    temporary = Path(proc.stdout.readline().strip())
    assert temporary.is_file()
    proc.send_signal(signal.SIGINT)
    proc.communicate()
    assert proc.returncode != 0
    assert list(tmp_path.iterdir()) == []
