"""Writing a figure: atomically, in the format its file name says, with no dates in it, so that
a figure's bytes depend only on what it shows (the SLURM CI stage compares them)."""

from __future__ import annotations

import os
from pathlib import Path

from matplotlib import rc_context
from matplotlib.figure import Figure

from topiceval.io import atomic_path

DATE_FREE = {"pdf": {"CreationDate": None, "ModDate": None}, "svg": {"Date": None}}


# raster figures: 150 dots per inch, so 8-point text stays legible at the saved size
DPI = 150


def save_figure(fig: Figure, path: str | os.PathLike, *, dpi: float | None = DPI,
                default_format: str = "pdf") -> None:
    """``fig.savefig(path)`` atomically; the format is the suffix (``default_format`` without)."""
    path = Path(path)
    fmt = path.suffix.lstrip(".") or default_format
    with atomic_path(path) as tmp, rc_context({"svg.hashsalt": "topiceval"}):
        fig.savefig(tmp, format=fmt, dpi=dpi, metadata=DATE_FREE.get(fmt))
