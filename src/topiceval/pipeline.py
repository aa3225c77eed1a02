"""Support for the Snakemake rule scripts in ``workflow/scripts``.

Every script is a few lines: ``with rule_context(snakemake) as job:`` then one call into the
package.  The context sends stdout, stderr and Python logging to the rule's log file, sets the
numba thread count to the rule's ``threads``, and records the exception in the log when the call
fails (Snakemake then removes the rule's outputs; the package writes outputs atomically, so a
killed job never leaves a file that looks finished).  Before the call, every input that is a
downloaded raw file (under ``<resources_dir>/raw``) is checked against the sha256 the config's
``sources`` accept (:func:`check_raw_inputs`): a file damaged after its download stops the rule
with one line naming it.  When the call succeeds, it writes the
reStructuredText twin of each Markdown caption the rule declares (outputs ``<name>`` and
``<name>_rst``: :func:`topiceval.captions.write_rst_captions`), the captions of the Snakemake
report, and the page of each CSV table the rule declares for the report (outputs ``<name>`` and
``<name>_page``: :func:`topiceval.report.write_table_pages`).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from topiceval.captions import write_rst_captions
from topiceval.data.download import verify_stored
from topiceval.data.sources import parse_sources
from topiceval.report import write_table_pages
from topiceval.threads import numba_threads

LOG = logging.getLogger("topiceval")


@contextlib.contextmanager
def rule_context(snakemake) -> Iterator[object]:
    """Log to ``snakemake.log[0]`` and run with ``snakemake.threads`` numba threads."""
    log_path = Path(snakemake.log[0]) if len(snakemake.log) else None
    if log_path:
        log_path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(log_path, "w", encoding="utf-8") if log_path else sys.stderr  # noqa: SIM115
    handler = logging.StreamHandler(handle)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(handle), contextlib.redirect_stderr(handle):
            with numba_threads(int(getattr(snakemake, "threads", 1) or 1)):
                LOG.info("rule %s: start", getattr(snakemake, "rule", "?"))
                try:
                    check_raw_inputs(snakemake)
                    yield snakemake
                    write_rst_captions(getattr(snakemake, "output", {}))
                    write_table_pages(getattr(snakemake, "output", {}))
                except BaseException as exc:
                    traceback.print_exc(file=handle)
                    print(f"topiceval: {type(exc).__name__}: {exc}", file=sys.__stderr__)
                    raise
                LOG.info("rule done in %.2f s", time.perf_counter() - start)
    finally:
        root.removeHandler(handler)
        if log_path:
            handle.close()


def check_raw_inputs(snakemake) -> None:
    """Check the rule's raw inputs against the digests the config's ``sources`` accept.

    An input is a raw file when it lies under ``<resources_dir>/raw`` at the ``path`` of one of
    the config's source files (where its download rule placed it).  Other inputs, and a
    ``snakemake`` object without a config (a test's), are left alone.

    Raises
    ------
    DownloadError
        From :func:`topiceval.data.download.verify_stored`, naming the file.
    """
    config = getattr(snakemake, "config", None) or {}
    if "sources" not in config or "resources_dir" not in config:
        return
    raw = Path(config["resources_dir"]) / "raw"
    specs = {spec.path: spec for files in parse_sources(config["sources"]).values()
             for spec in files}
    for path in map(Path, getattr(snakemake, "input", ())):
        spec = specs.get(path.relative_to(raw).as_posix()) if path.is_relative_to(raw) else None
        if spec is not None:
            verify_stored(spec, path)


def prefix_of(path: str | Path, relative: str) -> Path:
    """The directory ``D`` such that ``path`` is ``D / relative`` (e.g. a raw-data root)."""
    path, relative = Path(path), Path(relative)
    if path.parts[-len(relative.parts) :] != relative.parts:
        raise ValueError(f"{path} does not end with {relative}")
    return (
        Path(*path.parts[: -len(relative.parts)])
        if len(path.parts) > len(relative.parts)
        else Path(".")
    )
