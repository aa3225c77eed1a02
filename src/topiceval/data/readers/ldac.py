"""lda-c (Blei) bag-of-words files: one document per line, ``N id:count id:count ...``.

``N`` is the number of ``id:count`` pairs, ids are 0-based lines of the vocabulary file (one
word per line, surrounding whitespace ignored).  A document's ids are expanded in the file's
pair order (``3:2 7:1`` gives ``3 3 7``); there is no token order.  Used for AP (Blei's
``ap.dat``/``vocab.txt``) and for the 395-document Reuters set of PyPI ``lda``.
"""

from __future__ import annotations

import os

import numpy as np

from topiceval.data.readers.base import RawCorpus, RawDocument
from topiceval.input_files import check_input_size


def read_vocab(path: str | os.PathLike) -> list[str]:
    """One word per line; an empty line or a repeated word is an error."""
    check_input_size(path)
    with open(path, encoding="utf-8") as handle:
        words = [line.strip() for line in handle.read().splitlines()]
    while words and not words[-1]:
        words.pop()
    for i, word in enumerate(words):
        if not word:
            raise ValueError(f"{path}:{i + 1}: empty vocabulary entry")
    if len(set(words)) != len(words):
        seen, dup = set(), None
        for word in words:
            if word in seen:
                dup = word
                break
            seen.add(word)
        raise ValueError(f"{path}: vocabulary word {dup!r} appears more than once")
    return words


def parse_ldac_line(line: str, n_vocab: int, where: str) -> np.ndarray:
    """The expanded word ids of one lda-c line; ``ValueError`` naming ``where`` if malformed."""
    fields = line.split()
    try:
        declared = int(fields[0])
        pairs = [field.split(":") for field in fields[1:]]
        ids = np.array([int(a) for a, _ in pairs], dtype=np.int64)
        counts = np.array([int(b) for _, b in pairs], dtype=np.int64)
    except (IndexError, ValueError):
        raise ValueError(f"{where}: not an lda-c line 'N id:count ...': {line[:60]!r}") from None
    if declared != len(pairs):
        raise ValueError(f"{where}: declares {declared} terms but lists {len(pairs)}")
    if ids.size and (ids.min() < 0 or ids.max() >= n_vocab):
        raise ValueError(
            f"{where}: word id out of range [0, {n_vocab}): found {ids.min()}..{ids.max()}"
        )
    if counts.size and counts.min() < 1:
        raise ValueError(f"{where}: counts must be positive, found {counts.min()}")
    return np.repeat(ids, counts)


def read_ldac(
    data_path: str | os.PathLike, vocab_path: str | os.PathLike, dataset: str
) -> RawCorpus:
    """Read an lda-c corpus; document names are 0-based line numbers."""
    vocab = read_vocab(vocab_path)
    docs = []
    with open(data_path, encoding="utf-8") as handle:
        for i, line in enumerate(handle):
            if not line.strip():
                continue
            ids = parse_ldac_line(line, len(vocab), f"{data_path}:{i + 1}")
            docs.append(RawDocument(name=str(len(docs)), ids=ids))
    return RawCorpus(dataset=dataset, kind="counts", docs=docs, vocab=vocab, ordered=False)
