"""Input files read whole (issue 46, item 3; ``topiceval.input_files``): YAML with a key written
twice is refused everywhere the project reads YAML, naming the key and the file, and a file
beyond the input limit is refused before it is read, naming the file and the limit."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from topiceval.data.readers import read_csv_column, read_text_folder
from topiceval.input_files import (
    MAX_INPUT_BYTES,
    DuplicateKey,
    InputTooLarge,
    check_input_size,
    load_yaml,
)
from workflow_config import ROOT, SNAKEMAKE, copy_workflow

GIB = 2**30
TOO_LARGE = re.escape("1,024 MiB, more than the 256 MiB topiceval reads from one input file "
                      "(topiceval.input_files.MAX_INPUT_BYTES); split it into smaller files")


def sparse_file(path: Path, size: int) -> Path:
    """A file of ``size`` zero bytes that takes no disk space."""
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


@pytest.mark.parametrize("text, key, lines", [
    ("models:\n  a: 1\nname: x\nmodels:\n  b: 2\n", "models", (1, 4)),
    ("study:\n  train:\n    topics: [2]\n    seeds: [0]\n    topics: [3]\n", "topics", (3, 5)),
    ("a: {x: 1, x: 2}\n", "x", (1, 1)),
])
def test_a_key_written_twice_is_refused(tmp_path, text, key, lines):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(DuplicateKey) as caught:
        load_yaml(path)
    assert str(caught.value) == (f"{path}: key {key!r} is written twice (lines {lines[0]} and "
                                 f"{lines[1]}); keep one")


def test_yaml_syntax_and_size_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1, 2\nb: 3\n")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(bad))}: not YAML \(line 2, "):
        load_yaml(bad)
    with pytest.raises(InputTooLarge, match=rf"^{re.escape(str(tmp_path / 'big.yaml'))}: "
                                            rf"{TOO_LARGE}$"):
        load_yaml(sparse_file(tmp_path / "big.yaml", GIB))
    assert load_yaml(ROOT / "config" / "config.yaml")["results_dir"]


def test_a_file_beyond_the_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """The issue's 1 GiB one-line text file: one line naming the file and the limit, and not a
    byte of it read (a MemoryError before)."""
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text("one small document\n")
    huge = sparse_file(folder / "b.txt", GIB)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"read {self}"))
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: pytest.fail(f"read {self}"))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(huge))}: {TOO_LARGE}$"):
        read_text_folder(folder)
    with pytest.raises(ValueError, match=rf"^{re.escape(str(huge))}: {TOO_LARGE}$"):
        read_csv_column(huge, "text")
    assert check_input_size(folder / "a.txt") == 19
    assert check_input_size(sparse_file(tmp_path / "edge", MAX_INPUT_BYTES)) == MAX_INPUT_BYTES


def test_the_project_reads_yaml_only_through_load_yaml():
    """Every YAML file the package and the workflow read goes through ``load_yaml`` (Snakemake's
    own reading of the configuration files is checked by the Snakefile with it first)."""
    pattern = re.compile(r"yaml\.(safe_load|load|full_load|unsafe_load)\(")
    files = [*(ROOT / "src").rglob("*.py"), *(ROOT / "workflow").rglob("*.py"),
             *(ROOT / "workflow").rglob("*.smk"), ROOT / "Snakefile"]
    offenders = [str(p.relative_to(ROOT)) for p in files
                 if p.name != "input_files.py" and pattern.search(p.read_text())]
    assert not offenders, offenders
    assert "load_yaml(_path)" in (ROOT / "Snakefile").read_text()


@pytest.mark.slow
@pytest.mark.workflow
def test_the_workflow_without_its_configuration_says_where_to_run(tmp_path):
    """Run from elsewhere without --configfile, the Snakefile says what is missing and the fix
    (Snakemake's own message named neither)."""
    done = subprocess.run([*SNAKEMAKE, "-n", "--cores", "1", "--snakefile",
                           str(ROOT / "Snakefile")], cwd=tmp_path, capture_output=True,
                          text=True)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in said, said[-2000:]
    assert (f"{tmp_path / 'config' / 'config.yaml'}: no such file; run snakemake in the "
            "repository's root (beside the Snakefile), or give the configuration with "
            "--configfile FILE") in said, said[-2000:]


@pytest.mark.slow
@pytest.mark.workflow
def test_the_workflows_own_configuration_with_a_yaml_error_names_the_file(tmp_path):
    """A syntax error in config/config.yaml: one line naming the file and the line (Snakemake's
    own message, "Config file is not valid JSON or YAML", named neither)."""
    work = copy_workflow(tmp_path / "wf")
    config = work / "config" / "config.yaml"
    config.write_text(config.read_text().replace("results_dir:", "results_dir: [", 1))
    done = subprocess.run([*SNAKEMAKE, "-n", "--cores", "1"], cwd=work, capture_output=True,
                          text=True)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in said, said[-2000:]
    assert "config/config.yaml: not YAML (line " in said, said[-2000:]
