"""Type aliases of the public signatures (imported for annotations only).

They name what the functions accept; the functions themselves validate every input at run
time and raise ``ValueError`` naming the problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

#: One document as token ids (column indices of the model's topics), in reading order.
TokenIds: TypeAlias = Sequence[int] | npt.NDArray[np.integer]

#: Documents as token ids: a ``topiceval.corpus.Corpus`` or a sequence of token-id arrays.
TokenDocuments: TypeAlias = Sequence[TokenIds]

#: Documents as words: one sequence of word strings per document.
WordDocuments: TypeAlias = Sequence[Sequence[str]]

#: A (D, V) document-word count matrix, dense or scipy.sparse, of non-negative integers.
CountMatrix: TypeAlias = npt.ArrayLike | sp.spmatrix | sp.sparray

#: Anything ``topiceval.vocabulary.vocabulary_words`` reads a word list from: a sequence of words
#: in column order, a fitted scikit-learn vectorizer, a word <-> column mapping, or an object with
#: a ``vocab`` attribute (a Corpus or a model).
VocabularyLike: TypeAlias = Sequence[str] | Mapping[Any, Any] | Any

#: The most work one call (all its documents and runs) may take: a number of work units,
#: ``None`` (no limit) or ``"default"`` (``topiceval.limits.DEFAULT_WORK_LIMIT``).
WorkLimit: TypeAlias = float | Literal["default"] | None

#: An LDA model given as arrays: (phi (T, V), alpha_m (T,) or (D, T)), or an ``LDAModel``.
LDAParams: TypeAlias = tuple[npt.ArrayLike, npt.ArrayLike] | Any

__all__ = ["CountMatrix", "LDAParams", "TokenDocuments", "TokenIds", "VocabularyLike",
           "WordDocuments", "WorkLimit"]
