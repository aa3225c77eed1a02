"""L2R's factors, one by one: their k-hat, effective sample size and share of the run's
log-estimate variance, against the estimate's actual error (docs/trust.md#l2rs-factors).

    NUMBA_NUM_THREADS=1 nice -n 10 python benchmarks/l2r_factors.py [--seeds 101 102] [--real]

GaP-FA L2R (either proposal) and L2R-E at their battery budgets (4 runs of 300 samples) on the
calibration problems of ``tests/trust_battery.py`` (``--seeds``) and, with ``--real``, on the 12
benchmark documents of ``benchmarks/bdmc.py`` against their references (``bdmc_raw.csv``).  The
kernel's diagnostics record keeps only a summary per run; here a copy of the kernel whose
``factors_add`` also prints every factor's numbers (``topiceval.diagnostics.factor_numbers``)
gives them all.  Writes ``benchmarks/out/l2r_factors.csv`` (one row per factor and run) and
prints the summaries.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import types  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from numba import njit  # noqa: E402

from topiceval import diagnostics, interrupt  # noqa: E402
from topiceval.estimators import gapfa  # noqa: E402
from topiceval.estimators.gapfa import l2r  # noqa: E402
from topiceval.evaluation import combine_runs  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from trust_battery import GAPFA_METHODS, GAPFA_MODELS, classify, gapfa_problem  # noqa: E402

RUNS = 4
METHODS = {name: s for name, s in GAPFA_METHODS.items() if name.startswith("l2r")
           and name != "l2r_seq"}


@njit(cache=False)
def _printing_add(rec, factor, chain):
    k, ess, var = diagnostics.factor_numbers(factor, chain)
    print("FACTOR", k, ess, var)
    diagnostics.factors_add(rec, factor, chain)


def _copy(fn, **replace):
    """A fresh njit copy of the numba function ``fn`` with some of its globals replaced."""
    py = fn.py_func
    glob = {**py.__globals__, **replace}
    return njit(types.FunctionType(py.__code__, glob, py.__name__, py.__defaults__))


_DOCUMENT = _copy(l2r.l2r_document, factors_add=_printing_add)
_KERNEL = _copy(l2r._l2r_kernel, l2r_document=_DOCUMENT)


def factors_of(method: str, counts, phi, p, r, seed: int, **settings):
    """(estimate_runs result, DataFrame of every factor: doc, run, j, khat, ess, var)."""
    def run(kernel, *args):
        return _KERNEL(*args, interrupt.new_flag())

    with tempfile.TemporaryFile("w+") as sink:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(sink.fileno(), 1)
        original = l2r.interrupt
        l2r.interrupt = types.SimpleNamespace(run=run)
        try:
            res = gapfa.estimate_runs(method, counts, phi, p, r, runs=RUNS, seed=seed,
                                      threads=1, **settings)
        finally:
            l2r.interrupt = original
            os.dup2(saved, 1)
            os.close(saved)
        sink.seek(0)
        lines = [line.split()[1:] for line in sink if line.startswith("FACTOR")]
    values = np.array(lines, dtype=np.float64).reshape(-1, 3)
    nonzero = (counts.getnnz(axis=1) if hasattr(counts, "getnnz")
               else np.count_nonzero(counts, axis=1))
    n_factors = [int(n) + 1 for n in nonzero]
    doc, run_, j = [], [], []
    for d, n in enumerate(n_factors):  # the kernel's task order: documents, then runs
        for i in range(RUNS):
            doc += [d] * n
            run_ += [i] * n
            j += list(range(n))
    frame = pd.DataFrame({"doc": doc, "run": run_, "j": j, "khat": values[:, 0],
                          "ess": values[:, 1], "var": values[:, 2]})
    return res, frame


def battery_factors(seeds) -> tuple[pd.DataFrame, pd.DataFrame]:
    estimates, factors = [], []
    for seed in seeds:
        phi, counts, names = gapfa_problem(seed)
        for prior, (p, r) in GAPFA_MODELS.items():
            exact = gapfa.estimate("exact", counts, phi, p, r)
            for method, settings in METHODS.items():
                res, fac = factors_of(method.split()[0], counts, phi, p, r, seed, **settings)
                tag = {"set": f"battery {seed}", "prior": prior, "method": method}
                estimates.append(_estimates(tag, names, res, exact))
                factors.append(fac.assign(**tag))
    return pd.concat(estimates, ignore_index=True), pd.concat(factors, ignore_index=True)


def real_factors(seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    import default_method as dm

    raw = pd.read_csv(HERE / "out" / "bdmc_raw.csv", low_memory=False)
    refs = raw[raw.part == "gapfa_ref"].astype({"doc": int})
    c = dm.corpus("20ng", Path(os.environ.get("TOPICEVAL_DATA_MIRROR", "../shared/data")),
                  False)
    model = dm.gap_model(c, dm.FULL, False)
    counts = c.select_split("test").counts().tocsr()
    keys = refs["doc"].to_numpy()
    res, fac = factors_of("l2r", counts[keys], model.phi, model.p, model.r, seed,
                          samples=300)
    tag = {"set": "20ng", "prior": "real", "method": "l2r"}
    names = [f"{b} #{k}" for b, k in zip(refs["bin"], keys, strict=True)]
    return (_estimates(tag, names, res, refs["ref"].to_numpy()), fac.assign(**tag))


def _estimates(tag, names, res, exact) -> pd.DataFrame:
    logp, se = combine_runs(res.logp)
    frame = pd.DataFrame({**tag, "doc": range(len(names)), "name": names, "error": logp - exact,
                          "stderr": se})
    frame["class"] = classify(frame["error"].to_numpy(), frame["stderr"].to_numpy())
    return pd.concat([frame, res.diagnostics.reset_index(drop=True)], axis=1)


def summarise(estimates: pd.DataFrame, factors: pd.DataFrame) -> str:
    key = ["set", "prior", "method", "doc"]
    limit = diagnostics.khat_threshold(300)
    f = factors.assign(heavy=factors["khat"] > limit)
    quant = f.groupby(["set", "method"])["khat"].describe(percentiles=[.5, .9, .99])
    per_run = f.groupby(key + ["run"]).apply(lambda g: pd.Series({
        "factors": len(g), "heavy": int(g["heavy"].sum()), "max_khat": g["khat"].max(),
        "var": g["var"].sum(), "heavy_var": g.loc[g["heavy"], "var"].sum()}),
        include_groups=False).reset_index()
    per_run["heavy_share"] = per_run["heavy_var"] / per_run["var"]
    per_doc = per_run.groupby(key).agg(
        factors=("factors", "first"), heavy=("heavy", "median"),
        median_max_khat=("max_khat", "median"), sd_all=("var", lambda v: np.sqrt(v.median())),
        sd_heavy=("heavy_var", lambda v: np.sqrt(v.median())),
        heavy_share=("heavy_share", "median")).reset_index()
    table = estimates.merge(per_doc, on=key)
    cols = ["set", "prior", "method", "name", "error", "stderr", "class", "factors", "heavy",
            "median_max_khat", "sd_all", "sd_heavy", "heavy_share", "trusted"]
    with pd.option_context("display.width", 250, "display.max_rows", 500):
        return (f"per-factor k-hat (threshold {limit:.3f} at S = 300):\n{quant.to_string()}\n\n"
                f"share of factors above it: {f['heavy'].mean():.2f}\n\n"
                f"{table[cols].to_string(float_format=lambda x: f'{x:.3g}')}\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=[101, 102])
    parser.add_argument("--real", action="store_true")
    parser.add_argument("--out", default=str(HERE / "out" / "l2r_factors"))
    args = parser.parse_args(argv)
    parts = [battery_factors(args.seeds)] if args.seeds else []
    if args.real:
        parts.append(real_factors())
    estimates = pd.concat([e for e, _ in parts], ignore_index=True)
    factors = pd.concat([f for _, f in parts], ignore_index=True)
    factors.to_csv(Path(args.out).with_suffix(".csv"), index=False)
    estimates.to_csv(Path(args.out + "_estimates").with_suffix(".csv"), index=False)
    text = summarise(estimates, factors)
    Path(args.out).with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
