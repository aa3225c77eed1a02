"""What a document is, for each model family: the one reader of ``docs`` at the front door.

``as_model_corpus(model, docs)`` turns what a user passes to ``topiceval.evaluate`` (and to the
``estimate`` and ``compare`` commands) into a ``Corpus`` over the model's columns, deciding once,
here, what the numbers mean:

* LDA: a document is a sequence of tokens in reading order: words, matched to the model's
  vocabulary by word, or token ids, which are ids of the model's columns.
* GaP-FA: a document is a vector of counts over the model's columns: a row of a (D, V) count
  matrix, or a list of words (matched by word, then counted).

The form of the container never changes what its numbers mean: a list, tuple, generator, pandas
Series, ndarray or sparse matrix holding the same numbers is read the same way, or refused with
an error that names the constructor saying what they are:

* a ``Corpus``: matched by word (both families);
* documents of words, in any container (including a 2-D array of strings): matched by word;
* a matrix (a numeric 2-D array or ``np.matrix``, a sparse matrix or array of any format, a data
  frame) or D equal-length rows of numbers: for GaP-FA, counts over the model's columns
  (``columns="model"`` when the model has words; a data frame whose column labels are words is
  matched by word); for LDA refused, naming ``Corpus.from_counts``, except rows of another length
  than V in a sequence (not a matrix), which are token ids;
* integer sequences of different lengths: for LDA token ids; for GaP-FA refused, naming
  ``Corpus.from_documents(docs, model)``.

Counts without words are never matched by position to a model that has words: they need the words
of their columns (``Corpus.from_counts(X, vocabulary=...)``) or the statement ``columns="model"``.

Out-of-vocabulary words are dropped (or refused, ``oov="error"``); ``check_oov_share`` speaks up
when a large share of the tokens was dropped, which nearly always means the documents were not
tokenised as the model's training text was (``OutOfVocabularyWarning``, or an error above a
given share).
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterable, Iterator, Mapping, Set

import numpy as np
import scipy.sparse as sp

from topiceval.corpus import COLUMNS, Corpus, unnamed_columns
from topiceval.counts import as_count_matrix
from topiceval.validation import Argument, check_share, document_label, naming
from topiceval.vocabulary import COLUMN_IDS, MODEL_COLUMNS, VocabularyError, check_oov, model_words

_NUMBERS = (numbers.Number, np.bool_)  # numpy's bool is not a numbers.Number
OOV_WARNING_SHARE = 0.25  # above this share of dropped tokens, a warning (max_oov=None)
COUNTS_HINT = "Corpus.from_counts(X, vocabulary=the fitted vectorizer or word list of its columns)"
IDS_HINT = "Corpus.from_documents(docs, model)"
LISTED = 5  # documents named in a message; the rest are counted


class OutOfVocabularyWarning(UserWarning):
    """A large share of the documents' tokens is not in the model's vocabulary (dropped)."""


def as_model_corpus(model, docs, *, oov: str = "drop", columns: str | None = None) -> Corpus:
    """``docs`` as a Corpus over ``model``'s columns (token ids = the model's columns).

    Parameters
    ----------
    model : LDAModel, GaPModel or LogisticNormalModel
        The model the documents will be scored by; its family decides what a document is (a
        logistic-normal model reads them as LDA does, and a count matrix as GaP-FA does: its
        likelihood depends on the counts only).
    docs : Corpus, documents of words or token ids, or a count matrix
        As ``topiceval.evaluate`` takes them (the list in this module's docstring).
    oov : {"drop", "error"}, default "drop"
        Words not in the model's vocabulary: dropped and counted, or refused.
    columns : {"model"}, optional
        States that the columns of a count matrix without words are the model's own, in its
        order; needed when the model has words (otherwise they could only be matched by
        position).

    Returns
    -------
    Corpus
        The documents as ids of the model's columns, with the dropped tokens per document.

    Raises
    ------
    ValueError
        For anything that is not documents of the model's family, or whose reading would be
        ambiguous, naming the constructor that says what they are.
    VocabularyError
        For documents that cannot be matched to the model's columns.
    """
    check_oov(oov)
    if columns is not None and columns not in COLUMNS:
        raise ValueError(f"columns must be 'model' or None, got {columns!r}")
    if isinstance(docs, Corpus):
        return _from_corpus(model, docs, oov, columns)
    matrix = _matrix(docs)
    if matrix is not None:
        return _from_matrix(model, *matrix, oov, columns, type(docs).__name__)
    rows = _rows(docs)
    if _kind(rows) == "words":
        if columns is not None:
            raise _words_not_columns()
        return Corpus.from_tokens(rows, _vocabulary(model), oov=oov)
    if model.family == "gapfa":
        return _gapfa_rows(model, rows, oov, columns)
    return _lda_rows(model, rows)


def _words_not_columns() -> ValueError:
    """``columns="model"`` given for documents that carry words."""
    return naming(ValueError, Argument("columns", "model"), " states that the columns of a count "
                  "matrix without words are the model's; these documents carry words and are "
                  "matched by word: leave ", Argument("columns"), " out")


def _vocabulary(model) -> np.ndarray:
    if model.vocab is None:
        raise VocabularyError(
            "the documents carry words but the model has no vocabulary, so they cannot be "
            "matched to its columns: give the model its word list (vocab=...), or pass the "
            "documents as numbers in its columns"
        )
    return model.vocab


def _from_corpus(model, corpus: Corpus, oov: str, columns: str | None) -> Corpus:
    """A Corpus matched by word, or (without words) by size where the columns are the model's."""
    if corpus.has_words:
        if columns is not None:
            raise _words_not_columns()
        return corpus.align(_vocabulary(model), oov=oov)
    if corpus.meta.get("vocab") == COLUMN_IDS and (columns is not None or model.vocab is None):
        corpus = dataclasses.replace(corpus, meta={**corpus.meta, "vocab": MODEL_COLUMNS})
    return corpus.align(model_words(model), oov=oov)  # unnamed columns are refused there


# ---------------------------------------------------------------------------- count matrices
def _matrix(docs) -> tuple[object, list | None] | None:
    """(a count matrix, the words of its columns or None) if ``docs`` is a matrix, else None.

    Sparse matrices of every format, and anything with a two-dimensional ``shape`` (ndarray,
    ``np.matrix``, data frames): numeric ones are count matrices, a 2-D array of strings is
    documents of words (None).  A data frame's column labels are its words when they are
    strings, and must be 0..V - 1 otherwise.
    """
    if sp.issparse(docs):
        return docs, None
    shape = getattr(docs, "shape", None)
    if not (isinstance(shape, tuple) and len(shape) == 2):
        return None
    try:
        values = docs.sparse.to_coo()  # a data frame of sparse columns, kept sparse
    except AttributeError:
        values = np.asarray(docs)
    if values.dtype == object and all(isinstance(v, _NUMBERS) for v in values.flat):
        values = np.asarray(values.tolist())  # numbers held as Python objects: their values
    labels = getattr(docs, "columns", None)
    if values.dtype.kind not in "biuf":
        if labels is not None:
            raise ValueError(
                f"docs is a {type(docs).__name__}, read as a (D, V) count matrix (one row per "
                f"document, one column per word), but it holds {values.dtype} values: pass "
                "numeric counts, or the column that holds the documents (e.g. df['tokens'])"
            )
        return None
    return values, _column_words(labels, values.shape[1])


def _column_words(labels, n_columns: int) -> list | None:
    if labels is None:
        return None
    labels = list(labels)
    if labels and all(isinstance(label, str) for label in labels):
        return labels
    if labels == list(range(n_columns)):
        return None
    raise ValueError(
        f"docs is a data frame whose column labels ({labels[:3]!r}, ...) are neither words nor "
        f"the column numbers 0..{n_columns - 1}: label its columns with their words"
    )


def _from_matrix(model, counts, words: list | None, oov: str, columns: str | None,
                 container: str) -> Corpus:
    """A count matrix: refused for LDA; for GaP-FA and the logistic-normal family matched by
    word, or by size when stated."""
    if model.family == "lda":
        raise ValueError(
            f"docs is a {container} of shape {counts.shape}, a (D, V) count matrix; for an LDA "
            "model a document is a sequence of tokens in reading order: pass counts as "
            f"{COUNTS_HINT} (rows expanded into tokens in a seeded random order), equal-length "
            f"token-id documents as {IDS_HINT}"
        )
    mat = as_count_matrix(counts)
    if words is not None:
        if columns is not None:
            raise _words_not_columns()
        return Corpus.from_counts(mat, words).align(_vocabulary(model), oov=oov)
    if mat.shape[1] != model.n_types:
        raise VocabularyError(
            f"the count matrix has {mat.shape[1]} columns but the model has {model.n_types}: "
            f"give the words of its columns, {COUNTS_HINT}; token-id documents go through "
            f"{IDS_HINT}"
        )
    if model.vocab is not None and columns is None:
        raise unnamed_columns(mat.shape[1], model.n_types)
    return Corpus.from_counts(mat, columns="model").align(model_words(model))


def _lda_rows(model, rows: list) -> Corpus:
    """Rows of numbers for LDA: token ids, unless they have the shape of a count matrix."""
    if {len(row) for row in rows} == {model.n_types}:
        raise ValueError(
            f"docs are {len(rows)} row(s) of {model.n_types} numbers each, the shape of a (D, V) "
            f"count matrix over the model's {model.n_types} columns, so they could be counts "
            f"or token ids: pass counts as {COUNTS_HINT}, token ids as {IDS_HINT}"
        )
    return Corpus.from_documents(rows, model, split="test")


def _gapfa_rows(model, rows: list, oov: str, columns: str | None) -> Corpus:
    """Rows of numbers for GaP-FA: a count matrix in list form; ragged rows are token ids."""
    lengths = sorted({len(row) for row in rows})
    if len(lengths) > 1:
        raise ValueError(
            f"for a GaP-FA model a document is a row of counts over the model's "
            f"{model.n_types} columns, and these {len(rows)} rows have different lengths "
            f"({lengths[0]} to {lengths[-1]}), as token ids would: pass token ids as {IDS_HINT}, "
            "or a (D, V) count matrix"
        )
    matrix = np.array([list(row) for row in rows])  # the values, whatever holds them
    return _from_matrix(model, matrix, None, oov, columns, "list")


# ---------------------------------------------------------------------------- documents
def _rows(docs) -> list:
    """``docs`` as a list of documents (iterators read into lists), refusing what is not."""
    if docs is None or isinstance(docs, (str, bytes)) or not isinstance(docs, Iterable):
        raise ValueError(
            "docs must be a sequence of documents (lists of words or token-id sequences), a "
            f"Corpus or a count matrix, got {type(docs).__name__}")
    if isinstance(docs, Mapping):
        raise ValueError(f"docs is a {type(docs).__name__}, which iterates over its keys: pass "
                         "its documents, e.g. list(docs.values())")
    if isinstance(docs, Set):
        raise ValueError(f"docs is a {type(docs).__name__}, which has no order: pass a list")
    if getattr(docs, "ndim", 1) == 0:
        raise ValueError(f"docs must be documents, got the 0-d array {docs!r}")
    rows = [list(doc) if isinstance(doc, Iterator) else doc for doc in docs]
    if not rows:
        raise ValueError("docs is empty: pass at least one document")
    return rows


def _kind(rows: list) -> str:
    """``"words"`` or ``"numbers"``: what every document holds (documents may not mix)."""
    first: dict[str, int] = {}
    for d, doc in enumerate(rows):
        kind = _document_kind(d, doc)
        if kind:
            first.setdefault(kind, d)
    if len(first) > 1:
        raise ValueError(f"document {first['words']} holds words and document "
                         f"{first['numbers']} numbers: pass one kind of document")
    return next(iter(first), "numbers")


def _document_kind(d: int, doc) -> str | None:
    """What document ``d`` holds, by its first token (None when it is empty)."""
    if isinstance(doc, (str, bytes)):
        raise ValueError(
            f"document {d} is a string, not a list of tokens: split it first, or build the "
            "documents with Corpus.from_texts(texts, analyzer, model)"
        )
    if (isinstance(doc, (Mapping, Set)) or not isinstance(doc, Iterable)
            or getattr(doc, "ndim", 1) == 0):
        shown = doc.item() if isinstance(doc, np.generic) else doc
        raise ValueError(
            f"document {d} is {shown!r} ({type(doc).__name__}), not a sequence of tokens: docs "
            "holds one sequence per document (a single document is passed as [doc])"
        )
    for token in doc:
        if isinstance(token, str):
            return "words"
        if isinstance(token, bytes):
            raise ValueError(f"document {d} holds bytes ({token!r}); words must be str: decode "
                             "them first, e.g. [w.decode('utf-8') for w in doc]")
        if isinstance(token, _NUMBERS):
            return "numbers"
        raise ValueError(
            f"document {d} holds {token!r} ({type(token).__name__}); a document is a sequence "
            "of words or of integer token ids (gensim's (id, count) pairs: convert them to a "
            "count matrix, e.g. gensim.matutils.corpus2csc(...).T)"
        )
    return None


# ---------------------------------------------------------------------------- naming documents
def document_listing(docs: np.ndarray, names: np.ndarray, dropped: np.ndarray) -> str:
    """The first ``LISTED`` of the documents ``docs`` named, with their dropped words, and a
    count of the rest: ``'AP-7' (3 word(s) dropped), document 9 (0 word(s) dropped)``
    (``validation.document_label``)."""
    shown = ", ".join(f"{document_label(int(d), names[d])} ({dropped[d]} word(s) dropped)"
                      for d in docs[:LISTED])
    return shown + (f" and {docs.size - LISTED} more" if docs.size > LISTED else "")


# ---------------------------------------------------------------------------- dropped words
def check_oov_share(corpus: Corpus, max_oov: float | None = None,
                    option: str = "max_oov") -> str | None:
    """Refuse, or describe for a warning, a large share of tokens dropped as out of vocabulary.

    Parameters
    ----------
    corpus : Corpus
        Documents matched to a model (``as_model_corpus``), with their ``dropped`` counts.
    max_oov : float in [0, 1], optional
        The largest share of the documents' tokens that may have been dropped; above it
        ``VocabularyError``.  ``None``: no limit, but a warning text above
        ``OOV_WARNING_SHARE``.
    option : str, default "max_oov"
        The argument's name, for the messages (the command line passes its option).

    Returns
    -------
    str or None
        The warning text (``max_oov=None`` and more than ``OOV_WARNING_SHARE`` dropped), or
        None.
    """
    if max_oov is not None:
        max_oov = check_share(option, max_oov)
    dropped = 0 if corpus.dropped is None else int(corpus.dropped.sum())
    total = dropped + corpus.n_tokens
    share = dropped / total if total else 0.0
    limit = OOV_WARNING_SHARE if max_oov is None else max_oov
    if share <= limit:
        return None
    examples = (corpus.meta.get("oov") or {}).get("most_dropped", [])[:5]
    text = (
        f"{100 * share:.3g}% of the documents' tokens ({dropped:,} of {total:,}) are not in the "
        "model's vocabulary and were dropped"
        + (f" (most often {', '.join(repr(w) for w in examples)})" if examples else "")
        + ": the documents were probably not tokenised as the model's training text was "
        "(letter case, the token pattern, stop words removed in training, or a vocabulary cap "
        "such as max_features or min_df)"
    )
    given = f"{option} " if option.startswith("-") else f"{option}="  # an option or argument
    if max_oov is not None:
        raise VocabularyError(f"{text}; {given}{max_oov:g} allows at most {100 * max_oov:.3g}%")
    return f"{text}; {given}SHARE accepts up to that share and refuses more"
