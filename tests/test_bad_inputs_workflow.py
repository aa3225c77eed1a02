"""Bad inputs of the workflow: one exact exception naming the offending config key or file.

Three tables, one row per case:

* ``CONFIG``: a config that violates workflow/schemas/config.schema.yaml (unknown key, number out
  of range, wrong type, a source ``path`` that would leave resources/, a missing required key).
  ``validate`` is the Snakefile's own call; it must raise ``WorkflowError`` whose message names
  the key (``On instance[...]``) and the value.
* ``SOURCE_PATHS``: the same escaping paths given to the Python code that resolves them
  (``parse_sources``: ``ValueError``; ``fetch`` with a ``SourceFile`` built directly, bypassing
  both: ``DownloadError``), and nothing written outside the download directory.
* ``DAMAGED``: a damaged data mirror (flipped bytes, truncation at and off archive member
  boundaries, a missing file, a hostile archive), fetched the way ``rule download_<source>``
  fetches (``fetch(files, dest, mirror=...)``); it must raise ``DownloadError`` naming the file,
  and place nothing.  Rows marked ``own digest`` list the damaged file's own sha256, as if
  someone had registered it: the archive read-to-the-end check must then catch the damage.

``test_hostile_archives_are_inert`` keeps the proof that archives are never unpacked by member
name: ``..``, absolute and link members land nowhere, whichever way the archive is fetched.

Two more tables:

* ``BOMBS``: decompression bombs (a tar member, all of a tar's members, a gzip stream or a zip
  member expanding beyond ``topiceval.data.archives``' limits), fetched from the mirror or the
  network or read by a corpus reader: one line naming the file and the limit, never a
  ``MemoryError``.
* ``STORED``: a raw file damaged after its download verified it (its last 100 lines dropped, a
  byte flipped or appended, an archive member edited or the archive cut), as the rule that reads
  it starts (``topiceval.pipeline.rule_context``): ``DownloadError`` naming the file, and the
  rule's code never runs.  ``test_workflow_refuses_a_raw_file_damaged_after_download`` runs the
  smallest Snakemake target that reads a raw file (AP's ``asis`` corpus) on such a file.
"""

from __future__ import annotations

import copy
import dataclasses
import gzip
import io
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from data_fixtures import NIPS_PAPERS, SHARED_MIRROR, sha256, write_gzip, write_tar, write_zip
from topiceval.data import archives
from topiceval.data.archives import ArchiveTooLarge
from topiceval.data.download import DownloadError, content_digest, fetch
from topiceval.data.readers import read_newsgroups, read_uci_docword
from topiceval.data.readers.nips import read_nips
from topiceval.data.sources import SOURCES, SourceFile, parse_sources
from topiceval.pipeline import rule_context
from workflow_config import (
    MIRROR,
    ROOT,
    SCHEMA,
    SNAKEMAKE,
    load_config,
    needs_mirror,
    snakemake,
)

DELETE = object()
HEX = "0" * 64
needs_staged_mirror = pytest.mark.skipif(
    not SHARED_MIRROR.is_dir(), reason=f"no staged data mirror at {SHARED_MIRROR}"
)


def _on(*path) -> str:
    """How a schema error names a key: ``On instance['a'][0]['b']``."""
    return "On instance" + "".join(f"[{key!r}]" for key in path)


KOS_FILE = ("sources", "kos", "files", 0)
# id, key path, new value (DELETE: remove the key), substrings the message must contain
CONFIG = [
    ("unknown-top-level-key", ("colour",), "red", ["'colour' was unexpected", _on()]),
    ("unknown-corpus-option", ("corpora", "ap", "asis", "shuffle"), True,
     ["'shuffle' was unexpected", _on("corpora", "ap", "asis")]),
    ("unknown-source-file-key", (*KOS_FILE, "mirror_url"), "x",
     ["'mirror_url' was unexpected", _on(*KOS_FILE)]),
    ("max_df-above-1", ("corpora", "ap", "asis", "max_df"), 1.5,
     ["1.5 is greater than the maximum of 1", _on("corpora", "ap", "asis", "max_df")]),
    ("top_k-negative", ("corpora", "ap", "asis", "top_k"), -1,
     ["-1 is less than the minimum of 0", _on("corpora", "ap", "asis", "top_k")]),
    ("topics-zero", ("wallach2009", "topics"), 0,
     ["0 is less than the minimum of 1", _on("wallach2009", "topics")]),
    ("seed-above-uint32", ("wallach2009", "seed"), 2**32,
     ["4294967296 is greater than the maximum", _on("wallach2009", "seed")]),
    ("max_docs-zero", ("max_docs",), 0, ["0 is not valid", _on("max_docs")]),
    ("topics-string", ("bechard2018", "topics"), "4",
     ["'4' is not of type 'array'", _on("bechard2018", "topics")]),
    ("enabled-string", ("wallach2009", "enabled"), "yes",
     ["'yes' is not of type 'boolean'", _on("wallach2009", "enabled")]),
    ("sha256-not-a-list", (*KOS_FILE, "sha256"), HEX,
     ["is not of type 'array'", _on(*KOS_FILE, "sha256")]),
    ("sha256-upper-case", (*KOS_FILE, "sha256"), ["A" * 64],
     ["'" + "A" * 64 + "' does not match", _on(*KOS_FILE, "sha256", 0)]),
    ("url-file-scheme", (*KOS_FILE, "url"), "file:///etc/passwd",
     ["'file:///etc/passwd' does not match", _on(*KOS_FILE, "url")]),
    ("path-dotdot", (*KOS_FILE, "path"), "../escape.gz",
     ["'../escape.gz' does not match", _on(*KOS_FILE, "path")]),
    ("path-dotdot-inside", (*KOS_FILE, "path"), "kos/../../escape.gz",
     ["'kos/../../escape.gz' does not match", _on(*KOS_FILE, "path")]),
    ("path-dotdot-last", (*KOS_FILE, "path"), "kos/..",
     ["'kos/..' does not match", _on(*KOS_FILE, "path")]),
    ("path-absolute", (*KOS_FILE, "path"), "/tmp/escape.gz",
     ["'/tmp/escape.gz' does not match", _on(*KOS_FILE, "path")]),
    ("path-dot-segment", (*KOS_FILE, "path"), "./kos/x.gz",
     ["'./kos/x.gz' does not match", _on(*KOS_FILE, "path")]),
    ("path-empty-segment", (*KOS_FILE, "path"), "kos//x.gz",
     ["'kos//x.gz' does not match", _on(*KOS_FILE, "path")]),
    ("path-backslash", (*KOS_FILE, "path"), "kos\\..\\..\\x.gz",
     [r"'kos\\..\\..\\x.gz' does not match", _on(*KOS_FILE, "path")]),
    ("variant-name-dotdot", ("corpora", "ap", "../x"), {},
     ["'../x' does not match", _on("corpora", "ap")]),
    ("dataset-name-dotdot", ("wallach2009", "datasets", "../x"), {"corpus": "ap/asis"},
     ["'../x' does not match", _on("wallach2009", "datasets")]),
    ("missing-results_dir", ("results_dir",), DELETE,
     ["'results_dir' is a required property", _on()]),
    ("missing-source-url", (*KOS_FILE, "url"), DELETE,
     ["'url' is a required property", _on(*KOS_FILE)]),
    ("missing-paper-block", ("capdevila2018",), DELETE,
     ["'capdevila2018' is a required property", _on()]),
    # issue 33: L2R with S' inner samples is l2r_inner<k>, k >= 2 (S' = 1 is l2r itself)
    ("inner-samples-variant-of-one", ("capdevila2018", "tractable", "methods"), ["l2r_inner1"],
     ["'l2r_inner1' is not valid", _on("capdevila2018", "tractable", "methods", 0)]),
    ("inner-samples-variant-leading-zero", ("capdevila2018", "realistic", "methods"),
     ["ds", "l2r_inner02"],
     ["'l2r_inner02' is not valid", _on("capdevila2018", "realistic", "methods", 1)]),
    ("code-inner-samples-variant-of-one", ("capdevila2018", "tractable", "methods"),
     ["l2r_code_inner1"],
     ["'l2r_code_inner1' is not valid", _on("capdevila2018", "tractable", "methods", 0)]),
    ("f3-convergence-missing", ("capdevila2018", "realistic", "convergence"), DELETE,
     ["'convergence' is a required property", _on("capdevila2018", "realistic")]),
    # the tie margin is the ledger's one rule (topiceval.claims.MARGIN), not a setting
    ("f3-convergence-ties", ("capdevila2018", "realistic", "convergence", "ties"), 2.0,
     ["'ties' was unexpected", _on("capdevila2018", "realistic", "convergence")]),
    ("f3-convergence-gap-share-above-1",
     ("capdevila2018", "realistic", "convergence", "gap_share"), 2,
     ["2 is greater than the maximum of 1",
      _on("capdevila2018", "realistic", "convergence", "gap_share")]),
    ("half-enabled-string", ("capdevila2018", "tractable", "enabled"), "no",
     ["'no' is not of type 'boolean'", _on("capdevila2018", "tractable", "enabled")]),
    ("x1-one-run", ("wallach2009", "x1", "runs"), 1,
     ["1 is less than the minimum of 2", _on("wallach2009", "x1", "runs")]),
    ("x1-ladder-of-hm", ("wallach2009", "x1", "ladders", "hm"), 1000,
     ["'hm' was unexpected", _on("wallach2009", "x1", "ladders")]),
]


@pytest.mark.parametrize(("path", "value", "expected"), [row[1:] for row in CONFIG],
                         ids=[row[0] for row in CONFIG])
def test_config_schema_names_the_key_and_the_value(path, value, expected):
    config = copy.deepcopy(load_config("quick.yaml"))
    node = config
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    with pytest.raises(WorkflowError) as info:
        validate(config, SCHEMA)
    assert info.type is WorkflowError
    message = str(info.value)
    for text in expected:
        assert text in message, (text, message[-1500:])


def test_escaping_source_path_on_the_command_line_stops_snakemake(tmp_path):
    kos = {"files": [{"path": "../../escape.gz", "url": "https://example.invalid/x",
                      "sha256": [HEX]}]}
    result = snakemake("-n", tmp_path=tmp_path, extra_config=[f"sources={{'kos': {kos}}}"])
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "'../../escape.gz' does not match" in output
    assert _on(*KOS_FILE, "path") in output
    assert not (tmp_path / "resources").exists() and not list(tmp_path.parent.glob("escape*"))


# ----------------------------------------------------------------------- the Python side
# "{tmp}": the test's own directory, so that a broken check could not write outside it
ESCAPING = ["../escape.txt", "a/../../escape.txt", "{tmp}/escape.txt", "a/./b.txt", "a//b.txt",
            "a\\..\\b.txt", ".."]


@pytest.mark.parametrize("path", ESCAPING)
def test_parse_sources_refuses_paths_leaving_the_tree(tmp_path, path):
    path = path.format(tmp=tmp_path)
    mapping = copy.deepcopy(SOURCES)
    mapping["kos"]["files"][0]["path"] = path
    with pytest.raises(ValueError) as info:
        parse_sources(mapping)
    assert info.type is ValueError
    assert "source 'kos' file 0" in str(info.value) and f"path {path!r}" in str(info.value)


@pytest.mark.parametrize("path", ESCAPING)
@pytest.mark.parametrize("origin", ["mirror", "network"])
def test_fetch_refuses_paths_leaving_the_tree(tmp_path, path, origin):
    path = path.format(tmp=tmp_path)
    work = tmp_path / "a" / "b"
    mirror = work / "mirror"
    (mirror / "kos").mkdir(parents=True)
    (mirror / "kos" / "x.txt").write_bytes(b"x")
    plain = work / "x.txt"
    plain.write_bytes(b"x")
    spec = SourceFile(path=path, url=plain.as_uri(), sha256=(sha256(b"x"),))
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(DownloadError) as info:
        fetch([spec], work / "raw", mirror=mirror if origin == "mirror" else None)
    assert info.type is DownloadError
    assert f"path {path!r}" in str(info.value)
    assert sorted(tmp_path.rglob("*")) == before  # nothing written anywhere


# ------------------------------------------------------------------------- damaged mirror
def _tar_boundaries(data: bytes) -> list[int]:
    """Offsets at which each member of an uncompressed tar ends (its data padded to 512)."""
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return [m.offset_data + -(-m.size // 512) * 512 for m in archive.getmembers()]


def _place(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _own(spec: SourceFile, path: Path) -> SourceFile:
    """``spec`` listing the (damaged) file's own sha256, so that only the archive check is left."""
    return dataclasses.replace(spec, sha256=(sha256(path.read_bytes()),), content_sha256=())


def _fixture_tar(tmp: Path, cut=None, gz_split=False) -> list[SourceFile]:
    """nips-wallach/nips-raw.tar.gz built from NIPS_PAPERS, uncompressed (named .tar) or, with
    ``gz_split``, as two gzip members meeting at the first tar member boundary."""
    rel = "nips-wallach/nips-raw.tar.gz" if gz_split else "nips-wallach/nips-raw.tar"
    data = write_tar(tmp / "build.tar", NIPS_PAPERS, gz=False).read_bytes()
    first = _tar_boundaries(data)[0]
    if gz_split:  # a valid gzip file, whose tar lacks its end-of-archive block
        head = gzip.compress(data[:first], mtime=0)
        data, cut = head + gzip.compress(data[first:], mtime=0), len(head)
    path = _place(tmp / "mirror" / rel, data[: cut(first) if callable(cut) else cut])
    return [_own(SourceFile(rel, "https://example.invalid/n.tar", (HEX,)), path)]


def _real_damaged(rel: str, damage, own: bool = False):
    def build(tmp: Path) -> list[SourceFile]:
        path = _place(tmp / "mirror" / rel, damage((SHARED_MIRROR / rel).read_bytes(), rel))
        spec = _registered(rel)
        return [_own(spec, path) if own else spec]
    return build


def _half(data: bytes, rel: str) -> bytes:
    return data[: len(data) // 2]


def _flip(data: bytes, rel: str) -> bytes:
    out = bytearray(data)
    out[len(out) // 2] ^= 0xFF
    return bytes(out)


def _zip_member(index: int, delta: int = 0, flip: bool = False):
    """Cut a zip at the start of member ``index`` (+ ``delta``), or flip a byte of its data."""
    def damage(data: bytes, rel: str) -> bytes:
        info = zipfile.ZipFile(io.BytesIO(data)).infolist()[index]
        start = info.header_offset
        if not flip:
            return data[: start + delta]
        at = start + 30 + len(info.filename.encode()) + len(info.extra) + info.compress_size // 2
        return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]
    return damage


def _hostile_tar(path: Path, escape_dir: Path) -> Path:
    """A tar.gz whose members try to escape: ``..``, an absolute name, symbolic and hard links
    out of the tree, a file through a linked directory; and one ordinary paper."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as archive:
        def add(name, data=b"escaped\n", kind=tarfile.REGTYPE, link=""):
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, link
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            archive.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
        add("../../escape-dotdot.txt")
        add(f"{escape_dir}/escape-abs.txt")
        add("raw/1987/link.txt", kind=tarfile.SYMTYPE, link="/etc/passwd")
        add("raw/1987/hard.txt", kind=tarfile.LNKTYPE, link="/etc/passwd")
        add("linkdir", kind=tarfile.SYMTYPE, link=str(escape_dir))
        add("linkdir/escape-through-link.txt")
        add("raw/1987/0001.txt", b"An ordinary paper.\n")
    return path


def _hostile_zip(path: Path, escape_dir: Path) -> Path:
    return write_zip(path, {"../../escape-dotdot.txt": b"escaped\n",
                            f"{escape_dir}/escape-abs.txt": b"escaped\n",
                            "stopwords/english": b"the\n"})


def _hostile_in_mirror(kind: str):
    rel = {"tar": "nips-wallach/nips-raw.tar.gz", "zip": "nltk_data/corpora/stopwords.zip"}[kind]

    def build(tmp: Path) -> list[SourceFile]:
        (_hostile_tar if kind == "tar" else _hostile_zip)(tmp / "mirror" / rel, tmp / "outside")
        return [_registered(rel)]
    return build


def _missing(rels: list[str], present: tuple[str, ...] = ()):
    def build(tmp: Path) -> list[SourceFile]:
        (tmp / "mirror").mkdir(exist_ok=True)
        for rel in present:
            _place(tmp / "mirror" / rel, (SHARED_MIRROR / rel).read_bytes())
        return [_registered(rel) for rel in rels]
    return build


def _registered(rel: str) -> SourceFile:
    return next(f for files in parse_sources().values() for f in files if f.path == rel)


KOS, AP, STOP = "kos/docword.kos.txt.gz", "ap/ap.dat", "nltk_data/corpora/stopwords.zip"
NIPS, NEWS = "nips-wallach/nips-raw.tar.gz", "20newsgroups/20news-bydate.tar.gz"
TAR = "nips-wallach/nips-raw.tar"
MISMATCH, CORRUPT, MISSING = "sha256 mismatch", "truncated or corrupt", "missing from mirror"
# id, builder (writes tmp/mirror, returns the files to fetch), file named, problem named
DAMAGED = [
    pytest.param(_real_damaged(KOS, _flip), KOS, MISMATCH, id="gz-flipped-byte",
                 marks=needs_staged_mirror),
    pytest.param(_real_damaged(KOS, _flip, own=True), KOS, CORRUPT,
                 id="gz-flipped-byte-own-digest", marks=needs_staged_mirror),
    pytest.param(_real_damaged(KOS, _half, own=True), KOS, CORRUPT,
                 id="gz-truncated-own-digest", marks=needs_staged_mirror),
    pytest.param(_real_damaged(AP, _flip), AP, MISMATCH, id="plain-flipped-byte",
                 marks=needs_staged_mirror),
    pytest.param(_real_damaged(AP, _half), AP, MISMATCH, id="plain-truncated",
                 marks=needs_staged_mirror),
    pytest.param(_real_damaged(NEWS, _half), NEWS, MISMATCH, id="tar.gz-truncated",
                 marks=needs_staged_mirror),
    # nips lists a content digest too: the truncated archive cannot even be listed
    pytest.param(_real_damaged(NIPS, _half), NIPS, CORRUPT, id="tar.gz-content-digest-truncated",
                 marks=needs_staged_mirror),
    pytest.param(_real_damaged(STOP, _zip_member(5), own=True), STOP, CORRUPT,
                 id="zip-cut-at-member-boundary-own-digest", marks=needs_staged_mirror),
    pytest.param(_real_damaged(STOP, _zip_member(5, delta=17), own=True), STOP, CORRUPT,
                 id="zip-cut-inside-member-header-own-digest", marks=needs_staged_mirror),
    pytest.param(_real_damaged(STOP, _zip_member(5, flip=True), own=True), STOP, CORRUPT,
                 id="zip-flipped-member-data-own-digest", marks=needs_staged_mirror),
    pytest.param(_real_damaged(STOP, _zip_member(5)), STOP, MISMATCH,
                 id="zip-cut-at-member-boundary", marks=needs_staged_mirror),
    pytest.param(lambda tmp: _fixture_tar(tmp, cut=lambda first: first), TAR, CORRUPT,
                 id="tar-cut-at-member-boundary-own-digest"),
    pytest.param(lambda tmp: _fixture_tar(tmp, cut=lambda first: first + 100), TAR, CORRUPT,
                 id="tar-cut-inside-member-header-own-digest"),
    pytest.param(lambda tmp: _fixture_tar(tmp, cut=lambda first: first + 520), TAR, CORRUPT,
                 id="tar-cut-inside-member-data-own-digest"),
    pytest.param(lambda tmp: _fixture_tar(tmp, gz_split=True), NIPS, CORRUPT,
                 id="tar.gz-cut-at-gzip-and-tar-member-boundary-own-digest"),
    pytest.param(_missing([KOS]), KOS, MISSING, id="missing-file"),
    pytest.param(_missing([AP, "ap/vocab.txt"], present=(AP,)), "ap/vocab.txt", MISSING,
                 id="missing-second-file-of-a-source", marks=needs_staged_mirror),
    pytest.param(_hostile_in_mirror("tar"), NIPS, MISMATCH, id="hostile-tar"),
    pytest.param(_hostile_in_mirror("zip"), STOP, MISMATCH, id="hostile-zip"),
]


@pytest.mark.parametrize(("build", "named", "problem"), DAMAGED)
def test_damaged_mirror_names_the_file_and_places_nothing(tmp_path, build, named, problem):
    files = build(tmp_path)
    dest = tmp_path / "raw"
    with pytest.raises(DownloadError) as info:
        fetch(files, dest, mirror=tmp_path / "mirror")
    assert info.type is DownloadError
    message = str(info.value)
    assert message.startswith(f"{named}: ") and problem in message, message
    assert not [p for p in dest.rglob("*") if p.is_file()]
    assert not (tmp_path / "outside").exists()


# ---------------------------------------------------------------- hostile archives are inert
def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("kind", ["tar", "zip"])
@pytest.mark.parametrize("origin", ["mirror", "network"])
def test_hostile_archives_are_inert(tmp_path, kind, origin):
    """A hostile archive whose digest is (wrongly) accepted is fetched as bytes and its members
    are read only in memory: nothing lands outside the download directory, and a link member
    asked for by name is refused naming the file and the member."""
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "deep" / "er"
    build = _hostile_tar if kind == "tar" else _hostile_zip
    archive = build(work / "origin" / f"bundle.{'tar.gz' if kind == 'tar' else 'zip'}", outside)
    digest = sha256(archive.read_bytes())
    escaping = SourceFile("d/escape.txt", archive.as_uri(), (sha256(b"escaped\n"),),
                          member="../../escape-dotdot.txt")
    if origin == "mirror":
        shutil.copytree(work / "origin", work / "mirror" / "d")
        files = [SourceFile(f"d/{archive.name}", "https://example.invalid/a", (digest,))]
    else:
        files = [escaping]
    before = _tree(tmp_path)
    placed = fetch(files, work / "raw", mirror=work / "mirror" if origin == "mirror" else None)
    assert _tree(tmp_path) - before == {"deep/er/raw", "deep/er/raw/d",
                                       str(placed[0].relative_to(tmp_path))}
    assert _tree(outside) == set()
    if kind == "tar":
        corpus = read_nips(archive)  # links and escaping names are skipped, not followed
        assert [doc.name for doc in corpus.docs] == ["1987/0001"]
        link = dataclasses.replace(escaping, path="d/link.txt", member="raw/1987/link.txt")
        with pytest.raises(DownloadError) as info:
            fetch([link], work / "raw2")
        assert info.type is DownloadError
        assert str(info.value).startswith("d/link.txt: cannot extract member 'raw/1987/link.txt'")
        assert not (work / "raw2").exists() or not _tree(work / "raw2") - {"d"}


# ------------------------------------------------------------------------ decompression bombs
# Rows are read with the limits lowered to 1 MiB per member and 4 MiB per archive (so that a
# real bomb, zeros that do expand, stays small), or with the shipped limits where marked.
SMALL = {"MAX_MEMBER_BYTES": 2**20, "MAX_EXPANDED_BYTES": 4 * 2**20}
SHIPPED = {}
MEMBER_OVER, TOTAL_OVER = "expands to more than 1,048,576 bytes", "more than 4,194,304 bytes"


def _zeros_tar(members: dict[str, int]):
    return lambda path: write_tar(path, {name: bytes(size) for name, size in members.items()})


def _stated_tar(name: str, size: int):
    """A tar.gz whose one member's header states ``size`` bytes (its data is not there)."""
    def build(path: Path) -> Path:
        info = tarfile.TarInfo(name)
        info.size = size
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(info.tobuf(format=tarfile.GNU_FORMAT) + bytes(2048)))
        return path
    return build


def _zeros_gzip(size: int):
    return lambda path: write_gzip(path, bytes(size))


def _zeros_zip(name: str, size: int):
    return lambda path: write_zip(path, {name: bytes(size)})


def _bomb_in_mirror(rel: str, build, own: bool = False):
    """Fetched from the mirror, as ``rule download_<source>`` fetches."""
    def case(tmp: Path):
        path = build(tmp / "mirror" / rel)
        spec = _own(_registered(rel), path) if own else _registered(rel)
        return lambda: fetch([spec], tmp / "raw", mirror=tmp / "mirror"), rel
    return case


def _bomb_on_the_network(member: str, build, suffix: str):
    """A member of an archive downloaded from its URL (``SourceFile.member``)."""
    def case(tmp: Path):
        archive = build(tmp / "origin" / f"bundle{suffix}")
        spec = SourceFile("d/member.txt", archive.as_uri(), (HEX,), member=member)
        return lambda: fetch([spec], tmp / "raw"), "d/member.txt"
    return case


def _bomb_read(reader, build, name: str):
    """Read by a corpus reader, as ``build_corpus`` reads a raw file."""
    def case(tmp: Path):
        path = build(tmp / "raw" / name)
        return lambda: reader(path), str(path)
    return case


# id, case builder (tmp -> (the read, the file it must name)), limits, exception, problem
BOMBS = [
    pytest.param(_bomb_in_mirror(NIPS, _zeros_tar({"x/raw/1987/bomb.txt": 2 * 2**20})), SMALL,
                 DownloadError, MEMBER_OVER, id="tar.gz-member-content-digest"),
    pytest.param(_bomb_in_mirror(NIPS, _zeros_tar({f"x/raw/1987/{i}.txt": 2**20 - 1
                                                   for i in range(5)})), SMALL,
                 DownloadError, TOTAL_OVER, id="tar.gz-total-content-digest"),
    pytest.param(_bomb_in_mirror(NIPS, _stated_tar("x/raw/1987/bomb.txt", 4 * 2**30)),
                 SHIPPED, DownloadError, "expands to more than 268,435,456 bytes",
                 id="tar.gz-member-states-4-GiB-shipped-limits"),
    pytest.param(_bomb_in_mirror(NEWS, _stated_tar("x/20news-bydate-train/a/1", 4 * 2**30)),
                 SHIPPED, DownloadError, MISMATCH, id="tar.gz-no-content-digest-not-opened"),
    pytest.param(_bomb_in_mirror(NEWS, _zeros_tar({"20news-bydate-train/a/1": 2 * 2**20}),
                                 own=True), SMALL, DownloadError, MEMBER_OVER,
                 id="tar.gz-member-own-digest"),
    pytest.param(_bomb_in_mirror(KOS, _zeros_gzip(5 * 2**20), own=True), SMALL, DownloadError,
                 "the gzip stream expands to more than 4,194,304", id="gz-own-digest"),
    pytest.param(_bomb_in_mirror(STOP, _zeros_zip("stopwords/english", 2 * 2**20), own=True),
                 SMALL, DownloadError, MEMBER_OVER, id="zip-member-own-digest"),
    pytest.param(_bomb_on_the_network("m.txt", _zeros_tar({"m.txt": 2 * 2**20}), ".tar.gz"),
                 SMALL, DownloadError, MEMBER_OVER, id="network-tar-member"),
    pytest.param(_bomb_on_the_network("m.txt", _zeros_zip("m.txt", 2 * 2**20), ".zip"),
                 SMALL, DownloadError, MEMBER_OVER, id="network-zip-member"),
    pytest.param(_bomb_read(read_nips, _zeros_tar({"raw/1987/bomb.txt": 2 * 2**20}),
                            "nips-raw.tar.gz"), SMALL, ArchiveTooLarge, MEMBER_OVER,
                 id="read_nips-member"),
    pytest.param(_bomb_read(read_newsgroups, _zeros_tar({f"20news-bydate-train/a/{i}": 2**20
                                                         for i in range(5)}), "20news.tar.gz"),
                 SMALL, ArchiveTooLarge, TOTAL_OVER, id="read_newsgroups-total"),
    pytest.param(_bomb_read(lambda p: read_uci_docword(p, "kos"), _zeros_gzip(5 * 2**20),
                            "docword.kos.txt.gz"), SMALL, ArchiveTooLarge,
                 "the gzip stream expands to more than 4,194,304", id="read_uci_docword-gz"),
]


@pytest.mark.parametrize(("case", "limits", "error", "problem"), BOMBS)
def test_decompression_bomb_is_refused_naming_the_file(tmp_path, monkeypatch, case, limits,
                                                       error, problem):
    for name, value in limits.items():
        monkeypatch.setattr(archives, name, value)
    read, named = case(tmp_path)
    with pytest.raises(error) as info:
        read()
    assert info.type is error
    message = str(info.value)
    assert message.startswith(f"{named}: ") and problem in message, message
    assert "\n" not in message
    assert not (tmp_path / "raw").exists() or not [
        p for p in (tmp_path / "raw").rglob("*") if p.is_file() and p.name != Path(named).name]


# ------------------------------------------------------------- raw files damaged after download
def _last_lines_dropped(data: bytes, rel: str, lines: int = 100) -> bytes:
    return b"".join(data.splitlines(keepends=True)[:-lines])


def _stored(rel: str, damage):
    """``rel`` as its download rule left it under resources/raw, then damaged there."""
    def build(tmp: Path) -> tuple[dict, Path]:
        path = _place(tmp / "resources" / "raw" / rel, damage((SHARED_MIRROR / rel).read_bytes(),
                                                              rel))
        return load_config()["sources"], path
    return build


def _stored_fixture_nips(damage):
    """A NIPS tarball listed by its content digest only (as GitHub's tarball is), built from
    NIPS_PAPERS, as its download rule left it, then damaged."""
    def build(tmp: Path) -> tuple[dict, Path]:
        archive = write_tar(tmp / "build" / "nips.tar.gz", NIPS_PAPERS)
        pattern = _registered(NIPS).content_pattern
        sources = load_config()["sources"]
        sources["nips"] = {"files": [{
            "path": NIPS, "url": "https://example.invalid/n.tar.gz", "content_pattern": pattern,
            "content_sha256": [content_digest(archive, pattern)]}]}
        path = _place(tmp / "resources" / "raw" / NIPS, damage(archive.read_bytes(), NIPS))
        return sources, path
    return build


def _member_edited(data: bytes, rel: str) -> bytes:
    """The archive rebuilt with one paper's text changed."""
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        members = {m.name: archive.extractfile(m).read() for m in archive if m.isfile()}
    first = next(iter(members))
    members[first] = members[first].replace(b" ", b"  ", 1)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


CHANGED = "sha256 mismatch: the file changed after it was downloaded and verified"
# id, builder (tmp -> (config sources, the damaged file under resources/raw)), problem named
STORED = [
    pytest.param(_stored(AP, _last_lines_dropped), CHANGED, id="plain-last-100-lines-dropped",
                 marks=needs_staged_mirror),
    pytest.param(_stored("sttm-shorttext/Tweet.txt", _flip), CHANGED, id="plain-flipped-byte",
                 marks=needs_staged_mirror),
    pytest.param(_stored(KOS, _half), CHANGED, id="gz-truncated", marks=needs_staged_mirror),
    pytest.param(_stored(NEWS, lambda data, rel: data + b"\0"), CHANGED,
                 id="tar.gz-byte-appended", marks=needs_staged_mirror),
    pytest.param(_stored_fixture_nips(_member_edited), CHANGED,
                 id="tar.gz-content-digest-member-edited"),
    pytest.param(_stored_fixture_nips(_half), "damaged archive",
                 id="tar.gz-content-digest-truncated"),
]


class _Job:
    """The parts of a rule script's ``snakemake`` object that rule_context reads."""

    def __init__(self, tmp: Path, sources: dict, inputs: list[Path]) -> None:
        self.config = {"sources": sources, "resources_dir": str(tmp / "resources")}
        self.input, self.output, self.log = [str(p) for p in inputs], {}, []
        self.threads, self.rule = 1, "corpus"


@pytest.mark.parametrize(("build", "problem"), STORED)
def test_raw_file_damaged_after_download_stops_the_rule(tmp_path, build, problem):
    sources, path = build(tmp_path)
    other = _place(tmp_path / "elsewhere" / "x.txt", b"not a raw file\n")
    ran = []
    with pytest.raises(DownloadError) as info, rule_context(_Job(tmp_path, sources,
                                                                 [other, path])):
        ran.append(True)
    assert info.type is DownloadError and not ran
    message = str(info.value)
    assert message.startswith(f"{path}: {problem}"), message
    assert "delete it and fetch it again" in message and "\n" not in message


@needs_staged_mirror
def test_raw_files_as_downloaded_are_read(tmp_path):
    rels = [AP, "ap/vocab.txt", NEWS]
    paths = [_place(tmp_path / "resources" / "raw" / rel, (SHARED_MIRROR / rel).read_bytes())
             for rel in rels]
    with rule_context(_Job(tmp_path, load_config()["sources"], paths)) as job:
        assert job.input == [str(p) for p in paths]


@needs_mirror
@pytest.mark.slow
@pytest.mark.workflow
def test_workflow_refuses_a_raw_file_damaged_after_download(tmp_path):
    """The smallest target that reads a raw file (AP's as-is corpus), with ap.dat as its
    download rule left it but its last 100 lines since dropped."""
    for rel, damage in ((AP, _last_lines_dropped), ("ap/vocab.txt", lambda data, rel: data)):
        _place(tmp_path / "resources" / "raw" / rel, damage((MIRROR / rel).read_bytes(), rel))
    target = tmp_path / "results" / "corpora" / "ap" / "asis.npz"
    result = snakemake(str(target), tmp_path=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    damaged = tmp_path / "resources" / "raw" / AP
    assert f"DownloadError: {damaged}: {CHANGED}" in output, output[-3000:]
    assert not target.exists()


@pytest.mark.slow
def test_missing_configfile_is_snakemakes_own_traceback_naming_the_file():
    """Snakemake reads --configfile before the Snakefile, so topiceval cannot shorten its
    message; the troubleshooting note of the page "Run the workflow" quotes its last line and
    sends the user to ``topiceval check-config`` (tests/test_messages.py)."""
    result = subprocess.run([*SNAKEMAKE, "-n", "--cores", "1", "--configfile", "config/quik.yaml"],
                            cwd=ROOT, capture_output=True, text=True)
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode != 0
    assert lines[-1] == "FileNotFoundError: [Errno 2] No such file or directory: 'config/quik.yaml'"
    page = (ROOT / "docs" / "workflow.md").read_text()
    assert "No such file or directory: 'config/quik.yaml'" in page
    assert "topiceval check-config config/quik.yaml" in page
