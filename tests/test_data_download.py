"""Verified fetching: checksum mismatch, truncated archive, missing mirror file, no leftovers."""

from __future__ import annotations

import functools
import http.server
import os
import threading
import types

import numpy as np
import pooch
import pytest

from data_fixtures import SHARED_MIRROR, sha256, write_gzip, write_tar, write_zip
from topiceval.data import download
from topiceval.data.download import (
    ARCHIVE_ERRORS,
    DownloadError,
    check_archive,
    content_digest,
    fetch,
)
from topiceval.data.sources import SourceFile, parse_sources, source_files


def _leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.rglob("*") if p.is_file())


@pytest.fixture
def mirror(tmp_path):
    root = tmp_path / "mirror"
    write_tar(root / "src" / "a.tar.gz", {"top/x.txt": b"x" * 5000, "top/y.txt": b"yy"})
    (root / "src" / "b.txt").parent.mkdir(parents=True, exist_ok=True)
    (root / "src" / "b.txt").write_bytes(b"plain file\n")
    return root


def _spec(mirror, rel, **kw) -> SourceFile:
    data = (mirror / rel).read_bytes()
    return SourceFile(path=rel, url="https://example.invalid/" + rel, sha256=(sha256(data),), **kw)


def test_fetch_from_mirror_places_verified_files(mirror, tmp_path):
    files = [_spec(mirror, "src/a.tar.gz"), _spec(mirror, "src/b.txt")]
    dest = tmp_path / "raw"
    paths = fetch(files, dest, mirror=mirror)
    assert paths == [dest / "src/a.tar.gz", dest / "src/b.txt"]
    for rel in ("src/a.tar.gz", "src/b.txt"):
        assert (dest / rel).read_bytes() == (mirror / rel).read_bytes()
    assert _leftovers(dest) == ["a.tar.gz", "b.txt"]


def test_checksum_mismatch_names_file_expected_and_actual(mirror, tmp_path):
    good = _spec(mirror, "src/b.txt")
    (mirror / "src/b.txt").write_bytes(b"corrupted\n")
    dest = tmp_path / "raw"
    with pytest.raises(DownloadError) as info:
        fetch([good], dest, mirror=mirror)
    message = str(info.value)
    assert "src/b.txt" in message and "mismatch" in message
    assert good.sha256[0] in message
    assert sha256(b"corrupted\n") in message
    assert _leftovers(dest) == []


def test_truncated_archive_fails_even_with_listed_checksum(mirror, tmp_path):
    data = (mirror / "src/a.tar.gz").read_bytes()
    (mirror / "src/a.tar.gz").write_bytes(data[: len(data) // 2])
    spec = _spec(mirror, "src/a.tar.gz")  # lists the truncated file's own checksum
    dest = tmp_path / "raw"
    with pytest.raises(DownloadError, match="truncated or corrupt") as info:
        fetch([spec], dest, mirror=mirror)
    assert "src/a.tar.gz" in str(info.value) and spec.sha256[0] in str(info.value)
    assert _leftovers(dest) == []


def test_missing_mirror_file_fails_and_earlier_files_are_not_kept(mirror, tmp_path):
    files = [
        _spec(mirror, "src/b.txt"),
        SourceFile(path="src/absent.txt", url="https://example.invalid/x", sha256=("0" * 64,)),
    ]
    dest = tmp_path / "raw"
    with pytest.raises(DownloadError) as info:
        fetch(files, dest, mirror=mirror)
    message = str(info.value)
    assert "src/absent.txt" in message and "missing from mirror" in message
    assert "0" * 64 in message and "actual: no file" in message
    assert _leftovers(dest) == []


def test_mirror_must_be_a_directory(tmp_path):
    spec = SourceFile(path="a", url="u", sha256=("0" * 64,))
    with pytest.raises(DownloadError, match="not a directory"):
        fetch([spec], tmp_path / "raw", mirror=tmp_path / "nowhere")


def test_present_valid_file_is_kept_and_invalid_one_replaced(mirror, tmp_path):
    spec = _spec(mirror, "src/b.txt")
    dest = tmp_path / "raw"
    fetch([spec], dest, mirror=mirror)
    target = dest / "src/b.txt"
    os.utime(target, (1, 1))
    fetch([spec], dest, mirror=mirror)
    assert target.stat().st_mtime == 1
    target.write_bytes(b"stale")
    fetch([spec], dest, mirror=mirror)
    assert target.read_bytes() == (mirror / "src/b.txt").read_bytes()


class _Origin(http.server.SimpleHTTPRequestHandler):
    """Serves the files of its directory; answers 503 to the first ``failures`` requests."""

    failures = 0
    requests: list[str] = []

    def do_GET(self):  # noqa: N802 (the base class's name)
        type(self).requests.append(self.path)
        if type(self).failures > 0:
            type(self).failures -= 1
            self.send_error(503, "try again")
            return
        super().do_GET()

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture
def origin(tmp_path):
    """(directory, base URL) of a local HTTP server standing in for the canonical sources."""
    root = tmp_path / "origin"
    root.mkdir()
    handler = type("Handler", (_Origin,), {"failures": 0, "requests": []})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02},
                              daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}/", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_network_path_downloads_and_extracts_members(tmp_path, origin):
    root, url, handler = origin
    write_tar(root / "bundle.tgz", {"pkg/data/one.txt": b"one\n", "pkg/four": b"4"})
    write_zip(root / "pkg.whl", {"lib/tests/two.txt": b"two\n"})
    (root / "three.txt").write_bytes(b"three\n")
    files = [
        SourceFile("d/one.txt", url + "bundle.tgz", (sha256(b"one\n"),), member="pkg/data/one.txt"),
        SourceFile("d/two.txt", url + "pkg.whl", (sha256(b"two\n"),), member="lib/tests/two.txt"),
        SourceFile("d/three.txt", url + "three.txt", (sha256(b"three\n"),)),
        SourceFile("d/four", url + "bundle.tgz", (sha256(b"4"),), member="pkg/four"),
    ]
    dest = tmp_path / "raw"
    fetch(files, dest)
    assert [(dest / f.path).read_bytes() for f in files] == [b"one\n", b"two\n", b"three\n", b"4"]
    assert _leftovers(dest) == ["four", "one.txt", "three.txt", "two.txt"]
    # each archive fetched once
    assert handler.requests == ["/bundle.tgz", "/pkg.whl", "/three.txt"]


@pytest.fixture
def waits(monkeypatch) -> list[float]:
    """pooch's pauses between the tries of a transfer, recorded instead of slept."""
    out: list[float] = []
    monkeypatch.setattr(pooch.core, "time", types.SimpleNamespace(sleep=out.append))
    return out


def test_a_failed_transfer_is_tried_again(tmp_path, origin, waits):
    root, url, handler = origin
    (root / "x.txt").write_bytes(b"x\n")
    handler.failures = download.RETRIES  # the last try succeeds
    (placed,) = fetch([SourceFile("d/x.txt", url + "x.txt", (sha256(b"x\n"),))], tmp_path / "raw")
    assert placed.read_bytes() == b"x\n"
    assert handler.requests == ["/x.txt"] * (download.RETRIES + 1)
    assert waits == [1, 2]
    handler.failures = download.RETRIES + 1
    with pytest.raises(DownloadError, match=r"d/y.txt: cannot download .*/y.txt \(503 Server "
                                            r"Error.*\); expected sha256 0{64}, actual: no file"):
        fetch([SourceFile("d/y.txt", url + "y.txt", ("0" * 64,))], tmp_path / "raw")
    assert _leftovers(tmp_path / "raw") == ["x.txt"]


def test_network_errors_name_the_file(tmp_path, origin, waits):
    root, url, _ = origin
    write_tar(root / "bundle.tgz", {"a.txt": b"a"})
    missing_member = SourceFile("d/x.txt", url + "bundle.tgz", ("0" * 64,), member="nope.txt")
    unreachable = SourceFile("d/y.txt", url + "none.txt", ("0" * 64,))
    gopher = SourceFile("d/z.txt", "gopher://127.0.0.1/bundle.tgz", ("0" * 64,))
    for spec, text in ((missing_member, "cannot extract member 'nope.txt'"),
                       (unreachable, "404 Client Error"),
                       (gopher, "only http, https, ftp and file addresses are fetched")):
        with pytest.raises(DownloadError, match="d/[xyz].txt") as info:
            fetch([spec], tmp_path / "raw")
        assert text in str(info.value) and "\n" not in str(info.value)
    assert _leftovers(tmp_path / "raw") == []


def test_downloaded_files_get_ordinary_permissions(tmp_path, origin):
    """pooch's own files are private (mode 600); the placed file has open()'s permissions."""
    root, url, _ = origin
    (root / "x.txt").write_bytes(b"x\n")
    (placed,) = fetch([SourceFile("d/x.txt", url + "x.txt", (sha256(b"x\n"),))], tmp_path / "raw")
    umask = os.umask(0)
    os.umask(umask)
    assert placed.stat().st_mode & 0o777 == 0o666 & ~umask


def test_content_digest_accepts_a_repack_under_another_prefix(tmp_path):
    members = {"raw/1987/0001.txt": b"alpha", "raw/1988/0002.txt": b"beta"}
    staged = write_tar(tmp_path / "m" / "x" / "a.tar.gz", members)
    github = write_tar(
        tmp_path / "gh.tar.gz",
        {"repo-abc/README": b"r", **{f"repo-abc/data/{k}": v for k, v in members.items()}},
    )
    pattern = r"(?:^|/)(raw/\d{4}/[^/]+\.txt)$"
    digest = content_digest(staged, pattern)
    assert digest == content_digest(github, pattern)
    listing = "".join(f"{sha256(v)}  {k}\n" for k, v in sorted(members.items()))
    assert digest == sha256(listing.encode())
    spec = SourceFile("x/a.tar.gz", github.as_uri(), ("1" * 64,), None, (digest,), pattern)
    fetch([spec], tmp_path / "raw")  # sha256 differs, content digest matches
    write_tar(tmp_path / "m2" / "x" / "a.tar.gz", {**members, "raw/1988/0002.txt": b"B"})
    with pytest.raises(DownloadError, match="mismatch"):
        fetch([spec], tmp_path / "raw2", mirror=tmp_path / "m2")


@pytest.mark.parametrize("kind", ["gz", "zip", "tar"])
def test_check_archive_detects_truncation(tmp_path, kind):
    payload = np.random.default_rng(0).bytes(200_000)
    if kind == "gz":
        path = write_gzip(tmp_path / "f.txt.gz", payload)
    elif kind == "zip":
        path = write_zip(tmp_path / "f.zip", {"a": payload})
    else:
        path = write_tar(tmp_path / "f.tar", {"a": payload}, gz=False)
    check_archive(path)
    data = path.read_bytes()
    path.write_bytes(_corrupt_middle(data) if kind == "zip" else data[: len(data) // 2])
    with pytest.raises(ARCHIVE_ERRORS):
        check_archive(path)


def _corrupt_middle(data: bytes) -> bytes:
    flipped = bytearray(data)
    flipped[len(flipped) // 2] ^= 0xFF
    return bytes(flipped)


@pytest.mark.skipif(not SHARED_MIRROR.is_dir(), reason=f"no staged data mirror at {SHARED_MIRROR}")
def test_every_registered_source_verifies_against_the_staged_mirror(tmp_path):
    for name in parse_sources():
        paths = fetch(source_files(name), tmp_path / "raw", mirror=SHARED_MIRROR)
        assert all(p.is_file() for p in paths)
