"""The regime part of ``trusted`` (topiceval.regimes; docs/trust.md#regimes)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import topiceval
from topiceval import regimes
from topiceval.corpus import Corpus
from topiceval.diagnostics import reason_counts
from topiceval.evaluation import DEFAULTS
from topiceval.models import LDAModel
from topiceval.regimes import distrust_outside

BRIDGE = {"samples": 100, "draws": 500, "burnin": 50}


def _judged(*args, alpha_sum: float = 5.0) -> pd.DataFrame:
    """``distrust_outside`` for a model whose prior sums to ``alpha_sum``."""
    return distrust_outside(*args, alpha_sum=alpha_sum)


def _diagnostics(n: int, trusted=True) -> pd.DataFrame:
    return pd.DataFrame({"trusted": np.full(n, trusted), "reason": [""] * n})


def test_long_documents_outside_a_methods_regime_are_not_trusted():
    lengths = np.array([50, 99, 100, 2000])
    out = _judged(_diagnostics(4), lengths, 50, "chib", {"samples": 1000}, 8)
    assert out["trusted"].tolist() == [True, True, False, False]
    assert out["reason"][2].startswith("regime: chib was not shown to cover on documents of "
                                       "100+ tokens, which method='bridge_theta'")
    # one check, one reason: the summary counts it once, under its label
    assert reason_counts(out["reason"][2:]) == {"outside a regime": 2}


def test_inside_the_regime_the_other_checks_verdict_stands():
    lengths = np.array([100, 600, 2000, 2001])
    diagnostics = _diagnostics(4)
    diagnostics.loc[1, ["trusted", "reason"]] = [False, "k-hat 0.9"]
    out = _judged(diagnostics, lengths, 200, "bridge_theta", BRIDGE, 8)
    assert out["trusted"].tolist() == [True, False, True, False]
    assert out["reason"][1] == "k-hat 0.9"  # an untrusted estimate keeps its own reason
    assert "outside the regime shown to cover" in out["reason"][3]
    assert "no method was shown to cover it" in out["reason"][3]


def test_more_topics_than_the_battery_measured_is_outside():
    out = _judged(_diagnostics(1), np.array([300]), 201, "bridge_theta", BRIDGE, 8)
    assert not out["trusted"][0]


@pytest.mark.parametrize("settings, runs", [({**BRIDGE, "draws": 499}, 8), (BRIDGE, 7),
                                            ({**BRIDGE, "draws": 1000}, 16)])
def test_a_budget_is_inside_only_when_no_smaller_than_the_one_measured(settings, runs):
    out = _judged(_diagnostics(1), np.array([300]), 20, "bridge_theta", settings, runs)
    inside = settings["draws"] >= 500 and runs >= 8
    assert out["trusted"][0] == inside
    if not inside:
        assert "below the budget shown to cover" in out["reason"][0]


def test_the_advice_names_a_regime_that_covers_the_document():
    out = _judged(_diagnostics(2), np.array([500, 700]), 3, "is_theta", {**BRIDGE}, 8)
    assert out["trusted"].tolist() == [True, False]
    assert "method='bridge_theta'" in out["reason"][1]
    small = {**BRIDGE, "draws": 100}
    out = _judged(_diagnostics(2), np.array([500, 700]), 3, "bridge_theta", small, 8)
    assert "method='is_theta'" in out["reason"][0]
    assert "no method was shown to cover it" in out["reason"][1]


def test_a_prior_smaller_than_the_battery_measured_is_outside():
    """Bridge-theta's regimes reach a prior summing to 1.0 (the libraries' default, with the
    wider shared error measured there) at T <= 100; below it, or above T = 100 below 1.42, an
    estimate is outside, and the reason states the model's own T and prior."""
    lengths = np.array([99, 300, 300])
    inside = _judged(_diagnostics(3), lengths, 100, "bridge_theta", BRIDGE, 8, alpha_sum=1.0)
    assert inside["trusted"].all()
    # gensim's default prior in float32: 50 x float32(0.02) sums to 0.99999998
    float32_prior = float(np.full(50, 0.02, np.float32).astype(np.float64).sum())
    assert float32_prior < 1.0
    assert _judged(_diagnostics(3), lengths, 50, "bridge_theta", BRIDGE, 8,
                   alpha_sum=float32_prior)["trusted"].all()
    for n_topics, prior in ((50, 0.99), (101, 1.0)):
        out = _judged(_diagnostics(3), lengths, n_topics, "bridge_theta", BRIDGE, 8,
                      alpha_sum=prior)
        assert out["trusted"].tolist() == [True, False, False]
        assert "alpha summing to at least 1.42; or method=" in out["reason"][1]
        assert f"this model: T = {n_topics}, alpha summing to {prior:g})" in out["reason"][1]
        assert "no method was shown to cover it" in out["reason"][1]
    above = _judged(_diagnostics(1), lengths[1:2], 200, "bridge_theta", BRIDGE, 8,
                    alpha_sum=1.42)
    assert above["trusted"].all()


def test_the_shared_error_is_the_regime_the_model_is_in():
    """The narrowest regime that fits the model gives its error bar's shared part; outside
    every regime, the widest measured; 0 for a method without a regime."""
    assert regimes.shared_error("bridge_theta", 200, 1.42) == 0.0015
    assert regimes.shared_error("bridge_theta", 50, 1.0) == 0.005
    assert regimes.shared_error("bridge_theta", 150, 1.0) == 0.005
    assert regimes.shared_error("bridge_theta", 50, 0.5) == 0.005
    assert regimes.shared_error("chib", 50, 5.0) == 0.0


def test_exact_answers_are_exempt():
    out = _judged(_diagnostics(1), np.array([5000]), 500, "exact", {}, 1)
    assert out["trusted"][0]


def test_evaluate_applies_the_regime():
    """Through the front door: Chib-style on a 120-token document is not trusted, whatever its
    runs say; the same document by bridge-theta, the default's method for it, is judged by its
    checks."""
    rng = np.random.default_rng(4)
    model = LDAModel(rng.dirichlet(np.full(40, 0.5), 4), np.full(4, 0.5))
    doc = rng.integers(0, 40, 120)
    docs = Corpus.from_documents([doc, doc[:30]], model)
    chib = topiceval.evaluate(model, docs, "chib", progress=False, **DEFAULTS["lda"][1])
    assert chib.trusted[1] or "not shown to cover" not in chib.diagnostics["reason"][1]
    assert not chib.trusted[0]
    assert "not shown to cover" in chib.diagnostics["reason"][0]
    bridge = topiceval.evaluate(model, docs, "bridge_theta", progress=False)
    assert "regime" not in bridge.diagnostics["reason"][0]
    default = topiceval.evaluate(model, docs, progress=False)
    assert default.trusted[0] == bridge.trusted[0]
    assert "regime" not in default.diagnostics["reason"][0]
