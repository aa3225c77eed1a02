"""A study from Python: ``topiceval.study.run(config)`` runs what ``topiceval study CONFIG``
runs (the workflow's Snakemake, in the clone of the repository this package was installed from)
and returns the table of candidates.  The study itself: ``topiceval.experiments.study``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from topiceval.commands.study import snakemake_command
from topiceval.input_files import load_yaml

__all__ = ["StudyResult", "run"]


@dataclass(frozen=True)
class StudyResult:
    """What a study wrote.

    Attributes
    ----------
    directory : pathlib.Path
        ``results/studies/<name>/``: ``candidates.csv``, ``documents.csv`` (every held-out
        document under every candidate), ``paired.csv``, ``ratio_ais.csv``, the figure
        ``perplexity.png`` and its verdict ``perplexity.caption.md``.
    candidates : pandas.DataFrame
        ``candidates.csv``: one row per candidate, with its total log-likelihood, perplexity
        and their ranges, its ``verdict`` (``best``, ``tie`` or ``worse``), its library's own
        number and its untrusted documents.
    """

    directory: Path
    candidates: pd.DataFrame


def run(config: str | os.PathLike | Mapping, *, cores: int = 1,
        data_mirror: str | os.PathLike | None = None, results: str | os.PathLike | None = None,
        workflow: str | os.PathLike | None = None) -> StudyResult:
    """Run a study (train the candidates, estimate every held-out document under each, compare
    them) as ``topiceval study CONFIG`` does, and return its table of candidates.

    Snakemake's log goes to standard error as the jobs run; a study run again resumes where
    it stopped and reruns only what a changed configuration affects.

    Parameters
    ----------
    config : str, path-like or mapping
        The study's YAML file, or its content as a mapping (``{"study": {...}}``, the keys of
        ``config/study-example.yaml``).  Paths inside it are relative to the clone of the
        repository.
    cores : int, optional
        Cores Snakemake may use (default 1).
    data_mirror : str or path-like, optional
        A local copy of the raw data files, laid out as the download directory (default:
        download them).
    results : str or path-like, optional
        The results directory (default: the configuration's ``results_dir``, ``results/`` in
        the clone).
    workflow : str or path-like, optional
        The clone of the repository holding the ``Snakefile`` (default: the clone this package
        was installed from with ``pip install -e``; an installed wheel has no workflow).

    Returns
    -------
    StudyResult
        The study's directory and ``candidates.csv`` read as a DataFrame.

    Raises
    ------
    ValueError
        For a configuration without a ``study:`` block or a clone without a ``Snakefile``,
        before anything runs.
    RuntimeError
        When a job of the workflow fails (its log above says which).

    Examples
    --------
    The study of ``config/study-quick.yaml`` (the first 400 AP articles, 12 models trained and
    the data mirror's MALLET model) takes a few minutes on 2 cores, in a clone with the data
    mirror (a directory of the raw files, docs/data.md; ``mirror`` below), so it is not run when
    the documentation is built:

    >>> import topiceval.study
    >>> result = topiceval.study.run("config/study-quick.yaml", cores=2,
    ...                              data_mirror=mirror)  # doctest: +SKIP
    >>> result.candidates[["candidate", "perplexity", "verdict"]]  # doctest: +SKIP
    >>> result.directory / "perplexity.png"  # the figure with its verdict  # doctest: +SKIP
    """
    with tempfile.TemporaryDirectory() as scratch:
        if isinstance(config, Mapping):
            path = Path(scratch) / "study.yaml"
            path.write_text(yaml.safe_dump(dict(config)), encoding="utf-8")
        else:
            path = Path(config)
        args = argparse.Namespace(
            config=str(path), cores=cores, report=None, dry_run=False,
            data_mirror=None if data_mirror is None else str(data_mirror),
            results=None if results is None else str(results),
            workflow=None if workflow is None else str(workflow))
        cmd, root = snakemake_command(args)
        data = load_yaml(path)
        done = subprocess.run(cmd, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"the study's workflow failed (Snakemake exit status "
                           f"{done.returncode}): its log above names the job")
    directory = study_directory(data, root, results)
    return StudyResult(directory, pd.read_csv(directory / "candidates.csv",
                                              keep_default_na=False, na_values=[""]))


def study_directory(data: Mapping, root: Path, results: str | os.PathLike | None) -> Path:
    """``<results>/studies/<name>``: ``results`` (relative to the working directory, as
    ``--results``), else the configuration's ``results_dir`` or the workflow's default
    (``config/config.yaml``), relative to the clone ``root``."""
    if results is not None:
        base = Path(results).resolve()
    else:
        defaults = load_yaml(root / "config" / "config.yaml")
        base = (root / data.get("results_dir", defaults["results_dir"])).resolve()
    return base / "studies" / data["study"]["name"]
