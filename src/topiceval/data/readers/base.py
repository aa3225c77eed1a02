"""What every reader returns: raw documents, before any preprocessing recipe.

Three kinds of source:

* ``"text"``: raw text (20 Newsgroups, NIPS, Reuters-21578); documents carry ``text`` and, where
  the format has one, a ``header`` (message headers, headline) and ``subject``;
* ``"tokens"``: already tokenised text, one space-separated line per document (STTM short
  texts); ``text`` holds the line, and the ``asis`` recipe splits it on whitespace;
* ``"counts"``: bag-of-words sources (lda-c AP and Reuters, UCI KOS); ``ids`` holds the
  document's word ids expanded in the file's ``id:count`` order, over ``RawCorpus.vocab``.
  There is no token order (``ordered = False``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

KINDS = ("text", "tokens", "counts")


@dataclass
class RawDocument:
    """One source document: identifier, archive split (or ``None``), label and content."""

    name: str
    split: str | None = None
    label: str = ""
    text: str = ""
    header: str = ""
    subject: str = ""
    ids: np.ndarray | None = None


@dataclass
class RawCorpus:
    """The documents of one source, in source order, with what the preprocessing needs to know.

    ``usenet`` marks Usenet messages (quote and signature stripping apply); ``vocab_named`` is
    False when the vocabulary is only word ids (KOS), so word-level steps cannot apply;
    ``notes`` are reader facts recorded into the corpus meta (files, skipped documents).
    """

    dataset: str
    kind: str
    docs: list[RawDocument]
    vocab: list[str] | None = None
    ordered: bool = True
    vocab_named: bool = True
    usenet: bool = False
    notes: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown raw corpus kind {self.kind!r}; expected one of {KINDS}")
        if self.kind == "counts":
            if self.vocab is None:
                raise ValueError(f"{self.dataset}: a counts corpus needs a vocabulary")
            if any(doc.ids is None for doc in self.docs):
                raise ValueError(f"{self.dataset}: every document of a counts corpus needs ids")
