"""Importing pyro's ProdLDA, the Embedded Topic Model, scholar and OCTIS: files written by the
libraries themselves (scholar's reproduced: it is not on the package index), made by
tests/data/logistic_normal/make_neural_files.py; read without torch and without running anything
the files name."""

import json
import pickle
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import topiceval
from test_logistic_normal_import import _write_archive
from topiceval.logistic_normal.importers import (
    from_ctm,
    from_etm,
    from_octis,
    from_pyro_prodlda,
    from_scholar,
)
from topiceval.logistic_normal.importers_numpy import scholar_prior
from topiceval.logistic_normal.simulate import word_probabilities

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "logistic_normal"
VOCAB = ["apple", "bread", "cheese", "dog", "egg", "fish", "grape", "honey", "ink", "jam",
         "kale", "lime"]

CASES = [  # (importer, file, check file, decoder)
    (from_pyro_prodlda, "pyro_prodlda.pth", "pyro_prodlda", "product"),
    (from_pyro_prodlda, "pyro_prodlda_v1.pth", "pyro_prodlda_v1", "product"),
    (from_etm, "etm_model.pth", "etm_model", "mixture"),
    (from_etm, "etm_fixed.pth", "etm_fixed", "mixture"),
    (from_etm, "etm_state.pth", "etm_model", "mixture"),
    (from_scholar, "scholar", "scholar", "product"),
    (from_ctm, "octis_prodlda_network.pth", "octis_prodlda_network", "product"),
]


@pytest.mark.parametrize("importer,name,check,decoder", CASES)
def test_the_imported_decoder_is_the_librarys(importer, name, check, decoder):
    """p(w | theta) of the imported model equals the library's own evaluation-mode decoder
    (float32 arithmetic there: 1e-5)."""
    model = importer(DATA / name, vocab=None if importer is from_scholar else VOCAB)
    expected = np.load(DATA / f"{check}_check.npz")
    assert model.decoder == decoder and model.n_topics == 3
    assert list(model.vocab) == list(expected["vocab"])
    for theta, word_dist in zip(expected["theta"], expected["word_dist"], strict=True):
        np.testing.assert_allclose(word_probabilities(model, theta), word_dist, rtol=1e-5)


@pytest.mark.parametrize("importer,name", [(from_pyro_prodlda, "pyro_prodlda.pth"),
                                           (from_etm, "etm_model.pth")])
def test_pyro_and_etm_put_a_standard_normal_on_the_logits(importer, name):
    model = importer(DATA / name)
    assert model.vocab is None
    np.testing.assert_array_equal(model.mu, np.zeros(3))
    np.testing.assert_array_equal(model.sigma, np.ones(3))


def test_scholars_prior_is_the_laplace_approximation_to_its_dirichlet():
    """Symmetric alpha: mu = 0 and sigma^2 = (1 - 1/K) / alpha (Srivastava and Sutton's form);
    the model reads alpha from the caller, as scholar does not save it."""
    for alpha, n_topics in ((1.0, 3), (0.1, 50), (2.5, 7)):
        mu, var = scholar_prior(alpha, n_topics)
        np.testing.assert_allclose(mu, 0.0, atol=1e-15)
        np.testing.assert_allclose(var, (1 - 1 / n_topics) / alpha, rtol=1e-12)
    mu, _ = scholar_prior([1.0, 2.0, 4.0], 3)
    np.testing.assert_allclose(mu, np.log([1.0, 2.0, 4.0]) - np.log(2.0), rtol=1e-12)
    model = from_scholar(DATA / "scholar" / "beta.npz", alpha=0.5)
    np.testing.assert_allclose(model.sigma, (2 / 3) / 0.5)
    with pytest.raises(ValueError, match="alpha must be a positive number"):
        from_scholar(DATA / "scholar", alpha=[1.0, -1.0, 1.0])


def test_imported_models_are_scored_by_word():
    docs = [["apple", "fish", "fish", "zebra"], ["kale", "lime"]]
    for model in (from_etm(DATA / "etm_model.pth", vocab=VOCAB), from_scholar(DATA / "scholar"),
                  from_pyro_prodlda(DATA / "pyro_prodlda.pth", vocab=VOCAB)):
        result = topiceval.evaluate(model, docs, progress=False)
        assert result.dropped.tolist() == [1, 0] and result.trusted.all()


def test_a_fixed_embedding_state_dict_is_refused_with_what_to_save(tmp_path):
    path = tmp_path / "state.pth"
    _write_archive(path, pickle.dumps({"alphas.weight": [[1.0, 2.0]]}))
    with pytest.raises(ValueError, match=r"lacks the word embeddings rho .*torch.save\(model"):
        from_etm(path)


def test_a_pyro_param_store_is_refused_with_what_to_save(tmp_path):
    path = tmp_path / "params.pth"
    _write_archive(path, pickle.dumps({"params": {"decoder$$$beta.weight": 1.0},
                                       "constraints": {}}))
    with pytest.raises(ValueError, match=r"parameter store.*prodLDA.state_dict\(\)"):
        from_pyro_prodlda(path)


def test_missing_arrays_are_named_in_one_line(tmp_path):
    path = tmp_path / "partial.pth"
    _write_archive(path, pickle.dumps({"decoder.beta.weight": 1.0}))
    with pytest.raises(ValueError, match="lacks decoder.bn.running_mean, "
                                         "decoder.bn.running_var") as err:
        from_pyro_prodlda(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ValueError, match="not an ETM model: it lacks rho, alphas.weight"):
        from_etm(path)


def test_a_vocabulary_of_the_wrong_length_names_the_file():
    with pytest.raises(ValueError, match="etm_model.pth: ") as err:
        from_etm(DATA / "etm_model.pth", vocab=VOCAB[:5])
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("importer", [from_etm, from_pyro_prodlda])
def test_reading_runs_nothing_the_file_names(tmp_path, importer):
    """A file whose pickle calls os.system, as a whole module would be unpickled: the reader
    makes it an inert object, which holds none of the arrays."""
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pth"
    _write_archive(path, pickle.dumps(_payload(marker)))
    with pytest.raises(ValueError, match="lacks"):
        importer(path)
    assert not marker.exists()


def test_scholar_files_are_never_unpickled(tmp_path):
    """An object array in beta.npz (which np.load would unpickle) is refused, unrun."""
    marker = tmp_path / "ran"
    folder = _scholar_copy(tmp_path)
    np.savez(folder / "beta.npz", beta=np.array([_payload(marker)], dtype=object))
    with pytest.raises(ValueError, match="holds Python objects"):
        from_scholar(folder)
    assert not marker.exists()


def test_scholar_folders_that_cannot_be_scored_are_named(tmp_path):
    folder = _scholar_copy(tmp_path)
    with pytest.raises(ValueError, match="differs from vocab; leave vocab out"):
        from_scholar(folder, vocab=VOCAB[::-1])
    (folder / "vocab.json").unlink()
    assert from_scholar(folder).vocab is None
    assert from_scholar(folder, vocab=VOCAB).vocab[0] == "apple"
    np.savez(folder / "beta_c.npz", beta=np.zeros((1, 12)))
    with pytest.raises(ValueError, match=r"with covariates \(beta_c.npz\)"):
        from_scholar(folder)
    (folder / "beta_c.npz").unlink()
    (folder / "bg.npz").unlink()
    with pytest.raises(ValueError, match="not a scholar output folder: it lacks bg.npz"):
        from_scholar(folder)
    with pytest.raises(ValueError, match="not a folder"):
        from_scholar(tmp_path / "nowhere")
    (folder / "vocab.json").write_text(json.dumps({"apple": 0}))
    shutil.copy(DATA / "scholar" / "bg.npz", folder)
    with pytest.raises(ValueError, match="must be a JSON list of words"):
        from_scholar(folder)


def test_an_octis_output_is_refused_with_what_to_import_instead():
    for output in (DATA / "octis_output.npz",
                   {"topics": [], "topic-word-matrix": np.ones((2, 3)) / 3}):
        with pytest.raises(ValueError, match="holds no prior on the topic proportions") as err:
            from_octis(output)
        assert "from_gensim(octis_model.trained_model)" in str(err.value)
        assert "\n" not in str(err.value)


def test_a_file_that_is_not_octis_output_is_named(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, beta=np.ones(3))
    with pytest.raises(ValueError, match="other.npz: not an OCTIS model output"):
        from_octis(path)


def test_the_recipes_of_score_a_model_run(tmp_path, monkeypatch, capsys):
    """docs/score-a-model.md's recipes for the family, as written, on the files the libraries
    wrote, each at most 6 lines."""
    text = (ROOT / "docs" / "score-a-model.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```\{code-block\} python\n(.*?)```", text, flags=re.DOTALL)
    imports, *recipes = block.strip().split("\n\n")
    named = {re.match(r"# ([\w-]+)", recipe).group(1): recipe for recipe in recipes}
    assert sorted(named) == ["ETM", "contextualized-topic-models", "pyro", "scholar"]
    assert all(len(recipe.splitlines()) <= 6 for recipe in named.values())
    for source, target in (("ctm_prodlda.pth", "epoch_99.pth"), ("pyro_prodlda.pth",
                           "prodlda.pth"), ("etm_model.pth", "etm.pth")):
        shutil.copy(DATA / source, tmp_path / target)
    shutil.copytree(DATA / "scholar", tmp_path / "output")
    monkeypatch.chdir(tmp_path)

    class Vectorizer:
        def get_feature_names_out(self):
            return np.array(VOCAB)

    for name, recipe in named.items():
        namespace = {"test_token_lists": [["apple", "fish", "zebra"], ["kale", "lime"]],
                     "vectorizer": Vectorizer(), "vocabulary": VOCAB}
        exec(compile(f"{imports}\n\n{recipe}", f"score-a-model.md ({name})", "exec"),
             namespace)
        assert "nats" in capsys.readouterr().out, name


def _payload(marker):
    class Payload:
        def __reduce__(self):
            import os

            return os.system, (f"touch {marker}",)

    return Payload()


def _scholar_copy(tmp_path) -> Path:
    folder = tmp_path / "scholar"
    shutil.copytree(DATA / "scholar", folder)
    return folder

