"""The default method by document length (``topiceval.by_length``): Chib-style below 100
tokens, bridge-theta from 100, in one call whose rows are those of each method alone."""

import numpy as np
import pytest

import topiceval
from topiceval import by_length
from topiceval.by_length import LONG_DEFAULTS
from topiceval.evaluation import DEFAULTS
from topiceval.limits import WorkLimitError
from topiceval.models import LDAModel

FROM_TOKENS, LONG_METHOD, LONG_SETTINGS = LONG_DEFAULTS["lda"]


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(4)
    return LDAModel(rng.dirichlet(np.full(60, 0.3), size=5), np.full(5, 0.3))


@pytest.fixture(scope="module")
def docs():
    rng = np.random.default_rng(5)
    return [rng.integers(0, 60, size=n) for n in (12, FROM_TOKENS + 20, 30, FROM_TOKENS, 0)]


@pytest.fixture(scope="module")
def default(model, docs):
    return topiceval.evaluate(model, docs, empty="skip", progress=False)


def test_each_document_is_scored_as_its_method_alone_scores_it(model, docs, default):
    short = topiceval.evaluate(model, docs, DEFAULTS["lda"][0], empty="skip", progress=False,
                               **DEFAULTS["lda"][1])
    long = topiceval.evaluate(model, docs, LONG_METHOD, empty="skip", progress=False,
                              **LONG_SETTINGS)
    assert list(default.document_methods) == ["chib", LONG_METHOD, "chib", LONG_METHOD, ""]
    for d, alone in ((0, short), (1, long), (2, short), (3, long)):
        np.testing.assert_array_equal(default.logp_runs[d], alone.logp_runs[d])
        assert default.stderr[d] == alone.stderr[d]
        assert default.trusted[d] == alone.trusted[d]
        assert default.diagnostics["reason"].iloc[d] == alone.diagnostics["reason"].iloc[d]
    assert np.isnan(default.logp[4]) and not default.trusted[4]
    assert int(default.work.sum()) == int(short.work[[0, 2]].sum() + long.work[[1, 3]].sum())


def test_totals_add_the_shared_parts_of_the_long_documents_only(default):
    assert np.all(default.shared_stderr[[0, 2]] == 0)
    assert np.all(default.shared_stderr[[1, 3]] > 0)
    own = default.stderr[:4] ** 2 - default.shared_stderr[:4] ** 2
    assert default.total_stderr == pytest.approx(np.sqrt(own.sum())
                                                  + default.shared_stderr[:4].sum())


def test_the_result_says_which_method_scored_what(default):
    summary = default.summary()
    assert summary.startswith(f"LDA chib and {LONG_METHOD} on 4 of 5 documents (chib on 2 and "
                              f"{LONG_METHOD} on 2; ")
    assert f"  method {LONG_METHOD}: " in summary and "  method chib: " in summary
    assert set(default.settings) == {"chib", LONG_METHOD}
    assert default.settings[LONG_METHOD] == LONG_SETTINGS
    assert list(default.to_frame()["method"]) == list(default.document_methods)
    assert default.trusted[:4].all()  # long documents inside bridge-theta's regime


def test_one_method_when_every_document_is_on_one_side(model, docs):
    short = topiceval.evaluate(model, [docs[0], docs[2]], progress=False)
    assert short.method == DEFAULTS["lda"][0] and short.document_methods is None
    long = topiceval.evaluate(model, [docs[1]], progress=False)
    assert long.method == LONG_METHOD and long.document_methods is None
    assert long.settings == LONG_SETTINGS


def test_settings_go_to_the_methods_that_have_them(model, docs):
    result = topiceval.evaluate(model, docs[:4], progress=False, runs=2, samples=40)
    assert result.settings["chib"]["samples"] == 40
    assert result.settings[LONG_METHOD]["samples"] == 40
    assert result.settings[LONG_METHOD]["draws"] == LONG_SETTINGS["draws"]
    with pytest.raises(ValueError, match=r"^unknown setting\(s\) particles=? for the default "
                                         r"methods 'chib' and 'bridge_theta'"):
        topiceval.evaluate(model, docs[:4], progress=False, particles=3)


def test_the_whole_call_is_priced_before_either_part_runs(model, docs):
    work = topiceval.evaluate(model, docs[:4], progress=False, runs=2).work
    short, long = float(work[[0, 2]].sum()), float(work[[1, 3]].sum())
    limit = max(short, long) * 1.01  # either part alone fits, both do not
    with pytest.raises(WorkLimitError, match=r"^chib on 2 and bridge_theta on 2: the call"):
        topiceval.evaluate(model, docs[:4], progress=False, runs=2, work_limit=limit)


def test_a_target_below_the_shared_part_is_not_chased(model, docs):
    """Bridge-theta's shared part (0.0015 sqrt(N) nats) does not shrink with more runs: a
    target below it stops that document at once, and says why."""
    result = topiceval.evaluate(model, [docs[1]], progress=False, target="0.001 nats")
    assert result.budget.rounds == 1 and not result.budget.reached[0]
    assert "every run shares above the target" in result.budget.stopped


def test_the_counts_follow_the_order_of_the_methods_not_of_the_documents():
    methods = np.array(["bridge_theta", "chib", "", "chib"], dtype=object)
    scored = np.array([True, True, False, True])
    assert by_length.describe(methods, scored, ["chib", "bridge_theta"]) == (
        "chib on 2 and bridge_theta on 1")
    assert by_length.describe(methods, scored, ["chib", "bridge_theta", "lr"]) == (
        "chib on 2 and bridge_theta on 1")
