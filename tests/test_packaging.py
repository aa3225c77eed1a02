"""The package as the README installs it.

The README's main command installs the base dependencies only (``pip install -e .``) and then
tells the user to build the report (``snakemake --report``), so every module that the report
needs must come with the base dependencies, not with an extra: this is checked on the
dependency metadata of the installed distributions, here and in CI's clean install of the
wheel.  (tests/test_report.py builds the report itself.)
"""

import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# what `snakemake --report` imports beyond Snakemake's own base dependencies (its "reports"
# extra: pygments), and what topiceval.report imports to write the report's pages
REPORT_MODULES = ("pygments", "jinja2", "docutils")


def installed_by(requirements: list[str]) -> set[str]:
    """The distributions (canonical names) that installing ``requirements`` brings, read from
    the installed distributions' metadata: extras followed, markers evaluated here."""
    found: set[str] = set()
    seen: set[tuple[str, frozenset]] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        name, extras = canonicalize_name(req.name), frozenset(req.extras)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        found.add(name)
        for line in metadata.requires(name) or []:
            sub = Requirement(line)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e})
                                         for e in {"", *extras}):
                todo.append(sub)
    return found


def distribution_of(module: str) -> str:
    (name,) = {canonicalize_name(d) for d in metadata.packages_distributions()[module]}
    return name


def test_the_report_needs_only_the_base_dependencies():
    base = installed_by(PROJECT["dependencies"])
    report_extra = installed_by(["snakemake[reports]"]) - installed_by(["snakemake"])
    assert report_extra <= base, f"missing from the base dependencies: {report_extra - base}"
    missing = [m for m in REPORT_MODULES if distribution_of(m) not in base]
    assert not missing, f"the report imports {missing}, which the base install lacks"



def test_the_package_index_links_the_documentation_site_the_errors_cite():
    from topiceval._docs import DOCS_URL

    assert PROJECT["urls"]["Documentation"] == DOCS_URL
