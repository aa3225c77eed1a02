"""The default method by document length, and the parts of a call merged into one result.

``topiceval.evaluate(model, docs)`` without a method scores an LDA document of fewer than
``regimes.FROM_TOKENS`` (100) tokens with Chib-style and a longer one with bridge-theta
(docs/choosing-an-estimator.md#long-documents, issue 44):

* below 100 tokens Chib-style with 1,000 samples, 50 burn-in sweeps and 8 runs is the cheapest
  setting whose error against a converged reference stayed well below 1 nat
  (``benchmarks/default_method.py``);
* from 100 tokens its runs can all miss the same part of the posterior over the assignments z,
  while bridge-theta, which samples the topic proportions theta whose posterior sharpens as the
  document grows, covered the truth with +/- 2 standard errors on 94-100% of the real-length
  battery's third fresh part at every T from 3 to 200 (``benchmarks/long_battery.py``), at about
  Chib-style's cost; its settings are the budget its regime was shown at
  (``topiceval.regimes.BRIDGE_THETA_BUDGET``).

Each part runs exactly as ``evaluate`` with that method would run it on the same documents
(every document's random streams are keyed by its position in the call), so a document's
estimate does not depend on which other documents share the call.  The parts are then merged:
one row per document, ``Evaluation.document_methods`` saying which method scored it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from topiceval import regimes
from topiceval.targets import BudgetSpent
from topiceval.validation import arguments, naming

if TYPE_CHECKING:
    from topiceval.evaluation import Evaluation

# family -> (tokens from which the second method applies, that method, its settings)
LONG_DEFAULTS = {
    "lda": (regimes.FROM_TOKENS, "bridge_theta",
            dict(regimes.BRIDGE_THETA_BUDGET)),
}


@dataclasses.dataclass(frozen=True)
class Part:
    """The documents ``docs`` (positions in the call) scored by ``method`` at ``settings``."""

    method: str
    settings: dict
    docs: np.ndarray


def plan(family: str, method: str | None, defaults: tuple[str, dict], settings: dict,
         lengths: np.ndarray, todo: np.ndarray) -> list[Part]:
    """The parts of a call: ``method`` with ``settings`` on every document ``todo``, or, for
    ``method=None``, the family's default ``defaults`` (method, settings) and, on documents of
    ``LONG_DEFAULTS`` tokens or more, the long-document method (only the parts with documents;
    the first when none has).  Without a method, each given setting goes to every default
    method that has it; one that neither has is refused."""
    if method is not None:
        return [Part(method, dict(settings), todo)]
    short_method, short_settings = defaults
    if family not in LONG_DEFAULTS:
        return [Part(short_method, {**short_settings, **settings}, todo)]
    from_tokens, long_method, long_settings = LONG_DEFAULTS[family]
    names = {m: _setting_names(m) for m in (short_method, long_method)}
    unknown = sorted(set(settings) - names[short_method] - names[long_method])
    if unknown:
        raise naming(ValueError, "unknown setting(s) ", *arguments(unknown), " for the default "
                     f"methods {short_method!r} and {long_method!r}; allowed: ",
                     *arguments(sorted(names[short_method] | names[long_method])))
    long = lengths[todo] >= from_tokens
    parts = [Part(m, {**base, **{k: v for k, v in settings.items() if k in names[m]}}, docs)
             for m, base, docs in ((short_method, short_settings, todo[~long]),
                                   (long_method, long_settings, todo[long]))]
    return [p for p in parts if p.docs.size] or parts[:1]


def _setting_names(method: str) -> set[str]:
    from topiceval.estimators.lda import registry

    return {s.name for s in registry.ESTIMATE[method].settings}


def merged(parts: list[Evaluation], plan_parts: list[Part]) -> Evaluation:
    """One ``Evaluation`` of the call from those of its parts (each over every document, with
    its own documents scored): rows taken from the part that scored them, work and seconds
    added, notes kept once, ``document_methods`` naming each row's method ("" for a document
    no part scored, a skipped empty one)."""
    base = parts[0]
    n_docs = base.logp_runs.shape[0]
    width = max(p.logp_runs.shape[1] for p in parts)
    logp_runs = np.full((n_docs, width), np.nan)
    work = np.zeros((n_docs, width), np.int64)
    methods = np.full(n_docs, "", dtype=object)
    shared = np.zeros(n_docs)
    rows = [base.diagnostics.drop(index=np.concatenate([p.docs for p in plan_parts]))]
    for result, part in zip(parts, plan_parts, strict=True):
        docs, runs = part.docs, result.logp_runs.shape[1]
        logp_runs[docs, :runs] = result.logp_runs[docs]
        work[docs, :runs] = result.work[docs]
        methods[docs] = part.method
        shared[docs] = result.shared_error
        rows.append(result.diagnostics.iloc[docs])
    diagnostics = pd.concat(rows).sort_index()
    return dataclasses.replace(
        base, method="+".join(p.method for p in plan_parts),
        settings={p.method: r.settings for p, r in zip(plan_parts, parts, strict=True)},
        logp_runs=logp_runs, work=work, predicted_work=sum(p.predicted_work for p in parts),
        seconds=sum(p.seconds for p in parts),
        notes=tuple(dict.fromkeys(n for p in parts for n in p.notes)),
        diagnostics=diagnostics, budget=_merged_budget(parts, plan_parts, diagnostics),
        shared_error=shared, document_methods=methods)


def _merged_budget(parts: list[Evaluation], plan_parts: list[Part],
                   diagnostics: pd.DataFrame) -> BudgetSpent | None:
    """The parts' ``budget`` (under a ``target``) as one: each document's from its part; the
    per-run setting named only when the parts' methods grow the same one."""
    budgets = [p.budget for p in parts]
    if budgets[0] is None:
        return None
    first = budgets[0]
    runs, lengths, reached = first.runs.copy(), first.lengths.copy(), first.reached.copy()
    for budget, part in zip(budgets, plan_parts, strict=True):
        runs[part.docs] = budget.runs[part.docs]
        lengths[part.docs] = budget.lengths[part.docs]
        reached[part.docs] = budget.reached[part.docs]
    settings = {b.setting for b in budgets}
    return BudgetSpent(
        target=first.target, runs=runs, setting=first.setting if len(settings) == 1 else "",
        lengths=lengths, reached=reached, trusted=diagnostics["trusted"].to_numpy(bool),
        rounds=max(b.rounds for b in budgets), work=sum(b.work for b in budgets),
        stopped="; ".join(dict.fromkeys(b.stopped for b in budgets if b.stopped)))


def describe(document_methods: np.ndarray, scored: np.ndarray, methods: list[str]) -> str:
    """"chib on 31 and bridge_theta on 9": how many scored documents each of ``methods`` (in
    their order, those with none left out) took."""
    counts = {m: int(np.count_nonzero(document_methods[scored] == m)) for m in methods}
    return " and ".join(f"{m} on {n:,}" for m, n in counts.items() if n)
