"""Where topiceval's documentation is published, and the address of one of its pages.

What the package writes for a user (messages, notes, the metadata of the files it writes) cites
a page of the published documentation by its address, never by a path in the repository: an
installed package has no ``docs/`` directory.  Pages are named by their source under ``docs/``,
with the anchor of a heading (GitHub's and the site's anchors are the same);
``tests/test_docs.py`` checks that every page and anchor cited through ``page`` exists.
"""

from __future__ import annotations

# where the documentation site (docs/, built by .ci/docs-stage.sh) is published
DOCS_URL = "https://topiceval-heldout.readthedocs.io/en/latest/"


def page(source: str) -> str:
    """The published address of the documentation page built from ``docs/<source>``.

    Parameters
    ----------
    source : str
        The page's Markdown source under ``docs/``, optionally with a heading's anchor, e.g.
        ``"choosing-an-estimator.md#long-documents"``.

    Returns
    -------
    str
        Its address on the site, e.g.
        ``https://topiceval-heldout.readthedocs.io/en/latest/choosing-an-estimator.html#long-documents``.
    """
    path, hash_, anchor = source.partition("#")
    if not path.endswith(".md"):
        raise ValueError(f"a documentation page is named by its .md source, got {source!r}")
    return f"{DOCS_URL}{path.removesuffix('.md')}.html{hash_}{anchor}"
