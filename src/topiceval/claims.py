"""The ledger of the papers' claims: what each paper says, what we compare, and one tie rule.

Each :class:`Claim` holds a finding in the paper's words, the figure or table it belongs to, the
quantity compared on each panel (a data set, a collection, a trainer), the direction the paper
claims, the statistic that measures it (oriented so that a positive value is the claimed
direction) and its standard error, with the kind of error: ``"Monte Carlo"`` (the estimators'
randomness, over runs or repeats), ``"document sampling"`` (which documents were drawn, over
documents), ``"between collections"`` (a trend's scatter about its line) or ``"none"`` (a
deterministic function of the published run, such as a plug-in perplexity or a word overlap; its
s.e. is 0 and only the sign counts).

The one tie rule (:func:`tie_rule`), used for every claim and every panel: a panel **agrees** when
the statistic exceeds :data:`MARGIN` (2) standard errors in the claimed direction, **disagrees**
when it exceeds them in the opposite direction, and is a **tie** otherwise.  A panel that needs
several comparisons at once (a ranking, a property at every checkpoint) agrees when every
comparison agrees, disagrees when any disagrees, and is a tie otherwise (:func:`conjunction`).  A
count "k of n" counts agreements only and says how many of the rest are ties.  A claim that the
published data cannot judge at a size is **not testable** there, with the reason.

The criteria below were written from the papers' words before the published tables were
evaluated against them (issue 48); a change to a criterion is a commit of its own that says why.
:mod:`topiceval.ledger` evaluates them on a publication and writes the results page's verdicts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["AGREES", "CLAIMS", "DISAGREES", "MARGIN", "NOT_TESTABLE", "PAPERS", "TIE", "Claim",
           "claim", "conjunction", "tie_rule"]

AGREES, TIE, DISAGREES, NOT_TESTABLE = "agrees", "tie", "disagrees", "not testable"
MARGIN = 2.0
"""How many standard errors a statistic must exceed to count as a direction (the tie rule)."""

ERROR_KINDS = ("Monte Carlo", "document sampling", "between collections", "none")

PAPERS = {
    "bechard2018": "Béchard & Gervet",
    "wallach2009": "Wallach et al. 2009",
    "foulds_smyth": "Foulds & Smyth",
    "capdevila2018": "Capdevila et al. 2018",
}


def tie_rule(statistic: float, se: float) -> str:
    """The tie rule: AGREES if ``statistic > MARGIN * se``, DISAGREES if ``statistic < -MARGIN *
    se``, TIE otherwise (``statistic`` is oriented so that positive is the claimed direction; an
    exact statistic, ``se = 0``, is a tie only when it is 0)."""
    if not (math.isfinite(statistic) and math.isfinite(se)):
        raise ValueError(f"tie_rule needs finite numbers, got statistic={statistic!r}, se={se!r}")
    if se < 0:
        raise ValueError(f"a standard error cannot be negative, got se={se!r}")
    if statistic > MARGIN * se:
        return AGREES
    if statistic < -MARGIN * se:
        return DISAGREES
    return TIE


def conjunction(verdicts: list[str]) -> str:
    """A conjunction of comparisons: AGREES if every one agrees, DISAGREES if any disagrees, TIE
    otherwise."""
    if not verdicts:
        raise ValueError("conjunction needs at least one verdict")
    unknown = set(verdicts) - {AGREES, TIE, DISAGREES}
    if unknown:
        raise ValueError(f"unknown verdicts {sorted(unknown)}")
    if DISAGREES in verdicts:
        return DISAGREES
    return AGREES if all(v == AGREES for v in verdicts) else TIE


@dataclass(frozen=True)
class Claim:
    """One finding of a paper and how we judge it (see the module docstring).

    ``key``: ``<seed>-<item>-<name>`` (``"004-F2-L2R-worse-than-DS"``); ``words``: the paper's
    words; ``quantity``: what is compared on each panel; ``panels``: which panels; ``statistic``:
    its definition, positive in the claimed direction; ``error``: one of ``ERROR_KINDS``;
    ``error_source``: where the s.e. comes from.
    """

    key: str
    paper: str
    item: str
    words: str
    quantity: str
    panels: str
    statistic: str
    error: str
    error_source: str

    def __post_init__(self):
        if self.paper not in PAPERS:
            raise ValueError(f"claim {self.key}: unknown paper {self.paper!r}")
        if self.error not in ERROR_KINDS:
            raise ValueError(f"claim {self.key}: error kind {self.error!r} is not one of "
                             f"{ERROR_KINDS}")


_BOOT = "the bootstrap s.d. over runs of each sum (column boot_sd), combined in quadrature"
_KL_SE = "the s.e. over repeats of each mean KL (column kl_se), combined in quadrature"

CLAIMS: tuple[Claim, ...] = (
    # ---- Béchard & Gervet (001): choosing T on 20 Newsgroups
    Claim("001-F4-train-falls", "bechard2018", "Fig. 4",
          "training perplexity falls as T grows",
          "training perplexity at consecutive T of the grid, each trainer's own definition",
          "each trainer (VEM, Gibbs, sklearn)",
          "the smallest fall, min over consecutive T of perplexity(T before) - perplexity(T)",
          "none", "a plug-in value of the trained model on all training documents"),
    Claim("001-F4-T12-honest", "bechard2018", "Fig. 4",
          "test perplexity is lowest at T = 12 and rises beyond it (overfitting)",
          "the honest held-out log-likelihood (P1, Chib-style) at T = 12 against the best other T",
          "each trainer (VEM, Gibbs, sklearn)",
          "log P(T = 12) - max over T != 12 of log P(T) (nats; higher log P is lower perplexity)",
          "Monte Carlo", "column log_likelihood_se of the two models, in quadrature"),
    Claim("001-F4-T12-plugin", "bechard2018", "Fig. 4",
          "test perplexity is lowest at T = 12 and rises beyond it (overfitting)",
          "each trainer's own test perplexity (sklearn: its bound P4, the paper's; VEM and Gibbs: "
          "the plug-in P2) at T = 12 against the lowest at another T",
          "each trainer (VEM, Gibbs, sklearn)",
          "min over T != 12 of perplexity(T) - perplexity(12)",
          "none", "a bound or plug-in value on all test documents (no s.e. is published; "
          "the seed-to-seed spread is in experiments/bechard2018-sklearn-seeds)"),
    *(Claim(f"001-{table}-themes", "bechard2018", f"Table {table[1]}",
            f"a T = 12 {trainer} model has topics SPACE, COMPUTER, RELIGION, NUMBERS, MID-EAST, "
            "SPORT",
            "the words the paper lists for a theme in either of its tables (Tables 1 and 2 name "
            "the same six themes) among the top 5 of the topic matched to it",
            "each of the six themes",
            "theme words - 1.5 (at least 2 of our topic's top 5 words are the paper's words for "
            "the theme)",
            "none", "a word count")
      for table, trainer in (("T1", "VEM"), ("T2", "Gibbs"))),
    # ---- Wallach et al. 2009 (002): held-out likelihood estimators
    Claim("002-F1-HM-over", "wallach2009", "Fig. 1",
          "the harmonic mean method wildly overestimates",
          "HM's log P(w) against the highest other method (the exact value included)",
          "each data set",
          "log P(HM) - max over the other methods of log P",
          "Monte Carlo", _BOOT),
    Claim("002-F1-IS-under", "wallach2009", "Fig. 1",
          "IS-PT, IS-PZW and IS-IP underestimate",
          "the highest of the IS methods (larger budget) against the exact value on synthetic-3, "
          "elsewhere against the highest of AIS, CS and LR (larger budget; unbiased, so their "
          "logs are stochastic lower bounds and the highest is the closest)",
          "each data set",
          "reference - max over IS-PT, IS-PZW, IS-IP of log P",
          "Monte Carlo", _BOOT),
    Claim("002-F1-IS-IP-best", "wallach2009", "Fig. 1",
          "IS-IP is the best of the IS methods",
          "IS-IP against the higher of IS-PT and IS-PZW (larger budget)",
          "each data set",
          "log P(IS-IP) - max(log P(IS-PT), log P(IS-PZW))",
          "Monte Carlo", _BOOT),
    Claim("002-F1-LRW-over-CS", "wallach2009", "Fig. 1",
          "LR is consistently better than CS on real data",
          "the paper's LR (Algorithm 3 as printed, lr_wallach) against CS, larger budget",
          "each real data set (20NG, AP, KOS)",
          "log P(LR-W) - log P(CS)",
          "Monte Carlo", _BOOT),
    Claim("002-F1-LR-over-CS", "wallach2009", "Fig. 1",
          "LR is consistently better than CS on real data",
          "our unbiased sequential LR against CS, larger budget",
          "each real data set (20NG, AP, KOS)",
          "log P(LR) - log P(CS)",
          "Monte Carlo", _BOOT),
    Claim("002-F1-AIS-low-20NG", "wallach2009", "Fig. 1",
          "AIS is low on 20 Newsgroups with fewer than 20,000 temperatures",
          "AIS (the run's smaller temperature count) against the paper's LR on 20NG",
          "20NG",
          "log P(LR-W) - log P(AIS)",
          "Monte Carlo", _BOOT),
    Claim("002-F1-AIS-20000", "wallach2009", "Fig. 1",
          "AIS agrees with LR on 20 Newsgroups from 20,000 temperatures",
          "AIS with 20,000 temperatures against the paper's LR at the paper's budget on 20NG "
          "(002-X1's documents); a claim of no difference, so under the tie rule a tie is the "
          "best it can score and a disagreement (AIS still below) refutes it",
          "20NG",
          "log P(AIS 20,000) - log P(LR-W at the paper's budget)",
          "Monte Carlo", _BOOT),
    Claim("002-F2-LRW-closer", "wallach2009", "Fig. 2",
          "ET is poor and far from AIS despite more computation; LR approaches AIS cheaply",
          "the distances of ET and of the paper's LR (lr_wallach) from AIS",
          "each data set",
          "|ET - AIS| - |LR-W - AIS|",
          "Monte Carlo", _BOOT + " (delta method through the absolute values)"),
    Claim("002-F2-LR-closer", "wallach2009", "Fig. 2",
          "ET is poor and far from AIS despite more computation; LR approaches AIS cheaply",
          "the distances of ET and of our sequential LR from AIS",
          "each data set",
          "|ET - AIS| - |LR - AIS|",
          "Monte Carlo", _BOOT + " (delta method through the absolute values)"),
    Claim("002-F3-Phi-understate", "wallach2009", "Fig. 3",
          "relative to LR, IS-PT and ET understate the drop caused by perturbing Phi",
          "the change of log P at the largest perturbation of Phi (lambda = 0.75), IS-PT and ET "
          "against LR",
          "IS-PT and ET",
          "change(method) - change(LR) (positive: a smaller drop)",
          "Monte Carlo", _BOOT),
    Claim("002-F3-m-ISPT-more", "wallach2009", "Fig. 3",
          "IS-PT is strongly affected by perturbing m, ET less so",
          "the change of log P at the largest perturbation of m (lambda = 0.75), IS-PT against ET",
          "the one comparison",
          "change(ET) - change(IS-PT) (positive: IS-PT drops more)",
          "Monte Carlo", _BOOT),
    Claim("002-T1-cost", "wallach2009", "Table 1",
          "CS with S = 1,000 and LR with R = 20 take about the same time (3.2 s each)",
          "the measured cost of CS and LR on the same document",
          "the one comparison",
          "a benchmark on other hardware: no direction to tie_rule",
          "none", "the project's benchmarks"),
    # ---- Foulds & Smyth (003): ratio-AIS on NIPS
    Claim("003-F1-ratio-majority", "foulds_smyth", "Fig. 1",
          "with cheap runs, ratio-AIS prefers the unperturbed topics on 95% of documents",
          "the share of documents whose cheap ratio-AIS estimate prefers the unperturbed topics "
          "(random topics drawn like the model's own, `prior`)",
          "the one comparison",
          "share - 1/2",
          "document sampling", "binomial, sqrt(p (1 - p) / n)"),
    Claim("003-F1-ratio-over-standard", "foulds_smyth", "Fig. 1",
          "with cheap runs, ratio-AIS prefers the unperturbed topics far more often than the "
          "standard method (95% against 52%)",
          "the shares of documents preferring the unperturbed topics, cheap budget, `prior`",
          "the one comparison",
          "share(ratio-AIS) - share(standard)",
          "document sampling", "binomial for each share, in quadrature (ignores the pairing, "
          "so it is conservative)"),
    Claim("003-X1-gap-shrinks", "foulds_smyth", "Sec. 5 (reciprocal check)",
          "a wildly different reverse estimate flags a run that has not converged",
          "the median gap between the forward and reverse ratio-AIS estimates, cheap against "
          "expensive budget",
          "each kind of random topics (`prior`, `uniform`)",
          "median gap(cheap) - median gap(expensive)",
          "document sampling", "s.e. of each median, 1.2533 x (q75 - q25) / 1.349 / sqrt(n), "
          "in quadrature"),
    # ---- Capdevila et al. 2018 (004): L2R for Gamma-Poisson factor analysis
    Claim("004-T1-order", "capdevila2018", "Table 1",
          "the collections are ordered by mean length from NIPS (1,899) to WS (9)",
          "the mean lengths of neighbouring collections in the paper's order",
          "each neighbouring pair",
          "mean length(earlier) - mean length(later)",
          "none", "a property of the corpus"),
    Claim("004-released-models", "capdevila2018", "released code and models",
          "the exact marginals of the released Twitter model",
          "our exact algorithms against the authors' released values",
          "the released Twitter model",
          "checked by tests/test_gapfa_released.py, not by a published table",
          "none", "the test's tolerance"),
    Claim("004-F2-L2RE-lowest", "capdevila2018", "Fig. 2",
          "L2R-E has the lowest KL on all six collections",
          "KL of L2R-E against the KL of each of DS, HM and L2R at the largest S",
          "each panel (6 collections and 2 released models)",
          "KL(other) - KL(L2R-E) for each of DS, HM and L2R (a conjunction)",
          "Monte Carlo", _KL_SE),
    Claim("004-F2-L2R-below-DS-long", "capdevila2018", "Fig. 2",
          "L2R (S' = 1) has the second lowest KL on the four longer collections",
          "KL of L2R with the paper's proposal (6.16) against DS at the largest S",
          "NIPS, AP, 20NGs, Reuters and the released NIPS model",
          "KL(DS) - KL(L2R)",
          "Monte Carlo", _KL_SE),
    Claim("004-F2-L2R-worse-than-DS-short", "capdevila2018", "Fig. 2",
          "L2R is worse than DS on Twitter and WS",
          "KL of L2R with the paper's proposal (6.16) against DS at the largest S",
          "Twitter, WS and the released Twitter model",
          "KL(L2R) - KL(DS)",
          "Monte Carlo", _KL_SE),
    Claim("004-F2-L2R-code-worse-than-DS-short", "capdevila2018", "Fig. 2",
          "L2R is worse than DS on Twitter and WS",
          "KL of L2R with the authors' code's proposal (rho proportional to a_t pi_tj phi_tv) "
          "against DS at the largest S",
          "Twitter, WS and the released Twitter model",
          "KL(L2R code) - KL(DS)",
          "Monte Carlo", _KL_SE),
    Claim("004-F2-DS-below-HM", "capdevila2018", "Fig. 2",
          "DS has a lower KL than HM",
          "KL of DS against HM at the largest S",
          "each panel",
          "KL(HM) - KL(DS)",
          "Monte Carlo", _KL_SE),
    Claim("004-F2-inner-samples", "capdevila2018", "Sec. 6 (untabulated)",
          "more inner samples S' bring L2R to L2R-E",
          "KL of L2R with the authors' code's proposal and S' inner samples against L2R-E at "
          "the largest S, as S' grows (with the paper's proposal L2R at S' = 1 already ties "
          "L2R-E)",
          "each panel where L2R with the code's proposal and S' = 1 is above L2R-E beyond 2 s.e.",
          "KL(L2R code, S' = 1) - KL(L2R code, largest S'), the part of the gap to L2R-E that "
          "the largest S' closes",
          "Monte Carlo", _KL_SE),
    Claim("004-F1-trend", "capdevila2018", "Fig. 1",
          "KL(L2R) improves relative to KL(DS) as the average document length grows",
          "the log ratio KL(L2R) / KL(DS) against log mean length over the collections",
          "the paper's proposal (6.16) and the authors' code's",
          "minus the least-squares slope of log(KL(L2R) / KL(DS)) on log mean length",
          "between collections", "the slope's s.e. from the collections' scatter about the "
          "line (n - 2 degrees of freedom); a collection with a zero KL is left out"),
    Claim("004-F3-faster", "capdevila2018", "Fig. 3",
          "L2R converges faster than DS",
          "per document, each method's distance from its own final estimate, DS minus L2R, mean "
          "over documents, at every checkpoint of capdevila2018.realistic.convergence.at",
          "each collection",
          "mean distance(DS) - distance(L2R), at every checkpoint (a conjunction)",
          "document sampling", "the s.e. over documents (column se)"),
    Claim("004-F3-ordered", "capdevila2018", "Fig. 3",
          "DS <= L2R <= HM",
          "per document at the final S, L2R minus DS and HM minus L2R, means over documents",
          "each collection",
          "log p(L2R) - log p(DS) and log p(HM) - log p(L2R) (a conjunction)",
          "document sampling", "the s.e. over documents (column se)"),
    Claim("004-F3-few-hundred", "capdevila2018", "Fig. 3",
          "a few hundred samples suffice",
          "L2R's distance from its final estimate at a few hundred samples against a share of "
          "the HM - DS gap, both the run's settings (capdevila2018.realistic.convergence: enough, "
          "from 200 to 999, at most half the final S; gap_share, 1% in every configuration)",
          "each collection",
          "gap_share x gap - distance(L2R) at S = enough",
          "document sampling", "the s.e. over documents"),
)


def claim(key: str) -> Claim:
    """The claim of ``key``."""
    for c in CLAIMS:
        if c.key == key:
            return c
    raise ValueError(f"no claim {key!r} in the ledger")
