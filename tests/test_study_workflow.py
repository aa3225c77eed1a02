"""A study end to end through the workflow, on a tiny corpus made here: three libraries (our
Gibbs, scikit-learn, tomotopy) at two numbers of topics and a MALLET model file, then what a
changed configuration reruns, and the ``topiceval study`` front end.

The bad inputs of a study (issue 30, item 6) are the table of tests/test_bad_inputs_study.py.
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from data_fixtures import three_topic_texts
from topiceval.commands.study import snakemake_command
from topiceval.experiments.study import CANDIDATE_COLUMNS, DOCUMENT_COLUMNS, PAIRED_COLUMNS
from workflow_config import ROOT, SNAKEMAKE

pytestmark = [pytest.mark.slow, pytest.mark.workflow]
TOMOTOPY_IMPORT = pytest.mark.filterwarnings(
    "ignore:builtin type _VocabDict has no __module__ attribute:DeprecationWarning")
STEMS = {"sun": "solar", "rock": "stone", "wave": "ocean"}


def letter_texts(seed: int, n_docs: int) -> list[list[str]]:
    """three_topic_texts with words of letters only ("solarbb"), which the default recipe
    keeps."""
    return [[STEMS[w[:-1]] + "abcdefgh"[int(w[-1])] * 2 for w in doc]
            for doc in three_topic_texts(seed, n_docs)]


def write_texts(folder: Path, docs: list[list[str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i, doc in enumerate(docs):
        (folder / f"doc{i:03d}.txt").write_text(" ".join(doc) + "\n", encoding="utf-8")
    return folder


def write_mallet_state(path: Path, docs: list[list[str]], topics: int = 2,
                       seed: int = 0) -> Path:
    """A MALLET --output-state file of ``docs`` with random topics (sources hold a space)."""
    rng = np.random.default_rng(seed)
    types: dict[str, int] = {}
    lines = ["#doc source pos typeindex type topic",
             "#alpha : " + " ".join(["0.5"] * topics), "#beta : 0.1"]
    for d, doc in enumerate(docs):
        for pos, word in enumerate(doc):
            t = types.setdefault(word, len(types))
            lines.append(f"{d} a file {pos} {t} {word} {rng.integers(topics)}")
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return path


def study_config(tmp: Path, **changes) -> dict:
    """A study of 120 tiny documents: gibbs, sklearn and tomotopy at T = 2 and 3, and a MALLET
    file trained on the first 40 documents."""
    docs = letter_texts(3, 120)
    if not (tmp / "texts").is_dir():  # written once: a new file would rebuild the corpus
        write_texts(tmp / "texts", docs)
        write_mallet_state(tmp / "state.gz", docs[:40])
    study = {
        "name": "tiny",
        "corpus": {"texts": str(tmp / "texts")},
        "heldout": {"fraction": 0.2, "seed": 0},
        "preprocess": {"recipe": "default", "min_df": 1},
        "train": {"trainers": ["gibbs", "sklearn", "tomotopy"], "topics": [2, 3],
                  "seeds": [0],
                  "settings": {"gibbs": {"sweeps": 30}, "sklearn": {"max_iter": 10},
                               "tomotopy": {"sweeps": 30}}},
        "models": {"mallet-2": {"library": "mallet", "path": str(tmp / "state.gz")}},
        "estimate": {"runs": 3, "parts": 2, "settings": {"samples": 50}},
        "compare": {"docs": 8, "temperatures": 20},
    }
    study.update(changes)
    return {"study": study}


def run_study(tmp: Path, config: dict, *args: str) -> subprocess.CompletedProcess:
    path = tmp / "study.yaml"
    path.write_text(yaml.safe_dump(config))
    cmd = [*SNAKEMAKE, *args, "--cores", "2", "--configfile", str(path), "--config",
           f"results_dir={tmp / 'results'}", f"resources_dir={tmp / 'resources'}"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)


def job_counts(stdout: str) -> dict[str, int]:
    """Rule -> jobs of a dry run's job table."""
    counts = {}
    for line in stdout.split("Job stats:")[-1].splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("total", "job"):
            counts[parts[0]] = int(parts[1])
    return counts


@pytest.fixture(scope="module")
def study_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("study")
    config = study_config(tmp)
    done = run_study(tmp, config)
    assert done.returncode == 0, done.stderr[-3000:]
    return tmp, config


@TOMOTOPY_IMPORT
def test_a_study_over_three_libraries_names_a_winner(study_run):
    tmp, _ = study_run
    out = tmp / "results" / "studies" / "tiny"
    cands = pd.read_csv(out / "candidates.csv", keep_default_na=False, na_values=[""])
    assert list(cands.columns[:len(CANDIDATE_COLUMNS)]) == list(CANDIDATE_COLUMNS)
    assert len(cands) == 7 and set(cands["library"]) == {"topiceval", "scikit-learn",
                                                         "tomotopy", "MALLET"}
    assert (cands["verdict"] == "best").sum() == 1 and set(cands["verdict"]) <= {
        "best", "tie", "worse"}
    assert cands["documents"].nunique() == 1 and cands["tokens"].nunique() == 1
    assert (cands["perplexity_low"] <= cands["perplexity"]).all()
    assert (cands["perplexity"] <= cands["perplexity_high"]).all()
    assert set(cands["own_kind"]) == {"plug-in", "variational bound", "one-sample joint",
                                      "left-to-right as MALLET"}
    assert (cands["own_split"] == "held-out").all()
    docs = pd.read_csv(out / "documents.csv")
    assert list(docs.columns) == DOCUMENT_COLUMNS
    assert len(docs) == 7 * cands["documents"].iloc[0]
    # issue 31: untrusted_documents counts the documents whose estimate the diagnostics flag
    flagged = (~docs["trusted"].astype(bool)).groupby(docs["candidate"]).sum()
    counted = cands.set_index("candidate")["untrusted_documents"]
    assert (counted == flagged.reindex(counted.index)).all(), (counted, flagged)
    reran = docs["rerun"].astype(bool).groupby(docs["candidate"]).sum()
    assert (cands.set_index("candidate")["rerun_documents"] == reran.reindex(counted.index)).all()
    paired = pd.read_csv(out / "paired.csv")
    assert list(paired.columns) == PAIRED_COLUMNS
    best = cands.loc[cands["verdict"] == "best", "candidate"].iloc[0]
    assert (paired["best"] == best).all() and (paired["difference"] >= -1e-9).all()
    # the paired difference is the sum of the per-document differences
    wide = docs.pivot(index="doc", columns="candidate", values="logp")
    np.testing.assert_allclose(paired.set_index("candidate")["difference"],
                               (wide[best].to_numpy()[:, None] - wide).sum()[paired["candidate"]])
    ratio = pd.read_csv(out / "ratio_ais.csv")
    assert set(ratio["best"]) <= {best}
    caption = (out / "perplexity.caption.md").read_text()
    assert f"{best} is the best of 7 candidates" in caption
    assert (out / "perplexity.caption.rst").is_file() and (out / "perplexity.png").is_file()
    # issue 45: the interval over documents holds the Monte Carlo one, the verdict is checked
    assert (cands["perplexity_docs_low"] <= cands["perplexity_low"]).all()
    assert (cands["perplexity_high"] <= cands["perplexity_docs_high"]).all()
    assert cands["settled"].nunique() == 1 and cands["grid_edge"].fillna("").isin(
        ["", "largest T", "smallest T"]).all()
    # issue 50: coherence beside the likelihood, over the held-out documents; one seed, so no
    # stability, and the caption says why
    from topiceval.coherence import coherence_table
    from topiceval.corpus import Corpus
    from topiceval.models import load_model

    held = Corpus.load(out / "corpus.npz").select_split("test")
    for name in ("gibbs-T3-seed0", "mallet-2"):
        mean = coherence_table(load_model(out / "candidates" / name / "model.npz"), held,
                               measures=("npmi",)).iloc[-1]
        row = cands.set_index("candidate").loc[name]
        np.testing.assert_allclose(
            row[["coherence_npmi", "coherence_npmi_low", "coherence_npmi_high"]].to_numpy(float),
            mean[["npmi", "npmi_low", "npmi_high"]].to_numpy(float), rtol=1e-12)
    assert cands["coherence_reference"].str.startswith(
        "the study's held-out documents (24 documents); document co-occurrence").all()
    assert cands["stability"].isna().all() and cands["stability_note"].str.len().gt(0).all()
    assert "Stability across seeds: not measured, as each trainer was run with one seed" \
        in caption and "Coherence (NPMI over the study's held-out documents)" in caption


def test_the_report_is_about_the_study(study_run):
    """``snakemake --report`` of a study opens on the study (corpus, candidates, verdict, the
    table of candidates), says nothing of the papers, and has no docutils error."""
    tmp, config = study_run
    report = tmp / "report.html"
    done = run_study(tmp, config, "--report", str(report))
    assert done.returncode == 0, done.stderr[-3000:]
    html = report.read_text(encoding="utf-8")
    assert "System Message" not in html
    assert "which of 7 topic models is best on held-out documents" in html
    assert "four papers" not in html and "The candidates, best first" in html
    # the front page opens at its top: the report's centring box is overridden
    assert "align-items: flex-start; justify-content: safe center;" in html


def test_the_estimates_do_not_depend_on_the_parts(study_run, tmp_path):
    """The same candidate estimated in one job gives the rows the two parts gave."""
    from topiceval.experiments.study import estimate_job

    tmp, config = study_run
    out = tmp / "results" / "studies" / "tiny"
    name = "gibbs-T3-seed0"
    estimate_job(out / "corpus.npz", out / "candidates" / name / "model.npz", name, 0, 1,
                 {**config["study"]["estimate"], "seed": 0, "method": "auto"}, None,
                 tmp_path / "rows.csv", tmp_path / "timings.csv")
    whole = pd.read_csv(tmp_path / "rows.csv")
    parts = pd.concat([pd.read_csv(out / "candidates" / name / f"part{i}of2.csv")
                       for i in range(2)], ignore_index=True)
    pd.testing.assert_frame_equal(whole, parts)


def test_untrusted_estimates_are_rerun_with_more_runs_before_the_verdict(study_run, tmp_path,
                                                                         capsys):
    """Issue 45: a document whose estimate is untrusted is estimated again with RERUN_FACTOR x
    the runs (fresh runs of its own streams), that estimate replaces the first, and the rows do
    not depend on the parts."""
    from topiceval.estimators import lda
    from topiceval.evaluation import combine_runs
    from topiceval.experiments import study as S
    from topiceval.seeds import derive_seed

    tmp, _ = study_run
    out = tmp / "results" / "studies" / "tiny"
    name = "tomotopy-T3-seed0"
    paths = (out / "corpus.npz", out / "candidates" / name / "model.npz")
    estimate = {**S.ESTIMATE_DEFAULTS, "runs": 2, "settings": {"samples": 2}}
    for parts in (1, 2):
        for part in range(parts):
            S.estimate_job(*paths, name, part, parts, estimate, None,
                           tmp_path / f"{part}of{parts}.csv", tmp_path / "timings.csv")
    said = capsys.readouterr().out  # the job says what it does, and the re-run
    assert f"study {name} part 1 of 1: scoring 24 held-out documents, 2 runs each" in said
    assert "untrusted: re-running them with 8 runs" in said
    rows = pd.read_csv(tmp_path / "0of1.csv")
    pd.testing.assert_frame_equal(rows, pd.concat(
        [pd.read_csv(tmp_path / f"{i}of2.csv") for i in range(2)], ignore_index=True))
    docs, scored, model = S._scored(*paths, None)
    (part,), _ = S.estimate_parts(estimate, docs.lengths)  # documents under 100 tokens: chib
    method, settings = part.method, part.settings
    seed = derive_seed(0, "study", name)
    first = lda.estimate_runs(method, list(docs), model.phi, model.alpha_m, runs=2, seed=seed,
                              doc_keys=scored, work_limit=None, **settings)
    again = ~first.diagnostics["trusted"].to_numpy(bool)
    assert again.sum() >= 2 and (rows["rerun"].to_numpy() == again).all()
    redo = lda.estimate_runs(method, [docs[int(d)] for d in np.flatnonzero(again)], model.phi,
                             model.alpha_m, runs=2 * S.RERUN_FACTOR, first_run=2, seed=seed,
                             doc_keys=scored[again], work_limit=None, **settings)
    np.testing.assert_allclose(rows["logp"][again], combine_runs(redo.logp)[0], rtol=1e-12)
    np.testing.assert_allclose(rows["logp"][~again], combine_runs(first.logp)[0][~again],
                               rtol=1e-12)
    assert (rows["trusted"][again].to_numpy() == redo.diagnostics["trusted"].to_numpy()).all()


def test_a_training_job_says_what_it_trains(study_run, tmp_path, capsys):
    from topiceval.experiments import study as S

    tmp, _ = study_run
    corpus = tmp / "results" / "studies" / "tiny" / "corpus.npz"
    candidate = S.dataclasses.asdict(S.Candidate("gibbs-T2-seed5", "topiceval", "gibbs", 2, 5))
    S.train_job(corpus, candidate, {"sweeps": 5}, tmp_path / "model.npz", tmp_path / "own.csv")
    said = capsys.readouterr().out.splitlines()
    assert said[0].endswith("study gibbs-T2-seed5: training on 96 documents (1,286 tokens), "
                            "sweeps 5: under 2 CPU seconds predicted"), said
    assert said[-1].endswith("study gibbs-T2-seed5: trained, and its library's own number "
                             "computed")


def test_a_changed_configuration_reruns_only_the_affected_candidates(study_run):
    tmp, config = study_run
    assert job_counts(run_study(tmp, config, "-n").stdout) == {}  # nothing to do
    more = study_config(tmp)
    more["study"]["train"]["topics"] = [2, 3, 4]
    counts = job_counts(run_study(tmp, more, "-n").stdout)
    assert counts["study_train"] == 3 and counts["study_estimate"] == 3 * 2
    assert "study_corpus" not in counts and "study_import" not in counts
    slower = study_config(tmp)
    slower["study"]["train"]["settings"]["gibbs"] = {"sweeps": 40}
    counts = job_counts(run_study(tmp, slower, "-n").stdout)
    assert counts["study_train"] == 2 and counts["study_estimate"] == 2 * 2


def test_the_front_end_runs_the_same_snakemake(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(study_config(tmp_path)))
    args = argparse.Namespace(config=str(path), cores=2, data_mirror=str(tmp_path),
                              results=str(tmp_path / "r"), dry_run=True, report=None,
                              workflow=str(ROOT))
    cmd, where = snakemake_command(args)
    assert where == ROOT and cmd[1:3] == ["-m", "snakemake"]
    assert ["--configfile", str(path.resolve())] == cmd[5:7] and "--dry-run" in cmd
    assert cmd[-2:] == [f"data_mirror={tmp_path.resolve()}",
                        f"results_dir={(tmp_path / 'r').resolve()}"]
    done = subprocess.run(["topiceval", "study", str(path), "--dry-run", "--results",
                           str(tmp_path / "r")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "study_train" in done.stdout
    path.write_text("corpora: {}\n")
    bad = subprocess.run(["topiceval", "study", str(path)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert bad.stderr.strip().splitlines()[-1] == (
        f"topiceval study: error: {path}: no study: block (see config/study-example.yaml)")


def test_jobs_are_priced_from_their_predicted_work(study_run):
    from topiceval.experiments import study as S

    tmp, config = study_run
    out = tmp / "results" / "studies" / "tiny"
    estimate = {**S.ESTIMATE_DEFAULTS, **config["study"]["estimate"]}
    # a tiny study: every job at the floor, the floor times the attempt
    assert S.estimate_minutes(out / "corpus.npz", out / "candidates" / "gibbs-T3-seed0" /
                              "model.npz", estimate, None, 0, 2, attempt=2) == 2 * S.MIN_MINUTES
    assert S.train_minutes(out / "corpus.npz", "sklearn", 3, {"max_iter": 10}) == S.MIN_MINUTES
    assert S.priced_minutes(3600.0) == 120 and S.priced_minutes(3600.0, 2) == 240
    # beyond PRICED_TOPICS the price grows with T
    base = S.train_seconds(10**6, "gibbs", S.PRICED_TOPICS, {"sweeps": 100})
    assert S.train_seconds(10**6, "gibbs", 2 * S.PRICED_TOPICS, {"sweeps": 100}) == 2 * base
    assert S.train_seconds(10**6, "gibbs", 5, {"sweeps": 100}) == base
    with pytest.raises(FileNotFoundError):  # Snakemake then waits for the input ("<TBD>")
        S.train_minutes(out / "missing.npz", "gibbs", 3, {"sweeps": 1})


def test_a_sampled_study_estimates_the_full_totals(study_run):
    """Scoring a seeded sample of the held-out documents: the rows of the sampled documents are
    those of the full run (streams keyed by position), and each candidate's estimated total
    lies near its full total, with a sampling error beside the Monte Carlo one."""
    from topiceval.corpus import Corpus
    from topiceval.experiments import study as S
    from topiceval.models import load_model

    tmp, config = study_run
    out = tmp / "results" / "studies" / "tiny"
    plan = S.study_plan(config["study"])
    corpus = Corpus.load(out / "corpus.npz")
    docs = pd.read_csv(out / "documents.csv", dtype={"name": str})
    sample = {"docs": 12, "seed": 1}
    _, scored = S.scored_heldout(corpus, sample)
    own = {c.name: pd.read_csv(out / "candidates" / c.name / "own.csv") for c in plan.candidates}
    models = {c.name: load_model(out / "candidates" / c.name / "model.npz")
              for c in plan.candidates}
    sampled, paired = S.compare_candidates(plan.candidates, plan.estimate, sample, corpus,
                                           docs[docs["doc"].isin(scored)], own, models)
    full = pd.read_csv(out / "candidates.csv").set_index("candidate")
    sampled = sampled.set_index("candidate")
    assert (sampled["documents"] == 12).all() and (sampled["heldout_documents"] == 24).all()
    assert (sampled["tokens"] == full["tokens"]).all()  # the held-out tokens, all known
    assert (sampled["se_sampling"] > 0).all() and (paired["documents"] == 12).all()
    assert (sampled["log_likelihood_se"] > full.loc[sampled.index, "log_likelihood_se"]).all()
    gap = (sampled["log_likelihood"] - full.loc[sampled.index, "log_likelihood"]).abs()
    assert (gap < 4 * sampled["log_likelihood_se"]).all()



def test_a_bdmc_study_reports_the_sandwich(study_run, tmp_path):
    """estimate method bdmc: every document's upper bound (the runs' reverse weights
    averaged) in documents.csv, and in candidates.csv the total of the upper bounds and the gap
    per token."""
    from topiceval.corpus import Corpus
    from topiceval.estimators import lda
    from topiceval.evaluation import combine_upper
    from topiceval.experiments import study as S
    from topiceval.models import load_model
    from topiceval.seeds import derive_seed

    tmp, config = study_run
    out = tmp / "results" / "studies" / "tiny"
    estimate = {**S.ESTIMATE_DEFAULTS, "runs": 3, "method": "bdmc",
                "settings": {"temperatures": 20, "burnin": 5}}
    plan = S.study_plan({**config["study"], "estimate": estimate})
    rows = []
    for c in plan.candidates:
        path = tmp_path / f"{c.name}.csv"
        S.estimate_job(out / "corpus.npz", out / "candidates" / c.name / "model.npz", c.name,
                       0, 1, plan.estimate, None, path, tmp_path / "timings.csv")
        rows.append(pd.read_csv(path, dtype={"name": str}))
    docs = pd.concat(rows, ignore_index=True)
    assert list(docs.columns[:len(S.DOCUMENT_COLUMNS)]) == S.DOCUMENT_COLUMNS
    name = plan.candidates[0].name
    mine = docs[docs["candidate"] == name]
    held, model = S._scored(out / "corpus.npz", out / "candidates" / name / "model.npz", None)[::2]
    runs = lda.estimate_runs("bdmc", [held[d] for d in range(len(held))], model.phi,
                             model.alpha_m, runs=3, seed=derive_seed(0, "study", name),
                             doc_keys=mine["doc"].to_numpy(), temperatures=20, burnin=5)
    first = ~mine["rerun"].to_numpy(bool)  # the rest were re-run with RERUN_FACTOR x the runs
    np.testing.assert_allclose(mine["upper"].to_numpy()[first],
                               combine_upper(runs.upper)[0][first], rtol=1e-12)
    own = {c.name: pd.read_csv(out / "candidates" / c.name / "own.csv") for c in plan.candidates}
    models = {c.name: load_model(out / "candidates" / c.name / "model.npz")
              for c in plan.candidates}
    cands, _ = S.compare_candidates(plan.candidates, plan.estimate, None,
                                    Corpus.load(out / "corpus.npz"), docs, own, models)
    by = cands.set_index("candidate")
    np.testing.assert_allclose(by["log_likelihood_upper"],
                               docs.groupby("candidate")["upper"].sum()[by.index], rtol=1e-12)
    np.testing.assert_allclose(by["gap_per_token"],
                               (by["log_likelihood_upper"] - by["log_likelihood"]) / by["tokens"])
    full = pd.read_csv(out / "candidates.csv")
    assert full["log_likelihood_upper"].isna().all()  # chib: no upper bound


def test_a_study_from_python_returns_its_candidates(tmp_path):
    """topiceval.study.run: the configuration as a mapping, the table it returns is the
    candidates.csv the workflow wrote; a failed workflow is one RuntimeError."""
    import topiceval.study

    config = study_config(tmp_path, name="python", heldout={"fraction": 0.25, "seed": 0},
                          train={"trainers": ["gibbs"], "topics": [2, 3], "seeds": [0],
                                 "settings": {"gibbs": {"sweeps": 20}}},
                          models={}, estimate={"runs": 2, "parts": 1,
                                               "settings": {"samples": 20}},
                          compare={"docs": 4, "temperatures": 10})
    config["study"]["corpus"]["max_docs"] = 40
    result = topiceval.study.run(config, cores=2, results=tmp_path / "results")
    assert result.directory == (tmp_path / "results" / "studies" / "python").resolve()
    written = pd.read_csv(result.directory / "candidates.csv", keep_default_na=False,
                          na_values=[""])
    pd.testing.assert_frame_equal(result.candidates, written)
    assert set(result.candidates["candidate"]) == {"gibbs-T2-seed0", "gibbs-T3-seed0"}
    assert (result.candidates["verdict"] == "best").sum() == 1
    config["study"]["corpus"]["texts"] = str(tmp_path / "no-such-folder")
    with pytest.raises(RuntimeError, match=r"^the study's workflow failed \(Snakemake exit"):
        topiceval.study.run(config, results=tmp_path / "results")
