"""Three mistakes a new user makes, each answered by one clear line (issue 47):

* a misspelled ``--docs`` path (was a raw ``[Errno 2] No such file or directory: 'x'``);
* a text file given to ``topiceval import --from sklearn`` (was joblib's "You may be trying to
  read with python 3 a joblib pickle generated with python 2");
* ``topiceval study`` from an installed wheel, which has no workflow (was ``--workflow
  <site-packages path>: no Snakefile there``, an option the user never passed).
"""

from __future__ import annotations

import numpy as np
import pytest

from topiceval import cli
from topiceval.commands import study
from topiceval.models import LDAModel, save_model


def error_line(capsys) -> str:
    """The one line a failed command printed on standard error."""
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    return lines[0]


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "model.npz"
    save_model(path, LDAModel(np.full((2, 2), 0.5), np.ones(2), vocab=["a", "b"]))
    return path


@pytest.mark.parametrize("where", ["missing.txt", "."], ids=["misspelled", "a directory"])
def test_a_docs_path_that_is_not_a_file(model_file, tmp_path, capsys, where):
    assert cli.main(["evaluate", "--model", str(model_file), "--docs", str(tmp_path / where),
                     "--no-progress"]) == 1
    line = error_line(capsys)
    assert line.startswith(f"topiceval evaluate: error: --docs {tmp_path / where}: ")
    assert ("no such file" if where != "." else "a directory") in line
    assert "Errno" not in line


def test_a_file_error_is_said_as_path_and_reason():
    """Any command's file error: ``path: reason``, without ``[Errno 2]``."""
    error = FileNotFoundError(2, "No such file or directory", "words.txt")
    assert cli.one_line(error) == "words.txt: No such file or directory"


@pytest.mark.parametrize("library", ["sklearn", "lda", "gensim"])
def test_a_text_file_given_as_a_pickle(tmp_path, capsys, library):
    text = tmp_path / "heldout.txt"
    text.write_text("the first document\nthe second one\n" * 2000, encoding="utf-8")
    argv = ["import", "--from", library, str(text), "--trust-pickle", "--out",
            str(tmp_path / "m.npz")]
    if library != "gensim":
        (tmp_path / "words.txt").write_text("a\nb\n", encoding="utf-8")
        argv += ["--vocabulary", str(tmp_path / "words.txt")]
    assert cli.main(argv) == 1
    line = error_line(capsys)
    assert f"{text} is a text file, not the pickle --from {library} reads" in line
    assert "python 2" not in line and not (tmp_path / "m.npz").exists()


def test_a_model_file_or_another_librarys_given_as_a_pickle(model_file, tmp_path, capsys):
    state = tmp_path / "state.txt"
    state.write_text("#doc source pos typeindex type topic\n#alpha : 0.1\n#beta : 0.01\n",
                     encoding="utf-8")
    for path, said in ((model_file, "is a zip archive (a topiceval .npz model or corpus?)"),
                       (state, "is a MALLET --output-state file"),
                       (tmp_path / "nothere.joblib", ": no such file")):
        assert cli.main(["import", "--from", "sklearn", str(path), "--vocabulary",
                         str(model_file), "--trust-pickle", "--out", str(tmp_path / "m.npz")]) == 1
        assert said in error_line(capsys)


def test_study_from_an_installed_wheel_says_it_needs_a_clone(tmp_path, monkeypatch, capsys):
    """An installed wheel: the package's grandparent holds no Snakefile."""
    config = tmp_path / "study.yaml"
    config.write_text("study: {name: x}\n", encoding="utf-8")
    monkeypatch.setattr(study, "ROOT", tmp_path / "site-packages")
    assert cli.main(["study", str(config), "--dry-run"]) == 1
    line = error_line(capsys)
    assert "a study runs the workflow of a clone of the repository" in line
    assert "--workflow DIR" in line and "--workflow /" not in line
    # a --workflow the user passed is named as passed
    assert cli.main(["study", str(config), "--dry-run", "--workflow", "elsewhere"]) == 1
    assert "--workflow elsewhere: no Snakefile there" in error_line(capsys)


def test_a_bad_study_is_refused_in_one_line_before_snakemake_starts(tmp_path, monkeypatch,
                                                                   capsys):
    """The study's plan is checked in the command (paths from the workflow's folder), not only
    inside the Snakefile, where Snakemake wraps the message in its own traceback."""
    config = tmp_path / "study.yaml"
    config.write_text("study:\n  name: x\n  corpus: {texts: /nowhere/at/all}\n",
                      encoding="utf-8")
    monkeypatch.setattr(study.subprocess, "run", lambda *a, **k: pytest.fail("Snakemake ran"))
    monkeypatch.setattr(study, "workflow_root", lambda workflow: tmp_path)  # a wheel has none
    assert cli.main(["study", str(config), "--dry-run"]) == 1
    line = error_line(capsys)
    assert line.startswith("topiceval study: error: study.corpus.texts: /nowhere/at/all is not "
                           "a readable folder")
    config.write_text("study:\n  name: x\n", encoding="utf-8")
    assert cli.main(["study", str(config), "--dry-run"]) == 1
    assert error_line(capsys).startswith("topiceval study: error: study.corpus: missing;")


@pytest.mark.parametrize(("content", "problem"), [
    (None, "No such file or directory"),
    ("a: [1\n", "not YAML (line 2, column 1)"),
    ("study:\n  name: a\nstudy:\n  name: b\n", "key 'study' is written twice (lines 1 and 3)"),
    ("- a\n", "not a list"),
], ids=["missing", "yaml syntax", "duplicate key", "not a mapping"])
def test_check_config_names_the_file_and_the_problem(tmp_path, capsys, content, problem):
    """What Snakemake's ``--configfile`` cannot say (issue 46): the file, the line, the fix."""
    path = tmp_path / "my.yaml"
    if content is not None:
        path.write_text(content)
    assert cli.main(["check-config", str(path)]) == 1
    line = error_line(capsys)
    assert line.startswith(f"topiceval check-config: error: {path}: ") and problem in line


def test_check_config_reads_the_shipped_configurations(capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = sorted(str(p) for p in (root / "config").glob("*.yaml"))
    assert cli.main(["check-config", *files]) == 0
    assert capsys.readouterr().out.count(": reads; top-level keys: ") == len(files)
