"""``topiceval evaluate``: the held-out log-likelihood of a model, with error bars, in one command.

    topiceval evaluate --model model.npz --docs heldout.txt --out per_document.csv
    topiceval evaluate --model model.npz --docs corpus.npz --split test --method chib

``--docs`` is a corpus ``.npz`` (``topiceval corpus``), a text file with one document per line,
or a MALLET-style file of ``name<TAB>label<TAB>text`` lines (``--format`` overrides the
detection).  Text is split into words as the model's training text was, when the model file
records it (``topiceval.tokenizer``: a scikit-learn or ``lda`` model imported with its
vectorizer, a model trained by topiceval on a preprocessed corpus); otherwise on whitespace with
case kept, and a note says so and names the options.  ``--token-regex`` (a word is a match) and
``--lowercase`` replace the model's tokenizer.  The words are matched to the model's
vocabulary by word; out-of-vocabulary words are dropped and counted (``--oov error`` refuses
them), with a warning when more than a quarter of the tokens were dropped (usually a tokenizer
that does not match the model's: ``--lowercase``, ``--token-regex``), and an error above
``--max-oov-share``.  A document left with no word is refused, by name, or skipped with
``--skip-empty``; another library's model file is refused with the ``topiceval import`` command
that converts it.  The estimate is ``topiceval.evaluate``: the summary goes to standard
error, the per-document table (``Evaluation.to_frame`` with the seconds, seed and resolved
settings; the columns are defined in ``topiceval.commands.OUTPUT_COLUMNS`` and listed by
``topiceval evaluate --help``) to ``--out`` or standard output.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import regex

from topiceval.commands import add_command
from topiceval.commands._inputs import (
    add_matching_options,
    load_model_file,
    match_documents,
    output_file,
)
from topiceval.commands._settings import add_limit_option, add_setting_options, settings_from
from topiceval.corpus import Corpus
from topiceval.data.preprocess import compile_token_pattern
from topiceval.io import write_csv_atomic
from topiceval.tokenizer import Tokenizer, recorded

FORMATS = ("auto", "npz", "lines", "mallet")


def register(subparsers) -> None:
    parser = add_command(
        subparsers, "evaluate",
        help="held-out log-likelihood of a model with error bars (the front door)",
        description="Estimate log P(document | model) for every document, with a standard "
                    "error from independent runs; summary on standard error, per-document "
                    "CSV on --out (default standard output).")
    parser.add_argument("--model", required=True,
                        help="model .npz (topiceval train / topiceval import)")
    parser.add_argument("--docs", required=True,
                        help="corpus .npz, a text file (one document per line) or a MALLET-style "
                             "name<TAB>label<TAB>text file")
    parser.add_argument("--format", choices=FORMATS, default="auto",
                        help="how to read --docs (default: .npz is a corpus; a text file whose "
                             "lines all have two tabs is MALLET-style; otherwise one per line)")
    parser.add_argument("--split", help="corpus .npz only: evaluate the documents with this "
                                        "split label")
    parser.add_argument("--token-regex", default=None, type=token_regex,
                        help=r"text only: a word is a match of this regex (no capturing groups, "
                             "and no match of the empty string); with --lowercase, replaces the "
                             r"tokenizer the model file records (default: the model's, else \S+)")
    parser.add_argument("--lowercase", action="store_true", default=None,
                        help="text only: lowercase first (replaces the model's tokenizer, as "
                             "--token-regex does)")
    add_matching_options(parser)
    parser.add_argument("--skip-empty", action="store_true",
                        help="skip documents with no word in the vocabulary (default: error)")
    parser.add_argument("--method", default=None,
                        help="estimator (default: for LDA chib below 100 tokens and "
                             "bridge_theta from 100, ais for GaP-FA, is_laplace for "
                             "the logistic-normal family, chosen by benchmark; 'topiceval "
                             "estimate --help' lists the LDA and GaP-FA methods; logistic-normal: "
                             "is_laplace, ais, bdmc, is_prior, is_encoder, exact)")
    add_setting_options(parser)
    add_limit_option(parser)
    parser.add_argument("--runs", type=int, default=None,
                        help="independent runs per document, for the standard error "
                             "(default: 8 for LDA, 4 for GaP-FA and the logistic-normal family)")
    parser.add_argument("--target", default=None,
                        help="stop when the answer is good enough: e.g. '0.05 nats/token' or "
                             "'0.5 nats' (the most standard error per document), or 'gap 0.05 "
                             "nats/token' (--method bdmc: the most gap between the bounds); "
                             "documents short of it, or untrusted by the diagnostics, get twice "
                             "the runs (temperatures), round after round, within --work-limit")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of every random stream (default 0); each document's streams "
                             "also depend on its position, so results are reproducible")
    parser.add_argument("--threads", type=int, default=None,
                        help="numba threads (default: all; results do not depend on it)")
    parser.add_argument("--out", default="-",
                        help="per-document CSV (default: standard output)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (default: one on standard error when it is a "
                             "terminal)")
    parser.set_defaults(func=run)


def token_regex(text: str) -> regex.Pattern:
    """``--token-regex``, compiled and checked when the command line is parsed."""
    try:
        return compile_token_pattern(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from topiceval.evaluation import evaluate

    with output_file(args.out) as out:
        model = load_model_file(args.model)
        texts, split_note = read_documents(args, model)
        docs = match_documents(model, texts, args)
        # the share of dropped tokens was checked above, in the command's terms (max_oov=1)
        result = evaluate(model, docs, args.method, runs=args.runs, seed=args.seed,
                          oov=args.oov, max_oov=1.0,
                          empty="skip" if args.skip_empty else "error", threads=args.threads,
                          progress=False if args.no_progress else None,
                          work_limit=args.work_limit, target=args.target,
                          **settings_from(args))
        if split_note:  # on success only: a refusal is one line
            print(split_note, file=sys.stderr)
        print(result.summary(), file=sys.stderr)
        write_csv_atomic(out, output_frame(result))
    return 0


def output_frame(result) -> pd.DataFrame:
    """``result.to_frame()`` with ``seconds`` (the kernel time shared equally by the scored
    documents; 0 for a skipped one), ``seed`` and the resolved ``settings``."""
    frame = result.to_frame()
    scored = result.scored
    frame["seconds"] = np.where(scored, result.seconds / max(int(scored.sum()), 1), 0.0)
    frame["seed"] = result.seed
    frame["settings"] = json.dumps(result.settings, sort_keys=True)
    return frame


def read_documents(args: argparse.Namespace, model) -> tuple[Corpus, str | None]:
    """The documents of ``--docs`` as a Corpus (words; matched to the model by ``evaluate``),
    and for text the line saying how it was split into words (``text_tokenizer``)."""
    path = Path(args.docs)
    if not path.is_file():
        what = "a directory" if path.is_dir() else "no such file"
        raise ValueError(f"--docs {args.docs}: {what} (expected a corpus .npz or a text file, "
                         "one document per line)")
    kind = args.format
    if kind == "auto":
        kind = "npz" if path.suffix == ".npz" else None
    if kind == "npz":
        corpus = Corpus.load(path)
        return (corpus if args.split is None else corpus.select_split(args.split)), None
    if args.split is not None:
        raise ValueError("--split applies to a corpus .npz; a text file has no split labels")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc})") from None
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise ValueError(f"{path}: no documents (the file has no non-blank line)")
    if kind is None:
        kind = "mallet" if all(line.count("\t") >= 2 for _, line in numbered) else "lines"
    if kind == "mallet":
        rows = [line.split("\t", 2) for _, line in numbered]
        bad = next((i for i, row in enumerate(rows) if len(row) < 3), None)
        if bad is not None:
            raise ValueError(f"{path}, line {numbered[bad][0]}: expected name<TAB>label<TAB>text")
        names, labels, texts = zip(*rows, strict=True)
    else:  # blank lines are not documents; a document is named by its line number
        names = [f"line {n}" for n, _ in numbered]
        labels, texts = "test", [line for _, line in numbered]
    vocabulary = model.vocab
    if vocabulary is None:
        raise ValueError(f"{args.model}: the model has no vocabulary, so text cannot be matched "
                         "to its columns")
    tokenizer, note = text_tokenizer(args, model)
    return Corpus.from_texts(texts, tokenizer, vocabulary, oov=args.oov, names=list(names),
                             split=list(labels) if kind == "mallet" else labels), note


def text_tokenizer(args: argparse.Namespace, model) -> tuple[Tokenizer, str | None]:
    """How the text of ``--docs`` is split into words: ``--token-regex`` / ``--lowercase`` when
    either is given, else the tokenizer the model file records, else whitespace with case kept;
    and the line that says which (for the last, why and which options to pass)."""
    if args.token_regex is not None or args.lowercase:
        pattern = args.token_regex.pattern if args.token_regex is not None else r"\S+"
        return Tokenizer(pattern, lowercase=bool(args.lowercase), source="--token-regex"), None
    found, why = recorded(model.meta)
    if found is not None:
        return found, (f"topiceval evaluate: --docs split into words as the model's training "
                       f"text was ({found.source}: {found.describe()})")
    return Tokenizer(r"\S+", source="whitespace"), (
        f"topiceval evaluate: note: {args.model}: {why}; --docs was split on whitespace with "
        "case kept: if the training text was split otherwise, pass --lowercase and "
        "--token-regex PATTERN (scikit-learn's default: --lowercase --token-regex "
        "'(?u)\\b\\w\\w+\\b')")
