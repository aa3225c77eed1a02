"""Outputs that explain themselves: every command option has a help text, every command's output
columns are documented in one place (``topiceval.commands.OUTPUT_COLUMNS``) and shown by its
``--help``, no internal label ("seed 002", "002-F1") reaches a help text, caption or figure, and
every figure names its paper and the units of its axes."""

import argparse
import io
import re
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

from topiceval import cli
from topiceval.commands import OUTPUT_COLUMNS, columns_epilog
from topiceval.corpus import Corpus

INTERNAL = re.compile(r"\bseed[ -]?00[1-4]\b|\b00[1-4]-[FTX]\d", re.IGNORECASE)


def _parsers(parser: argparse.ArgumentParser, prefix=("topiceval",)):
    """Every (command path, parser) below ``parser``, itself included."""
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*prefix, name))


def _help(parser: argparse.ArgumentParser) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        parser.print_help()
    return out.getvalue()


def test_every_option_of_every_command_has_a_help_text():
    missing = []
    for path, parser in _parsers(cli.build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
                continue
            if not (action.help or "").strip():
                missing.append(f"{' '.join(path)} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, missing


def test_help_texts_name_no_internal_label_and_show_the_output_columns():
    parsers = dict(_parsers(cli.build_parser()))
    for path, parser in parsers.items():
        text = _help(parser)
        assert not INTERNAL.search(text), (path, INTERNAL.search(text).group(0))
    assert "COMMAND --help" in _help(parsers[("topiceval",)])
    for command in ("estimate", "evaluate", "compare", "corpus-stats"):
        text = _help(parsers[("topiceval", command)])
        assert columns_epilog(command) in text
        for name, _ in OUTPUT_COLUMNS[command]:
            assert f"  {name}: " in text, (command, name)
    assert columns_epilog("train") in _help(parsers[("topiceval", "train", "lda")])


def test_column_meanings_state_units_and_one_meaning_of_seconds():
    seconds = {meaning.split(";")[0] for columns in OUTPUT_COLUMNS.values()
               for name, meaning in columns if name == "seconds"}
    assert len(seconds) == 1  # the same definition in every command
    for columns in OUTPUT_COLUMNS.values():
        for name, meaning in columns:
            if name.endswith("_nats"):
                assert "nats" in meaning or name == "logp_per_token_nats", name


def test_method_names_in_the_help_are_the_registries():
    from topiceval.by_length import LONG_DEFAULTS
    from topiceval.estimators import gapfa
    from topiceval.estimators.lda import registry
    from topiceval.evaluation import DEFAULT_RUNS, DEFAULTS

    parsers = dict(_parsers(cli.build_parser()))
    estimate = " ".join(_help(parsers[("topiceval", "estimate")]).split())
    for label, names in (("LDA", registry.ESTIMATE), ("LDA --complete", registry.COMPLETE),
                         ("GaP-FA", gapfa.METHODS)):
        assert f"{label} {', '.join(names)}" in estimate
    text = _help(parsers[("topiceval", "evaluate")])
    text = " ".join(text.split())
    start, long_method, _ = LONG_DEFAULTS["lda"]
    assert (f"for LDA {DEFAULTS['lda'][0]} below {start} tokens and {long_method} from {start}, "
            f"{DEFAULTS['gapfa'][0]} for GaP-FA") in text
    assert f"{DEFAULT_RUNS['lda']} for LDA, {DEFAULT_RUNS['gapfa']} for GaP-FA" in text


def test_corpus_stats_prints_the_documented_columns(tmp_path, capsys):
    Corpus.from_documents([np.array([0, 1]), np.array([1])], vocab=["a", "b"],
                          split=["train", "test"]).save(tmp_path / "c.npz")
    assert cli.main(["corpus-stats", str(tmp_path / "c.npz")]) == 0
    header = capsys.readouterr().out.splitlines()[0].split("\t")
    assert header == [name for name, _ in OUTPUT_COLUMNS["corpus-stats"]]


def test_estimate_settings_hold_the_defaults(tmp_path):
    from topiceval.models import LDAModel, save_model

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(6)]
    Corpus.from_documents([rng.integers(0, 6, 5) for _ in range(3)],
                          vocab=words).save(tmp_path / "d.npz")
    save_model(tmp_path / "m.npz", LDAModel(np.full((2, 6), 1 / 6), np.full(2, 0.5),
                                            vocab=words))
    out = tmp_path / "o.csv"
    assert cli.main(["estimate", "--model", str(tmp_path / "m.npz"), "--docs",
                     str(tmp_path / "d.npz"), "--method", "chib", "--samples", "7", "--runs",
                     "2", "--no-progress", "--out", str(out)]) == 0
    frame = pd.read_csv(out)
    import json

    settings = json.loads(frame["settings"].iloc[0])
    assert settings["samples"] == 7 and {"burnin", "iterations"} <= set(settings)
    assert len(frame) == 6 and frame["seconds"].nunique() == 1


# --------------------------------------------------------------------------- figures
class Captured:
    """Stands in for ``save_figure``: keeps the figures instead of writing them."""

    def __init__(self):
        self.figures = []

    def __call__(self, fig, path, **kwargs):
        self.figures.append(fig)


def _texts(fig):
    """The suptitle and every visible axis's labels and title."""
    out = [fig._suptitle.get_text() if fig._suptitle else ""]
    for ax in fig.axes:
        if ax.get_visible():
            out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
    return out


def _check(fig, paper: str, units=("nats", "bits", "perplexity", "documents", "tokens")):
    """The suptitle names the paper, no text an internal label, every y label a unit."""
    texts = _texts(fig)
    assert paper in texts[0], texts[0]
    for text in texts:
        assert not INTERNAL.search(text), text
    ylabels = [ax.get_ylabel() for ax in fig.axes if ax.get_visible() and ax.get_ylabel()]
    assert ylabels
    for label in ylabels:
        assert any(u in label for u in units), label


def test_wallach2009_figures_explain_themselves(monkeypatch):
    from topiceval.plots import wallach2009 as plots

    grab = Captured()
    monkeypatch.setattr(plots, "save_figure", grab)
    rows = [{"dataset": d, "method": m, "setting": s, "value": v, "boot_sd": 0.5, "docs": 3}
            for d in ("a", "b")
            for m, s, v in (("ais", "AIS", -10), ("hm", "HM", -5), ("chib", "CS 1", -11),
                            ("lr", "LR 1", -10.5), ("lr_wallach", "LR 1", -10.4))]
    table = pd.DataFrame(rows)
    f3 = pd.DataFrame([{"kind": k, "setting": s, "method": m, "lam": lam, "value": -lam,
                        "boot_sd": 0.5, "docs": 3}
                       for k in ("phi", "m") for s, m in (("LR", "lr"), ("ET", "et"))
                       for lam in (0.0, 0.5)])
    plots.plot_f1(table, "f1.png")
    plots.plot_f2(table, "f2.png")
    plots.plot_f3(f3, "f3.png")
    for fig in grab.figures:
        _check(fig, "Wallach et al. (2009)")
        legend = " ".join(t.get_text() for lg in fig.legends for t in lg.get_texts())
        assert "LR-W" in legend or "ET" in legend  # abbreviations are spelt out


def test_capdevila2018_figure_2_has_one_unit(monkeypatch):
    from topiceval.plots import capdevila2018 as plots

    grab = Captured()
    monkeypatch.setattr(plots, "save_figure", grab)
    summary = pd.DataFrame([{"collection": c, "method": m, "samples": s, "kl_bits": 0.1 / s,
                             "mae": 1.0 / s, "repeats": 2, "n_docs": n, "kl_se": 0.01,
                             "mae_se": 0.1}
                            for c, n in (("AP", 5), ("NIPS", 1)) for m in ("ds", "l2r")
                            for s in (10, 20)])
    plots.plot_accuracy(summary, "f2.png")
    fig = grab.figures[0]
    _check(fig, "Capdevila et al. (2018)")
    labels = [ax.get_ylabel() for ax in fig.axes if ax.get_visible()]
    assert all("(bits)" in label for label in labels) and len(labels) == 2
    # the one-document panel shows the error in bits: the nats of the table divided by ln 2
    (ax,) = [ax for ax in fig.axes if ax.get_visible() and ax.get_title().startswith("NIPS")]
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [0.1 / np.log(2), 0.05 / np.log(2)])


def test_corpus_length_figure_has_a_caption_and_a_legend_outside_the_panels(tmp_path):
    from topiceval.plots.corpus import caption_path_for, length_distributions

    corpora = []
    for dataset, variant in (("ap", "asis"), ("ap", "capdevila2018-top100"), ("nips", "asis")):
        corpus = Corpus.from_documents([np.array([0, 1, 1]), np.array([1])], vocab=["a", "b"])
        corpus.meta.update({"dataset": dataset, "variant": variant,
                            "recipe": variant.split("-")[0],
                            "recipe_settings": {"top_k": 100} if "top" in variant else {}})
        corpora.append(corpus)
    figure = tmp_path / "corpus_lengths.png"
    caption = caption_path_for(figure)
    assert caption.name == "corpus_lengths.caption.md"
    length_distributions(corpora, figure, caption_path=caption)
    text = caption.read_text()
    assert text.startswith("Document lengths of every staged corpus")
    assert ("capdevila2018-top100: Capdevila et al. (2018)'s preprocessing, 100 most "
            "frequent words") in text
    assert "| ap | asis | 2 | 2 | 2.0 | 2 | 3 | 3 |" in text


@pytest.mark.parametrize("module", ["bechard2018", "capdevila2018", "foulds_smyth",
                                    "wallach2009"])
def test_captions_name_the_paper_not_an_internal_label(module):
    import importlib

    # the tables' captions are beside the tables, the figures' beside the figures
    mods = [importlib.import_module(f"topiceval.{layer}.{module}")
            for layer in ("experiments", "plots")]
    texts = [v for mod in mods for k, v in vars(mod).items()
             if isinstance(v, str) and (k.startswith(("PAPER", "LABELS", "DESCRIBE"))
                                        or k.endswith("_TEXT"))]
    assert texts and any(getattr(mod, "PAPER", "") for mod in mods)
    for text in texts:
        assert not INTERNAL.search(text), text
