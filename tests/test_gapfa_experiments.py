"""Seed 004 experiment functions (tables, captions) and figures, at toy size."""

import math

import numpy as np
import pandas as pd
import pytest

from topiceval.corpus import Corpus
from topiceval.experiments import capdevila2018 as ex
from topiceval.models import GaPModel
from topiceval.plots import capdevila2018 as plots


def toy(seed=0, n_docs=12):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(10, 0.5), 3)
    counts = rng.poisson(0.4, size=(n_docs, 10))
    counts[:, :2] += 1
    return counts, GaPModel(phi, np.array([0.5, 0.7, 0.3]), np.ones(3))


def test_kl_bits_is_a_divergence_of_the_normalised_probabilities():
    log_p = np.log([0.5, 0.25, 0.25]) - 40.0
    assert ex.kl_bits(log_p, log_p) == 0.0
    assert ex.kl_bits(log_p, log_p + 3.0) == pytest.approx(0.0, abs=1e-15)  # common factor
    q = np.log([0.25, 0.5, 0.25])
    expected = 0.5 * math.log2(2.0) + 0.25 * math.log2(0.5)
    assert ex.kl_bits(log_p, q) == pytest.approx(expected, rel=1e-12)
    assert ex.kl_bits([-3.0], [-9.0]) == 0.0  # one document: 0 by construction


def test_checkpoint_grid():
    np.testing.assert_array_equal(ex.checkpoint_grid(10_000, 100)[:3], [100, 200, 300])
    assert ex.checkpoint_grid(10_000, 100)[-1] == 10_000
    assert ex.checkpoint_grid(250, 100)[-1] == 250
    grid = ex.checkpoint_grid(1000, 10, spacing="log")
    assert grid[0] == 1 and grid[-1] == 1000 and np.all(np.diff(grid) > 0)
    with pytest.raises(ValueError, match="spacing"):
        ex.checkpoint_grid(10, 5, spacing="cubic")


def test_corpus_table_from_corpus_and_matrix():
    corpus = Corpus.from_documents([[0, 1, 1], [2], [0, 2, 2, 2]], vocab=["a", "b", "c"])
    table = ex.corpus_table({"WS": corpus, "NIPS": np.array([[30, 0], [10, 10]])})
    ws = table.set_index("collection").loc["WS"]
    assert (ws["vocabulary"], ws["documents"], ws["mean_length"]) == (3, 3, 8 / 3)
    assert ws["paper_documents"] == 12_309 and "SearchSnippets" in ws["source"]
    assert table.set_index("collection").loc["NIPS", "sd_length"] == pytest.approx(math.sqrt(50))
    assert "NIPS > WS (same order as the paper)" in ex.caption_t1(table)


def test_accuracy_pipeline_tables_captions_and_figures(tmp_path):
    counts, model = toy()
    curves = pd.concat([
        ex.accuracy_curves(counts, model, collection=name, checkpoints=[5, 20], repeats=2,
                           max_docs=8, settings={"hm": {"burnin": 5}}, seed=s)
        for s, name in enumerate(["AP", "WS"])
    ])
    assert set(curves.columns) == {"collection", "method", "repeat", "samples", "kl_bits", "mae",
                                   "n_docs", "untrusted"}
    assert len(curves) == 2 * 4 * 2 * 2 and np.all(curves["kl_bits"] >= 0)
    # issue 31: the documents the diagnostics flag, at the largest sample size only
    assert curves.loc[curves["samples"] == 5, "untrusted"].isna().all()
    assert (curves.loc[curves["samples"] == 20, "untrusted"] >= 0).all()
    assert np.all(curves["n_docs"] == 8)
    summary = ex.summarise_accuracy(curves)
    assert len(summary) == 2 * 4 * 2 and np.all(summary["repeats"] == 2)
    final = ex.final_accuracy(summary)
    assert np.all(final["samples"] == 20)
    caption = plots.caption_f2(summary)
    assert caption.startswith(f"{ex.PAPER}, Figure 2") and "S = 20" in caption
    flagged = final[final["untrusted"] > 0]
    assert (f"{len(flagged)} of {len(final)} points" in caption if len(flagged)
            else "trust every estimate" in caption)
    assert "\nPaper: L2R-E has the lowest KL" in caption
    lengths = {"AP": 20.0, "WS": 5.0}
    table = ex.kl_vs_length(summary, lengths)
    assert list(table["collection"].unique()) == ["WS", "AP"]
    assert "Spearman" in plots.caption_f1(table)
    for name, draw in [("f2.png", lambda p: plots.plot_accuracy(summary, p)),
                       ("f2-mae.pdf", lambda p: plots.plot_accuracy(summary, p, metric="mae")),
                       ("f1.png", lambda p: plots.plot_kl_vs_length(table, p))]:
        draw(tmp_path / name)
        assert (tmp_path / name).stat().st_size > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f1.png", "f2-mae.pdf", "f2.png"]


def test_no_tractable_documents_is_an_error():
    counts, model = toy()
    with pytest.raises(ValueError, match="no tractable documents"):
        ex.accuracy_curves(counts, model, collection="X", checkpoints=[2], max_summands=2)


def test_loglik_curves_caption_and_figure(tmp_path):
    counts, model = toy(n_docs=6)
    counts[2] = 0  # empty documents are skipped
    curves = ex.loglik_curves(counts, model, collection="Reuters", checkpoints=[4, 16],
                              n_docs=4, settings={"hm": {"burnin": 4}})
    assert len(curves) == 3 * 2 and np.all(curves["n_docs"] == 4)
    assert np.all(np.isfinite(curves["loglik"]))
    caption = plots.caption_f3(curves)
    assert caption.startswith(f"{ex.PAPER}, Figure 3") and "Reuters" in caption
    assert "\nPaper: L2R converges faster" in caption
    plots.plot_loglik(curves, tmp_path / "f3.png")
    assert (tmp_path / "f3.png").stat().st_size > 1000
    assert "Reuters (4 documents): " in caption and " 1 in " not in caption
    subset = curves.assign(doc_stride=10)  # as from every 10th of the first 40 documents
    assert "Reuters (4 documents, 1 in 10 of the first 40): " in plots.caption_f3(subset)
    plots.plot_loglik(subset, tmp_path / "f3-subset.png")
    # a table written before the doc_stride column (consecutive documents) reads as stride 1
    assert plots.caption_f3(curves.drop(columns="doc_stride")) == caption


def test_samples_to_converge():
    curve = pd.DataFrame({"samples": [1, 2, 4, 8], "loglik": [-20.0, -11.0, -10.5, -10.0]})
    assert ex.samples_to_converge(curve, 1.0) == 2
    assert ex.samples_to_converge(curve, 0.1) == 8
    assert ex.samples_to_converge(curve, 100.0) == 1
