"""Named preprocessing recipes: raw documents (``RawCorpus``) in, ``Corpus`` out.

A recipe runs three stages, each a function of what the previous one produced:

1. **Tokenise** (raw text): optionally strip Usenet quotes and signatures and choose which
   header text to keep (``headers``: ``keep`` the whole header / headline, only the
   ``subject``, or ``strip`` it), lowercase, then take every match of ``token_pattern``
   (the ``regex`` module, so ``\\p{L}`` works).  Pre-tokenised and count sources skip this.
2. **Word-level steps**, applied once per word *type* (they depend on the word alone): drop
   punctuation-only tokens (no letter or digit), tokens with a non-letter, stop words (NLTK's
   179-word and/or scikit-learn's 318-word English list), tokens shorter than ``min_length``;
   then lemmatise (NLTK ``WordNetLemmatizer``,
   default noun part of speech) or Porter-stem.  Types mapping to the same result merge.  On a
   count corpus the steps apply to the vocabulary words (a word must also match
   ``token_pattern`` in full); on a corpus without word names (KOS) they are skipped and logged.
3. **Vocabulary filters**, counted on the training documents (``vocab_from="train"``) or all
   (``"all"``): drop types with total count < ``min_count``, in < ``min_df`` documents or in more
   than ``max_df`` (a fraction) of the documents, then keep the ``top_k`` most frequent (ties
   broken by first occurrence).  Types absent from the counted documents are dropped.

Token order inside every document is kept.  Documents left empty are dropped and counted per
split in ``meta["docs_dropped_empty"]`` and the log.  The final vocabulary keeps the order in
which types first occur in the source (in the published vocabulary for count corpora).

The ``asis`` recipe changes nothing for pre-tokenised sources (whitespace tokens) and count
sources (published vocabulary, all of it); it only drops empty documents.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields

import numpy as np
import regex

from topiceval.corpus import Corpus
from topiceval.data.readers.base import RawCorpus, RawDocument
from topiceval.data.readers.newsgroups import strip_quotes, strip_signature
from topiceval.tokenizer import from_recipe
from topiceval.validation import is_integer

_LOG = logging.getLogger(__name__)

HEADERS = ("keep", "strip", "subject")
STOPWORDS = ("none", "nltk-english", "sklearn-english", "nltk+sklearn-english")
NORMALIZE = ("none", "wordnet", "porter")
VOCAB_FROM = ("train", "all")
MALLET_TOKEN = r"\p{L}[\p{L}\p{P}]+\p{L}"


def compile_token_pattern(pattern: str) -> regex.Pattern:
    """A token regex (the ``regex`` module), every match of which is one token.

    Parameters
    ----------
    pattern : str
        The regular expression.

    Returns
    -------
    regex.Pattern

    Raises
    ------
    ValueError
        Saying what is wrong, for the caller to prefix with the option's name: a pattern that does
        not compile, one with capturing groups (``findall`` would return the groups' text instead
        of the matches) or one that matches the empty string (empty tokens).
    """
    try:
        compiled = regex.compile(pattern)
    except (regex.error, TypeError) as exc:
        raise ValueError(f"'{pattern}' is not a regular expression ({exc})") from None
    if compiled.groups:
        raise ValueError(f"'{pattern}' has {compiled.groups} capturing group(s), whose text would "
                         "be the tokens instead of the whole matches; write (?:...) to group")
    if compiled.fullmatch("") is not None:
        raise ValueError(f"'{pattern}' matches the empty string, which would make empty tokens; "
                         "use + rather than * or ?")
    return compiled


@dataclass(frozen=True)
class Recipe:
    """A named, fully specified preprocessing (defaults: keep everything)."""

    name: str
    asis: bool = False
    headers: str = "keep"
    quotes: str = "keep"
    footers: str = "keep"
    token_pattern: str = r"\w+"
    lowercase: bool = True
    stopwords: str = "none"
    drop_punctuation: bool = False
    letters_only: bool = False
    min_length: int = 1
    normalize: str = "none"
    vocab_from: str = "train"
    min_count: int = 1
    min_df: int = 1
    max_df: float = 1.0
    top_k: int = 0

    def __post_init__(self) -> None:
        choices = {
            "headers": HEADERS,
            "quotes": ("keep", "strip"),
            "footers": ("keep", "strip"),
            "stopwords": STOPWORDS,
            "normalize": NORMALIZE,
            "vocab_from": VOCAB_FROM,
        }
        for key, allowed in choices.items():
            if getattr(self, key) not in allowed:
                raise ValueError(
                    f"recipe {self.name!r}: {key}={getattr(self, key)!r}; expected one of {allowed}"
                )
        for key in ("asis", "lowercase", "drop_punctuation", "letters_only"):
            if not isinstance(getattr(self, key), bool):
                raise ValueError(f"recipe {self.name!r}: {key} must be true or false")
        for key, low in (("min_length", 1), ("min_count", 1), ("min_df", 1), ("top_k", 0)):
            value = getattr(self, key)
            if not is_integer(value) or value < low:
                raise ValueError(f"recipe {self.name!r}: {key} must be an integer >= {low}")
        if not isinstance(self.max_df, int | float) or not 0.0 < self.max_df <= 1.0:
            raise ValueError(f"recipe {self.name!r}: max_df must lie in (0, 1], got {self.max_df}")
        try:
            compile_token_pattern(self.token_pattern)
        except ValueError as exc:
            raise ValueError(f"recipe {self.name!r}: bad token_pattern: {exc}") from None
        if self.asis:
            changed = [
                f.name
                for f in fields(self)
                if f.name not in ("name", "asis") and getattr(self, f.name) != f.default
            ]
            if changed:
                raise ValueError(
                    f"recipe {self.name!r} is 'as is' and takes no settings: {changed}"
                )

    def settings(self) -> dict:
        """The settings as plain data (for corpus meta and logs)."""
        out = asdict(self)
        out.pop("name")
        return out


RECIPES: dict[str, dict] = {
    # Unchanged published tokens / counts.
    "asis": {"asis": True},
    # A study's default for a user's own text (no NLTK data needed): lowercase runs of letters,
    # scikit-learn's English stop words and words of fewer than 3 letters dropped, words found
    # in fewer than 2 training documents dropped (they cannot be learned).
    "default": {
        "token_pattern": r"\p{L}+",
        "stopwords": "sklearn-english",
        "letters_only": True,
        "min_length": 3,
        "vocab_from": "train",
        "min_df": 2,
    },
    # Seed 001 §3.1: tokenise, lowercase, drop stop words and punctuation, WordNet lemmas,
    # 3,000 most frequent words on the training documents.  Headers kept, digits kept (its
    # topic tables show "10", "00"); punkt is unavailable, NLTK's wordpunct pattern instead.
    "bechard2018": {
        "token_pattern": r"\w+|[^\w\s]+",
        "stopwords": "nltk-english",
        "drop_punctuation": True,
        "normalize": "wordnet",
        "vocab_from": "train",
        "top_k": 3000,
    },
    # Seed 004 §6.1: drop stop words, non-letters (tokens are runs of letters) and words of
    # <= 2 characters, Porter stems, drop words "appearing less than 5 times" (read as: in < 5
    # documents, which reproduces its Reuters row: V 8,820 / D 19,043 / 79.5 +- 75.2 against
    # 8,843 / 19,043 / 79 +- 75) or in > 50% of the documents, counted on the whole collection
    # (the paper trains on all of it).  top_k=100 gives the cropped vocabulary of its exact runs.
    # Its 20NGs row (V 11,928, 123 +- 247) is not reached with the same settings (V 22,666,
    # 145 +- 264); the closest found is headers="strip", token_pattern=r"\w+" (tokens holding a
    # digit dropped, not split), min_df=10: V 12,599, D 18,805, 124.7 +- 253.2.
    "capdevila2018": {
        "token_pattern": r"[^\W\d_]+",
        "stopwords": "nltk-english",
        "letters_only": True,
        "min_length": 3,
        "normalize": "porter",
        "vocab_from": "all",
        "min_df": 5,
        "max_df": 0.5,
    },
    # Seed 002 (MALLET import of 20 Newsgroups; its Table 2: V 22,695, mean 120.4, sd 296.2).
    # Chosen by a grid over header handling, token pattern, stop list and frequency cut: MALLET's
    # default token shape widened to digits and 2-character tokens, the Subject line kept but not
    # the other headers, scikit-learn's 318-word English stop list (closer to MALLET's 524 words
    # than NLTK's 179), words in >= 5 training documents.  Lands at V 22,924, mean 118.8,
    # sd 295.9 over all 18,842 non-empty documents.  MALLET's own pattern (MALLET_TOKEN) with
    # the same settings gives V 21,089, mean 110.0, sd 216.8.
    "wallach2009": {
        "headers": "subject",
        "token_pattern": r"[\p{L}\p{N}][\p{L}\p{N}\p{P}]*[\p{L}\p{N}]",
        "stopwords": "sklearn-english",
        "vocab_from": "train",
        "min_df": 5,
    },
}


def make_recipe(name: str, overrides: dict | None = None) -> Recipe:
    """The named recipe with ``overrides`` (unknown names or keys raise ``ValueError``)."""
    if name not in RECIPES:
        raise ValueError(f"unknown recipe {name!r}; known recipes: {sorted(RECIPES)}")
    overrides = dict(overrides or {})
    allowed = {f.name for f in fields(Recipe)} - {"name", "asis"}
    unknown = set(overrides) - allowed
    if unknown:
        raise ValueError(
            f"recipe {name!r}: unknown settings {sorted(unknown)}; allowed {sorted(allowed)}"
        )
    return Recipe(name=name, **{**RECIPES[name], **overrides})


@dataclass
class Resources:
    """Word lists and functions a recipe needs (loaded from NLTK, or given by tests)."""

    stopwords: frozenset[str] = frozenset()
    lemmatize: Callable[[str], str] | None = None
    stem: Callable[[str], str] | None = None


def load_resources(recipe: Recipe, nltk_data=None) -> Resources:
    """NLTK stop words / WordNet lemmatizer / Porter stemmer as ``recipe`` requires.

    NLTK (slow to import) and its data are loaded only when the recipe uses them.
    """
    needs_data = "nltk" in recipe.stopwords or recipe.normalize == "wordnet"
    if needs_data and nltk_data is None:
        raise ValueError(
            f"recipe {recipe.name!r} needs NLTK data (stopwords/WordNet): pass the nltk_data "
            "directory or the data mirror"
        )
    res = Resources()
    if needs_data:
        from topiceval.data import nltk_resources

        if "nltk" in recipe.stopwords:
            res.stopwords |= nltk_resources.english_stopwords(nltk_data)
        if recipe.normalize == "wordnet":
            res.lemmatize = nltk_resources.wordnet_lemmatizer(nltk_data).lemmatize
    if "sklearn" in recipe.stopwords:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        res.stopwords |= ENGLISH_STOP_WORDS
    if recipe.normalize == "porter":
        from nltk.stem import PorterStemmer

        res.stem = PorterStemmer().stem
    return res


@dataclass
class _Log:
    logger: logging.Logger
    lines: list[str] = field(default_factory=list)

    def __call__(self, message: str) -> None:
        self.lines.append(message)
        self.logger.info(message)


# ---------------------------------------------------------------------------------- stage 1


def compose_text(doc: RawDocument, recipe: Recipe, usenet: bool) -> str:
    """The text a recipe tokenises: body (Usenet filters applied) after the chosen header."""
    body = doc.text
    if usenet and recipe.quotes == "strip":
        body = strip_quotes(body)
    if usenet and recipe.footers == "strip":
        body = strip_signature(body)
    head = {"keep": doc.header, "subject": doc.subject, "strip": ""}[recipe.headers]
    return f"{head}\n\n{body}" if head else body


def _tokenise(raw: RawCorpus, recipe: Recipe) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(type list, offsets, type ids) with types numbered in order of first occurrence."""
    if raw.kind == "counts":
        pieces = [np.asarray(d.ids, dtype=np.int64) for d in raw.docs]
        types = list(raw.vocab)
    else:
        if raw.kind == "text" and recipe.asis:
            raise ValueError(f"recipe 'asis' needs pre-tokenised data; {raw.dataset} is raw text")
        index: dict[str, int] = {}
        pieces = []
        if recipe.asis:
            for doc in raw.docs:
                pieces.append(np.array([index.setdefault(t, len(index)) for t in doc.text.split()]))
        else:
            pattern = compile_token_pattern(recipe.token_pattern)
            for doc in raw.docs:
                text = doc.text if raw.kind == "tokens" else compose_text(doc, recipe, raw.usenet)
                if recipe.lowercase:
                    text = text.lower()
                found = pattern.findall(text)
                pieces.append(np.array([index.setdefault(t, len(index)) for t in found]))
        types = list(index)
    offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
    np.cumsum([p.shape[0] for p in pieces], out=offsets[1:])
    ids = np.concatenate(pieces).astype(np.int64) if pieces else np.zeros(0, np.int64)
    return types, offsets, ids


# ---------------------------------------------------------------------------------- stage 2


def normalise_word(word: str, recipe: Recipe, res: Resources, whole) -> tuple[str | None, str]:
    """(normalised word, "") or (None, reason it is dropped) for one word type.

    ``whole`` is a compiled pattern the word must match in full (count corpora), or ``None``.
    """
    if recipe.lowercase:
        word = word.lower()
    if whole is not None and not whole.fullmatch(word):
        return None, "token_pattern"
    if recipe.drop_punctuation and not any(c.isalnum() for c in word):
        return None, "punctuation"
    if recipe.letters_only and not word.isalpha():
        return None, "non-letter"
    if word in res.stopwords:
        return None, "stopword"
    if len(word) < recipe.min_length:
        return None, "short"
    if recipe.normalize == "wordnet":
        word = res.lemmatize(word)
    elif recipe.normalize == "porter":
        word = res.stem(word)
    return word, ""


def _word_steps_active(recipe: Recipe) -> list[str]:
    return [
        name
        for name, on in (
            ("stopwords", recipe.stopwords != "none"),
            ("drop_punctuation", recipe.drop_punctuation),
            ("letters_only", recipe.letters_only),
            ("min_length", recipe.min_length > 1),
            ("normalize", recipe.normalize != "none"),
        )
        if on
    ]


def _type_map(
    types: list[str], raw: RawCorpus, recipe: Recipe, res: Resources, log: _Log
) -> tuple[list[str], np.ndarray, Counter]:
    """Normalised types (first-occurrence order) and the raw-type -> normalised-type map."""
    if recipe.asis or not raw.vocab_named:
        if not recipe.asis and _word_steps_active(recipe):
            log(
                f"{raw.dataset} has no word names; word-level steps skipped: "
                f"{_word_steps_active(recipe)}"
            )
        return list(types), np.arange(len(types), dtype=np.int64), Counter()
    whole = regex.compile(recipe.token_pattern) if raw.kind == "counts" else None
    index: dict[str, int] = {}
    mapping = np.full(len(types), -1, dtype=np.int64)
    reasons: Counter = Counter()
    for i, word in enumerate(types):
        norm, reason = normalise_word(word, recipe, res, whole)
        if norm is None:
            reasons[reason] += 1
        else:
            mapping[i] = index.setdefault(norm, len(index))
    return list(index), mapping, reasons


def _remap(offsets: np.ndarray, ids: np.ndarray, mapping: np.ndarray):
    """Apply a type map (-1 = drop) to CSR documents, keeping token order."""
    doc_of = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
    mapped = mapping[ids]
    keep = mapped >= 0
    lengths = np.bincount(doc_of[keep], minlength=offsets.shape[0] - 1)
    new_offsets = np.zeros_like(offsets)
    np.cumsum(lengths, out=new_offsets[1:])
    return new_offsets, mapped[keep]


# ---------------------------------------------------------------------------------- stage 3


def vocabulary_filter(
    offsets: np.ndarray, ids: np.ndarray, n_types: int, reference: np.ndarray, recipe: Recipe
) -> tuple[np.ndarray, dict]:
    """Boolean keep-mask over types from counts on the ``reference`` documents, and a summary."""
    doc_of = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
    in_ref = reference[doc_of]
    words = ids[in_ref]
    count = np.bincount(words, minlength=n_types)
    pairs = np.unique(doc_of[in_ref] * np.int64(n_types) + words)
    df = np.bincount(pairs % n_types, minlength=n_types)
    n_ref = int(reference.sum())
    keep = (count >= max(recipe.min_count, 1)) & (df >= recipe.min_df)
    summary = {
        "reference_docs": n_ref,
        "absent_or_below_min_count": int(np.sum(count < max(recipe.min_count, 1))),
        "below_min_df": int(np.sum((count >= max(recipe.min_count, 1)) & (df < recipe.min_df))),
    }
    if recipe.max_df < 1.0:
        too_common = df > recipe.max_df * n_ref
        summary["above_max_df"] = int(np.sum(keep & too_common))
        keep &= ~too_common
    if recipe.top_k and keep.sum() > recipe.top_k:
        candidates = np.flatnonzero(keep)
        order = candidates[np.lexsort((candidates, -count[candidates]))]
        keep = np.zeros(n_types, dtype=bool)
        keep[order[: recipe.top_k]] = True
        summary["top_k_min_count"] = int(count[order[recipe.top_k - 1]])
    return keep, summary


# ---------------------------------------------------------------------------------- driver


def apply_recipe(
    raw: RawCorpus,
    recipe: Recipe,
    splits: np.ndarray,
    resources: Resources | None = None,
    log: logging.Logger | None = None,
) -> Corpus:
    """Run ``recipe`` on ``raw`` with per-document split labels ``splits``; return a Corpus."""
    out = _Log(log or _LOG)
    splits = np.asarray(splits, dtype=str)
    if splits.shape != (len(raw.docs),):
        raise ValueError(f"splits has shape {splits.shape}, expected ({len(raw.docs)},)")
    res = resources or Resources()
    if recipe.stopwords != "none" and not res.stopwords and raw.vocab_named:
        raise ValueError(f"recipe {recipe.name!r} needs a stop word list (resources.stopwords)")
    needed = {"wordnet": res.lemmatize, "porter": res.stem}.get(recipe.normalize, True)
    if needed is None:
        raise ValueError(f"recipe {recipe.name!r} needs a {recipe.normalize} function in resources")
    if raw.usenet is False and (recipe.quotes == "strip" or recipe.footers == "strip"):
        out(f"{raw.dataset}: quote/signature stripping applies to Usenet messages only; skipped")

    types, offsets, ids = _tokenise(raw, recipe)
    out(f"{raw.dataset}/{recipe.name}: {len(raw.docs)} documents, {ids.size} tokens, "
        f"{len(types)} types read")
    norm_types, mapping, reasons = _type_map(types, raw, recipe, res, out)
    if reasons:
        out(
            f"word-level steps dropped {sum(reasons.values())} types: "
            f"{dict(sorted(reasons.items()))}"
        )
    offsets, ids = _remap(offsets, ids, mapping)
    out(f"after word-level steps: {len(norm_types)} types, {ids.size} tokens")

    filters: dict = {}
    if recipe.asis:
        keep = np.ones(len(norm_types), dtype=bool)
    else:
        reference = splits == "train"
        if recipe.vocab_from == "all":
            reference = np.ones(splits.size, dtype=bool)
        if not reference.any():
            raise ValueError(f"vocab_from='train' but no document of {raw.dataset} is in train")
        keep, filters = vocabulary_filter(offsets, ids, len(norm_types), reference, recipe)
        out(f"vocabulary filters ({recipe.vocab_from} documents): {filters}")
    final_ids = np.cumsum(keep) - 1
    offsets, ids = _remap(offsets, ids, np.where(keep, final_ids, -1))
    vocab = [w for w, k in zip(norm_types, keep, strict=True) if k]

    lengths = np.diff(offsets)
    empty = lengths == 0
    dropped = {str(s): int(n) for s, n in Counter(splits[empty].tolist()).items()}
    out(f"dropped {int(empty.sum())} empty documents {dropped}; kept {int((~empty).sum())}, "
        f"V = {len(vocab)}, {ids.size} tokens")
    kept = np.flatnonzero(~empty)
    docs = [ids[offsets[d] : offsets[d + 1]] for d in kept]
    meta = {
        "dataset": raw.dataset,
        "recipe": recipe.name,
        "recipe_settings": recipe.settings(),
        # how held-out text is split into words as this corpus's text was
        "tokenizer": from_recipe(recipe.name, recipe.settings(),
                                 res.stopwords if recipe.stopwords != "none" else ()),
        "ordered": raw.ordered,
        "vocab_named": raw.vocab_named,
        "docs_read": len(raw.docs),
        "docs_dropped_empty": dropped,
        "docs_kept": int(kept.size),
        "vocab_size": {
            "read": len(types),
            "after_word_steps": len(norm_types),
            "final": len(vocab),
        },
        "types_dropped_by_word_steps": dict(sorted(reasons.items())),
        "vocabulary_filters": filters,
        "reader_notes": raw.notes,
        "log": out.lines,
    }
    return Corpus.from_documents(
        docs,
        vocab=np.array(vocab, dtype=str),
        names=[raw.docs[d].name for d in kept],
        split=splits[kept].tolist(),
        meta=meta,
    )
