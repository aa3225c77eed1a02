"""``topiceval compare``: is model A better than model B on held-out documents? A tidy CSV.

    topiceval compare --model-a A.npz --model-b B.npz --docs D.npz --split test \\
        --samples 1 --temperatures 100 --seed 0 --out compare.csv
    topiceval compare ... --completion --completion-split 50      # P(w^b | w^a) instead
    topiceval compare ... --method both                           # ratio-AIS and standard rows

Ratio-AIS (``topiceval.estimators.lda.compare``, Foulds & Smyth) anneals from B's posterior to A's
and back (``--no-reciprocal`` skips the reversed runs); ``--method standard`` is the difference of
two independent AIS estimates (``compare_standard``; whole documents only).  Both models must be LDA
models with the same topics count and the same words (B's columns are put in A's word order;
different word sets are refused); the documents are matched to A's words, out-of-vocabulary words
dropped and reported (``--oov error`` refuses them, ``--max-oov-share`` more than that share; a
corpus without words needs ``--columns model``), and a document left with no word is refused by
name.  One row per (method, document); the columns
(``log_ratio_nats``, ``reciprocal_gap_nats``, ``seconds``, ...) are defined in
``topiceval.commands.OUTPUT_COLUMNS`` and listed by ``topiceval compare --help``.
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
from topiceval.commands._settings import add_limit_option
from topiceval.corpus import Corpus
from topiceval.io import write_csv_atomic
from topiceval.threads import numba_threads

METHODS = ("ratio_ais", "standard", "both")


def register(subparsers) -> None:
    parser = add_command(
        subparsers, "compare",
        help="estimate log P(w | A) - log P(w | B) per held-out document (ratio-AIS)",
        description="Is LDA model A better than LDA model B on held-out documents? Estimate "
                    "log P(w | A) - log P(w | B) for every document by ratio-AIS (annealing "
                    "from B's posterior to A's, and back for the reciprocal check) or by the "
                    "standard method (two independent AIS estimates); one CSV row per method "
                    "and document.")
    parser.add_argument("--model-a", required=True, help="model A .npz file (the candidate)")
    parser.add_argument("--model-b", required=True, help="model B .npz file (the baseline)")
    parser.add_argument("--docs", required=True, help="corpus .npz file with the documents")
    parser.add_argument("--split", help="evaluate only the documents with this split label")
    parser.add_argument("--method", choices=METHODS, default="ratio_ais",
                        help="ratio_ais (default), standard (the difference of two independent "
                             "AIS estimates; whole documents only) or both")
    parser.add_argument("--samples", type=int, default=1,
                        help="importance samples per run (default 1)")
    parser.add_argument("--temperatures", type=int, default=100,
                        help="annealing temperatures (default 100)")
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
    add_matching_options(parser)
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of every random stream (default 0); each document's streams "
                             "also depend on its position, so results are reproducible")
    parser.add_argument("--threads", type=int, default=None,
                        help="numba threads (default: all; results do not depend on it)")
    parser.add_argument("--out", default="-", help="output CSV file (default: standard output)")
    parser.set_defaults(func=run)


def _lda(path, which):
    model = load_model_file(path, f"--model-{which}")
    if model.family != "lda":
        raise ValueError(f"--model-{which} is a {model.family} model; compare needs LDA models")
    return model


def run(args: argparse.Namespace) -> int:
    if args.completion_split is not None and not args.completion:
        raise ValueError("--completion-split needs --completion")
    if args.completion and args.method != "ratio_ais":
        raise ValueError("--completion is only implemented for --method ratio_ais")
    with output_file(args.out) as out:
        frame = _compare(args)
        write_csv_atomic(out, frame)
    return 0


def _compare(args: argparse.Namespace) -> pd.DataFrame:
    from topiceval.estimators import lda
    from topiceval.vocabulary import reorder_columns

    model_a, model_b = _lda(args.model_a, "a"), _lda(args.model_b, "b")
    if (model_a.vocab is None) != (model_b.vocab is None):
        raise ValueError("one model has a vocabulary and the other not: their columns cannot be "
                         "matched word for word")
    if model_a.vocab is not None:
        model_b = reorder_columns(model_b, model_a)
    corpus = Corpus.load(args.docs)
    if args.split is not None:
        corpus = corpus.select_split(args.split)
    corpus = match_documents(model_a, corpus, args)
    refuse_empty(corpus)
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
            frame = _rows("ratio_ais", corpus, res.log_ratio, res.reverse,
                          res.reciprocal_gap, res.suspect, res.site_updates, res.seconds)
            frame["settings"] = json.dumps(_resolved(args, settings), sort_keys=True)
            frames.append(frame)
        if args.method in ("standard", "both"):
            log_ratio, cost = lda.compare_standard(corpus, model_a, model_b,
                                                   samples=args.samples,
                                                   temperatures=args.temperatures,
                                                   seed=args.seed, return_cost=True,
                                                   work_limit=args.work_limit)
            nan = np.full(log_ratio.shape, np.nan)
            frame = _rows("standard", corpus, log_ratio, nan, nan,
                          np.zeros(log_ratio.shape, bool), np.nan, cost.seconds)
            frame["settings"] = json.dumps({"completion": False, "samples": args.samples,
                                            "temperatures": args.temperatures}, sort_keys=True)
            frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    frame["site_updates"] = frame["site_updates"].astype("Int64")  # none for standard rows
    frame["samples"] = args.samples
    frame["temperatures"] = args.temperatures
    frame["seed"] = args.seed
    frame["settings"] = frame.pop("settings")  # last
    return frame


def _resolved(args: argparse.Namespace, settings: dict) -> dict:
    """Every setting of the ratio-AIS call, defaults included (``split`` null: floor(N / 2))."""
    from topiceval.estimators.lda.ratio_ais import DEFAULTS

    out = {"burnin": DEFAULTS["burnin"], "threshold": DEFAULTS["threshold"],
           "start": DEFAULTS["start"], **settings, "completion": args.completion,
           "reciprocal": args.reciprocal, "samples": args.samples,
           "temperatures": args.temperatures}
    out["threshold"] = float(out["threshold"])
    if args.completion:
        out.setdefault("split", DEFAULTS["split"])
    else:
        out.pop("split", None)
    return out


def _rows(method, corpus, log_ratio, reverse, gap, suspect, sites, seconds) -> pd.DataFrame:
    doc = np.arange(log_ratio.shape[0])
    return pd.DataFrame({
        "method": method, "doc": doc, "name": corpus.names[doc], "tokens": corpus.lengths[doc],
        "log_ratio_nats": log_ratio, "reverse_nats": reverse, "reciprocal_gap_nats": gap,
        "suspect": suspect, "site_updates": sites, "seconds": seconds / max(doc.size, 1),
    })
