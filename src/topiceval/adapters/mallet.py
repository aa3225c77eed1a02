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

A state cut short at a line end reads as a smaller model.  What can be checked is: a gzipped
state (as MALLET writes it) is whole by its gzip trailer (its length and checksum), and a topic
of the ``#alpha`` line with no token in the state is reported (a state cut short loses all of
a topic's tokens only by chance, so this catches little).  A plain state has no trailer: it is
read with a ``CutShortWarning`` that says so and names the file that can be checked.

Both readers are vectorised (NumPy over blocks of bytes, pandas for the weights), so a state of a
few hundred MB reads in seconds.  Neither allocates from a number it has not checked against the
file: the state counts tokens by the types it has seen (not by the typeindex values written), and
refuses a model whose (T, V) arrays would not fit in memory; the weights' topics must run 0..T-1.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import os
import warnings
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from topiceval.adapters._common import build_model, normalise_rows
from topiceval.limits import MEMORY_FRACTION, WorkLimitError, physical_memory
from topiceval.models import PARAM_RANGE, LDAModel
from topiceval.validation import Argument, naming
from topiceval.vocabulary import vocabulary_words

if TYPE_CHECKING:
    import numpy.typing as npt
    import pandas as pd

STATE_HEADER = b"#doc source pos typeindex type topic"
GZIP_MAGIC = b"\x1f\x8b"
BLOCK_BYTES = 1 << 23  # the state is scanned in blocks of about 8 MB
MAX_DIGITS = 18  # an int64 holds any 18-digit number
ALPHA = Argument("alpha")  # from_mallet_weights(path, alpha); topiceval import --alpha
# peak bytes per (topic, type) cell while a state becomes a model: the int64 counts, their copy
# in typeindex order, the float64 counts, counts + beta and phi
CELL_BYTES = 40


class CutShortWarning(UserWarning):
    """A file was read that may have been cut short, which nothing in it can rule out."""


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
        Naming the file and line, for a missing or malformed header, an alpha or beta outside
        ``topiceval.models.PARAM_RANGE``, a token line without six fields or with a non-integer
        doc/pos/typeindex/topic, a topic outside 0..T-1, a typeindex spelled as two different
        types, a typeindex beyond the types the state names (so that some typeindex never occurs
        and the word of its column is unknown), undecodable text or damaged gzip data.
        ``topiceval.limits.WorkLimitError`` (a ``ValueError``) when the model's (T, V) arrays
        would need more than ``MEMORY_FRACTION`` of the machine's memory.

    Warns
    -----
    CutShortWarning
        For a plain (not gzipped) state: nothing in it shows whether it was cut short at a line
        end, which would read as a smaller model (a gzipped state is checked whole); and for a
        topic of the ``#alpha`` line with no token in the state.

    Examples
    --------
    A state file of two documents, gzipped as MALLET writes it (a plain-text state is read too,
    with a ``CutShortWarning``):

    >>> import gzip
    >>> import tempfile
    >>> from pathlib import Path
    >>> from topiceval.adapters import from_mallet
    >>> state = ("#doc source pos typeindex type topic\\n#alpha : 0.5 0.25 \\n#beta : 0.1\\n"
    ...          "0 NA 0 0 sun 0\\n0 NA 1 1 rock 1\\n1 NA 0 2 wave 1\\n1 NA 1 0 sun 0\\n")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "state.gz").write_bytes(gzip.compress(state.encode()))
    ...     model = from_mallet(Path(folder) / "state.gz")
    >>> model.vocab.tolist(), model.alpha_m.tolist(), model.beta
    (['sun', 'rock', 'wave'], [0.5, 0.25], 0.1)
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
    if not per_topic.all():
        warnings.warn(f"{path}: topic {int(np.argmin(per_topic))} of the {per_topic.size} of the "
                      "#alpha line has no token: the state may be cut short", CutShortWarning,
                      stacklevel=2)
    if not _gzipped(path):
        warnings.warn(f"{path}: a plain (not gzipped) state cannot be checked for being whole "
                      "(cut at a line end, it reads as a smaller model); MALLET's gzipped "
                      "--output-state file is checked by its gzip trailer: import that one",
                      CutShortWarning, stacklevel=2)
    phi = (counts + beta) / (per_topic[:, None] + n_words * beta)
    if not np.all(np.isfinite(phi) & (phi > 0)):
        raise ValueError(
            f"{path}, line 3: beta = {beta!r} with V = {n_words} types makes (n_tv + beta) / "
            "(n_t + V beta) leave the range of doubles"
        )
    return _model(
        path, importer="from_mallet", phi=phi, alpha_m=alpha_m, beta=beta, vocab=vocab,
        how="(n_tv + beta) / (n_t + V beta) from the state's tokens", tokens=int(per_topic.sum()),
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
        alpha / T).  T numbers also confirm the number of topics: with one number, a file in
        which some word has no token in any topic is refused as cut short (MALLET writes every
        topic, and every word of its alphabet has a training token).

    Returns
    -------
    LDAModel
        ``vocab`` = the words in the order they first appear (MALLET writes every topic's words in
        alphabet order); ``phi`` = the weights normalised by rows in float64, i.e. (n_tv + beta) /
        (n_t + V beta); ``beta`` = None (the file does not state it).

    Raises
    ------
    ValueError
        Naming the file (and line), for an empty file, a last line without its line end, a line
        without three fields, a topic that is not a plain decimal integer, a non-positive or
        non-numeric weight, topics that do not run 0..T-1, a (topic, word) pair listed twice or
        missing, a word without a token in any topic while alpha is one number (the file looks
        cut short), an alpha that is not one positive number or T of them.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from topiceval.adapters import from_mallet_weights
    >>> weights = "0\\tsun\\t2.1\\n0\\trock\\t0.1\\n1\\tsun\\t0.1\\n1\\trock\\t1.1\\n"
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "weights.txt").write_text(weights)
    ...     model = from_mallet_weights(Path(folder) / "weights.txt", alpha=0.5)
    >>> model.phi.round(3).tolist(), model.alpha_m.tolist()
    ([[0.955, 0.045], [0.083, 0.917]], [0.5, 0.5])
    """
    import pandas as pd

    path = Path(path)
    alpha_m = _check_alpha(alpha)
    frame = _read_weights(path)
    topic, n_topics = _topics(frame["topic"].to_numpy(dtype=object))
    weight_text = frame["weight"].to_numpy(dtype=object)
    try:
        weight = weight_text.astype(np.float64)  # Python's float(): correctly rounded
    except ValueError:  # find the culprit, one value at a time
        weight = np.array([_float_or_nan(x) for x in weight_text])
    bad = (topic < 0) | ~(np.isfinite(weight) & (weight > 0))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"{path}, line {row + 1}: expected topic<TAB>word<TAB>weight with an integer topic "
            f"and a positive weight, found {frame['topic'].iat[row]!r}, "
            f"{frame['word'].iat[row]!r}, {weight_text[row]!r}"
        )
    _check_topic_range(topic, n_topics, frame["topic"], path)
    codes, words = pd.factorize(frame["word"].to_numpy(dtype=object), sort=False)
    n_words = len(words)
    cells = topic * n_words + codes
    order = np.argsort(cells, kind="stable")
    repeated = order[1:][cells[order][1:] == cells[order][:-1]]
    if repeated.size:
        row = int(repeated.min())
        raise ValueError(f"{path}, line {row + 1}: topic {topic[row]} lists the word "
                         f"{words[codes[row]]!r} a second time")
    if cells.size != n_topics * n_words:
        t, v = _missing_cell(topic, codes, n_topics, n_words)
        raise ValueError(f"{path}: topic {t} has no weight for the word {words[v]!r}")
    weights = np.empty(n_topics * n_words)
    weights[cells] = weight
    weights = weights.reshape(n_topics, n_words)
    if alpha_m.ndim == 0:
        _check_every_word_used(weights, words, path)
        alpha_m = np.full(n_topics, float(alpha_m))
    if alpha_m.shape != (n_topics,):
        raise naming(ValueError, ALPHA, f" must be one number or one per topic ({n_topics}), got "
                     f"{alpha_m.shape[0]} numbers ({path} lists {n_topics} topics)")
    return _model(
        path, importer="from_mallet_weights", phi=normalise_rows(weights, "weights"),
        alpha_m=alpha_m, beta=None, vocab=vocabulary_words(words.tolist(), n_words,
                                                          f"{path}: words"),
        how="topic-word weights (n_tv + beta) normalised by rows in float64",
    )


def _model(path: Path, **fields) -> LDAModel:
    """``build_model`` for a MALLET file: a model its numbers make invalid names the file."""
    try:
        return build_model(library="MALLET", distribution=None, source=str(path), **fields)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _check_alpha(alpha) -> np.ndarray:
    """``alpha`` of ``from_mallet_weights`` as float64, one number (0-d) or several (1-d)."""
    values = np.asarray(alpha)
    if values.dtype.kind not in "iuf" or values.ndim > 1 or values.size == 0:
        raise naming(ValueError, ALPHA, " must be a positive number, or one per topic, got "
                     f"{type(alpha).__name__} {alpha!r:.80}")
    values = values.astype(np.float64)
    outside = ~((values >= PARAM_RANGE[0]) & (values <= PARAM_RANGE[1]))
    if outside.any():
        raise naming(ValueError, ALPHA, f" must lie in [{PARAM_RANGE[0]:g}, {PARAM_RANGE[1]:g}], "
                     f"got {float(values.flat[int(np.argmax(outside))])!r}")
    return values


def _read_weights(path: Path) -> pd.DataFrame:
    """The weights file as a frame of three text columns, after checking it is whole."""
    import pandas as pd

    with _open(path) as handle:
        data = handle.read()
    if not data.strip():
        raise ValueError(f"{path}: the file is empty (expected topic<TAB>word<TAB>weight lines)")
    if not data.endswith(b"\n"):
        last = data.count(b"\n") + 1
        raise ValueError(f"{path}, line {last}: the last line has no line end, so the file looks "
                         "cut short (MALLET ends every line)")
    try:
        return pd.read_csv(
            io.BytesIO(data), sep="\t", header=None, names=["topic", "word", "weight"], dtype=str,
            quoting=csv.QUOTE_NONE, keep_default_na=False, na_filter=False,
            skip_blank_lines=False, engine="c", encoding="utf-8",
        )
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a MALLET topic-word weights file ({exc})") from None


def _topics(text: np.ndarray) -> tuple[np.ndarray, int]:
    """Each line's topic as int64 (-1 where it is not a plain decimal integer) and T, the number
    of distinct topics (every one of which is then below T, else ``_check_topic_range``)."""
    import pandas as pd

    codes, distinct = pd.factorize(text, sort=False)
    values = np.array([_plain_integer(t, distinct.size) for t in distinct], dtype=np.int64)
    return values[codes], distinct.size


def _plain_integer(text: str, bound: int) -> int:
    """``text`` as an integer if it is one written plainly (digits, no sign, no leading zero),
    capped at ``bound``; -1 otherwise."""
    if not (text.isascii() and text.isdigit()) or (len(text) > 1 and text[0] == "0"):
        return -1
    return min(int(text), bound)


def _check_topic_range(topic: np.ndarray, n_topics: int, text: pd.Series, path: Path) -> None:
    """The T distinct topics must be 0..T-1; ``text`` holds them as written."""
    beyond = np.flatnonzero(topic >= n_topics)
    if beyond.size:
        row = int(beyond[0])
        raise ValueError(
            f"{path}, line {row + 1}: topic {text.iat[row]} is outside 0..{n_topics - 1}: the "
            f"file lists {n_topics} distinct topics, which MALLET numbers 0..{n_topics - 1}"
        )


def _missing_cell(topic: np.ndarray, codes: np.ndarray, n_topics: int,
                  n_words: int) -> tuple[int, int]:
    """(t, v) of a (topic, word) pair without a line, when some are missing (no repeats)."""
    t = int(np.argmin(np.bincount(topic, minlength=n_topics)))
    present = np.zeros(n_words, dtype=bool)
    present[codes[topic == t]] = True
    return t, int(np.argmin(present))


def _check_every_word_used(weights: np.ndarray, words, path: Path) -> None:
    """Refuse weights in which a word has the smallest weight (beta: no token) in every topic."""
    floor = weights.min()
    unused = np.flatnonzero(np.all(weights == floor, axis=0))
    if unused.size:
        n_topics = weights.shape[0]
        raise naming(
            ValueError, f"{path}: the word {words[unused[0]]!r} has the smallest weight "
            f"({float(floor)!r}, i.e. beta: no token) in all {n_topics} topics, so the file looks "
            f"cut short after topic {n_topics - 1} (MALLET writes every topic, and every word has "
            f"a training token); if the model does have {n_topics} topics, give ", ALPHA,
            f" as {n_topics} numbers, one per topic")


def _float_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return np.nan


@contextlib.contextmanager
def _open(path: Path) -> Iterator[BinaryIO]:
    """Binary handle on ``path``, decompressing gzip data; damaged gzip data -> ValueError."""
    handle = gzip.open(path, "rb") if _gzipped(path) else open(path, "rb")
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
        outside = np.flatnonzero((numbers < PARAM_RANGE[0]) | (numbers > PARAM_RANGE[1]))
        if outside.size:
            i = int(outside[0])
            name = "beta" if key == b"#beta :" else f"alpha_m[{i}]"
            raise ValueError(
                f"{path}, line {number}: {name} = {float(numbers[i])!r} is outside "
                f"[{PARAM_RANGE[0]:g}, {PARAM_RANGE[1]:g}], the range in which topiceval's "
                "arithmetic is exact"
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
    """Token counts and type names accumulated over blocks of state lines.

    Types are numbered in the order they are first seen (their slot), so the counts grow with the
    types the file names, never with the typeindex values it writes.
    """

    def __init__(self, path: Path, n_topics: int) -> None:
        self.path = path
        self.n_topics = n_topics
        self.counts = np.zeros(0, dtype=np.int64)  # flat over slot * T + topic
        self.types: dict[int, tuple[bytes, int, int]] = {}  # typeindex -> (type, first line, slot)

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
        slots = self._slots(block, buf, typeindex, last[2] + 1, last[3], first_line, text)
        size = len(self.types) * self.n_topics
        if size > self.counts.size:
            self._check_memory(first_line + int(np.argmax(slots)))
            self.counts = np.pad(self.counts, (0, size - self.counts.size))
        self.counts += np.bincount(slots * self.n_topics + topic, minlength=size)

    def _slots(self, block, buf, typeindex, lo, hi, first_line, text) -> np.ndarray:
        """The slot of each line's type, after checking that every token of a typeindex spells
        the same type, here and in earlier blocks."""
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
        slots = np.empty(kinds.size, dtype=np.int64)
        for j, (kind, i) in enumerate(zip(kinds.tolist(), first.tolist(), strict=True)):
            word = block[lo[i]:hi[i]]
            seen = self.types.get(kind)
            if seen is None:
                seen = self.types[kind] = (word, first_line + i, len(self.types))
            elif seen[0] != word:
                raise self.error(first_line + i, text(i), f"typeindex {kind} is spelled "
                                 f"{word!r} here but {seen[0]!r} on line {seen[1]}")
            slots[j] = seen[2]
        return slots[inverse]

    def _check_memory(self, line: int) -> None:
        """Refuse before the counts outgrow the memory the model's (T, V) arrays may take."""
        total = physical_memory()
        need = len(self.types) * self.n_topics * CELL_BYTES
        if total and need > MEMORY_FRACTION * total:
            raise WorkLimitError(
                f"{self.path}, line {line}: {len(self.types):,} types by this line and "
                f"{self.n_topics:,} topics make a model whose arrays need {need / 2**30:,.1f} GiB "
                f"({CELL_BYTES} bytes per topic and type), more than {MEMORY_FRACTION:.0%} of this "
                f"machine's {total / 2**30:,.1f} GiB"
            )

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        """n_tv (T, V) and the types by typeindex."""
        if not self.types:
            raise ValueError(f"{self.path}: the state lists no tokens")
        n_words = len(self.types)
        kinds = np.fromiter(self.types, dtype=np.int64, count=n_words)  # by slot
        largest = int(np.argmax(kinds))
        if kinds[largest] >= n_words:
            present = np.zeros(n_words, dtype=bool)
            present[kinds[kinds < n_words]] = True
            line = self.types[int(kinds[largest])][1]
            raise ValueError(
                f"{self.path}, line {line}: typeindex {kinds[largest]} is beyond the {n_words} "
                f"types the state names, so typeindex {int(np.argmin(present))} never occurs and "
                "the word of its column is unknown; import the --topic-word-weights-file with "
                "from_mallet_weights instead"
            )
        counts = np.empty((n_words, self.n_topics), dtype=np.int64)
        counts[kinds] = self.counts.reshape(n_words, self.n_topics)
        words = []
        for kind in range(n_words):
            word, line, _ = self.types[kind]
            try:
                words.append(word.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise ValueError(f"{self.path}, line {line}: the type is not UTF-8 ({exc})") \
                    from None
        vocab = vocabulary_words(words, n_words, f"{self.path}: types")
        return counts.T.astype(np.float64), vocab


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


def _gzipped(path: Path) -> bool:
    """Whether the file starts with gzip's magic bytes."""
    with open(path, "rb") as raw:
        return raw.read(2) == GZIP_MAGIC
