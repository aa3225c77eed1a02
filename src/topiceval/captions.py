"""Caption files: the Markdown captions of the workflow's figures and tables, and their
reStructuredText twins for the Snakemake report.

Every figure and table rule writes its caption as Markdown (``.caption.md``: what the paper
found, what we find, whether they agree) and, beside it, the same text as reStructuredText
(``.caption.rst``), the format of Snakemake report captions: each report item's caption is a
template in ``workflow/report/`` that includes the ``.caption.rst`` file of its job.  A rule
declares both files, as outputs ``<name>`` and ``<name>_rst`` (``caption`` and ``caption_rst``,
``f1_caption`` and ``f1_caption_rst``, ...); its script writes the Markdown one and
:func:`topiceval.pipeline.rule_context` writes the other (:func:`write_rst_captions`) when the
script succeeds.

:func:`markdown_to_rst` converts the Markdown the caption functions write: paragraphs, bullet and
numbered lists (nested by indentation), pipe tables (to ``list-table``), ``#`` headings (to bold
paragraphs), fenced code (to literal blocks), ``> `` quotes, ``**strong**``, ``*emphasis*``,
```code``` and ``[text](url)`` links.  Every other character that reStructuredText would read
as markup (``* ` _ | \\``, a list marker, field marker or ``..`` at the start of a line, a
trailing ``::``) is escaped, so any text comes out as itself and parses without a warning.  Each
line of plain text becomes its own paragraph: the caption functions put one statement per line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from topiceval.io import write_text_atomic

__all__ = ["counted_names", "markdown_to_rst", "rst_caption_path", "write_rst_caption",
           "write_rst_captions"]

# inline-markup characters; an underscore only where it could end a reference (``word_``)
_SPECIAL = re.compile(r"([\\*`|]|_(?=_*(?![A-Za-z0-9])))")
_INLINE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|\*\*(?P<strong>[^\s*](?:[^*\n]*[^\s*])?)\*\*"
    r"|(?<![\w*])\*(?P<em>[^\s*](?:[^*\n]*[^\s*])?)\*(?![\w*])"
    r"|\[(?P<text>[^\]\n]+)\]\((?P<url>[^)\s]+)\)"
)
_BULLET = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d{1,9}[.)])\s+(?P<body>.*)$")
_NUMBERED = re.compile(r"^\s*\d{1,9}[.)]\s")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<body>.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
# a line that reStructuredText would read as a block construct if left as it is
_BLOCK_START = re.compile(r"^(?:[^\w\s]|[A-Za-z0-9#]+[.)](?:\s|$)|\w+\)(?:\s|$))")


# an escaped space: separates inline markup from the text around it and renders as nothing
_WRAP = "\\ "


def counted_names(names: list[str]) -> str:
    """How many ``names`` there are, with the names: ``"2 (AP, KOS)"``, or ``"0"`` for none (a
    caption's count of the collections or data sets where a verdict holds)."""
    return f"{len(names)} ({', '.join(names)})" if names else "0"


def _escape(text: str) -> str:
    """Plain text with every inline-markup character escaped."""
    return _SPECIAL.sub(r"\\\1", text)


def _inline(text: str) -> str:
    """Markdown inline markup to reStructuredText; everything else escaped.

    Each converted construct is wrapped in escaped spaces (``\\ ``), which render as nothing, so
    it is recognised whatever characters surround it (a trailing one is left out)."""
    text = text.strip()
    out, last = [], 0
    for m in _INLINE.finditer(text):
        out.append(_escape(text[last : m.start()]))
        if m["code"] is not None and m["code"].strip():
            out += [_WRAP, f"``{m['code'].strip()}``", _WRAP]
        elif m["strong"] is not None:
            out += [_WRAP, f"**{_escape(m['strong'])}**", _WRAP]
        elif m["em"] is not None:
            out += [_WRAP, f"*{_escape(m['em'])}*", _WRAP]
        elif m["url"] is not None and not set("`<>") & set(m["url"]):
            label = re.sub(r"([\\`<])", r"\\\1", m["text"])
            out += [_WRAP, f"`{label} <{m['url']}>`__", _WRAP]
        else:
            out.append(_escape(m[0]))
        last = m.end()
    out.append(_escape(text[last:]))
    out = [part for part in out if part]
    if out and out[-1] is _WRAP:
        out.pop()
    return "".join(out)


def _paragraph(text: str) -> str:
    """One line of text as a paragraph that cannot be read as a block construct."""
    body = _inline(text.strip())
    if not body:
        return ""
    if _BLOCK_START.match(body) and not body.startswith("\\"):
        body = "\\" + body
    if body.endswith("::"):
        body = body[:-1] + "\\:"
    return body


def _cells(line: str) -> list[str]:
    """The cells of a Markdown pipe-table row (``\\|`` is a literal bar)."""
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [c.replace("\\|", "|").strip() for c in re.split(r"(?<!\\)\|", line)]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown pipe table as a ``list-table`` (short rows padded with empty cells)."""
    width = max(len(header), *(len(r) for r in rows)) if rows else len(header)
    out = [".. list-table::", "   :header-rows: 1", ""]
    for row in [header, *rows]:
        row = row + [""] * (width - len(row))
        for i, cell in enumerate(row):
            body = _paragraph(cell) if cell else ""
            out.append(f"   {'* -' if i == 0 else '  -'} {body}".rstrip())
    return out


def _list(items: list[tuple[int, str, bool]]) -> list[str]:
    """Bullet / numbered items (indent, text, numbered) to nested reStructuredText lists; where
    the marker kind (bullet or numbered) changes, a new list starts, as in Markdown."""
    root: list[dict] = []
    stack: list[tuple[int, list[dict]]] = [(-1, root)]
    for indent, body, numbered in items:
        while stack[-1][0] >= indent:
            stack.pop()
        node = {"body": body, "numbered": numbered, "children": []}
        stack[-1][1].append(node)
        stack.append((indent, node["children"]))

    def render(nodes: list[dict], pad: str) -> list[str]:
        out: list[str] = []
        for k, node in enumerate(nodes):
            marker = "#." if node["numbered"] else "-"
            if k and node["numbered"] != nodes[k - 1]["numbered"] and out[-1]:
                out.append("")  # Markdown starts a new list when the marker kind changes
            out.append(f"{pad}{marker} {_paragraph(node['body'])}".rstrip())
            if node["children"]:
                out += ["", *render(node["children"], pad + " " * (len(marker) + 1)), ""]
        while out and not out[-1]:
            out.pop()
        return out

    return render(root, "")


def markdown_to_rst(text: str) -> str:
    """The reStructuredText of a Markdown caption (see the module docstring)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[list[str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if _FENCE.match(line):
            fence = _FENCE.match(line).group(1)
            body = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i])
                i += 1
            i += 1
            body = [b.rstrip() for b in body]
            if any(body):
                blocks.append(["::", "", *(f"   {b}" if b else "" for b in body)])
            continue
        if (line.lstrip().startswith("|") and i + 1 < len(lines)
                and _TABLE_RULE.match(lines[i + 1]) and "|" in lines[i + 1]):
            header = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            blocks.append(_table(header, rows))
            continue
        if _BULLET.match(line):
            items = []
            while i < len(lines) and lines[i].strip():
                m = _BULLET.match(lines[i])
                if m:
                    items.append((len(m["indent"].expandtabs(4)), m["body"],
                                  bool(_NUMBERED.match(lines[i]))))
                elif lines[i].startswith((" ", "\t")) and items:
                    indent, body, numbered = items[-1]
                    items[-1] = (indent, f"{body} {lines[i].strip()}", numbered)
                else:
                    break
                i += 1
            blocks.append(_list(items))
            continue
        heading = _HEADING.match(line)
        if heading:
            body = _paragraph(heading["body"])
            if body:  # bold, unless it holds inline markup (which cannot nest)
                blocks.append([body if "\\ " in body else f"**{body}**"])
            i += 1
            continue
        if line.lstrip().startswith(">"):
            line = line.lstrip()[1:]
        if re.fullmatch(r"\s*([-*_])(\s*\1){2,}\s*", line):  # a thematic break
            i += 1
            continue
        paragraph = _paragraph(line)
        if paragraph:
            blocks.append([paragraph])
        i += 1
    return "\n\n".join("\n".join(b) for b in blocks) + "\n" if blocks else ""


def rst_caption_path(markdown_path: str | os.PathLike) -> Path:
    """``x.caption.md`` -> ``x.caption.rst`` (any other name: its suffix replaced)."""
    return Path(markdown_path).with_suffix(".rst")


def write_rst_caption(markdown_path: str | os.PathLike,
                      rst_path: str | os.PathLike | None = None) -> Path:
    """Write the reStructuredText twin of a Markdown caption file (atomically); its path."""
    target = Path(rst_path) if rst_path is not None else rst_caption_path(markdown_path)
    write_text_atomic(target, markdown_to_rst(Path(markdown_path).read_text(encoding="utf-8")))
    return target


def write_rst_captions(outputs) -> list[Path]:
    """For each named output ``<name>_rst`` of a rule (``outputs``: its Snakemake output list,
    or any mapping of names to paths) write the reStructuredText twin of the Markdown caption
    output ``<name>``; the files written."""
    items = dict(outputs.items())
    written = []
    for name, target in items.items():
        if not (name.endswith("caption_rst") and isinstance(target, (str, os.PathLike))):
            continue
        source = items.get(name.removesuffix("_rst"))
        if source is None:
            raise ValueError(f"output {name!r} has no Markdown caption output "
                             f"{name.removesuffix('_rst')!r} to convert")
        written.append(write_rst_caption(source, target))
    return written
