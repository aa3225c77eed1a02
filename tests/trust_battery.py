"""The exact-answer battery of the diagnostics (issue 31; docs/trust.md#the-battery).

Tiny documents whose probability is known exactly, under LDA and GaP-FA models with ordinary and
extreme priors, short and repeated-word documents, estimated by every consistent sampling method
at its default budget (``topiceval.evaluate``'s for Chib-style and GaP-FA's AIS, and L2R's of
up to 0.2.0, when it was GaP-FA's) with the runs of ``topiceval.evaluate`` (8 for LDA, 4 for
GaP-FA); and the examples of issue 31 (``examples``).
Each estimate is classed by its error against the exact value, in its own standard errors
(delta method over the runs):

* ``bad``: off by more than 4 standard errors + 0.1 nats: the diagnostics must flag it;
* ``good``: within 2 standard errors: the issue allows ``FALSE_ALARMS`` of them to be flagged;
* ``between``: neither.

Everything is seeded (problems, documents, estimator streams), and estimates are bit-identical
for any number of threads, so the battery gives the same table on every machine.
``tests/test_diagnostics_battery.py`` runs it; ``benchmarks/trust_battery.py`` writes the table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from topiceval.estimators import gapfa, lda
from topiceval.evaluation import DEFAULT_RUNS, DEFAULTS, combine_runs
from topiceval.seeds import generator

FALSE_ALARMS = 0.10  # issue 31: the largest share of "good" estimates that may be flagged
# the test's problems, each set run once after its rule was fixed: seeds 11-30 after the rule of
# the larger battery was fixed on seeds 1001-1040 (docs/trust.md, "A larger battery, and the
# floor judges the interval"), seeds 31-50 after certified estimates were added, and seeds 51-70
# after the ceiling was tightened, each by a protocol committed first (docs/trust.md, "Certified
# estimates", "A tighter ceiling"); the issue's verdict is read on the freshest, 51-70
TEST_SEEDS = {"11-30": tuple(range(11, 31)), "31-50": tuple(range(31, 51)),
              "51-70": tuple(range(51, 71))}
# measured on them with the rule as it stands, the test holding the battery to it: good estimates
# flagged (without certified estimates 298, 300 and 250: 10.4%, 10.4%, 8.7%; 461 of 5,627, 8.2%,
# on the calibration seeds; two-seed rounds before gave 9.0% (seeds 5-6), 9.6% (7-8) and 15.0%
# (9-10), each under the rule of its time); issue 46's blind spots of IS-IP and Chib-style at
# alpha m <= 1e-3 added 4, 12 and 10 (229, 224 and 199 before)
# is_theta and bridge_theta joined on 2026-12-07 (issue 44; new methods on problems they had not
# seen, after their calibration seeds 101-102): they added 13 + 0, 10 + 0 and 10 + 0 (of 303 +
# 253, 294 + 262 and 301 + 239 good ones), and no missed bad estimate; bridge-theta's
# runs-disagree rule (chosen on long documents, issue 44) then added 5, 9 and 8, all at
# alpha m = 1e-300 on documents of 3-6 tokens, and caught no bad estimate here
FALSE_ALARMS_MEASURED = {"11-30": 251 / 3423, "31-50": 255 / 3429, "51-70": 227 / 3406}
# and the bad estimates missed, (family, problem, prior, document, method): IS-IP's one mode at
# alpha m = 0.1 (a blind spot) twice on 31-50 and once on 51-70; none on 11-30 since the ceiling
MISSED_MEASURED = {
    "11-30": set(),
    "31-50": {("lda", "lda 35", "ordinary 0.1", "short 5", "is_ip"),
              ("lda", "lda 37", "ordinary 0.1", "short 4", "is_ip")},
    "51-70": {("lda", "lda 70", "ordinary 0.1", "short 5", "is_ip")},
}
# what no diagnostic computed from the estimator's own numbers can see (docs/trust.md#blind-spots),
# named from the calibration problems (seeds 101, 102) before the test's problems were run:
# (family, methods, priors whose name starts with)
BLIND_SPOTS = (
    # IS-IP's iterated proposal settles on one mode of a multimodal posterior: its weights, and
    # its runs, never see the others (named at the extreme priors from seeds 101 and 102; the
    # larger calibration, seeds 1001-1040, shows it at alpha m = 0.1 as well)
    ("lda", ("is_ip",), ""),
    # L2R is consistent, not unbiased: a bias shared by every run (its chains' burn-in from one
    # factor to the next, slow at extreme priors) shows in neither the weights nor the runs
    ("gapfa", ("l2r", "l2r code", "l2r_exact"), ""),
)
LDA_TOPICS, LDA_WORDS = 3, 6
LDA_PRIORS = {"ordinary 0.1": 0.1, "ordinary 1": 1.0, "extreme 1e-3": 1e-3,
              "extreme 1e-300": 1e-300}
# every consistent sampling method at its default budget (evaluate's for chib and GaP-FA's ais,
# which equals ais's own; L2R's of up to 0.2.0, when it was GaP-FA's default)
LDA_METHODS = {"is_pt": {}, "is_pzw": {}, "is_ip": {}, "ais": {}, "chib": DEFAULTS["lda"][1],
               "lr": {}, "is_theta": {}, "bridge_theta": {}}
LDA_COMPLETION = {"ais": {}, "lr": {}}
GAPFA_MODELS = {"ordinary": (np.array([0.6, 0.8, 0.4]), np.array([1.0, 0.5, 2.0])),
                "extreme": (np.array([0.99, 0.9, 0.999]), np.array([1e-3, 0.05, 1e-2]))}
L2R_BUDGET = {"samples": 300}  # GaP-FA's evaluate default up to 0.2.0 (with 4 runs)
GAPFA_METHODS = {"ds": {}, "l2r": L2R_BUDGET, "l2r code": {**L2R_BUDGET, "proposal": "code"},
                 "l2r_exact": {"samples": 300}, "l2r_seq": {"samples": 300}, "ais": {}}
EXAMPLE_SEED = 3  # the problems of the examples (docs/trust.md#the-examples)
EXAMPLE_RUNS = 400
# GaP-FA's default since L2R's (AIS, 1,000 temperatures, 4 runs) on the repeated word:
# 2.40 nats low with a standard error of 0.54 and its runs agreeing, which only the floor summed
# over the allocations near the best one sees (docs/trust.md#the-examples)
DEFAULT_EXAMPLE = "the default (AIS, 1,000 temperatures)"

def classify(error: np.ndarray, stderr: np.ndarray) -> np.ndarray:
    """"bad" (|error| > 4 se + 0.1), "good" (|error| <= 2 se) or "between", per estimate (a
    missing standard error counts as 0)."""
    error, stderr = np.abs(error), np.nan_to_num(stderr)
    return np.where(error > 4 * stderr + 0.1, "bad", np.where(error <= 2 * stderr, "good",
                                                              "between"))


def _row(family, problem, prior, doc, method, runs, exact, res) -> pd.DataFrame:
    logp, se = combine_runs(res.logp)
    frame = pd.DataFrame({"family": family, "problem": problem, "prior": prior, "doc": doc,
                          "method": method, "runs": runs, "exact": exact, "logp": logp,
                          "stderr": se, "error": logp - exact})
    return pd.concat([frame, res.diagnostics.reset_index(drop=True)], axis=1)


def lda_problem(seed: int):
    """(phi, documents, names): T = 3 topics over 6 words drawn from Dir(1), three short
    documents (3, 4 and 5 tokens) and one word repeated 6 times."""
    rng = generator(seed, "trust-battery-lda")
    phi = rng.dirichlet(np.ones(LDA_WORDS), size=LDA_TOPICS)
    docs = [rng.integers(0, LDA_WORDS, n) for n in (3, 4, 5)]
    docs.append(np.full(6, rng.integers(0, LDA_WORDS)))
    return phi, docs, ["short 3", "short 4", "short 5", "repeated 6"]


def lda_rows(seed: int) -> list[pd.DataFrame]:
    """Every LDA method x prior on the documents of ``lda_problem(seed)``."""
    phi, docs, names = lda_problem(seed)
    runs = DEFAULT_RUNS["lda"]
    rows = []
    for prior, scale in LDA_PRIORS.items():
        am = np.full(LDA_TOPICS, scale)
        exact = lda.estimate("exact", docs, phi, am)
        exact_c = lda.complete("exact", docs, phi, am)
        for table, runner, truth, suffix in ((LDA_METHODS, lda.estimate_runs, exact, ""),
                                             (LDA_COMPLETION, lda.complete_runs, exact_c,
                                              " completion")):
            for method, settings in table.items():
                res = runner(method, docs, phi, am, runs=runs, seed=seed, **settings)
                rows.append(_row("lda", f"lda {seed}", prior, names, method + suffix, runs,
                                 truth, res))
    return rows


def gapfa_problem(seed: int):
    """(phi, counts, names): T = 3 topics over 8 words drawn from Dir(0.5), three short
    documents (3 to 6 counts) and one word counted 30 and 300 times."""
    rng = generator(seed, "trust-battery-gapfa")
    phi = rng.dirichlet(np.full(8, 0.5), 3)
    counts = np.zeros((5, 8), np.int64)
    for d, total in enumerate((3, 4, 6)):
        np.add.at(counts[d], rng.integers(0, 8, total), 1)
    word = rng.integers(0, 8)
    counts[3, word], counts[4, word] = 30, 300
    return phi, counts, ["short 3", "short 4", "short 6", "repeated 30", "repeated 300"]


def gapfa_rows(seed: int) -> list[pd.DataFrame]:
    """Every GaP-FA method x model on the documents of ``gapfa_problem(seed)``."""
    phi, counts, names = gapfa_problem(seed)
    runs = DEFAULT_RUNS["gapfa"]
    rows = []
    for prior, (p, r) in GAPFA_MODELS.items():
        exact = gapfa.estimate("exact", counts, phi, p, r)
        for method, settings in GAPFA_METHODS.items():
            res = gapfa.estimate_runs(method.split()[0], counts, phi, p, r, runs=runs, seed=seed,
                                      **settings)
            rows.append(_row("gapfa", f"gapfa {seed}", prior, names, method, runs, exact, res))
    return rows


def blind_spot(frame: pd.DataFrame) -> np.ndarray:
    """Whether each estimate of a battery table is in one of ``BLIND_SPOTS``."""
    out = np.zeros(len(frame), bool)
    for family, methods, prior in BLIND_SPOTS:
        out |= ((frame["family"] == family) & frame["method"].isin(methods)
                & frame["prior"].astype(str).str.startswith(prior)).to_numpy()
    return out


def battery(seeds) -> pd.DataFrame:
    """The battery over the problems of ``seeds``, one row per estimate, with its class and
    whether it is in a blind spot."""
    rows = [row for seed in seeds for row in lda_rows(seed) + gapfa_rows(seed)]
    frame = pd.concat(rows, ignore_index=True)
    frame["class"] = classify(frame["error"].to_numpy(), frame["stderr"].to_numpy())
    frame["blind_spot"] = blind_spot(frame)
    return frame


def examples() -> pd.DataFrame:
    """The examples of issue 31 on the problems of ``EXAMPLE_SEED``, one row per document, with
    their diagnostics (``benchmarks/trust_examples.py``, docs/trust.md#the-examples)."""
    seed = EXAMPLE_SEED
    phi, docs, names = lda_problem(seed)
    short, short_names = docs[:3], names[:3]
    rows = []
    for scale in (1e-3, 1e-300):
        am = np.full(LDA_TOPICS, scale)
        res = lda.estimate_runs("chib", short, phi, am, runs=EXAMPLE_RUNS, seed=seed,
                                **DEFAULTS["lda"][1])
        rows.append(_row("lda", f"chib, alpha m = {scale:g}, {EXAMPLE_RUNS} runs", scale,
                         short_names, "chib", EXAMPLE_RUNS, lda.estimate("exact", short, phi,
                                                                        am), res))
    am = np.full(LDA_TOPICS, 1e-300)  # completion by AIS as lda.complete gives it: one run
    res = lda.complete_runs("ais", docs, phi, am, runs=1, seed=seed)
    rows.append(_row("lda", "AIS completion (one run), alpha m = 1e-300", 1e-300, names,
                     "ais completion", 1, lda.complete("exact", docs, phi, am), res))
    rows.append(_ratio_row(seed, phi, docs, names))
    phi_g, counts, gnames = gapfa_problem(seed)
    p, r = GAPFA_MODELS["ordinary"]
    exact = gapfa.estimate("exact", counts[4:], phi_g, p, r)
    for method, label, settings in (
            ("l2r", "L2R, S = 300 (the default up to 0.2.0)", L2R_BUDGET),
            ("l2r", "L2R, S = 300, proposal='code'", {**L2R_BUDGET, "proposal": "code"}),
            (DEFAULTS["gapfa"][0], DEFAULT_EXAMPLE, DEFAULTS["gapfa"][1])):
        res = gapfa.estimate_runs(method, counts[4:], phi_g, p, r, runs=DEFAULT_RUNS["gapfa"],
                                  seed=seed, **settings)
        rows.append(_row("gapfa", f"GaP-FA {label}, one word 300 times", "ordinary",
                         gnames[4:], method, DEFAULT_RUNS["gapfa"], exact, res))
    frame = pd.concat(rows, ignore_index=True).rename(columns={"problem": "example"})
    frame["class"] = classify(frame["error"].to_numpy(), frame["stderr"].to_numpy())
    return frame


def _ratio_row(seed: int, phi, docs, names) -> pd.DataFrame:
    """Ratio-AIS (defaults: one sample, 100 temperatures, the reciprocal check) from exact
    posterior samples at alpha m = 1e-300, model B a perturbed copy of model A's topics (the
    experiment of Foulds and Smyth); its standard error is that of the one sample: NaN."""
    rng = generator(seed, "trust-examples-ratio")
    phi_b = phi * np.exp(0.5 * rng.normal(size=phi.shape))
    phi_b /= phi_b.sum(axis=1, keepdims=True)
    am = np.full(LDA_TOPICS, 1e-300)
    res = lda.compare(docs, (phi, am), (phi_b, am), start="exact", seed=seed)
    truth = lda.estimate("exact", docs, phi, am) - lda.estimate("exact", docs, phi_b, am)
    frame = pd.DataFrame({"family": "lda", "problem": "ratio-AIS from exact samples, alpha m = "
                          "1e-300", "prior": 1e-300, "doc": names, "method": "ratio-AIS",
                          "runs": 1, "exact": truth, "logp": res.log_ratio,
                          "stderr": np.nan, "error": res.log_ratio - truth})
    return pd.concat([frame, res.diagnostics.reset_index(drop=True)], axis=1)
