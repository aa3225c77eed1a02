"""Seed-001 experiment functions, captions and the 001-F4 figure at a tiny size."""

import numpy as np
import pandas as pd
import pytest

from topiceval.corpus import Corpus
from topiceval.experiments import bechard2018 as b
from topiceval.models import LDAModel
from topiceval.plots.bechard2018 import f4_caption, plot_perplexity_vs_topics
from topiceval.training.lda.synthetic import synthetic_corpus

SPACE = list(b.PAPER_TABLES["T2"]["SPACE"])


@pytest.fixture(scope="module")
def corpora():
    vocab = SPACE + [f"w{i}" for i in range(15)]
    g = np.random.default_rng(0)
    phi = g.dirichlet(np.full(20, 0.3), size=3)
    model = LDAModel(phi, np.full(3, 0.5), vocab=vocab)
    return (synthetic_corpus(model, 40, 30, seed=1, split="train"),
            synthetic_corpus(model, 15, 20, seed=2, split="test"))


@pytest.fixture(scope="module")
def table(corpora):
    train, test = corpora
    return b.perplexity_vs_topics(train, test, topics=(2, 3), gibbs_sweeps=5, foldin_sweeps=3,
                                  vem_max_iter=3, sklearn_max_iter=2)


def test_perplexity_table(table, corpora):
    assert list(table.columns) == b.COLUMNS
    assert len(table) == 2 * (4 + 2 + 2)
    defs = table.groupby("trainer")["definition"].unique().map(set).to_dict()
    assert defs == {"vem": {"P2", "P1-bound"}, "gibbs": {"P2"}, "sklearn": {"P4"}}
    assert set(table.loc[table["optimistic"], "definition"]) == {"P2"}
    assert not table.loc[table["optimistic"], "split"].eq("train").any()
    assert np.all(np.isfinite(table["perplexity"])) and np.all(table["perplexity"] > 1)
    test_rows = table[table["split"] == "test"]
    assert set(test_rows["tokens"]) == {corpora[1].n_tokens}
    np.testing.assert_allclose(
        table["perplexity"], np.exp(-table["log_likelihood"] / table["tokens"]), rtol=1e-12)
    # the ELBO bound can only be worse than the optimistic plug-in on the same documents
    vem = table[table["trainer"] == "vem"].pivot_table(index=["T", "split"],
                                                      columns="definition", values="perplexity")
    assert np.all(vem["P1-bound"] >= vem["P2"])


def test_caption_reports_minimum_and_monotonicity(table):
    caption = f4_caption(table)
    assert "lowest at T = 12" in caption
    for (trainer, definition), part in table[table["split"] == "test"].groupby(
            ["trainer", "definition"]):
        best = int(part.loc[part["perplexity"].idxmin(), "T"])
        assert f"{trainer} ({definition}" in caption
        assert f"test minimum at T = {best}" in caption


def test_match_paper_topics():
    vocab = SPACE + ["god", "jesus", "x", "y", "z"]
    phi = np.full((3, 10), 0.01)
    phi[1, :5] = [0.3, 0.2, 0.15, 0.1, 0.1]
    phi[2, 5:7] = [0.5, 0.4]
    phi /= phi.sum(axis=1, keepdims=True)
    matches = b.match_paper_topics(LDAModel(phi, np.ones(3), vocab=vocab), "T2", n=5)
    space = matches.set_index("label").loc["SPACE"]
    assert space["topic"] == 1 and space["overlap"] == 5 and space["missing"] == ""
    assert matches.set_index("label").loc["RELIGION", "topic"] == 2
    assert len(matches) == 3  # six labels, three topics: the best three pairs
    assert "contain" in b.tables_caption(matches, "T2")


def test_theme_recovery_counts_the_themes_words_of_both_tables():
    """Issue 33 item 4: a theme's words are our top-5 words among the paper's words for it in
    either table; whether it is found is the ledger's verdict (issue 48), stated per theme."""
    matches = pd.DataFrame({
        "label": ["NUMBERS", "MID-EAST", "SPACE"], "paper_words": ["10 00 25 15 11"] * 3,
        "topic": [0, 1, 2], "words": ["1 0 2 3 4", "people would gun right one",
                                      "key space nasa system gov"],
        "overlap": [0, 1, 2], "mass": [0.1] * 3, "missing": [np.nan] * 3})
    themes = b.theme_recovery(matches)
    assert themes["theme_words"].tolist() == [5, 1, 2]  # NUMBERS: Table 2's words
    caption = b.tables_caption(matches, "T1")
    assert "one-to-one assignment (Hungarian algorithm)" in caption
    assert "disagrees: panels agreeing 2 of 3 (NUMBERS, SPACE), ties 0, disagreeing 1 " \
           "(MID-EAST)." in caption
    assert "| MID-EAST | 10 00 25 15 11 | people would gun right one (1) | 1/5 | 1/5 |" in caption
    assert "recovered" not in caption


def test_bad_inputs(corpora):
    train, test = corpora
    with pytest.raises(ValueError, match="unknown trainer"):
        b.perplexity_run(train, test, "mallet", 2)
    with pytest.raises(ValueError, match="unknown setting"):
        b.perplexity_run(train, test, "vem", 2, sweeps=3)
    other = Corpus.from_documents([[0, 1]], ["a", "b"], split="test")
    with pytest.raises(ValueError, match="share one vocabulary"):
        b.perplexity_run(train, other, "vem", 2)
    with pytest.raises(ValueError, match="unknown paper table"):
        b.match_paper_topics(LDAModel(np.full((1, 2), 0.5), [1.0], vocab=["a", "b"]), "T3")
    with pytest.raises(ValueError, match="no vocabulary"):
        b.match_paper_topics(LDAModel(np.full((1, 2), 0.5), [1.0]), "T1")


def test_plot_writes_figure(table, tmp_path):
    path = tmp_path / "f4.png"
    plot_perplexity_vs_topics(table, path)
    assert path.read_bytes()[:4] == b"\x89PNG"
    plot_perplexity_vs_topics(table[table["trainer"] == "gibbs"], tmp_path / "f4.pdf")
    assert (tmp_path / "f4.pdf").read_bytes()[:4] == b"%PDF"
    with pytest.raises(ValueError, match="lacks column"):
        plot_perplexity_vs_topics(pd.DataFrame({"T": [1]}), path)
    with pytest.raises(ValueError, match="no rows"):
        plot_perplexity_vs_topics(table[table["trainer"] == "none"], path)
