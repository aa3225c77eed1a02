"""Fixtures shared by several test modules."""

import shutil

import pytest

from workflow_config import snakemake


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory):
    """The quick pipeline run once per session, uninterrupted, from the data mirror.

    Yields ``(directory, CompletedProcess)``: the directory holds its ``results/`` and
    ``resources/``.  tests/test_workflow.py checks the run; tests/test_crash_resume.py compares
    an interrupted and recovered run with it.  Tests using it must be marked ``needs_mirror``.
    """
    directory = tmp_path_factory.mktemp("quick")
    yield directory, snakemake(tmp_path=directory)
    shutil.rmtree(directory / "resources", ignore_errors=True)
