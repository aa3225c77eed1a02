#!/usr/bin/env bash
# CI stage: run the quick pipeline through the SLURM profile on a one-node SLURM brought up on
# this machine, into a fresh results directory, and check that every output equals the local
# run's (results/). The daemons are torn down by their PIDs whatever happens.
# Usage: .ci/slurm-stage.sh MIRROR   (run from the repository root, venv active)
set -euo pipefail
MIRROR=$1
export SLURM_CI_DIR
SLURM_CI_DIR=$(mktemp -d /tmp/topiceval-slurm.XXXXXX)
trap '.ci/slurm-down.sh; rm -rf "$SLURM_CI_DIR"' EXIT

pip install -q -e ".[cluster]"
.ci/slurm-up.sh

# The CI profile is the shipped SLURM profile with this cluster's account and partition, the
# squeue status command (sacct hangs without accounting) and short polling intervals.
python - "$SLURM_CI_DIR/profile" <<'PY'
import sys
from pathlib import Path

import yaml

profile = yaml.safe_load(Path("workflow/profiles/slurm/config.yaml").read_text())
profile["default-resources"].update(slurm_account="'ci'", slurm_partition="'ci'")
profile.update({
    "slurm-status-command": "squeue",
    "slurm-init-seconds-before-status-checks": 1,
    "seconds-between-status-checks": 2,
    "slurm-logdir": str(Path(sys.argv[1]).parent / "slurm-logs"),
})
out = Path(sys.argv[1])
out.mkdir(parents=True)
(out / "config.yaml").write_text(yaml.safe_dump(profile, sort_keys=False))
PY

start=$(date +%s)
snakemake --profile "$SLURM_CI_DIR/profile" --configfile config/quick.yaml \
  --config data_mirror="$MIRROR" results_dir=results-slurm resources_dir=resources-slurm
echo "SLURM run took $(( $(date +%s) - start )) s"
python .ci/compare_results.py results results-slurm
