"""The repository's shipped workflow configuration, for the tests: paths and config loading."""

from pathlib import Path

import yaml
from snakemake.utils import update_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


def load_config(overlay=None):
    """config/config.yaml, with config/<overlay> (e.g. "quick.yaml") applied over it."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    if overlay:
        update_config(config, yaml.safe_load((ROOT / "config" / overlay).read_text()))
    return config
