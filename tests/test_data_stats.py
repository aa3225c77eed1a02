"""Corpus statistics table and the document-length figure."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from topiceval.corpus import Corpus
from topiceval.data.stats import PAPER_REFERENCES, corpus_stats, write_corpus_stats
from topiceval.plots.corpus import length_distributions


def _corpus(dataset, recipe, docs, split):
    meta = {"dataset": dataset, "recipe": recipe, "ordered": True}
    return Corpus.from_documents(docs, vocab=["a", "b", "c", "d"], split=split, meta=meta)


@pytest.fixture
def corpora():
    ng = _corpus("20newsgroups", "wallach2009", [[0, 1, 1], [2], [0, 0, 0, 0, 0]],
                 ["train", "train", "test"])
    ap = _corpus("ap", "asis", [[0, 3], [1, 2, 3, 3]], ["train", "train"])
    return ng, ap


def test_rows_values_and_references(corpora, tmp_path):
    ng, ap = corpora
    table = corpus_stats([ng, ap])
    assert table[["dataset", "split"]].values.tolist() == [
        ["20newsgroups", "all"], ["20newsgroups", "test"], ["20newsgroups", "train"],
        ["ap", "all"], ["ap", "train"],
    ]
    row = table.iloc[0]
    assert (row.D, row.V, row.V_present, row.tokens) == (3, 4, 3, 9)
    assert row.mean_length == 3.0 and row.sd_length == 2.0  # lengths 3, 1, 5
    assert (row.median_length, row.max_length) == (3.0, 5)
    assert row.reference == "seed002 Table 2" and row.ref_V == 22695
    assert row.ratio_V == pytest.approx(4 / 22695)
    assert row.ratio_sd == pytest.approx(2.0 / 296.2)
    assert pd.isna(row.ref_D) and math.isnan(row.ratio_D)
    train = table.iloc[2]
    assert (train.D, train.V_present, train.mean_length) == (2, 3, 2.0)
    assert pd.isna(train.reference)  # references sit on the "all" rows only
    ap_all = table.iloc[3]
    assert ap_all.ref_D == 2246 and ap_all.ratio_D == pytest.approx(2 / 2246)


def test_loads_paths_and_writes_atomic_csv(corpora, tmp_path):
    ng, _ = corpora
    ng.save(tmp_path / "ng.npz")
    out = tmp_path / "tables" / "corpus_stats.csv"
    table = write_corpus_stats([tmp_path / "ng.npz"], out)
    assert table.dataset.tolist() == ["20newsgroups"] * 3  # identified by meta, not by path
    assert "path" not in table.columns  # the table does not depend on where results live
    back = pd.read_csv(out)
    assert back.ref_V.iloc[0] == 22695 and back.mean_length.iloc[0] == 3.0
    assert sorted(p.name for p in out.parent.iterdir()) == ["corpus_stats.csv"]


def test_reference_keys_name_known_recipes():
    from topiceval.data.prepare import DATASETS
    from topiceval.data.preprocess import RECIPES

    for dataset, recipe in PAPER_REFERENCES:
        assert dataset in DATASETS and recipe in RECIPES


@pytest.mark.parametrize("suffix", ["png", "pdf"])
def test_length_figure_written_atomically(corpora, tmp_path, suffix):
    ng, ap = corpora
    ng2 = _corpus("20newsgroups", "bechard2018", [[0], [1, 2]], ["train", "test"])
    out = length_distributions([ng, ap, ng2], tmp_path / f"fig.{suffix}")
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG" if suffix == "png" else b"%PDF")
    assert [p.name for p in tmp_path.iterdir()] == [f"fig.{suffix}"]


def test_length_figure_errors(corpora, tmp_path):
    ng, _ = corpora
    with pytest.raises(ValueError, match="unsupported figure format 'jpg'"):
        length_distributions([ng], tmp_path / "fig.jpg")
    with pytest.raises(ValueError, match="two corpora for dataset '20newsgroups'"):
        length_distributions([ng, ng], tmp_path / "fig.png")
    with pytest.raises(ValueError, match="at least one corpus"):
        length_distributions([], tmp_path / "fig.png")
    assert list(tmp_path.iterdir()) == []
