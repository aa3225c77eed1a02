"""One tokenizer per model (issue 47): a model file records how its training text was split into
words where the importer or trainer can know it, and ``Corpus.from_texts`` and ``topiceval
evaluate`` split held-out text that way by default; where it is unknown, the command says so in
one line and names ``--lowercase --token-regex``.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from topiceval import cli, tokenizer
from topiceval.adapters import from_lda, from_sklearn
from topiceval.corpus import Corpus
from topiceval.data.preprocess import apply_recipe, load_resources, make_recipe
from topiceval.data.readers.base import RawCorpus, RawDocument
from topiceval.models import LDAModel, load_model, save_model
from topiceval.tokenizer import Tokenizer, recorded

TEXTS = [
    "The Café's owner, Zoë, said: \"It's the BEST coffee in São Paulo!\" x y 42 e-mail",
    "Naïve résumé writers don't re-use THE same words; the words re-use them.",
    "Über-fast trains: 300km/h — faster than the cars, the planes? NO.",
]


@pytest.mark.parametrize("settings", [
    {},
    {"stop_words": "english"},
    {"lowercase": False},
    {"strip_accents": "unicode"},
    {"strip_accents": "ascii", "stop_words": ["the", "same"]},
    {"token_pattern": r"(?u)\b\w+\b"},
    {"token_pattern": r"(\w+)'s"},  # one group: its text is the token, as in scikit-learn
], ids=repr)
def test_a_vectorizer_is_replayed_exactly(settings):
    vectorizer = CountVectorizer(**settings).fit(TEXTS)
    record = tokenizer.from_vectorizer(vectorizer)
    replay = Tokenizer.from_meta(record)
    analyzer = vectorizer.build_analyzer()
    assert [replay(t) for t in TEXTS] == [analyzer(t) for t in TEXTS]
    assert replay.engine == "re" and replay.source == "scikit-learn CountVectorizer"


def test_a_tfidf_vectorizer_is_replayed():
    vectorizer = TfidfVectorizer(stop_words="english").fit(TEXTS)
    replay = Tokenizer.from_meta(tokenizer.from_vectorizer(vectorizer))
    assert [replay(t) for t in TEXTS] == [vectorizer.build_analyzer()(t) for t in TEXTS]


@pytest.mark.parametrize("settings,why", [
    ({"analyzer": str.split}, "analyzer is a Python callable"),
    ({"analyzer": "char"}, "analyzer is 'char'"),
    ({"tokenizer": str.split, "token_pattern": None}, "own tokenizer"),
    ({"preprocessor": str.upper}, "own preprocessor"),
    ({"ngram_range": (1, 2)}, "n-grams"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_a_vectorizer_that_cannot_be_replayed_says_why(settings, why):
    record = tokenizer.from_vectorizer(CountVectorizer(**settings).fit(TEXTS))
    assert set(record) == {"unknown"} and why in record["unknown"]
    assert recorded({"tokenizer": record}) == (None, record["unknown"])


def test_a_recipe_is_replayed_as_it_split_the_corpus():
    """The words a recipe kept for a text are the words its recorded tokenizer gives (its
    vocabulary filter, which is not part of it, off: min_df=1)."""
    recipe = make_recipe("default", {"min_df": 1})
    raw = RawCorpus(dataset="x", kind="text", docs=[RawDocument(name=str(i), text=t)
                                                     for i, t in enumerate(TEXTS)])
    corpus = apply_recipe(raw, recipe, np.full(len(TEXTS), "train"), load_resources(recipe))
    replay, _ = recorded(corpus.meta)
    assert replay.source == "recipe default" and len(replay.stop_words) == 318
    assert [replay(t) for t in TEXTS] == [corpus.vocab[d].tolist() for d in corpus]


def test_a_recipe_with_stemming_is_unknown():
    record = tokenizer.from_recipe("capdevila2018", make_recipe("capdevila2018").settings(), ())
    assert "porter" in record["unknown"]


def test_importers_record_the_vectorizer_and_say_when_they_cannot():
    vectorizer = CountVectorizer(stop_words="english")
    lda = LatentDirichletAllocation(n_components=2, max_iter=2, random_state=0)
    lda.fit(vectorizer.fit_transform(TEXTS))
    with_vectorizer = from_sklearn(lda, vectorizer).meta["tokenizer"]
    assert with_vectorizer == tokenizer.from_vectorizer(vectorizer)
    words_only = from_sklearn(lda, vectorizer.get_feature_names_out()).meta["tokenizer"]
    assert "given as words" in words_only["unknown"]


def test_from_lda_records_the_vectorizer():
    lda = pytest.importorskip("lda")
    vectorizer = CountVectorizer(lowercase=False)
    model = lda.LDA(n_topics=2, n_iter=5, random_state=1).fit(vectorizer.fit_transform(TEXTS))
    assert from_lda(model, vectorizer).meta["tokenizer"]["lowercase"] is False


def small_model(meta: dict) -> LDAModel:
    words = ["best", "coffee", "words", "faster", "cars"]
    return LDAModel(np.full((2, len(words)), 1 / len(words)), np.ones(2), vocab=words, meta=meta)


def test_from_texts_uses_the_models_tokenizer_by_default():
    model = small_model({"tokenizer": Tokenizer(r"(?u)\b\w\w+\b", lowercase=True,
                                                engine="re").to_meta()})
    docs = Corpus.from_texts(TEXTS, vocabulary=model)
    assert [docs.vocab[d].tolist() for d in docs] == [["best", "coffee"], ["words", "words"],
                                                      ["faster", "cars"]]
    assert docs.meta["tokenizer"] == model.meta["tokenizer"]
    # an explicit analyzer wins; a model without a record is split on whitespace, as before
    assert Corpus.from_texts(TEXTS, str.split, model).n_tokens == 3
    assert Corpus.from_texts(TEXTS, vocabulary=small_model({})).n_tokens == 3


def test_a_model_file_keeps_its_tokenizer_and_old_files_load(tmp_path):
    record = Tokenizer(r"\w+", lowercase=True, stop_words=("the",)).to_meta()
    save_model(tmp_path / "new.npz", small_model({"tokenizer": record}))
    save_model(tmp_path / "old.npz", small_model({}))
    assert recorded(load_model(tmp_path / "new.npz").meta)[0] == Tokenizer.from_meta(record)
    found, why = recorded(load_model(tmp_path / "old.npz").meta)
    assert found is None and "does not record" in why


@pytest.fixture
def heldout(tmp_path):
    (tmp_path / "heldout.txt").write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    return tmp_path


def evaluate(path, model_file, *extra) -> int:
    return cli.main(["evaluate", "--model", str(model_file), "--docs", str(path / "heldout.txt"),
                     "--runs", "2", "--no-progress",
                     "--out", str(path / "out.csv"), *extra])


def test_the_command_uses_the_models_tokenizer(heldout, capsys):
    import pandas as pd

    record = Tokenizer(r"(?u)\b\w\w+\b", lowercase=True, engine="re", source="test").to_meta()
    save_model(heldout / "model.npz", small_model({"tokenizer": record}))
    assert evaluate(heldout, heldout / "model.npz") == 0
    err = capsys.readouterr().err
    assert "--docs split into words as the model's training text was (test: lowercased" in err
    assert pd.read_csv(heldout / "out.csv")["tokens_scored"].tolist() == [2, 2, 2]
    # the options replace it
    assert evaluate(heldout, heldout / "model.npz", "--token-regex", r"\S+") == 0
    assert pd.read_csv(heldout / "out.csv")["tokens_scored"].tolist() == [1, 1, 1]


def test_the_command_says_in_one_line_when_the_tokenizer_is_unknown(heldout, capsys):
    save_model(heldout / "old.npz", small_model({}))
    evaluate(heldout, heldout / "old.npz", "--skip-empty")
    notes = [line for line in capsys.readouterr().err.splitlines()
             if "note:" in line and "tokenised" in line]
    assert len(notes) == 1, notes
    assert "does not record how its training text was tokenised" in notes[0]
    assert "--lowercase" in notes[0] and "--token-regex" in notes[0]
