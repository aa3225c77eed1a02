"""``topiceval study CONFIG``: run a study (which of my models is best on my documents?).

    topiceval study my-study.yaml --cores 4 --data-mirror MIRROR
    topiceval study my-study.yaml --dry-run                 # the jobs, without running them
    topiceval study my-study.yaml --report report.html      # the Snakemake report afterwards
    topiceval study my-study.yaml --split DIR               # the training / held-out split

MIRROR is a local copy of the raw data files, laid out as the download directory
(``topiceval.data.sources`` gives each file's path); without it they are downloaded.

A thin front end of the workflow: it runs ``snakemake --cores N --configfile CONFIG`` in the
repository that holds the workflow (the ``Snakefile`` beside ``src/``), so a study run either
way resumes the other's work.  Paths inside CONFIG are relative to that repository, like the
workflow's own; outputs go to ``results/studies/<name>/`` there (``--results DIR`` elsewhere).
The configuration's keys: ``config/README.md`` ("study"), example ``config/study-example.yaml``.
``--split`` runs no workflow, so it needs no clone: from an installed package, CONFIG's
relative paths are relative to the current directory.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
from pathlib import Path

from topiceval.commands import add_command
from topiceval.input_files import load_yaml

ROOT = Path(__file__).resolve().parents[3]  # src/topiceval/commands/study.py -> the repository


def register(subparsers) -> None:
    parser = add_command(
        subparsers, "study", columns=False,
        help="run a study: your models compared on your held-out documents (Snakemake)",
        description="Run the study of CONFIG (a YAML file with a study: block) with the "
                    "workflow's Snakemake, as `snakemake --cores N --configfile CONFIG` would: "
                    "train the candidates, estimate every held-out document under each, compare "
                    "them in pairs, and write results/studies/NAME/ (candidates.csv, "
                    "documents.csv, paired.csv, ratio_ais.csv, the figure and its verdict). It "
                    "resumes where an earlier run stopped.")
    parser.add_argument("config", help="the study's YAML file (config/study-example.yaml)")
    parser.add_argument("--cores", type=int, default=1,
                        help="cores Snakemake may use (default 1)")
    parser.add_argument("--data-mirror", metavar="DIR",
                        help="a local copy of the raw data, laid out as the download directory "
                             "(topiceval.data.sources), to read datasets and mirror: model files "
                             "from (default: download)")
    parser.add_argument("--results", metavar="DIR",
                        help="results directory (default: results/ in the repository)")
    parser.add_argument("--dry-run", action="store_true", help="list the jobs, run nothing")
    parser.add_argument("--report", metavar="HTML",
                        help="write the Snakemake report of the study (after a run) instead")
    parser.add_argument("--split", metavar="DIR",
                        help="write the study's training and held-out documents to DIR (texts, "
                             "tokens and counts with names) and run nothing else: train a model "
                             "elsewhere on DIR/train and declare it with trained_on: split "
                             "(needs no clone of the workflow)")
    parser.add_argument("--workflow", metavar="DIR", default=None,
                        help="the clone of the repository holding the Snakefile (default: the "
                             "clone this package was installed from, with pip install -e)")
    parser.set_defaults(func=run)


def snakemake_command(args: argparse.Namespace) -> tuple[list[str], Path]:
    """(the Snakemake command line, the directory to run it in) for ``args``; ``ValueError``
    for a CONFIG that is not a study or a workflow that is not there."""
    config = Path(args.config).resolve()
    if not config.is_file():
        raise ValueError(f"{args.config}: no such file (the study's YAML file)")
    data = load_yaml(args.config)
    if not isinstance(data, dict) or not isinstance(data.get("study"), dict):
        raise ValueError(f"{args.config}: no study: block (see config/study-example.yaml)")
    root = workflow_root(args.workflow)
    if args.cores < 1:
        raise ValueError(f"--cores must be at least 1, got {args.cores}")
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(root / "Snakefile"),
           "--configfile", str(config)]
    if args.report:
        cmd += ["--report", str(Path(args.report).resolve())]
    else:
        cmd += ["--cores", str(args.cores), "--rerun-incomplete"]
        if args.dry_run:
            cmd.append("--dry-run")
    extra = []
    if args.data_mirror:
        extra.append(f"data_mirror={Path(args.data_mirror).resolve()}")
    if args.results:
        extra.append(f"results_dir={Path(args.results).resolve()}")
    return cmd + (["--config", *extra] if extra else []), root


def workflow_root(workflow: str | None) -> Path:
    """The clone whose Snakefile runs the study: ``--workflow``, or the clone this package was
    installed from; ``ValueError`` in one line when there is none (an installed wheel has no
    workflow)."""
    if workflow is None:
        if (ROOT / "Snakefile").is_file():
            return ROOT
        raise ValueError("a study runs the workflow of a clone of the repository, and this "
                         f"installation of topiceval ({Path(__file__).parents[1]}) has none: "
                         "run topiceval study in a clone installed with pip install -e ., or "
                         "pass --workflow DIR, the clone's directory")
    root = Path(workflow).resolve()
    if not (root / "Snakefile").is_file():
        raise ValueError(f"--workflow {workflow}: no Snakefile there; the workflow comes with the "
                         "repository (a clone), not with the installed package")
    return root


DEFAULT_RESOURCES = "resources"  # the workflow's resources_dir when no clone says otherwise


def split_root(workflow: str | None) -> Path:
    """Where ``--split`` resolves CONFIG's relative paths: ``--workflow`` or the clone this
    package was installed from, as the study itself does; from an installed package (no
    clone), the current directory: writing a split runs no workflow."""
    if workflow is not None or (ROOT / "Snakefile").is_file():
        return workflow_root(workflow)
    return Path.cwd()


def write_study_split(args: argparse.Namespace) -> int:
    """``--split DIR``: the study's split written by ``experiments.study.write_split_files``,
    its dataset's raw files read from ``--data-mirror`` or the download directory
    (``resources_dir`` of CONFIG, else of the clone's config/config.yaml, else
    ``resources``, under :func:`split_root`)."""
    from topiceval.data.sources import source_files
    from topiceval.experiments import study as S

    data = load_yaml(args.config)
    if not isinstance(data, dict) or not isinstance(data.get("study"), dict):
        raise ValueError(f"{args.config}: no study: block (see config/study-example.yaml)")
    root = split_root(args.workflow)
    mirror = str(Path(args.data_mirror).resolve()) if args.data_mirror else None
    with contextlib.chdir(root):
        plan = S.study_plan(data["study"], mirror=mirror)
    files, nltk = [], None
    defaults = root / "config" / "config.yaml"
    resources = data.get("resources_dir") or (load_yaml(defaults)["resources_dir"]
                                              if defaults.is_file() else DEFAULT_RESOURCES)
    base = Path(mirror) if mirror else root / resources / "raw"
    if dataset := plan.data.corpus.get("dataset"):
        files = [str(base / f.path) for f in source_files(dataset)]
        if missing := [f for f in files if not Path(f).is_file()]:
            raise ValueError(f"study.corpus.dataset {dataset}: {missing[0]} is not there; pass "
                             "--data-mirror DIR or download the data first")
    if plan.data.needs_nltk():
        nltk = str((Path(mirror) if mirror else base.parent) / "nltk_data")
    outdir = Path(args.split).resolve()
    with contextlib.chdir(root):  # paths inside CONFIG: relative to the clone (or here)
        S.write_split_files(plan.data, files, nltk, outdir,
                            log=lambda line: print(line, file=sys.stderr, flush=True))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.split:
        return write_study_split(args)
    cmd, root = snakemake_command(args)
    check_plan(args, root)
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    code = subprocess.run(cmd, cwd=root).returncode
    if code == 0 and not (args.dry_run or args.report):
        print_verdict(args, root)
    return code


def check_plan(args: argparse.Namespace, root: Path) -> None:
    """CONFIG's study checked as the workflow will check it (``experiments.study.study_plan``,
    paths from ``root``), so that a bad study is refused in one line before Snakemake starts."""
    from topiceval.experiments import study as S

    mirror = str(Path(args.data_mirror).resolve()) if args.data_mirror else None
    study = load_yaml(args.config)["study"]
    with contextlib.chdir(root):
        S.study_plan(study, mirror=mirror)


def print_verdict(args: argparse.Namespace, root: Path) -> None:
    """The verdict in words (the figure's caption) once the study has run."""
    from topiceval.study import study_directory

    data = load_yaml(args.config)
    caption = study_directory(data, root, args.results) / "perplexity.caption.md"
    if caption.is_file():
        print("\n" + caption.read_text(encoding="utf-8").replace("**", "").strip()
              + f"\n\n(the figure and the tables: {caption.parent})", flush=True)
