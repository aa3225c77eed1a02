"""fit_gibbs: recovery of true topics, determinism, schedule, saved states, validation."""

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from topiceval.corpus import Corpus
from topiceval.models import LDAModel, load_model, save_model
from topiceval.training.lda.gibbs import fit_gibbs
from topiceval.training.lda.synthetic import synthetic_corpus

TRUE_ALPHA = np.array([0.1, 0.2, 0.3, 0.4])
RECOVERY_TV = 0.12  # max total variation between a true topic and its matched estimate


@pytest.fixture(scope="module")
def truth():
    g = np.random.default_rng(0)
    phi = g.dirichlet(np.full(40, 0.2), size=4)
    phi = np.maximum(phi, 1e-6)
    phi /= phi.sum(axis=1, keepdims=True)
    model = LDAModel(phi, TRUE_ALPHA)
    return model, synthetic_corpus(model, 300, 60, seed=1)


def matched_tv(phi_hat, phi):
    tv = 0.5 * np.abs(phi_hat[:, None, :] - phi[None, :, :]).sum(axis=-1)
    rows, cols = linear_sum_assignment(tv)
    return tv[rows, cols], cols


def test_recovers_true_topics_without_optimisation(truth):
    model, corpus = truth
    result = fit_gibbs(corpus, 4, sweeps=300, alpha_m=0.25, beta=0.01, seed=3)
    tv, _ = matched_tv(result.model.phi, model.phi)
    assert tv.max() < RECOVERY_TV
    assert result.log_joint["log_joint"].iloc[-1] > result.log_joint["log_joint"].iloc[0]


def test_recovers_true_topics_and_alpha_with_optimisation(truth):
    model, corpus = truth
    opt = {"burnin": 50, "interval": 10, "form": "mallet2009"}
    result = fit_gibbs(corpus, 4, sweeps=300, alpha_m=0.25, beta=0.01, optimize=opt, seed=4)
    tv, cols = matched_tv(result.model.phi, model.phi)
    assert tv.max() < RECOVERY_TV
    alpha_hat = result.model.alpha_m[np.argsort(cols)]
    # the two small true αm stay below the two large ones; α is over-estimated from sampled z
    # (true-z MLE 1.15, Gibbs 1.2-1.35 over seeds), so only a loose range for Σαm
    assert alpha_hat[:2].max() < alpha_hat[2:].min()
    assert 0.8 < alpha_hat.sum() < 1.6
    # β moves from 0.01 towards the generating Dir(0.2)
    assert 0.1 < result.model.beta < 0.4
    # schedule: after sweep s > burnin with s % interval == 0
    np.testing.assert_array_equal(result.hyper_trace["sweep"], [0, *range(60, 301, 10)])
    assert result.alpha_history.shape == (len(result.hyper_trace), 4)


def test_same_seed_and_threads_give_identical_models(truth):
    _, corpus = truth
    a = fit_gibbs(corpus, 4, sweeps=15, threads=2, seed=5)
    b = fit_gibbs(corpus, 4, sweeps=15, threads=2, seed=5)
    c = fit_gibbs(corpus, 4, sweeps=15, threads=2, seed=6)
    np.testing.assert_array_equal(a.model.phi, b.model.phi)
    np.testing.assert_array_equal(a.z, b.z)
    assert not np.array_equal(a.z, c.z)


def test_state_and_estimates_are_consistent(truth):
    _, corpus = truth
    r = fit_gibbs(corpus, 4, sweeps=12, record_every=5, seed=1)
    assert list(r.log_joint["sweep"]) == [0, 5, 10, 12]
    assert r.doc_topic.sum() == r.word_topic.sum() == r.topic_counts.sum() == corpus.n_tokens
    np.testing.assert_array_equal(r.doc_topic.sum(axis=1), corpus.lengths)
    np.testing.assert_array_equal(np.bincount(r.z, minlength=4), r.topic_counts)
    expected_phi = (r.word_topic + 0.01) / (r.topic_counts[:, None] + 40 * 0.01)
    np.testing.assert_allclose(r.model.phi, expected_phi, rtol=1e-12)
    expected_theta = (r.doc_topic + 12.5) / (corpus.lengths[:, None] + 50.0)
    np.testing.assert_allclose(r.theta, expected_theta, rtol=1e-12)
    meta = r.model.meta
    assert meta["trainer"] == "gibbs" and meta["T"] == 4 and meta["sweeps"] == 12
    assert meta["corpus_checksum"] == corpus.checksum() and meta["threads"] == 1
    assert meta["alpha_m_init"] == [12.5] * 4 and meta["beta_init"] == 0.01


def test_saved_states_average(truth, tmp_path):
    _, corpus = truth
    single = fit_gibbs(corpus, 4, sweeps=30, seed=2, save_states={"start": 30, "lag": 10})
    final = fit_gibbs(corpus, 4, sweeps=30, seed=2)
    np.testing.assert_allclose(single.model.phi, final.model.phi, rtol=1e-12)
    averaged = fit_gibbs(corpus, 4, sweeps=30, seed=2, save_states={"start": 10, "lag": 10})
    assert averaged.model.meta["saved_states"] == 3
    assert not np.allclose(averaged.model.phi, final.model.phi)
    np.testing.assert_allclose(averaged.theta.sum(axis=1), 1.0)
    path = tmp_path / "model.npz"
    save_model(path, averaged.model)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.phi, averaged.model.phi)
    assert loaded.meta["saved_states"] == 3 and list(loaded.vocab) == list(corpus.vocab)


def test_plain_documents_and_empty_documents():
    docs = [[0, 1, 2, 1], [], [2, 2, 3]]
    r = fit_gibbs(docs, 2, sweeps=3, V=6, alpha_m=[0.5, 1.0])
    assert r.model.phi.shape == (2, 6) and r.model.meta["corpus_checksum"] is None
    np.testing.assert_allclose(r.theta[1], [1 / 3, 2 / 3])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_topics": 0}, "n_topics"),
        ({"beta": -1.0}, "beta"),
        ({"alpha_m": [1.0, 2.0]}, "alpha_m must be a scalar or have shape"),
        ({"alpha_m": 0.0}, "strictly positive"),
        ({"optimize": {"burn": 3}}, "unknown optimize setting"),
        ({"optimize": {"form": "newton"}}, "unknown optimisation form"),
        ({"optimize": {"alpha": "full"}}, "optimize alpha"),
        ({"save_states": {"start": 1, "lag": 2}}, "lag"),
        ({"save_states": {"start": 99}}, "after the last sweep"),
        ({"threads": 0}, "threads"),
        ({"seed": -1}, "seed"),
        ({"sweeps": 1.5}, "sweeps"),
        ({"V": 2}, "outside the vocabulary"),
    ],
)
def test_bad_inputs_raise_value_error(kwargs, message):
    args = {"n_topics": 3, "sweeps": 2}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        fit_gibbs([[0, 1, 2], [3, 4]], **args)


def test_corpus_level_errors():
    corpus = Corpus.from_documents([[0, 1], [1]], ["a", "b"])
    with pytest.raises(ValueError, match="does not match the corpus vocabulary"):
        fit_gibbs(corpus, 2, V=5)
    with pytest.raises(ValueError, match="no tokens"):
        fit_gibbs([[], []], 2, V=3)


def test_symmetric_alpha_and_fixed_beta_schedule(truth):
    _, corpus = truth
    opt = {"burnin": 5, "interval": 5, "form": "minka", "alpha": "symmetric", "beta": False}
    r = fit_gibbs(corpus, 4, sweeps=20, alpha_m=0.25, optimize=opt, seed=1)
    assert np.all(r.model.alpha_m == r.model.alpha_m[0]) and r.model.alpha_m[0] != 0.25
    assert r.model.beta == 0.01 and list(r.hyper_trace["sweep"]) == [0, 10, 15, 20]
