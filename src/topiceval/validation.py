"""Argument checks shared by the estimators, the trainers and the corpus: every bad input becomes
a ``ValueError`` naming the argument, what it must be and what it was, before any kernel runs.

* integers (Python or NumPy, never a bool): ``is_integer``, ``check_integer`` (counts, runs,
  sweeps; the kernels' int64 range), ``check_seed``, ``check_threads``, ``check_doc_keys`` (the
  documents' stream keys);
* numbers: ``check_positive``, ``check_share`` (a fraction in [0, 1]), ``check_alpha_m`` (the LDA
  prior pseudo-counts alpha m);
* documents as token ids: ``reject_count_matrix`` (a (D, V) count matrix passed as documents),
  ``token_documents`` (the one normaliser to int64 token arrays), ``pack_documents`` (their CSR
  form) and ``check_token_ids`` (ids inside the vocabulary);
* errors that name an argument the user can change, in the API's words or the command line's:
  ``Argument`` (``empty='skip'`` or ``--skip-empty``), ``naming`` (an error whose message holds
  them; ``topiceval.cli`` prints its ``command_line`` form; the checks below make theirs so),
  ``named`` and ``arguments`` (names as message parts), ``extended`` (a message made longer in
  both forms), ``option`` (``--inner-samples``) and ``document_label`` (a document by its name
  where it has one).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numba
import numpy as np
import scipy.sparse as sp

INT_LIMIT = 2**63  # integers go to int64 kernel arguments and stream keys
# API arguments (name, value) whose command-line option is not ``option(name) value``
OPTIONS = {("empty", "skip"): "--skip-empty", ("n_topics", None): "--topics"}
E = TypeVar("E", bound=BaseException)


def option(name: str) -> str:
    """The command-line option of the API argument or estimator setting ``name``:
    ``inner_samples`` -> ``--inner-samples``."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Argument:
    """An API argument that an error message names, set to ``value`` when the message says
    which value to pass.

    ``str()`` spells it as the API does (``empty='skip'``, ``alpha``); ``for_command_line()``
    as the commands' option does (``--skip-empty``, ``--alpha``, ``--columns model``).
    """

    name: str
    value: str | None = None

    def __str__(self) -> str:
        return self.name if self.value is None else f"{self.name}={self.value!r}"

    def for_command_line(self) -> str:
        spelled = OPTIONS.get((self.name, self.value))
        if spelled is not None:
            return spelled
        return option(self.name) + ("" if self.value is None else f" {self.value}")


def named(name: str) -> tuple[str | Argument, ...]:
    """``name``, as the check functions are given it, as message parts: an argument
    (``runs``) or an estimator setting (``setting samples``) is an ``Argument``; any other
    description (``optimize burnin``, ``--max-oov-share``) stays text."""
    head, _, last = name.rpartition(" ")
    if last.isidentifier() and head in ("", "setting"):
        return (f"{head} " if head else "", Argument(last))
    return (name,)


def arguments(names) -> tuple[str | Argument, ...]:
    """Message parts listing the arguments ``names``: ``a, b, c``."""
    parts: list[str | Argument] = []
    for name in names:
        parts += [", ", Argument(name)] if parts else [Argument(name)]
    return tuple(parts)


def extended(error: E, text: str) -> E:
    """A new error of ``error``'s type with ``text`` added to its message, in both forms (its
    ``command_line`` too, when it has one)."""
    longer = type(error)(f"{error}{text}")
    command_line = getattr(error, "command_line", None)
    if command_line is not None:
        longer.command_line = command_line + text
    return longer


def document_label(d: int, name: object = None) -> str:
    """How a message names document ``d``: by its ``name`` (quoted) where it has one, by its
    position where it has none or its name is only that (``"document 3"``)."""
    return f"document {d}" if name is None or str(name) == str(d) else repr(str(name))


def naming(error: type[E], *parts: str | Argument) -> E:
    """``error`` (an exception class) with the message ``parts`` joined, the ``Argument`` parts
    spelled as the API does; its ``command_line`` attribute holds the same message with the
    command's options, which ``topiceval.cli`` prints.

    Parameters
    ----------
    error : type
        The exception class, e.g. ``ValueError`` or ``VocabularyError``.
    *parts : str or Argument
        The message: text, and the arguments it names.

    Returns
    -------
    BaseException
        The exception, to raise.
    """
    exc = error("".join(str(part) for part in parts))
    exc.command_line = "".join(part.for_command_line() if isinstance(part, Argument) else part
                               for part in parts)
    return exc


def is_integer(value: Any) -> bool:
    """Whether ``value`` is an integer: a Python or NumPy integer, not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def check_integer(name: str, value: Any, minimum: int = 0) -> int:
    """``value`` as an int in [``minimum``, 2**63); ``ValueError`` naming ``name`` otherwise.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : int or numpy integer
        The value to check (a bool is not an integer here).
    minimum : int, default 0
        The smallest allowed value.

    Returns
    -------
    int
    """
    if not is_integer(value):
        raise naming(ValueError, *named(name), f" must be an integer, got {value!r}")
    if not minimum <= value < INT_LIMIT:
        raise naming(ValueError, *named(name),
                     f" must be an integer in [{minimum}, 2**63), got {value}")
    return int(value)


def check_seed(seed: Any) -> int:
    """A seed of the random streams: an integer in [0, 2**63)."""
    return check_integer("seed", seed, 0)


def check_threads(threads: Any) -> int:
    """A thread (or block) count: a positive integer; ``None`` means every numba thread."""
    if threads is None:
        return int(numba.config.NUMBA_NUM_THREADS)
    return check_integer("threads", threads, 1)


def check_positive(name: str, value: Any) -> float:
    """``value`` as a finite positive float; ``ValueError`` naming ``name`` otherwise."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
            or not (np.isfinite(value) and value > 0)):
        raise naming(ValueError, *named(name), f" must be a positive finite number, got {value!r}")
    return float(value)


def check_share(name: str, value: Any) -> float:
    """``value`` as a float in [0, 1] (a share); ``ValueError`` naming ``name`` otherwise."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
            or not 0 <= value <= 1):
        raise naming(ValueError, *named(name), f" must be a share in [0, 1], got {value!r}")
    return float(value)


def check_alpha_m(alpha_m: Any, n_topics: int, default_total: float) -> np.ndarray:
    """alpha m as a positive (T,) array; ``None`` gives default_total / T per topic, a scalar the
    same value for every topic."""
    if alpha_m is None:
        return np.full(n_topics, default_total / n_topics)
    arr = np.asarray(alpha_m, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n_topics, float(arr))
    if arr.shape != (n_topics,):
        raise ValueError(f"alpha_m must be a scalar or have shape ({n_topics},), got {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError("alpha_m must be finite and strictly positive")
    return arr.copy()


def check_doc_keys(keys: Any, n_docs: int, name: str = "doc_keys") -> np.ndarray:
    """Keys of the documents' random streams: distinct non-negative integers, one per document
    (default their positions 0..D-1), as int64."""
    if keys is None:
        return np.arange(n_docs, dtype=np.int64)
    arr = np.asarray(keys)
    if arr.shape != (n_docs,) or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be {n_docs} integers (one per document), got {arr!r}")
    if arr.size and (arr.min() < 0 or np.unique(arr).size != arr.size):
        raise ValueError(f"{name} must be distinct non-negative integers")
    return arr.astype(np.int64)


def reject_count_matrix(docs: Any) -> None:
    """Refuse a (D, V) count matrix, or anything that is not a sequence of documents, where
    token sequences are expected.

    A dense 2-D array would otherwise be read as D documents of V "token ids" (its counts), a
    silent wrong answer; a scipy.sparse matrix cannot be iterated as documents at all.
    """
    if (docs is None or isinstance(docs, (str, bytes, Mapping)) or not hasattr(docs, "__iter__")):
        raise ValueError(f"docs must be a sequence of documents (token sequences) or a Corpus, "
                         f"got {type(docs).__name__}")
    if sp.issparse(docs) or getattr(docs, "ndim", None) == 2:  # any matrix: ndarray, DataFrame
        raise ValueError(
            f"docs is a 2-D {type(docs).__name__} of shape {docs.shape}, which looks like a "
            "(D, V) count matrix; "
            "token sequences are expected: convert it with "
            "topiceval.corpus.Corpus.from_counts(counts, vocabulary) (bag-of-words rows are "
            "expanded into tokens in a seeded random order)"
        )
    if isinstance(docs, np.ndarray) and docs.ndim == 1 and docs.dtype != object:
        raise ValueError("docs must be a sequence of documents (1-D token arrays), not one array")


def token_documents(docs: Any) -> list[np.ndarray]:
    """A Corpus or a sequence of token-id sequences as a list of int64 arrays.

    Refuses a count matrix (``reject_count_matrix``), a string document (words need a
    vocabulary: ``Corpus.from_tokens``) and anything that is not a 1-D sequence of integers.
    """
    reject_count_matrix(docs)
    out = []
    for d, doc in enumerate(docs):
        if isinstance(doc, (str, bytes)):
            raise ValueError(
                f"document {d} is a string; token ids (columns of the model) are expected: "
                "build the documents with Corpus.from_tokens / Corpus.from_texts and the "
                "model's vocabulary, or use topiceval.evaluate"
            )
        arr = np.asarray(doc)
        if arr.dtype == object and arr.ndim == 1:  # Python objects: read as the values they hold
            arr = np.asarray(arr.tolist())
        if arr.ndim == 1 and arr.size and isinstance(arr[0], (str, bytes)):
            raise ValueError(
                f"document {d} holds words ({arr[0].item()!r}), not integer token ids: match "
                "words to the model's vocabulary with Corpus.from_tokens or topiceval.evaluate "
                "(bytes must be decoded to str first)"
            )
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise ValueError(
                f"document {d} must be a 1-D sequence of integer token ids, got shape "
                f"{arr.shape} and dtype {arr.dtype}"
            )
        if arr.dtype.kind == "u" and arr.size and arr.max() >= INT_LIMIT:
            raise ValueError(f"document {d} has token id {int(arr.max())}, beyond any "
                             "vocabulary (token ids are below 2**63)")
        out.append(arr.astype(np.int64, copy=False))
    return out


def pack_documents(docs: Any) -> tuple[np.ndarray, np.ndarray]:
    """CSR form (offsets int64 (D + 1,), tokens int64) of ``token_documents(docs)``."""
    docs = token_documents(docs)
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([d.shape[0] for d in docs], out=offsets[1:])
    tokens = np.concatenate(docs) if docs else np.zeros(0, dtype=np.int64)
    return offsets, tokens.astype(np.int64)


def check_token_ids(offsets: np.ndarray, tokens: np.ndarray, n_types: int,
                    what: str = "the vocabulary") -> None:
    """Refuse a token id outside 0..``n_types`` - 1, naming its document."""
    if tokens.size == 0 or (tokens.min() >= 0 and tokens.max() < n_types):
        return
    bad = int(np.flatnonzero((tokens < 0) | (tokens >= n_types))[0])
    d = int(np.searchsorted(offsets, bad, side="right") - 1)
    raise ValueError(
        f"document {d} has token id {int(tokens[bad])} outside {what} (ids 0..{n_types - 1})"
    )
