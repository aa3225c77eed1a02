"""Bounds on what a compressed raw file may expand to: a decompression bomb is refused, not read.

Every reader of an archive goes through here: the download checks
(``topiceval.data.download``: content digests, read-to-the-end checks, member extraction) and
the corpus readers (``topiceval.data.readers``).  A tar member is checked against the limits
from its header before any of its data is decompressed (``tarfile`` reads exactly the size the
header states), a zip member from its central directory entry (``zipfile`` stops at the size it
states), a gzip stream while it is decompressed.

The limits are far above the real corpora's (the largest member, WordNet's ``data.noun``,
expands to 15 MB; the largest archive, NIPS, to 46 MB) and far below what would exhaust the
memory of a machine that reads a member whole: at most ``MAX_MEMBER_BYTES`` per member and
``MAX_EXPANDED_BYTES`` per archive (all members, or a whole gzip stream).  Beyond them an
``ArchiveTooLarge`` names the file, the member and the limit.
"""

from __future__ import annotations

import gzip
import os
import tarfile
import zipfile
from collections.abc import Iterator

MAX_MEMBER_BYTES = 256 * 2**20
MAX_EXPANDED_BYTES = 2 * 2**30
_CHUNK = 1 << 20


class ArchiveTooLarge(ValueError):
    """An archive, or one of its members, expands beyond the limits of this module.

    ``problem`` is the message without the file name (for callers that name the file their
    own way, e.g. a download staged under a temporary name).
    """

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.problem = problem
        super().__init__(f"{path}: {problem}")


def _check(path: str | os.PathLike, what: str, size: int, limit: int, name: str) -> None:
    """Raise ``ArchiveTooLarge`` if ``what`` expands to more than ``limit`` bytes."""
    if size > limit:
        raise ArchiveTooLarge(
            path, f"{what} expands to more than {limit:,} bytes (the limit "
                  f"topiceval.data.archives.{name}); refused as a possible decompression bomb"
        )


def regular_members(archive: tarfile.TarFile,
                    path: str | os.PathLike) -> Iterator[tarfile.TarInfo]:
    """The regular-file members of ``archive`` (opened from ``path``), bounds checked.

    Every member's stated size is checked, and added to the archive's total, when its header is
    read: before its data is decompressed, and before the data of a member the caller skips
    is decompressed on the way to the next header.

    Raises
    ------
    ArchiveTooLarge
        A member beyond ``MAX_MEMBER_BYTES``, or all members so far beyond
        ``MAX_EXPANDED_BYTES``.
    """
    total = 0
    for info in archive:
        _check(path, f"member {info.name!r}", info.size, MAX_MEMBER_BYTES, "MAX_MEMBER_BYTES")
        total += info.size
        _check(path, "the archive", total, MAX_EXPANDED_BYTES, "MAX_EXPANDED_BYTES")
        if info.isfile():
            yield info


def check_zip_sizes(archive: zipfile.ZipFile, path: str | os.PathLike) -> None:
    """Refuse a zip whose members (as its central directory states them) exceed the limits."""
    total = 0
    for info in archive.infolist():
        _check(path, f"member {info.filename!r}", info.file_size, MAX_MEMBER_BYTES,
               "MAX_MEMBER_BYTES")
        total += info.file_size
        _check(path, "the archive", total, MAX_EXPANDED_BYTES, "MAX_EXPANDED_BYTES")


def gzip_blocks(path: str | os.PathLike) -> Iterator[bytes]:
    """The decompressed blocks of the gzip file at ``path``, to the end of its stream.

    Raises
    ------
    ArchiveTooLarge
        Once more than ``MAX_EXPANDED_BYTES`` have come out.
    """
    total = 0
    with gzip.open(path, "rb") as handle:
        while block := handle.read(_CHUNK):
            total += len(block)
            _check(path, "the gzip stream", total, MAX_EXPANDED_BYTES, "MAX_EXPANDED_BYTES")
            yield block


def gunzip(path: str | os.PathLike) -> bytes:
    """The whole decompressed content of the gzip file at ``path`` (bounded: ``gzip_blocks``)."""
    return b"".join(gzip_blocks(path))
