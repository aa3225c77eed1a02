"""The source registry: where every raw corpus file comes from and which checksums it may have.

``SOURCES`` is plain data (the same mapping the workflow config carries under ``sources:``):
one entry per dataset, each a list of files.  A file entry has

* ``path``: its path relative to a data mirror (a local copy of the raw files) and to the
  download directory, which share this layout;
* ``url``: its canonical address; with ``member`` the URL is an archive (tar or zip) and the file
  is that member of it (Reuters-21578, AP and the ``lda`` Reuters set are single files inside a
  canonical archive);
* ``sha256``: the accepted digests of the stored file (more than one where the staged copy
  differs from the canonical one, as for 20 Newsgroups);
* optionally ``content_sha256`` with ``content_pattern``: accepted digests of an archive's
  *content*, for archives whose bytes are not stable (GitHub's generated tarballs).  The content
  digest is the sha256 of a ``SHA256SUMS``-style listing (``<sha256>  <name>\\n``, sorted by name)
  of the archive members whose path matches ``content_pattern``, ``<name>`` being the pattern's
  first group; see ``topiceval.data.download.content_digest``.

``parse_sources`` turns such a mapping (from config or from ``SOURCES``) into validated
``SourceFile`` records; ``sources_yaml`` prints the registry for ``config/*.yaml``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

_HEX64 = re.compile(r"[0-9a-f]{64}")

_REUTERS_URL = "https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.tar.gz"
_REUTERS_SHA256 = {
    "reut2-000.sgm": "0ec53cda8f6d605a3ba710df14be7f00fc02f0c222a14748101df22326afe0f6",
    "reut2-001.sgm": "1528e7e82d110d88d0234eb9619eadb7f9fd805711971df05975b92277dfdf4d",
    "reut2-002.sgm": "99f18068d0518952987dedd78c622e5c2a584e357d264d3754696c815f3e6628",
    "reut2-003.sgm": "78a3a8d7e04bc9d42c4614d5d5c60a4293dbe3f708df6fb5a71d9ef31f4b3fa3",
    "reut2-004.sgm": "726342c19a65873330b412378cd6a3f0d512035f5223146ddd60930c62eb6ff0",
    "reut2-005.sgm": "d09de619b6dd2d047d5124681f6df90550abaf592020d1c1ce338ae9b91522e7",
    "reut2-006.sgm": "b5535c0d66b01f4976f84621a4a795afbc00d2c4bd0a1b7ae426df6630fb361d",
    "reut2-007.sgm": "aa706007ec84a03537a3921ca976d60e11b3f99e4b9e9b2d5c81dd384d2c2062",
    "reut2-008.sgm": "a3994583694a00b7c744097c1d7eabfcf90f2e6650cc21663e46828035a336cb",
    "reut2-009.sgm": "29995f606dd1a9bdf907eacc9d879846c716860d9d9141676979474aaea39c7d",
    "reut2-010.sgm": "996df6008089bd09fa5b28a4d2eb0ee5f7b9d4601cde566fed3926ac82960fa3",
    "reut2-011.sgm": "d3a2782015247d9c2bffb8926267827fdd449c70d619435ef01a25a1c56a53ca",
    "reut2-012.sgm": "da31035d483851f2aebce5b66d779e5e2c0ac9dcfe098596c6d544e81c5604ab",
    "reut2-013.sgm": "8f7700bc0455fac3fcc12377ced4807b7df8aba1f21ecad059b9cc2b1cf0b8be",
    "reut2-014.sgm": "ef936bd3e0f36cf722afa9a6957563549775af32e9e28b4f539c8737ceda83ab",
    "reut2-015.sgm": "6d3bcec73eff871b8a5403588af814c4e50a0de6bc25707480522ab836f74026",
    "reut2-016.sgm": "be2f03a185fff70131f3b4fdbd6229b7ee2be077eba9691eaa597c8cfbda8812",
    "reut2-017.sgm": "f370e610b4b1342e41a98e0c426a08541044bd1d7e539674f32372a6060b73b5",
    "reut2-018.sgm": "a5f971bf25448e915781962309e669359a35fbcaf3017a806eca0590897f209a",
    "reut2-019.sgm": "d3b07097fba2633d130b4914aceba671645985248943ce9e39c289315339dffb",
    "reut2-020.sgm": "f6ad1b724125c202566c63b35ea0b5ee23881f8b7ed47a32829d5af05d8e860d",
    "reut2-021.sgm": "3f5196d32869723c9042aa5756805b4e90360f1f45ea17f4594fa0e2b3630b18",
}
_STTM = "https://raw.githubusercontent.com/qiang2100/STTM/5573ed45095c162591f5d82e58e60bb8fd93ed08/dataset/"
_LDA_WHEEL = (
    "https://files.pythonhosted.org/packages/be/0d/"
    "8d86a51d49d87bfae2edebe660589cee02423df08bb4322edeac5b9fccfd/"
    "lda-3.0.2-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
)
_L2R = "https://raw.githubusercontent.com/jcapde/L2R/cf8c60b046a64393e3f2f61889717d80b3cbda1e/"
_NLTK = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/"

SOURCES: dict[str, dict] = {
    "20newsgroups": {
        "description": "20 Newsgroups, bydate version (Rennie); the archive scikit-learn fetches. "
        "Accepts the canonical archive's sha256 and that of the staged repack.",
        "files": [
            {
                "path": "20newsgroups/20news-bydate.tar.gz",
                "url": "https://ndownloader.figshare.com/files/5975967",
                "sha256": [
                    "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610",
                    "a465284f1ff55f34bc12ee4f7c64c44430783b70b909019c4cd6f1bd5092e4e0",
                ],
            }
        ],
    },
    "nips": {
        "description": "NIPS 1987-2003 raw paper text from hannawallach/nips-data (data/raw). "
        "Network: GitHub's tarball of the pinned commit, verified by content digest since "
        "GitHub does not guarantee stable archive bytes; mirror: the staged repack.",
        "files": [
            {
                "path": "nips-wallach/nips-raw.tar.gz",
                "url": "https://github.com/hannawallach/nips-data/archive/"
                "c07d8b1bdda9e82b52132b0d0f4e282e08b2f9ce.tar.gz",
                "sha256": ["580e6a32a174be785c4fdca0525cf1872471b6147041f8095fa6070129b8efa7"],
                "content_pattern": r"(?:^|/)(raw/\d{4}/[^/]+\.txt)$",
                "content_sha256": [
                    "2f3f671c97ba7e1be08c1d3d249adb8c3b7dfc3928b6df25f7c95a7f2b538f68"
                ],
            }
        ],
    },
    "reuters21578": {
        "description": "Reuters-21578 Distribution 1.0, the 22 SGML files of the UCI KDD archive.",
        "files": [
            {
                "path": f"reuters21578/{name}",
                "url": _REUTERS_URL,
                "member": name,
                "sha256": [digest],
            }
            for name, digest in _REUTERS_SHA256.items()
        ],
    },
    "ap": {
        "description": "AP corpus from Blei's lda-c (ap.dat + vocab.txt inside ap.tgz).",
        "files": [
            {
                "path": "ap/ap.dat",
                "url": "http://www.cs.columbia.edu/~blei/lda-c/ap.tgz",
                "member": "ap/ap.dat",
                "sha256": ["c9b946b6cdb2c6e876198ae227afb573df023db84fb53a9d2b31c0d59224fea1"],
            },
            {
                "path": "ap/vocab.txt",
                "url": "http://www.cs.columbia.edu/~blei/lda-c/ap.tgz",
                "member": "ap/vocab.txt",
                "sha256": ["fbf0d0f836cb2b0360bd3cae0f71c2f34b140b1dd8dd0d0bdb618a64704337f6"],
            },
        ],
    },
    "kos": {
        "description": "UCI Bag of Words, KOS blog entries (docword only; no vocabulary).",
        "files": [
            {
                "path": "kos/docword.kos.txt.gz",
                "url": "https://archive.ics.uci.edu/ml/machine-learning-databases/bag-of-words/"
                "docword.kos.txt.gz",
                "sha256": ["6439c39f2fccb4876563e4b4c9628974d8ccbeada43d661292a5024911389e30"],
            }
        ],
    },
    "searchsnippets": {
        "description": "STTM's SearchSnippets (Phan et al. 2008 web snippets), pre-tokenised.",
        "files": [
            {
                "path": "sttm-shorttext/SearchSnippets.txt",
                "url": _STTM + "SearchSnippets.txt",
                "sha256": ["4cee6f82db04e4dde2c4f26aa845910af9adc7b7022a23fee1cabcab877fdec5"],
            },
            {
                "path": "sttm-shorttext/SearchSnippets_label.txt",
                "url": _STTM + "SearchSnippets_label.txt",
                "sha256": ["fc68e7645dd28b7d6741dedd5054b46764408aff1834f730d2a222f9c9a1256e"],
            },
        ],
    },
    "tweet": {
        "description": "STTM's Tweet set (TREC 2011/2012 microblog, 89 clusters), pre-tokenised.",
        "files": [
            {
                "path": "sttm-shorttext/Tweet.txt",
                "url": _STTM + "Tweet.txt",
                "sha256": ["211216e954ed0744a138410e5f1049ed5accd7aac44aa0c8c4a6cd240325d9a6"],
            },
            {
                "path": "sttm-shorttext/Tweet_LABEL.txt",
                "url": _STTM + "Tweet_LABEL.txt",
                "sha256": ["d36ed0d4e142067c1904455b941cb958b8e439c691972579e7940d0cf8df21ea"],
            },
        ],
    },
    "reuters_lda": {
        "description": "The 395-document Reuters (RCV1-era) set shipped in PyPI lda 3.0.2.",
        "files": [
            {
                "path": f"reuters-lda/reuters.{ext}",
                "url": _LDA_WHEEL,
                "member": f"lda/tests/reuters.{ext}",
                "sha256": [digest],
            }
            for ext, digest in (
                ("ldac", "4bfe5b21ed263334ddf7af56f7b38632f6ccae7d9441c8b56071167841e71b5e"),
                ("tokens", "8fc788b258bb76f9e352885cc20971d64e0011b8d74781129d060818930e3d5a"),
                ("titles", "fac5f54e85f07852d0edaede84642806b08e3c437e24597f79aae0aa82d5d7ee"),
            )
        ],
    },
    "l2r_capdevila": {
        "description": "jcapde/L2R release: 100-word GaP-FA corpora and 5-topic models (.mat), "
        "exact Twitter log-likelihoods (.json); read by topiceval.data.l2r.",
        "files": [
            {"path": f"l2r-capdevila/{name}", "url": _L2R + repo_path, "sha256": [digest]}
            for name, repo_path, digest in (
                (
                    "NIPS_GaP_5802N_100W_5T.mat",
                    "data/NIPS_GaP_5802N_100W_5T.mat",
                    "4b36c8391832323f828406d3dbdfd3d5b691ef22bc82b5bcc44d743d8b834865",
                ),
                (
                    "Twitter_GaP_10653N_100W_5T.mat",
                    "data/Twitter_GaP_10653N_100W_5T.mat",
                    "1d88aa49d0ffac439fb8d1b857d80791c01a9482eef2b90789dd08df16a3f1bc",
                ),
                (
                    "Exact_Twitter_10Ntest_100W_5K.json",
                    "python/output/Exact_Twitter_10Ntest_100W_5K.json",
                    "bfe9b8b368a29cd155500333587fa6572984ad9a617f2461136d04516609b684",
                ),
            )
        ],
    },
    "nltk_data": {
        "description": "NLTK stopwords and WordNet 3.0 zips. The staged wordnet.zip is rebuilt "
        "(not NLTK's own bytes), so without a mirror use topiceval.data.nltk_resources.install, "
        "which calls nltk.download instead.",
        "files": [
            {
                "path": "nltk_data/corpora/stopwords.zip",
                "url": _NLTK + "stopwords.zip",
                "sha256": ["15c94179887425ca1bedc265608cab9f27d650211f709bb929e320990a4b01d1"],
            },
            {
                "path": "nltk_data/corpora/wordnet.zip",
                "url": _NLTK + "wordnet.zip",
                "sha256": ["59b1a95b8d5d75c2648cbebc079d4f1bef160cd34ff21e80fcb46286c3d89fc0"],
            },
        ],
    },
}


@dataclass(frozen=True)
class SourceFile:
    """One file to fetch: see the module docstring for the fields."""

    path: str
    url: str
    sha256: tuple[str, ...]
    member: str | None = None
    content_sha256: tuple[str, ...] = ()
    content_pattern: str | None = None

    def accepted(self) -> str:
        """The accepted checksums, for messages."""
        parts = [", ".join(self.sha256) or "(none listed)"]
        if self.content_sha256:
            parts.append(f"or content digest {', '.join(self.content_sha256)}")
        return " ".join(parts)


_FILE_KEYS = {"path", "url", "sha256", "member", "content_sha256", "content_pattern"}


def check_relative_path(path: object, where: str) -> str:
    """``path`` if it is a safe mirror-relative path, else ``ValueError`` naming ``where``.

    A file's ``path`` is joined to the data mirror (read) and to the download directory
    (written), so it must stay inside both: relative, ``/``-separated, with no empty, ``.`` or
    ``..`` segment and no backslash or NUL.  The config schema has the same rule (a pattern on
    ``sources.*.files[].path``); this is the same check for records that bypass the schema.
    """
    if not isinstance(path, str) or not path:
        raise ValueError(f"{where}: 'path' must be a non-empty string, got {path!r}")
    segments = path.split("/")
    if (
        path.startswith("/")
        or "\\" in path
        or "\0" in path
        or any(seg in ("", ".", "..") for seg in segments)
    ):
        raise ValueError(
            f"{where}: path {path!r} must be relative and stay inside the mirror and the "
            "download directory (no leading '/', no '', '.' or '..' segment, no backslash)"
        )
    return path


def _parse_file(source: str, i: int, entry: dict) -> SourceFile:
    where = f"source {source!r} file {i}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected a mapping, got {type(entry).__name__}")
    unknown = set(entry) - _FILE_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}; allowed {sorted(_FILE_KEYS)}")
    for key in ("path", "url"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise ValueError(f"{where}: {key!r} must be a non-empty string")
    path = check_relative_path(entry["path"], where)
    digests = {}
    for key in ("sha256", "content_sha256"):
        values = entry.get(key, [])
        if isinstance(values, str):
            values = [values]
        bad = [v for v in values if not isinstance(v, str) or not _HEX64.fullmatch(v)]
        if bad:
            raise ValueError(f"{where} ({path}): {key} entries must be 64 lower-case hex: {bad}")
        digests[key] = tuple(values)
    if not digests["sha256"] and not digests["content_sha256"]:
        raise ValueError(f"{where} ({path}): no accepted sha256 listed")
    pattern = entry.get("content_pattern")
    if digests["content_sha256"]:
        if not pattern:
            raise ValueError(f"{where} ({path}): content_sha256 needs a content_pattern")
        try:
            if re.compile(pattern).groups < 1:
                raise ValueError(f"{where} ({path}): content_pattern needs one capture group")
        except re.error as exc:
            raise ValueError(f"{where} ({path}): bad content_pattern: {exc}") from None
    return SourceFile(
        path=path,
        url=entry["url"],
        sha256=digests["sha256"],
        member=entry.get("member"),
        content_sha256=digests["content_sha256"],
        content_pattern=pattern,
    )


def parse_sources(mapping: dict | None = None) -> dict[str, list[SourceFile]]:
    """Validated ``SourceFile`` lists per source name (``mapping`` defaults to ``SOURCES``)."""
    mapping = SOURCES if mapping is None else mapping
    if not isinstance(mapping, dict):
        raise ValueError("sources must be a mapping from source name to {files: [...]}")
    out = {}
    for name, spec in mapping.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("files"), list):
            raise ValueError(f"source {name!r}: expected a mapping with a 'files' list")
        unknown = set(spec) - {"files", "description"}
        if unknown:
            raise ValueError(f"source {name!r}: unknown keys {sorted(unknown)}")
        if not spec["files"]:
            raise ValueError(f"source {name!r}: empty file list")
        out[name] = [_parse_file(name, i, entry) for i, entry in enumerate(spec["files"])]
    return out


def source_files(name: str, mapping: dict | None = None) -> list[SourceFile]:
    """The files of one source; ``ValueError`` naming the known sources if ``name`` is unknown."""
    parsed = parse_sources(mapping)
    if name not in parsed:
        raise ValueError(f"unknown source {name!r}; known sources: {sorted(parsed)}")
    return parsed[name]


def sources_yaml(mapping: dict | None = None) -> str:
    """The registry as a YAML document with a top-level ``sources:`` key (for config files)."""
    mapping = SOURCES if mapping is None else mapping
    parse_sources(mapping)
    return yaml.safe_dump({"sources": mapping}, sort_keys=False, width=100)
