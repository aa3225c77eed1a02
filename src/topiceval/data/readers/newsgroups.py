"""20 Newsgroups "bydate": a tar(.gz) of ``20news-bydate-{train,test}/<group>/<id>`` messages.

Messages are latin-1 bytes; ``\\r\\n`` and lone ``\\r`` become ``\\n``.  Each message is split at
its first blank line into ``header`` and body ``text``; ``subject`` is the Subject header's value.
The split comes from the archive (train/test), the label is the newsgroup.  Documents are in
scikit-learn's ``load_files`` order: train then test, groups sorted, files sorted by name.

``strip_quotes`` and ``strip_signature`` are the Usenet-specific text filters the recipes may
apply to the body.
"""

from __future__ import annotations

import os
import re
import tarfile

from topiceval.data.archives import regular_members
from topiceval.data.readers.base import RawCorpus, RawDocument

_MEMBER = re.compile(r"(?:^|/)20news-bydate-(train|test)/([^/]+)/([^/]+)$")
_QUOTE_LINE = re.compile(r"^\s*[>|]")
_ATTRIBUTION = re.compile(
    r"(^in article\b.*|\b(writes|wrote|says|said)\s*:\s*)$", re.IGNORECASE
)
_SIGNATURE = re.compile(r"^--\s*$", re.MULTILINE)


def _decode(data: bytes) -> str:
    return data.decode("latin-1").replace("\r\n", "\n").replace("\r", "\n")


def split_message(message: str) -> tuple[str, str, str]:
    """(header, subject, body) of a Usenet message; no blank line means no header."""
    header, sep, body = message.partition("\n\n")
    if not sep:
        return "", "", message
    subject = ""
    for line in header.split("\n"):
        if line.lower().startswith("subject:"):
            subject = line[len("subject:") :].strip()
            break
    return header, subject, body


def strip_quotes(body: str) -> str:
    """Drop quoted lines (``>``/``|`` prefixes) and attribution lines ("... writes:")."""
    return "\n".join(
        line
        for line in body.split("\n")
        if not _QUOTE_LINE.match(line) and not _ATTRIBUTION.search(line.strip())
    )


def strip_signature(body: str) -> str:
    """Cut the body at its last signature delimiter line (``--`` alone on a line)."""
    matches = list(_SIGNATURE.finditer(body))
    return body[: matches[-1].start()] if matches else body


def read_newsgroups(path: str | os.PathLike) -> RawCorpus:
    """Read every message of the bydate archive at ``path``."""
    found = []
    with tarfile.open(path, "r:*") as archive:
        for info in regular_members(archive, path):
            match = _MEMBER.search(info.name)
            if not match:
                continue
            split, group, ident = match.groups()
            found.append((split != "train", group, ident, archive.extractfile(info).read()))
    if not found:
        raise ValueError(f"{path}: no 20news-bydate-train/ or -test/ messages in the archive")
    found.sort(key=lambda item: item[:3])
    docs = []
    for is_test, group, ident, data in found:
        split = "test" if is_test else "train"
        header, subject, body = split_message(_decode(data))
        docs.append(
            RawDocument(
                name=f"{split}/{group}/{ident}",
                split=split,
                label=group,
                text=body,
                header=header,
                subject=subject,
            )
        )
    return RawCorpus(
        dataset="20newsgroups",
        kind="text",
        docs=docs,
        usenet=True,
        notes={"groups": len({d.label for d in docs})},
    )
