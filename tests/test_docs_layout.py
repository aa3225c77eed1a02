"""The documentation site's layout (issue 47): no page shows an empty section navigation, code
blocks wrap their long lines instead of running past the column's right edge, and the names
the user pages cite link to the API reference.  The site is built here without running its
notebook pages (their cells change neither layout nor links)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # builds the site's HTML: about 10 CPU-seconds
# Sphinx and the theme come with the docs extra (pip install -e ".[docs]"), not the test extra:
# CI's documentation stage (.ci/docs-stage.sh) installs it and runs this file
pytest.importorskip("sphinx", reason="the docs extra is not installed (.ci/docs-stage.sh runs "
                    "this file)")
pytest.importorskip("pydata_sphinx_theme", reason="the docs extra is not installed")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("html")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-D", "nb_execution_mode=off",
         "-d", str(out / ".doctrees"), str(ROOT / "docs"), str(out)],
        capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def top_level_pages() -> list[str]:
    """The pages of the landing page's toctrees."""
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    pages = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", text, re.DOTALL):
        pages += [line.strip() for line in block.splitlines()
                  if line.strip() and not line.startswith(":")]
    return pages


def test_the_landing_page_lists_pages():
    assert {"getting-started", "trust", "api/index", "methods/lda"} <= set(top_level_pages())


@pytest.mark.parametrize("page", ["index", *top_level_pages()])
def test_no_empty_section_navigation(site, page):
    html = (site / f"{page}.html").read_text(encoding="utf-8")
    sidebar = re.search(r'id="pst-primary-sidebar" class="([^"]*)"', html).group(1)
    navigation = re.search(r'<nav class="bd-docs-nav bd-links".*?</nav>', html, re.DOTALL)
    if "hide-on-wide" in sidebar:  # no left sidebar on a wide screen
        return
    assert navigation and 'class="reference internal"' in navigation.group(0), (
        f"{page}.html: a left sidebar whose section navigation lists no page")


def test_code_blocks_wrap(site):
    css = (site / "_static" / "topiceval.css").read_text(encoding="utf-8")
    rule = re.search(r"div\.highlight pre \{([^}]*)\}", css).group(1)
    assert "white-space: pre-wrap" in rule
    assert 'href="_static/topiceval.css' in (site / "trust.html").read_text(encoding="utf-8")


USER_PAGES = ["getting-started", "score-a-model", "trust", "choose-topics",
              "choosing-an-estimator"]


@pytest.mark.parametrize("page", USER_PAGES)
def test_names_in_the_prose_link_to_the_reference(site, page):
    """Every {py:...} role of a user page resolves to its entry in the API reference (Sphinx
    does not warn about one that does not: it is shown as code, unlinked)."""
    roles = (ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8").count("{py:")
    html = (site / f"{page}.html").read_text(encoding="utf-8")
    linked = re.findall(r'<a class="reference internal" href="api/[^"]*"[^>]*>'
                        r'<code class="xref py', html)
    assert html.count('<code class="xref py') == len(linked) == roles, (
        f"{page}: {roles} roles, {len(linked)} linked to the API reference")

