"""The exact-answer battery of the diagnostics (issue 31; docs/trust.md#the-battery).

Tiny documents whose probability is known exactly, under LDA and GaP-FA models with ordinary and
extreme priors, short and repeated-word documents, estimated by every consistent sampling method
at its default budget and at a small one, with the runs of ``topiceval.evaluate`` (8 for LDA, 4
for GaP-FA), plus the examples of issue 31.  Each estimate is classed by its error against the
exact value, in its own standard errors (delta method over the runs):

* ``bad``: off by more than 4 standard errors + 0.1 nats: the diagnostics must flag it;
* ``good``: within 2 standard errors: at most ``FALSE_ALARMS`` of them may be flagged;
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

FALSE_ALARMS = 0.10  # the largest share of "good" estimates that may be flagged
LDA_TOPICS, LDA_WORDS = 3, 6
LDA_PRIORS = {"ordinary 0.1": 0.1, "ordinary 1": 1.0, "extreme 1e-3": 1e-3,
              "extreme 1e-300": 1e-300}
# the LDA methods with a default budget (evaluate's default for chib) and a small one
LDA_METHODS = {
    "is_pt": ({}, {"samples": 50}),
    "is_pzw": ({}, {"samples": 50}),
    "is_ip": ({}, {"samples": 50, "iterations": 5}),
    "ais": ({}, {"temperatures": 10}),
    "chib": (DEFAULTS["lda"][1], {"samples": 50, "burnin": 5}),
    "lr": ({}, {"particles": 3}),
}
LDA_COMPLETION = {"ais": ({}, {"temperatures": 10}), "lr": ({}, {"particles": 3})}
GAPFA_MODELS = {"ordinary": (np.array([0.6, 0.8, 0.4]), np.array([1.0, 0.5, 2.0])),
                "extreme": (np.array([0.99, 0.9, 0.999]), np.array([1e-3, 0.05, 1e-2]))}
GAPFA_METHODS = {
    "ds": ({}, {"samples": 50}),
    "l2r": (DEFAULTS["gapfa"][1], {"samples": 30}),
    "l2r code": ({**DEFAULTS["gapfa"][1], "proposal": "code"},
                 {"samples": 30, "proposal": "code"}),
    "l2r_exact": ({"samples": 300}, {"samples": 30}),
    "l2r_seq": ({"samples": 300}, {"samples": 30}),
}


def classify(error: np.ndarray, stderr: np.ndarray) -> np.ndarray:
    """"bad" (|error| > 4 se + 0.1), "good" (|error| <= 2 se) or "between", per estimate."""
    error, stderr = np.abs(error), np.nan_to_num(stderr)
    return np.where(error > 4 * stderr + 0.1, "bad", np.where(error <= 2 * stderr, "good",
                                                              "between"))


def _row(family, problem, prior, doc, method, budget, runs, exact, res) -> pd.DataFrame:
    logp, se = combine_runs(res.logp)
    frame = pd.DataFrame({"family": family, "problem": problem, "prior": prior, "doc": doc,
                          "method": method, "budget": budget, "runs": runs, "exact": exact,
                          "logp": logp, "stderr": se, "error": logp - exact})
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
    """Every LDA method x budget x prior on the documents of ``lda_problem(seed)``."""
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
            for method, budgets in table.items():
                for budget, settings in zip(("default", "small"), budgets, strict=True):
                    res = runner(method, docs, phi, am, runs=runs, seed=seed, **settings)
                    rows.append(_row("lda", f"lda {seed}", prior, names, method + suffix,
                                     budget, runs, truth, res))
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
    """Every GaP-FA method x budget x model on the documents of ``gapfa_problem(seed)``."""
    phi, counts, names = gapfa_problem(seed)
    runs = DEFAULT_RUNS["gapfa"]
    rows = []
    for prior, (p, r) in GAPFA_MODELS.items():
        exact = gapfa.estimate("exact", counts, phi, p, r)
        for method, budgets in GAPFA_METHODS.items():
            for budget, settings in zip(("default", "small"), budgets, strict=True):
                res = gapfa.estimate_runs(method.split()[0], counts, phi, p, r, runs=runs,
                                          seed=seed, **settings)
                rows.append(_row("gapfa", f"gapfa {seed}", prior, names, method, budget,
                                 runs, exact, res))
    return rows


def battery(seeds) -> pd.DataFrame:
    """The battery over the problems of ``seeds``, one row per estimate, with its class."""
    rows = [row for seed in seeds for row in lda_rows(seed) + gapfa_rows(seed)]
    frame = pd.concat(rows, ignore_index=True)
    frame["class"] = classify(frame["error"].to_numpy(), frame["stderr"].to_numpy())
    return frame
