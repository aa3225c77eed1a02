"""A study's coherence and stability beside its likelihood (issue 50, "In the study"): the
columns equal topiceval.coherence and topiceval.stability on the candidates' models, stability
is empty with its reason where seeds do not allow it, and the caption's line follows the one
stated rule (an interval wholly above the best's picks another candidate; overlap is a tie)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from topiceval.coherence import coherence_table
from topiceval.corpus import Corpus
from topiceval.models import LDAModel
from topiceval.stability import stability_table
from topiceval.study_quality import (
    PICK_RULE,
    coherence_settings,
    quality_lines,
    stability_columns,
    with_quality,
)

WORDS = np.array([f"w{i:02d}" for i in range(30)])


def _model(seed: int, topics: int = 4, order=None) -> LDAModel:
    phi = np.random.default_rng(seed).dirichlet(np.full(WORDS.size, 0.3), size=topics)
    order = np.arange(WORDS.size) if order is None else np.asarray(order)
    return LDAModel(phi[:, order], np.ones(topics), vocab=WORDS[order])


def _corpus() -> Corpus:
    rng = np.random.default_rng(7)
    docs = [rng.choice(WORDS[:25], size=rng.integers(5, 15)).tolist() for _ in range(40)]
    return Corpus.from_tokens(docs, WORDS, split=["train"] * 20 + ["test"] * 20)


def _candidates() -> pd.DataFrame:
    return pd.DataFrame({
        "candidate": ["gibbs-T4-seed0", "gibbs-T4-seed1", "gibbs-T3-seed0", "mallet-4"],
        "trainer": ["gibbs", "gibbs", "gibbs", "file"], "topics": [4, 4, 3, 4],
        "seed": [0, 1, 0, np.nan], "verdict": ["best", "tie", "worse", "worse"]})


def test_the_columns_are_coherence_table_and_stability_table_of_the_models():
    cands = _candidates()
    shuffled = np.random.default_rng(3).permutation(WORDS.size)
    models = {"gibbs-T4-seed0": _model(0), "gibbs-T4-seed1": _model(1, order=shuffled),
              "gibbs-T3-seed0": _model(2, topics=3), "mallet-4": _model(4)}
    corpus = _corpus()
    out = with_quality(cands, models, corpus, coherence_settings({"replicates": 50}))
    for name, model in models.items():
        mean = coherence_table(model, corpus.select_split("test"), measures=("npmi",),
                               replicates=50).iloc[-1]
        row = out.set_index("candidate").loc[name]
        assert (row["coherence_npmi"], row["coherence_npmi_low"], row["coherence_npmi_high"]) \
            == (mean["npmi"], mean["npmi_low"], mean["npmi_high"])
        assert row["coherence_reference"].startswith("the study's held-out documents (20 ")
    # seed 1's words in another order: matched to seed 0's word order first
    aligned = LDAModel(_model(1).phi, np.ones(4), vocab=WORDS)
    expected = stability_table([models["gibbs-T4-seed0"], aligned])
    by = out.set_index("candidate")
    for name in ("gibbs-T4-seed0", "gibbs-T4-seed1"):
        assert by.loc[name, "stability"] == pytest.approx(expected["stability"].iloc[-1],
                                                          abs=1e-12)
        assert by.loc[name, "stability_seeds"] == "0,1"
        per_topic = expected["stability"].to_numpy()[:-1]
        se = np.std(per_topic, ddof=1) / np.sqrt(per_topic.size)  # over the 4 topics
        assert by.loc[name, "stability_high"] - by.loc[name, "stability_low"] == pytest.approx(
            4 * se, abs=1e-12)
    # one seed, a model file: empty, with the reason
    assert np.isnan(by.loc["gibbs-T3-seed0", "stability"])
    assert "one seed of gibbs at T = 3" in by.loc["gibbs-T3-seed0", "stability_note"]
    assert "a model file" in by.loc["mallet-4", "stability_note"]
    # another reference: the training documents
    train = with_quality(cands, models, corpus, coherence_settings({"reference": "train",
                                                                    "replicates": 50}))
    mean = coherence_table(models["mallet-4"], corpus.select_split("train"), measures=("npmi",),
                           replicates=50).iloc[-1]
    assert train.set_index("candidate").loc["mallet-4", "coherence_npmi"] == mean["npmi"]


def test_identical_seeds_are_stable():
    cands = _candidates().iloc[:2]
    out = stability_columns(cands, {"gibbs-T4-seed0": _model(0), "gibbs-T4-seed1": _model(0)})
    np.testing.assert_allclose(out["stability"], 1.0, atol=1e-7)


def _table(npmi, low, high, stability=None) -> pd.DataFrame:
    n = len(npmi)
    frame = pd.DataFrame({
        "candidate": [f"c{i}" for i in range(n)], "trainer": ["gibbs"] * n,
        "verdict": ["best"] + ["worse"] * (n - 1), "coherence_npmi": npmi,
        "coherence_npmi_low": low, "coherence_npmi_high": high,
        "coherence_reference": ["the study's held-out documents (50 documents); ..."] * n,
        "stability": np.nan, "stability_low": np.nan, "stability_high": np.nan,
        "stability_note": ["one seed of gibbs at T = 5: ..."] * n})
    if stability is not None:
        frame["stability"], frame["stability_low"], frame["stability_high"] = stability
    return frame


def test_the_caption_says_coherence_picks_another_only_outside_the_intervals():
    text = "\n".join(quality_lines(_table([0.05, 0.20, 0.10], [0.03, 0.15, 0.02],
                                          [0.07, 0.25, 0.18])))
    assert PICK_RULE in text
    assert ("**Coherence (NPMI over the study's held-out documents) would pick another "
            "candidate:** c1 (0.200 [0.150, 0.250]) against the best c0 (0.050 [0.030, 0.070]); "
            "1 candidate(s) lie wholly above the best's interval.") in text
    tie = "\n".join(quality_lines(_table([0.05, 0.20], [0.03, 0.06], [0.07, 0.25])))
    assert "would pick" not in tie and ("a tie. c1 (0.200 [0.060, 0.250]) scores highest, "
                                        "but its interval overlaps the best's") in tie
    agree = "\n".join(quality_lines(_table([0.30, 0.20], [0.2, 0.1], [0.4, 0.3])))
    assert "agrees: the best, c0 (0.300 [0.200, 0.400]), scores highest" in agree
    assert "Stability across seeds: not measured, as each trainer was run with one seed" in agree
    assert "beside their own estimates" not in text + tie + agree


def test_the_caption_says_why_an_interval_lies_beside_its_estimate():
    """A basic bootstrap interval for the value on an unlimited reference can lie above an
    estimate biased low by a small reference: said, with the count, never silently."""
    text = "\n".join(quality_lines(_table([0.05, 0.20, 0.10], [0.06, 0.15, 0.02],
                                          [0.09, 0.25, 0.18])))
    assert "The intervals of 1 candidate(s) lie beside their own estimates" in text


def test_the_caption_says_which_intervals_the_reference_is_too_small_for():
    table = _table([0.05, 0.20, 0.10], [0.03, 0.15, 0.02], [0.07, 0.25, 0.18])
    table["coherence_small_reference"] = [False, True, True]
    text = "\n".join(quality_lines(table))
    assert ("The reference is too small for the intervals of 2 candidate(s): more than 15% of "
            "their top-word pairs never occur together in it") in text
    table["coherence_small_reference"] = False
    assert "too small" not in "\n".join(quality_lines(table))


def test_the_caption_says_where_stability_differs():
    table = _table([0.3, 0.2, 0.1], [0.2, 0.1, 0.0], [0.4, 0.3, 0.2],
                   stability=([0.5, 0.9, np.nan], [0.4, 0.85, np.nan], [0.6, 0.95, np.nan]))
    text = "\n".join(quality_lines(table))
    assert "**Stability across seeds would pick another candidate:** c1 (0.900" in text
    table.loc[0, ["stability", "stability_low", "stability_high"]] = np.nan
    text = "\n".join(quality_lines(table))
    assert "Stability across seeds: not measured for the best, c0 (one seed of gibbs" in text


@pytest.mark.parametrize("given, message", [
    ({"reference": "elsewhere"}, "study.coherence.reference: 'elsewhere'"),
    ({"window": 1}, "study.coherence.window: 1"),
    ({"replicates": 0}, "study.coherence.replicates: 0"),
    ({"level": 1.5}, "study.coherence.level: 1.5"),
    ({"top": 5}, "study.coherence: unknown key(s) ['top']"),
])
def test_bad_coherence_settings_are_refused_in_one_line(given, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        coherence_settings(given)


def _lda_documents(model: LDAModel, n_docs: int, length: int, seed: int) -> Corpus:
    """``n_docs`` documents of ``length`` tokens from ``model`` (theta ~ Dirichlet(0.1))."""
    rng = np.random.default_rng(seed)
    docs = []
    for theta in rng.dirichlet(np.full(model.n_topics, 0.1), size=n_docs):
        topics = rng.choice(model.n_topics, size=length, p=theta)
        docs.append([str(model.vocab[rng.choice(model.n_types, p=model.phi[t])])
                     for t in topics])
    return Corpus.from_tokens(docs, model.vocab, split=["test"] * n_docs)


def test_unseen_pair_share_equals_an_enumeration_of_the_pairs():
    """Each topic's top-n pairs checked against the sets of documents holding each word; a
    word absent from the reference makes its pairs unseen."""
    from topiceval.coherence import top_word_columns
    from topiceval.study_quality import unseen_pair_share

    model = _model(5, topics=3)
    reference = _corpus().select_split("test")  # w25..w29 never occur
    holding = {w: {d for d in range(len(reference)) if w in reference.vocab[reference[d]]}
               for w in WORDS}
    for n in (5, 12):
        pairs = [(model.vocab[row[i]], model.vocab[row[j]])
                 for row in top_word_columns(model, n) for i in range(n) for j in range(i + 1, n)]
        expected = np.mean([not (holding[a] & holding[b]) for a, b in pairs])
        assert unseen_pair_share(model, reference, n) == pytest.approx(expected, abs=1e-15)
        assert 0 < expected < 1


def test_a_tiny_reference_is_flagged_too_small_for_its_interval_and_a_large_one_is_not():
    """10 documents of 10 tokens leave most top-word pairs unseen, 2,000 of 50 none of them:
    only the first is flagged (UNSEEN_PAIRS_MAX, benchmarks/coherence_unseen_pairs.py)."""
    from topiceval.study_quality import UNSEEN_PAIRS_MAX, coherence_columns

    rng = np.random.default_rng(11)
    vocab = np.array([f"v{i:03d}" for i in range(200)])
    model = LDAModel(rng.dirichlet(np.full(200, 0.05), size=5), np.full(5, 0.1), vocab=vocab)
    settings = coherence_settings({"replicates": 20})
    found = {}
    for size, length in ((10, 10), (2000, 50)):
        found[size] = coherence_columns({"m": model}, _lda_documents(model, size, length, 1),
                                        settings).loc["m"]
    assert found[10]["coherence_unseen_pairs"] > 0.5 > UNSEEN_PAIRS_MAX
    assert found[2000]["coherence_unseen_pairs"] < 0.05 < UNSEEN_PAIRS_MAX
    assert [found[s]["coherence_small_reference"] for s in (10, 2000)] == [True, False]
