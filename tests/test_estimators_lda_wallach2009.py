"""Seed-002 experiment functions, plots, and the ``topiceval estimate`` command."""

import io
import json
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from topiceval import cli
from topiceval._docs import page
from topiceval.commands import OUTPUT_COLUMNS
from topiceval.corpus import Corpus
from topiceval.estimators import lda
from topiceval.experiments import wallach2009 as w
from topiceval.models import GaPModel, LDAModel, save_model
from topiceval.plots import wallach2009 as plots
from topiceval.seeds import derive_seed


@pytest.fixture(scope="module")
def data():
    """A small LDA model and documents drawn from it (§1.1)."""
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(40, 0.3), size=5)
    alpha_m = rng.uniform(0.05, 0.4, 5)
    docs = []
    for n in (12, 20, 8, 15, 10, 9):
        z = rng.choice(5, size=n, p=rng.dirichlet(alpha_m))
        docs.append(np.array([rng.choice(40, p=phi[t]) for t in z]))
    return docs, phi, alpha_m


def pick(tasks, label, dataset=None):
    """The first task of a setting (and data set)."""
    return next(t for t in tasks
                if t.setting.label == label and dataset in (None, t.dataset))


def test_f1_grid_is_cost_matched():
    tasks = w.f1_tasks({"synthetic-3": 25, "20newsgroups": 10}, scale=0.1, block=10)
    labels = {}
    for t in tasks:
        labels.setdefault(t.dataset, set()).add(t.setting.label)
    assert len(labels["synthetic-3"]) == 12 and len(labels["20newsgroups"]) == 13  # + "AIS 2"
    assert sum(t.dataset == "synthetic-3" for t in tasks) == 12 * 3  # blocks 0-10-20-25
    assert {t.doc_stop - t.doc_start for t in tasks} == {10, 5}
    names = [t.name for t in tasks]
    assert len(set(names)) == len(names)
    assert names[0] == "f1-synthetic-3-ais-00000"
    assert [t.name for t in w.f2_tasks({"kos": 3})] == ["f2-kos-et-00000", "f2-kos-ais-00000",
                                                        "f2-kos-lr-00000"]
    settings = {t.setting.label: t.setting for t in tasks if t.dataset == "20newsgroups"}
    p = {label: s.params for label, s in settings.items()}
    assert p["CS 1"] == {"samples": 100} and p["CS 2"] == {"samples": 200}
    assert p["IS-PT 2"] == {"samples": 400} and p["IS-PZW 1"] == {"samples": 200}
    assert p["IS-IP 1"]["iterations"] + p["IS-IP 1"]["samples"] == 200
    assert p["LR 2"] == {"resample": True} and settings["LR 2"].cost_samples == 200
    assert p["HM"] == {"burnin": 5000, "samples": 5000}
    assert p["AIS"] == {"temperatures": 1000} and p["AIS 2"] == {"temperatures": 2000}
    paper = {s.label: s.params for s in w.f1_settings(1.0)}
    assert paper["HM"] == {"burnin": 50_000, "samples": 50_000}
    assert paper["AIS"] == {"temperatures": 10_000}
    assert paper["IS-IP 1"] == {"iterations": 20, "samples": 1980}
    assert w.cost_matched_particles(200, 1000) == 20 and w.cost_matched_particles(120, 2000) == 67
    assert w.cost_matched_particles(50_000, 1000) == 1
    f2 = {s.label: s.params for s in w.f2_settings(1.0)}
    assert f2 == {"ET": {"burnin": 5000, "samples": 20_000},
                  "AIS": {"burnin": 500, "temperatures": 1500},
                  "LR": {"resample": True}}
    assert {s.label: s.target for s in w.f2_settings(1.0)} == dict.fromkeys(f2, "complete")
    assert w.f2_settings(1.0)[2].cost_samples == 2000


def test_shards_do_not_depend_on_blocking(data):
    docs, phi, am = data
    one = w.f1_tasks({"toy": 6}, scale=0.002, block=6)
    two = w.f1_tasks({"toy": 6}, scale=0.002, block=4)
    for label in ("CS 1", "LR 1", "IS-IP 2"):
        whole = w.run_shard(pick(one, label), docs, phi, am, runs=3)
        parts = pd.concat([w.run_shard(t, docs, phi, am, runs=3)
                           for t in two if t.setting.label == label], ignore_index=True)
        pd.testing.assert_series_equal(whole["logp"], parts["logp"])
        assert list(whole.columns) == w.ROW_COLUMNS
    # LR 1 gives both forms, with R = round(4 S / N_d) particles per document
    lr_rows = w.run_shard(pick(one, "LR 1"), docs, phi, am, runs=2)
    assert set(lr_rows["method"]) == {"lr", "lr_wallach"}
    expected = lda.estimate_runs("lr", [docs[1]], phi, am, runs=2, doc_keys=[1],
                                 seed=derive_seed(0, "toy", "LR 1", "estimate"),
                                 particles=w.cost_matched_particles(20, 2))
    got = lr_rows[(lr_rows["doc"] == 1) & (lr_rows["method"] == "lr")]["logp"].to_numpy()
    np.testing.assert_array_equal(got, expected.logp[0])


def test_exact_setting(data):
    docs, phi, am = data
    tasks = w.f1_tasks({"toy": 6, "other": 6}, scale=0.002, block=6, exact=("toy",))
    assert "Exact" in {t.setting.label for t in tasks if t.dataset == "toy"}
    assert "Exact" not in {t.setting.label for t in tasks if t.dataset == "other"}
    rows = w.run_shard(pick(tasks, "Exact"), docs, phi, am, runs=10)
    assert rows["run"].tolist() == [0] * 6
    np.testing.assert_allclose(rows["logp"], lda.estimate("exact", docs, phi, am), rtol=1e-12)
    cs = w.run_shard(pick(tasks, "CS 2", "toy"), docs, phi, am, runs=3)
    # a task passed to a job (pickled, as Snakemake passes its params) runs the same
    again = w.run_shard(pickle.loads(pickle.dumps(pick(tasks, "CS 2", "toy"))), docs, phi, am,
                        runs=3)
    pd.testing.assert_frame_equal(again.drop(columns="seconds"), cs.drop(columns="seconds"))
    summary = w.aggregate(pd.concat([rows, cs]), n_boot=50)
    assert summary[summary["setting"] == "Exact"]["boot_sd"].iloc[0] == 0.0
    text = plots.caption_f1(summary)
    assert "toy, error against the exact value (nats): CS 2 " in text
    assert "the mean of 3 runs in probability space" in text


def test_aggregate_and_bootstrap():
    rng = np.random.default_rng(1)
    n_docs, n_runs, sigma = 40, 10, 0.01
    logp = rng.normal(-100.0, sigma, size=(n_docs, n_runs))
    rows = pd.DataFrame([{"dataset": "d", "kind": "", "lam": np.nan, "method": "chib",
                          "setting": "CS 1", "doc": d, "run": r, "tokens": 5, "logp": logp[d, r],
                          "site_updates": 7, "seconds": 0.5, "threads": 1}
                         for d in range(n_docs) for r in range(n_runs)])
    summary = w.aggregate(rows, n_boot=4000, seed=3)
    assert len(summary) == 1
    row = summary.iloc[0]
    expected = np.sum(logsumexp(logp, axis=1) - np.log(n_runs))
    assert row["value"] == pytest.approx(expected, rel=1e-14)
    assert row["docs"] == n_docs and row["runs"] == n_runs and row["tokens"] == 5 * n_docs
    assert row["site_updates"] == 7 * n_docs * n_runs
    # small spread: the LSE mean is the arithmetic mean, whose bootstrap sd is known
    analytic = np.sqrt(np.sum(logp.var(axis=1) / n_runs))
    assert row["boot_sd"] == pytest.approx(analytic, rel=0.06)
    again = w.aggregate(rows, n_boot=4000, seed=3)
    assert again["boot_sd"].iloc[0] == row["boot_sd"]
    with pytest.raises(ValueError, match="same runs"):
        w.aggregate(rows.iloc[1:], n_boot=10)


def test_perturbation_shards_and_summary(data):
    docs, phi, am = data
    tasks = w.f3_tasks("toy", 4, scale=0.002, block=4, lambdas=(0.0, 0.5))
    assert {t.setting.label for t in tasks} == {"IS-PT", "LR", "CS", "ET"}
    assert len(tasks) == 2 * 2 * 4  # kinds x lambdas x settings, one block
    assert tasks[5].name == "f3-toy-phi-0-5-lr-00000"
    rows = pd.concat([w.run_shard(t, docs, phi, am, runs=2, perturbation_seed=9)
                      for t in tasks], ignore_index=True)
    # a task passed to a job (pickled, as Snakemake passes its params) gives the same rows
    again = w.run_shard(pickle.loads(pickle.dumps(tasks[5])), docs, phi, am, runs=2,
                        perturbation_seed=9)
    pd.testing.assert_frame_equal(
        again.drop(columns="seconds"),
        w.run_shard(tasks[5], docs, phi, am, runs=2, perturbation_seed=9)
        .drop(columns="seconds"))
    summary = w.f3_summary(rows, n_boot=200)
    zero = summary[summary["lam"] == 0.0]
    assert np.all(zero["value"] == 0.0) and np.all(zero["boot_sd"] == 0.0)
    assert set(summary["kind"]) == {"phi", "m"}
    assert set(summary[summary["setting"] == "LR"]["method"]) == {"lr"}
    phi_lr = summary[(summary["kind"] == "phi") & (summary["setting"] == "LR")
                     & (summary["lam"] == 0.5)]["value"].iloc[0]
    assert phi_lr < 0  # the true topics explain their documents better than a perturbed Phi
    text = plots.caption_f3(summary)
    assert "Paper:" in text and "Phi:" in text and "m:" in text


def test_cost_table_and_workload(data):
    docs, phi, am = data
    doc = np.concatenate(docs[:3])
    settings = (w.Configuration("IS-PT", "is_pt", samples=10),
                w.Configuration("LR", "lr", particles=2, resample=True),
                w.Configuration("LR (no rejuvenation)", "lr", particles=2, resample=False),
                w.Configuration("CS", "chib", samples=10))
    table = w.cost_table(doc, phi, am, settings=settings, repeats=1)
    n = doc.size
    assert table["table1_site_updates"].tolist() == [10 * n, 2 * n * (n - 1) // 2, 2 * n,
                                                     2 * 10 * n]
    assert table["measured_site_updates"].iloc[0] == 10 * n
    assert table["measured_site_updates"].iloc[1] == 2 * n * (n + 1) // 2
    assert table["formula"].tolist() == ["S N", "R N (N - 1) / 2", "R N", "2 S N"]
    assert np.all(table["seconds"] > 0)
    work = w.paper_workload(doc, phi, am, repeats=1)
    assert work["workload"].tolist() == ["CS S=1000", "LR R=20", "total"]
    assert work["seconds"].iloc[2] == pytest.approx(work["seconds"].iloc[:2].sum())
    text = w.caption_t1(table, work)
    assert "3.2 s" in text and "ms" in text


def summary_table(values: dict) -> pd.DataFrame:
    method = {"AIS": "ais", "AIS 2": "ais", "HM": "hm", "CS 2": "chib", "LR 2": "lr",
              "IS-PT 2": "is_pt", "IS-PZW 2": "is_pzw", "IS-IP 2": "is_ip", "ET": "et", "LR": "lr"}
    return pd.DataFrame([{"dataset": d, "method": method[s], "setting": s, "value": v,
                          "boot_sd": 1.0, "site_updates": 10}
                         for d, per in values.items() for s, v in per.items()])


def verdict(text: str, key: str) -> str:
    """The verdict a caption's ledger line gives claim ``key``."""
    line = next(x for x in text.splitlines() if x.startswith(f"- {key}, "))
    return line.split('": ', 1)[1].split(":")[0]


def test_f1_caption_states_the_ledgers_verdicts():
    agree = {"20newsgroups": {"AIS": -1010, "AIS 2": -1001, "HM": -900, "CS 2": -1002,
                              "LR 2": -1000, "IS-PT 2": -1100, "IS-PZW 2": -1090,
                              "IS-IP 2": -1050}}
    text = plots.caption_f1(summary_table(agree))
    for key in ("002-F1-HM-over", "002-F1-IS-under", "002-F1-IS-IP-best"):
        assert verdict(text, key) == "agrees"
    # LR 2 nats above CS with s.d. 1 each: within 2 s.e. of its difference, a tie
    assert verdict(text, "002-F1-LR-over-CS") == "tie"
    assert verdict(text, "002-F1-LRW-over-CS") == "not testable"  # no lr_wallach rows
    disagree = {"20newsgroups": {**agree["20newsgroups"], "HM": -2000, "LR 2": -1003}}
    text = plots.caption_f1(summary_table(disagree))
    assert "HM above every other method on 0 of 1" in text
    assert verdict(text, "002-F1-HM-over") == "disagrees"


def test_f2_caption():
    text = plots.caption_f2(summary_table({"kos": {"ET": -520, "AIS": -500, "LR": -501}}))
    assert "ET -20.0, LR -1.0 nats from AIS;" in text
    assert verdict(text, "002-F2-LR-closer") == "agrees"


def with_lr_wallach(table: pd.DataFrame, dataset: str, setting: str, value: float):
    row = {"dataset": dataset, "method": "lr_wallach", "setting": setting, "value": value,
           "boot_sd": 1.0, "site_updates": 10}
    return pd.concat([table, pd.DataFrame([row])], ignore_index=True)


def test_captions_judge_the_papers_lr_separately_from_the_sequential_lr():
    # the sequential LR below CS and far from AIS, Wallach's Algorithm 3 (same setting label)
    # above CS and near AIS: each gets its own verdict, and neither is mistaken for the other
    f1 = summary_table({"20newsgroups": {"AIS": -1010, "AIS 2": -1001, "HM": -900,
                                         "CS 2": -1002, "LR 2": -1100}})
    text = plots.caption_f1(with_lr_wallach(f1, "20newsgroups", "LR 2", -999.0))
    assert "- LR 2 minus CS 2 on the real data sets (nats): 20newsgroups -98.0." in text
    assert "LR-W 2 (the paper's Algorithm 3) minus CS 2 on the real data sets (nats): " \
           "20newsgroups +3.0." in text
    assert verdict(text, "002-F1-LR-over-CS") == "disagrees"
    assert verdict(text, "002-F1-LRW-over-CS") == "agrees"
    assert "AIS -11.0 and AIS 2 -2.0 nats from LR-W 2." in text
    assert verdict(text, "002-F1-AIS-low-20NG") == "agrees"
    f2 = summary_table({"kos": {"ET": -520, "AIS": -500, "LR": -540}})
    text = plots.caption_f2(with_lr_wallach(f2, "kos", "LR", -503.0))
    assert "LR -40.0 nats from AIS;" in text
    assert "LR-W (the paper's Algorithm 3) -3.0 nats from AIS." in text
    assert verdict(text, "002-F2-LR-closer") == "disagrees"
    assert verdict(text, "002-F2-LRW-closer") == "agrees"
    assert "LR-W (the paper's Algorithm 3)" not in plots.caption_f2(f2)


def test_plots_write_files(tmp_path):
    f1 = summary_table({"a": {"AIS": -10, "HM": -5, "CS 2": -11, "LR 2": -10.5},
                        "b": {"AIS": -20, "HM": -15, "CS 2": -21, "LR 2": -20.5}})
    f3 = pd.DataFrame([{"kind": k, "setting": s, "method": m, "lam": lam, "value": -lam * 10,
                        "boot_sd": 0.5, "docs": 3}
                       for k in ("phi", "m") for s, m in (("LR", "lr"), ("IS-PT", "is_pt"))
                       for lam in (0.0, 0.25, 0.5)])
    for name, fn, table in (("f1.png", plots.plot_f1, f1), ("f2.pdf", plots.plot_f2, f1),
                            ("f3.png", plots.plot_f3, f3)):
        fn(table, tmp_path / name)
        assert (tmp_path / name).stat().st_size > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f1.png", "f2.pdf", "f3.png"]


def test_estimate_command(tmp_path, data, capsys):
    docs, phi, am = data
    words = [f"w{i}" for i in range(40)]
    corpus = Corpus.from_documents(docs, vocab=words, split=["test", "train"] * 3)
    corpus.save(tmp_path / "docs.npz")
    save_model(tmp_path / "model.npz", LDAModel(phi, am, vocab=words))
    out = tmp_path / "est.csv"
    code = cli.main(["estimate", "--model", str(tmp_path / "model.npz"), "--docs",
                     str(tmp_path / "docs.npz"), "--split", "test", "--method", "lr",
                     "--particles", "3", "--no-resample", "--runs", "2", "--seed", "4",
                     "--out", str(out)])
    assert code == 0
    frame = pd.read_csv(out, dtype={"name": str})
    assert list(frame.columns) == ["family", "method", "target", "doc", "name", "tokens", "run",
                                   "logp_nats", "upper_nats", "work", "seconds", "seed",
                                   "settings"]
    assert list(frame.columns) == [name for name, _ in OUTPUT_COLUMNS["estimate"]]
    test_docs = docs[0::2]
    expected = lda.estimate_runs("lr", test_docs, phi, am, runs=2, seed=4, particles=3,
                                 resample=False)
    np.testing.assert_array_equal(frame["logp_nats"].to_numpy().reshape(3, 2), expected.logp)
    assert frame["name"].tolist() == ["0", "0", "2", "2", "4", "4"]
    assert json.loads(frame["settings"].iloc[0]) == {"particles": 3, "resample": False}
    # seconds: the kernel time shared equally by the rows (every row the same, >= 0)
    assert frame["seconds"].nunique() == 1 and frame["seconds"].iloc[0] >= 0
    np.testing.assert_array_equal(frame["work"].to_numpy().reshape(3, 2), expected.site_updates)
    # without --out, the same CSV goes to standard output
    capsys.readouterr()
    assert cli.main(["estimate", "--model", str(tmp_path / "model.npz"), "--docs",
                     str(tmp_path / "docs.npz"), "--split", "test", "--method", "lr",
                     "--particles", "3", "--no-resample", "--runs", "2", "--seed", "4"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"name": str})
    pd.testing.assert_frame_equal(printed.drop(columns="seconds"), frame.drop(columns="seconds"))
    code = cli.main(["estimate", "--model", str(tmp_path / "model.npz"), "--docs",
                     str(tmp_path / "docs.npz"), "--method", "et", "--complete", "--samples",
                     "5", "--burnin", "2", "--completion-split", "3", "--out", str(out)])
    frame = pd.read_csv(out)
    np.testing.assert_array_equal(
        frame["logp_nats"], lda.complete("et", docs, phi, am, samples=5, burnin=2, split=3))
    assert set(frame["target"]) == {"complete"}


def test_estimate_command_errors_and_gapfa_dispatch(tmp_path, data, monkeypatch, capsys):
    docs, phi, am = data
    words = [f"w{i}" for i in range(40)]
    Corpus.from_documents(docs, vocab=words).save(tmp_path / "d.npz")
    save_model(tmp_path / "m.npz", LDAModel(phi, am, vocab=words))
    base = ["estimate", "--model", str(tmp_path / "m.npz"), "--docs", str(tmp_path / "d.npz"),
            "--out", str(tmp_path / "o.csv")]
    assert cli.main(base + ["--method", "nope"]) == 1
    assert "unknown estimate method 'nope'" in capsys.readouterr().err
    assert cli.main(base + ["--method", "chib", "--particles", "3"]) == 1
    assert "unknown setting" in capsys.readouterr().err
    assert cli.main(base + ["--method", "lr", "--family", "gapfa"]) == 1
    assert "does not match" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()

    from topiceval.estimators import gapfa
    gap = GaPModel(phi, np.full(5, 0.5), np.ones(5), vocab=words)
    save_model(tmp_path / "g.npz", gap)
    base[2] = str(tmp_path / "g.npz")
    assert cli.main(base + ["--method", "l2r", "--samples", "7", "--gibbs", "2", "--runs",
                            "2"]) == 0
    frame = pd.read_csv(tmp_path / "o.csv")
    counts = Corpus.load(tmp_path / "d.npz").counts()
    expected = gapfa.estimate_runs("l2r", counts, phi, gap.p, gap.r, runs=2, samples=7, gibbs=2)
    np.testing.assert_array_equal(frame["logp_nats"].to_numpy().reshape(6, 2), expected.logp)
    np.testing.assert_array_equal(frame["work"].to_numpy().reshape(6, 2), expected.work)
    assert json.loads(frame["settings"].iloc[0]) == expected.settings
    # the same words in another column order give the same estimates
    order = np.random.default_rng(1).permutation(40)
    Corpus.from_documents([np.argsort(order)[d] for d in docs],
                          vocab=np.array(words)[order]).save(tmp_path / "perm.npz")
    base[4] = str(tmp_path / "perm.npz")
    assert cli.main(base + ["--method", "l2r", "--samples", "7", "--gibbs", "2", "--runs",
                            "2"]) == 0
    again = pd.read_csv(tmp_path / "o.csv")
    np.testing.assert_array_equal(again["logp_nats"], frame["logp_nats"])
    assert set(frame["family"]) == {"gapfa"}


def test_points_with_untrusted_documents_are_hollow_and_counted(tmp_path, data):
    """Issue 31 item 4: the shard rows say whether each document's estimate is trusted, the
    summary counts the untrusted documents of each point, the figures draw those points hollow
    and the captions count them; a table from before the diagnostics draws as before."""
    docs, phi, am = data
    tasks = w.f1_tasks({"toy": 6}, scale=0.002, block=6)
    rows = w.run_shard(pick(tasks, "CS 2", "toy"), docs, phi, am, runs=3)
    assert rows["trusted"].dtype == bool
    summary = w.aggregate(rows, n_boot=20)
    assert summary["untrusted"].iloc[0] == int((~rows.groupby("doc")["trusted"].first()).sum())
    table = summary_table({"a": {"AIS": -10, "HM": -5, "CS 2": -11, "LR 2": -10.5}})
    flagged = table.assign(untrusted=[0, 4, 1, 0])
    text = plots.caption_f1(flagged)
    assert ("Hollow markers: points with documents whose estimate the diagnostics do not trust "
            f"({page('trust.md')}): 2 of 4 points, 5 untrusted document estimates in all."
            ) in text
    assert "Hollow markers" not in plots.caption_f1(table)
    assert "trust every estimate" in plots.caption_f2(table.assign(untrusted=0))
    plots.plot_f1(flagged, tmp_path / "f1.png")
    assert (tmp_path / "f1.png").stat().st_size > 1000
