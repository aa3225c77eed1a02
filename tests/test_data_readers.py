"""Every reader on tiny fixtures written in tmp_path."""

from __future__ import annotations

import numpy as np
import pytest

from data_fixtures import (
    DOCWORD,
    LDAC_DATA,
    LDAC_VOCAB,
    REUTERS_SGML,
    STTM_LABELS,
    STTM_TEXT,
    newsgroups_archive,
    nips_archive,
    write_gzip,
)
from topiceval.data.readers import (
    read_ldac,
    read_newsgroups,
    read_nips,
    read_reuters21578,
    read_sttm,
    read_uci_docword,
)
from topiceval.data.readers.base import RawCorpus, RawDocument
from topiceval.data.readers.newsgroups import split_message, strip_quotes, strip_signature


def test_newsgroups_order_split_label_header_and_latin1(tmp_path):
    raw = read_newsgroups(newsgroups_archive(tmp_path / "20ng.tar.gz", prefix="./"))
    assert [d.name for d in raw.docs] == [
        "train/alt.atheism/7",
        "train/sci.space/101",
        "train/sci.space/99",
        "test/sci.space/200",
    ]
    assert [d.split for d in raw.docs] == ["train", "train", "train", "test"]
    assert [d.label for d in raw.docs] == ["alt.atheism", "sci.space", "sci.space", "sci.space"]
    doc = raw.docs[1]
    assert doc.subject == "launch windows"
    assert doc.header == "From: a@x.org\nSubject: launch windows\nLines: 3"
    assert "\r" not in doc.text and "caf\u00e9" in doc.text
    assert raw.docs[2].header == "" and raw.docs[2].text == "no header here at all\n"
    assert raw.usenet and raw.kind == "text" and raw.ordered


def test_newsgroups_archive_without_messages_is_an_error(tmp_path):
    from data_fixtures import write_tar

    with pytest.raises(ValueError, match="no 20news-bydate"):
        read_newsgroups(write_tar(tmp_path / "x.tar.gz", {"other/file": b"x"}))


def test_usenet_filters():
    body = "In article <1@x> c@y writes:\n> quoted\n| also quoted\nkept line\n--\nsig\n"
    assert strip_quotes(body) == "kept line\n--\nsig\n"
    assert strip_signature(body) == body[: body.index("--\nsig")]
    assert strip_signature("no sig -- here") == "no sig -- here"
    assert split_message("Subject: s\n\nbody\n\nmore") == ("Subject: s", "s", "body\n\nmore")


@pytest.mark.parametrize("prefix", ["", "nips-data-c07d8b1/data/"])
def test_nips_layouts_cleaning_and_exclusion(tmp_path, prefix):
    raw = read_nips(nips_archive(tmp_path / "nips.tar.gz", prefix=prefix))
    assert [d.name for d in raw.docs] == ["1987/0001", "1988/0002"]
    assert [d.label for d in raw.docs] == ["1987", "1988"]
    assert raw.docs[1].text == "Neural connectivity and learning.\n"
    assert raw.notes["excluded"] == ["2002/CS09"]
    kept = read_nips(tmp_path / "nips.tar.gz", join_hyphenated=False, exclude=())
    assert len(kept.docs) == 3
    assert kept.docs[1].text == "Neural con-\nnectivity and learning.\n"


def test_reuters_documents_with_body_entities_and_labels(tmp_path):
    path = tmp_path / "reut2-000.sgm"
    path.write_bytes(REUTERS_SGML)
    raw = read_reuters21578([path])
    assert [d.name for d in raw.docs] == ["1", "3", "4"]
    first = raw.docs[0]
    assert first.text == "Cocoa prices <rose> sharply.\n Reuter"
    assert first.header == first.subject == "COCOA & GRAIN"
    assert first.label == "cocoa,grain" and first.split is None
    assert raw.docs[1].text == "Oil m\u00fcnchen output fell."
    assert raw.notes == {"records": 4, "without_body": 1, "modapte": False}


def test_reuters_modapte_split(tmp_path):
    path = tmp_path / "reut2-000.sgm"
    path.write_bytes(REUTERS_SGML)
    raw = read_reuters21578([path], modapte=True)
    assert [(d.name, d.split) for d in raw.docs] == [("1", "train"), ("3", "test")]
    assert raw.notes["modapte_unused_with_body"] == 1
    empty = tmp_path / "reut2-001.sgm"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="no <REUTERS> records"):
        read_reuters21578([empty])


# Malformed files that gensim's readers (BleiCorpus, UciCorpus) read without a word and ours
# refuse: why topiceval keeps its own (docs/own-code.md#lda-c-and-uci-bag-of-words-readers).
# (line after a valid first line, our message)
GENSIM_ACCEPTS_LDAC = [
    ("2 0:1.5 1:1\n", "not an lda-c line"),  # a fractional count
    ("1 1:-3\n", "counts must be positive"),
    ("1 1:0\n", "counts must be positive"),
    ("1 -1:1\n", r"word id out of range \[0, 5\)"),
    ("1 9:1\n", r"word id out of range \[0, 5\)"),
]
# (docword file, our message)
GENSIM_ACCEPTS_UCI = [
    ("3\n4\n1\n1 1 2.5\n", "non-integer"),
    ("3\n4\n1\n1 1 2xyz\n", "non-integer"),
    ("3\n4\n1\n1 1 -2\n", "counts must be positive"),
    ("3\n4\n1\n1 0 1\n", r"wordID out of range \[1, 4\]"),
    ("3\n4\n1\n1 9 1\n", r"wordID out of range \[1, 4\]"),
    ("3\n4\n1\n9 1 1\n", r"docID out of range \[1, 3\]"),
    ("3\n4\n2\n1 1 1\n", "NNZ=2"),
]


@pytest.mark.parametrize(("line", "message"), GENSIM_ACCEPTS_LDAC)
def test_gensim_blei_reader_accepts_what_ours_refuses(tmp_path, line, message):
    """If this fails, gensim has become stricter: reconsider using it (and update the page)."""
    corpora = pytest.importorskip("gensim.corpora")
    (tmp_path / "d.dat").write_text("1 0:1\n" + line)
    (tmp_path / "v.txt").write_bytes(LDAC_VOCAB)
    assert len(list(corpora.BleiCorpus(str(tmp_path / "d.dat"), str(tmp_path / "v.txt")))) == 2


@pytest.mark.parametrize(("content", "message"), GENSIM_ACCEPTS_UCI)
def test_gensim_uci_reader_accepts_what_ours_refuses(tmp_path, content, message):
    """If this fails, gensim has become stricter: reconsider using it (and update the page)."""
    corpora = pytest.importorskip("gensim.corpora")
    (tmp_path / "docword").write_text(content)
    (tmp_path / "docword.vocab").write_text("a\nb\nc\nd\n")
    assert list(corpora.UciCorpus(str(tmp_path / "docword"), str(tmp_path / "docword.vocab")))


def test_ldac_expands_counts_in_file_order(tmp_path):
    (tmp_path / "d.dat").write_bytes(LDAC_DATA)
    (tmp_path / "v.txt").write_bytes(LDAC_VOCAB)
    raw = read_ldac(tmp_path / "d.dat", tmp_path / "v.txt", "ap")
    assert raw.kind == "counts" and not raw.ordered and raw.vocab_named
    assert raw.vocab == ["running", "runs", "the", "ab", "run"]
    assert [d.ids.tolist() for d in raw.docs] == [[4, 4, 0], [1, 2, 2, 2, 3], []]
    assert [d.name for d in raw.docs] == ["0", "1", "2"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("3 1:1 2:1\n", "declares 3 terms but lists 2"),
        ("1 a:b\n", "not an lda-c line"),
        *GENSIM_ACCEPTS_LDAC,
    ],
)
def test_ldac_errors_name_file_and_line(tmp_path, line, message):
    (tmp_path / "d.dat").write_text("1 0:1\n" + line)
    (tmp_path / "v.txt").write_bytes(LDAC_VOCAB)
    with pytest.raises(ValueError, match=message) as info:
        read_ldac(tmp_path / "d.dat", tmp_path / "v.txt", "ap")
    assert "d.dat:2" in str(info.value)


def test_ldac_vocabulary_errors(tmp_path):
    (tmp_path / "d.dat").write_text("1 0:1\n")
    (tmp_path / "v.txt").write_text("a\nb\na\n")
    with pytest.raises(ValueError, match="'a' appears more than once"):
        read_ldac(tmp_path / "d.dat", tmp_path / "v.txt", "ap")
    (tmp_path / "v.txt").write_text("a\n\nb\n")
    with pytest.raises(ValueError, match="v.txt:2: empty vocabulary entry"):
        read_ldac(tmp_path / "d.dat", tmp_path / "v.txt", "ap")


def test_uci_docword_expansion_and_empty_documents(tmp_path):
    raw = read_uci_docword(write_gzip(tmp_path / "docword.x.txt.gz", DOCWORD), "kos")
    assert raw.vocab == ["w1", "w2", "w3", "w4"] and not raw.vocab_named and not raw.ordered
    assert [d.name for d in raw.docs] == ["1", "2", "3"]
    assert [d.ids.tolist() for d in raw.docs] == [[1, 1, 0], [], [3, 2, 2]]
    plain = tmp_path / "docword.y.txt"
    plain.write_bytes(DOCWORD)
    assert [d.ids.tolist() for d in read_uci_docword(plain, "kos").docs][2] == [3, 2, 2]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("3\n4\n5\n1 1 1\n", "NNZ=5"),
        ("3\n4\n1\n4 1 1\n", r"docID out of range \[1, 3\]"),
        ("3\n4\n1\n1 5 1\n", r"wordID out of range \[1, 4\]"),
        ("3\n4\n1\n1 1 0\n", "counts must be positive"),
        ("3\n4\n", "header"),
        ("3\nx\n1\n", "non-integer"),
        *GENSIM_ACCEPTS_UCI,
    ],
)
def test_uci_docword_errors(tmp_path, content, message):
    path = tmp_path / "docword.txt"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        read_uci_docword(path, "kos")


def test_sttm_lines_and_labels(tmp_path):
    (tmp_path / "t.txt").write_bytes(STTM_TEXT)
    (tmp_path / "l.txt").write_bytes(STTM_LABELS)
    raw = read_sttm(tmp_path / "t.txt", tmp_path / "l.txt", "tweet")
    assert raw.kind == "tokens"
    assert [(d.name, d.label, d.text) for d in raw.docs] == [
        ("0", "1", "stock market e-commerce news"),
        ("1", "2", "the football match"),
        ("2", "3", ""),
    ]
    (tmp_path / "l.txt").write_text("1\n")
    with pytest.raises(ValueError, match="has 3 documents but .* has 1 labels"):
        read_sttm(tmp_path / "t.txt", tmp_path / "l.txt", "tweet")


def test_raw_corpus_validation():
    with pytest.raises(ValueError, match="unknown raw corpus kind"):
        RawCorpus("x", "images", [])
    with pytest.raises(ValueError, match="needs a vocabulary"):
        RawCorpus("x", "counts", [])
    with pytest.raises(ValueError, match="needs ids"):
        RawCorpus("x", "counts", [RawDocument("0")], vocab=["a"])
    ok = RawCorpus("x", "counts", [RawDocument("0", ids=np.array([0]))], vocab=["a"])
    assert ok.docs[0].ids.tolist() == [0]


# --- a user's own corpus (topiceval.data.readers.user) ----------------------------------------

def test_text_folder_sorted_by_path_hidden_files_left_out(tmp_path):
    from topiceval.data.readers import read_text_folder

    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "2.txt").write_text("second text")
    (tmp_path / "a.txt").write_text("first text")
    (tmp_path / ".hidden").write_text("not a document")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x").write_text("nor this")
    raw = read_text_folder(tmp_path)
    assert [d.name for d in raw.docs] == ["a.txt", "b/2.txt"] and raw.kind == "text"
    assert [d.text for d in raw.docs] == ["first text", "second text"]
    (tmp_path / "c.txt").write_bytes(b"caf\xe9")
    with pytest.raises(ValueError, match=r"c.txt: not UTF-8 text \(byte 3\); save it as UTF-8"):
        read_text_folder(tmp_path)
    with pytest.raises(ValueError, match="not a folder of text files"):
        read_text_folder(tmp_path / "a.txt")


def test_csv_column_and_jsonl_field(tmp_path):
    from topiceval.data.readers import read_csv_column, read_jsonl_field

    path = tmp_path / "d.csv"
    path.write_text('id,text\n1,"one, two"\n2,\n')
    raw = read_csv_column(path, "text")
    assert [(d.name, d.text) for d in raw.docs] == [("row 1", "one, two"), ("row 2", "")]
    with pytest.raises(ValueError, match=r"no column 'body'; the header has \['id', 'text'\]"):
        read_csv_column(path, "body")
    path = tmp_path / "d.jsonl"
    path.write_text('{"text": "alpha beta"}\n\n{"text": "gamma"}\n')
    raw = read_jsonl_field(path, "text")
    assert [(d.name, d.text) for d in raw.docs] == [("line 1", "alpha beta"), ("line 3", "gamma")]
    path.write_text('{"text": "alpha"}\n{"body": "beta"}\n')
    with pytest.raises(ValueError, match=r"d.jsonl:2: no string field 'text'"):
        read_jsonl_field(path, "text")
    path.write_text('{"text": "alpha"\n')
    with pytest.raises(ValueError, match=r"d.jsonl:1: not a JSON object"):
        read_jsonl_field(path, "text")


def test_uci_counts_with_their_vocabulary(tmp_path):
    from topiceval.data.readers import read_uci_named

    docword = tmp_path / "docword.txt"
    docword.write_text("2\n3\n3\n1 1 2\n1 3 1\n2 2 1\n")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("apple\nbanana\ncherry\n")
    raw = read_uci_named(docword, vocab)
    assert raw.vocab == ["apple", "banana", "cherry"] and raw.vocab_named
    assert [d.ids.tolist() for d in raw.docs] == [[0, 0, 2], [1]]
    vocab.write_text("apple\nbanana\n")
    with pytest.raises(ValueError, match=r"vocab.txt: 2 words, but .*docword.txt declares W = 3"):
        read_uci_named(docword, vocab)
