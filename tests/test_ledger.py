"""The ledger of paper claims (topiceval.claims): its one tie rule."""

import pytest

from topiceval.claims import AGREES, CLAIMS, DISAGREES, TIE, judge, judge_all


@pytest.mark.parametrize("statistic, se, verdict", [
    (2.01, 1.0, AGREES), (2.0, 1.0, TIE), (-1.9, 1.0, TIE), (-2.01, 1.0, DISAGREES),
    (0.04, 1.0, TIE), (1e-9, 0.0, AGREES), (0.0, 0.0, TIE), (-1e-9, 0.0, DISAGREES)])
def test_the_tie_rule_is_two_standard_errors_either_way(statistic, se, verdict):
    assert judge(statistic, se) == verdict


@pytest.mark.parametrize("statistic, se", [(float("nan"), 1.0), (1.0, -1.0), (1.0, float("inf"))])
def test_the_tie_rule_refuses_what_it_cannot_judge(statistic, se):
    with pytest.raises(ValueError):
        judge(statistic, se)


def test_a_conjunction_agrees_only_when_every_comparison_agrees():
    assert judge_all([AGREES, AGREES]) == AGREES
    assert judge_all([AGREES, TIE]) == TIE
    assert judge_all([TIE, DISAGREES, AGREES]) == DISAGREES
    with pytest.raises(ValueError):
        judge_all([])


def test_claim_keys_are_unique():
    keys = [c.key for c in CLAIMS]
    assert len(keys) == len(set(keys))
