"""Which other library's model file a path holds, told from its first bytes.

For a hint where a topiceval model file was expected (``topiceval evaluate --model state.gz``):
the file is not read as a model, only recognised, so that the message can name the importer.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib

from topiceval.adapters.mallet import GZIP_MAGIC, STATE_HEADER
from topiceval.adapters.tomotopy_lda import BLOCK_MAGIC

HEAD_BYTES = 4096
PICKLE_PROTOCOL_2_PLUS = b"\x80"  # a pickle (joblib, gensim save(), lda) starts with PROTO
WEIGHTS_LINE = re.compile(rb"\d+\t[^\t\r\n]+\t[-+0-9.eE]+\r?\n")  # topic<TAB>word<TAB>weight


def foreign_format(path: str | os.PathLike) -> str | None:
    """The format of another library's model in ``path``, or None if it is none of them.

    Parameters
    ----------
    path : str or os.PathLike
        The file (unreadable files are None: the caller reports them).

    Returns
    -------
    str or None
        ``"mallet"`` (a ``--output-state`` file, gzipped or plain), ``"mallet-weights"`` (a
        ``--topic-word-weights-file``), ``"tomotopy"`` (an ``LDAModel.save()`` file) or
        ``"pickle"`` (a pickled scikit-learn, gensim or ``lda`` model: which one cannot be told
        without unpickling it).
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
        if head.startswith(GZIP_MAGIC):
            with gzip.open(path, "rb") as handle:
                head = handle.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error):
        return None
    if head.startswith(STATE_HEADER):
        return "mallet"
    if BLOCK_MAGIC in head[:64]:
        return "tomotopy"
    if head.startswith(PICKLE_PROTOCOL_2_PLUS):
        return "pickle"
    if WEIGHTS_LINE.match(head):
        return "mallet-weights"
    return None
