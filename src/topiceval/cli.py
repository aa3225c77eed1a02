"""The ``topiceval`` command.

Each sub-command lives in a module of ``topiceval.commands`` exposing ``register(subparsers)``,
which adds its parser and sets ``func`` (called with the parsed arguments, returns an exit code).

Exit status: 0 on success, 1 for bad input (one line on standard error), 2 for a bad command
line, ``INTERRUPTED`` (130, as a shell reports a process killed by SIGINT) when Ctrl-C stopped
the command: one line, no traceback, and no output file (outputs are written atomically at the
end, ``topiceval.io``; the kernels stop within a fraction of a second, ``topiceval.interrupt``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import warnings
import zipfile
import zlib
from collections.abc import Iterator

from topiceval import __version__
from topiceval.commands import warning_line
from topiceval.io import check_outputs_differ

COMMAND_MODULES = ("corpus", "train", "estimate", "evaluate", "compare", "import_model", "study",
                   "check_config", "coherence")
# The files the commands read and write, by argument name: no output may be one of the inputs.
INPUT_OPTIONS = {"corpus": "--corpus", "docs": "--docs", "model": "--model",
                 "model_a": "--model-a", "model_b": "--model-b", "path": "PATH",
                 "paths": "PATH", "reference": "REFERENCE", "vocabulary": "--vocabulary"}
OUTPUT_OPTIONS = {"out": "--out", "trace": "--trace"}
# What bad input can raise from the libraries we read files with; reported in one line.  Not
# ``Exception``: anything else is a bug in topiceval and keeps its traceback.
INPUT_ERRORS = (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error)
INTERRUPTED = 130  # 128 + SIGINT


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="topiceval",
        description="Evaluate topic models by the probability they give to held-out documents.",
        epilog="'topiceval COMMAND --help' describes a command's options and the columns of "
               "its output table.",
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
        check_outputs_differ(_named(args, INPUT_OPTIONS), _named(args, OUTPUT_OPTIONS))
        with warnings_on_one_line(args.command):
            return int(args.func(args) or 0)
    except INPUT_ERRORS as exc:
        print(f"topiceval {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"topiceval {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED


@contextlib.contextmanager
def warnings_on_one_line(command: str) -> Iterator[None]:
    """Print each Python warning that the command raises and the filters let through as one
    line, ``topiceval COMMAND: warning: ...`` (``commands.warning_line``), on standard error."""

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        print(warning_line(command, message), file=sys.stderr)

    with warnings.catch_warnings():  # restores showwarning afterwards
        warnings.showwarning = show
        yield


def _named(args: argparse.Namespace, options: dict[str, str]) -> dict[str, object]:
    """Option name -> value of the ``options`` the parsed command has."""
    return {flag: getattr(args, dest) for dest, flag in options.items() if hasattr(args, dest)}


def one_line(exc: BaseException) -> str:
    """The exception's message on one line (its type when it has no message), with the
    command's options where it has a command-line form (its ``command_line``: errors made by
    ``validation.naming``, ``WorkLimitError``); a file's error as ``path: reason``."""
    message = getattr(exc, "command_line", None) or str(exc)
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        message = f"{exc.filename}: {exc.strerror}"  # not "[Errno 2] ...: 'path'"
    text = " ".join(line.strip() for line in message.splitlines() if line.strip())
    return text or type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
