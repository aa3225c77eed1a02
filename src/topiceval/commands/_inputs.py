"""The commands' inputs and outputs, read and checked the same way by ``estimate``, ``evaluate``
and ``compare``.

* ``load_model_file``: a topiceval model file; another library's model file is refused with the
  ``topiceval import`` command that converts it.
* ``add_matching_options`` and ``match_documents``: ``--oov``, ``--max-oov-share`` and
  ``--columns``, the documents matched to the model's words (``documents.as_model_corpus``).
* ``refuse_empty``: LDA documents left without a word, named, before anything runs.
* ``output_file``: ``--out`` checked, and its temporary made, before the computation.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from topiceval.commands import warning_line
from topiceval.corpus import Corpus
from topiceval.io import atomic_paths

# another library's model file given where a topiceval model was expected: what it is, and the
# ``topiceval import`` command that converts it (see ``topiceval.adapters.formats``)
FOREIGN_MODELS = {
    "mallet": ("a MALLET --output-state file", "--from mallet {path}"),
    "mallet-weights": ("a MALLET --topic-word-weights-file",
                       "--from mallet-weights {path} --alpha X"),
    "tomotopy": ("a tomotopy LDAModel.save() file", "--from tomotopy {path}"),
    "pickle": ("a pickle (a scikit-learn, gensim or lda model?)",
               "--from sklearn (or gensim, lda) {path} --trust-pickle"),
}


def load_model_file(path: str, option: str = "--model"):
    """The model file ``path`` (``models.load_model``), or a refusal naming the importer when it
    is another library's model file (``topiceval evaluate --model state.gz``)."""
    from topiceval.adapters.formats import foreign_format
    from topiceval.models import ModelError, load_model

    try:
        return load_model(path)
    except ModelError:
        found = foreign_format(path)
        if found is None:
            raise
    what, options = FOREIGN_MODELS[found]
    raise ValueError(f"{option} {path} is {what}, not a topiceval model file: import it first "
                     f"with topiceval import {options.format(path=path)} --out model.npz "
                     f"('topiceval import --help' says more), then pass {option} model.npz")


def add_matching_options(parser: argparse.ArgumentParser) -> None:
    """``--oov``, ``--max-oov-share`` and ``--columns``: how the documents are matched to the
    model's words."""
    parser.add_argument("--oov", choices=("drop", "error"), default="drop",
                        help="words not in the model's vocabulary: drop and count them "
                             "(default, as MALLET does) or stop with an error")
    parser.add_argument("--max-oov-share", type=float, default=None, metavar="SHARE",
                        help="stop with an error when more than this share (0 to 1) of the "
                             "tokens was dropped as out of vocabulary (default: no limit, a "
                             "warning above 0.25)")
    parser.add_argument("--columns", choices=("model",), default=None,
                        help="a corpus .npz without words (saved from Corpus.from_counts(X) "
                             "without a vocabulary): 'model' states that its columns are the "
                             "model's own, in its order (without it such a corpus is refused: "
                             "it could only be matched by position)")


def match_documents(model, docs: Corpus, args: argparse.Namespace) -> Corpus:
    """``docs`` over ``model``'s columns, matched by word (``--oov``, ``--columns``); refused
    above ``--max-oov-share`` dropped tokens, or a one-line warning above 25%."""
    from topiceval.documents import as_model_corpus, check_oov_share

    matched = as_model_corpus(model, docs, oov=args.oov, columns=args.columns)
    warning = check_oov_share(matched, args.max_oov_share, option="--max-oov-share")
    if warning:
        print(warning_line(args.command, warning), file=sys.stderr)
    return matched


def report_dropped(corpus: Corpus) -> None:
    """One line on standard error when words were dropped to match the model's vocabulary."""
    oov = corpus.meta.get("oov")
    if oov and oov["dropped_tokens"]:
        print(f"topiceval: {oov['dropped_tokens']:,} out-of-vocabulary tokens dropped "
              f"({oov['dropped_share']:.1%}) in {oov['documents_with_drops']:,} documents, "
              f"e.g. {', '.join(oov['most_dropped'][:5])}; {oov['empty_documents']} "
              "document(s) left empty", file=sys.stderr)


def refuse_empty(corpus: Corpus) -> None:
    """Refuse LDA documents with no token (none of their words is the model's), by name."""
    from topiceval.documents import document_listing

    empties = np.flatnonzero(corpus.lengths == 0)
    if empties.size:
        dropped = corpus.dropped if corpus.dropped is not None else np.zeros(len(corpus), int)
        raise ValueError(
            f"{empties.size} document(s) of --docs have no token in the model's vocabulary and "
            f"cannot be scored: {document_listing(empties, corpus.names, dropped)}; remove "
            "them (topiceval evaluate --skip-empty leaves them out)")


@contextlib.contextmanager
def output_file(path: str) -> Iterator[str | Path]:
    """Where to write ``--out``: standard output (``-``) or a temporary beside the file, made
    (its directory checked or created) before the block computes, and moved into place only
    if the block succeeds (``io.atomic_paths``)."""
    if path == "-":
        yield path
        return
    with atomic_paths(path) as (temporary,):
        yield temporary
