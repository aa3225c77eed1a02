"""Fixtures and hooks shared by every test module.

- ``quick_run``: the quick pipeline, run once per session.
- The ``two_threads`` marker: a test that compares results across numba thread counts is
  skipped, with the reason, where numba has fewer than two threads (``NUMBA_NUM_THREADS=1`` or a
  one-core machine): there it would only compare one thread with itself.
- The report header names the topiceval that the tests import (an installed wheel or the
  source tree) and numba's thread count.
"""

import shutil

import numba
import pytest

import topiceval
from workflow_config import snakemake

TWO_THREADS_SKIP = pytest.mark.skip(
    reason=f"compares 1 and 2 numba threads; numba has {numba.config.NUMBA_NUM_THREADS} here "
    "(NUMBA_NUM_THREADS)"
)


def pytest_report_header(config):
    return (f"topiceval {topiceval.__version__} from {topiceval.__file__}; "
            f"numba threads: {numba.config.NUMBA_NUM_THREADS}")


def pytest_collection_modifyitems(config, items):
    if numba.config.NUMBA_NUM_THREADS >= 2:
        return
    for item in items:
        if item.get_closest_marker("two_threads"):
            item.add_marker(TWO_THREADS_SKIP)


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory):
    """The quick pipeline run once per session, uninterrupted, from the data mirror.

    Yields ``(directory, CompletedProcess)``: the directory holds its ``results/`` and
    ``resources/``.  tests/test_workflow.py checks the run; tests/test_crash_resume.py compares
    an interrupted and recovered run with it, tests/test_report.py builds its report.  Tests
    using it must be marked ``needs_mirror`` and ``slow``.
    """
    directory = tmp_path_factory.mktemp("quick")
    yield directory, snakemake(tmp_path=directory)
    shutil.rmtree(directory / "resources", ignore_errors=True)
