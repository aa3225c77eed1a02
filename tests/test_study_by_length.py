"""A study's ``estimate: {method: auto}`` follows ``topiceval.evaluate``'s default by length
(``topiceval.by_length``): Chib-style below 100 tokens, bridge-theta from 100, each document's
row in documents.csv the one ``evaluate`` gives it, priced by its own method, and every total
in candidates.csv recomputing from documents.csv (shared parts of the standard errors added as
``Evaluation.total_stderr`` adds them)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import topiceval
from topiceval.by_length import LONG_DEFAULTS
from topiceval.corpus import Corpus
from topiceval.estimators import lda
from topiceval.evaluation import DEFAULTS
from topiceval.experiments import study as S
from topiceval.models import LDAModel, save_model
from topiceval.plots.study import study_caption
from topiceval.seeds import derive_seed

FROM_TOKENS, LONG_METHOD, LONG_SETTINGS = LONG_DEFAULTS["lda"]
SHORT_METHOD, SHORT_SETTINGS = DEFAULTS["lda"]
WORDS = [f"w{v:02d}" for v in range(12)]
# held-out documents on both sides of 100 tokens, one of exactly 100
HELD_LENGTHS = (8, FROM_TOKENS + 30, 25, FROM_TOKENS, 40, FROM_TOKENS + 60)
NAMES = ("a", "b")


def drawn(model: LDAModel, lengths, rng) -> list[np.ndarray]:
    """Documents drawn from ``model`` (theta ~ Dirichlet(alpha m), then topics and words)."""
    docs = []
    for n in lengths:
        z = rng.choice(model.n_topics, size=n, p=rng.dirichlet(model.alpha_m))
        docs.append(np.array([rng.choice(len(WORDS), p=model.phi[t]) for t in z]))
    return docs


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A saved study corpus (4 training and 6 held-out documents over 12 words) and two
    T = 3 models."""
    tmp = tmp_path_factory.mktemp("by_length")
    rng = np.random.default_rng(7)
    models = {n: LDAModel(rng.dirichlet(np.full(len(WORDS), 0.5), size=3), np.full(3, 0.5),
                          vocab=WORDS) for n in NAMES}
    docs = drawn(models["a"], (30, 50, 20, 60), rng) + drawn(models["a"], HELD_LENGTHS, rng)
    split = ["train"] * 4 + ["test"] * len(HELD_LENGTHS)
    Corpus.from_documents(docs, WORDS, [f"d{i}" for i in range(len(docs))], split).save(
        tmp / "corpus.npz")
    for name, model in models.items():
        save_model(tmp / f"{name}.npz", model)
    return tmp, models


def estimated(tmp, name: str, estimate: dict, part: int = 0, parts: int = 1) -> pd.DataFrame:
    rows = tmp / f"{name}-{part}of{parts}.csv"
    S.estimate_job(tmp / "corpus.npz", tmp / f"{name}.npz", name, part, parts, estimate, None,
                   rows, tmp / "timings.csv")
    return pd.read_csv(rows, dtype={"name": str}, keep_default_na=False, na_values=[""])


@pytest.fixture(scope="module")
def rows(study):
    tmp, _ = study
    estimate = {**S.ESTIMATE_DEFAULTS}  # method auto, 8 runs
    return {n: estimated(tmp, n, estimate) for n in NAMES}


def test_auto_gives_each_default_method_its_settings():
    lengths = np.array(HELD_LENGTHS)
    parts, runs = S.estimate_parts({"method": "auto", "runs": 3,
                                    "settings": {"samples": 50, "iterations": 5}}, lengths)
    assert runs == 3 and [p.method for p in parts] == [SHORT_METHOD, LONG_METHOD]
    short, long = parts
    assert short.settings == {**SHORT_SETTINGS, "samples": 50, "iterations": 5}
    assert long.settings == {**LONG_SETTINGS, "samples": 50}  # bridge-theta has no iterations
    assert list(short.docs) == [0, 2, 4] and list(long.docs) == [1, 3, 5]
    methods = S.document_methods(parts, lengths.size)
    assert list(methods) == [SHORT_METHOD, LONG_METHOD] * 3
    named, _ = S.estimate_parts({"method": "chib", "settings": {"samples": 50}}, lengths)
    assert len(named) == 1 and named[0].method == "chib" and named[0].settings == {
        "samples": 50} and list(named[0].docs) == list(range(lengths.size))
    with pytest.raises(ValueError) as caught:
        S.estimate_parts({"method": "auto", "settings": {"particles": 5}}, lengths)
    said = str(caught.value)
    assert said.startswith("study.estimate.settings: unknown setting(s) particles for "
                           "the default methods 'chib' and 'bridge_theta'; allowed: ")
    assert "'chib'" in said and "'bridge_theta'" in said and "\n" not in said


def test_each_document_is_priced_by_its_own_method(study):
    tmp, models = study
    docs, _, model = S._scored(tmp / "corpus.npz", tmp / "a.npz", None)
    work, runs = S.estimate_work(docs, model, S.ESTIMATE_DEFAULTS)
    assert runs == 8
    for d, n in enumerate(docs.lengths):
        method, settings = ((LONG_METHOD, LONG_SETTINGS) if n >= FROM_TOKENS else
                            (SHORT_METHOD, SHORT_SETTINGS))
        assert work[d] == lda.check_limits(method, [docs[d]], model.phi, work_limit=None,
                                           **settings)[0]
    # a named method prices every document by itself
    chib = S.estimate_work(docs, model, {"method": "chib", "settings": SHORT_SETTINGS})[0]
    long = docs.lengths >= FROM_TOKENS
    assert (work[~long] == chib[~long]).all() and (work[long] != chib[long]).all()


def test_a_row_is_evaluates_default_for_its_document(study, rows):
    """Every document's row equals ``topiceval.evaluate(model, held-out documents)`` with the
    study's seed for the candidate: its method, estimate, widened standard error, shared part
    and verdict of the diagnostics."""
    tmp, models = study
    held = Corpus.load(tmp / "corpus.npz").select_split("test")
    for name in NAMES:
        mine = rows[name]
        assert not mine["rerun"].any()  # every estimate trusted at once: rows of one call
        result = topiceval.evaluate(models[name], held, seed=derive_seed(0, "study", name),
                                    progress=False)
        assert list(mine["method"]) == list(result.document_methods)
        assert set(mine["method"]) == {SHORT_METHOD, LONG_METHOD}
        np.testing.assert_allclose(mine["logp"], result.logp, rtol=1e-12)
        np.testing.assert_allclose(mine["stderr"], result.stderr, rtol=1e-12)
        np.testing.assert_allclose(mine["shared_stderr"], result.shared_stderr, rtol=1e-12)
        assert (mine["shared_stderr"][mine["method"] == LONG_METHOD] > 0).all()
        assert (mine["shared_stderr"][mine["method"] == SHORT_METHOD] == 0).all()
        assert list(mine["trusted"]) == list(result.trusted)
    # the rows do not depend on the parts
    parts = pd.concat([estimated(tmp, "a", {**S.ESTIMATE_DEFAULTS}, i, 2) for i in range(2)],
                      ignore_index=True)
    pd.testing.assert_frame_equal(parts, rows["a"])


def test_the_totals_recompute_from_the_documents(study, rows):
    """candidates.csv's method says what scored the documents, the caption says it in words,
    and the totals and their standard errors recompute from documents.csv, the shared parts
    added across documents (``Evaluation.total_stderr``)."""
    tmp, models = study
    corpus = Corpus.load(tmp / "corpus.npz")
    candidates = [S.Candidate(n, "topiceval", "file") for n in NAMES]
    own = {n: pd.DataFrame([{"own_api": "-", "own_kind": "-", "own_split": "training"}])
           for n in NAMES}
    documents = pd.concat(rows.values(), ignore_index=True)[S.DOCUMENT_COLUMNS]
    cands, paired = S.compare_candidates(candidates, S.ESTIMATE_DEFAULTS, None, corpus,
                                         documents, own, models)
    assert (cands["method"] == f"{SHORT_METHOD}+{LONG_METHOD}").all()
    assert (cands["method_documents"] == f"{SHORT_METHOD} on 3 and {LONG_METHOD} on 3").all()
    for c in cands.itertuples():
        mine = documents[documents["candidate"] == c.candidate]
        own_part = mine["stderr"] ** 2 - mine["shared_stderr"] ** 2
        mc = np.sqrt(own_part.sum()) + mine["shared_stderr"].sum()
        np.testing.assert_allclose(c.log_likelihood, mine["logp"].sum(), rtol=1e-12)
        np.testing.assert_allclose([c.log_likelihood_se, c.se_monte_carlo], [mc, mc],
                                   rtol=1e-12)
        assert c.se_monte_carlo > np.sqrt((mine["stderr"] ** 2).sum())  # not in quadrature
        tokens = mine["tokens"].sum()
        residual = mine["logp"] - mine["tokens"] * mine["logp"].sum() / tokens
        spread = len(mine) * np.var(residual, ddof=1)
        np.testing.assert_allclose(
            c.nats_per_token_se,
            (np.sqrt(max(spread, own_part.sum())) + mine["shared_stderr"].sum()) / tokens,
            rtol=1e-12)
    caption = study_caption(cands, paired, pd.DataFrame(columns=S.RATIO_COLUMNS), "tiny")
    assert (f"topiceval's default by length: {SHORT_METHOD} on 3 and {LONG_METHOD} on 3 "
            "documents, 8 runs per document") in caption


def test_untrusted_rows_are_rerun_where_more_runs_can_help_and_widened_as_evaluate_widens(
        study):
    """A budget too small to trust (2 runs, one sample, two draws): Chib-style's untrusted rows
    are re-run with RERUN_FACTOR x the runs (runs 2 .. 9 of their streams); bridge-theta's,
    with one chain sample outside its regime whatever the runs, are not, and say why.  Every
    row's estimate, standard error and shared part are what an ``Evaluation`` of those runs
    reports (its ``__post_init__`` widening bridge-theta's)."""
    import dataclasses

    tmp, models = study
    settings = {"samples": 1, "draws": 2, "burnin": 0}
    estimate = {**S.ESTIMATE_DEFAULTS, "runs": 2, "settings": settings}
    mine = estimated(tmp, "a", estimate)
    held = Corpus.load(tmp / "corpus.npz").select_split("test")
    seed = derive_seed(0, "study", "a")
    first = topiceval.evaluate(models["a"], held, runs=2, seed=seed, progress=False, **settings)
    (short, long), _ = S.estimate_parts(estimate, held.lengths)
    width = 2 * S.RERUN_FACTOR
    runs = np.full((held.n_docs, width), np.nan)
    runs[:, :2] = first.logp_runs
    alone = lda.estimate_runs(short.method, [held[int(d)] for d in short.docs],
                              models["a"].phi, models["a"].alpha_m, runs=2, seed=seed,
                              doc_keys=short.docs, work_limit=None, **short.settings)
    again = short.docs[~alone.diagnostics["trusted"].to_numpy(bool)]
    assert again.size and list(mine["rerun"][short.docs]) == list(np.isin(short.docs, again))
    redo = lda.estimate_runs(short.method, [held[int(d)] for d in again], models["a"].phi,
                             models["a"].alpha_m, runs=width, first_run=2, seed=seed,
                             doc_keys=again, work_limit=None, **short.settings)
    runs[again] = redo.logp
    assert not mine["rerun"][long.docs].any() and not mine["trusted"][long.docs].any()
    # the regime's reason is added to those the runs' checks trusted
    assert mine["reason"][long.docs].str.contains("regime: bridge_theta below the budget").any()
    expected = dataclasses.replace(first, logp_runs=runs)
    np.testing.assert_allclose(mine["logp"], expected.logp, rtol=1e-12)
    np.testing.assert_allclose(mine["stderr"], expected.stderr, rtol=1e-12)
    np.testing.assert_allclose(mine["shared_stderr"], expected.shared_stderr, rtol=1e-12)
    assert list(mine["trusted"][long.docs]) == list(first.trusted[long.docs])


def test_rows_outside_the_regime_for_too_few_runs_are_rerun_into_it(study):
    """Bridge-theta at its budget but 2 runs is outside its regime (8 runs); 8 runs put it
    inside, so every long row is re-run, and none is then untrusted for its regime."""
    tmp, _ = study
    mine = estimated(tmp, "a", {**S.ESTIMATE_DEFAULTS, "runs": 2})
    long = mine["tokens"] >= FROM_TOKENS
    assert mine["rerun"][long].all()
    assert not mine["reason"][long].astype(str).str.contains("regime:").any()


def test_a_named_method_is_judged_by_its_regime_and_not_rerun_in_vain(study):
    """Chib-style named for every document: its long rows are untrusted as ``evaluate``
    untrusts them (no regime covers Chib-style from 100 tokens), and not re-run, which could
    not change that."""
    tmp, models = study
    mine = estimated(tmp, "a", {**S.ESTIMATE_DEFAULTS, "method": "chib"})
    held = Corpus.load(tmp / "corpus.npz").select_split("test")
    result = topiceval.evaluate(models["a"], held, "chib", seed=derive_seed(0, "study", "a"),
                                progress=False)
    long = (mine["tokens"] >= FROM_TOKENS).to_numpy()
    assert long.any() and not mine["trusted"][long].any()
    assert mine["reason"][long].str.startswith("regime: chib was not shown to cover").all()
    assert not mine["rerun"][long].any()
    assert list(mine["trusted"]) == list(result.trusted)
