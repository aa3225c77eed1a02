# Shared settings, paths and target registry. Every stage's rule file registers its final
# targets with register_targets(); `rule all` asks for all of them.

import os

RESULTS = config["results_dir"].rstrip("/")
RESOURCES = config["resources_dir"].rstrip("/")
LOGS = f"{RESULTS}/logs"
BENCH = f"{RESULTS}/benchmarks"
MIRROR = config.get("data_mirror") or None
ENV = "../../environment.yml"
FIG = config["figure_format"]

if MIRROR and not os.path.isdir(MIRROR):
    raise WorkflowError(
        f"data_mirror={MIRROR!r} is not a directory (it should be laid out like shared/data)"
    )


wildcard_constraints:
    source=r"[A-Za-z0-9_-]+",
    dataset=r"[A-Za-z0-9_-]+",
    recipe=r"[A-Za-z0-9_-]+",


_TARGETS = []


def register_targets(*paths):
    _TARGETS.extend(paths)


def all_targets():
    return list(dict.fromkeys(_TARGETS))
