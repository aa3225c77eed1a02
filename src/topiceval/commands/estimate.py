"""``topiceval estimate``: held-out log-likelihood estimates of a saved model, as a tidy CSV.

    topiceval estimate --model M.npz --docs D.npz --method lr --particles 20 --seed 0 > est.csv
    topiceval estimate --model M.npz --docs D.npz --method et --complete --out completion.csv
    topiceval estimate --model G.npz --docs D.npz --method l2r --family gapfa --out est.csv

LDA models use ``topiceval.estimators.lda`` (``estimate_runs``, or ``complete_runs`` with
``--complete``); GaP-FA models use ``topiceval.estimators.gapfa.estimate`` on the document-word
count matrix (run r uses seed + r).  The family defaults to the model file's.  Only the
estimator settings given on the command line are passed; the rest keep the estimator's defaults.
One row per (document, run): family, method, target, doc, name, tokens, run, logp,
site_updates, seconds (the call's kernel time divided by the runs), seed, settings (JSON).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd

from topiceval.corpus import Corpus
from topiceval.io import write_csv_atomic
from topiceval.models import load_model
from topiceval.threads import numba_threads

SETTINGS = (("samples", int), ("burnin", int), ("iterations", int), ("temperatures", int),
            ("particles", int), ("max_work", int))


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "estimate", help="estimate log P(w | model) (or P(w2 | w1)) of held-out documents")
    parser.add_argument("--model", required=True, help="model .npz file")
    parser.add_argument("--docs", required=True, help="corpus .npz file with the documents")
    parser.add_argument("--split", help="evaluate only the documents with this split label")
    parser.add_argument("--method", required=True, help="estimator name, e.g. lr, chib, ais")
    parser.add_argument("--family", choices=("lda", "gapfa"),
                        help="model family (default: the model file's)")
    parser.add_argument("--complete", action="store_true",
                        help="document completion: log P(w2 | w1) (LDA only)")
    parser.add_argument("--completion-split", type=int, metavar="N1",
                        help="observed tokens per document (default floor(N / 2))")
    for name, kind in SETTINGS:
        parser.add_argument(f"--{name.replace('_', '-')}", type=kind, dest=name)
    parser.add_argument("--resample", action=argparse.BooleanOptionalAction, default=None,
                        help="left-to-right rejuvenation sweeps (default on)")
    parser.add_argument("--runs", type=int, default=1, help="independent runs per document")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None, help="numba threads (default all)")
    parser.add_argument("--out", default="-", help="output CSV file (default: standard output)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    corpus = Corpus.load(args.docs)
    if args.split is not None:
        corpus = corpus.select_split(args.split)
    family = args.family or model.family
    if family != model.family:
        raise ValueError(f"--family {family} does not match the model file ({model.family})")
    if corpus.n_types != model.n_types:
        raise ValueError(f"the corpus has a vocabulary of {corpus.n_types} words but the model "
                         f"has {model.n_types}")
    if args.runs < 1:
        raise ValueError(f"--runs must be >= 1, got {args.runs}")
    settings = {name: getattr(args, name) for name, _ in SETTINGS
                if getattr(args, name) is not None}
    if args.resample is not None:
        settings["resample"] = args.resample
    with numba_threads(args.threads):
        if family == "lda":
            frame = _lda(args, model, corpus, settings)
        else:
            frame = _gapfa(args, model, corpus, settings)
    frame.insert(4, "name", corpus.names[frame["doc"].to_numpy()])
    frame["seed"] = args.seed
    frame["settings"] = json.dumps(settings, sort_keys=True)
    write_csv_atomic(args.out, frame)
    return 0


def _lda(args, model, corpus, settings) -> pd.DataFrame:
    from topiceval.estimators import lda

    if args.complete:
        if args.completion_split is not None:
            settings["split"] = args.completion_split
        result = lda.complete_runs(args.method, corpus, model.phi, model.alpha_m,
                                   runs=args.runs, seed=args.seed, **settings)
        settings.pop("split", None)
    else:
        if args.completion_split is not None:
            raise ValueError("--completion-split needs --complete")
        result = lda.estimate_runs(args.method, corpus, model.phi, model.alpha_m,
                                   runs=args.runs, seed=args.seed, **settings)
    return _rows("lda", args, corpus, result.logp, result.site_updates,
                 result.seconds / args.runs)


def _gapfa(args, model, corpus, settings) -> pd.DataFrame:
    from topiceval.estimators import gapfa

    if args.complete or args.completion_split is not None:
        raise ValueError("document completion (--complete) is only implemented for LDA")
    counts = corpus.counts()
    logp = np.column_stack([
        gapfa.estimate(args.method, counts, model.phi, model.p, model.r, seed=args.seed + r,
                       **settings)
        for r in range(args.runs)
    ])
    return _rows("gapfa", args, corpus, logp, None, np.nan)


def _rows(family, args, corpus, logp, sites, seconds) -> pd.DataFrame:
    n_docs, n_runs = logp.shape
    doc = np.repeat(np.arange(n_docs), n_runs)
    return pd.DataFrame({
        "family": family,
        "method": args.method,
        "target": "complete" if args.complete else "estimate",
        "doc": doc,
        "tokens": corpus.lengths[doc],
        "run": np.tile(np.arange(n_runs), n_docs),
        "logp": logp.ravel(),
        "site_updates": sites.ravel() if sites is not None else np.nan,
        "seconds": seconds,
    })
