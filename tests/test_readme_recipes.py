"""The recipes of the page "Score a model you trained elsewhere" (docs/score-a-model.md), and the
README's one recipe, run as written on real data.

Each Python recipe is cut from the page (the README's from the README) and executed with the
names it uses bound to a model its library trains here on AP (Blei's ``ap.dat`` from the data
mirror: the first 300 documents, small and fast), or, for MALLET, to the real MALLET model of
the mirror (``mallet-ap/state.gz``).
The held-out documents are later AP documents plus one whose words no training document has
(issue 32: one such document among 200 made the MALLET recipe raise).  The two commands of the
shell recipe run the same way on the MALLET model.  So the recipes cannot rot: a change that
breaks one, or the text of one, fails here.
"""

from __future__ import annotations

import math
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from data_fixtures import SHARED_MIRROR
from topiceval import cli
from topiceval.adapters import from_mallet
from topiceval.data.readers.ldac import read_ldac

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "docs" / "score-a-model.md"
README = ROOT / "README.md"
AP = SHARED_MIRROR / "ap"
MALLET_AP = SHARED_MIRROR / "mallet-ap"
TRAIN = 300  # AP documents the peer libraries train on (MALLET's model: its own 300)
HELDOUT = 20  # held-out AP documents scored per recipe, besides the unknown-only one
MALLET_HELDOUT = 341  # the first AP document after MALLET's training documents (named 1..340)
TOPICS = 8
UNKNOWN_NAME = "unknown-only"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (AP / "ap.dat").is_file() or not (MALLET_AP / "state.gz").is_file(),
                       reason=f"AP or the MALLET model not found under {SHARED_MIRROR} (set "
                              "TOPICEVAL_DATA_MIRROR)"),
    # tomotopy 0.14's extension warns while it is imported
    pytest.mark.filterwarnings(
        "ignore:builtin type _VocabDict has no __module__ attribute:DeprecationWarning"),
]


# ------------------------------------------------------------------------------- the recipes
def page_blocks(page: Path, language: str) -> list[str]:
    """The ``language`` code blocks of the recipes: the whole page, or the README's section
    "Score a model you trained elsewhere"."""
    text = page.read_text(encoding="utf-8")
    if page == README:
        text = text.split("## Score a model you trained elsewhere", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def python_recipes(page: Path = RECIPES) -> tuple[str, dict[str, str]]:
    """The Python block's imports, and each library's recipe by the first word of its comment
    (``scikit-learn``, ``gensim``, ``tomotopy``, ``mallet``, ``lda``)."""
    (block,) = page_blocks(page, "python")
    imports, *recipes = block.strip().split("\n\n")
    named = {re.match(r"# ([\w-]+)", recipe).group(1).lower(): recipe for recipe in recipes}
    return imports, named


def shell_commands() -> list[list[str]]:
    """The shell recipe's commands, as argument lists without ``topiceval``."""
    (block,) = page_blocks(RECIPES, "sh")
    commands = [shlex.split(line, comments=True) for line in block.strip().splitlines()]
    assert all(argv[0] == "topiceval" for argv in commands), commands
    return [argv[1:] for argv in commands]


def test_the_page_has_a_recipe_for_every_importer():
    _, recipes = python_recipes()
    assert sorted(recipes) == ["gensim", "lda", "mallet", "scikit-learn", "tomotopy"]
    assert all('empty="skip"' in recipe for recipe in recipes.values())
    assert [argv[:2] for argv in shell_commands()] == [["import", "--from"],
                                                       ["evaluate", "--model"]]


def test_the_readme_has_one_recipe():
    _, recipes = python_recipes(README)
    assert list(recipes) == ["scikit-learn"] and 'empty="skip"' in recipes["scikit-learn"]


# ------------------------------------------------------------------------------- AP data
@pytest.fixture(scope="module")
def ap_texts() -> list[str]:
    """Every AP document as text (its words in the file's order; lda-c has no token order)."""
    corpus = read_ldac(AP / "ap.dat", AP / "vocab.txt", "ap")
    vocab = np.asarray(corpus.vocab)
    return [" ".join(vocab[doc.ids]) for doc in corpus.docs]


def unknown_only(heldout: list[str], known: set[str]) -> str:
    """A document of held-out AP words that the model never saw (letters only, so that every
    tokenizer keeps them whole)."""
    words = sorted({w for text in heldout for w in text.split()
                    if w.isalpha() and len(w) > 2} - known)
    assert len(words) >= 5, words
    return " ".join(words[:5])


@pytest.fixture(scope="module")
def peer_data(ap_texts):
    """(training texts, held-out texts ending with the unknown-only document)."""
    train = ap_texts[:TRAIN]
    heldout = ap_texts[TRAIN:TRAIN + HELDOUT]
    known = {w for text in train for w in text.split()}
    return train, [*heldout, unknown_only(heldout, known)]


def trained(library: str, train: list[str], test: list[str]) -> dict:
    """The names ``library``'s recipe uses: a model it trains on ``train``, ``test`` in the
    form the recipe takes."""
    tokens = [text.split() for text in train]
    test_token_lists = [text.split() for text in test]
    if library == "scikit-learn":
        from sklearn.decomposition import LatentDirichletAllocation
        from sklearn.feature_extraction.text import CountVectorizer

        vectorizer = CountVectorizer()
        lda = LatentDirichletAllocation(n_components=TOPICS, max_iter=10, random_state=0)
        lda.fit(vectorizer.fit_transform(train))
        return {"lda": lda, "vectorizer": vectorizer, "test_texts": test}
    if library == "gensim":
        from gensim.corpora import Dictionary
        from gensim.models import LdaModel

        dictionary = Dictionary(tokens)
        lda = LdaModel([dictionary.doc2bow(doc) for doc in tokens], id2word=dictionary,
                       num_topics=TOPICS, passes=3, random_state=0)
        return {"lda": lda, "test_token_lists": test_token_lists}
    if library == "tomotopy":
        from topiceval.adapters.tomotopy_lda import import_tomotopy

        mdl = import_tomotopy("tests").LDAModel(k=TOPICS, seed=1)
        for doc in tokens:
            mdl.add_doc(doc)
        mdl.train(100, workers=1)
        return {"mdl": mdl, "test_token_lists": test_token_lists}
    assert library == "lda"
    import lda
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(analyzer=str.split)
    lda_model = lda.LDA(n_topics=TOPICS, n_iter=100, random_state=1)
    lda_model.fit(vectorizer.fit_transform(train))
    return {"lda_model": lda_model, "vectorizer": vectorizer, "test_texts": test}


@pytest.fixture(scope="module")
def mallet_heldout(ap_texts) -> tuple[list[str], str]:
    """Held-out AP texts for the MALLET model (AP documents after its training documents),
    ending with one of words MALLET's model never saw; and the model's training words."""
    train = [line.split("\t")[2] for line in
             (MALLET_AP / "train.txt").read_text(encoding="utf-8").splitlines()]
    known = {w for text in train for w in text.split()}
    heldout = ap_texts[MALLET_HELDOUT:MALLET_HELDOUT + HELDOUT]
    return [*heldout, unknown_only(heldout, known)]


# ------------------------------------------------------------------------------- the recipes
def check_summary(text: str, unknown: str) -> float:
    """The summary of a recipe on the held-out documents: all but the unknown-only one scored,
    that one skipped and named; returns the nats per token."""
    assert f"on {HELDOUT:,} of {HELDOUT + 1:,} documents" in text, text
    assert f"note: 1 empty document(s) skipped (no estimate, not in the totals): {unknown}" \
        in text, text
    per_token = re.search(r"per token: (-?[\d.]+) \+/- ([\d.]+) nats; perplexity ([\d,.]+) "
                          r"\+/- ([\d,.]+)", text)
    assert per_token, text
    nats, se = float(per_token.group(1)), float(per_token.group(2))
    assert -12 < nats < -5 and 0 <= se < 0.1, text
    assert math.isclose(float(per_token.group(3).replace(",", "")), math.exp(-nats),
                        rel_tol=1e-3)
    return nats


@pytest.mark.parametrize("page,library", [(RECIPES, "scikit-learn"), (RECIPES, "gensim"),
                                          (RECIPES, "tomotopy"), (RECIPES, "lda"),
                                          (README, "scikit-learn")],
                         ids=lambda x: x.name if isinstance(x, Path) else x)
def test_peer_recipe_runs_as_written_on_ap(page, library, peer_data, capsys):
    imports, recipes = python_recipes(page)
    namespace = trained(library, *peer_data)
    capsys.readouterr()
    exec(compile(f"{imports}\n\n{recipes[library]}", f"{page.name} ({library})", "exec"),
         namespace)
    text = capsys.readouterr().out
    check_summary(text, f"document {HELDOUT} (5 word(s) dropped)")
    check_oov_count(text, namespace["model"], heldout_words(library, namespace, peer_data[1]))


def heldout_words(library: str, namespace: dict, test: list[str]) -> list[list[str]]:
    """The held-out words as the library's training text was split (the vectorizer's analyzer,
    or whitespace for the token-list recipes)."""
    if "vectorizer" in namespace:
        return [namespace["vectorizer"].build_analyzer()(text) for text in test]
    return [text.split() for text in test]


def check_oov_count(text: str, model, words: list[list[str]]) -> None:
    """The summary's out-of-vocabulary count is the number of held-out tokens whose word the
    model does not know: none removed before topiceval counts them."""
    known = set(np.asarray(model.vocab).tolist())
    unknown = sum(w not in known for doc in words for w in doc)
    found = re.search(r"([\d,]+) out-of-vocabulary tokens dropped", text)
    assert found and int(found.group(1).replace(",", "")) == unknown > 0, (unknown, text)


def test_mallet_recipe_runs_as_written_on_the_mallet_model(mallet_heldout, tmp_path,
                                                           monkeypatch, capsys):
    imports, recipes = python_recipes()
    (tmp_path / "state.gz").symlink_to(MALLET_AP / "state.gz")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    exec(compile(f"{imports}\n\n{recipes['mallet']}", "score-a-model.md (mallet)", "exec"),
         {"test_lines": mallet_heldout})
    text = capsys.readouterr().out
    check_summary(text, f"document {HELDOUT} (5 word(s) dropped)")
    model = from_mallet(MALLET_AP / "state.gz")
    check_oov_count(text, model, [line.split() for line in mallet_heldout])


def test_shell_recipe_runs_as_written_on_the_mallet_model(mallet_heldout, tmp_path,
                                                          monkeypatch, capsys):
    """The two commands, on MALLET-style lines named as in a real file; the unknown-only
    document is named by its name."""
    (tmp_path / "state.gz").symlink_to(MALLET_AP / "state.gz")
    names = [f"AP{d}" for d in range(MALLET_HELDOUT, MALLET_HELDOUT + HELDOUT)]
    lines = [f"{name}\tX\t{text}" for name, text in
             zip([*names, UNKNOWN_NAME], mallet_heldout, strict=True)]
    (tmp_path / "heldout.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    for argv in shell_commands():
        assert cli.main(argv) == 0, (argv, capsys.readouterr().err)
    err = capsys.readouterr().err
    check_summary(err, f"'{UNKNOWN_NAME}' (5 word(s) dropped)")
    check_oov_count(err, from_mallet(MALLET_AP / "state.gz"),
                    [line.split() for line in mallet_heldout])
    # the page's Python recipe on the same model and text gives the same number
    imports, recipes = python_recipes()
    exec(compile(f"{imports}\n\n{recipes['mallet']}", "score-a-model.md (mallet)", "exec"),
         {"test_lines": mallet_heldout})
    python = capsys.readouterr().out
    assert total_line(python) == total_line(err), (python, err)
    table = pd.read_csv(tmp_path / "per_document.csv")
    assert table["name"].tolist() == [*names, UNKNOWN_NAME]
    assert table["logp_nats"].isna().tolist() == [False] * HELDOUT + [True]
    assert table["oov_tokens_dropped"].iloc[-1] == 5 and table["tokens_scored"].iloc[-1] == 0


def total_line(summary: str) -> str:
    """The summary's line of the total log-likelihood and its standard error."""
    (line,) = [line for line in summary.splitlines() if "log-likelihood:" in line]
    return line.strip()
