"""Importing logistic-normal models saved by other libraries: contextualized-topic-models'
files (written by its own DecoderNetwork and saved as CTM.save saves,
tests/data/logistic_normal/make_ctm_file.py), read without torch and without running anything
the file names."""

import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import topiceval
from topiceval.logistic_normal.importers import from_ctm
from topiceval.logistic_normal.simulate import word_probabilities
from topiceval.logistic_normal.torchfile import Inert, read_torch_file

DATA = Path(__file__).parent / "data" / "logistic_normal"


@pytest.mark.parametrize("name,decoder", [("prodlda", "product"), ("lda", "mixture")])
def test_the_imported_decoder_is_the_librarys(name, decoder):
    """p(w | theta) of the imported model equals the library's own evaluation-mode forward pass
    (float32 arithmetic there: 1e-5)."""
    model = from_ctm(DATA / f"ctm_{name}.pth")
    check = np.load(DATA / f"ctm_{name}_check.npz")
    assert model.decoder == decoder and model.n_topics == 3
    assert list(model.vocab) == list(check["vocab"])
    for theta, expected in zip(check["theta"], check["word_dist"], strict=True):
        np.testing.assert_allclose(word_probabilities(model, theta), expected, rtol=1e-5)
    np.testing.assert_allclose(model.mu, [0.2, -0.1, 0.0], rtol=1e-6)
    np.testing.assert_allclose(model.sigma, [0.8, 0.5, 1.2], rtol=1e-6)


def test_an_imported_model_is_scored_by_word():
    model = from_ctm(DATA / "ctm_prodlda.pth")
    result = topiceval.evaluate(model, [["apple", "fish", "fish", "zebra"], ["kale", "lime"]],
                                progress=False)
    assert result.dropped.tolist() == [1, 0] and result.trusted.all()


def test_a_bare_state_dict_needs_its_model_type(tmp_path):
    state = read_torch_file(DATA / "ctm_prodlda.pth")["state_dict"]
    path = tmp_path / "state.pth"
    _write_archive(path, pickle.dumps({k: np.asarray(v).tolist() for k, v in state.items()}))
    with pytest.raises(ValueError, match="pass model_type='prodLDA' or 'LDA'"):
        from_ctm(path)
    model = from_ctm(path, model_type="prodLDA", vocab=[f"w{v}" for v in range(12)])
    assert model.decoder == "product" and model.vocab[0] == "w0"


def test_missing_arrays_are_named(tmp_path):
    path = tmp_path / "partial.pth"
    _write_archive(path, pickle.dumps({"state_dict": {"beta": 1.0}, "dcue_dict": {}}))
    with pytest.raises(ValueError, match="lacks prior_mean, prior_variance, "
                                         "beta_batchnorm.running_mean") as err:
        from_ctm(path)
    assert "\n" not in str(err.value)


def test_reading_runs_nothing_the_file_names(tmp_path):
    """A file whose pickle calls os.system: the reader makes it an inert object instead."""
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            import os

            return os.system, (f"touch {marker}",)

    path = tmp_path / "evil.pth"
    _write_archive(path, pickle.dumps({"state_dict": Payload()}))
    loaded = read_torch_file(path)
    assert isinstance(loaded["state_dict"], Inert) and not marker.exists()


def test_arrays_that_are_not_tensors_are_named(tmp_path):
    """numpy arrays pickled by pickle, not torch: the reader does not rebuild them."""
    state = read_torch_file(DATA / "ctm_prodlda.pth")["state_dict"]
    path = tmp_path / "numpy.pth"
    _write_archive(path, pickle.dumps({"state_dict": dict(state), "dcue_dict": {}}))
    with pytest.raises(ValueError, match="are not tensors"):
        from_ctm(path)


def test_not_a_torch_file_is_one_line(tmp_path):
    path = tmp_path / "model.pth"
    path.write_bytes(b"\x80\x02}q\x00.")  # a legacy (non-zip) pickle
    with pytest.raises(ValueError, match="not a PyTorch zip file") as err:
        from_ctm(path)
    assert "\n" not in str(err.value)


def _write_archive(path, data_pkl: bytes) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", data_pkl)
        archive.writestr("archive/byteorder", "little")
