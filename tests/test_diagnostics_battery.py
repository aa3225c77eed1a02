"""The diagnostics against exact answers (issue 31, "done means"; docs/trust.md#the-battery).

On the battery of ``tests/trust_battery.py`` (tiny LDA and GaP-FA documents with exact answers,
ordinary and extreme priors, short and repeated-word documents, every consistent sampling method
at its default budget with evaluate's runs): every estimate off by more than 4 standard errors +
0.1 nats is flagged untrusted, the documented blind spots (``BLIND_SPOTS``) included, but for
the misses measured (``MISSED_MEASURED``: IS-IP's one mode, in the blind spots; the issue asks
for none); of the estimates within 2 standard errors at most 10% are flagged, as the issue asks,
and no more than were measured (``FALSE_ALARMS_MEASURED``, so that a change that flags more
shows).  Three sets of problems (``TEST_SEEDS``), each run once after its rule was fixed: seeds
11-30 after the rule of the larger battery was fixed on seeds 1001-1040 (the floor's sums and
the ceiling came after, and can flag no good estimate), seeds 31-50 after certified estimates
were added, and seeds 51-70, the freshest, after the ceiling was tightened, each by a protocol
committed first (docs/trust.md, "Certified estimates", "A tighter ceiling").  The examples of
issue 31 are flagged, each, and GaP-FA's default since (AIS) on the issue's repeated word.
Every random number is seeded and the estimates do not depend on the number of threads: the
battery gives the same table on every machine, and the test cannot flake.
"""

import pytest

from trust_battery import (
    DEFAULT_EXAMPLE,
    FALSE_ALARMS,
    FALSE_ALARMS_MEASURED,
    MISSED_MEASURED,
    TEST_SEEDS,
    battery,
    examples,
)

pytestmark = pytest.mark.slow  # about 2 CPU-minutes with numba's cache warm


@pytest.fixture(scope="module", params=list(TEST_SEEDS))
def table(request):
    return request.param, battery(list(TEST_SEEDS[request.param]))


def test_every_bad_estimate_is_flagged_but_the_misses_measured(table):
    """The blind spots included: the floor and the ceiling see what the weights cannot."""
    seeds, frame = table
    bad = frame[frame["class"] == "bad"]
    assert len(bad) >= 300
    missed = bad[bad["trusted"]]
    named = set(missed[["family", "problem", "prior", "doc", "method"]].itertuples(
        index=False, name=None))
    assert named == MISSED_MEASURED[seeds], missed.drop(columns=["exact"]).to_string()


def test_at_most_the_issues_share_of_good_estimates_is_flagged(table):
    seeds, frame = table
    good = frame[frame["class"] == "good"]
    flagged = ~good["trusted"]
    assert len(good) >= 2000
    assert flagged.mean() <= min(FALSE_ALARMS_MEASURED[seeds] + 1e-12, FALSE_ALARMS), (
        good[flagged].drop(columns=["exact"]).to_string())


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
