"""File output that fails cleanly (reading ``.npz`` files: ``topiceval.npzfile``).

Output is atomic: a killed job never leaves a half-written file that looks finished.  Every
writer goes through ``temporary_beside`` (usually via ``atomic_path``): the bytes go to a
temporary ``.<name>.<token>.part`` beside the target, which gets the permissions an ordinary
``open()`` would give (``0o666 & ~umask``) and is moved onto the target only when complete.
Temporaries left by a killed writer are removed the next time the same target is written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: stale temporaries are never removed
    fcntl = None

if TYPE_CHECKING:
    import pandas as pd

TEMPORARY_SUFFIX = ".part"
# A temporary's token has no dot, so the target a temporary belongs to is unambiguous:
# ``.<target>.<token>.part`` (the token of earlier versions, from ``tempfile.mkstemp``, too).
_TOKEN = r"[A-Za-z0-9_]+"


# ---------------------------------------------------------------------------------- output
def temporary_pattern(target: str | os.PathLike) -> re.Pattern:
    """The names of ``target``'s temporaries, and of no other target's.

    Parameters
    ----------
    target
        The file being written.

    Returns
    -------
    re.Pattern
        Matches ``.<name>.<token>.part`` where ``<name>`` is the target's file name and the
        token has no dot.
    """
    name = re.escape(Path(target).name)
    return re.compile(rf"\.{name}\.{_TOKEN}{re.escape(TEMPORARY_SUFFIX)}")


def _try_lock(fd: int, *, wait: bool) -> bool:
    """Lock ``fd`` exclusively; False when another process holds it or locks are unsupported."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:  # BlockingIOError: a live writer; others: no locks on this file system
        return False
    return True


def _same_file(path: Path, fd: int) -> bool:
    """Whether ``path`` still names the file open as ``fd``."""
    try:
        here = path.stat(follow_symlinks=False)
    except FileNotFoundError:
        return False
    there = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _open_existing(path: Path) -> int | None:
    """A descriptor of ``path`` (read-write if allowed, for locks over NFS), or None."""
    for flags in (os.O_RDWR, os.O_RDONLY):
        try:
            return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))
        except PermissionError:
            continue
        except OSError:
            return None
    return None


def remove_stale_temporaries(target: str | os.PathLike) -> list[Path]:
    """Remove the temporaries of ``target`` that no running writer holds.

    A writer holds an exclusive lock on its temporary until it is moved into place, and the
    lock dies with the process, so a temporary nobody has locked was left by a killed writer.

    Parameters
    ----------
    target
        The file about to be written.

    Returns
    -------
    list of Path
        The temporaries removed.
    """
    target = Path(target)
    pattern = temporary_pattern(target)
    removed = []
    try:
        with os.scandir(target.parent) as scan:
            paths = [Path(e.path) for e in scan
                     if pattern.fullmatch(e.name) and e.is_file(follow_symlinks=False)]
    except OSError:
        return removed
    for path in paths:
        fd = _open_existing(path)
        if fd is None:
            continue
        try:
            if _try_lock(fd, wait=False) and _same_file(path, fd):
                path.unlink(missing_ok=True)
                removed.append(path)
        finally:
            os.close(fd)
    return removed


def _create_locked(target: Path) -> tuple[Path, int]:
    """Create and lock a fresh temporary for ``target``; mode ``0o666 & ~umask``."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    while True:
        tmp = target.parent / f".{target.name}.{secrets.token_hex(6)}{TEMPORARY_SUFFIX}"
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        _try_lock(fd, wait=True)
        if _same_file(tmp, fd):  # else a cleaner removed it before the lock was taken
            return tmp, fd
        os.close(fd)


@contextlib.contextmanager
def temporary_beside(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a fresh, empty temporary file beside ``path``; remove it on exit if still there.

    Stale temporaries of ``path`` (left by a killed writer) are removed first and parent
    directories are created.  The temporary is locked while the block runs, so that other
    writers of ``path`` leave it alone, and has the permissions ``open(..., "w")`` would give.

    Parameters
    ----------
    path
        The target the temporary is for; the caller moves the temporary onto it.

    Yields
    ------
    Path
        The temporary, ``.<name>.<token>.part`` in the target's directory.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(target)
    tmp, fd = _create_locked(target)
    try:
        yield tmp
    finally:
        try:
            tmp.unlink(missing_ok=True)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it onto ``path`` only if the block succeeds.

    The temporary file lives in the same directory (so ``os.replace`` is atomic), has the
    permissions of an ordinary ``open()`` (``0o666 & ~umask``) and is removed when the block
    raises.  Temporaries of ``path`` left by a killed writer are removed first.  Parent
    directories are created.

    A target that exists and is not a regular file or directory (``/dev/null``,
    ``/dev/stdout``, a named pipe) is written in place: replacing it would turn a device into a
    regular file.

    Parameters
    ----------
    path
        The file to write.

    Yields
    ------
    Path
        Where to write the contents.
    """
    target = Path(path)
    if target.exists() and not (target.is_file() or target.is_dir()):
        yield target
        return
    with temporary_beside(target) as tmp:
        yield tmp
        os.replace(tmp, target)


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_csv_atomic(path: str | os.PathLike, frame: pd.DataFrame, **to_csv) -> None:
    """``frame.to_csv(path, index=False, **to_csv)``, atomically; ``"-"`` writes to stdout."""
    if str(path) == "-":
        frame.to_csv(sys.stdout, index=False, **to_csv)
        return
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, **to_csv)


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def check_outputs_differ(inputs: dict[str, object], outputs: dict[str, object]) -> None:
    """Refuse to write an output onto an input, or two outputs onto one file.

    Parameters
    ----------
    inputs, outputs
        Option name -> path (a path, a list of paths, or None); ``"-"`` (standard output) and
        None are skipped.  Paths are compared after resolving symbolic links.

    Raises
    ------
    ValueError
        Naming both options and the file.
    """
    seen: dict[Path, str] = {}
    for role, table in (("input", inputs), ("output", outputs)):
        for option, value in table.items():
            for item in value if isinstance(value, list | tuple) else [value]:
                if item is None or str(item) == "-":
                    continue
                key = Path(item).resolve()
                if role == "output" and key in seen:
                    raise ValueError(
                        f"{option} {item} is the same file as {seen[key]}; refusing to "
                        "overwrite it (choose another output path)"
                    )
                seen.setdefault(key, f"{option} {item}")
