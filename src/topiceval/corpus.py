"""The Corpus container: token ids in document order as CSR arrays, plus vocabulary and splits.

A corpus of D documents over a vocabulary of V word types is stored as

* ``offsets`` (int64, D + 1): document d is ``tokens[offsets[d]:offsets[d + 1]]``;
* ``tokens`` (int32): word ids in their original order inside each document (the left-to-right
  estimators depend on that order; for bag-of-words sources, see ``meta["ordered"]``);
* ``vocab`` (str, V), ``names`` (str, D): word types and document identifiers;
* ``split`` (str, D): a split label per document (``"train"``, ``"test"``, ...);
* ``meta``: a JSON-serialisable dict (source corpus, recipe and its settings, preprocessing log).

On disk it is one ``.npz`` file (no pickles), written atomically.  ``Corpus.load`` validates every
invariant and names what is wrong.  A ``Corpus`` is also a sequence of documents:
``corpus[d]`` is document d's token array, so it can be passed wherever a list of documents is
expected.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from topiceval.io import atomic_path

FORMAT_VERSION = 1


class CorpusError(ValueError):
    """A corpus file or corpus arrays violate the format."""


@dataclass(frozen=True, eq=False)
class Corpus(Sequence):
    offsets: np.ndarray
    tokens: np.ndarray
    vocab: np.ndarray
    names: np.ndarray
    split: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "offsets", np.ascontiguousarray(self.offsets, dtype=np.int64))
        object.__setattr__(self, "tokens", np.ascontiguousarray(self.tokens, dtype=np.int32))
        object.__setattr__(self, "vocab", np.asarray(self.vocab, dtype=str))
        object.__setattr__(self, "names", np.asarray(self.names, dtype=str))
        object.__setattr__(self, "split", np.asarray(self.split, dtype=str))
        self.validate()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_documents(
        cls,
        docs: Sequence[Sequence[int]],
        vocab: Sequence[str],
        names: Sequence[str] | None = None,
        split: Sequence[str] | str = "train",
        meta: dict | None = None,
    ) -> Corpus:
        """Build a corpus from a list of token-id sequences."""
        lengths = np.fromiter((len(d) for d in docs), dtype=np.int64, count=len(docs))
        offsets = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        tokens = (
            np.concatenate([np.asarray(d, dtype=np.int64) for d in docs])
            if len(docs)
            else np.zeros(0, dtype=np.int64)
        )
        if tokens.size and (tokens.min() < 0 or tokens.max() >= len(vocab)):
            raise CorpusError(
                f"token ids must lie in [0, {len(vocab)}); found range "
                f"[{tokens.min()}, {tokens.max()}]"
            )
        if names is None:
            names = [str(i) for i in range(len(docs))]
        if isinstance(split, str):
            split = [split] * len(docs)
        return cls(offsets, tokens.astype(np.int32), vocab, names, split, dict(meta or {}))

    # ------------------------------------------------------------------ sequence protocol
    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def __getitem__(self, d):  # type: ignore[override]
        if isinstance(d, slice):
            return [self[i] for i in range(*d.indices(len(self)))]
        d = int(d)
        if d < 0:
            d += len(self)
        if not 0 <= d < len(self):
            raise IndexError(f"document index {d} out of range for {len(self)} documents")
        return self.tokens[self.offsets[d] : self.offsets[d + 1]]

    def __iter__(self) -> Iterator[np.ndarray]:
        for d in range(len(self)):
            yield self[d]

    # ------------------------------------------------------------------ sizes
    @property
    def n_docs(self) -> int:
        return len(self)

    @property
    def n_types(self) -> int:
        return int(self.vocab.shape[0])

    @property
    def n_tokens(self) -> int:
        return int(self.tokens.shape[0])

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    # ------------------------------------------------------------------ views
    def subset(self, indices) -> Corpus:
        """The documents at ``indices`` (in that order), same vocabulary."""
        idx = np.asarray(indices, dtype=np.int64)
        if idx.size and (idx.min() < -len(self) or idx.max() >= len(self)):
            raise IndexError(f"subset indices out of range for {len(self)} documents")
        idx = idx % max(len(self), 1)
        lengths = self.lengths[idx]
        offsets = np.zeros(idx.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        pieces = [self.tokens[self.offsets[d] : self.offsets[d + 1]] for d in idx]
        tokens = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int32)
        return Corpus(
            offsets, tokens, self.vocab, self.names[idx], self.split[idx], dict(self.meta)
        )

    def select_split(self, label: str) -> Corpus:
        """The documents whose split label is ``label``."""
        if label not in set(self.split.tolist()):
            raise CorpusError(
                f"no documents with split {label!r}; labels present: {sorted(set(self.split))}"
            )
        return self.subset(np.flatnonzero(self.split == label))

    def counts(self) -> sp.csr_matrix:
        """Document-by-word count matrix (D x V, int64 CSR), summing duplicate tokens."""
        rows = np.repeat(np.arange(len(self)), self.lengths)
        data = np.ones(self.n_tokens, dtype=np.int64)
        mat = sp.csr_matrix((data, (rows, self.tokens)), shape=(len(self), self.n_types))
        mat.sum_duplicates()
        return mat

    def checksum(self) -> str:
        """sha256 over offsets, tokens and vocabulary: identifies the corpus a model was fit on."""
        digest = hashlib.sha256()
        digest.update(self.offsets.astype("<i8").tobytes())
        digest.update(self.tokens.astype("<i4").tobytes())
        digest.update("\n".join(self.vocab.tolist()).encode("utf-8"))
        return digest.hexdigest()

    # ------------------------------------------------------------------ checks
    def validate(self) -> None:
        """Raise ``CorpusError`` naming the first violated invariant."""
        off, tok = self.offsets, self.tokens
        if off.ndim != 1 or off.shape[0] < 1:
            raise CorpusError("offsets must be a 1-D array of length D + 1 >= 1")
        if off[0] != 0:
            raise CorpusError(f"offsets must start at 0, found {off[0]}")
        if np.any(np.diff(off) < 0):
            bad = int(np.flatnonzero(np.diff(off) < 0)[0])
            raise CorpusError(f"offsets must be non-decreasing; they decrease at document {bad}")
        if off[-1] != tok.shape[0]:
            raise CorpusError(f"offsets end at {off[-1]} but there are {tok.shape[0]} tokens")
        n_docs = off.shape[0] - 1
        for name, arr in (("names", self.names), ("split", self.split)):
            if arr.shape != (n_docs,):
                raise CorpusError(f"{name} has shape {arr.shape}, expected ({n_docs},)")
        if self.vocab.ndim != 1:
            raise CorpusError("vocab must be 1-D")
        if tok.size:
            lo, hi = int(tok.min()), int(tok.max())
            if lo < 0 or hi >= self.vocab.shape[0]:
                raise CorpusError(
                    f"token ids must lie in [0, {self.vocab.shape[0]}); found range [{lo}, {hi}]"
                )
        if not isinstance(self.meta, dict):
            raise CorpusError("meta must be a dict")

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike) -> None:
        """Write the corpus as one ``.npz`` file, atomically."""
        with atomic_path(path) as tmp, open(tmp, "wb") as handle:
            np.savez_compressed(
                handle,
                format_version=np.int64(FORMAT_VERSION),
                offsets=self.offsets,
                tokens=self.tokens,
                vocab=self.vocab,
                names=self.names,
                split=self.split,
                meta=np.array(json.dumps(self.meta, sort_keys=True)),
            )

    @classmethod
    def load(cls, path: str | os.PathLike) -> Corpus:
        """Read and validate a corpus file; errors name the file and the problem."""
        try:
            with np.load(path, allow_pickle=False) as data:
                missing = {"offsets", "tokens", "vocab", "names", "split", "meta"} - set(data.files)
                if missing:
                    raise CorpusError(f"{path}: not a corpus file, missing {sorted(missing)}")
                version = int(data["format_version"]) if "format_version" in data.files else 0
                if version != FORMAT_VERSION:
                    raise CorpusError(
                        f"{path}: corpus format version {version}, expected {FORMAT_VERSION}"
                    )
                arrays = {k: data[k] for k in ("offsets", "tokens", "vocab", "names", "split")}
                meta = json.loads(str(data["meta"]))
        except (OSError, ValueError) as exc:
            if isinstance(exc, CorpusError):
                raise
            raise CorpusError(f"{path}: cannot read corpus file ({exc})") from exc
        try:
            return cls(meta=meta, **arrays)
        except CorpusError as exc:
            raise CorpusError(f"{path}: {exc}") from None

    # ------------------------------------------------------------------ summaries
    def stats(self) -> dict:
        """D, V, token count and the mean and sd (ddof=1) of document length."""
        lengths = self.lengths
        return {
            "D": len(self),
            "V": self.n_types,
            "tokens": self.n_tokens,
            "mean_length": float(lengths.mean()) if len(self) else float("nan"),
            "sd_length": float(lengths.std(ddof=1)) if len(self) > 1 else float("nan"),
        }


def as_documents(docs) -> list[np.ndarray]:
    """Normalise a Corpus or a sequence of token sequences to a list of int64 arrays."""
    out = []
    for i, d in enumerate(docs):
        arr = np.asarray(d)
        if arr.ndim != 1:
            raise ValueError(
                f"document {i} must be a 1-D sequence of token ids, got shape {arr.shape}"
            )
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"document {i} must hold integer token ids, got dtype {arr.dtype}")
        out.append(arr.astype(np.int64, copy=False))
    return out


def pack_documents(docs) -> tuple[np.ndarray, np.ndarray]:
    """CSR form (offsets int64 (D+1), tokens int64) of a list of documents, for kernels."""
    docs = as_documents(docs)
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([d.shape[0] for d in docs], out=offsets[1:])
    tokens = np.concatenate(docs) if docs else np.zeros(0, dtype=np.int64)
    return offsets, tokens.astype(np.int64)
