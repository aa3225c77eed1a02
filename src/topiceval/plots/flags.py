"""Estimates the diagnostics flag, on the papers' figures and in their captions (issue 31;
docs/trust.md).

A figure's table has, per point, ``untrusted``: how many of the point's documents have an
estimate that ``topiceval.diagnostics`` does not trust (``experiments.rows.untrusted_documents``;
tables written before the diagnostics have no such column).  A point with any is drawn hollow
(``face``), and the caption says how many points and documents (``untrusted_note``).
"""

from __future__ import annotations

import pandas as pd

from topiceval._docs import page

__all__ = ["face", "untrusted_note"]

HOLLOW_NOTE = ("Hollow markers: points with documents whose estimate the diagnostics do not "
               f"trust ({page('trust.md')})")


def face(row, color) -> str:
    """The face colour of a figure's point (a table row): ``color``, or "white" (hollow) when
    some of its documents are untrusted."""
    return "white" if row.get("untrusted", 0) > 0 else color


def untrusted_note(table: pd.DataFrame) -> str:
    """The caption's sentence on flagged estimates: how many points include untrusted
    documents, and how many documents in all; "" when the table has no ``untrusted`` count
    (rows written before the diagnostics: no column, or a column of NaN where a summary added
    it), so that such a table's caption reads as it did before the diagnostics."""
    if "untrusted" not in table or table["untrusted"].isna().all():
        return ""
    flagged = table[table["untrusted"] > 0]
    if flagged.empty:
        return f"The diagnostics trust every estimate behind these points ({page('trust.md')})."
    return (f"{HOLLOW_NOTE}: {len(flagged)} of {len(table)} points, "
            f"{int(flagged['untrusted'].sum()):,} untrusted document estimates in all.")
