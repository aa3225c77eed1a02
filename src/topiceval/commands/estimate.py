"""``topiceval estimate``: held-out log-likelihood estimates of a saved model, as a tidy CSV.

    topiceval estimate --model M.npz --docs D.npz --method lr --particles 20 --seed 0 > est.csv
    topiceval estimate --model M.npz --docs D.npz --method et --complete --out completion.csv
    topiceval estimate --model G.npz --docs D.npz --method l2r --family gapfa --out est.csv

The expert's command: one row per (document, run), every estimator and document completion.
``topiceval evaluate`` is the front door (default method, runs combined with error bars).

LDA models use ``topiceval.estimators.lda`` (``estimate_runs``, or ``complete_runs`` with
``--complete``); GaP-FA models use ``topiceval.estimators.gapfa.estimate_runs`` on the
document-word count matrix.  The documents are matched to the model's vocabulary by word
(``Corpus.align``): out-of-vocabulary words are dropped and reported (``--oov error`` refuses
them, ``--max-oov-share`` refuses more than that share), a corpus without words is taken as the
model's columns only with ``--columns model``, and an LDA document left with no word is refused
by name.  ``--out`` is checked before anything is computed.  Only the estimator settings given
on the command line are passed; the rest keep the
estimator's defaults, and the ``settings`` column holds them all, resolved.  One row per
(document, run); the columns (``logp_nats``, ``work``, ``seconds``, ...) are defined in
``topiceval.commands.OUTPUT_COLUMNS`` and listed by ``topiceval estimate --help``.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd

from topiceval.commands import add_command
from topiceval.commands._inputs import (
    add_matching_options,
    load_model_file,
    match_documents,
    output_file,
    refuse_empty,
    report_dropped,
)
from topiceval.commands._settings import (
    add_limit_option,
    add_setting_options,
    method_tables,
    settings_from,
)
from topiceval.corpus import Corpus
from topiceval.io import write_csv_atomic
from topiceval.threads import numba_threads


def register(subparsers) -> None:
    parser = add_command(
        subparsers, "estimate",
        help="estimate log P(w | model) (or P(w2 | w1)) of held-out documents",
        description="Estimate log P(w | model), or log P(w2 | w1) with --complete, of every "
                    "document with any estimator: one CSV row per document and run (the "
                    "expert's command; 'topiceval evaluate' combines the runs with error "
                    "bars).")
    parser.add_argument("--model", required=True, help="model .npz file")
    parser.add_argument("--docs", required=True, help="corpus .npz file with the documents")
    parser.add_argument("--split", help="evaluate only the documents with this split label")
    methods = "; ".join(f"{label} {', '.join(table)}" for label, table in method_tables().items())
    parser.add_argument("--method", required=True, help=f"estimator: {methods}")
    parser.add_argument("--family", choices=("lda", "gapfa"),
                        help="model family (default: the model file's)")
    parser.add_argument("--complete", action="store_true",
                        help="document completion: log P(w2 | w1) (LDA only)")
    parser.add_argument("--completion-split", type=int, metavar="N1",
                        help="observed tokens per document (default floor(N / 2))")
    add_setting_options(parser)
    add_limit_option(parser)
    add_matching_options(parser)
    parser.add_argument("--runs", type=int, default=1,
                        help="independent runs per document (default 1)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of every random stream (default 0); each document's streams "
                             "also depend on its position, so results are reproducible")
    parser.add_argument("--threads", type=int, default=None,
                        help="numba threads (default: all; results do not depend on it)")
    parser.add_argument("--out", default="-", help="output CSV file (default: standard output)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (default: one on standard error when it is a "
                             "terminal)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with output_file(args.out) as out:
        write_csv_atomic(out, _estimate(args))
    return 0


def _estimate(args: argparse.Namespace) -> pd.DataFrame:
    """The rows of ``--out``: one per (document, run)."""
    model = load_model_file(args.model)
    corpus = Corpus.load(args.docs)
    if args.split is not None:
        corpus = corpus.select_split(args.split)
    family = args.family or model.family
    if family != model.family:
        raise ValueError(f"--family {family} does not match the model file ({model.family})")
    if args.runs < 1:
        raise ValueError(f"--runs must be >= 1, got {args.runs}")
    corpus = match_documents(model, corpus, args)
    if family == "lda":  # a GaP-FA document without counts is scored
        refuse_empty(corpus)
    report_dropped(corpus)
    settings = settings_from(args)
    with numba_threads(args.threads):
        if family == "lda":
            frame, resolved = _lda(args, model, corpus, settings)
        else:
            frame, resolved = _gapfa(args, model, corpus, settings)
    frame.insert(4, "name", corpus.names[frame["doc"].to_numpy()])
    frame["seconds"] = frame["seconds"] / max(len(frame), 1)  # shared equally by the rows
    frame["seed"] = args.seed
    frame["settings"] = json.dumps(resolved, sort_keys=True)
    return frame


def _lda(args, model, corpus, settings) -> tuple[pd.DataFrame, dict]:
    from topiceval.estimators import lda
    from topiceval.estimators.lda import registry

    if args.completion_split is not None and not args.complete:
        raise ValueError("--completion-split needs --complete")
    split = {"split": args.completion_split} if args.completion_split is not None else {}
    runner = lda.complete_runs if args.complete else lda.estimate_runs
    predicted = lda.check_limits(args.method, corpus, model.phi, runs=args.runs,
                                 completion=args.complete, work_limit=args.work_limit,
                                 threads=args.threads, **split, **settings)

    def call(block, warmup=False):
        docs = [corpus[int(d)][:2] if warmup else corpus[int(d)] for d in block]
        res = runner(args.method, docs, model.phi, model.alpha_m, runs=1 if warmup else args.runs,
                     seed=args.seed, doc_keys=block, work_limit=args.work_limit,
                     **({} if warmup else split), **settings)
        return res.logp, res.site_updates, res.seconds, res.diagnostics, res.upper

    logp, work, seconds, _, upper = _blocks(call, corpus, predicted, args, "lda")
    table = registry.COMPLETE if args.complete else registry.ESTIMATE
    resolved = table[args.method].resolve(settings)
    return _rows("lda", args, corpus, logp, work, seconds, upper), resolved


def _gapfa(args, model, corpus, settings) -> tuple[pd.DataFrame, dict]:
    from topiceval.estimators import gapfa
    from topiceval.estimators.gapfa import registry

    if args.complete or args.completion_split is not None:
        raise ValueError("document completion (--complete) is only implemented for LDA")
    counts = corpus.counts()
    predicted = gapfa.check_limits(args.method, counts, model.n_topics, runs=args.runs,
                                   work_limit=args.work_limit, threads=args.threads, **settings)

    def call(block, warmup=False):
        res = gapfa.estimate_runs(args.method, counts[block], model.phi, model.p, model.r,
                                  runs=1 if warmup else args.runs, seed=args.seed,
                                  doc_keys=block, work_limit=args.work_limit, **settings)
        return res.logp, res.work, res.seconds, res.diagnostics, res.upper

    logp, work, seconds, _, upper = _blocks(call, corpus, predicted, args, "gapfa")
    resolved = registry.get(args.method).resolve(settings)
    return _rows("gapfa", args, corpus, logp, work, seconds, upper), resolved


def _blocks(call, corpus, predicted, args, family):
    """The documents in blocks under a progress bar (``evaluation.run_in_blocks``)."""
    from topiceval.evaluation import run_in_blocks, show_progress

    return run_in_blocks(call, np.arange(len(corpus)), predicted * args.runs,
                         n_docs=len(corpus), runs=args.runs,
                         progress=show_progress(False if args.no_progress else None),
                         family=family)


def _rows(family, args, corpus, logp, sites, seconds, upper=None) -> pd.DataFrame:
    """One row per (document, run); ``upper_nats``: the upper bounds of bdmc (NaN otherwise)."""
    n_docs, n_runs = logp.shape
    doc = np.repeat(np.arange(n_docs), n_runs)
    bounds = np.full(logp.size, np.nan) if upper is None else upper.ravel()
    return pd.DataFrame({
        "family": family,
        "method": args.method,
        "target": "complete" if args.complete else "estimate",
        "doc": doc,
        "tokens": corpus.lengths[doc],
        "run": np.tile(np.arange(n_runs), n_docs),
        "logp_nats": logp.ravel(),
        "upper_nats": bounds,
        "work": sites.ravel(),
        "seconds": seconds,
    })
