"""Each library's own number for a model and documents, computed the way the library does.

    from topiceval.adapters import own_number
    own = own_number(sk_lda, test_word_lists, vocabulary=vectorizer)
    own.kind, own.nats_per_token, own.tokens, own.split, own.api, own.value

The number a user already trusts is rarely what its name says.  :func:`own_number` computes it
for one model (the library's own object) and documents (lists of word strings, or a
``Corpus``), and says what it is: its ``kind``, natural logs summed over exactly ``tokens``
tokens, on the given documents (``split="held-out"``) or on the model's training documents
(``split="training"``: the library has no number for new documents).  ``topiceval.evaluate`` on
the same documents gives the honest held-out log-likelihood to set beside it.

================  ==================================  =====================  ==============
library           the number (API)                     kind                   split
================  ==================================  =====================  ==============
scikit-learn      ``perplexity(X)`` =                  variational bound      held-out
                  exp(-``score(X)`` / N)
gensim            ``log_perplexity(bow)``: the bound   variational bound      held-out
                  per token, in nats; gensim *logs*
                  2^-x as "perplexity"
tomotopy          ``infer(docs)``'s log-likelihoods,   one-sample joint       held-out
                  summed; per token over the words
                  the model uses (not ``len(doc.words)``)
lda               ``loglikelihood()``                  training joint         training
MALLET            ``evaluate-topics`` (left-to-right,  left-to-right as       held-out
                  10 particles): topiceval's           MALLET
                  ``lr_wallach``
topiceval gibbs   plug-in log P(w | theta~, Phi-hat),  plug-in                held-out
                  theta~ by query-sampling fold-in
topiceval vem     the variational fold-in's ELBO       variational bound      held-out
================  ==================================  =====================  ==============

Traps the table avoids: gensim's logged perplexity is 2 to the minus a bound in nats (neither
base e nor a likelihood); tomotopy's ``doc.words`` keeps the words its ``min_cf`` / ``min_df``
/ ``rm_top`` removed (ids >= ``num_vocabs``, topic -1) although ``infer`` scores only the others,
so dividing by ``len(doc.words)`` reads better than the truth; scikit-learn's ``score`` adds the
topics' KL term, unscaled, to the documents' bound; ``lda``'s and tomotopy's ``ll_per_word``
are joints log P(w, z) of the training state, not of new documents.  The numbers are checked
against each library in ``tests/test_own_numbers.py``; ``benchmarks/peer_numbers.py`` takes them
apart further on AP.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from topiceval.adapters._common import require
from topiceval.corpus import Corpus
from topiceval.models import LDAModel
from topiceval.seeds import legacy_state
from topiceval.vocabulary import vocabulary_words

if TYPE_CHECKING:
    from topiceval._types import VocabularyLike, WordDocuments

__all__ = ["KINDS", "MALLET_PARTICLES", "OwnNumber", "own_number"]

KINDS = {
    "variational bound": "a lower bound on log P(w) (the ELBO of a variational posterior): "
                         "reads lower than the true likelihood, by an amount that changes "
                         "with the number of topics",
    "plug-in": "log P(w | theta-hat, phi) with theta-hat fitted to the same words: reads higher "
               "than the true likelihood (the words are used twice)",
    "one-sample joint": "log P(w, z) at one sampled topic assignment z: neither a bound nor an "
                        "estimate of log P(w)",
    "training joint": "log P(w, z) of the training documents at the sampler's last state: not "
                      "a held-out number at all",
    "left-to-right as MALLET": "MALLET's left-to-right estimate (10 particles, Wallach's "
                               "Algorithm 3 as printed): close to log P(w), biased upward",
}
MALLET_PARTICLES = 10  # MALLET evaluate-topics --num-particles default
FOLD_IN_SWEEPS = 100  # query-sampling sweeps of the Gibbs plug-in (topiceval's fold_in default)


@dataclass(frozen=True)
class OwnNumber:
    """A library's own number for a model and documents, with what it is.

    Attributes
    ----------
    library : str
        ``"scikit-learn"``, ``"gensim"``, ``"tomotopy"``, ``"lda"``, ``"MALLET"`` or
        ``"topiceval"``.
    api : str
        The call that gives the number, as a user writes it.
    value : float
        The number as the library reports it (a perplexity, a per-token bound, a sum).
    value_name : str
        What ``value`` is, in the library's terms.
    kind : str
        One of :data:`KINDS`.
    total : float
        The number as a natural-log total over ``tokens`` tokens (nats).
    stderr : float
        Monte Carlo standard error of ``total`` (NaN when the number is deterministic or comes
        from one run).
    tokens, documents : int
        The tokens the number covers, and the documents holding them.
    split : {"held-out", "training"}
        Whether the number is about the given documents or about the model's training documents.
    which_tokens : str
        Exactly which tokens are counted.
    note : str
        What a user should know when comparing it (traps included).
    """

    library: str
    api: str
    value: float
    value_name: str
    kind: str
    total: float
    stderr: float
    tokens: int
    documents: int
    split: str
    which_tokens: str
    note: str = ""

    @property
    def nats_per_token(self) -> float:
        """``total / tokens`` (natural logs)."""
        return self.total / self.tokens if self.tokens else float("nan")

    @property
    def perplexity(self) -> float:
        """exp(-``nats_per_token``): the number as a per-token perplexity."""
        return float(np.exp(-self.nats_per_token))

    def as_row(self) -> dict:
        """The number as one flat table row (``own_*`` columns of a study's candidates)."""
        return {"own_library": self.library, "own_api": self.api, "own_value": self.value,
                "own_value_name": self.value_name, "own_kind": self.kind,
                "own_total": self.total, "own_stderr": self.stderr, "own_tokens": self.tokens,
                "own_documents": self.documents, "own_split": self.split,
                "own_nats_per_token": self.nats_per_token, "own_perplexity": self.perplexity,
                "own_which_tokens": self.which_tokens, "own_note": self.note}


def own_number(model: Any, documents: Corpus | WordDocuments, *,
               vocabulary: VocabularyLike | None = None, seed: int = 0,
               **settings: Any) -> OwnNumber:
    """The library's own number for ``model`` on ``documents``, labelled with what it is.

    Parameters
    ----------
    model
        The library's own model object: ``sklearn.decomposition.LatentDirichletAllocation``,
        ``gensim.models.LdaModel`` / ``LdaMulticore``, ``tomotopy.LDAModel``, ``lda.LDA``, a
        MALLET state file (path) or a model imported from one by ``from_mallet``, or
        topiceval's own ``GibbsResult`` (``fit_gibbs``) or ``VemResult`` (``fit_vem``).
    documents : Corpus or sequence of sequences of str
        The documents (held-out, as a rule) as word strings; a ``Corpus`` must have a
        vocabulary.  Words the model does not know are left out and not counted (as every
        library does).
    vocabulary : sequence of str, vectorizer or mapping, optional
        The words of the columns, for scikit-learn and ``lda`` (whose models do not hold them):
        what ``from_sklearn`` / ``from_lda`` take.
    seed : int, default 0
        Seed of the library's randomness where it has any (gensim's initial gamma, from
        ``topiceval.seeds.legacy_state(seed, "own_number", "gensim")``; topiceval's fold-in and
        MALLET's left-to-right; tomotopy's ``infer`` always uses its fixed default generator).
    **settings
        ``iterations`` (tomotopy's ``infer``, default 100), ``particles`` (MALLET, default 10),
        ``sweeps`` (topiceval Gibbs fold-in, default 100), ``threads`` (topiceval, default 1).

    Returns
    -------
    OwnNumber

    Raises
    ------
    ValueError
        For a model of no known library, documents that are not word strings, a missing
        vocabulary, or an unknown setting.
    """
    words = _word_lists(documents)
    handler = _handler(model)
    allowed = _SETTINGS[handler.__name__]
    if unknown := sorted(set(settings) - set(allowed)):
        raise ValueError(f"unknown setting(s) {unknown} for this library's own number; "
                         f"allowed: {sorted(allowed) or 'none'}")
    return handler(model, words, vocabulary=vocabulary, seed=seed, **settings)


# ------------------------------------------------------------------------------- dispatch
def _handler(model):
    """The function computing ``model``'s own number, by the model's type (no import of a
    library that the model does not come from)."""
    if isinstance(model, str | os.PathLike):
        return _mallet
    kind = type(model)
    where = f"{kind.__module__}.{kind.__name__}"
    if isinstance(model, LDAModel):
        if model.meta.get("importer") == "from_mallet":
            return _mallet
        raise ValueError(
            "an imported LDAModel has lost its library's own number: pass the library's own "
            "model object (or, for MALLET, the state file)")
    table = {
        "sklearn.decomposition._lda.LatentDirichletAllocation": _sklearn,
        "gensim.models.ldamodel.LdaModel": _gensim,
        "gensim.models.ldamulticore.LdaMulticore": _gensim,
        "lda.lda.LDA": _lda,
        "topiceval.training.lda.gibbs.GibbsResult": _gibbs,
        "topiceval.training.lda.vem.VemResult": _vem,
    }
    if where in table:
        return table[where]
    if kind.__module__.startswith("tomotopy") and kind.__name__ == "LDAModel":
        return _tomotopy
    raise ValueError(
        f"no own number known for a {where}: expected a scikit-learn "
        "LatentDirichletAllocation, a gensim LdaModel, a tomotopy LDAModel, an lda.LDA, a "
        "MALLET state file, or topiceval's GibbsResult / VemResult")


def _word_lists(documents) -> list[list[str]]:
    """The documents as lists of word strings."""
    if isinstance(documents, Corpus):
        if documents.vocab is None:
            raise ValueError("documents: a Corpus without a vocabulary has no words to score")
        return [documents.vocab[d].tolist() for d in documents]
    if isinstance(documents, str | bytes) or not hasattr(documents, "__iter__"):
        raise ValueError("documents must be a Corpus or a sequence of documents, each a "
                         "sequence of word strings")
    out = []
    for d, doc in enumerate(documents):
        doc = doc.split() if isinstance(doc, str) else list(doc)
        if not all(isinstance(w, str | np.str_) for w in doc):
            raise ValueError(f"documents[{d}] holds something other than word strings; give "
                             "the documents as words")
        out.append([str(w) for w in doc])
    return out


def _counts(words: list[list[str]], vocab: np.ndarray) -> sp.csr_matrix:
    """The (D, V) count matrix of ``words`` over ``vocab`` (unknown words left out)."""
    index = {w: i for i, w in enumerate(vocab.tolist())}
    rows, cols = [], []
    for d, doc in enumerate(words):
        ids = [index[w] for w in doc if w in index]
        rows += [d] * len(ids)
        cols += ids
    data = np.ones(len(rows), dtype=np.int64)
    x = sp.csr_matrix((data, (rows, cols)), shape=(len(words), vocab.shape[0]))
    x.sum_duplicates()
    return x


def _which(kept: int, total: int, what: str) -> str:
    return (f"the documents' tokens whose word {what} ({kept:,} of {total:,}; the others are "
            "left out)")


# ------------------------------------------------------------------------------- libraries
def _sklearn(model, words, *, vocabulary, seed):
    validation = require("sklearn.utils.validation", "scikit-learn", "own_number")
    validation.check_is_fitted(model, "components_")
    if vocabulary is None:
        raise ValueError("a scikit-learn model does not hold its words: pass vocabulary= (the "
                         "fitted vectorizer or the word list of its columns)")
    vocab = vocabulary_words(vocabulary, model.components_.shape[1])
    x = _counts(words, vocab)
    n = int(x.sum())
    score = float(model.score(x))
    value = float(np.exp(-score / n)) if n else float("nan")
    return OwnNumber(
        library="scikit-learn", api="perplexity(X)", value=value,
        value_name="perplexity, exp(-score(X) / N)", kind="variational bound", total=score,
        stderr=float("nan"), tokens=n, documents=int(np.count_nonzero(x.getnnz(axis=1))),
        split="held-out", which_tokens=_which(n, sum(map(len, words)), "is a column of X"),
        note="score(X) is the documents' ELBO plus the topics' term -KL(q(beta) || p(beta)) of "
             "the whole model, unscaled (sklearn/decomposition/_lda.py, _approx_bound)")


def _gensim(model, words, *, vocabulary, seed):
    id2word = model.id2word
    index = ({w: i for i, w in enumerate(vocabulary_words(vocabulary, model.num_terms))}
             if vocabulary is not None else {id2word[i]: i for i in range(model.num_terms)})
    bow = []
    for doc in words:
        ids = np.array([index[w] for w in doc if w in index], dtype=np.int64)
        uniq, cnt = np.unique(ids, return_counts=True)
        bow.append(list(zip(uniq.tolist(), cnt.tolist(), strict=True)))
    n = int(sum(c for d in bow for _, c in d))
    kept = model.random_state
    model.random_state = legacy_state(seed, "own_number", "gensim")  # a random initial gamma
    try:
        per_word = float(model.log_perplexity(bow))
    finally:
        model.random_state = kept
    return OwnNumber(
        library="gensim", api="log_perplexity(bow)", value=per_word,
        value_name="bound per token (nats); gensim logs 2^-x as 'perplexity'",
        kind="variational bound", total=per_word * n, stderr=float("nan"), tokens=n,
        documents=sum(1 for d in bow if d), split="held-out",
        which_tokens=_which(n, sum(map(len, words)), "is in id2word"),
        note=f"gensim logs 'perplexity estimate' 2^-x = {np.exp2(-per_word):,.1f}, a base-2 "
             f"power of a natural-log bound; exp(-x) = {np.exp(-per_word):,.1f}. The bound "
             "includes the topics' KL term (gensim/models/ldamodel.py, bound)")


def _tomotopy(model, words, *, vocabulary, seed, iterations: int = 100):
    used = int(model.num_vocabs)
    docs = [model.make_doc(doc) for doc in words]
    counted = [int(np.count_nonzero(np.asarray(d.words) < used)) for d in docs]
    listed = sum(len(d.words) for d in docs)
    scored = [d for d, n in zip(docs, counted, strict=True) if n]
    _, lls = model.infer(scored, iterations=int(iterations), workers=1) if scored else ([], [])
    total = float(np.sum(np.asarray(lls, dtype=np.float64)))
    n = sum(counted)
    naive = total / listed if listed else float("nan")
    return OwnNumber(
        library="tomotopy", api=f"infer(docs, iterations={int(iterations)})", value=total,
        value_name="sum of the documents' log-likelihoods returned by infer",
        kind="one-sample joint", total=total, stderr=float("nan"), tokens=n,
        documents=len(scored), split="held-out",
        which_tokens=_which(n, sum(map(len, words)), "the model uses (id < num_vocabs)"),
        note=f"per document log P(w_d, z_d) at infer's last Gibbs sample. doc.words also keeps "
             f"the words removed by min_cf / min_df / rm_top ({listed - n:,} here): dividing "
             f"by len(doc.words) would give {naive:.4f} nats per token instead of "
             f"{total / n if n else float('nan'):.4f}")


def _lda(model, words, *, vocabulary, seed):
    if not hasattr(model, "nzw_"):
        raise ValueError("the lda.LDA model is not fitted (or its counts were deleted)")
    ll = float(model.loglikelihood())
    n = int(np.asarray(model.nzw_).sum())
    return OwnNumber(
        library="lda", api="loglikelihood()", value=ll,
        value_name="log P(w, z) of the training documents", kind="training joint", total=ll,
        stderr=float("nan"), tokens=n, documents=int(np.asarray(model.ndz_).shape[0]),
        split="training", which_tokens=f"every training token ({n:,})",
        note="lda has no number for new documents: loglikelihood() is the collapsed joint of "
             "the final Gibbs state, which rises with the number of topics")


def _mallet(model, words, *, vocabulary, seed, particles: int = MALLET_PARTICLES,
            threads: int | None = 1):
    from topiceval.adapters.mallet import from_mallet
    from topiceval.evaluation import evaluate

    if isinstance(model, str | os.PathLike):
        model = from_mallet(Path(model))
    res = evaluate(model, words, "lr_wallach", runs=1, seed=seed, empty="skip",
                   threads=threads, work_limit=None, particles=int(particles))
    total = sum(map(len, words))
    return OwnNumber(
        library="MALLET", api=f"evaluate-topics --num-particles {int(particles)}",
        value=res.total, value_name="sum of the documents' log-probabilities (--output-doc-probs)",
        kind="left-to-right as MALLET", total=res.total, stderr=float("nan"),
        tokens=res.n_tokens, documents=int(res.scored.sum()), split="held-out",
        which_tokens=_which(res.n_tokens, total, "is in MALLET's alphabet"),
        note="computed by topiceval's lr_wallach with MALLET's settings (MALLET does not run "
             "here); it equals MALLET's evaluator within Monte Carlo error "
             "(benchmarks/peer_numbers.py, the one-token documents exactly)")


def _gibbs(model, words, *, vocabulary, seed, sweeps: int = FOLD_IN_SWEEPS,
           threads: int | None = 1):
    from topiceval.training.lda import fold_in, plugin_log_likelihood

    docs, n, total = _own_corpus(model.model, words)
    logp = np.zeros(len(docs))
    if len(docs):
        folded = fold_in(model, docs, method="query", sweeps=int(sweeps), seed=seed,
                         threads=threads)
        logp = plugin_log_likelihood(docs, folded.theta, model.model.phi)
    return OwnNumber(
        library="topiceval", api=f"fold_in(fit, docs, method='query', sweeps={int(sweeps)}) "
                                 "then plugin_log_likelihood",
        value=float(logp.sum()), value_name="sum of log P(w_d | theta~_d, Phi-hat)",
        kind="plug-in", total=float(logp.sum()), stderr=float("nan"), tokens=n,
        documents=len(docs), split="held-out",
        which_tokens=_which(n, total, "is in the model's vocabulary"),
        note="what topiceval's collapsed Gibbs reports for new documents (001-F4's P2); its "
             "training trace is the joint log P(w, z), which is not comparable across T")


def _vem(model, words, *, vocabulary, seed, threads: int | None = 1):
    from topiceval.training.lda import vem_fold_in

    docs, n, total = _own_corpus(model.model, words)
    bound = vem_fold_in(model.model, docs, threads=threads).doc_elbo if len(docs) else []
    return OwnNumber(
        library="topiceval", api="vem_fold_in(model, docs).doc_elbo",
        value=float(np.sum(bound)), value_name="sum of the documents' ELBO (V1)",
        kind="variational bound", total=float(np.sum(bound)), stderr=float("nan"), tokens=n,
        documents=len(docs), split="held-out",
        which_tokens=_which(n, total, "is in the model's vocabulary"),
        note="what topiceval's variational EM reports for new documents (001-F4's P1-bound)")


def _own_corpus(model: LDAModel, words) -> tuple[Corpus, int, int]:
    """The non-empty documents as a Corpus over ``model``'s words, their tokens, all tokens."""
    corpus = Corpus.from_tokens(words, model, oov="drop")
    keep = np.flatnonzero(corpus.lengths > 0)
    return corpus.subset(keep), int(corpus.n_tokens), sum(map(len, words))


_SETTINGS = {"_sklearn": (), "_gensim": (), "_tomotopy": ("iterations",), "_lda": (),
             "_mallet": ("particles", "threads"), "_gibbs": ("sweeps", "threads"),
             "_vem": ("threads",)}
