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
PAGE = "trust.md#regimes"


@dataclass(frozen=True)
class Regime:
    """Where ``method`` at ``settings`` (each at least) and ``runs`` (at least) covered: on
    documents of up to ``max_tokens`` tokens, models of up to ``max_topics`` topics whose prior
    alpha m sums to at least ``min_alpha_sum``."""

    method: str
    settings: dict
    runs: int
    max_tokens: int
    max_topics: int
    min_alpha_sum: float

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
        return n_topics <= self.max_topics and alpha_sum >= self.min_alpha_sum


# measured on the battery's calibration, fresh and fresh-2 parts and judged on fresh-3
# (docs/choosing-an-estimator.md#long-documents).  The prior's bound: bridge-theta covered 84% on
# the libraries part's gensim model (alpha summing to 1), so by the rule fixed before that part
# was run its regime starts at the 1.42 of the battery's 20 Newsgroups model at T = 20 (the
# "libraries' models" section); IS-theta's at the 0.9 of the smallest prior it was measured at
REGIMES = {
    "bridge_theta": Regime("bridge_theta", {"samples": 100, "draws": 500, "burnin": 50}, 8,
                           2000, 200, 1.42),
    "is_theta": Regime("is_theta", {"samples": 100, "draws": 500, "burnin": 50}, 8, 600, 3,
                       0.9),
}
# methods whose answer is certain whatever the length
EXEMPT = ("exact",)


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
    """(D,) str: why each document lies outside ``method``'s regime ("" inside it)."""
    regime = REGIMES.get(method)
    out = np.full(lengths.shape, "", dtype=object)
    alternative = _alternative(n_topics, alpha_sum, lengths, method)
    if regime is None:
        text = f"regime: {method} was not shown to cover on documents of {FROM_TOKENS}+ tokens"
    elif not regime.covers(settings, runs):
        text = f"regime: {method} below the budget shown to cover ({regime.describe()})"
    else:
        beyond = (lengths > regime.max_tokens) | (not regime.fits(n_topics, alpha_sum))
        text = f"regime: outside the regime shown to cover ({regime.describe()})"
        out[beyond] = [text + alt for alt in alternative[beyond]]
        return out
    out[:] = [text + alt for alt in alternative]
    return out


def _alternative(n_topics: int, alpha_sum: float, lengths: np.ndarray,
                 method: str) -> np.ndarray:
    """(D,) str: the regime that covers each document (other than ``method``'s), as advice."""
    out = np.full(lengths.shape, "", dtype=object)
    for regime in REGIMES.values():
        if regime.method == method or not regime.fits(n_topics, alpha_sum):
            continue
        fits = (out == "") & (lengths <= regime.max_tokens)
        out[fits] = f", which {regime.describe()} covers ({PAGE})"
    none = out == ""
    out[none] = f", where no method was shown to cover it ({PAGE})"
    return out
