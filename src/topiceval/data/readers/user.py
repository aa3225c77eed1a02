"""A user's own corpus: a folder of text files, a CSV column, a JSON-lines field, or UCI
bag-of-words counts with their vocabulary file.

Each reader returns a ``RawCorpus`` like the staged datasets' readers, so the same recipes
(``topiceval.data.preprocess``) apply.  Documents are named by where they came from (the file's
path inside the folder, ``row N`` of a CSV file counted from 1 after the header, ``line N`` of a
JSON-lines file, the UCI docID).  Bad input raises ``ValueError`` naming the file (and line, row
or field) and what was expected; a file beyond ``topiceval.input_files.MAX_INPUT_BYTES`` is
refused before it is read.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from topiceval.data.readers.base import RawCorpus, RawDocument
from topiceval.data.readers.ldac import read_vocab
from topiceval.data.readers.uci_bow import read_uci_docword
from topiceval.input_files import check_input_size, read_input

__all__ = ["read_csv_column", "read_jsonl_field", "read_text_folder", "read_uci_named"]


def _text(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def read_text_folder(path: str | os.PathLike, dataset: str = "texts") -> RawCorpus:
    """Every file under the folder ``path`` (recursively, hidden files and folders left out)
    is one document, in the order of the sorted relative paths, named by its relative path."""
    root = Path(path)
    if not root.is_dir():
        raise ValueError(f"{root}: not a folder of text files")
    files = sorted(p for p in root.rglob("*") if p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(root).parts))
    for p in files:  # every file priced before any is read
        check_input_size(p)
    docs = [RawDocument(name=str(p.relative_to(root)), text=_text(p.read_bytes(), str(p)))
            for p in files]
    return RawCorpus(dataset=dataset, kind="text", docs=docs, notes={"folder": str(root)})


def read_csv_column(path: str | os.PathLike, column: str, dataset: str = "csv") -> RawCorpus:
    """One document per row of the CSV file ``path`` (with a header row): its ``column``."""
    text = _text(read_input(path), str(path))
    rows = csv.DictReader(text.splitlines())
    if rows.fieldnames is None or column not in rows.fieldnames:
        raise ValueError(f"{path}: no column {column!r}; the header has "
                         f"{list(rows.fieldnames or [])}")
    docs = [RawDocument(name=f"row {i}", text=row[column] or "")
            for i, row in enumerate(rows, start=1)]
    return RawCorpus(dataset=dataset, kind="text", docs=docs, notes={"csv": str(path),
                                                                     "column": column})


def read_jsonl_field(path: str | os.PathLike, field: str, dataset: str = "jsonl") -> RawCorpus:
    """One document per line of the JSON-lines file ``path``: the string at key ``field``."""
    docs = []
    for i, line in enumerate(_text(read_input(path), str(path)).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{i}: not a JSON object ({exc.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get(field), str):
            raise ValueError(f"{path}:{i}: no string field {field!r}")
        docs.append(RawDocument(name=f"line {i}", text=record[field]))
    return RawCorpus(dataset=dataset, kind="text", docs=docs, notes={"jsonl": str(path),
                                                                     "field": field})


def read_uci_named(docword: str | os.PathLike, vocab: str | os.PathLike,
                   dataset: str = "uci") -> RawCorpus:
    """UCI ``docword`` counts with their ``vocab`` file (one word per line, wordID = line)."""
    raw = read_uci_docword(docword, dataset)
    words = read_vocab(vocab)
    if len(words) != len(raw.vocab):
        raise ValueError(f"{vocab}: {len(words)} words, but {docword} declares "
                         f"W = {len(raw.vocab)}")
    raw.vocab, raw.vocab_named = words, True
    raw.notes = {"docword": str(docword), "vocab": str(vocab)}
    return raw
