"""Reading ``.npz`` files that fail cleanly: ``read_npz`` opens one and turns every way it can
be damaged (missing, a directory, empty, truncated, another format, members of the wrong kind)
into one error naming the file and the problem.  Model and corpus files are never unpickled.
"""

from __future__ import annotations

import contextlib
import json
import os
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np

_KINDS = {
    "U": "strings", "S": "byte strings", "b": "booleans", "i": "integers",
    "u": "integers", "f": "floating-point numbers", "c": "complex numbers",
    "O": "Python objects", "V": "structured records", "M": "dates", "m": "time spans",
}


_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


def _holds(array: np.ndarray, *, shape: bool = False) -> str:
    """What an array holds, in words: ``"strings (dtype <U5)"``, with its shape if asked."""
    where = f", shape {array.shape}" if shape else ""
    return f"{_KINDS.get(array.dtype.kind, 'values')} (dtype {array.dtype}{where})"


class NpzMembers:
    """The arrays of an open ``.npz`` file, read with checks; errors name the file.

    Parameters
    ----------
    path
        The file (for messages).
    data
        The open ``numpy.lib.npyio.NpzFile``.
    error
        The exception class to raise (a ``ValueError`` subclass).
    kind
        What the file should be, for messages: ``"model"``, ``"corpus"``.
    """

    def __init__(self, path, data, error: type[ValueError], kind: str) -> None:
        self.path, self._data, self._error, self.kind = path, data, error, kind
        self.files = frozenset(data.files)

    def fail(self, problem: str) -> ValueError:
        """The error to raise: ``<path>: <problem>``."""
        return self._error(f"{self.path}: {problem}")

    def array(self, name: str) -> np.ndarray:
        """Member ``name``, read; a damaged member raises the file's error."""
        if name not in self.files:
            raise self.fail(f"not a complete {self.kind} file: it has no {name!r} array")
        try:
            value = self._data[name]
        except ValueError as exc:
            if "pickle" in str(exc).lower() or "object arrays" in str(exc).lower():
                raise self.fail(f"array {name!r} holds Python objects; {self.kind} files hold "
                                "only numbers and strings") from None
            raise self.fail(f"cannot read {self.kind} file: array {name!r} is damaged "
                            f"({exc})") from None
        except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            raise self.fail(f"cannot read {self.kind} file: array {name!r} is damaged or "
                            f"truncated ({exc or type(exc).__name__})") from None
        if not isinstance(value, np.ndarray):  # numpy hands back a non-.npy member's bytes
            raise self.fail(f"cannot read {self.kind} file: array {name!r} is damaged (the "
                            "member is not in .npy format)")
        return value

    def numbers(self, name: str, *, integer: bool = False, ndim: int | None = None) -> np.ndarray:
        """Member ``name``, which must hold integers (``integer``) or real numbers."""
        arr = self.array(name)
        allowed = "iu" if integer else "iuf"
        if arr.dtype.kind not in allowed:
            wanted = "integers" if integer else "numbers"
            raise self.fail(f"{name} must hold {wanted}, found {_holds(arr)}")
        if ndim is not None and arr.ndim != ndim:
            raise self.fail(f"{name} must be a {ndim}-D array, found shape {arr.shape}")
        return arr

    def strings(self, name: str) -> np.ndarray:
        """Member ``name``, which must hold (unicode) strings."""
        arr = self.array(name)
        if arr.dtype.kind != "U":
            raise self.fail(f"{name} must hold strings, found {_holds(arr)}")
        return arr

    def scalar(self, name: str, *, integer: bool = False) -> int | float:
        """Member ``name`` as one number (a 0-d array)."""
        arr = self.numbers(name, integer=integer)
        if arr.shape != ():
            raise self.fail(f"{name} must be a single number, found an array of shape "
                            f"{arr.shape}")
        return int(arr) if integer else float(arr)

    def text(self, name: str) -> str:
        """Member ``name`` as one string (a 0-d string array)."""
        arr = self.array(name)
        if arr.dtype.kind != "U" or arr.shape != ():
            raise self.fail(f"{name} must be a single string, found {_holds(arr, shape=True)}")
        return str(arr)

    def json_object(self, name: str) -> dict:
        """Member ``name``: a JSON text holding an object."""
        text = self.text(name)
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise self.fail(f"{name} is not valid JSON ({exc})") from None
        if not isinstance(value, dict):
            raise self.fail(f"{name} must be a JSON object, found a JSON "
                            f"{_JSON_TYPES.get(type(value), type(value).__name__)}")
        return value


def _sniff(head: bytes, kind: str) -> str | None:
    """Why a file starting with ``head`` cannot be a ``.npz`` file; None if it may be one."""
    if not head:
        return f"cannot read {kind} file: it is empty (0 bytes)"
    if head.startswith(b"\x93NUMPY"):
        return (f"cannot read {kind} file: it is a single .npy array, not a .npz archive of "
                f"the {kind}'s arrays")
    if not head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return (f"cannot read {kind} file: not a .npz archive (it does not start with a zip "
                "header; a text file or another format renamed .npz?)")
    return None


def _describe_os_error(exc: OSError) -> str:
    """``No such file or directory`` rather than ``[Errno 2] No such file ...: 'x'``."""
    return exc.strerror or str(exc) or type(exc).__name__


@contextlib.contextmanager
def read_npz(path: str | os.PathLike, error: type[ValueError], kind: str) -> Iterator[NpzMembers]:
    """Open a ``.npz`` file (never unpickling); every failure raises ``error`` naming ``path``.

    Parameters
    ----------
    path
        The file.
    error
        The ``ValueError`` subclass to raise (``ModelError``, ``CorpusError``).
    kind
        What the file should be, for messages.

    Yields
    ------
    NpzMembers
        Checked access to the arrays.
    """
    if Path(path).is_dir():
        raise error(f"{path}: cannot read {kind} file: it is a directory")
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise error(f"{path}: cannot read {kind} file: {_describe_os_error(exc)}") from None
    with handle:
        problem = _sniff(handle.read(8), kind)
        if problem is not None:
            raise error(f"{path}: {problem}")
        handle.seek(0)
        try:
            data = np.load(handle, allow_pickle=False)
        except zipfile.BadZipFile as exc:
            raise error(f"{path}: cannot read {kind} file: damaged or truncated .npz archive "
                        f"(no readable zip directory at its end: {exc})") from None
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            raise error(f"{path}: cannot read {kind} file: damaged or truncated .npz archive "
                        f"({exc or type(exc).__name__})") from None
        if not isinstance(data, np.lib.npyio.NpzFile):  # pragma: no cover - sniffed above
            raise error(f"{path}: cannot read {kind} file: not a .npz archive")
        with data:
            yield NpzMembers(path, data, error, kind)
