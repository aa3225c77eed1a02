"""LogisticNormalModel: validation (one-line errors), persistence, the batch-norm fold, and
documents matched to it by word."""

import numpy as np
import pytest
from scipy.special import log_softmax

from topiceval.corpus import Corpus
from topiceval.documents import as_model_corpus
from topiceval.limits import WorkLimitError
from topiceval.logistic_normal import LogisticNormalModel, fold_batch_norm
from topiceval.logistic_normal.ais import ais
from topiceval.logistic_normal.is_prior import is_prior
from topiceval.logistic_normal.likelihood import document_decoder
from topiceval.models import ModelError, load_model, save_model

BETA = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
MU = np.array([0.2, -0.1])
FULL = np.array([[1.0, 0.3], [0.3, 0.5]])


@pytest.mark.parametrize("sigma", [np.array([1.0, 0.5]), FULL])
@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_round_trip(tmp_path, sigma, decoder):
    bias = np.array([0.1, -2.0, 0.3]) if decoder == "product" else None
    model = LogisticNormalModel(MU, sigma, BETA, decoder, bias, vocab=["a", "b", "c"],
                                meta={"importer": "x"})
    save_model(tmp_path / "m.npz", model)
    back = load_model(tmp_path / "m.npz")
    assert isinstance(back, LogisticNormalModel) and back.decoder == decoder
    for name in ("mu", "sigma", "beta", "bias"):
        np.testing.assert_array_equal(getattr(back, name), getattr(model, name))
    assert back.vocab.tolist() == ["a", "b", "c"] and back.meta == {"importer": "x"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sigma": np.array([[1.0, 2.0], [2.0, 1.0]])}, r"sigma is not positive definite"),
        ({"sigma": np.array([[1.0, 0.2], [0.3, 1.0]])}, r"sigma must be symmetric"),
        ({"sigma": np.array([1.0, 0.0])}, r"sigma \(the diagonal of Sigma\) must be positive"),
        ({"sigma": np.ones(3)}, r"sigma must have shape \(K,\) or \(K, K\) with K = 2"),
        ({"mu": np.array([0.0, np.nan])}, r"mu contains NaN"),
        ({"beta": BETA * 1.1}, r"beta rows must sum to 1; row 0 sums to 1.1"),
        ({"beta": np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])},
         r"word column 2 has probability 0 under every topic"),
        ({"beta": BETA[:1]}, r"beta must be a \(K, V\) matrix with K = 2 rows"),
        ({"decoder": "softmax"}, r"decoder must be 'mixture' or 'product'"),
        ({"bias": np.zeros(3)}, r"bias belongs to the product decoder"),
        ({"decoder": "product", "bias": np.zeros(2)}, r"bias must have shape \(V,\) = \(3,\)"),
        ({"vocab": ["a", "b"]}, r"vocab has shape \(2,\), expected \(3,\)"),
    ],
)
def test_bad_parameters_are_named_in_one_line(kwargs, message):
    params = {"mu": MU, "sigma": FULL, "beta": BETA, **kwargs}
    with pytest.raises(ValueError, match=message) as info:
        LogisticNormalModel(**params)
    assert "\n" not in str(info.value)


def test_a_damaged_file_names_the_file(tmp_path):
    path = tmp_path / "m.npz"
    save_model(path, LogisticNormalModel(MU, FULL, BETA))
    with np.load(path) as data:
        arrays = dict(data)
    arrays["sigma"] = np.array([[1.0, 2.0], [2.0, 1.0]])
    np.savez(path, **arrays)
    with pytest.raises(ModelError, match=r"m\.npz: sigma is not positive definite"):
        load_model(path)


def test_batch_norm_fold_equals_the_decoder_in_evaluation_mode():
    rng = np.random.default_rng(0)
    weight, bias = rng.normal(size=(3, 5)), rng.normal(size=5)
    mean, var = rng.normal(size=5), rng.uniform(0.2, 2, 5)
    scale, shift = rng.uniform(0.5, 1.5, 5), rng.normal(size=5)
    b_fold, c_fold = fold_batch_norm(weight, bias, mean, var, scale, shift, eps=1e-3)
    theta = rng.dirichlet(np.ones(3), size=4)
    eta = theta @ weight + bias
    direct = log_softmax(scale * (eta - mean) / np.sqrt(var + 1e-3) + shift, axis=1)
    np.testing.assert_allclose(log_softmax(theta @ b_fold + c_fold, axis=1), direct, rtol=1e-12)
    with pytest.raises(ValueError, match=r"running_var must have shape \(V,\) = \(5,\)"):
        fold_batch_norm(weight, bias, mean, var[:4])


def test_documents_are_matched_by_word_not_by_position():
    model = LogisticNormalModel(MU, FULL, BETA, vocab=["cat", "dog", "eel"])
    corpus = as_model_corpus(model, [["eel", "cat", "cat", "yak"]])
    assert sorted(corpus[0].tolist()) == [0, 0, 2]
    dec = document_decoder(model, corpus[0])
    assert dec.words.tolist() == [0, 2] and dec.counts.tolist() == [2.0, 1.0]
    reordered = Corpus.from_tokens([["eel", "cat", "cat"]], ["eel", "cat", "dog"])
    again = as_model_corpus(model, reordered)
    assert sorted(again[0].tolist()) == [0, 0, 2]


@pytest.mark.parametrize(
    ("ids", "samples", "message"),
    [
        (np.array([0, 3]), 10, r"token ids must lie in \[0, 3\)"),
        (np.array([0.5]), 10, r"a document must be a 1-D sequence of token ids"),
        (np.array([0, 1]), 0, r"samples must be an integer >= 1, got 0"),
    ],
)
def test_bad_estimator_inputs_are_named(ids, samples, message):
    with pytest.raises(ValueError, match=message):
        is_prior(LogisticNormalModel(MU, FULL, BETA), ids, samples=samples)


@pytest.mark.parametrize("estimator", ["is_prior", "ais"])
def test_a_call_too_large_for_memory_is_refused_before_allocating(estimator):
    model = LogisticNormalModel(MU, FULL, BETA)
    call = {"is_prior": lambda: is_prior(model, np.array([0, 1]), samples=10**14),
            "ais": lambda: ais(model, np.array([0, 1]), runs=10**14)}[estimator]
    with pytest.raises(WorkLimitError, match=r"the call's arrays would need [\d,.]+ GiB") as info:
        call()
    assert "\n" not in str(info.value)
