"""Pages of the Snakemake report (``snakemake --report``) that a browser shows whole.

The report shows an item in the browser only when it is a picture, a PDF or an HTML page; any
other file, a CSV table among them, is offered as a download.  So every data table of the report
is registered as an HTML page of the table, written beside the run's other report pages by the
rule that writes the CSV: the rule declares the CSV as output ``<name>`` and its page as
``<name>_page`` (``workflow/rules/common.smk``: ``table_in_report``), its script writes the
CSV and :func:`topiceval.pipeline.rule_context` writes the page (:func:`write_table_pages`) when
the script succeeds.  The page shows every cell of the CSV as written, and carries the CSV
itself as a download.

The report's front page opens centred in the window, and a front page longer than the window
loses its top; so the front page is a few lines, and the long text (the papers' references, the
configurations and this run's settings, how to read the captions) is a page of its own, the
guide, rendered from a reStructuredText template by :func:`write_guide`.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import os
from collections.abc import Mapping
from pathlib import Path

from topiceval.io import write_text_atomic

__all__ = ["guide_page", "table_page", "write_guide", "write_table_pages"]

_TABLE_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{name}</title>
<style>
body {{ font-family: sans-serif; font-size: 14px; margin: 1em; }}
table {{ border-collapse: collapse; }}
th, td {{ border: 1px solid #ccc; padding: 2px 6px; white-space: nowrap; }}
th {{ background: #eee; position: sticky; top: 0; }}
td.number {{ text-align: right; font-variant-numeric: tabular-nums; }}
tbody tr:nth-child(even) td {{ background: #f7f7f7; }}
</style>
</head>
<body>
<h1>{name}</h1>
<p>{rows} rows of {columns} columns, as in the CSV file:
<a href="data:text/csv;base64,{data}" download="{name}">download {name}</a>.</p>
<table>
<thead>
<tr>{header}</tr>
</thead>
<tbody>
{body}
</tbody>
</table>
</body>
</html>
"""


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _cell(cell: str) -> str:
    kind = ' class="number"' if _is_number(cell) else ""
    return f"<td{kind}>{html.escape(cell)}</td>"


def table_page(csv_path: str | os.PathLike) -> str:
    """The HTML page of the CSV file ``csv_path``: its cells exactly as written (numbers right-
    aligned), its header row kept in view while scrolling, and the file as a download link."""
    path = Path(csv_path)
    raw = path.read_bytes()
    header, *rows = list(csv.reader(io.StringIO(raw.decode("utf-8")))) or [[]]
    body = "\n".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    return _TABLE_PAGE.format(
        name=html.escape(path.name), rows=len(rows), columns=len(header),
        data=base64.b64encode(raw).decode("ascii"),
        header="".join(f"<th>{html.escape(c)}</th>" for c in header), body=body)


def write_table_pages(outputs: Mapping[str, object]) -> list[Path]:
    """For each named output ``<name>_page`` of a rule (``outputs``: its Snakemake output list,
    or any mapping of names to paths) write the page of the CSV output ``<name>``; the pages
    written."""
    items = dict(outputs.items())
    written = []
    for name, target in items.items():
        if not (name.endswith("_page") and isinstance(target, (str, os.PathLike))):
            continue
        source = items.get(name.removesuffix("_page"))
        if source is None or not str(source).endswith(".csv"):
            raise ValueError(f"output {name!r} has no CSV output {name.removesuffix('_page')!r} "
                             f"to show (got {source!r})")
        write_text_atomic(target, table_page(source))
        written.append(Path(target))
    return written


def guide_page(template: str | os.PathLike, config: Mapping[str, object]) -> str:
    """The guide: the reStructuredText ``template`` rendered with Jinja2 (``config``: the run's
    configuration) and then as a standalone HTML page.  A docutils warning (broken markup) or an
    undefined template variable is an error, so a page with a visible markup complaint is never
    written."""
    import docutils.core
    import jinja2

    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, trim_blocks=True,
                                     lstrip_blocks=True, autoescape=False)
    text = environment.from_string(Path(template).read_text(encoding="utf-8")).render(
        config=config)
    return docutils.core.publish_string(
        text, writer="html5",
        settings_overrides={"halt_level": 2, "report_level": 2, "output_encoding": "unicode",
                            "embed_stylesheet": True, "_disable_config": True})


def write_guide(template: str | os.PathLike, out: str | os.PathLike,
                config: Mapping[str, object]) -> None:
    """Write :func:`guide_page` of ``template`` and ``config`` to ``out``, atomically."""
    write_text_atomic(out, guide_page(template, config))
