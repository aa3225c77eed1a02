"""The Corpus container: token ids in document order as CSR arrays, plus vocabulary and splits.

A corpus of D documents over a vocabulary of V word types is stored as

* ``offsets`` (int64, D + 1): document d is ``tokens[offsets[d]:offsets[d + 1]]``;
* ``tokens`` (int32): word ids in their original order inside each document (the left-to-right
  estimators depend on that order; for bag-of-words sources, see ``meta["ordered"]``);
* ``vocab`` (str, V), ``names`` (str, D): word types and document identifiers;
* ``split`` (str, D): a split label per document (``"train"``, ``"test"``, ...);
* ``meta``: a JSON-serialisable dict (source corpus, recipe and its settings, preprocessing log);
* ``dropped`` (int64, D, optional): out-of-vocabulary tokens left out of each document when it
  was mapped onto a vocabulary (``from_tokens``, ``from_texts``, ``align``); ``meta["oov"]``
  summarises them.

Users' documents become a corpus by word: ``Corpus.from_tokens`` (lists of word strings),
``Corpus.from_texts`` (raw texts and an analyzer) and ``Corpus.from_counts`` (a (D, V) count
matrix and the words of its columns, expanded into token sequences in a seeded random order);
``corpus.align(vocabulary)`` re-indexes a corpus onto another word list (a model's), word by word.
Without words, numbers are only taken as a model's columns when said so:
``Corpus.from_documents(ids, model)`` (token ids of the model's columns) and
``Corpus.from_counts(X, columns="model")``; counts with unnamed columns are never matched by
position to a model that has words.  The words themselves may not hold NUL, a line break or a
lone surrogate, which storage would alter (``topiceval.vocabulary.unstorable_word``).

On disk it is one ``.npz`` file (no pickles), written atomically.  ``Corpus.load`` validates every
invariant and names what is wrong.  A ``Corpus`` is also a sequence of documents:
``corpus[d]`` is document d's token array, so it can be passed wherever a list of documents is
expected.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from topiceval.counts import as_count_matrix
from topiceval.io import atomic_path
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.models import GaPModel, LDAModel
from topiceval.npzfile import NpzMembers, read_npz
from topiceval.seeds import generator
from topiceval.tokenizer import recorded
from topiceval.validation import Argument, check_seed, check_token_ids, naming, pack_documents
from topiceval.vocabulary import (
    COLUMN_IDS,
    MODEL_COLUMNS,
    VocabularyError,
    check_oov,
    map_tokens,
    model_words,
    remap_ids,
    unstorable_word,
    vocabulary_words,
)

if TYPE_CHECKING:
    from topiceval._types import CountMatrix, VocabularyLike

FORMAT_VERSION = 1
COLUMNS = ("model",)  # what columns= may state: a count matrix's columns are the model's own


class CorpusError(ValueError):
    """A corpus file or corpus arrays violate the format."""


@dataclass(frozen=True, eq=False)
class Corpus(Sequence):
    """D documents as token ids over a vocabulary, with names, split labels and metadata.

    Built by ``from_texts``, ``from_tokens``, ``from_counts`` or ``from_documents`` (which
    check their input), or read by ``load``; the constructor itself validates the arrays
    (``validate``).  A corpus is a sequence: ``corpus[d]`` is document d's token ids.

    Parameters
    ----------
    offsets : (D + 1,) int
        Document d is ``tokens[offsets[d]:offsets[d + 1]]``.
    tokens : (N,) int
        Word ids in reading order inside each document.
    vocab : (V,) str
        The word of every id.
    names, split : (D,) str
        Each document's name and split label (``"train"``, ``"test"``, ...).
    meta : dict, optional
        JSON-serialisable metadata (source, recipe, ``oov`` summary, ``tokenizer``).
    dropped : (D,) int, optional
        Out-of-vocabulary tokens left out of each document.
    """

    offsets: np.ndarray
    tokens: np.ndarray
    vocab: np.ndarray
    names: np.ndarray
    split: np.ndarray
    meta: dict = field(default_factory=dict)
    dropped: np.ndarray | None = None

    def __post_init__(self) -> None:
        vocab = self.vocab  # checked before the str conversion below drops a trailing NUL
        unicode = isinstance(vocab, np.ndarray) and vocab.dtype.kind == "U"
        bad_word = unstorable_word(vocab.ravel().tolist() if unicode
                                   else [str(w) for w in np.asarray(vocab, object).ravel()])
        if bad_word:
            raise CorpusError(f"vocab: {bad_word}")
        if self.dropped is not None:
            object.__setattr__(self, "dropped", np.asarray(self.dropped, dtype=np.int64))
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
        vocab: Sequence[str] | LDAModel | GaPModel | LogisticNormalModel,
        names: Sequence[str] | None = None,
        split: Sequence[str] | str = "train",
        meta: dict | None = None,
        dropped: Sequence[int] | None = None,
    ) -> Corpus:
        """A corpus of token-id documents: the explicit constructor for token ids.

        Parameters
        ----------
        docs : sequence of sequences of int
            One sequence of token ids per document, in reading order.
        vocab : sequence of str, LDAModel or GaPModel
            The words the ids index (V of them), or a model: the ids are then the model's
            columns (its ``vocab``; for a model without words, ``meta["vocab"]`` records that the
            columns are the model's, and ``topiceval.evaluate`` matches them by size).
        names : sequence of str, optional
            Document names (default "0", "1", ...).
        split : str or sequence of str, default "train"
            Split label of every document, or one per document.
        meta : dict, optional
            Metadata to keep.
        dropped : sequence of int, optional
            Out-of-vocabulary tokens already left out of each document.

        Raises
        ------
        ValueError
            For documents that are not integer token ids, or an id outside 0..V - 1.
        """
        meta = dict(meta or {})
        if isinstance(vocab, (LDAModel, GaPModel, LogisticNormalModel)):
            if vocab.vocab is None:
                meta["vocab"] = MODEL_COLUMNS
            vocab = model_words(vocab)
        offsets, tokens = pack_documents(docs)
        check_token_ids(offsets, tokens, len(vocab))
        if names is None:
            names = [str(i) for i in range(len(offsets) - 1)]
        if isinstance(split, str):
            split = [split] * (len(offsets) - 1)
        return cls(offsets, tokens.astype(np.int32), vocab, names, split, meta, dropped)

    @classmethod
    def from_tokens(
        cls,
        token_lists: Iterable[Sequence[str]],
        vocabulary: VocabularyLike,
        *,
        oov: str = "drop",
        names: Sequence[str] | None = None,
        split: Sequence[str] | str = "test",
    ) -> Corpus:
        """A corpus of documents given as lists of word strings, in their order.

        Parameters
        ----------
        token_lists : iterable of sequences of str
            One list of word strings per document, in reading order (the left-to-right
            estimators use this order).
        vocabulary : sequence of str, vectorizer, mapping, LDAModel, GaPModel or Corpus
            The word list token ids will index: a sequence of words in column order, a fitted
            scikit-learn vectorizer, a word <-> column mapping, or a model or corpus with a
            ``vocab`` (usually the model to evaluate).
        oov : {"drop", "error"}, default "drop"
            ``"drop"`` (MALLET's behaviour) leaves words outside the vocabulary out and counts
            them per document in ``dropped`` (summary in ``meta["oov"]``); ``"error"`` raises
            ``VocabularyError`` at the first such word.
        names : sequence of str, optional
            Document names (default "0", "1", ...).
        split : str or sequence of str, default "test"
            Split label of every document, or one per document.

        Returns
        -------
        Corpus
            Token ids into ``vocabulary``'s word list, in reading order, with the
            out-of-vocabulary tokens dropped per document in ``dropped``.  A document whose
            words are all out of vocabulary is kept, empty, so positions match the input; the
            estimators refuse empty documents and ``topiceval.evaluate`` reports them.

        Raises
        ------
        VocabularyError
            For an unusable word list, or an out-of-vocabulary word with ``oov="error"``.
        """
        words = vocabulary_words(vocabulary)
        docs, dropped, missing = map_tokens(token_lists, words, check_oov(oov), names)
        meta = {"source": "tokens", "ordered": True}
        meta["oov"] = oov_summary(oov, dropped, np.array([d.size for d in docs]), missing)
        return cls.from_documents(docs, words, names, split, meta, dropped)

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        analyzer: Callable[[str], Sequence[str]] | None = None,
        vocabulary: VocabularyLike | None = None,
        *,
        oov: str = "drop",
        names: Sequence[str] | None = None,
        split: Sequence[str] | str = "test",
    ) -> Corpus:
        """A corpus of raw texts, tokenised by ``analyzer`` with the token order kept.

        Parameters
        ----------
        texts : iterable of str
            One string per document.
        analyzer : callable or None, default None
            Maps a text to its list of word strings, e.g. the ``build_analyzer()`` of the
            scikit-learn vectorizer the model's vocabulary came from (so that lowercasing, the
            token pattern and stop words match training).  ``None``: the tokenizer the model
            records (``vocabulary`` a model whose ``meta["tokenizer"]`` says how its training
            text was split: imported with its vectorizer, or trained by topiceval on a
            preprocessed corpus; see ``topiceval.tokenizer``), otherwise whitespace.
        vocabulary : sequence of str, vectorizer, mapping, LDAModel, GaPModel or Corpus
            The word list token ids will index, as in ``from_tokens`` (required).
        oov : {"drop", "error"}, default "drop"
            Words outside the vocabulary: dropped and counted, or refused.
        names : sequence of str, optional
            Document names (default "0", "1", ...).
        split : str or sequence of str, default "test"
            Split label(s).

        Returns
        -------
        Corpus
            As ``from_tokens`` on the analysed texts (``meta["source"] = "texts"``; with the
            model's tokenizer, its record in ``meta["tokenizer"]``).

        Raises
        ------
        ValueError
            For a missing ``vocabulary``, an ``analyzer`` that is not callable or a text that is
            not a string.

        Examples
        --------
        >>> import numpy as np
        >>> from topiceval.corpus import Corpus
        >>> from topiceval.models import LDAModel
        >>> from topiceval.tokenizer import Tokenizer
        >>> tokenizer = Tokenizer(r"\\w+", lowercase=True)
        >>> model = LDAModel(np.full((2, 3), 1 / 3), np.ones(2), vocab=["cat", "dog", "sat"],
        ...                  meta={"tokenizer": tokenizer.to_meta()})
        >>> docs = Corpus.from_texts(["The cat sat.", "A dog!"], vocabulary=model)
        >>> [docs.vocab[d].tolist() for d in docs], docs.dropped.tolist()
        ([['cat', 'sat'], ['dog']], [1, 1])
        """
        if vocabulary is None:
            raise ValueError("from_texts needs vocabulary= (the model to evaluate, or its "
                             "word list)")
        found = None
        if analyzer is None:
            if isinstance(vocabulary, (LDAModel, GaPModel, LogisticNormalModel)):
                found, _ = recorded(vocabulary.meta)
            analyzer = found if found is not None else str.split
        elif not callable(analyzer):
            raise ValueError(f"analyzer must be callable (text -> list of words), got {analyzer!r}")
        token_lists = []
        for d, text in enumerate(texts):
            if not isinstance(text, str):
                raise ValueError(f"text {d} is {type(text).__name__}, not a string")
            token_lists.append(list(analyzer(text)))
        corpus = cls.from_tokens(token_lists, vocabulary, oov=oov, names=names, split=split)
        corpus.meta["source"] = "texts"
        if found is not None:
            corpus.meta["tokenizer"] = found.to_meta()
        return corpus

    @classmethod
    def from_counts(
        cls,
        counts: CountMatrix,
        vocabulary: VocabularyLike | None = None,
        *,
        columns: str | None = None,
        seed: int = 0,
        names: Sequence[str] | None = None,
        split: Sequence[str] | str = "test",
    ) -> Corpus:
        """A corpus from a (D, V) document-word count matrix (dense or scipy.sparse).

        Bag-of-words rows have no token order, so each row is expanded into a token sequence in
        a random order drawn from ``topiceval.seeds.generator(seed, d)`` for document d, and
        ``meta["ordered"]`` is ``False``.  Counts made by a fitted vectorizer's ``transform`` have
        already lost the words it does not know, uncounted: for held-out texts, use
        ``from_texts`` with the vectorizer's analyzer, which counts them.

        Parameters
        ----------
        counts : array_like or scipy.sparse matrix, shape (D, V)
            Non-negative integer counts, one row per document.
        vocabulary : sequence of str, vectorizer or mapping, optional
            The words of the V columns (e.g. the fitted vectorizer that made ``counts``): the
            documents are then matched to a model by word.
        columns : {"model"}, optional
            Without ``vocabulary``, ``columns="model"`` states that the columns are the model's
            own, in its order: they are then matched to a model by size, the one case where
            only sizes can be checked (``meta["vocab"] = "model columns"``).  With neither, the
            columns are unnamed (``meta["vocab"] = "column ids"``) and only a model without words
            takes them; a model with words refuses them rather than match them by position.
        seed : int, default 0
            Seed of the token order of each expanded row (non-negative).
        names : sequence of str, optional
            Document names (default "0", "1", ...).
        split : str or sequence of str, default "test"
            Split label(s).

        Returns
        -------
        Corpus
            One document per row, its tokens in a seeded random order.

        Raises
        ------
        VocabularyError
            If ``vocabulary`` does not name exactly V columns.
        ValueError
            For a ``columns`` other than ``"model"``, or both ``vocabulary`` and ``columns``.
        """
        mat = as_count_matrix(counts)
        if columns is not None and columns not in COLUMNS:
            raise ValueError(f"columns must be 'model' or None, got {columns!r}")
        if vocabulary is None:
            words = np.array([str(v) for v in range(mat.shape[1])])
            meta = {"source": "counts", "ordered": False,
                    "vocab": COLUMN_IDS if columns is None else MODEL_COLUMNS}
        elif columns is not None:
            raise ValueError("pass either vocabulary= (the words of the columns) or "
                             "columns='model' (the columns are the model's), not both")
        else:
            words = vocabulary_words(vocabulary)
            if words.shape[0] != mat.shape[1]:
                raise VocabularyError(
                    f"the count matrix has {mat.shape[1]} columns but the vocabulary has "
                    f"{words.shape[0]} words"
                )
            meta = {"source": "counts", "ordered": False}
        seed = check_seed(seed)
        docs = []
        for d in range(mat.shape[0]):
            lo, hi = mat.indptr[d], mat.indptr[d + 1]
            tokens = np.repeat(mat.indices[lo:hi], mat.data[lo:hi])
            docs.append(generator(seed, d).permutation(tokens))
        meta["expansion_seed"] = int(seed)
        return cls.from_documents(docs, words, names, split, meta)

    # ------------------------------------------------------------------ vocabulary
    @property
    def has_words(self) -> bool:
        """False when the vocabulary is only column numbers (``from_counts`` without words, or
        token ids of a model without words)."""
        return self.meta.get("vocab") not in (COLUMN_IDS, MODEL_COLUMNS)

    def align(self, vocabulary: VocabularyLike, *, oov: str = "drop") -> Corpus:
        """This corpus with its token ids re-indexed onto ``vocabulary``, word by word.

        Parameters
        ----------
        vocabulary : sequence of str, vectorizer, mapping, LDAModel, GaPModel or Corpus
            The target word list, usually the model to evaluate.
        oov : {"drop", "error"}, default "drop"
            Tokens whose word is not in ``vocabulary``: dropped and counted per document in
            ``dropped`` (added to any earlier count; summary in ``meta["oov"]``), or refused.

        Returns
        -------
        Corpus
            The same documents, in the same order, as ids into ``vocabulary``; the corpus itself
            when the word lists are equal.  A corpus whose columns were stated to be the model's
            (``from_counts(X, columns="model")``) is taken as ids of ``vocabulary`` and must have
            its size.

        Raises
        ------
        VocabularyError
            For an out-of-vocabulary word with ``oov="error"``; for a corpus with unnamed
            columns (``from_counts`` with neither ``vocabulary`` nor ``columns``), which could
            only be matched by position; or a size mismatch of one stated to be the model's.
        """
        words = vocabulary_words(vocabulary)
        check_oov(oov)
        if not self.has_words:
            if self.meta.get("vocab") == COLUMN_IDS:
                raise unnamed_columns(self.n_types, words.shape[0])
            if words.shape[0] != self.n_types:
                raise VocabularyError(
                    f"the documents are in {self.n_types} columns stated to be the model's, but "
                    f"the model has {words.shape[0]}"
                )
            meta = {k: v for k, v in self.meta.items() if k != "vocab"}
            meta["aligned"] = "column ids taken as ids of the model's vocabulary"
            return Corpus(self.offsets, self.tokens, words, self.names, self.split, meta,
                          self.dropped)
        if np.array_equal(self.vocab, words):
            return self
        new_ids, keep = remap_ids(self.tokens, self.vocab, words, oov)
        kept_before = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])
        offsets = kept_before[self.offsets]
        lost = self.lengths - np.diff(offsets)
        dropped = lost if self.dropped is None else self.dropped + lost
        lost_ids, lost_counts = np.unique(self.tokens[~keep], return_counts=True)
        lost_words = Counter(dict(zip(self.vocab[lost_ids].tolist(), lost_counts.tolist(),
                                      strict=True)))
        meta = dict(self.meta)
        meta["aligned"] = f"by word onto a vocabulary of {words.shape[0]} words"
        meta["oov"] = oov_summary(oov, dropped, np.diff(offsets), lost_words)
        return Corpus(offsets, new_ids.astype(np.int32), words, self.names, self.split, meta,
                      dropped)

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
        """The documents at ``indices`` (in that order), same vocabulary.

        Parameters
        ----------
        indices : sequence of int or int array
            Positions of the documents to keep, in the order wanted; negative positions count
            from the end, and a position may repeat.

        Returns
        -------
        Corpus
            Those documents with their names, split labels, dropped counts and the metadata.

        Raises
        ------
        IndexError
            For a position outside the corpus.

        Examples
        --------
        >>> from topiceval.corpus import Corpus
        >>> docs = Corpus.from_tokens([["a", "b"], ["b"], ["c", "a", "a"]], ["a", "b", "c"])
        >>> part = docs.subset([2, 0])
        >>> part.names.tolist(), [part.vocab[d].tolist() for d in part]
        (['2', '0'], [['c', 'a', 'a'], ['a', 'b']])
        """
        idx = np.asarray(indices, dtype=np.int64)
        if idx.size and (idx.min() < -len(self) or idx.max() >= len(self)):
            raise IndexError(f"subset indices out of range for {len(self)} documents")
        idx = idx % max(len(self), 1)
        lengths = self.lengths[idx]
        offsets = np.zeros(idx.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        pieces = [self.tokens[self.offsets[d] : self.offsets[d + 1]] for d in idx]
        tokens = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int32)
        dropped = None if self.dropped is None else self.dropped[idx]
        return Corpus(
            offsets, tokens, self.vocab, self.names[idx], self.split[idx], dict(self.meta),
            dropped,
        )

    def select_split(self, label: str) -> Corpus:
        """The documents whose split label is ``label``.

        Parameters
        ----------
        label : str
            A split label of the corpus (``"train"``, ``"test"``, ...).

        Returns
        -------
        Corpus
            Those documents, in their order (``subset``).

        Raises
        ------
        CorpusError
            For a label no document has, naming the labels present.
        """
        present = sorted(set(self.split.tolist()))
        if label not in present:
            raise CorpusError(
                f"no documents with split {str(label)!r}; labels present: {', '.join(present)}"
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
        named = [("names", self.names), ("split", self.split)]
        if self.dropped is not None:
            named.append(("dropped", self.dropped))
            if np.any(self.dropped < 0):
                raise CorpusError("dropped (out-of-vocabulary tokens per document) must be >= 0")
        for name, arr in named:
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
        """Write the corpus as one ``.npz`` file, atomically.

        Parameters
        ----------
        path : str or os.PathLike
            The file to write (its directory must exist); replaced only once the new file is
            complete, so an interrupted save leaves any earlier file whole.  ``Corpus.load``
            reads it back; nothing in it is a pickle.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from topiceval.corpus import Corpus
        >>> docs = Corpus.from_tokens([["a", "b"], ["b", "zebra"]], ["a", "b"])
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     docs.save(Path(folder) / "docs.npz")
        ...     again = Corpus.load(Path(folder) / "docs.npz")
        >>> again.n_tokens, again.dropped.tolist()
        (3, [0, 1])
        """
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
                **({} if self.dropped is None else {"dropped": self.dropped}),
            )

    @classmethod
    def load(cls, path: str | os.PathLike) -> Corpus:
        """Read and validate a corpus file.

        Parameters
        ----------
        path
            A ``.npz`` file written by ``Corpus.save``.

        Returns
        -------
        Corpus

        Raises
        ------
        CorpusError
            One line naming the file and what is wrong with it (missing, not a corpus file,
            damaged, arrays of the wrong kind, violated invariants).  Nothing is unpickled.
        """
        with read_npz(path, CorpusError, "corpus") as data:
            _check_corpus_file(data)
            arrays = {
                "offsets": data.numbers("offsets", integer=True, ndim=1),
                "tokens": data.numbers("tokens", integer=True, ndim=1),
                **{name: data.strings(name) for name in ("vocab", "names", "split")},
                "dropped": (data.numbers("dropped", integer=True, ndim=1)
                            if "dropped" in data.files else None),
                "meta": data.json_object("meta"),
            }
        tokens = arrays["tokens"]
        if tokens.size and (tokens.min() < 0 or tokens.max() >= arrays["vocab"].shape[0]):
            raise CorpusError(f"{path}: token ids must lie in [0, {arrays['vocab'].shape[0]}); "
                              f"found range [{tokens.min()}, {tokens.max()}]")
        try:
            return cls(**arrays)
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


def _check_corpus_file(data: NpzMembers) -> None:
    """Refuse a file that is not a corpus file of this format version."""
    missing = {"offsets", "tokens", "vocab", "names", "split", "meta"} - data.files
    if missing:
        if {"family", "phi"} <= data.files:
            raise data.fail("not a corpus file: it is a topiceval model file (family, phi)")
        raise data.fail(f"not a corpus file, missing {', '.join(sorted(missing))}")
    version = data.scalar("format_version", integer=True) if "format_version" in data.files else 0
    if version != FORMAT_VERSION:
        raise data.fail(f"corpus format version {version}, expected {FORMAT_VERSION}")


def unnamed_columns(n_columns: int, n_words: int) -> VocabularyError:
    """The refusal of counts whose columns have no words by a model that has words."""
    return naming(
        VocabularyError, f"the count matrix's {n_columns} columns have no words and the model has "
        f"{n_words}, so they could only be matched by position: give the words of the columns "
        "(Corpus.from_counts(X, vocabulary=the fitted vectorizer or its word list)), or state ",
        Argument("columns", "model"), " if the columns are the model's own, in its order")


def oov_summary(policy: str, dropped: np.ndarray, kept: np.ndarray, words: Counter) -> dict:
    """The ``meta["oov"]`` record: what was left out when documents were mapped onto words."""
    total = int(dropped.sum())
    return {
        "policy": policy,
        "dropped_tokens": total,
        "dropped_share": total / max(total + int(kept.sum()), 1),
        "documents_with_drops": int(np.count_nonzero(dropped)),
        "empty_documents": int(np.count_nonzero(kept == 0)),
        "dropped_types": len(words),
        "most_dropped": [w for w, _ in words.most_common(10)],
    }
