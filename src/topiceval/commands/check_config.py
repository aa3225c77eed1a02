"""``topiceval check-config FILE ...``: read workflow configuration files as the workflow would.

    topiceval check-config config/quick.yaml my-study.yaml

Snakemake reads ``--configfile`` before the workflow starts, so a file it cannot read stops it
with Snakemake's own message (``Config file is not valid JSON or YAML``), which names neither
the file nor the line.  This command reads each file the way the Snakefile does
(``topiceval.input_files.load_yaml``: size priced first, a key written twice refused) and says
in one line per file what is wrong and where, or that the file reads.  The keys themselves are
checked by the workflow against its schema when it starts (``docs/configuration.md``).
"""

from __future__ import annotations

import argparse
import sys

from topiceval.commands import add_command
from topiceval.input_files import load_yaml


def register(subparsers) -> None:
    parser = add_command(
        subparsers, "check-config", columns=False,
        help="read workflow configuration files (--configfile) and say what is wrong and where",
        description="Read each FILE as the workflow reads a --configfile: a file that is "
                    "missing, too large, not YAML (the line and column are named), not a "
                    "mapping, or that writes a key twice in one mapping is reported in one "
                    "line; a file that reads is reported with its top-level keys. Exit status "
                    "1 when any file fails.")
    parser.add_argument("files", nargs="+", metavar="FILE", help="a YAML configuration file")
    parser.set_defaults(func=run)


def check(path: str) -> str:
    """One line on ``path``: its top-level keys, or ``ValueError`` saying what is wrong."""
    data = load_yaml(path)
    if data is None:
        return f"{path}: empty (nothing to override)"
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a configuration file holds a mapping of keys (key: value), "
                         f"not a {type(data).__name__}")
    return f"{path}: reads; top-level keys: {', '.join(map(str, data)) or 'none'}"


def run(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.files:
        try:
            print(check(path))
        except OSError as exc:
            print(f"topiceval check-config: error: {path}: {exc.strerror or exc}", file=sys.stderr)
            failed += 1
        except ValueError as exc:
            print(f"topiceval check-config: error: {exc}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0
