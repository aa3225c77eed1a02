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
    assert "NIPS > WS;" in ex.caption_t1(table)
    assert "- 004-T1-order, " in ex.caption_t1(table)  # the ledger's verdict, not the caption's


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


def _f3_documents(ds_offset=-5.0):
    """Per-document 004-F3 rows with known convergence: L2R settles fast (1/S), DS slowly
    (-50/S, scaled per document), HM sits above; DS is ``ds_offset`` from L2R at the end."""
    rows = []
    for d in range(10):
        base, scale = -100.0 - d, 1.0 + 0.1 * d
        for s in (10, 100, 300, 1000):
            rows += [("X", "l2r", 0, d, s, base + 1.0 / s),
                     ("X", "ds", 0, d, s, base + ds_offset * scale - 50.0 * scale / s),
                     ("X", "hm", 0, d, s, base + 3.0 + 0.1 / s)]
    return pd.DataFrame(rows, columns=list(ex.LOGLIK_COLUMNS))


SETTINGS = {"at": [10, 100, 300], "enough": 300, "gap_share": 0.01}


def test_loglik_convergence_statistics():
    stats = ex.loglik_convergence(_f3_documents()).set_index(["statistic", "method", "samples"])
    scale = 1.0 + 0.1 * np.arange(10)
    distance = stats.loc[("distance", "ds", 10)]
    assert distance["mean"] == pytest.approx(np.mean(50 * scale * (0.1 - 0.001)))
    assert distance["se"] == pytest.approx(np.std(50 * scale * 0.099, ddof=1) / np.sqrt(10))
    assert stats.loc[("distance", "l2r", 1000), "mean"] == 0.0 and distance["n_docs"] == 10
    paired = stats.loc[("distance_minus_l2r", "ds", 100), "mean"]
    assert paired == pytest.approx(np.mean(50 * scale * 0.009) - (0.01 - 0.001))
    final = stats.loc[("estimate_minus_l2r", "hm", 1000), "mean"]
    assert final == pytest.approx(3.0 + 0.1 / 1000 - 1.0 / 1000)


def test_f3_caption_states_the_ledgers_verdicts_per_collection_and_calls_ties_ties():
    curves = ex.sum_loglik(_f3_documents())
    caption = plots.caption_f3(curves, ex.loglik_convergence(_f3_documents()), SETTINGS)
    assert "- 004-F3-faster, \"L2R converges faster than DS\": agrees: panels agreeing 1 of 1 " \
           "(X), ties 0, disagreeing 0." in caption
    assert "- 004-F3-ordered, \"DS <= L2R <= HM\": agrees: panels agreeing 1 of 1 (X)" in caption
    assert "- 004-F3-few-hundred, \"a few hundred samples suffice\": agrees" in caption
    # the prose describes the numbers and judges nothing (one tie rule, the ledger's)
    prose = caption.split("\nVerdicts (the ledger")[0]
    assert "L2R's distance at S = 300: " in prose and "1% of the HM - DS gap of " in prose
    assert not any(word in prose for word in ("yes", " no ", "tie", "undetermined"))
    # DS and L2R equal at the end up to per-document noise of either sign: a tie, not an order
    tied = _f3_documents()
    end = tied["samples"] == 1000
    l2r = tied.loc[end & (tied["method"] == "l2r")].set_index("doc")["logp"]
    ds = end & (tied["method"] == "ds")
    tied.loc[ds, "logp"] = (tied.loc[ds, "doc"].map(l2r)
                            + np.where(tied.loc[ds, "doc"] % 2 == 0, 0.01, -0.01))
    caption = plots.caption_f3(ex.sum_loglik(tied), ex.loglik_convergence(tied), SETTINGS)
    assert "- 004-F3-ordered, \"DS <= L2R <= HM\": tie: panels agreeing 0 of 1, ties 1 (X), " \
           "disagreeing 0." in caption
    # without the per-document statistics (older publications) no verdict is stated
    assert "were not published" in plots.caption_f3(curves)
