"""Documents are matched to a model by word: Corpus.from_tokens / from_texts / from_counts,
Corpus.align, reorder_columns, and the refusal of count matrices where tokens are expected."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from topiceval.corpus import Corpus
from topiceval.estimators import lda
from topiceval.models import LDAModel
from topiceval.training.lda import fit_gibbs
from topiceval.vocabulary import VocabularyError, reorder_columns, vocabulary_words

WORDS = ["apple", "banana", "cherry", "date", "elder"]


def test_from_tokens_keeps_order_and_counts_what_it_drops():
    corpus = Corpus.from_tokens([["cherry", "apple", "kiwi", "cherry"], ["kiwi", "lime"], []],
                                WORDS, names=["a", "b", "c"])
    assert corpus[0].tolist() == [2, 0, 2]
    assert corpus.lengths.tolist() == [3, 0, 0]
    assert corpus.dropped.tolist() == [1, 2, 0]
    assert corpus.vocab.tolist() == WORDS and corpus.names.tolist() == ["a", "b", "c"]
    oov = corpus.meta["oov"]
    assert oov["dropped_tokens"] == 3 and oov["documents_with_drops"] == 2
    assert oov["empty_documents"] == 2 and oov["most_dropped"] == ["kiwi", "lime"]
    assert oov["dropped_share"] == pytest.approx(3 / 6)


def test_from_tokens_refuses_what_it_cannot_map():
    with pytest.raises(VocabularyError, match="document 1 has the word 'kiwi'"):
        Corpus.from_tokens([["apple"], ["kiwi"]], WORDS, oov="error")
    with pytest.raises(ValueError, match="document 0 is a string"):
        Corpus.from_tokens(["apple banana"], WORDS)
    with pytest.raises(ValueError, match="tokens must be word strings"):
        Corpus.from_tokens([["apple", 3]], WORDS)
    with pytest.raises(ValueError, match="oov must be one of"):
        Corpus.from_tokens([["apple"]], WORDS, oov="ignore")


def test_vocabulary_words_accepts_vectorizers_and_models_and_refuses_ambiguity():
    vec = CountVectorizer().fit(["cherry apple", "banana cherry date"])
    assert vocabulary_words(vec).tolist() == ["apple", "banana", "cherry", "date"]
    model = LDAModel(np.full((2, 5), 0.2), np.ones(2), vocab=WORDS)
    assert vocabulary_words(model).tolist() == WORDS
    with pytest.raises(VocabularyError, match="lists the word .a. twice"):
        vocabulary_words(["a", "b", "a"])
    with pytest.raises(VocabularyError, match="must hold strings"):
        vocabulary_words(["a", 2])
    with pytest.raises(VocabularyError, match="not fitted"):
        vocabulary_words(CountVectorizer())
    with pytest.raises(VocabularyError, match="carries no word list"):
        vocabulary_words(LDAModel(np.full((2, 5), 0.2), np.ones(2)))


def test_from_texts_uses_the_analyzer_and_keeps_token_order():
    vec = CountVectorizer(stop_words="english").fit(["The cherry and the apple", "date banana"])
    corpus = Corpus.from_texts(["Apple, the CHERRY; apple and kiwi!"], vec.build_analyzer(), vec)
    assert vec.get_feature_names_out()[corpus[0]].tolist() == ["apple", "cherry", "apple"]
    assert corpus.dropped.tolist() == [1]  # kiwi; the stop words never reach the vocabulary
    plain = Corpus.from_texts(["date apple  date"], None, WORDS)
    assert plain[0].tolist() == [3, 0, 3] and plain.meta["source"] == "texts"


def test_from_counts_expands_rows_in_a_seeded_order_dense_or_sparse():
    counts = np.array([[2, 0, 1, 0, 3], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]])
    dense = Corpus.from_counts(counts, WORDS, seed=3)
    sparse = Corpus.from_counts(sp.csr_matrix(counts), WORDS, seed=3)
    np.testing.assert_array_equal(dense.tokens, sparse.tokens)
    np.testing.assert_array_equal(dense.counts().toarray(), counts)
    assert dense.meta["ordered"] is False and dense.has_words
    other = Corpus.from_counts(counts, WORDS, seed=4)
    np.testing.assert_array_equal(other.counts().toarray(), counts)
    assert dense[0].tolist() != other[0].tolist() or dense[2].tolist() != other[2].tolist()
    with pytest.raises(VocabularyError, match="5 columns but the vocabulary has 4"):
        Corpus.from_counts(counts, WORDS[:4])
    with pytest.raises(ValueError, match="non-negative"):
        Corpus.from_counts(-counts, WORDS)


def test_align_matches_words_not_positions():
    corpus = Corpus.from_tokens([["apple", "elder", "cherry", "apple"], ["banana"]], WORDS)
    permuted = ["elder", "cherry", "banana", "apple", "date", "fig"]
    aligned = corpus.align(permuted)
    for d in range(2):
        assert np.array(permuted)[aligned[d]].tolist() == corpus.vocab[corpus[d]].tolist()
    assert corpus.align(WORDS) is corpus
    smaller = corpus.align(["apple", "banana"])
    assert smaller[0].tolist() == [0, 0] and smaller.dropped.tolist() == [2, 0]
    assert smaller.meta["oov"]["most_dropped"] == ["cherry", "elder"] or \
        sorted(smaller.meta["oov"]["most_dropped"]) == ["cherry", "elder"]
    with pytest.raises(VocabularyError, match="not in the model's vocabulary"):
        corpus.align(["apple", "banana"], oov="error")


def test_dropped_counts_survive_subset_save_and_load(tmp_path):
    corpus = Corpus.from_tokens([["apple", "kiwi"], ["kiwi", "kiwi", "date"]], WORDS)
    corpus.save(tmp_path / "c.npz")
    loaded = Corpus.load(tmp_path / "c.npz")
    assert loaded.dropped.tolist() == [1, 2]
    assert loaded.subset([1]).dropped.tolist() == [2]
    assert Corpus.from_documents([[0, 1]], WORDS).dropped is None


def test_counts_without_words_are_taken_as_model_ids_only_when_said_and_at_the_right_size():
    counts = sp.csr_matrix(np.array([[0, 2, 1, 0, 0]]))
    anonymous = Corpus.from_counts(counts)
    assert not anonymous.has_words
    with pytest.raises(VocabularyError, match="could only be matched by position"):
        anonymous.align(WORDS)  # unnamed columns are never matched to words by position
    stated = Corpus.from_counts(counts, columns="model")
    assert not stated.has_words
    aligned = stated.align(WORDS)
    assert aligned.has_words and aligned.vocab.tolist() == WORDS
    np.testing.assert_array_equal(aligned.counts().toarray(), counts.toarray())
    with pytest.raises(VocabularyError, match="5 columns stated to be the model's, but the model "
                                              "has 6"):
        stated.align(WORDS + ["fig"])
    with pytest.raises(ValueError, match="not both"):
        Corpus.from_counts(counts, WORDS, columns="model")


@pytest.mark.parametrize("matrix", [np.array([[2, 0, 1], [0, 3, 1]]),
                                    sp.csr_matrix(np.array([[2, 0, 1], [0, 3, 1]]))])
def test_count_matrices_are_refused_where_token_sequences_are_expected(matrix):
    phi, alpha_m = np.full((2, 3), 1 / 3), np.full(2, 0.5)
    for call in (lambda: lda.estimate("lr", matrix, phi, alpha_m),
                 lambda: lda.complete("lr", matrix, phi, alpha_m),
                 lambda: lda.compare(matrix, (phi, alpha_m), (phi, alpha_m)),
                 lambda: fit_gibbs(matrix, 2, sweeps=1)):
        with pytest.raises(ValueError, match="Corpus.from_counts"):
            call()
    with pytest.raises(ValueError, match="Corpus.from_tokens"):
        lda.estimate("lr", ["apple banana"], phi, alpha_m)


def test_reorder_columns_puts_a_model_on_other_words():
    rng = np.random.default_rng(0)
    model = LDAModel(rng.dirichlet(np.ones(5), size=3), np.full(3, 0.4), vocab=WORDS)
    order = [3, 0, 4, 1, 2]
    words = np.array(WORDS)[order]
    moved = reorder_columns(model, words)
    np.testing.assert_array_equal(moved.phi, model.phi[:, order])
    assert moved.vocab.tolist() == words.tolist()
    doc = Corpus.from_tokens([["date", "apple", "apple", "elder"]], WORDS)
    np.testing.assert_allclose(lda.estimate("exact", doc, model.phi, model.alpha_m),
                               lda.estimate("exact", doc.align(moved), moved.phi, moved.alpha_m),
                               rtol=1e-13)
    assert reorder_columns(model, WORDS) is model
    with pytest.raises(VocabularyError, match="vocabularies differ"):
        reorder_columns(model, WORDS[:4] + ["fig"])
    with pytest.raises(ValueError, match="different word lists"):
        lda.compare([np.array([0, 1])], model, moved)
