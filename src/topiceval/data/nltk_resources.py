"""NLTK stop words and WordNet, from a data mirror or ``nltk.download``, never from/to ``~``.

* ``install(dest_dir, mirror=None)`` makes ``dest_dir`` an ``nltk_data`` directory holding
  ``corpora/stopwords.zip`` and WordNet: copied and checksum-verified from
  ``<mirror>/nltk_data`` when a mirror is given, otherwise fetched with
  ``nltk.download(..., download_dir=dest_dir)``.
* ``activate(location)`` adds an ``nltk_data`` directory (or a mirror root holding one) to
  ``nltk.data.path`` in this process and checks that both resources are there.
* ``english_stopwords(location)`` and ``wordnet_lemmatizer(location)`` return the objects the
  preprocessing recipes use.

punkt is not needed: recipes tokenise with regular expressions.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import warnings
from pathlib import Path

import nltk
from nltk.stem import WordNetLemmatizer

from topiceval.data.download import fetch
from topiceval.data.sources import source_files

# Directory names end in "/": NLTK then also finds them inside ``corpora/<name>.zip``.
RESOURCES = {"stopwords": "corpora/stopwords/", "wordnet": "corpora/wordnet/"}
_LOG = logging.getLogger(__name__)


def install(
    dest_dir: str | os.PathLike,
    mirror: str | os.PathLike | None = None,
    log: logging.Logger | None = None,
) -> Path:
    """Provide stopwords and WordNet in ``dest_dir`` (an ``nltk_data`` layout); return it."""
    log = log or _LOG
    dest = Path(dest_dir)
    if mirror is not None:
        # Registry paths sit under nltk_data/ in the mirror; dest is itself an nltk_data dir.
        files = [
            dataclasses.replace(spec, path=spec.path.removeprefix("nltk_data/"))
            for spec in source_files("nltk_data")
        ]
        fetch(files, dest, mirror=Path(mirror) / "nltk_data", log=log)
    else:
        dest.mkdir(parents=True, exist_ok=True)
        for package in RESOURCES:
            ok = nltk.download(package, download_dir=str(dest), quiet=True, raise_on_error=True)
            if not ok:
                raise ValueError(f"nltk.download({package!r}) into {dest} failed")
            log.info("nltk %s installed into %s", package, dest)
    activate(dest)
    return dest


def resolve(location: str | os.PathLike) -> Path:
    """The ``nltk_data`` directory meant by ``location`` (itself, or ``location/nltk_data``)."""
    path = Path(location)
    if (path / "corpora").is_dir():
        return path
    if (path / "nltk_data" / "corpora").is_dir():
        return path / "nltk_data"
    raise ValueError(
        f"{path} is neither an nltk_data directory (with corpora/) nor a data mirror holding "
        "nltk_data/corpora; run topiceval.data.nltk_resources.install first"
    )


def activate(location: str | os.PathLike) -> Path:
    """Add the NLTK data at ``location`` to ``nltk.data.path``; check both resources.

    NLTK only reads data under a directory on its path.  The readers below are built on this
    directory explicitly (not NLTK's process-wide lazy loaders, which would keep whichever copy
    they found first, and prefer an unzipped copy anywhere on the path, e.g. ``~/nltk_data``).
    """
    path = str(resolve(location).resolve())
    if path not in nltk.data.path:
        nltk.data.path.insert(0, path)
    missing = []
    for name, resource in RESOURCES.items():
        try:
            nltk.data.find(resource, paths=[path])
        except LookupError:
            missing.append(name)
    if missing:
        raise ValueError(f"NLTK data in {path} lacks {missing} (expected {RESOURCES})")
    return Path(path)


def english_stopwords(location: str | os.PathLike) -> frozenset[str]:
    """NLTK's English stop word list (179 words in the staged copy), read from ``location``."""
    from nltk.corpus.reader import StopwordsCorpusReader

    path = str(activate(location))
    root = nltk.data.find(RESOURCES["stopwords"], paths=[path])
    reader = StopwordsCorpusReader(root, r"(?!README|\.).*", encoding="utf8")
    return frozenset(reader.words("english"))


class _Lemmatizer(WordNetLemmatizer):
    """NLTK's ``WordNetLemmatizer`` (its ``lemmatize``) on a given WordNet reader."""

    def __init__(self, reader) -> None:
        self._reader = reader

    def _morphy(self, form, pos, check_exceptions=True):
        return self._reader._morphy(form, pos, check_exceptions)


def wordnet_lemmatizer(location: str | os.PathLike) -> WordNetLemmatizer:
    """A ``WordNetLemmatizer`` on the WordNet at ``location``, loaded now (not mid-corpus)."""
    from nltk.corpus.reader import WordNetCorpusReader

    path = str(activate(location))
    root = nltk.data.find(RESOURCES["wordnet"], paths=[path])
    with warnings.catch_warnings():  # no Open Multilingual WordNet: English lemmas only
        warnings.filterwarnings("ignore", "The multilingual functions are not available")
        reader = WordNetCorpusReader(root, None)
    lemmatizer = _Lemmatizer(reader)
    lemmatizer.lemmatize("churches")
    return lemmatizer
