"""``topiceval.evaluate`` on a LogisticNormalModel: every method through the front door against
the exact answer (Gauss-Hermite quadrature, K <= 3), documents matched by word, the diagnostics,
the price of a call, determinism and bad input.

The Monte Carlo criterion is that of test_logistic_normal_exact.py: the runs' average in
probability within TOLERANCE of its own standard errors of the exact P(w_d),
|P-hat / P - 1| <= 5 se, with RUNS runs; seeds are fixed, so the tests are deterministic, and a
perturbed model fails the same criterion (the check can fail).
"""

import re

import numpy as np
import pandas as pd
import pytest

import topiceval
from reference.logistic_normal_ref import random_model
from topiceval import cli, limits
from topiceval.logistic_normal import LogisticNormalModel, laplace, runs
from topiceval.logistic_normal import likelihood as lk
from topiceval.logistic_normal.ais import AIS_EVALUATIONS
from topiceval.logistic_normal.exact import exact
from topiceval.logistic_normal.simulate import sample_documents
from topiceval.models import save_model

TOLERANCE = 5.0
# the standard error of R runs has R - 1 degrees of freedom: with 16, P(|t_15| > 5) = 1.6e-4 per
# check (with 4, P(|t_3| > 5) = 0.015: a sound estimator would fail one check in 70)
RUNS = 16
WORDS = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu"]
DOCS = [np.array([0, 1, 1, 3, 5, 5, 5, 6]), np.array([2, 2, 4]), np.array([6, 0, 3, 3, 3, 1])]
PROBLEMS = {
    "mixture-K3-full": random_model("mixture", 3, 1),
    "mixture-K2-diagonal": random_model("mixture", 2, 2, full=False),
    "product-K2-full": random_model("product", 2, 3),
}
METHODS = [("is_laplace", {}), ("is_laplace", {"df": 0.0}), ("is_prior", {}),
           ("ais", {"temperatures": 300})]
EXACT = {}


def with_words(model):
    return LogisticNormalModel(model.mu, model.sigma, model.beta, model.decoder,
                               model.bias if model.decoder == "product" else None, vocab=WORDS)


def exact_of(name):
    if name not in EXACT:
        EXACT[name] = np.array([exact(PROBLEMS[name], doc).log_p for doc in DOCS])
    return EXACT[name]


def within(result, truth):
    return np.abs(np.expm1(result.logp - truth)) <= TOLERANCE * result.stderr


@pytest.mark.parametrize("name", PROBLEMS)
@pytest.mark.parametrize("method,settings", METHODS)
def test_every_method_meets_the_exact_answer(name, method, settings):
    result = topiceval.evaluate(PROBLEMS[name], DOCS, method, runs=RUNS, progress=False,
                                **settings)
    truth = exact_of(name)
    assert within(result, truth).all(), (result.logp - truth, result.stderr)
    if not (name, method, settings) == ("product-K2-full", "is_laplace", {"df": 0.0}):
        assert result.trusted.all(), result.diagnostics["reason"].tolist()  # the next test
    assert np.all(result.stderr > 0)


def test_the_gaussian_proposal_has_heavy_weights_where_the_t_has_not():
    """On a product decoder, where theta saturates the likelihood is flat and the posterior's
    tails are the prior's, wider than the Laplace Gaussian: its weights are heavy-tailed and
    k-hat flags the first document; the t_5 proposal's are not (the default's reason)."""
    model = PROBLEMS["product-K2-full"]
    gauss = topiceval.evaluate(model, DOCS, "is_laplace", df=0.0, runs=RUNS, progress=False)
    student = topiceval.evaluate(model, DOCS, "is_laplace", runs=RUNS, progress=False)
    assert gauss.diagnostics["reason"][0].startswith("k-hat")
    assert student.diagnostics["khat"][0] < 0.5 < gauss.diagnostics["khat"][0]


@pytest.mark.parametrize("method,settings", METHODS)
def test_the_criterion_rejects_a_perturbed_model(method, settings):
    """The same check fails for the estimates of a model whose prior mean moved by 0.5."""
    base = PROBLEMS["mixture-K3-full"]
    moved = LogisticNormalModel(base.mu + np.array([0.5, -0.5, 0.0]), base.sigma, base.beta)
    result = topiceval.evaluate(moved, DOCS, method, runs=RUNS, progress=False, **settings)
    assert not within(result, exact_of("mixture-K3-full")).all()


@pytest.mark.parametrize("name", PROBLEMS)
def test_bdmc_bounds_meet_the_exact_answer(name):
    """From the z that generated each document (exact posterior samples) the reverse runs'
    1 / P-hat is unbiased for 1 / P(w): both bounds within 5 of their standard errors of the
    exact value, and the gap within the slack, so every estimate is trusted."""
    model = PROBLEMS[name]
    docs, z = sample_documents(model, [8, 30], seed=2)
    truth = np.array([exact(model, doc).log_p for doc in docs])
    result = topiceval.evaluate(model, docs, "bdmc", posterior=z, temperatures=300, runs=RUNS,
                                progress=False)
    assert within(result, truth).all(), (result.logp - truth, result.stderr)
    assert np.all(np.abs(np.expm1(truth - result.upper)) <= TOLERANCE * result.upper_stderr)
    assert result.trusted.all(), result.diagnostics["reason"].tolist()
    assert result.posterior_given and "true stochastic bound" in result.summary()


def test_a_wide_bdmc_gap_is_not_trusted():
    """Two temperatures on a 200-token document: the bounds are nats apart."""
    model = PROBLEMS["mixture-K3-full"]
    docs, z = sample_documents(model, [200], seed=3)
    result = topiceval.evaluate(model, docs, "bdmc", posterior=z, temperatures=2,
                                progress=False)
    assert result.gap[0] > 1.0
    assert not result.trusted[0] and "BDMC gap" in result.diagnostics["reason"][0]
    assert "BDMC gap 1" in result.summary()


def test_a_posterior_must_be_one_z_per_document():
    with pytest.raises(ValueError, match=r"finite \(3, 3\) array of z") as err:
        topiceval.evaluate(PROBLEMS["mixture-K3-full"], DOCS, "bdmc", posterior=np.zeros((2, 3)),
                           progress=False)
    assert "\n" not in str(err.value)


def test_exact_through_evaluate_is_the_oracle():
    result = topiceval.evaluate(PROBLEMS["product-K2-full"], DOCS, "exact", runs=1,
                                progress=False)
    np.testing.assert_array_equal(result.logp, exact_of("product-K2-full"))
    assert np.all(result.stderr == 0) and result.trusted.all()


def test_default_method_and_runs():
    result = topiceval.evaluate(PROBLEMS["mixture-K2-diagonal"], DOCS, progress=False)
    assert result.method == "is_laplace" and result.runs == 8
    assert result.settings == {"samples": 500, "df": 5.0}
    assert result.summary().startswith("Logistic-normal is_laplace on 3 of 3 documents")


# --------------------------------------------------------------------------- documents
def test_words_are_matched_by_word_not_by_position():
    """Words, token ids, a count data frame with its columns shuffled and a Corpus give the
    same numbers; an out-of-vocabulary word is dropped and counted."""
    model = with_words(PROBLEMS["mixture-K3-full"])
    words = [[WORDS[i] for i in doc] for doc in DOCS]
    by_ids = topiceval.evaluate(model, DOCS, progress=False)
    by_words = topiceval.evaluate(model, [w + ["yak"] for w in words], progress=False)
    counts = np.zeros((len(DOCS), len(WORDS)), np.int64)
    for d, doc in enumerate(DOCS):
        np.add.at(counts[d], doc, 1)
    order = np.random.default_rng(0).permutation(len(WORDS))
    frame = pd.DataFrame(counts[:, order], columns=[WORDS[i] for i in order])
    by_frame = topiceval.evaluate(model, frame, progress=False)
    np.testing.assert_array_equal(by_words.logp, by_ids.logp)
    np.testing.assert_array_equal(by_frame.logp, by_ids.logp)
    assert by_words.dropped.tolist() == [1, 1, 1]


def test_counts_without_words_need_columns_model():
    model = with_words(PROBLEMS["mixture-K2-diagonal"])
    counts = np.ones((2, len(WORDS)), np.int64)
    with pytest.raises(ValueError, match="columns"):
        topiceval.evaluate(model, counts, progress=False)
    result = topiceval.evaluate(model, counts, columns="model", progress=False)
    assert result.tokens.tolist() == [7, 7]


# --------------------------------------------------------------------------- diagnostics
def test_heavy_weights_are_not_trusted():
    """IS from the prior with 30 samples on a 200-token document: its weights are dominated by
    one draw, k-hat flags it; IS-Laplace on the same document is trusted."""
    model = PROBLEMS["mixture-K3-full"]
    docs, _ = sample_documents(model, [200], seed=3)
    prior = topiceval.evaluate(model, docs, "is_prior", samples=30, progress=False)
    assert not prior.trusted[0]
    assert "k-hat" in prior.diagnostics["reason"][0] or "ESS" in prior.diagnostics["reason"][0]
    assert "untrusted" in prior.summary()
    good = topiceval.evaluate(model, docs, progress=False)
    assert good.trusted[0]


# --------------------------------------------------------------------------- determinism
def test_same_seed_same_bits_whatever_the_threads():
    model = PROBLEMS["product-K2-full"]
    for method in ("is_laplace", "ais"):
        one = topiceval.evaluate(model, DOCS, method, threads=1, progress=False,
                                 **({"temperatures": 100} if method == "ais" else {}))
        two = topiceval.evaluate(model, DOCS, method, threads=2, progress=False,
                                 **({"temperatures": 100} if method == "ais" else {}))
        np.testing.assert_array_equal(one.logp_runs, two.logp_runs)
        other = topiceval.evaluate(model, DOCS, method, seed=1, progress=False,
                                   **({"temperatures": 100} if method == "ais" else {}))
        assert not np.array_equal(one.logp_runs, other.logp_runs)


def test_runs_are_independent_streams():
    result = topiceval.evaluate(PROBLEMS["mixture-K2-diagonal"], DOCS, progress=False)
    assert len(set(result.logp_runs[0])) == result.runs


# --------------------------------------------------------------------------- price
def test_work_is_priced_and_recorded():
    result = topiceval.evaluate(PROBLEMS["mixture-K3-full"], DOCS, "is_prior", progress=False)
    # is_prior: S c per run, c = J K + WORD J + TOPIC_PAIR K^2 + TOPIC K + EVALUATION (J distinct
    # words) in work units
    distinct = np.array([np.unique(doc).size for doc in DOCS])
    c = distinct * (3 + lk.WORD) + lk.TOPIC_PAIR * 9 + lk.TOPIC * 3 + lk.EVALUATION
    np.testing.assert_array_equal(result.work, np.repeat(np.ceil(1000 * c)[:, None], 8, 1))
    assert result.predicted_work == int(result.work.sum())


@pytest.mark.parametrize("name", ["mixture-K3-full", "product-K2-full"])
def test_the_mode_search_is_priced_once_per_document_and_recorded(name):
    """is_laplace's run: S c, and its share of the mode search (``laplace.search_work``, made
    once per document) among the R runs: the price of the call and the work recorded are
    R S c + the search per document."""
    model = PROBLEMS[name]
    result = topiceval.evaluate(model, DOCS, runs=4, progress=False)
    distinct = [np.unique(doc).size for doc in DOCS]
    c = lk.evaluation_cost(model.decoder, distinct, model.n_topics, model.n_types)
    search = laplace.search_work(model.decoder, distinct, model.n_topics, model.n_types)
    per_run = np.ceil(500 * c + search / 4)
    np.testing.assert_array_equal(result.work, np.repeat(per_run[:, None], 4, 1))
    assert result.predicted_work == int(result.work.sum())
    assert result.predicted_work == pytest.approx(float(np.sum(4 * 500 * c + search)), abs=12)


def test_ais_records_the_evaluations_it_made_within_its_price():
    model = PROBLEMS["mixture-K3-full"]
    result = topiceval.evaluate(model, DOCS, "ais", temperatures=100, runs=2, progress=False)
    distinct = [np.unique(doc).size for doc in DOCS]
    c = lk.evaluation_cost(model.decoder, distinct, model.n_topics, model.n_types)
    evaluations = result.work / c[:, None]
    assert np.all(evaluations >= 99) and np.all(evaluations <= 100 * AIS_EVALUATIONS + 1)
    assert result.work.sum() <= result.predicted_work


def test_a_mixture_document_past_the_cache_costs_more_per_term():
    """Below ``CACHE_TERMS`` a mixture term costs a work unit, past it ``MISS`` (its topic
    columns no longer fit the cache: benchmarks/ln_rate.py, K = 50, V = 10,000, J = 913)."""
    small, large = lk.evaluation_cost("mixture", [600, 700], 50, 10_000)
    fixed = lk.TOPIC_PAIR * 2500 + lk.TOPIC * 50 + lk.EVALUATION
    assert small == 600 * (50 + lk.WORD) + fixed
    assert large == 700 * (lk.MISS * 50 + lk.WORD) + fixed


def prodlda_like(k, v, seed=0):
    """A product-decoder model of ProdLDA's size (logistic-normal prior, K x V logit weights)."""
    rng = np.random.default_rng(seed)
    return LogisticNormalModel(np.zeros(k), np.ones(k), rng.normal(size=(k, v)),
                               decoder="product", bias=rng.normal(size=v))


def test_an_ap_sized_prodlda_call_fits_the_default_limit_and_minutes_of_work_do_not():
    """A ProdLDA trained on AP (K = 50, V = 10,000): three 200-token documents at the default
    8 runs take seconds (benchmarks/ln_rate.py: 2.1e9 work units per CPU-second at this size)
    and fit the default limit, which refused them when priced in decoder terms (2.8e10); a
    hundred times as many documents, minutes of work, are refused in one line."""
    model = prodlda_like(50, 10_000)
    docs = [np.random.default_rng(d).integers(0, 10_000, size=200) for d in range(3)]
    work = runs.check_limits("is_laplace", docs, model, runs=8, samples=500)
    total = 8 * float(work.sum())
    assert total <= limits.DEFAULT_WORK_LIMIT["logistic_normal"] / 4
    assert total / limits.RATE["logistic_normal"] < 15  # seconds
    with pytest.raises(limits.WorkLimitError, match=r"^is_laplace: the call needs") as refused:
        runs.check_limits("is_laplace", docs * 100, model, runs=8, samples=500)
    message = str(refused.value)
    assert "\n" not in message and "work units (300 documents x 8 runs)" in message
    assert 100 * total / limits.RATE["logistic_normal"] > 180  # seconds
    assert re.search(r"about [\d.]+ min of one core", message)


def test_a_call_over_the_work_limit_is_refused_before_it_runs():
    with pytest.raises(limits.WorkLimitError, match=r"samples <= "):
        topiceval.evaluate(PROBLEMS["mixture-K3-full"], DOCS, samples=10**9, progress=False)
    with pytest.raises(limits.WorkLimitError, match="temperatures <= "):
        topiceval.evaluate(PROBLEMS["mixture-K3-full"], DOCS, "ais", temperatures=10**9,
                           progress=False)


@pytest.mark.parametrize("name", ["mixture-K3-full", "product-K2-full"])
def test_a_document_over_the_limit_is_advised_to_split_only_where_that_helps(name):
    """The mixture's work grows with the document's distinct words, so a split (into one-word
    parts at most) brings a part under a limit between a one-word document's work and this
    document's (a work unit below it); the product's work is K V per evaluation whatever
    the document, so the advice to split is left out (it was given before)."""
    model = PROBLEMS[name]
    work = runs.check_limits("is_laplace", [DOCS[0], np.array([0])], model, work_limit=None,
                             samples=500)
    limit = float(work[0]) - 1
    with pytest.raises(limits.WorkLimitError, match="samples <= ") as refused:
        topiceval.evaluate(model, DOCS[:1], samples=500, runs=1, work_limit=limit,
                           progress=False)
    if model.decoder == "mixture":
        assert work[1] < limit < work[0]
        assert ("or split the document (each part is then scored as a document of its own)"
                in str(refused.value))
    else:
        assert work[1] == work[0] and "split" not in str(refused.value)


def test_a_call_over_the_memory_is_refused(monkeypatch):
    monkeypatch.setattr(limits, "physical_memory", lambda: 2**20)
    with pytest.raises(limits.WorkLimitError, match="GiB"):
        topiceval.evaluate(PROBLEMS["mixture-K3-full"], DOCS, samples=10**5, work_limit=None,
                           progress=False)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs,message", [
    ({"method": "chib"}, "unknown logistic-normal method 'chib'"),
    ({"method": "is_laplace", "df": -1.0}, "setting df must be 0"),
    ({"method": "is_prior", "samples": 0}, "samples"),
    ({"method": "ais", "particles": 3}, "unknown setting"),
])
def test_bad_settings_are_one_line_errors(kwargs, message):
    with pytest.raises(ValueError, match=message) as err:
        topiceval.evaluate(PROBLEMS["mixture-K2-diagonal"], DOCS, progress=False, **kwargs)
    assert "\n" not in str(err.value)


def test_exact_refuses_more_than_three_topics():
    model = random_model("mixture", 4, 5)
    with pytest.raises(ValueError, match="K <= 3") as err:
        topiceval.evaluate(model, DOCS, "exact", progress=False)
    assert "\n" not in str(err.value)


def test_an_empty_document_is_refused_or_skipped():
    docs = [DOCS[0], np.array([], dtype=np.int64)]
    with pytest.raises(ValueError, match="empty='skip'"):
        topiceval.evaluate(PROBLEMS["mixture-K2-diagonal"], docs, progress=False)
    result = topiceval.evaluate(PROBLEMS["mixture-K2-diagonal"], docs, empty="skip",
                                progress=False)
    assert np.isnan(result.logp[1]) and np.isfinite(result.logp[0])


# --------------------------------------------------------------------------- command line
def test_the_command_scores_a_saved_model(tmp_path, capsys):
    """``topiceval evaluate`` reads the family from the model file and gives evaluate's
    numbers; its limit and bad settings are one-line refusals."""
    model = with_words(PROBLEMS["product-K2-full"])
    save_model(tmp_path / "ln.npz", model)
    (tmp_path / "docs.txt").write_text("ant bee bee dog fox\ncat cat eel yak\n")
    out = tmp_path / "est.csv"
    base = ["evaluate", "--model", str(tmp_path / "ln.npz"), "--docs",
            str(tmp_path / "docs.txt"), "--no-progress"]
    assert cli.main(base + ["--df", "3", "--seed", "2", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Logistic-normal is_laplace on 2 of 2 documents" in err
    expected = topiceval.evaluate(model, [["ant", "bee", "bee", "dog", "fox"],
                                          ["cat", "cat", "eel", "yak"]], df=3.0, seed=2,
                                  progress=False)
    np.testing.assert_array_equal(pd.read_csv(out)["logp_nats"], expected.logp)
    assert cli.main(base + ["--samples", str(10**9)]) == 1
    err = capsys.readouterr().err  # one line, with the samples that would fit
    assert "or less (now 1000000000)" in err.split("--samples ")[-1] and err.count("\n") == 1
    assert cli.main(base + ["--method", "chib"]) == 1
    assert "unknown logistic-normal method 'chib'" in capsys.readouterr().err
