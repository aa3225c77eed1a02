"""The ledger of paper claims (topiceval.claims): its one tie rule."""

import pytest

from topiceval.claims import AGREES, CLAIMS, DISAGREES, TIE, tie_rule, conjunction


@pytest.mark.parametrize("statistic, se, verdict", [
    (2.01, 1.0, AGREES), (2.0, 1.0, TIE), (-1.9, 1.0, TIE), (-2.01, 1.0, DISAGREES),
    (0.04, 1.0, TIE), (1e-9, 0.0, AGREES), (0.0, 0.0, TIE), (-1e-9, 0.0, DISAGREES)])
def test_the_tie_rule_is_two_standard_errors_either_way(statistic, se, verdict):
    assert tie_rule(statistic, se) == verdict


@pytest.mark.parametrize("statistic, se", [(float("nan"), 1.0), (1.0, -1.0), (1.0, float("inf"))])
def test_the_tie_rule_refuses_what_it_cannot_judge(statistic, se):
    with pytest.raises(ValueError):
        tie_rule(statistic, se)


def test_a_conjunction_agrees_only_when_every_comparison_agrees():
    assert conjunction([AGREES, AGREES]) == AGREES
    assert conjunction([AGREES, TIE]) == TIE
    assert conjunction([TIE, DISAGREES, AGREES]) == DISAGREES
    with pytest.raises(ValueError):
        conjunction([])


def test_claim_keys_are_unique():
    keys = [c.key for c in CLAIMS]
    assert len(keys) == len(set(keys))


# ---- the ledger evaluated on the publications, and the results page it writes

from topiceval.ledger import (  # noqa: E402
    EVALUATORS,
    judge_claim,
    render_page,
    unpublished_numbers,
)
from topiceval.claims import claim  # noqa: E402
from workflow_config import ROOT  # noqa: E402

PAGE = ROOT / "docs" / "results.md"
PUBLISHED = ROOT / "docs" / "results"


def test_every_claim_has_an_evaluator():
    assert set(EVALUATORS) == {c.key for c in CLAIMS}


def test_the_results_page_is_what_the_ledger_writes():
    text = PAGE.read_text("utf-8")
    assert render_page(text, PUBLISHED) == text, (
        "docs/results.md differs from what the ledger writes: run "
        "`python -m topiceval.ledger docs/results.md` (a verdict is never edited by hand)")


def test_a_verdict_edited_by_hand_is_caught():
    text = PAGE.read_text("utf-8")
    start = text.index("<!-- ledger:verdicts-capdevila2018 -->")
    edited = text[:start] + text[start:].replace("**tie**", "**agrees**", 1)
    assert edited != text
    assert render_page(edited, PUBLISHED) != edited


def test_every_number_the_panels_quote_is_in_a_published_table():
    text = PAGE.read_text("utf-8")
    assert unpublished_numbers(text, PUBLISHED) == []
    start = text.index("<!-- ledger:panels -->")
    edited = text[:start] + text[start:].replace("`", "`123456.7` `", 1)
    assert unpublished_numbers(edited, PUBLISHED) == ["123456.7"]


def test_a_tie_is_not_counted_as_agreement():
    """Issue 48: at the default size L2R with the code's proposal is above DS on Twitter and WS
    by 1.06 and 0.04 standard errors, which the page once counted as reproducing the claim."""
    judged = judge_claim(claim("004-F2-L2R-code-worse-than-DS-short"), PUBLISHED, "default")
    verdicts = {p.name: p.verdict for p in judged.panels}
    assert verdicts["Twitter"] == TIE and verdicts["WS"] == TIE
    assert judged.verdict == TIE and judged.counts()[AGREES] == 0


def test_a_claim_the_data_cannot_judge_says_why():
    judged = judge_claim(claim("004-F3-few-hundred"), PUBLISHED, "default")
    assert judged.verdict == "not testable" and "final S is 200" in judged.reason


def test_the_distance_statistic_carries_the_shared_reference_error():
    """002-F2: |ET - AIS| - |LR - AIS| by the delta method; AIS's error cancels when ET and LR
    lie on the same side of it and adds twice when they lie on opposite sides."""
    import math

    import pandas as pd

    from topiceval.ledger import RunTables

    def panel(lr: float):
        table = pd.DataFrame({"dataset": "kos", "method": ["et", "ais", "lr"],
                              "setting": ["ET", "AIS", "LR"], "value": [-520.0, -500.0, lr],
                              "boot_sd": [3.0, 4.0, 1.0]})
        (p,) = EVALUATORS["002-F2-LR-closer"](RunTables({"wallach2009-f2.csv": table}))
        return p.comparisons[0]

    assert panel(-501.0) == pytest.approx((19.0, math.sqrt(9 + 1)))
    assert panel(-498.0) == pytest.approx((18.0, math.sqrt(9 + 1 + 4 * 16)))
