"""Document-length distributions: one panel per dataset, one ECDF per recipe (log x axis).

``length_distributions(corpora, out_path)`` takes ``Corpus`` objects or corpus ``.npz`` paths
(dataset and recipe from each corpus's meta) and writes the figure atomically; the format
follows the suffix of ``out_path`` (``.png``, ``.pdf``, ``.svg``).  It uses matplotlib's
object API with the Agg canvas, so no display and no global pyplot state are involved.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from topiceval.corpus import Corpus
from topiceval.io import write_text_atomic
from topiceval.plots.save import save_figure

FORMATS = ("png", "pdf", "svg")
# what each preprocessing recipe is (legend and caption); a variant is a recipe with settings
RECIPE_TEXT = {
    "asis": "tokens or counts as published",
    "bechard2018": "Béchard & Gervet's preprocessing",
    "capdevila2018": "Capdevila et al. (2018)'s preprocessing",
    "wallach2009": "Wallach et al. (2009)'s preprocessing",
}
# variants named after a paper whose recipe is another paper's
VARIANT_PAPERS = {"foulds_smyth": "Foulds & Smyth"}
# one line style per variant (in sorted order), so that coinciding curves stay visible
LINESTYLES = ("-", "--", ":", "-.")


def _lengths_by_dataset(corpora) -> dict[str, dict[str, np.ndarray]]:
    return {dataset: {variant: info["lengths"] for variant, info in by_variant.items()}
            for dataset, by_variant in _corpora_by_dataset(corpora).items()}


def _corpora_by_dataset(corpora) -> dict[str, dict[str, dict]]:
    """dataset -> variant -> {"lengths", "recipe", "top_k", "V"} of every corpus given."""
    if isinstance(corpora, Corpus | str | os.PathLike):
        corpora = [corpora]
    grouped: dict[str, dict[str, dict]] = defaultdict(dict)
    for item in corpora:
        corpus = item if isinstance(item, Corpus) else Corpus.load(item)
        dataset = str(corpus.meta.get("dataset", "corpus"))
        recipe = str(corpus.meta.get("recipe", "?"))
        variant = str(corpus.meta.get("variant", recipe))
        if variant in grouped[dataset]:
            raise ValueError(f"two corpora for dataset {dataset!r} and recipe {variant!r}")
        settings = corpus.meta.get("recipe_settings") or {}
        grouped[dataset][variant] = {"lengths": corpus.lengths, "recipe": recipe,
                                     "top_k": settings.get("top_k"), "V": corpus.n_types}
    if not grouped:
        raise ValueError("length_distributions needs at least one corpus")
    return dict(grouped)


def _describe(variant: str, info: dict) -> str:
    """"wallach2009: Wallach et al. (2009)'s preprocessing" (and a cropped vocabulary)."""
    text = f"{variant}: {RECIPE_TEXT.get(info['recipe'], info['recipe'] + ' recipe')}"
    if info.get("top_k"):
        text += f", {info['top_k']} most frequent words"
    if variant in VARIANT_PAPERS:
        text += f", for {VARIANT_PAPERS[variant]}"
    return text


def caption_path_for(figure_path: str | os.PathLike) -> Path:
    """The caption file beside a figure: ``corpus_lengths.png`` -> ``corpus_lengths.caption.md``."""
    figure_path = Path(figure_path)
    return figure_path.with_name(f"{figure_path.stem}.caption.md")


def lengths_caption(corpora) -> str:
    """The figure's caption (Markdown): what it shows, the variants, and per corpus D, V and
    the document length (tokens: mean, median, 95th percentile, maximum)."""
    grouped = _corpora_by_dataset(corpora)
    variants = {}
    for by_variant in grouped.values():
        for variant, info in by_variant.items():
            variants.setdefault(variant, _describe(variant, info))
    lines = [
        "Document lengths of every staged corpus: per data set (panel), the empirical "
        "cumulative distribution of the number of tokens per document (log axis) after each "
        "preprocessing variant, one line style and colour per variant; documents left empty by "
        "preprocessing are dropped, so D can differ between variants. The papers' own corpus "
        "sizes are compared in the run's tables/corpus_stats.csv.",
        "Variants: " + "; ".join(variants[v] for v in sorted(variants)) + ".",
        "",
        "| data set | variant | D | V | mean | median | 95th percentile | max |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for dataset, by_variant in sorted(grouped.items()):
        for variant, info in sorted(by_variant.items()):
            n = info["lengths"][info["lengths"] > 0]
            if n.size == 0:
                lines.append(f"| {dataset} | {variant} | 0 | {info['V']:,} | | | | |")
                continue
            lines.append(f"| {dataset} | {variant} | {n.size:,} | {info['V']:,} | "
                         f"{n.mean():.1f} | {np.median(n):g} | {np.percentile(n, 95):.0f} | "
                         f"{n.max():,} |")
    return "\n".join(lines)


def length_distributions(corpora, out_path: str | os.PathLike, ncols: int = 3, *,
                         caption_path: str | os.PathLike | None = None) -> Path:
    """Plot per-dataset ECDFs of document length (one line per recipe); return ``out_path``."""
    out_path = Path(out_path)
    fmt = out_path.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise ValueError(f"{out_path}: unsupported figure format {fmt!r}; use one of {FORMATS}")
    if not isinstance(corpora, Corpus | str | os.PathLike):
        corpora = [c if isinstance(c, Corpus) else Corpus.load(c) for c in corpora]
    grouped = _corpora_by_dataset(corpora)
    n = len(grouped)
    ncols = min(ncols, n)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(4.0 * ncols, 3.0 * nrows + 0.8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    variants = sorted({variant for by_variant in grouped.values() for variant in by_variant})
    # later variants are drawn thinner and on top, so that identical distributions stay visible
    style = {variant: {"color": f"C{i % 10}", "linestyle": LINESTYLES[i % len(LINESTYLES)],
                       "lw": 1.0 + 1.8 * (len(variants) - 1 - i) / max(len(variants) - 1, 1),
                       "zorder": 2 + i}
             for i, variant in enumerate(variants)}
    entries = {}
    for ax, (dataset, by_variant) in zip(axes, sorted(grouped.items()), strict=False):
        for variant, info in sorted(by_variant.items()):
            values = np.sort(info["lengths"][info["lengths"] > 0])
            if values.size == 0:
                continue
            ecdf = np.arange(1, values.size + 1) / values.size
            (line,) = ax.step(values, ecdf, where="post", **style[variant])
            entries.setdefault(variant, (line, _describe(variant, info)))
        ax.set_xscale("log")
        lo, hi = ax.get_xlim()
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0,) if hi / lo > 300 else (1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(0, 1)
        ax.set_title(dataset)
        ax.set_xlabel("document length (tokens, log scale)")
        ax.set_ylabel("fraction of documents ≤ length")
        ax.grid(alpha=0.3)
    for ax in axes[n:]:
        ax.set_visible(False)
    fig.legend([entries[v][0] for v in variants if v in entries],
               [entries[v][1] for v in variants if v in entries], loc="outside lower center",
               ncols=min(2, len(entries)), fontsize="small", frameon=False, handlelength=3)
    fig.suptitle("Document lengths of the staged corpora, by preprocessing variant")
    save_figure(fig, out_path, dpi=150)
    if caption_path is not None:
        write_text_atomic(caption_path, lengths_caption(corpora) + "\n")
    return out_path
