"""``topiceval train lda|gapfa`` end to end on a tiny corpus file."""

import numpy as np
import pandas as pd
import pytest

from topiceval.cli import main
from topiceval.corpus import Corpus
from topiceval.models import GaPModel, LDAModel, load_model


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    g = np.random.default_rng(0)
    docs = [g.integers(0, 12, size=g.integers(3, 20)) for _ in range(30)]
    split = ["train"] * 25 + ["test"] * 5
    path = tmp_path_factory.mktemp("cli") / "corpus.npz"
    Corpus.from_documents(docs, [f"w{i}" for i in range(12)], split=split).save(path)
    return path


def test_train_gibbs_with_optimisation(corpus_file, tmp_path):
    out, trace = tmp_path / "m.npz", tmp_path / "trace.csv"
    code = main(["train", "lda", "--corpus", str(corpus_file), "--split", "train", "--topics",
                 "3", "--trainer", "gibbs", "--sweeps", "12", "--optimize", "mallet2012",
                 "--optimize-burnin", "4", "--optimize-interval", "2", "--save-states", "2",
                 "10", "--record-every", "3", "--trace", str(trace), "--out", str(out)])
    assert code == 0
    model = load_model(out)
    assert isinstance(model, LDAModel) and model.meta["trainer"] == "gibbs"
    assert model.meta["optimize"]["form"] == "mallet2012" and model.meta["split"] == "train"
    assert model.meta["D"] == 25 and model.meta["saved_states"] == 2
    assert list(pd.read_csv(trace)["sweep"]) == [0, 3, 6, 9, 12]
    assert list(pd.read_csv(trace).columns) == ["sweep", "log_joint_nats"]


def test_train_vem(corpus_file, tmp_path):
    out = tmp_path / "m.npz"
    assert main(["train", "lda", "--corpus", str(corpus_file), "--topics", "2", "--trainer",
                 "vem", "--variant", "full", "--max-iter", "4", "--out", str(out)]) == 0
    model = load_model(out)
    assert model.meta["variant"] == "full" and model.beta is None and model.meta["D"] == 30
    # the default variant, Béchard & Gervet's Algorithm 1, under its paper's name or its old one
    trace = tmp_path / "elbo.csv"
    models = []
    for variant in ("bechard2018", "seed001"):
        assert main(["train", "lda", "--corpus", str(corpus_file), "--topics", "2", "--trainer",
                     "vem", "--variant", variant, "--max-iter", "3", "--trace", str(trace),
                     "--out", str(out)]) == 0
        models.append(load_model(out))
    assert models[0].meta["variant"] == "seed001"
    np.testing.assert_array_equal(models[0].phi, models[1].phi)
    assert list(pd.read_csv(trace).columns) == ["iteration", "elbo_nats"]


def test_train_gapfa(corpus_file, tmp_path):
    out = tmp_path / "g.npz"
    assert main(["train", "gapfa", "--corpus", str(corpus_file), "--topics", "2",
                 "--iterations", "4", "--burnin", "2", "--out", str(out)]) == 0
    model = load_model(out)
    assert isinstance(model, GaPModel) and model.phi.shape == (2, 12)
    assert model.meta["corpus_checksum"] == Corpus.load(corpus_file).checksum()


def test_bad_arguments_exit_with_a_message(corpus_file, tmp_path, capsys):
    code = main(["train", "lda", "--corpus", str(corpus_file), "--topics", "0", "--trainer",
                 "gibbs", "--out", str(tmp_path / "m.npz")])
    assert code == 1 and "--topics must be an integer" in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()
