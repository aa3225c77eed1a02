"""STTM short-text sets (SearchSnippets, Tweet): one lower-cased, space-separated document per
line, with a label file of one integer per line aligned to it.  Name: 0-based line number."""

from __future__ import annotations

import os

from topiceval.data.readers.base import RawCorpus, RawDocument


def _lines(path: str | os.PathLike) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_sttm(
    text_path: str | os.PathLike, label_path: str | os.PathLike, dataset: str
) -> RawCorpus:
    """Read a text file and its label file; their line counts must agree."""
    texts, labels = _lines(text_path), _lines(label_path)
    if len(texts) != len(labels):
        raise ValueError(
            f"{text_path} has {len(texts)} documents but {label_path} has {len(labels)} labels"
        )
    docs = [
        RawDocument(name=str(i), label=label.strip(), text=text)
        for i, (text, label) in enumerate(zip(texts, labels, strict=True))
    ]
    return RawCorpus(dataset=dataset, kind="tokens", docs=docs)
