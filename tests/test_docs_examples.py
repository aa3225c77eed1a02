"""The documentation's examples run as written, so that they cannot rot.

* Every notebook page of docs/ (front matter ``file_format: mystnb``: getting started and the
  examples of each library) runs its code cells in order here too, as the site's build does
  (``.ci/docs-stage.sh``), on the Lee corpus that ships with gensim.
* The MALLET page, which the build cannot run (pip cannot install MALLET), runs on the real
  MALLET model of the data mirror: its Python block and its two commands.
* Every ``topiceval ...`` command line of a page's shell blocks is one the command line accepts.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from data_fixtures import SHARED_MIRROR
from topiceval import cli
from topiceval.data.readers.ldac import read_ldac

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
AP = SHARED_MIRROR / "ap"
MALLET_AP = SHARED_MIRROR / "mallet-ap"
MALLET_HELDOUT = range(341, 361)  # AP documents after the MALLET model's 340 training documents
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
# tomotopy 0.14's extension warns while it is imported
TOMOTOPY_IMPORT = pytest.mark.filterwarnings(
    "ignore:builtin type _VocabDict has no __module__ attribute:DeprecationWarning")


def pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)


def notebook_pages() -> list[Path]:
    return [p for p in pages() if "file_format: mystnb" in p.read_text(encoding="utf-8")[:300]]


def blocks(page: Path, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", page.read_text(encoding="utf-8"),
                      flags=re.MULTILINE | re.DOTALL)


def test_the_examples_are_notebook_pages():
    names = {p.relative_to(DOCS).as_posix() for p in notebook_pages()}
    assert {"getting-started.md", "examples/gensim.md", "examples/tomotopy.md",
            "examples/lda.md"} <= names


@pytest.mark.slow
@TOMOTOPY_IMPORT
@pytest.mark.parametrize("page", notebook_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_notebook_page_runs(page, capsys):
    cells = CODE_CELL.findall(page.read_text(encoding="utf-8"))
    assert cells, f"{page}: no code cells"
    namespace: dict = {}
    for number, cell in enumerate(cells, 1):
        exec(compile(cell, f"{page.name}, cell {number}", "exec"), namespace)
    out = capsys.readouterr().out
    assert re.search(r"per token: -\d+\.\d+ \+/- [\d.]+ nats", out), out


def command_lines() -> list[tuple[str, list[str]]]:
    """(page, argv) of every ``topiceval`` line of the pages' shell blocks."""
    out = []
    for page in pages():
        for block in blocks(page, "sh"):
            for line in block.splitlines():
                if line.startswith("topiceval "):
                    out.append((page.relative_to(DOCS).as_posix(),
                                shlex.split(line, comments=True)[1:]))
    return out


@pytest.mark.parametrize("page,argv", command_lines(), ids=lambda x: " ".join(x)
                         if isinstance(x, list) else x)
def test_command_lines_of_the_pages_parse(page, argv):
    if "--help" in argv or "--version" in argv:
        return
    args = cli.build_parser().parse_args(argv)
    assert args.func, f"{page}: {argv}"


@pytest.mark.slow
@pytest.mark.skipif(not (MALLET_AP / "state.gz").is_file() or not (AP / "ap.dat").is_file(),
                    reason=f"AP or the MALLET model not found under {SHARED_MIRROR} (set "
                           "TOPICEVAL_DATA_MIRROR)")
def test_mallet_page_runs_on_the_mallet_model(tmp_path, monkeypatch, capsys):
    """The held-out file: AP documents the MALLET model was not trained on, one per line."""
    page = DOCS / "examples" / "mallet.md"
    (tmp_path / "state.gz").symlink_to(MALLET_AP / "state.gz")
    corpus = read_ldac(AP / "ap.dat", AP / "vocab.txt", "ap")
    lines = [" ".join(corpus.vocab[i] for i in corpus.docs[d].ids) for d in MALLET_HELDOUT]
    (tmp_path / "heldout.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    (python,) = blocks(page, "python")
    exec(compile(python, "mallet.md", "exec"), {})
    assert "per token:" in capsys.readouterr().out
    for line in blocks(page, "sh")[0].splitlines():
        assert cli.main(shlex.split(line, comments=True)[1:]) == 0, line
    assert (tmp_path / "per_document.csv").is_file()
