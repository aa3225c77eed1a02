"""``topiceval compare``: is model A better than model B on held-out documents? A tidy CSV.

    topiceval compare --model-a A.npz --model-b B.npz --docs D.npz --split test \\
        --samples 1 --temperatures 100 --seed 0 --out compare.csv
    topiceval compare ... --completion --completion-split 50      # P(w^b | w^a) instead
    topiceval compare ... --method both                           # ratio-AIS and standard rows

Ratio-AIS (``topiceval.estimators.lda.compare``, seed 003) anneals from B's posterior to A's and
back (``--no-reciprocal`` skips the reversed runs); ``--method standard`` is the difference of
two independent AIS estimates (``compare_standard``; whole documents only).  Both models must be
LDA models with the same topics count and the same words (B's columns are put in A's word order;
different word sets are refused); the documents are matched to A's words, out-of-vocabulary
words dropped and reported (``--oov error`` refuses them).  One row per (method,
document): method, doc, name, tokens, log_ratio (log P(w | A) - log P(w | B)), reverse,
reciprocal_gap, suspect, site_updates, seconds (the call's kernel time, shared equally by the
documents), samples, temperatures, seed, settings (JSON).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd

from topiceval.commands._settings import add_limit_option
from topiceval.corpus import Corpus
from topiceval.io import write_csv_atomic
from topiceval.models import load_model
from topiceval.threads import numba_threads

METHODS = ("ratio_ais", "standard", "both")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare", help="estimate log P(w | A) - log P(w | B) per held-out document (ratio-AIS)")
    parser.add_argument("--model-a", required=True, help="model A .npz file (the candidate)")
    parser.add_argument("--model-b", required=True, help="model B .npz file (the baseline)")
    parser.add_argument("--docs", required=True, help="corpus .npz file with the documents")
    parser.add_argument("--split", help="evaluate only the documents with this split label")
    parser.add_argument("--method", choices=METHODS, default="ratio_ais")
    parser.add_argument("--samples", type=int, default=1, help="importance samples per run")
    parser.add_argument("--temperatures", type=int, default=100, help="annealing temperatures")
    parser.add_argument("--burnin", type=int, default=None,
                        help="Gibbs sweeps of the start model (ratio-AIS; default 100)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="reciprocal-gap threshold in nats (default 1)")
    parser.add_argument("--reciprocal", action=argparse.BooleanOptionalAction, default=True,
                        help="also anneal from A to B (the reciprocal check; default on)")
    parser.add_argument("--completion", action="store_true",
                        help="compare P(w^b | w^a) (document completion, ratio-AIS only)")
    parser.add_argument("--completion-split", type=int, metavar="N1",
                        help="observed tokens per document (default floor(N / 2))")
    add_limit_option(parser)
    parser.add_argument("--oov", choices=("drop", "error"), default="drop",
                        help="words of the corpus missing from the models' vocabulary: drop and "
                             "report them (default) or stop with an error")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random stream")
    parser.add_argument("--threads", type=int, default=None, help="numba threads (default all)")
    parser.add_argument("--out", default="-", help="output CSV file (default: standard output)")
    parser.set_defaults(func=run)


def _lda(path, which):
    model = load_model(path)
    if model.family != "lda":
        raise ValueError(f"--model-{which} is a {model.family} model; compare needs LDA models")
    return model


def run(args: argparse.Namespace) -> int:
    from topiceval.commands.estimate import report_dropped
    from topiceval.estimators import lda
    from topiceval.evaluation import as_model_corpus
    from topiceval.vocabulary import reorder_columns

    if args.completion_split is not None and not args.completion:
        raise ValueError("--completion-split needs --completion")
    if args.completion and args.method != "ratio_ais":
        raise ValueError("--completion is only implemented for --method ratio_ais")
    model_a, model_b = _lda(args.model_a, "a"), _lda(args.model_b, "b")
    if (model_a.vocab is None) != (model_b.vocab is None):
        raise ValueError("one model has a vocabulary and the other not: their columns cannot be "
                         "matched word for word")
    if model_a.vocab is not None:
        model_b = reorder_columns(model_b, model_a)
    corpus = Corpus.load(args.docs)
    if args.split is not None:
        corpus = corpus.select_split(args.split)
    corpus = as_model_corpus(model_a, corpus, oov=args.oov)
    report_dropped(corpus)
    settings = {k: v for k, v in (("burnin", args.burnin), ("threshold", args.threshold),
                                  ("split", args.completion_split)) if v is not None}
    frames = []
    with numba_threads(args.threads):
        if args.method in ("ratio_ais", "both"):
            res = lda.compare(corpus, model_a, model_b, samples=args.samples,
                              temperatures=args.temperatures, seed=args.seed,
                              completion=args.completion, reciprocal=args.reciprocal,
                              work_limit=args.work_limit, **settings)
            frames.append(_rows("ratio_ais", corpus, res.log_ratio, res.reverse,
                                res.reciprocal_gap, res.suspect, res.site_updates, res.seconds))
        if args.method in ("standard", "both"):
            log_ratio, cost = lda.compare_standard(corpus, model_a, model_b,
                                                   samples=args.samples,
                                                   temperatures=args.temperatures,
                                                   seed=args.seed, return_cost=True,
                                                   work_limit=args.work_limit)
            nan = np.full(log_ratio.shape, np.nan)
            frames.append(_rows("standard", corpus, log_ratio, nan, nan,
                                np.zeros(log_ratio.shape, bool), np.nan, cost.seconds))
    frame = pd.concat(frames, ignore_index=True)
    frame["site_updates"] = frame["site_updates"].astype("Int64")  # none for standard rows
    frame["samples"] = args.samples
    frame["temperatures"] = args.temperatures
    frame["seed"] = args.seed
    frame["settings"] = json.dumps({**settings, "completion": args.completion,
                                    "reciprocal": args.reciprocal}, sort_keys=True)
    write_csv_atomic(args.out, frame)
    return 0


def _rows(method, corpus, log_ratio, reverse, gap, suspect, sites, seconds) -> pd.DataFrame:
    doc = np.arange(log_ratio.shape[0])
    return pd.DataFrame({
        "method": method, "doc": doc, "name": corpus.names[doc], "tokens": corpus.lengths[doc],
        "log_ratio": log_ratio, "reverse": reverse, "reciprocal_gap": gap, "suspect": suspect,
        "site_updates": sites, "seconds": seconds / doc.size,
    })
