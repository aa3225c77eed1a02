"""Output files: ordinary permissions (0o666 & ~umask), and no temporaries outliving their job.

Every writer of the API goes through ``topiceval.io.atomic_path`` (or, for downloads, its own
staging beside the target); its outputs must be readable by the group and others under umask
022, and not under umask 077, and a file it replaces keeps its own mode (600 stays 600).  A
killed writer leaves no visible target, and its ``.part`` temporary is removed when the target is
next written.  All of this holds for every name the file system accepts, up to 255 bytes, though
``.<name>.<token>.part`` would be too long for such a name.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from topiceval.corpus import Corpus
from topiceval.data.download import fetch
from topiceval.data.sources import SourceFile
from topiceval.io import (
    atomic_path,
    remove_stale_temporaries,
    temporary_pattern,
    write_csv_atomic,
    write_text_atomic,
)
from topiceval.models import LDAModel, save_model
from topiceval.plots.save import save_figure

GROUP_OTHER_READ = stat.S_IRGRP | stat.S_IROTH


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """Run the block under ``mask``; the previous umask is restored after."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


# ------------------------------------------------------------------------------ writers
def _model(path: Path) -> Path:
    save_model(path, LDAModel(np.array([[0.5, 0.5]]), [0.1], vocab=["a", "b"]))
    return path


def _corpus(path: Path) -> Path:
    Corpus.from_documents([[0, 1]], ["a", "b"]).save(path)
    return path


def _csv(path: Path) -> Path:
    write_csv_atomic(path, pd.DataFrame({"x": [1, 2]}))
    return path


def _text(path: Path) -> Path:
    write_text_atomic(path, "caption\n")
    return path


def _figure(path: Path) -> Path:
    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])
    save_figure(fig, path.with_suffix(".svg"))
    return path.with_suffix(".svg")


def _download(path: Path) -> Path:
    mirror = path.parent / "mirror"
    mirror.mkdir(parents=True)
    (mirror / path.name).write_bytes(b"raw data\n")
    digest = hashlib.sha256(b"raw data\n").hexdigest()
    spec = SourceFile(path=path.name, url="https://example.invalid/raw.txt", sha256=(digest,))
    (placed,) = fetch([spec], path.parent / "raw", mirror=mirror)
    return placed


WRITERS: dict[str, Callable[[Path], Path]] = {
    "save_model": _model, "Corpus.save": _corpus, "write_csv_atomic": _csv,
    "write_text_atomic": _text, "save_figure": _figure, "fetch": _download,
}


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002], ids=["022", "077", "002"])
@pytest.mark.parametrize("writer", list(WRITERS))
def test_outputs_get_ordinary_permissions(tmp_path, writer, mask):
    with umask(mask):
        path = WRITERS[writer](tmp_path / "out" / "file.npz")
    mode = stat.S_IMODE(path.stat().st_mode)
    assert mode == 0o666 & ~mask, oct(mode)
    readable = mode & GROUP_OTHER_READ == GROUP_OTHER_READ
    assert readable == (mask != 0o077)
    assert not list(tmp_path.rglob("*.part"))


# fetch never rewrites a file: a valid one is kept as it is, a damaged one removed first
REWRITERS = [writer for writer in WRITERS if writer != "fetch"]


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o660, 0o644], ids=oct)
@pytest.mark.parametrize("writer", REWRITERS)
def test_a_replaced_output_keeps_its_mode(tmp_path, writer, mode):
    with umask(0o022):
        path = WRITERS[writer](tmp_path / "out" / "file.npz")
        path.chmod(mode)
        before = path.stat().st_ino
        assert WRITERS[writer](tmp_path / "out" / "file.npz") == path
    assert path.stat().st_ino != before  # replaced, not rewritten in place
    assert stat.S_IMODE(path.stat().st_mode) == mode, oct(path.stat().st_mode)
    assert not list(tmp_path.rglob("*.part"))


def test_a_replaced_output_keeps_no_set_id_bit(tmp_path):
    path = _text(tmp_path / "caption.md")
    path.chmod(0o4750)
    _text(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o750


# names up to the file system's limit (255 bytes here), in ASCII and in two-byte UTF-8
LONG_NAMES = {f"{n}-bytes": "x" * (n - 4) + ".npz" for n in (236, 237, 240, 250, 255)}
LONG_NAMES["254-bytes-utf8"] = "é" * 125 + ".npz"


@pytest.mark.parametrize("name", list(LONG_NAMES))
@pytest.mark.parametrize("writer", list(WRITERS))
def test_long_names_are_written(tmp_path, writer, name):
    target = tmp_path / "out" / LONG_NAMES[name]
    with umask(0o022):
        path = WRITERS[writer](target)
    assert path.name == target.with_suffix(path.suffix).name and path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert not list(tmp_path.rglob("*.part"))


def test_umask_is_restored_by_the_writers(tmp_path):
    with umask(0o027):
        _model(tmp_path / "m.npz")
        _download(tmp_path / "d")
        assert os.umask(0o027) == 0o027


# ------------------------------------------------------------------------------ leftovers
def _parts(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".part"))


def test_stale_temporaries_are_removed_when_the_target_is_written(tmp_path):
    target = tmp_path / "figures" / "f1.pdf"
    target.parent.mkdir()
    stale = [".f1.pdf.abc123xy.part", ".f1.pdf.0123456789ab.part", ".f1.pdf.k_9z.part"]
    others = [".f1.pdf.png.abc123xy.part", ".f1.abc123xy.part", ".f1.pdf.part",
              "f1.pdf.abc123xy.part", ".x.f1.pdf.abc123xy.part"]
    for name in stale + others:
        (target.parent / name).write_bytes(b"half a figure")
    fig = Figure()
    fig.add_subplot().plot([0, 1])
    save_figure(fig, target)
    assert target.read_bytes().startswith(b"%PDF")
    assert _parts(target.parent) == sorted(others)  # other targets' temporaries are kept


LONG = "y" * 240 + ".csv"
LONG_DIGEST = hashlib.sha256(LONG.encode()).hexdigest()[:32]


@pytest.mark.parametrize(
    ("name", "temporary", "matches"),
    [
        ("a", ".a.abc123.part", True),
        ("a", ".a.b.abc123.part", False),
        ("a.b", ".a.abc123.part", False),
        ("a.b", ".a.b.abc123.part", True),
        ("a.part", ".a.part.abc123.part", True),
        ("a", ".a.part.abc123.part", False),
        ("a+b[1].csv", ".a+b[1].csv.Zq_1.part", True),
        ("a", "..a.abc123.part", False),
        # a name too long for ".<name>.<token>.part": ".<prefix>.<digest>-<token>.part"
        (LONG, f".{LONG[:203]}.{LONG_DIGEST}-abc123.part", True),
        (LONG, f".{LONG[:203]}.{LONG_DIGEST}-abc.123.part", False),
        (LONG, f".{LONG[:203]}.{LONG_DIGEST}.abc123.part", False),
        (LONG + "x", f".{LONG[:203]}.{LONG_DIGEST}-abc123.part", False),
        (LONG[:203], f".{LONG[:203]}.{LONG_DIGEST}-abc123.part", False),
        (f"{LONG[:203]}.{LONG_DIGEST}", f".{LONG[:203]}.{LONG_DIGEST}-abc123.part", False),
        (LONG[:203], f".{LONG[:203]}.abc123.part", True),
        (LONG, f".{LONG}.abc123.part", False),
    ],
)
def test_temporary_pattern_is_unambiguous(name, temporary, matches):
    assert bool(temporary_pattern(Path("d") / name).fullmatch(temporary)) == matches


WRITER = """
import sys
from topiceval.io import atomic_path
with atomic_path(sys.argv[1]) as tmp:
    with open(tmp, "w") as handle:
        handle.write("the first half of the ")
        handle.flush()
        print(tmp, flush=True)
        sys.stdin.read()  # until the test kills this writer: no clock involved
        handle.write("file")
"""


def _start_writer(target: Path) -> tuple[subprocess.Popen, Path]:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    assert line, "the writer did not start"
    return proc, Path(line)


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdin.close()
    proc.stdout.close()


@pytest.mark.parametrize("name", ["table.csv", "t" * 251 + ".csv"], ids=["short", "255-bytes"])
@pytest.mark.parametrize("existing", [None, "the previous version\n"], ids=["new", "replace"])
def test_killed_writer_leaves_no_visible_target(tmp_path, existing, name):
    target = tmp_path / "results" / name
    if existing is not None:
        target.parent.mkdir()
        target.write_text(existing)
    proc, tmp = _start_writer(target)
    try:
        assert tmp.parent == target.parent and tmp.is_file()
        assert remove_stale_temporaries(target) == []  # a live writer's temporary is kept
        assert tmp.is_file()
    finally:
        _kill(proc)
    assert proc.returncode == -signal.SIGKILL
    assert (target.read_text() if target.exists() else None) == existing
    assert _parts(target.parent) == [tmp.name]  # what a kill leaves behind...
    write_text_atomic(target, "complete\n")  # ...goes when the job is run again
    assert target.read_text() == "complete\n"
    assert _parts(target.parent) == []


def test_concurrent_writer_of_the_same_target_is_not_disturbed(tmp_path):
    target = tmp_path / "model.npz"
    proc, tmp = _start_writer(target)
    try:
        _model(target)  # another writer of the same target, meanwhile
        assert tmp.is_file()
    finally:
        _kill(proc)
    _model(target)
    assert _parts(tmp_path) == []


def test_failed_block_leaves_nothing(tmp_path):
    target = tmp_path / "x.csv"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("partial")
        raise RuntimeError("writer failed")
    assert not target.exists() and _parts(tmp_path) == []


def test_a_device_or_pipe_target_is_written_in_place_not_replaced(tmp_path):
    """``--out /dev/null`` must not turn /dev/null into a regular file: a target that is not a
    regular file is written in place (shown here on a named pipe, which is safe to test)."""
    import threading

    from topiceval.io import write_text_atomic

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    write_text_atomic(fifo, "through the pipe")
    # a correct write has closed the pipe, so the reader is done once it is scheduled; the
    # generous bound only keeps a broken write (one that replaced the pipe, leaving the reader
    # waiting for a writer forever) from hanging the test
    reader.join(timeout=600)
    assert received == ["through the pipe"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
