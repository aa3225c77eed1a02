"""The diagnostics against exact answers (issue 31, "done means"; docs/trust.md#the-battery).

On the battery of ``tests/trust_battery.py`` (tiny LDA and GaP-FA documents with exact answers,
ordinary and extreme priors, short and repeated-word documents, every consistent sampling method
at its default budget with evaluate's runs): every estimate off by more than 4 standard errors +
0.1 nats is flagged untrusted, the documented blind spots (``BLIND_SPOTS``) included; of the
estimates within 2 standard errors the issue allows 10% to be flagged, and 10.4% are on these
problems (``FALSE_ALARMS_MEASURED``: the test holds the battery to what was measured, so that a
change that flags more shows, and records the issue's 10% as not met, a strict xfail that fails
once it is).  The examples of issue 31 are flagged, each, and GaP-FA's default since (AIS) on
the issue's repeated word.  The rule of ``topiceval.diagnostics`` was fixed on the calibration
seeds 1001-1040 before the problems here (``TEST_SEEDS``, 11-30; 1-10 and 101-102 had been
seen) were run once (docs/trust.md, "A larger battery, and the floor judges the interval").
The floor's sum over the allocations near the best one and the pure ones, and the ceiling,
came after.  A tighter certain bound can flag no estimate within 2 standard errors of
log P(w), and on these problems neither changed a good estimate's verdict: the floor's sums
caught 3 of the 10 misses outside the blind spots and 17 of the 18 in them, the ceiling (and
completion's bounds from both) the 8 left, 3 estimates too high and 5 AIS completions
(docs/trust.md, "The floor", "The ceiling").  Every random number is seeded and the estimates
do not depend on the number of threads: the battery gives the same table on every machine, and
the test cannot flake.
"""

import pytest

from trust_battery import (
    DEFAULT_EXAMPLE,
    FALSE_ALARMS,
    FALSE_ALARMS_MEASURED,
    TEST_SEEDS,
    battery,
    examples,
)

pytestmark = pytest.mark.slow  # about 40 CPU-seconds with numba's cache warm


@pytest.fixture(scope="module")
def table():
    return battery(list(TEST_SEEDS))


def test_every_bad_estimate_is_flagged(table):
    """The blind spots included: the floor and the ceiling see what the weights cannot."""
    bad = table[table["class"] == "bad"]
    assert len(bad) >= 300
    missed = bad[bad["trusted"]]
    assert missed.empty, missed.drop(columns=["exact"]).to_string()


def test_few_of_the_good_estimates_are_flagged(table):
    good = table[table["class"] == "good"]
    flagged = ~good["trusted"]
    assert len(good) >= 2000
    assert flagged.mean() <= FALSE_ALARMS_MEASURED + 1e-12, (
        good[flagged].drop(columns=["exact"]).to_string())


@pytest.mark.xfail(strict=True, reason="issue 31: 10.4% of the good estimates are flagged on "
                   "seeds 11-30, against the 10% allowed")
def test_the_issues_share_of_false_alarms_is_met(table):
    good = table[table["class"] == "good"]
    assert (~good["trusted"]).mean() <= FALSE_ALARMS


def test_the_issues_examples_are_flagged():
    """Each of the issue's examples is flagged, and GaP-FA's default since (AIS) on the issue's
    repeated word too: closer to the exact value than L2R, but off by more than 4 s.e., which
    only the floor sees."""
    frame = examples()
    shown = frame.drop(columns=["exact"]).to_string()
    assert not frame["trusted"].any(), shown
    default = frame[frame["example"].str.contains(DEFAULT_EXAMPLE, regex=False)]
    assert len(default) == 1 and (default["class"] == "bad").all(), shown
    assert default["reason"].iloc[0].startswith("below the floor"), shown
    assert (default["error"].abs().max()
            < frame.loc[frame["method"] == "l2r", "error"].abs().min()), shown
    chib = frame[frame["method"] == "chib"]
    assert (chib["rhat"] > 1.05).all(), shown  # runs in different modes
    assert (chib.loc[chib["prior"] < 1e-100, "class"] == "bad").all(), shown
    l2r = frame[frame["method"] == "l2r"]
    assert (l2r["error"] < -5).all(), shown  # the repeated word: many nats low
