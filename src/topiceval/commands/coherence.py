"""``topiceval coherence MODEL REFERENCE``: how coherent are a model's topics? A tidy CSV.

    topiceval coherence model.npz heldout.npz --out coherence.csv
    topiceval coherence model.npz corpus.npz --split test --window 10 --replicates 500

NPMI (and UMass, for comparison; C_V with ``--c-v``) of each topic's top words over the
reference corpus, averaged over top-n 5, 10, 15 and 20, with basic bootstrap intervals over
the reference documents, per topic and for the model mean (``topiceval.coherence``,
docs/coherence.md).  One row per topic, then the mean row; the columns are defined in
``topiceval.commands.OUTPUT_COLUMNS``.
"""

from __future__ import annotations

import argparse

from topiceval._docs import page
from topiceval.commands import OUTPUT_COLUMNS, add_command
from topiceval.commands._inputs import load_model_file, output_file
from topiceval.corpus import Corpus
from topiceval.io import write_csv_atomic


def _window(text: str) -> int | None:
    if text == "document":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'document' or a number of tokens, not {text!r}") from None


def _top_n(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(n) for n in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"comma-separated integers such as 5,10,15,20, not "
                                         f"{text!r}") from None


def register(subparsers) -> None:
    parser = add_command(
        subparsers, "coherence",
        help="NPMI coherence of a model's topics over a reference corpus, with intervals",
        description="NPMI (and UMass) of each topic's top words over the documents of "
                    "REFERENCE, averaged over several top-n, with basic bootstrap intervals "
                    "over the reference documents; one CSV row per topic and one for the model "
                    "mean. Words of a topic that the reference never holds are listed, "
                    "never turned into NaN.")
    parser.add_argument("model", metavar="MODEL", help="model .npz file (topiceval format)")
    parser.add_argument("reference", metavar="REFERENCE",
                        help="corpus .npz file: the reference documents")
    parser.add_argument("--split", help="use only the reference documents with this split label")
    parser.add_argument("--window", type=_window, default=None, metavar="document|N",
                        help="co-occurrence within a document (default) or within a boolean "
                             "sliding window of N tokens (gensim's c_npmi: 10)")
    parser.add_argument("--top-n", type=_top_n, default=(5, 10, 15, 20), metavar="N,N,...",
                        help="top-word cardinalities averaged over (default 5,10,15,20)")
    parser.add_argument("--replicates", type=int, default=200,
                        help="bootstrap replicates (default 200)")
    parser.add_argument("--level", type=float, default=0.95,
                        help="coverage of the basic bootstrap intervals (default 0.95)")
    parser.add_argument("--c-v", action="store_true",
                        help="also compute C_V (gensim's; not recommended: "
                             + page("coherence.md") + ")")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    parser.add_argument("--out", default="-", help="output CSV file (default: standard output)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from topiceval.coherence import coherence_table

    with output_file(args.out) as out:
        model = load_model_file(args.model)
        reference = Corpus.load(args.reference)
        if args.split is not None:
            reference = reference.select_split(args.split)
        measures = ("npmi", "umass", "c_v") if args.c_v else ("npmi", "umass")
        frame = coherence_table(model, reference, window=args.window, top_n=args.top_n,
                                measures=measures, replicates=args.replicates,
                                level=args.level, seed=args.seed)
        columns = [name for name, _ in OUTPUT_COLUMNS["coherence"]]
        write_csv_atomic(out, frame.reindex(columns=columns))
    return 0
