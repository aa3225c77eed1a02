"""Beside the likelihood in a study: each candidate's topic coherence and its topics' stability
across seeds (docs/coherence.md), as columns of candidates.csv and lines of the caption.

* Coherence (:func:`coherence_columns`): the NPMI mean over topics of
  ``topiceval.coherence.coherence_table`` (document co-occurrence by default, top-N averaged
  over 5, 10, 15, 20) with its basic bootstrap interval, over a stated reference corpus: by default
  the study's held-out documents (``study.coherence.reference``: ``heldout``, ``train``,
  ``all`` or a topiceval corpus file ``.npz``).  Beside it, the share of the candidate's
  top-word pairs that no reference document holds together (:func:`unseen_pair_share`) and
  whether that share says the reference is too small for the interval
  (:data:`UNSEEN_PAIRS_MAX`).
* Stability (:func:`stability_columns`): per (trainer, T) trained with two or more seeds, the
  mean matched similarity of ``topiceval.stability.stability_table`` (Jensen-Shannon), with an
  interval of +/- 2 standard errors over topics, sd(per-topic stability) / sqrt(T).  Where a
  candidate has no stability (one seed, a model file), the cells are empty and
  ``stability_note`` says why.
* The caption (:func:`quality_lines`) keeps the likelihood's verdict and says whether
  coherence or stability would pick another candidate, by one rule (:data:`PICK_RULE`): the
  candidate with the highest value picks differently only when its interval lies wholly above
  the likelihood's best's; overlapping intervals are a tie.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

from topiceval._docs import page
from topiceval.coherence import DEFAULT_TOP_N, coherence_table, top_word_columns
from topiceval.corpus import Corpus
from topiceval.models import LDAModel
from topiceval.stability import stability_table
from topiceval.vocabulary import reorder_columns

COHERENCE_DEFAULTS = {"reference": "heldout", "window": None, "replicates": 200, "seed": 0,
                      "level": 0.95}
REFERENCES = {"heldout": "the study's held-out documents",
              "train": "the study's training documents",
              "all": "all the study's documents"}
# A reference is too small for its interval when more than this share of a candidate's top-word
# pairs co-occur in no reference document: such a pair scores NPMI -1 in the estimate and in
# every bootstrap resample, so the bias it causes (it co-occurs in the population) is invisible
# to the interval (docs/coherence.md, "Measured coverage").  On benchmarks/coherence_coverage.py's
# model (benchmarks/coherence_unseen_pairs.py, 5 references of each size), the references whose
# 95% intervals of the model mean cover at about their rate (0.91-0.99: 200 or more documents
# of 20-80 tokens, 1,000 of 5-30) leave 0.000-0.131 of the top-20 pairs unseen; those whose
# intervals do not (0.00-0.85: 40 and 100 documents of 20-80 tokens, 200 of 5-30) 0.185-0.498.
UNSEEN_PAIRS_MAX = 0.15
STABILITY_SES = 2  # the stability interval: +/- this many standard errors over topics
PICK_RULE = ("a measure picks a candidate other than the likelihood's best only when the "
             "interval of its highest-scoring candidate lies wholly above the best's; "
             "overlapping intervals are a tie")

QUALITY_COLUMNS = {
    "coherence_npmi": "NPMI coherence, the mean over topics (topiceval.coherence; each topic "
                      "averaged over its top 5, 10, 15, 20 words); higher is more coherent",
    "coherence_npmi_low": "its basic bootstrap interval over the reference documents: low "
                          "end",
    "coherence_npmi_high": "high end",
    "coherence_absent_words": "top words that no reference document holds (they count as "
                              "never co-occurring)",
    "coherence_reference": "the reference corpus and settings of the coherence "
                           "(study.coherence)",
    "coherence_unseen_pairs": "the share of the pairs of each topic's top words (the largest "
                              "top-N) that no reference document holds together; they score "
                              "-1 in every bootstrap resample",
    "coherence_small_reference": f"True when coherence_unseen_pairs is above "
                                 f"{UNSEEN_PAIRS_MAX:g}: the reference is too small for the "
                                 "interval, which then may not cover the value on a larger "
                                 "reference (name one in study.coherence.reference)",
    "stability": "for a (trainer, T) trained with 2+ seeds: the mean similarity 1 - d of its "
                 "topics matched across seeds (d: the Jensen-Shannon distance in bits, "
                 "topiceval.stability); empty otherwise (stability_note says why)",
    "stability_low": "stability - 2 standard errors over topics (sd of the per-topic "
                     "stabilities / sqrt(T))",
    "stability_high": "stability + 2 standard errors over topics",
    "stability_seeds": "the seeds compared",
    "stability_note": "how the stability was measured, or why it is empty",
}


def coherence_settings(given: Mapping | None) -> dict:
    """The ``study.coherence`` block with its defaults, checked (one-line ``ValueError``)."""
    settings = {**COHERENCE_DEFAULTS, **dict(given or {})}
    if unknown := sorted(set(settings) - set(COHERENCE_DEFAULTS)):
        raise ValueError(f"study.coherence: unknown key(s) {unknown}; known: "
                         f"{sorted(COHERENCE_DEFAULTS)}")
    reference = str(settings["reference"])
    if reference not in REFERENCES and not (reference.endswith(".npz")
                                            and Path(reference).is_file()):
        raise ValueError(f"study.coherence.reference: {reference!r}; give one of "
                         f"{list(REFERENCES)} or a topiceval corpus file (.npz) that exists")
    window = settings["window"]
    if window is not None and (isinstance(window, bool) or not isinstance(window, int)
                               or window < 2):
        raise ValueError(f"study.coherence.window: {window!r}; give null (whole documents) or "
                         "an integer >= 2 (a sliding window)")
    replicates = settings["replicates"]
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
        raise ValueError(f"study.coherence.replicates: {replicates!r}; give an integer >= 1")
    if not 0 < float(settings["level"]) < 1:
        raise ValueError(f"study.coherence.level: {settings['level']!r}; give a number in (0, 1)")
    return settings


def coherence_reference(corpus: Corpus, settings: Mapping) -> tuple[Corpus, str]:
    """(the reference corpus of the coherence, what it is in words) for the study's corpus."""
    reference = str(settings["reference"])
    if reference == "heldout":
        ref = corpus.select_split("test")
    elif reference == "train":
        ref = corpus.select_split("train")
    elif reference == "all":
        ref = corpus
    else:
        ref = Corpus.load(reference)
    what = REFERENCES.get(reference, f"the corpus {reference}")
    window = ("document co-occurrence" if settings["window"] is None
              else f"sliding window of {int(settings['window'])} tokens")
    return ref, (f"{what} ({ref.n_docs:,} documents); {window}; "
                 f"{settings['level']:.0%} basic bootstrap interval over "
                 f"{settings['replicates']} "
                 f"replicates, seed {settings['seed']}")


def coherence_columns(models: Mapping[str, LDAModel], corpus: Corpus,
                      settings: Mapping) -> pd.DataFrame:
    """One row per candidate (index: its name) of the coherence columns of
    :data:`QUALITY_COLUMNS`: ``coherence_table``'s ``mean`` row of each model over the
    reference (:func:`coherence_reference`), top-N the default cardinalities that every
    candidate's vocabulary allows."""
    reference, described = coherence_reference(corpus, settings)
    smallest = min(m.n_types for m in models.values())
    top_n = tuple(n for n in DEFAULT_TOP_N if n <= smallest)
    if not top_n:
        raise ValueError(f"study.coherence: a candidate has {smallest} words, fewer than the "
                         f"smallest top-N ({DEFAULT_TOP_N[0]})")
    rows = {}
    for name, model in models.items():
        mean = coherence_table(model, reference, window=settings["window"], top_n=top_n,
                               measures=("npmi",), replicates=int(settings["replicates"]),
                               level=float(settings["level"]),
                               seed=int(settings["seed"])).iloc[-1]
        rows[name] = {"coherence_npmi": mean["npmi"], "coherence_npmi_low": mean["npmi_low"],
                      "coherence_npmi_high": mean["npmi_high"],
                      "coherence_absent_words": mean["absent_words"],
                      "coherence_reference": f"{described}; top-N {mean['top_n']}"}
        unseen = unseen_pair_share(model, reference, max(top_n))
        rows[name]["coherence_unseen_pairs"] = unseen
        rows[name]["coherence_small_reference"] = bool(unseen > UNSEEN_PAIRS_MAX)
    return pd.DataFrame.from_dict(rows, orient="index")


def unseen_pair_share(model: LDAModel, reference: Corpus, n: int) -> float:
    """The share of the pairs of each topic's top ``n`` words (all topics' pairs together)
    that no document of ``reference`` holds both of (a pair with a word the reference lacks
    included), counted by document whatever the coherence's window: the bootstrap resamples
    documents."""
    top = top_word_columns(model, n)
    where = {word: i for i, word in enumerate(reference.vocab.tolist())}
    ids = np.array([[where.get(str(model.vocab[c]), -1) for c in row] for row in top])
    relevant, local = np.unique(ids[ids >= 0], return_inverse=True)
    holds = sparse.csr_matrix((np.ones(reference.tokens.size), reference.tokens,
                               reference.offsets), shape=(len(reference), len(reference.vocab)))
    holds = (holds[:, relevant] > 0).astype(np.int64)
    together = (holds.T @ holds).tocsr()  # documents holding both of two relevant words
    column = np.full(ids.shape, -1)
    column[ids >= 0] = local
    first, second = np.triu_indices(n, 1)
    a, b = column[:, first].ravel(), column[:, second].ravel()
    seen = (a >= 0) & (b >= 0)
    both = np.zeros(a.size)
    both[seen] = np.asarray(together[a[seen], b[seen]]).ravel()
    return float(np.mean(both == 0))


def stability_columns(candidates: pd.DataFrame, models: Mapping[str, LDAModel]
                      ) -> pd.DataFrame:
    """One row per candidate (index: its name) of the stability columns of
    :data:`QUALITY_COLUMNS`: per (trainer, topics) of the trained candidates with two or more
    seeds, ``stability_table`` of their models (the lowest seed the anchor; columns put in its
    word order), the same values on each of them."""
    rows = {}
    for _, c in candidates.iterrows():
        rows[c["candidate"]] = {
            "stability": np.nan, "stability_low": np.nan, "stability_high": np.nan,
            "stability_seeds": "",
            "stability_note": "a model file: no seeds to compare" if c["trainer"] == "file"
            else f"one seed of {c['trainer']} at T = {int(c['topics'])}: stability needs 2 or "
                 "more (train.seeds)"}
    trained = candidates[candidates["trainer"] != "file"]
    for (trainer, topics), group in trained.groupby(["trainer", "topics"], sort=False):
        if len(group) < 2:
            continue
        group = group.sort_values("seed")
        anchor = models[group["candidate"].iloc[0]]
        table = stability_table([reorder_columns(models[n], anchor) for n in group["candidate"]])
        per_topic = table["stability"].to_numpy()[:-1]
        mean = float(table["stability"].iloc[-1])
        se = float(np.std(per_topic, ddof=1) / np.sqrt(per_topic.size)) if per_topic.size > 1 \
            else 0.0
        seeds = ",".join(str(int(s)) for s in group["seed"])
        for name in group["candidate"]:
            rows[name] = {"stability": mean,
                          "stability_low": max(0.0, mean - STABILITY_SES * se),
                          "stability_high": min(1.0, mean + STABILITY_SES * se),
                          "stability_seeds": seeds,
                          "stability_note": f"{trainer} at T = {int(topics)}, seeds {seeds}: "
                                            "topics matched by linear assignment on the "
                                            "Jensen-Shannon distance"}
    return pd.DataFrame.from_dict(rows, orient="index")


def with_quality(cands: pd.DataFrame, models: Mapping[str, LDAModel], corpus: Corpus,
                 settings: Mapping) -> pd.DataFrame:
    """``cands`` (candidates.csv) with the columns of :data:`QUALITY_COLUMNS`."""
    names = cands["candidate"]
    chosen = {n: topic_view(models[n]) for n in names}
    coherence = coherence_columns(chosen, corpus, settings).loc[names]
    stability = stability_columns(cands, chosen).loc[names]
    out = cands.copy()
    for frame in (coherence, stability):
        for column in frame.columns:
            out[column] = frame[column].to_numpy()
    neural = names.map(lambda n: models[n].family == "logistic_normal").to_numpy(bool)
    for column in ("coherence_reference", "stability_note"):
        out.loc[neural, column] = out.loc[neural, column] + "; " + TOPIC_VIEW
    return out


TOPIC_VIEW = ("topics of a logistic-normal model: the decoder's rows p(w | theta = e_k), "
              "softmax(B_k + b) for ProdLDA's product decoder")


def topic_view(model):
    """``model`` itself for an LDA model; for a logistic-normal one, an ``LDAModel`` whose topic
    k is p(w | theta = e_k) (:data:`TOPIC_VIEW`: the mixture decoder's beta row, the product
    decoder's softmax(B_k + b)), the topics that coherence and stability read (its alpha is a
    placeholder: neither reads it)."""
    if model.family != "logistic_normal":
        return model
    logits = model.beta + model.bias if model.decoder == "product" else np.log(model.beta)
    phi = np.exp(logits - logits.max(axis=1, keepdims=True))
    return LDAModel(phi / phi.sum(axis=1, keepdims=True), np.ones(model.n_topics),
                    vocab=model.vocab, meta={"topics_of": "logistic-normal decoder"})


def _interval(row: pd.Series, value: str, fmt: str) -> str:
    return (f"{row['candidate']} ({fmt.format(row[value])} [{fmt.format(row[value + '_low'])}, "
            f"{fmt.format(row[value + '_high'])}])")


def pick_line(cands: pd.DataFrame, value: str, label: str, fmt: str, note: str) -> str:
    """Whether the measure ``value`` (higher is better, with ``value_low``/``value_high``)
    picks the likelihood's best, by :data:`PICK_RULE`; candidates without a value are left
    out, and a best without one is said so with its ``note``."""
    best = cands[cands["verdict"] == "best"].iloc[0]
    known = cands[cands[value].notna()]
    if not np.isfinite(best[value]):
        return f"{label}: not measured for the best, {best['candidate']} ({best[note]})."
    top = known.loc[known[value].idxmax()]
    if top["candidate"] == best["candidate"] or top[value] == best[value]:
        return f"{label} agrees: the best, {_interval(best, value, fmt)}, scores highest."
    above = known[known[value + "_low"] > best[value + "_high"]]
    if len(above):
        return (f"**{label} would pick another candidate:** {_interval(top, value, fmt)} "
                f"against the best {_interval(best, value, fmt)}; {len(above)} candidate(s) "
                "lie wholly above the best's interval.")
    return (f"{label}: a tie. {_interval(top, value, fmt)} scores highest, but its interval "
            f"overlaps the best's, {_interval(best, value, fmt)}.")


def _beside_note(cands: pd.DataFrame) -> str:
    """Why an interval can leave out its own estimate, when one of ``cands``' does."""
    value, low, high = (cands[c] for c in ("coherence_npmi", "coherence_npmi_low",
                                           "coherence_npmi_high"))
    beside = int(((value < low) | (value > high)).sum())
    if not beside:
        return ""
    return (f" The intervals of {beside} candidate(s) lie beside their own estimates: on a "
            "reference of this size NPMI is biased low (word pairs that never co-occur in it "
            "score -1), and each interval is for the value on an unlimited reference (a basic "
            "bootstrap, " + page("coherence.md") + ").")


def _small_reference_note(cands: pd.DataFrame) -> str:
    """Which of ``cands``' intervals the reference is too small for
    (``coherence_small_reference``), when any."""
    if "coherence_small_reference" not in cands:
        return ""
    small = int(cands["coherence_small_reference"].astype(bool).sum())
    if not small:
        return ""
    return (f" The reference is too small for the intervals of {small} candidate(s): more than "
            f"{UNSEEN_PAIRS_MAX:.0%} of their top-word pairs never occur together in it "
            "(coherence_small_reference), so their intervals may not cover the value on a "
            "larger reference.")


def quality_lines(cands: pd.DataFrame) -> list[str]:
    """The caption's paragraphs on coherence and stability beside the likelihood's verdict
    (:func:`pick_line` for each, or why no candidate has a stability; which intervals the
    reference is too small for)."""
    if "coherence_npmi" not in cands:
        return []
    best = cands[cands["verdict"] == "best"].iloc[0]
    reference = best["coherence_reference"].split(" (")[0]
    lines = ["", f"Beside the likelihood, whose verdict this stays; the rule: {PICK_RULE}.",
             "", pick_line(cands, "coherence_npmi", f"Coherence (NPMI over {reference})",
                           "{:.3f}", "coherence_reference") + _beside_note(cands)
             + _small_reference_note(cands), ""]
    if cands["stability"].notna().any():
        return lines + [pick_line(cands, "stability", "Stability across seeds", "{:.3f}",
                                  "stability_note")]
    if (cands["trainer"] != "file").any():
        return lines + ["Stability across seeds: not measured, as each trainer was run with "
                        "one seed per number of topics (give train.seeds two or more)."]
    return lines + ["Stability across seeds: not measured, as every candidate is a model "
                    "file (no seeds to compare)."]
