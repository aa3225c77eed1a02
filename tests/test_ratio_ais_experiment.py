"""Seed-003 experiment functions (003-F1, 003-X1), their captions and figures."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from topiceval import perturb
from topiceval.estimators import lda
from topiceval.estimators.lda import exact
from topiceval.experiments import foulds_smyth as fs
from topiceval.experiments.timings import split_timings
from topiceval.plots import foulds_smyth as plots
from topiceval.seeds import derive_seed


@pytest.fixture(scope="module")
def data():
    """A small LDA model and documents drawn from it (§1.1)."""
    rng = np.random.default_rng(1)
    phi = rng.dirichlet(np.full(60, 0.1), size=4)
    alpha_m = np.full(4, 0.2)
    docs = []
    for n in (40, 25, 60, 30, 45):
        z = rng.choice(4, size=n, p=rng.dirichlet(alpha_m))
        docs.append(np.array([rng.choice(60, p=phi[t]) for t in z]))
    return docs, phi, alpha_m


def test_budgets_and_perturbed_topics():
    assert fs.budgets(1.0) == (fs.Budget("cheap", 1, 100), fs.Budget("expensive", 100, 1000))
    assert fs.budgets(0.05) == (fs.Budget("cheap", 1, 100), fs.Budget("expensive", 5, 100))
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.ones(30), size=3)
    pert = fs.perturbed_topics(phi, seed=4)
    np.testing.assert_allclose(pert, 0.95 * phi + 0.05 * perturb.random_topics(3, 30, seed=4),
                               rtol=1e-15)
    np.testing.assert_allclose(pert.sum(axis=1), 1.0, rtol=1e-12)


def test_task_grid():
    tasks = fs.f1_tasks(25, scale=0.1, block=10)
    names = [t.name for t in tasks]
    assert len(tasks) == 2 * 2 * 3 and len(set(names)) == len(names)
    assert names[0] == "f1-standard-cheap-00000"
    exp = [t for t in tasks if t.method == "ratio_ais" and t.budget.name == "expensive"]
    assert {(t.budget.samples, t.budget.temperatures) for t in exp} == {(10, 100)}
    assert [t.doc_stop for t in exp] == [10, 20, 25]
    assert {t.method for t in fs.f1_tasks(3, methods=["ratio_ais"])} == {"ratio_ais"}
    with pytest.raises(ValueError, match="unknown method"):
        fs.f1_tasks(3, methods=["hm"])
    with pytest.raises(ValueError, match="block"):
        fs.f1_tasks(3, block=0)


def small_tasks(n_docs, block):
    small = {"cheap": fs.Budget("cheap", 1, 20),  # keep the test fast
             "expensive": fs.Budget("expensive", 3, 60)}
    return [dataclasses.replace(t, budget=small[t.budget.name])
            for t in fs.f1_tasks(n_docs, scale=0.01, block=block)]


def run_all(tasks, docs, phi, am):
    return pd.concat([fs.run_shard(t, docs, phi, am, seed=3, burnin=10) for t in tasks],
                     ignore_index=True)


def test_shards_do_not_depend_on_blocking_and_match_the_estimators(data):
    docs, phi, am = data
    one = run_all(small_tasks(5, 5), docs, phi, am)
    two = run_all(small_tasks(5, 2), docs, phi, am)
    assert list(one.columns) == fs.ROW_COLUMNS and len(one) == 4 * 5
    cols = ["method", "budget", "doc", "log_ratio", "reverse", "suspect", "site_updates"]
    pd.testing.assert_frame_equal(one[cols], two[cols])
    pert = fs.perturbed_topics(phi)
    row = one[(one["method"] == "ratio_ais") & (one["budget"] == "expensive")]
    seed = derive_seed(3, "003-F1", "ratio_ais", "expensive")
    res = lda.compare(docs, (phi, am), (pert, am), samples=3, temperatures=60, seed=seed,
                      burnin=10)
    np.testing.assert_array_equal(row["log_ratio"], res.log_ratio)
    np.testing.assert_array_equal(row["reciprocal_gap"], res.reciprocal_gap)
    std = one[(one["method"] == "standard") & (one["budget"] == "cheap")]
    seed = derive_seed(3, "003-F1", "standard", "cheap")
    np.testing.assert_allclose(std["log_ratio"], lda.compare_standard(
        docs, (phi, am), (pert, am), samples=1, temperatures=20, seed=seed), rtol=1e-12)
    assert std["reverse"].isna().all() and not std["suspect"].any()
    truth = [exact.log_prob(d, phi, am) - exact.log_prob(d, pert, am) for d in docs]
    # a sanity check of what the shard estimates (3 samples, 60 temperatures: about 0.1 nats of
    # error per document); a swapped pair of models would be off by 2 |truth|, 1.4 nats on
    # average here.  Accuracy is tested in test_ratio_ais_unbiased.py.
    assert np.mean(np.abs(row["log_ratio"].to_numpy() - truth)) < 0.25
    with pytest.raises(ValueError, match="does not fit"):
        fs.run_shard(small_tasks(9, 9)[0], docs, phi, am)


def fake_rows(values):
    """Rows with given per-document log ratios for (method, budget)."""
    rows = []
    for (method, budget), logr in values.items():
        for d, x in enumerate(logr):
            gap = 0.1 * (d + 1) if method == "ratio_ais" else np.nan
            rows.append({"method": method, "budget": budget, "samples": 1,
                         "temperatures": 100 if budget == "cheap" else 1000, "doc": d,
                         "tokens": 100, "log_ratio": x, "reverse": -x - gap if gap == gap
                         else np.nan, "reciprocal_gap": gap,
                         "suspect": bool(gap == gap and gap > 1.0), "site_updates": 10,
                         "seconds": 0.5, "threads": 1})
    return pd.DataFrame(rows)


def test_summary_shares_intervals_and_captions(tmp_path):
    n = 20
    good = np.linspace(0.5, 5, n)
    rows = fake_rows({("standard", "cheap"): np.where(np.arange(n) % 2, good, -good),
                      ("ratio_ais", "cheap"): np.where(np.arange(n) < 19, good, -good),
                      ("standard", "expensive"): np.where(np.arange(n) < 15, good, -good),
                      ("ratio_ais", "expensive"): good})
    summary = fs.f1_summary(rows)
    assert summary[["method", "budget"]].values.tolist() == [
        ["standard", "cheap"], ["standard", "expensive"], ["ratio_ais", "cheap"],
        ["ratio_ais", "expensive"]]
    s = summary.set_index(["method", "budget"])
    assert s.loc[("ratio_ais", "cheap"), "share"] == 0.95
    assert s.loc[("standard", "cheap"), "share"] == 0.5
    assert s.loc[("standard", "cheap"), "paper_share"] == 0.52
    assert np.isnan(s.loc[("ratio_ais", "expensive"), "paper_share"])
    lo, hi = s.loc[("standard", "cheap"), ["ci_low", "ci_high"]]
    assert lo == pytest.approx(0.299, abs=1e-3) and hi == pytest.approx(0.701, abs=1e-3)
    assert s.loc[("standard", "expensive"), "agree_with_reference"] == 0.75
    assert s.loc[("ratio_ais", "expensive"), "suspect_share"] == pytest.approx(0.5)
    assert np.isnan(s.loc[("standard", "cheap"), "suspect_share"])
    text = plots.caption_f1(summary)
    assert "ratio-AIS, cheap: prefers the unperturbed topics on 95% (19/20" in text
    assert "(paper 95%)" in text and "(paper 52%)" in text
    assert ("ratio-AIS prefers the unperturbed topics on 95%, the standard method on 50% "
            "(the paper: 95% against 52%)" in text)
    assert "on 95% of the documents, the cheap standard one on 50% (the paper:" in text
    # the verdicts are the ledger's (topiceval.ledger.caption_verdicts), never the caption's own
    assert "- 003-F1-ratio-majority, " in text and "DISAGREES" not in text
    assert '(95% against 52%)": agrees: panels agreeing 1 of 1' in text
    assert "judged on the prior perturbation" in plots.caption_f1(summary,
                                                                    perturbation="uniform")
    assert ("budgets (importance samples x annealing temperatures): cheap = 1 x 100; "
            "expensive = 1 x 1000") in text
    worse = fs.f1_summary(fake_rows({("standard", "cheap"): good,
                                     ("ratio_ais", "cheap"): -good}))
    assert '(95% against 52%)": disagrees: panels agreeing 0 of 1' in plots.caption_f1(worse)

    rec = fs.reciprocal_summary(rows)
    assert rec["budget"].tolist() == ["cheap", "expensive"]
    assert rec["q50"].iloc[0] == pytest.approx(np.median(0.1 * np.arange(1, n + 1)))
    assert rec["suspect"].tolist() == [10, 10] and rec["negative_share"].tolist() == [0.0, 0.0]
    assert "flagged 10 of 20" in plots.caption_reciprocal(rec)
    assert "- 003-X1-gap-shrinks, " in plots.caption_reciprocal(rec)
    with pytest.raises(ValueError, match="no ratio-AIS rows"):
        fs.reciprocal_summary(rows[rows["method"] == "standard"])
    with pytest.raises(ValueError, match="repeat document 0"):
        fs.f1_summary(pd.concat([rows, rows.iloc[:1]]))

    estimates, timings = split_timings(rows, fs.TIMING_KEYS)
    assert "seconds" not in estimates.columns
    cost = fs.projected_cost(timings, n_docs=130)
    assert cost["projected_hours"].tolist() == pytest.approx([0.5 * 130 / 3600] * 4)
    assert cost["ns_per_site_update"].tolist() == pytest.approx([0.5e9 / 10] * 4)
    with pytest.raises(ValueError, match="lack column"):
        fs.projected_cost(estimates)

    plots.plot_f1(rows, tmp_path / "f1.png")
    plots.plot_reciprocal(rows, tmp_path / "x1.pdf")
    assert (tmp_path / "f1.png").stat().st_size > 1000
    assert (tmp_path / "x1.pdf").stat().st_size > 1000
