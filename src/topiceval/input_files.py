"""Input files read whole: priced by size before they are read, and YAML read strictly.

* ``check_input_size``: a file larger than ``MAX_INPUT_BYTES`` is refused before any of it is
  read, with one line naming the file, its size and the limit (a 1 GiB one-line text file read
  whole would otherwise end in a bare ``MemoryError``, or a swapping machine, while the workflow
  is parsed).  The limit is that of one member of a raw archive (``topiceval.data.archives``),
  far above any real corpus file (the largest the workflow reads, WordNet's ``data.noun``, is
  15 MB) and far below what exhausts the memory of a machine that reads and tokenises it whole.
* ``load_yaml``: every YAML file the project reads (study and workflow configurations, the
  schemas) goes through it.  A key written twice in one mapping is refused, naming the key, the
  file and both lines (PyYAML keeps the last silently: a ``models:`` block written twice would
  drop one candidate without a word), and so is a syntax error, in one line naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

MAX_INPUT_BYTES = 256 * 2**20
MIB = 2**20


class InputTooLarge(ValueError):
    """A file beyond ``MAX_INPUT_BYTES`` (or the caller's limit): nothing of it was read."""


class DuplicateKey(ValueError):
    """A YAML mapping with a key written twice."""


def check_input_size(path: str | os.PathLike, limit: int = MAX_INPUT_BYTES) -> int:
    """The size of the file ``path`` in bytes; ``InputTooLarge`` beyond ``limit``."""
    size = Path(path).stat().st_size
    if size > limit:
        raise InputTooLarge(
            f"{path}: {size / MIB:,.0f} MiB, more than the {limit / MIB:,.0f} MiB topiceval "
            "reads from one input file (topiceval.input_files.MAX_INPUT_BYTES); split it into "
            "smaller files")
    return size


def read_input(path: str | os.PathLike) -> bytes:
    """The bytes of the file ``path``, priced first (``check_input_size``)."""
    check_input_size(path)
    return Path(path).read_bytes()


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a mapping that writes a key twice."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: PyYAML's own error follows
                continue
            if first is not None:
                raise DuplicateKey(f"key {key!r} is written twice (lines {first} and {line}); "
                                   "keep one")
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml(path: str | os.PathLike) -> Any:
    """The content of the YAML file ``path`` (``yaml.safe_load``), or ``ValueError`` in one line
    naming the file: too large (``check_input_size``), not YAML (where), or a key written twice
    in one mapping (``DuplicateKey``: the key and its lines)."""
    text = read_input(path).decode("utf-8", errors="replace")
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader)
    except DuplicateKey as exc:
        raise DuplicateKey(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise ValueError(f"{path}: not YAML{where}: {problem}") from None
