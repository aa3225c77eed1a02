"""``topiceval corpus-stats PATH``: size and length statistics of saved corpora."""

from __future__ import annotations

import argparse

from topiceval.commands import OUTPUT_COLUMNS, add_command
from topiceval.corpus import Corpus


def register(subparsers) -> None:
    parser = add_command(
        subparsers, "corpus-stats",
        help="print D, V, tokens and document-length statistics of corpus files",
        description="Print the size and document-length statistics of corpus files, for all "
                    "the documents and for each split, as a tab-separated table on standard "
                    "output.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="corpus .npz file(s)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print("\t".join(name for name, _ in OUTPUT_COLUMNS["corpus-stats"]))
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
