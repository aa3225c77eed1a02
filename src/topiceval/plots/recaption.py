"""Captions (and derived tables) of a published run written again, from its published tables,
by the current code.

A publication (``docs/results/<name>/``, rule ``publish``) holds each figure's and table's
caption beside the table it was written from.  A caption states a verdict ("agrees",
"DISAGREES"), so it must be the one the current caption code writes from that table: a run
computed at an older commit and published later, or a caption function changed after a run was
published, would otherwise leave a caption that contradicts the results page.  :func:`recaption`
writes every caption of a publication again from its tables and the run's configuration
(``provenance.json``), without running an estimator; the rule ``publish`` calls it, and
``tests/test_published_captions.py`` checks that every published caption equals what this
module writes.  A few tables are computed from other published tables, with no estimator
(:data:`DERIVED`: 004-F1 from 004-F2); :func:`rederive` writes them again the same way, with their
figures, before the captions are written; :func:`redraw` draws the figures that the published
tables alone determine (:data:`FIGURES`) again, when the drawing code changed.

:data:`CAPTIONS` says which tables and which settings make each caption; it mirrors the figure
and table rules of ``workflow/rules/<paper>.smk``.  :data:`NOT_FROM_TABLES` lists the captions
written from inputs that a publication does not hold (the corpora), which are left as published.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd

from topiceval.experiments import bechard2018 as b18
from topiceval.experiments import capdevila2018 as c4
from topiceval.experiments import wallach2009 as w2
from topiceval.io import atomic_path, write_text_atomic
from topiceval.plots import bechard2018 as b18_plots
from topiceval.plots import capdevila2018 as c4_plots
from topiceval.plots import foulds_smyth as fs_plots
from topiceval.plots import wallach2009 as w2_plots

__all__ = ["CAPTIONS", "DERIVED", "FIGURES", "NOT_FROM_TABLES", "caption_of", "derived_table",
           "published_captions", "recaption", "redraw", "rederive"]

# A caption's writer: (publication directory, the name's match, the run's configuration) -> text
Writer = Callable[[Path, re.Match, Mapping], str]


def _table(directory: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(directory / "tables" / name)


def _wallach2009(directory: Path, match: re.Match, config: Mapping) -> str:
    figure = match["figure"]
    table = _table(directory, f"wallach2009-{figure}.csv")
    sets = w2.data_sets(config["wallach2009"])
    synthetic = tuple(n for n, s in sets.items() if s.synthetic)
    data = w2_plots.figure_data(table, sets, _table(directory, "corpus_stats.csv"))
    return w2_plots.caption_of_figure(figure, table, synthetic=synthetic, data=data)


def _foulds_smyth(directory: Path, match: re.Match, config: Mapping) -> str:
    cfg, name = config["foulds_smyth"], match["perturbation"]
    table = _table(directory, f"foulds_smyth-{match['figure']}-{name}.csv")
    if match["figure"] == "X1":
        return fs_plots.caption_reciprocal(table, perturbation=name, threshold=cfg["threshold"])
    perturbation = cfg["perturbations"][name]
    return fs_plots.caption_f1(table, perturbation=name,
                               concentration=perturbation["concentration"],
                               weight=perturbation["weight"],
                               note=fs_plots.perturbation_note(name, cfg["headline"]))


def _capdevila2018(directory: Path, match: re.Match, config: Mapping) -> str:
    figure = match["figure"]
    table = _table(directory, f"capdevila2018-{figure}.csv")
    if figure != "F3":
        return c4_plots.FIGURE_CAPTIONS[figure](table)
    # judged on the per-document statistics, where the run published them (issue 33)
    convergence = directory / "tables" / "capdevila2018-F3-convergence.csv"
    return c4_plots.caption_f3(
        table, pd.read_csv(convergence) if convergence.exists() else None,
        config["capdevila2018"]["realistic"].get("convergence"))


# caption file (relative to the publication) -> its writer; the workflow rule that writes it
CAPTIONS: dict[re.Pattern, Writer] = {
    # bechard2018_f4_figure
    re.compile(r"figures/bechard2018-F4\.caption\.md"):
        lambda d, m, c: b18_plots.f4_caption(_table(d, "bechard2018-F4.csv")),
    # bechard2018_topics
    re.compile(r"tables/bechard2018-(?P<table>T\d)\.caption\.md"):
        lambda d, m, c: b18.tables_caption(_table(d, f"bechard2018-{m['table']}.csv"),
                                           m["table"]),
    # wallach2009_figure (the Data line from tables/corpus_stats.csv)
    re.compile(r"figures/wallach2009-(?P<figure>f\d|x1)\.caption\.md"): _wallach2009,
    # foulds_smyth_figures
    re.compile(r"figures/foulds_smyth-(?P<figure>F1|X1)-(?P<perturbation>[\w-]+)\.caption\.md"):
        _foulds_smyth,
    # capdevila2018_figure (004-F3 also from tables/capdevila2018-F3-convergence.csv)
    re.compile(r"figures/capdevila2018-(?P<figure>F\d)\.caption\.md"): _capdevila2018,
    # capdevila2018_t1
    re.compile(r"tables/capdevila2018-T1\.caption\.md"):
        lambda d, m, c: c4.caption_t1(_table(d, "capdevila2018-T1.csv")),
}
# captions written from what a publication does not hold: corpus_lengths_figure reads the corpora
NOT_FROM_TABLES = (re.compile(r"figures/corpus_lengths\.caption\.md"),)


def _c4_f1(directory: Path) -> pd.DataFrame:
    """004-F1 from the published 004-F2 summary and the collections' mean lengths (which the
    004-F1 table holds): ``capdevila2018.kl_vs_length``, as rule capdevila2018_accuracy_tables."""
    lengths = _table(directory, "capdevila2018-F1.csv").groupby("collection", sort=False)[
        "mean_length"].first()
    return c4.kl_vs_length(_table(directory, "capdevila2018-F2.csv"), lengths.to_dict())


# a table computed from other published tables -> (its computation, its figure's stem and the
# figure's drawing function)
DERIVED: dict[str, tuple[Callable[[Path], pd.DataFrame], str, Callable]] = {
    "tables/capdevila2018-F1.csv": (_c4_f1, "figures/capdevila2018-F1",
                                    c4_plots.plot_kl_vs_length),
}


def derived_table(directory: str | os.PathLike, name: str) -> str:
    """The CSV text of the derived table ``name`` (:data:`DERIVED`) as the current code computes
    it from the publication's tables."""
    compute = DERIVED[name][0]
    return compute(Path(directory)).to_csv(index=False, lineterminator="\n")


def rederive(directory: str | os.PathLike, figure_format: str = "png") -> list[str]:
    """Write the derived tables of a publication (:data:`DERIVED`) again where the current code
    computes them otherwise, and draw their figures (``figure_format``) again; the files that
    changed (relative to ``directory``)."""
    root = Path(directory)
    changed = []
    for name, (_, figure, draw) in DERIVED.items():
        path = root / name
        if not path.exists():
            continue
        text = derived_table(root, name)
        if path.read_text(encoding="utf-8") != text:
            write_text_atomic(path, text)
            draw(pd.read_csv(path), root / f"{figure}.{figure_format}")
            changed += [name, f"{figure}.{figure_format}"]
    return changed


def _draw_wallach2009(directory: Path, match: re.Match, config: Mapping, path: Path) -> None:
    plot = {"f1": w2_plots.plot_f1, "f2": w2_plots.plot_f2, "f3": w2_plots.plot_f3,
            "x1": w2_plots.plot_x1}[match["figure"]]
    plot(_table(directory, f"wallach2009-{match['figure']}.csv"), path)


def _draw_capdevila2018(directory: Path, match: re.Match, config: Mapping, path: Path) -> None:
    figure = match["figure"]
    table = _table(directory, f"capdevila2018-{figure}.csv")
    if figure == "F1":
        c4_plots.plot_kl_vs_length(table, path)
    elif figure == "F2":
        c4_plots.plot_accuracy(table, path)
    else:
        convergence = directory / "tables" / "capdevila2018-F3-convergence.csv"
        c4_plots.plot_loglik(table, path,
                             pd.read_csv(convergence) if convergence.exists() else None)


# figures drawn from the published tables alone -> the drawing (Foulds & Smyth's figures need the
# per-document rows, corpus_lengths the corpora: neither is published, so they are not redrawn)
FIGURES: dict[re.Pattern, Callable[[Path, re.Match, Mapping, Path], None]] = {
    re.compile(r"figures/bechard2018-F4\.(png|pdf|svg)"):
        lambda d, m, c, path: b18_plots.plot_perplexity_vs_topics(
            _table(d, "bechard2018-F4.csv"), path),
    re.compile(r"figures/wallach2009-(?P<figure>f\d|x1)\.(png|pdf|svg)"): _draw_wallach2009,
    re.compile(r"figures/capdevila2018-(?P<figure>F\d)\.(png|pdf|svg)"): _draw_capdevila2018,
}


def redraw(directory: str | os.PathLike, config: Mapping) -> list[str]:
    """Draw every figure of :data:`FIGURES` in a publication again from its tables with the
    current code; the figures whose bytes changed (relative to ``directory``)."""
    root = Path(directory)
    changed = []
    for path in sorted((root / "figures").glob("*.*")):
        name = path.relative_to(root).as_posix()
        for pattern, draw in FIGURES.items():
            match = pattern.fullmatch(name)
            if match is None:
                continue
            with tempfile.TemporaryDirectory() as scratch:
                fresh = Path(scratch) / path.name
                draw(root, match, config, fresh)
                if fresh.read_bytes() != path.read_bytes():
                    with atomic_path(path) as tmp:
                        tmp.write_bytes(fresh.read_bytes())
                    changed.append(name)
    return changed


def _writer(name: str) -> tuple[Writer, re.Match] | None:
    """The writer of caption file ``name`` and the match of its name, or None."""
    for pattern, writer in CAPTIONS.items():
        match = pattern.fullmatch(name)
        if match:
            return writer, match
    return None


def caption_of(directory: str | os.PathLike, name: str, config: Mapping) -> str | None:
    """The caption file ``name`` (relative to the publication ``directory``) as the current code
    writes it from the publication's tables and the run's ``config``, with its final newline;
    None for a caption of :data:`NOT_FROM_TABLES`.

    Raises
    ------
    ValueError
        If no writer is known for ``name``.
    """
    found = _writer(name)
    if found is not None:
        writer, match = found
        return writer(Path(directory), match, config) + "\n"
    if any(pattern.fullmatch(name) for pattern in NOT_FROM_TABLES):
        return None
    raise ValueError(f"{name}: no caption writer is known for it (topiceval.plots.recaption)")


def published_captions(directory: str | os.PathLike) -> list[str]:
    """The caption files of a publication, relative to it, sorted."""
    root = Path(directory)
    return sorted(p.relative_to(root).as_posix() for p in root.glob("*/*.caption.md"))


def recaption(directory: str | os.PathLike, config: Mapping | None = None) -> list[str]:
    """Write every caption of the publication ``directory`` again from its tables.

    Parameters
    ----------
    directory : path
        A publication (rule ``publish``): ``figures/``, ``tables/`` and ``provenance.json``.
    config : mapping, optional
        The run's resolved configuration (default: the one in ``provenance.json``).

    Returns
    -------
    list of str
        The caption files whose text changed (relative to ``directory``).  Captions with no
        known writer, and those of :data:`NOT_FROM_TABLES`, are left as they are.
    """
    root = Path(directory)
    if config is None:
        config = json.loads((root / "provenance.json").read_text(encoding="utf-8"))["config"]
    changed = []
    for name in published_captions(root):
        if _writer(name) is None:
            continue  # not written from a table, or unknown here: published as the run wrote it
        text = caption_of(root, name, config)
        path = root / name
        if path.read_text(encoding="utf-8") != text:
            write_text_atomic(path, text)
            changed.append(name)
    return changed
