"""Every published caption is the one the current code writes from the published table
(topiceval.plots.recaption; issue 33 item 3): a caption function that changes without the
publications being written again (``python workflow/scripts/recaption.py docs/results/...``)
fails here, so a published caption can never contradict the verdict of docs/results.md."""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from topiceval.plots.flags import untrusted_note
from topiceval.plots.recaption import (
    DERIVED,
    NOT_FROM_TABLES,
    caption_of,
    derived_table,
    published_captions,
    recaption,
    redraw,
)
from topiceval.provenance import refresh_publication
from workflow_config import ROOT

PUBLICATIONS = sorted(p.parent for p in (ROOT / "docs" / "results").rglob("provenance.json"))
CASES = [(d, name) for d in PUBLICATIONS for name in published_captions(d)]


def _config(directory: Path) -> dict:
    return json.loads((directory / "provenance.json").read_text(encoding="utf-8"))["config"]


def test_there_are_publications_with_captions():
    assert len(PUBLICATIONS) >= 6 and len(CASES) >= 30


@pytest.mark.parametrize("directory, name", CASES,
                         ids=[f"{d.relative_to(ROOT / 'docs/results')}/{n}" for d, n in CASES])
def test_published_caption_is_what_the_current_code_writes(directory, name):
    expected = caption_of(directory, name, _config(directory))
    if expected is None:  # written from the corpora, which a publication does not hold
        assert any(p.fullmatch(name) for p in NOT_FROM_TABLES)
        return
    assert (directory / name).read_text(encoding="utf-8") == expected, (
        f"{directory / name} is not what the current code writes from its table: run "
        f"python workflow/scripts/recaption.py {directory.relative_to(ROOT)}")


DERIVED_CASES = [(d, name) for d in PUBLICATIONS for name in DERIVED if (d / name).exists()]


@pytest.mark.parametrize("directory, name", DERIVED_CASES,
                         ids=[f"{d.relative_to(ROOT / 'docs/results')}/{n}"
                              for d, n in DERIVED_CASES])
def test_published_derived_table_is_what_the_current_code_computes(directory, name):
    """004-F1 is computed from the published 004-F2 table; the published one is the current
    code's (with the code's proposal beside the paper's, issue 33 item 9)."""
    assert (directory / name).read_text(encoding="utf-8") == derived_table(directory, name)


def test_an_unknown_caption_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="figures/x-F9.caption.md: no caption writer"):
        caption_of(tmp_path, "figures/x-F9.caption.md", {})


def test_recaption_rewrites_a_stale_caption_and_provenance_says_so(tmp_path):
    source = ROOT / "docs" / "results" / "paper" / "wallach2009"
    out = tmp_path / "pub"
    shutil.copytree(source, out)
    stale = out / "figures" / "wallach2009-f2.caption.md"
    fresh = stale.read_text(encoding="utf-8")
    stale.write_text("Figure 2. LR DISAGREES.\n", encoding="utf-8")
    (out / "figures" / "x-F1.caption.md").write_text("kept as published\n", encoding="utf-8")
    prov = refresh_publication(out, ROOT)
    assert stale.read_text(encoding="utf-8") == fresh
    assert (out / "figures" / "x-F1.caption.md").read_text() == "kept as published\n"
    assert "figures/wallach2009-f2.caption.md" in prov["rewritten"]["files"]
    assert len(prov["rewritten"]["commit"]) == 40
    saved = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    assert saved["rewritten"] == prov["rewritten"] and saved["config"] == _config(source)
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "Written again from the published tables (no estimator run)" in readme
    assert recaption(out) == []  # written again: nothing left to change


@pytest.mark.slow
def test_figures_drawn_again_from_the_published_tables_are_the_published_ones(tmp_path):
    """The figures of a publication that its tables alone determine come out byte for byte
    as published (the drawing is deterministic), so publishing can draw them again."""
    out = tmp_path / "pub"
    shutil.copytree(ROOT / "docs" / "results" / "paper" / "capdevila2018", out)
    config = _config(out)
    assert redraw(out, config) == []
    (out / "figures" / "capdevila2018-F1.png").write_bytes(b"stale")
    assert redraw(out, config) == ["figures/capdevila2018-F1.png"]
    assert redraw(out, config) == []


def test_a_table_without_untrusted_counts_adds_no_sentence():
    """No column, or a column of NaN (a summary of rows written before the diagnostics): the
    caption reads as it did before the diagnostics (issue 31)."""
    assert untrusted_note(pd.DataFrame({"x": [1.0]})) == ""
    assert untrusted_note(pd.DataFrame({"untrusted": [np.nan, np.nan]})) == ""
    assert "trust every estimate" in untrusted_note(pd.DataFrame({"untrusted": [0.0, 0.0]}))
    assert "1 of 2 points" in untrusted_note(pd.DataFrame({"untrusted": [0.0, 3.0]}))
