"""Synthetic documents from a logistic-normal model, and the exact answer's normalisation: the
probabilities of all one-token documents sum to 1, and simulated one-token documents fall on
each word as often as the quadrature says."""

import numpy as np
import pytest

from reference.logistic_normal_ref import random_model
from topiceval.logistic_normal.exact import exact
from topiceval.logistic_normal.simulate import sample_documents


def model_of(decoder, seed=3):
    return random_model(decoder, 2, seed, n_types=6)


@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_one_token_documents_sum_to_one_and_match_simulation(decoder):
    model = model_of(decoder)
    exact_p = np.array([np.exp(exact(model, np.array([w])).log_p) for w in range(6)])
    assert exact_p.sum() == pytest.approx(1.0, abs=1e-9)
    n = 10000
    docs, _ = sample_documents(model, np.ones(n, dtype=int), seed=4)
    freq = np.bincount(np.concatenate(docs), minlength=6) / n
    se = np.sqrt(exact_p * (1 - exact_p) / n)
    assert np.all(np.abs(freq - exact_p) <= 5 * se), (freq, exact_p)
    other = model_of(decoder, seed=5)  # the criterion tells another model's words apart
    other_p = np.array([np.exp(exact(other, np.array([w])).log_p) for w in range(6)])
    assert np.any(np.abs(freq - other_p) > 5 * se)


def test_documents_depend_only_on_the_seed_and_their_number():
    model = model_of("mixture")
    docs, z = sample_documents(model, [5, 8, 3], seed=9)
    again, z_again = sample_documents(model, [5, 8], seed=9)
    assert [len(d) for d in docs] == [5, 8, 3]
    for a, b in zip(again, docs[:2], strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(z_again, z[:2])
    other, _ = sample_documents(model, [5, 8, 3], seed=10)
    assert not all(np.array_equal(a, b) for a, b in zip(docs, other, strict=True))


def test_bad_lengths_are_named():
    with pytest.raises(ValueError, match="lengths"):
        sample_documents(model_of("mixture"), [3, 0])
