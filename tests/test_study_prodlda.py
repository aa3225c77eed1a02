"""The study's neural trainer ``prodlda`` (pyro, the ``neural`` extra): planned, priced, trained
on the training split and converted to a ``LogisticNormalModel``, its library's own number (the
ELBO) beside it, and estimated on the held-out documents by the family's default method exactly
as ``topiceval.evaluate`` estimates them; what applies to LDA only is skipped with its reason."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import topiceval
from topiceval.corpus import Corpus
from topiceval.evaluation import DEFAULTS
from topiceval.experiments import study as S
from topiceval.logistic_normal import LogisticNormalModel
from topiceval.models import load_model
from topiceval.seeds import derive_seed
from topiceval.study_quality import TOPIC_VIEW
from topiceval.training import prodlda

NEEDS_PYRO = pytest.mark.skipif(
    not prodlda.available(),
    reason="the 'neural' extra (pyro-ppl, torch) is not installed: pip install -e '.[neural]'")
WORDS = [f"w{v:02d}" for v in range(12)]
SETTINGS = {**S.TRAIN_DEFAULTS["prodlda"], "epochs": 3, "hidden": 8, "batch_size": 8}
ESTIMATE = {**S.ESTIMATE_DEFAULTS, "runs": 2}


def candidate(trainer: str, seed: int) -> dict:
    return S.dataclasses.asdict(S.Candidate(f"{trainer}-T3-seed{seed}", S.LIBRARY_NAME[trainer],
                                            trainer, 3, seed))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A study corpus (40 training and 6 held-out documents over 12 words, three word
    groups), ProdLDA at seeds 0 and 1 and Gibbs at seed 0, T = 3, each trained by train_job."""
    if not prodlda.available():
        pytest.skip("the 'neural' extra (pyro-ppl) is not installed")
    tmp = tmp_path_factory.mktemp("prodlda")
    rng = np.random.default_rng(3)
    docs = [rng.integers(0, 4, size=rng.integers(5, 30)) + 4 * (d % 3) for d in range(46)]
    split = ["train"] * 40 + ["test"] * 6
    Corpus.from_documents(docs, WORDS, [f"d{i}" for i in range(46)], split).save(
        tmp / "corpus.npz")
    out = {}
    for trainer, seed, settings in (("prodlda", 0, SETTINGS), ("prodlda", 1, SETTINGS),
                                    ("gibbs", 0, {"sweeps": 20})):
        name = f"{trainer}-T3-seed{seed}"
        S.train_job(tmp / "corpus.npz", candidate(trainer, seed), settings,
                    tmp / f"{name}.npz", tmp / f"{name}-own.csv")
        out[name] = load_model(tmp / f"{name}.npz")
    return tmp, out


def estimated(tmp, name: str, part: int = 0, parts: int = 1) -> pd.DataFrame:
    rows = tmp / f"{name}-{part}of{parts}.csv"
    S.estimate_job(tmp / "corpus.npz", tmp / f"{name}.npz", name, part, parts, ESTIMATE, None,
                   rows, tmp / "timings.csv")
    return pd.read_csv(rows, dtype={"name": str}, keep_default_na=False, na_values=[""])


def test_the_plan_takes_prodlda_with_its_settings(tmp_path):
    (tmp_path / "texts").mkdir()
    cfg = {"name": "n", "corpus": {"texts": str(tmp_path / "texts")},
           "train": {"trainers": ["gibbs", "prodlda"], "topics": [3], "seeds": [0],
                     "settings": {"prodlda": {"epochs": 4}}}}
    if prodlda.available():
        plan = S.study_plan(cfg)
        assert [c.name for c in plan.candidates] == ["gibbs-T3-seed0", "prodlda-T3-seed0"]
        assert plan.train["prodlda"] == {**prodlda.SETTINGS, "epochs": 4}
        assert plan.candidate("prodlda-T3-seed0").library == "pyro"
    cfg["train"] = {"trainers": ["gibbs"], "topics": [3], "settings": {"prodlda": {"sweeps": 4}}}
    with pytest.raises(ValueError, match=r"settings.prodlda: unknown setting\(s\) \['sweeps'\]"):
        S.study_plan(cfg)


def test_without_the_extra_the_plan_names_it(tmp_path, monkeypatch):
    find = S.importlib.util.find_spec
    monkeypatch.setattr(S.importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyro" else find(name, *a))
    (tmp_path / "texts").mkdir()
    cfg = {"name": "n", "corpus": {"texts": str(tmp_path / "texts")},
           "train": {"trainers": ["prodlda"], "topics": [3]}}
    with pytest.raises(ValueError, match=r"prodlda needs the 'pyro-ppl' package.*"
                                         r"pip install 'topiceval-heldout\[neural\]'"):
        S.study_plan(cfg)


def test_training_is_priced_per_token_and_epoch():
    a = S.train_seconds(10_000, "prodlda", 20, {"epochs": 10})
    assert a == pytest.approx(10_000 * 10 * S.TRAIN_NS["prodlda"] * 1e-9)
    assert S.train_seconds(10_000, "prodlda", 20, {"epochs": 20}) == pytest.approx(2 * a)


@NEEDS_PYRO
def test_a_candidate_is_the_decoder_in_evaluation_mode_and_repeats_with_its_seed(trained):
    """The saved model is the trained network in evaluation mode: the product decoder with the
    batch norm's running statistics folded in (its probabilities equal the network's), the
    prior ProdLDA's; the same seed trains the same model bit for bit."""
    import torch

    tmp, models = trained
    model = models["prodlda-T3-seed0"]
    assert isinstance(model, LogisticNormalModel) and model.decoder == "product"
    assert model.vocab.tolist() == WORDS
    np.testing.assert_array_equal(model.sigma, np.full(3, 1 - 1 / 3))
    train = Corpus.load(tmp / "corpus.npz").select_split("train")
    fit = prodlda.fit_prodlda(train.counts(), train.vocab, 3, seed=0, **SETTINGS)
    again = prodlda.to_model(fit)
    np.testing.assert_array_equal(again.beta, model.beta)
    np.testing.assert_array_equal(again.bias, model.bias)
    theta = torch.softmax(torch.randn(5, 3, generator=torch.Generator().manual_seed(0)), -1)
    with torch.no_grad():
        network = fit.decoder(theta).double().numpy()
    logits = theta.double().numpy() @ model.beta + model.bias
    mine = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(mine, network, atol=1e-5)
    other = models["prodlda-T3-seed1"]
    assert not np.array_equal(other.beta, model.beta)


@NEEDS_PYRO
def test_the_rows_are_evaluates_default_and_the_own_number_is_its_elbo(trained):
    """Each held-out document's row equals ``topiceval.evaluate``'s with the family's default
    (is_laplace) and the study's seed for the candidate, whatever the parts; the own number is
    pyro's ELBO, a lower bound on the estimated total."""
    tmp, models = trained
    name = "prodlda-T3-seed0"
    rows = estimated(tmp, name)
    held = Corpus.load(tmp / "corpus.npz").select_split("test")
    result = topiceval.evaluate(models[name], held, runs=2, seed=derive_seed(0, "study", name),
                                progress=False)
    assert set(rows["method"]) == {DEFAULTS["logistic_normal"][0]} == {result.method}
    np.testing.assert_allclose(rows["logp"], result.logp, rtol=1e-12)
    np.testing.assert_allclose(rows["stderr"], result.stderr, rtol=1e-12)
    assert list(rows["trusted"]) == list(result.trusted)
    parts = pd.concat([estimated(tmp, name, i, 2) for i in range(2)], ignore_index=True)
    pd.testing.assert_frame_equal(parts, rows)
    own = pd.read_csv(tmp / f"{name}-own.csv").iloc[0]
    assert own["own_library"] == "pyro" and own["own_kind"] == "variational bound"
    assert own["own_split"] == "held-out" and own["own_tokens"] == held.n_tokens
    assert own["own_total"] < rows["logp"].sum()
    assert own["own_value"] == pytest.approx(np.exp(-own["own_total"] / held.n_tokens))
    assert S.estimate_minutes(tmp / "corpus.npz", tmp / f"{name}.npz", ESTIMATE, None, 0, 1) \
        == S.MIN_MINUTES


@NEEDS_PYRO
def test_the_summary_sets_prodlda_beside_lda_and_ratio_ais_says_why_it_skips_it(trained):
    tmp, models = trained
    names = list(models)
    for name in names:
        estimated(tmp, name)
    cands = [candidate(n.split("-")[0], int(n[-1])) for n in names]
    S.summary_job(cands, ESTIMATE, None, tmp / "corpus.npz",
                  [tmp / f"{n}-0of1.csv" for n in names],
                  {n: tmp / f"{n}-own.csv" for n in names}, {n: tmp / f"{n}.npz" for n in names},
                  tmp / "candidates.csv", tmp / "documents.csv", tmp / "paired.csv",
                  {"reference": "train", "replicates": 5})
    table = pd.read_csv(tmp / "candidates.csv").set_index("candidate")
    neural = table.loc["prodlda-T3-seed0"]
    assert neural["method"] == "is_laplace" and neural["library"] == "pyro"
    assert np.isfinite(neural["coherence_npmi"]) and TOPIC_VIEW in neural["coherence_reference"]
    assert np.isfinite(neural["stability"]) and TOPIC_VIEW in neural["stability_note"]
    assert table.loc["gibbs-T3-seed0", "method"] == "chib"
    paired = pd.read_csv(tmp / "paired.csv")
    paired["tie"] = True  # every runner-up close: ratio-AIS asked about each
    ratio = S.ratio_ais_job({**S.COMPARE_DEFAULTS, "docs": 3, "temperatures": 5}, None,
                            tmp / "corpus.npz", tmp / "candidates.csv",
                            _written(tmp / "paired-ties.csv", paired), tmp / "documents.csv",
                            {n: tmp / f"{n}.npz" for n in names}, tmp / "ratio_ais.csv")
    best = table.index[table["verdict"] == "best"][0]
    skipped = ratio[ratio["verdict"] == S.NOT_LDA]
    expected = [n for n in names if n != best and "logistic_normal" in
                (models[n].family, models[best].family)]
    assert sorted(skipped["runner_up"]) == sorted(expected) and expected


def _written(path, frame: pd.DataFrame):
    frame.to_csv(path, index=False)
    return path
