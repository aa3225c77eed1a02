"""Seed-003 workflow functions: config -> shard grid, the shard and summary jobs (rows independent
of the sharding and the thread count), input checks, and the config block's schema."""


import numpy as np
import pandas as pd
import pytest

from topiceval.corpus import Corpus
from topiceval.experiments import foulds_smyth as fs
from topiceval.experiments.tasks import shard_names, shard_tasks
from topiceval.models import GaPModel, LDAModel, save_model
from workflow_config import assert_schema_rejects, load_config


def toy_block(**changes):
    """A foulds_smyth block for 4 held-out documents at the smallest budgets."""
    cfg = {"enabled": True, "corpus": "toy/asis", "seed": 2,
           "train": {"topics": 3, "alpha_m": 0.1, "beta": 0.01, "sweeps": 5, "blocks": 1,
                     "seed": 0},
           "perturbations": {"prior": {"concentration": 0.05, "weight": 0.05, "seed": 0},
                             "uniform": {"concentration": 1.0, "weight": 0.05, "seed": 1}},
           "headline": "prior", "docs": 4, "scale": 0.001, "burnin": 3, "threshold": 1.0,
           "projected_docs": 130, "shards": {"by": "task", "block": 2}}
    cfg.update(changes)
    return cfg


@pytest.fixture(scope="module")
def toy_files(tmp_path_factory):
    """A corpus over 12 words (every third document held out) and a 3-topic model of it."""
    path = tmp_path_factory.mktemp("fs")
    rng = np.random.default_rng(8)
    phi = rng.dirichlet(np.full(12, 0.3), size=3)
    docs = []
    for n in rng.integers(3, 9, size=15):
        z = rng.choice(3, size=n, p=rng.dirichlet(np.full(3, 0.5)))
        docs.append(np.array([rng.choice(12, p=phi[t]) for t in z]))
    split = ["test" if d % 3 == 0 else "train" for d in range(15)]
    Corpus.from_documents(docs, vocab=[f"w{v}" for v in range(12)], split=split,
                          meta={"dataset": "toy", "variant": "asis"}).save(path / "c.npz")
    save_model(path / "m.npz", LDAModel(phi, np.full(3, 0.2), vocab=[f"w{v}" for v in range(12)]))
    return path


@pytest.mark.parametrize(("overlay", "shards_per_perturbation"),
                         [(None, 8), ("quick.yaml", 1), ("paper.yaml", 52)])
def test_shipped_configs_give_the_documented_grids(overlay, shards_per_perturbation):
    cfg = load_config(overlay)["foulds_smyth"]
    shards = fs.workflow_shards(cfg)
    for name in cfg["perturbations"]:
        assert len(shard_names(shards, name)) == shards_per_perturbation
        tasks = [t for (p, _), part in shards.items() if p == name for t in part]
        # every (method, budget) covers the documents 0..docs-1 exactly once
        for method in fs.METHODS:
            for budget in ("cheap", "expensive"):
                covered = np.concatenate([np.arange(t.doc_start, t.doc_stop) for t in tasks
                                          if (t.method, t.budget.name) == (method, budget)])
                np.testing.assert_array_equal(np.sort(covered), np.arange(cfg["docs"]))
    if overlay == "paper.yaml":  # the paper's budgets: 1 x 100 and 100 x 1000
        budgets = {t.budget for part in shards.values() for t in part}
        assert budgets == {fs.Budget("cheap", 1, 100), fs.Budget("expensive", 100, 1000)}


def test_grid_and_shard_lookup_reject_bad_settings():
    with pytest.raises(ValueError, match="unknown shards.by 'document'"):
        fs.workflow_shards(toy_block(shards={"by": "document", "block": 2}))
    with pytest.raises(ValueError, match="headline 'none' is not one of"):
        fs.workflow_shards(toy_block(headline="none"))
    shards = fs.workflow_shards(toy_block())
    with pytest.raises(ValueError, match="no tasks in shard prior/f1-nope"):
        shard_tasks(shards, "prior", "f1-nope")
    one = shard_tasks(shards, "prior", shard_names(shards, "prior")[0])
    assert len(one) == 1 and isinstance(one[0].budget.samples, int)


def _run(toy_files, tmp_path, by, threads):
    """Every shard of the toy grid for both perturbations, then the summary of each."""
    cfg = toy_block(shards={"by": by, "block": 2})
    shards = fs.workflow_shards(cfg)
    out = {}
    for name, perturbation in cfg["perturbations"].items():
        rows, timings = [], []
        for shard in shard_names(shards, name):
            rows.append(tmp_path / f"{by}-{threads}-{name}-{shard}.csv")
            timings.append(tmp_path / f"{by}-{threads}-{name}-{shard}-t.csv")
            fs.evaluate_shard(shard_tasks(shards, name, shard), toy_files / "c.npz",
                              toy_files / "m.npz", rows[-1], timings[-1], docs=cfg["docs"],
                              seed=cfg["seed"], perturbation=perturbation, burnin=cfg["burnin"],
                              threads=threads)
        prefix = tmp_path / f"{by}-{threads}-{name}"
        fs.summarise(rows, timings, f"{prefix}-rows.csv", f"{prefix}-f1.csv",
                     f"{prefix}-x1.csv", f"{prefix}-cost.csv", projected_docs=10)
        out[name] = {kind: pd.read_csv(f"{prefix}-{kind}.csv")
                     for kind in ("rows", "f1", "x1", "cost")}
    return out


@pytest.mark.two_threads
def test_shard_and_summary_jobs_do_not_depend_on_sharding_or_threads(toy_files, tmp_path):
    by_task = _run(toy_files, tmp_path, "task", 1)
    by_perturbation = _run(toy_files, tmp_path, "perturbation", 2)
    for name in ("prior", "uniform"):
        a, b = by_task[name], by_perturbation[name]
        for kind in ("rows", "f1", "x1"):
            pd.testing.assert_frame_equal(a[kind], b[kind])
        rows = a["rows"]
        assert len(rows) == 2 * 2 * 4  # methods x budgets x documents
        assert "seconds" not in rows.columns  # wall-clock only under timings
        assert np.isfinite(rows["log_ratio"]).all()
        ratio = rows[rows["method"] == "ratio_ais"]
        assert np.isfinite(ratio["reciprocal_gap"]).all()
        assert (a["cost"]["projected_docs"] == 10).all()
        assert (a["cost"]["seconds_per_doc"] > 0).all()
    # common random numbers: the two perturbations differ, so their estimates do too
    assert not np.array_equal(by_task["prior"]["rows"]["log_ratio"],
                              by_task["uniform"]["rows"]["log_ratio"])


def test_shard_job_checks_its_inputs(toy_files, tmp_path):
    shards = fs.workflow_shards(toy_block())
    tasks = shard_tasks(shards, "prior", shard_names(shards, "prior")[0])
    args = (tmp_path / "r.csv", tmp_path / "t.csv")
    good = {"concentration": 1.0, "weight": 0.05, "seed": 0}
    save_model(tmp_path / "wide.npz", LDAModel(np.full((3, 13), 1 / 13), np.full(3, 0.2)))
    with pytest.raises(ValueError, match="carries no word list"):
        fs.evaluate_shard(tasks, toy_files / "c.npz", tmp_path / "wide.npz", *args,
                          perturbation=good)
    save_model(tmp_path / "gap.npz", GaPModel(np.full((3, 12), 1 / 12), np.full(3, 0.5),
                                              np.ones(3)))
    with pytest.raises(ValueError, match="a gapfa model; Foulds & Smyth compare LDA models"):
        fs.evaluate_shard(tasks, toy_files / "c.npz", tmp_path / "gap.npz", *args,
                          perturbation=good)
    with pytest.raises(ValueError, match=r"unknown perturbation setting\(s\) \['scale'\]"):
        fs.evaluate_shard(tasks, toy_files / "c.npz", toy_files / "m.npz", *args,
                          perturbation={**good, "scale": 2})
    with pytest.raises(ValueError, match="9 held-out documents requested but the corpus has 5"):
        fs.evaluate_shard(tasks, toy_files / "c.npz", toy_files / "m.npz", *args, docs=9,
                          perturbation=good)
    assert not list(tmp_path.glob("*.csv"))  # nothing written on failure


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("shards", "by"), "document", "'document' is not one of"),
        (("perturbations", "prior", "weight"), 1.0, "greater than or equal to the maximum"),
        (("docs",), 0, "0 is less than the minimum of 1"),
        (("train", "burnin"), 5, "'burnin' was unexpected"),
    ],
)
def test_schema_bounds_the_foulds_smyth_block(path, value, message):
    assert_schema_rejects(("foulds_smyth", *path), value, message)
