"""Seed-002 workflow functions: config -> data sets and task grid, held-out documents, training,
synthetic sets, shard files, tables independent of sharding and threads, figures and T1 files."""


import numpy as np
import pandas as pd
import pytest

from topiceval.corpus import Corpus
from topiceval.experiments import wallach2009 as w
from topiceval.experiments.tasks import shard_names, shard_tasks
from topiceval.models import LDAModel, load_model, save_model
from topiceval.plots import wallach2009 as plots
from workflow_config import assert_schema_rejects, load_config


def toy_block(**changes):
    """A small wallach2009 block: a synthetic and a real data set, tiny scales."""
    cfg = {
        "enabled": True, "seed": 3, "topics": 4, "n_docs": 5, "runs": 3, "bootstrap": 200,
        "datasets": {"synth": {"corpus": "toy/asis", "topics": 3, "doc_length": 12},
                     "real": {"corpus": "toy/asis"}},
        "train": {"sweeps": 30, "alpha_sum": 5.0, "beta": 0.01, "optimize_burnin": 10,
                  "optimize_interval": 5, "blocks": 1},
        "shards": {"by": "setting", "block": 2},
        "f1": {"datasets": ["synth", "real"], "scale": 0.002, "long_ais": ["real"],
               "exact": ["synth"]},
        "f2": {"datasets": ["real"], "scale": 0.002},
        "f3": {"dataset": "synth", "scale": 0.002, "lambdas": [0.0, 0.5], "concentration": 1.0,
               "perturbation_seed": 1},
        "t1": {"dataset": "synth", "repeats": 1},
        "x1": {"datasets": [], "exact": [], "docs": 2, "runs": 2, "doublings": 1,
               "ladders": {"ais": 5, "chib": 5, "lr": 5}},
    }
    cfg.update(changes)
    return cfg


@pytest.fixture(scope="module")
def toy_corpus():
    """60 documents from a 3-topic model over 30 words; every fourth one in the test split."""
    rng = np.random.default_rng(5)
    phi = rng.dirichlet(np.full(30, 0.2), size=3)
    docs = []
    for n in rng.integers(1, 40, size=60):
        z = rng.choice(3, size=n, p=rng.dirichlet(np.full(3, 0.3)))
        docs.append(np.array([rng.choice(30, p=phi[t]) for t in z]))
    split = ["test" if d % 4 == 0 else "train" for d in range(60)]
    return Corpus.from_documents(docs, vocab=[f"w{v}" for v in range(30)], split=split,
                                 meta={"dataset": "toy", "variant": "asis"})


def all_tasks(shards):
    return [t for tasks in shards.values() for t in tasks]


def test_shipped_configs_give_the_documented_grids():
    quick = w.workflow_shards(load_config("quick.yaml")["wallach2009"])
    assert {f: len(shard_names(quick, f)) for f in ("f1", "f2", "f3")} == {
        "f1": 1, "f2": 1, "f3": 1}
    default = w.workflow_shards(load_config()["wallach2009"])
    assert all(len(t) == 1 for t in default.values())  # by setting, one 50-document block
    paper_cfg = load_config("paper.yaml")["wallach2009"]
    paper = w.workflow_shards(paper_cfg)
    assert len(paper) >= 100 and all(len(t) == 1 for t in paper.values())
    assert {t.doc_stop - t.doc_start for t in all_tasks(paper)} == {10}
    assert w.data_sets(paper_cfg)["20newsgroups"].topics == 200
    assert {t.dataset for t in all_tasks(paper) if t.setting.label == "AIS 2"} == {
        "20newsgroups"}
    sets = w.data_sets(load_config()["wallach2009"])
    assert [(s.name, s.topics, s.doc_length) for s in sets.values() if s.synthetic] == [
        ("synthetic-3", 3, 500), ("synthetic-50", 50, 200)]
    assert (sets["ap"].dataset, sets["ap"].variant, sets["ap"].synthetic) == ("ap", "asis", False)


def test_shard_levels_group_the_same_tasks():
    cfg = toy_block()
    by_setting = w.workflow_shards(cfg)
    assert [shard for _, shard in by_setting] == [t.name for t in all_tasks(by_setting)]
    figures = [figure for figure, _ in by_setting]
    assert figures == sorted(figures)  # f1, f2, f3 in order
    by_dataset = w.workflow_shards(toy_block(shards={"by": "dataset", "block": 2}))
    assert set(shard_names(by_dataset, "f1")) == {
        f"f1-{d}-{lo:05d}" for d in ("synth", "real") for lo in (0, 2, 4)}
    by_figure = w.workflow_shards(toy_block(shards={"by": "figure", "block": 5}))
    assert list(by_figure) == [("f1", "f1-00000"), ("f2", "f2-00000"), ("f3", "f3-00000")]
    tasks = shard_tasks(by_figure, "f3", "f3-00000")
    assert len(tasks) == 2 * 2 * 4 and {t.lam for t in tasks} == {0.0, 0.5}
    assert all(t.lam is None and t.kind == "" for t in shard_tasks(by_figure, "f1", "f1-00000"))
    with pytest.raises(ValueError, match="no tasks in shard f1/nope"):
        shard_tasks(by_figure, "f1", "nope")
    with pytest.raises(ValueError, match="unknown shard level 'block'"):
        w.workflow_shards(toy_block(shards={"by": "block", "block": 2}))
    with pytest.raises(ValueError, match=r"f2.datasets names unknown data sets \['nips'\]"):
        w.workflow_shards(toy_block(f2={"datasets": ["nips"], "scale": 1.0}))
    with pytest.raises(ValueError, match="t1.dataset"):
        w.workflow_shards(toy_block(t1={"dataset": "other", "repeats": 1}))
    with pytest.raises(ValueError, match="corpus must be 'dataset/variant'"):
        w.data_sets(toy_block(datasets={"x": {"corpus": "toy"}}))


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("shards", "by"), "document", "'document' is not one of"),
        (("f3", "lambdas"), [0.25, 0.5], "does not contain items matching"),
        (("f1", "scale"), 0, "less than or equal to the minimum of 0"),
        (("datasets", "ap", "doc_length"), 1, "1 is less than the minimum of 2"),
        (("train", "burnin"), 5, "'burnin' was unexpected"),
        (("runs",), 0, "0 is less than the minimum of 1"),
    ],
)
def test_schema_bounds_the_wallach2009_block(path, value, message):
    assert_schema_rejects(("wallach2009", *path), value, message)


def test_heldout_sample(toy_corpus):
    held = w.heldout_sample(toy_corpus, 6, seed=2)
    assert held.n_docs == 6 and set(held.split) == {"test"} and held.lengths.min() >= 2
    index = [int(n) for n in held.names]
    assert index == sorted(index) and all(i % 4 == 0 for i in index)
    for name, doc in zip(held.names, held, strict=True):
        np.testing.assert_array_equal(doc, toy_corpus[int(name)])  # ordered: tokens kept
    assert held.names.tolist() == w.heldout_sample(toy_corpus, 6, seed=2).names.tolist()
    assert held.names.tolist() != w.heldout_sample(toy_corpus, 6, seed=3).names.tolist()
    assert held.meta["heldout"]["tokens_shuffled"] is False
    bag = Corpus(toy_corpus.offsets, toy_corpus.tokens, toy_corpus.vocab, toy_corpus.names,
                 toy_corpus.split, {"ordered": False})
    shuffled = w.heldout_sample(bag, 6, seed=2)
    assert shuffled.names.tolist() == held.names.tolist()
    assert any(not np.array_equal(a, b) for a, b in zip(shuffled, held, strict=True))
    for a, b in zip(shuffled, held, strict=True):
        np.testing.assert_array_equal(np.sort(a), np.sort(b))
    with pytest.raises(ValueError, match="asked for 16 held-out documents; the .test. split"):
        w.heldout_sample(toy_corpus, 16)


def test_train_model_and_synthetic_set(toy_corpus):
    settings = toy_block()["train"]
    model = w.train_model(toy_corpus, 3, seed=4, **settings)
    assert model.phi.shape == (3, 30) and model.meta["split"] == "train"
    assert model.meta["D"] == int(np.sum(toy_corpus.split == "train"))
    assert model.meta["optimize"]["alpha"] == "asymmetric"
    assert len(set(model.alpha_m.tolist())) == 3  # optimised away from 5/T each
    again = w.train_model(toy_corpus, 3, seed=4, **settings)
    np.testing.assert_array_equal(again.phi, model.phi)
    synth = w.synthetic_set(model, "synth", 7, 12, seed=1)
    assert synth.n_docs == 7 and set(synth.lengths) == {12} and set(synth.split) == {"test"}
    assert synth.meta["dataset"] == "synth" and "9.2" in synth.meta["synthetic"]["rule"]


@pytest.fixture(scope="module")
def toy_files(tmp_path_factory, toy_corpus):
    """Documents and model files of the toy block's two data sets."""
    root = tmp_path_factory.mktemp("w2")
    cfg = toy_block()
    real = w.train_model(toy_corpus, 4, seed=3, **cfg["train"])
    truth = w.train_model(toy_corpus, 3, seed=3, **cfg["train"])
    save_model(root / "real.npz", real)
    save_model(root / "synth.npz", truth)
    w.heldout_sample(toy_corpus, 5, seed=3).save(root / "real-docs.npz")
    w.synthetic_set(truth, "synth", 5, 12, seed=3).save(root / "synth-docs.npz")
    return root


def run_grid(cfg, files, out, threads=1):
    """What the rules do: every shard, then each figure's summary; the tables' bytes."""
    shards = w.workflow_shards(cfg)
    tables = {}
    for figure in dict.fromkeys(figure for figure, _ in shards):
        rows, times = [], []
        for shard in shard_names(shards, figure):
            records = shard_tasks(shards, figure, shard)
            names = list(dict.fromkeys(t.dataset for t in records))
            rows.append(out / f"{shard}.csv")
            times.append(out / f"{shard}.timings.csv")
            w.evaluate_shard(records, [files / f"{n}-docs.npz" for n in names],
                             [files / f"{n}.npz" for n in names], rows[-1], times[-1],
                             seed=cfg["seed"], runs=cfg["runs"], threads=threads,
                             perturbation_seed=cfg["f3"]["perturbation_seed"],
                             concentration=cfg["f3"]["concentration"])
        table = out / f"table-{figure}.csv"
        w.summarise_figure(figure, rows, times, table, out / f"timings-{figure}.csv",
                           n_boot=cfg["bootstrap"], seed=cfg["seed"])
        tables[figure] = table.read_bytes()
    return tables


@pytest.mark.two_threads
def test_tables_do_not_depend_on_sharding_or_threads(toy_files, tmp_path):
    cfg = toy_block()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    fine = run_grid(cfg, toy_files, tmp_path / "a", threads=1)
    coarse = run_grid(toy_block(shards={"by": "figure", "block": 5}), toy_files, tmp_path / "b",
                      threads=2)
    assert fine == coarse
    rows = pd.read_csv(tmp_path / "b" / "f1-00000.csv")
    assert "seconds" not in rows and "threads" not in rows
    times = pd.read_csv(tmp_path / "b" / "f1-00000.timings.csv")
    assert len(times) == len(rows) and times["threads"].eq(2).all()
    f1 = pd.read_csv(tmp_path / "a" / "table-f1.csv")
    assert "seconds" not in f1
    assert set(f1["dataset"]) == {"synth", "real"} and (f1["docs"] == 5).all()
    assert f1[f1["setting"] == "Exact"]["boot_sd"].tolist() == [0.0]
    assert set(f1[f1["dataset"] == "real"]["setting"]) >= {"AIS 2", "LR 2"}
    cost = pd.read_csv(tmp_path / "a" / "timings-f1.csv")
    assert {"seconds", "ns_per_site_update"} <= set(cost.columns)
    assert len(cost) == len(f1)
    f3 = pd.read_csv(tmp_path / "a" / "table-f3.csv")
    assert set(f3["lam"]) == {0.0, 0.5} and set(f3["kind"]) == {"phi", "m"}


def test_shard_checks_its_inputs(toy_files, tmp_path):
    shards = w.workflow_shards(toy_block())
    records = shard_tasks(shards, *next(iter(shards)))
    with pytest.raises(ValueError, match=r"data sets \['synth'\], but 2 document"):
        w.evaluate_shard(records, [toy_files / "synth-docs.npz"] * 2, [toy_files / "synth.npz"],
                         tmp_path / "r.csv", tmp_path / "t.csv")
    with pytest.raises(ValueError, match="carries no word list"):
        model = load_model(toy_files / "synth.npz")
        save_model(tmp_path / "small.npz", LDAModel(model.phi[:, :20] / model.phi[:, :20].sum(
            1, keepdims=True), model.alpha_m))
        w.evaluate_shard(records, [toy_files / "synth-docs.npz"], [tmp_path / "small.npz"],
                         tmp_path / "r.csv", tmp_path / "t.csv")
    assert not (tmp_path / "r.csv").exists()
    with pytest.raises(ValueError, match="unknown wallach2009 figure 'f4'"):
        w.summarise_figure("f4", [], [], tmp_path / "x.csv", tmp_path / "y.csv")


def test_convergence_study_x1(toy_files, tmp_path):
    """002-X1 (issue 33 item 7): budgets doubling from the first, LR giving LR-W, the exact
    value where asked; only X1 when F1-F3 and T1 are left out; its figure and caption."""
    x1 = {"datasets": ["synth", "real"], "exact": ["synth"], "docs": 3, "runs": 3,
          "doublings": 2, "ladders": {"ais": 5, "chib": 4, "lr": 4}}
    cfg = toy_block(f1={"datasets": [], "scale": 1.0, "long_ais": [], "exact": []},
                    f2={"datasets": [], "scale": 1.0}, f3={**toy_block()["f3"], "dataset": None},
                    t1={"dataset": None, "repeats": 1}, x1=x1)
    shards = w.workflow_shards(cfg)
    assert {figure for figure, _ in shards} == {"x1"}
    labels = {t.setting.label for t in all_tasks(shards) if t.dataset == "real"}
    assert labels == {"AIS 5", "AIS 10", "AIS 20", "CS 4", "CS 8", "CS 16", "LR 4", "LR 8",
                      "LR 16"}
    assert {t.doc_stop for t in all_tasks(shards)} == {2, 3}  # blocks of 2 of the first 3
    assert "Exact" in {t.setting.label for t in all_tasks(shards) if t.dataset == "synth"}
    run_grid(cfg, toy_files, tmp_path)
    table = pd.read_csv(tmp_path / "table-x1.csv")
    assert set(table["method"]) == {"exact", "ais", "chib", "lr", "lr_wallach"}
    assert (table["docs"] == 3).all()
    plots.figure_files("x1", tmp_path / "table-x1.csv", tmp_path / "x1.png", tmp_path / "x1.md")
    caption = (tmp_path / "x1.md").read_text()
    assert caption.startswith(f"{w.PAPER}, beyond the paper (issue 33)")
    assert "- real, AIS: AIS 5 " in caption and "from LR-W at the paper's budget" in caption
    assert "- synth, CS: " in caption and "from the exact value" in caption
    assert "- real, LR-W: LR-W 4 " in caption
    with pytest.raises(ValueError, match="x1.docs = 9 asks for more than the n_docs = 5"):
        w.workflow_shards(toy_block(x1={**x1, "docs": 9}))
    with pytest.raises(ValueError, match="unknown method 'hm'"):
        w.x1_settings({"hm": 10}, 1)


def test_data_line_names_the_stand_ins_beside_the_paper_sizes():
    """Issue 33 item 2: AP and KOS stand in for PubMed and the New York Times, the synthetic
    sets' models are fitted to NIPS, not CS abstracts; sizes side by side."""
    sets = w.data_sets(load_config()["wallach2009"])
    stats = pd.DataFrame([
        {"dataset": d, "variant": v, "split": "all", "D": n, "V": vocab, "mean_length": mean,
         "sd_length": sd}
        for d, v, n, vocab, mean, sd in [("nips", "wallach2009", 2325, 23870, 1572.2, 317.6),
                                         ("20newsgroups", "wallach2009", 18842, 22924, 118.8,
                                          295.9),
                                         ("ap", "asis", 2246, 10473, 194.1, 111.1),
                                         ("kos", "asis", 3430, 6906, 136.4, 96.8)]])
    text = w.data_text(sets, stats)
    assert ("synthetic-3 (T = 3, 500 tokens per document): true model fitted to nips/wallach2009 "
            "(2,325 documents, V 23,870), standing in for the paper's CS abstracts (V 9,242)"
            in text)
    assert "20newsgroups: V 22,924, 118.8 +/- 295.9 tokens (the paper's: V 22,695" in text
    assert ("ap: V 10,473, 194.1 +/- 111.1 tokens, standing in for the paper's PubMed Central "
            "abstracts (V 30,262, 101.8 +/- 49.2; not available)") in text
    assert w.stand_ins(sets) == (
        "ap stands in for the paper's PubMed Central abstracts; kos stands in for the paper's "
        "New York Times articles; the synthetic sets' true models are fitted to nips, not to "
        "CS abstracts")


@pytest.mark.slow
def test_figure_and_cost_files(toy_files, tmp_path):
    cfg = toy_block(shards={"by": "figure", "block": 5})
    run_grid(cfg, toy_files, tmp_path)
    stats = tmp_path / "corpus_stats.csv"
    pd.DataFrame([{"dataset": "toy", "variant": "asis", "split": "all", "D": 60, "V": 30,
                   "mean_length": 20.5, "sd_length": 11.0}]).to_csv(stats, index=False)
    for figure in ("f1", "f2", "f3"):
        for suffix in ("png", "pdf"):
            out = tmp_path / f"{figure}.{suffix}"
            plots.figure_files(figure, tmp_path / f"table-{figure}.csv", out,
                               tmp_path / f"{figure}.md", sets=w.data_sets(cfg),
                               stats_path=stats)
            first = out.read_bytes()
            plots.figure_files(figure, tmp_path / f"table-{figure}.csv", out,
                               tmp_path / f"{figure}.md", sets=w.data_sets(cfg),
                               stats_path=stats)
            assert out.read_bytes() == first  # no creation date in the file
        assert (tmp_path / f"{figure}.md").read_text().startswith(
            f"{w.PAPER}, Figure {figure[1]}:")
    assert "synth, error against the exact value" in (tmp_path / "f1.md").read_text()
    assert ("\nData (ours beside the paper's Table 2): synth (T = 3, 12 tokens per document): "
            "true model fitted to toy/asis (60 documents, V 30); real: V 30, 20.5 +/- 11.0 "
            "tokens.\n") in (tmp_path / "f1.md").read_text()
    with pytest.raises(ValueError, match="unknown wallach2009 figure"):
        plots.figure_files("t1", tmp_path / "table-f1.csv", tmp_path / "x.png", tmp_path / "x.md")
    w.cost_files(toy_files / "synth-docs.npz", toy_files / "synth.npz", tmp_path / "t1.csv",
                 tmp_path / "t1w.csv", tmp_path / "t1.md", repeats=1)
    costs = pd.read_csv(tmp_path / "t1.csv")
    assert costs["N"].eq(12).all() and costs["T"].eq(3).all()
    assert pd.read_csv(tmp_path / "t1w.csv")["workload"].tolist() == ["CS S=1000", "LR R=20",
                                                                      "total"]
    assert f"{w.PAPER}, Table 1" in (tmp_path / "t1.md").read_text()
