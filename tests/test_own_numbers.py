"""``topiceval.adapters.own_number``: each library's own number, checked against the library.

Every test trains a small model with the library itself (fixed seeds, a tiny corpus of word
strings) and checks that ``own_number`` gives exactly the library's value, on exactly the tokens
the library counts, labelled with what it is.  MALLET (which does not run here) is checked on
the staged fixture: for one-token documents left-to-right is exact, so the own number equals
MALLET's evaluator output to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest

from data_fixtures import SHARED_MIRROR, three_topic_texts
from topiceval.adapters import own_number
from topiceval.adapters.own_numbers import KINDS
from topiceval.corpus import Corpus
from topiceval.seeds import legacy_state
from topiceval.training.lda import fit_gibbs, fit_vem, fold_in, plugin_log_likelihood, vem_fold_in

TOMOTOPY_IMPORT = pytest.mark.filterwarnings(
    "ignore:builtin type _VocabDict has no __module__ attribute:DeprecationWarning")
MALLET_AP = SHARED_MIRROR / "mallet-ap"


@pytest.fixture(scope="module")
def texts() -> list[list[str]]:
    """60 documents from three topics over 24 words (the last 10 are held out), plus a word
    of the held-out documents no model was trained on."""
    docs = three_topic_texts(11)
    docs[-1].append("unseen")
    return docs


def check_labels(own, library, kind, split):
    assert own.library == library and own.kind == kind and own.kind in KINDS
    assert own.split == split
    assert np.isclose(own.nats_per_token, own.total / own.tokens)
    assert np.isclose(own.perplexity, np.exp(-own.total / own.tokens))
    row = own.as_row()
    assert row["own_kind"] == kind and row["own_tokens"] == own.tokens


def test_sklearn_score_and_perplexity(texts):
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(analyzer=lambda doc: doc)
    x = vec.fit_transform(texts[:50])
    est = LatentDirichletAllocation(n_components=3, max_iter=8, random_state=0).fit(x)
    x_test = vec.transform(texts[50:])
    own = own_number(est, texts[50:], vocabulary=vec)
    check_labels(own, "scikit-learn", "variational bound", "held-out")
    assert own.tokens == int(x_test.sum()) == sum(map(len, texts[50:])) - 1
    assert own.total == pytest.approx(est.score(x_test), rel=1e-12)
    assert own.value == pytest.approx(est.perplexity(x_test), rel=1e-10)
    with pytest.raises(ValueError, match="pass vocabulary="):
        own_number(est, texts[50:])


def test_gensim_bound_in_nats_and_the_logged_power_of_two(texts):
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    dictionary = Dictionary(texts[:50])
    model = LdaModel([dictionary.doc2bow(d) for d in texts[:50]], id2word=dictionary,
                     num_topics=3, passes=5, random_state=0, eval_every=None)
    bow = [dictionary.doc2bow(d) for d in texts[50:]]
    own = own_number(model, texts[50:], seed=3)
    model.random_state = legacy_state(3, "own_number", "gensim")
    expected = model.log_perplexity(bow)
    check_labels(own, "gensim", "variational bound", "held-out")
    assert own.value == pytest.approx(expected, rel=1e-12)
    assert own.tokens == sum(c for d in bow for _, c in d)
    assert own.total == pytest.approx(expected * own.tokens, rel=1e-12)
    assert f"{np.exp2(-expected):,.1f}" in own.note  # what gensim logs as "perplexity"
    assert own_number(model, texts[50:], seed=3).value == own.value  # seeded, repeatable


@TOMOTOPY_IMPORT
def test_tomotopy_counts_only_the_words_infer_scores(texts):
    import tomotopy as tp

    mdl = tp.LDAModel(k=3, seed=1, min_cf=8, rm_top=1)  # pruned: rare words, the top one
    for d in texts[:50]:
        mdl.add_doc(d)
    mdl.train(50, workers=1)
    own = own_number(mdl, texts[50:])
    docs = [mdl.make_doc(d) for d in texts[50:]]
    _, lls = mdl.infer(docs, iterations=100, workers=1)
    used = sum(int(np.sum(np.asarray(d.words) < mdl.num_vocabs)) for d in docs)
    listed = sum(len(d.words) for d in docs)
    check_labels(own, "tomotopy", "one-sample joint", "held-out")
    assert listed > used == own.tokens  # doc.words keeps the pruned words
    assert own.total == pytest.approx(float(np.sum(lls)), rel=1e-6)
    assert f"{own.total / listed:.4f}" in own.note  # the trap, named with its value


def test_lda_training_joint(texts):
    import lda
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(analyzer=lambda doc: doc)
    x = vec.fit_transform(texts[:50]).astype(np.int64)
    model = lda.LDA(n_topics=3, n_iter=30, random_state=0, refresh=1000).fit(x)
    own = own_number(model, texts[50:], vocabulary=vec)
    check_labels(own, "lda", "training joint", "training")
    assert own.total == model.loglikelihood() and own.tokens == int(x.sum())


def test_topiceval_gibbs_plug_in_and_vem_bound(texts):
    train = Corpus.from_tokens(texts[:50], sorted({w for d in texts[:50] for w in d}),
                               split="train")
    test = Corpus.from_tokens(texts[50:], train)
    fit = fit_gibbs(train, 3, sweeps=30, seed=0)
    own = own_number(fit, texts[50:], seed=5, sweeps=20)
    theta = fold_in(fit, test, method="query", sweeps=20, seed=5).theta
    check_labels(own, "topiceval", "plug-in", "held-out")
    assert own.total == pytest.approx(plugin_log_likelihood(test, theta, fit.model.phi).sum())
    assert own.tokens == test.n_tokens
    vem = fit_vem(train, 3, max_iter=20, seed=0)
    own = own_number(vem, test)  # a Corpus works as well as word lists
    check_labels(own, "topiceval", "variational bound", "held-out")
    assert own.total == pytest.approx(vem_fold_in(vem.model, test).doc_elbo.sum())


@pytest.mark.skipif(not MALLET_AP.is_dir(), reason="no staged MALLET fixture")
def test_mallet_one_token_documents_equal_mallets_evaluator():
    docs = [line.split("\t")[2].split() for line in
            (MALLET_AP / "onetoken.txt").read_text().splitlines() if line.strip()]
    theirs = np.array([float(v) for v in (MALLET_AP / "onetoken-docprobs.txt").read_text()
                      .split()])
    own = own_number(MALLET_AP / "state.gz", docs)
    check_labels(own, "MALLET", "left-to-right as MALLET", "held-out")
    assert own.tokens == len(docs) - 1  # the last word is not in MALLET's alphabet
    assert own.total == pytest.approx(theirs.sum(), abs=1e-10)  # MALLET reports 0 for it


@pytest.mark.parametrize("model, kwargs, message", [
    (object(), {}, "no own number known for a builtins.object"),
    ("/nonexistent/state.gz", {}, "No such file"),
    (None, {"colour": 1}, "unknown setting"),
])
def test_bad_inputs(texts, model, kwargs, message):
    if model is None:
        model = fit_vem(Corpus.from_tokens(texts[:50], sorted({w for d in texts for w in d})),
                        2, max_iter=2)
    with pytest.raises((ValueError, OSError), match=message):
        own_number(model, texts[50:], **kwargs)


def test_documents_must_be_words(texts):
    with pytest.raises(ValueError, match=r"documents\[0\] holds something other than word"):
        own_number(object(), [[1, 2, 3]])
