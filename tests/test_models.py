"""Model containers: validation and persistence."""

import numpy as np
import pytest

from topiceval.models import (
    GaPModel,
    LDAModel,
    ModelError,
    check_gapfa_params,
    check_lda_params,
    load_model,
    save_model,
)

PHI = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])


def test_lda_round_trip(tmp_path):
    model = LDAModel(PHI, [0.1, 0.4], beta=0.01, vocab=["a", "b", "c"], meta={"trainer": "x"})
    save_model(tmp_path / "m.npz", model)
    back = load_model(tmp_path / "m.npz")
    assert isinstance(back, LDAModel)
    np.testing.assert_array_equal(back.phi, PHI)
    assert back.beta == 0.01 and back.meta == {"trainer": "x"}
    assert back.vocab.tolist() == ["a", "b", "c"]


def test_gapfa_round_trip_broadcasts_scalar_r(tmp_path):
    model = GaPModel(PHI, [0.3, 0.6], [1.0])
    np.testing.assert_array_equal(model.r, [1.0, 1.0])
    save_model(tmp_path / "g.npz", model)
    back = load_model(tmp_path / "g.npz")
    assert isinstance(back, GaPModel) and back.vocab is None


@pytest.mark.parametrize(
    ("phi", "alpha_m", "message"),
    [
        (PHI[0], [1.0], r"phi must be a non-empty \(T, V\) matrix"),
        (np.array([[0.5, 0.5, 0.0], [0.2, 0.2, 0.6]]), [1, 1], r"strictly positive; phi\[0, 2\]"),
        (np.array([[0.5, 0.6], [0.5, 0.5]]), [1, 1], "row 0 sums to 1.1"),
        (PHI, [1.0, 1.0, 1.0], r"alpha_m must have shape \(T,\) = \(2,\)"),
        (PHI, [1.0, 0.0], "alpha_m must be finite and strictly positive"),
        (np.array([[np.nan, 1.0], [0.5, 0.5]]), [1, 1], "NaN"),
    ],
)
def test_lda_validation_messages(phi, alpha_m, message):
    with pytest.raises(ValueError, match=message):
        check_lda_params(phi, alpha_m)


def test_document_dependent_prior_is_accepted_by_check_only():
    _, am = check_lda_params(PHI, np.ones((5, 2)))
    assert am.shape == (5, 2)
    with pytest.raises(ModelError, match="single prior"):
        LDAModel(PHI, np.ones((5, 2)))


@pytest.mark.parametrize(
    ("p", "r", "message"),
    [
        ([0.0, 0.5], [1, 1], r"p must lie in \(0, 1\)"),
        ([0.5, 0.5], [1, -1], "r must be"),
        ([0.5], [1, 1], r"p must have shape \(T,\)"),
    ],
)
def test_gapfa_validation_messages(p, r, message):
    with pytest.raises(ValueError, match=message):
        check_gapfa_params(PHI, p, r)


def test_load_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.npz"
    np.savez(path, x=np.zeros(1))
    with pytest.raises(ModelError, match="bad.npz: not a topiceval model file"):
        load_model(path)
    model = LDAModel(PHI, [0.1, 0.4], vocab=["a", "b", "c"])
    save_model(path, model)
    with np.load(path) as data:
        arrays = dict(data)
    arrays["phi"] = -arrays["phi"]
    np.savez(path, **arrays)
    with pytest.raises(ModelError, match="bad.npz: phi must be strictly positive"):
        load_model(path)
