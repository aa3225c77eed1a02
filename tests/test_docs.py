"""The documentation stands on its own: every page, anchor and section the code cites exists.

* No file of the repository cites a document the user does not have (the methods specification
  the project was written from lives outside the repository; its content is in docs/).
* Every ``docs/...md`` or ``config/...md`` path cited in the code, tests, workflow, benchmarks
  or configuration exists, and so does its ``#anchor`` (GitHub's heading slugs).
* Every relative link of a documentation page resolves, anchors included.
* Every bare section number ``§x.y`` in the code is one that docs/README.md resolves.
* What the package writes for a user (messages, notes, file metadata) cites pages of the
  published site (``topiceval._docs.page``), not repository paths, and every page and anchor it
  cites exists.
* docs/configuration.md is exactly what ``workflow/scripts/config_docs.py`` generates from the
  schemas.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import tomllib
import unicodedata
from datetime import datetime
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("src", "tests", "workflow", "benchmarks", "config", "docs")
TOP_FILES = ("README.md", "Snakefile", "pyproject.toml", "environment.yml", "CITATION.cff",
             "CHANGELOG.md")
SUFFIXES = {".py", ".smk", ".yaml", ".yml", ".md", ".toml", ".cff", ".rst", ".txt", ".cfg"}
# files the user does not have; built from parts so that this test does not cite them itself
ABSENT = ("ESTIMATORS" + ".md", "MANIFEST" + " §", "shared/" + "spec", "shared/" + "seeds")
CITED = re.compile(r"(?<![\w/.-])((?:docs|config)/[\w-][\w./-]*?\.md)(#[\w-]+)?")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)?)")
# a § after a paper's name, key or seed number is a section of that paper
PAPER_BEFORE = re.compile(
    r"(seed[ -]?00\d|seeds 00\d|bechard2018|b[ée]chard|wallach(?:2009)?|foulds|smyth|capdevila"
    r"(?:2018)?|buntine|murray|zhou|heinrich|blei|thesis|paper)[^§]{0,40}$",
    re.IGNORECASE,
)


def repository_files() -> list[Path]:
    files = [ROOT / name for name in TOP_FILES if (ROOT / name).is_file()]
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts:
                files.append(path)
    return files


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = text.lower()
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The heading anchors of a Markdown file (repeated headings get -1, -2, ...)."""
    seen: dict[str, int] = {}
    out = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if fenced or not match:
            continue
        base = slug(match.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return frozenset(out)


def test_slug_matches_github() -> None:
    assert slug("Chib-style") == "chib-style"
    assert slug("Left-to-right (L2R)") == "left-to-right-l2r"
    assert slug("IS-PT") == "is-pt"
    assert slug("foulds_smyth") == "foulds_smyth"
    assert slug("Negative binomial and negative multinomial") == (
        "negative-binomial-and-negative-multinomial")


def test_no_citation_of_absent_files() -> None:
    found = []
    for path in repository_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for absent in ABSENT:
            for number, line in enumerate(text.splitlines(), 1):
                if absent in line:
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "citations of files outside the repository:\n" + "\n".join(found)


def cited_paths() -> list[tuple[str, str, str | None]]:
    """(where, path, anchor) of every docs/ or config/ Markdown path cited in the repository."""
    out = []
    for path in repository_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in CITED.finditer(line):
                where = f"{path.relative_to(ROOT)}:{number}"
                out.append((where, match.group(1), match.group(2)))
    return out


def test_code_cites_the_docs() -> None:
    cites = cited_paths()
    assert any(p.startswith("docs/methods/") for _, p, _ in cites)
    assert any(a for _, _, a in cites)


@pytest.mark.parametrize("where,cited,anchor", cited_paths(), ids=lambda x: str(x))
def test_cited_docs_exist(where: str, cited: str, anchor: str | None) -> None:
    target = ROOT / cited
    assert target.is_file(), f"{where} cites {cited}, which does not exist"
    if anchor:
        assert anchor[1:] in anchors(target), (
            f"{where} cites {cited}{anchor}; the page's anchors are {sorted(anchors(target))}")


def markdown_pages() -> list[Path]:
    pages = sorted((ROOT / "docs").rglob("*.md"))
    return pages + [p for p in (ROOT / "config" / "README.md", ROOT / "CHANGELOG.md")
                    if p.is_file()]


def test_docs_pages_exist() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in markdown_pages()}
    for page in ("docs/README.md", "docs/references.md", "docs/methods/lda.md",
                 "docs/methods/lda-estimators.md", "docs/methods/gapfa.md",
                 "docs/methods/experiments.md", "docs/configuration.md", "config/README.md"):
        assert page in names


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_resolve(page: Path) -> None:
    broken = []
    text = page.read_text(encoding="utf-8")
    for link in LINK.findall(text):
        if re.match(r"[a-z]+:", link):  # http:, https:, mailto:
            continue
        file_part, _, anchor = link.partition("#")
        target = (page.parent / file_part).resolve() if file_part else page
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{link}: no heading with anchor #{anchor}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def section_table() -> set[str]:
    """The section numbers docs/README.md resolves (first column of its § table)."""
    text = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    return {m.group(1) for m in re.finditer(r"^\| §(\d+(?:\.\d+)?) \|", text, re.MULTILINE)}


def test_section_numbers_resolve() -> None:
    known = section_table()
    assert {"1.1", "2.6", "6.6", "9.4"} <= known
    unresolved = []
    for path in repository_files():
        if path.is_relative_to(ROOT / "docs") or path.suffix == ".md":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in SECTION.finditer(line):
                if match.group(1) in known or PAPER_BEFORE.search(line[:match.start()]):
                    continue
                unresolved.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not unresolved, "section numbers docs/README.md does not resolve:\n" + "\n".join(
        unresolved)


# a citation of a repository file: what an installed package's user does not have
REPOSITORY_CITATION = re.compile(r"(?:docs|benchmarks|config)/[\w./-]*\.md|benchmarks/README")


def _docstring_nodes(tree: ast.Module) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def package_sources() -> list[Path]:
    return sorted(p for p in (ROOT / "src" / "topiceval").rglob("*.py")
                  if "__pycache__" not in p.parts)


def test_what_the_package_writes_cites_the_site() -> None:
    """Strings the package uses at run time (not docstrings or comments) cite no repository
    path: an installed package has no docs/ or benchmarks/ (topiceval._docs.page instead)."""
    found = []
    for path in package_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstring_nodes(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docstrings and REPOSITORY_CITATION.search(node.value)):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:80]!r}")
    assert not found, "cite topiceval._docs.page(...) instead:\n" + "\n".join(found)


def site_citations() -> list[tuple[str, str]]:
    """(where, page source with anchor) of every page the package cites: the argument of each
    ``page("...")`` call, and every address on the site written out (in docstrings)."""
    from topiceval._docs import DOCS_URL

    written = re.compile(re.escape(DOCS_URL) + r"([\w/.-]+)\.html(#[\w-]+)?")
    out = []
    for path in package_sources():
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "page"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                out.append((f"{path.relative_to(ROOT)}:{node.lineno}", node.args[0].value))
        for match in written.finditer(text):
            out.append((f"{path.relative_to(ROOT)}", f"{match.group(1)}.md{match.group(2) or ''}"))
    return out


def test_the_package_cites_the_site() -> None:
    sources = {source for _, source in site_citations()}
    assert "choosing-an-estimator.md#long-documents" in sources


@pytest.mark.parametrize("where,source", site_citations(), ids=lambda x: str(x))
def test_cited_site_pages_exist(where: str, source: str) -> None:
    from topiceval._docs import page

    path, _, anchor = source.partition("#")
    target = ROOT / "docs" / path
    assert target.is_file(), f"{where} cites {page(source)}: docs/{path} does not exist"
    if anchor:
        assert anchor in anchors(target), (
            f"{where} cites {page(source)}; docs/{path} has anchors {sorted(anchors(target))}")


def test_page_addresses() -> None:
    from topiceval._docs import DOCS_URL, page

    assert page("methods/gapfa.md#training") == f"{DOCS_URL}methods/gapfa.html#training"
    assert page("index.md") == f"{DOCS_URL}index.html"
    with pytest.raises(ValueError, match="named by its .md source"):
        page("methods/gapfa.html")


def test_equation_numbers_are_defined() -> None:
    """Every equation number (x.y) of a methods page is tagged exactly once."""
    tags: dict[str, str] = {}
    for page in sorted((ROOT / "docs" / "methods").glob("*.md")):
        for tag in re.findall(r"\\tag\{([\d.']+)\}", page.read_text(encoding="utf-8")):
            assert tag not in tags, f"({tag}) tagged in {tags.get(tag)} and {page.name}"
            tags[tag] = page.name
    for needed in ("1.1", "1.5", "1.8", "1.9'", "1.9''", "2.0", "2.2", "2.3", "2.4", "2.5",
                   "3.1", "5.1", "5.2", "6.7", "6.9", "6.15", "6.16", "6.18", "6.19", "7.2",
                   "7.3"):
        assert needed in tags, f"equation ({needed}) is cited by the code but tagged nowhere"


def test_reading_notes_cited_exist() -> None:
    notes = set(re.findall(r"^\| (G\d-\d+) \|",
                           (ROOT / "docs/methods/reading-notes.md").read_text(encoding="utf-8"),
                           re.MULTILINE))
    missing = []
    for path in repository_files():
        for cited in re.findall(r"\bG[1-4]-\d+\b", path.read_text(encoding="utf-8")):
            if cited not in notes:
                missing.append(f"{path.relative_to(ROOT)}: {cited}")
    assert not missing, "reading notes cited but not in docs/methods/reading-notes.md: " + (
        ", ".join(missing))


# ---------------------------------------------------------------------- docs/configuration.md
def config_docs_module():
    spec = importlib.util.spec_from_file_location(
        "config_docs", ROOT / "workflow" / "scripts" / "config_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_config_readme_is_generated_from_the_schemas() -> None:
    committed = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == config_docs_module().render(), (
        "docs/configuration.md is stale: run python workflow/scripts/config_docs.py --write")


def schema_keys(node, doc, resolver, prefix=()):
    """Every property name path of a schema (through $refs)."""
    node, doc = resolver.resolve(node, doc)
    out = []
    for name, sub in node.get("properties", {}).items():
        out.append(prefix + (name,))
        out += schema_keys(sub, doc, resolver, prefix + (name,))
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        out += schema_keys(extra, doc, resolver, prefix + ("*",))
    items = node.get("items")
    if isinstance(items, dict):
        out += schema_keys(items, doc, resolver, prefix[:-1] + (prefix[-1] + "[]",)
                           if prefix else prefix)
    return out


def test_config_readme_lists_every_key() -> None:
    module = config_docs_module()
    resolver = module.Resolver()
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \|", text, re.MULTILINE)
    shown = {re.sub(r"<[^>]+>", "*", row) for row in rows}
    keys = schema_keys(resolver.document(module.TOP), module.TOP, resolver)
    missing = [".".join(k) for k in keys if ".".join(k) not in shown]
    assert not missing, f"docs/configuration.md lacks {missing}"
    undescribed = [row for row in text.splitlines()
                   if row.startswith("| `") and row.rstrip().endswith("|  |")]
    assert not undescribed, "keys without a description in the schema:\n" + "\n".join(
        undescribed)


KEYWORDS = {
    "$schema", "$defs", "$ref", "description", "type", "additionalProperties", "required",
    "properties", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "items",
    "minItems", "maxItems", "uniqueItems", "pattern", "minLength", "oneOf", "anyOf",
    "propertyNames", "minProperties", "contains", "const",
}


def test_schemas_use_known_keywords_only() -> None:
    """A comma inside an unquoted flow-style description silently adds a bogus keyword."""
    bogus = []

    def walk(node, path, names=False):
        if isinstance(node, dict):
            for key, value in node.items():
                if not names and key not in KEYWORDS:
                    bogus.append(f"{'/'.join(path)}: {key!r}")
                walk(value, path + [str(key)], names=not names and key in ("properties",
                                                                             "$defs"))
        elif isinstance(node, list):
            for value in node:
                walk(value, path)

    for schema in sorted((ROOT / "workflow" / "schemas").glob("*.schema.yaml")):
        walk(yaml.safe_load(schema.read_text(encoding="utf-8")), [schema.name])
    assert not bogus, "unknown schema keywords (unquoted commas?): " + ", ".join(bogus)


# --------------------------------------------------------------------------- project metadata
def test_citation_file() -> None:
    """CITATION.cff (CFF 1.2.0; validated with cffconvert when written) names this version and
    the four papers the project reproduces."""
    from topiceval import __version__

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert str(cff["version"]) == __version__
    assert cff["license"] == "MIT"
    titles = [ref["title"] for ref in cff["references"]]
    assert len(titles) == 4
    for words in ("Latent Dirichlet Allocation", "Evaluation Methods for Topic Models",
                  "Robust Evaluation of Topic Models", "Gamma-Poisson Factor Analysis"):
        assert any(words in title for title in titles), words
    for ref in cff["references"]:
        assert ref["authors"] and ref["year"] and ref["type"]


def test_changelog_and_licence() -> None:
    from topiceval import __version__

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text
    assert f"## [{__version__}]" in text
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License")
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_release_metadata_agrees() -> None:
    """The version's CHANGELOG section is dated as CITATION.cff's release, and the install
    instruction of a missing peer names the extra of pyproject.toml, from a clone (the
    distribution is not on the package index yet; the index's ``topiceval`` is another
    project's)."""
    from topiceval import __version__
    from topiceval.adapters._common import INSTALL_HINT

    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    heading = rf"^## \[{re.escape(__version__)}\] - (\d{{4}}-\d{{2}}-\d{{2}})$"
    released = re.search(heading, changelog, re.M)
    assert released, f"CHANGELOG.md has no dated section for {__version__}"
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert str(cff["date-released"]) == released.group(1)
    name = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    assert name != "topiceval"
    assert "adapters" in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    assert 'pip install -e ".[adapters]" in a clone' in INSTALL_HINT


def test_package_is_typed() -> None:
    assert (ROOT / "src" / "topiceval" / "py.typed").is_file()
    assert '"py.typed"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_readme_states_the_default_runs_cost_from_its_provenance() -> None:
    """Issue 34: the main job's CPU-hours and wall time in the README are the published default
    run's (docs/results/default/provenance.json: its CPU-hours and the span of its outputs)."""
    provenance = json.loads((ROOT / "docs/results/default/provenance.json").read_text())
    written = provenance["outputs_written"]
    minutes = (datetime.fromisoformat(written["last"])
               - datetime.fromisoformat(written["first"])).total_seconds() / 60
    stated = (f"{provenance['totals']['cpu_hours']:.2f} CPU-hours and {round(minutes)} minutes "
              f"on {provenance['machine']['cores']} idle cores")
    readme = (ROOT / "README.md").read_text()
    assert stated in readme, stated

