"""topiceval.stability: 1 for identical and permuted topics, known values for constructed
perturbations, the optimal (not greedy) matching, and bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from topiceval.models import LDAModel
from topiceval.stability import match_topics, stability_table, topic_distances


def _bits(p):
    p = np.asarray(p, float)
    p = p[p > 0]
    return -(p * np.log2(p)).sum()


def _js_distance(p, q):
    m = (np.asarray(p) + np.asarray(q)) / 2
    return math.sqrt(_bits(m) - (_bits(p) + _bits(q)) / 2)


def test_identical_and_permuted_topics_are_perfectly_stable():
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.ones(50), size=6)
    vocab = np.array([f"w{i}" for i in range(50)])
    models = [LDAModel(phi[perm], np.ones(6), vocab=vocab)
              for perm in (np.arange(6), rng.permutation(6), rng.permutation(6))]
    for distance in ("jensen_shannon", "cosine"):
        table = stability_table(models, distance=distance)
        np.testing.assert_allclose(table["stability"], 1.0, atol=1e-7)
        np.testing.assert_allclose(table["stability_sd"], 0.0, atol=1e-7)
    assert table["topic"].iloc[-1] == "mean" and table["models"].iloc[0] == 3


def test_a_perturbed_topic_scores_one_minus_its_jensen_shannon_distance():
    """Topics one-hot on words 0, 1, 2; the second seed finds them permuted and moves half of
    topic 0's mass to word 3: d = JS([1, 0], [1/2, 1/2]) = sqrt(H(3/4, 1/4) - 1/2) bits."""
    eye = np.eye(4)[:3]
    other = eye[[2, 0, 1]].copy()
    other[1] = [0.5, 0, 0, 0.5]
    d = math.sqrt(-(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25)) - 0.5)
    assert _js_distance([1, 0, 0, 0], [0.5, 0, 0, 0.5]) == pytest.approx(d)
    table = stability_table([eye, other])
    np.testing.assert_allclose(table["stability"], [1 - d, 1, 1, (3 - d) / 3], rtol=1e-12)
    third = eye[[1, 2, 0]]
    table = stability_table([eye, other, third])
    assert table["stability"].iloc[0] == pytest.approx((1 - d + 1) / 2)
    assert table["stability_min"].iloc[0] == pytest.approx(1 - d)
    assert table["stability_sd"].iloc[0] == pytest.approx(d / 2)
    pairs = [(3 - d) / 3, 1, (3 - d) / 3]  # (eye, other), (eye, third), (other, third)
    assert table["stability"].iloc[-1] == pytest.approx(np.mean(pairs))
    assert table["stability_sd"].iloc[-1] == pytest.approx(np.std(pairs))


def test_cosine_distance_of_a_known_perturbation():
    """cos([1, 0], [1, 1] / 2) = 1 / sqrt(2)."""
    table = stability_table([np.eye(2), np.array([[0.5, 0.5], [0.0, 1.0]])], distance="cosine")
    assert table["stability"].iloc[0] == pytest.approx(1 / math.sqrt(2))
    assert table["stability"].iloc[1] == pytest.approx(1.0)


def test_the_matching_minimises_the_total_not_each_row_greedily():
    d = np.array([[0.1, 0.2], [0.15, 0.9]])  # greedy: 0 -> 0, then 1 -> 1 (total 1.0)
    np.testing.assert_array_equal(match_topics(d), [1, 0])  # total 0.35
    np.testing.assert_allclose(topic_distances(np.eye(2), np.eye(2)), 1 - np.eye(2))


@pytest.mark.parametrize("models, message", [
    ([np.eye(3)], "at least two models"),
    ([np.eye(3), np.eye(4)], "has shape"),
    ([np.eye(3), np.full((3, 3), 0.5)], "sum to 1"),
    ([np.eye(3), -np.eye(3)], "non-negative"),
])
def test_bad_inputs_are_refused_in_one_line(models, message):
    with pytest.raises(ValueError, match=message) as info:
        stability_table(models)
    assert "\n" not in str(info.value)


def test_models_with_different_words_or_an_unknown_distance_are_refused():
    phi = np.full((2, 3), 1 / 3)
    a = LDAModel(phi, np.ones(2), vocab=np.array(["a", "b", "c"]))
    b = LDAModel(phi, np.ones(2), vocab=np.array(["a", "b", "d"]))
    with pytest.raises(ValueError, match="word lists differ"):
        stability_table([a, b])
    with pytest.raises(ValueError, match="distance must be"):
        stability_table([a, a], distance="euclid")
