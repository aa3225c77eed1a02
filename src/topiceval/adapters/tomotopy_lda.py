"""tomotopy's collapsed Gibbs ``LDAModel``.

How tomotopy indexes words: when training starts it renumbers its dictionary, most frequent word
first, and moves the words removed by ``min_cf`` / ``min_df`` / ``rm_top`` to the end.  ``vocabs``
is the whole renumbered dictionary, ``used_vocabs`` its first ``num_vocabs`` entries, and the
columns of ``get_topic_word_dist`` are ``used_vocabs`` in that order.  ``doc.words`` are ids into
``vocabs``; a removed word has an id >= ``num_vocabs`` and topic -1.  (Before training,
``vocabs`` is in insertion order: a word list taken from an untrained model names the wrong
columns.)  tomotopy computes in float32: ``alpha``, ``eta`` and ``get_topic_word_dist`` are float32.
"""

from __future__ import annotations

import math
import mmap
import os
import signal
import struct
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from topiceval.adapters._common import build_model, normalise_rows, require
from topiceval.models import LDAModel
from topiceval.vocabulary import vocabulary_words

# float32 against float64 (relative): tomotopy divides in float32, so its topics carry ~1e-7 error
COUNT_CHECK_RTOL = 1e-5
# A block of tomotopy's save() format (>= 0.6): magic, major and minor version (uint16), the
# block's size counted from this field (uint64), key size and trailing count (uint32), the key
# (NUL-terminated), the data.
BLOCK_MAGIC = b"TPTK"
BLOCK_HEADER = struct.Struct("<4sHHQII")
MAX_KEY_BYTES = 256
# tomotopy 0.14 aborts the interpreter (an uncaught C++ exception), crashes or loops forever on a
# file it cannot read (of 99 cuts of a saved model: 81 loops, 11 aborts, 7 crashes), so a child
# process tries the file first, with a limit on its CPU time (not wall-clock time, which a loaded
# machine stretches) whose expiry is the refusal.  A sound load takes about 0.01 CPU seconds per MB
# (51 MB in 0.46 s) after 0.2 s to start Python and import tomotopy: the child is allowed
# TOMOTOPY_CPU_SECONDS plus TOMOTOPY_CPU_SECONDS_PER_MB, about 10 times the measured rate.
TOMOTOPY_CPU_SECONDS = 20
TOMOTOPY_CPU_SECONDS_PER_MB = 0.1
TOMOTOPY_PROBE = """\
import resource, sys
seconds = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
import tomotopy
tomotopy.LDAModel.load(sys.argv[1])
"""


def import_tomotopy(importer: str) -> ModuleType:
    """``import tomotopy``, without its import-time DeprecationWarning.

    tomotopy 0.14's extension module warns while it loads ("builtin type _VocabDict has no
    __module__ attribute"); under ``-W error`` that warning makes the import fail with a
    misleading "No module named _tomotopy_..." error.

    Parameters
    ----------
    importer
        Who needs tomotopy (named in the ``ImportError`` if it is not installed).

    Returns
    -------
    module
        The ``tomotopy`` module.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"builtin type \w+ has no __module__ attribute",
                                category=DeprecationWarning)
        return require("tomotopy", "tomotopy", importer)


def check_saved_model(path: str | os.PathLike) -> None:
    """Refuse a tomotopy ``save()`` file that is visibly incomplete, before tomotopy reads it.

    tomotopy 0.14 loops forever, aborts or crashes on most files cut short; this check finds the
    cuts that leave a block of the file's format shorter than its declared size (about 9 cuts in
    10 of a saved model, measured on every 97th byte of one).  It reads the file once, at a few
    ns per byte, and knows nothing else of the format: a file that passes may still be damaged.

    Parameters
    ----------
    path : str or os.PathLike
        The file given to ``tomotopy.LDAModel.load``.

    Raises
    ------
    ValueError
        Naming the file, when it is empty or ends inside a block.
    """
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            raise ValueError(f"{path}: the file is empty")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            size = len(data)
            start = data.find(BLOCK_MAGIC)
            while start != -1:
                if _block_end(data, start) > size:
                    raise ValueError(f"{path}: cut short: it ends at byte {size:,}, inside the "
                                     f"block of tomotopy's format that starts at byte {start:,}")
                start = data.find(BLOCK_MAGIC, start + len(BLOCK_MAGIC))


def load_tomotopy(path: str | os.PathLike, importer: str = "--from tomotopy"):
    """``tomotopy.LDAModel.load(path)``, after ``check_saved_model`` and a child process, limited
    in CPU time, showed that the load ends without aborting (``TOMOTOPY_PROBE``)."""
    tp = import_tomotopy(importer)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    check_saved_model(path)
    seconds = math.ceil(TOMOTOPY_CPU_SECONDS
                        + TOMOTOPY_CPU_SECONDS_PER_MB * path.stat().st_size / 1e6)
    probe = subprocess.run(
        [sys.executable, "-W", "ignore::DeprecationWarning", "-c", TOMOTOPY_PROBE, str(path),
         str(seconds)],
        capture_output=True, text=True, check=False,
    )
    if probe.returncode == -signal.SIGXCPU:
        raise ValueError(f"{path}: tomotopy did not finish reading it in {seconds} CPU seconds "
                         "(tomotopy loops forever on a damaged or cut file)")
    if probe.returncode != 0:
        raise ValueError(f"{path}: tomotopy cannot load it as an LDAModel "
                         f"({_probe_failure(probe)})")
    return tp.LDAModel.load(str(path))


def _probe_failure(probe: subprocess.CompletedProcess) -> str:
    """What stopped the child process that tried a tomotopy file: its C++ exception, the signal
    that ended it, or its last line of standard error."""
    lines = probe.stderr.strip().splitlines()
    reason = next((x.split("what():", 1)[1].strip() for x in lines if "what():" in x), None)
    if reason is None and probe.returncode < 0:
        reason = f"it crashed with {signal.Signals(-probe.returncode).name}"
    return reason or (lines[-1] if lines else f"exit status {probe.returncode}")


def _block_end(data: mmap.mmap, start: int) -> int:
    """Where the block whose magic is at ``start`` ends: 0 if the bytes there are not a block
    header (the magic inside other data), past the file's end if the header itself is cut."""
    if start + BLOCK_HEADER.size > len(data):
        return len(data) + 1
    _, _, _, size, key_size, _ = BLOCK_HEADER.unpack_from(data, start)
    if not 1 <= key_size <= MAX_KEY_BYTES:
        return 0
    key_start = start + BLOCK_HEADER.size
    if key_start + key_size > len(data):
        return len(data) + 1
    key = data[key_start:key_start + key_size]
    if key[-1:] != b"\0" or not key[:-1].isalnum():
        return 0
    return start + 8 + size


def from_tomotopy(model: Any) -> LDAModel:
    """Import a trained ``tomotopy.LDAModel``.

    Parameters
    ----------
    model : tomotopy.LDAModel
        The trained model (``tomotopy.LDAModel`` itself: its subclasses, e.g. HDP, DMR or CT
        models, have other document-topic priors and are refused).

    Returns
    -------
    LDAModel
        ``vocab`` = ``used_vocabs`` (the columns of tomotopy's topic-word distributions).
        ``phi[t, v]`` = (n_tv + eta) / (n_t + V eta) in float64, from the topic assignments of
        the training documents (``doc.words``, ``doc.topics``), V = ``num_vocabs``; the counts
        are first checked against tomotopy's own ``get_count_by_topics()`` (exactly) and its
        float32 ``get_topic_word_dist`` (to 1e-5 relative).  With word priors
        (``set_word_prior``) the per-word prior eta_tv replaces eta: phi[t, v] = (n_tv + eta_tv) /
        (n_t + sum_v eta_tv), the distribution the sampler used (tomotopy's own
        ``get_topic_word_dist`` leaves the priors out), and ``beta`` is None.  Without the
        counts (a model saved with ``full=False``, or a term weighting other than ONE, whose
        counts are weighted) ``phi`` is tomotopy's float32 ``get_topic_word_dist`` in float64,
        renormalised.  ``alpha_m`` = ``model.alpha``, ``beta`` = ``model.eta`` (float32 values).

    Raises
    ------
    ValueError
        For another class, an untrained model, or counts that disagree with tomotopy's.

    Examples
    --------
    >>> import tomotopy
    >>> from topiceval.adapters import from_tomotopy
    >>> mdl = tomotopy.LDAModel(k=2, seed=1)
    >>> for doc in [["cat", "sat", "mat"], ["dog", "sat", "log"], ["cat", "dog"]]:
    ...     _ = mdl.add_doc(doc)
    >>> mdl.train(20, workers=1)
    >>> model = from_tomotopy(mdl)
    >>> model.n_topics, sorted(model.vocab.tolist())
    (2, ['cat', 'dog', 'log', 'mat', 'sat'])
    """
    tp = import_tomotopy("from_tomotopy")
    if type(model) is not tp.LDAModel:
        raise ValueError(
            "from_tomotopy expects a tomotopy.LDAModel (not a subclass: their document-topic "
            f"priors differ), got {type(model).__module__}.{type(model).__name__}"
        )
    n_words = int(model.num_vocabs)
    if model.global_step == 0 or n_words == 0:
        # (tomotopy crashes the interpreter when an untrained model is asked for its topics)
        raise ValueError("the tomotopy model has not been trained: call model.train() first")
    n_topics = int(model.k)
    used = list(model.used_vocabs)
    if used != list(model.vocabs)[:n_words]:
        raise ValueError("tomotopy's used_vocabs is not the head of vocabs; cannot map its ids")
    vocab = vocabulary_words(used, n_words, "used_vocabs")
    eta = float(model.eta)
    reported = np.array([model.get_topic_word_dist(t) for t in range(n_topics)],
                        dtype=np.float64)
    counts = _counts(model, n_topics, n_words) if model.tw == tp.TermWeight.ONE else None
    extra = {"term_weight": tp.TermWeight(model.tw).name,
             "removed_top_words": list(model.removed_top_words),
             "global_step": int(model.global_step)}
    if counts is None:
        return build_model(
            importer="from_tomotopy", library="tomotopy", distribution="tomotopy",
            phi=normalise_rows(reported, "get_topic_word_dist"), alpha_m=model.alpha, beta=eta,
            vocab=vocab, how="tomotopy's float32 get_topic_word_dist, renormalised in float64",
            **extra,
        )
    per_topic = counts.sum(axis=1)
    own = np.asarray(model.get_count_by_topics(), dtype=np.float64)
    if not np.array_equal(per_topic, own):
        raise ValueError(
            f"tomotopy's documents give {per_topic.tolist()} tokens per topic but "
            f"get_count_by_topics() says {own.tolist()}"
        )
    phi = (counts + eta) / (per_topic[:, None] + n_words * eta)
    worst = float(np.max(np.abs(phi / reported - 1.0)))
    if worst > COUNT_CHECK_RTOL:
        raise ValueError(
            f"the counts rebuilt from tomotopy's documents give topics that differ from "
            f"get_topic_word_dist by {worst:.3g} (relative); refusing to guess"
        )
    priors = _word_priors(model, used, n_topics, eta)
    if priors is None:
        how = "(n_tv + eta) / (n_t + V eta) from the documents' topic assignments, float64"
        return build_model(
            importer="from_tomotopy", library="tomotopy", distribution="tomotopy",
            phi=phi, alpha_m=model.alpha, beta=eta, vocab=vocab, how=how, **extra,
        )
    has_prior = np.any(priors != eta, axis=0)
    return build_model(
        importer="from_tomotopy", library="tomotopy", distribution="tomotopy",
        phi=normalise_rows(counts + priors, "n_tv + eta_tv"), alpha_m=model.alpha, beta=None,
        vocab=vocab,
        how="(n_tv + eta_tv) / (n_t + sum_v eta_tv) with tomotopy's word priors, float64",
        eta=eta, word_priors={str(vocab[v]): priors[:, v].tolist()
                              for v in np.flatnonzero(has_prior)},
        **extra,
    )


def _counts(model, n_topics: int, n_words: int) -> np.ndarray | None:
    """n_tv (T, V) float64 from every training document's word ids and topics; None if absent."""
    docs = list(model.docs)
    if not docs:
        return None
    words = np.concatenate([np.asarray(d.words, dtype=np.int64) for d in docs])
    topics = np.concatenate([np.asarray(d.topics, dtype=np.int64) for d in docs])
    used = topics >= 0
    if words.shape != topics.shape or np.any(used != (words < n_words)):
        raise ValueError("tomotopy's documents assign topics to removed words (or not to used "
                         "ones); cannot rebuild the counts")
    if np.any(topics >= n_topics):
        raise ValueError(f"tomotopy's documents hold a topic >= k = {n_topics}")
    cells = topics[used] * n_words + words[used]
    return np.bincount(cells, minlength=n_topics * n_words).reshape(n_topics, n_words).astype(
        np.float64)


def _word_priors(model, used: list, n_topics: int, eta: float) -> np.ndarray | None:
    """eta_tv (T, V) from ``get_word_prior``, or None when every word has the plain eta."""
    priors = np.full((n_topics, len(used)), eta)
    for v, word in enumerate(used):
        prior = np.asarray(model.get_word_prior(word), dtype=np.float64)
        if prior.size:
            priors[:, v] = prior
    return None if np.all(priors == eta) else priors
