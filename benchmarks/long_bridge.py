"""Bridge sampling over theta on long documents: a probe of the next estimator (issue 44).

    NUMBA_NUM_THREADS=1 python benchmarks/long_bridge.py [--mirror ../shared/data]

IS-theta's forward weights (draws from its proposal q) are low on many-topic documents, and its
reverse weights (draws from the posterior) high; bridge sampling (Meng and Wong 1996, their
optimal bridge) combines both sets of draws and depends on how much q and the posterior overlap,
not on their tails.  With l = P(w | theta) Dir(theta; alpha m) / q(theta), M draws from q and K
approximate posterior draws (theta_k ~ Dir(alpha m + n(z_k)), z_k the states of an independent
Gibbs chain after 50 burn-in sweeps), the estimate r of P(w) solves

    r = [ (1/M) sum_m l_m / (s_K l_m + s_M r) ] / [ (1/K) sum_k 1 / (s_K l_k + s_M r) ],
    s_K = K / (K + M), s_M = M / (K + M)

by fixed-point iteration from IS-theta's forward estimate.  It is consistent, not unbiased: the
posterior draws come from a chain.  Settings: q from B = 50 burn-in and S = 200 sweeps (IS-theta's
defaults), M = 1,000 draws, K = 1,000 posterior draws; 2 runs per document, on the battery's
calibration documents (against their truth) and the 40 real AP documents (against the reference
of ``long_real.py``).  The forward (IS-theta) estimate of the same draws is written beside it.

Outputs, committed: ``benchmarks/long_battery/calibration/bridge.csv`` and
``benchmarks/long_battery/real-ap/bridge.csv``, and a summary on the standard output.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import long_battery as lb  # noqa: E402
import long_real  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.special import logsumexp  # noqa: E402

BURNIN, SAMPLES, DRAWS, POSTERIOR, RUNS = 50, 200, 1000, 1000, 2
SEED = 7_000_031


def bridge(doc, phi, am, seed: int) -> tuple[float, float]:
    """(IS-theta's forward estimate, the bridge estimate) of log P(w) for one run."""
    rng = np.random.default_rng(seed)
    q = lb.Mixture(doc, phi, am, rng, seed, BURNIN, SAMPLES)
    forward = q.log_weights(q.draw(rng, DRAWS))
    start = rng.integers(0, am.size, doc.size)
    backward = q.log_weights(q.posterior_draws(rng, start, POSTERIOR, seed, burnin=BURNIN))
    s_k, s_m = np.log(POSTERIOR / (POSTERIOR + DRAWS)), np.log(DRAWS / (POSTERIOR + DRAWS))
    r = logsumexp(forward) - np.log(DRAWS)
    estimate = r
    for _ in range(1000):
        num = logsumexp(forward - np.logaddexp(s_k + forward, s_m + r)) - np.log(DRAWS)
        den = logsumexp(-np.logaddexp(s_k + backward, s_m + r)) - np.log(POSTERIOR)
        r, previous = num - den, r
        if abs(r - previous) < 1e-10:
            break
    return float(estimate), float(r)


def runs(doc, phi, am, key: int) -> dict:
    start = time.process_time()
    pairs = [bridge(doc, phi, am, SEED + 1009 * key + run) for run in range(RUNS)]
    forward, bridged = np.array(pairs).T
    return {"forward": lb.averaged(forward), "bridge": float(np.mean(bridged)),
            "bridge_runs_spread": float(np.ptp(bridged)),
            "cpu": (time.process_time() - start) / RUNS}


def calibration(mirror: Path) -> pd.DataFrame:
    truth = lb.pin(pd.read_csv(lb.HERE / "long_battery" / "calibration" / "truth.csv"))
    rows = []
    for (name, length, seed), cell in truth.groupby(["model", "length", "seed"], sort=False):
        model = lb.model_of(name, mirror)
        docs, _ = lb.documents(model, name, int(length), int(seed))
        for row in cell.itertuples():
            out = runs(docs[row.doc], model.phi, model.alpha_m, len(rows))
            rows.append(dict(model=name, length=length, seed=seed, doc=row.doc, truth=row.truth,
                             gap=row.gap, **out))
        lb.log(f"bridge {name} N={length} seed {seed}")
    return pd.DataFrame(rows)


def real(mirror: Path) -> pd.DataFrame:
    model = lb.real_model(long_real.MODEL, mirror)
    docs = long_real.held_out(model)
    ref = pd.read_csv(long_real.OUT / "reference.csv")
    rows = []
    for d, row in enumerate(ref.itertuples()):
        out = runs(np.asarray(docs[d]), model.phi, model.alpha_m, 10_000 + d)
        rows.append(dict(doc=row.doc, tokens=row.tokens, reference=row.reference,
                         spread=row.spread, **out))
    lb.log("bridge real AP documents")
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=lb.HERE.parent.parent / "shared" / "data")
    args = parser.parse_args(argv)
    cal = calibration(args.mirror)
    cal.to_csv(lb.HERE / "long_battery" / "calibration" / "bridge.csv", index=False)
    cal["group"] = cal["model"].where(~cal["model"].str.startswith("exact"), "T = 3")
    for col in ("forward", "bridge"):
        cal[f"{col}_error"] = cal[col] - cal["truth"]
        cal[f"{col}_within"] = cal[f"{col}_error"].abs() <= cal["gap"].clip(lower=0) / 2 + 0.5
    print(cal.groupby("group")[["forward_error", "bridge_error", "forward_within",
                                 "bridge_within", "cpu"]].agg(["median", "mean"]).round(3)
          .to_markdown())
    rl = real(args.mirror)
    rl.to_csv(long_real.OUT / "bridge.csv", index=False)
    rl["long"] = np.where(rl["tokens"] >= 300, ">= 300 tokens", "10-299 tokens")
    for col in ("forward", "bridge"):
        rl[f"{col}_error"] = rl[col] - rl["reference"]
        rl[f"{col}_off_by_1"] = rl[f"{col}_error"].abs() > 1.0
    print(rl.groupby("long")[["forward_error", "bridge_error", "forward_off_by_1",
                              "bridge_off_by_1", "cpu"]].agg(["median", "mean"]).round(3)
          .to_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
