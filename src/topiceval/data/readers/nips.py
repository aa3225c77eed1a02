"""NIPS 1987-2003 raw paper text (hannawallach/nips-data ``data/raw``): one paper per tar member.

Members ``.../raw/<year>/<file>.txt`` are read from the staged repack or from GitHub's tarball
of the repository (any prefix).  Text is latin-1 (pdf-to-text output).  Like the repository's
own post-processing (described in its Makefile; not applied to the staged files), by default
soft hyphens (U+00AD) are removed, words hyphenated across a line break are re-joined, and
``2002/CS09`` (garbage text) is excluded.  The 2000-2003 ligature fixes are not reproduced.
Name ``<year>/<file>``, label the year, no split.
"""

from __future__ import annotations

import os
import re
import tarfile

from topiceval.data.archives import regular_members
from topiceval.data.readers.base import RawCorpus, RawDocument

_MEMBER = re.compile(r"(?:^|/)raw/(\d{4})/([^/]+)\.txt$")
_SOFT_HYPHEN = re.compile("\xad\n?")
_LINE_HYPHEN = re.compile(r"(?<=[^\W\d_])-\n[ \t]*(?=[^\W\d_])")
EXCLUDED = ("2002/CS09",)


def clean_text(text: str, join_hyphenated: bool = True) -> str:
    """Remove soft hyphens; optionally re-join ``word-\\nword`` across line breaks."""
    text = _SOFT_HYPHEN.sub("", text.replace("\r\n", "\n"))
    return _LINE_HYPHEN.sub("", text) if join_hyphenated else text


def read_nips(
    path: str | os.PathLike,
    join_hyphenated: bool = True,
    exclude: tuple[str, ...] | list[str] = EXCLUDED,
) -> RawCorpus:
    """Read the papers in the archive at ``path``, sorted by (year, file name)."""
    found = []
    with tarfile.open(path, "r:*") as archive:
        for info in regular_members(archive, path):
            match = _MEMBER.search(info.name)
            if match:
                found.append((match.group(1), match.group(2), archive.extractfile(info).read()))
    if not found:
        raise ValueError(f"{path}: no raw/<year>/<file>.txt members in the archive")
    found.sort(key=lambda item: item[:2])
    docs, skipped = [], []
    for year, stem, data in found:
        name = f"{year}/{stem}"
        if name in exclude:
            skipped.append(name)
            continue
        text = clean_text(data.decode("latin-1"), join_hyphenated)
        docs.append(RawDocument(name=name, label=year, text=text))
    return RawCorpus(
        dataset="nips",
        kind="text",
        docs=docs,
        notes={"excluded": skipped, "join_hyphenated": join_hyphenated},
    )
