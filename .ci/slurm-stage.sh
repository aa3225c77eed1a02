#!/usr/bin/env bash
# CI stage: run the quick pipeline through the SLURM profile on a one-node SLURM brought up on
# this machine, into a fresh results directory, and check that every output equals the local
# run's (results/). The daemons are torn down by their PIDs whatever happens.
# Usage: .ci/slurm-stage.sh MIRROR [CONFIGFILE LOCAL_RESULTS]   (run from the repository root,
#   venv active, after the local run of CONFIGFILE into LOCAL_RESULTS; default config/quick.yaml
#   into results/; the SLURM run goes to LOCAL_RESULTS-slurm, or results-slurm for results). TOPICEVAL_SKIP_INSTALL=1 skips `pip install -e ".[cluster]"` when the environment
#   already has the plugin (e.g. a second checkout using another tree's editable install: put
#   this checkout first on PYTHONPATH instead).
set -euo pipefail
MIRROR=$1
CONFIGFILE=${2:-config/quick.yaml}
LOCAL=${3:-results}
export SLURM_CI_DIR
SLURM_CI_DIR=$(mktemp -d /tmp/topiceval-slurm.XXXXXX)
on_exit() {
  status=$?
  if [ "$status" -ne 0 ]; then
    echo "SLURM stage failed (exit $status); last lines of the daemons' and jobs' logs:" >&2
    tail -n 20 "$SLURM_CI_DIR"/slurmctld.log "$SLURM_CI_DIR"/slurmd.log >&2 2>/dev/null || true
    find "$SLURM_CI_DIR/slurm-logs" -name '*.log' -exec tail -n 20 {} + >&2 2>/dev/null || true
  fi
  .ci/slurm-down.sh
  rm -rf "$SLURM_CI_DIR"
  exit "$status"
}
trap on_exit EXIT

[ -d "$LOCAL" ] || { echo "no local $LOCAL/ to compare with: run $CONFIGFILE first" >&2; exit 1; }
if [ -z "${TOPICEVAL_SKIP_INSTALL:-}" ]; then
  pip install -q -e ".[cluster]"
fi
python -c "import snakemake_executor_plugin_slurm" || {
  echo "snakemake-executor-plugin-slurm is not installed (pip install -e '.[cluster]')" >&2; exit 1; }
.ci/slurm-up.sh

# The CI profile is the shipped SLURM profile with this cluster's account and partition, the
# squeue status command (sacct hangs without accounting; slurm-up.sh keeps MinJobAge >= 120 s so
# squeue still sees finished jobs), short polling intervals and the job logs in the scratch dir.
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
    "slurm-keep-successful-logs": True,
})
out = Path(sys.argv[1])
out.mkdir(parents=True)
(out / "config.yaml").write_text(yaml.safe_dump(profile, sort_keys=False))
PY

rm -rf "$LOCAL-slurm" resources-slurm   # a fresh results directory every time
start=$(date +%s)
snakemake --profile "$SLURM_CI_DIR/profile" --configfile "$CONFIGFILE" \
  --config data_mirror="$MIRROR" results_dir="$LOCAL-slurm" resources_dir=resources-slurm
echo "SLURM run took $(( $(date +%s) - start )) s"
# every submission went through sbatch: the job logs hold one directory per rule or group
echo "SLURM submissions: $(find "$SLURM_CI_DIR/slurm-logs" -name '*.log' | wc -l)"
python .ci/compare_results.py "$LOCAL" "$LOCAL-slurm"
