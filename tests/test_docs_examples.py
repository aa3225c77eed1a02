"""The documentation's examples run as written, so that they cannot rot.

* Every notebook page of docs/ (front matter ``file_format: mystnb``: getting started and the
  examples of each library) runs its code cells in order here too, as the site's build does
  (``.ci/docs-stage.sh``), on the Lee corpus that ships with gensim.
* The MALLET page, which the build cannot run (pip cannot install MALLET), runs on the real
  MALLET model of the data mirror: its Python block and its two commands.
* Every ``topiceval ...`` command line of a page's shell blocks is one the command line accepts.
* Every notebook page counts what it drops: its out-of-vocabulary count is the number of
  held-out tokens whose word the model does not know, counted here from the page's own words
  (a path that removes unknown words before topiceval sees them reports 0 and fails).
* Getting started's two commands, on the page's model and held-out texts, give the page's
  Python number (one tokenizer per model: the model file records the vectorizer's).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
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
    check_oov_count(page, namespace)


def heldout_words(page: Path, namespace: dict) -> list[list[str]]:
    """The held-out words of a notebook page, as the training text's were split: by the
    vectorizer's analyzer (scikit-learn, lda), or the page's own token lists (gensim,
    tomotopy)."""
    if "vectorizer" in namespace:
        analyze = namespace["vectorizer"].build_analyzer()
        return [analyze(text) for text in namespace["test_texts"]]
    assert "test" in namespace, f"{page.name}: which held-out words does it score?"
    return namespace["test"]


def check_oov_count(page: Path, namespace: dict) -> None:
    """The page's result drops exactly the held-out tokens the model does not know, per
    document, and there are some (the Lee held-out texts have words the training texts lack)."""
    known = set(np.asarray(namespace["model"].vocab).tolist())
    words = heldout_words(page, namespace)
    unknown = [sum(w not in known for w in doc) for doc in words]
    frame = namespace["result"].to_frame()
    assert sum(unknown) > 0, page.name
    assert frame["oov_tokens_dropped"].tolist() == unknown, page.name
    assert (frame["tokens_scored"] + frame["oov_tokens_dropped"]).tolist() == \
        [len(doc) for doc in words], page.name


@pytest.mark.slow
@TOMOTOPY_IMPORT
def test_getting_started_command_line_gives_the_python_number(tmp_path, monkeypatch, capsys):
    """The page's model saved as the page says, its held-out texts one per line, its two
    commands run as written: the same documents, tokens and log-likelihoods as its Python."""
    import joblib

    page = DOCS / "getting-started.md"
    namespace: dict = {}
    for number, cell in enumerate(CODE_CELL.findall(page.read_text(encoding="utf-8")), 1):
        exec(compile(cell, f"{page.name}, cell {number}", "exec"), namespace)
    monkeypatch.chdir(tmp_path)
    joblib.dump(namespace["lda"], "lda.joblib")
    joblib.dump(namespace["vectorizer"], "vectorizer.joblib")
    Path("heldout.txt").write_text("\n".join(namespace["test_texts"]) + "\n", encoding="utf-8")
    (block,) = [b for b in blocks(page, "sh") if b.startswith("topiceval ")]
    capsys.readouterr()
    for line in block.splitlines():
        assert cli.main(shlex.split(line, comments=True)[1:]) == 0, line
    assert "note:" not in capsys.readouterr().err  # the tokenizer was known
    table = pd.read_csv("per_document.csv")
    python = namespace["result"].to_frame()
    for column in ("tokens_scored", "oov_tokens_dropped"):
        assert table[column].tolist() == python[column].tolist(), column
    np.testing.assert_allclose(table["logp_nats"], python["logp_nats"], rtol=1e-12)


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
