"""Tiny raw-data files written by the tests themselves (never the staged data)."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import zipfile
from pathlib import Path

SHARED_MIRROR = Path(os.environ.get("TOPICEVAL_DATA_MIRROR", "/work/shared/data"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_tar(path: Path, members: dict[str, bytes], gz: bool = True) -> Path:
    """A tar(.gz) archive holding ``members`` (name -> bytes), in the given order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz" if gz else "w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def write_gzip(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data, mtime=0))
    return path


NEWSGROUP_MESSAGES = {
    "20news-bydate-test/sci.space/200": (
        b"From: b@x.org\nSubject: Re: moon orbit\n\nThe moon's orbit.\n"
    ),
    "20news-bydate-train/sci.space/101": (
        b"From: a@x.org\r\nSubject: launch windows\r\nLines: 3\r\n\r\n"
        b"In article <1@x> c@y writes:\r\n> quoted rockets\r\nRockets launch caf\xe9 windows.\r\n"
        b"--\r\nsig line\r\n"
    ),
    "20news-bydate-train/alt.atheism/7": b"Subject: god\n\nGod and belief.\n",
    "20news-bydate-train/sci.space/99": b"no header here at all\n",
}


def newsgroups_archive(path: Path, prefix: str = "") -> Path:
    return write_tar(path, {prefix + k: v for k, v in NEWSGROUP_MESSAGES.items()})


NIPS_PAPERS = {
    "raw/1988/0002.txt": b"Neural con-\nnectivity and learn\xading.\n",
    "raw/1987/0001.txt": b"Hidden units\nlearn  quickly.\n",
    "raw/2002/CS09.txt": b"garbage #$%\n",
}


def nips_archive(path: Path, prefix: str = "") -> Path:
    return write_tar(path, {prefix + k: v for k, v in NIPS_PAPERS.items()})


REUTERS_SGML = (
    b'<!DOCTYPE lewis SYSTEM "lewis.dtd">\n'
    b'<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="1" NEWID="1">\n'
    b"<TOPICS><D>cocoa</D><D>grain</D></TOPICS>\n<TEXT>&#2;\n<TITLE>COCOA &amp; GRAIN</TITLE>\n"
    b"<DATELINE>SALVADOR, Feb 26 - </DATELINE><BODY>Cocoa prices &lt;rose&gt; sharply.\n"
    b" Reuter\n&#3;</BODY></TEXT>\n</REUTERS>\n"
    b'<REUTERS TOPICS="NO" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="2" NEWID="2">\n'
    b'<TOPICS></TOPICS>\n<TEXT TYPE="BRIEF">&#2;\n<TITLE>SHORT BRIEF</TITLE>\n&#3;</TEXT>\n'
    b"</REUTERS>\n"
    b'<REUTERS TOPICS="YES" LEWISSPLIT="TEST" CGISPLIT="TRAINING-SET" OLDID="3" NEWID="3">\n'
    b"<TOPICS><D>oil</D></TOPICS>\n<TEXT>&#2;\n<TITLE>OIL</TITLE>\n"
    b"<BODY>Oil m\xfcnchen output fell.\n&#3;</BODY></TEXT>\n</REUTERS>\n"
    b'<REUTERS TOPICS="NO" LEWISSPLIT="NOT-USED" CGISPLIT="TRAINING-SET" OLDID="4" NEWID="4">\n'
    b"<TOPICS></TOPICS>\n<TEXT>&#2;\n<BODY>Unused body text.\n&#3;</BODY></TEXT>\n</REUTERS>\n"
)

# lda-c: 3 documents over 5 words; document 2 is empty ("0").
LDAC_VOCAB = b"running\nruns\nthe\nab\nrun\n"
LDAC_DATA = b"2 4:2 0:1\n3 1:1 2:3 3:1\n0\n"

DOCWORD = b"3\n4\n4\n1 2 2\n1 1 1\n3 4 1\n3 3 2\n"

STTM_TEXT = b"stock market e-commerce news\nthe football match\n\n"
STTM_LABELS = b"1\n2\n3\n"


def registry_layout(root: Path) -> Path:
    """A raw directory laid out like the data mirror, holding every fixture above."""
    newsgroups_archive(root / "20newsgroups" / "20news-bydate.tar.gz")
    nips_archive(root / "nips-wallach" / "nips-raw.tar.gz")
    reuters = root / "reuters21578"
    reuters.mkdir(parents=True)
    for i in range(22):
        (reuters / f"reut2-{i:03d}.sgm").write_bytes(REUTERS_SGML if i == 0 else b"")
    (root / "ap").mkdir()
    (root / "ap" / "ap.dat").write_bytes(LDAC_DATA)
    (root / "ap" / "vocab.txt").write_bytes(LDAC_VOCAB)
    write_gzip(root / "kos" / "docword.kos.txt.gz", DOCWORD)
    sttm = root / "sttm-shorttext"
    sttm.mkdir()
    for stem, label in (("SearchSnippets", "_label"), ("Tweet", "_LABEL")):
        (sttm / f"{stem}.txt").write_bytes(STTM_TEXT)
        (sttm / f"{stem}{label}.txt").write_bytes(STTM_LABELS)
    (root / "reuters-lda").mkdir()
    (root / "reuters-lda" / "reuters.ldac").write_bytes(LDAC_DATA)
    (root / "reuters-lda" / "reuters.tokens").write_bytes(LDAC_VOCAB)
    (root / "reuters-lda" / "reuters.titles").write_bytes(b"0 a\n1 b\n2 c\n")
    return root


def three_topic_texts(seed: int, n_docs: int = 60) -> list[list[str]]:
    """``n_docs`` documents of word strings drawn from three topics over 24 words ("sun0" ..
    "wave7"), with skewed word frequencies: a tiny corpus for the peer libraries to train on."""
    import numpy as np

    rng = np.random.default_rng(seed)
    groups = [[f"{stem}{i}" for i in range(8)] for stem in ("sun", "rock", "wave")]
    docs = []
    for _ in range(n_docs):
        mix = rng.dirichlet([0.3, 0.3, 0.3])
        n = int(rng.integers(8, 20))
        topic = rng.choice(3, size=n, p=mix)
        rank = np.minimum(rng.geometric(0.35, size=n) - 1, 7)
        docs.append([groups[t][r] for t, r in zip(topic, rank, strict=True)])
    return docs
