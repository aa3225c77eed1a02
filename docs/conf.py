"""Sphinx configuration of topiceval's documentation site.

Built with ``.ci/docs-stage.sh`` (``sphinx-build -W``: every warning is an error), published at
``topiceval.DOCS_URL``.  The pages are Markdown (MyST), readable as they are on the repository;
pages whose front matter says ``file_format: mystnb`` are notebooks whose code cells run when
the site is built (myst-nb), so their examples cannot rot.  The API reference is read from the
numpydoc docstrings of the installed package; their Examples sections run as doctests
(``sphinx -b doctest``, the second step of ``.ci/docs-stage.sh``).
"""

from __future__ import annotations

import topiceval

project = "topiceval"
author = "the topiceval authors"
copyright = "the topiceval authors (MIT licence)"  # noqa: A001 (Sphinx's name)
release = topiceval.__version__
version = release

extensions = [
    "myst_nb",  # Markdown pages (MyST) and executed notebook pages
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",  # the docstrings' Examples run: sphinx -b doctest (.ci/docs-stage.sh)
    "sphinx.ext.mathjax",
]

root_doc = "index"
exclude_patterns = [
    "_build",
    "conf.py",
    # every figure's caption is shown on its run's page (docs/results/*/README.md)
    "results/**/*.caption.md",
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}

# --- MyST: the pages' dollar math with \tag{} numbers, and GitHub's heading anchors, so that
# links such as lda-estimators.md#chib-style resolve both on the repository and on the site
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 6

# --- executed pages: a cell that raises fails the build; no time limit (the first cell that
# evaluates compiles numba's kernels, which takes tens of seconds on a busy machine)
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = -1
nb_execution_show_tb = True
nb_merge_streams = True
# standard error carries the progress bar, the compile note and the libraries' training logs,
# which a page describes in words instead
nb_output_stderr = "remove"

# --- the API reference: numpydoc renders the docstrings; members in source order
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the signature and the numpydoc "Parameters" section say it
numpydoc_show_class_members = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = f"topiceval {release}"
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
}
html_static_path = ["_static"]
html_css_files = ["topiceval.css"]  # code blocks wrap their long lines


def childless_top_level_pages(root: str, includes: dict[str, list[str]]) -> set[str]:
    """The pages of the root toctree with no pages under them: the theme's section navigation
    (the left sidebar) lists a top-level page's children, so on these it would be empty."""
    return {name for name in includes.get(root, []) if not includes.get(name)}


def no_empty_section_navigation(app, pagename, templatename, context, doctree) -> None:
    """No left sidebar on a page whose section navigation would be empty (the content widens)."""
    env = app.builder.env
    if pagename in childless_top_level_pages(env.config.root_doc, env.toctree_includes):
        context["sidebars"] = []


def setup(app) -> None:
    app.connect("html-page-context", no_empty_section_navigation)
