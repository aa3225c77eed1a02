"""UCI Bag of Words ``docword.*.txt[.gz]``: header lines D, W, NNZ, then ``docID wordID count``.

Ids are 1-based.  A document's ids are expanded in file order; documents are numbered
``1..D`` (name ``str(docID)``), including any without entries (empty, dropped later).  No
vocabulary file is available for KOS, so words are named ``w<wordID>`` (``vocab_named`` is
False: word-level preprocessing cannot apply).
"""

from __future__ import annotations

import os

import numpy as np

from topiceval.data.archives import gunzip
from topiceval.data.readers.base import RawCorpus, RawDocument
from topiceval.input_files import read_input


def read_uci_docword(path: str | os.PathLike, dataset: str) -> RawCorpus:
    """Read a UCI docword file (gzip-compressed, bounded, if the name ends in ``.gz``; priced by
    size before it is read otherwise)."""
    data = gunzip(path) if str(path).endswith(".gz") else read_input(path)
    fields = data.decode("ascii").split()
    try:
        values = np.array(fields, dtype=np.int64)
    except ValueError:
        raise ValueError(f"{path}: non-integer field in a UCI docword file") from None
    if values.size < 3:
        raise ValueError(f"{path}: missing the D, W, NNZ header lines")
    n_docs, n_words, nnz = (int(v) for v in values[:3])
    triples = values[3:]
    if triples.size != 3 * nnz:
        raise ValueError(
            f"{path}: header says NNZ={nnz} but the file holds {triples.size / 3:g} triples"
        )
    doc_ids, word_ids, counts = triples.reshape(-1, 3).T
    for label, arr, hi in (("docID", doc_ids, n_docs), ("wordID", word_ids, n_words)):
        if arr.size and (arr.min() < 1 or arr.max() > hi):
            raise ValueError(f"{path}: {label} out of range [1, {hi}]: {arr.min()}..{arr.max()}")
    if counts.size and counts.min() < 1:
        raise ValueError(f"{path}: counts must be positive, found {counts.min()}")
    order = np.argsort(doc_ids, kind="stable")
    tokens = np.repeat(word_ids[order] - 1, counts[order])
    lengths = np.bincount(np.repeat(doc_ids[order], counts[order]), minlength=n_docs + 1)[1:]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    docs = [
        RawDocument(name=str(d + 1), ids=tokens[offsets[d] : offsets[d + 1]])
        for d in range(n_docs)
    ]
    return RawCorpus(
        dataset=dataset,
        kind="counts",
        docs=docs,
        vocab=[f"w{i}" for i in range(1, n_words + 1)],
        ordered=False,
        vocab_named=False,
        notes={"vocabulary": "none published; words named w<UCI wordID>"},
    )
