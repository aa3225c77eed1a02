"""Words, not sizes: map documents onto a model's vocabulary by word.

A model's topics ``phi`` (T x V) are indexed by column; a document's token ids mean something only
together with the word list they index.  Every path that puts documents and a model together goes
through this module, so that documents are scored with the model's probabilities *for their own
words*:

* ``vocabulary_words(obj)`` reads a word list from a sequence of words, a fitted scikit-learn
  vectorizer, a word <-> column mapping, a ``Corpus`` or a model (its ``vocab``), refusing
  duplicates, non-strings and unordered collections (every importer of ``topiceval.adapters``
  reads its words through it too);
* ``map_tokens(token_lists, words, oov)`` turns lists of word strings into token-id arrays,
  dropping (``oov="drop"``, MALLET's behaviour) or refusing (``oov="error"``) words outside the
  vocabulary, and counts what it dropped per document;
* ``remap_ids(tokens, source, target, oov)`` re-indexes token ids of one word list onto another;
* ``reorder_columns(model, words)`` puts a model's topic-word columns in another word order (two
  models compared on the same documents must index the same words).

A corpus built from counts without a word list carries the column numbers as its "words" and says
so in ``meta["vocab"]``: ``"column ids"`` (``Corpus.from_counts(X)``, columns unnamed) is refused by
a model that has words, since it could only be matched by position; ``"model columns"``
(``Corpus.from_counts(X, columns="model")``, or token ids built with ``Corpus.from_documents(ids,
model)`` for a model without words) states that the columns are the model's, and is matched by size
(``model_words``).

Words are also checked for characters that storage would alter: numpy's string arrays drop a
trailing NUL (``"a\x00"`` would become the word ``"a"``) and line-based files split at line breaks,
so a word holding NUL, a line break or a lone surrogate (which UTF-8 cannot encode) is refused
(``unstorable_word``).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Set

import numpy as np

from topiceval.validation import Argument, document_label, naming

OOV_POLICIES = ("drop", "error")
COLUMN_IDS = "column ids"  # meta["vocab"] of a corpus whose words are unnamed column numbers
MODEL_COLUMNS = "model columns"  # meta["vocab"] of one whose columns are stated to be the model's
# characters a saved word list would alter: NUL (numpy's string arrays drop a trailing one), the
# line breaks of str.splitlines (line-based files split there) and lone surrogates (no UTF-8)
UNSTORABLE = re.compile(r"[\x00\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029\ud800-\udfff]")


class VocabularyError(ValueError):
    """Documents and a model (or a word list) cannot be matched word for word."""


def vocabulary_words(obj, n_columns: int | None = None, what: str = "vocabulary") -> np.ndarray:
    """The word list of ``obj`` as a 1-D ``str`` array, in column (token id) order.

    Parameters
    ----------
    obj
        A sequence of words in column order; a fitted scikit-learn ``CountVectorizer`` /
        ``TfidfVectorizer`` / ``DictVectorizer`` (its ``get_feature_names_out()``; other
        transformers, e.g. a ``Pipeline``, are refused: their names are of output columns); a
        mapping, word -> column (a vectorizer's ``vocabulary_``) or column -> word (a gensim
        ``Dictionary``); or anything with a ``vocab`` attribute (a ``Corpus``, an ``LDAModel``,
        a ``GaPModel``).  Sets are refused: they have no column order.
    n_columns
        If given, the number of columns the words must name (V of a topic-word matrix).
    what
        Name used in error messages.

    Raises
    ------
    VocabularyError
        For a missing or unordered word list, an unfitted vectorizer, non-string words, a
        length other than ``n_columns``, or a word listed twice (it would name two columns).
    """
    if hasattr(obj, "get_feature_names_out"):
        if not (hasattr(obj, "vocabulary") or hasattr(obj, "vocabulary_")):
            raise VocabularyError(
                f"{what}: a {type(obj).__name__}'s get_feature_names_out() names its output "
                "columns, not words; pass the fitted vectorizer itself (e.g. the CountVectorizer "
                "step of a pipeline)"
            )
        try:
            words = obj.get_feature_names_out()
        except (ValueError, AttributeError) as exc:  # sklearn's NotFittedError is both
            raise VocabularyError(f"{what}: the vectorizer is not fitted ({exc})") from None
        what = f"{what} ({type(obj).__name__})"
    elif isinstance(obj, Mapping):
        words = _mapping_words(obj, what)
    elif hasattr(obj, "vocab") and not isinstance(obj, (str, bytes)):
        words = obj.vocab
        if words is None:
            raise VocabularyError(f"{what}: {type(obj).__name__} carries no word list (vocab)")
    elif isinstance(obj, (str, bytes, Set)) or not isinstance(obj, Iterable):
        raise VocabularyError(
            f"{what} must be a sequence of words in column order, a fitted vectorizer, a word "
            f"<-> column mapping or a model/corpus with a vocab, got {type(obj).__name__}"
        )
    else:
        words = list(obj) if isinstance(obj, Iterator) else obj
    return _checked_words(words, n_columns, what)


def _checked_words(words, n_columns: int | None, what: str) -> np.ndarray:
    arr = np.asarray(words, dtype=object)
    if arr.ndim != 1:
        raise VocabularyError(f"{what} must be a 1-D list of words, got shape {arr.shape}")
    bad = [i for i, w in enumerate(arr) if not isinstance(w, (str, np.str_))]
    if bad:
        value = arr[bad[0]]
        shown = value.item() if isinstance(value, np.generic) else value  # 3, not np.int64(3)
        raise VocabularyError(
            f"{what} must hold strings; entry {bad[0]} is {shown!r} ({type(value).__name__})"
        )
    if n_columns is not None and arr.shape[0] != n_columns:
        raise VocabularyError(
            f"{what} has {arr.shape[0]} words but the model's topic-word matrix has {n_columns} "
            "columns"
        )
    bad_word = unstorable_word(arr.tolist())
    if bad_word:
        raise VocabularyError(f"{what}: {bad_word}")
    out = np.asarray(arr.tolist(), dtype=str) if arr.size else np.zeros(0, dtype=str)
    if np.unique(out).size != out.size:
        first: dict[str, int] = {}
        for i, w in enumerate(out.tolist()):
            j = first.setdefault(w, i)
            if j != i:
                raise VocabularyError(
                    f"{what} lists the word {w!r} twice (columns {j} and {i}); each word must "
                    "name exactly one column"
                )
    return out


def unstorable_word(words: list) -> str | None:
    """Why the first word of ``words`` (strings) that storage would alter is refused, or None.

    A word may not hold NUL, a line break or a lone surrogate: numpy's string arrays drop a
    trailing NUL (the model word ``"a\x00"`` would become ``"a"`` and take the tokens of the
    word ``"a"``), line-based files split at line breaks, and UTF-8 cannot encode a surrogate.
    """
    if not words or not UNSTORABLE.search("".join(words)):
        return None
    i, word = next((i, w) for i, w in enumerate(words) if UNSTORABLE.search(w))
    char = UNSTORABLE.search(word).group()
    return (f"word {i} is {word!r}, which holds the character {char!r} (U+{ord(char):04X}) that "
            "a saved word list would alter (numpy drops a trailing NUL, line-based files split at "
            "line breaks, UTF-8 cannot encode a lone surrogate): clean the words first")


def model_words(model) -> np.ndarray:
    """The words of a model's columns: its ``vocab``, or for a model without one its column
    numbers ``"0"``, ``"1"``, ... (which only documents stated to be in the model's columns
    match: token ids, or counts with ``columns="model"``)."""
    if model.vocab is not None:
        return np.asarray(model.vocab, dtype=str)
    return np.array([str(v) for v in range(model.n_types)])


def _mapping_words(mapping: Mapping, what: str) -> list:
    """Words in column order from a word -> column or a column -> word mapping."""
    pairs = list(mapping.items())
    if all(_is_index(v) for _, v in pairs):
        by_column = {int(v): k for k, v in pairs}
        if len(by_column) != len(pairs):
            raise VocabularyError(f"{what}: two words map to the same column")
    elif all(_is_index(k) for k, _ in pairs):
        by_column = {int(k): v for k, v in pairs}
    else:
        raise VocabularyError(
            f"{what}: a mapping must be word -> column index or column index -> word")
    if sorted(by_column) != list(range(len(by_column))):
        raise VocabularyError(
            f"{what}: the mapping's column indices are not 0..{len(by_column) - 1}")
    return [by_column[i] for i in range(len(by_column))]


def _is_index(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_oov(oov: str) -> str:
    if oov not in OOV_POLICIES:
        raise ValueError(f"oov must be one of {OOV_POLICIES}, got {oov!r}")
    return oov


def map_tokens(token_lists, words: np.ndarray, oov: str = "drop", names=None):
    """Token-id arrays for lists of word strings; out-of-vocabulary words dropped or refused.

    Returns ``(docs, dropped, dropped_words)``: a list of int64 arrays in the original token
    order, the number of dropped tokens per document (int64, D) and a ``Counter`` of the dropped
    words.  Raises ``VocabularyError`` with ``oov="error"`` at the first unknown word, naming
    its document by its name in ``names`` (a sequence of str) if given, else by position.
    """
    check_oov(oov)
    index = {w: i for i, w in enumerate(words.tolist())}
    docs, dropped, missing = [], [], Counter()
    for d, tokens in enumerate(token_lists):
        if isinstance(tokens, (str, bytes)):
            raise ValueError(
                f"document {d} is a string, not a list of tokens: split it first, or build the "
                "corpus with Corpus.from_texts(texts, analyzer, vocabulary)"
            )
        ids, lost = [], 0
        for w in tokens:
            if not isinstance(w, (str, np.str_)):
                raise ValueError(
                    f"document {d} holds {w!r} ({type(w).__name__}); tokens must be word strings"
                )
            i = index.get(w)
            if i is None:
                if oov == "error":
                    document = document_label(d, None if names is None else names[d])
                    raise naming(
                        VocabularyError, f"{document} has the word {w!r}, which is not in the "
                        f"vocabulary ({len(index)} words); pass ", Argument("oov", "drop"),
                        " to leave such words out")
                lost += 1
                missing[w] += 1
            else:
                ids.append(i)
        docs.append(np.asarray(ids, dtype=np.int64))
        dropped.append(lost)
    return docs, np.asarray(dropped, dtype=np.int64), missing


def remap_ids(tokens: np.ndarray, source: np.ndarray, target: np.ndarray, oov: str = "drop"):
    """Re-index ``tokens`` (ids into the word list ``source``) as ids into ``target``.

    Returns ``(new_ids, keep)``: the target ids of the kept tokens and a boolean mask of the
    tokens kept.  Raises ``VocabularyError`` with ``oov="error"`` if any token's word is absent.
    """
    check_oov(oov)
    index = {w: i for i, w in enumerate(target.tolist())}
    mapping = np.fromiter((index.get(w, -1) for w in source.tolist()), dtype=np.int64,
                          count=source.shape[0])
    new = mapping[tokens] if tokens.size else np.zeros(0, dtype=np.int64)
    keep = new >= 0
    used_missing = np.unique(tokens[~keep]) if tokens.size else np.zeros(0, dtype=np.int64)
    missing = source[used_missing]
    if missing.size and oov == "error":
        raise naming(
            VocabularyError, f"{missing.size} word(s) of the documents are not in the model's "
            f"vocabulary (e.g. {str(missing[0])!r}); pass ", Argument("oov", "drop"),
            " to leave them out")
    return new[keep], keep


def reorder_columns(model, words):
    """``model`` with its ``phi`` columns (and ``vocab``) permuted into the order of ``words``.

    ``model``: an ``LDAModel`` or ``GaPModel`` with a ``vocab``; ``words``: a word list or
    anything ``vocabulary_words`` accepts, holding exactly the model's words.  Raises
    ``VocabularyError`` if the word sets differ (probabilities over different vocabularies are
    not comparable).
    """
    target = vocabulary_words(words)
    source = vocabulary_words(model, what="the model's vocabulary")
    if np.array_equal(source, target):
        return model
    index = {w: i for i, w in enumerate(source.tolist())}
    order = np.fromiter((index.get(w, -1) for w in target.tolist()), dtype=np.int64,
                        count=target.shape[0])
    if target.shape != source.shape or np.any(order < 0):
        only_model = sorted(set(source.tolist()) - set(target.tolist()))[:3]
        only_target = sorted(set(target.tolist()) - set(source.tolist()))[:3]
        raise VocabularyError(
            f"the vocabularies differ ({source.shape[0]} and {target.shape[0]} words; only in the "
            f"model: {only_model}, only in the other: {only_target}); models over different "
            "words cannot be compared on the same documents"
        )
    return dataclasses.replace(model, phi=model.phi[:, order], vocab=target, meta=dict(model.meta))
