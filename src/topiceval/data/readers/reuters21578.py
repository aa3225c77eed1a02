"""Reuters-21578 (Distribution 1.0): SGML files ``reut2-NNN.sgm`` of ``<REUTERS ...>`` records.

Every record with a ``<BODY>`` is a document (19,043 of the 21,578); records without one
(``TYPE="BRIEF"`` headline-only and ``TYPE="UNPROC"`` untagged text) are counted in
``notes``.  Files are latin-1 (``reut2-017.sgm`` has a non-UTF-8 byte); character entities are
decoded and control characters (the ``&#3;`` end-of-text mark, ...) removed.  ``header`` and
``subject`` are the ``<TITLE>``, ``text`` the body, ``label`` the comma-joined ``<TOPICS>``,
``name`` the ``NEWID``.

With ``modapte=True`` only the ModApte documents are returned, split by Lewis's attributes:
``TOPICS="YES"`` and ``LEWISSPLIT="TRAIN"`` is train, ``TOPICS="YES"`` and ``LEWISSPLIT="TEST"``
is test (9,603 / 3,299 records before the body requirement); all others are unused.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable

from topiceval.data.readers.base import RawCorpus, RawDocument

_RECORD = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.DOTALL)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _element(record: str, tag: str) -> str | None:
    match = re.search(rf"<{tag}\b[^>]*>(.*?)</{tag}>", record, re.DOTALL)
    return match.group(1) if match else None


def _clean(markup: str) -> str:
    return _CONTROL.sub("", html.unescape(markup)).strip()


def modapte_split(attrs: dict[str, str]) -> str:
    """``"train"``, ``"test"`` or ``"unused"`` under the ModApte split."""
    if attrs.get("TOPICS") != "YES":
        return "unused"
    return {"TRAIN": "train", "TEST": "test"}.get(attrs.get("LEWISSPLIT", ""), "unused")


def read_reuters21578(paths: Iterable[str | os.PathLike], modapte: bool = False) -> RawCorpus:
    """Read the documents with a body from the SGML files ``paths`` (in the order given)."""
    paths = list(paths)
    docs = []
    records = no_body = unused = 0
    for path in paths:
        with open(path, encoding="latin-1") as handle:
            content = handle.read()
        for attributes, record in _RECORD.findall(content):
            records += 1
            attrs = dict(_ATTR.findall(attributes))
            body = _element(record, "BODY")
            if body is None:
                no_body += 1
                continue
            split = modapte_split(attrs) if modapte else None
            if split == "unused":
                unused += 1
                continue
            title = _clean(_element(record, "TITLE") or "")
            topics = re.findall(r"<D>(.*?)</D>", _element(record, "TOPICS") or "")
            docs.append(
                RawDocument(
                    name=attrs.get("NEWID", str(records - 1)),
                    split=split,
                    label=",".join(topics),
                    text=_clean(body),
                    header=title,
                    subject=title,
                )
            )
    if records == 0:
        raise ValueError(f"no <REUTERS> records found in {[str(p) for p in paths]}")
    notes = {"records": records, "without_body": no_body, "modapte": modapte}
    if modapte:
        notes["modapte_unused_with_body"] = unused
    return RawCorpus(dataset="reuters21578", kind="text", docs=docs, notes=notes)
