"""The cross-check of long LDA estimates by IS-theta (topiceval.crosscheck, docs/trust.md)."""

import numpy as np
import pandas as pd
import pytest

import topiceval
from topiceval import crosscheck
from topiceval.corpus import Corpus
from topiceval.evaluation import DEFAULTS
from topiceval.models import LDAModel
from topiceval.training.lda.synthetic import synthetic_sample


def frame(trusted, reasons):
    return pd.DataFrame({"trusted": trusted, "reason": reasons})


def test_a_trusted_higher_check_beyond_the_margin_untrusts_the_estimate():
    diag = frame([True, True, True, False], ["", "", "", "k-hat 0.9 > 0.70"])
    logp = np.array([-100.0, -100.0, -100.0, -100.0])
    stderr = np.array([0.1, 0.1, 0.1, 0.1])
    docs = np.array([0, 1, 2, 3])
    # 2 * hypot(0.1, 0.1) + 0.5 = 0.78: above it (trusted), below it, above it (untrusted
    # check), above it on an estimate untrusted already
    check = np.array([-99.0, -99.5, -90.0, -99.0])
    out = crosscheck.judge(diag, docs, logp, stderr, check, np.full(4, 0.1),
                           np.array([True, True, False, True]))
    assert out["trusted"].tolist() == [False, True, True, False]
    assert out["reason"][0] == ("IS-theta is 1.00 nats higher (trusted): the estimate missed "
                                "posterior mass")
    assert out["reason"][3].startswith("k-hat 0.9 > 0.70; IS-theta is 1.00 nats higher")
    assert diag["trusted"].tolist() == [True, True, True, False]  # the input is not changed


def test_a_lower_check_says_nothing():
    diag = frame([True], [""])
    out = crosscheck.judge(diag, np.array([0]), np.array([-100.0]), np.array([0.1]),
                           np.array([-130.0]), np.array([0.1]), np.array([True]))
    assert out["trusted"].tolist() == [True] and out["reason"][0] == ""


def test_which_calls_are_checked():
    assert crosscheck.applies("lda", "chib") and crosscheck.applies("lda", "ais")
    for family, method in (("lda", "is_theta"), ("lda", "exact"), ("lda", "hm"),
                           ("lda", "lr_wallach"), ("gapfa", "ais")):
        assert not crosscheck.applies(family, method)
    todo = np.array([0, 1, 3])
    lengths = np.array([150, 99, 500, 100])
    np.testing.assert_array_equal(crosscheck.documents(todo, lengths), [0, 3])


@pytest.fixture(scope="module")
def overlap():
    """Four 300-token documents of a T = 3 model whose topics overlap, on which the default's
    runs agree many nats below the exact value (tests/test_long_documents.py)."""
    rng = np.random.default_rng(2)
    model = LDAModel(rng.dirichlet(np.full(300, 1.0), 3), np.full(3, 1.0))
    corpus, _ = synthetic_sample(model, 4, 300, seed=2)
    return model, Corpus.from_documents([np.asarray(corpus[d]) for d in range(4)], model)


CHIB = DEFAULTS["lda"][1]  # Chib-style at the default's budget for short documents


@pytest.mark.slow
def test_evaluate_flags_chib_styles_misses_on_long_documents(overlap):
    model, docs = overlap
    result = topiceval.evaluate(model, docs, "chib", progress=False, **CHIB)
    assert not result.trusted.any()
    assert result.diagnostics["reason"].str.contains("IS-theta is .* nats higher").all()
    assert "IS-theta higher 4" in result.summary()
    # the estimates themselves are Chib-style's, unchanged by the check
    alone = topiceval.evaluate(model, docs, "chib", progress=False, runs=7, **CHIB)
    assert not np.array_equal(alone.logp, result.logp)  # 7 runs: another estimate
    again = topiceval.evaluate(model, docs, "chib", progress=False, **CHIB)
    np.testing.assert_array_equal(again.logp, result.logp)


@pytest.mark.slow
def test_the_default_takes_bridge_theta_there_and_is_not_far_off(overlap):
    """What Chib-style misses by nats the default (bridge-theta from 100 tokens) does not: no
    estimate is bad (more than 4 standard errors + 0.5 nats from the exact value)."""
    model, docs = overlap
    result = topiceval.evaluate(model, docs, progress=False)
    exact = topiceval.evaluate(model, docs, "exact", runs=1, progress=False)
    assert result.method == "bridge_theta"
    assert np.all(np.abs(result.logp - exact.logp) <= 4 * result.stderr + 0.5)


@pytest.mark.slow
def test_the_check_is_left_out_with_a_note_when_it_does_not_fit(overlap):
    model, docs = overlap
    result = topiceval.evaluate(model, docs, "chib", progress=False, runs=2, work_limit=6e6,
                                **CHIB)
    assert any("not cross-checked by IS-theta" in note for note in result.notes)
    assert not result.diagnostics["reason"].str.contains("IS-theta").any()


def test_short_documents_and_is_theta_are_not_checked():
    rng = np.random.default_rng(0)
    model = LDAModel(rng.dirichlet(np.ones(20), 3), np.full(3, 0.5))
    docs = Corpus.from_documents([rng.integers(0, 20, 30) for _ in range(3)], model)
    for method in ("chib", "is_theta"):
        result = topiceval.evaluate(model, docs, method, runs=2, progress=False, samples=20)
        assert not result.diagnostics["reason"].str.contains("IS-theta").any()
        assert not any("cross-checked" in note for note in result.notes)
