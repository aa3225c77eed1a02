"""scikit-learn's ``LatentDirichletAllocation`` (online or batch variational Bayes)."""

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


def from_sklearn(estimator: Any, vocabulary: VocabularyLike) -> LDAModel:
    """Import a fitted ``sklearn.decomposition.LatentDirichletAllocation``.

    Parameters
    ----------
    estimator : sklearn.decomposition.LatentDirichletAllocation
        The fitted estimator.  Its ``components_`` (T, V) is the variational Dirichlet
        parameter lambda of every topic; ``doc_topic_prior_`` and ``topic_word_prior_`` are its
        symmetric priors (pseudo-counts per topic and per word).
    vocabulary : sequence of str, vectorizer or mapping
        The word of every column of the document-term matrix it was fitted on: the fitted
        ``CountVectorizer`` / ``TfidfVectorizer`` (``get_feature_names_out()``), a sequence of
        words in column order, or a word -> column mapping (a vectorizer's ``vocabulary_``).
        Given the vectorizer, the model also records how it split text into words
        (``meta["tokenizer"]``, ``topiceval.tokenizer``), which ``Corpus.from_texts`` and
        ``topiceval evaluate`` then use for held-out text.

    Returns
    -------
    LDAModel
        ``phi[t, v]`` = lambda[t, v] / sum_v lambda[t, v], the posterior mean of topic t,
        computed in float64 (also when ``components_`` is float32); ``alpha_m`` =
        ``doc_topic_prior_`` for every topic; ``beta`` = ``topic_word_prior_``.

    Raises
    ------
    ValueError
        For an estimator of another class or not fitted, or a vocabulary that does not match the
        columns (wrong length, duplicate or non-string words, unfitted vectorizer).

    Examples
    --------
    >>> from sklearn.decomposition import LatentDirichletAllocation
    >>> from topiceval.adapters import from_sklearn
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> texts = ["The cat sat on the mat.", "The dog sat on the log.", "Cats and dogs!"]
    >>> vectorizer = CountVectorizer()
    >>> lda = LatentDirichletAllocation(n_components=2, random_state=0)
    >>> lda = lda.fit(vectorizer.fit_transform(texts))
    >>> model = from_sklearn(lda, vectorizer)
    >>> model.n_topics, model.n_types, model.meta["tokenizer"]["lowercase"]
    (2, 10, True)
    """
    decomposition = require("sklearn.decomposition", "scikit-learn", "from_sklearn")
    validation = require("sklearn.utils.validation", "scikit-learn", "from_sklearn")
    if not isinstance(estimator, decomposition.LatentDirichletAllocation):
        raise ValueError(
            "from_sklearn expects a fitted sklearn.decomposition.LatentDirichletAllocation, got "
            f"{type(estimator).__module__}.{type(estimator).__name__}"
        )
    validation.check_is_fitted(estimator, "components_")
    components = np.asarray(estimator.components_)
    n_topics, n_words = components.shape
    vocab = vocabulary_words(vocabulary, n_words)
    return build_model(
        importer="from_sklearn",
        library="scikit-learn",
        distribution="scikit-learn",
        phi=normalise_rows(components.astype(np.float64), "components_"),
        alpha_m=np.full(n_topics, float(estimator.doc_topic_prior_)),
        beta=float(estimator.topic_word_prior_),
        vocab=vocab,
        how="components_ (variational lambda) normalised by rows in float64",
        components_dtype=str(components.dtype),
        learning_method=estimator.learning_method,
        n_iter=int(estimator.n_iter_),
        tokenizer=vectorizer_tokenizer(vocabulary),
    )
