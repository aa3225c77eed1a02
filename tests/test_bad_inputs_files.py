"""Damaged model and corpus files: one error naming the file and the problem, never a traceback.

Every case is a row (case id, how the file is damaged, which loader or command reads it, the
exception expected, a substring naming the problem).  The loaders must raise exactly
``ModelError`` / ``CorpusError``; the ``topiceval`` commands must exit 1 with a single line
``topiceval CMD: error: <file>: ...`` on standard error and write no output file.
"""

from __future__ import annotations

import gzip
import pickle
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from topiceval import adapters
from topiceval.adapters import mallet
from topiceval.cli import main
from topiceval.corpus import Corpus, CorpusError
from topiceval.limits import WorkLimitError
from topiceval.models import LDAModel, ModelError, load_model, save_model

PHI = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
WORDS = ["a", "b", "c"]
NEVER = ("allow_pickle", "Traceback", "np.str_", "np.int64", "np.float64")


# ------------------------------------------------------------------------------ good files
@pytest.fixture
def files(tmp_path) -> dict[str, Path]:
    """A valid model file and a valid corpus file over the same three words."""
    good = tmp_path / "good"
    good.mkdir()
    model, corpus = good / "model.npz", good / "corpus.npz"
    save_model(model, LDAModel(PHI, [0.1, 0.4], beta=0.01, vocab=WORDS, meta={"x": 1}))
    Corpus.from_documents([[0, 1, 2, 1], [2, 2], [1]], WORDS, split=["train", "test", "test"],
                          meta={"recipe": "test"}).save(corpus)
    return {"model": model, "corpus": corpus}


# ------------------------------------------------------------------------------ damage
Damage = Callable[[dict, Path], Path]


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return dict(data)


def edited(kind: str, **changes) -> Damage:
    """The ``kind`` file re-saved with arrays replaced (``None`` removes one)."""

    def damage(files: dict, out: Path) -> Path:
        arrays = _arrays(files[kind])
        for name, value in changes.items():
            if value is None:
                arrays.pop(name, None)
            else:
                arrays[name] = value
        np.savez(out, **arrays)
        return out

    return damage


def copied(kind: str) -> Damage:
    """The ``kind`` file unchanged (to be read by the other loader)."""

    def damage(files: dict, out: Path) -> Path:
        out.write_bytes(files[kind].read_bytes())
        return out

    return damage


def truncated(kind: str, keep: float) -> Damage:
    """The first ``keep`` share of the ``kind`` file's bytes (a killed copy)."""

    def damage(files: dict, out: Path) -> Path:
        data = files[kind].read_bytes()
        out.write_bytes(data[: int(len(data) * keep)])
        return out

    return damage


def flipped(kind: str) -> Damage:
    """The ``kind`` file stored uncompressed with one byte of the first array changed."""

    def damage(files: dict, out: Path) -> Path:
        np.savez(out, **_arrays(files[kind]))
        data = bytearray(out.read_bytes())
        with zipfile.ZipFile(out) as archive:
            info = archive.infolist()[0]
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
        data[start + info.file_size - 1] ^= 0xFF  # the member's last byte: CRC mismatch
        out.write_bytes(bytes(data))
        return out

    return damage


def written(content: bytes) -> Damage:
    """A file holding ``content`` and nothing else."""

    def damage(files: dict, out: Path) -> Path:
        out.write_bytes(content)
        return out

    return damage


def npy_renamed(files: dict, out: Path) -> Path:
    """A single ``.npy`` array renamed ``.npz``."""
    with open(out, "wb") as handle:
        np.save(handle, PHI)
    return out


def pickle_renamed(files: dict, out: Path) -> Path:
    """A pickle renamed ``.npz``."""
    out.write_bytes(pickle.dumps({"phi": PHI}))
    return out


def gzip_renamed(files: dict, out: Path) -> Path:
    """A gzipped copy of a good model renamed ``.npz``."""
    out.write_bytes(gzip.compress(files["model"].read_bytes()))
    return out


def truncated_gzip(files: dict, out: Path) -> Path:
    """A MALLET state file, gzipped, cut in half."""
    state = b"#doc source pos typeindex type topic\n#alpha : 0.1 0.1\n#beta : 0.01\n"
    data = gzip.compress(state + b"0 NA 0 0 a 0\n0 NA 1 1 b 1\n" * 50)
    out.write_bytes(data[: len(data) // 2])
    return out


def all_empty_corpus(files: dict, out: Path) -> Path:
    """A corpus file whose documents hold no tokens."""
    Corpus.from_documents([[], []], WORDS, split=["train", "train"]).save(out)
    return out


def directory(files: dict, out: Path) -> Path:
    out.mkdir()
    return out


def missing(files: dict, out: Path) -> Path:
    return out


def other_zip(files: dict, out: Path) -> Path:
    """A zip archive of unrelated text members."""
    with zipfile.ZipFile(out, "w") as archive:
        for name in ("format_version", "family", "meta"):
            archive.writestr(f"{name}.npy", "not an array")
    return out


def object_array(kind: str, name: str) -> Damage:
    """The ``kind`` file with array ``name`` replaced by a pickled object array."""

    def damage(files: dict, out: Path) -> Path:
        arrays = _arrays(files[kind])
        arrays[name] = np.array([{"a": 1}, None], dtype=object)
        np.savez(out, **arrays)
        return out

    return damage


# ------------------------------------------------------------------------------ loader cases
M, C = ("model", ModelError), ("corpus", CorpusError)
S3 = np.array(["0.2", "0.3", "0.5"])
LOADER_CASES = [
    # (case id, damage, (loader, exception), expected problem)
    ("model-missing", missing, M, "No such file or directory"),
    ("model-directory", directory, M, "it is a directory"),
    ("model-empty", written(b""), M, "it is empty (0 bytes)"),
    ("model-truncated-half", truncated("model", 0.5), M, "damaged or truncated"),
    ("model-truncated-tail", truncated("model", 0.97), M, "damaged or truncated"),
    ("model-truncated-header", truncated("model", 0.01), M, "damaged or truncated"),
    ("model-crc", flipped("model"), M, "Bad CRC-32"),
    ("model-npy-renamed", npy_renamed, M, "a single .npy array, not a .npz"),
    ("model-text-renamed", written(b"phi alpha\n0.1 0.2\n"), M, "not a .npz archive"),
    ("model-pickle-renamed", pickle_renamed, M, "not a .npz archive"),
    ("model-gzip-renamed", gzip_renamed, M, "not a .npz archive"),
    ("model-other-zip", other_zip, M, "array 'format_version' is damaged"),
    ("model-other-arrays", edited("model", family=None, meta=None, x=np.zeros(2)), M,
     "not a topiceval model file"),
    ("model-is-corpus", copied("corpus"), M, "not a topiceval model file: it is a corpus file"),
    ("model-no-phi", edited("model", phi=None), M, "it has no 'phi' array"),
    ("model-meta-number", edited("model", meta=np.int64(3)), M, "meta must be a single string"),
    ("model-meta-bad-json", edited("model", meta=np.array("{trainer: gibbs")), M,
     "meta is not valid JSON"),
    ("model-meta-json-list", edited("model", meta=np.array("[1, 2]")), M,
     "meta must be a JSON object, found a JSON array"),
    ("model-phi-strings", edited("model", phi=np.array([S3, S3])), M,
     "phi must hold numbers, found strings"),
    ("model-alpha-strings", edited("model", alpha_m=np.array(["0.1", "0.4"])), M,
     "alpha_m must hold numbers, found strings"),
    ("model-phi-objects", object_array("model", "phi"), M, "'phi' holds Python objects"),
    ("model-phi-1d", edited("model", phi=PHI[0]), M, "phi must be a non-empty (T, V) matrix"),
    ("model-phi-negative", edited("model", phi=-PHI), M, "phi must be strictly positive"),
    ("model-family-unknown", edited("model", family=np.array("nmf")), M,
     "unknown model family 'nmf'"),
    ("model-family-number", edited("model", family=np.int64(1)), M,
     "family must be a single string"),
    ("model-version-future", edited("model", format_version=np.int64(7)), M,
     "model format version 7, expected 1"),
    ("model-version-string", edited("model", format_version=np.array("1")), M,
     "format_version must hold integers, found strings"),
    ("model-beta-array", edited("model", beta=np.ones(3)), M, "beta must be a single number"),
    ("model-vocab-numbers", edited("model", vocab=np.arange(3)), M,
     "vocab must hold strings, found integers"),
    ("corpus-missing", missing, C, "No such file or directory"),
    ("corpus-directory", directory, C, "it is a directory"),
    ("corpus-empty", written(b""), C, "it is empty (0 bytes)"),
    ("corpus-truncated", truncated("corpus", 0.6), C, "damaged or truncated"),
    ("corpus-crc", flipped("corpus"), C, "Bad CRC-32"),
    ("corpus-npy-renamed", npy_renamed, C, "a single .npy array, not a .npz"),
    ("corpus-text-renamed", written("héllo wörld\n".encode()), C, "not a .npz archive"),
    ("corpus-other-arrays", edited("corpus", tokens=None, offsets=None), C,
     "not a corpus file, missing offsets, tokens"),
    ("corpus-is-model", copied("model"), C, "not a corpus file: it is a topiceval model file"),
    ("corpus-tokens-strings", edited("corpus", tokens=np.array(["0", "1", "2", "1", "2", "2",
                                                                 "1"])), C,
     "tokens must hold integers, found strings"),
    ("corpus-tokens-floats", edited("corpus", tokens=np.array([0, 1, 2, 1, 2, 2, 1.5])), C,
     "tokens must hold integers, found floating-point numbers"),
    ("corpus-tokens-objects", object_array("corpus", "tokens"), C,
     "'tokens' holds Python objects"),
    ("corpus-tokens-out-of-range", edited("corpus", tokens=np.array([0, 1, 2, 1, 2, 2,
                                                                      2**32 + 1])), C,
     "token ids must lie in [0, 3)"),
    ("corpus-offsets-2d", edited("corpus", offsets=np.array([[0, 4], [6, 7]])), C,
     "offsets must be a 1-D array"),
    ("corpus-offsets-decreasing", edited("corpus", offsets=np.array([0, 4, 3, 7])), C,
     "decrease at document 1"),
    ("corpus-vocab-numbers", edited("corpus", vocab=np.arange(3.0)), C,
     "vocab must hold strings, found floating-point numbers"),
    ("corpus-split-bytes", edited("corpus", split=np.array([b"train", b"test", b"test"])), C,
     "split must hold strings, found byte strings"),
    ("corpus-names-short", edited("corpus", names=np.array(["x"])), C, "names has shape (1,)"),
    ("corpus-meta-number", edited("corpus", meta=np.float64(1.5)), C,
     "meta must be a single string"),
    ("corpus-meta-bad-json", edited("corpus", meta=np.array("{'recipe': 1}")), C,
     "meta is not valid JSON"),
    ("corpus-meta-json-string", edited("corpus", meta=np.array('"text"')), C,
     "meta must be a JSON object, found a JSON string"),
    ("corpus-dropped-strings", edited("corpus", dropped=np.array(["0", "0", "0"])), C,
     "dropped must hold integers, found strings"),
    ("corpus-version-future", edited("corpus", format_version=np.int64(99)), C,
     "corpus format version 99, expected 1"),
]
LOADERS = {"model": load_model, "corpus": Corpus.load}


@pytest.mark.parametrize(
    ("damage", "loader", "problem"),
    [pytest.param(damage, loader, problem, id=case) for case, damage, loader, problem
     in LOADER_CASES],
)
def test_loader_names_the_file_and_the_problem(files, tmp_path, damage, loader, problem):
    name, error = loader
    path = damage(files, tmp_path / "bad.npz")
    with pytest.raises(error) as info:
        LOADERS[name](path)
    assert type(info.value) is error
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    assert problem in message, message
    assert "\n" not in message
    assert not any(word in message for word in NEVER), message


def test_damaged_files_never_suggest_unpickling(files, tmp_path):
    for damage in (written(b"plain text\n"), pickle_renamed, object_array("model", "phi")):
        path = damage(files, tmp_path / f"{damage.__name__}.npz")
        with pytest.raises(ModelError) as info:
            load_model(path)
        assert "pickle" not in str(info.value).removeprefix(f"{path}: ").lower()


def test_good_files_still_load(files):
    assert load_model(files["model"]).vocab.tolist() == WORDS
    assert Corpus.load(files["corpus"]).n_tokens == 7


# ------------------------------------------------------------------------------ CLI cases
def _run(argv: list[str], capsys) -> tuple[int, list[str]]:
    code = main(argv)
    lines = capsys.readouterr().err.splitlines()
    return code, lines


def _train(corpus: str, out: str) -> list[str]:
    return ["train", "lda", "--corpus", corpus, "--topics", "2", "--trainer", "vem",
            "--max-iter", "2", "--out", out]


def _estimate(model: str, docs: str, out: str) -> list[str]:
    return ["estimate", "--model", model, "--docs", docs, "--method", "is_pt", "--samples",
            "2", "--out", out]


def _evaluate(model: str, docs: str, out: str) -> list[str]:
    return ["evaluate", "--model", model, "--docs", docs, "--runs", "1", "--samples", "2",
            "--no-progress", "--out", out]


def _compare(model: str, docs: str, out: str) -> list[str]:
    return ["compare", "--model-a", model, "--model-b", model, "--docs", docs, "--out", out]


# (case id, command, damaged input role, damage, argv builder, expected problem); the builder
# takes (model, docs/corpus, out) with the damaged file in the given role.
CLI_CASES = [
    ("train-corpus-truncated", "train", "corpus", truncated("corpus", 0.5),
     lambda m, c, o: _train(c, o), "damaged or truncated"),
    ("train-corpus-is-model", "train", "corpus", copied("model"),
     lambda m, c, o: _train(c, o), "it is a topiceval model file"),
    ("train-corpus-missing", "train", "corpus", missing,
     lambda m, c, o: _train(c, o), "No such file or directory"),
    ("estimate-model-text", "estimate", "model", written(b"not a model\n"),
     lambda m, c, o: _estimate(m, c, o), "not a .npz archive"),
    ("estimate-docs-is-model", "estimate", "corpus", copied("model"),
     lambda m, c, o: _estimate(m, c, o), "it is a topiceval model file"),
    ("estimate-model-meta-json", "estimate", "model",
     edited("model", meta=np.array("{oops")), lambda m, c, o: _estimate(m, c, o),
     "meta is not valid JSON"),
    ("evaluate-model-is-corpus", "evaluate", "model", copied("corpus"),
     lambda m, c, o: _evaluate(m, c, o), "it is a corpus file"),
    ("evaluate-docs-npy", "evaluate", "corpus", npy_renamed,
     lambda m, c, o: _evaluate(m, c, o), "a single .npy array"),
    ("evaluate-model-directory", "evaluate", "model", directory,
     lambda m, c, o: _evaluate(m, c, o), "it is a directory"),
    ("evaluate-model-phi-strings", "evaluate", "model",
     edited("model", phi=np.array([S3, S3])), lambda m, c, o: _evaluate(m, c, o),
     "phi must hold numbers"),
    ("compare-model-empty", "compare", "model", written(b""),
     lambda m, c, o: _compare(m, c, o), "it is empty"),
    ("compare-docs-crc", "compare", "corpus", flipped("corpus"),
     lambda m, c, o: _compare(m, c, o), "Bad CRC-32"),
    ("corpus-stats-directory", "corpus-stats", "corpus", directory,
     lambda m, c, o: ["corpus-stats", c], "it is a directory"),
    ("import-mallet-truncated", "import", "model", truncated_gzip,
     lambda m, c, o: ["import", "--from", "mallet", m, "--out", o], "damaged gzip data"),
    ("train-gibbs-all-empty-corpus", "train", "corpus", all_empty_corpus,
     lambda m, c, o: _train(c, o)[:6] + ["--trainer", "gibbs", "--sweeps", "2", "--out", o],
     "no tokens to train on (documents: 2, all empty)"),
    ("train-vem-all-empty-corpus", "train", "corpus", all_empty_corpus,
     lambda m, c, o: _train(c, o), "no tokens to train on"),
    ("train-gapfa-all-empty-corpus", "train", "corpus", all_empty_corpus,
     lambda m, c, o: ["train", "gapfa", "--corpus", c, "--topics", "2", "--iterations", "2",
                      "--burnin", "1", "--out", o], "no tokens to train on"),
    ("train-split-all-empty", "train", "corpus", all_empty_corpus,
     lambda m, c, o: _train(c, o) + ["--split", "train"],
     "no tokens to train on (documents with --split train: 2, all empty)"),
]


@pytest.mark.parametrize(
    ("command", "role", "damage", "argv", "problem"),
    [pytest.param(*row[1:], id=row[0]) for row in CLI_CASES],
)
def test_command_reports_one_line_and_writes_nothing(files, tmp_path, capsys, command, role,
                                                     damage, argv, problem):
    paths = {k: str(v) for k, v in files.items()}
    name = "bad.gz" if command == "import" else "bad.npz"
    paths[role] = str(damage(files, tmp_path / name))
    out = tmp_path / "out" / ("m.npz" if command in ("train", "import") else "out.csv")
    code, lines = _run(argv(paths["model"], paths["corpus"], str(out)), capsys)
    assert code == 1
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"topiceval {command}: error: {paths[role]}"), lines
    assert problem in lines[0], lines
    assert not any(word in lines[0] for word in NEVER), lines
    assert not out.exists()
    assert not list(tmp_path.rglob("*.part"))


# ------------------------------------------------------------------------------ bad outputs
def _in_the_way(tmp_path: Path) -> Path:
    """A directory holding a directory ``d`` and a regular file ``f``."""
    (tmp_path / "w" / "d").mkdir(parents=True)
    (tmp_path / "w" / "f").write_text("in the way\n")
    return tmp_path / "w"


# (case id, argv builder taking (model, corpus, directory with d/ and f), the output named,
# expected problem); a command with several outputs writes none of them, and refuses before
# training
OUTPUT_CASES = [
    ("train-trace-is-a-directory",
     lambda m, c, w: _train(c, f"{w}/m.npz") + ["--trace", f"{w}/d"], "{w}/d",
     "is a directory, not a file to write"),
    ("train-trace-under-a-file",
     lambda m, c, w: _train(c, f"{w}/m.npz") + ["--trace", f"{w}/f/t.csv"], "{w}/f/t.csv",
     "cannot create its directory {w}/f: a file is in the way"),
    ("train-out-is-a-directory",
     lambda m, c, w: _train(c, f"{w}/d") + ["--trace", f"{w}/t.csv"], "{w}/d",
     "is a directory, not a file to write"),
    ("train-out-under-a-file",
     lambda m, c, w: _train(c, f"{w}/f/m.npz") + ["--trace", f"{w}/t.csv"], "{w}/f/m.npz",
     "a file is in the way"),
]


@pytest.mark.parametrize(("argv", "named", "problem"),
                         [pytest.param(*row[1:], id=row[0]) for row in OUTPUT_CASES])
def test_unwritable_output_writes_no_output(files, tmp_path, capsys, argv, named, problem):
    work = _in_the_way(tmp_path)
    before = sorted(work.rglob("*"))
    command = argv("m", "c", "w")[0]
    code, lines = _run(argv(str(files["model"]), str(files["corpus"]), str(work)), capsys)
    assert code == 1
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"topiceval {command}: error: {named.format(w=work)}: "), lines
    assert problem.format(w=work) in lines[0], lines
    assert sorted(work.rglob("*")) == before  # neither output, nor a temporary


def test_train_writes_its_model_only_with_its_trace(files, tmp_path, capsys, monkeypatch):
    """A failure writing --trace (here a full disk) after training leaves no --out either."""
    import topiceval.commands.train as train

    def full_disk(path, frame, **to_csv):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(train, "write_csv_atomic", full_disk)
    out, trace = tmp_path / "out" / "m.npz", tmp_path / "out" / "trace.csv"
    code, lines = _run(_train(str(files["corpus"]), str(out)) + ["--trace", str(trace)], capsys)
    assert code == 1 and len(lines) == 1 and "No space left on device" in lines[0], lines
    assert sorted(p.name for p in out.parent.iterdir()) == []


# ------------------------------------------------------------------------------ outputs = inputs
def _same_file_cases(files: dict, tmp_path: Path) -> list[tuple[str, list[str], Path]]:
    """(command, argv, the input that must survive) for outputs written onto inputs."""
    model, corpus = str(files["model"]), str(files["corpus"])
    docs = tmp_path / "docs.txt"
    docs.write_text("a b c\nb b\n", encoding="utf-8")
    other = tmp_path / "elsewhere"
    other.mkdir()
    respelled = str(other / ".." / "good" / "corpus.npz")
    link = tmp_path / "link.npz"
    link.symlink_to(files["model"])
    return [
        ("train", _train(corpus, corpus), files["corpus"]),
        ("train", _train(corpus, respelled), files["corpus"]),
        ("train", _train(corpus, str(tmp_path / "m.npz")) + ["--trace", corpus],
         files["corpus"]),
        ("estimate", _estimate(model, corpus, str(link)), files["model"]),
        ("evaluate", _evaluate(model, str(docs), str(docs)), docs),
        ("compare", _compare(model, corpus, model), files["model"]),
        ("import", ["import", "--from", "mallet", str(docs), "--out", str(docs)], docs),
    ]


@pytest.mark.parametrize("case", range(7))
def test_output_onto_an_input_is_refused(files, tmp_path, capsys, case):
    command, argv, survivor = _same_file_cases(files, tmp_path)[case]
    before = survivor.read_bytes()
    code, lines = _run(argv, capsys)
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith(f"topiceval {command}: error: --"), lines
    assert "is the same file as" in lines[0] and "refusing to overwrite" in lines[0], lines
    assert survivor.read_bytes() == before


def test_split_error_prints_plain_labels(files, capsys):
    code, lines = _run(["estimate", "--model", str(files["model"]), "--docs",
                        str(files["corpus"]), "--split", "dev", "--method", "is_pt"], capsys)
    assert code == 1 and len(lines) == 1
    assert lines[0].endswith("no documents with split 'dev'; labels present: test, train")


# ------------------------------------------------------------------------------ imported files
STATE_HEADER = "#doc source pos typeindex type topic\n#alpha : 0.5 0.25\n#beta : 0.1\n"
STATE = STATE_HEADER + "0 NA 0 0 sun 0\n0 NA 1 1 rock 1\n1 NA 0 2 wave 1\n1 NA 1 0 sun 0\n"
COUNTS = {"sun": (2, 0), "rock": (0, 1), "wave": (0, 1)}  # n_tv of STATE, per topic
WEIGHTS = "".join(f"{t}\t{word}\t{n[t] + 0.1!r}\n" for t in range(2) for word, n in COUNTS.items())
WEIGHT_LINES = WEIGHTS.splitlines(keepends=True)


def state(old: str = "", new: str = "") -> bytes:
    """The state with one piece of text replaced."""
    assert old in STATE
    return STATE.replace(old, new, 1).encode()


# (case id, the file's bytes, importer, exception, expected problem); the message must start
# with the file's path and say what is wrong with it, and where when a line is to blame
IMPORT_CASES = [
    ("weights-empty", b"", "weights", ValueError, ": the file is empty"),
    ("weights-cut-in-half", "".join(WEIGHT_LINES[:3]).encode(), "weights", ValueError,
     ": the word 'rock' has the smallest weight (0.1, i.e. beta: no token) in all 1 topics, so "
     "the file looks cut short after topic 0"),
    ("weights-cut-mid-line", WEIGHTS.encode()[:-3], "weights", ValueError,
     ", line 6: the last line has no line end, so the file looks cut short"),
    ("weights-cut-mid-topic", "".join(WEIGHT_LINES[:5]).encode(), "weights", ValueError,
     ": topic 1 has no weight for the word 'wave'"),
    ("weights-topic-1e3", WEIGHTS.replace("1\trock", "1e3\trock").encode(), "weights",
     ValueError, ", line 5: expected topic<TAB>word<TAB>weight with an integer topic and a "
                 "positive weight, found '1e3'"),
    ("weights-topic-10**12", WEIGHTS.replace("1\trock", f"{10**12}\trock").encode(), "weights",
     ValueError, ", line 5: topic 1000000000000 is outside 0..2: the file lists 3 distinct "
                 "topics"),
    ("weights-topic-skipped", WEIGHTS.replace("1\t", "2\t").encode(), "weights", ValueError,
     ", line 4: topic 2 is outside 0..1: the file lists 2 distinct topics"),
    ("weights-topic-leading-zero", WEIGHTS.replace("1\trock", "01\trock").encode(), "weights",
     ValueError, ", line 5: expected topic<TAB>word<TAB>weight with an integer topic"),
    ("state-typeindex-10**12", state("1 NA 0 2 wave", f"1 NA 0 {10**12} wave"), "state",
     ValueError, ", line 6: typeindex 1000000000000 is beyond the 3 types the state names, so "
                 "typeindex 2 never occurs"),
    ("state-subnormal-beta", state("#beta : 0.1", "#beta : 1e-310"), "state", ValueError,
     ", line 3: beta = 1e-310 is outside [1e-301, 1e+301]"),
    ("state-huge-beta", state("#beta : 0.1", "#beta : 1e305"), "state", ValueError,
     ", line 3: beta = 1e+305 is outside"),
    ("state-subnormal-alpha", state("#alpha : 0.5 0.25", "#alpha : 0.5 1e-320"), "state",
     ValueError, ", line 2: alpha_m[1] = 1e-320 is outside [1e-301, 1e+301]"),
    ("state-no-tokens", STATE_HEADER.encode(), "state", ValueError, ": the state lists no tokens"),
]
IMPORTERS = {"state": adapters.from_mallet,
             "weights": lambda path: adapters.from_mallet_weights(path, 0.3)}


@pytest.mark.parametrize(("content", "importer", "error", "problem"),
                         [pytest.param(*row[1:], id=row[0]) for row in IMPORT_CASES])
def test_importer_names_the_file_and_the_problem(tmp_path, content, importer, error, problem):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(error) as info:
        IMPORTERS[importer](path)
    assert type(info.value) is error
    message = str(info.value)
    assert message.startswith(str(path) + problem), message
    assert "\n" not in message
    assert not any(word in message for word in NEVER), message


def test_good_mallet_files_still_import(tmp_path):
    (tmp_path / "state.txt").write_text(STATE)
    (tmp_path / "weights.txt").write_text(WEIGHTS)
    with pytest.warns(adapters.CutShortWarning, match="plain"):  # it cannot be checked whole
        from_state = adapters.from_mallet(tmp_path / "state.txt")
    from_weights = adapters.from_mallet_weights(tmp_path / "weights.txt", [0.5, 0.25])
    np.testing.assert_allclose(from_weights.phi, from_state.phi, rtol=1e-15)
    # one alpha for a file cut after a topic is refused, T of them confirm T topics
    (tmp_path / "half.txt").write_text("".join(WEIGHT_LINES[:3]))
    assert adapters.from_mallet_weights(tmp_path / "half.txt", [0.5]).n_topics == 1


def test_mallet_state_too_large_for_memory_is_refused_before_allocating(tmp_path, monkeypatch):
    """T x V cells priced against memory as the types appear: a small file cannot ask for more."""
    monkeypatch.setattr(mallet, "physical_memory", lambda: 2**20)  # 1 MiB
    header = STATE_HEADER.replace("0.5 0.25", " ".join(["0.1"] * 1000))
    lines = "".join(f"0 NA {v} {v} w{v} 0\n" for v in range(100))
    path = tmp_path / "state.txt"
    path.write_text(header + lines)
    with pytest.raises(WorkLimitError) as info:
        adapters.from_mallet(path)
    message = str(info.value)
    assert message.startswith(f"{path}, line ") and "100 types by this line and 1,000 topics" \
        in message and "more than 50% of this machine's 0.0 GiB" in message, message
