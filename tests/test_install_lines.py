"""The install lines of Getting started (docs/getting-started.md, section "Install") work today.

The distribution is not on the package index yet, so a page that tells a user to
``pip install "topiceval-heldout[adapters]"`` sends them to "No matching distribution found".
Here every line of the page's install block is read and run against this repository:

* a line that installs from the index must be a comment marked "once a release is published";
* every other line is run: ``pip install build`` and ``python -m build --wheel`` as written
  (the wheel written to a temporary directory, not the clone's ``dist/``), and each
  ``pip install TARGET`` as ``pip install --dry-run --no-deps --report``, which resolves TARGET
  (the clone, or the wheel the line names) without installing it; the report must name this
  distribution, with every extra the line asks for.

So a line naming a wheel file the build does not write (another version), an extra the
package does not have, or the index, fails here.  The block must hold a clone line and a wheel
line, so the test cannot pass on an empty block.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import InvalidRequirement, Requirement

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "getting-started.md"
NAME = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
MARK = "once a release is published"


def install_lines() -> list[str]:
    """The lines of the first ``sh`` block of the page's section "Install"."""
    section = PAGE.read_text(encoding="utf-8").split("## Install", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```sh\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert block, f"{PAGE}: no sh block in the section Install"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def commands(line: str) -> list[list[str]]:
    """The commands of one line (``a && b``), as argument lists, comments removed."""
    return [shlex.split(part, comments=True) for part in line.split("&&") if part.strip()]


def from_index(target: str) -> bool:
    """Whether a pip target is a requirement resolved on the package index (not a path)."""
    if target.startswith((".", "/")) or target.endswith(".whl") or ".whl[" in target:
        return False
    try:
        Requirement(target)
    except InvalidRequirement:
        return False
    return True


def test_the_index_line_is_a_marked_comment():
    lines = install_lines()
    index = [line for line in lines if line.startswith("#") and f'"{NAME}[' in line]
    assert index, "the block keeps the package index's line, for when a release is published"
    for line in index:
        before = lines[lines.index(line) - 1]
        assert MARK in line or MARK in before, f"not marked '{MARK}': {line}"
    for line in lines:
        for argv in commands(line):
            if argv[:2] == ["pip", "install"]:
                unmarked = [t for t in argv[2:] if not t.startswith("-") and from_index(t)
                            and t != "build"]
                assert not unmarked, f"installs from the package index today: {line}"


@pytest.mark.slow
def test_the_install_lines_resolve_to_this_distribution(tmp_path):
    """Runs the lines: the build as written (into ``tmp_path/dist``), each pip install as a
    dry run whose report names this distribution and the extras asked for."""
    runnable = [line for line in install_lines() if not line.startswith("#")]
    resolved = {"clone": 0, "wheel": 0}
    for line in runnable:
        for argv in commands(line):
            if argv[:2] == ["pip", "install"] and argv[2:] == ["build"]:
                subprocess.run([sys.executable, "-m", "pip", "install", "-q", "build"],
                               check=True)
            elif argv[:3] == ["python", "-m", "build"]:
                subprocess.run([sys.executable, *argv[1:], "--outdir", str(tmp_path / "dist")],
                               cwd=ROOT, check=True, capture_output=True)
            elif argv[:2] == ["pip", "install"]:
                (target,) = [t for t in argv[2:] if not t.startswith("-")]
                kind = "wheel" if target.startswith("dist/") else "clone"
                resolved[kind] += 1
                report = dry_run(target, tmp_path, kind)
                check_report(report, target)
            else:
                pytest.fail(f"{PAGE.name}: a command the test does not know how to run: {argv}")
    assert resolved["clone"] >= 1 and resolved["wheel"] >= 1, resolved


def dry_run(target: str, tmp_path: Path, kind: str) -> dict:
    """pip's report of installing ``target`` without installing it (or its dependencies)."""
    if kind == "wheel":
        path, _, extras = target.partition("[")
        built = tmp_path / path
        assert built.is_file(), (f"{PAGE.name} installs {path}, which the build did not write: "
                                 f"{sorted(p.name for p in (tmp_path / 'dist').iterdir())}")
        target = f"{built}[{extras}" if extras else str(built)
    report = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps",
                    "--ignore-installed", "--quiet", "--report", str(report), target],
                   cwd=ROOT, check=True, capture_output=True)
    return json.loads(report.read_text(encoding="utf-8"))


def check_report(report: dict, target: str) -> None:
    (item,) = report["install"]
    metadata = item["metadata"]
    assert metadata["name"] == NAME, (target, metadata["name"])
    wanted = re.findall(r"\[([^\]]*)\]", target)
    asked = {e.strip() for group in wanted for e in group.split(",")}
    provided = set(metadata.get("provides_extra", []))
    assert asked <= provided, f"{target}: extras {asked - provided} do not exist"
