"""The diagnostics against exact answers for the logistic-normal family (issue 49, "done means";
docs/trust.md, "The logistic-normal family" and "The logistic-normal family's cross-check").

On the battery of ``tests/trust_battery_logistic_normal.py`` (K = 2 mixture and product
decoders under ordinary, wide and narrow priors, short and repeated-word documents, every
consistent sampling method of the family at evaluate's default budget and 8 runs, the
non-default ones cross-checked by the default), on the fresh problems of the cross-check's
protocol (``CROSSCHECK_SEEDS``, 926-940: 2,700 estimates), run once after that protocol was
committed: the bad estimates (off by more than 4 standard errors + 0.1 nats) missed are exactly
those measured (``MISSED_MEASURED``; the issue asks for none), and the good ones (within 2
standard errors) flagged are exactly as many as measured (``FALSE_ALARMS_MEASURED``), at most
the issue's 10%: a change that flags more, or misses more, fails.  Every random number is
seeded and the estimates do not depend on the number of threads, so the test cannot flake.  Its
work: 15 seeds x 6 models x 6 documents x 5 methods x 8 runs through ``topiceval.evaluate``,
the cross-check's 4 runs for 4 of the methods, and 540 one-dimensional quadratures; about 3
CPU-minutes with numba's cache warm (188 s for this file on one core).  The
oracle (``exact_k2``) is checked against the library's quadrature first.
"""

import numpy as np
import pytest

from reference.logistic_normal_ref import random_model
from topiceval.logistic_normal.exact import exact
from trust_battery import FALSE_ALARMS
from trust_battery_logistic_normal import (
    CALIBRATION_SEEDS,
    CROSSCHECK_SEEDS,
    battery,
    exact_k2,
    problem,
)

# measured on seeds 926-940, run once (docs/trust.md, "The logistic-normal family's cross-check")
BAD, GOOD = 29, 2396
FALSE_ALARMS_MEASURED = 129  # of the GOOD: 5.4%
# (family, problem, prior, document, method): the Laplace proposal's Gaussian form 0.17 nats
# low with a k-hat of 0.68, its check (t_5) trusted and itself 0.09 nats low
MISSED_MEASURED = {
    ("product", "product 927", "wide", "repeated 100", "is_laplace gauss"),
}


@pytest.mark.parametrize("decoder", ["mixture", pytest.param("product", marks=pytest.mark.slow)])
@pytest.mark.parametrize("prior", ["ordinary", "wide", "narrow"])
def test_the_oracle_meets_gauss_hermite_quadrature(decoder, prior):
    """``exact_k2`` against the library's quadrature (itself checked against closed forms and
    scipy's cubature, tests/test_logistic_normal_exact.py) on a calibration problem, and a
    model whose prior mean moved by 0.3 gives another value (the check can fail)."""
    model, docs, _ = problem(CALIBRATION_SEEDS[0], decoder, prior)
    for doc in docs:
        assert exact_k2(model, doc) == pytest.approx(exact(model, doc).log_p, abs=1e-7)
    moved = random_model(decoder, 2, 5)
    other = type(moved)(moved.mu + np.array([0.3, 0.0]), moved.sigma, moved.beta,
                        moved.decoder, moved.bias if decoder == "product" else None)
    assert abs(exact_k2(moved, docs[0]) - exact_k2(other, docs[0])) > 1e-3


def test_the_oracle_refuses_other_than_two_topics():
    with pytest.raises(ValueError, match="exact_k2 takes K = 2 topics"):
        exact_k2(random_model("mixture", 3, 1), np.array([0, 1]))


@pytest.fixture(scope="module")
def frame():
    return battery(CROSSCHECK_SEEDS)


@pytest.mark.slow
def test_the_bad_estimates_missed_are_those_measured(frame):
    bad = frame[frame["class"] == "bad"]
    assert len(bad) == BAD
    missed = bad[bad["trusted"]]
    named = set(missed[["family", "problem", "prior", "doc", "method"]].itertuples(
        index=False, name=None))
    assert named == MISSED_MEASURED, missed.drop(columns=["exact"]).to_string()


@pytest.mark.slow
def test_the_good_estimates_flagged_are_those_measured_and_at_most_the_issues_share(frame):
    good = frame[frame["class"] == "good"]
    flagged = ~good["trusted"]
    assert len(good) == GOOD
    assert flagged.sum() == FALSE_ALARMS_MEASURED, good[flagged].drop(
        columns=["exact"]).to_string()
    assert flagged.mean() <= FALSE_ALARMS
