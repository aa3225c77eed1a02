"""GaP-FA sampling estimators (§6.4-6.6): kernels = references, determinism, unbiasedness
(DS, sequential L2R, the inner importance estimate), HM's upward bias, L2R / L2R-E convergence,
the exact L2R factor algebra, and input validation."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from reference import gapfa_exact as exact_ref
from reference import gapfa_samplers as ref
from topiceval._numba import multinomial_into, rng_state
from topiceval.estimators import gapfa
from topiceval.estimators.gapfa import _data, _kernels, l2r

SAMPLED = ["ds", "hm", "l2r", "l2r_exact", "l2r_seq"]


def problem(normalised=True):
    rng = np.random.default_rng(7)
    phi = rng.dirichlet(np.full(8, 0.5), 3)
    if not normalised:
        phi[0, 3] = 0.0
        phi *= np.array([[0.7], [1.0], [1.3]])
    return phi, np.array([0.6, 0.8, 0.4]), np.array([1.0, 0.5, 2.0])


DOCS = np.array([
    [2, 0, 1, 0, 1, 0, 0, 0],
    [0, 3, 0, 0, 0, 1, 0, 1],
    [1, 1, 1, 1, 0, 0, 0, 0],
    [0, 0, 2, 0, 0, 2, 1, 0],
    [1, 0, 0, 0, 0, 0, 0, 3],
    [0, 1, 0, 1, 0, 1, 0, 1],
])


# --------------------------------------------------------------------------- kernels = references
REFERENCES = {
    "ds": ({}, ref.ds),
    "hm": ({"burnin": 3}, lambda *a, **k: ref.hm(*a, burnin=3, **k)),
    "l2r": ({"inner_samples": 2, "gibbs": 2}, lambda *a, **k: ref.l2r(*a, inner=2, gibbs=2, **k)),
    "l2r_code": ({"proposal": "code"}, lambda *a, **k: ref.l2r(*a, mode="code", **k)),
    "l2r_exact": ({}, lambda *a, **k: ref.l2r(*a, mode="exact", key=404, **k)),
    "l2r_seq": ({"gibbs": 2}, lambda *a, **k: ref.l2r_seq(*a, gibbs=2, **k)),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
@pytest.mark.parametrize("shapes", ["r below 1: theta in log space", "r >= 1: linear space"])
def test_kernel_equals_reference_on_the_same_streams(name, shapes):
    phi, p, r = problem(normalised=False)
    if shapes.startswith("r >= 1"):
        r = np.array([1.0, 1.5, 2.0])
        assert l2r.linear_scales(np.log(np.outer([1.0, 2.0], p)), r).shape[0] == 2
    counts = np.vstack([DOCS[[0, 3, 4]], np.zeros(8, dtype=int)])  # with an empty document
    settings, reference = REFERENCES[name]
    method = "l2r" if name == "l2r_code" else name
    checkpoints = [1, 3, 7]
    got = gapfa.estimate_curve(method, counts, phi, p, r, checkpoints=checkpoints, seed=5,
                               **settings)
    expected = [reference(y, phi, p, r, seed=5, d=d, checkpoints=checkpoints)
                for d, y in enumerate(counts)]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_topics", [5, 32, 33, 45, 100, 129, 300])
def test_row_draws_equal_a_multinomial_per_row_on_the_same_stream(n_topics):
    """The Gibbs rows' draws (``draw_rows``: block sums, then a count inside the block, for
    T > ``ROW_BLOCK_MAX_FULL``, blocks of 4 (T = 33-128), 8 (129) and 12 topics (300), the
    last one short; every running sum up to it) against ``multinomial_into`` on each
    row's weights phi_jt theta_t in turn: the same topics, so the same column sums and the same
    stream state after.  Rows with zero loadings (never drawn), one whose products all
    underflow (drawn in log space) and a word of 40 tokens."""
    rng = np.random.default_rng(n_topics)
    n_words = 12
    phiw = rng.dirichlet(np.full(n_topics, 0.3), n_words)
    phiw[rng.random(phiw.shape) < 0.3] = 0.0
    phiw[:, 0] = np.where(phiw.sum(1) == 0.0, 1.0, phiw[:, 0])
    log_theta = rng.normal(-50.0, 2.0, n_topics)
    phiw[3] = 0.0
    phiw[3, [1, 2, 4]] = 1e-300  # with theta_1,2,4 below 1e-26 of the largest: underflow
    log_theta[[1, 2, 4]] = log_theta[[0, 3]].max() - 60.0
    counts = rng.integers(1, 4, n_words)
    counts[5] = 40
    theta = np.exp(log_theta - log_theta.max())
    with np.errstate(divide="ignore"):
        log_phiw = np.log(phiw)
    assert not (phiw[3] * theta).any()
    for n_rows in (n_words, 7):
        stream = rng_state(9, n_topics, n_rows)
        x_sum = np.zeros(n_topics, dtype=np.int64)
        _kernels.sample_rows(stream, n_rows, counts, _kernels.transposed(phiw), phiw, log_phiw,
                             log_theta, x_sum, _kernels.rows_work(n_words, n_topics))
        expected_stream = rng_state(9, n_topics, n_rows)
        expected = np.zeros(n_topics, dtype=np.int64)
        for j in range(n_rows):
            weights = phiw[j] * theta
            if not weights.any():
                logits = log_phiw[j] + log_theta
                weights = np.exp(logits - logits.max())
            row = np.zeros(n_topics, dtype=np.int64)
            multinomial_into(expected_stream, int(counts[j]), weights, np.empty(n_topics), row)
            assert not row[weights == 0.0].any()
            expected += row
        np.testing.assert_array_equal(x_sum, expected)
        np.testing.assert_array_equal(stream, expected_stream)
        assert x_sum.sum() == counts[:n_rows].sum()


# --------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("method", SAMPLED)
@pytest.mark.two_threads
def test_results_do_not_depend_on_thread_count_and_repeat(method):
    phi, p, r = problem()
    counts = sp.csr_matrix(np.vstack([DOCS, DOCS[:1]]))
    one = gapfa.estimate(method, counts, phi, p, r, samples=20, seed=3, threads=1)
    two = gapfa.estimate(method, counts, phi, p, r, samples=20, seed=3, threads=2)
    np.testing.assert_array_equal(one, two)
    assert one[0] != one[-1]  # the same document at another position: an independent run
    other = gapfa.estimate(method, counts, phi, p, r, samples=20, seed=4, threads=2)
    assert np.all(other != one)


def test_estimate_is_the_last_checkpoint_of_the_curve():
    phi, p, r = problem()
    curve = gapfa.estimate_curve("l2r", DOCS, phi, p, r, checkpoints=[2, 10, 30], seed=1)
    np.testing.assert_array_equal(curve[:, -1],
                                  gapfa.estimate("l2r", DOCS, phi, p, r, samples=30, seed=1))


# --------------------------------------------------------------------------- statistics
def ratios(method, doc, replicates, **settings):
    """p-hat / p for ``replicates`` independent runs (copies of the document)."""
    phi, p, r = problem()
    exact = gapfa.estimate("exact", DOCS[doc : doc + 1], phi, p, r)[0]
    copies = np.repeat(DOCS[doc : doc + 1], replicates, axis=0)
    return np.exp(gapfa.estimate(method, copies, phi, p, r, seed=11, **settings) - exact)


@pytest.mark.parametrize(("method", "settings"), [
    ("ds", {"samples": 2}),
    ("l2r_seq", {"samples": 1}),
    ("l2r_seq", {"samples": 2, "gibbs": 0}),
])
@pytest.mark.parametrize("doc", [0, 1, 2])
def test_unbiased_in_probability(method, settings, doc):
    w = ratios(method, doc, 5000, **settings)
    assert abs(w.mean() - 1.0) <= 4 * w.std(ddof=1) / math.sqrt(w.size)


@pytest.mark.parametrize("doc", [0, 1, 2])
def test_harmonic_mean_overestimates(doc):
    w = ratios("hm", doc, 500, samples=20, burnin=20)
    log_w = np.log(w)
    assert log_w.mean() > 4 * log_w.std(ddof=1) / math.sqrt(w.size)
    assert w.mean() - 1.0 > 4 * w.std(ddof=1) / math.sqrt(w.size)


@pytest.mark.parametrize("proposal", [l2r.PAPER, l2r.CODE])
def test_inner_importance_estimate_is_unbiased_for_the_exact_conditional(proposal):
    # (6.17) is unbiased for (6.15) given a left sample: fix a_t and pi_tj, vary the draws
    a = np.array([1.5, 0.5, 4.0])
    pi = np.array([0.05, 0.3, 0.12])
    y = 4
    log_phi = np.log([0.1, 0.3, 0.2])
    log_left = np.log([0.6, 0.9, 0.5])
    log_rho, rho = np.empty(3), np.empty(3)
    l2r.proposal(proposal, log_phi, a, log_left, np.log(pi), log_rho, rho)
    exact = l2r.exact_conditional(y, a, pi, np.empty(y + 1), np.empty(y + 1), np.empty(y + 1))
    rng = rng_state(3, proposal)
    w = np.exp([l2r.is_conditional(rng, y, a, pi, log_rho, rho, 1, np.empty(3),
                                   np.zeros(3, dtype=np.int64)) - exact for _ in range(20_000)])
    assert abs(w.mean() - 1.0) <= 4 * w.std(ddof=1) / math.sqrt(w.size)


@pytest.mark.parametrize("method", ["l2r", "l2r_exact"])
def test_left_to_right_converges_to_exact(method):
    # Consistent, not unbiased: the error shrinks like S^-1/2.  Tolerance at S = 5,000: 0.1 nats
    # per document (about 4 standard deviations over seeds; observed sd <= 0.025).
    phi, p, r = problem()
    exact = gapfa.estimate("exact", DOCS, phi, p, r)
    curve = gapfa.estimate_curve(method, DOCS, phi, p, r, checkpoints=[50, 5000], seed=2)
    err = np.abs(curve - exact[:, None])
    assert np.all(err[:, 1] < 0.1)
    assert err[:, 1].mean() < err[:, 0].mean() / 3


def test_exact_l2r_factors_multiply_to_the_exact_marginal():
    # (6.14)-(6.18): E_{x_<j ~ p(x_<j | y_<j)} p(y_j | x_<j) = p(y_<=j) / p(y_<j), and the zero
    # block averaged under p(x_1..J | y_1..J) is p(y) / p(y_1..J) (§8.4)
    phi, p, r = problem(normalised=False)
    y = DOCS[3]
    docs, params = _data.prepare(y[None, :], phi, p, r)
    phiw, _ = _kernels.document_loadings(docs.words, params)
    log_left, pi, _, log_zero = l2r.prefix_terms(phiw, params)
    ys = docs.counts
    n_words = ys.size
    buf = [np.empty(ys.max() + 1) for _ in range(3)]
    log_prefix = [exact_ref.prefix_log_marginal(ys, phiw, p, r, j) if j else 0.0
                  for j in range(n_words + 1)]
    for j in range(n_words):
        factor = sum(w * math.exp(l2r.exact_conditional(int(ys[j]), r + x.sum(0), pi[j], *buf))
                     for w, x in exact_ref.left_posterior(ys, phiw, p, r, j))
        assert math.isclose(math.log(factor), log_prefix[j + 1] - log_prefix[j], rel_tol=1e-10)
    zero = sum(w * math.exp((r + x.sum(0)) @ log_zero)
               for w, x in exact_ref.left_posterior(ys, phiw, p, r, n_words))
    full = exact_ref.brute_force_log_marginal(y, phi, p, r)
    assert math.isclose(math.log(zero), full - log_prefix[-1], rel_tol=1e-10)
    assert np.allclose(np.exp(log_left[0]), p / (1 - p))  # F = 0: the prior scale


@pytest.mark.parametrize("method", SAMPLED)
def test_topic_with_tiny_p_is_tolerated(method):
    phi, p, r = problem()
    phi_dead = np.vstack([phi, np.full((1, 8), 1 / 8)])
    p_dead, r_dead = np.append(p, 1e-300), np.append(r, 1.0)
    exact = gapfa.estimate("exact", DOCS, phi, p, r)
    assert np.allclose(gapfa.estimate("exact", DOCS, phi_dead, p_dead, r_dead), exact,
                       rtol=1e-13)
    est = gapfa.estimate(method, DOCS, phi_dead, p_dead, r_dead, samples=200)
    assert np.all(np.isfinite(est)) and np.all(np.abs(est - exact) < 1.5)


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(("kwargs", "match"), [
    ({"method": "lr"}, "unknown GaP-FA method"),
    ({"counts": np.ones((2, 7))}, "7 columns but the model has V = 8"),
    ({"counts": -DOCS}, "non-negative; document 0"),
    ({"counts": DOCS + 0.5}, "integers; document 0"),
    ({"counts": np.ones(8)}, "2-D"),
    ({"counts": np.ones((0, 8))}, "no documents"),
    ({"p": np.array([0.5, 1.0, 0.5])}, r"p must lie in \(0, 1\)"),
    ({"r": np.array([1.0, 0.0, 1.0])}, "r must be finite and strictly positive"),
    ({"phi": np.ones((3, 8)) * -1}, "non-negative"),
    ({"p": np.array([0.5, 0.5])}, r"p must have shape \(T,\)"),
    ({"samples": 0}, r"samples must be an integer in \[1, 2\*\*63\)"),
    ({"burnin": 5}, r"unknown setting\(s\) burnin for method 'ds'"),
    ({"seed": -1}, "seed must be an integer"),
    ({"method": "l2r", "gibbs": 0}, r"gibbs must be an integer in \[1, .* for 'l2r': its left"),
])
def test_bad_input_raises_value_error(kwargs, match):
    phi, p, r = problem()
    args = {"method": "ds", "counts": DOCS, "phi": phi, "p": p, "r": r, **kwargs}
    with pytest.raises(ValueError, match=match):
        gapfa.estimate(args.pop("method"), args.pop("counts"), args.pop("phi"), args.pop("p"),
                       args.pop("r"), **args)


def test_word_without_loading_and_bad_checkpoints_raise():
    phi, p, r = problem()
    phi[:, 2] = 0.0
    with pytest.raises(ValueError, match="document 0 contains word 2"):
        gapfa.estimate("l2r", DOCS, phi, p, r)
    phi, p, r = problem()
    for bad in ([], [0, 5], [5, 5], [3.0]):
        with pytest.raises(ValueError, match="checkpoints"):
            gapfa.estimate_curve("ds", DOCS, phi, p, r, checkpoints=bad)
    with pytest.raises(ValueError, match="last checkpoint"):
        gapfa.estimate_curve("ds", DOCS, phi, p, r, checkpoints=[5], samples=6)
    with pytest.raises(ValueError, match="does not sample"):
        gapfa.estimate_curve("exact", DOCS, phi, p, r, checkpoints=[5])
    with pytest.raises(ValueError, match="proposal"):
        gapfa.estimate("l2r", DOCS, phi, p, r, proposal="prior")
