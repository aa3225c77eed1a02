"""BDMC's reverse AIS for the logistic-normal family: the kernel against its NumPy reference,
and, from exact posterior samples (rejection from the prior), exp(-acc) unbiased for 1/P(w_d)
within 5 of its standard errors, and the runs' mean acc above log P(w_d) and the forward runs'
mean log w below it; from prior draws instead of posterior
ones, the same criterion fails."""

import numpy as np
import pytest

from reference import logistic_normal_ref as ref
from reference.logistic_normal_ref import random_model
from topiceval import _numba as nb
from topiceval.estimators.schedule import schedule
from topiceval.logistic_normal.ais import ais
from topiceval.logistic_normal.bdmc import bdmc_upper, reverse_ais_run
from topiceval.logistic_normal.exact import exact
from topiceval.logistic_normal.likelihood import document_decoder

DOC = np.array([0, 2, 2])
MODELS = {"mixture": random_model("mixture", 2, 21), "product": random_model("product", 3, 22)}


@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_reverse_kernel_matches_the_reference(decoder):
    dec = document_decoder(MODELS[decoder], DOC)
    tau = schedule(np.array([0.05, 0.3, 0.6, 1.0]))
    start = np.linspace(-0.5, 0.5, dec.mu.size)
    got = reverse_ais_run(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu, dec.chol,
                          tau, start, nb.rng_state(3, 9))
    assert got == pytest.approx(ref.reverse_ais(dec, tau, start, nb.rng_state(3, 9)), rel=1e-12)


@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_the_reverse_runs_bound_log_p_from_above(decoder):
    model = MODELS[decoder]
    dec = document_decoder(model, DOC)
    truth = exact(model, DOC).log_p
    starts = ref.posterior_by_rejection(dec, 200, seed=1)
    upper = bdmc_upper(model, DOC, starts, temperatures=20, seed=2)
    assert upper.se < 0.1
    assert abs(np.expm1(truth - upper.log_p)) <= 5 * upper.se  # 1 / P-hat, unbiased
    acc = -upper.log_weights
    lower = ais(model, DOC, temperatures=20, runs=200, seed=2)[0]
    assert lower.log_weights.mean() < truth < acc.mean()
    prior_starts = dec.mu + np.random.default_rng(1).standard_normal((200, dec.mu.size)) @ \
        dec.chol.T
    wrong = bdmc_upper(model, DOC, prior_starts, temperatures=20, seed=2)
    assert abs(np.expm1(truth - wrong.log_p)) > 5 * wrong.se


def test_posterior_samples_of_the_wrong_shape_are_named():
    with pytest.raises(ValueError, match=r"posterior must be finite samples of z, of shape"):
        bdmc_upper(MODELS["mixture"], DOC, np.zeros((4, 3)))
