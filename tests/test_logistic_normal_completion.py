"""Document completion for the logistic-normal family against the exact answer: log P(w2 | w1)
= log P(w1, w2) - log P(w1), each by quadrature (K <= 3).  The estimate must be within 5 of its
standard errors (fixed seeds; 4,000 weights per part); a perturbed model fails the same check;
the plug-in number ETM reports misses it by more than that tolerance."""

import numpy as np
import pytest

from reference.logistic_normal_ref import random_model
from topiceval.logistic_normal import LogisticNormalModel
from topiceval.logistic_normal.completion import completion, plug_in
from topiceval.logistic_normal.exact import exact

TOLERANCE = 5.0
OBSERVED = np.array([0, 1, 1, 3])
HELDOUT = np.array([5, 5, 5, 6])
PROBLEMS = {"mixture-K3-full": random_model("mixture", 3, 1),
            "product-K2-full": random_model("product", 2, 3)}


def exact_completion(model):
    return (exact(model, np.concatenate([OBSERVED, HELDOUT])).log_p
            - exact(model, OBSERVED).log_p)


def within(estimate, truth):
    return abs(estimate.log_p - truth) <= TOLERANCE * estimate.se


@pytest.mark.parametrize("name", PROBLEMS)
def test_completion_meets_the_exact_answer(name):
    model = PROBLEMS[name]
    truth = exact_completion(model)
    estimate = completion(model, OBSERVED, HELDOUT, samples=4000)
    assert within(estimate, truth), (estimate.log_p - truth, estimate.se)
    assert 0 < estimate.se < 0.05
    # ETM's kind of number, theta at a point estimate from w1: off by more than the tolerance
    assert abs(plug_in(model, OBSERVED, HELDOUT) - truth) > TOLERANCE * estimate.se


def test_the_check_rejects_a_perturbed_model():
    base = PROBLEMS["mixture-K3-full"]
    moved = LogisticNormalModel(base.mu + np.array([0.5, -0.5, 0.0]), base.sigma, base.beta)
    estimate = completion(moved, OBSERVED, HELDOUT, samples=4000)
    assert not within(estimate, exact_completion(base))


def test_both_parts_are_needed():
    with pytest.raises(ValueError, match="an observed part and a held-out part") as err:
        completion(PROBLEMS["mixture-K3-full"], OBSERVED, [])
    assert "\n" not in str(err.value)
