"""Can this number be trusted?  Diagnostics of every held-out likelihood estimate
(docs/trust.md; issue 31).

Every sampling estimator already has, while it runs, what says whether its number can be
trusted; its kernel keeps a compact summary of it per (document, run) task in a *record*, and
``diagnose`` turns the R records of each document into one row of ``Runs.diagnostics`` and
``Evaluation.diagnostics``.  Estimates themselves never change: the records are written beside
them, from the same numbers.

Kinds of record (``Method.diagnostics``), one per family of estimator:

``"weights"`` (IS-PT, IS-PZW, IS-IP, the left-to-right particles, ET, HM, GaP-FA DS, HM and
    l2r_seq): the estimate is the log of a mean of importance weights w_s = exp(l_s) (HM: of
    1 / likelihood).  The record holds the count, the running log-sums of w and w^2, the last
    weight and how many weights repeated the one before them, and the largest K log weights (a
    min-heap; ``record_weight``).  Pooled over the R runs, the R x S weights of a document are
    one importance sample (the runs are averaged in probability, so the pooled mean *is* the
    estimate): ``khat`` is the Pareto shape of their largest ``tail_length(R S)`` weights
    (``pareto_khat``), ``ess`` their effective sample size (sum w)^2 / sum w^2
    (``weights_ess``) and ``repeats`` the share of draws that repeat the weight of the draw
    before (a proposal that keeps drawing one state).
``"factors"`` (GaP-FA L2R and L2R-E): each factor p(y_j | y_<j) is a mean over one chain of S
    weights, and the estimate is the sum of their log-means; the kernel fits k-hat of every
    factor's S weights (``factor_numbers``) and keeps, per run, the largest k-hat, the smallest
    ESS over the factors (a factor's ESS: the smaller of its weights' and its chain's,
    ``chain_ess`` of the log weights) and the delta-method variance that the factors whose
    k-hat is above PSIS's threshold for S weights carry in the run's log estimate.  A factor's
    k-hat says whether its own mean can be trusted (Vehtari et al. 2024); it matters to the sum
    only as much as the factor's share of its error, so the rule judges the standard deviation
    those factors carry (median over runs, against ``FACTOR_SD_MAX``), not the largest k-hat,
    which over J noisy fits of a few dozen tail weights is biased far upward
    (docs/trust.md#l2rs-factors).  ``khat`` is the median over runs of the largest (shown),
    ``ess`` the sum over runs of the smallest.
``"chain"`` (Chib-style): the Markov chain's log-likelihood log P(w | z^(s), Phi) at each of its
    S states; the record holds the chain's effective sample size (``chain_ess``) and the mean
    and variance of each half of the chain, from which ``split_rhat`` computes the split R-hat
    over the 2R half-chains of the document's runs.  Runs whose chains sit in different modes
    of the posterior (tiny alpha m) disagree in their log-likelihoods: R-hat >> 1.
``"runs"`` (AIS, AIS-DC; ratio-AIS's samples): one importance weight per run, the run
    estimates themselves; the record (one number per run) holds the share of the annealing
    transitions after which the run's chain had moved (0: it never moved, and the estimate is
    importance sampling from the start distribution).

Against certain bounds (every sampling estimate of log P(w) and of document completion, LDA
and GaP-FA; not ratio-AIS): ``floor``, the sum of the terms of a set of allocations of the
document's counts to topics, those that differ in one word's row from an allocation x* found
by hill climbing and those that put every count on one topic (``estimators.floor``).  The marginal
sums all such terms, every one a probability, so log P(w) >= the floor: an estimate whose
interval (the runs' average plus two standard errors) ends more than ``FLOOR_SLACK`` below it
misses log P(w) by at least that much, however its runs agree.  It sees what the weights
cannot: a proposal that never draws the allocations carrying the mass.  ``ceiling``, a bound
from above on the same sum over every allocation (``estimators.ceiling``): an estimate whose
interval (the average less two standard errors) starts more than ``FLOOR_SLACK`` above it is
too high by at least that much.  For document completion, log P(w2 | w1) = log P(w) -
log P(w1) is bounded by the floor of w less the ceiling of w1 and the ceiling of w less the
floor of w1.  An estimate within ``FLOOR_SLACK`` of both bounds is within that of log P(w) for
certain: it is *certified*, and trusted whatever the other checks say.

Across runs, for every kind: ``runs_spread``, the share of the document's probability average
carried by its largest run.  When one run carries most of it, the delta-method standard error
is bounded by about one nat whatever the error (the other runs contribute nothing), so the
standard error cannot be trusted.

``trusted`` (``trust``) combines them; its thresholds (``KHAT_MAX``, ``REPEATS_MAX``,
``ESS_MIN``, ``RHAT_MAX``, ``MOVED_MIN``, ``SHARE_MAX``) were fixed on the calibration problems
of the exact-answer battery (``tests/trust_battery.py``) before the test's problems were run,
and are documented in docs/trust.md.

References: Vehtari, Simpson, Gelman, Yao and Gabry, "Pareto smoothed importance sampling", JMLR
25(72), 2024 (k-hat, its sample-size-dependent threshold, the tail length); Zhang and Stephens,
"A new and efficient estimation method for the generalized Pareto distribution", Technometrics
51, 2009 (the fit); Vehtari, Gelman, Simpson, Carpenter and Buerkner, "Rank-normalization,
folding, and localization: an improved R-hat", Bayesian Analysis 16, 2021 (split R-hat, ESS);
Kish, "Survey Sampling", 1965 (the ESS of weights).  The numbers equal ArviZ's ``psislw`` k-hat,
``rhat(method="split")`` and ``ess(method="mean")`` (tests/test_diagnostics.py); ArviZ itself
is not a dependency (it pulls in xarray).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numba import njit
from scipy.special import logsumexp

from topiceval._numba import lse_add, lse_value

if TYPE_CHECKING:
    import pandas as pd

# a weights record: count, (m, s) of log sum w, (m, s) of log sum w^2, the last log weight and
# how many weights repeated the one before them, then the heap
HEAD = 7
LOG_TINY = math.log(np.finfo(np.float64).tiny)  # PSIS's floor of the tail's threshold
CHAIN = 6  # a chain record: ESS, half length, mean and variance of each half
KINDS = ("weights", "factors", "chain", "runs", "")
COLUMNS = ("khat", "ess", "rhat", "runs_spread", "repeats", "heavy_factor_sd", "floor",
           "ceiling", "trusted", "reason")

# the rule of ``trust`` (docs/trust.md#the-rule), fixed on the battery's calibration problems
# (seeds 101 and 102 of tests/trust_battery.py) before the test's problems were run
# PSIS's cap (Vehtari et al. 2024, sec. 3.2.4): k-hat is trusted up to min(1 - 1 / log10(n), 0.7)
# for n weights (a recalibration lifted the cap to 1 to spare L2R's factor fits, which the factor
# rule below now judges by their weight in the estimate instead)
KHAT_MAX = 0.7
# L2R: the largest standard deviation (nats) the factors PSIS does not trust may carry in a run's
# log estimate (docs/trust.md#l2rs-factors): the slack of 0.1 nats beyond the standard
# errors
FACTOR_SD_MAX = 0.1
REPEATS_MAX = 0.75  # the largest share of draws whose weight may repeat the draw's before
# (0.7 and 20 before the recalibration)
ESS_MIN = 9.0  # the fewest effective samples of a document's pooled weights, chains or factors
RHAT_MAX = 1.05  # split R-hat of the Chib-style chains' log-likelihoods over the runs
MOVED_MIN = 0.01  # the smallest share of annealing transitions after which the chains moved
SHARE_MAX = 0.8  # the largest share of the probability average one run may carry (R >= 3)
# the most nats an estimate's interval (its runs' average + 2 standard errors) may end below its
# floor, log of p(w, z) summed over a set of latent states, which log p(w) cannot be below
# (docs/trust.md#the-floor): the slack of 0.1 nats, not tuned; the same slack above the
# ceiling (docs/trust.md#the-ceiling)
FLOOR_SLACK = 0.1

# --------------------------------------------------------------------------- kernel side
@njit(cache=True, error_model="numpy")
def record_reset(rec):
    """Empty a weights record (``rec`` of length ``HEAD`` + K; K = 0 keeps no tail)."""
    rec[0] = 0.0
    rec[1] = -np.inf
    rec[2] = 0.0
    rec[3] = -np.inf
    rec[4] = 0.0
    rec[5] = -np.inf
    rec[6] = 0.0
    for i in range(HEAD, rec.shape[0]):
        rec[i] = -np.inf


@njit(cache=True, error_model="numpy")
def record_weight(rec, x):
    """Add the log weight ``x`` to a weights record: its count, the running log-sums of w and
    w^2, whether it repeats the weight before it, and, if it is among the K largest so far,
    the min-heap ``rec[HEAD:]``."""
    rec[0] += 1.0
    rec[1], rec[2] = lse_add(rec[1], rec[2], x)
    rec[3], rec[4] = lse_add(rec[3], rec[4], 2.0 * x)
    if x == rec[5]:
        rec[6] += 1.0
    rec[5] = x
    k = rec.shape[0] - HEAD
    if k == 0 or not x > rec[HEAD]:
        return
    i = 0
    while True:  # sift the new value down from the root, replacing the smallest
        c = 2 * i + 1
        if c >= k:
            break
        if c + 1 < k and rec[HEAD + c + 1] < rec[HEAD + c]:
            c += 1
        if rec[HEAD + c] >= x:
            break
        rec[HEAD + i] = rec[HEAD + c]
        i = c
    rec[HEAD + i] = x


@njit(cache=True, error_model="numpy")
def tail_length(n):
    """M = ceil(min(n / 5, 3 sqrt(n))), the weights PSIS fits its Pareto tail to (Vehtari et
    al. 2024, with relative efficiency 1), for n weights."""
    return int(math.ceil(min(n / 5.0, 3.0 * math.sqrt(n))))


@njit(cache=True, error_model="numpy")
def gpd_khat(ary):
    """The shape k of a generalized Pareto distribution fitted to the positive exceedances
    ``ary`` (sorted ascending, at least 5) by the empirical Bayes estimate of Zhang and
    Stephens (2009), with the weakly informative prior of Vehtari et al. (2024): ArviZ's
    ``_gpdfit``."""
    n = ary.shape[0]
    m_est = 30 + int(n**0.5)
    quartile = ary[int(n / 4 + 0.5) - 1]
    b = np.empty(m_est)
    for i in range(m_est):
        b[i] = (1.0 - math.sqrt(m_est / (i + 1.0 - 0.5))) / (3.0 * quartile) + 1.0 / ary[n - 1]
    scale = np.empty(m_est)
    for i in range(m_est):
        k = 0.0
        for j in range(n):
            k += math.log1p(-b[i] * ary[j])
        k /= n
        scale[i] = n * (math.log(-(b[i] / k)) - k - 1.0)
    b_post = 0.0
    total = 0.0
    for i in range(m_est):
        w = 0.0
        for j in range(m_est):
            w += math.exp(scale[j] - scale[i])
        w = 1.0 / w
        if w >= 10.0 * 2.220446049250313e-16:  # negligible weights are dropped
            b_post += b[i] * w
            total += w
    if not total > 0.0:
        return np.nan
    b_post /= total
    k = 0.0
    for j in range(n):
        k += math.log1p(-b_post * ary[j])
    k /= n
    return (n * k + 10.0 * 0.5) / (n + 10.0)


@njit(cache=True, error_model="numpy")
def khat_of_top(top, n):
    """k-hat of n log weights from their largest values ``top`` (sorted ascending, at least
    ``tail_length(n) + 1`` of them, or all n): the tail is every weight above the
    (M + 1)-th largest, M = ``tail_length(n)``, as in ArviZ's ``psislw``.  NaN when fewer than
    5 weights lie above it (too few weights), or fewer than M / 2 because the weights tie at
    the threshold (clustered weights, such as those of a proposal that draws a few states
    over and over, have no Pareto tail: ArviZ fits one, and its k-hat says nothing); inf when
    the largest weights exceed all the others by more than the double range (ArviZ: inf)."""
    m = tail_length(n)
    if m + 1 > top.shape[0] or not np.isfinite(top[top.shape[0] - 1]):
        return np.nan
    largest = top[top.shape[0] - 1]
    below = top[top.shape[0] - m - 1] - largest
    cutoff = max(below, LOG_TINY)
    base = math.exp(cutoff)
    tail = np.empty(m)
    size = 0
    for i in range(top.shape[0] - m, top.shape[0]):
        x = top[i] - largest
        excess = math.exp(x) - base
        if x > cutoff and excess > 0.0:  # (rounding can make a tiny excess 0)
            tail[size] = excess
            size += 1
    if below < LOG_TINY and size <= 4:
        return np.inf
    if size <= 4 or size < m / 2.0:
        return np.nan
    return gpd_khat(tail[:size])


@njit(cache=True, error_model="numpy")
def record_khat(rec):
    """k-hat of the weights of one weights record (its heap holds ``tail_length(n) + 1``
    values or more): ``khat_of_top`` of its sorted tail."""
    return khat_of_top(np.sort(rec[HEAD:]), int(rec[0]))


@njit(cache=True, error_model="numpy")
def record_ess(rec):
    """(sum w)^2 / sum w^2 of the weights of one record (NaN for an empty record)."""
    if rec[0] == 0.0:
        return np.nan
    return math.exp(2.0 * lse_value(rec[1], rec[2]) - lse_value(rec[3], rec[4]))


@njit(cache=True, error_model="numpy")
def _acov(x, mean, lag):
    """sum_{i < n - lag} (x_i - mean)(x_{i + lag} - mean) / n, the biased autocovariance."""
    n = x.shape[0]
    s = 0.0
    for i in range(n - lag):
        s += (x[i] - mean) * (x[i + lag] - mean)
    return s / n


@njit(cache=True, error_model="numpy")
def chain_ess(x):
    """Effective sample size of the mean of one chain ``x``: ArviZ's ``ess(method="mean")``
    (the chain split in halves, Geyer's initial positive then monotone sequence of the
    autocorrelations; Vehtari et al. 2021), the autocovariances summed directly, lag by lag,
    only as far as the sequence goes.  NaN for fewer than 4 draws or a non-finite one; the
    number of draws for a constant chain."""
    n_all = x.shape[0]
    if n_all < 4:
        return np.nan
    for i in range(n_all):
        if not np.isfinite(x[i]):
            return np.nan
    n = n_all // 2
    first = x[:n]
    second = x[n_all - n:]
    lo, hi = min(first.min(), second.min()), max(first.max(), second.max())
    if hi - lo < 1e-15:
        return 2.0 * n
    m0, m1 = first.mean(), second.mean()
    mean_var = (_acov(first, m0, 0) + _acov(second, m1, 0)) / 2.0 * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n + (m0 - m1) ** 2 / 2.0
    rho = np.zeros(n)
    rho[0] = 1.0
    even = 1.0
    odd = 1.0 - (mean_var - (_acov(first, m0, 1) + _acov(second, m1, 1)) / 2.0) / var_plus
    rho[1] = odd
    t = 1
    while t < n - 3 and even + odd > 0.0:
        even = 1.0 - (mean_var - (_acov(first, m0, t + 1) + _acov(second, m1, t + 1)) / 2.0) \
            / var_plus
        odd = 1.0 - (mean_var - (_acov(first, m0, t + 2) + _acov(second, m1, t + 2)) / 2.0) \
            / var_plus
        if even + odd >= 0.0:
            rho[t + 1] = even
            rho[t + 2] = odd
        t += 2
    max_t = t - 2
    if even > 0.0:
        rho[max_t + 1] = even
    t = 1
    while t <= max_t - 2:
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = (rho[t - 1] + rho[t]) / 2.0
            rho[t + 2] = rho[t + 1]
        t += 2
    tau = -1.0 + 2.0 * rho[: max_t + 1].sum() + rho[max_t + 1 : max_t + 2].sum()
    total = 2.0 * n
    tau = max(tau, 1.0 / math.log10(total))
    return total / tau


@njit(cache=True, error_model="numpy")
def chain_record(x, rec):
    """Fill a chain record ``rec`` (length >= ``CHAIN``) from one chain ``x``: its ESS
    (``chain_ess``), the half length n = len(x) // 2, and the mean and variance (ddof 1) of
    its first n and last n draws (the halves of ``split_rhat``)."""
    n_all = x.shape[0]
    n = n_all // 2
    rec[0] = chain_ess(x)
    rec[1] = n
    for h, half in enumerate((x[:n], x[n_all - n:])):
        mean = half.mean() if n else np.nan
        rec[2 + 2 * h] = mean
        var = 0.0
        for i in range(n):
            var += (half[i] - mean) ** 2
        rec[3 + 2 * h] = var / (n - 1.0) if n > 1 else np.nan


@njit(cache=True, error_model="numpy")
def factors_reset(rec, n):
    """Start a factors record: largest k-hat (none yet), smallest ESS (none yet), n, the
    weights of each factor, and the variance carried by heavy-tailed factors (none yet)."""
    rec[0] = -np.inf
    rec[1] = np.inf
    rec[2] = n
    rec[3] = 0.0


@njit(cache=True, error_model="numpy")
def khat_threshold(n):
    """min(1 - 1 / log10(n), ``KHAT_MAX``): the largest k-hat at which n weights still give a
    reliable mean (Vehtari et al. 2024, sec. 3.2.4); NaN for 10 weights or fewer (k-hat is
    not fitted on so few)."""
    return min(1.0 - 1.0 / math.log10(n), KHAT_MAX) if n > 10 else math.nan


@njit(cache=True, error_model="numpy")
def factor_numbers(factor, chain):
    """(k-hat, ESS, variance) of one L2R factor from its weights record ``factor`` and
    ``chain``, its log weights in the order of the chain that drew them: k-hat of its weights
    (``record_khat``), its ESS, the smaller of its weights' (``record_ess``, Kish) and its
    chain's (``chain_ess``), and the delta-method variance of the log of its mean,
    (S / ESS_Kish - 1) / ESS_chain: the weights' squared coefficient of variation over the
    chain's effective draws (NaN where the chain's ESS is)."""
    kish = record_ess(factor)
    chain_n = chain_ess(chain)
    variance = (factor[0] / kish - 1.0) / chain_n
    return record_khat(factor), min(kish, chain_n), max(variance, 0.0)


@njit(cache=True, error_model="numpy")
def factors_add(rec, factor, chain):
    """Fold one factor into the factors record ``rec``: its weights record ``factor`` and
    ``chain``, the log weights in the order of the chain that drew them.  Keeps the largest
    k-hat and the smallest ESS over the factors so far, and adds the variance of a factor whose
    k-hat is above ``khat_threshold`` of its weights to ``rec[3]`` (``factor_numbers``)."""
    k, e, variance = factor_numbers(factor, chain)
    if k > rec[0]:
        rec[0] = k
    if e < rec[1]:
        rec[1] = e
    if k > khat_threshold(factor[0]) and np.isfinite(variance):
        rec[3] += variance


# --------------------------------------------------------------------------- the statistics
def record_width(kind: str, per_run: int, runs: int) -> int:
    """Length of one task's record for a method of diagnostics ``kind`` with ``per_run``
    weights (samples, particles) per run and ``runs`` runs: a weights record keeps the
    ``tail_length(runs x per_run) + 1`` largest weights (all of them if a run has fewer), so
    that the document's pooled tail is exact; a factors record, each factor's own tail."""
    if kind == "weights":  # (as a float: R S may be beyond int64, for the memory check to refuse)
        return HEAD + min(tail_length(float(runs * per_run)) + 1, per_run)
    if kind == "factors":
        return HEAD + min(tail_length(per_run) + 1, per_run)
    if kind == "chain":
        return CHAIN
    return 1 if kind == "runs" else 0


def pareto_khat(log_weights: np.ndarray) -> float:
    """k-hat of the importance weights exp(``log_weights``) (any order): the Pareto shape of
    their largest ``tail_length(n)`` (Vehtari et al. 2024), as ArviZ's ``psislw`` with
    relative efficiency 1; NaN when fewer than 5 distinct weights lie in the tail.

    Parameters
    ----------
    log_weights : array_like of float
        The log importance weights (natural logs), any shape (flattened).

    Returns
    -------
    float
        k-hat: below 0.7 (``KHAT_MAX``) the weights' mean can be trusted.
    """
    lw = np.sort(np.asarray(log_weights, dtype=np.float64).ravel())
    n = lw.size
    return float(khat_of_top(lw[max(n - tail_length(n) - 1, 0):], n)) if n else math.nan


def weights_ess(log_weights: np.ndarray) -> float:
    """(sum w)^2 / sum w^2 of the weights exp(``log_weights``) (Kish), between 1 and n.

    Parameters
    ----------
    log_weights : array_like of float
        The log importance weights (natural logs), any shape (flattened).

    Returns
    -------
    float
        The effective sample size; NaN for no weight.

    Examples
    --------
    >>> import numpy as np
    >>> from topiceval.diagnostics import weights_ess
    >>> weights_ess(np.zeros(4)), weights_ess(np.array([0.0, -np.inf, -np.inf]))
    (4.0, 1.0)
    """
    lw = np.asarray(log_weights, dtype=np.float64).ravel()
    if not lw.size:
        return math.nan
    top = lw.max()
    w = np.exp(lw - top)
    return float(w.sum() ** 2 / (w * w).sum())


def split_rhat(means: np.ndarray, variances: np.ndarray, n: int) -> float:
    """Split R-hat from the means and variances (ddof 1) of half-chains of ``n`` draws each:
    sqrt((B / W + n - 1) / n), B = n var(means), W = mean(variances) (Gelman et al.; ArviZ's
    ``rhat(method="split")``).  NaN when every half-chain is constant and they agree; inf when
    they are constant and disagree.

    Parameters
    ----------
    means : array_like of float
        The mean of each half-chain (at least 2).
    variances : array_like of float
        The variance (ddof 1) of each half-chain.
    n : int
        The draws in each half-chain (at least 2).

    Returns
    -------
    float
        R-hat: above 1.05 (``RHAT_MAX``) the chains disagree.
    """
    means = np.asarray(means, dtype=np.float64)
    variances = np.asarray(variances, dtype=np.float64)
    if means.size < 2 or n < 2 or not np.all(np.isfinite(means)):
        return math.nan
    between = n * np.var(means, ddof=1)
    within = float(np.mean(variances))
    if within == 0.0:
        return math.nan if between == 0.0 else math.inf
    return float(np.sqrt((between / within + n - 1.0) / n))


def runs_spread(logp_runs: np.ndarray) -> np.ndarray:
    """Per document, the share max_r w_r / sum_r w_r of the probability average carried by its
    largest run (w_r = exp(l_r)): 1 / R when the runs agree, near 1 when one run dominates and
    the delta-method standard error says nothing.  NaN for one run or a missing estimate.

    Parameters
    ----------
    logp_runs : array_like of float, shape (D, R) or (R,)
        The log estimate of each document's runs.

    Returns
    -------
    numpy.ndarray, shape (D,)
        The largest run's share of each document's average.
    """
    logp_runs = np.atleast_2d(np.asarray(logp_runs, dtype=np.float64))
    out = np.full(logp_runs.shape[0], np.nan)
    if logp_runs.shape[1] < 2:
        return out
    ok = np.all(np.isfinite(logp_runs), axis=1)
    lp = logp_runs[ok]
    w = np.exp(lp - lp.max(axis=1, keepdims=True))
    out[ok] = 1.0 / w.sum(axis=1)
    return out


def run_average(logp_runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per document, the log of the (D, R) runs' average in probability, log (1/R) sum_r
    exp(l_r), and its delta-method standard error, the standard deviation of the ratios
    exp(l_r - average) over sqrt(R) (NaN for one run): what ``evaluation.combine_runs``
    reports for documents that have every run.

    Parameters
    ----------
    logp_runs : array_like of float, shape (D, R) or (R,)
        The log estimate of each document's runs.

    Returns
    -------
    logp, stderr : numpy.ndarray, shape (D,)
        The log of the average in probability and its standard error.
    """
    logp_runs = np.atleast_2d(np.asarray(logp_runs, dtype=np.float64))
    n_runs = logp_runs.shape[1]
    with np.errstate(invalid="ignore"):
        logp = logsumexp(logp_runs, axis=1) - np.log(n_runs)
        if n_runs < 2:
            return logp, np.full(logp.shape, np.nan)
        ratio = np.exp(logp_runs - logp[:, None])
        return logp, ratio.std(axis=1, ddof=1) / np.sqrt(n_runs)


def share_threshold(runs: int) -> float:
    """The largest ``runs_spread`` trusted with ``runs`` runs: ``SHARE_MAX``, or, with two
    runs (whose largest share is at least 1/2), the share of runs 1.4 nats apart."""
    return SHARE_MAX if runs >= 3 else 1.0 / (1.0 + math.exp(-1.4))


# --------------------------------------------------------------------------- per document
@dataclass
class Rows:
    """The diagnostics of D documents before the rule: each (D,) float, NaN where undefined.
    ``khat_limit``: the largest trusted k-hat (``khat_threshold`` of the weights it was fitted
    on; NaN for L2R's factors, judged by ``heavy_sd`` instead); ``repeats``: the share of the
    draws whose weight equals the draw's before (weights kind only); ``moved``: the mean over
    runs of the share of their annealing transitions after which the chain had moved (runs
    kind only); ``heavy_sd``: the median over runs of the standard deviation that L2R's
    factors above their k-hat threshold carry in the run's log estimate (factors kind only);
    ``floor``: the family's certain lower bound on log P(w) (``FLOOR_SLACK``), and ``below``:
    how far the runs' average plus two standard errors (the interval's top; the average
    alone for one run) lies below it (NaN where the family has no floor); ``ceiling``: its
    certain upper bound, and ``above``: how far the runs' average less two standard errors lies
    above it; ``error_bound``: the most the runs' average can be from log P(w) given both,
    max(average - floor, ceiling - average)."""

    khat: np.ndarray
    ess: np.ndarray
    rhat: np.ndarray
    khat_limit: np.ndarray
    repeats: np.ndarray
    moved: np.ndarray
    heavy_sd: np.ndarray
    floor: np.ndarray
    below: np.ndarray
    ceiling: np.ndarray
    above: np.ndarray
    error_bound: np.ndarray

    @classmethod
    def empty(cls, n_docs: int) -> Rows:
        return cls(*(np.full(n_docs, np.nan) for _ in range(12)))


def weights_rows(stats: np.ndarray) -> Rows:
    """Per document, from weights records (D, R, W): k-hat and ESS of the R x S weights pooled
    over the runs, the largest k-hat trusted for their number, and the share of the draws that
    repeat the weight of the draw before them in their run (an estimate of the proposal's
    chance of drawing the same weight twice: near 0 for continuous weights, near 1 for a
    proposal that keeps drawing one state)."""
    rows = Rows.empty(stats.shape[0])
    count = stats[:, :, 0].sum(axis=1)
    rows.khat_limit = np.array([khat_threshold(n) for n in count])
    with np.errstate(divide="ignore", invalid="ignore"):
        lse1 = _lse(stats[:, :, 1] + np.log(stats[:, :, 2]))
        lse2 = _lse(stats[:, :, 3] + np.log(stats[:, :, 4]))
        rows.ess = np.where(count > 0, np.exp(2.0 * lse1 - lse2), np.nan)
        pairs = count - np.count_nonzero(stats[:, :, 0], axis=1)
        rows.repeats = np.where(pairs > 0, stats[:, :, 6].sum(axis=1) / pairs, np.nan)
    for d in np.flatnonzero(count > 0):
        n = int(count[d])
        tail = np.sort(stats[d, :, HEAD:].ravel())
        rows.khat[d] = khat_of_top(tail[max(tail.size - tail_length(n) - 1, 0):], n)
    return rows


def factors_rows(stats: np.ndarray) -> Rows:
    """Per document, from factors records (D, R, 4): the median over runs of each run's
    largest factor k-hat (shown, not judged), the median over runs of the standard deviation
    carried by the factors whose k-hat is above their threshold (``heavy_sd``, judged against
    ``FACTOR_SD_MAX``; docs/trust.md#l2rs-factors), and the sum over runs of each run's
    smallest factor ESS."""
    rows = Rows.empty(stats.shape[0])
    largest = np.where(stats[:, :, 0] == -np.inf, np.nan, stats[:, :, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a document with no fit: NaN
        rows.khat = np.nanmedian(largest, axis=1)
    smallest = np.where(np.isfinite(stats[:, :, 1]), stats[:, :, 1], np.nan)
    rows.ess = np.where(np.isnan(smallest).all(axis=1), np.nan, np.nansum(smallest, axis=1))
    rows.heavy_sd = np.median(np.sqrt(stats[:, :, 3]), axis=1)
    return rows


def chain_rows(stats: np.ndarray) -> Rows:
    """Per document, from chain records (D, R, CHAIN): the sum over runs of each chain's ESS
    and the split R-hat over the runs' 2R half-chains."""
    n_docs, n_runs = stats.shape[:2]
    rows = Rows.empty(n_docs)
    rows.ess = stats[:, :, 0].sum(axis=1)
    for d in range(n_docs):
        means = stats[d, :, [2, 4]].T.ravel()
        variances = stats[d, :, [3, 5]].T.ravel()
        rows.rhat[d] = split_rhat(means, variances, int(stats[d, 0, 1])) if n_runs else np.nan
    return rows


def runs_rows(logp_runs: np.ndarray, stats: np.ndarray | None = None) -> Rows:
    """Per document, one weight per run (AIS, the samples of ratio-AIS): the runs' k-hat (NaN
    below about 20 runs), ESS, the share of runs whose weight repeats the run's before, and,
    from the records (D, R, 1) where given, the mean share of the annealing transitions after
    which a run's chain had moved."""
    rows = Rows.empty(logp_runs.shape[0])
    if stats is not None and stats.shape[2]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # one temperature: no transition
            rows.moved = np.nanmean(stats[:, :, 0], axis=1)
    rows.khat = np.array([pareto_khat(row) for row in logp_runs])
    rows.ess = np.array([weights_ess(row) for row in logp_runs])
    rows.khat_limit[:] = khat_threshold(logp_runs.shape[1])
    if logp_runs.shape[1] > 1:
        rows.repeats = np.mean(logp_runs[:, 1:] == logp_runs[:, :-1], axis=1)
    return rows


def _lse(a: np.ndarray) -> np.ndarray:
    """logsumexp over the last axis, -inf for all -inf (NaN propagates)."""
    top = np.max(a, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - top).sum(axis=-1)) + top[..., 0]


def diagnose(kind: str, logp_runs: np.ndarray, stats: np.ndarray | None = None, *,
             consistent: bool = True, floor: np.ndarray | None = None,
             ceiling: np.ndarray | None = None, blind: np.ndarray | None = None,
             runs_sd_max: float | None = None) -> pd.DataFrame:
    """One row per document: ``khat``, ``ess``, ``rhat``, ``runs_spread``, ``repeats``,
    ``heavy_factor_sd`` (L2R: ``Rows.heavy_sd``), ``floor``, ``ceiling`` (``Rows``), ``trusted`` and
    ``reason`` (``COLUMNS``), from the (D, R) run estimates and the (D, R, W) records of a
    method of diagnostics ``kind`` (``Method.diagnostics``; the module docstring).

    Parameters
    ----------
    kind : str
        One of ``KINDS``; ``""`` (the exact methods): nothing to diagnose, every finite
        estimate trusted.
    logp_runs : numpy.ndarray
        (D, R) log estimates of every run.
    stats : numpy.ndarray, optional
        (D, R, W) the kernels' records (``record_width``); not needed for ``"runs"`` or ``""``.
    consistent : bool, default True
        False for a method whose limit is not the quantity (the harmonic mean, Wallach's
        left-to-right, estimated theta): none of its estimates is trusted.
    floor : numpy.ndarray, optional
        (D,) a certain lower bound on each log P(w) (``estimators.lda.floor``,
        ``estimators.gapfa.floor``);
        the runs' average in probability plus two standard errors must not lie more than
        ``FLOOR_SLACK`` below it.
    ceiling : numpy.ndarray, optional
        (D,) a certain upper bound on each log P(w) (``estimators.lda.floor.ceiling``,
        ``estimators.gapfa.floor.ceiling``); the average less two standard errors must not lie
        more than ``FLOOR_SLACK`` above it.
    blind : numpy.ndarray, optional
        (D,) str: why each document is in the method's named blind spot ("" where it is not;
        ``Method.blind_spot``).
    runs_sd_max : float, optional
        The largest standard deviation of the runs' log estimates (nats) of a method whose
        average of disagreeing runs is pulled toward the highest (``Method.runs_sd_max``).

    Returns
    -------
    pandas.DataFrame
        The columns ``COLUMNS``, one row per document (``trust`` says how ``trusted`` and
        ``reason`` follow from the others).
    """
    import pandas as pd

    logp_runs = np.atleast_2d(np.asarray(logp_runs, dtype=np.float64))
    n_docs, n_runs = logp_runs.shape
    readers = {"weights": weights_rows, "factors": factors_rows, "chain": chain_rows}
    if kind in readers:
        rows = readers[kind](stats)
    elif kind == "runs":
        rows = runs_rows(logp_runs, stats)
    else:
        rows = Rows.empty(n_docs)
    logp, stderr = run_average(logp_runs)
    margin = 2.0 * np.nan_to_num(stderr)
    if floor is not None and kind:
        rows.floor = np.asarray(floor, dtype=np.float64)
        rows.below = rows.floor - (logp + margin)
    if ceiling is not None and kind:
        rows.ceiling = np.asarray(ceiling, dtype=np.float64)
        rows.above = (logp - margin) - rows.ceiling
        rows.error_bound = np.maximum(logp - rows.floor, rows.ceiling - logp)
    spread = runs_spread(logp_runs) if kind else np.full(n_docs, np.nan)
    no_spread = (stderr == 0.0) if kind else np.zeros(n_docs, bool)
    runs_sd = (np.std(logp_runs, axis=1, ddof=1) if runs_sd_max is not None and n_runs > 1
               else None)
    trusted, reason = trust(kind, rows, spread, n_runs,
                            finite=np.all(np.isfinite(logp_runs), axis=1), consistent=consistent,
                            no_spread=no_spread, blind=blind, runs_sd=runs_sd,
                            runs_sd_max=runs_sd_max)
    return pd.DataFrame({"khat": rows.khat, "ess": rows.ess, "rhat": rows.rhat,
                         "runs_spread": spread, "repeats": rows.repeats,
                         "heavy_factor_sd": rows.heavy_sd, "floor": rows.floor,
                         "ceiling": rows.ceiling, "trusted": trusted, "reason": reason})


def distrust(diagnostics: pd.DataFrame, rows: np.ndarray, reasons) -> pd.DataFrame:
    """``diagnostics`` (one row per document, ``trusted`` and ``reason`` among its columns) with
    the documents at positions ``rows`` untrusted and each one's reason in ``reasons`` added
    after the reasons it had ("; "-separated)."""
    out = diagnostics.copy()
    rows = np.asarray(rows, dtype=np.int64)
    if not rows.size:
        return out
    index = out.index[rows]
    old = out["reason"].to_numpy(object)[rows]
    out.loc[index, "trusted"] = False
    out.loc[index, "reason"] = ["; ".join(filter(None, (str(a), str(b))))
                                for a, b in zip(old, reasons, strict=True)]
    return out


def reason_counts(reasons) -> dict[str, int]:
    """How many of the ``reasons`` (``diagnose``'s column) name each check, commonest first:
    e.g. {"k-hat": 3, "one run dominates": 1} (``LABELS``).

    Parameters
    ----------
    reasons : iterable of str
        The ``reason`` of each document ("; "-separated checks; empty when trusted).

    Returns
    -------
    dict of str to int
        Each check's short name and the documents it flagged, commonest first.
    """
    counts: dict[str, int] = {}
    for reason in reasons:
        for part in filter(None, str(reason).split("; ")):
            label = next((name for prefix, name in LABELS if part.startswith(prefix)), part)
            counts[label] = counts.get(label, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


# the start of each reason ``trust`` gives, and its short name
LABELS = (("k-hat", "k-hat"), ("repeated weights", "repeated weights"),
          ("below the floor", "below the floor"), ("above the ceiling", "above the ceiling"),
          ("reciprocal gap", "reciprocal gap"), ("BDMC gap", "BDMC gap"),
          ("stuck chain", "stuck chain"),
          ("ESS", "ESS"), ("R-hat", "R-hat"), ("one run carries", "one run dominates"),
          ("the method is not consistent", "inconsistent method"),
          ("no spread", "no spread"), ("blind spot", "blind spot"),
          ("no finite", "no finite estimate"),
          ("IS-theta is", "IS-theta higher"),
          ("IS-Laplace is", "IS-Laplace higher"),
          ("IS-Laplace (t_5) is untrusted", "IS-Laplace untrusted"),
          ("regime:", "outside a regime"),
          ("runs disagree", "runs disagree"))


# the checks that more runs cannot pass, or pass at far more cost than longer runs, per kind
# (docs/trust.md#bounds-and-targets): L2R's factor k-hat is the median over runs of each run's
# own largest fit, and split R-hat compares the runs' chains, which agree no better for being
# more; longer runs (more samples per run) move both.  An annealing run (AIS, BDMC's lower
# bound) below the floor missed the allocations that carry the mass: more temperatures find
# them sooner than more runs (on one word counted 300 times, over 40 seeds, 4 times the work
# took the median error from 1.9 nats to 0.82 as temperatures and to 1.55 as runs, 16 times to
# 0.19 and 0.99; benchmarks/trust_examples.py).  Runs that disagree (bridge-theta) are each far
# from converged: more of them keep the spread of each, longer ones narrow it.
LONGER_RUNS = {"factors": ("k-hat",), "chain": ("R-hat",),
               "runs": ("below the floor", "runs disagree")}


def needs_longer_runs(kind: str, reasons) -> np.ndarray:
    """(D,) bool: the documents whose ``reasons`` (``diagnose``'s column) name a check that
    only longer runs can pass (``LONGER_RUNS[kind]``), for a method of diagnostics ``kind``."""
    checks = LONGER_RUNS.get(kind, ())
    return np.array([any(part.startswith(checks) for part in str(reason).split("; "))
                     for reason in reasons], dtype=bool)


def trust(kind: str, rows: Rows, spread: np.ndarray, runs: int, *, finite: np.ndarray,
          consistent: bool = True, no_spread: np.ndarray | None = None,
          blind: np.ndarray | None = None, runs_sd: np.ndarray | None = None,
          runs_sd_max: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``trusted`` (D,) bool and ``reason`` (D,) str (empty when trusted) from the diagnostics.

    An estimate is untrusted when any of these holds (docs/trust.md#the-rule):

    * its method is not consistent for the quantity (``consistent`` False);
    * k-hat (where defined) is above ``khat_threshold`` of the number of weights it was fitted
      on (the pooled R S weights); for L2R, the factors whose k-hat is above the threshold of
      their S weights carry a standard deviation above ``FACTOR_SD_MAX`` nats in the log
      estimate (the median over runs; docs/trust.md#l2rs-factors);
    * more than ``REPEATS_MAX`` of the draws repeat the weight of the draw before: the
      proposal draws one state over and over, and its weights cannot show the mass it misses;
    * the effective sample size (where defined; not for one weight per run) is below
      ``ESS_MIN``;
    * split R-hat (Chib-style, where defined) is above ``RHAT_MAX``, or infinite (chains that
      never moved, in different places);
    * the runs' average plus two standard errors lies more than ``FLOOR_SLACK`` nats below
      the floor (where the family has one), log of p(w, z) summed over a set of latent
      states, which log P(w) cannot be below: the interval the estimate reports misses
      log P(w) by more than the slack; likewise its average less two standard errors more than
      ``FLOOR_SLACK`` above the ceiling (where the family has one), a certain upper bound.  An
      estimate within two standard errors of log P(w) never fails either;
    * the annealing chain (AIS, ratio-AIS) of a single run moved after fewer than
      ``MOVED_MIN`` of its transitions: the annealing did nothing, and the estimate is one
      importance weight from the start distribution, which nothing can check (with several
      runs it is importance sampling with one weight per run, judged by the runs' spread);
    * the largest run carries more than ``share_threshold(runs)`` of the probability average;
    * its runs have no spread (``no_spread``: several runs, every one the same number, a
      standard error of exactly 0): their agreement carries no information about the error;
    * its runs disagree: the standard deviation of their log estimates (``runs_sd``) is above
      ``runs_sd_max``, for a method consistent but not unbiased, whose average in probability
      of runs that far apart is pulled toward the highest (bridge-theta,
      ``Method.runs_sd_max``; docs/trust.md#the-rule);
    * the document is in the method's named blind spot (``blind``, the reason; ``""`` where it
      is not): what the method computes there cannot show its error (docs/trust.md#blind-spots).

    An estimate that is not finite is untrusted; the exact methods (``kind`` "") are trusted.
    An estimate of a consistent method whose runs' average lies within ``FLOOR_SLACK`` of both
    the floor and the ceiling (``Rows.error_bound``) is *certified*: its error is at most that,
    for certain, and it is trusted whatever the checks above say (docs/trust.md, "Certified
    estimates").
    """
    khat, ess, rhat, repeats = rows.khat, rows.ess, rows.rhat, rows.repeats
    n_docs = khat.shape[0]
    reasons = [[] for _ in range(n_docs)]
    if kind and not consistent:
        for r in reasons:
            r.append("the method is not consistent for P(w)")
    with np.errstate(invalid="ignore"):
        limits = rows.khat_limit
        checks = [
            (khat > limits, lambda d: f"k-hat {khat[d]:.2f} > {limits[d]:.2f}"),
            (rows.heavy_sd > FACTOR_SD_MAX,
             lambda d: f"k-hat of the factors (largest {khat[d]:.2f}): those above PSIS's "
                       f"threshold carry {rows.heavy_sd[d]:.2f} > {FACTOR_SD_MAX:g} nats of "
                       "s.d."),
            (repeats > REPEATS_MAX,
             lambda d: f"repeated weights: {repeats[d]:.0%} of the draws repeat the one "
                       "before"),
            (ess < ESS_MIN if kind != "runs" else np.zeros(n_docs, bool),  # AIS: ess <= R
             lambda d: f"ESS {ess[d]:.1f} < {ESS_MIN:g}"),
            (rhat > RHAT_MAX, lambda d: f"R-hat {rhat[d]:.3g} > {RHAT_MAX:g}"),
            (rows.below > FLOOR_SLACK,
             lambda d: f"below the floor: its estimate + 2 s.e. is {rows.below[d]:.2f} nats "
                       f"under the floor {rows.floor[d]:.2f}, log p(w, z) summed over a set "
                       "of latent states, a lower bound of log P(w)"),
            (rows.above > FLOOR_SLACK,
             lambda d: f"above the ceiling: its estimate - 2 s.e. is {rows.above[d]:.2f} nats "
                       f"over the ceiling {rows.ceiling[d]:.2f}, an upper bound of log P(w)"),
            ((rows.moved < MOVED_MIN) & (runs < 2),
             lambda d: f"stuck chain: it moved after {rows.moved[d]:.1%} of the transitions, "
                       "and one weight has no error"),
            (spread > share_threshold(runs) + 1e-12,
             lambda d: f"one run carries {spread[d]:.0%} of the average"),
            (np.zeros(n_docs, bool) if no_spread is None else no_spread,
             lambda d: f"no spread: its {runs} runs give the same number, so its standard error "
                       "of 0 says nothing about its error"),
            (np.zeros(n_docs, bool) if blind is None else blind.astype(bool),
             lambda d: blind[d]),
            (np.zeros(n_docs, bool) if runs_sd is None else runs_sd > runs_sd_max,
             lambda d: f"runs disagree: their log estimates have a standard deviation of "
                       f"{runs_sd[d]:.2f} > {runs_sd_max:g} nats"),
        ]
    for flagged, say in checks:
        for d in np.flatnonzero(flagged):
            reasons[d].append(say(d))
    with np.errstate(invalid="ignore"):
        certified = (rows.error_bound <= FLOOR_SLACK) & finite & consistent
    for d in np.flatnonzero(certified):
        reasons[d] = []
    for d in np.flatnonzero(~finite):
        reasons[d] = ["no finite estimate"]
    reason = np.array(["; ".join(r) for r in reasons], dtype=object)
    return np.array([not r for r in reasons], dtype=bool), reason
