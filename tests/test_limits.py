"""The whole-call limits' arithmetic and messages (``topiceval.limits``); the refusals of every
API and command are rows of ``test_bad_inputs_api.py``."""

import numpy as np
import pytest

from topiceval import limits
from topiceval.limits import EvenOne, Fit, WorkLimitError, WorkSetting


def test_the_default_limit_is_a_minute_at_the_measured_rates():
    assert limits.DEFAULT_WORK_LIMIT == {"lda": 2.4e9, "gapfa": 6e9, "logistic_normal": 1.38e11}
    for family, rate in limits.RATE.items():
        assert limits.DEFAULT_WORK_LIMIT[family] / rate == limits.DEFAULT_SECONDS == 60


@pytest.mark.parametrize(("seconds", "text"), [
    (0.004, "0.004 s"), (2.5, "2.5 s"), (100, "100 s"), (150, "2.5 min"), (700, "12 min"),
    (7300, "2 h"), (2e5, "2.3 days"), (3e6, "35 days")])
def test_durations_read_as_a_person_would_say_them(seconds, text):
    assert limits.duration(seconds) == text


def test_largest_within_solves_an_affine_cost():
    assert limits.largest_within(lambda k: 100 + 7 * k, 1000) == 128  # 100 + 7 * 128 = 996
    assert limits.largest_within(lambda k: 100 + 7 * k, 50) == 0  # even k = 1 is over
    assert limits.largest_within(lambda k: 100.0, 1000) == -1  # does not grow with k


def test_the_whole_call_is_priced_and_each_task_alone():
    work = np.full(10, 1e8)
    limits.check_work(work, 2.4e9, family="lda", method="m", lengths=np.ones(10), runs=2)
    samples = WorkSetting("samples", 100, lambda k: np.full(10, 1e6 * k))
    with pytest.raises(WorkLimitError, match=r"the call needs 4e\+09 site updates \(10 documents "
                                             r"x 4 runs\), about 100 s") as caught:
        limits.check_work(work, 2.4e9, family="lda", method="m", lengths=np.ones(10), runs=4,
                          budgets=[samples])
    assert "use runs <= 2 (now 4), or samples <= 60 (now 100), or evaluate at most 6 of the " \
           "10 documents per call" in str(caught.value)
    with pytest.raises(WorkLimitError, match="document 3 .* needs 3e\\+09 site updates per run"):
        limits.check_work(np.where(np.arange(10) == 3, 3e9, 1.0), 2.4e9, family="lda",
                          method="m", lengths=np.full(10, 5))
    limits.check_work(work, None, family="lda", method="m", lengths=np.ones(10), runs=10**9)


def test_refusals_speak_the_api_or_the_command_line():
    err = WorkLimitError("m: too much", [Fit("inner_samples", 3, 10), "split the document"])
    assert str(err) == ("m: too much: use inner_samples <= 3 (now 10), or split the document, "
                        "or pass a larger work_limit (work_limit=None lifts it)")
    assert err.for_command_line() == (
        "m: too much: use --inner-samples 3 or less (now 10), or split the document, or pass a "
        "larger --work-limit (--work-limit none lifts it)")
    memory = WorkLimitError("m: arrays", [Fit("runs", 5, 9)], liftable=False)
    assert str(memory) == "m: arrays: use runs <= 5 (now 9)"


def test_what_to_lower_speaks_the_api_or_the_command_line():
    """Issue 32: the settings to lower when even 1 of the budget is over, in both words."""
    err = WorkLimitError("m: too much", [EvenOne(("samples",), ("gibbs", "inner_samples"))])
    assert str(err) == ("m: too much: even samples = 1 is over it: lower gibbs or inner_samples, "
                        "or pass a larger work_limit (work_limit=None lifts it)")
    assert err.command_line == err.for_command_line() == (
        "m: too much: even --samples 1 is over it: lower --gibbs or --inner-samples, or pass a "
        "larger --work-limit (--work-limit none lifts it)")
    assert EvenOne(("runs", "threads"), alone="big").text(True) == (
        "even --runs 1 and --threads 1 are over it: big")


def test_fewer_threads_are_numbas_where_the_call_takes_none(monkeypatch):
    """Issue 32: a call without a threads argument (``lda.estimate_runs``) is told to set
    numba's threads around it; the command line has --threads."""
    monkeypatch.setattr(limits, "physical_memory", lambda: 1000)

    def parts(values):
        return {"working arrays": 200.0 * values["threads"]}

    with pytest.raises(WorkLimitError) as caught:
        limits.check_memory(parts, {"runs": 1, "threads": 4}, method="m", threads_argument=False)
    assert str(caught.value) == (
        "m: the call's arrays would need 0.0 GiB (working arrays 7.45e-07 GiB), more than 50% of "
        "this machine's 0.0 GiB: use numba threads <= 2 (now 4; set around the call, e.g. with "
        "topiceval.threads.numba_threads(2))")
    assert caught.value.command_line.endswith("use --threads 2 or less (now 4)")
    with pytest.raises(WorkLimitError, match="even runs = 1 is over it: big$"):
        limits.check_memory(lambda v: {"tables": 600.0}, {"runs": 2, "threads": 2},
                            method="m", alone="big", threads_argument=False)


def test_memory_names_the_setting_that_fits(monkeypatch):
    monkeypatch.setattr(limits, "physical_memory", lambda: 1000)

    def parts(values):
        return {"results": 10.0 * values["runs"], "working arrays": 50.0 * values["threads"]}

    limits.check_memory(parts, {"runs": 30, "threads": 4}, method="m")  # 500 = the half
    with pytest.raises(WorkLimitError, match=r"use runs <= 30 \(now 40\), or threads <= 2 "
                                             r"\(now 4\)$"):
        limits.check_memory(parts, {"runs": 40, "threads": 4}, method="m")
    with pytest.raises(WorkLimitError, match="even runs = 1 and threads = 1 are over it: big"):
        limits.check_memory(lambda v: {"tables": 600.0}, {"runs": 2, "threads": 2},
                            method="m", alone="big")
