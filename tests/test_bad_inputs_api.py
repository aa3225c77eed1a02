"""Bad input to the Python API and the command line: a clear error naming the argument.

Table-driven: every case builds one hostile-but-fair call and states the exception type and a
piece of its message that names the offending argument (or file).  ``pytest.raises`` checks the
exact type, so a case cannot pass by an unrelated error, and nothing here catches everything.
Damaged files are covered in ``test_bad_inputs_files.py``, the workflow in
``test_bad_inputs_workflow.py``.
"""

from __future__ import annotations

import gzip
import pickle
import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import topiceval
from topiceval import adapters, cli, limits
from topiceval.corpus import Corpus, CorpusError
from topiceval.data.preprocess import Recipe
from topiceval.estimators import gapfa, lda
from topiceval.limits import WorkLimitError
from topiceval.models import GaPModel, LDAModel, ModelError, save_model
from topiceval.training.gapfa import fit_gapfa
from topiceval.training.lda import fit_gibbs, fit_vem
from topiceval.validation import OPTIONS, Argument
from topiceval.vocabulary import VocabularyError

PHI = np.array([[0.85, 0.05, 0.10], [0.05, 0.85, 0.10]])
AM = np.array([0.2, 0.2])
DOCS = [np.array([0, 2, 1, 1]), np.array([1, 0])]
WORDS = ["a", "b", "c"]
MODEL = LDAModel(PHI, AM, vocab=WORDS)
GAP = GaPModel(PHI, np.full(2, 0.5), np.ones(2), vocab=WORDS)
COUNTS = np.array([[2, 0, 1], [0, 3, 1]])
LONG = [np.zeros(200_000, np.int64)]
SIXTY = [np.zeros(60, np.int64)]  # one 60-token document (issue 29)
HUGE = 10**14  # runs or temperatures whose arrays exceed any machine's memory (2.4 PB of results)
# a held-out document with no word the model knows, among known ones (issue 32)
NAMED_TOKENS = [["a", "b", "c", "a", "b", "c", "a"], ["zz"]]
NAMES = ["kept", "unknown-only"]


def est(method="lr", docs=DOCS, phi=PHI, am=AM, **kw):
    return lambda: lda.estimate(method, docs, phi, am, **kw)


def gap(method="l2r", counts=COUNTS, phi=PHI, p=GAP.p, r=GAP.r, **kw):
    return lambda: gapfa.estimate(method, counts, phi, p, r, **kw)


def on_memory(call, gib=1.0, threads=2):
    """``call`` on a machine of ``gib`` GiB running ``threads`` numba threads (whatever this
    machine has): a call whose working arrays fit once, but not once per thread."""
    def run():
        with mock.patch.object(limits, "physical_memory", return_value=int(gib * limits.GIB)), \
                mock.patch.object(limits, "threads_of", return_value=threads):
            call()
    return run


CASES = [
    # ---------------------------------------------------------------- LDA estimators: documents
    ("docs None", est(docs=None), ValueError, "docs must be a sequence"),
    ("docs an int", est(docs=7), ValueError, "got int"),
    ("docs a string", est(docs="a b"), ValueError, "docs must be a sequence"),
    ("docs empty list", est(docs=[]), ValueError, "docs is empty"),
    ("one flat array", est(docs=np.array([0, 1, 2])), ValueError, "not one array"),
    ("dense count matrix", est(docs=COUNTS), ValueError, "Corpus.from_counts"),
    ("sparse count matrix", est(docs=sp.csr_matrix(COUNTS)), ValueError, "Corpus.from_counts"),
    ("document of words", est(docs=[["a", "b"]]), ValueError, "integer token ids"),
    ("document a string", est(docs=["a b"]), ValueError, "Corpus.from_tokens"),
    ("float token ids", est(docs=[np.array([0.0, 1.0])]), ValueError, "integer token ids"),
    ("nested document", est(docs=[[[0, 1]]]), ValueError, "shape (1, 2)"),
    ("empty document", est(docs=[np.array([0]), np.array([], int)]), ValueError,
     "document 1 is empty"),
    ("token id out of range", est(docs=[np.array([0, 3])]), ValueError, "token id 3"),
    ("negative token id", est(docs=[np.array([-1])]), ValueError, "token id -1"),
    # ---------------------------------------------------------------- LDA estimators: model
    ("phi None", est(phi=None), ValueError, "phi must be an array of numbers"),
    ("phi of strings", est(phi=np.array([["x"] * 3] * 2)), ValueError, "phi must be an array"),
    ("phi 1-D", est(phi=np.array([0.5, 0.5])), ValueError, "(T, V) matrix"),
    ("phi with zero", est(phi=np.array([[1.0, 0.0, 0.0], [0.5, 0.25, 0.25]])), ValueError,
     "strictly positive"),
    ("phi rows not normalised", est(phi=PHI * 2), ValueError, "rows must sum to 1"),
    ("phi NaN", est(phi=np.where(PHI == 0.85, np.nan, PHI)), ValueError, "NaN"),
    ("alpha_m None", est(am=None), ValueError, "alpha_m must be an array of numbers"),
    ("alpha_m wrong length", est(am=np.ones(3)), ValueError, "alpha_m must have shape"),
    ("alpha_m zero", est(am=np.array([0.2, 0.0])), ValueError, "strictly positive"),
    ("alpha_m strings", est(am=np.array(["x", "y"])), ValueError, "alpha_m must be an array"),
    ("alpha_m below the exact range", est(am=np.full(2, 1e-305)), ValueError,
     "alpha_m must lie in [1e-301, 1e+301]"),
    ("alpha_m above the exact range", est(am=np.full(2, 1e305)), ValueError,
     "alpha_m must lie in"),
    ("subnormal prior weight", est(am=np.full(2, 1e-300), phi=np.array(
        [[1 - 2e-10, 1e-10, 1e-10], [1e-10, 1 - 2e-10, 1e-10]])), ValueError,
     "below the smallest normal double"),
    # ---------------------------------------------------------------- LDA estimators: settings
    ("unknown method", est(method="nope"), ValueError, "unknown estimate method 'nope'"),
    ("method None", est(method=None), ValueError, "unknown estimate method None"),
    ("unknown setting", est(method="chib", particles=3), ValueError,
     "unknown setting(s) particles"),
    ("particles float", est(particles=2.5), ValueError, "setting particles must be an integer"),
    ("particles zero", est(particles=0), ValueError, "particles must be an integer in [1, 2**63)"),
    ("particles bool", est(particles=True), ValueError, "particles must be an integer"),
    # issue 46: R x particles beyond int64 with the work limit lifted (a bare OverflowError)
    ("particles 2**62, no work limit",
     lambda: lda.estimate_runs("lr", DOCS, PHI, AM, runs=2, particles=2**62, work_limit=None),
     limits.WorkLimitError, "the call's arrays would need"),
    ("resample not bool", est(resample="yes"), ValueError, "resample must be True or False"),
    ("temperatures zero", est(method="ais", temperatures=0), ValueError, "temperatures"),
    ("seed negative", est(seed=-1), ValueError, "seed must be an integer"),
    ("seed too large", est(seed=2**63), ValueError, "seed must be an integer"),
    ("seed float", est(seed=1.5), ValueError, "seed must be an integer"),
    ("runs zero", lambda: lda.estimate_runs("lr", DOCS, PHI, AM, runs=0), ValueError,
     "runs must be an integer"),
    ("doc_keys repeated", lambda: lda.estimate_runs("lr", DOCS, PHI, AM, doc_keys=[1, 1]),
     ValueError, "doc_keys must be distinct"),
    ("doc_keys wrong length", lambda: lda.estimate_runs("lr", DOCS, PHI, AM, doc_keys=[1]),
     ValueError, "doc_keys must be 2 integers"),
    ("completion split too large", lambda: lda.complete("lr", DOCS, PHI, AM, split=4),
     ValueError, "split of document 0 is 4"),
    ("completion on one token", lambda: lda.complete("lr", [np.array([0])], PHI, AM),
     ValueError, "document completion needs at least 2"),
    ("split outside completion", lambda: lda.estimate("lr", DOCS, PHI, AM, split=1),
     ValueError, "split applies to document completion"),
    ("exact over max_work", est(method="exact", docs=[np.zeros(20_000, np.int64)]), ValueError,
     "more than max_work"),
    # ---------------------------------------------------------------- work and memory limits
    ("lr on a 200,000-token document", est(docs=LONG), WorkLimitError,
     "needs 4e+11 site updates per run"),
    ("chib samples too many", est(method="chib", docs=LONG, samples=10**5), WorkLimitError,
     "use samples <= 6,000"),
    ("particles 10**9", est(docs=[np.zeros(1000, np.int64)], particles=10**9, resample=False),
     WorkLimitError, "use particles <= 2,400,000"),
    ("particles beyond memory", est(docs=[np.zeros(1000, np.int64)], particles=10**7,
                                    resample=False, work_limit=None),
     WorkLimitError, "of this machine's"),
    ("work_limit negative", est(work_limit=-1), ValueError, "work_limit must be a positive"),
    ("work_limit a string", est(work_limit="big"), ValueError, "work_limit must be a positive"),
    ("GaP-FA samples too many", gap(method="ds", samples=10**12), WorkLimitError,
     "topic-word site updates per run"),
    ("ratio-AIS samples too many",
     lambda: lda.compare(LONG, (PHI, AM), (PHI[::-1], AM), samples=1000), WorkLimitError,
     "ratio-AIS: document 0"),
    # ------------------------------------------- whole-call limits: work and memory (issue 29)
    ("runs 10**6 on one 60-token document",
     lambda: lda.estimate_runs("lr", SIXTY, PHI, AM, runs=10**6), WorkLimitError,
     "the call needs 3.54e+10 site updates (1 document x 1,000,000 runs), about 15 min"),
    ("runs 10**6: the runs that fit",
     lambda: lda.estimate_runs("lr", SIXTY, PHI, AM, runs=10**6), WorkLimitError,
     "use runs <= 67,796 (now 1,000,000), or particles <= 1 (now 20)"),
    ("many documents: the documents that fit",
     lambda: lda.estimate_runs("hm", [np.zeros(10, np.int64)] * 50, PHI, AM, samples=10**7),
     WorkLimitError, "evaluate at most 23 of the 50 documents per call"),
    ("runs beyond memory", lambda: lda.estimate_runs("lr", SIXTY, PHI, AM, runs=HUGE,
                                                    work_limit=None),
     WorkLimitError, "GiB (results"),
    ("ais temperatures 10**9", est(method="ais", docs=SIXTY, temperatures=10**9),
     WorkLimitError, "needs 6e+10 site updates per run (about 25 min"),
    ("ais schedule beyond memory", est(method="ais", docs=SIXTY, temperatures=HUGE,
                                       work_limit=None), WorkLimitError, "temperature schedule"),
    ("is_pt samples 10**9 (a default call of minutes)", est(method="is_pt", docs=SIXTY,
                                                            samples=10**9),
     WorkLimitError, "use samples <= 40,000,000"),
    ("hm samples 10**9", est(method="hm", docs=SIXTY, samples=10**9), WorkLimitError,
     "about 25 min of one core"),
    ("ratio-AIS temperatures 10**9",
     lambda: lda.compare(SIXTY, (PHI, AM), (PHI[::-1], AM), temperatures=10**9),
     WorkLimitError, "use temperatures <= 19,999,900"),
    ("ratio-AIS schedule beyond memory",
     lambda: lda.compare(SIXTY, (PHI, AM), (PHI[::-1], AM), temperatures=HUGE,
                         work_limit=None), WorkLimitError, "temperature schedule"),
    ("ratio-AIS samples beyond memory",
     lambda: lda.compare(SIXTY, (PHI, AM), (PHI[::-1], AM), samples=HUGE, work_limit=None),
     WorkLimitError, "log weights, site counts and moves"),
    ("standard comparison temperatures 10**9",
     lambda: lda.compare_standard(SIXTY, (PHI, AM), (PHI[::-1], AM), temperatures=10**9),
     WorkLimitError, "standard comparison: document 0 (60 tokens) needs 1.2e+11"),
    ("GaP-FA hm counts the latent draws", gap(method="hm", counts=np.array([[2**40, 1, 0]])),
     WorkLimitError, "needs 1.21e+15 topic-word site updates per run"),
    ("GaP-FA l2r count tables beyond memory", gap(counts=np.array([[2**50, 1, 0]]),
                                                  work_limit=None),
     WorkLimitError, "document 0 alone needs"),
    ("GaP-FA count beyond 2**53", gap(method="hm", counts=np.array([[1e20, 1, 0]])),
     ValueError, "document 0 has 1e+20 for word 0, more than 2**53"),
    ("GaP-FA document total beyond 2**53",
     gap(method="hm", counts=np.array([[2**52, 2**52 + 8, 0]], dtype=np.int64)), ValueError,
     "document 0 has 9.0072e+15 tokens in all, more than 2**53"),
    ("GaP-FA runs 10**9", lambda: gapfa.estimate_runs("l2r", COUNTS, PHI, GAP.p, GAP.r,
                                                      runs=10**9),
     WorkLimitError, "x 1,000,000,000 runs), about"),
    ("GaP-FA runs beyond memory", lambda: gapfa.estimate_runs("l2r", COUNTS, PHI, GAP.p, GAP.r,
                                                              runs=HUGE, work_limit=None),
     WorkLimitError, "GiB (results"),
    ("GaP-FA empty document, samples 10**12", gap(method="ds", counts=np.zeros((1, 3), int),
                                                 samples=10**12),
     WorkLimitError, "use samples <= 3,000,000,000"),
    ("evaluate runs 10**6 (the whole call)",
     lambda: topiceval.evaluate(MODEL, [["a"] * 60], "lr", runs=10**6), WorkLimitError,
     "use runs <= 67,796"),
    ("evaluate runs beyond memory",
     lambda: topiceval.evaluate(MODEL, [["a"] * 60], "lr", runs=HUGE, work_limit=None),
     WorkLimitError, "GiB (results"),
    ("evaluate hm samples 10**9", lambda: topiceval.evaluate(MODEL, [["a"] * 60], "hm",
                                                             samples=10**9), WorkLimitError,
     "above the limit of 2.4e+09"),
    ("evaluate GaP-FA runs 10**9",
     lambda: topiceval.evaluate(GAP, COUNTS, runs=10**9, columns="model"), WorkLimitError,
     "pass a larger work_limit (work_limit=None lifts it)"),
    ("evaluate progress not a bool", lambda: topiceval.evaluate(MODEL, DOCS, progress="yes"),
     ValueError, "progress must be True, False or None"),
    # ---------------------------------------------------------------- bounds and targets
    ("posterior for a method without an upper bound",
     lambda: lda.estimate_runs("lr", DOCS, PHI, AM, posterior=[[0] * 4, [0] * 2]), ValueError,
     "posterior applies only to the methods with an upper bound (bdmc), not 'lr'"),
    ("posterior one array short", lambda: lda.estimate_runs("bdmc", DOCS, PHI, AM,
                                                            posterior=[[0] * 4]),
     ValueError, "posterior has 1 topic arrays for 2 documents"),
    ("posterior of the wrong length",
     lambda: lda.estimate_runs("bdmc", DOCS, PHI, AM, posterior=[[0] * 3, [0] * 2]),
     ValueError, "posterior[0] must be 4 integer topics (one per token of document 0)"),
    ("posterior topic out of range",
     lambda: lda.estimate_runs("bdmc", DOCS, PHI, AM, posterior=[[0, 1, 2, 0], [0, 0]]),
     ValueError, "posterior[0] has topic 2; topics are 0..1"),
    ("posterior a string", lambda: lda.estimate_runs("bdmc", DOCS, PHI, AM, posterior="z"),
     ValueError, "posterior must be one topic array per document, got str"),
    ("GaP-FA posterior of the wrong shape",
     lambda: gapfa.estimate_runs("bdmc", COUNTS, PHI, GAP.p, GAP.r, posterior=np.zeros((2, 3))),
     ValueError, "posterior must be a (2, 2) integer array of topic totals"),
    ("GaP-FA posterior totals that do not add up",
     lambda: gapfa.estimate_runs("bdmc", COUNTS, PHI, GAP.p, GAP.r,
                                 posterior=np.array([[1, 1], [2, 2]])),
     ValueError, "posterior[0] must be non-negative topic totals summing to the document's 3"),
    ("GaP-FA posterior for l2r",
     lambda: gapfa.estimate_runs("l2r", COUNTS, PHI, GAP.p, GAP.r, posterior=[[1, 2], [2, 2]]),
     ValueError, "posterior applies only to the methods with an upper bound (bdmc), not 'l2r'"),
    ("GaP-FA curve of ais", lambda: gapfa.estimate_curve("ais", COUNTS, PHI, GAP.p, GAP.r,
                                                          checkpoints=[1, 2]),
     ValueError, "method 'ais' has no running estimate over samples"),
    ("evaluate posterior for chib",
     lambda: topiceval.evaluate(MODEL, DOCS, posterior=[[0] * 4, [0] * 2]), ValueError,
     "posterior applies only to methods with an upper bound: method='bdmc'"),
    ("evaluate posterior longer than the tokens scored",
     lambda: topiceval.evaluate(MODEL, [list("abcabcaz")], "bdmc", posterior=[[0] * 8]),
     ValueError, "posterior[0] must be 7 integer topics"),
    ("evaluate target not a precision", lambda: topiceval.evaluate(MODEL, DOCS, target="fast"),
     ValueError, "target must be a positive precision such as \"0.05 nats/token\""),
    ("evaluate target zero", lambda: topiceval.evaluate(MODEL, DOCS, target="0 nats"),
     ValueError, "got '0 nats'"),
    ("evaluate target a number", lambda: topiceval.evaluate(MODEL, DOCS, target=0.05),
     ValueError, "target must be a positive precision"),
    ("evaluate gap target without bounds",
     lambda: topiceval.evaluate(MODEL, DOCS, target="gap 0.1 nats/token"), ValueError,
     "a gap target needs the bounds of method='bdmc'"),
    ("evaluate standard-error target with one run",
     lambda: topiceval.evaluate(MODEL, DOCS, runs=1, target="0.1 nats"), ValueError,
     "a standard-error target needs runs >= 2"),
    ("evaluate target with an inconsistent method",
     lambda: topiceval.evaluate(MODEL, DOCS, "hm", target="0.1 nats"), ValueError,
     "a target needs a method whose estimates can be trusted: method='hm' is not consistent"),
    ("evaluate gap target with a schedule",
     lambda: topiceval.evaluate(MODEL, DOCS, "bdmc", temperatures=[0.5, 1.0],
                                target="gap 1 nats"), ValueError,
     "pass temperatures as a number"),
    # ------------------------------------------- what to lower, what the caller can change
    ("GaP-FA even samples = 1 over the limit: the settings to lower",
     gap(counts=np.array([[3, 2, 1]]), work_limit=10), WorkLimitError,
     "even samples = 1 is over it: lower gibbs or inner_samples"),
    ("GaP-FA hm: the setting to lower", gap(method="hm", counts=np.array([[3, 2, 1]]),
                                            work_limit=1), WorkLimitError,
     "even samples = 1 is over it: lower burnin"),
    ("estimate_runs memory: fewer threads as numba's, no threads argument",
     on_memory(lambda: lda.estimate_runs("lr", SIXTY, PHI, AM, runs=2, particles=10**6,
                                         work_limit=None)), WorkLimitError,
     "use runs <= 1 (now 2), or numba threads <= 1 (now 2; set around the call, e.g. with "
     "topiceval.threads.numba_threads(1))"),
    ("check_limits memory: threads, an argument there",
     on_memory(lambda: lda.check_limits("lr", SIXTY, PHI, runs=2, particles=10**6, threads=2,
                                        work_limit=None)), WorkLimitError,
     "use runs <= 1 (now 2), or threads <= 1 (now 2)"),
    # ---------------------------------------------------------------- compare
    ("compare models of different T",
     lambda: lda.compare(DOCS, (PHI, AM), (np.full((3, 3), 1 / 3), np.ones(3))), ValueError,
     "same topics count"),
    ("compare a model that is not a pair", lambda: lda.compare(DOCS, PHI, (PHI, AM)),
     ValueError, "model_a must be a pair"),
    ("compare models over other words",
     lambda: lda.compare(DOCS, MODEL, LDAModel(PHI, AM, vocab=["a", "b", "z"])), ValueError,
     "different word lists"),
    ("compare unknown setting", lambda: lda.compare(DOCS, (PHI, AM), (PHI, AM), nope=1),
     ValueError, "unknown setting(s) nope for compare"),
    ("compare threshold negative",
     lambda: lda.compare(DOCS, (PHI, AM), (PHI, AM), threshold=-1), ValueError,
     "threshold must be a positive"),
    # ---------------------------------------------------------------- GaP-FA estimators
    ("counts None", gap(counts=None), ValueError, "counts must be a numeric"),
    ("counts of strings", gap(counts=np.array([["1", "0", "2"]])), ValueError,
     "counts must be a numeric"),
    ("counts negative", gap(counts=-COUNTS), ValueError, "counts must be non-negative"),
    ("counts fractional", gap(counts=COUNTS * 0.5), ValueError, "counts must be integers"),
    ("counts wrong width", gap(counts=np.ones((2, 4), int)), ValueError, "4 columns"),
    ("p outside (0, 1)", gap(p=np.array([0.5, 1.0])), ValueError, "p must lie in (0, 1)"),
    ("r negative", gap(r=np.array([1.0, -1.0])), ValueError, "r must be finite and strictly"),
    ("r strings", gap(r=np.array(["a", "b"])), ValueError, "r must be an array of numbers"),
    ("r above the exact range", gap(r=np.full(2, 1e305)), ValueError, "r must lie in"),
    ("ds theta beyond doubles", gap(method="ds", r=np.full(2, 1e300),
                                    p=np.full(2, 1 - 1e-15)), ValueError,
     "beyond the double range"),
    ("GaP-FA unknown method", gap(method="lr"), ValueError, "unknown GaP-FA method 'lr'"),
    ("GaP-FA unknown setting", gap(particles=3), ValueError, "unknown setting(s)"),
    ("GaP-FA gibbs zero", gap(gibbs=0), ValueError,
     "gibbs must be an integer in [1, 2**63), got 0 for 'l2r'"),
    ("GaP-FA samples float", gap(samples=2.5), ValueError, "samples must be an integer"),
    ("GaP-FA proposal unknown", gap(proposal="mine"), ValueError,
     "setting proposal of 'l2r' must be one of 'paper', 'code'"),
    ("GaP-FA runs zero", lambda: gapfa.estimate_runs("ds", COUNTS, PHI, np.full(2, 0.5),
                                                     np.ones(2), runs=0), ValueError, "runs"),
    # ---------------------------------------------------------------- the front door
    ("evaluate a bare array model", lambda: topiceval.evaluate(PHI, DOCS), ValueError,
     "topiceval.adapters"),
    ("evaluate docs None", lambda: topiceval.evaluate(MODEL, None), ValueError,
     "docs must be a sequence"),
    ("evaluate LDA on counts", lambda: topiceval.evaluate(MODEL, COUNTS), ValueError,
     "Corpus.from_counts"),
    ("evaluate unknown words refused", lambda: topiceval.evaluate(MODEL, [["a", "q"]],
                                                                   oov="error"),
     VocabularyError, "'q', which is not in the vocabulary"),
    ("evaluate oov policy unknown", lambda: topiceval.evaluate(MODEL, DOCS, oov="keep"),
     ValueError, "oov must be one of"),
    ("evaluate empty after dropping", lambda: topiceval.evaluate(MODEL, [["q"]]), ValueError,
     "no token in the model's vocabulary"),
    ("evaluate empty document named by its name (issue 32)",
     lambda: topiceval.evaluate(MODEL, Corpus.from_tokens(NAMED_TOKENS, WORDS, names=NAMES)),
     ValueError, "cannot be scored: 'unknown-only' (1 word(s) dropped); remove them or pass "
                 "empty='skip'"),
    ("evaluate empty document without a name: its position",
     lambda: topiceval.evaluate(MODEL, NAMED_TOKENS), ValueError,
     "cannot be scored: document 1 (1 word(s) dropped)"),
    ("from_tokens oov='error' names the document by its name",
     lambda: Corpus.from_tokens(NAMED_TOKENS, WORDS, oov="error", names=NAMES),
     VocabularyError, "'unknown-only' has the word 'zz', which is not in the vocabulary (3 "
                      "words); pass oov='drop' to leave such words out"),
    ("align oov='error' says oov='drop'",
     lambda: Corpus.from_tokens(NAMED_TOKENS, ["a", "b", "c", "zz"]).align(MODEL, oov="error"),
     VocabularyError, "1 word(s) of the documents are not in the model's vocabulary (e.g. "
                      "'zz'); pass oov='drop' to leave them out"),
    ("evaluate runs bool", lambda: topiceval.evaluate(MODEL, DOCS, runs=True), ValueError,
     "runs must be a positive integer"),
    ("evaluate words but model without vocab",
     lambda: topiceval.evaluate(LDAModel(PHI, AM), [["a"]]), VocabularyError,
     "model has no vocabulary"),
    ("evaluate GaP-FA counts of the wrong width",
     lambda: topiceval.evaluate(GAP, np.ones((1, 4), int)), VocabularyError,
     "the count matrix has 4 columns but the model has 3"),
    # ---------------------------------------------------------------- issue 29: what a document is
    ("evaluate LDA on a count matrix as lists", lambda: topiceval.evaluate(MODEL, COUNTS.tolist()),
     ValueError, "could be counts or token ids: pass counts as Corpus.from_counts(X, vocabulary="),
    ("evaluate LDA on a DataFrame of counts",
     lambda: topiceval.evaluate(MODEL, pd.DataFrame(COUNTS, columns=WORDS)), ValueError,
     "docs is a DataFrame of shape (2, 3), a (D, V) count matrix"),
    ("evaluate a DataFrame of token lists",
     lambda: topiceval.evaluate(MODEL, pd.DataFrame({"tokens": [["a"], ["b"]]})), ValueError,
     "the column that holds the documents (e.g. df['tokens'])"),
    ("evaluate GaP-FA on ragged token ids", lambda: topiceval.evaluate(GAP, DOCS), ValueError,
     "pass token ids as Corpus.from_documents(docs, model)"),
    ("evaluate GaP-FA on unnamed counts as lists",
     lambda: topiceval.evaluate(GAP, COUNTS.tolist()), VocabularyError,
     "state columns='model' if the columns are the model's own"),
    ("evaluate GaP-FA on an unnamed count matrix", lambda: topiceval.evaluate(GAP, COUNTS),
     VocabularyError, "could only be matched by position"),
    ("evaluate from_counts without words", lambda: topiceval.evaluate(
        GAP, Corpus.from_counts(COUNTS)), VocabularyError, "could only be matched by position"),
    ("evaluate LDA on from_counts without words", lambda: topiceval.evaluate(
        MODEL, Corpus.from_counts(COUNTS)), VocabularyError, "could only be matched by position"),
    ("evaluate columns unknown", lambda: topiceval.evaluate(GAP, COUNTS, columns="words"),
     ValueError, "columns must be 'model' or None, got 'words'"),
    ("evaluate columns='model' with words",
     lambda: topiceval.evaluate(GAP, [["a", "b"]], columns="model"), ValueError,
     "these documents carry words and are matched by word: leave columns out"),
    ("evaluate bytes words", lambda: topiceval.evaluate(MODEL, [[b"a", b"b"]]), ValueError,
     "document 0 holds bytes (b'a'); words must be str: decode them first"),
    ("evaluate mixed words and ids", lambda: topiceval.evaluate(MODEL, [["a"], [0]]),
     ValueError, "document 0 holds words and document 1 numbers"),
    ("evaluate one document not wrapped", lambda: topiceval.evaluate(MODEL, [0, 1, 2]),
     ValueError, "document 0 is 0 (int), not a sequence of tokens"),
    ("evaluate gensim bags of words", lambda: topiceval.evaluate(MODEL, [[(0, 2), (1, 1)]]),
     ValueError, "gensim's (id, count) pairs"),
    ("evaluate a dict of documents", lambda: topiceval.evaluate(MODEL, {"d1": ["a"]}),
     ValueError, "list(docs.values())"),
    ("evaluate a set of documents", lambda: topiceval.evaluate(MODEL, {("a",), ("b",)}),
     ValueError, "docs is a set, which has no order"),
    ("evaluate uint64 token id 2**64 - 1",
     lambda: topiceval.evaluate(MODEL, [np.array([2**64 - 1], np.uint64)]), ValueError,
     "token id 18446744073709551615"),
    ("evaluate every document skipped as empty",
     lambda: topiceval.evaluate(MODEL, [["q"], ["r", "s"]], empty="skip"), ValueError,
     "none of the 2 document(s) has a token in the model's vocabulary"),
    ("evaluate more unknown words than max_oov",
     lambda: topiceval.evaluate(MODEL, [["a", "q", "r"]], max_oov=0.5), VocabularyError,
     "66.7% of the documents' tokens (2 of 3) are not in the model's vocabulary"),
    ("evaluate max_oov above 1", lambda: topiceval.evaluate(MODEL, DOCS, max_oov=1.5),
     ValueError, "max_oov must be a share in [0, 1], got 1.5"),
    ("evaluate max_oov a string", lambda: topiceval.evaluate(MODEL, DOCS, max_oov="half"),
     ValueError, "max_oov must be a share in [0, 1]"),
    ("estimator on a DataFrame", est(docs=pd.DataFrame(COUNTS)), ValueError,
     "Corpus.from_counts"),
    ("estimator on bytes words", est(docs=[[b"a"]]), ValueError,
     "document 0 holds words (b'a'), not integer token ids"),
    ("estimator uint64 token id 2**64 - 1", est(docs=[np.array([2**64 - 1], np.uint64)]),
     ValueError, "token id 18446744073709551615"),
    ("GaP-FA counts beyond int64", gap(counts=np.array([[2**64 - 1, 0, 0]], np.uint64)),
     ValueError, "more than 2**53"),
    ("model word ending in NUL", lambda: LDAModel(PHI, AM, vocab=["a\x00", "b", "c"]),
     ModelError, "word 0 is 'a\\x00'"),
    ("model word holding a line break", lambda: GaPModel(PHI, GAP.p, GAP.r,
                                                           vocab=["a", "b\nc", "c"]),
     ModelError, "holds the character '\\n'"),
    ("corpus word ending in NUL", lambda: Corpus.from_documents(DOCS, ["a", "b", "c\x00"]),
     CorpusError, "word 2 is 'c\\x00'"),
    ("vocabulary word ending in NUL", lambda: Corpus.from_tokens([["a"]], ["a", "a\x00"]),
     VocabularyError, "numpy drops a trailing NUL"),
    # ---------------------------------------------------------------- corpora from user data
    ("from_tokens a string document", lambda: Corpus.from_tokens(["a b"], WORDS), ValueError,
     "document 0 is a string"),
    ("from_tokens duplicate vocabulary", lambda: Corpus.from_tokens([["a"]], ["a", "a"]),
     VocabularyError, "lists the word 'a' twice"),
    ("from_tokens vocabulary a set", lambda: Corpus.from_tokens([["a"]], {"a", "b"}),
     VocabularyError, "got set"),
    ("from_texts analyzer not callable", lambda: Corpus.from_texts(["a"], "split", WORDS),
     ValueError, "analyzer must be callable"),
    ("from_texts a text not a string", lambda: Corpus.from_texts([3], None, WORDS), ValueError,
     "text 0 is int"),
    ("from_counts vocabulary too short", lambda: Corpus.from_counts(COUNTS, ["a"]),
     VocabularyError, "3 columns but the vocabulary has 1"),
    ("from_counts seed negative", lambda: Corpus.from_counts(COUNTS, WORDS, seed=-2),
     ValueError, "seed must be an integer in"),
    ("from_counts words and columns", lambda: Corpus.from_counts(COUNTS, WORDS, columns="model"),
     ValueError, "not both"),
    ("from_counts columns unknown", lambda: Corpus.from_counts(COUNTS, columns="mine"),
     ValueError, "columns must be 'model' or None"),
    ("from_documents words as ids", lambda: Corpus.from_documents([["a"]], WORDS), ValueError,
     "document 0 holds words ('a'), not integer token ids"),
    ("from_documents id out of range", lambda: Corpus.from_documents([[0, 5]], MODEL),
     ValueError, "document 0 has token id 5 outside the vocabulary (ids 0..2)"),
    # ---------------------------------------------------------------- trainers
    ("fit_gibbs docs None", lambda: fit_gibbs(None, 2), ValueError, "docs must be a sequence"),
    ("fit_gibbs count matrix", lambda: fit_gibbs(COUNTS, 2), ValueError, "Corpus.from_counts"),
    ("fit_gibbs zero topics", lambda: fit_gibbs(DOCS, 0), ValueError, "n_topics"),
    ("fit_gibbs negative beta", lambda: fit_gibbs(DOCS, 2, beta=-1.0), ValueError, "beta"),
    ("fit_gibbs threads zero", lambda: fit_gibbs(DOCS, 2, threads=0), ValueError, "threads"),
    ("fit_vem count matrix", lambda: fit_vem(COUNTS, 2), ValueError, "Corpus.from_counts"),
    ("fit_gapfa strings", lambda: fit_gapfa(np.array([["1"]]), 2), ValueError,
     "counts must be a numeric"),
    ("fit_gapfa negative counts", lambda: fit_gapfa(-COUNTS, 2), ValueError, "non-negative"),
    ("fit_gapfa all-zero counts", lambda: fit_gapfa(np.zeros((3, 4), int), 2), ValueError,
     "counts holds no words to train on (all 3 x 4 counts are 0)"),
    ("fit_gapfa all-zero sparse counts", lambda: fit_gapfa(sp.csr_matrix((3, 4), dtype=int), 2),
     ValueError, "counts holds no words to train on"),
    ("fit_gibbs all-empty documents", lambda: fit_gibbs([[], []], 2), ValueError,
     "corpus_or_docs holds no tokens to train on (documents: 2, all empty)"),
    ("fit_gibbs all-empty corpus", lambda: fit_gibbs(Corpus.from_documents([[]], WORDS), 2),
     ValueError, "corpus_or_docs holds no tokens to train on"),
    ("fit_vem all-empty documents with V", lambda: fit_vem([[], []], 2, V=3), ValueError,
     "corpus_or_docs holds no tokens to train on"),
    ("fit_vem no documents", lambda: fit_vem([], 2), ValueError,
     "corpus_or_docs holds no tokens to train on (documents: 0"),
    ("fit_gapfa threads a float", lambda: fit_gapfa(COUNTS, 2, iterations=2, burnin=1,
                                                    threads=1.0), ValueError,
     "threads must be an integer, got 1.0"),
    ("fit_gapfa threads negative", lambda: fit_gapfa(COUNTS, 2, iterations=2, burnin=1,
                                                     threads=-1), ValueError,
     "threads must be an integer in [0, 2**63), got -1"),
    ("evaluate threads a bool", lambda: topiceval.evaluate(MODEL, DOCS, threads=True),
     ValueError, "threads must be an integer, got True"),
    ("GaP-FA threads a string", gap(threads="2"), ValueError, "threads must be an integer"),
    # ---------------------------------------------------------------- importers
    ("from_mallet_weights alpha a string",
     lambda: adapters.from_mallet_weights("weights.txt", "0.1"), ValueError,
     "alpha must be a positive number, or one per topic, got str '0.1'"),
    ("from_mallet_weights alpha strings",
     lambda: adapters.from_mallet_weights("weights.txt", ["0.1", "0.2"]), ValueError,
     "alpha must be a positive number, or one per topic, got list"),
    ("from_mallet_weights alpha None", lambda: adapters.from_mallet_weights("weights.txt", None),
     ValueError, "alpha must be a positive number, or one per topic, got NoneType"),
    ("from_mallet_weights alpha zero", lambda: adapters.from_mallet_weights("weights.txt", 0),
     ValueError, "alpha must lie in [1e-301, 1e+301], got 0.0"),
    ("from_mallet_weights alpha a matrix",
     lambda: adapters.from_mallet_weights("weights.txt", np.ones((2, 2))), ValueError,
     "alpha must be a positive number, or one per topic, got ndarray"),
]


@pytest.mark.parametrize(("case", "call", "error", "message"), CASES,
                         ids=[case[0] for case in CASES])
def test_bad_input_names_the_problem(case, call, error, message):
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the exact type is asserted below
        call()
    assert type(caught.value) is error, f"{case}: {type(caught.value).__name__}: {caught.value}"
    assert message in str(caught.value), f"{case}: {caught.value}"


def test_the_battery_is_large_enough():
    assert len(CASES) >= 80


# NumPy integers are integers wherever an int is accepted (a count from an array, a shape)
I = np.int64
NUMPY_INTEGER_CASES = [
    ("evaluate threads, runs, seed",
     lambda: topiceval.evaluate(MODEL, DOCS, method="lr", threads=I(1), runs=I(2), seed=I(3),
                                progress=False)),
    ("evaluate threads int32", lambda: topiceval.evaluate(MODEL, DOCS, method="lr",
                                                          threads=np.int32(1), progress=False)),
    ("LDA estimate settings and seed", est(particles=I(3), seed=I(1))),
    ("LDA estimate_runs runs", lambda: lda.estimate_runs("lr", DOCS, PHI, AM, runs=I(2))),
    ("GaP-FA estimate threads and samples", gap(threads=I(1), samples=I(2))),
    ("fit_gapfa n_topics, iterations, threads, seed",
     lambda: fit_gapfa(COUNTS, I(2), iterations=I(2), burnin=I(1), threads=I(1), seed=I(0))),
    ("fit_gibbs n_topics, sweeps, threads, seed",
     lambda: fit_gibbs(DOCS, I(2), sweeps=I(2), threads=I(1), seed=I(0))),
    ("fit_vem n_topics, max_iter, threads, V",
     lambda: fit_vem(DOCS, I(2), max_iter=I(2), threads=I(1), V=I(3))),
    ("from_counts seed", lambda: Corpus.from_counts(COUNTS, WORDS, seed=I(1))),
    ("a recipe's counts", lambda: Recipe("r", min_count=I(2), top_k=I(0))),
]


@pytest.mark.parametrize("call", [pytest.param(call, id=case) for case, call
                                  in NUMPY_INTEGER_CASES])
def test_numpy_integers_are_accepted(call):
    call()


# ------------------------------------------------------------------------------- command line
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    save_model(root / "m.npz", MODEL)
    save_model(root / "g.npz", GAP)
    Corpus.from_documents(DOCS, WORDS, split=["test", "train"]).save(root / "c.npz")
    (root / "docs.txt").write_text("a b c\nb b\n")
    (root / "unknown.txt").write_text("a zz\n")
    # issue 32: a held-out document with only unknown words, named (MALLET lines, corpus .npz)
    (root / "named.txt").write_text("".join(f"{name}\tX\t{' '.join(tokens)}\n"
                                            for name, tokens in zip(NAMES, NAMED_TOKENS,
                                                                    strict=True)))
    Corpus.from_tokens(NAMED_TOKENS, ["a", "b", "c", "zz"], names=NAMES).save(root / "named.npz")
    Corpus.from_tokens([["a", "b", "zz"]], ["a", "b", "zz"]).save(root / "oov.npz")  # 1 of 3
    Corpus.from_counts(COUNTS).save(root / "bare.npz")  # counts without words
    (root / "weights.txt").write_text("".join(f"{t}\t{w}\t{x}\n" for t, w, x in [
        (0, "a", 1.5), (0, "b", 0.5), (0, "c", 0.7), (1, "a", 0.5), (1, "b", 1.5), (1, "c", 0.9)]))
    with gzip.open(root / "state.gz", "wt") as state:  # MALLET's --output-state
        state.write("#doc source pos typeindex type topic\n#alpha : 0.1 0.1\n#beta : 0.01\n"
                    "0 NA 0 0 a 0\n0 NA 1 1 b 1\n")
    (root / "lda.pkl").write_bytes(pickle.dumps({"not": "read"}))
    (root / "model.bin").write_bytes(b"LDA\x00\x00one\x00\x00TPTK\x01\x00")  # tomotopy's start
    return root


CLI_CASES = [
    ("estimate unknown method", ["estimate", "--model", "{m}", "--docs", "{c}", "--method",
                                 "nope"], "unknown estimate method 'nope'"),
    ("estimate unknown split", ["estimate", "--model", "{m}", "--docs", "{c}", "--method", "lr",
                                "--split", "dev"], "no documents with split 'dev'"),
    ("estimate runs zero", ["estimate", "--model", "{m}", "--docs", "{c}", "--method", "lr",
                            "--runs", "0"], "--runs must be >= 1"),
    ("estimate family mismatch", ["estimate", "--model", "{m}", "--docs", "{c}", "--method",
                                  "lr", "--family", "gapfa"], "does not match"),
    ("estimate completion on GaP-FA", ["estimate", "--model", "{g}", "--docs", "{c}",
                                       "--method", "l2r", "--complete"], "only implemented"),
    ("estimate over the work limit", ["estimate", "--model", "{m}", "--docs", "{c}", "--method",
                                      "chib", "--work-limit", "10"], "above the limit of 10"),
    ("estimate runs over the whole-call limit",
     ["estimate", "--model", "{m}", "--docs", "{c}", "--method", "lr", "--runs", "100000000"],
     "use --runs 17142857 or less (now 100000000), or --particles 3 or less (now 20), or pass "
     "a larger --work-limit (--work-limit none lifts it)"),
    ("evaluate samples over the whole-call limit",
     ["evaluate", "--model", "{m}", "--docs", "{t}", "--method", "is_pt", "--samples",
      "1000000000"], "use --samples 800000000 or less (now 1000000000)"),
    ("compare temperatures over the whole-call limit",
     ["compare", "--model-a", "{m}", "--model-b", "{m}", "--docs", "{c}", "--temperatures",
      "1000000000"], "use --temperatures"),
    ("evaluate missing model", ["evaluate", "--model", "{root}/none.npz", "--docs", "{t}"],
     "none.npz"),
    ("evaluate split of a text file", ["evaluate", "--model", "{m}", "--docs", "{t}",
                                       "--split", "test"], "--split applies to a corpus"),
    ("evaluate unknown word refused", ["evaluate", "--model", "{m}", "--docs", "{u}", "--oov",
                                       "error"], "'zz', which is not in the vocabulary"),
    ("evaluate more unknown words than --max-oov-share",
     ["evaluate", "--model", "{m}", "--docs", "{u}", "--max-oov-share", "0.3"],
     "50% of the documents' tokens (1 of 2) are not in the model's vocabulary and were dropped "
     "(most often 'zz'): the documents were probably not tokenised as the model's training text "
     "was (letter case, the token pattern, stop words removed in training, or a vocabulary cap "
     "such as max_features or min_df); --max-oov-share 0.3 allows at most 30%"),
    ("evaluate --max-oov-share above 1",
     ["evaluate", "--model", "{m}", "--docs", "{t}", "--max-oov-share", "2"],
     "--max-oov-share must be a share in [0, 1], got 2.0"),
    ("compare GaP-FA model", ["compare", "--model-a", "{m}", "--model-b", "{g}", "--docs",
                              "{c}"], "--model-b is a gapfa model"),
    ("train unknown split", ["train", "lda", "--corpus", "{c}", "--topics", "2", "--trainer",
                             "gibbs", "--split", "dev", "--out", "{root}/x.npz"],
     "no documents with split 'dev'"),
    ("import a pickle without trust", ["import", "--from", "sklearn", "{m}", "--out",
                                       "{root}/x.npz", "--vocabulary", "{t}"], "--trust-pickle"),
    # ------------------------------------------- issue 32: command-line words, names, outputs
    ("evaluate --oov drop leaves a document empty: --skip-empty, by name",
     ["evaluate", "--model", "{m}", "--docs", "{root}/named.txt", "--oov", "drop"],
     "1 document(s) have no token in the model's vocabulary and cannot be scored: "
     "'unknown-only' (1 word(s) dropped); remove them or pass --skip-empty"),
    ("evaluate --oov error names the document and says --oov drop",
     ["evaluate", "--model", "{m}", "--docs", "{root}/named.txt", "--oov", "error"],
     "'unknown-only' has the word 'zz', which is not in the vocabulary (3 words); pass "
     "--oov drop to leave such words out"),
    ("estimate an empty document, by name",
     ["estimate", "--model", "{m}", "--docs", "{root}/named.npz", "--method", "lr"],
     "1 document(s) of --docs have no token in the model's vocabulary and cannot be scored: "
     "'unknown-only' (1 word(s) dropped); remove them"),
    ("compare an empty document, by name",
     ["compare", "--model-a", "{m}", "--model-b", "{m}", "--docs", "{root}/named.npz"],
     "cannot be scored: 'unknown-only' (1 word(s) dropped)"),
    ("estimate --oov error says --oov drop",
     ["estimate", "--model", "{m}", "--docs", "{root}/named.npz", "--method", "lr", "--oov",
      "error"], "1 word(s) of the documents are not in the model's vocabulary (e.g. 'zz'); "
                "pass --oov drop to leave them out"),
    ("evaluate a MALLET state: import it first",
     ["evaluate", "--model", "{root}/state.gz", "--docs", "{t}"],
     "is a MALLET --output-state file, not a topiceval model file: import it first with "
     "topiceval import --from mallet"),
    ("estimate a MALLET weights file: import it first",
     ["estimate", "--model", "{root}/weights.txt", "--docs", "{c}", "--method", "lr"],
     "is a MALLET --topic-word-weights-file, not a topiceval model file: import it first with "
     "topiceval import --from mallet-weights"),
    ("evaluate a tomotopy file: import it first",
     ["evaluate", "--model", "{root}/model.bin", "--docs", "{t}"],
     "is a tomotopy LDAModel.save() file, not a topiceval model file: import it first with "
     "topiceval import --from tomotopy {root}/model.bin --out model.npz ('topiceval import "
     "--help' says more), then pass --model model.npz"),
    ("compare a pickle: import it first",
     ["compare", "--model-a", "{m}", "--model-b", "{root}/lda.pkl", "--docs", "{c}"],
     "--model-b {root}/lda.pkl is a pickle (a scikit-learn, gensim or lda model?), not a "
     "topiceval model file: import it first with topiceval import --from sklearn (or gensim, "
     "lda)"),
    ("import --alpha of the wrong count, in command-line words",
     ["import", "--from", "mallet-weights", "{root}/weights.txt", "--alpha", "0.1,0.2,0.3",
      "--out", "{root}/x.npz"],
     "--alpha must be one number or one per topic (2), got 3 numbers ({root}/weights.txt "
     "lists 2 topics)"),
    ("import --alpha below the range, in command-line words",
     ["import", "--from", "mallet-weights", "{root}/weights.txt", "--alpha", "1e-305",
      "--out", "{root}/x.npz"], "--alpha must lie in [1e-301, 1e+301], got 1e-305"),
    ("estimate even --samples 1 over the limit: --gibbs or --inner-samples",
     ["estimate", "--model", "{g}", "--docs", "{c}", "--method", "l2r", "--work-limit", "10"],
     "even --samples 1 is over it: lower --gibbs or --inner-samples, or split the document"),
    ("estimate --max-oov-share",
     ["estimate", "--model", "{m}", "--docs", "{root}/oov.npz", "--method", "lr",
      "--max-oov-share", "0.1"], "--max-oov-share 0.1 allows at most 10%"),
    ("compare --max-oov-share",
     ["compare", "--model-a", "{m}", "--model-b", "{m}", "--docs", "{root}/oov.npz",
      "--max-oov-share", "0.1"], "--max-oov-share 0.1 allows at most 10%"),
    ("compare --max-oov-share above 1",
     ["compare", "--model-a", "{m}", "--model-b", "{m}", "--docs", "{c}", "--max-oov-share",
      "1.5"], "--max-oov-share must be a share in [0, 1], got 1.5"),
    ("estimate a corpus without words: --columns model",
     ["estimate", "--model", "{g}", "--docs", "{root}/bare.npz", "--method", "l2r"],
     "could only be matched by position: give the words of the columns (Corpus.from_counts(X, "
     "vocabulary=the fitted vectorizer or its word list)), or state --columns model if the "
     "columns are the model's own, in its order"),
    ("compare a corpus without words: --columns model",
     ["compare", "--model-a", "{m}", "--model-b", "{m}", "--docs", "{root}/bare.npz"],
     "or state --columns model if the columns are the model's own"),
    ("evaluate --columns model on documents with words",
     ["evaluate", "--model", "{g}", "--docs", "{t}", "--columns", "model"],
     "--columns model states that the columns of a count matrix without words are the "
     "model's; these documents carry words and are matched by word: leave --columns out"),
    # the shared checks (validation.check_integer, check_positive, a method's settings) name
    # the option, not the API's argument
    ("evaluate --runs 0", ["evaluate", "--model", "{m}", "--docs", "{t}", "--runs", "0"],
     "--runs must be a positive integer, got 0"),
    ("evaluate --target not a precision",
     ["evaluate", "--model", "{m}", "--docs", "{t}", "--target", "soon"],
     "--target must be a positive precision such as \"0.05 nats/token\""),
    ("evaluate gap --target without bounds",
     ["evaluate", "--model", "{m}", "--docs", "{t}", "--target", "gap 1 nats"],
     "a gap --target needs the bounds of --method bdmc"),
    ("evaluate --target with an inconsistent --method",
     ["evaluate", "--model", "{m}", "--docs", "{t}", "--method", "hm", "--target", "1 nats"],
     "a --target needs a method whose estimates can be trusted: --method hm is not "
     "consistent"),
    ("evaluate --seed negative", ["evaluate", "--model", "{m}", "--docs", "{t}", "--seed", "-1"],
     "--seed must be an integer in [0, 2**63), got -1"),
    ("estimate --threads negative", ["estimate", "--model", "{m}", "--docs", "{c}", "--method",
                                     "lr", "--threads", "-1"],
     "--threads must be an integer in [0, 2**63), got -1"),
    ("estimate --particles 0", ["estimate", "--model", "{m}", "--docs", "{c}", "--method", "lr",
                                "--particles", "0"],
     "setting --particles must be an integer in [1, 2**63), got 0"),
    ("estimate --gibbs 0, with the method's note",
     ["estimate", "--model", "{g}", "--docs", "{c}", "--method", "l2r", "--gibbs", "0"],
     "setting --gibbs must be an integer in [1, 2**63), got 0 for 'l2r': its left-posterior"),
    ("estimate a setting the method does not take",
     ["estimate", "--model", "{m}", "--docs", "{c}", "--method", "chib", "--particles", "3"],
     "unknown setting(s) --particles for method 'chib'; allowed: --burnin, --iterations, "
     "--samples"),
    ("compare --samples 0", ["compare", "--model-a", "{m}", "--model-b", "{m}", "--docs", "{c}",
                             "--samples", "0"], "--samples must be an integer in [1, 2**63)"),
    ("train --topics 0", ["train", "lda", "--corpus", "{c}", "--topics", "0", "--trainer",
                          "gibbs", "--out", "{root}/x.npz"],
     "--topics must be an integer in [1, 2**63), got 0"),
    ("train vem --max-iter 0", ["train", "lda", "--corpus", "{c}", "--topics", "2", "--trainer",
                                "vem", "--max-iter", "0", "--out", "{root}/x.npz"],
     "--max-iter must be an integer in [1, 2**63), got 0"),
    ("train gibbs --beta negative", ["train", "lda", "--corpus", "{c}", "--topics", "2",
                                     "--trainer", "gibbs", "--beta", "-1", "--out",
                                     "{root}/x.npz"],
     "--beta must be a positive finite number, got -1.0"),
    ("train gapfa --a-phi 0", ["train", "gapfa", "--corpus", "{c}", "--topics", "2", "--a-phi",
                               "0", "--out", "{root}/x.npz"],
     "--a-phi must be a positive finite number, got 0.0"),
    # --out is checked before anything is computed: these calls are also over the work limit
    ("estimate --out a directory, before computing",
     ["estimate", "--model", "{m}", "--docs", "{c}", "--method", "chib", "--work-limit", "10",
      "--out", "{root}"], "{root}: is a directory, not a file to write"),
    ("estimate --out under a file, before computing",
     ["estimate", "--model", "{m}", "--docs", "{c}", "--method", "chib", "--work-limit", "10",
      "--out", "{m}/est.csv"], "cannot create its directory {m}: a file is in the way"),
    ("evaluate --out a directory, before computing",
     ["evaluate", "--model", "{m}", "--docs", "{t}", "--method", "chib", "--work-limit", "10",
      "--out", "{root}"], "{root}: is a directory, not a file to write"),
    ("evaluate --out under a file, before computing",
     ["evaluate", "--model", "{m}", "--docs", "{t}", "--work-limit", "10", "--out",
      "{m}/est.csv"], "a file is in the way"),
    ("compare --out a directory, before computing",
     ["compare", "--model-a", "{m}", "--model-b", "{m}", "--docs", "{c}", "--work-limit", "10",
      "--out", "{root}"], "{root}: is a directory, not a file to write"),
]


@pytest.mark.parametrize(("case", "argv", "message"), CLI_CASES,
                         ids=[case[0] for case in CLI_CASES])
def test_bad_command_lines_print_one_line(case, argv, message, files, capsys):
    paths = {"m": files / "m.npz", "g": files / "g.npz", "c": files / "c.npz",
             "t": files / "docs.txt", "u": files / "unknown.txt", "root": files}
    argv = [a.format(**paths) for a in argv]
    message = message.format(**paths)
    if argv[0] not in ("train", "import") and "--out" not in argv:  # else named in the case
        argv += ["--out", str(files / "out.csv")]
    capsys.readouterr()
    assert cli.main(argv) == 1, case
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"topiceval {argv[0]}: error:"), err
    assert len(err.splitlines()) == 1, err
    assert message in err, err
    assert not (files / "out.csv").exists() and not (files / "x.npz").exists()


def test_warnings_during_a_command_print_one_line(files, capsys, monkeypatch):
    """A Python warning raised while a command runs is one line, ``topiceval CMD: warning:``,
    as the filters let it through; the handler is the command's only."""
    from topiceval.commands import estimate

    def warn(args):
        warnings.warn("first line\n  second line", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(estimate, "run", warn)
    shown = warnings.showwarning
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert cli.main(["estimate", "--model", str(files / "m.npz"), "--docs",
                         str(files / "c.npz"), "--method", "lr"]) == 0
    assert capsys.readouterr().err == "topiceval estimate: warning: first line second line\n"
    assert warnings.showwarning is shown


def test_command_line_words_are_the_commands_options():
    """Every API argument an error names (``validation.Argument``) is spelled as an option
    that a command has."""
    def options_of(parser) -> set[str]:  # the parser's and its sub-commands'
        subparsers = parser._subparsers._group_actions[0].choices if parser._subparsers else {}
        return set(parser._option_string_actions).union(
            *(options_of(sub) for sub in subparsers.values()))

    options = options_of(cli.build_parser())
    spelled = [Argument(*key).for_command_line() for key in OPTIONS]
    spelled += [Argument("columns", "model").for_command_line(),
                Argument("oov", "drop").for_command_line(), Argument("alpha").for_command_line()]
    assert spelled[-3:] == ["--columns model", "--oov drop", "--alpha"]
    assert {text.split()[0] for text in spelled} <= options


# options refused while the command line is parsed: argparse's usage, then one error line
PARSE_CASES = [
    ("token-regex unbalanced", ["--token-regex", "("],
     "argument --token-regex: '(' is not a regular expression (missing ) at position 1)"),
    ("token-regex with groups", ["--token-regex", r"(\w)(\w)"],
     r"argument --token-regex: '(\w)(\w)' has 2 capturing group(s), whose text would be the "
     "tokens instead of the whole matches; write (?:...) to group"),
    ("token-regex matching nothing", ["--token-regex", r"\S*"],
     r"argument --token-regex: '\S*' matches the empty string"),
]


@pytest.mark.parametrize(("case", "options", "message"), PARSE_CASES,
                         ids=[case[0] for case in PARSE_CASES])
def test_bad_options_are_refused_when_parsed(case, options, message, files, capsys):
    argv = ["evaluate", "--model", str(files / "m.npz"), "--docs", str(files / "docs.txt"),
            *options, "--out", str(files / "out.csv")]
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2, case
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(f"topiceval evaluate: error: {message}"), err
    assert not (files / "out.csv").exists()
