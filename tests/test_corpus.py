"""Corpus container: construction, views, persistence, validation messages."""

import numpy as np
import pytest

from topiceval.corpus import Corpus, CorpusError
from topiceval.validation import pack_documents, token_documents


@pytest.fixture
def corpus():
    return Corpus.from_documents(
        [[0, 1, 2, 1], [2, 2], [3]],
        ["a", "b", "c", "d"],
        names=["d0", "d1", "d2"],
        split=["train", "test", "train"],
        meta={"recipe": "test"},
    )


def test_sequence_protocol_keeps_token_order(corpus):
    assert len(corpus) == 3
    assert corpus[0].tolist() == [0, 1, 2, 1]
    assert corpus[-1].tolist() == [3]
    assert [d.tolist() for d in corpus] == [[0, 1, 2, 1], [2, 2], [3]]
    with pytest.raises(IndexError):
        corpus[3]


def test_sizes_and_stats(corpus):
    s = corpus.stats()
    assert (s["D"], s["V"], s["tokens"]) == (3, 4, 7)
    assert s["mean_length"] == pytest.approx(7 / 3)
    assert s["sd_length"] == pytest.approx(np.std([4, 2, 1], ddof=1))


def test_split_and_subset(corpus):
    train = corpus.select_split("train")
    assert train.names.tolist() == ["d0", "d2"]
    assert train[1].tolist() == [3]
    assert corpus.subset([2, 0]).names.tolist() == ["d2", "d0"]
    with pytest.raises(CorpusError, match="no documents with split 'dev'"):
        corpus.select_split("dev")


def test_counts_matrix(corpus):
    np.testing.assert_array_equal(
        corpus.counts().toarray(), [[1, 2, 1, 0], [0, 0, 2, 0], [0, 0, 0, 1]]
    )


def test_round_trip_is_exact(tmp_path, corpus):
    path = tmp_path / "c.npz"
    corpus.save(path)
    back = Corpus.load(path)
    assert back.checksum() == corpus.checksum()
    assert back.meta == {"recipe": "test"}
    assert back.split.tolist() == corpus.split.tolist()
    assert list(tmp_path.iterdir()) == [path]  # no temporary files left behind


def test_checksum_sees_token_order(corpus):
    swapped = Corpus.from_documents([[1, 0, 2, 1], [2, 2], [3]], corpus.vocab)
    assert swapped.checksum() != corpus.checksum()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(offsets=np.array([0, 4, 3, 7])), "decrease at document 1"),
        (dict(offsets=np.array([1, 4, 6, 7])), "must start at 0"),
        (dict(offsets=np.array([0, 4, 6, 8])), "offsets end at 8 but there are 7 tokens"),
        (dict(tokens=np.array([0, 1, 2, 1, 2, 2, 9])), r"token ids must lie in \[0, 4\)"),
        (dict(names=np.array(["x"])), "names has shape"),
    ],
)
def test_load_names_the_violation(tmp_path, corpus, change, message):
    arrays = dict(
        format_version=np.int64(1),
        offsets=corpus.offsets,
        tokens=corpus.tokens,
        vocab=corpus.vocab,
        names=corpus.names,
        split=corpus.split,
        meta=np.array("{}"),
    )
    arrays.update(change)
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(CorpusError, match=message):
        Corpus.load(path)


def test_load_rejects_non_corpus_files(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, a=np.zeros(2))
    with pytest.raises(CorpusError, match="not a corpus file"):
        Corpus.load(path)
    garbage = tmp_path / "g.npz"
    garbage.write_bytes(b"not a zip")
    with pytest.raises(CorpusError, match="cannot read corpus file"):
        Corpus.load(garbage)


def test_document_helpers(corpus):
    offsets, tokens = pack_documents(corpus)
    assert offsets.tolist() == [0, 4, 6, 7] and tokens.dtype == np.int64
    with pytest.raises(ValueError, match="document 1 must be a 1-D"):
        token_documents([[0], [[1, 2]]])
    with pytest.raises(ValueError, match="integer token ids"):
        token_documents([[0.5]])
