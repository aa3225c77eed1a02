"""A study never scores a model's training document as held-out (issue 45, item 1).

Model files that record their training documents (MALLET, tomotopy) have every one of them placed
in the corpus, also under another tokenizer, or the study refuses; files that record none
(gensim, topiceval) need their training documents declared; ``topiceval study CONFIG --split``
writes the split to train on elsewhere; documents with another's bag of words are never drawn.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from test_study_workflow import letter_texts, study_config, write_mallet_state, write_texts
from topiceval.experiments import study as S

ROOT = Path(__file__).resolve().parents[1]  # the clone: its workflow, also when testing a wheel


def gensim_file(path, docs: list[list[str]]) -> str:
    """A gensim LdaModel of ``docs`` (2 topics, a few passes), saved."""
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    words = Dictionary(docs)
    LdaModel([words.doc2bow(d) for d in docs], id2word=words, num_topics=2, passes=2,
             random_state=0).save(str(path))
    return str(path)


def corpus_of(config: dict):
    plan = S.study_plan(config["study"])
    return S.prepare_corpus(plan.data, log=lambda line: None)


def heldout_names(corpus) -> set[str]:
    return set(corpus.select_split("test").names.tolist())


def test_a_gensim_file_without_declared_training_documents_is_refused(tmp_path):
    config = study_config(tmp_path)
    docs = letter_texts(3, 120)  # all of the corpus's documents, the held-out ones included
    config["study"]["models"]["g"] = {"library": "gensim",
                                      "path": gensim_file(tmp_path / "g.model", docs)}
    with pytest.raises(ValueError) as caught:
        corpus_of(config)
    message = str(caught.value)
    assert message.startswith("study.models.g: a gensim file records no training documents")
    assert "trained_on: split" in message and "\n" not in message


def test_declared_training_documents_are_never_held_out(tmp_path):
    config = study_config(tmp_path)
    docs = letter_texts(3, 120)
    declared = [f"doc{i:03d}.txt" for i in range(40, 100)]
    config["study"]["models"] = {"g": {
        "library": "gensim", "trained_on": declared,
        "path": gensim_file(tmp_path / "g.model", docs[40:100])}}
    held = heldout_names(corpus_of(config))
    assert len(held) == 24 and not held & set(declared)


def mallet_tokens(text: str) -> list[str]:
    """MALLET's import tokenizer on ASCII text: its default --token-regex
    ``\\p{L}[\\p{L}\\p{P}]+\\p{L}`` (letters, inner punctuation kept), lowercased."""
    return [t.lower() for t in re.findall(r"[A-Za-z][A-Za-z\-'.]+[A-Za-z]", text)]


def hyphenated_texts(tmp_path) -> list[str]:
    """The tiny study's documents, every other one with its first words joined by hyphens and
    capitalised, and the stop word "The" in front (the study's recipe splits and drops what
    MALLET's import keeps)."""
    texts = []
    for i, doc in enumerate(letter_texts(3, 120)):
        words = list(doc)
        if i % 2 == 0:
            words = ["The", "-".join(words[:3]).capitalize(), *words[3:]]
        texts.append(" ".join(words))
    folder = tmp_path / "texts"
    folder.mkdir()
    for i, text in enumerate(texts):
        (folder / f"doc{i:03d}.txt").write_text(text + "\n", encoding="utf-8")
    return texts


def test_a_mallet_file_tokenized_otherwise_has_every_training_document_placed(tmp_path):
    texts = hyphenated_texts(tmp_path)
    state = write_mallet_state(tmp_path / "state.gz", [mallet_tokens(t) for t in texts[:40]])
    config = study_config(tmp_path)
    config["study"]["models"]["mallet-2"]["path"] = str(state)
    held = heldout_names(corpus_of(config))
    assert len(held) == 24 and not held & {f"doc{i:03d}.txt" for i in range(40)}


def test_a_training_document_placed_nowhere_is_refused(tmp_path):
    texts = hyphenated_texts(tmp_path)
    # three documents of the corpus's rarest words, mixed as no document of it is (cosine at
    # most 0.37 with any of them)
    others = [[f"{stem}{x}{x}" for stem in ("ocean", "solar", "stone")] * 5 for x in "efg"]
    trained = [mallet_tokens(t) for t in texts[:40]] + others
    state = write_mallet_state(tmp_path / "state.gz", trained)
    config = study_config(tmp_path)
    config["study"]["models"]["mallet-2"]["path"] = str(state)
    with pytest.raises(ValueError) as caught:
        corpus_of(config)
    message = str(caught.value)
    assert message.startswith("study.models.mallet-2: 3 of its 43 training documents could not "
                              "be placed in the corpus"), message
    assert "\n" not in message


def test_the_written_split_round_trips(tmp_path, capsys):
    import yaml

    from topiceval.cli import main

    config = study_config(tmp_path)
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["study", str(path), "--split", str(tmp_path / "split"),
                 "--workflow", str(ROOT)]) == 0
    split = tmp_path / "split"
    train = [json.loads(line) for line in (split / "train.jsonl").read_text().splitlines()]
    held = [json.loads(line) for line in (split / "heldout.jsonl").read_text().splitlines()]
    counts = pd.read_csv(split / "train-counts.csv")
    assert counts.groupby("name")["count"].sum().to_dict() == {
        d["name"]: len(d["tokens"]) for d in train}
    assert (split / "train" / train[0]["name"]).read_text() == (
        tmp_path / "texts" / train[0]["name"]).read_text()
    assert len(held) == 24 and len(list((split / "heldout").iterdir())) == 24
    # a model trained elsewhere on the training split, declared so: the same held-out documents
    config["study"]["models"]["g"] = {
        "library": "gensim", "trained_on": "split",
        "path": gensim_file(tmp_path / "g.model", [d["tokens"] for d in train])}
    config["study"]["models"]["folder"] = {
        "library": "gensim", "trained_on": {"texts": str(split / "train")},
        "path": str(tmp_path / "g.model")}
    assert heldout_names(corpus_of(config)) == {d["name"] for d in held}


def test_the_split_is_written_without_a_clone_of_the_workflow(tmp_path, monkeypatch):
    """From an installed package (no Snakefile beside it) and no --workflow, --split writes the
    same split, CONFIG's relative paths read from the current directory."""
    import yaml

    import topiceval.commands.study as command
    from topiceval.cli import main

    config = study_config(tmp_path)
    config["study"]["corpus"]["texts"] = "texts"  # relative: to the current directory
    config["study"]["models"]["mallet-2"]["path"] = "state.gz"
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(config))
    monkeypatch.setattr(command, "ROOT", tmp_path / "site-packages")  # no Snakefile there
    monkeypatch.chdir(tmp_path)
    assert main(["study", str(path), "--split", str(tmp_path / "split")]) == 0
    held = [json.loads(line)["name"] for line in
            (tmp_path / "split" / "heldout.jsonl").read_text().splitlines()]
    absolute = study_config(tmp_path)
    assert set(held) == heldout_names(corpus_of(absolute)) and len(held) == 24
    with pytest.raises(ValueError, match="^a study runs the workflow of a clone"):
        command.snakemake_command(command.argparse.Namespace(
            config=str(path), workflow=None, cores=1, report=None, dry_run=True,
            data_mirror=None, results=None))


def test_documents_with_the_bag_of_another_are_left_out_of_the_draw(tmp_path):
    docs = letter_texts(3, 120)
    docs[100] = docs[50][::-1]  # the same bag of words, in another order
    write_texts(tmp_path / "texts", docs)
    config = study_config(tmp_path, models={})
    corpus = corpus_of(config)
    assert corpus.meta["study"]["heldout_left_out_duplicates"] == 2
    assert not heldout_names(corpus) & {"doc050.txt", "doc100.txt"}
    assert np.sum(corpus.split == "test") == 24


def test_dropped_tokens_are_counted_per_reason_and_named(tmp_path):
    """The tiny study with a MALLET file that never saw "solarhh": its held-out tokens are
    dropped as unknown to the file, and words of the held-out documents only as not in the
    training vocabulary."""
    docs = letter_texts(3, 120)
    write_texts(tmp_path / "texts", docs)
    trained = [[w for w in d if w != "solarhh"] for d in docs[:40]]
    write_mallet_state(tmp_path / "state.gz", trained)
    config = study_config(tmp_path)
    corpus = corpus_of(config)
    study = corpus.meta["study"]
    held = corpus.select_split("test")
    solarhh = sum(d.count("solarhh") for d, n in zip(docs, [f"doc{i:03d}.txt" for i in
                                                            range(120)], strict=True)
                  if n in set(held.names.tolist()))
    assert solarhh > 0
    assert study["heldout_tokens_dropped_by_reason"] == {"unknown to mallet-2": solarhh}
    assert study["heldout_words_dropped"] == {"solarhh": solarhh}
    assert study["heldout_tokens_before"] == held.n_tokens + solarhh


def test_the_dropped_words_are_named_most_first_after_the_corpus_is_saved(tmp_path):
    docs = letter_texts(3, 120)
    write_texts(tmp_path / "texts", docs)
    write_mallet_state(tmp_path / "state.gz",
                       [[w for w in d if w not in ("oceanhh", "solaraa")] for d in docs[:40]])
    corpus = corpus_of(study_config(tmp_path))
    corpus.save(tmp_path / "corpus.npz")
    saved = type(corpus).load(tmp_path / "corpus.npz").meta["study"]
    words = corpus.meta["study"]["heldout_words_dropped"]
    assert len(words) == 2 and len(set(words.values())) == 2
    said = S.dropped_columns(saved)["words_dropped"]
    assert said == ", ".join(f"{w} ({n})" for w, n in sorted(words.items(),
                                                            key=lambda x: -x[1]))
