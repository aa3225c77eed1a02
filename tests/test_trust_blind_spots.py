"""A standard error of zero is not trusted, nor is an estimate in its method's named blind spot
(issue 46, item 2; docs/trust.md#blind-spots): runs that all give the same number carry no
information about the error; IS-IP and Chib-style at a tiny prior report one mode of a posterior
that has one per topic.  Certified estimates (within 0.1 nats of both the floor and the
ceiling) and the exact methods stay trusted, the summary does not advise a method where it is in
its blind spot, and a target is never reached on a standard error of 0."""

from __future__ import annotations

import numpy as np
import pytest

import topiceval
from topiceval import diagnostics as dg
from topiceval.estimators import lda
from topiceval.estimators.lda import registry
from topiceval.models import LDAModel
from trust_battery import LDA_TOPICS, lda_problem

# a chain record per run: ESS, half length, and each half's mean and variance of the chain's
# log-likelihoods: two runs whose chains look alike (R-hat 1, ESS 1,000)
ALIKE = np.array([[[500.0, 500.0, -5.0, 1.0, -5.0, 1.0]] * 2])
TINY = np.full(LDA_TOPICS, 1e-300)
# the battery's problem of seed 4: IS-IP's 8 runs of its first document (3 tokens) at alpha m =
# 1e-300 all give the same number, 0.092 nats low, which the floor and the ceiling certify
SEED = 4


def test_runs_that_give_the_same_number_are_not_trusted():
    """Two runs equal to the last digit: a standard error of 0, which says nothing; trusted
    only if certified, and the exact methods always."""
    same = np.array([[-5.0, -5.0]])
    frame = dg.diagnose("chain", same, ALIKE)
    assert not frame["trusted"][0]
    assert frame["reason"][0] == ("no spread: its 2 runs give the same number, so its standard "
                                  "error of 0 says nothing about its error")
    assert dg.reason_counts(frame["reason"]) == {"no spread": 1}
    certified = dg.diagnose("chain", same, ALIKE, floor=np.array([-5.05]),
                            ceiling=np.array([-4.98]))
    assert certified["trusted"][0] and certified["reason"][0] == ""
    assert dg.diagnose("", same)["trusted"][0]
    assert dg.diagnose("chain", np.array([[-5.0, -5.001]]), ALIKE)["trusted"][0]


def test_is_ip_and_chib_name_their_blind_spot_for_the_document_at_hand():
    """At alpha m <= 1e-3, a document of two or more tokens; not one token, not alpha m = 0.1,
    not the other methods."""
    docs = [np.array([0]), np.array([0, 1]), np.array([2, 3, 4])]
    for name, shown in (("is_ip", "IS-IP"), ("chib", "Chib-style")):
        blind = registry.ESTIMATE[name].blind_spot
        reasons = blind(docs, np.full(3, 1e-3))
        assert reasons[0] == "" and reasons[1] == reasons[2] != ""
        assert reasons[1].startswith("blind spot: at alpha m <= 0.001") and shown in reasons[1]
        assert not blind(docs, np.full(3, 0.1)).astype(bool).any()
    assert all(m.blind_spot is None for name, m in registry.ESTIMATE.items()
               if name not in ("is_ip", "chib"))
    frame = dg.diagnose("chain", np.array([[-5.0, -5.1]] * 2), np.concatenate([ALIKE] * 2),
                        blind=np.array(["blind spot: here", ""], dtype=object))
    assert frame["trusted"].tolist() == [False, True]
    assert frame["reason"][0] == "blind spot: here"


def test_the_summary_does_not_advise_a_method_in_its_blind_spot():
    phi, docs, _ = lda_problem(SEED)
    result = topiceval.evaluate(LDAModel(phi, TINY), docs, "ais", runs=2, temperatures=2)
    assert result.blind_methods == ("is_ip", "chib")
    note = next(n for n in result._trust_notes() if "untrusted" in n)
    assert ("(ais for short documents, bridge_theta for 100 tokens or more); not is_ip or "
            "chib, in a blind spot") in note, note
    assert "is_ip for short" not in result.summary()


def test_a_target_is_never_reached_on_a_standard_error_of_zero():
    """The issue's case: IS-IP at alpha m = 1e-300 on a 3-token document, 8 runs that agree to
    the last digit (0.092 nats low, certified within 0.1 nats by the floor and the ceiling, so
    trusted, with a note saying why): no standard-error target is reached on it, and no round
    of more runs is spent on it."""
    phi, docs, _ = lda_problem(SEED)
    exact = lda.estimate("exact", docs[:1], phi, TINY)
    result = topiceval.evaluate(LDAModel(phi, TINY), docs[:1], "is_ip", target="0.1 nats")
    assert result.stderr[0] == 0.0 and result.logp[0] - exact[0] == pytest.approx(-0.092,
                                                                                abs=5e-4)
    assert result.trusted[0]
    assert not result.budget.reached[0] and result.budget.rounds == 1
    summary = result.summary()
    assert "reached on 0 of 1 documents" in summary and "a standard error of 0" in summary
    assert "1 trusted estimate(s) have a standard error of 0" in summary
