"""Splits, subsampling and the build_corpus entry point on a fixture raw directory."""

from __future__ import annotations

import numpy as np
import pytest

from data_fixtures import SHARED_MIRROR, registry_layout
from topiceval.corpus import Corpus
from topiceval.data.prepare import DATASETS, DEFAULT_RECIPES, build_corpus, raw_files
from topiceval.data.preprocess import RECIPES
from topiceval.data.sources import parse_sources
from topiceval.data.splits import assign_splits, subsample

NO_NLTK = {"stopwords": "sklearn-english"}  # recipes runnable without NLTK data


@pytest.fixture(scope="module")
def raw_dir(tmp_path_factory):
    return registry_layout(tmp_path_factory.mktemp("raw"))


def test_assign_splits_policies():
    archive = ["train", "test", "train"]
    assert assign_splits(archive, "archive").tolist() == archive
    assert assign_splits([None] * 3, "none").tolist() == ["train"] * 3
    a = assign_splits([None] * 10, "random", test_fraction=0.3, seed=4)
    b = assign_splits([None] * 10, "random", test_size=3, seed=4)
    assert a.tolist() == b.tolist() and (a == "test").sum() == 3
    c = assign_splits([None] * 10, "random", test_size=3, seed=5)
    assert c.tolist() != a.tolist()  # 120 possible test sets: seeds 4 and 5 differ here


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([None], "archive"), "needs a split from the source"),
        (([None] * 3, "shuffle"), "unknown split policy"),
        (([None] * 3, "random"), "exactly one of test_fraction or test_size"),
        (([None] * 3, "none", 0.5), "apply only to split 'random'"),
        (([None] * 3, "random", 1.5), r"test_fraction must lie in \(0, 1\)"),
        (([None] * 3, "random", None, 3), r"test_size must lie in \[1, 2\]"),
    ],
)
def test_assign_splits_errors(args, message):
    with pytest.raises(ValueError, match=message):
        assign_splits(*args)


def test_subsample_is_per_split_sorted_and_seeded():
    labels = np.array(["train"] * 8 + ["test"] * 4)
    keep = subsample(labels, 3, seed=1)
    assert keep.tolist() == sorted(keep.tolist()) and keep.size == 6
    assert (labels[keep] == "train").sum() == 3 and (labels[keep] == "test").sum() == 3
    assert subsample(labels, 3, seed=1).tolist() == keep.tolist()
    assert subsample(labels, 100).tolist() == list(range(12))
    assert subsample(labels, None).tolist() == list(range(12))
    with pytest.raises(ValueError, match="max_docs must be a positive integer"):
        subsample(labels, 0)


def test_every_dataset_has_a_source_and_default_recipes_exist():
    sources = parse_sources()
    assert set(DATASETS) == set(DEFAULT_RECIPES)
    for spec in DATASETS.values():
        assert spec.source in sources
    assert {r for recipes in DEFAULT_RECIPES.values() for r in recipes} <= set(RECIPES)


@pytest.mark.parametrize(
    ("dataset", "recipe", "options", "expected"),
    [
        ("20newsgroups", "capdevila2018", {**NO_NLTK, "min_df": 1}, {"train": 3, "test": 1}),
        # The test message's words are all absent from the training vocabulary: dropped.
        ("20newsgroups", "wallach2009", {"min_df": 1}, {"train": 3}),
        ("nips", "wallach2009", {"min_df": 1}, {"train": 2}),
        ("reuters21578", "capdevila2018", {**NO_NLTK, "min_df": 1}, {"train": 3}),
        ("reuters21578", "capdevila2018", {**NO_NLTK, "min_df": 1, "split": "modapte"},
         {"train": 1, "test": 1}),
        ("ap", "asis", {}, {"train": 2}),
        ("kos", "asis", {}, {"train": 2}),
        ("searchsnippets", "asis", {}, {"train": 2}),
        ("tweet", "capdevila2018", {**NO_NLTK, "min_df": 1}, {"train": 2}),
        ("reuters_lda", "asis", {}, {"train": 2}),
    ],
)
def test_build_corpus_every_dataset(raw_dir, dataset, recipe, options, expected):
    corpus = build_corpus(dataset, raw_dir, recipe, options)
    assert isinstance(corpus, Corpus)
    assert corpus.meta["split_sizes"] == expected
    meta = corpus.meta
    assert meta["dataset"] == dataset and meta["recipe"] == recipe
    for key in ("recipe_settings", "ordered", "docs_read", "docs_dropped_empty", "vocab_size",
                "split_policy", "log"):
        assert key in meta
    assert meta["ordered"] is (dataset not in ("ap", "kos", "reuters_lda"))


def test_random_split_counts_every_document(raw_dir):
    corpus = build_corpus("kos", raw_dir, "asis", {"split": "random", "test_size": 1, "seed": 3})
    meta = corpus.meta
    assert meta["split_policy"] == "random"
    assert meta["split_options"] == {"test_size": 1, "seed": 3}
    dropped = meta["docs_dropped_empty"]
    assert meta["split_sizes"].get("test", 0) + dropped.get("test", 0) == 1
    assert sum(meta["split_sizes"].values()) + sum(dropped.values()) == 3


def test_build_corpus_records_drops_and_subsamples(raw_dir, tmp_path):
    corpus = build_corpus("ap", raw_dir, "asis")
    assert corpus.meta["docs_read"] == 3 and corpus.meta["docs_dropped_empty"] == {"train": 1}
    assert corpus.meta["vocab_size"]["final"] == 5
    options = {**NO_NLTK, "min_df": 1, "max_df": 1.0, "max_docs": 1}
    sampled = build_corpus("20newsgroups", raw_dir, "capdevila2018", options)
    assert sampled.meta["docs_sampled"] == 2 and sampled.meta["docs_read"] == 4
    assert sorted(sampled.split.tolist()) == ["test", "train"]
    again = build_corpus("20newsgroups", raw_dir, "capdevila2018", options)
    assert again.checksum() == sampled.checksum()
    assert again.names.tolist() == sampled.names.tolist()
    sampled.save(tmp_path / "c.npz")
    assert Corpus.load(tmp_path / "c.npz").meta == sampled.meta


@pytest.mark.parametrize(
    ("dataset", "recipe", "options", "message"),
    [
        ("imdb", "asis", {}, "unknown dataset 'imdb'"),
        ("ap", "asis", {"colour": 1}, r"unknown settings \['colour'\]"),
        ("ap", "fancy", {}, "unknown recipe 'fancy'"),
        ("ap", "asis", {"split": "modapte"}, "applies to reuters21578 only"),
        ("ap", "asis", {"seed": -1}, "seed must be a non-negative integer"),
        ("ap", "asis", {"max_docs": 2.5}, "max_docs must be an integer"),
        ("20newsgroups", "bechard2018", {}, "needs NLTK data"),
        ("nips", "asis", {}, "needs pre-tokenised data"),
    ],
)
def test_build_corpus_errors(raw_dir, dataset, recipe, options, message):
    with pytest.raises(ValueError, match=message):
        build_corpus(dataset, raw_dir, recipe, options)


def test_missing_raw_file_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"ap: raw files missing .*ap\.dat"):
        raw_files("ap", tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_MIRROR.is_dir(), reason=f"no staged data mirror at {SHARED_MIRROR}")
def test_bechard2018_with_real_nltk_data_from_the_mirror(raw_dir):
    corpus = build_corpus("20newsgroups", raw_dir, "bechard2018", {"headers": "strip"},
                          nltk_data=SHARED_MIRROR)
    words = set(corpus.vocab.tolist())
    # "Rockets launch café windows." -> lemmas; "God and belief." -> "and" is a stop word.
    assert {"rocket", "launch", "window", "god", "belief"} <= words
    assert "and" not in words and "rockets" not in words
