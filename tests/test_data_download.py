"""Verified fetching: checksum mismatch, truncated archive, missing mirror file, no leftovers."""

from __future__ import annotations

import os

import numpy as np
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


def test_network_path_downloads_and_extracts_members(tmp_path, monkeypatch):
    # file:// URLs exercise the urllib path without a network.
    calls = []
    real = download._download
    monkeypatch.setattr(download, "_download", lambda s, t, o: calls.append(s.url) or real(s, t, o))
    origin = tmp_path / "origin"
    tar = write_tar(origin / "bundle.tgz", {"pkg/data/one.txt": b"one\n", "pkg/four": b"4"})
    whl = write_zip(origin / "pkg.whl", {"lib/tests/two.txt": b"two\n"})
    plain = origin / "three.txt"
    plain.write_bytes(b"three\n")
    files = [
        SourceFile("d/one.txt", tar.as_uri(), (sha256(b"one\n"),), member="pkg/data/one.txt"),
        SourceFile("d/two.txt", whl.as_uri(), (sha256(b"two\n"),), member="lib/tests/two.txt"),
        SourceFile("d/three.txt", plain.as_uri(), (sha256(b"three\n"),)),
        SourceFile("d/four", tar.as_uri(), (sha256(b"4"),), member="pkg/four"),
    ]
    dest = tmp_path / "raw"
    fetch(files, dest)
    assert [(dest / f.path).read_bytes() for f in files] == [b"one\n", b"two\n", b"three\n", b"4"]
    assert _leftovers(dest) == ["four", "one.txt", "three.txt", "two.txt"]
    assert calls == [tar.as_uri(), whl.as_uri(), plain.as_uri()]  # each archive fetched once


def test_network_errors_name_the_file(tmp_path):
    origin = write_tar(tmp_path / "bundle.tgz", {"a.txt": b"a"})
    missing_member = SourceFile("d/x.txt", origin.as_uri(), ("0" * 64,), member="nope.txt")
    unreachable = SourceFile("d/y.txt", (tmp_path / "none.txt").as_uri(), ("0" * 64,))
    for spec, text in ((missing_member, "cannot extract member 'nope.txt'"),
                       (unreachable, "cannot download")):
        with pytest.raises(DownloadError, match="d/[xy].txt") as info:
            fetch([spec], tmp_path / "raw")
        assert text in str(info.value)
    assert _leftovers(tmp_path / "raw") == []


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
