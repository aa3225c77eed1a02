"""The L2R authors' released models (jcapde/L2R; §8.6): the ten exact Twitter log-likelihoods
reproduced to 1e-9 by both exact algorithms, and the reader's view of both model files.

Skipped when the mirror is absent: set TOPICEVAL_DATA_MIRROR to a folder holding
``l2r-capdevila/`` (default: ``../shared/data`` beside the repository)."""

import os
from pathlib import Path

import numpy as np
import pytest

from topiceval.data.l2r import load_l2r_exact, load_l2r_model
from topiceval.estimators import gapfa
from topiceval.estimators.gapfa.exact import tractable_documents


def mirror() -> Path:
    root = os.environ.get("TOPICEVAL_DATA_MIRROR")
    base = Path(root) if root else Path(__file__).resolve().parents[2] / "shared" / "data"
    folder = base / "l2r-capdevila"
    if not (folder / "Twitter_GaP_10653N_100W_5T.mat").is_file():
        pytest.skip(f"L2R release not found at {folder} (set TOPICEVAL_DATA_MIRROR)")
    return folder


@pytest.mark.parametrize("algorithm", ["dp", "enumerate"])
def test_twitter_exact_values_reproduced(algorithm):
    folder = mirror()
    counts, model = load_l2r_model(folder / "Twitter_GaP_10653N_100W_5T.mat")
    total, per_doc = load_l2r_exact(folder / "Exact_Twitter_10Ntest_100W_5K.json")
    docs = tractable_documents(counts, model.n_topics, limit=10)
    np.testing.assert_array_equal(docs, [0, 1, 2, 3, 4, 5, 7, 10, 11, 12])
    got = gapfa.estimate("exact", counts[docs], model.phi, model.p, model.r,
                         algorithm=algorithm)
    np.testing.assert_allclose(got, per_doc, rtol=0, atol=1e-9)
    assert abs(got.sum() - total) < 1e-9


def test_released_models_load_as_gap_models():
    folder = mirror()
    for name, n_docs, n_tokens, n_tractable in [("NIPS_GaP_5802N_100W_5T.mat", 5802, 724073, 1),
                                                ("Twitter_GaP_10653N_100W_5T.mat", 10653,
                                                 56184, 1000)]:
        counts, model = load_l2r_model(folder / name)
        assert counts.shape == (n_docs, 100) and counts.sum() == n_tokens
        assert model.phi.shape == (5, 100) and np.allclose(model.phi.sum(axis=1), 1.0)
        np.testing.assert_array_equal(model.r, np.ones(5))
        assert model.meta["file"] == name
        # seed 004 §6.2: NIPS has a single tractable document; Twitter at least 1,000
        assert tractable_documents(counts, 5, limit=1000).size == n_tractable


def test_reader_rejects_other_files(tmp_path):
    bad = tmp_path / "x.mat"
    bad.write_bytes(b"not a mat file")
    with pytest.raises(ValueError, match="x.mat"):
        load_l2r_model(bad)
    with pytest.raises(ValueError, match="exact-values"):
        load_l2r_exact(bad)
