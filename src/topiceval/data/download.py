"""Verified acquisition of raw corpus files, from a local mirror or from the network.

``fetch(files, dest_dir, mirror=None)`` places every ``SourceFile`` at ``dest_dir / file.path``.
Each file is copied from ``mirror / file.path`` when a mirror is given, otherwise downloaded from
its URL (extracting ``member`` from the downloaded archive when the file lives inside one).  The
transfer is pooch's (HTTP(S) or FTP, with a timeout, tried ``1 + RETRIES`` times); what pooch
cannot check is done here (docs/own-code.md#downloads).  The file is then checked in two ways
before it is moved into place:

1. its sha256 must be one of the accepted digests (or, for archives with unstable bytes, the
   archive's content digest must be one of ``content_sha256``);
2. an archive must read to the end (every tar member, the whole gzip stream, every zip member's
   CRC), so a truncated archive fails even if someone listed its checksum.

All files of one call are staged as temporary files beside their destinations and moved into
place only after every file has passed; on any failure the temporaries are removed and a
``DownloadError`` names the file, the expected and the actual checksum.  Files already present
and valid are kept; files present but invalid are removed before being fetched again, as are
temporaries a killed fetch left beside them.  A ``path`` that would leave ``dest_dir`` (or the
mirror) is refused before anything is written.  Archives are never unpacked by member name:
a member is only ever copied to its ``SourceFile.path``, so hostile member names (``../x``,
absolute paths, links) cannot place files anywhere; and what an archive may expand to is
bounded (``topiceval.data.archives``), so a decompression bomb is refused naming the file.

``verify_stored(file, path)`` checks a file already in place again, when a workflow rule is
about to read it (``topiceval.pipeline.rule_context``): a raw file damaged after its download
is refused, not read.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import shutil
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

import pooch
import requests

from topiceval.data.archives import (
    ArchiveTooLarge,
    check_zip_sizes,
    gzip_blocks,
    regular_members,
)
from topiceval.data.sources import SourceFile, check_relative_path
from topiceval.io import replace_keeping_mode, sha256_file, temporary_beside

_LOG = logging.getLogger(__name__)
_CHUNK = 1 << 20
RETRIES = 2  # a failed transfer is tried again this many times (pooch waits 1 s, then 2 s)
HEADERS = {"User-Agent": "topiceval-data-fetch"}
ARCHIVE_ERRORS = (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, OSError)


class DownloadError(ValueError):
    """A raw file is missing, unreachable, has the wrong checksum or is truncated."""


def _tar_members(path: Path) -> Iterator[tuple[str, bytes | None]]:
    """(name, bytes) of every regular member, reading each one to its end (bounded)."""
    with tarfile.open(path, "r:*") as archive:
        for info in regular_members(archive, path):
            handle = archive.extractfile(info)
            yield info.name, handle.read() if handle is not None else b""


def _check_gzip(path: Path) -> None:
    """Decompress to the end: the gzip trailer's CRC and length catch any truncation."""
    for _ in gzip_blocks(path):
        pass


def _check_tar(path: Path) -> None:
    """Read every member and require the end-of-archive block after the last one.

    ``tarfile`` treats a header cut short after the first member as the end of the archive, so
    the explicit end-block check is what catches an uncompressed tar truncated between members.
    """
    with tarfile.open(path, "r:*") as archive:
        for info in regular_members(archive, path):
            handle = archive.extractfile(info)
            while handle is not None and handle.read(_CHUNK):
                pass
        archive.fileobj.seek(archive.offset)
        end = archive.fileobj.read(tarfile.BLOCKSIZE)
    if len(end) < tarfile.BLOCKSIZE or end.count(0) != tarfile.BLOCKSIZE:
        raise tarfile.ReadError("no end-of-archive block after the last member (truncated)")


def check_archive(path: str | os.PathLike, name: str | None = None) -> None:
    """Read an archive to its end; raise on damage.

    The kind comes from the suffix of ``name`` (default: the file's own name): ``.tar``,
    ``.tar.gz``/``.tgz`` (or any ``.gz`` holding a tar), ``.gz``, ``.zip``/``.whl``; other files
    are not archives and pass.  What an archive may expand to is bounded
    (``topiceval.data.archives``: ``ArchiveTooLarge``).
    """
    path = Path(path)
    name = (name or path.name).lower()
    if name.endswith((".gz", ".tgz")):
        _check_gzip(path)
    if name.endswith((".tar.gz", ".tgz", ".tar")) or (
        name.endswith(".gz") and tarfile.is_tarfile(path)
    ):
        _check_tar(path)
    elif name.endswith((".zip", ".whl")):
        with zipfile.ZipFile(path) as archive:
            check_zip_sizes(archive, path)
            bad = archive.testzip()
            if bad is not None:
                raise zipfile.BadZipFile(f"member {bad!r} fails its CRC check")


def content_digest(path: str | os.PathLike, pattern: str) -> str:
    """sha256 of the ``SHA256SUMS``-style listing of the tar members matching ``pattern``.

    For every regular member whose path matches ``pattern`` (searched), the line
    ``<sha256 of the member>  <group 1 of the match>`` is formed; the lines, sorted by name and
    newline-terminated, are hashed.  Two archives with the same files under different prefixes
    (a repack and GitHub's ``<repo>-<commit>/data/...`` tarball) get the same digest.
    """
    regex = re.compile(pattern)
    lines = []
    for member, data in _tar_members(Path(path)):
        match = regex.search(member)
        if match:
            lines.append((match.group(1), hashlib.sha256(data).hexdigest()))
    listing = "".join(f"{digest}  {name}\n" for name, digest in sorted(lines))
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def _accepted(spec: SourceFile, path: str | os.PathLike, actual: str) -> bool:
    """Whether ``path`` (sha256 ``actual``) has a digest ``spec`` accepts; archive errors
    propagate."""
    return actual in spec.sha256 or (
        bool(spec.content_sha256)
        and content_digest(path, spec.content_pattern) in spec.content_sha256
    )


def _refused(spec: SourceFile, origin: str, exc: ArchiveTooLarge) -> DownloadError:
    return DownloadError(f"{spec.path}: archive from {origin}: {exc.problem}")


@contextlib.contextmanager
def _archive_errors(spec: SourceFile, origin: str, expected: str) -> Iterator[None]:
    """Turn what reading an archive raises into one ``DownloadError`` naming the file."""
    try:
        yield
    except ArchiveTooLarge as exc:
        raise _refused(spec, origin, exc) from None
    except ARCHIVE_ERRORS as exc:
        raise DownloadError(
            f"{spec.path}: archive from {origin} is truncated or corrupt ({exc}); {expected}"
        ) from None


def verify_file(spec: SourceFile, path: str | os.PathLike, origin: str | None = None) -> str:
    """Check ``path`` against ``spec``; return its sha256 or raise ``DownloadError``."""
    origin = origin or str(path)
    actual = sha256_file(path)
    expected = f"expected sha256 {spec.accepted()}, actual {actual}"
    with _archive_errors(spec, origin, expected):
        if not _accepted(spec, path, actual):
            raise DownloadError(f"{spec.path}: sha256 mismatch for {origin}: {expected}")
        check_archive(path, spec.path)
    return actual


def verify_stored(spec: SourceFile, path: str | os.PathLike) -> None:
    """Check a raw file already in place, as a rule is about to read it, against ``spec``.

    The file passed ``verify_file`` when it was fetched; this catches what happened to it since
    (an edit, a truncation, a disk error).  Only its digest is compared (its sha256, or for a
    source with a content digest the archive's), which costs one read of the file: 0.01-0.02 s
    for the largest raw file, NIPS's 16 MB archive (0.45 s for a tarball downloaded from GitHub,
    checked by its content digest), against seconds to minutes for the rule that reads it.

    Raises
    ------
    DownloadError
        Naming ``path``, the expected and the actual digest, and what to do.
    """
    actual = sha256_file(path)
    try:
        ok, problem = _accepted(spec, path, actual), "sha256 mismatch"
    except ARCHIVE_ERRORS as exc:  # (ArchiveTooLarge is not one: it names the file itself)
        ok, problem = False, f"damaged archive ({exc})"
    if not ok:
        raise DownloadError(
            f"{path}: {problem}: the file changed after it was downloaded and verified "
            f"(expected sha256 {spec.accepted()}, actual {actual}); delete it and fetch it again"
        )


def _copy_local(url: str, output_file: str, _pooch: object) -> None:
    """pooch's downloader protocol for a ``file://`` address: a copy of the local file."""
    shutil.copyfile(urllib.request.url2pathname(urllib.parse.urlparse(url).path), output_file)


def _downloader(url: str, timeout: float):
    """pooch's downloader for ``url``'s scheme, with ``timeout`` seconds per connection, or
    ``None`` for a scheme it cannot fetch."""
    scheme = urllib.parse.urlparse(url).scheme
    if scheme in ("http", "https"):
        return pooch.HTTPDownloader(timeout=timeout, headers=HEADERS)
    if scheme == "ftp":
        return pooch.FTPDownloader(timeout=timeout)
    return _copy_local if scheme == "file" else None


def _download(spec: SourceFile, target: Path, timeout: float) -> None:
    """Transfer ``spec.url`` into ``target`` with pooch (retried); a failure becomes a
    ``DownloadError``.

    pooch writes into a scratch directory of its own (its files are private, mode 600); the
    bytes are then copied into ``target``, the locked temporary with ordinary permissions that
    ``fetch`` moves into place once every check has passed.
    """
    failed = f"expected sha256 {spec.accepted()}, actual: no file"
    downloader = _downloader(spec.url, timeout)
    if downloader is None:
        raise DownloadError(f"{spec.path}: cannot download {spec.url} (only http, https, ftp "
                            f"and file addresses are fetched); {failed}")
    name = Path(spec.path).name
    with tempfile.TemporaryDirectory(prefix="topiceval-download-") as scratch:
        store = pooch.create(path=scratch, base_url="", registry={name: None},
                             urls={name: spec.url}, retry_if_failed=RETRIES)
        try:
            fetched = store.fetch(name, downloader=downloader)
        except (requests.RequestException, OSError, EOFError) as exc:
            raise DownloadError(
                f"{spec.path}: cannot download {spec.url} ({' '.join(str(exc).split())}); {failed}"
            ) from None
        shutil.copyfile(fetched, target)


def _extract_member(archive: Path, member: str, target: Path) -> None:
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            check_zip_sizes(zf, archive)
            with zf.open(member) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out, _CHUNK)
        return
    with tarfile.open(archive, "r:*") as tf:
        for info in regular_members(tf, archive):
            if info.name.removeprefix("./") == member:
                with tf.extractfile(info) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out, _CHUNK)
                return
    raise KeyError(member)


def _stage(
    spec: SourceFile,
    tmp: Path,
    mirror: Path | None,
    timeout: float,
    archives: dict[str, Path],
    stack: contextlib.ExitStack,
) -> str:
    """Put the file's bytes into ``tmp``; return a description of where they came from.

    Archives downloaded for their members are kept in ``archives`` (URL -> temporary file,
    removed when ``stack`` closes) so that one call downloads each archive once.
    """
    if mirror is not None:
        src = inside(mirror, spec)
        if not src.is_file():
            raise DownloadError(
                f"{spec.path}: missing from mirror ({src} does not exist); "
                f"expected sha256 {spec.accepted()}, actual: no file"
            )
        shutil.copyfile(src, tmp)
        return str(src)
    if spec.member is None:
        _download(spec, tmp, timeout)
        return spec.url
    if spec.url not in archives:
        archive = tmp.parent / f"{Path(spec.path).name}.archive"
        archives[spec.url] = stack.enter_context(temporary_beside(archive))
        _download(spec, archives[spec.url], timeout)
    try:
        _extract_member(archives[spec.url], spec.member, tmp)
    except ArchiveTooLarge as exc:
        raise _refused(spec, spec.url, exc) from None
    except (KeyError, *ARCHIVE_ERRORS) as exc:
        raise DownloadError(
            f"{spec.path}: cannot extract member {spec.member!r} from {spec.url} ({exc!r}); "
            f"expected sha256 {spec.accepted()}, actual: no file"
        ) from None
    return f"{spec.url} (member {spec.member})"


def inside(root: Path, spec: SourceFile) -> Path:
    """``root / spec.path``, refusing a path that would leave ``root`` (``DownloadError``).

    ``parse_sources`` and the config schema already refuse such paths; this check covers
    ``SourceFile`` records built directly, so that no download lands outside ``dest_dir``.
    """
    try:
        check_relative_path(spec.path, f"source file (url {spec.url})")
    except ValueError as exc:
        raise DownloadError(str(exc)) from None
    return root / spec.path


def fetch(
    files: Iterable[SourceFile],
    dest_dir: str | os.PathLike,
    mirror: str | os.PathLike | None = None,
    timeout: float = 120.0,
    log: logging.Logger | None = None,
) -> list[Path]:
    """Fetch and verify ``files`` into ``dest_dir`` (all or nothing); return their paths.

    Each file is staged in a temporary beside its target (``topiceval.io.temporary_beside``:
    ordinary permissions, temporaries of a killed fetch removed) and moved into place only once
    every file has passed.
    """
    log = log or _LOG
    dest_dir = Path(dest_dir)
    mirror = Path(mirror) if mirror is not None else None
    if mirror is not None and not mirror.is_dir():
        raise DownloadError(f"data mirror {mirror} is not a directory")
    files = list(files)
    targets = [inside(dest_dir, spec) for spec in files]  # all checked before anything is written
    archives: dict[str, Path] = {}
    with contextlib.ExitStack() as stack:  # removes every temporary left on any exit
        staged: list[tuple[Path, Path]] = []
        for spec, target in zip(files, targets, strict=True):
            if target.is_file():
                try:
                    verify_file(spec, target)
                    log.info("%s: present and verified", spec.path)
                    continue
                except DownloadError as exc:
                    log.warning("%s; removing it and fetching again", exc)
                    target.unlink()
            tmp = stack.enter_context(temporary_beside(target))
            staged.append((tmp, target))
            origin = _stage(spec, tmp, mirror, timeout, archives, stack)
            digest = verify_file(spec, tmp, origin)
            log.info("%s: fetched from %s, sha256 %s", spec.path, origin, digest)
        for tmp, target in staged:
            replace_keeping_mode(tmp, target)
    return targets
