"""gensim's online variational Bayes ``LdaModel`` and ``LdaMulticore``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from topiceval.adapters._common import build_model, normalise_rows, require
from topiceval.models import LDAModel
from topiceval.vocabulary import vocabulary_words

if TYPE_CHECKING:
    from topiceval._types import VocabularyLike


def from_gensim(model: Any, vocabulary: VocabularyLike | None = None) -> LDAModel:
    """Import a trained ``gensim.models.LdaModel`` or ``LdaMulticore``.

    Parameters
    ----------
    model : gensim.models.LdaModel or gensim.models.LdaMulticore
        The trained model.  ``model.state.get_lambda()`` (T, V) is the variational Dirichlet
        parameter of every topic (eta + expected counts), held in ``model.dtype`` (float32 by
        default); ``model.alpha`` (T,) and ``model.eta`` are its priors.
    vocabulary : sequence of str, vectorizer or mapping, optional
        Only needed when the model was trained without ``id2word`` (gensim then names words by
        their ids): a sequence of words in column order, a column -> word mapping (a gensim
        ``Dictionary``) or a fitted vectorizer.  When the model has a real ``id2word`` and a
        vocabulary is given as well, the two must agree word for word.

    Returns
    -------
    LDAModel
        ``phi[t, v]`` = lambda[t, v] / sum_v lambda[t, v], with lambda cast to float64 before the
        division (gensim's own ``get_topics()`` divides in float32); ``alpha_m`` =
        ``model.alpha`` (possibly asymmetric); ``beta`` = eta when eta is one number for every
        topic and word, otherwise None with eta in ``meta["eta"]``.

    Raises
    ------
    ValueError
        For a model of another class or never trained, an ``id2word`` that no longer names the
        model's columns, or a missing or mismatching vocabulary.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from topiceval.adapters import from_gensim
    >>> from gensim.models import LdaModel
    >>> docs = [["cat", "sat", "mat"], ["dog", "sat", "log"], ["cat", "dog"]]
    >>> words = Dictionary(docs)
    >>> lda = LdaModel([words.doc2bow(d) for d in docs], id2word=words, num_topics=2,
    ...                random_state=0)
    >>> model = from_gensim(lda)
    >>> model.n_topics, model.vocab.tolist()
    (2, ['cat', 'mat', 'sat', 'dog', 'log'])
    """
    ldamodel = require("gensim.models.ldamodel", "gensim", "from_gensim")
    ldamulticore = require("gensim.models.ldamulticore", "gensim", "from_gensim")
    utils = require("gensim.utils", "gensim", "from_gensim")
    if type(model) not in (ldamodel.LdaModel, ldamulticore.LdaMulticore):
        raise ValueError(
            "from_gensim expects a gensim.models.LdaModel or LdaMulticore, got "
            f"{type(model).__module__}.{type(model).__name__}"
        )
    if getattr(model, "num_updates", None) == 0:
        raise ValueError("the gensim model has not been trained on any document")
    lam = np.asarray(model.state.get_lambda(), dtype=np.float64)
    n_topics, n_words = lam.shape
    vocab = _words(model.id2word, n_words, vocabulary, utils.FakeDict)
    eta = np.asarray(model.eta, dtype=np.float64)
    symmetric = bool(np.all(eta == eta.flat[0]))
    extra = {"dtype": str(np.dtype(model.dtype)),
             "eta": float(eta.flat[0]) if symmetric else eta.tolist()}
    state_eta = np.asarray(model.state.eta, dtype=np.float64)
    if not np.array_equal(np.broadcast_to(state_eta, eta.shape), eta):
        # eta="auto": gensim updates model.eta but lambda keeps the eta it started with
        extra["lambda_eta"] = state_eta.tolist()
    return build_model(
        importer="from_gensim",
        library="gensim",
        distribution="gensim",
        phi=normalise_rows(lam, "state.get_lambda()"),
        alpha_m=np.asarray(model.alpha, dtype=np.float64),
        beta=float(eta.flat[0]) if symmetric else None,
        vocab=vocab,
        how="state.get_lambda() cast to float64, normalised by rows",
        **extra,
    )


def _words(id2word, n_words: int, vocabulary, fake_dict: type) -> np.ndarray:
    """The model's words from ``id2word`` (ids 0..V-1), checked against ``vocabulary``."""
    own = None
    if id2word is not None and not isinstance(id2word, fake_dict):
        if len(id2word) != n_words:
            raise ValueError(
                f"model.id2word has {len(id2word)} entries but the model has {n_words} word "
                "columns: the dictionary was changed after training (e.g. filter_extremes), so "
                "its ids no longer name the model's columns"
            )
        try:
            own = vocabulary_words([id2word[i] for i in range(n_words)], n_words, "model.id2word")
        except KeyError as exc:
            raise ValueError(f"model.id2word has no word for id {exc}") from None
    if vocabulary is None:
        if own is None:
            raise ValueError(
                "the gensim model has no id2word (gensim names its words by their ids): pass "
                "the word list as vocabulary"
            )
        return own
    words = vocabulary_words(vocabulary, n_words)
    if own is not None and not np.array_equal(own, words):
        col = int(np.flatnonzero(own != words)[0])
        raise ValueError(
            f"vocabulary disagrees with model.id2word at column {col} ({words[col]!r} against "
            f"{own[col]!r})"
        )
    return words
