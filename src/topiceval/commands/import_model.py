"""``topiceval import``: turn a model trained by another library into a topiceval model file.

    topiceval import --from mallet state.gz --out model.npz
    topiceval import --from mallet-weights weights.txt --alpha 0.1 --out model.npz
    topiceval import --from tomotopy model.bin --out model.npz
    topiceval import --from sklearn lda.joblib --vocabulary words.txt --trust-pickle --out m.npz
    topiceval import --from gensim lda.gensim --trust-pickle --out model.npz
    topiceval import --from lda lda.pkl --vocabulary vectorizer.joblib --trust-pickle --out m.npz

The conversion is ``topiceval.adapters``; this command only loads the files.  Pickled formats
(scikit-learn / joblib files, gensim ``save()`` files, pickled ``lda.LDA`` models and
vectorizers) load only with ``--trust-pickle``: unpickling runs whatever code the file names.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import numpy as np

from topiceval import adapters
from topiceval.adapters._common import require
from topiceval.adapters.tomotopy_lda import load_tomotopy
from topiceval.models import LDAModel, save_model

PICKLED = ("sklearn", "gensim", "lda")
PICKLE_WRITERS = {"sklearn": "joblib.dump or pickle.dump of the fitted estimator",
                  "gensim": "LdaModel.save()", "lda": "pickle.dump of the fitted lda.LDA"}
# the other libraries' model files that topiceval.adapters.formats recognises: (what, --from)
FOREIGN_IMPORTS = {"mallet": ("a MALLET --output-state file", "mallet"),
                   "mallet-weights": ("a MALLET --topic-word-weights-file", "mallet-weights"),
                   "tomotopy": ("a tomotopy LDAModel.save() file", "tomotopy")}
NEEDS_VOCABULARY = ("sklearn", "lda")
TAKES_VOCABULARY = ("sklearn", "lda", "gensim")
TRUST_HELP = (
    "allow reading pickles (a joblib/pickle-saved scikit-learn model or vectorizer, a gensim "
    "save() file, a pickled lda.LDA): unpickling runs arbitrary code named in the file, so pass "
    "this only for files you made yourself or fully trust"
)
def register(subparsers) -> None:
    """Add the ``import`` sub-command to ``subparsers`` (an argparse sub-parsers action)."""
    parser = subparsers.add_parser(
        "import", help="convert an LDA model trained by another library into a model file",
        description="Convert an LDA model trained with scikit-learn, gensim, tomotopy, MALLET "
                    "or the lda package into a topiceval model file (.npz), keeping the "
                    "library's word order.",
        epilog="Formats: sklearn = a joblib/pickle file of a fitted "
               "LatentDirichletAllocation (needs --vocabulary); gensim = an LdaModel.save() "
               "file; lda = a pickled lda.LDA (needs --vocabulary); these three are pickles and "
               "need --trust-pickle. tomotopy = an LDAModel.save() .bin file; mallet = the "
               "--output-state file (gzipped or plain); mallet-weights = the "
               "--topic-word-weights-file (needs --alpha).",
    )
    parser.add_argument("--from", dest="library", required=True,
                        choices=("sklearn", "gensim", "tomotopy", "mallet", "mallet-weights",
                                 "lda"),
                        help="the library (and file format) the model comes from")
    parser.add_argument("path", metavar="PATH", help="the model file")
    parser.add_argument("--out", required=True, help="output model .npz file")
    parser.add_argument("--vocabulary", metavar="FILE",
                        help="the words of the model's columns: a UTF-8 text file with one word "
                             "per line in column order, or (with --trust-pickle) a pickled or "
                             "joblib-saved fitted scikit-learn vectorizer")
    parser.add_argument("--alpha", metavar="X",
                        help="mallet-weights only: alpha_m, the per-topic alpha_t = alpha * m_t "
                             "(one number, or T numbers separated by commas); not MALLET's "
                             "--alpha option, which is their sum")
    parser.add_argument("--trust-pickle", action="store_true", help=TRUST_HELP)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load ``args.path``, convert it with ``topiceval.adapters`` and save it to ``args.out``.

    Parameters
    ----------
    args
        The parsed arguments of ``topiceval import``.

    Returns
    -------
    int
        The exit code, 0.  Bad input raises ``ValueError`` (reported by ``topiceval.cli.main``).
    """
    library, path = args.library, Path(args.path)
    if library in PICKLED and not args.trust_pickle:
        raise ValueError(
            f"--from {library} reads a pickle, and unpickling runs arbitrary code named in the "
            f"file; pass --trust-pickle if you trust {path}"
        )
    if args.vocabulary is not None and library not in TAKES_VOCABULARY:
        raise ValueError(f"--vocabulary is not used with --from {library}: the file names its "
                         "own words")
    if library in NEEDS_VOCABULARY and args.vocabulary is None:
        raise ValueError(f"--from {library} needs --vocabulary (the model file has no words)")
    if (args.alpha is not None) != (library == "mallet-weights"):
        raise ValueError("--alpha is needed with --from mallet-weights, and only there")
    if library in PICKLED:
        check_pickle_file(path, library)
    vocabulary = None
    if args.vocabulary is not None:
        vocabulary = read_vocabulary(args.vocabulary, args.trust_pickle)
    try:
        model = _convert(library, path, vocabulary, args.alpha)
    except ImportError as exc:  # a peer library is missing: say which, without a traceback
        raise ValueError(str(exc)) from None
    model.meta["source"] = str(path)
    if args.vocabulary is not None:
        model.meta["vocabulary_source"] = str(args.vocabulary)
    save_model(args.out, model)
    print(f"topiceval import: {model.n_topics} topics x {model.n_types} words from "
          f"{model.meta['library']} -> {args.out}", file=sys.stderr)
    return 0


def _convert(library: str, path: Path, vocabulary, alpha: str | None) -> LDAModel:
    if library == "mallet":
        return adapters.from_mallet(path)
    if library == "mallet-weights":
        return adapters.from_mallet_weights(path, _parse_alpha(alpha))
    if library == "tomotopy":
        return adapters.from_tomotopy(load_tomotopy(path))
    if library == "gensim":
        ldamodel = require("gensim.models.ldamodel", "gensim", "from_gensim")
        return adapters.from_gensim(_unpickle(path, ldamodel.LdaModel.load), vocabulary)
    joblib = require("joblib", "joblib", f"--from {library}")
    model = _unpickle(path, joblib.load)
    if library == "sklearn":
        return adapters.from_sklearn(model, vocabulary)
    return adapters.from_lda(model, vocabulary)


def check_pickle_file(path: Path, library: str) -> None:
    """Refuse, in one line, a file that cannot be the pickle ``--from library`` reads: missing,
    another library's model file (naming its ``--from``), a zip archive (a topiceval ``.npz``)
    or text (unpickling it would fail with an unrelated message, such as joblib's "a joblib
    pickle generated with python 2")."""
    from topiceval.adapters.formats import foreign_format

    if not path.is_file():
        raise ValueError(f"{path}: no such file (the model file to import)")
    with open(path, "rb") as handle:
        head = handle.read(4096)
    expected = f"not the pickle --from {library} reads ({PICKLE_WRITERS[library]})"
    found = foreign_format(path)
    if found in FOREIGN_IMPORTS:
        what, option = FOREIGN_IMPORTS[found]
        raise ValueError(f"{path} is {what}, {expected}: use --from {option}")
    if head.startswith(b"PK\x03\x04"):
        raise ValueError(f"{path} is a zip archive (a topiceval .npz model or corpus?), "
                         f"{expected}")
    try:
        text = head[:-3].decode("utf-8") if len(head) == 4096 else head.decode("utf-8")
    except UnicodeDecodeError:
        return
    if "\x00" not in text:
        raise ValueError(f"{path} is a text file, {expected}")


def _unpickle(path: str | os.PathLike, load):
    """``load(path)`` for a trusted pickle; failures other than I/O become ``ValueError``."""
    try:
        return load(str(path))
    except OSError:
        raise
    except Exception as exc:  # unpickling can fail with almost any exception
        raise ValueError(f"{path}: cannot load the pickle ({type(exc).__name__}: {exc})") \
            from None


def read_vocabulary(path: str | os.PathLike, trust_pickle: bool):
    """The ``--vocabulary`` file: a word list, or a pickled vectorizer if trusted.

    Parameters
    ----------
    path
        A UTF-8 text file with one word per line in column order (a byte-order mark and CRLF
        line ends are accepted; every other character, spaces included, belongs to the word), or
        a pickled / joblib-saved fitted scikit-learn vectorizer.
    trust_pickle
        Whether a file that is not UTF-8 text may be unpickled (which runs code named in it).

    Returns
    -------
    list of str or object
        The words, or the unpickled object (checked later by the importer).

    Raises
    ------
    ValueError
        For an empty line in a word list, or binary data without ``trust_pickle``.
    """
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = None
    if text is not None and "\x00" not in text:
        words = [line.removesuffix("\r") for line in text.split("\n")]
        if words and words[-1] == "":
            words.pop()
        for number, word in enumerate(words, start=1):
            if not word:
                raise ValueError(f"{path}, line {number}: empty line in a word list (one word "
                                 "per line)")
        return words
    if not trust_pickle:
        raise ValueError(
            f"{path} is not a UTF-8 word list; if it is a pickled or joblib-saved vectorizer, "
            "pass --trust-pickle (unpickling runs arbitrary code named in the file)"
        )
    joblib = require("joblib", "joblib", "--vocabulary")
    return _unpickle(path, joblib.load)


def _parse_alpha(text: str) -> np.ndarray:
    """One positive number or several separated by commas (or spaces) -> float64 array."""
    try:
        values = [float(x) for x in re.split(r"[,\s]+", text.strip()) if x]
    except ValueError:
        values = []
    if not values or not all(np.isfinite(x) and x > 0 for x in values):
        raise ValueError(f"--alpha must be a positive number or positive numbers separated by "
                         f"commas, got {text!r}")
    return np.asarray(values[0] if len(values) == 1 else values, dtype=np.float64)
