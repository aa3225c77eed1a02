"""The Snakemake workflow: config validation, lint, the corrupt-mirror path, the quick run.

The tests run Snakemake from the repository root with every output redirected into a temporary
directory (``results_dir``/``resources_dir``), reading the corpora from the data mirror
(``$TOPICEVAL_DATA_MIRROR``, default ``../shared/data`` beside the repository); tests that need
the mirror are skipped, with the reason, when it is absent.
"""

import subprocess

import pytest
from snakemake.utils import validate

from topiceval.data.sources import SOURCES
from workflow_config import (
    MIRROR,
    ROOT,
    SCHEMA,
    SNAKEMAKE,
    assert_schema_rejects,
    load_config,
    needs_mirror,
    snakemake,
)


@pytest.mark.parametrize("overlay", [None, "quick.yaml", "paper.yaml"])
def test_shipped_configs_are_valid(overlay):
    validate(load_config(overlay), SCHEMA)


def test_config_sources_match_the_package_registry():
    assert load_config()["sources"] == SOURCES


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("corpora", "nips", "wallach2009", "shuffle"), True, "'shuffle' was unexpected"),
        (("unknown_key",), 1, "'unknown_key' was unexpected"),
        (("max_docs",), 0, r"instance\['max_docs'\]"),
        (("corpora", "ap", "asis", "max_df"), 1.5, "1.5 is greater than the maximum of 1"),
        (("corpora", "ap", "asis", "top_k"), -1, "-1 is less than the minimum of 0"),
    ],
)
def test_schema_rejects_unknown_keys_and_out_of_range_numbers(path, value, message):
    assert_schema_rejects(path, value, message)


def test_bad_config_on_the_command_line_names_the_key(tmp_path):
    result = snakemake("-n", tmp_path=tmp_path, extra_config=["max_docs=-3"])
    assert result.returncode != 0
    assert "max_docs" in result.stderr + result.stdout


@pytest.mark.slow
def test_lint_is_clean():
    result = subprocess.run(
        [*SNAKEMAKE, "--lint", "--configfile", "config/quick.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Lints for" not in result.stdout + result.stderr


@pytest.mark.slow
@needs_mirror
def test_corrupt_mirror_file_stops_the_rule_and_leaves_no_output(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "kos").mkdir(parents=True)
    good = (MIRROR / "kos" / "docword.kos.txt.gz").read_bytes()
    (mirror / "kos" / "docword.kos.txt.gz").write_bytes(good[: len(good) // 2])  # truncated
    target = tmp_path / "resources" / "raw" / "kos" / "docword.kos.txt.gz"
    result = snakemake(str(target), tmp_path=tmp_path, mirror=mirror)
    log = (tmp_path / "results" / "logs" / "download" / "kos.log").read_text()
    assert result.returncode != 0
    assert "docword.kos.txt.gz" in log
    assert "DownloadError: kos/docword.kos.txt.gz: sha256 mismatch" in result.stderr
    assert "6439c39f2fccb4876563e4b4c9628974d8ccbeada43d661292a5024911389e30" in log  # expected
    assert "sha256" in log and "actual" in log.lower()
    assert not target.exists()
    assert not any(p.is_file() for p in (tmp_path / "resources").rglob("*"))


@pytest.mark.slow
@needs_mirror
@pytest.mark.workflow
def test_quick_pipeline_runs_end_to_end(quick_run):
    tmp_path, result = quick_run  # run once per session (conftest.py), shared with the crash test
    assert result.returncode == 0, result.stderr[-4000:]
    results = tmp_path / "results"
    stats = (results / "tables" / "corpus_stats.csv").read_text().splitlines()
    assert stats[0].startswith("dataset,variant,recipe,split,D,V")
    config = load_config("quick.yaml")
    for dataset, variants in config["corpora"].items():
        for variant in variants:
            assert (results / "corpora" / dataset / f"{variant}.npz").is_file()
            assert any(line.startswith(f"{dataset},{variant},") and ",all," in line
                       for line in stats)
    assert (results / "figures" / "corpus_lengths.png").stat().st_size > 10_000
    # every paper's tables, figures and captions: each figure is a real plot, each caption states
    # the paper's finding next to ours
    for paper, figures, tables in [
        ("bechard2018", ["F4"], ["F4", "F4-minimum", "T1", "T2"]),
        ("wallach2009", ["f1", "f2", "f3"], ["f1", "f2", "f3"]),
        ("foulds_smyth", ["F1-prior", "F1-uniform", "X1-prior", "X1-uniform"],
         ["F1-prior", "F1-uniform", "X1-prior", "X1-uniform"]),
        ("capdevila2018", ["F1", "F2", "F3"], ["T1", "F1", "F2", "F3"]),
    ]:
        for name in figures:
            assert (results / "figures" / f"{paper}-{name}.png").stat().st_size > 10_000
            caption = (results / "figures" / f"{paper}-{name}.caption.md").read_text()
            assert "Paper" in caption and "Ours" in caption, (paper, name)
        for name in tables:
            table = (results / "tables" / f"{paper}-{name}.csv").read_text().splitlines()
            assert len(table) > 1, (paper, name)
    # outputs are complete: nothing left for snakemake to do, and no temporary files remain
    again = snakemake("-n", tmp_path=tmp_path)
    assert "Nothing to be done" in again.stdout + again.stderr
    assert not list(tmp_path.rglob("*.part"))
