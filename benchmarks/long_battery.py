"""The real-length battery (issue 44; docs/choosing-an-estimator.md#long-documents).

    NUMBA_NUM_THREADS=1 python benchmarks/long_battery.py
        [--part calibration|fresh|fresh-2|fresh-3|libraries|libraries-2]
        [--mirror ../shared/data] [--estimators chib is_theta bridge_theta]
        [--truth-only | --analyse-only]

Documents of 100 to 2,000 tokens whose log P(w) is known, and how often each estimator's
+/- 2 standard errors cover it.  Two kinds of truth:

* **exact** (``exact-*`` models): T = 3 models whose topics overlap (rows drawn from a Dirichlet of
  concentration 0.5 or 1 over 300 words, alpha m_t = 0.3 or 1), documents of 100, 300 and 600
  tokens drawn from them, log P(w) by the forward recursion (``estimators.lda.exact``);
* **sandwich** (models trained on real corpora, ``fit_gibbs`` with seed 002's settings, 400
  sweeps: AP with T = 50, 20 Newsgroups with T = 20 and 200): documents of 100, 300, 1,000 and
  2,000 tokens drawn from the model together with the topic assignments z that generated them,
  an exact draw from P(z | w).  Stochastic bounds of different kinds pin log P(w), each kept in
  its own column:
  - lower bounds, each the log of an unbiased estimate of P(w), so Pr[lower > log P + k] <=
    e^-k: IS-theta at a large budget (S = 1,000 chain samples, M = 20,000 draws, B = 200,
    4 runs averaged in probability, ``lower_is_theta``); Chib-style with 200 burn-in sweeps,
    16 runs (``lower_chib``); BDMC's forward AIS, 10,000 temperatures, 2 runs
    (``lower_ais``);
  - upper bounds, each minus the log of an unbiased estimate of 1 / P(w), so Pr[upper < log P
    - k] <= e^-k: IS-theta run backwards (``upper_is_theta``: an independent chain's mixture
    q as above; K = 1,000 exact posterior draws theta_k ~ Dir(alpha m + n(z_k)), z_k the
    states of a Gibbs chain started at the generating z, each an exact draw from P(z | w);
    upper = -log mean_k q(theta_k) / P(w, theta_k), since E[q(theta) / P(w, theta)] = 1 / P(w)
    under the posterior) and BDMC's reverse AIS from the generating z, 10,000 temperatures,
    2 runs (``upper_bdmc``).
  ``lower`` is the larger of the IS-theta and Chib-style lower bounds and ``upper`` IS-theta's
  upper bound (``pin``), so Pr[lower > log P + k] <= 2 e^-k and Pr[upper < log P - k] <= e^-k.
  BDMC's two bounds are recorded but not pooled: with 2 runs each, their outcomes are bimodal
  (a run finds the posterior's mass or misses it by tens of nats), and a run that finds it lands
  about log(1 / its chance) beyond log P: on the calibration documents the forward AIS was 3.2
  nats above both IS-theta bounds on one document and the reverse bound 0.5 nats below both
  lower bounds on two, which the e^-k bounds allow but a truth cannot use.  The truth is the
  midpoint; ``gap`` = upper - lower says how well it is pinned (a negative gap is Monte Carlo
  noise of bounds that met: the truth is known to no better than half its size either way).

Each cell (model x length) has 4 documents per part.  The parts have their own seeds:
``calibration`` (seeds 1-2, the part methods may be tuned on), ``fresh`` (seeds 101-102, run
once, by the protocol in docs/choosing-an-estimator.md#long-documents) and ``fresh-2`` (seeds
201-202, run once after the changes the first fresh part left to make, by the same protocol) and
``fresh-3`` (seeds 301-302, its truth computed before the changes the second one left to make,
and its estimates run once after them).
The ``libraries`` part (seeds 401-404, 8 documents per cell) asks whether bridge-theta's regime
holds for the models users bring: instead of the models above, AP models trained by
scikit-learn and gensim at T = 50 with their own default priors (alpha_t = 1 / T, so alpha sums
to 1, against 1.4-3.8 for the battery's Gibbs models), by the study's trainers
(``topiceval.experiments.study.train_candidate``) on ap-T50's training documents.  The
``libraries-2`` part (seeds 405-408) is its fresh part, with a gensim model at T = 100 besides,
run once to judge the wider error bar chosen on ``libraries``.

Estimators, each through ``topiceval.evaluate`` as a user calls it (its runs, standard error and
``trusted``): ``chib`` (the default then: S = 1,000, G0 = 50, 8 runs, cross-checked by IS-theta
on documents of 100 tokens or more), ``is_theta`` (its defaults, 8 runs) and ``bridge_theta``
(its defaults, 8 runs; until the second fresh part, 4 runs of twice today's budget).  Per
estimate: error against the truth, its standard error, whether +/- 2 s.e. covers the truth
(allowing for the truth's own half-gap, |upper - lower| / 2), trusted or not, CPU seconds.
An estimate is *bad* when it is off by more than 4 s.e. + 0.5 nats (issue 44's rule), *good*
when within 2 s.e.

Outputs, committed, in ``benchmarks/long_battery/{part}/``: ``truth.csv`` (every bound of every
document), ``estimates.csv`` and ``summary.md``; trained models and corpora are cached in
``benchmarks/out/long_battery_cache``.  With a ``truth.csv`` there the truth is read, not
recomputed; ``--analyse-only`` re-judges the estimates written.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from numba import njit  # noqa: E402
from scipy.special import gammaln, logsumexp  # noqa: E402

import topiceval  # noqa: E402
from topiceval._numba import rng_state, uniform  # noqa: E402
from topiceval.corpus import Corpus  # noqa: E402
from topiceval.data.prepare import build_corpus  # noqa: E402
from topiceval.estimators import lda  # noqa: E402
from topiceval.estimators.lda import exact  # noqa: E402
from topiceval.estimators.lda.is_theta import DEFENSIVE  # noqa: E402
from topiceval.experiments.study import TRAIN_DEFAULTS, train_candidate  # noqa: E402
from topiceval.models import LDAModel, load_model, save_model  # noqa: E402
from topiceval.training.lda import fit_gibbs  # noqa: E402
from topiceval.training.lda.synthetic import SEED002_OPTIMIZE, synthetic_sample  # noqa: E402

HERE = Path(__file__).resolve().parent
CACHE = HERE / "out" / "long_battery_cache"
PARTS = {"calibration": (1, 2), "fresh": (101, 102), "fresh-2": (201, 202),
         "fresh-3": (301, 302), "libraries": (401, 402, 403, 404),
         "libraries-2": (405, 406, 407, 408)}
DOCS_PER_SEED = 2
REAL = {  # name -> (dataset, recipe, options, T)
    "ap-T50": ("ap", "asis", {"split": "random", "test_fraction": 0.1}, 50),
    "20ng-T20": ("20newsgroups", "wallach2009", {}, 20),
    "20ng-T200": ("20newsgroups", "wallach2009", {}, 200),
}
# the libraries' own trainers at their default priors (alpha_t = 1 / T), on ap-T50's corpus and
# training documents: the ``libraries`` parts only (``libraries-2`` adds a model at T = 100)
LIBRARIES = {  # name -> (trainer of topiceval.experiments.study, REAL corpus, T)
    "sklearn-ap-T50": ("sklearn", "ap-T50", 50),
    "gensim-ap-T50": ("gensim", "ap-T50", 50),
    "gensim-ap-T100": ("gensim", "ap-T50", 100),
}
LIBRARY_PARTS = {"libraries": ("sklearn-ap-T50", "gensim-ap-T50"),
                 "libraries-2": tuple(LIBRARIES)}
REAL_LENGTHS = (100, 300, 1000, 2000)
EXACT = {  # name -> (row concentration, alpha m_t)
    "exact-c0.5-a0.3": (0.5, 0.3),
    "exact-c1-a1": (1.0, 1.0),
}
EXACT_LENGTHS = (100, 300, 600)
TRUTH_SEED = 7_000_003
TRUTH_LOWER = {"samples": 1000, "draws": 20_000, "burnin": 200}
TRUTH_RUNS = 4
TRUTH_UPPER_DRAWS = 1000
ESTIMATORS = {"chib": {"method": "chib", "runs": 8},
              "is_theta": {"method": "is_theta", "runs": 8},
              "bridge_theta": {"method": "bridge_theta", "runs": 8}}
ESTIMATE_SEED = 11


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ------------------------------------------------------------------------------ models
def real_corpus(name: str, mirror: Path) -> Corpus:
    dataset, recipe, options, _ = REAL[name]
    corpus_path = CACHE / f"corpus-{dataset}-{recipe}.npz"
    if corpus_path.is_file():
        return Corpus.load(corpus_path)
    corpus = build_corpus(dataset, mirror, recipe, dict(options), nltk_data=mirror / "nltk_data")
    corpus.save(corpus_path)
    return corpus


def real_model(name: str, mirror: Path) -> LDAModel:
    path = CACHE / f"{name}.npz"
    if path.is_file():
        return load_model(path)
    log(f"training {name}")
    if name in LIBRARIES:
        trainer, corpus_name, n_topics = LIBRARIES[name]
        model, _ = train_candidate(real_corpus(corpus_name, mirror).select_split("train"),
                                   trainer, n_topics, 0, TRAIN_DEFAULTS[trainer])
    else:
        model = fit_gibbs(real_corpus(name, mirror).select_split("train"), REAL[name][3],
                          sweeps=400, alpha_m=5.0 / REAL[name][3], beta=0.01,
                          optimize={**SEED002_OPTIMIZE, "interval": 10}, threads=1,
                          seed=0).model
    save_model(path, model)
    return model


def part_models(part: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(exact models, sandwich models) of ``part``."""
    if part in LIBRARY_PARTS:
        return (), LIBRARY_PARTS[part]
    return tuple(EXACT), tuple(REAL)


def exact_model(name: str) -> LDAModel:
    concentration, prior = EXACT[name]
    rng = np.random.default_rng([ord(c) for c in name])
    return LDAModel(rng.dirichlet(np.full(300, concentration), 3), np.full(3, prior))


def documents(model: LDAModel, name: str, length: int, seed: int):
    """DOCS_PER_SEED documents of ``length`` tokens and the z that generated them."""
    key = 1_000_003 * seed + 7919 * length + sum(map(ord, name))
    corpus, topics = synthetic_sample(model, DOCS_PER_SEED, length, seed=key)
    return [np.asarray(corpus[d]) for d in range(DOCS_PER_SEED)], topics


# ------------------------------------------------------------------------------ the truth
@njit(cache=True)
def _chain_counts(pw, am, z, sweeps, rng):
    """Counts after each of ``sweeps`` collapsed Gibbs sweeps from the state ``z`` (N,);
    ``rng``: a stream of ``topiceval._numba``."""
    n_tokens, n_topics = pw.shape
    z = z.copy()
    cnt = np.zeros(n_topics)
    for n in range(n_tokens):
        cnt[z[n]] += 1
    p = np.empty(n_topics)
    out = np.empty((sweeps, n_topics))
    for it in range(sweeps):
        for n in range(n_tokens):
            cnt[z[n]] -= 1
            total = 0.0
            for t in range(n_topics):
                total += pw[n, t] * (cnt[t] + am[t])
                p[t] = total
            u = uniform(rng) * total
            t = 0
            while t < n_topics - 1 and p[t] < u:
                t += 1
            z[n] = t
            cnt[t] += 1
        out[it] = cnt
    return out


def _log_dirichlet_draws(rng, a):
    """log theta for each row of ``a`` (K, T), theta ~ Dir(row), in log space."""
    lg = np.log(rng.gamma(a + 1.0)) + np.log(rng.random(a.shape)) / a
    return lg - logsumexp(lg, axis=1, keepdims=True)


class Mixture:
    """IS-theta's proposal q (docs/methods/lda-estimators.md#is-theta) for one document, built
    from the counts of a chain of ``burnin`` + ``samples`` sweeps from a random start (drawn
    from ``rng``; the chain's stream is keyed by ``seed``), and the log weights
    log P(w | theta) + log Dir(theta; alpha m) - log q(theta) at any theta."""

    def __init__(self, doc, phi, am, rng, seed: int, burnin: int, samples: int):
        self.doc, self.phi, self.am = doc, phi, am
        self.pw = np.ascontiguousarray(phi[:, doc].T)
        start = rng.integers(0, am.size, doc.size)
        self.comps = _chain_counts(self.pw, am, start, burnin + samples,
                                   rng_state(seed, 1, 0, 0))[burnin:]
        alpha = am.sum()
        self.offsets = (gammaln(alpha + doc.size) - gammaln(alpha)
                        - (gammaln(am + self.comps) - gammaln(am)).sum(axis=1))
        self.words, self.counts = np.unique(doc, return_counts=True)

    def draw(self, rng, m: int) -> np.ndarray:
        """(m, T) log theta drawn from q."""
        prior = rng.random(m) < DEFENSIVE
        k = rng.integers(0, self.comps.shape[0], m)
        return _log_dirichlet_draws(rng, np.where(prior[:, None], self.am[None, :],
                                                  self.am[None, :] + self.comps[k]))

    def posterior_draws(self, rng, z, sweeps: int, seed: int, burnin: int = 0) -> np.ndarray:
        """(sweeps, T) log theta ~ Dir(alpha m + n(z_k)), z_k the states of a chain from z
        after ``burnin`` sweeps (its stream keyed by ``seed``; an exact posterior draw each
        when z is one, approximate otherwise)."""
        states = _chain_counts(self.pw, self.am, np.asarray(z, np.int64), burnin + sweeps,
                               rng_state(seed, 2, 0, 0))[burnin:]
        return _log_dirichlet_draws(rng, self.am + states)

    def log_weights(self, lt: np.ndarray) -> np.ndarray:
        """log P(w | theta) - log(q(theta) / Dir(theta; alpha m)) at each row of ``lt``."""
        log_ratio = np.logaddexp(np.log(DEFENSIVE),
                                 np.log1p(-DEFENSIVE) - np.log(self.comps.shape[0])
                                 + logsumexp(self.offsets[None, :] + lt @ self.comps.T, axis=1))
        top = lt.max(axis=1, keepdims=True)
        log_lik = (self.doc.size * top[:, 0]
                   + np.log(np.exp(lt - top) @ self.phi[:, self.words]) @ self.counts)
        return log_lik - log_ratio


def upper_bound(doc, phi, am, z, seed: int) -> float:
    """The reverse importance-sampling bound of the module docstring: q from an independent
    chain, exact posterior draws from a chain started at the generating z."""
    rng = np.random.default_rng(seed)
    q = Mixture(doc, phi, am, rng, seed, TRUTH_LOWER["burnin"], TRUTH_LOWER["samples"])
    log_w = q.log_weights(q.posterior_draws(rng, z, TRUTH_UPPER_DRAWS, seed))
    # q / P(w, theta) = 1 / w
    return -(logsumexp(-log_w) - np.log(log_w.size))


def averaged(logp: np.ndarray) -> float:
    """A document's runs averaged in probability."""
    return float(logsumexp(logp) - np.log(logp.size))


def lower_bounds(doc, phi, am) -> dict:
    """The lower bounds of the module docstring (IS-theta, Chib-style; BDMC's in bdmc_bounds)."""
    runs = lda.estimate_runs("is_theta", [doc], phi, am, runs=TRUTH_RUNS, seed=TRUTH_SEED,
                             work_limit=None, **TRUTH_LOWER)
    chib = lda.estimate_runs("chib", [doc], phi, am, runs=16, seed=TRUTH_SEED,
                             work_limit=None, samples=1000, burnin=200)
    return {"lower_is_theta": averaged(runs.logp[0]), "lower_chib": averaged(chib.logp[0])}


def bdmc_bounds(doc, phi, am, z) -> dict:
    """BDMC from the generating z: the forward lower and the reverse upper bound."""
    runs = lda.estimate_runs("bdmc", [doc], phi, am, runs=2, seed=TRUTH_SEED,
                             posterior=[np.asarray(z, np.int64)], temperatures=10_000,
                             work_limit=None)
    return {"lower_ais": averaged(runs.logp[0]), "upper_bdmc": -averaged(-runs.upper[0])}


def truth_rows(part: str, mirror: Path) -> pd.DataFrame:
    rows = []
    exact_names, sandwich_names = part_models(part)
    for name in exact_names:
        model = exact_model(name)
        for length in EXACT_LENGTHS:
            for seed in PARTS[part]:
                docs, _ = documents(model, name, length, seed)
                for i, doc in enumerate(docs):
                    start = time.process_time()
                    value = exact.log_prob(doc, model.phi, model.alpha_m, max_work=10**10)
                    rows.append(dict(model=name, T=3, length=length, seed=seed, doc=i,
                                     kind="exact", lower=value, upper=value,
                                     cpu=time.process_time() - start))
        log(f"truth {name} done")
    for name in sandwich_names:
        model = real_model(name, mirror)
        for length in REAL_LENGTHS:
            for seed in PARTS[part]:
                docs, topics = documents(model, name, length, seed)
                for i, (doc, z) in enumerate(zip(docs, topics, strict=True)):
                    start = time.process_time()
                    bounds = {**lower_bounds(doc, model.phi, model.alpha_m),
                              **bdmc_bounds(doc, model.phi, model.alpha_m, z),
                              "upper_is_theta": upper_bound(doc, model.phi, model.alpha_m, z,
                                                            seed * 31 + i)}
                    rows.append(dict(model=name, T=model.n_topics, length=length, seed=seed,
                                     doc=i, kind="sandwich", cpu=time.process_time() - start,
                                     **bounds))
            log(f"truth {name} N={length}")
    return pd.DataFrame(rows)


POOLED_LOWER = ("lower_is_theta", "lower_chib")
POOLED_UPPER = ("upper_is_theta",)


def pin(truth: pd.DataFrame) -> pd.DataFrame:
    """``lower``, ``upper``, ``truth`` and ``gap`` of every document from its bounds (the
    exact value for the exact documents)."""
    out = truth.copy()
    sandwich = out["kind"] == "sandwich"
    out.loc[sandwich, "lower"] = out.loc[sandwich, list(POOLED_LOWER)].max(axis=1)
    out.loc[sandwich, "upper"] = out.loc[sandwich, list(POOLED_UPPER)].min(axis=1)
    out["truth"] = (out["lower"] + out["upper"]) / 2
    out["gap"] = out["upper"] - out["lower"]
    return out


# ------------------------------------------------------------------------------ estimates
def model_of(name: str, mirror: Path) -> LDAModel:
    return exact_model(name) if name in EXACT else real_model(name, mirror)


def estimate_rows(truth: pd.DataFrame, names, mirror: Path) -> pd.DataFrame:
    rows = []
    for (name, length, seed), cell in truth.groupby(["model", "length", "seed"], sort=False):
        model = model_of(name, mirror)
        docs, _ = documents(model, name, int(length), int(seed))
        for est in names:
            spec = ESTIMATORS[est]
            start = time.process_time()
            result = topiceval.evaluate(model, Corpus.from_documents(docs, model),
                                        spec["method"], runs=spec["runs"],
                                        seed=ESTIMATE_SEED, progress=False, work_limit=None)
            cpu = (time.process_time() - start) / len(docs)
            for i, row in enumerate(cell.itertuples()):
                rows.append(dict(model=name, T=row.T, length=length, seed=seed, doc=row.doc,
                                 estimator=est, estimate=result.logp[i], se=result.stderr[i],
                                 trusted=bool(result.trusted[i]),
                                 reason=result.diagnostics["reason"].iloc[i], cpu=cpu))
        log(f"estimates {name} N={length} seed {seed}")
    return pd.DataFrame(rows)


def judge(est: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    """Each estimate against its document's truth, the truth's half-gap |upper - lower| / 2
    allowed (bounds that cross by g leave the truth uncertain by g / 2 too): ``error``,
    ``covered`` (+/- 2 s.e.), ``bad`` (off by more than 4 s.e. + 0.5 nats), ``good`` (within
    2 s.e.)."""
    keys = ["model", "length", "seed", "doc"]
    raw = est.drop(columns=[c for c in ("error", "covered", "bad", "good", "truth", "gap")
                            if c in est])
    out = raw.merge(truth[keys + ["truth", "gap"]], on=keys)
    half = out["gap"].abs() / 2
    out["error"] = out["estimate"] - out["truth"]
    out["covered"] = out["error"].abs() <= 2 * out["se"] + half
    out["bad"] = out["error"].abs() > 4 * out["se"] + 0.5 + half
    out["good"] = out["covered"]
    return out


def summary(truth: pd.DataFrame, est: pd.DataFrame) -> str:
    lines = ["# Real-length battery", "", "## Truth", "",
             truth.groupby(["model", "length"]).agg(
                 docs=("gap", "size"), median_gap=("gap", "median"), max_gap=("gap", "max"),
                 cpu=("cpu", "mean")).round(3).to_markdown(), "", "## Estimators", ""]
    table = est.groupby(["estimator", "model", "length"]).agg(
        docs=("error", "size"), coverage=("covered", "mean"),
        median_error=("error", "median"), max_abs_error=("error", lambda e: e.abs().max()),
        bad=("bad", "sum"),
        bad_trusted=("bad", lambda b: int((b & est.loc[b.index, "trusted"]).sum())),
        good=("good", "sum"),
        good_flagged=("good", lambda g: int((g & ~est.loc[g.index, "trusted"]).sum())),
        cpu=("cpu", "mean"))
    lines += [table.round(3).to_markdown(), ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=sorted(PARTS), default="calibration")
    parser.add_argument("--mirror", type=Path, default=HERE.parent.parent / "shared" / "data")
    parser.add_argument("--estimators", nargs="+", default=sorted(ESTIMATORS),
                        choices=sorted(ESTIMATORS))
    parser.add_argument("--truth-only", action="store_true")
    parser.add_argument("--analyse-only", action="store_true",
                        help="judge the estimates already written against the truth")
    args = parser.parse_args(argv)
    out = HERE / "long_battery" / args.part
    out.mkdir(parents=True, exist_ok=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    truth_path = out / "truth.csv"
    if truth_path.is_file():
        truth = pd.read_csv(truth_path)
    else:
        truth = truth_rows(args.part, args.mirror)
        truth.to_csv(truth_path, index=False)
    truth = pin(truth)
    if args.truth_only:
        return 0
    est_path = out / "estimates.csv"
    if args.analyse_only:
        est = pd.read_csv(est_path)
    else:
        est = estimate_rows(truth, args.estimators, args.mirror)
        est.to_csv(est_path, index=False)
    text = summary(truth, judge(est, truth))
    (out / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
