"""The API reference a user reads (docs/api/): the functions a user calls have an Examples
section, which runs here as it runs when the documentation is built (``sphinx -b doctest`` in
.ci/docs-stage.sh), and every function and class the reference documents lists every parameter
of its signature.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
import warnings
from pathlib import Path

import pytest

import topiceval
from topiceval import adapters, diagnostics
from topiceval.corpus import Corpus
from topiceval.evaluation import Evaluation
from topiceval.models import save_model

ROOT = Path(__file__).resolve().parents[1]
# what a user calls, from the pages Getting started and Score a model you trained elsewhere
WITH_EXAMPLES = [
    topiceval.evaluate, Evaluation.summary, Evaluation.to_frame, Corpus.from_texts,
    Corpus.subset, Corpus.save, save_model, adapters.from_sklearn, adapters.from_gensim,
    adapters.from_tomotopy, adapters.from_lda, adapters.from_mallet,
    adapters.from_mallet_weights, diagnostics.weights_ess,
]
API_PAGES = sorted((ROOT / "docs" / "api").glob("*.md"))

def name(function) -> str:
    return function.__qualname__


def section(doc: str, title: str) -> str:
    """The text of a numpydoc section (``title`` underlined by dashes), up to the next one."""
    found = re.search(rf"^\s*{title}\n\s*-+\n(.*?)(?=^\s*\w[\w ]*\n\s*-+\n|\Z)", doc,
                      re.MULTILINE | re.DOTALL)
    return found.group(1) if found else ""


@pytest.mark.parametrize("function", WITH_EXAMPLES, ids=name)
def test_examples_run(function):
    doc = inspect.getdoc(function)
    assert section(doc, "Examples").strip(), f"{name(function)}: no Examples section"
    (test,) = doctest.DocTestFinder(recurse=False).find(
        function, name(function), globs={})  # as the docs build runs it: nothing imported
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        # tomotopy 0.14's extension warns while it is imported
        warnings.filterwarnings("ignore", "builtin type _VocabDict", DeprecationWarning)
        result = runner.run(test, out=lambda text: pytest.fail(text, pytrace=False))
    assert result.failed == 0 and result.attempted > 0


def resolve(dotted: str):
    """The object a dotted name of the reference names (module, then attributes)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(dotted)


def documented() -> list:
    """Every function of the API reference, with the public methods and the constructor of
    every class it documents."""
    out = []
    for page in API_PAGES:
        text = page.read_text(encoding="utf-8")
        for kind, dotted, options in re.findall(
                r"\.\. auto(function|class|module):: ([\w.]+)\n((?:   :.*\n)*)", text):
            found = resolve(dotted)
            if kind == "module":  # its :members: (all of __all__ when not named)
                named = re.search(r":members: *(.*)", options)
                members = (named.group(1).split(", ") if named and named.group(1)
                           else getattr(found, "__all__", []))
                objects = [getattr(found, m) for m in members]
            else:
                objects = [found]
            for obj in objects:
                if inspect.isfunction(obj):
                    out.append(obj)
                elif inspect.isclass(obj) and not issubclass(obj, BaseException):
                    out.append(obj)
                    out += [getattr(obj, key) for key, member in vars(obj).items()
                            if not key.startswith("_")
                            and isinstance(member, (classmethod, staticmethod))
                            or (not key.startswith("_") and inspect.isfunction(member))]
    return out


@pytest.mark.parametrize("function", documented(), ids=name)
def test_every_parameter_is_listed(function):
    doc = inspect.getdoc(function) or ""
    listed = section(doc, "Parameters")
    if inspect.isclass(function):  # a dataclass's fields may be its Attributes
        listed += section(doc, "Attributes")
    wanted = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    missing = [p for p in wanted if not re.search(rf"(^|[\s,*`]){p}\b", listed, re.MULTILINE)]
    assert not missing, f"{name(function)}: Parameters does not list {missing}"


def test_diagnostics_are_in_the_reference():
    page = (ROOT / "docs" / "api" / "diagnostics.md").read_text(encoding="utf-8")
    assert "diagnostics\n" in (ROOT / "docs" / "api" / "index.md").read_text(encoding="utf-8")
    for function in (diagnostics.pareto_khat, diagnostics.weights_ess, diagnostics.split_rhat,
                     diagnostics.runs_spread, diagnostics.run_average, diagnostics.diagnose):
        assert f"autofunction:: topiceval.diagnostics.{function.__name__}" in page
