"""MALLET's ``train-topics`` output: the Gibbs state and the topic-word weights (text files).

``--output-state`` (gzipped by MALLET, plain accepted) holds three header lines::

    #doc source pos typeindex type topic
    #alpha : a_1 ... a_T        (alpha * m_t per topic, full precision)
    #beta : b                   (the symmetric pseudo-count per word)

then one line per training token, ``doc source pos typeindex type topic``.  MALLET's topics are
phi[t, v] = (n_tv + beta) / (n_t + V beta), V = its alphabet size.  The state names only the types
that occur in training: a type of the alphabet with no training token (possible when the instances
were imported through another file's pipe) cannot be named, and is reported.

``--topic-word-weights-file`` holds ``topic<TAB>word<TAB>n_tv + beta`` for every topic and every
type of the alphabet; it carries no alpha.

Both readers are vectorised (NumPy over blocks of bytes, pandas for the weights), so a state of a
few hundred MB reads in seconds.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from topiceval.adapters._common import build_model, normalise_rows
from topiceval.models import LDAModel
from topiceval.vocabulary import vocabulary_words

if TYPE_CHECKING:
    import numpy.typing as npt

STATE_HEADER = b"#doc source pos typeindex type topic"
GZIP_MAGIC = b"\x1f\x8b"
BLOCK_BYTES = 1 << 23  # the state is scanned in blocks of about 8 MB
MAX_DIGITS = 18  # an int64 holds any 18-digit number


def from_mallet(path: str | os.PathLike) -> LDAModel:
    """Import a MALLET topic model from its Gibbs state file (``--output-state``).

    Parameters
    ----------
    path : str or os.PathLike
        The state file, gzipped (as MALLET writes it) or plain: detected by its first bytes.

    Returns
    -------
    LDAModel
        ``vocab`` = the types by ``typeindex`` (MALLET's alphabet order); ``phi[t, v]`` =
        (n_tv + beta) / (n_t + V beta) in float64 from the token counts n_tv of the state;
        ``alpha_m`` = the ``#alpha`` line (alpha * m_t per topic); ``beta`` = the ``#beta`` line.

    Raises
    ------
    ValueError
        Naming the file and line, for a missing or malformed header, a token line without six
        fields or with a non-integer doc/pos/typeindex/topic, a topic outside 0..T-1, a typeindex
        spelled as two different types, a typeindex that never occurs (the word of that column is
        unknown), undecodable text or damaged gzip data.
    """
    path = Path(path)
    with _open(path) as handle:
        alpha_m, beta = _read_header(handle, path)
        scan = _StateScan(path, alpha_m.shape[0])
        for block, first_line in _blocks(handle):
            scan.add(block, first_line)
    counts, vocab = scan.finish()
    n_words = counts.shape[1]
    per_topic = counts.sum(axis=1)
    phi = (counts + beta) / (per_topic[:, None] + n_words * beta)
    return build_model(
        importer="from_mallet", library="MALLET", distribution=None, phi=phi, alpha_m=alpha_m,
        beta=beta, vocab=vocab, how="(n_tv + beta) / (n_t + V beta) from the state's tokens",
        source=str(path), tokens=int(per_topic.sum()),
    )


def from_mallet_weights(path: str | os.PathLike, alpha: float | npt.ArrayLike) -> LDAModel:
    """Import a MALLET topic model from ``--topic-word-weights-file`` and a given alpha.

    Parameters
    ----------
    path : str or os.PathLike
        The weights file: ``topic<TAB>word<TAB>weight`` per line, weight = n_tv + beta, for every
        topic and every word (plain or gzipped).
    alpha : float or array_like of shape (T,)
        alpha_m, the document-topic pseudo-count of each topic: one number for every topic, or T
        numbers.  This is MALLET's per-topic alpha_t = alpha * m_t (the ``#alpha`` line of the
        state, or the second column of ``--output-topic-keys``, rounded there), *not* the
        ``--alpha`` option of ``train-topics``, which is the sum over topics (per-topic value
        alpha / T).

    Returns
    -------
    LDAModel
        ``vocab`` = the words in the order they first appear (MALLET writes every topic's words in
        alphabet order); ``phi`` = the weights normalised by rows in float64, i.e. (n_tv + beta) /
        (n_t + V beta); ``beta`` = None (the file does not state it).

    Raises
    ------
    ValueError
        Naming the file and line, for a line without three fields, a non-integer topic, a
        non-positive or non-numeric weight, a (topic, word) pair listed twice or missing, or an
        alpha of the wrong shape.
    """
    import pandas as pd

    path = Path(path)
    with _open(path) as handle:
        try:
            frame = pd.read_csv(
                handle, sep="\t", header=None, names=["topic", "word", "weight"], dtype=str,
                quoting=csv.QUOTE_NONE, keep_default_na=False, na_filter=False,
                skip_blank_lines=False, engine="c", encoding="utf-8",
            )
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not a MALLET topic-word weights file ({exc})") from None
    topic = pd.to_numeric(frame["topic"], errors="coerce").to_numpy(dtype=np.float64)
    weight_text = frame["weight"].to_numpy(dtype=object)
    try:
        weight = weight_text.astype(np.float64)  # Python's float(): correctly rounded
    except ValueError:  # find the culprit, one value at a time
        weight = np.array([_float_or_nan(x) for x in weight_text])
    bad = ~(np.isfinite(topic) & (topic >= 0) & (topic == np.floor(topic)))
    bad |= ~(np.isfinite(weight) & (weight > 0))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"{path}, line {row + 1}: expected topic<TAB>word<TAB>weight with an integer topic "
            f"and a positive weight, found {frame['topic'].iat[row]!r}, "
            f"{frame['word'].iat[row]!r}, {weight_text[row]!r}"
        )
    topic = topic.astype(np.int64)
    codes, words = pd.factorize(frame["word"].to_numpy(dtype=object), sort=False)
    n_topics, n_words = int(topic.max()) + 1, len(words)
    cells = topic * n_words + codes
    order = np.argsort(cells, kind="stable")
    repeated = order[1:][cells[order][1:] == cells[order][:-1]]
    if repeated.size:
        row = int(repeated.min())
        raise ValueError(f"{path}, line {row + 1}: topic {topic[row]} lists the word "
                         f"{words[codes[row]]!r} a second time")
    if cells.size != n_topics * n_words:
        present = np.zeros(n_topics * n_words, dtype=bool)
        present[cells] = True
        t, v = divmod(int(np.argmin(present)), n_words)
        raise ValueError(f"{path}: topic {t} has no weight for the word {words[v]!r}")
    weights = np.empty(n_topics * n_words)
    weights[cells] = weight
    alpha_m = np.asarray(alpha, dtype=np.float64)
    if alpha_m.ndim == 0:
        alpha_m = np.full(n_topics, float(alpha_m))
    if alpha_m.shape != (n_topics,):
        raise ValueError(
            f"alpha must be one number or one per topic ({n_topics}), got shape {alpha_m.shape}"
        )
    return build_model(
        importer="from_mallet_weights", library="MALLET", distribution=None,
        phi=normalise_rows(weights.reshape(n_topics, n_words), "weights"), alpha_m=alpha_m,
        beta=None, vocab=vocabulary_words(words.tolist(), n_words, f"{path}: words"),
        how="topic-word weights (n_tv + beta) normalised by rows in float64",
        source=str(path),
    )


def _float_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return np.nan


@contextlib.contextmanager
def _open(path: Path) -> Iterator[BinaryIO]:
    """Binary handle on ``path``, decompressing gzip data; damaged gzip data -> ValueError."""
    with open(path, "rb") as raw:
        gzipped = raw.read(2) == GZIP_MAGIC
    handle = gzip.open(path, "rb") if gzipped else open(path, "rb")
    try:
        with handle:
            yield handle
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise ValueError(f"{path}: damaged gzip data ({exc})") from None


def _read_header(handle: BinaryIO, path: Path) -> tuple[np.ndarray, float]:
    """alpha_m (T,) and beta from the three header lines of a state file."""
    lines = [handle.readline().rstrip(b"\r\n") for _ in range(3)]
    if lines[0] != STATE_HEADER:
        raise ValueError(
            f"{path}, line 1: not a MALLET state file (expected {STATE_HEADER.decode()!r}, found "
            f"{lines[0][:80]!r})"
        )
    values = []
    for number, (line, key) in enumerate(zip(lines[1:], (b"#alpha :", b"#beta :"), strict=True),
                                         start=2):
        numbers = _numbers_after(line, key)
        if numbers is None:
            raise ValueError(
                f"{path}, line {number}: expected {key.decode()!r} followed by positive numbers, "
                f"found {line[:80]!r}"
            )
        values.append(numbers)
    alpha_m, beta = values
    if beta.size != 1:
        raise ValueError(f"{path}, line 3: expected one beta, found {beta.size}")
    return alpha_m, float(beta[0])


def _numbers_after(line: bytes, key: bytes) -> np.ndarray | None:
    """The positive finite numbers after ``key`` on a header line, or None."""
    if not line.startswith(key):
        return None
    try:
        numbers = np.array([float(x) for x in line[len(key):].split()])
    except ValueError:
        return None
    ok = numbers.size and np.all(np.isfinite(numbers) & (numbers > 0))
    return numbers if ok else None


def _blocks(handle: BinaryIO) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole token lines (each ending with a newline) and their first line number."""
    carry, line = b"", 4
    while chunk := handle.read(BLOCK_BYTES):
        data = carry + chunk
        cut = data.rfind(b"\n") + 1
        carry = data[cut:]
        if cut:
            yield data[:cut], line
            line += data.count(b"\n", 0, cut)
    if carry:
        yield carry + b"\n", line


class _StateScan:
    """Token counts and type names accumulated over blocks of state lines."""

    def __init__(self, path: Path, n_topics: int) -> None:
        self.path = path
        self.n_topics = n_topics
        self.counts = np.zeros(0, dtype=np.int64)  # flat over typeindex * T + topic
        self.types: dict[int, tuple[bytes, int]] = {}  # typeindex -> (type, first line)

    def error(self, line: int, text: str, problem: str) -> ValueError:
        return ValueError(f"{self.path}, line {line}: {problem} (line: {text[:120]!r})")

    def add(self, block: bytes, first_line: int) -> None:
        if b"\r" in block:
            block = block.replace(b"\r\n", b"\n")
        buf = np.frombuffer(block, dtype=np.uint8)
        ends = np.flatnonzero(buf == 10)
        starts = np.concatenate(([0], ends[:-1] + 1))
        spaces = np.flatnonzero(buf == 32)
        upto = np.searchsorted(spaces, ends)  # spaces before the end of each line
        before = np.concatenate(([0], upto[:-1]))  # spaces before its start

        def text(i: int) -> str:
            return block[starts[i]:ends[i]].decode("utf-8", errors="replace")

        fields = upto - before + 1
        short = np.flatnonzero(fields < 6)
        if short.size:
            i = int(short[0])
            raise self.error(first_line + i, text(i), "expected 6 space-separated fields (doc "
                             f"source pos typeindex type topic), found {fields[i]}")
        # the source may itself contain spaces: pos, typeindex, type, topic are the last four
        last = [spaces[upto - k] for k in (4, 3, 2, 1)]
        ints, wrong = {}, {}
        for name, lo, hi in (("doc", starts, spaces[before]),
                             ("pos", last[0] + 1, last[1]),
                             ("typeindex", last[1] + 1, last[2]),
                             ("topic", last[3] + 1, ends)):
            ints[name], wrong[name] = _parse_ints(buf, lo, hi)
        bad = np.logical_or.reduce(list(wrong.values()))
        if bad.any():
            i = int(np.argmax(bad))
            name = next(name for name, mask in wrong.items() if mask[i])
            raise self.error(first_line + i, text(i),
                             f"the {name} field is not a non-negative integer")
        typeindex, topic = ints["typeindex"], ints["topic"]
        outside = np.flatnonzero(topic >= self.n_topics)
        if outside.size:
            i = int(outside[0])
            raise self.error(first_line + i, text(i), f"topic {topic[i]} is outside 0.."
                             f"{self.n_topics - 1} (the #alpha line lists {self.n_topics})")
        self._check_types(block, buf, typeindex, last[2] + 1, last[3], first_line, text)
        found = np.bincount(typeindex * self.n_topics + topic)
        size = max(found.size, self.counts.size)
        self.counts = np.pad(self.counts, (0, size - self.counts.size))
        self.counts[:found.size] += found

    def _check_types(self, block, buf, typeindex, lo, hi, first_line, text) -> None:
        """Every token of a typeindex spells the same type, here and in earlier blocks."""
        length = hi - lo
        empty = np.flatnonzero(length == 0)
        if empty.size:
            i = int(empty[0])
            raise self.error(first_line + i, text(i), "the type field is empty")
        kinds, first, inverse = np.unique(typeindex, return_index=True, return_inverse=True)
        ref = first[inverse]  # the first token of the block with the same typeindex
        same = length == length[ref]
        rest = np.flatnonzero(same)
        k = 0
        while rest.size:
            rest = rest[length[rest] > k]
            differ = buf[lo[rest] + k] != buf[lo[ref[rest]] + k]
            same[rest[differ]] = False
            rest = rest[~differ]
            k += 1
        if not same.all():
            i = int(np.argmin(same))
            raise self.error(
                first_line + i, text(i),
                f"typeindex {typeindex[i]} is spelled {block[lo[i]:hi[i]]!r} here but "
                f"{block[lo[ref[i]]:hi[ref[i]]]!r} on line {first_line + ref[i]}",
            )
        for kind, i in zip(kinds.tolist(), first.tolist(), strict=True):
            word = block[lo[i]:hi[i]]
            seen = self.types.setdefault(kind, (word, first_line + i))
            if seen[0] != word:
                raise self.error(first_line + i, text(i), f"typeindex {kind} is spelled "
                                 f"{word!r} here but {seen[0]!r} on line {seen[1]}")

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        """n_tv (T, V) and the types by typeindex."""
        if not self.types:
            raise ValueError(f"{self.path}: the state lists no tokens")
        n_words = max(self.types) + 1
        if len(self.types) != n_words:
            missing = min(set(range(n_words)) - self.types.keys())
            raise ValueError(
                f"{self.path}: typeindex {missing} never occurs (of 0..{n_words - 1}), so the "
                "word of that column is unknown; import the --topic-word-weights-file with "
                "from_mallet_weights instead"
            )
        counts = np.pad(self.counts, (0, n_words * self.n_topics - self.counts.size))
        words = []
        for kind in range(n_words):
            word, line = self.types[kind]
            try:
                words.append(word.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise ValueError(f"{self.path}, line {line}: the type is not UTF-8 ({exc})") \
                    from None
        vocab = vocabulary_words(words, n_words, f"{self.path}: types")
        return counts.reshape(n_words, self.n_topics).T.astype(np.float64), vocab


def _parse_ints(buf: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The decimal integers buf[lo[i]:hi[i]] and a mask of the fields that are not one."""
    length = hi - lo
    bad = (length < 1) | (length > MAX_DIGITS)
    value = np.zeros(lo.shape, dtype=np.int64)
    for k in range(min(int(length.max()), MAX_DIGITS)):
        active = length > k
        digit = buf[np.where(active, lo + k, 0)].astype(np.int64) - 48
        bad |= active & ((digit < 0) | (digit > 9))
        value = np.where(active, value * 10 + digit, value)
    return value, bad
