"""What a document is, per family (``topiceval.documents``): every container a user can pass is
read with the meaning of its canonical form, or refused with the constructor to use.

The canonical forms: for LDA, a list of token-id arrays; for GaP-FA, a scipy.sparse count matrix
whose columns are stated to be the model's (``columns="model"``).  Every other container of the
same numbers (lists, tuples, generators, pandas Series and DataFrames, ndarrays of every integer
and float dtype, np.matrix, sparse matrices and arrays of every format, words) must give the same
``topiceval.evaluate`` numbers, or be refused with a message naming what to do instead.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import topiceval
from topiceval.models import GaPModel, LDAModel

WORDS = ["apple", "banana", "cherry", "date", "elder"]
V = len(WORDS)
RAGGED = [[0, 2, 2, 4], [1, 3], [4, 0, 1]]  # token ids, documents of different lengths
EQUAL = [[0, 1, 2], [3, 4, 0]]  # token ids, documents of one length other than V
PHI = np.array([[0.4, 0.3, 0.1, 0.1, 0.1], [0.05, 0.1, 0.25, 0.3, 0.3]])
SAME = "same numbers as the canonical form"
NUMBER_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64")
SPARSE_FORMATS = ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")


def counts_of(ids) -> np.ndarray:
    out = np.zeros((len(ids), V), dtype=np.int64)
    for d, doc in enumerate(ids):
        np.add.at(out[d], doc, 1)
    return out


def words_of(ids) -> list[list[str]]:
    return [[WORDS[v] for v in doc] for doc in ids]


def _np_matrix(values: np.ndarray) -> np.matrix:
    with warnings.catch_warnings():  # numpy discourages the class, and users still pass it
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.asmatrix(values)


def _objects(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


# ------------------------------------------------------------------------------- containers
# each yields (name, form, factory): form "rows" (a sequence of documents), "matrix" (a 2-D
# numeric object) or "labelled" (a data frame whose column labels are words); factories build a
# fresh container on every call (generators are used up)
def row_forms(rows):
    yield "list of lists", "rows", lambda: [list(r) for r in rows]
    yield "tuple of tuples", "rows", lambda: tuple(tuple(r) for r in rows)
    yield "generator of lists", "rows", lambda: (list(r) for r in rows)
    yield "list of generators", "rows", lambda: [(t for t in r) for r in rows]
    yield "iterator over tuples", "rows", lambda: iter([tuple(r) for r in rows])
    yield "pandas Series of lists", "rows", lambda: pd.Series([list(r) for r in rows])
    yield "list of pandas Series", "rows", lambda: [pd.Series(r, dtype=object) for r in rows]
    yield "object array of lists", "rows", lambda: _objects([list(r) for r in rows])


def number_row_forms(rows):
    yield from row_forms(rows)
    for dtype in NUMBER_DTYPES:
        yield f"list of {dtype} arrays", "rows", lambda dtype=dtype: [
            np.array(r, dtype=dtype) for r in rows]
        yield f"object array of {dtype} arrays", "rows", lambda dtype=dtype: _objects(
            [np.array(r, dtype=dtype) for r in rows])
    yield "list of lists of numpy ints", "rows", lambda: [[np.int64(t) for t in r] for r in rows]


def matrix_forms(matrix: np.ndarray):
    for dtype in NUMBER_DTYPES:
        yield f"{dtype} ndarray", "matrix", lambda dtype=dtype: matrix.astype(dtype)
    yield "Fortran-order ndarray", "matrix", lambda: np.asfortranarray(matrix)
    yield "object ndarray", "matrix", lambda: matrix.astype(object)
    yield "DataFrame of objects", "matrix", lambda: pd.DataFrame(matrix.astype(object))
    yield "np.matrix", "matrix", lambda: _np_matrix(matrix)
    for fmt in SPARSE_FORMATS:
        yield f"{fmt}_matrix", "matrix", lambda fmt=fmt: getattr(sp, f"{fmt}_matrix")(matrix)
        yield f"{fmt}_array", "matrix", lambda fmt=fmt: getattr(sp, f"{fmt}_array")(matrix)
    yield "DataFrame", "matrix", lambda: pd.DataFrame(matrix)
    yield "sparse DataFrame", "matrix", lambda: pd.DataFrame.sparse.from_spmatrix(
        sp.csr_matrix(matrix))


def labelled_forms(matrix: np.ndarray):
    order = [3, 0, 4, 2, 1]  # the columns in another order, labelled with their words
    labels = [WORDS[v] for v in order]
    yield "DataFrame labelled by words", "labelled", lambda: pd.DataFrame(
        matrix[:, order], columns=labels)
    yield "sparse DataFrame labelled by words", "labelled", lambda: (
        pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(matrix[:, order]), columns=labels))


def word_forms(ids):
    words = words_of(ids)
    yield from row_forms(words)
    yield "list of str arrays", "rows", lambda: [np.array(w) for w in words]
    yield "list of lists of np.str_", "rows", lambda: [[np.str_(t) for t in w] for w in words]
    if len({len(w) for w in words}) == 1:
        yield "2-D str array", "rows", lambda: np.array(words)
    yield "lists of bytes", "bytes", lambda: [[t.encode() for t in w] for w in words]


def cases():
    """(payload, container name, form, factory): the payloads are token ids (of different
    lengths, and of one length other than V), count rows and words."""
    table = [("ragged ids", RAGGED, number_row_forms(RAGGED)),
             ("equal ids", EQUAL, [*number_row_forms(EQUAL), *matrix_forms(np.array(EQUAL))]),
             ("counts", RAGGED, [*number_row_forms(counts_of(RAGGED).tolist()),
                                 *matrix_forms(counts_of(RAGGED)),
                                 *labelled_forms(counts_of(RAGGED))]),
             ("ragged words", RAGGED, word_forms(RAGGED)),
             ("equal words", EQUAL, word_forms(EQUAL))]
    for payload, ids, forms in table:
        for name, form, factory in forms:
            yield pytest.param(payload, ids, form, factory, id=f"{payload}: {name}")


def expected(payload: str, form: str, family: str, vocab: bool, stated: bool, container: str):
    """SAME, or a piece of the refusal's message."""
    floats = "float" in container
    if form == "bytes":
        return "decode them first"
    if payload.endswith("words") or form == "labelled":
        if form == "labelled" and family == "lda":
            return "Corpus.from_counts(X, vocabulary="
        if stated:
            return "leave columns out"
        return SAME if vocab else "the model has no vocabulary"
    if payload == "counts":
        if family == "lda":
            return "Corpus.from_counts(X, vocabulary="
        return SAME if stated or not vocab else "columns='model'"
    if family == "gapfa":  # token ids
        if payload == "ragged ids":
            return "Corpus.from_documents(docs, model)"
        return "the count matrix has 3 columns but the model has 5"
    if form == "matrix":
        return "Corpus.from_counts(X, vocabulary="
    return "integer token ids" if floats else SAME


@pytest.fixture(scope="module")
def models():
    out = {}
    for vocab in (True, False):
        words = WORDS if vocab else None
        out["lda", vocab] = LDAModel(PHI, np.array([0.3, 0.6]), vocab=words)
        out["gapfa", vocab] = GaPModel(PHI, np.array([0.3, 0.6]), np.array([0.8, 1.5]),
                                       vocab=words)
    return out


def score(model, docs, **kwargs) -> np.ndarray:
    return topiceval.evaluate(model, docs, "exact", runs=1, **kwargs).logp


@pytest.fixture(scope="module")
def canonical(models):
    """The numbers of the canonical form of each payload's documents, per model."""
    out = {}
    for (family, vocab), model in models.items():
        for ids in (RAGGED, EQUAL):
            docs = ([np.array(d, dtype=np.int64) for d in ids] if family == "lda"
                    else sp.csr_matrix(counts_of(ids)))
            out[family, vocab, id(ids)] = score(model, docs, columns="model")
    return out


@pytest.mark.parametrize("stated", [False, True], ids=["", "columns=model"])
@pytest.mark.parametrize("vocab", [True, False], ids=["model with words", "model without"])
@pytest.mark.parametrize("family", ["lda", "gapfa"])
@pytest.mark.parametrize(("payload", "ids", "form", "factory"), list(cases()))
def test_every_container_means_what_its_canonical_form_means(
        payload, ids, form, factory, family, vocab, stated, models, canonical, request):
    container = request.node.callspec.id.split(": ", 1)[1]
    want = expected(payload, form, family, vocab, stated, container)
    kwargs = {"columns": "model"} if stated else {}
    model = models[family, vocab]
    if want is SAME:
        np.testing.assert_allclose(score(model, factory(), **kwargs),
                                   canonical[family, vocab, id(ids)], rtol=1e-13)
    else:
        with pytest.raises(ValueError) as refused:
            score(model, factory(), **kwargs)
        assert want in str(refused.value)


def test_the_enumeration_covers_every_family_of_container():
    names = {param.id for param in cases()}
    assert len(names) > 100
    for piece in ("tuple of tuples", "generator", "pandas Series", "DataFrame", "uint64",
                  "int8", "float32", "np.matrix", "bytes", "2-D str array",
                  *(f"{fmt}_matrix" for fmt in SPARSE_FORMATS),
                  *(f"{fmt}_array" for fmt in SPARSE_FORMATS)):
        assert any(piece in name for name in names), piece
