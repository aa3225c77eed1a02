"""Where each LDA method and budget was shown to cover: the regime part of ``trusted``.

Described in docs/trust.md#regimes (issue 44).

A standard error measures how an estimator's runs spread, not the bias they share.  On long
documents that shared bias is what goes wrong: every run of Chib-style can miss the same part
of the posterior, agree, and report a small standard error on an estimate several nats low.  No
check on the runs can see it.  So an estimate is trusted only where the real-length battery
(``benchmarks/long_battery.py``: documents of 100 to 2,000 tokens whose log P(w) is exact or
pinned by a sandwich, T = 3 to 200) showed its method to cover: +/- 2 standard errors covering
log P(w) on at least 90% of the documents of every number of topics it was run at.

A *regime* is a method, the smallest settings and runs it was measured at (a larger budget is
allowed: more draws and runs only narrow the spread and the shared bias), and the longest
document and largest number of topics of the battery's cells where it covered.  Documents
shorter than ``FROM_TOKENS`` are outside the battery and keep the other checks' verdict (they
were measured by the exact-answer battery of tests/trust_battery.py and
benchmarks/default_method.py); every estimate of a longer document outside its method's regime
is not trusted, with the reason and the method whose regime covers it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from topiceval.diagnostics import distrust

FROM_TOKENS = 100  # the battery's shortest documents: below them the other checks judge
# a prior's sum is compared with a regime's bound to this relative tolerance: gensim keeps
# alpha in float32, and its default 1 / T sums to 0.99999998 at T = 50
ALPHA_SUM_RTOL = 1e-6
PAGE = "trust.md#regimes"


@dataclass(frozen=True)
class Regime:
    """Where ``method`` at ``settings`` (each at least) and ``runs`` (at least) covered: on
    documents of up to ``max_tokens`` tokens, models of up to ``max_topics`` topics whose prior
    alpha m sums to at least ``min_alpha_sum``, with ``shared_error`` (nats per square root of
    a token, ``topiceval.error_bars``) the part of the standard error its runs share."""

    method: str
    settings: dict
    runs: int
    max_tokens: int
    max_topics: int
    min_alpha_sum: float
    shared_error: float = 0.0

    def covers(self, settings: dict, runs: int) -> bool:
        """Whether a call with ``settings`` and ``runs`` spends at least this budget."""
        return runs >= self.runs and all(
            isinstance(settings.get(k), (int, np.integer)) and settings[k] >= v
            for k, v in self.settings.items())

    def describe(self) -> str:
        budget = ", ".join(f"{k}={v}" for k, v in self.settings.items())
        return (f"method={self.method!r} ({budget}, runs={self.runs}) on documents of up to "
                f"{self.max_tokens:,} tokens with T <= {self.max_topics} and alpha summing to "
                f"at least {self.min_alpha_sum:g}")

    def fits(self, n_topics: int, alpha_sum: float) -> bool:
        """Whether a model of ``n_topics`` topics and prior sum ``alpha_sum`` is inside."""
        return (n_topics <= self.max_topics
                and alpha_sum >= self.min_alpha_sum * (1 - ALPHA_SUM_RTOL))


BRIDGE_THETA_BUDGET = {"samples": 100, "draws": 500, "burnin": 50}
# measured on the battery's calibration, fresh and fresh-2 parts and judged on fresh-3
# (docs/choosing-an-estimator.md#long-documents).  Bridge-theta's runs share up to 0.13 nats at
# T = 20 and 2,000 tokens on the seen parts, where 64 runs agree within 0.02: c = 0.0015
# (docs/methods/lda-estimators.md#bridge-theta).  On the libraries part's gensim model (alpha
# summing to 1) that error bar covered 84%: the second regime, for priors summing to 1-1.42, has
# the wider c = 0.005 chosen on that part and judged on the fresh libraries-2 part ("the
# libraries' models: a wider error bar").  IS-theta's prior bound is the 0.9 of the smallest
# prior it was measured at.  A method's regimes are listed from the narrowest error bar.
REGIMES = {
    "bridge_theta": (
        Regime("bridge_theta", BRIDGE_THETA_BUDGET, 8, 2000, 200, 1.42, shared_error=0.0015),
        Regime("bridge_theta", BRIDGE_THETA_BUDGET, 8, 2000, 100, 1.0, shared_error=0.005)),
    "is_theta": (Regime("is_theta", BRIDGE_THETA_BUDGET, 8, 600, 3, 0.9),),
}
# methods whose answer is certain whatever the length
EXEMPT = ("exact",)


def shared_error(method: str, n_topics: int, alpha_sum: float) -> float:
    """Nats per square root of a token that ``method``'s runs share on a model of ``n_topics``
    topics whose prior sums to ``alpha_sum``: the first of its regimes that fits the model, the
    largest measured when none does (its estimates of long documents are then untrusted), 0
    for a method without a regime."""
    own = REGIMES.get(method, ())
    fitting = [r.shared_error for r in own if r.fits(n_topics, alpha_sum)]
    return fitting[0] if fitting else max((r.shared_error for r in own), default=0.0)


def distrust_outside(diagnostics: pd.DataFrame, lengths: np.ndarray, n_topics: int,
                     method: str, settings: dict, runs: int, *,
                     alpha_sum: float) -> pd.DataFrame:
    """``diagnostics`` with the trusted estimates of documents of ``FROM_TOKENS`` tokens or
    more outside ``method``'s regime untrusted, the reason added.

    Parameters
    ----------
    diagnostics : DataFrame
        One row per document (``topiceval.diagnostics``), ``trusted`` and ``reason`` among them.
    lengths : (D,) int
        Tokens scored per document.
    n_topics : int
        The model's T.
    method, settings, runs : str, dict, int
        The call's estimator, its resolved settings and its runs per document.
    alpha_sum : float
        The sum of the model's prior alpha m.
    """
    if method in EXEMPT:
        return diagnostics
    lengths = np.asarray(lengths)
    reason = outside_reason(method, settings, runs, n_topics, lengths, alpha_sum=alpha_sum)
    hit = (lengths >= FROM_TOKENS) & diagnostics["trusted"].to_numpy(bool) & (reason != "")
    return distrust(diagnostics, np.flatnonzero(hit), reason[hit])


def outside_reason(method: str, settings: dict, runs: int, n_topics: int,
                   lengths: np.ndarray, *, alpha_sum: float) -> np.ndarray:
    """(D,) str: why each document lies outside ``method``'s regimes ("" inside one)."""
    own = REGIMES.get(method, ())
    out = np.full(lengths.shape, "", dtype=object)
    alternative = _alternative(n_topics, alpha_sum, lengths, method)
    spent = [regime for regime in own if regime.covers(settings, runs)]
    if not own:
        text = f"regime: {method} was not shown to cover on documents of {FROM_TOKENS}+ tokens"
    elif not spent:
        text = f"regime: {method} below the budget shown to cover ({_described(own)})"
    else:
        inside = np.zeros(lengths.shape, dtype=bool)
        for regime in spent:
            if regime.fits(n_topics, alpha_sum):
                inside |= lengths <= regime.max_tokens
        text = (f"regime: outside the regime shown to cover ({_described(spent)}; this model: "
                f"T = {n_topics}, alpha summing to {alpha_sum:.3g})")
        out[~inside] = [text + alt for alt in alternative[~inside]]
        return out
    out[:] = [text + alt for alt in alternative]
    return out


def _described(regimes: tuple[Regime, ...] | list[Regime]) -> str:
    return "; or ".join(regime.describe() for regime in regimes)


def _alternative(n_topics: int, alpha_sum: float, lengths: np.ndarray,
                 method: str) -> np.ndarray:
    """(D,) str: the regime that covers each document (other than ``method``'s), as advice."""
    out = np.full(lengths.shape, "", dtype=object)
    for regime in (r for own in REGIMES.values() for r in own):
        if regime.method == method or not regime.fits(n_topics, alpha_sum):
            continue
        fits = (out == "") & (lengths <= regime.max_tokens)
        out[fits] = f", which {regime.describe()} covers ({PAGE})"
    none = out == ""
    out[none] = f", where no method was shown to cover it ({PAGE})"
    return out
