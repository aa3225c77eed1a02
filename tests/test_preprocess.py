"""Preprocessing recipes on hand-checked examples (no NLTK data needed: resources injected)."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from nltk.stem import PorterStemmer

from topiceval.data.preprocess import (
    MALLET_TOKEN,
    RECIPES,
    Recipe,
    Resources,
    apply_recipe,
    compose_text,
    make_recipe,
    vocabulary_filter,
)
from topiceval.data.readers.base import RawCorpus, RawDocument

LEMMAS = {"cats": "cat", "dogs": "dog", "geese": "goose"}
RES = Resources(
    stopwords=frozenset({"the", "were", "and", "is"}), lemmatize=lambda w: LEMMAS.get(w, w)
)


def _words(corpus, d):
    return [str(corpus.vocab[t]) for t in corpus[d]]


def _text_corpus(texts, splits=None, usenet=False, **kw):
    docs = [RawDocument(name=f"d{i}", text=t, **kw) for i, t in enumerate(texts)]
    return RawCorpus("toy", "text", docs, usenet=usenet), np.array(splits or ["train"] * len(docs))


def test_bechard_style_word_steps_keep_token_order():
    raw, splits = _text_corpus(["The cats were running, and 10 dogs ran!", "Geese is ___ ... fun"])
    recipe = make_recipe("bechard2018", {"top_k": 0})
    corpus = apply_recipe(raw, recipe, splits, RES)
    assert _words(corpus, 0) == ["cat", "running", "10", "dog", "ran"]
    assert _words(corpus, 1) == ["goose", "fun"]
    assert corpus.vocab.tolist() == ["cat", "running", "10", "dog", "ran", "goose", "fun"]
    meta = corpus.meta
    assert meta["types_dropped_by_word_steps"] == {"punctuation": 4, "stopword": 4}
    assert meta["vocab_size"] == {"read": 15, "after_word_steps": 7, "final": 7}
    assert meta["recipe"] == "bechard2018" and meta["ordered"] is True
    assert meta["recipe_settings"]["normalize"] == "wordnet"


def test_headers_keep_subject_strip():
    doc = RawDocument("m", text="Body words", header="From: x\nSubject: Hello", subject="Hello")
    recipe = Recipe("r", headers="keep")
    assert compose_text(doc, recipe, usenet=True) == "From: x\nSubject: Hello\n\nBody words"
    assert compose_text(doc, Recipe("r", headers="subject"), True) == "Hello\n\nBody words"
    assert compose_text(doc, Recipe("r", headers="strip"), True) == "Body words"


def test_usenet_quote_and_signature_stripping_only_on_usenet(caplog):
    text = "a writes:\n> old words\nnew words\n--\nsignature"
    recipe = Recipe("r", quotes="strip", footers="strip")
    raw, splits = _text_corpus([text], usenet=True)
    assert _words(apply_recipe(raw, recipe, splits), 0) == ["new", "words"]
    raw, splits = _text_corpus([text], usenet=False)
    with caplog.at_level(logging.INFO, logger="topiceval.data.preprocess"):
        corpus = apply_recipe(raw, recipe, splits)
    assert "signature" in _words(corpus, 0)
    assert any("Usenet messages only" in line for line in corpus.meta["log"])
    assert any("Usenet messages only" in r.message for r in caplog.records)


def test_capdevila_style_letters_short_words_and_porter_merges():
    raw, splits = _text_corpus(["Connected connections connecting! The 3d2 x-ray ab runs running"])
    recipe = make_recipe("capdevila2018", {"min_df": 1, "max_df": 1.0})
    corpus = apply_recipe(raw, recipe, splits, Resources(RES.stopwords, stem=PorterStemmer().stem))
    assert _words(corpus, 0) == ["connect"] * 3 + ["ray", "run", "run"]
    assert corpus.meta["types_dropped_by_word_steps"] == {"short": 3, "stopword": 1}


def test_mallet_token_pattern():
    raw, splits = _text_corpus(["Don't e-mail a 3com x, ok? (end)"])
    corpus = apply_recipe(raw, Recipe("r", token_pattern=MALLET_TOKEN), splits)
    assert _words(corpus, 0) == ["don't", "e-mail", "com", "end"]


def test_vocabulary_filters_by_hand():
    # Word ids 0..4; three reference documents and one test document.
    docs = [[0, 0, 0, 1, 2], [0, 1, 1, 3], [0, 2, 2], [4, 4, 4, 4, 4]]
    offsets = np.cumsum([0] + [len(d) for d in docs])
    ids = np.concatenate(docs)
    ref = np.array([True, True, True, False])
    # counts on reference docs: [5, 3, 3, 1, 0]; document frequencies: [3, 2, 2, 1, 0].
    keep, summary = vocabulary_filter(offsets, ids, 5, ref, Recipe("r", min_count=2))
    assert keep.tolist() == [True, True, True, False, False]
    keep, _ = vocabulary_filter(offsets, ids, 5, ref, Recipe("r", min_df=2))
    assert keep.tolist() == [True, True, True, False, False]
    keep, summary = vocabulary_filter(offsets, ids, 5, ref, Recipe("r", max_df=0.8))
    assert keep.tolist() == [False, True, True, True, False] and summary["above_max_df"] == 1
    # top_k: counts 5, 3, 3 -> word 1 and 2 tie; the earlier type (1) wins.
    keep, summary = vocabulary_filter(offsets, ids, 5, ref, Recipe("r", top_k=2))
    assert keep.tolist() == [True, True, False, False, False] and summary["top_k_min_count"] == 3
    all_docs = np.ones(4, dtype=bool)
    keep, _ = vocabulary_filter(offsets, ids, 5, all_docs, Recipe("r", top_k=1))
    assert keep.tolist() == [True, False, False, False, False]


def test_train_vocabulary_drops_test_only_words_and_empty_documents_are_counted():
    raw, splits = _text_corpus(
        ["alpha beta", "beta gamma", "delta epsilon", "alpha"], ["train", "train", "test", "test"]
    )
    corpus = apply_recipe(raw, Recipe("r", vocab_from="train"), splits)
    assert corpus.vocab.tolist() == ["alpha", "beta", "gamma"]
    assert corpus.names.tolist() == ["d0", "d1", "d3"]
    assert corpus.split.tolist() == ["train", "train", "test"]
    assert corpus.meta["docs_dropped_empty"] == {"test": 1}
    assert corpus.meta["docs_kept"] == 3 and corpus.meta["docs_read"] == 4
    everything = apply_recipe(raw, Recipe("r", vocab_from="all"), splits)
    assert everything.n_types == 5 and everything.meta["docs_dropped_empty"] == {}


def _counts_corpus(vocab_named=True):
    vocab = ["running", "runs", "the", "ab", "run"]
    ids = [[4, 4, 0], [1, 2, 2, 2, 3], []]
    docs = [RawDocument(str(i), ids=np.array(d, dtype=np.int64)) for i, d in enumerate(ids)]
    raw = RawCorpus("ap", "counts", docs, vocab=vocab, ordered=False, vocab_named=vocab_named)
    return raw, np.array(["train"] * 3)


def test_count_corpus_word_steps_merge_ids_by_stem():
    raw, splits = _counts_corpus()
    recipe = make_recipe("capdevila2018", {"min_df": 1, "max_df": 1.0})
    resources = Resources(frozenset({"the"}), stem=PorterStemmer().stem)
    corpus = apply_recipe(raw, recipe, splits, resources)
    assert corpus.vocab.tolist() == ["run"]
    assert [c.tolist() for c in corpus] == [[0, 0, 0], [0]]
    assert corpus.meta["ordered"] is False
    assert corpus.meta["docs_dropped_empty"] == {"train": 1}
    assert corpus.meta["types_dropped_by_word_steps"] == {"short": 1, "stopword": 1}


def test_count_corpus_word_must_match_token_pattern():
    raw, splits = _counts_corpus()
    corpus = apply_recipe(raw, Recipe("r", token_pattern=r"[a-z]{4,}"), splits)
    assert corpus.vocab.tolist() == ["running", "runs"]
    assert corpus.meta["types_dropped_by_word_steps"] == {"token_pattern": 3}


def test_unnamed_vocabulary_skips_word_steps_and_logs_it():
    raw, splits = _counts_corpus(vocab_named=False)
    recipe = make_recipe("capdevila2018", {"min_df": 2, "max_df": 1.0})
    corpus = apply_recipe(raw, recipe, splits, Resources(stem=PorterStemmer().stem))
    assert corpus.vocab.tolist() == []  # no word is in two documents
    assert corpus.meta["docs_dropped_empty"] == {"train": 3}
    assert any("word-level steps skipped" in line for line in corpus.meta["log"])
    corpus = apply_recipe(raw, make_recipe("capdevila2018", {"min_df": 1, "max_df": 1.0}), splits,
                          Resources(stem=PorterStemmer().stem))
    assert corpus.vocab.tolist() == ["running", "runs", "the", "ab", "run"]


def test_asis_keeps_published_tokens_and_vocabulary():
    raw, splits = _counts_corpus()
    corpus = apply_recipe(raw, make_recipe("asis"), splits)
    assert corpus.vocab.tolist() == ["running", "runs", "the", "ab", "run"]
    assert [c.tolist() for c in corpus] == [[4, 4, 0], [1, 2, 2, 2, 3]]
    docs = [RawDocument("0", text="e-commerce  news e-commerce"), RawDocument("1", text=" ")]
    tokens = RawCorpus("tweet", "tokens", docs)
    corpus = apply_recipe(tokens, make_recipe("asis"), np.array(["train", "train"]))
    assert corpus.vocab.tolist() == ["e-commerce", "news"] and corpus[0].tolist() == [0, 1, 0]
    assert corpus.meta["docs_dropped_empty"] == {"train": 1}
    text, splits = _text_corpus(["raw text"])
    with pytest.raises(ValueError, match="'asis' needs pre-tokenised data"):
        apply_recipe(text, make_recipe("asis"), splits)


def test_tokens_kind_is_retokenised_by_other_recipes():
    docs = [RawDocument("0", text="e-commerce news")]
    corpus = apply_recipe(RawCorpus("x", "tokens", docs), Recipe("r", token_pattern=r"[a-z]+"),
                          np.array(["train"]))
    assert _words(corpus, 0) == ["e", "commerce", "news"]


def test_recipe_and_option_errors():
    with pytest.raises(ValueError, match="unknown recipe 'nope'; known recipes"):
        make_recipe("nope")
    with pytest.raises(ValueError, match=r"unknown settings \['colour'\]"):
        make_recipe("capdevila2018", {"colour": 1})
    for bad, message in (
        ({"headers": "drop"}, "headers='drop'"),
        ({"min_count": 0}, "min_count must be an integer >= 1"),
        ({"max_df": 0.0}, "max_df must lie in"),
        ({"top_k": -1}, "top_k must be"),
        ({"lowercase": "yes"}, "lowercase must be true or false"),
        ({"token_pattern": "("}, r"bad token_pattern: '\(' is not a regular expression"),
        ({"token_pattern": r"(\w+)-(\w+)"}, r"bad token_pattern: .* 2 capturing group\(s\)"),
        ({"token_pattern": r"\w*"}, "bad token_pattern: .* matches the empty string"),
        ({"normalize": "snowball"}, "normalize='snowball'"),
    ):
        with pytest.raises(ValueError, match=message):
            make_recipe("wallach2009", bad)
    with pytest.raises(ValueError, match="takes no settings"):
        make_recipe("asis", {"min_count": 3})
    assert set(RECIPES) == {"asis", "default", "bechard2018", "capdevila2018", "wallach2009"}


def test_missing_resources_and_split_shape_are_errors():
    raw, splits = _text_corpus(["a b"])
    with pytest.raises(ValueError, match="needs a stop word list"):
        apply_recipe(raw, make_recipe("capdevila2018"), splits, Resources(stem=str.lower))
    with pytest.raises(ValueError, match="needs a porter function"):
        apply_recipe(raw, make_recipe("capdevila2018"), splits, Resources(RES.stopwords))
    with pytest.raises(ValueError, match=r"splits has shape \(2,\)"):
        apply_recipe(raw, Recipe("r"), np.array(["train", "test"]))
    with pytest.raises(ValueError, match="no document of toy is in train"):
        apply_recipe(raw, Recipe("r"), np.array(["test"]))
