"""Seed-001 workflow: the job plan from the config, training jobs (files, determinism), the
001-F4 tables and minimum, the topic tables, the figure job and the rules' job counts."""

import copy
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from topiceval.corpus import Corpus
from topiceval.experiments import bechard2018 as b
from topiceval.models import LDAModel, load_model
from topiceval.plots.bechard2018 import f4_caption, f4_figure_job, plot_perplexity_vs_topics
from topiceval.training.lda.synthetic import synthetic_corpus
from workflow_config import ROOT, SCHEMA, load_config

TINY = {"gibbs_sweeps": 8, "foldin_sweeps": 4, "vem_max_iter": 5, "sklearn_max_iter": 3}



@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    """90 synthetic documents over the paper's SPACE and RELIGION words plus fillers; every
    third document is a test document."""
    vocab = list(b.PAPER_TABLES["T2"]["SPACE"] + b.PAPER_TABLES["T2"]["RELIGION"])
    vocab += [f"w{i}" for i in range(10)]
    phi = np.full((3, len(vocab)), 0.01)
    phi[0, :5], phi[1, 5:10], phi[2, 10:] = 1.0, 1.0, 0.5
    model = LDAModel(phi / phi.sum(axis=1, keepdims=True), np.full(3, 0.3), vocab=vocab)
    docs = synthetic_corpus(model, 90, 40, seed=3)
    split = np.where(np.arange(90) % 3 == 0, "test", "train")
    path = tmp_path_factory.mktemp("b18") / "corpus.npz"
    Corpus(docs.offsets, docs.tokens, docs.vocab, docs.names, split, {}).save(path)
    return path


def rows(trainer="sklearn", definition="P4", seed=0, curve=None, train=None):
    """Hand-made perplexity rows: ``curve`` maps T to the test perplexity."""
    out = []
    for t, value in curve.items():
        for split, perplexity in (("test", value), ("train", train[t] if train else 100 / t)):
            out.append({"trainer": trainer, "T": t, "seed": seed, "split": split,
                        "definition": definition, "optimistic": False, "perplexity": perplexity,
                        "log_likelihood": -np.log(perplexity) * 50,
                        "log_likelihood_se": np.nan, "tokens": 50, "documents": 5})
    return pd.DataFrame(out, columns=b.COLUMNS)


# --------------------------------------------------------------------------- plan and schema
@pytest.mark.parametrize("overlay", [None, "quick.yaml", "paper.yaml"])
def test_plan_of_the_shipped_configs(overlay):
    cfg = load_config(overlay)["bechard2018"]
    plan = b.workflow_plan(cfg)
    assert (plan.dataset, plan.variant) == ("20newsgroups", "bechard2018")
    assert len(plan.runs) == len(cfg["trainers"]) * len(cfg["topics"]) * len(cfg["seeds"])
    assert len(set(plan.runs)) == len(plan.runs)
    assert plan.tables == {"T1": ("vem", 12, cfg["seeds"][0]),
                           "T2": ("gibbs", 12, cfg["seeds"][0])}
    assert set(plan.settings) == set(b.DEFAULTS)
    if overlay == "paper.yaml":  # the paper's sizes (docs/methods/experiments.md#bechard2018)
        assert plan.settings["gibbs_sweeps"] == 1000 and plan.settings["sklearn_max_iter"] == 10
        assert sorted({t for _, t, _ in plan.runs}) == list(b.PAPER_TOPICS)


@pytest.mark.parametrize(("key", "value", "message"), [
    ("corpus", "20newsgroups", "dataset/variant"),
    ("corpus", "a/b/c", "dataset/variant"),
    ("trainers", ["vem", "mallet"], "unknown trainer"),
    ("seeds", [], "non-empty"),
    ("topics", [0, 4], "positive"),
])
def test_plan_rejects_bad_blocks(key, value, message):
    cfg = copy.deepcopy(load_config()["bechard2018"])
    cfg[key] = value
    with pytest.raises(ValueError, match=message):
        b.workflow_plan(cfg)


@pytest.mark.parametrize(("key", "value", "message"), [
    ("gibbs_sweeps", 0, "less than the minimum"),
    ("gibbs_blocks", 1000, "greater than the maximum"),
    ("vem_tol", 0, "less than or equal to the minimum"),
    ("trainers", ["mallet"], "is not one of"),
    ("topics", [], "should be non-empty"),
    ("corpus", "20newsgroups", "does not match"),
    ("sweeps", 10, "'sweeps' was unexpected"),
])
def test_schema_rejects_bad_values(key, value, message):
    config = copy.deepcopy(load_config())
    config["bechard2018"][key] = value
    with pytest.raises(WorkflowError, match=message):
        validate(config, SCHEMA)


# --------------------------------------------------------------------------- training jobs
@pytest.mark.parametrize("trainer", b.TRAINERS)
def test_train_job_writes_the_model_and_its_rows(corpus_file, tmp_path, trainer):
    model_path, rows_path = tmp_path / "m" / "model.npz", tmp_path / "r" / "perplexity.csv"
    returned = b.train_job(corpus_file, trainer, 3, 5, model_path, rows_path, **TINY)
    table = pd.read_csv(rows_path)
    pd.testing.assert_frame_equal(table, returned)
    assert list(table.columns) == b.COLUMNS  # no wall-clock column
    assert set(table["split"]) == {"train", "test"} and set(table["seed"]) == {5}
    corpus = Corpus.load(corpus_file)
    test = table[table["split"] == "test"]
    assert set(test["tokens"]) == {corpus.select_split("test").n_tokens}
    model = load_model(model_path)
    assert model.n_topics == 3 and list(model.vocab) == list(corpus.vocab)
    assert model.meta["seed"] == 5
    assert not list(tmp_path.rglob("*.part"))


@pytest.mark.parametrize("trainer", b.TRAINERS)
@pytest.mark.two_threads
def test_train_job_is_independent_of_the_thread_count(corpus_file, tmp_path, trainer):
    outputs = []
    for threads in (1, 2):
        out = tmp_path / str(threads)
        b.train_job(corpus_file, trainer, 4, 0, out / "model.npz", out / "rows.csv",
                    threads=threads, gibbs_blocks=2, **TINY)
        outputs.append(out)
    assert (outputs[0] / "rows.csv").read_bytes() == (outputs[1] / "rows.csv").read_bytes()
    first, second = (load_model(out / "model.npz") for out in outputs)
    np.testing.assert_array_equal(first.phi, second.phi)
    np.testing.assert_array_equal(first.alpha_m, second.alpha_m)


def test_gibbs_blocks_setting_reaches_the_sampler(corpus_file, tmp_path):
    for blocks in (1, 2):
        b.train_job(corpus_file, "gibbs", 3, 0, tmp_path / f"{blocks}.npz",
                    tmp_path / f"{blocks}.csv", gibbs_blocks=blocks, **TINY)
        assert load_model(tmp_path / f"{blocks}.npz").meta["threads"] == blocks


# --------------------------------------------------------------------------- 001-F4 tables
def test_f4_tables_job_gathers_orders_and_finds_the_minimum(tmp_path):
    grid = (4, 8, 12, 16)
    parts = [  # seed 0 lowest at T = 8, seed 1 at T = 12; their mean at T = 12
        rows(seed=0, curve={4: 30.0, 8: 20.0, 12: 21.0, 16: 25.0}),
        rows(seed=1, curve={4: 30.0, 8: 24.0, 12: 19.0, 16: 25.0}),
        rows("gibbs", "P2", curve=dict(zip(grid, (9.0, 8.0, 7.0, 6.0), strict=True))),
    ]
    paths = []
    for i, part in enumerate(parts):  # one file per (trainer, T, seed) job, as the rule has
        for (t, seed), job in part.groupby(["T", "seed"]):
            paths.append(tmp_path / f"{i}-{t}-{seed}.csv")
            job.to_csv(paths[-1], index=False)
    b.f4_tables_job(paths, tmp_path / "f4.csv", tmp_path / "min.csv")
    b.f4_tables_job(paths[::-1], tmp_path / "f4b.csv", tmp_path / "minb.csv")
    assert (tmp_path / "f4.csv").read_bytes() == (tmp_path / "f4b.csv").read_bytes()
    table = pd.read_csv(tmp_path / "f4.csv")
    assert list(table["trainer"].unique()) == ["gibbs", "sklearn"]  # TRAINERS order
    assert len(table) == 3 * 4 * 2
    minimum = pd.read_csv(tmp_path / "min.csv").set_index("trainer")
    sk = minimum.loc["sklearn"]
    assert sk["best_T"] == 12 and sk["best_perplexity"] == pytest.approx(20.0)
    assert sk["seeds"] == 2 and sk["seed_best_T"] == "8 12" and sk["grid"] == "4 8 12 16"
    assert sk["excess_at_paper_T"] == 0.0 and not sk["edge"] and sk["train_monotone"]
    gibbs = minimum.loc["gibbs"]
    assert gibbs["best_T"] == 16 and gibbs["edge"]
    assert gibbs["excess_at_paper_T"] == pytest.approx(7.0 / 6.0 - 1.0)


def test_f4_table_rejects_duplicates_and_missing_columns():
    part = rows(curve={4: 3.0, 8: 2.0})
    with pytest.raises(ValueError, match="duplicate"):
        b.f4_table([part, part])
    with pytest.raises(ValueError, match="lack column"):
        b.f4_table([part.drop(columns="seed")])
    with pytest.raises(ValueError, match="unknown trainer"):
        b.f4_table([part.assign(trainer="mallet")])


def test_summary_averages_seeds():
    table = pd.concat([rows(seed=0, curve={4: 10.0, 8: 20.0}),
                       rows(seed=1, curve={4: 30.0, 8: 40.0})])
    summary = b.f4_summary(table)
    test = summary[summary["split"] == "test"].set_index("T")
    assert test.loc[4, "perplexity"] == 20.0 and test.loc[8, "perplexity"] == 30.0
    assert test.loc[4, "perplexity_min"] == 10.0 and test.loc[4, "perplexity_max"] == 30.0
    assert set(summary["seeds"]) == {2}


def honest_rows(seed, tokens, curve):
    """P1-CS test rows of one seed whose honest subset has ``tokens`` tokens."""
    return pd.DataFrame([{"trainer": "sklearn", "T": t, "seed": seed, "split": "test",
                          "definition": "P1-CS", "optimistic": False, "perplexity": value,
                          "log_likelihood": -np.log(value) * tokens, "log_likelihood_se": 3.0,
                          "tokens": tokens, "documents": 5} for t, value in curve.items()],
                        columns=b.COLUMNS)


def test_honest_error_bars_of_several_seeds_surround_the_mean(tmp_path):
    # each seed's honest subset has its own length, so the mean perplexity is not
    # exp(-mean L / first N): the bars are taken per token around the plotted mean
    table = pd.concat([honest_rows(0, 50, {4: 30.0, 8: 20.0}),
                       honest_rows(1, 500, {4: 10.0, 8: 9.0})])
    test = b.f4_summary(table).set_index("T")
    assert test.loc[4, "tokens"] == 275.0 and test.loc[4, "perplexity"] == 20.0
    assert test.loc[4, "log_likelihood_se"] == pytest.approx(np.sqrt(18.0) / 2)
    assert np.exp(-(test.loc[4, "log_likelihood"] + 6) / 50) > 20.0  # the old lower bar < 0
    plot_perplexity_vs_topics(table, tmp_path / "f4.png")
    assert (tmp_path / "f4.png").read_bytes()[:4] == b"\x89PNG"


def test_minimum_without_the_paper_t_and_the_caption():
    table = rows(curve={4: 5.0, 8: 3.0, 16: 4.0}, train={4: 9.0, 8: 9.5, 16: 8.0})
    minimum = b.minimum_table(table).iloc[0]
    assert minimum["best_T"] == 8 and np.isnan(minimum["perplexity_at_paper_T"])
    assert not minimum["train_monotone"]
    caption = f4_caption(table)
    assert "lowest at T = 12" in caption  # the paper's finding
    assert "sklearn (P4, sklearn's bound): test minimum at T = 8 (an interior minimum)" in caption
    assert "training perplexity is not monotone" in caption
    two = pd.concat([rows(seed=0, curve={4: 30.0, 12: 20.0, 16: 25.0}),
                     rows(seed=3, curve={4: 10.0, 12: 20.0, 16: 25.0})])
    caption = f4_caption(two)
    assert "minimum at T = 4 (at the edge of the grid; at T = 12 the test perplexity" in caption
    assert "(mean of 2 seeds; each seed's minimum at T = 12, 4)" in caption
    assert "5 training documents (50 tokens)" in caption


# --------------------------------------------------------------------------- T1 / T2, figure
@pytest.mark.parametrize(("table", "trainer"), list(b.TABLE_TRAINERS.items()))
def test_topic_table_job(corpus_file, tmp_path, table, trainer):
    b.train_job(corpus_file, trainer, 3, 0, tmp_path / "model.npz", tmp_path / "rows.csv",
                **{**TINY, "gibbs_sweeps": 40, "vem_max_iter": 40})
    returned = b.topic_table_job(tmp_path / "model.npz", table, tmp_path / "t.csv",
                                 tmp_path / "t.caption.md")
    matches = pd.read_csv(tmp_path / "t.csv", keep_default_na=False)
    pd.testing.assert_frame_equal(matches, returned, check_dtype=False)
    assert len(matches) == 3  # six labels, three topics
    by_label = matches.set_index("label")
    for label in ("SPACE", "RELIGION"):  # the generating topics, recovered and matched
        assert set(by_label.loc[label, "words"].split()) == set(b.PAPER_TABLES["T2"][label])
    assert by_label.loc["SPACE", "overlap"] == (5 if table == "T2" else 2)  # T1: space, nasa
    caption = (tmp_path / "t.caption.md").read_text()
    assert caption.startswith(f"Béchard & Gervet, Table {table[1]}, lists the top-5 words")
    assert caption.count("\n| ") == 1 + len(matches)  # header and one line per label
    assert "Paper words absent from our vocabulary" in caption
    with pytest.raises(ValueError, match="unknown paper table"):
        b.topic_table_job(tmp_path / "model.npz", "T3", tmp_path / "x.csv", tmp_path / "x.md")


@pytest.mark.parametrize("fmt", ["png", "pdf", "svg"])
def test_f4_figure_job_is_a_function_of_the_table(tmp_path, fmt):
    table = pd.concat([rows(seed=0, curve={4: 30.0, 12: 20.0, 16: 25.0}),
                       rows(seed=1, curve={4: 10.0, 12: 20.0, 16: 25.0}),
                       rows("vem", "P1-bound", curve={4: 3.0, 12: 2.0, 16: 2.5})])
    table.to_csv(tmp_path / "f4.csv", index=False)
    for name in ("a", "b"):
        f4_figure_job(tmp_path / "f4.csv", tmp_path / f"{name}.{fmt}",
                      tmp_path / f"{name}.caption.md")
    data = (tmp_path / f"a.{fmt}").read_bytes()
    assert len(data) > 5000 and data == (tmp_path / f"b.{fmt}").read_bytes()
    assert b"CreationDate" not in data
    caption = (tmp_path / "a.caption.md").read_text()
    assert caption == f4_caption(pd.read_csv(tmp_path / "f4.csv")) + "\n"


# --------------------------------------------------------------------------- honest estimate
HONEST = {"P1-CS": {"samples": 30, "burnin": 5, "iterations": 5}, "P1-LR": {"particles": 3}}


@pytest.fixture(scope="module")
def honest_model(corpus_file, tmp_path_factory):
    path = tmp_path_factory.mktemp("honest") / "model.npz"
    b.train_job(corpus_file, "vem", 3, 1, path, path.with_suffix(".csv"), **TINY)
    return path


def test_honest_rows_are_the_estimators_combined_in_probability(corpus_file, honest_model):
    from topiceval.estimators import lda
    from topiceval.evaluation import combine_runs
    from topiceval.seeds import derive_seed

    model = load_model(honest_model)
    test = Corpus.load(corpus_file).select_split("test")
    table = b.honest_rows(model, test, "vem", 3, seed=1, methods=HONEST, runs=3, n_docs=12)
    assert list(table.columns) == b.COLUMNS and list(table["definition"]) == ["P1-CS", "P1-LR"]
    docs = b.honest_documents(test, 12, 1)
    assert docs.n_docs == 12 == set(table["documents"]).pop()
    for row, (definition, settings) in zip(table.itertuples(), HONEST.items(), strict=True):
        runs = lda.estimate_runs(b.HONEST[definition], docs, model.phi, model.alpha_m, runs=3,
                                 seed=derive_seed(1, "001-F4", definition, "vem", 3),
                                 **settings)
        logp, se = combine_runs(runs.logp)
        assert row.log_likelihood == logp.sum()
        assert row.log_likelihood_se == np.sqrt(np.sum(se ** 2)) > 0
        assert row.perplexity == pytest.approx(np.exp(-logp.sum() / docs.n_tokens), rel=1e-12)


def test_honest_documents_are_one_seeded_sample(corpus_file):
    test = Corpus.load(corpus_file).select_split("test")
    a, again = b.honest_documents(test, 7, 4), b.honest_documents(test, 7, 4)
    assert a.n_docs == 7 and np.array_equal(a.tokens, again.tokens)
    assert not np.array_equal(a.tokens, b.honest_documents(test, 7, 5).tokens)
    assert b.honest_documents(test, None, 4).n_docs == b.honest_documents(test, 10**6, 4).n_docs


@pytest.mark.two_threads
def test_honest_job_is_independent_of_the_thread_count(corpus_file, honest_model, tmp_path):
    tables = [b.honest_job(corpus_file, honest_model, "vem", 3, 1, tmp_path / f"h{k}.csv",
                           docs=6, runs=2, methods=HONEST, threads=k) for k in (1, 2)]
    pd.testing.assert_frame_equal(*tables)


def test_honest_settings_are_checked(corpus_file, honest_model):
    model = load_model(honest_model)
    test = Corpus.load(corpus_file).select_split("test")
    with pytest.raises(ValueError, match="at least 2 runs"):
        b.honest_rows(model, test, "vem", 3, seed=1, methods=HONEST, runs=1)
    with pytest.raises(ValueError, match="unknown honest definition"):
        b.honest_rows(model, test, "vem", 3, seed=1, methods={"P2": {}}, runs=2)
    cfg = {**load_config(None)["bechard2018"], "honest": {"docs": 5, "runs": 2,
                                                          "methods": {"P9": {}}}}
    with pytest.raises(ValueError, match="unknown definition"):
        b.workflow_plan(cfg)


def test_within_2se_names_the_ts_the_estimate_cannot_separate():
    table = rows(curve={4: 10.0, 8: 9.0, 12: 9.5}).assign(definition="P1-CS")
    table["log_likelihood_se"] = 1.0
    table.loc[table["T"] == 4, "log_likelihood_se"] = 0.1
    minimum = b.minimum_table(table).iloc[0]
    # LL = -50 log PP: T = 8 best; T = 12 is 1.3 nats lower (2 se = 2.8): a tie; T = 4 is 2.9
    # nats lower (2 se = 2.01): separated
    assert minimum["best_T"] == 8 and minimum["within_2se"] == "8 12"
    assert b.minimum_table(rows(curve={4: 10.0, 8: 9.0})).iloc[0]["within_2se"] == ""


# --------------------------------------------------------------------------- rules
@pytest.mark.slow
@pytest.mark.parametrize("overlay", ["quick.yaml", "paper.yaml"])
def test_dry_run_schedules_one_training_job_per_run(tmp_path, overlay):
    results = tmp_path / "results"
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", f"config/{overlay}",
         "--config", f"results_dir={results}", f"resources_dir={tmp_path / 'res'}", "--",
         str(results / "figures" / "bechard2018-F4.png"),
         *[str(results / "tables" / f"bechard2018-{t}.csv") for t in ("F4-minimum", "T1", "T2")]],
        cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    counts = dict(re.findall(r"^(bechard2018_\w+)\s+(\d+)$", result.stdout, re.MULTILINE))
    plan = b.workflow_plan(load_config(overlay)["bechard2018"])
    assert int(counts["bechard2018_train"]) == len(set(plan.runs) | set(plan.tables.values()))
    assert {k: int(v) for k, v in counts.items() if k != "bechard2018_train"} == {
        "bechard2018_honest": len(plan.runs), "bechard2018_f4_tables": 1,
        "bechard2018_f4_figure": 1, "bechard2018_topics": 2}
