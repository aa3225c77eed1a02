"""``topiceval import``: files of every format turned into model files, pickles only on trust."""

from __future__ import annotations

import gzip
import pickle
import resource
import subprocess
import sys

import numpy as np
import pytest

from topiceval import adapters
from topiceval.cli import main
from topiceval.commands.import_model import read_vocabulary
from topiceval.models import load_model

STATE = (
    "#doc source pos typeindex type topic\n"
    "#alpha : 0.5 0.25 \n"
    "#beta : 0.1\n"
    "0 NA 0 0 sun 0\n"
    "0 NA 1 1 rock 1\n"
    "1 NA 0 2 wave 1\n"
    "1 NA 1 0 sun 0\n"
)
TOMOTOPY_IMPORT = pytest.mark.filterwarnings(
    "ignore:builtin type _VocabDict has no __module__ attribute:DeprecationWarning")


@pytest.fixture(scope="module")
def texts() -> list[list[str]]:
    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(12)]
    return [[words[j] for j in rng.integers(0, 12, size=10)] for _ in range(20)]


def test_mallet_state(tmp_path, capsys):
    state = tmp_path / "state.gz"
    state.write_bytes(gzip.compress(STATE.encode(), mtime=0))
    out = tmp_path / "model.npz"
    assert main(["import", "--from", "mallet", str(state), "--out", str(out)]) == 0
    model = load_model(out)
    direct = adapters.from_mallet(state)
    np.testing.assert_array_equal(model.phi, direct.phi)
    np.testing.assert_array_equal(model.alpha_m, [0.5, 0.25])
    assert model.vocab.tolist() == ["sun", "rock", "wave"] and model.beta == 0.1
    assert model.meta["source"] == str(state) and model.meta["importer"] == "from_mallet"
    assert "2 topics x 3 words from MALLET" in capsys.readouterr().err


def test_mallet_weights_needs_alpha(tmp_path):
    weights = tmp_path / "weights.txt"
    weights.write_text("".join(f"{t}\t{w}\t{0.1 + (t == i % 2)}\n" for t in range(2)
                               for i, w in enumerate(["sun", "rock", "wave"])))
    out = tmp_path / "model.npz"
    assert main(["import", "--from", "mallet-weights", str(weights), "--out", str(out)]) == 1
    assert main(["import", "--from", "mallet-weights", str(weights), "--alpha", "0.5,0.25",
                 "--out", str(out)]) == 0
    model = load_model(out)
    np.testing.assert_array_equal(model.alpha_m, [0.5, 0.25])
    np.testing.assert_allclose(model.phi[0], np.array([1.1, 0.1, 1.1]) / 2.3, rtol=1e-15)


@pytest.mark.parametrize("old, new, where", [
    ("0 NA 1 1 rock 1\n", "0 NA 1 1 rock\n", "line 5: expected 6 space-separated fields"),
    ("1 NA 0 2 wave 1\n", "1 NA 0 2 wave 7\n", "line 6: topic 7 is outside 0..1"),
    ("1 NA 1 0 sun 0\n", "1 NA 1 0 moon 0\n", "line 7: typeindex 0 is spelled b'moon'"),
    ("#beta : 0.1\n", "", "line 3: expected '#beta :'"),
])
def test_damaged_state_is_reported_with_file_and_line(tmp_path, capsys, old, new, where):
    state = tmp_path / "state.txt"
    state.write_text(STATE.replace(old, new))
    out = tmp_path / "model.npz"
    assert main(["import", "--from", "mallet", str(state), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{state}, {where}" in err and not out.exists()


@pytest.fixture(scope="module")
def sklearn_files(texts, tmp_path_factory):
    import joblib
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer

    root = tmp_path_factory.mktemp("sklearn")
    vectorizer = CountVectorizer(analyzer=str.split)
    counts = vectorizer.fit_transform([" ".join(doc) for doc in texts])
    estimator = LatentDirichletAllocation(n_components=2, max_iter=3, random_state=0)
    estimator.fit(counts)
    joblib.dump(estimator, root / "lda.joblib")
    joblib.dump(vectorizer, root / "vectorizer.joblib")
    words = vectorizer.get_feature_names_out()
    (root / "words.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    return root, estimator, words


def test_sklearn_pickle_needs_trust(sklearn_files, tmp_path, capsys):
    root, estimator, words = sklearn_files
    out = tmp_path / "model.npz"
    args = ["import", "--from", "sklearn", str(root / "lda.joblib"), "--vocabulary",
            str(root / "words.txt"), "--out", str(out)]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "--trust-pickle" in err and "arbitrary code" in err and not out.exists()
    assert main([*args, "--trust-pickle"]) == 0
    model = load_model(out)
    np.testing.assert_array_equal(model.vocab, words)
    np.testing.assert_array_equal(model.phi, adapters.from_sklearn(estimator, words).phi)
    assert model.meta["vocabulary_source"] == str(root / "words.txt")
    # the fitted vectorizer itself as the vocabulary (a pickle too)
    args[5] = str(root / "vectorizer.joblib")
    assert main([*args, "--trust-pickle"]) == 0
    np.testing.assert_array_equal(load_model(out).vocab, words)


def test_vocabulary_files(sklearn_files, tmp_path):
    root, _, words = sklearn_files
    assert read_vocabulary(root / "words.txt", trust_pickle=False) == list(words)
    with pytest.raises(ValueError, match="not a UTF-8 word list.*--trust-pickle"):
        read_vocabulary(root / "vectorizer.joblib", trust_pickle=False)
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes("\ufeffa b\r\nc\r\n".encode())
    assert read_vocabulary(crlf, trust_pickle=False) == ["a b", "c"]
    gap = tmp_path / "gap.txt"
    gap.write_text("a\n\nb\n")
    with pytest.raises(ValueError, match="line 2: empty line"):
        read_vocabulary(gap, trust_pickle=False)


def test_gensim_and_lda_files(texts, tmp_path):
    import lda
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel
    from sklearn.feature_extraction.text import CountVectorizer

    dictionary = Dictionary(texts)
    model = LdaModel([dictionary.doc2bow(doc) for doc in texts], id2word=dictionary,
                     num_topics=2, passes=1, random_state=0)
    model.save(str(tmp_path / "lda.gensim"))
    out = tmp_path / "g.npz"
    assert main(["import", "--from", "gensim", str(tmp_path / "lda.gensim"), "--trust-pickle",
                 "--out", str(out)]) == 0
    np.testing.assert_array_equal(load_model(out).phi, adapters.from_gensim(model).phi)

    vectorizer = CountVectorizer(analyzer=lambda doc: doc)
    counts = vectorizer.fit_transform(texts)
    fitted = lda.LDA(n_topics=2, n_iter=5, random_state=0).fit(counts)
    with open(tmp_path / "lda.pkl", "wb") as handle:
        pickle.dump(fitted, handle)
    (tmp_path / "words.txt").write_text("\n".join(vectorizer.get_feature_names_out()))
    out = tmp_path / "l.npz"
    assert main(["import", "--from", "lda", str(tmp_path / "lda.pkl"), "--vocabulary",
                 str(tmp_path / "words.txt"), "--trust-pickle", "--out", str(out)]) == 0
    np.testing.assert_array_equal(load_model(out).phi, fitted.topic_word_)


@TOMOTOPY_IMPORT
def test_tomotopy_file_and_a_file_tomotopy_cannot_read(texts, tmp_path, capsys):
    from topiceval.adapters.tomotopy_lda import import_tomotopy

    tp = import_tomotopy("tests")
    model = tp.LDAModel(k=2, seed=0)
    for doc in texts:
        model.add_doc(doc)
    model.train(10, workers=1)
    model.save(str(tmp_path / "model.bin"))
    out = tmp_path / "t.npz"
    assert main(["import", "--from", "tomotopy", str(tmp_path / "model.bin"), "--out",
                 str(out)]) == 0
    assert load_model(out).vocab.tolist() == list(model.used_vocabs)
    (tmp_path / "bogus.bin").write_text("not a model")
    # tomotopy would abort the interpreter on this file: the command reports it instead
    assert main(["import", "--from", "tomotopy", str(tmp_path / "bogus.bin"), "--out",
                 str(out)]) == 1
    assert "tomotopy cannot load it" in capsys.readouterr().err


def test_arguments_that_do_not_fit_the_format(tmp_path, capsys):
    state = tmp_path / "state.txt"
    state.write_text(STATE)
    out = str(tmp_path / "m.npz")
    cases = [
        (["--from", "mallet", str(state), "--alpha", "0.1"], "--alpha is needed with --from "
                                                               "mallet-weights, and only there"),
        (["--from", "mallet", str(state), "--vocabulary", str(state)], "--vocabulary is not "
                                                                        "used with --from mallet"),
        (["--from", "sklearn", str(state), "--trust-pickle"], "needs --vocabulary"),
        (["--from", "lda", str(state), "--vocabulary", str(state), "--trust-pickle"],
         "is a MALLET --output-state file, not the pickle --from lda reads"),
    ]
    for args, message in cases:
        assert main(["import", *args, "--out", out]) == 1
        assert message in capsys.readouterr().err


def test_help_says_why_pickles_need_trust(capsys):
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    assert "unpickling runs arbitrary code" in " ".join(capsys.readouterr().out.split())


# ------------------------------------------------------------------------------ bad files
WEIGHTS = "".join(f"{t}\t{w}\t{0.1 + (t == i % 2)!r}\n" for t in range(2)
                  for i, w in enumerate(["sun", "rock", "wave"]))


@pytest.fixture(scope="module")
def tomotopy_file(texts, tmp_path_factory) -> bytes:
    """The bytes of a trained tomotopy LDAModel's save() file."""
    import warnings

    from topiceval.adapters.tomotopy_lda import import_tomotopy

    tp = import_tomotopy("tests")
    model = tp.LDAModel(k=2, seed=0)
    for doc in texts:
        model.add_doc(doc)
    model.train(10, workers=1)
    path = tmp_path_factory.mktemp("tomotopy") / "model.bin"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        model.save(str(path))
    return path.read_bytes()


def _inside_last_block(data: bytes) -> bytes:
    """A tomotopy file cut inside its last block (which ends where the file does)."""
    return data[:data.rfind(b"TPTK") + 30]


# (case id, --from, the file's bytes (or a function of the tomotopy file's), extra arguments,
# what the one error line must say after "topiceval import: error: PATH")
BAD_FILES = [
    ("weights cut after a topic", "mallet-weights", WEIGHTS.splitlines(keepends=True)[:3],
     ["--alpha", "0.3"], ": the word 'rock' has the smallest weight (0.1, i.e. beta: no token) "
                         "in all 1 topics, so the file looks cut short after topic 0"),
    ("weights empty", "mallet-weights", "", ["--alpha", "0.3"], ": the file is empty"),
    ("weights with a topic 1e3", "mallet-weights", WEIGHTS.replace("1\tsun", "1e3\tsun"),
     ["--alpha", "0.3"], ", line 4: expected topic<TAB>word<TAB>weight with an integer topic"),
    ("weights and three alphas", "mallet-weights", WEIGHTS, ["--alpha", "0.1,0.2,0.3"],
     "--alpha must be one number or one per topic (2), got 3 numbers"),
    ("weights and a zero alpha", "mallet-weights", WEIGHTS, ["--alpha", "0.1,0"],
     "--alpha must be a positive number or positive numbers separated by commas, got '0.1,0'"),
    ("weights and a word for alpha", "mallet-weights", WEIGHTS, ["--alpha", "small"],
     "--alpha must be a positive number"),
    ("state with typeindex 10**12", "mallet", STATE.replace("1 NA 0 2 wave", "1 NA 0 "
                                                            f"{10**12} wave"), [],
     ", line 6: typeindex 1000000000000 is beyond the 3 types the state names"),
    ("state with a subnormal beta", "mallet", STATE.replace("#beta : 0.1", "#beta : 1e-310"), [],
     ", line 3: beta = 1e-310 is outside [1e-301, 1e+301]"),
    ("tomotopy empty", "tomotopy", "", [], ": the file is empty"),
    ("tomotopy cut inside a block", "tomotopy", _inside_last_block, [],
     ": cut short: it ends at byte"),
]


@TOMOTOPY_IMPORT
@pytest.mark.parametrize(("library", "content", "extra", "message"),
                         [pytest.param(*row[1:], id=row[0]) for row in BAD_FILES])
def test_bad_files_are_refused_in_one_line(library, content, extra, message, tomotopy_file,
                                           tmp_path, capsys):
    path, out = tmp_path / "bad.txt", tmp_path / "m.npz"
    if callable(content):
        content = content(tomotopy_file)
    elif isinstance(content, list):
        content = "".join(content)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["import", "--from", library, str(path), *extra, "--out", str(out)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    if message.startswith("--alpha must be one number"):  # the file named at the end
        assert lines[0].startswith(f"topiceval import: error: {message}"), lines
        assert str(path) in lines[0]
    elif message.startswith("--"):  # the option, before the file is read
        assert lines[0].startswith(f"topiceval import: error: {message}"), lines
    else:
        assert lines[0].startswith(f"topiceval import: error: {path}{message}"), lines
    assert not out.exists()


# The import run in a child process bounded in CPU time (not wall-clock time): should the limit
# on tomotopy's load regress, the child is stopped at 30 CPU seconds, and the test fails on the
# CPU time its children used instead of hanging.
CHILD = """\
import resource, sys
resource.setrlimit(resource.RLIMIT_CPU, (30, 35))
from topiceval.cli import main
from topiceval.adapters import tomotopy_lda
tomotopy_lda.TOMOTOPY_CPU_SECONDS = 3
tomotopy_lda.TOMOTOPY_CPU_SECONDS_PER_MB = 0
if sys.argv[3] == "busy":  # tomotopy's loop on a cut file, whatever tomotopy's version
    tomotopy_lda.TOMOTOPY_PROBE = tomotopy_lda.TOMOTOPY_PROBE.replace(
        "tomotopy.LDAModel.load(sys.argv[1])", "while True: pass")
sys.exit(main(["import", "--from", "tomotopy", sys.argv[1], "--out", sys.argv[2]]))
"""


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.parametrize("mode", ["busy", "cut"])
def test_a_tomotopy_load_that_never_ends_is_refused(mode, tomotopy_file, tmp_path):
    path, out = tmp_path / "model.bin", tmp_path / "m.npz"
    # cut where a block starts: the blocks left are whole, and tomotopy 0.14 loops on the file
    path.write_bytes(tomotopy_file[:tomotopy_file.rfind(b"TPTK")])
    before = _children_cpu_seconds()
    child = subprocess.run(
        [sys.executable, "-W", "ignore::DeprecationWarning", "-c", CHILD, str(path), str(out),
         mode], capture_output=True, text=True, check=False)
    used = _children_cpu_seconds() - before
    lines = child.stderr.splitlines()
    assert child.returncode == 1 and len(lines) == 1, child.stderr
    refusals = ("did not finish reading it in 3 CPU seconds (tomotopy loops forever on a "
                "damaged or cut file)", "tomotopy cannot load it as an LDAModel")
    assert lines[0].startswith(f"topiceval import: error: {path}: ")
    assert refusals[0] in lines[0] if mode == "busy" else any(r in lines[0] for r in refusals)
    assert used < 20, f"the import's children used {used:.0f} CPU seconds"
    assert not out.exists()
