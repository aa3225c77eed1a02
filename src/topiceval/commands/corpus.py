"""``topiceval corpus-stats PATH``: size and length statistics of saved corpora."""

from __future__ import annotations

import argparse

from topiceval.corpus import Corpus


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "corpus-stats", help="print D, V, tokens and document-length statistics of corpus files"
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="corpus .npz file(s)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print("path\tsplit\tD\tV\ttokens\tmean_length\tsd_length")
    for path in args.paths:
        corpus = Corpus.load(path)
        for label in ["all", *sorted(set(corpus.split.tolist()))]:
            part = corpus if label == "all" else corpus.select_split(label)
            s = part.stats()
            print(
                f"{path}\t{label}\t{s['D']}\t{s['V']}\t{s['tokens']}\t"
                f"{s['mean_length']:.1f}\t{s['sd_length']:.1f}"
            )
    return 0
