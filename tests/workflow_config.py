"""The repository's shipped workflow configuration, for the tests: paths, loading, validation."""

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import update_config, validate

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


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
