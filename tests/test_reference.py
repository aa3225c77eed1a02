"""The API reference a user reads (docs/api/): the functions a user calls have an Examples
section, which runs here as it runs when the documentation is built (``sphinx -b doctest`` in
.ci/docs-stage.sh), and they list every parameter of their signature.
"""

from __future__ import annotations

import doctest
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
# the reference's functions whose parameters must be listed (issue 47 found these without)
WITH_PARAMETERS = [
    *WITH_EXAMPLES, Corpus.from_tokens, Corpus.from_counts, Corpus.from_documents, Corpus.align,
    diagnostics.pareto_khat, diagnostics.split_rhat, diagnostics.runs_spread,
    diagnostics.run_average, diagnostics.reason_counts,
]


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


@pytest.mark.parametrize("function", WITH_PARAMETERS, ids=name)
def test_every_parameter_is_listed(function):
    listed = section(inspect.getdoc(function), "Parameters")
    wanted = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    missing = [p for p in wanted if not re.search(rf"(^|[\s,*]){p}\b", listed, re.MULTILINE)]
    assert not missing, f"{name(function)}: Parameters does not list {missing}"


def test_diagnostics_are_in_the_reference():
    page = (ROOT / "docs" / "api" / "diagnostics.md").read_text(encoding="utf-8")
    assert "diagnostics\n" in (ROOT / "docs" / "api" / "index.md").read_text(encoding="utf-8")
    for function in WITH_PARAMETERS:
        if function.__module__ == "topiceval.diagnostics":
            assert f"autofunction:: topiceval.diagnostics.{function.__name__}" in page
