"""Publishing a run's results with their provenance (rule ``publish``).

A run's figures, captions and summary tables are copied into a compact directory that can sit in
the repository (``docs/results/<configuration>/``), next to a ``provenance.json`` that says how
they were made:

* the commit of the code (and whether the work tree had uncommitted changes), the date, the
  command, the resolved configuration;
* the machine (platform, CPU model, cores, memory) and the versions of Python and the scientific
  stack;
* per rule, the jobs, wall seconds and CPU seconds summed over its jobs and the largest job's,
  and the peak memory, read from the ``benchmark:`` files Snakemake wrote
  (``rule_costs.csv`` holds the same table).  Rules without a ``benchmark:`` file (downloads,
  summaries, figures: seconds each) are not listed.

Nothing per shard is copied: the directory holds what a reader opens (figures as PNG, captions
as Markdown, the tables under ``tables/`` and the timing summaries under ``timings/``).

Every caption written from a table is written again from the published table by the code that
publishes it (:func:`refresh_publication`, :mod:`topiceval.plots.recaption`), so a run computed
at an older commit never publishes a caption that the current code would not write; tables
computed from other published tables (004-F1 from 004-F2) are computed again the same way.
``provenance.json`` then names, under ``rewritten``, the commit that wrote them and the files
that changed.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path

import pandas as pd

from topiceval.io import write_csv_atomic, write_text_atomic
from topiceval.plots.recaption import recaption, rederive, redraw

PUBLISHED = "docs/results"  # where the repository keeps its publications
PACKAGES = ("numpy", "scipy", "numba", "pandas", "matplotlib", "scikit-learn", "snakemake")
COPIED = ("figures/*.png", "figures/*.svg", "figures/*.pdf", "figures/*.caption.md",
          "tables/*.csv", "tables/*.caption.md", "timings/*.csv")
# a study's outputs (results_dir/studies/NAME/): its tables, figure and caption
STUDY_COPIED = ("*.csv", "*.png", "*.svg", "*.pdf", "*.caption.md")


def benchmark_regex(pattern: str) -> re.Pattern:
    """A regular expression matching the files of a rule's ``benchmark:`` pattern (each
    ``{wildcard}`` matches one or more characters)."""
    parts = re.split(r"(\{[^}]+\})", pattern)
    return re.compile("".join(".+?" if p.startswith("{") else re.escape(p) for p in parts) + "$")


def rule_costs(benchmark_files: Sequence[Path], patterns: Mapping[str, str]) -> pd.DataFrame:
    """Per rule: jobs, summed and largest wall and CPU seconds, peak resident memory (MB).

    Parameters
    ----------
    benchmark_files : sequence of Path
        Snakemake ``benchmark:`` files (tab-separated, columns ``s`` and ``cpu_time``).
    patterns : mapping
        Rule name -> its ``benchmark:`` pattern.

    Returns
    -------
    pandas.DataFrame
        Columns rule, jobs, wall_seconds, cpu_seconds, largest_job_wall_seconds,
        largest_job_cpu_seconds, max_rss_mb; rules in ``patterns`` order.
    """
    regexes = {rule: benchmark_regex(p) for rule, p in patterns.items()}
    rows = []
    for path in benchmark_files:
        rule = next((r for r, rx in regexes.items() if rx.search(str(path))), None)
        if rule is None:
            continue
        table = pd.read_csv(path, sep="\t")
        rows.append({"rule": rule, "wall": float(table["s"].iloc[-1]),
                     "cpu": float(table["cpu_time"].iloc[-1]),
                     "rss": float(table["max_rss"].iloc[-1])})
    columns = ["rule", "jobs", "wall_seconds", "cpu_seconds", "largest_job_wall_seconds",
               "largest_job_cpu_seconds", "max_rss_mb"]
    if not rows:
        return pd.DataFrame(columns=columns)
    jobs = pd.DataFrame(rows)
    out = jobs.groupby("rule", sort=False).agg(
        jobs=("wall", "size"), wall_seconds=("wall", "sum"), cpu_seconds=("cpu", "sum"),
        largest_job_wall_seconds=("wall", "max"), largest_job_cpu_seconds=("cpu", "max"),
        max_rss_mb=("rss", "max")).reset_index()
    order = {rule: i for i, rule in enumerate(patterns)}
    out = out.sort_values("rule", key=lambda s: s.map(order)).reset_index(drop=True)[columns]
    return out.round(2)


def machine() -> dict:
    """Platform, CPU model, cores, memory and package versions of this machine."""
    cpu = platform.processor()
    try:
        text = Path("/proc/cpuinfo").read_text()
        cpu = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE).group(1).strip()
    except (OSError, AttributeError):
        pass
    memory = None
    try:
        memory = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {"platform": platform.platform(), "cpu": cpu, "cores": os.cpu_count(),
            "memory_gib": memory, "versions": versions}


def code_version(root: Path) -> dict:
    """The commit of ``root``'s git checkout and whether its tracked files had changes (outside
    the publications, ``docs/results``)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              check=False).stdout.strip()

    commit = git("rev-parse", "HEAD") or None
    # publications are outputs, not code: rewriting one does not make the code "changed"
    dirty = (bool(git("status", "--porcelain", "--untracked-files=no", "--", ".",
                      f":(exclude){PUBLISHED}")) if commit else None)
    return {"commit": commit, "uncommitted_changes": dirty}


def publish(results_dir, out_dir, *, config: Mapping, command: str, root,
            patterns: Mapping[str, str], study: str | None = None) -> dict:
    """Copy a run's figures, captions and summary tables to ``out_dir`` and write its
    ``provenance.json``, ``rule_costs.csv`` and a ``README.md`` index.

    Parameters
    ----------
    results_dir : path
        The run's ``results_dir``.
    out_dir : path
        The directory to fill (created; files of an earlier publication are replaced).
    config : mapping
        The run's resolved configuration.
    command : str
        The command that ran the workflow.
    root : path
        The repository checkout whose commit is recorded.
    patterns : mapping
        Rule name -> its ``benchmark:`` pattern (for the per-rule costs).
    study : str, optional
        A study's name: its outputs (``results_dir/studies/<study>/``, ``STUDY_COPIED``) are
        copied instead of the papers' figures and tables.

    Returns
    -------
    dict
        The provenance written.
    """
    results, out = Path(results_dir), Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    copied = []
    source = results / "studies" / study if study else results
    for pattern in STUDY_COPIED if study else COPIED:
        for path in sorted(source.glob(pattern)):
            target = out / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            copied.append(target.relative_to(out).as_posix())
    costs = rule_costs(sorted((results / "benchmarks").rglob("*.tsv")), patterns)
    write_csv_atomic(out / "rule_costs.csv", costs)
    stamps = [p.stat().st_mtime for p in results.rglob("*") if p.is_file()]
    provenance = {
        **code_version(Path(root)),
        "published": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "outputs_written": {
            "first": _iso(min(stamps)) if stamps else None,
            "last": _iso(max(stamps)) if stamps else None},
        "command": command,
        "machine": machine(),
        "totals": {"jobs_benchmarked": int(costs["jobs"].sum()),
                   "cpu_hours": round(float(costs["cpu_seconds"].sum()) / 3600, 3),
                   "wall_hours_summed_over_jobs":
                       round(float(costs["wall_seconds"].sum()) / 3600, 3)},
        "rules": costs.to_dict(orient="records"),
        "config": _plain(config),
        "files": copied,
    }
    _write_provenance(out, provenance)
    return refresh_publication(out, root, figures=True)


def refresh_publication(directory, root, *, figures: bool = False) -> dict:
    """Write a publication's derived tables with their figures (:func:`rederive`) and its
    captions (:func:`recaption`) again from its published tables, record the change in its
    ``provenance.json`` and write its ``README.md`` index again.

    Parameters
    ----------
    directory : path
        A publication: ``provenance.json``, ``figures/``, ``tables/``.
    root : path
        The repository checkout whose code writes them (its commit is recorded).
    figures : bool
        Also draw again every figure that the published tables alone determine
        (:func:`topiceval.plots.recaption.redraw`).

    Returns
    -------
    dict
        The provenance, with ``rewritten``: the commit that wrote the files, whether its work
        tree had uncommitted changes, and the files that changed (none: the key is left as it
        was).
    """
    out = Path(directory)
    provenance = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    config = provenance["config"]
    changed = rederive(out, config.get("figure_format", "png"))
    if figures:
        changed += redraw(out, config)
    changed += recaption(out, config)
    if changed:
        previous = provenance.get("rewritten", {}).get("files", [])
        provenance["rewritten"] = {**code_version(Path(root)),
                                   "files": sorted({*previous, *changed})}
    _write_provenance(out, provenance)
    return provenance


def _write_provenance(out: Path, provenance: dict) -> None:
    write_text_atomic(out / "provenance.json", json.dumps(provenance, indent=1) + "\n")
    write_text_atomic(out / "README.md", _readme(provenance, out))


def _iso(stamp: float) -> str:
    return dt.datetime.fromtimestamp(stamp, dt.UTC).isoformat(timespec="seconds")


def _plain(value):
    """The configuration as JSON types (Snakemake hands a mapping of its own)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _rewritten_note(provenance: dict) -> str:
    """" Written again ..." when the publishing code rewrote some files (else "")."""
    rewritten = provenance.get("rewritten")
    if not rewritten:
        return ""
    commit = (rewritten["commit"] or "unknown")[:7]
    return (f" Written again from the published tables (no estimator run) by the code of commit "
            f"`{commit}`" + (" (with uncommitted changes)" if rewritten["uncommitted_changes"]
                             else "")
            + f": {', '.join(f'`{name}`' for name in rewritten['files'])}.")


def _readme(provenance: dict, out: Path) -> str:
    """README.md of a publication: where it came from and every figure with its caption's
    first sentence."""
    commit = provenance["commit"] or "unknown"
    lines = [f"# Results of `{provenance['command']}`", "",
             f"Commit `{commit}`"
             + (" (with uncommitted changes)" if provenance["uncommitted_changes"] else "")
             + f", outputs written {provenance['outputs_written']['first']} to "
               f"{provenance['outputs_written']['last']} on {provenance['machine']['cpu']} "
               f"({provenance['machine']['cores']} cores); "
               f"{provenance['totals']['cpu_hours']} CPU hours in the benchmarked rules "
               "(`rule_costs.csv`). `provenance.json` holds the configuration, the machine and "
               "the versions." + _rewritten_note(provenance), "",
             "| file | caption (first sentence) |", "|---|---|"]
    for name in provenance["files"]:
        if name.endswith(".caption.md"):
            continue
        caption = out / re.sub(r"\.\w+$", ".caption.md", name)
        first = ""
        if caption.exists():
            # a table cell: "|" escaped, as GitHub's Markdown reads it
            first = caption.read_text().strip().split("\n")[0].split(". ")[0].replace("|", "\\|")
        lines.append(f"| [{name}]({name}) | {first} |")
    return "\n".join(lines) + "\n"
