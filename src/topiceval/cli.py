"""The ``topiceval`` command.

Each sub-command lives in a module of ``topiceval.commands`` exposing ``register(subparsers)``,
which adds its parser and sets ``func`` (called with the parsed arguments, returns an exit code).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from topiceval import __version__

COMMAND_MODULES = ("corpus", "train", "estimate", "evaluate", "compare", "import_model")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="topiceval",
        description="Evaluate topic models by the probability they give to held-out documents.",
    )
    parser.add_argument("--version", action="version", version=f"topiceval {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"topiceval.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as exc:
        print(f"topiceval {args.command}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
