"""The ``lda`` package's collapsed Gibbs sampler (``lda.LDA``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from topiceval.adapters._common import (
    build_model,
    normalise_rows,
    require,
    vectorizer_tokenizer,
)
from topiceval.models import LDAModel
from topiceval.vocabulary import vocabulary_words

if TYPE_CHECKING:
    from topiceval._types import VocabularyLike


def from_lda(model: Any, vocabulary: VocabularyLike) -> LDAModel:
    """Import a fitted ``lda.LDA`` model.

    Parameters
    ----------
    model : lda.LDA
        The fitted model: ``nzw_`` (T, V) topic-word counts of the final Gibbs state,
        ``topic_word_`` (T, V), and its symmetric priors ``alpha`` (pseudo-count per topic) and
        ``eta`` (pseudo-count per word).
    vocabulary : sequence of str, vectorizer or mapping
        The word of every column of the document-term matrix it was fitted on: a fitted
        vectorizer, a sequence of words in column order or a word -> column mapping.  Given
        the vectorizer, the model also records how it split text into words
        (``meta["tokenizer"]``, ``topiceval.tokenizer``).

    Returns
    -------
    LDAModel
        ``phi[t, v]`` = (nzw_[t, v] + eta) / (sum_v nzw_[t, v] + V eta) in float64 (the
        package's own formula for ``topic_word_``, recomputed from the counts; ``topic_word_``
        itself when the counts were deleted); ``alpha_m`` = ``alpha`` for every topic;
        ``beta`` = ``eta``.

    Raises
    ------
    ValueError
        For a model of another class or not fitted, or a vocabulary that does not match the
        columns.

    Examples
    --------
    >>> import lda
    >>> from topiceval.adapters import from_lda
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> texts = ["The cat sat on the mat.", "The dog sat on the log.", "Cats and dogs!"]
    >>> vectorizer = CountVectorizer()
    >>> fitted = lda.LDA(n_topics=2, n_iter=20, random_state=1)
    >>> fitted = fitted.fit(vectorizer.fit_transform(texts))
    >>> model = from_lda(fitted, vectorizer)
    >>> model.n_topics, model.n_types
    (2, 10)
    >>> print(model.meta["tokenizer"]["token_pattern"])
    (?u)\\b\\w\\w+\\b
    """
    lda = require("lda", "lda", "from_lda")
    if not isinstance(model, lda.LDA):
        raise ValueError(
            f"from_lda expects a fitted lda.LDA, got {type(model).__module__}."
            f"{type(model).__name__}"
        )
    if not hasattr(model, "topic_word_"):
        raise ValueError("the lda.LDA model is not fitted: call fit(X) first")
    eta = float(model.eta)
    counts = getattr(model, "nzw_", None)
    if counts is not None:
        phi = normalise_rows(np.asarray(counts, dtype=np.float64) + eta, "nzw_ + eta")
        how = "(nzw_ + eta) normalised by rows in float64"
    else:
        phi = normalise_rows(model.topic_word_, "topic_word_")
        how = "topic_word_ (float64), renormalised"
    n_topics, n_words = phi.shape
    return build_model(
        importer="from_lda",
        library="lda",
        distribution="lda",
        phi=phi,
        alpha_m=np.full(n_topics, float(model.alpha)),
        beta=eta,
        vocab=vocabulary_words(vocabulary, n_words),
        how=how,
        n_iter=int(model.n_iter),
        tokenizer=vectorizer_tokenizer(vocabulary),
    )
