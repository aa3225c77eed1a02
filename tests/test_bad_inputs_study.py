"""Bad input of a study (issue 30, item 6), refused before any job starts: one row per case.

``CASES``: a change to the tiny study of tests/test_study_workflow.py, and a piece of the
one-line ``ValueError`` that the plan (``study_plan``) or the data check (``check_data``, what
the snakefile runs while it builds the jobs) raises.  Each case is checked in-process and then
through ``snakemake -n``, which must stop with that line and run nothing.  ``SCHEMA`` rows are
refused by workflow/schemas/study.schema.yaml first.
"""

from __future__ import annotations

import copy
import importlib.util
import shutil
import subprocess

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from test_study_workflow import letter_texts, run_study, study_config, write_mallet_state
from topiceval.experiments import study as S
from workflow_config import ROOT, SCHEMA, SNAKEMAKE, load_config


def empty_folder(tmp, study):
    folder = tmp / "empty"
    folder.mkdir()
    study["corpus"] = {"texts": str(folder)}


def blank_files(tmp, study):
    folder = tmp / "blank"
    folder.mkdir()
    for i in range(3):
        (folder / f"{i}.txt").write_text("  the and of \n")
    study["corpus"] = {"texts": str(folder)}


def missing_corpus(tmp, study):
    study["corpus"] = {"texts": str(tmp / "nowhere")}


def csv_without_column(tmp, study):
    path = tmp / "docs.csv"
    path.write_text("id,body\n1,solaraa stoneaa\n")
    study["corpus"] = {"csv": str(path), "column": "text"}


def heldout_repeats_training(tmp, study):
    folder = tmp / "held"
    folder.mkdir()
    shutil.copy(tmp / "texts" / "doc005.txt", folder / "copy.txt")
    (folder / "new.txt").write_text("oceanaa oceanbb solaraa\n")
    study["heldout"] = {"texts": str(folder)}


def few_shared_words(tmp, study):
    other = [[w.upper() + "x" for w in doc] for doc in letter_texts(9, 30)]
    other[0] += ["solaraa"]
    study["models"] = {"other": {"library": "mallet",
                                 "path": str(write_mallet_state(tmp / "other.gz", other))}}


def another_corpus(tmp, study):
    words = sorted({w for doc in letter_texts(3, 120) for w in doc})
    others = [[w] * 20 for w in words]  # the same words, documents unlike any of the corpus's
    study["models"] = {"other": {"library": "mallet",
                                 "path": str(write_mallet_state(tmp / "other.gz", others))}}


def missing_model(tmp, study):
    study["models"] = {"gone": {"library": "mallet", "path": str(tmp / "gone.gz")}}


def relative_model_path(tmp, study):
    study["models"] = {"here": {"library": "mallet", "path": "not-here/state.gz"}}


def mirror_model_without_mirror(tmp, study):
    study["models"] = {"m": {"library": "mallet", "mirror": "mallet-ap/state.gz"}}


def clashing_name(tmp, study):
    study["models"] = {"gibbs-T2-seed0": dict(study["models"]["mallet-2"])}


def too_many_heldout(tmp, study):
    study["heldout"] = {"size": 100, "seed": 0}


def unknown_setting(tmp, study):
    study["estimate"] = {"settings": {"particles": 5}}


def huge_text_file(tmp, study):
    """A 1 GiB one-line text file among the corpus's (sparse: it takes no disk space)."""
    with open(tmp / "texts" / "huge.txt", "wb") as handle:
        handle.truncate(2**30)


def one_candidate(tmp, study):
    study["train"] = {"trainers": ["gibbs"], "topics": [2]}
    study.pop("models")


# id, change, a piece of the message
CASES = [
    ("empty-corpus", empty_folder, "holds no document"),
    ("no-word-left", blank_files, "has no word left after the 'default' recipe"),
    ("unreadable-corpus", missing_corpus, "is not a readable folder"),
    ("csv-without-the-column", csv_without_column, "no column 'text'; the header has"),
    ("heldout-overlaps-training", heldout_repeats_training,
     "1 held-out document(s) are also training documents of the corpus (heldout/copy.txt); a "
     "held-out set must not overlap the training set"),
    ("model-shares-few-words", few_shared_words,
     "study.models.other: its vocabulary shares 1 of the corpus's"),
    ("model-of-another-corpus", another_corpus,
     "training documents are documents of the corpus: it was trained on another corpus"),
    ("model-file-missing", missing_model, "gone.gz is not a readable file"),
    ("model-path-relative", relative_model_path,
     "not-here/state.gz is not a readable file (a relative path is read from"),
    ("mirror-model-without-mirror", mirror_model_without_mirror, "no data_mirror is set"),
    ("model-name-clash", clashing_name, "is also the name of a trained candidate"),
    ("heldout-too-large", too_many_heldout, "100 held-out document(s) asked of 36 eligible"),
    ("unknown-estimator-setting", unknown_setting, "particles"),
    ("one-candidate", one_candidate, "a study compares at least two"),
    ("text-file-too-large", huge_text_file,
     "huge.txt: 1,024 MiB, more than the 256 MiB topiceval reads from one input file"),
]


def checked(config: dict, tmp) -> None:
    plan = S.study_plan(config["study"])
    S.check_data(plan.data, [], None, tmp / "stamp")


@pytest.mark.parametrize("change, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_in_the_plan_or_the_data_check(tmp_path, change, message):
    config = study_config(tmp_path)
    change(tmp_path, config["study"])
    with pytest.raises(ValueError, match=None) as caught:
        checked(config, tmp_path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.slow
@pytest.mark.workflow
@pytest.mark.parametrize("change, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_before_any_job_starts(tmp_path, change, message):
    config = study_config(tmp_path)
    change(tmp_path, config["study"])
    done = run_study(tmp_path, config, "-n")
    said = done.stdout + done.stderr  # Snakemake prints its WorkflowError on standard output
    line = next((x for x in said.splitlines() if message in x), None)
    assert done.returncode != 0 and line, said[-2000:]
    assert line.startswith("study") and "Traceback" not in said
    assert not (tmp_path / "results" / "logs").exists()  # no job ran


def test_a_peer_library_not_installed_names_the_extra(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "tomotopy" else real(name, *a))
    config = study_config(tmp_path)
    with pytest.raises(ValueError, match=r"study.train.trainers: tomotopy needs the 'tomotopy' "
                                         r"package, which is not installed: pip install"):
        checked(config, tmp_path)
    config["study"]["train"]["trainers"] = ["gibbs"]
    config["study"]["models"]["t"] = {"library": "tomotopy", "path": str(tmp_path / "x.bin")}
    with pytest.raises(ValueError, match=r"study.models.t needs the 'tomotopy' package"):
        checked(config, tmp_path)


# key path under study, value, what the schema says
SCHEMA_CASES = [
    ("unknown-trainer", ("train", "trainers"), ["gibbs", "lda"], "'lda' is not one of"),
    ("unknown-library", ("models", "m"), {"library": "bertopic", "path": "x"},
     "'bertopic' is not one of"),
    ("unknown-key", ("colour",), "red", "'colour' was unexpected"),
    ("sample-too-small", ("sample",), {"docs": 10}, "10 is less than the minimum of 100"),
    ("runs-one", ("estimate", "runs"), 1, "1 is less than the minimum of 2"),
    ("bad-name", ("name",), "my study", "does not match"),
]


@pytest.mark.parametrize("path, value, message", [c[1:] for c in SCHEMA_CASES],
                         ids=[c[0] for c in SCHEMA_CASES])
def test_the_schema_refuses(tmp_path, path, value, message):
    config = copy.deepcopy(load_config())
    config.update(study_config(tmp_path))
    node = config["study"]
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    with pytest.raises(WorkflowError, match=message):
        validate(config, SCHEMA)


def study_yaml_with_models_twice(tmp_path):
    """The tiny study's YAML with its ``models:`` block written a second time (one candidate
    each): PyYAML would keep the second and drop the first without a word."""
    config = study_config(tmp_path)
    text = yaml.safe_dump(config)
    extra = yaml.safe_dump({"models": {"again": dict(config["study"]["models"]["mallet-2"])}})
    path = tmp_path / "study.yaml"
    path.write_text(text.replace("study:\n", "study:\n" + "".join(
        "  " + line + "\n" for line in extra.splitlines()), 1))
    return path


def test_a_key_written_twice_is_refused_by_the_study_command(tmp_path, capsys):
    from topiceval.cli import main

    path = study_yaml_with_models_twice(tmp_path)
    assert main(["study", str(path), "--dry-run"]) != 0
    err = capsys.readouterr().err.strip()
    assert err == (f"topiceval study: error: {path}: key 'models' is written twice (lines 2 and "
                   "19); keep one"), err


@pytest.mark.slow
@pytest.mark.workflow
def test_a_key_written_twice_is_refused_by_the_workflow(tmp_path):
    path = study_yaml_with_models_twice(tmp_path)
    done = subprocess.run([*SNAKEMAKE, "-n", "--cores", "1", "--configfile", str(path)],
                          cwd=ROOT, capture_output=True, text=True)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in said, said[-2000:]
    assert any(line.startswith(f"{path}: key 'models' is written twice (lines ")
               for line in said.splitlines()), said[-2000:]
