"""What each peer library's own held-out number actually is, next to topiceval's on the same tokens.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/peer_numbers.py [--mirror ../shared/data]
        [--fresh] [--runs N]

One real corpus split: AP (Blei's lda-c AP, ``asis`` recipe, bag of words expanded in file order),
246 test documents drawn at random with split seed 0, the other 2,000 for training.  Every library
gets the same token lists (word strings).  One LDA model per library, T = 50, the same symmetric
priors everywhere (alpha = 0.1 per topic, eta = 0.01 per word; no hyperparameter optimisation),
fixed seeds and comparable effort:

* scikit-learn ``LatentDirichletAllocation``, batch variational Bayes, 100 EM iterations;
* gensim ``LdaModel``, online variational Bayes, 20 passes in chunks of 500, 100 inference
  iterations per document; and a control in one chunk of 2,000 (gensim's default chunksize,
  here the whole training set), because words absent from gensim's first chunk are never
  learned (``gensim_first_chunk_test`` shows why);
* tomotopy ``LDAModel``, collapsed Gibbs, 500 sweeps, one worker;
* the ``lda`` package's ``lda.LDA``, collapsed Gibbs, 500 sweeps.

For each it records the library's OWN number(s) (scikit-learn ``score``/``perplexity`` on the
test matrix; gensim ``log_perplexity``/``bound`` on the test bag of words; tomotopy
``ll_per_word`` and the log-likelihoods returned by ``infer`` on the test documents; ``lda``'s
``loglikelihood()``), converts them to nats per token, recomputes each from its pieces to show
what it is (and that the recomputation reproduces the library's value), and adds the plug-in
log P(w | theta-hat, phi) a user would compute from the library's own inferred topic
proportions of the same test document.  Each model is then imported with
``topiceval.adapters.from_*`` and the same test documents are evaluated with
``topiceval.evaluate``, with the tokens each side scores: the default method, settings and runs
(``topiceval.evaluation.DEFAULTS["lda"]`` and ``DEFAULT_RUNS["lda"]``, read at run time;
``--runs`` overrides the runs), reported as "topiceval"; ``method="lr_wallach"``, what MALLET's
evaluator computes; and ``method="lr"``, the unbiased left-to-right sampler and the former
default, both with 20 particles and 5 runs, to show how far ``lr`` at that effort reads below the
default on these ~190-token documents.

MALLET cannot run here: the real MALLET fixture in ``<mirror>/mallet-ap`` (state file and
MALLET's own evaluator output on 41 one-token documents, the last out of vocabulary) is compared
with ``topiceval.evaluate(..., method="exact")``.

Outputs (git-ignored): ``benchmarks/out/peer_numbers.md`` (tables and checks),
``benchmarks/out/peer_numbers.csv`` (one row per number).  Trained models are cached in
``benchmarks/out/peer_numbers_cache`` (``--fresh`` retrains).
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported

import argparse  # noqa: E402
import logging  # noqa: E402
import pickle  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.special import gammaln, logsumexp, psi  # noqa: E402

import topiceval  # noqa: E402
from topiceval.adapters import (  # noqa: E402
    from_gensim,
    from_lda,
    from_mallet,
    from_sklearn,
    from_tomotopy,
    own_number,
)
from topiceval.adapters._common import package_version  # noqa: E402
from topiceval.adapters.tomotopy_lda import import_tomotopy  # noqa: E402
from topiceval.data.prepare import build_corpus  # noqa: E402
from topiceval.evaluation import DEFAULT_RUNS, DEFAULTS  # noqa: E402
from topiceval.io import write_text_atomic  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
CACHE = OUT / "peer_numbers_cache"
T = 50
ALPHA = 0.1  # per topic, every library
ETA = 0.01  # per word, every library
SPLIT = {"split": "random", "test_size": 246, "seed": 0}
SEED = 0
SKLEARN_ITERS = 100
GENSIM = {"passes": 20, "chunksize": 500, "iterations": 100}
GIBBS_SWEEPS = 500
TOMOTOPY_INFER_ITERS = 100  # tomotopy's default
EVAL_SEED = 0
GENSIM_DECAY = 0.5  # gensim's default decay: rho_t = (offset + t)^-decay
DEFAULT_METHOD = DEFAULTS["lda"][0]  # topiceval's default, whatever it is when this runs
# lr (the former default) and lr_wallach (MALLET's estimator), both at the former default's effort
LR_SETTINGS = {"particles": 20}
LR_RUNS = 5

_T0 = time.time()


def log(msg: str) -> None:
    print(f"[{time.time() - _T0:7.1f}s] {msg}", flush=True)


def identity(doc):
    """CountVectorizer analyzer: the document is already a list of word strings."""
    return doc


# ------------------------------------------------------------------------------- corpus
def load_split(mirror: Path):
    c = build_corpus("ap", mirror, "asis", dict(SPLIT))
    train, test = c.select_split("train"), c.select_split("test")
    train_words = [c.vocab[d].tolist() for d in train]
    test_words = [c.vocab[d].tolist() for d in test]
    return c, train_words, test_words


# ------------------------------------------------------------------------------- helpers
def per_token(total: float, tokens: int) -> float:
    return float(total) / tokens


def own_row(own, what: str, check: str = "", shown: str | None = None) -> dict:
    """A row of the table from ``topiceval.adapters.own_number``'s result: the library's own
    number as it computes it, on the tokens it counts, with a recomputation in ``check``."""
    return dict(api=own.api, total=own.total, tokens=own.tokens, kind=own.kind,
                split="test" if own.split == "held-out" else "train",
                shown=shown if shown is not None else f"{own.value:,.4f}", what=what,
                check=check)


def evaluate(model, test_words, method=None, runs=None, **settings):
    """``topiceval.evaluate``; ``method=None`` and ``runs=None`` take the library's defaults."""
    start = time.process_time()
    res = topiceval.evaluate(model, test_words, method, runs=runs, seed=EVAL_SEED, **settings)
    cpu = time.process_time() - start
    return {
        "method": res.method,
        "settings": ", ".join(f"{k}={v}" for k, v in sorted(res.settings.items())),
        "runs": res.runs,
        "total": res.total,
        "total_se": res.total_stderr,
        "nats_per_token": res.nats_per_token,
        "se_per_token": res.total_stderr / res.n_tokens,
        "tokens": res.n_tokens,
        "dropped": int(res.dropped.sum()),
        "docs": int(res.scored.sum()),
        "cpu_s": cpu,
        "logp": res.logp,
        "tokens_per_doc": res.tokens,
    }


def dirichlet_kl_terms(prior, post, elog, size):
    """E_q[log p(x | prior)] - E_q[log q(x | post)] for rows of Dirichlet q(post), prior scalar or
    (K,) vector, as in scikit-learn's and gensim's bounds (size = number of components)."""
    prior = np.asarray(prior, dtype=np.float64)
    score = np.sum((prior - post) * elog)
    score += np.sum(gammaln(post) - gammaln(prior))
    prior_sum = prior * size if prior.ndim == 0 else prior.sum()
    score += np.sum(gammaln(prior_sum) - gammaln(post.sum(axis=1)))
    return float(score)


def dirichlet_expectation(x):
    return psi(x) - psi(x.sum(axis=1, keepdims=True))


def variational_pieces(counts_rows, gamma, lam, alpha, eta):
    """The three parts of the LDA variational bound (Blei et al. 2003; Hoffman et al. 2010):
    E_q[log p(w | theta, beta)] with the optimal q(z) given gamma, the document-level
    E[log p(theta | alpha) - log q(theta | gamma)] and the topic-level
    E[log p(beta | eta) - log q(beta | lambda)], in float64.  ``counts_rows``: per document
    (ids, counts)."""
    gamma = np.asarray(gamma, dtype=np.float64)
    lam = np.asarray(lam, dtype=np.float64)
    elog_theta = dirichlet_expectation(gamma)
    elog_beta = dirichlet_expectation(lam)
    words = 0.0
    for d, (ids, cnts) in enumerate(counts_rows):
        words += float(np.dot(cnts, logsumexp(elog_theta[d][:, None] + elog_beta[:, ids], axis=0)))
    doc = dirichlet_kl_terms(alpha, gamma, elog_theta, gamma.shape[1])
    topic = dirichlet_kl_terms(eta, lam, elog_beta, lam.shape[1])
    return words, doc, topic


def plug_in(counts_rows, theta, phi):
    """sum_d sum_w n_dw log sum_k theta_dk phi_kw: theta inferred from the same document."""
    theta = np.asarray(theta, dtype=np.float64)
    phi = np.asarray(phi, dtype=np.float64)
    total = 0.0
    for d, (ids, cnts) in enumerate(counts_rows):
        total += float(np.dot(cnts, np.log(theta[d] @ phi[:, ids])))
    return total


def csr_rows(x):
    return [(x.indices[x.indptr[d]:x.indptr[d + 1]], x.data[x.indptr[d]:x.indptr[d + 1]]
             .astype(np.float64)) for d in range(x.shape[0])]


def collapsed_joint(n_kv, docs_topics, alpha, eta):
    """log P(w, z) of a collapsed LDA state: topic-word Dirichlet-multinomial with symmetric eta
    over V = n_kv.shape[1] words, plus every document's topic Dirichlet-multinomial."""
    n_kv = np.asarray(n_kv, dtype=np.float64)
    K, V = n_kv.shape
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (K,))
    n_k = n_kv.sum(axis=1)
    nz = n_kv[n_kv > 0]
    rest = K * gammaln(V * eta) - gammaln(n_k + V * eta).sum() + (gammaln(nz + eta)
                                                                   - gammaln(eta)).sum()
    docs = 0.0
    for n_dk in docs_topics:
        docs += gammaln(alpha.sum()) - gammaln(n_dk.sum() + alpha.sum()) + (
            gammaln(n_dk + alpha) - gammaln(alpha)).sum()
    return float(rest), float(docs)


def cached(name: str, fresh: bool, train):
    path = CACHE / f"{name}.pkl"
    if path.is_file() and not fresh:
        log(f"{name}: loading cached model {path.name}")
        with open(path, "rb") as fh:
            return pickle.load(fh), 0.0
    start = time.process_time()
    model = train()
    cpu = time.process_time() - start
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        pickle.dump(model, fh)
    os.replace(tmp, path)
    return model, cpu


# ------------------------------------------------------------------------------- libraries
def run_sklearn(train_words, test_words, fresh):
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(analyzer=identity, lowercase=False)
    x_train = vec.fit_transform(train_words)
    x_test = vec.transform(test_words)
    n_test = int(x_test.sum())

    def train():
        log(f"scikit-learn: batch VB, {SKLEARN_ITERS} iterations ...")
        return LatentDirichletAllocation(
            n_components=T, doc_topic_prior=ALPHA, topic_word_prior=ETA, learning_method="batch",
            max_iter=SKLEARN_ITERS, random_state=SEED).fit(x_train)

    sk, train_cpu = cached("sklearn", fresh, train)
    log(f"scikit-learn: trained ({train_cpu:.0f} CPU s); own numbers on the test matrix")
    own_sk = own_number(sk, test_words, vocabulary=vec)
    score, perplexity = own_sk.total, own_sk.value
    gamma = sk.transform(x_test, normalize=False)  # the gamma score() infers (deterministic)
    rows = csr_rows(x_test)
    words, doc, topic = variational_pieces(rows, gamma, sk.components_, sk.doc_topic_prior_,
                                           sk.topic_word_prior_)
    recomputed = words + doc + topic
    theta = gamma / gamma.sum(axis=1, keepdims=True)
    phi = sk.components_ / sk.components_.sum(axis=1, keepdims=True)
    plug = plug_in(rows, theta, phi)
    model = from_sklearn(sk, vec)
    own = [
        own_row(own_sk, shown=f"{perplexity:,.0f} (score {score:,.1f})",
                what="exp(-score(X_test)/N); score = ELBO of the test documents + the "
                     "topic-level term -KL(q(beta)||p(beta)) of all 50 topics, unscaled "
                     "(sklearn/decomposition/_lda.py, _approx_bound)",
                check=f"recomputed from gamma, lambda: {recomputed:,.3f} (diff "
                      f"{recomputed - score:.2e}); document part {words + doc:,.1f} "
                      f"({(words + doc) / n_test:.4f}/token), topic term {topic:,.1f} "
                      f"({topic / n_test:.4f}/token); -log(perplexity) * N - score = "
                      f"{-np.log(perplexity) * own_sk.tokens - score:.2e}"),
        dict(api="(derived) score minus topic term", total=words + doc, tokens=n_test,
             what="the document-level ELBO alone: a lower bound on log P(w | lambda/sum, alpha)",
             kind="bound"),
        dict(api="(user) plug-in with transform(X_test)", total=plug, tokens=n_test,
             what="sum log theta-hat_d . phi_w, theta-hat inferred from the same test document",
             kind="plug-in"),
    ]
    extra = {"train_cpu_s": train_cpu, "lib_tokens": n_test, "V": x_train.shape[1],
             "settings": f"batch VB, max_iter={SKLEARN_ITERS}, doc_topic_prior={ALPHA}, "
                         f"topic_word_prior={ETA}, random_state={SEED}"}
    return "scikit-learn", model, own, extra


def run_gensim(train_words, test_words, fresh, chunksize=None):
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    dictionary = Dictionary(train_words)
    train_bow = [dictionary.doc2bow(d) for d in train_words]
    test_bow = [dictionary.doc2bow(d) for d in test_words]
    n_test = int(sum(c for d in test_bow for _, c in d))
    settings = {**GENSIM, **({} if chunksize is None else {"chunksize": chunksize})}
    lib = "gensim" if chunksize is None else f"gensim (chunksize={chunksize})"
    name = "gensim" if chunksize is None else f"gensim_chunk{chunksize}"

    def train():
        log(f"{lib}: online VB, {settings} ...")
        return LdaModel(train_bow, id2word=dictionary, num_topics=T, alpha=ALPHA, eta=ETA,
                        eval_every=None, random_state=SEED, **settings)

    g, train_cpu = cached(name, fresh, train)
    log(f"{lib}: trained ({train_cpu:.0f} CPU s); own numbers on the test bag of words")
    own_g = own_number(g, test_words, seed=SEED)  # inference starts from a seeded random gamma
    per_word = own_g.value
    bound = float(g.bound(test_bow))
    gamma, _ = g.inference(test_bow)
    # bound(gamma=...) takes gamma[d] as the document's gamma, but its logsumexp needs a 2-D
    # (1, K) row (what inference([doc]) returns): a (D, K) gamma raises "Input must be a 2D
    # array", so it is passed as (D, 1, K)
    bound_fixed = float(g.bound(test_bow, gamma=gamma[:, None, :]))
    rows = [(np.array([i for i, _ in d], dtype=np.int64), np.array([c for _, c in d], float))
            for d in test_bow]
    lam = g.state.get_lambda()
    words, doc, topic = variational_pieces(rows, gamma, lam, g.alpha, float(g.eta.flat[0]))
    recomputed = words + doc + topic
    theta = gamma / gamma.sum(axis=1, keepdims=True)
    phi = np.asarray(lam, np.float64) / np.asarray(lam, np.float64).sum(axis=1, keepdims=True)
    plug = plug_in(rows, theta, phi)
    # words whose lambda is eta (+ ~0) in every topic: gensim's first M-step has rho = 1 (offset
    # 1), so it replaces the random initial statistics by the first chunk's; a word absent from
    # that chunk gets lambda = eta everywhere, exp(E[log beta]) ~ e^-110 vanishes against the
    # epsilon added to phinorm in inference(), and its statistics stay 0 in every later update
    dead = np.asarray(lam, np.float64).max(axis=0) < 10 * ETA
    first = np.zeros(len(dictionary), bool)
    first[[i for d in train_bow[:settings["chunksize"]] for i, _ in d]] = True
    dead_tokens = sum(c for ids, cnts in rows for i, c in zip(ids, cnts, strict=True) if dead[i])
    dead_note = (f"{int(dead.sum()):,} of {len(dictionary):,} words have lambda < {10 * ETA} in "
                 f"every topic ({int((dead & ~first).sum()):,} of the {int((~first).sum()):,} "
                 f"words absent from the first chunk); they carry {int(dead_tokens):,} test "
                 f"tokens ({dead_tokens / n_test:.1%})")
    model = from_gensim(g)
    own = [
        own_row(own_g,
                what="bound(test_bow) / N (total_docs defaults to len(chunk): no rescaling), "
                     "topic term included; gensim's log line calls 2^-x the perplexity "
                     "(gensim/models/ldamodel.py, log_perplexity)",
                check=f"per-word {per_word:.4f}; gensim would log perplexity "
                      f"{np.exp2(-per_word):,.0f} (2^-x) where exp(-x) = "
                      f"{np.exp(-per_word):,.0f}"),
        dict(api="bound(test_bow)", total=bound, tokens=n_test, shown=f"{bound:,.1f}",
             what="ELBO of the test documents + -KL(q(beta)||p(beta)) of all topics, from a new "
                  "random gamma each call (gensim/models/ldamodel.py, bound)",
             kind="bound+topic KL",
             check=f"bound with one fixed gamma {bound_fixed:,.3f}, recomputed in float64 "
                   f"{recomputed:,.3f} (rel. diff "
                   f"{(recomputed - bound_fixed) / abs(bound_fixed):.1e}); document part "
                   f"{words + doc:,.1f} ({(words + doc) / n_test:.4f}/token), "
                   f"topic term {topic:,.1f} ({topic / n_test:.4f}/token); log_perplexity*N - "
                   f"bound = {per_word * n_test - bound:.2f} (different random gamma); "
                   f"{dead_note}"),
        dict(api="(derived) bound minus topic term", total=words + doc, tokens=n_test,
             what="the document-level ELBO alone: a lower bound on log P(w | lambda/sum, alpha)",
             kind="bound"),
        dict(api="(user) plug-in with inference(test_bow)", total=plug, tokens=n_test,
             what="sum log theta-hat_d . phi_w, theta-hat = gamma normalised, from the same "
                  "test document", kind="plug-in"),
    ]
    extra = {"train_cpu_s": train_cpu, "lib_tokens": n_test, "V": len(dictionary),
             "settings": f"online VB, passes={settings['passes']}, "
                         f"chunksize={settings['chunksize']}, "
                         f"iterations={settings['iterations']}, alpha={ALPHA}, eta={ETA}, "
                         f"random_state={SEED}, {np.dtype(g.dtype).name}",
             "dead_words": int(dead.sum()), "dead_tokens": int(dead_tokens)}
    return lib, model, own, extra


def gensim_first_chunk_test(train_words) -> list[str]:
    """Why words absent from gensim's first chunk are never learned: one update with the first
    500 documents, then the E-step statistics (``inference(..., collect_sstats=True)``) of the
    next 500 for the words that first appear there.  A learnable word's statistics sum to its
    count; a dead word's to ~0 (exp(E[log beta]) vanishes against the epsilon in phinorm)."""
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    dictionary = Dictionary(train_words)
    bow = [dictionary.doc2bow(d) for d in train_words]
    size = GENSIM["chunksize"]
    seen = np.zeros(len(dictionary), bool)
    seen[[i for d in bow[:size] for i, _ in d]] = True
    counts = np.zeros(len(dictionary))
    for d in bow[size:2 * size]:
        for i, c in d:
            counts[i] += c
    new = (counts > 0) & ~seen
    out = []
    for dtype, offset in ((np.float32, 1.0), (np.float64, 1.0), (np.float32, 64.0)):
        g = LdaModel(id2word=dictionary, num_topics=T, alpha=ALPHA, eta=ETA, chunksize=size,
                     iterations=GENSIM["iterations"], eval_every=None, random_state=SEED,
                     dtype=dtype, offset=offset)
        g.update(bow[:size])
        lam_max = float(np.asarray(g.state.get_lambda(), np.float64)[:, ~seen].max())
        _, sstats = g.inference(bow[size:2 * size], collect_sstats=True)
        mass = float(np.asarray(sstats, np.float64)[:, new].sum())
        out.append(f"{np.dtype(dtype).name}, offset={offset:g} (first rho = "
                   f"{offset ** -GENSIM_DECAY:.3g}): after the first update the largest lambda "
                   f"of a word absent from chunk 1 is {lam_max:.3g}; the E-step of chunk 2 gives "
                   f"the {int(new.sum()):,} words new in it {mass:.3g} of their "
                   f"{counts[new].sum():,.0f} tokens")
    return out


def run_gensim_one_chunk(train_words, test_words, fresh):
    """The control: gensim's default chunksize 2,000 holds the whole training set."""
    return run_gensim(train_words, test_words, fresh, chunksize=len(train_words))


def run_tomotopy(train_words, test_words, fresh):
    tp = import_tomotopy("peer_numbers")
    path = CACHE / "tomotopy.bin"
    if path.is_file() and not fresh:
        log("tomotopy: loading cached model")
        mdl = tp.LDAModel.load(str(path))
        train_cpu = 0.0
    else:
        log(f"tomotopy: collapsed Gibbs, {GIBBS_SWEEPS} sweeps, 1 worker ...")
        start = time.process_time()
        mdl = tp.LDAModel(k=T, alpha=ALPHA, eta=ETA, seed=SEED)
        mdl.optim_interval = 0  # no alpha optimisation (tomotopy's default is every 10 sweeps)
        for d in train_words:
            mdl.add_doc(d)
        mdl.train(GIBBS_SWEEPS, workers=1)
        train_cpu = time.process_time() - start
        CACHE.mkdir(parents=True, exist_ok=True)
        mdl.save(str(path), full=True)
    log(f"tomotopy: trained ({train_cpu:.0f} CPU s); own numbers")
    n_train = int(mdl.num_words)
    V, K = int(mdl.num_vocabs), int(mdl.k)
    alpha = np.asarray(mdl.alpha, np.float64)
    eta = float(mdl.eta)
    ll_per_word = float(mdl.ll_per_word)
    # recompute the training joint from the documents' topics
    w_all = np.concatenate([np.asarray(d.words, np.int64) for d in mdl.docs])
    z_all = np.concatenate([np.asarray(d.topics, np.int64) for d in mdl.docs])
    keep = z_all >= 0
    n_kv = np.zeros((K, V))
    np.add.at(n_kv, (z_all[keep], w_all[keep]), 1)
    rest, docs_part = collapsed_joint(
        n_kv, (np.bincount(np.asarray(d.topics)[np.asarray(d.topics) >= 0], minlength=K)
               for d in mdl.docs), alpha, eta)
    train_joint = rest + docs_part
    # infer on the test documents
    own_t = own_number(mdl, test_words, iterations=TOMOTOPY_INFER_ITERS)
    n_test = own_t.tokens
    docs = [mdl.make_doc(w) for w in test_words]
    dists, lls = mdl.infer(docs, iterations=TOMOTOPY_INFER_ITERS, workers=1)
    lls = np.asarray(lls, np.float64)
    # recompute infer's ll: log P(w_d | z_d, training counts) + log P(z_d | alpha), last sample
    n_k = n_kv.sum(axis=1)
    recomputed = []
    for d in docs:
        w = np.asarray(d.words, np.int64)
        z = np.asarray(d.topics, np.int64)
        w, z = w[w < V], z[w < V]
        n_dk = np.bincount(z, minlength=K)
        add = np.zeros((K, V))
        np.add.at(add, (z, w), 1)
        cols = np.unique(w)
        words_part = (gammaln(n_k + V * eta) - gammaln(n_k + n_dk + V * eta)).sum() + (
            gammaln(n_kv[:, cols] + add[:, cols] + eta) - gammaln(n_kv[:, cols] + eta)).sum()
        topics_part = gammaln(alpha.sum()) - gammaln(n_dk.sum() + alpha.sum()) + (
            gammaln(n_dk + alpha) - gammaln(alpha)).sum()
        recomputed.append(words_part + topics_part)
    recomputed = np.asarray(recomputed)
    # the same documents' infer ll again: deterministic (every document's sampler is seeded by
    # tomotopy's default RandGen{}, whatever the model's seed)
    _, lls2 = mdl.infer([mdl.make_doc(w) for w in test_words], iterations=TOMOTOPY_INFER_ITERS,
                        workers=1)
    phi = np.array([mdl.get_topic_word_dist(k) for k in range(K)], np.float64)
    rows = []
    for d in docs:
        w = np.asarray(d.words, np.int64)
        ids, cnts = np.unique(w[w < V], return_counts=True)
        rows.append((ids, cnts.astype(float)))
    plug = plug_in(rows, np.asarray(dists, np.float64), phi)
    model = from_tomotopy(mdl)
    own = [
        dict(api="ll_per_word", total=ll_per_word * n_train, tokens=n_train,
             shown=f"{ll_per_word:.4f}",
             what="training collapsed joint log P(w, z) / training tokens, final Gibbs state "
                  "(LDAModel.hpp: getLLDocs + getLLRest)",
             kind="training joint", split="train",
             check=f"recomputed from the documents' topics in float64: "
                   f"{train_joint / n_train:.6f}/token (diff "
                   f"{train_joint / n_train - ll_per_word:.1e}; tomotopy sums float32 lgamma)"),
        own_row(own_t, shown=f"sum {own_t.total:,.1f}",
                what="per document log P(w_d, z_d | training counts) at the LAST Gibbs sample "
                     "z_d of inference: a one-sample joint, not the marginal P(w_d) "
                     "(LDAModel.hpp: _infer)",
                check=f"recomputed per document from the inferred topics: max |diff| "
                      f"{np.abs(recomputed - lls).max():.3f} nats (sum {recomputed.sum():,.2f} "
                      f"vs {lls.sum():,.2f}); repeat call max |diff| "
                      f"{np.abs(np.asarray(lls2) - lls).max():.1e}; own_number's sum "
                      f"{own_t.total:,.2f}"),
        dict(api="(user) plug-in with infer()'s topic distributions", total=plug, tokens=n_test,
             what="sum log theta-hat_d . phi_w, theta-hat from infer on the same test document",
             kind="plug-in"),
    ]
    extra = {"train_cpu_s": train_cpu, "lib_tokens": n_test, "V": V, "n_train": n_train,
             "settings": f"collapsed Gibbs, {GIBBS_SWEEPS} sweeps, alpha={ALPHA}, eta={ETA}, "
                         f"optim_interval=0, seed={SEED}, 1 worker"}
    return "tomotopy", model, own, extra


def run_lda(train_words, test_words, fresh):
    import lda
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(analyzer=identity, lowercase=False)
    x_train = vec.fit_transform(train_words).astype(np.int64)
    x_test = vec.transform(test_words).astype(np.int64)
    n_test, n_train = int(x_test.sum()), int(x_train.sum())

    def train():
        log(f"lda: collapsed Gibbs, {GIBBS_SWEEPS} sweeps ...")
        return lda.LDA(n_topics=T, n_iter=GIBBS_SWEEPS, alpha=ALPHA, eta=ETA, random_state=SEED,
                       refresh=GIBBS_SWEEPS).fit(x_train)

    m, train_cpu = cached("lda", fresh, train)
    log(f"lda: trained ({train_cpu:.0f} CPU s); own numbers")
    own_l = own_number(m, test_words, vocabulary=vec)
    ll = own_l.total
    rest, docs_part = collapsed_joint(m.nzw_, m.ndz_, m.alpha, m.eta)
    theta = m.transform(x_test)
    plug = plug_in(csr_rows(x_test), theta, m.topic_word_)
    model = from_lda(m, vec)
    own = [
        own_row(own_l, shown=f"{ll:,.1f}",
                what="training collapsed joint log P(w, z) of the final Gibbs state "
                     "(lda/lda.py loglikelihood, lda/_lda.pyx _loglikelihood)",
                check=f"recomputed from nzw_, ndz_: {rest + docs_part:,.3f} (diff "
                      f"{rest + docs_part - ll:.1e}); log P(w|z) {rest:,.0f} + log P(z) "
                      f"{docs_part:,.0f}"),
        dict(api="(user) plug-in with transform(X_test)", total=plug, tokens=n_test,
             what="sum log theta-hat_d . phi_w, theta-hat by iterated pseudo-counts on the same "
                  "test document", kind="plug-in"),
    ]
    extra = {"train_cpu_s": train_cpu, "lib_tokens": n_test, "V": x_train.shape[1],
             "n_train": n_train,
             "settings": f"collapsed Gibbs, {GIBBS_SWEEPS} sweeps, alpha={ALPHA}, eta={ETA}, "
                         f"random_state={SEED}"}
    return "lda", model, own, extra


# ------------------------------------------------------------------------------- MALLET
def run_mallet(mirror: Path):
    base = mirror / "mallet-ap"
    log("MALLET: from_mallet(state.gz) and the one-token documents")
    model = from_mallet(base / "state.gz")
    docs = []
    for line in (base / "onetoken.txt").read_text(encoding="utf-8").splitlines():
        if line.strip():
            docs.append(line.split("\t")[2].split())
    theirs = np.array([float(x) for x in (base / "onetoken-docprobs.txt").read_text().split()])
    try:
        topiceval.evaluate(model, docs, method="exact")
        refused = "(not refused)"
    except ValueError as exc:
        refused = str(exc)
    res = topiceval.evaluate(model, docs, method="exact", empty="skip")
    own = own_number(base / "state.gz", docs, seed=EVAL_SEED)
    ok = res.scored
    diff = np.abs(res.logp[ok] - theirs[ok])
    return {
        "docs": len(docs), "tokens_in": sum(len(d) for d in docs),
        "mallet_total": float(theirs.sum()), "mallet_total_scored": float(theirs[ok].sum()),
        "ours_total": res.total, "ours_tokens": res.n_tokens, "ours_docs": int(ok.sum()),
        "dropped": int(res.dropped.sum()), "max_abs_diff": float(diff.max()),
        "last_mallet": float(theirs[-1]), "last_ours": float(res.logp[-1]),
        "last_word": docs[-1][0], "refused": refused, "notes": res.notes,
        "V": model.n_types, "T": model.n_topics,
        "own_total": own.total, "own_kind": own.kind, "own_api": own.api,
    }


# ------------------------------------------------------------------------------- report
def cell(text) -> str:
    """A markdown table cell: a literal | would end the cell."""
    return str(text).replace("|", "\\|")


def report(results, mallet, meta) -> tuple[str, pd.DataFrame]:
    rows = []
    for lib, data in results.items():
        ev, lr = data["eval"], data["eval_lr"]
        for own in data["own"]:
            npt = own["total"] / own["tokens"]
            held_out = own.get("split", "test") == "test"
            rows.append({
                "library": lib, "api": own["api"], "kind": own["kind"],
                "split": own.get("split", "test"),
                "api_value": own.get("shown", ""),
                "own_total": own["total"], "own_tokens": own["tokens"],
                "own_nats_per_token": npt, "what": own["what"],
                "topiceval_nats_per_token": ev["nats_per_token"],
                "topiceval_se_per_token": ev["se_per_token"],
                "lr_nats_per_token": lr["nats_per_token"],
                "topiceval_tokens": ev["tokens"], "topiceval_dropped": ev["dropped"],
                "gap": npt - ev["nats_per_token"] if held_out else np.nan,
                "check": own.get("check", ""),
            })
    frame = pd.DataFrame(rows)
    first = next(iter(results.values()))
    default, former = first["eval"], first["eval_lr"]
    default_label = f"{default['method']} ({default['settings']}), {default['runs']} runs"
    lr_label = f"{former['method']} ({former['settings']}), {former['runs']} runs"

    lines = ["# What each library's own number is", "", meta, ""]
    lines += ["## Own numbers against topiceval on the same test documents", "",
              "nats per token (natural logs); topiceval = `topiceval.evaluate(model, "
              f"test_token_lists)`, the default method: {default_label}, of the model imported "
              "with `topiceval.adapters.from_*`, +/- one standard error (Monte Carlo spread of "
              f"the runs only); lr = `method=\"lr\"`, {lr_label}, the former default, for "
              "comparison; gap = own - topiceval (positive: the library's number reads "
              "higher).  Rows marked (user) are not a library API but what a user computes from "
              "the library's own inferred topic proportions; (derived) rows take the library's "
              "number apart.", "",
              "| library | own number (API) | value | nats/token | tokens | what it is | "
              f"topiceval ({default['method']}, nats/token) | lr | tokens scored (dropped) | "
              "gap |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        split = "" if r["split"] == "test" else " (training)"
        gap = "not comparable (training joint)" if r["split"] != "test" else f"{r['gap']:+.4f}"
        lines.append(
            f"| {r['library']} | `{r['api']}` | {r['api_value']} | "
            f"{r['own_nats_per_token']:.4f} | {r['own_tokens']:,}{split} | {cell(r['what'])} | "
            f"{r['topiceval_nats_per_token']:.4f} "
            f"+/- {r['topiceval_se_per_token']:.4f} | {r['lr_nats_per_token']:.4f} | "
            f"{r['topiceval_tokens']:,} "
            f"({r['topiceval_dropped']:,}) | {gap} |")
    m = mallet
    mallet_gap = m["mallet_total"] / m["tokens_in"] - m["ours_total"] / m["ours_tokens"]
    lines.append(
        f"| MALLET | `evaluate-topics --output-doc-probs` ({m['docs']} one-token documents) | "
        f"sum {m['mallet_total']:.2f} | {m['mallet_total'] / m['tokens_in']:.4f} | "
        f"{m['tokens_in']} (incl. 1 out of vocabulary, reported as 0.0) | left-to-right "
        f"(Wallach's Algorithm 3); exact for one token | "
        f"{m['ours_total'] / m['ours_tokens']:.4f} (exact) | | {m['ours_tokens']} "
        f"({m['dropped']}) | {mallet_gap:+.4f}"
        f" (per document: max diff {m['max_abs_diff']:.1e} on the {m['ours_docs']} scored) |")

    lines += ["", "## topiceval on each imported model", "",
              "| library | method | settings | runs | nats/token | +/- s.e. | total (nats) | "
              "+/- s.e. | docs | tokens scored | OOV dropped | library's test tokens | CPU s |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for lib, data in results.items():
        for ev in (data["eval"], data["eval_wallach"], data["eval_lr"]):
            lines.append(
                f"| {lib} | {ev['method']} | {ev['settings']} | {ev['runs']} | "
                f"{ev['nats_per_token']:.4f} | {ev['se_per_token']:.4f} | {ev['total']:,.1f} | "
                f"{ev['total_se']:.1f} | {ev['docs']} | {ev['tokens']:,} | {ev['dropped']:,} | "
                f"{data['extra']['lib_tokens']:,} | {ev['cpu_s']:.1f} |")

    lines += ["", "## Checks: each number recomputed from its pieces", ""]
    for r in rows:
        if r["check"]:
            lines.append(f"* {r['library']} `{r['api']}`: {r['check']}")
    lines += ["", f"## The former default, lr, against topiceval's default ({default_label})",
              "", "Both are unbiased for P(w), so the log of each is a stochastic lower bound: "
              "the one that reads lower is further from the truth.", ""]
    for lib, data in results.items():
        ev, lr = data["eval"], data["eval_lr"]
        diff = lr["total"] - ev["total"]
        lines.append(f"* {lib}: {ev['method']} {ev['nats_per_token']:.4f} ({ev['cpu_s']:.1f} "
                     f"CPU s), lr {lr['nats_per_token']:.4f} ({lr['cpu_s']:.1f} CPU s) "
                     f"nats/token; lr - {ev['method']} = {diff:,.1f} nats in total "
                     f"({diff / ev['tokens']:+.4f}/token, {diff / ev['docs']:+.2f} per document; "
                     f"s.e. of the difference {np.hypot(ev['total_se'], lr['total_se']):.1f})")
    lines += ["", "## Orderings expected from what each number is", ""]
    lines += data_checks(results)
    lines += ["", "## Models", ""]
    for lib, data in results.items():
        ex = data["extra"]
        lines.append(f"* {lib} {package_version(DIST[lib])}: {ex['settings']}; vocabulary "
                     f"{ex['V']:,} words; trained in {ex['train_cpu_s']:.0f} CPU s (0 = cached)")
    lines += ["", "## MALLET fixture", "",
              f"`from_mallet(state.gz)`: T = {m['T']}, V = {m['V']:,}.  MALLET's own values "
              f"(`onetoken-docprobs.txt`) against `topiceval.evaluate(model, docs, "
              f"method=\"exact\", empty=\"skip\")`: max |diff| {m['max_abs_diff']:.1e} nats over "
              f"the {m['ours_docs']} in-vocabulary documents.  The last document "
              f"(`{m['last_word']}`, not in MALLET's alphabet): MALLET {m['last_mallet']} "
              f"(probability 1), topiceval drops the word ({m['dropped']} dropped), the document "
              f"is empty and its estimate is {m['last_ours']} (left out of the totals).  "
              f"With the default `empty=\"error\"` topiceval refuses: \"{m['refused']}\".  "
              f"Totals: MALLET {m['mallet_total']:.4f} over {m['docs']} documents "
              f"({m['mallet_total_scored']:.4f} over the scored ones), topiceval "
              f"{m['ours_total']:.4f} over {m['ours_docs']}.  `own_number(state.gz, docs)` "
              f"({m['own_kind']}, MALLET's `{m['own_api']}` computed by topiceval): "
              f"{m['own_total']:.4f}."]
    return "\n".join(lines) + "\n", frame


DIST = {"scikit-learn": "scikit-learn", "gensim": "gensim", "tomotopy": "tomotopy", "lda": "lda",
        "gensim (chunksize=2000)": "gensim"}


def data_checks(results) -> list[str]:
    out = []
    for lib, data in results.items():
        ev, lr = data["eval"], data["eval_lr"]
        ours, se = ev["nats_per_token"], ev["se_per_token"]
        for own in data["own"]:
            if own.get("split", "test") != "test":
                continue
            npt = own["total"] / own["tokens"]
            if own["kind"] in ("bound", "bound+topic KL", "variational bound", "one-sample joint"):
                ok, expect = npt < ours + 3 * se, "below"
            elif own["kind"] == "plug-in":
                ok, expect = npt > ours - 3 * se, "above"
            else:
                continue
            out.append(f"* {lib} `{own['api']}` ({own['kind']}) should sit {expect} topiceval's "
                       f"unbiased estimate ({ev['method']}): {npt:.4f} vs {ours:.4f} +/- "
                       f"{se:.4f}: {'yes' if ok else 'NO (investigate)'}")
        evw = data["eval_wallach"]
        higher = evw["nats_per_token"] >= lr["nats_per_token"]
        out.append(f"* {lib}: lr_wallach {evw['nats_per_token']:.4f} vs lr "
                   f"{lr['nats_per_token']:.4f} at the same particles and runs (Algorithm 3 as "
                   f"printed is biased upward: {'reads higher' if higher else 'NO'}); "
                   f"{ev['method']} {ours:.4f}")
        if ev["tokens"] != data["extra"]["lib_tokens"]:
            out.append(f"* {lib}: the library scores {data['extra']['lib_tokens']:,} test tokens, "
                       f"topiceval {ev['tokens']:,}: per-token figures differ in denominator")
        else:
            out.append(f"* {lib}: both sides score the same {ev['tokens']:,} test tokens "
                       f"({ev['dropped']} out-of-vocabulary tokens dropped by both)")
    return out


# ------------------------------------------------------------------------------- main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path,
                        default=Path(os.environ.get("TOPICEVAL_DATA_MIRROR",
                                                    Path(__file__).resolve().parents[2]
                                                    / "shared" / "data")))
    parser.add_argument("--fresh", action="store_true", help="retrain the models")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS["lda"],
                        help=f"runs per document of topiceval's default method, {DEFAULT_METHOD} "
                             f"(default %(default)s, topiceval's own)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    logging.getLogger("gensim").setLevel(logging.WARNING)
    logging.getLogger("lda").setLevel(logging.ERROR)
    OUT.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    cpu0, wall0 = time.process_time(), time.time()

    corpus, train_words, test_words = load_split(args.mirror)
    n_in = sum(len(d) for d in test_words)
    log(f"AP asis: {len(train_words)} training documents "
        f"({sum(len(d) for d in train_words):,} tokens), {len(test_words)} test documents "
        f"({n_in:,} tokens), vocabulary {corpus.n_types:,}")

    results = {}
    for runner in (run_sklearn, run_gensim, run_gensim_one_chunk, run_tomotopy, run_lda):
        lib, model, own, extra = runner(train_words, test_words, args.fresh)
        for o in own:
            log(f"  {lib} {o['api']}: {o['total'] / o['tokens']:.4f} nats/token "
                f"({o['tokens']:,} tokens)")
        log(f"{lib}: topiceval.evaluate (default method, {args.runs} runs) ...")
        ev = evaluate(model, test_words, runs=args.runs)
        log(f"  {ev['method']} ({ev['settings']}, runs={ev['runs']}): "
            f"{ev['nats_per_token']:.4f} +/- {ev['se_per_token']:.4f} nats/token, "
            f"{ev['tokens']:,} tokens scored, {ev['dropped']:,} dropped, {ev['cpu_s']:.1f} CPU s")
        others = {}
        for key, method in (("eval_wallach", "lr_wallach"), ("eval_lr", "lr")):
            others[key] = evaluate(model, test_words, method, runs=LR_RUNS, **LR_SETTINGS)
            e = others[key]
            log(f"  {method} ({e['settings']}, runs={e['runs']}): {e['nats_per_token']:.4f} "
                f"+/- {e['se_per_token']:.4f}, {e['cpu_s']:.1f} CPU s")
        results[lib] = {"own": own, "extra": extra, "eval": ev, **others}

    log("gensim: first-chunk test (two updates of 500 documents, three settings) ...")
    start = time.process_time()
    first_chunk = gensim_first_chunk_test(train_words)
    for line in first_chunk:
        log(f"  {line}")
    log(f"  ({time.process_time() - start:.1f} CPU s)")

    mallet = run_mallet(args.mirror)
    log(f"MALLET: max |diff| {mallet['max_abs_diff']:.1e} on {mallet['ours_docs']} documents")

    cpu = time.process_time() - cpu0
    load_after = os.getloadavg()
    import numba

    meta = (f"`{' '.join(['benchmarks/peer_numbers.py', *(argv or sys.argv[1:])])}`, "
            f"{time.strftime('%Y-%m-%d %H:%M')}: {cpu / 60:.1f} CPU minutes "
            f"({(time.time() - wall0) / 60:.1f} wall; cached models are not retrained and their "
            f"training time is then not counted), numba threads "
            f"{numba.config.NUMBA_NUM_THREADS}, {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cores, load average before {load_before[0]:.2f}, after "
            f"{load_after[0]:.2f}.  Corpus: AP (`asis`), {len(train_words):,} training "
            f"documents, {len(test_words)} test documents ({n_in:,} tokens) drawn with "
            f"split seed {SPLIT['seed']}; T = {T}, alpha = {ALPHA} per topic, eta = {ETA} per "
            f"word for every library.")
    text, frame = report(results, mallet, meta)
    text += ("\n## gensim: words absent from the first chunk\n\n"
             "`LdaModel(..., chunksize=500)`, `update()` with documents 0-499, then 500-999:\n\n"
             + "\n".join(f"* {line}" for line in first_chunk) + "\n")
    frame.to_csv(OUT / "peer_numbers.csv", index=False)
    write_text_atomic(OUT / "peer_numbers.md", text)
    log(f"wrote {OUT / 'peer_numbers.md'} ({cpu / 60:.1f} CPU minutes)")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
