"""``topiceval.adapters``: models trained here with each peer library, imported word for word.

Every test trains a small model with the library itself (fixed seeds, tiny corpus) and checks the
imported phi, alpha_m and word order against the library's own values: exactly where the library
holds float64 (scikit-learn, lda, MALLET's text), and to float32 precision where it exposes only
float32 (gensim's get_topics, tomotopy's get_topic_word_dist; 1e-6 relative).  For one-token
documents the exact estimator must equal log sum_t (alpha_t / sum alpha) phi_tw computed directly
from the library's own parameters.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from data_fixtures import SHARED_MIRROR, three_topic_texts
from topiceval import adapters
from topiceval.adapters import mallet
from topiceval.estimators import lda as estimators

MALLET_AP = SHARED_MIRROR / "mallet-ap"
# tomotopy 0.14's extension emits this DeprecationWarning once, while it is imported
TOMOTOPY_IMPORT = pytest.mark.filterwarnings(
    "ignore:builtin type _VocabDict has no __module__ attribute:DeprecationWarning")
FLOAT32_RTOL = 1e-6  # libraries that expose their topics only in float32


def one_token_logp(phi: np.ndarray, alpha_m: np.ndarray) -> np.ndarray:
    """log P(w) of the one-token document [w], for every w, by the exact estimator."""
    docs = [np.array([w]) for w in range(phi.shape[1])]
    return estimators.estimate("exact", docs, phi, alpha_m)


def direct_logp(topics: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """log sum_t (alpha_t / sum alpha) phi_tw from a library's own (T, V) topics and alpha."""
    return np.log((alpha / alpha.sum()) @ topics)


@pytest.fixture(scope="module")
def texts() -> list[list[str]]:
    """60 documents drawn from three topics over 24 words, with skewed word frequencies."""
    return three_topic_texts(7)


def check_common(model, n_topics: int, n_words: int, library: str, importer: str) -> None:
    assert model.phi.dtype == np.float64 and model.phi.shape == (n_topics, n_words)
    np.testing.assert_allclose(model.phi.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert model.alpha_m.shape == (n_topics,) and model.vocab.shape == (n_words,)
    meta = model.meta
    assert meta["library"] == library and meta["importer"] == importer
    assert meta["T"] == n_topics and meta["V"] == n_words
    assert isinstance(meta["phi"], str) and "alpha_m" in meta and "beta" in meta
    json.dumps(meta)


# --- scikit-learn ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sklearn_fit(texts):
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(analyzer=lambda doc: doc)
    counts = vectorizer.fit_transform(texts)
    estimator = LatentDirichletAllocation(n_components=3, max_iter=8, random_state=0)
    return estimator.fit(counts), vectorizer, counts


def test_sklearn(sklearn_fit):
    estimator, vectorizer, _ = sklearn_fit
    model = adapters.from_sklearn(estimator, vectorizer)
    lam = estimator.components_
    check_common(model, 3, lam.shape[1], "scikit-learn", "from_sklearn")
    np.testing.assert_array_equal(model.phi, lam / lam.sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(model.alpha_m, np.full(3, estimator.doc_topic_prior_))
    assert model.beta == estimator.topic_word_prior_
    np.testing.assert_array_equal(model.vocab, vectorizer.get_feature_names_out())
    alpha = np.full(3, estimator.doc_topic_prior_)
    expected = direct_logp(lam / lam.sum(axis=1, keepdims=True), alpha)
    np.testing.assert_allclose(one_token_logp(model.phi, model.alpha_m), expected, rtol=1e-13)


def test_sklearn_permuted_vocabulary_maps_words_to_their_columns(texts):
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer

    words = sorted({w for doc in texts for w in doc})
    columns = np.random.default_rng(3).permutation(len(words))
    mapping = {w: int(c) for w, c in zip(words, columns, strict=True)}  # not sorted, not insertion
    vectorizer = CountVectorizer(analyzer=lambda doc: doc, vocabulary=mapping)
    counts = vectorizer.transform(texts)
    estimator = LatentDirichletAllocation(n_components=2, max_iter=5, random_state=1).fit(counts)
    model = adapters.from_sklearn(estimator, vectorizer)
    assert list(model.vocab) != words and list(model.vocab) != list(mapping)
    lam = estimator.components_
    for word, column in mapping.items():
        (j,) = np.flatnonzero(model.vocab == word)
        np.testing.assert_array_equal(model.phi[:, j], lam[:, column] / lam.sum(axis=1))
    # the word -> column mapping itself (vectorizer.vocabulary_) gives the same order
    np.testing.assert_array_equal(adapters.from_sklearn(estimator, mapping).vocab, model.vocab)
    # and the columns really count those words: word frequencies follow the vocabulary
    frequency = Counter(w for doc in texts for w in doc)
    assert np.asarray(counts.sum(axis=0)).ravel().tolist() == [frequency[w] for w in model.vocab]


def test_sklearn_float32_components_are_normalised_in_float64(sklearn_fit):
    from sklearn.decomposition import LatentDirichletAllocation

    _, vectorizer, counts = sklearn_fit
    estimator = LatentDirichletAllocation(n_components=2, max_iter=3, random_state=0)
    estimator.fit(counts.astype(np.float32))
    assert estimator.components_.dtype == np.float32
    model = adapters.from_sklearn(estimator, list(vectorizer.get_feature_names_out()))
    lam = estimator.components_.astype(np.float64)
    np.testing.assert_array_equal(model.phi, lam / lam.sum(axis=1, keepdims=True))
    assert model.meta["components_dtype"] == "float32"


def test_sklearn_refuses_bad_inputs(sklearn_fit):
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer

    estimator, vectorizer, _ = sklearn_fit
    words = list(vectorizer.get_feature_names_out())
    with pytest.raises(ValueError, match="not fitted"):
        adapters.from_sklearn(LatentDirichletAllocation(), words)
    with pytest.raises(ValueError, match="LatentDirichletAllocation"):
        adapters.from_sklearn(vectorizer, words)
    with pytest.raises(ValueError, match="has 23 words but .* 24 columns"):
        adapters.from_sklearn(estimator, words[:-1])
    with pytest.raises(ValueError, match="twice"):
        adapters.from_sklearn(estimator, [words[1], *words[1:]])
    with pytest.raises(ValueError, match="must hold strings; entry 2 is 7"):
        adapters.from_sklearn(estimator, [*words[:2], 7, *words[3:]])
    with pytest.raises(ValueError, match="vectorizer is not fitted"):
        adapters.from_sklearn(estimator, CountVectorizer())
    with pytest.raises(ValueError, match="output columns, not words"):
        adapters.from_sklearn(estimator, estimator)
    with pytest.raises(ValueError, match="got set"):
        adapters.from_sklearn(estimator, set(words))
    with pytest.raises(ValueError, match="column indices"):
        adapters.from_sklearn(estimator, {w: i + 1 for i, w in enumerate(words)})


# --- gensim ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gensim_corpus(texts):
    from gensim.corpora import Dictionary

    dictionary = Dictionary(texts)
    return dictionary, [dictionary.doc2bow(doc) for doc in texts]


def test_gensim(gensim_corpus):
    from gensim.models import LdaModel

    dictionary, bows = gensim_corpus
    model = LdaModel(bows, id2word=dictionary, num_topics=3, passes=3, random_state=0,
                     alpha="asymmetric")
    imported = adapters.from_gensim(model)
    lam = model.state.get_lambda()
    assert lam.dtype == np.float32
    check_common(imported, 3, len(dictionary), "gensim", "from_gensim")
    lam64 = lam.astype(np.float64)
    np.testing.assert_array_equal(imported.phi, lam64 / lam64.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(imported.phi, model.get_topics(), rtol=FLOAT32_RTOL)
    np.testing.assert_array_equal(imported.alpha_m, model.alpha.astype(np.float64))
    assert len(set(imported.alpha_m.tolist())) == 3  # asymmetric
    assert imported.beta == float(model.eta[0])
    assert imported.vocab.tolist() == [dictionary[i] for i in range(len(dictionary))]
    assert imported.vocab.tolist() != sorted(imported.vocab.tolist())
    expected = direct_logp(lam64 / lam64.sum(axis=1, keepdims=True), model.alpha.astype(float))
    np.testing.assert_allclose(one_token_logp(imported.phi, imported.alpha_m), expected,
                               rtol=1e-13)


def test_gensim_without_id2word_needs_the_words(gensim_corpus):
    from gensim.models import LdaModel

    dictionary, bows = gensim_corpus
    model = LdaModel(bows, num_topics=2, passes=1, random_state=0, eta="auto")
    with pytest.raises(ValueError, match="no id2word"):
        adapters.from_gensim(model)
    imported = adapters.from_gensim(model, dictionary)  # a column -> word mapping
    assert imported.vocab.tolist() == [dictionary[i] for i in range(len(dictionary))]
    # eta="auto": one eta per word, so no scalar beta; lambda keeps the eta it started with
    assert imported.beta is None and len(imported.meta["eta"]) == len(dictionary)
    assert imported.meta["lambda_eta"] != imported.meta["eta"]


def test_gensim_refuses_mismatches(gensim_corpus):
    from gensim.models import LdaModel

    dictionary, bows = gensim_corpus
    model = LdaModel(bows, id2word=dictionary, num_topics=2, passes=1, random_state=0)
    words = [dictionary[i] for i in range(len(dictionary))]
    np.testing.assert_array_equal(adapters.from_gensim(model, words).vocab, words)
    with pytest.raises(ValueError, match="disagrees with model.id2word at column 0"):
        adapters.from_gensim(model, words[::-1])
    with pytest.raises(ValueError, match="not been trained"):
        adapters.from_gensim(LdaModel(id2word=dictionary, num_topics=2))
    with pytest.raises(ValueError, match="LdaModel or LdaMulticore"):
        adapters.from_gensim(dictionary)


# --- tomotopy ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tomotopy_trained(texts):
    from topiceval.adapters.tomotopy_lda import import_tomotopy

    tp = import_tomotopy("tests")
    model = tp.LDAModel(k=3, min_cf=3, rm_top=1, alpha=0.2, eta=0.05, seed=11)
    for doc in [*texts, ["hapax", "sun0"]]:
        model.add_doc(doc)
    model.train(40, workers=1)
    return tp, model


@TOMOTOPY_IMPORT
def test_tomotopy(tomotopy_trained, texts):
    tp, model = tomotopy_trained
    imported = adapters.from_tomotopy(model)
    n_words = model.num_vocabs
    check_common(imported, 3, n_words, "tomotopy", "from_tomotopy")
    assert imported.vocab.tolist() == list(model.used_vocabs)
    reported = np.array([model.get_topic_word_dist(t) for t in range(3)])
    np.testing.assert_allclose(imported.phi, reported, rtol=FLOAT32_RTOL)
    np.testing.assert_array_equal(imported.alpha_m, np.asarray(model.alpha, dtype=np.float64))
    assert len(set(imported.alpha_m.tolist())) == 3  # optimised every 10 iterations
    assert imported.beta == model.eta == np.float32(0.05)
    # tomotopy renumbers words by frequency and drops min_cf / rm_top words
    frequency = Counter(w for doc in texts for w in doc)
    first_seen = list(dict.fromkeys(w for doc in texts for w in doc))
    assert imported.vocab.tolist() != first_seen
    assert "hapax" not in imported.vocab and model.removed_top_words[0] not in imported.vocab
    assert frequency.most_common(1)[0][0] == model.removed_top_words[0]
    # phi's columns count the right words: n_tw recovered from phi sums to each word's frequency
    per_topic = np.asarray(model.get_count_by_topics(), dtype=float)
    n_tw = imported.phi * (per_topic[:, None] + n_words * imported.beta) - imported.beta
    np.testing.assert_allclose(n_tw, np.round(n_tw), atol=1e-9)
    assert np.round(n_tw.sum(axis=0)).astype(int).tolist() == [
        frequency[w] + (w == "sun0") for w in imported.vocab]
    expected = direct_logp(reported, np.asarray(model.alpha, dtype=float))
    got = one_token_logp(imported.phi, imported.alpha_m)
    np.testing.assert_allclose(got, expected, rtol=0, atol=FLOAT32_RTOL)


@TOMOTOPY_IMPORT
def test_tomotopy_exact_from_counts_and_saved_files(tomotopy_trained, tmp_path):
    tp, model = tomotopy_trained
    imported = adapters.from_tomotopy(model)
    n_words, eta = model.num_vocabs, float(model.eta)
    counts = np.zeros((3, n_words))
    for doc in model.docs:
        keep = np.asarray(doc.topics) >= 0
        np.add.at(counts, (np.asarray(doc.topics)[keep], np.asarray(doc.words)[keep]), 1)
    own = (counts + eta) / (counts.sum(axis=1, keepdims=True) + n_words * eta)
    np.testing.assert_array_equal(imported.phi, own)
    expected = direct_logp(own, np.asarray(model.alpha, dtype=float))
    np.testing.assert_allclose(one_token_logp(imported.phi, imported.alpha_m), expected,
                               rtol=1e-13)
    model.save(str(tmp_path / "full.bin"))
    again = adapters.from_tomotopy(tp.LDAModel.load(str(tmp_path / "full.bin")))
    np.testing.assert_array_equal(again.phi, imported.phi)
    np.testing.assert_array_equal(again.vocab, imported.vocab)
    # saved without its documents: only tomotopy's float32 topics are left
    model.save(str(tmp_path / "lean.bin"), full=False)
    lean = adapters.from_tomotopy(tp.LDAModel.load(str(tmp_path / "lean.bin")))
    assert "float32" in lean.meta["phi"]
    np.testing.assert_allclose(lean.phi, imported.phi, rtol=FLOAT32_RTOL)
    np.testing.assert_array_equal(lean.vocab, imported.vocab)


@TOMOTOPY_IMPORT
def test_tomotopy_word_priors_and_term_weighting(texts):
    from topiceval.adapters.tomotopy_lda import import_tomotopy

    tp = import_tomotopy("tests")
    model = tp.LDAModel(k=2, eta=0.05, seed=3)
    for doc in texts:
        model.add_doc(doc)
    model.set_word_prior("sun0", [2.0, 0.01])
    model.train(20, workers=1)
    imported = adapters.from_tomotopy(model)
    assert imported.beta is None and list(imported.meta["word_priors"]) == ["sun0"]
    vocab = list(model.used_vocabs)
    priors = np.array([model.get_word_prior(w) for w in vocab], dtype=np.float64).T
    counts = np.zeros((2, len(vocab)))
    for doc in model.docs:
        np.add.at(counts, (np.asarray(doc.topics), np.asarray(doc.words)), 1)
    np.testing.assert_allclose(
        imported.phi, (counts + priors) / (counts + priors).sum(axis=1, keepdims=True),
        rtol=1e-15)
    weighted = tp.LDAModel(k=2, tw=tp.TermWeight.IDF, seed=3)
    for doc in texts:
        weighted.add_doc(doc)
    weighted.train(10, workers=1)
    imported = adapters.from_tomotopy(weighted)
    assert imported.meta["term_weight"] == "IDF" and "float32" in imported.meta["phi"]
    reported = np.array([weighted.get_topic_word_dist(t) for t in range(2)], dtype=np.float64)
    # its weighted float32 counts leave tomotopy's rows ~1e-6 off 1: renormalised in float64
    np.testing.assert_array_equal(imported.phi, reported / reported.sum(axis=1, keepdims=True))


@TOMOTOPY_IMPORT
def test_tomotopy_refuses_untrained_and_other_models():
    from topiceval.adapters.tomotopy_lda import import_tomotopy

    tp = import_tomotopy("tests")
    untrained = tp.LDAModel(k=2)
    untrained.add_doc(["a", "b"])
    with pytest.raises(ValueError, match="not been trained"):
        adapters.from_tomotopy(untrained)  # tomotopy itself would crash the interpreter
    with pytest.raises(ValueError, match="not a subclass"):
        adapters.from_tomotopy(tp.HDPModel())


# --- lda ---------------------------------------------------------------------------------------

def test_lda_package(sklearn_fit):
    import lda

    _, vectorizer, counts = sklearn_fit
    model = lda.LDA(n_topics=3, n_iter=30, alpha=0.3, eta=0.02, random_state=1)
    model.fit(counts)
    imported = adapters.from_lda(model, vectorizer)
    check_common(imported, 3, counts.shape[1], "lda", "from_lda")
    np.testing.assert_array_equal(imported.phi, model.topic_word_)
    np.testing.assert_array_equal(imported.alpha_m, np.full(3, 0.3))
    assert imported.beta == 0.02
    np.testing.assert_array_equal(imported.vocab, vectorizer.get_feature_names_out())
    expected = direct_logp(model.topic_word_, np.full(3, model.alpha))
    np.testing.assert_allclose(one_token_logp(imported.phi, imported.alpha_m), expected,
                               rtol=1e-13)
    del model.nzw_
    assert "topic_word_" in adapters.from_lda(model, vectorizer).meta["phi"]
    with pytest.raises(ValueError, match="not fitted"):
        adapters.from_lda(lda.LDA(n_topics=2), vectorizer)


# --- MALLET ------------------------------------------------------------------------------------

# typeindex 0..3; the source of document 1 contains spaces; types that look like numbers or NA
TINY_STATE = (
    "#doc source pos typeindex type topic\n"
    "#alpha : 0.5 0.25 \n"
    "#beta : 0.1\n"
    "0 NA 0 0 NA 0\n"
    "0 NA 1 1 007 1\n"
    "0 NA 2 0 NA 0\n"
    "1 a file name 0 2 #\"x 1\n"
    "1 a file name 1 3 caf\u00e9 0\n"
    "1 a file name 2 1 007 1\n"
)
TINY_COUNTS = np.array([[2, 0, 0, 1], [0, 2, 1, 0]], dtype=float)


def write_state(path, text: str, gz: bool = False):
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    return path


def read_plain_state(path):
    """``from_mallet`` of a plain state, with the warning that it cannot be checked whole."""
    with pytest.warns(adapters.CutShortWarning, match="plain .* cannot be checked .* gzipped"):
        return adapters.from_mallet(path)


@pytest.mark.parametrize("gz", [False, True])
def test_mallet_tiny_state(tmp_path, gz):
    path = write_state(tmp_path / "state", TINY_STATE, gz)
    model = adapters.from_mallet(path) if gz else read_plain_state(path)
    check_common(model, 2, 4, "MALLET", "from_mallet")
    assert model.vocab.tolist() == ["NA", "007", '#"x', "caf\u00e9"]
    phi = (TINY_COUNTS + 0.1) / (TINY_COUNTS.sum(axis=1, keepdims=True) + 4 * 0.1)
    np.testing.assert_array_equal(model.phi, phi)
    np.testing.assert_array_equal(model.alpha_m, [0.5, 0.25])
    assert model.beta == 0.1 and model.meta["tokens"] == 6
    assert model.meta["source"] == str(tmp_path / "state")


def test_mallet_small_blocks_give_the_same_model(tmp_path, monkeypatch):
    path = write_state(tmp_path / "state.txt", TINY_STATE.replace("\n", "\r\n"))
    whole = read_plain_state(path)
    monkeypatch.setattr(mallet, "BLOCK_BYTES", 7)
    pieces = read_plain_state(path)
    np.testing.assert_array_equal(pieces.phi, whole.phi)
    np.testing.assert_array_equal(pieces.vocab, whole.vocab)
    bad = TINY_STATE.replace("1 a file name 2 1 007 1", "1 a file name 2 1 008 1")
    with pytest.raises(ValueError, match=r"line 9: typeindex 1 is spelled b'008' here but "
                                         r"b'007' on line 5"):
        adapters.from_mallet(write_state(tmp_path / "bad.txt", bad))


@pytest.mark.parametrize("old, new, message", [
    ("#doc source pos typeindex type topic\n", "", r"line 1: not a MALLET state file"),
    ("#alpha : 0.5 0.25 \n", "#alpha : 0.5 x\n", r"line 2: expected '#alpha :'"),
    ("#beta : 0.1\n", "#beta : 0.1 0.2\n", r"line 3: expected one beta"),
    ("0 NA 1 1 007 1\n", "0 NA 1 1 007\n", r"line 5: expected 6 space-separated fields .* "
                                           r"found 5"),
    ("0 NA 1 1 007 1\n", "0 NA 1 1 007 2\n", r"line 5: topic 2 is outside 0..1"),
    ("0 NA 1 1 007 1\n", "0 NA 1 x 007 1\n", r"line 5: the typeindex field is not"),
    ("0 NA 2 0 NA 0\n", "0 NA 2 0 NB 0\n", r"line 6: typeindex 0 is spelled b'NB' here but "
                                           r"b'NA' on line 4"),
    ("1 a file name 0 2 #", "1 a file name 0 5 #", r"typeindex 2 never occurs"),
    ("0 NA 1 1 007 1\n", "0 NA x 1 007 1\n", r"line 5: the pos field is not"),
    ("0 NA 0 0 NA 0\n", "0 NA 0 0  0\n", r"line 4: the type field is empty"),
])
def test_mallet_damaged_state(tmp_path, old, new, message):
    assert old in TINY_STATE
    path = write_state(tmp_path / "state", TINY_STATE.replace(old, new, 1))
    with pytest.raises(ValueError, match=message) as info:
        adapters.from_mallet(path)
    assert str(path) in str(info.value)


def test_mallet_truncated_gzip_and_empty_state(tmp_path):
    data = gzip.compress(TINY_STATE.encode(), mtime=0)
    (tmp_path / "cut.gz").write_bytes(data[:-12])
    with pytest.raises(ValueError, match="damaged gzip data"):
        adapters.from_mallet(tmp_path / "cut.gz")
    header = "".join(TINY_STATE.splitlines(keepends=True)[:3])
    with pytest.raises(ValueError, match="lists no tokens"):
        adapters.from_mallet(write_state(tmp_path / "empty", header))


def test_mallet_state_cut_at_a_line_end_is_not_read_without_a_word(tmp_path):
    """Issue 46: a plain state cut at a line end reads as a smaller model.  A gzipped file cut
    short is refused (its trailer: the test above); a plain one warns that it cannot be checked
    and names the file that can, and a state with a topic of the #alpha line without a token
    says that it may be cut short."""
    lines = TINY_STATE.splitlines(keepends=True)
    model = read_plain_state(write_state(tmp_path / "cut", "".join(lines[:-2])))
    assert model.meta["tokens"] == 4
    no_topic_1 = "".join(line if line.startswith("#") else line.removesuffix(" 1\n") + " 0\n"
                         if line.endswith(" 1\n") else line for line in lines)
    with pytest.warns(adapters.CutShortWarning) as caught:
        adapters.from_mallet(write_state(tmp_path / "topic", no_topic_1, gz=True))
    assert [str(w.message) for w in caught] == [
        f"{tmp_path / 'topic'}: topic 1 of the 2 of the #alpha line has no token: the state "
        "may be cut short"]


def tiny_weights(counts=TINY_COUNTS, beta=0.1) -> str:
    words = ["NA", "007", '#"x', "caf\u00e9"]
    return "".join(f"{t}\t{w}\t{float(counts[t, v] + beta)!r}\n" for t in range(counts.shape[0])
                   for v, w in enumerate(words))


def test_mallet_weights_tiny(tmp_path):
    path = tmp_path / "weights.txt"
    path.write_text(tiny_weights(), encoding="utf-8")
    state = adapters.from_mallet(write_state(tmp_path / "state", TINY_STATE, gz=True))
    model = adapters.from_mallet_weights(path, [0.5, 0.25])
    check_common(model, 2, 4, "MALLET", "from_mallet_weights")
    np.testing.assert_array_equal(model.vocab, state.vocab)
    np.testing.assert_allclose(model.phi, state.phi, rtol=1e-15)
    assert model.beta is None
    np.testing.assert_array_equal(adapters.from_mallet_weights(path, 0.3).alpha_m, [0.3, 0.3])
    with pytest.raises(ValueError, match=r"one per topic \(2\)"):
        adapters.from_mallet_weights(path, [0.1, 0.2, 0.3])


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace("1\t007\t", "1\t#\"x\t", 1), r"line 7: topic 1 lists the word '#\"x' "
                                                        r"a second time"),
    (lambda s: s.rsplit("\n", 2)[0] + "\n", r"topic 1 has no weight for the word 'caf\u00e9'"),
    (lambda s: s.replace("0\t007\t0.1", "0\t007\t-0.1"), r"line 2: .* positive weight"),
    (lambda s: s.replace("0\t007\t0.1", "0\t007"), r"line 2: .* positive weight"),
    (lambda s: s.replace("0\t007\t0.1", "x\t007\t0.1"), r"line 2: .* integer topic"),
    (lambda s: s.replace("0\t007\t0.1", "0\t007\t0.1\textra"), r"not a MALLET topic-word"),
])
def test_mallet_weights_damaged(tmp_path, edit, message):
    path = tmp_path / "weights.txt"
    path.write_text(edit(tiny_weights()), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        adapters.from_mallet_weights(path, 0.1)


@pytest.fixture(scope="module")
def mallet_ap():
    if not (MALLET_AP / "state.gz").is_file():
        pytest.skip(f"MALLET fixture not found at {MALLET_AP} (set TOPICEVAL_DATA_MIRROR)")
    return adapters.from_mallet(MALLET_AP / "state.gz")


def test_mallet_fixture_reproduces_mallets_own_probabilities(mallet_ap):
    model = mallet_ap
    assert model.phi.shape == (8, 7908)
    expected = np.loadtxt(MALLET_AP / "onetoken-docprobs.txt")
    lines = (MALLET_AP / "onetoken.txt").read_text(encoding="utf-8").splitlines()
    words = [line.split("\t")[2] for line in lines]
    assert len(words) == expected.size == 41
    column = {w: i for i, w in enumerate(model.vocab.tolist())}
    known = [w for w in words if w in column]
    assert known == words[:-1]  # the last word is not in the training vocabulary ...
    assert words[-1] not in column and expected[-1] == 0.0  # ... and MALLET reports 0.0
    logp = estimators.estimate("exact", [np.array([column[w]]) for w in known], model.phi,
                               model.alpha_m)
    np.testing.assert_allclose(logp, expected[:-1], rtol=0, atol=1e-12)
    phi_direct = model.phi[:, [column[w] for w in known]]
    np.testing.assert_allclose(direct_logp(phi_direct, model.alpha_m), expected[:-1], rtol=0,
                               atol=1e-12)


def test_mallet_fixture_weights_file_gives_the_same_phi(mallet_ap):
    weights = adapters.from_mallet_weights(MALLET_AP / "topic-word-weights.txt",
                                           mallet_ap.alpha_m)
    np.testing.assert_array_equal(weights.vocab, mallet_ap.vocab)
    np.testing.assert_allclose(weights.phi, mallet_ap.phi, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(weights.alpha_m, mallet_ap.alpha_m)


# --- shared behaviour --------------------------------------------------------------------------

def test_missing_library_names_the_package_and_the_extra(monkeypatch, sklearn_fit):
    import importlib

    from topiceval.adapters import _common

    real = importlib.import_module

    def without_gensim(name, *args):
        if name.split(".")[0] == "gensim":
            raise ModuleNotFoundError(f"No module named {name!r}", name="gensim")
        return real(name, *args)

    monkeypatch.setattr(_common.importlib, "import_module", without_gensim)
    hint = r"'gensim' package.*pip install gensim \(or pip install -e \"\.\[adapters\]\" in a clone"
    with pytest.raises(ImportError, match=hint):
        adapters.from_gensim(object())


def test_importing_topiceval_imports_no_peer_library():
    code = ("import sys, topiceval.adapters, topiceval.cli; topiceval.cli.build_parser(); "
            "print(sorted({'gensim', 'tomotopy', 'lda'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"

