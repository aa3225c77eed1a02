"""How a model's training text was split into words, recorded in the model file and replayed.

Held-out text has to be split into words the way the model's training text was, or words the
model knows are counted as unknown (``"The"`` against ``"the"``) and the score is of other
words.  A ``Tokenizer`` is that recipe as plain data, stored in a model's
``meta["tokenizer"]`` (and a corpus's) where the importer or trainer can know it:

* ``from_vectorizer``: a scikit-learn ``CountVectorizer`` / ``TfidfVectorizer`` (lowercase,
  strip_accents, token_pattern, stop words), replayed with Python's ``re`` as scikit-learn does;
* ``from_recipe``: a preprocessing recipe of ``topiceval.data.preprocess`` (lowercase, its
  ``regex`` token pattern, its word-level filters and their stop words); the corpus it makes,
  and the models ``topiceval train`` and a study's trainers fit to it, carry it.

Where the splitting cannot be replayed (a Python callable as analyzer, n-grams, stemming) or is
not known (MALLET, gensim and tomotopy models take words already split), the record says why:
``{"unknown": reason}``.  ``recorded(meta)`` reads either form.  Words removed by the
tokenizer (stop words, short words) are not words of the document; words it keeps that the
model does not know are out of vocabulary, dropped and counted by the caller.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field

import regex

ENGINES = ("re", "regex")  # Python's re (scikit-learn's), or the regex module (\p{L}; recipes')
STRIP_ACCENTS = (None, "ascii", "unicode")
SKLEARN_DEFAULT_PATTERN = r"(?u)\b\w\w+\b"


@dataclass(frozen=True)
class Tokenizer:
    """Text -> list of words: lowercase, strip accents, every match of ``token_pattern``, then
    drop stop words and tokens failing the word filters.

    Parameters
    ----------
    token_pattern : str
        Every match is a word (with one capturing group, the group's text, as ``findall``).
    lowercase : bool, default False
        Lowercase the text first.
    engine : {"re", "regex"}, default "regex"
        The regular-expression module the pattern is written for.
    strip_accents : {None, "ascii", "unicode"}, default None
        scikit-learn's accent stripping, applied after lowercasing.
    stop_words : tuple of str, default ()
        Words removed after tokenising.
    min_length : int, default 1
        Shorter words are removed.
    letters_only : bool, default False
        Words with a character that is not a letter are removed.
    drop_punctuation : bool, default False
        Words with no letter or digit are removed.
    source : str, default ""
        Where the settings come from (shown in messages).
    """

    token_pattern: str
    lowercase: bool = False
    engine: str = "regex"
    strip_accents: str | None = None
    stop_words: tuple[str, ...] = ()
    min_length: int = 1
    letters_only: bool = False
    drop_punctuation: bool = False
    source: str = ""
    _compiled: object = field(init=False, repr=False, compare=False)
    _stop: frozenset = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(f"tokenizer engine must be one of {ENGINES}, got {self.engine!r}")
        if self.strip_accents not in STRIP_ACCENTS:
            raise ValueError(f"tokenizer strip_accents must be one of {STRIP_ACCENTS}, got "
                             f"{self.strip_accents!r}")
        module = re if self.engine == "re" else regex
        try:
            compiled = module.compile(self.token_pattern)
        except (re.error, regex.error, TypeError) as exc:
            raise ValueError(f"tokenizer token_pattern {self.token_pattern!r} is not a regular "
                             f"expression ({exc})") from None
        if compiled.groups > 1:
            raise ValueError(f"tokenizer token_pattern {self.token_pattern!r} has more than one "
                             "capturing group")
        object.__setattr__(self, "stop_words", tuple(sorted(set(self.stop_words))))
        object.__setattr__(self, "_compiled", compiled)
        object.__setattr__(self, "_stop", frozenset(self.stop_words))

    def __call__(self, text: str) -> list[str]:
        """The words of ``text``, in order."""
        if self.lowercase:
            text = text.lower()
        if self.strip_accents == "unicode":
            text = _strip_accents_unicode(text)
        elif self.strip_accents == "ascii":
            text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        words = self._compiled.findall(text)
        if not (self._stop or self.min_length > 1 or self.letters_only or self.drop_punctuation):
            return words
        return [w for w in words if self._keeps(w)]

    def _keeps(self, word: str) -> bool:
        return not (word in self._stop or len(word) < self.min_length
                    or (self.letters_only and not word.isalpha())
                    or (self.drop_punctuation and not any(c.isalnum() for c in word)))

    def to_meta(self) -> dict:
        """The settings as JSON-serialisable data (``meta["tokenizer"]``)."""
        out = {k: v for k, v in asdict(self).items() if not k.startswith("_")}
        out["stop_words"] = list(self.stop_words)
        return out

    @classmethod
    def from_meta(cls, data: Mapping) -> Tokenizer:
        """The tokenizer of a ``to_meta`` record.

        Parameters
        ----------
        data : mapping
            The record (``meta["tokenizer"]`` of a model or corpus), not ``{"unknown": ...}``.

        Returns
        -------
        Tokenizer

        Raises
        ------
        ValueError
            Naming what is wrong: a missing ``token_pattern``, an unknown key or value.
        """
        known = {f for f in cls.__dataclass_fields__ if not f.startswith("_")}
        unknown = set(data) - known
        if unknown or "token_pattern" not in data:
            raise ValueError(f"a tokenizer record needs token_pattern and only {sorted(known)}; "
                             f"got {sorted(data)}")
        return cls(**{**data, "stop_words": tuple(data.get("stop_words", ()))})

    def describe(self) -> str:
        """One phrase: ``lowercased, words matching (?u)\\b\\w\\w+\\b, 318 stop words removed``."""
        parts = ["lowercased" if self.lowercase else "case kept"]
        if self.strip_accents:
            parts.append(f"accents stripped ({self.strip_accents})")
        parts.append(f"words matching {self.token_pattern}")
        if self.stop_words:
            parts.append(f"{len(self.stop_words)} stop words removed")
        if self.min_length > 1:
            parts.append(f"words under {self.min_length} characters removed")
        if self.letters_only:
            parts.append("words with a non-letter removed")
        if self.drop_punctuation:
            parts.append("punctuation removed")
        return ", ".join(parts)


def _strip_accents_unicode(text: str) -> str:
    """scikit-learn's ``strip_accents_unicode``: NFKD, combining characters removed."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def unknown(reason: str) -> dict:
    """The record of a model whose tokenisation cannot be replayed: why."""
    return {"unknown": reason}


def of_corpus(meta: Mapping) -> dict:
    """The record a model trained on a corpus inherits: the corpus's (``meta["tokenizer"]``,
    written by ``topiceval.data.preprocess.apply_recipe``), or why it is unknown."""
    return dict(meta.get("tokenizer") or unknown(
        "its training corpus does not record how its text was split into words"))


def recorded(meta: Mapping | None) -> tuple[Tokenizer | None, str]:
    """(the tokenizer ``meta["tokenizer"]`` records, or None; why it is None).

    Model files written before tokenizers were recorded have no record: the reason then says
    that the file does not record how its training text was tokenised.
    """
    record = (meta or {}).get("tokenizer")
    if record is None:
        return None, "the model file does not record how its training text was tokenised"
    if "unknown" in record:
        return None, str(record["unknown"])
    return Tokenizer.from_meta(record), ""


def from_vectorizer(vectorizer) -> dict:
    """The record of a fitted scikit-learn ``CountVectorizer`` / ``TfidfVectorizer``'s
    analyzer: its settings, or ``{"unknown": why}`` when they cannot be replayed."""
    analyzer = getattr(vectorizer, "analyzer", None)
    if analyzer != "word":
        what = "a Python callable" if callable(analyzer) else repr(analyzer)
        return unknown(f"the vectorizer's analyzer is {what}")
    for name in ("preprocessor", "tokenizer"):
        if getattr(vectorizer, name, None) is not None:
            return unknown(f"the vectorizer has its own {name} (a Python callable)")
    if tuple(getattr(vectorizer, "ngram_range", (1, 1))) != (1, 1):
        return unknown(f"the vectorizer counts n-grams (ngram_range={vectorizer.ngram_range})")
    accents = getattr(vectorizer, "strip_accents", None)
    if accents not in STRIP_ACCENTS:
        return unknown("the vectorizer's strip_accents is a Python callable")
    stop = vectorizer.get_stop_words() or ()
    return Tokenizer(token_pattern=vectorizer.token_pattern, lowercase=bool(vectorizer.lowercase),
                     engine="re", strip_accents=accents, stop_words=tuple(stop),
                     source=f"scikit-learn {type(vectorizer).__name__}").to_meta()


def from_recipe(name: str, settings: Mapping, stop_words: Iterable[str]) -> dict:
    """The record of the preprocessing recipe ``name``'s tokenisation (``Recipe.settings()`` and
    the stop words it removed), or ``{"unknown": why}``.  Its vocabulary filters are not part of it:
    words they removed are words the model does not know."""
    if settings.get("asis"):
        return Tokenizer(token_pattern=r"\S+", source="recipe asis").to_meta()
    if settings.get("normalize", "none") != "none":
        return unknown(f"the recipe {name!r} maps words to their {settings['normalize']} forms")
    return Tokenizer(token_pattern=settings["token_pattern"],
                     lowercase=bool(settings["lowercase"]), engine="regex",
                     stop_words=tuple(stop_words), min_length=int(settings["min_length"]),
                     letters_only=bool(settings["letters_only"]),
                     drop_punctuation=bool(settings["drop_punctuation"]),
                     source=f"recipe {name}").to_meta()
