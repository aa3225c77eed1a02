"""The repository's shipped workflow, for the tests: paths, config loading and validation, and
running Snakemake on the quick configuration with the corpora from the data mirror
(``$TOPICEVAL_DATA_MIRROR``, default ``../shared/data`` beside the repository)."""

import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import update_config, validate

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")
MIRROR = Path(os.environ.get("TOPICEVAL_DATA_MIRROR", ROOT.parent / "shared" / "data"))
needs_mirror = pytest.mark.skipif(
    not (MIRROR / "MANIFEST.md").is_file(),
    reason=f"data mirror not found at {MIRROR} (set TOPICEVAL_DATA_MIRROR)",
)
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
# What a working copy of the workflow needs (environment.yml: the rules' conda directive).
WORKFLOW_FILES = ("Snakefile", "workflow", "config", "environment.yml")


def snakemake(*args, tmp_path, mirror=MIRROR, extra_config=()):
    """Snakemake on config/quick.yaml from the repository root, writing into ``tmp_path``.

    No time limit: the run is bounded by its configuration's work, and a hang is CI's to catch
    (its overall limit), not a deadline's that a loaded machine would trip.
    """
    cmd = [
        *SNAKEMAKE,
        *args,
        "--cores",
        "2",
        "--configfile",
        "config/quick.yaml",
        "--config",
        f"data_mirror={mirror}",
        f"results_dir={tmp_path / 'results'}",
        f"resources_dir={tmp_path / 'resources'}",
        *extra_config,
    ]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)


def copy_workflow(dest):
    """A copy of the workflow in ``dest`` (its own ``.snakemake``, results/ and resources/)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in WORKFLOW_FILES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, dest / name)
        else:
            shutil.copy2(ROOT / name, dest / name)
    return dest


def load_config(overlay=None):
    """config/config.yaml, with config/<overlay> (e.g. "quick.yaml") applied over it."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    if overlay:
        update_config(config, yaml.safe_load((ROOT / "config" / overlay).read_text()))
    return config


def assert_schema_rejects(path, value, message):
    """Setting config[path[0]]...[path[-1]] = value fails schema validation naming ``message``."""
    config = copy.deepcopy(load_config())
    node = config
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(WorkflowError, match=message):
        validate(config, SCHEMA)
