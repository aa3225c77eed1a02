"""One entry point per (dataset, recipe): read the raw files, split, subsample, preprocess.

``build_corpus(dataset, raw_dir, recipe, options, nltk_data, log) -> Corpus`` is what the
workflow's preprocessing rule calls.  ``raw_dir`` is laid out like the data mirror (the
download rule's destination, or the mirror itself); ``options`` is one flat mapping holding

* split options: ``split`` (``archive``: the source's own split, the default for 20 Newsgroups;
  ``none``: all documents ``train``, the default elsewhere; ``random`` with ``test_fraction`` or
  ``test_size``; ``modapte`` for Reuters-21578), ``seed`` (default 0), ``max_docs`` (per split);
* reader options of the dataset (NIPS: ``join_hyphenated``, ``exclude``);
* any recipe setting (see ``topiceval.data.preprocess.Recipe``), overriding the recipe's default.

Unknown keys raise ``ValueError``.  The corpus meta records the dataset, recipe and settings,
the split options, the ordered flag, documents read / sampled / dropped empty and vocabulary
sizes before and after the filters.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from topiceval.corpus import Corpus
from topiceval.data import readers
from topiceval.data.preprocess import apply_recipe, load_resources, make_recipe
from topiceval.data.readers.base import RawCorpus
from topiceval.data.sources import source_files
from topiceval.data.splits import assign_splits, subsample
from topiceval.validation import is_integer

_LOG = logging.getLogger(__name__)
SPLIT_OPTIONS = ("split", "test_fraction", "test_size", "seed", "max_docs")


@dataclass(frozen=True)
class DatasetSpec:
    """How to read one dataset: its source, reader, reader options and default split."""

    source: str
    read: Callable[[list[Path], dict], RawCorpus]
    reader_options: tuple[str, ...] = ()
    default_split: str = "none"
    modapte: bool = False


DATASETS: dict[str, DatasetSpec] = {
    "20newsgroups": DatasetSpec(
        "20newsgroups", lambda f, o: readers.read_newsgroups(f[0]), default_split="archive"
    ),
    "nips": DatasetSpec(
        "nips", lambda f, o: readers.read_nips(f[0], **o), ("join_hyphenated", "exclude")
    ),
    "reuters21578": DatasetSpec(
        "reuters21578",
        lambda f, o: readers.read_reuters21578(f, modapte=o.get("modapte", False)),
        modapte=True,
    ),
    "ap": DatasetSpec("ap", lambda f, o: readers.read_ldac(f[0], f[1], "ap")),
    "kos": DatasetSpec("kos", lambda f, o: readers.read_uci_docword(f[0], "kos")),
    "searchsnippets": DatasetSpec(
        "searchsnippets", lambda f, o: readers.read_sttm(f[0], f[1], "searchsnippets")
    ),
    "tweet": DatasetSpec("tweet", lambda f, o: readers.read_sttm(f[0], f[1], "tweet")),
    "reuters_lda": DatasetSpec(
        "reuters_lda", lambda f, o: readers.read_ldac(f[0], f[1], "reuters_lda")
    ),
}

# The recipes that correspond to a paper's use of each dataset (for the default config and the
# corpus statistics table).
DEFAULT_RECIPES: dict[str, tuple[str, ...]] = {
    "20newsgroups": ("bechard2018", "wallach2009", "capdevila2018"),
    "nips": ("wallach2009", "capdevila2018"),
    "reuters21578": ("capdevila2018",),
    "ap": ("asis", "capdevila2018"),
    "kos": ("asis",),
    "searchsnippets": ("asis", "capdevila2018"),
    "tweet": ("asis", "capdevila2018"),
    "reuters_lda": ("asis",),
}


def raw_files(dataset: str, raw_dir: str | os.PathLike) -> list[Path]:
    """The dataset's files under ``raw_dir`` (registry layout); ``ValueError`` if one is missing."""
    spec = _spec(dataset)
    paths = [Path(raw_dir) / f.path for f in source_files(spec.source)]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise ValueError(f"{dataset}: raw files missing (fetch them first): {missing}")
    return paths


def _spec(dataset: str) -> DatasetSpec:
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; known datasets: {sorted(DATASETS)}")
    return DATASETS[dataset]


def _split_options(spec: DatasetSpec, dataset: str, opts: dict) -> tuple[str, bool, dict]:
    split = opts.get("split", spec.default_split)
    modapte = split == "modapte"
    if modapte and not spec.modapte:
        raise ValueError(f"split 'modapte' applies to reuters21578 only, not {dataset}")
    policy = "archive" if modapte else split
    seed = opts.get("seed", 0)
    if not is_integer(seed) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    max_docs = opts.get("max_docs")
    if max_docs is not None and not is_integer(max_docs):
        raise ValueError(f"max_docs must be an integer, got {max_docs!r}")
    return policy, modapte, {"seed": seed, "max_docs": max_docs}


def build_corpus(
    dataset: str,
    raw_dir: str | os.PathLike,
    recipe: str,
    options: dict | None = None,
    nltk_data: str | os.PathLike | None = None,
    log: logging.Logger | None = None,
) -> Corpus:
    """Read ``dataset`` from ``raw_dir``, split and preprocess it with ``recipe``."""
    log = log or _LOG
    spec = _spec(dataset)
    opts = dict(options or {})
    reader_opts = {k: opts.pop(k) for k in spec.reader_options if k in opts}
    split_opts = {k: opts.pop(k) for k in SPLIT_OPTIONS if k in opts}
    try:
        recipe_obj = make_recipe(recipe, opts)
    except ValueError as exc:
        allowed = (*SPLIT_OPTIONS, *spec.reader_options)
        raise ValueError(f"{dataset}: {exc} (or split/reader options {list(allowed)})") from None
    policy, modapte, sample = _split_options(spec, dataset, split_opts)
    if modapte:
        reader_opts["modapte"] = True
    resources = load_resources(recipe_obj, nltk_data)

    raw = spec.read(raw_files(dataset, raw_dir), reader_opts)
    n_read = len(raw.docs)
    splits = assign_splits(
        [d.split for d in raw.docs],
        policy,
        test_fraction=split_opts.get("test_fraction"),
        test_size=split_opts.get("test_size"),
        seed=sample["seed"],
    )
    keep = subsample(splits, sample["max_docs"], sample["seed"])
    if keep.size < n_read:
        log.info("%s: max_docs=%s keeps %d of %d documents", dataset, sample["max_docs"],
                 keep.size, n_read)
        raw.docs = [raw.docs[i] for i in keep]
        splits = splits[keep]
    corpus = apply_recipe(raw, recipe_obj, splits, resources, log)
    corpus.meta.update(
        {
            "docs_read": n_read,
            "docs_sampled": int(keep.size),
            "split_policy": "modapte" if modapte else policy,
            "split_options": {k: v for k, v in split_opts.items() if k != "split"},
            "reader_options": {k: v for k, v in reader_opts.items() if k != "modapte"},
            "split_sizes": {
                str(s): int(n)
                for s, n in zip(*np.unique(corpus.split, return_counts=True), strict=True)
            },
        }
    )
    return corpus
