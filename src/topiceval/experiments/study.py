"""A study: which of *your* topic models is best on *your* documents, and by how much.

One ``study:`` block of the workflow's configuration (``config/study-example.yaml``; reference
``config/README.md``) names a corpus, how its held-out documents are chosen, a preprocessing
recipe, the models the workflow trains (every trainer x number of topics x seed) and models
trained elsewhere (files).  The workflow (``workflow/rules/study.smk``) then

1. builds the study's corpus (:func:`corpus_job`): the held-out documents are never a model's
   training documents, and every candidate is trained and scored over one vocabulary (the
   training documents' words that every model file knows), so that all candidates score the
   same tokens;
2. trains each candidate (:func:`train_job`) or imports it (:func:`import_job`), and computes
   the library's own number on the held-out documents (``topiceval.adapters.own_number``);
3. estimates every scored held-out document under every candidate with topiceval's default
   estimator for its length (``topiceval.by_length``: Chib-style below 100 tokens,
   bridge-theta from there; runs averaged in probability; a ProdLDA candidate, trainer
   ``prodlda``, is a ``LogisticNormalModel`` scored by that family's default ``is_laplace``:
   :func:`model_parts`), in jobs cut at equal predicted work
   (:func:`estimate_job`, ``experiments.tasks.work_blocks``), an untrusted estimate re-run
   once with :data:`RERUN_FACTOR` times the runs;
4. compares them (:func:`summary_job`): totals with their errors (``experiments.paired``),
   per-document paired differences against the best, ties within two standard errors, and
   beside them each candidate's coherence and stability (``topiceval.study_quality``);
5. runs ratio-AIS with the reciprocal check between the best and each tie with the same number
   of topics, its topics relabelled to match the best's (:func:`ratio_ais_job`,
   :func:`matched_topics`); and draws the figure with its verdict
   (``topiceval.plots.study``).

Outputs (``results/studies/<name>/``): ``candidates.csv``, ``documents.csv``, ``paired.csv``,
``ratio_ais.csv``, ``perplexity.<fmt>`` and ``perplexity.caption.md``.  The columns are listed
in :data:`CANDIDATE_COLUMNS` and the others below, and in docs/methods/experiments.md#study.

Bad input is refused before any job starts (:func:`study_plan` for the configuration,
:func:`check_data` for the files: the snakefile calls both while it builds the jobs).
"""

from __future__ import annotations

import dataclasses
import errno
import gzip
import hashlib
import importlib.util
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from topiceval import by_length, error_bars, regimes
from topiceval._docs import page
from topiceval.adapters._common import INSTALL_HINT
from topiceval.corpus import Corpus
from topiceval.diagnostics import reason_counts
from topiceval.estimators import lda
from topiceval.estimators.lda import registry
from topiceval.evaluation import (
    DEFAULT_RUNS,
    DEFAULTS,
    LONG_DOCUMENT,
    combine_runs,
    combine_upper,
)
from topiceval.experiments.paired import (
    paired_difference,
    sample_positions,
    sampled_total,
)
from topiceval.experiments.tasks import work_blocks
from topiceval.experiments.timings import write_split
from topiceval.io import write_csv_atomic, write_text_atomic
from topiceval.logistic_normal import runs as ln_runs
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.models import LDAModel, load_model, save_model
from topiceval.seeds import derive_seed, generator
from topiceval.study_quality import QUALITY_COLUMNS, coherence_settings, with_quality
from topiceval.tokenizer import of_corpus
from topiceval.training import prodlda

# prodlda trains a logistic-normal model (topiceval.logistic_normal): scored by that family's
# default method (evaluation.DEFAULTS["logistic_normal"]), not by estimate.method; no ratio-AIS
TRAINERS = ("gibbs", "vem", "sklearn", "gensim", "tomotopy", "prodlda")
FILE_LIBRARIES = ("mallet", "tomotopy", "gensim", "topiceval")
# the library whose model a trainer (or a model file) is, for tables and figures
LIBRARY_NAME = {"gibbs": "topiceval", "vem": "topiceval", "sklearn": "scikit-learn",
                "gensim": "gensim", "tomotopy": "tomotopy", "prodlda": "pyro",
                "mallet": "MALLET",
                "topiceval": "topiceval"}
PEER_MODULES = {"sklearn": ("sklearn", "scikit-learn"), "gensim": ("gensim", "gensim"),
                "tomotopy": ("tomotopy", "tomotopy"),
                "prodlda": ("pyro", "pyro-ppl")}  # trainer / library: (module, package)
TRAIN_DEFAULTS = {  # each library's own priors; effort settings below
    "gibbs": {"sweeps": 500},
    "vem": {"max_iter": 100, "tol": 1e-5},
    "sklearn": {"max_iter": 50},
    "gensim": {"passes": 10, "iterations": 100},
    "tomotopy": {"sweeps": 500},
    "prodlda": dict(prodlda.SETTINGS),
}
ESTIMATE_DEFAULTS = {"method": "auto", "runs": None, "seed": 0, "parts": 1, "settings": {}}
COMPARE_DEFAULTS = {"docs": 100, "samples": 1, "temperatures": 100, "seed": 0}
MIN_OVERLAP = 0.5  # default: the share of the corpus's tokens a model file must know
UNCONVERGED_SHARE = 0.1  # ratio-AIS says nothing when more of its documents are suspect
MIN_FOUND = 0.5  # below this share of its training documents placed: another corpus
# libraries whose files record their training documents (their bags, MALLET also a source)
RECORDING_LIBRARIES = ("mallet", "tomotopy")
# a training document is placed at every corpus document whose bag of words, over the words
# both know, has a cosine similarity to its own of at least SAME_DOCUMENT_COSINE and within
# PLACEMENT_MARGIN of the best (:func:`locate_training`).  Measured by
# benchmarks/study_placement.py on 2,500 Reuters-21578 articles tokenized as MALLET's import
# does: a document's cosine to itself is at least 0.73 (median 0.97), and at most 0.14 below
# its best match (149 of the 2,500 match a near-duplicate better than themselves)
SAME_DOCUMENT_COSINE = 0.6
PLACEMENT_MARGIN = 0.15
_KEY_HELDOUT = "study-heldout"  # stream purpose: the drawn held-out documents

CANDIDATE_COLUMNS = {
    "candidate": "the candidate's name (trainer-T<topics>-seed<seed>, or its key under models:)",
    "library": "the library whose model it is",
    "trainer": "the workflow's trainer, or 'file' for a model trained elsewhere",
    "topics": "number of topics T",
    "seed": "training seed (empty for a model file)",
    "vocabulary": "words in the model's vocabulary",
    "documents": "held-out documents scored (all of them, or the seeded sample)",
    "heldout_documents": "held-out documents",
    "tokens": "tokens of all the held-out documents",
    "log_likelihood": "total log-likelihood of the held-out documents (nats; estimated from "
                      "the sample in sampled mode)",
    "log_likelihood_se": "its standard error: Monte Carlo, plus sampling in sampled mode",
    "se_sampling": "the sampling part of the standard error (0 when every document is scored)",
    "se_monte_carlo": "the Monte Carlo part",
    "dominant_error": "which part is larger",
    "nats_per_token": "log_likelihood / tokens",
    "perplexity": "exp(-nats_per_token)",
    "perplexity_low": "perplexity at log_likelihood + 2 se (Monte Carlo: these documents)",
    "perplexity_high": "perplexity at log_likelihood - 2 se (Monte Carlo: these documents)",
    "nats_per_token_se": "the standard error of nats_per_token allowing for which documents "
                         "were held out (the delta method over documents, with the Monte "
                         "Carlo error: :func:`per_token_se`)",
    "perplexity_docs_low": "perplexity at nats_per_token + 2 nats_per_token_se: the interval "
                           "for documents like these, not only these",
    "perplexity_docs_high": "perplexity at nats_per_token - 2 nats_per_token_se",
    "log_likelihood_upper": "with estimate method bdmc: the total of the documents' stochastic "
                            "upper bounds (reverse annealing from the forward runs' final "
                            "states: approximate); empty for the other methods",
    "gap_per_token": "(log_likelihood_upper - log_likelihood) / tokens: how far from converged "
                     "the estimates can be, per token; empty for the other methods",
    "rank": "1 = the best total log-likelihood",
    "verdict": "best, tie (z <= 2: within 2 paired standard errors of the best) or worse "
               "(z > 2)",
    "difference_to_best": "sum over the scored documents of log P(best) - log P(this) (nats)",
    "difference_se": "its paired standard error (paired.csv)",
    "z": "difference_to_best / difference_se: the verdict's rule (tie when z <= 2)",
    "grid_edge": "on the best: 'largest T' or 'smallest T' when its number of topics is at an "
                 "edge of train.topics (the optimum may lie beyond: extend the grid); empty "
                 "otherwise",
    "verdict_trusted_only": "the verdict recomputed on the scored documents that no candidate's "
                            "estimate is untrusted on",
    "tokens_dropped": "held-out tokens of the recipe dropped before scoring (every candidate "
                      "scores the same tokens)",
    "tokens_dropped_by_reason": "those tokens per reason: not in the recipe's vocabulary of "
                                "the training documents, or unknown to a model file",
    "words_dropped": "the 20 words most dropped, with their tokens",
    "untrusted_by_any": "scored documents that some candidate's estimate is untrusted on",
    "settled": "whether every candidate's verdict is the same without those documents (False: "
               "the verdict is not settled)",
    "rerun_documents": "scored documents whose first estimate the diagnostics did not trust, "
                       "estimated again with RERUN_FACTOR (4) times the runs before the verdict "
                       "(documents.csv, rerun)",
    "untrusted_documents": "scored documents whose estimate the diagnostics do not trust, "
                           "after that re-run (topiceval.diagnostics, " + page("trust.md") + ")",
    "untrusted_reason": "why: each diagnostic that flagged them and on how many documents",
    "method": "the estimator: its name, or for method auto the methods of topiceval's default "
              "that scored the documents, joined by '+' (chib below 100 tokens, bridge_theta "
              "from 100: documents.csv, method)",
    "method_documents": "how many scored documents each method estimated ('chib on 31 and "
                        "bridge_theta on 9')",
    "runs": "runs per document, averaged in probability",
    "own_api": "the library's own number: the call",
    "own_kind": "what it is (a variational bound, a plug-in, a joint, left-to-right as MALLET)",
    "own_split": "held-out (on all the held-out documents) or training",
    "own_value": "the value as the library reports it",
    "own_value_name": "what that value is",
    "own_nats_per_token": "the own number in nats per token",
    "own_perplexity": "exp(-own_nats_per_token)",
    "own_tokens": "the tokens it covers",
    "own_note": "what to know when comparing it",
    **QUALITY_COLUMNS,
}
DOCUMENT_COLUMNS = ["candidate", "doc", "name", "tokens", "method", "logp", "stderr",
                    "shared_stderr", "upper", "long", "trusted", "reason", "rerun"]
PAIRED_COLUMNS = ["candidate", "best", "documents", "difference", "difference_se",
                  "se_sampling", "se_monte_carlo", "difference_per_token", "z", "tie"]
RATIO_COLUMNS = ["best", "runner_up", "topics", "documents", "log_ratio", "log_ratio_se",
                 "estimate_difference", "estimate_difference_se", "reciprocal_gap_mean",
                 "suspect_documents", "agree", "verdict"]


# --------------------------------------------------------------------------- the plan
@dataclass(frozen=True)
class Candidate:
    """One model of the study: trained by the workflow (``trainer``, ``topics``, ``seed``) or
    read from a file (``trainer == "file"``, ``path``, ``file_library``)."""

    name: str
    library: str
    trainer: str
    topics: int | None = None
    seed: int | None = None
    path: str | None = None
    file_library: str | None = None
    trained_on: object = None  # a file's declared training documents (:func:`_declaration`)


@dataclass(frozen=True)
class CorpusPlan:
    """What the study's corpus depends on (and nothing else, so that changing the trainers
    never rebuilds it): its source, held-out choice, recipe and the model files."""

    name: str
    corpus: dict
    heldout: dict
    preprocess: dict
    files: tuple[Candidate, ...]
    min_overlap: float

    def input_files(self) -> list[str]:
        """The user's files the corpus job reads (corpus, held-out documents, model files)."""
        paths = [spec[key] for spec in (self.corpus, self.heldout)
                 for key in ("texts", "csv", "jsonl", "uci", "vocab") if key in spec]
        declared = [c.trained_on["texts"] for c in self.files
                    if isinstance(c.trained_on, Mapping)]
        return paths + [c.path for c in self.files] + declared

    def as_params(self) -> dict:
        """Plain data for a rule's ``params`` (:meth:`from_params` reads it back)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_params(cls, params: Mapping) -> CorpusPlan:
        params = dict(params)
        params["files"] = tuple(Candidate(**dict(c)) for c in params["files"])
        return cls(**params)

    def needs_nltk(self) -> bool:
        """Whether the recipe needs NLTK data (its stop words or WordNet)."""
        recipe = self.recipe()
        return "nltk" in recipe.stopwords or recipe.normalize == "wordnet"

    def recipe(self):
        from topiceval.data.preprocess import make_recipe

        settings = {k: v for k, v in self.preprocess.items() if k != "recipe"}
        return make_recipe(self.preprocess.get("recipe", "default"), settings)


@dataclass(frozen=True)
class StudyPlan:
    """A ``study:`` configuration block, checked and with its defaults."""

    data: CorpusPlan
    candidates: tuple[Candidate, ...]
    train: dict
    estimate: dict
    sample: dict | None
    compare: dict
    coherence: dict = dataclasses.field(default_factory=coherence_settings)

    @property
    def name(self) -> str:
        return self.data.name

    @property
    def trained(self) -> list[Candidate]:
        return [c for c in self.candidates if c.trainer != "file"]

    @property
    def files(self) -> list[Candidate]:
        return [c for c in self.candidates if c.trainer == "file"]

    def candidate(self, name: str) -> Candidate:
        for c in self.candidates:
            if c.name == name:
                return c
        raise ValueError(f"study {self.name!r} has no candidate {name!r}")


def study_plan(cfg: Mapping, *, mirror: str | None = None) -> StudyPlan:
    """The checked plan of a ``study:`` block (one-line ``ValueError`` for bad input).

    Checks what the configuration alone can tell: the name, one corpus source, the held-out
    choice, known trainers and libraries, the peer libraries installed, the model files present,
    no two candidates of one name, the estimator's method and settings, the recipe.
    """
    if missing := [key for key in ("name", "corpus") if key not in cfg]:
        raise ValueError(f"study.{missing[0]}: missing; a study names itself (name:) and its "
                         "corpus (corpus: {dataset: ap}, {texts: FOLDER}, {csv: FILE, column: "
                         "text}, ...; config/study-example.yaml)")
    name = str(cfg["name"])
    corpus = _source(cfg["corpus"], "study.corpus", dataset_ok=True)
    heldout = _heldout(dict(cfg.get("heldout") or {"fraction": 0.1, "seed": 0}), corpus)
    candidates, settings = _train_grid(dict(cfg.get("train") or {}))
    explicit = not ({"fraction", "size"} & set(heldout))
    candidates += [_file_candidate(str(key), dict(spec), mirror, explicit)
                   for key, spec in (cfg.get("models") or {}).items()]
    names = [c.name for c in candidates]
    if dup := sorted({n for n in names if names.count(n) > 1}):
        raise ValueError(f"study.models: {dup} is also the name of a trained candidate; "
                         "rename the model file's key")
    if len(candidates) < 2:
        raise ValueError(f"study {name!r} has {len(candidates)} candidate(s); a study compares "
                         "at least two (train: and models:)")
    estimate = {**ESTIMATE_DEFAULTS, **dict(cfg.get("estimate") or {})}
    # unknown method or setting: refused now (for auto, a document on each side of 100 tokens)
    from_tokens = by_length.LONG_DEFAULTS["lda"][0]
    parts, runs = estimate_parts(estimate, np.array([1, from_tokens]))
    for part in parts:
        lda.check_limits(part.method, [np.zeros(1, np.int64)], np.ones((1, 1)), runs=runs,
                         work_limit=None, **part.settings)
    data = CorpusPlan(name, corpus, heldout, dict(cfg.get("preprocess") or {"recipe": "default"}),
                      tuple(c for c in candidates if c.trainer == "file"),
                      float(cfg.get("min_overlap", MIN_OVERLAP)))
    data.recipe()  # an unknown recipe or setting: refused now
    return StudyPlan(data, tuple(candidates), settings, estimate,
                     dict(cfg["sample"]) if cfg.get("sample") else None,
                     {**COMPARE_DEFAULTS, **dict(cfg.get("compare") or {})},
                     coherence_settings(cfg.get("coherence")))


def _heldout(heldout: dict, corpus: Mapping) -> dict:
    """The held-out choice: fraction or size (with a seed), or files of their own."""
    if "texts" in heldout or "csv" in heldout or "jsonl" in heldout:
        _source(heldout, "study.heldout", dataset_ok=False)
        if "dataset" in corpus:
            raise ValueError("study.heldout: held-out files go with a corpus from files, not "
                             f"with {{dataset: {corpus['dataset']}}}; use fraction or size")
    elif not ({"fraction", "size"} & set(heldout)) or {"fraction", "size"} <= set(heldout):
        raise ValueError("study.heldout: give one of fraction (with seed), size (with seed) or "
                         "held-out files (texts, csv or jsonl)")
    return heldout


def _train_grid(train: dict) -> tuple[list[Candidate], dict]:
    """(the trained candidates: every trainer x topics x seed, each trainer's settings)."""
    trainers = list(dict.fromkeys(train.get("trainers", [])))
    if unknown := [t for t in trainers if t not in TRAINERS]:
        raise ValueError(f"study.train.trainers: unknown trainer(s) {unknown}; known: "
                         f"{list(TRAINERS)}")
    for trainer in trainers:
        _installed(trainer, f"study.train.trainers: {trainer}")
    topics = sorted({int(t) for t in train.get("topics", [])})
    seeds = list(dict.fromkeys(int(s) for s in train.get("seeds", [0])))
    if trainers and not topics:
        raise ValueError("study.train.topics: give at least one number of topics")
    given = dict(train.get("settings") or {})
    for t, values in given.items():
        if t not in TRAINERS:
            raise ValueError(f"study.train.settings: unknown trainer {t!r}; known: "
                             f"{list(TRAINERS)}")
        if unknown := sorted(set(values or {}) - set(TRAIN_DEFAULTS[t])):
            raise ValueError(f"study.train.settings.{t}: unknown setting(s) {unknown}; "
                             f"known: {sorted(TRAIN_DEFAULTS[t])}")
    settings = {t: {**TRAIN_DEFAULTS[t], **dict(given.get(t) or {})} for t in TRAINERS}
    return [Candidate(f"{t}-T{k}-seed{s}", LIBRARY_NAME[t], t, k, s)
            for t in trainers for k in topics for s in seeds], settings


SOURCES = {"texts": (), "csv": ("column",), "jsonl": ("field",), "uci": ("vocab",),
           "dataset": ()}
SOURCE_OPTIONS = ("max_docs",)


def _source(spec: Mapping, where: str, *, dataset_ok: bool) -> dict:
    """A corpus source: exactly one of texts, csv (+ column), jsonl (+ field), uci (+ vocab),
    dataset; its files must exist."""
    spec = dict(spec)
    if not dataset_ok and "max_docs" in spec:
        raise ValueError(f"{where}: max_docs applies to the corpus only")
    kinds = [k for k in SOURCES if k in spec and (dataset_ok or k != "dataset")]
    if len(kinds) != 1:
        allowed = [k for k in SOURCES if dataset_ok or k != "dataset"]
        raise ValueError(f"{where}: give exactly one source of {allowed}, got "
                         f"{sorted(set(spec) - set(SOURCE_OPTIONS))}")
    kind = kinds[0]
    for extra in SOURCES[kind]:
        if extra not in spec:
            raise ValueError(f"{where}: {kind} needs {extra}")
    for key in (kind, *SOURCES[kind]):
        if key in ("texts", "csv", "jsonl", "uci", "vocab"):
            path = Path(spec[key])
            if not (path.is_dir() if key == "texts" else path.is_file()):
                raise ValueError(f"{where}.{key}: "
                                 + unreadable(path, "folder" if key == "texts" else "file"))
            if not os.access(path, os.R_OK):
                raise ValueError(f"{where}.{key}: {path} cannot be read (permissions)")
    return spec


def _installed(what: str, where: str) -> None:
    """Refuse a trainer or library whose peer package is not installed, naming the extra."""
    if what in PEER_MODULES and importlib.util.find_spec(PEER_MODULES[what][0]) is None:
        package = PEER_MODULES[what][1]
        command = (f"pip install 'topiceval-heldout[{prodlda.EXTRA}]'" if what == "prodlda"
                   else f"pip install {package}")
        raise ValueError(f"{where} needs the {package!r} package, which is not installed: "
                         f"{command} {INSTALL_HINT}")


def _file_candidate(key: str, spec: dict, mirror: str | None, explicit: bool) -> Candidate:
    where = f"study.models.{key}"
    library = spec.get("library")
    if library not in FILE_LIBRARIES:
        raise ValueError(f"{where}.library: unknown library {library!r}; known: "
                         f"{list(FILE_LIBRARIES)}")
    _installed(library, where)
    if ("path" in spec) == ("mirror" in spec):
        raise ValueError(f"{where}: give path (a file) or mirror (a file of the data mirror)")
    if "mirror" in spec:
        if not mirror:
            raise ValueError(f"{where}.mirror: no data_mirror is set (--config data_mirror=DIR)")
        path = Path(mirror) / spec["mirror"]
    else:
        path = Path(spec["path"])
    if not path.is_file():
        raise ValueError(f"{where}: " + unreadable(path, "file"))
    trained_on = _declaration(spec.get("trained_on"), where)
    if library not in RECORDING_LIBRARIES and trained_on is None and not explicit:
        raise ValueError(
            f"{where}: a {library} file records no training documents, so the study cannot keep "
            "them out of the held-out draw; declare them (trained_on: split, after training on "
            "the split that `topiceval study CONFIG --split DIR` writes; a list of document "
            "names; or {texts: FOLDER}), or give held-out files of their own (heldout: {texts: "
            "FOLDER})")
    return Candidate(key, LIBRARY_NAME[library], "file", path=str(path), file_library=library,
                     trained_on=trained_on)


def _declaration(value, where: str):
    """A model file's declared training documents: ``"split"`` (the study's training split),
    a list of the corpus's document names, or ``{"texts": FOLDER}`` (their texts)."""
    if value is None or value == "split":
        return value
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        return list(value)
    if isinstance(value, Mapping) and set(value) == {"texts"}:
        if not Path(value["texts"]).is_dir():
            raise ValueError(f"{where}.trained_on.texts: "
                             + unreadable(Path(value["texts"]), "folder"))
        return {"texts": str(value["texts"])}
    raise ValueError(f"{where}.trained_on: {value!r}; give split, a list of document names or "
                     "{texts: FOLDER}")


def unreadable(path: Path, what: str) -> str:
    """"PATH is not a readable WHAT", saying where a relative path was looked for (the
    workflow's folder, where Snakemake runs)."""
    where = "" if path.is_absolute() else (f" (a relative path is read from {Path.cwd()}, "
                                           "where the workflow runs: give an absolute path)")
    return f"{path} is not a readable {what}{where}"


def estimate_parts(estimate: Mapping, lengths: np.ndarray
                   ) -> tuple[list[by_length.Part], int]:
    """(parts, runs) of the ``estimate:`` block on documents of ``lengths`` tokens (positions
    0 .. D-1): each part a method, its settings and its documents.

    A named method takes every document with the settings given.  ``auto`` is
    ``topiceval.evaluate``'s default by length (``topiceval.by_length.plan``): Chib-style
    (``evaluation.DEFAULTS["lda"]``) on documents of fewer than 100 tokens and bridge-theta at
    the budget of its regime (``by_length.LONG_DEFAULTS``) on longer ones, each given setting
    going to the default methods that have it (one that neither has is refused)."""
    method = estimate.get("method", "auto")
    runs = int(estimate.get("runs") or DEFAULT_RUNS["lda"])
    if runs < 2:
        raise ValueError(f"study.estimate.runs: {runs}; a standard error needs at least 2 runs")
    lengths = np.asarray(lengths, np.int64)
    try:
        parts = by_length.plan("lda", None if method == "auto" else method, DEFAULTS["lda"],
                               dict(estimate.get("settings") or {}), lengths,
                               np.arange(lengths.size))
    except ValueError as err:
        raise ValueError(f"study.estimate.settings: {err}") from None
    return parts, runs


def model_parts(model, estimate: Mapping, lengths: np.ndarray
                ) -> tuple[list[by_length.Part], int]:
    """(parts, runs) for ``model``: :func:`estimate_parts` for an LDA model; for a
    logistic-normal one (a neural trainer's), its family's default method and settings
    (``evaluation.DEFAULTS["logistic_normal"]``, as ``topiceval.evaluate`` would choose) on every
    document, with ``estimate.runs`` or the family's default runs (``estimate.method`` and
    ``estimate.settings`` are LDA's)."""
    if not isinstance(model, LogisticNormalModel):
        return estimate_parts(estimate, lengths)
    method, settings = DEFAULTS["logistic_normal"]
    runs = int(estimate.get("runs") or DEFAULT_RUNS["logistic_normal"])
    return [by_length.Part(method, dict(settings), np.arange(len(lengths)))], runs


def document_methods(parts: Sequence[by_length.Part], n_docs: int) -> np.ndarray:
    """(D,) str: the method of each document's part."""
    methods = np.full(n_docs, "", dtype=object)
    for part in parts:
        methods[part.docs] = part.method
    return methods


# --------------------------------------------------------------------------- the corpus
@dataclass
class ModelFile:
    """A model trained elsewhere: the imported model, its library's own object (for its own
    number), and its training documents as bags of words when the file holds them, with the
    source (file name) each was read from where it records one."""

    model: LDAModel
    native: object
    training: list[Counter] | None
    sources: list[str] | None = None


def read_candidate_model(candidate: Candidate) -> ModelFile:
    """Read a model file of the study (MALLET state, tomotopy or gensim save, topiceval .npz)."""
    path, library = candidate.path, candidate.file_library
    if library == "mallet":
        from topiceval.adapters import from_mallet

        bags, sources = _mallet_documents(path)
        return ModelFile(from_mallet(path), path, bags, sources)
    if library == "tomotopy":
        from topiceval.adapters import from_tomotopy
        from topiceval.adapters.tomotopy_lda import load_tomotopy

        native = load_tomotopy(path, "study")
        used = int(native.num_vocabs)
        words = list(native.vocabs)
        training = [Counter(words[i] for i in d.words if i < used) for d in native.docs]
        return ModelFile(from_tomotopy(native), native, training)
    if library == "gensim":
        from gensim.models import LdaModel

        from topiceval.adapters import from_gensim

        native = LdaModel.load(str(path))
        return ModelFile(from_gensim(native), native, None)
    model = load_model(path)
    if not isinstance(model, LDAModel):
        raise ValueError(f"{path}: a {model.family} model; a study compares LDA models")
    return ModelFile(model, None, None)


def _mallet_documents(path: str) -> tuple[list[Counter], list[str]]:
    """(the training documents of a MALLET state file as bags of words, their sources): each
    token line is ``doc source pos typeindex type topic``, the source possibly holding spaces,
    so ``doc`` is the first field, ``type`` the last but one and the source between them."""
    with open(path, "rb") as handle:
        gz = handle.read(2) == b"\x1f\x8b"
    with (gzip.open(path, "rt", encoding="utf-8") if gz else
          open(path, encoding="utf-8")) as handle:
        lines = pd.read_csv(handle, sep="\x01", header=None, names=["line"], skiprows=3,
                            dtype=str, keep_default_na=False, quoting=3)["line"]
    head, tail = lines.str.split(" ", n=1), lines.str.rsplit(" ", n=4)
    frame = pd.DataFrame({"doc": head.str[0], "type": lines.str.rsplit(" ", n=2).str[-2],
                          "source": tail.str[0].str.split(" ", n=1).str[1]})
    groups = frame.groupby("doc", sort=False)
    return ([Counter(g.tolist()) for _, g in groups["type"]],
            [str(g.iloc[0]) for _, g in groups["source"]])


def read_source(spec: Mapping, dataset_files: Sequence[str] = ()):
    """The ``RawCorpus`` of one source of the study."""
    from topiceval.data import readers
    from topiceval.data.prepare import DATASETS

    if "dataset" in spec:
        if spec["dataset"] not in DATASETS:
            raise ValueError(f"study.corpus.dataset: unknown dataset {spec['dataset']!r}; "
                             f"known: {sorted(DATASETS)}")
        return DATASETS[spec["dataset"]].read([Path(p) for p in dataset_files], {})
    if "texts" in spec:
        return readers.read_text_folder(spec["texts"])
    if "csv" in spec:
        return readers.read_csv_column(spec["csv"], spec["column"])
    if "jsonl" in spec:
        return readers.read_jsonl_field(spec["jsonl"], spec["field"])
    return readers.read_uci_named(spec["uci"], spec["vocab"])


def _bags(corpus: Corpus, words: set | None = None) -> list[tuple]:
    """Every document as a hashable bag of words (restricted to ``words`` when given)."""
    out = []
    for doc in corpus:
        found = Counter(corpus.vocab[doc].tolist())
        if words is not None:
            found = Counter({w: c for w, c in found.items() if w in words})
        out.append(tuple(sorted(found.items())))
    return out


def prepare_corpus(plan: CorpusPlan, dataset_files: Sequence[str] = (), nltk_data=None,
                   log=print) -> Corpus:
    """The study's corpus: split ``train`` (the candidates' training documents) and ``test``
    (the held-out documents), over the study's vocabulary.

    Raises ``ValueError`` (one line) for an empty or unreadable corpus, held-out documents that
    are training documents, a model file whose vocabulary shares too few words with the corpus,
    or one trained on another corpus.
    """
    from topiceval.data.preprocess import apply_recipe, load_resources
    from topiceval.data.readers.base import RawCorpus

    raw = read_source(plan.corpus, dataset_files)
    if plan.corpus.get("max_docs"):
        raw.docs = raw.docs[:int(plan.corpus["max_docs"])]
    explicit = not ({"fraction", "size"} & set(plan.heldout))
    if explicit:
        held = read_source(plan.heldout)
        for doc in held.docs:
            doc.name = f"heldout/{doc.name}"
        raw = RawCorpus(dataset=raw.dataset, kind=raw.kind, docs=raw.docs + held.docs,
                        vocab=raw.vocab, ordered=raw.ordered, vocab_named=raw.vocab_named)
    if not raw.docs:
        raise ValueError(f"study.corpus: {_describe(plan.corpus)} holds no document")
    recipe = plan.recipe()
    resources = load_resources(recipe, nltk_data)
    # pass 1: every document's words, no vocabulary filter (to recognise documents)
    open_recipe = recipe if recipe.asis else dataclasses.replace(
        recipe, vocab_from="all", min_count=1, min_df=1, max_df=1.0, top_k=0)
    first = apply_recipe(raw, open_recipe, np.full(len(raw.docs), "train"), resources)
    if first.n_docs == 0 or first.n_tokens == 0:
        raise ValueError(f"study.corpus: {_describe(plan.corpus)} has no word left after the "
                         f"{recipe.name!r} recipe")
    names = first.names.tolist()
    is_held = np.array([n.startswith("heldout/") for n in names])
    if explicit and not is_held.any():
        raise ValueError(f"study.heldout: {_describe(plan.heldout)} has no word left after the "
                         f"{recipe.name!r} recipe")
    models = {c.name: read_candidate_model(c) for c in plan.files}

    def tokenized(folder: str) -> Corpus:  # a declared folder of texts, as pass 1 reads
        texts = read_source({"texts": folder})
        return apply_recipe(texts, open_recipe, np.full(len(texts.docs), "train"), resources)

    trained_on = _check_models(plan, first, models, tokenized, log)
    drawn = {}
    if explicit:
        _check_disjoint(first, is_held, trained_on)
        test = set(np.array(names)[is_held].tolist())
    else:
        test, drawn = _draw_heldout(plan, names, _bags(first),
                                    set().union(*trained_on.values()), log)
    splits = np.array(["test" if d.name in test else "train" for d in raw.docs])
    corpus = apply_recipe(raw, recipe, splits, resources)
    train = corpus.select_split("train")
    recipe_words = set(train.vocab[np.unique(train.tokens)].tolist())
    corpus = _study_vocabulary(plan, corpus, models, trained_on, log)
    corpus.meta["study"].update(dropped_tokens(first, test, recipe_words, corpus, models, log))
    corpus.meta["study"].update(drawn)
    return corpus


def _describe(spec: Mapping) -> str:
    return ", ".join(f"{k}: {v}" for k, v in spec.items())


def _check_models(plan: CorpusPlan, first: Corpus, models: Mapping[str, ModelFile],
                  tokenized, log) -> dict[str, set]:
    """The corpus documents each model file was trained on (by name): those its file records
    (:func:`locate_training`) and those declared (``trained_on``; ``tokenized(folder)`` reads
    a declared folder of texts).  Refuse a model whose vocabulary covers too little of the
    corpus or one with a training document that cannot be placed in the corpus."""
    counts = np.bincount(first.tokens, minlength=first.n_types)
    declared = {c.name: c.trained_on for c in plan.files}
    found = {}
    for name, mf in models.items():
        known = set(mf.model.vocab.tolist())
        shared = np.array([w in known for w in first.vocab.tolist()])
        share = counts[shared].sum() / counts.sum()
        if share < plan.min_overlap:
            raise ValueError(
                f"study.models.{name}: its vocabulary shares {int(shared.sum()):,} of the "
                f"corpus's {first.n_types:,} words, {share:.1%} of its tokens; the study needs "
                f"at least {plan.min_overlap:.0%} (min_overlap): was it trained on this corpus, "
                "with this preprocessing?")
        log(f"{name}: vocabulary shares {int(shared.sum()):,} of {first.n_types:,} words "
            f"({share:.1%} of the tokens)")
        found[name] = set()
        if mf.training is not None:
            found[name] |= _placed(f"study.models.{name}", first, mf.training, mf.sources,
                                   known, log)
        what = declared.get(name)
        if isinstance(what, list):
            if unknown := [n for n in what if n not in set(first.names.tolist())]:
                raise ValueError(f"study.models.{name}.trained_on: {len(unknown):,} of the "
                                 f"{len(what):,} names are not documents of the corpus "
                                 f"({', '.join(unknown[:3])})")
            found[name] |= set(what)
        elif isinstance(what, Mapping):
            texts = tokenized(what["texts"])
            bags = [Counter(texts.vocab[d].tolist()) for d in texts]
            found[name] |= _placed(f"study.models.{name}.trained_on", first, bags,
                                   texts.names.tolist(), known, log)
    return found


def _placed(where: str, first: Corpus, bags: list[Counter], sources: list[str] | None,
            known: set, log) -> set:
    """The corpus documents of a model's training documents, refusing in one line when any
    cannot be placed (:func:`locate_training`)."""
    located, unplaced, empty = locate_training(first, bags, sources, known)
    n = len(bags)
    if n - len(unplaced) < MIN_FOUND * n:
        raise ValueError(
            f"{where}: only {n - len(unplaced):,} of its {n:,} training documents are documents "
            "of the corpus: it was trained on another corpus (a study compares models trained "
            "on one corpus)")
    if unplaced:
        raise ValueError(
            f"{where}: {len(unplaced):,} of its {n:,} training documents could not be placed in "
            f"the corpus (by file name, or by a bag of words of cosine at least "
            f"{SAME_DOCUMENT_COSINE} over the words both know), so they could be drawn as "
            "held-out documents; add them to the corpus, or declare the model's training "
            "documents (trained_on: a list of names or {texts: FOLDER})")
    log(f"{where}: all {n:,} training documents placed in the corpus ({empty:,} with no word "
        f"the corpus knows); {len(located):,} corpus documents kept out of the held-out draw")
    return {first.names[i] for i in located}


def _base(name: str) -> str:
    """A document's file name, from a corpus name or a MALLET source (``file:/a/b.txt``)."""
    return Path(name.removeprefix("file:")).name


def locate_training(first: Corpus, bags: Sequence[Counter], sources: Sequence[str] | None,
                    known: set) -> tuple[set[int], list[int], int]:
    """(the corpus documents a model's training documents are, the training documents placed
    nowhere, how many have no word of the corpus).

    A training document is placed at the corpus document of its file name where the file
    records one (a MALLET source, a declared folder's file), otherwise at every corpus
    document whose bag of words, counted
    over the words both the model and the corpus know, has cosine similarity
    ``sum_w a_w b_w / (|a| |b|)`` with its own of at least :data:`SAME_DOCUMENT_COSINE` and
    within :data:`PLACEMENT_MARGIN` of its best match: two tokenizers of one document disagree
    on a few words (hyphens, apostrophes, digits), and a near-duplicate that matches better
    than the document itself is kept out of the held-out draw with it.  A
    training document with no word the corpus knows taught the model nothing a held-out score
    reads, so it needs no place."""
    import scipy.sparse as sp

    words = known & set(first.vocab.tolist())
    keep = np.flatnonzero([w in words for w in first.vocab.tolist()])
    column = {w: j for j, w in enumerate(first.vocab[keep].tolist())}
    corpus = first.counts()[:, keep].astype(float)
    corpus = sp.diags(1 / np.maximum(np.sqrt(corpus.multiply(corpus).sum(1).A1), 1e-300)) @ corpus
    rows, cols, vals = [], [], []
    for i, bag in enumerate(bags):
        for w, c in bag.items():
            if w in column:
                rows.append(i), cols.append(column[w]), vals.append(float(c))
    train = sp.csr_matrix((vals, (rows, cols)), shape=(len(bags), keep.size))
    norms = np.sqrt(train.multiply(train).sum(1).A1)
    by_name: dict[str, list[int]] = {}
    for i, n in enumerate(first.names.tolist()):
        by_name.setdefault(_base(n), []).append(i)
    located, unplaced = set(), []
    for lo in range(0, len(bags), 512):  # bounded memory: 512 x corpus similarities at a time
        sims = (train[lo:lo + 512] @ corpus.T).toarray() / np.maximum(norms[lo:lo + 512, None],
                                                                     1e-300)
        for i, row in enumerate(sims, start=lo):
            named = by_name.get(_base(sources[i])) if sources and sources[i] not in ("NA", "") \
                else None
            hits = named if named and len(named) == 1 else np.flatnonzero(
                row >= max(SAME_DOCUMENT_COSINE, row.max() - PLACEMENT_MARGIN)).tolist()
            if hits:
                located.update(hits)
            elif norms[i] > 0:
                unplaced.append(i)
    return located, unplaced, int(np.sum(norms == 0))


def _check_disjoint(first: Corpus, is_held: np.ndarray, trained_on: Mapping[str, set]) -> None:
    """Explicit held-out documents: none may be a corpus document or a model's training one."""
    bags = _bags(first)
    train_bags = {b for b, h in zip(bags, is_held, strict=True) if not h}
    names = first.names
    same = [names[d] for d in np.flatnonzero(is_held) if bags[d] in train_bags]
    if same:
        raise ValueError(f"study.heldout: {len(same)} held-out document(s) are also training "
                         f"documents of the corpus ({', '.join(same[:3])}); a held-out set "
                         "must not overlap the training set")
    for model, docs in trained_on.items():
        if held := sorted(n for n in docs if n.startswith("heldout/")):
            raise ValueError(f"study.models.{model} was trained on {len(held)} of the held-out "
                             f"documents ({', '.join(held[:3])}); a held-out set must not "
                             "overlap the training set")


def _draw_heldout(plan: CorpusPlan, names: list[str], bags: list[tuple], excluded: set,
                  log) -> tuple[set, dict]:
    """(the held-out documents drawn, what the draw left out): the first ``wanted`` documents
    of a seeded random order of all documents that no model file was trained on and whose bag
    of words no other document has (a duplicate of a training document would be scored as
    held-out).  Taking them in one fixed order keeps the draw of ``--split`` when a model file
    trained on its training split is added."""
    seen = Counter(bags)
    duplicated = np.array([seen[b] > 1 for b in bags])
    trained = np.array([n in excluded for n in names])
    eligible = ~duplicated & ~trained
    wanted = (int(plan.heldout["size"]) if "size" in plan.heldout
              else int(round(float(plan.heldout["fraction"]) * len(names))))
    if wanted < 2 or wanted > eligible.sum() or wanted > len(names) - 1:
        raise ValueError(
            f"study.heldout: {wanted} held-out document(s) asked of {int(eligible.sum()):,} "
            f"eligible ({len(names):,} documents, {int(trained.sum()):,} of them a model file's "
            f"training documents, {int((duplicated & ~trained).sum()):,} others with the bag of "
            "words of another document); at least 2 held out and 1 left to train on")
    order = generator(int(plan.heldout.get("seed", 0)), _KEY_HELDOUT).permutation(len(names))
    test = {names[i] for i in order[eligible[order]][:wanted]}
    log(f"held-out documents drawn among the {int(eligible.sum()):,} eligible: "
        f"{int(trained.sum()):,} left out as a model file's training documents, "
        f"{int((duplicated & ~trained).sum()):,} as duplicates of another document's bag of "
        "words")
    return test, {"heldout_left_out_trained": int(trained.sum()),
                  "heldout_left_out_duplicates": int((duplicated & ~trained).sum())}


def _study_vocabulary(plan: CorpusPlan, corpus: Corpus, models: Mapping[str, ModelFile],
                      trained_on: Mapping[str, set], log) -> Corpus:
    """The corpus over the words of its training documents that every model file knows, its
    documents left empty dropped, and what was done recorded in ``meta["study"]``."""
    train = corpus.split == "train"
    seen = np.zeros(corpus.n_types, bool)
    seen[np.unique(corpus.tokens[np.repeat(train, corpus.lengths)])] = True
    keep = seen.copy()
    for mf in models.values():
        known = set(mf.model.vocab.tolist())
        keep &= np.array([w in known for w in corpus.vocab.tolist()])
    before = corpus
    corpus = corpus.align(corpus.vocab[keep], oov="drop")
    corpus = corpus.subset(np.flatnonzero(corpus.lengths > 0))
    held = corpus.select_split("test") if "test" in corpus.split else None
    if held is None or held.n_docs < 2:
        raise ValueError("study.heldout: fewer than 2 held-out documents have a word of the "
                         "study's vocabulary")
    if not np.any(corpus.split == "train"):
        raise ValueError("study.corpus: no training document is left")
    log(f"study vocabulary: {int(keep.sum()):,} words (of {before.n_types:,}); "
        f"{held.n_docs:,} held-out documents, {held.n_tokens:,} tokens")
    corpus.meta["study"] = {
        "name": plan.name,
        "vocabulary": int(keep.sum()),
        "words_dropped": int(before.n_types - keep.sum()),
        "restricted_by": sorted(models),
        "heldout_documents": held.n_docs,
        "heldout_tokens": held.n_tokens,
        "model_training_documents": {k: len(v) for k, v in trained_on.items()},
    }
    return corpus


DROPPED_WORDS_NAMED = 20  # the words most dropped from the held-out documents, named


def dropped_tokens(first: Corpus, test: set, recipe: set, corpus: Corpus,
                   models: Mapping[str, ModelFile], log) -> dict:
    """What the held-out documents lost between the recipe's tokens (``first``, no vocabulary
    filter) and the scored ones (``corpus``): tokens per reason (the first that applies: not in
    the recipe's vocabulary of the training documents, ``recipe``, then unknown to a model
    file) and the
    :data:`DROPPED_WORDS_NAMED` words most dropped, with their tokens."""
    held = np.flatnonzero([n in test for n in first.names.tolist()])
    counts = Counter(first.vocab[first.subset(held).tokens].tolist())
    scored = set(corpus.vocab.tolist())
    known = {name: set(mf.model.vocab.tolist()) for name, mf in models.items()}
    reasons: Counter = Counter()
    words: Counter = Counter()
    for word, n in counts.items():
        if word in scored:
            continue
        reason = ("not in the recipe's vocabulary of the training documents"
                  if word not in recipe else
                  "unknown to " + next(k for k, v in known.items() if word not in v))
        reasons[reason] += n
        words[word] += n
    total = sum(counts.values())
    named = words.most_common(DROPPED_WORDS_NAMED)
    if reasons:
        log(f"held-out tokens dropped: {sum(reasons.values()):,} of {total:,} ("
            + "; ".join(f"{r}: {n:,}" for r, n in reasons.most_common()) + "); most dropped: "
            + ", ".join(f"{w} ({n})" for w, n in named))
    return {"heldout_tokens_before": total,
            "heldout_tokens_dropped": int(sum(reasons.values())),
            "heldout_tokens_dropped_by_reason": dict(reasons.most_common()),
            "heldout_words_dropped": dict(named)}


def corpus_job(params: Mapping, dataset_files: Sequence[str], nltk_data, out) -> Corpus:
    """Rule ``study_corpus``: :func:`prepare_corpus` of the plan ``params``
    (``CorpusPlan.as_params``), saved."""
    corpus = prepare_corpus(CorpusPlan.from_params(params), dataset_files, nltk_data)
    corpus.save(out)
    return corpus


SPLIT_NAMES = {"train": "train", "test": "heldout"}  # corpus split -> the written split's name


def write_split_files(plan: CorpusPlan, dataset_files: Sequence[str], nltk_data, outdir,
                      log=print) -> dict[str, int]:
    """``topiceval study CONFIG --split DIR``: the study's training and held-out documents,
    before any model is trained, so that a model trained elsewhere on ``train`` is declared
    ``trained_on: split``.  For each of ``train`` and ``heldout``: ``<split>.jsonl`` (one
    document a line: ``name`` and its ``tokens`` after the study's recipe, over the study's
    vocabulary), ``<split>-counts.csv`` (``name, word, count``) and, when the source has texts,
    the folder ``<split>/`` of one text file per document, named by the document's name.
    Returns the documents written per split."""
    corpus = prepare_corpus(plan, dataset_files, nltk_data, log=log)
    texts = {d.name: d.text for d in read_source(plan.corpus, dataset_files).docs}
    if not ({"fraction", "size"} & set(plan.heldout)):
        texts.update({f"heldout/{d.name}": d.text for d in read_source(plan.heldout).docs})
    out = Path(outdir)
    written = {}
    for label, split in SPLIT_NAMES.items():
        part = corpus.select_split(label)
        tokens = [part.vocab[d].tolist() for d in part]
        names = part.names.tolist()
        lines = [json.dumps({"name": n, "tokens": t}) for n, t in zip(names, tokens, strict=True)]
        out.mkdir(parents=True, exist_ok=True)
        write_text_atomic(out / f"{split}.jsonl", "".join(line + "\n" for line in lines))
        rows = [(n, w, c) for n, t in zip(names, tokens, strict=True)
                for w, c in sorted(Counter(t).items())]
        write_csv_atomic(out / f"{split}-counts.csv",
                         pd.DataFrame(rows, columns=["name", "word", "count"]))
        for n in names:
            if texts.get(n):
                path = out / split / n.removeprefix("heldout/")
                path.parent.mkdir(parents=True, exist_ok=True)
                write_text_atomic(path, texts[n])
        written[split] = len(names)
    log(f"wrote {written['train']:,} training and {written['heldout']:,} held-out documents "
        f"to {out}/ (train.jsonl, train-counts.csv, train/; the same for heldout): train a "
        "model on train and declare it in the study with trained_on: split")
    return written


def check_data(plan: CorpusPlan, dataset_files: Sequence[str], nltk_data, stamp: str | os.PathLike,
               log=print) -> bool:
    """The data-level checks before any job starts: :func:`prepare_corpus` in memory, when
    every file it reads is there (``False`` otherwise: the corpus job runs them first).  A
    successful check is remembered in ``stamp`` (a fingerprint of the plan and of the files'
    sizes and times), so a later ``snakemake`` call on unchanged inputs skips it."""
    paths = [*dataset_files, *plan.input_files()]
    if nltk_data:
        paths.append(str(nltk_data))
    if not all(Path(p).exists() for p in paths):
        return False
    digest = hashlib.sha256(json.dumps([dataclasses.asdict(plan), _stat(paths)],
                                       sort_keys=True, default=str).encode()).hexdigest()
    stamp = Path(stamp)
    if stamp.is_file() and stamp.read_text().strip() == digest:
        return True
    prepare_corpus(plan, dataset_files, nltk_data, log=log)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(stamp, digest + "\n")
    return True


def _stat(paths) -> list:
    out = []
    for p in map(Path, paths):
        files = sorted(p.rglob("*")) if p.is_dir() else [p]
        out += [(str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files if f.is_file()]
    return out


# --------------------------------------------------------------------------- candidates
def scored_heldout(corpus: Corpus, sample: Mapping | None) -> tuple[Corpus, np.ndarray]:
    """(the held-out documents, the positions of those scored: all, or the seeded sample)."""
    held = corpus.select_split("test")
    n = None if not sample else int(sample["docs"])
    return held, sample_positions(held.n_docs, n, int((sample or {}).get("seed", 0)))


def train_candidate(train: Corpus, trainer: str, topics: int, seed: int,
                    settings: Mapping) -> tuple[LDAModel | LogisticNormalModel, object]:
    """(the model as an ``LDAModel``, or a ``LogisticNormalModel`` for a neural trainer, the
    library's own object) of one trained candidate."""
    train = train.subset(np.flatnonzero(train.lengths > 0))
    if trainer == "prodlda":
        fit = prodlda.fit_prodlda(train.counts(), train.vocab, topics, seed=seed, **settings)
        return prodlda.to_model(fit), fit
    if trainer == "gibbs":
        from topiceval.training.lda import fit_gibbs

        fit = fit_gibbs(train, topics, sweeps=int(settings["sweeps"]), seed=seed, threads=1)
        return fit.model, fit
    if trainer == "vem":
        from topiceval.training.lda import fit_vem

        fit = fit_vem(train, topics, max_iter=int(settings["max_iter"]),
                      tol=float(settings["tol"]), seed=seed, threads=1)
        return fit.model, fit
    if trainer == "sklearn":
        from sklearn.decomposition import LatentDirichletAllocation
        from threadpoolctl import threadpool_limits

        from topiceval.adapters import from_sklearn

        with threadpool_limits(limits=1):
            est = LatentDirichletAllocation(n_components=topics, learning_method="batch",
                                            max_iter=int(settings["max_iter"]),
                                            random_state=seed).fit(train.counts())
        return from_sklearn(est, train.vocab), est
    if trainer == "gensim":
        from gensim.models import LdaModel

        from topiceval.adapters import from_gensim

        counts = train.counts()
        bow = [list(zip(row.indices.tolist(), row.data.tolist(), strict=True)) for row in counts]
        # one chunk: gensim never learns a word absent from its first chunk
        # (benchmarks/peer_numbers.py, gensim_first_chunk_test)
        g = LdaModel(bow, id2word=dict(enumerate(train.vocab.tolist())), num_topics=topics,
                     passes=int(settings["passes"]), iterations=int(settings["iterations"]),
                     chunksize=len(bow), random_state=seed, eval_every=None)
        return from_gensim(g), g
    from topiceval.adapters import from_tomotopy
    from topiceval.adapters.tomotopy_lda import import_tomotopy

    mdl = import_tomotopy("study").LDAModel(k=topics, seed=seed)
    for doc in train:
        mdl.add_doc(train.vocab[doc].tolist())
    mdl.train(int(settings["sweeps"]), workers=1)
    return from_tomotopy(mdl), mdl


def _own_frame(native, words: list[list[str]], vocab, seed: int) -> pd.DataFrame:
    """The library's own number on the held-out documents, as one row (empty values for a
    model file without one: a topiceval .npz)."""
    from topiceval.adapters import own_number

    if native is None:
        return pd.DataFrame([{"own_kind": "", "own_note": "a topiceval model file: no own number"}])
    return pd.DataFrame([own_number(native, words, vocabulary=vocab, seed=seed).as_row()])


def _words(corpus: Corpus) -> list[list[str]]:
    return [corpus.vocab[d].tolist() for d in corpus]


def train_job(corpus_path, candidate: Mapping, settings: Mapping, model_path,
              own_path) -> LDAModel:
    """Rule ``study_train``: train one candidate on the training documents, save it and its
    library's own number on the held-out documents (all of them, also when only a sample is
    scored: a changed sample never retrains)."""
    candidate = Candidate(**dict(candidate))
    corpus = Corpus.load(corpus_path)
    train = corpus.select_split("train")
    say = progress(candidate.name)
    effort = TRAIN_EFFORT[candidate.trainer]
    seconds = train_seconds(train.n_tokens, candidate.trainer, int(candidate.topics), settings)
    cost = (f"about {seconds / 60:.1f} CPU minutes" if seconds >= 60 else
            f"about {seconds:.0f} CPU seconds" if seconds >= 2 else "under 2 CPU seconds")
    say(f"training on {train.n_docs:,} documents ({train.n_tokens:,} tokens), {effort} "
        f"{settings[effort]}: {cost} predicted")
    model, native = train_candidate(train, candidate.trainer, int(candidate.topics),
                                    int(candidate.seed), settings)
    if set(model.vocab.tolist()) != set(corpus.vocab.tolist()):
        raise ValueError(f"{candidate.name}: the trained model's vocabulary is not the study's")
    model.meta.update({"study_candidate": candidate.name, "corpus_checksum": train.checksum(),
                       "source_checksum": corpus.checksum(), "split": "train",
                       "tokenizer": of_corpus(corpus.meta)})
    held = corpus.select_split("test")
    if isinstance(native, prodlda.ProdLDAFit):
        own = pd.DataFrame([prodlda.elbo_own_number(native, held.counts(),
                                                    seed=int(candidate.seed)).as_row()])
    else:
        own = _own_frame(native, _words(held), train.vocab, int(candidate.seed))
    save_model(model_path, model)
    write_csv_atomic(own_path, own)
    say("trained, and its library's own number computed")
    return model


def import_job(corpus_path, candidate: Mapping, model_path, own_path) -> LDAModel:
    """Rule ``study_import``: a model file as an ``LDAModel`` and its own number on the
    held-out documents."""
    candidate = Candidate(**dict(candidate))
    corpus = Corpus.load(corpus_path)
    mf = read_candidate_model(candidate)
    mf.model.meta.update({"study_candidate": candidate.name})
    own = _own_frame(mf.native, _words(corpus.select_split("test")), None, 0)
    save_model(model_path, mf.model)
    write_csv_atomic(own_path, own)
    return mf.model


# --------------------------------------------------------------------------- prices
# CPU nanoseconds per unit of predicted work, measured by benchmarks/study.py on the example
# study (benchmarks/README.md, "Study"; Intel Xeon VM, 2 shared cores): the estimator per Gibbs
# site update of its predicted work (topiceval.estimators.lda.check_limits), and each trainer
# per training token x effort (sweeps, iterations or passes), the largest rates at T =
# PRICED_TOPICS; beyond it a price scales with T / PRICED_TOPICS.  A SLURM job asks for twice
# its predicted CPU time, at least MIN_MINUTES, times the attempt.
PRICED_TOPICS = 50
ESTIMATE_NS = 40.0
# a logistic-normal (prodlda) candidate's estimate per predicted work unit: about four times the
# largest rate benchmarks/prodlda_trainers.py measured (is_laplace on AP, 1.09 CPU s at T = 10
# and 5.84 at T = 50, priced at 2.45e9 and 6.23e9 units: 0.44 and 0.94 ns)
LN_ESTIMATE_NS = 4.0
# prodlda: per training token x epoch, benchmarks/prodlda_trainers.py on AP at T = 20 and 50
# (the same: the encoder's V x hidden layer dominates); its work grows with documents x V, so a
# corpus of shorter documents than AP's 195 tokens costs more per token
TRAIN_NS = {"gibbs": 35.0, "vem": 175.0, "sklearn": 2330.0, "gensim": 4380.0,
            "tomotopy": 74.0, "prodlda": 12000.0}
TRAIN_EFFORT = {"gibbs": "sweeps", "vem": "max_iter", "sklearn": "max_iter", "gensim": "passes",
                "tomotopy": "sweeps", "prodlda": "epochs"}
MIN_MINUTES = 10


def priced_minutes(cpu_seconds: float, attempt: int = 1) -> int:
    """A job's runtime request: twice its predicted CPU minutes, at least ``MIN_MINUTES``,
    times the attempt."""
    return int(max(MIN_MINUTES, np.ceil(2 * cpu_seconds / 60)) * attempt)


def train_seconds(tokens: int, trainer: str, topics: int, settings: Mapping) -> float:
    """Predicted CPU seconds of training one candidate on ``tokens`` training tokens."""
    return (tokens * float(settings[TRAIN_EFFORT[trainer]]) * TRAIN_NS[trainer] * 1e-9
            * max(1.0, topics / PRICED_TOPICS))


def _present(*paths) -> None:
    """``FileNotFoundError`` for a missing input: Snakemake then prices the job once its
    inputs exist (a resource "to be determined")."""
    for path in paths:
        if not Path(path).exists():
            raise FileNotFoundError(errno.ENOENT, "input not yet made", str(path))


def train_minutes(corpus_path, trainer: str, topics: int, settings: Mapping,
                  attempt: int = 1) -> int:
    """Rule ``study_train``'s runtime request (minutes)."""
    _present(corpus_path)
    corpus = Corpus.load(corpus_path)
    tokens = int(corpus.lengths[corpus.split == "train"].sum())
    return priced_minutes(train_seconds(tokens, trainer, topics, settings), attempt)


def _scored(corpus_path, model_path, sample: Mapping | None
            ) -> tuple[Corpus, np.ndarray, LDAModel]:
    """(the scored held-out documents over the model's words, their positions, the model)."""
    corpus, model = Corpus.load(corpus_path), load_model(model_path)
    held, scored = scored_heldout(corpus, sample)
    return held.subset(scored).align(model, oov="error"), scored, model


def estimate_work(docs: Corpus, model: LDAModel | LogisticNormalModel, estimate: Mapping
                  ) -> tuple[np.ndarray, int]:
    """(predicted work of every document, one run of its own method; the runs): Gibbs site
    updates for an LDA model, work units for a logistic-normal one."""
    parts, runs = model_parts(model, estimate, docs.lengths)
    work = np.zeros(docs.n_docs, np.int64)
    for part in parts:
        if not part.docs.size:
            continue
        if isinstance(model, LogisticNormalModel):
            work[part.docs] = ln_runs.check_limits(
                part.method, [docs[int(d)] for d in part.docs], model, runs=runs,
                work_limit=None, **part.settings)
        else:
            work[part.docs] = lda.check_limits(part.method, docs.subset(part.docs), model.phi,
                                               runs=runs, work_limit=None, **part.settings)
    return work, runs


def estimate_minutes(corpus_path, model_path, estimate: Mapping, sample: Mapping | None,
                     part: int, parts: int, attempt: int = 1) -> int:
    """Rule ``study_estimate``'s runtime request (minutes): its part's predicted work."""
    _present(corpus_path, model_path)
    docs, _, model = _scored(corpus_path, model_path, sample)
    work, runs = estimate_work(docs, model, estimate)
    lo, hi = work_blocks(work, parts)[part]
    rate = LN_ESTIMATE_NS if isinstance(model, LogisticNormalModel) else ESTIMATE_NS
    return priced_minutes(float(work[lo:hi].sum()) * runs * rate * 1e-9
                          * (1 + RERUN_FACTOR * RERUN_PRICED_SHARE)
                          * max(1.0, model.n_topics / PRICED_TOPICS), attempt)


# --------------------------------------------------------------------------- estimates
# A document whose estimate the diagnostics do not trust is estimated once more, before the
# verdict, with RERUN_FACTOR times the runs (fresh runs R .. (1 + RERUN_FACTOR) R - 1 of its own
# streams, so the re-run does not depend on the runs that flagged it), and that estimate
# replaces the first.  A job is priced as if RERUN_PRICED_SHARE of its work were re-run (the
# untrusted share is a few percent on real studies; a longer job is retried with more time).
RERUN_FACTOR = 4
RERUN_PRICED_SHARE = 0.25


def estimate_job(corpus_path, model_path, candidate: str, part: int, parts: int,
                 estimate: Mapping, sample: Mapping | None, rows_path, timings_path) -> None:
    """Rule ``study_estimate``: part ``part`` of ``parts`` (cut at equal predicted work) of the
    scored held-out documents under one candidate, each by its own method
    (:func:`estimate_parts`), judged by its method's regime as ``evaluate`` judges it
    (``topiceval.regimes``), the untrusted ones re-run with :data:`RERUN_FACTOR` times the
    runs (``rerun`` in the rows; ``trusted`` and ``reason`` are then the re-run's) unless they
    would stay outside their method's regime.  Each
    document's random streams are keyed by its position among the held-out documents, so the
    rows do not depend on ``parts``, and a row equals ``topiceval.evaluate``'s for that
    document with its method, settings and seed: its standard error widened by the part its
    method's runs share (``shared_stderr``, :func:`widened_stderr`)."""
    docs, scored, model = _scored(corpus_path, model_path, sample)
    neural = isinstance(model, LogisticNormalModel)
    plan, runs = model_parts(model, estimate, docs.lengths)
    methods = document_methods(plan, docs.n_docs)
    settings = {p.method: p.settings for p in plan}
    work, _ = estimate_work(docs, model, estimate)
    lo, hi = work_blocks(work, int(parts))[int(part)]
    block = np.arange(lo, hi)
    logp = upper = np.zeros((0, runs))
    seconds = 0.0
    trusted, reason = np.zeros(0, bool), np.zeros(0, object)
    rerun = np.zeros(block.size, bool)
    seed = derive_seed(int(estimate["seed"]), "study", candidate)

    def estimated(rows: np.ndarray, n_runs: int, first_run: int) -> dict:
        """Runs ``first_run ..`` of ``rows``, one call per method: logp and upper (rows, n_runs),
        trusted, reason, whether :data:`RERUN_FACTOR` times the runs would put each inside its
        method's regime (``more_runs_help``) and the seconds."""
        out = {"logp": np.full((rows.size, n_runs), np.nan),
               "upper": np.full((rows.size, n_runs), np.nan), "trusted": np.zeros(rows.size, bool),
               "reason": np.zeros(rows.size, object),
               "more_runs_help": np.zeros(rows.size, bool), "seconds": 0.0}
        for method in dict.fromkeys(methods[rows]):
            mine = methods[rows] == method
            if neural:  # the family's default: judged by its diagnostics; more runs pool more
                res = ln_runs.estimate_runs(method, [docs[int(d)] for d in rows[mine]], model,
                                            runs=n_runs, seed=seed, first_run=first_run,
                                            doc_keys=scored[rows[mine]], work_limit=None,
                                            **settings[method])
                out["logp"][mine] = res.logp
                out["trusted"][mine] = res.diagnostics["trusted"].to_numpy(bool)
                out["reason"][mine] = res.diagnostics["reason"].to_numpy(object)
                out["more_runs_help"][mine] = True
                out["seconds"] += res.seconds
                continue
            res = lda.estimate_runs(method, [docs[int(d)] for d in rows[mine]], model.phi,
                                    model.alpha_m, runs=n_runs, seed=seed, first_run=first_run,
                                    doc_keys=scored[rows[mine]], work_limit=None,
                                    **settings[method])
            out["logp"][mine] = res.logp
            if res.upper is not None:
                out["upper"][mine] = res.upper
            lengths = docs.lengths[rows[mine]]
            resolved = registry.ESTIMATE[method].resolve(settings[method])
            prior = float(model.alpha_m.sum())
            judged = regimes.distrust_outside(res.diagnostics, lengths, model.n_topics, method,
                                              resolved, n_runs, alpha_sum=prior)
            out["trusted"][mine] = judged["trusted"].to_numpy(bool)
            out["reason"][mine] = judged["reason"].to_numpy(object)
            out["more_runs_help"][mine] = (lengths < regimes.FROM_TOKENS) | (
                regimes.outside_reason(method, resolved, RERUN_FACTOR * n_runs,
                                       model.n_topics, lengths, alpha_sum=prior) == "")
            out["seconds"] += res.seconds
        return out

    say = progress(f"{candidate} part {int(part) + 1} of {int(parts)}")
    took = by_length.describe(methods[block], np.ones(block.size, bool), list(settings))
    say(f"scoring {block.size:,} held-out documents, {runs} runs each ({took or 'none'}; the "
        "first job of a run may spend minutes compiling the kernels)")
    if block.size:
        res = estimated(block, runs, 0)
        seconds = res["seconds"]
        trusted, reason = res["trusted"], res["reason"]
        rerun = ~trusted & res["more_runs_help"]  # more runs cannot lift a regime's verdict
        width = runs * (RERUN_FACTOR if rerun.any() else 1)
        logp = np.full((block.size, width), np.nan)  # rows of fewer runs end in NaN
        logp[:, :runs] = res["logp"]
        upper = np.pad(res["upper"], ((0, 0), (0, width - runs)), constant_values=np.nan)
        if rerun.any():
            say(f"{int(rerun.sum()):,} of {block.size:,} estimates untrusted: re-running them "
                f"with {RERUN_FACTOR * runs} runs")
            again = estimated(block[rerun], RERUN_FACTOR * runs, runs)
            seconds += again["seconds"]
            logp[rerun] = again["logp"]
            upper[rerun] = again["upper"]
            trusted[rerun] = again["trusted"]
            reason[rerun] = again["reason"]
    mean, se = combine_runs(logp, exact=estimate.get("method") == "exact" and not neural)
    se, shared = widened_stderr(se, np.count_nonzero(~np.isnan(logp), axis=1),
                                docs.lengths[block], methods[block], model)
    frame = pd.DataFrame({
        "candidate": candidate, "doc": scored[block], "name": docs.names[block],
        "tokens": docs.lengths[block], "method": methods[block], "logp": mean, "stderr": se,
        "shared_stderr": shared, "upper": combine_upper(upper)[0],
        "long": docs.lengths[block] > LONG_DOCUMENT, "trusted": trusted,
        "reason": np.asarray(reason, dtype=object), "rerun": rerun,
        "seconds": seconds / max(block.size, 1), "threads": _threads()})
    write_split([frame], ["candidate", "doc"], rows_path, timings_path)
    say(f"done: {int(rerun.sum()):,} re-run, {int((~trusted).sum()):,} still untrusted")


def widened_stderr(stderr: np.ndarray, runs: np.ndarray, tokens: np.ndarray,
                   methods: np.ndarray, model) -> tuple[np.ndarray, np.ndarray]:
    """(standard error, its shared part) of each document, as ``topiceval.Evaluation`` reports
    them: for a method whose runs share an error on ``model`` (c > 0 nats per square root of a
    token, ``regimes.shared_error``: bridge-theta's on an LDA model) sqrt((t_{R-1} s_d)^2 +
    (c sqrt(N_d))^2) and c sqrt(N_d) (``topiceval.error_bars``); the runs' standard error and
    0 otherwise (every method of the logistic-normal family)."""
    if not isinstance(model, LDAModel):
        return error_bars.reported(stderr, runs, tokens, 0.0)
    prior = float(model.alpha_m.sum())
    shared_error = np.array([regimes.shared_error(m, model.n_topics, prior) for m in methods],
                            np.float64)
    return error_bars.reported(stderr, runs, tokens, shared_error)


def progress(job: str):
    """``say(line)``: one line ``topiceval: study JOB: line`` with the time, on the terminal
    that runs the workflow (a rule's own output goes to its log) and in the log."""
    def say(line: str) -> None:
        text = f"topiceval: {time.strftime('%H:%M:%S')} study {job}: {line}"
        print(text, flush=True)
        if sys.__stderr__ is not None and sys.stdout is not sys.__stderr__:
            print(text, file=sys.__stderr__, flush=True)
    return say


def _threads() -> int:
    import numba

    return int(numba.get_num_threads())


# --------------------------------------------------------------------------- comparison
def compare_candidates(candidates: Sequence[Candidate], estimate: Mapping,
                       sample: Mapping | None, corpus: Corpus, documents: pd.DataFrame,
                       own: Mapping[str, pd.DataFrame], models: Mapping[str, LDAModel]
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(candidates, paired) tables from every candidate's document rows (``DOCUMENT_COLUMNS``)
    and own number; every candidate must have scored the same documents."""
    held, scored = scored_heldout(corpus, sample)
    by = {c.name: documents[documents["candidate"] == c.name].sort_values("doc")
          for c in candidates}
    for name, rows in by.items():
        if not np.array_equal(rows["doc"].to_numpy(), scored):
            raise ValueError(f"{name}: its estimates are not of the {scored.size} scored "
                             "held-out documents (an incomplete or stale part)")
    cands = pd.DataFrame([
        {**_candidate_row(c, by[c.name], held, models[c.name]),
         **_method_columns(estimate, by[c.name], models[c.name]), **own[c.name].iloc[0].to_dict()}
        for c in candidates])
    order = np.argsort(-cands["log_likelihood"].to_numpy(), kind="stable")
    cands["rank"] = np.argsort(order) + 1
    best = cands.loc[order[0], "candidate"]
    paired = pd.DataFrame([_paired_row(c.name, best, by) for c in candidates],
                          columns=PAIRED_COLUMNS)
    cands["difference_to_best"] = paired["difference"].to_numpy()
    cands["difference_se"] = paired["difference_se"].to_numpy()
    cands["verdict"] = np.where(cands["candidate"] == best, "best",
                                np.where(paired["tie"], "tie", "worse"))
    cands["z"] = paired["z"].to_numpy()
    for column, value in dropped_columns(corpus.meta.get("study", {})).items():
        cands[column] = value
    return _in_order(check_assumptions(cands, by, candidates)), paired


def _method_columns(estimate: Mapping, rows: pd.DataFrame, model) -> dict:
    """candidates.csv's ``method`` (the parts' methods joined by '+', as ``Evaluation.method``
    of a call that used both), ``method_documents`` and ``runs`` of one candidate's rows."""
    methods = rows["method"].to_numpy(object)
    parts, runs = model_parts(model, estimate, rows["tokens"].to_numpy())
    return {"method": "+".join(p.method for p in parts),
            "method_documents": by_length.describe(methods, np.ones(methods.size, bool),
                                                   [p.method for p in parts]),
            "runs": runs}


def _in_order(cands: pd.DataFrame) -> pd.DataFrame:
    """``cands`` with the columns of :data:`CANDIDATE_COLUMNS` first, in its order."""
    columns = [k for k in CANDIDATE_COLUMNS if k in cands.columns]
    return cands[columns + [c for c in cands.columns if c not in columns]]


def dropped_columns(study: Mapping) -> dict:
    """candidates.csv's ``tokens_dropped``, ``tokens_dropped_by_reason`` and ``words_dropped``
    from the corpus's ``meta["study"]`` (:func:`dropped_tokens`), most first: the saved
    metadata keeps its keys sorted by name."""
    def most_first(counts: Mapping) -> list:
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    return {"tokens_dropped": study.get("heldout_tokens_dropped", 0),
            "tokens_dropped_by_reason": "; ".join(
                f"{r}: {n}" for r, n in most_first(
                    study.get("heldout_tokens_dropped_by_reason", {}))),
            "words_dropped": ", ".join(
                f"{w} ({n})" for w, n in most_first(study.get("heldout_words_dropped", {})))}


def check_assumptions(cands: pd.DataFrame, by: Mapping[str, pd.DataFrame],
                      candidates: Sequence[Candidate]) -> pd.DataFrame:
    """``cands`` with what its verdict assumes checked (``CANDIDATE_COLUMNS``): ``grid_edge``
    (the best at the smallest or largest number of topics trained, of at least two), and
    ``verdict_trusted_only`` and ``settled`` (the verdict again without the documents any
    candidate's estimate is untrusted on, :func:`verdicts`)."""
    cands = cands.copy()
    grid = sorted({int(c.topics) for c in candidates if c.trainer != "file"})
    best = cands.loc[cands["verdict"] == "best"].iloc[0]
    edge = ""
    if len(grid) > 1 and best["trainer"] != "file":
        edge = {grid[-1]: "largest T", grid[0]: "smallest T"}.get(int(best["topics"]), "")
    cands["grid_edge"] = np.where(cands["verdict"] == "best", edge, "")
    rows = list(by.values())
    untrusted = np.zeros(len(rows[0]), bool)
    for r in rows:
        untrusted |= ~r["trusted"].astype(bool).to_numpy()
    again = verdicts(by, ~untrusted) if untrusted.any() else dict(
        zip(cands["candidate"], cands["verdict"], strict=True))
    cands["verdict_trusted_only"] = cands["candidate"].map(again)
    cands["untrusted_by_any"] = int(untrusted.sum())
    cands["settled"] = bool((cands["verdict_trusted_only"] == cands["verdict"]).all())
    return cands


def verdicts(by: Mapping[str, pd.DataFrame], keep: np.ndarray) -> dict[str, str]:
    """Each candidate's verdict on the scored documents ``keep`` (a mask): ``best`` (the
    largest sum of log-likelihoods), ``tie`` (within ``TIE_SES`` paired standard errors of it)
    or ``worse``; ``"-"`` for all when fewer than 2 documents are kept."""
    if keep.sum() < 2:
        return dict.fromkeys(by, "-")
    rows = {n: r[keep] for n, r in by.items()}
    best = max(rows, key=lambda n: float(rows[n]["logp"].sum()))
    out = {}
    for n, r in rows.items():
        diff = paired_difference(rows[best]["logp"].to_numpy(), r["logp"].to_numpy(),
                                 rows[best]["stderr"].to_numpy(), r["stderr"].to_numpy())
        out[n] = "best" if n == best else ("tie" if diff.tie else "worse")
    return out


def per_token_se(logp: np.ndarray, stderr: np.ndarray, tokens: np.ndarray,
                 shared: np.ndarray | None = None) -> float:
    """The standard error of R-hat = sum_d L-hat_d / sum_d t_d (nats per token) over documents
    drawn from a population of documents like them: the delta method for a ratio,
    se^2 = n var(e) / (sum_d t_d)^2 with the residuals e_d = L-hat_d - R-hat t_d (their sample
    variance, ddof 1, holds the runs' noise too), and at least the runs' part
    sum_d v_d / (sum_d t_d)^2; the parts of the standard errors that a method's runs share
    (``shared``, documents.csv's ``shared_stderr``: no spread shows them) are then added,
    sum_d shared_d / sum_d t_d, as ``Evaluation.total_stderr`` adds them."""
    logp, t = np.asarray(logp, np.float64), np.asarray(tokens, np.float64)
    shared = np.zeros(logp.shape) if shared is None else np.asarray(shared, np.float64)
    v = np.asarray(stderr, np.float64) ** 2 - shared ** 2
    rate = logp.sum() / t.sum()
    spread = logp.size * float(np.var(logp - rate * t, ddof=1)) if logp.size > 1 else 0.0
    return float((np.sqrt(max(spread, float(v.sum()))) + shared.sum()) / t.sum())


def _candidate_row(c: Candidate, rows: pd.DataFrame, held: Corpus, model: LDAModel) -> dict:
    """One candidate's totals over all held-out documents (estimated from the scored ones)."""
    tokens = int(held.n_tokens)
    shared = _shared(rows)
    total = sampled_total(rows["logp"].to_numpy(), rows["stderr"].to_numpy(), held.n_docs,
                          tokens=rows["tokens"].to_numpy(), population_tokens=tokens,
                          shared=shared)
    untrusted = ~rows["trusted"].astype(bool)
    reasons = reason_counts(rows.loc[untrusted, "reason"].fillna(""))
    rate_se = per_token_se(rows["logp"].to_numpy(), rows["stderr"].to_numpy(),
                           rows["tokens"].to_numpy(), shared)
    upper = rows["upper"].to_numpy()
    upper_total = float("nan")
    if np.isfinite(upper).all():  # the same estimator of the total, from the upper bounds
        upper_total = sampled_total(upper, np.zeros(upper.shape), held.n_docs,
                                    tokens=rows["tokens"].to_numpy(),
                                    population_tokens=tokens).total
    return {
        "candidate": c.name, "library": c.library, "trainer": c.trainer,
        "topics": model.n_topics, "seed": c.seed, "vocabulary": model.n_types,
        "documents": len(rows), "heldout_documents": held.n_docs, "tokens": tokens,
        "log_likelihood": total.total, "log_likelihood_se": total.se,
        "se_sampling": total.se_sampling, "se_monte_carlo": total.se_monte_carlo,
        "dominant_error": total.dominant, "nats_per_token": total.total / tokens,
        "perplexity": float(np.exp(-total.total / tokens)),
        "perplexity_low": float(np.exp(-(total.total + 2 * total.se) / tokens)),
        "perplexity_high": float(np.exp(-(total.total - 2 * total.se) / tokens)),
        "nats_per_token_se": rate_se,
        "perplexity_docs_low": float(np.exp(-(total.total / tokens + 2 * rate_se))),
        "perplexity_docs_high": float(np.exp(-(total.total / tokens - 2 * rate_se))),
        "log_likelihood_upper": upper_total,
        "gap_per_token": (upper_total - total.total) / tokens,
        "rerun_documents": int(rows["rerun"].astype(bool).sum()) if "rerun" in rows else 0,
        "untrusted_documents": int(untrusted.sum()),
        "untrusted_reason": "; ".join(f"{label} {n}" for label, n in reasons.items())}


def _shared(rows: pd.DataFrame) -> np.ndarray:
    """The documents' ``shared_stderr`` (0 where the rows have none)."""
    if "shared_stderr" not in rows:
        return np.zeros(len(rows))
    return rows["shared_stderr"].fillna(0.0).to_numpy(np.float64)


def _paired_row(name: str, best: str, by: Mapping[str, pd.DataFrame]) -> dict:
    """Candidate ``name`` against the best, document by document (``PAIRED_COLUMNS``)."""
    b, o = by[best], by[name]
    diff = paired_difference(b["logp"].to_numpy(), o["logp"].to_numpy(),
                             b["stderr"].to_numpy(), o["stderr"].to_numpy())
    return {"candidate": name, "best": best, "documents": diff.documents,
            "difference": diff.difference, "difference_se": diff.se,
            "se_sampling": diff.se_sampling, "se_monte_carlo": diff.se_monte_carlo,
            "difference_per_token": diff.difference / float(b["tokens"].sum()),
            "z": diff.difference / diff.se if diff.se > 0 else 0.0,
            "tie": name != best and diff.tie}


def own_picks(candidates: pd.DataFrame) -> pd.DataFrame:
    """Per library with held-out own numbers on several candidates: the candidate its own
    number ranks first against the one topiceval's estimate ranks first."""
    rows = []
    held = candidates[candidates["own_split"] == "held-out"]
    for library, part in held.groupby("library", sort=False):
        for kind, same in part.groupby("own_kind", sort=False):
            if len(same) < 2:
                continue
            own = same.loc[same["own_nats_per_token"].idxmax()]
            honest = same.loc[same["log_likelihood"].idxmax()]
            rows.append({"library": library, "own_kind": kind, "own_api": own["own_api"],
                         "own_pick": own["candidate"], "own_pick_topics": int(own["topics"]),
                         "honest_pick": honest["candidate"],
                         "honest_pick_topics": int(honest["topics"]),
                         "agree": own["candidate"] == honest["candidate"]})
    return pd.DataFrame(rows, columns=["library", "own_kind", "own_api", "own_pick",
                                       "own_pick_topics", "honest_pick", "honest_pick_topics",
                                       "agree"])


def summary_job(candidates: Sequence[Mapping], estimate: Mapping, sample: Mapping | None,
                corpus_path, part_paths: Sequence[str], own_paths: Mapping[str, str],
                model_paths: Mapping[str, str], candidates_path, documents_path,
                paired_path, coherence: Mapping | None = None) -> None:
    """Rule ``study_summary``: candidates.csv, documents.csv and paired.csv (``candidates``:
    the plan's candidates as plain data, ``dataclasses.asdict``), with each candidate's
    coherence and stability beside its likelihood (``topiceval.study_quality``; ``coherence``:
    the plan's ``study.coherence`` settings)."""
    documents = pd.concat([pd.read_csv(p, dtype={"name": str}) for p in part_paths],
                          ignore_index=True)
    own = {k: pd.read_csv(p, keep_default_na=False, na_values=[""]) for k, p in
           own_paths.items()}
    models = {k: load_model(p) for k, p in model_paths.items()}
    corpus = Corpus.load(corpus_path)
    cands, paired = compare_candidates([Candidate(**dict(c)) for c in candidates], estimate,
                                       sample, corpus, documents, own, models)
    cands = _in_order(with_quality(cands, models, corpus, coherence_settings(coherence)))
    write_csv_atomic(candidates_path, cands)
    write_csv_atomic(documents_path, documents[DOCUMENT_COLUMNS])
    write_csv_atomic(paired_path, paired)


def ratio_ais_pairs(candidates: pd.DataFrame, paired: pd.DataFrame,
                    models: Mapping[str, LDAModel]) -> list[tuple[str, str]]:
    """(best, runner-up) for every tie with the best's number of topics and vocabulary, both
    LDA models (:func:`neural_ties` names the others)."""
    best = candidates.loc[candidates["verdict"] == "best", "candidate"].iloc[0]
    ties = paired.loc[paired["tie"], "candidate"].tolist()
    a = models[best]
    return [(best, c) for c in ties if models[c].n_topics == a.n_topics
            and set(models[c].vocab.tolist()) == set(a.vocab.tolist())
            and a.family == models[c].family == "lda"]


NOT_LDA = ("not applicable: ratio-AIS anneals one topic assignment z shared by two LDA "
           "models, and a logistic-normal model (prodlda) has none")


def neural_ties(candidates: pd.DataFrame, paired: pd.DataFrame,
                models: Mapping[str, LDAModel | LogisticNormalModel]) -> list[dict]:
    """ratio_ais.csv's rows for the ties with the best that ratio-AIS cannot compare, because
    one of the two is a logistic-normal model: verdict :data:`NOT_LDA`."""
    best = candidates.loc[candidates["verdict"] == "best", "candidate"].iloc[0]
    ties = paired.loc[paired["tie"], "candidate"].tolist()
    return [{"best": best, "runner_up": c, "topics": models[c].n_topics, "documents": 0,
             "verdict": NOT_LDA} for c in ties
            if "logistic_normal" in (models[best].family, models[c].family)]


def matched_topics(model: LDAModel, reference: LDAModel) -> LDAModel:
    """``model`` with its topics relabelled to match ``reference``'s (the permutation
    maximising the summed Bhattacharyya coefficients sum_v sqrt(phi_tv phi'_tv)).  The
    likelihood does not depend on the labels, but ratio-AIS anneals over one topic assignment
    z shared by both models: two separately trained models whose topic t means different
    things have posteriors in different places, and the bridge between them does not
    converge (reciprocal gaps of several nats a document, where the matched pair has none)."""
    from scipy.optimize import linear_sum_assignment

    _, order = linear_sum_assignment(-(np.sqrt(reference.phi) @ np.sqrt(model.phi).T))
    return dataclasses.replace(model, phi=model.phi[order], alpha_m=model.alpha_m[order],
                               meta={**model.meta, "topics_matched_to": "reference"})


def _ratio_verdict(total: float, se: float, suspect: np.ndarray) -> str:
    """What a ratio-AIS comparison says: nothing when more than ``UNCONVERGED_SHARE`` of its
    documents failed the reciprocal check (the annealing did not converge: more temperatures
    or samples are needed), else which model it favours beyond two standard errors."""
    if suspect.mean() > UNCONVERGED_SHARE:
        return (f"not converged ({int(suspect.sum())} of {suspect.size} documents fail the "
                "reciprocal check: raise compare.temperatures)")
    if abs(total) <= 2 * se:
        return "indistinguishable"
    return "best is better" if total > 0 else "runner-up is better"


def ratio_ais_job(compare: Mapping, sample: Mapping | None, corpus_path, candidates_path,
                  paired_path, documents_path, model_paths: Mapping[str, str],
                  out) -> pd.DataFrame:
    """Rule ``study_ratio_ais``: ratio-AIS with the reciprocal check (Foulds & Smyth) between
    the best candidate and each close runner-up (:func:`ratio_ais_pairs`), on a seeded sample
    of ``compare.docs`` scored documents; set beside the difference of the two estimates on
    the same documents."""
    from topiceval.vocabulary import reorder_columns

    cands = pd.read_csv(candidates_path)
    paired = pd.read_csv(paired_path)
    documents = pd.read_csv(documents_path, dtype={"name": str})
    models = {k: load_model(p) for k, p in model_paths.items()}
    corpus = Corpus.load(corpus_path)
    held, scored = scored_heldout(corpus, sample)
    cmp = compare
    pick = scored[sample_positions(scored.size, int(cmp["docs"]), int(cmp["seed"]))]
    rows = []
    for best, other in ratio_ais_pairs(cands, paired, models):
        a = models[best]
        b = matched_topics(reorder_columns(models[other], a), a)
        docs = held.subset(pick).align(a, oov="error")
        res = lda.compare(docs, a, b, samples=int(cmp["samples"]),
                          temperatures=int(cmp["temperatures"]),
                          seed=derive_seed(int(cmp["seed"]), "study-ratio-ais", best, other),
                          doc_keys=pick, work_limit=None)
        la = documents[documents["candidate"] == best].set_index("doc").loc[pick]
        lb = documents[documents["candidate"] == other].set_index("doc").loc[pick]
        est = paired_difference(la["logp"].to_numpy(), lb["logp"].to_numpy(),
                                la["stderr"].to_numpy(), lb["stderr"].to_numpy())
        n = pick.size
        se = float(np.sqrt(n * np.var(res.log_ratio, ddof=1))) if n > 1 else float("nan")
        total = float(res.log_ratio.sum())
        rows.append({
            "best": best, "runner_up": other, "topics": a.n_topics, "documents": n,
            "log_ratio": total, "log_ratio_se": se, "estimate_difference": est.difference,
            "estimate_difference_se": est.se,
            "reciprocal_gap_mean": float(np.mean(res.reciprocal_gap)),
            "suspect_documents": int(res.suspect.sum()),
            "agree": bool(abs(total - est.difference) <= 2 * np.hypot(se, est.se)),
            "verdict": _ratio_verdict(total, se, res.suspect)})
    rows += neural_ties(cands, paired, models)
    frame = pd.DataFrame(rows, columns=RATIO_COLUMNS)
    write_csv_atomic(out, frame)
    return frame
