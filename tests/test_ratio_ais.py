"""Ratio-AIS: kernel vs reference, API, determinism, errors, CLI.

Described in docs/methods/lda-estimators.md#ratio-ais.
"""

import json
import time

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from reference import lda_ratio_ais_ref as ref
from topiceval import cli
from topiceval.commands import OUTPUT_COLUMNS
from topiceval.corpus import Corpus
from topiceval.estimators import lda
from topiceval.estimators.lda import ratio_ais
from topiceval.estimators.schedule import schedule
from topiceval.models import GaPModel, LDAModel, save_model
from topiceval.threads import numba_threads


def problem(n_topics, n_types, lengths, alpha, seed):
    """Two unrelated models A, B (different priors) and documents."""
    rng = np.random.default_rng(seed)
    phis = rng.dirichlet(np.full(n_types, 0.5), size=(2, n_topics))
    ams = rng.dirichlet(np.ones(n_topics), size=2) * alpha
    docs = [rng.integers(0, n_types, n) for n in lengths]
    return docs, (phis[0], ams[0]), (phis[1], ams[1])


# T = 3: dense Gibbs layout; T = 10 with a small alpha: sparse layout
PROBLEMS = [problem(3, 6, (7, 5), 1.0, 1), problem(10, 12, (9, 12, 4), 0.5, 2)]


def log_weights(docs, model_a, model_b, streams=(0, 1), *, samples=3, temperatures=4, burnin=2,
                seed=5, start="gibbs", split=None):
    docs, phi, am, keys, n1 = ratio_ais.check_inputs(docs, model_a, model_b,
                                                     completion=split is not None, split=split)
    logw, sites, _ = ratio_ais.run_log_weights(docs, phi, am, keys, n1, streams, samples=samples,
                                               temperatures=temperatures, burnin=burnin,
                                               seed=seed, start=start)
    return logw, sites


@pytest.mark.parametrize("temperatures", [5, [0.2, 0.5, 0.6, 1.0], 1])
@pytest.mark.parametrize("priors", ["different", "equal"])
@pytest.mark.parametrize("which", range(len(PROBLEMS)))
def test_kernel_matches_reference(which, priors, temperatures):
    """Every run (w and w^a, both directions), sample by sample, with the Gibbs start."""
    docs, model_a, model_b = PROBLEMS[which]
    if priors == "equal":
        model_b = (model_b[0], model_a[1])
    split = [3, 4, 2][: len(docs)]
    logw, sites = log_weights(docs, model_a, model_b, (0, 1, 2, 3), split=split,
                              temperatures=temperatures)
    tau = schedule(temperatures)
    linear = isinstance(temperatures, int)
    for d, doc in enumerate(docs):
        for stream in range(4):
            expected = ref.run(doc, stream, split[d], model_a, model_b, tau, 2, 3, 5, d,
                               linear=linear)
            np.testing.assert_allclose(logw[d, stream], expected, rtol=1e-10, atol=1e-10)
            n = len(doc) if stream < 2 else split[d]
            assert np.all(sites[d, stream] == (1 + 2 + len(tau) - 2) * n)


def test_kernel_matches_reference_from_exact_starts():
    docs, model_a, model_b = PROBLEMS[1]
    logw, sites = log_weights(docs, model_a, model_b, (0, 1), samples=4, start="exact",
                              temperatures=3)
    for d, doc in enumerate(docs):
        for stream, start_model in ((0, model_b), (1, model_a)):
            states = ratio_ais.exact.posterior_samples(
                doc, *start_model, 4, seed=ratio_ais.exact_seed(5, stream, d))
            expected = ref.run(doc, stream, None, model_a, model_b, schedule(3), 0, 4, 5, d,
                               starts=states, linear=True)
            np.testing.assert_allclose(logw[d, stream], expected, rtol=1e-10, atol=1e-10)
            assert np.all(sites[d, stream] == 2 * len(doc))  # (n - 1) N: no urn, no burn-in


def test_compare_combines_the_runs():
    """log_ratio, reverse, gap and suspect from the runs' LSE means (§5.2-5.4, eq. 5.2)."""
    docs, model_a, model_b = PROBLEMS[0]
    settings = {"samples": 3, "temperatures": 4, "burnin": 2, "seed": 5}
    logw, sites = log_weights(docs, model_a, model_b, (0, 1, 2, 3), split=[3, 2])
    mean = logsumexp(logw, axis=2) - np.log(3)
    res = lda.compare(docs, model_a, model_b, **settings)
    np.testing.assert_array_equal(res.log_ratio, mean[:, 0])
    np.testing.assert_array_equal(res.reverse, mean[:, 1])
    np.testing.assert_array_equal(res.reciprocal_gap, -mean[:, 1] - mean[:, 0])
    np.testing.assert_array_equal(res.suspect, np.abs(res.reciprocal_gap) > 1.0)
    np.testing.assert_array_equal(res.site_updates, sites[:, :2].sum(axis=(1, 2)))
    done = lda.compare(docs, model_a, model_b, completion=True, split=[3, 2], threshold=0.5,
                       **settings)
    np.testing.assert_array_equal(done.log_ratio, mean[:, 0] + mean[:, 3])
    np.testing.assert_array_equal(done.reverse, mean[:, 1] + mean[:, 2])
    np.testing.assert_array_equal(done.suspect, np.abs(done.reciprocal_gap) > 0.5)
    np.testing.assert_array_equal(done.site_updates, sites.sum(axis=(1, 2)))
    one_way = lda.compare(docs, model_a, model_b, completion=True, split=[3, 2],
                          reciprocal=False, **settings)
    np.testing.assert_array_equal(one_way.log_ratio, done.log_ratio)
    assert np.all(np.isnan(one_way.reverse)) and np.all(np.isnan(one_way.reciprocal_gap))
    assert not one_way.suspect.any()
    np.testing.assert_array_equal(one_way.site_updates, sites[:, [0, 3]].sum(axis=(1, 2)))


@pytest.mark.parametrize("priors", ["different", "equal"])
@pytest.mark.two_threads
def test_same_seed_same_result_any_thread_count_and_grouping(priors, monkeypatch):
    docs, model_a, model_b = PROBLEMS[1]
    if priors == "equal":
        model_b = (model_b[0], model_a[1])
    kwargs = {"samples": 5, "temperatures": 6, "seed": 3, "completion": True}
    with numba_threads(1):
        one = lda.compare(docs, model_a, model_b, **kwargs)
    with numba_threads(2):
        two = lda.compare(docs, model_a, model_b, **kwargs)
    monkeypatch.setattr(ratio_ais, "TASKS_PER_THREAD", 100)  # one sample per task
    many = lda.compare(docs, model_a, model_b, **kwargs)
    for res in (two, many):
        for field in ("log_ratio", "reverse", "reciprocal_gap", "suspect", "site_updates"):
            np.testing.assert_array_equal(getattr(one, field), getattr(res, field))
    assert np.all(np.isfinite(one.log_ratio)) and one.log_ratio.dtype == np.float64
    other = lda.compare(docs, model_a, model_b, **{**kwargs, "seed": 4})
    assert not np.any(other.log_ratio == one.log_ratio)


def test_documents_keyed_by_position():
    docs, model_a, model_b = PROBLEMS[1]
    full = lda.compare(docs, model_a, model_b, samples=2, temperatures=5)
    alone = lda.compare(docs[1:2], model_a, model_b, samples=2, temperatures=5, doc_keys=[1])
    assert alone.log_ratio[0] == full.log_ratio[1] and alone.reverse[0] == full.reverse[1]
    copies = lda.compare([docs[0]] * 3, model_a, model_b, samples=2, temperatures=5)
    assert copies.log_ratio[0] == full.log_ratio[0]
    assert len(set(copies.log_ratio)) == 3  # copies get independent streams


def test_document_dependent_priors():
    """alpha m of shape (D, T): each document evaluated with its own row (DMR-style)."""
    docs, (phi_a, am_a), (phi_b, am_b) = PROBLEMS[1]
    rng = np.random.default_rng(8)
    rows_a = am_a * rng.uniform(0.5, 2.0, size=(len(docs), 1))
    rows_b = np.vstack([am_b, am_b, rows_a[2]])  # document 2: equal priors
    res = lda.compare(docs, (phi_a, rows_a), (phi_b, rows_b), samples=2, temperatures=5)
    for d in range(len(docs)):
        one = lda.compare(docs[d : d + 1], (phi_a, rows_a[d]), (phi_b, rows_b[d]), samples=2,
                          temperatures=5, doc_keys=[d])
        assert one.log_ratio[0] == res.log_ratio[d] and one.reverse[0] == res.reverse[d]
    std = lda.compare_standard(docs, (phi_a, rows_a), (phi_b, am_b), samples=2, temperatures=5)
    for d in range(len(docs)):
        one = lda.compare_standard(docs[d : d + 1], (phi_a, rows_a[d]), (phi_b, am_b),
                                   samples=2, temperatures=5, doc_keys=[d])
        assert one[0] == std[d]


def test_identical_models_give_zero():
    docs, model_a, _ = PROBLEMS[1]
    res = lda.compare(docs, model_a, LDAModel(*model_a), samples=2, temperatures=5)
    np.testing.assert_array_equal(res.log_ratio, 0.0)
    np.testing.assert_array_equal(res.reciprocal_gap, 0.0)


def test_standard_method_is_two_independent_ais_estimates():
    docs, model_a, model_b = PROBLEMS[1]
    out, cost = lda.compare_standard(docs, model_a, model_b, samples=3, temperatures=7, seed=2,
                                     return_cost=True)
    a = lda.estimate_runs("ais", docs, *model_a, runs=3, seed=2, temperatures=7)
    b = lda.estimate_runs("ais", docs, *model_b, runs=3, seed=2, first_run=3, temperatures=7)
    expected = logsumexp(a.logp, axis=1) - logsumexp(b.logp, axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-13)
    assert cost.site_updates == a.site_updates.sum() + b.site_updates.sum()


def test_return_cost():
    docs, model_a, model_b = PROBLEMS[0]
    start = time.perf_counter()
    res, cost = lda.compare(docs, model_a, model_b, samples=2, temperatures=4, burnin=3,
                            return_cost=True)
    elapsed = time.perf_counter() - start
    lengths = np.array([len(d) for d in docs])
    np.testing.assert_array_equal(res.site_updates, 2 * 2 * (3 + 4) * lengths)
    assert cost == res.cost and cost.site_updates == res.site_updates.sum()
    assert 0 < cost.seconds <= elapsed  # the kernels' share of the call, not a deadline


def test_errors_name_the_problem():
    docs, model_a, model_b = PROBLEMS[1]
    phi_a, am_a = model_a
    with pytest.raises(ValueError, match="same topics count"):
        lda.compare(docs, model_a, (phi_a[:2] / phi_a[:2].sum(1, keepdims=True), am_a[:2]))
    with pytest.raises(ValueError, match="model_b: phi must be strictly positive"):
        lda.compare(docs, model_a, (np.where(phi_a == phi_a.max(), 0.0, phi_a), am_a))
    with pytest.raises(ValueError, match="model_a: alpha_m must have shape"):
        lda.compare(docs, (phi_a, am_a[:4]), model_b)
    with pytest.raises(ValueError, match="model_a: alpha_m has shape .* 3 documents"):
        lda.compare(docs, (phi_a, np.tile(am_a, (2, 1))), model_b)
    with pytest.raises(ValueError, match="model_b must be a pair"):
        lda.compare(docs, model_a, phi_a)
    with pytest.raises(ValueError, match="document 1 has token id 12"):
        lda.compare([docs[0], np.array([1, 12])], model_a, model_b)
    with pytest.raises(ValueError, match="document 0 is empty"):
        lda.compare([[]], model_a, model_b)
    with pytest.raises(ValueError, match="unknown setting.*particles"):
        lda.compare(docs, model_a, model_b, particles=3)
    with pytest.raises(ValueError, match="samples must be an integer in"):
        lda.compare(docs, model_a, model_b, samples=0)
    with pytest.raises(ValueError, match="burnin must be an integer"):
        lda.compare(docs, model_a, model_b, burnin=1.5)
    with pytest.raises(ValueError, match="temperature schedule"):
        lda.compare(docs, model_a, model_b, temperatures=[0.5, 0.9])
    with pytest.raises(ValueError, match="threshold must be a positive"):
        lda.compare(docs, model_a, model_b, threshold=0)
    with pytest.raises(ValueError, match="unknown start 'prior'"):
        lda.compare(docs, model_a, model_b, start="prior")
    with pytest.raises(ValueError, match="split is only used with completion"):
        lda.compare(docs, model_a, model_b, split=2)
    with pytest.raises(ValueError, match=r"document 2 has 1 token\(s\); document completion"):
        lda.compare(docs[:2] + [np.array([3])], model_a, model_b, completion=True)
    with pytest.raises(ValueError, match="split of document 0 is 9"):
        lda.compare(docs, model_a, model_b, completion=True, split=9)
    with pytest.raises(ValueError, match="exact evaluation of document 0 .exact start."):
        lda.compare(docs, model_a, model_b, start="exact", max_work=10_000)
    with pytest.raises(ValueError, match="doc_keys"):
        lda.compare(docs, model_a, model_b, doc_keys=[0, 0, 1])
    with pytest.raises(ValueError, match="seed"):
        lda.compare_standard(docs, model_a, model_b, seed=-1)


# --------------------------------------------------------------------------- command line
@pytest.fixture
def saved(tmp_path):
    docs, model_a, model_b = PROBLEMS[1]
    words = np.array([f"w{i}" for i in range(12)])
    Corpus.from_documents(docs, vocab=words,
                          split=["test", "train", "test"]).save(tmp_path / "docs.npz")
    save_model(tmp_path / "a.npz", LDAModel(*model_a, vocab=words))
    # B's file lists the same words in another order: the command must match them by word
    order = np.random.default_rng(0).permutation(12)
    save_model(tmp_path / "b.npz", LDAModel(model_b[0][:, order], model_b[1],
                                            vocab=words[order]))
    return tmp_path, docs, model_a, model_b


def test_compare_command(saved):
    path, docs, model_a, model_b = saved
    out = path / "cmp.csv"
    base = ["compare", "--model-a", str(path / "a.npz"), "--model-b", str(path / "b.npz"),
            "--docs", str(path / "docs.npz"), "--out", str(out), "--samples", "2",
            "--temperatures", "6", "--seed", "3"]
    assert cli.main(base + ["--split", "test", "--method", "both", "--burnin", "4"]) == 0
    frame = pd.read_csv(out, dtype={"name": str})
    assert list(frame.columns) == ["method", "doc", "name", "tokens", "log_ratio_nats",
                                   "reverse_nats", "reciprocal_gap_nats", "suspect",
                                   "site_updates", "seconds", "samples", "temperatures", "seed",
                                   "settings"]
    assert list(frame.columns) == [name for name, _ in OUTPUT_COLUMNS["compare"]]
    test_docs = [docs[0], docs[2]]
    expected = lda.compare(test_docs, model_a, model_b, samples=2, temperatures=6, seed=3,
                           burnin=4)
    ratio = frame[frame["method"] == "ratio_ais"]
    np.testing.assert_array_equal(ratio["log_ratio_nats"], expected.log_ratio)
    np.testing.assert_array_equal(ratio["reciprocal_gap_nats"], expected.reciprocal_gap)
    np.testing.assert_array_equal(ratio["suspect"], expected.suspect)
    assert ratio["name"].tolist() == ["0", "2"]
    std = frame[frame["method"] == "standard"]
    np.testing.assert_array_equal(
        std["log_ratio_nats"], lda.compare_standard(test_docs, model_a, model_b, samples=2,
                                               temperatures=6, seed=3))
    assert std["reverse_nats"].isna().all()
    # the resolved settings, defaults included, per method
    assert json.loads(ratio["settings"].iloc[0]) == {
        "burnin": 4, "completion": False, "reciprocal": True, "samples": 2, "start": "gibbs",
        "temperatures": 6, "threshold": 1.0}
    assert json.loads(std["settings"].iloc[0]) == {"completion": False, "samples": 2,
                                                   "temperatures": 6}
    # seconds: each method's kernel time shared equally by its rows
    for part in (ratio, std):
        assert part["seconds"].nunique() == 1 and part["seconds"].iloc[0] >= 0
    assert cli.main(base + ["--completion", "--completion-split", "2", "--no-reciprocal"]) == 0
    frame = pd.read_csv(out)
    np.testing.assert_array_equal(
        frame["log_ratio_nats"], lda.compare(docs, model_a, model_b, samples=2, temperatures=6,
                                        seed=3, completion=True, split=2,
                                        reciprocal=False).log_ratio)
    assert frame["reverse_nats"].isna().all()
    assert json.loads(frame["settings"].iloc[0])["split"] == 2


def test_compare_command_errors(saved, capsys):
    path, docs, _, _ = saved
    save_model(path / "g.npz", GaPModel(np.full((5, 12), 0.1), np.full(5, 0.5), np.ones(5)))
    base = ["compare", "--model-a", str(path / "a.npz"), "--docs", str(path / "docs.npz"),
            "--out", str(path / "o.csv")]
    assert cli.main(base + ["--model-b", str(path / "g.npz")]) == 1
    assert "--model-b is a gapfa model" in capsys.readouterr().err
    assert cli.main(base + ["--model-b", str(path / "b.npz"), "--completion-split", "2"]) == 1
    assert "--completion-split needs --completion" in capsys.readouterr().err
    assert cli.main(base + ["--model-b", str(path / "b.npz"), "--completion", "--method",
                            "standard"]) == 1
    assert "only implemented for --method ratio_ais" in capsys.readouterr().err
    assert cli.main(base + ["--model-b", str(path / "b.npz"), "--threshold", "-1"]) == 1
    assert "threshold must be a positive" in capsys.readouterr().err
    assert not (path / "o.csv").exists()
