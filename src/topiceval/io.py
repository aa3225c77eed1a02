"""File output that fails cleanly (reading ``.npz`` files: ``topiceval.npzfile``).

Output is atomic: a killed job never leaves a half-written file that looks finished.  Every
writer goes through ``temporary_beside`` (usually via ``atomic_path`` or, for a command with
several outputs, ``atomic_paths``): the bytes go to a temporary ``.<name>.<token>.part`` beside
the target, which gets the permissions an ordinary ``open()`` would give (``0o666 & ~umask``)
and is moved onto the target only when complete.  A target that already exists keeps its
permission bits (a file closed to others stays closed).  When ``.<name>.<token>.part`` would
be too long a name for the file system, the temporary is ``.<prefix>.<digest>-<token>.part``
(a prefix of the name and a digest of all of it), so that every name the file system accepts
can be written.  Temporaries left by a killed writer are removed the next time the same target
is written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import stat
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
# A temporary's token has no dot and no hyphen, so the target a temporary belongs to is
# unambiguous: ``.<target>.<token>.part`` (the token of earlier versions, from
# ``tempfile.mkstemp``, too), or for a long name ``.<prefix>.<digest>-<token>.part``, whose last
# segment holds a hyphen that a token never has.
_TOKEN = r"[A-Za-z0-9_]+"
_TOKEN_BYTES = 6  # secrets.token_hex: 12 characters
_DIGEST_CHARS = 32  # of the sha256 of a long name: 128 bits
NAME_MAX = 255  # bytes in a file name, where the file system does not say (os.pathconf)
# Temporaries this process holds open: a writer nested inside another's block (``save_model``
# given the temporary of ``atomic_paths``) writes such a path in place, as it is already atomic.
_HELD: set[Path] = set()


# ---------------------------------------------------------------------------------- output
def _name_max(directory: Path) -> int:
    """The longest file name (in bytes) ``directory``'s file system accepts."""
    try:
        limit = os.pathconf(directory, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):  # no pathconf, no directory yet, no limit
        return NAME_MAX
    return limit if limit > 0 else NAME_MAX


def _temporary_stem(target: Path) -> tuple[str, str]:
    """``(head, separator)``: ``target``'s temporaries are ``.<head><separator><token>.part``.

    ``(name, ".")`` when that fits the file system's name limit; otherwise
    ``("<prefix>.<digest>", "-")``, the prefix being as much of the name as fits and the digest
    the first 32 hex digits of the sha256 of the whole name.
    """
    name = target.name
    token = 2 * _TOKEN_BYTES + len(TEMPORARY_SUFFIX)
    limit = _name_max(target.parent)
    if len(os.fsencode(name)) + 2 + token <= limit:
        return name, "."
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:_DIGEST_CHARS]
    room = limit - (3 + _DIGEST_CHARS + token)  # two dots, a hyphen, the digest, the token
    prefix = name
    while len(os.fsencode(prefix)) > room:
        prefix = prefix[:-1]
    return f"{prefix}.{digest}", "-"


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
        token has no dot (nor hyphen); for a name too long for that,
        ``.<prefix>.<digest>-<token>.part`` with the target's own prefix and digest.
    """
    head, separator = _temporary_stem(Path(target))
    return re.compile(
        rf"\.{re.escape(head)}{re.escape(separator)}{_TOKEN}{re.escape(TEMPORARY_SUFFIX)}"
    )


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
    head, separator = _temporary_stem(target)
    while True:
        token = secrets.token_hex(_TOKEN_BYTES)
        tmp = target.parent / f".{head}{separator}{token}{TEMPORARY_SUFFIX}"
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        _try_lock(fd, wait=True)
        if _same_file(tmp, fd):  # else a cleaner removed it before the lock was taken
            return tmp, fd
        os.close(fd)


def _make_parent(target: Path) -> None:
    """Create ``target``'s directory; one line naming the target if a file is in the way."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise NotADirectoryError(
            f"{target}: cannot create its directory {target.parent}: a file is in the way"
        ) from None


@contextlib.contextmanager
def temporary_beside(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a fresh, empty temporary file beside ``path``; remove it on exit if still there.

    Stale temporaries of ``path`` (left by a killed writer) are removed first and parent
    directories are created.  The temporary is locked while the block runs, so that other
    writers of ``path`` leave it alone, and has the permissions ``open(..., "w")`` would give.

    Parameters
    ----------
    path
        The target the temporary is for; the caller moves the temporary onto it (with
        ``replace_keeping_mode``).

    Yields
    ------
    Path
        The temporary, ``.<name>.<token>.part`` in the target's directory (see
        ``temporary_pattern`` for long names).
    """
    target = Path(path)
    _make_parent(target)
    remove_stale_temporaries(target)
    tmp, fd = _create_locked(target)
    _HELD.add(tmp)
    try:
        yield tmp
    finally:
        _HELD.discard(tmp)
        try:
            tmp.unlink(missing_ok=True)
        finally:
            os.close(fd)


def replace_keeping_mode(tmp: str | os.PathLike, target: str | os.PathLike) -> None:
    """Move the finished temporary ``tmp`` onto ``target`` (``os.replace``: atomic).

    A ``target`` that exists keeps its permission bits (``0o777``; not set-id or sticky bits):
    a file its owner made private (mode 600 or 640) is not opened to others by being rewritten.
    A new target keeps the temporary's ``0o666 & ~umask``.
    """
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) & 0o777
    except FileNotFoundError:
        pass
    else:
        os.chmod(tmp, mode)
    os.replace(tmp, target)


def _written_in_place(target: Path) -> bool:
    """Whether ``target`` is written directly: a device or pipe, or a temporary held here."""
    return target in _HELD or (target.exists() and not target.is_file())


@contextlib.contextmanager
def atomic_paths(*paths: str | os.PathLike | None) -> Iterator[list[Path | None]]:
    """Yield a temporary for each of ``paths``; move them all into place only if the block
    succeeds (the outputs of one command: all of them, or none).

    Each temporary lives in its target's directory (so ``os.replace`` is atomic), has the
    permissions of an ordinary ``open()`` (``0o666 & ~umask``; a target that exists keeps its
    own) and is removed when the block raises.  Temporaries of a target left by a killed writer
    are removed first.  Parent directories are created before the block runs, so an output that
    cannot be written fails before the work is done.

    A target that exists and is not a regular file (``/dev/null``, ``/dev/stdout``, a named
    pipe) is written in place: replacing it would turn a device into a regular file.  So is a
    target that is itself a temporary this process holds (a writer called inside another's
    block, e.g. ``save_model`` on a path yielded here).

    Parameters
    ----------
    *paths
        The files to write; ``None`` (an optional output not asked for) yields ``None``.

    Yields
    ------
    list of Path or None
        Where to write each file's contents, in the order of ``paths``.

    Raises
    ------
    IsADirectoryError
        A target is a directory, before anything is written.
    NotADirectoryError
        A file stands where a target's directory should be.
    """
    targets = [None if path is None else Path(path) for path in paths]
    for target in targets:
        if target is not None and target.is_dir():
            raise IsADirectoryError(f"{target}: is a directory, not a file to write")
    with contextlib.ExitStack() as stack:
        temporaries = [
            target if target is None or _written_in_place(target)
            else stack.enter_context(temporary_beside(target))
            for target in targets
        ]
        yield temporaries
        for tmp, target in zip(temporaries, targets, strict=True):
            if tmp != target:
                replace_keeping_mode(tmp, target)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it onto ``path`` only if the block succeeds.

    ``atomic_paths`` for one file: the temporary has the permissions of an ordinary ``open()``
    (``0o666 & ~umask``; an existing target keeps its own), is removed when the block raises,
    and a device or pipe target is written in place.

    Parameters
    ----------
    path
        The file to write.

    Yields
    ------
    Path
        Where to write the contents.
    """
    with atomic_paths(path) as (tmp,):
        yield tmp


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
