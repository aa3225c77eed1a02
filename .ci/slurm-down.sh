#!/usr/bin/env bash
# Stop the daemons .ci/slurm-up.sh started (by their PIDs) and remove the generated slurm.conf.
set -u
: "${SLURM_CI_DIR:?set SLURM_CI_DIR to the directory given to slurm-up.sh}"
for name in slurmd slurmctld munged; do
  pidfile="$SLURM_CI_DIR/$name.pid"
  [ -s "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
done
if grep -q '^# topiceval-ci' /etc/slurm/slurm.conf 2>/dev/null; then
  rm -f /etc/slurm/slurm.conf
fi
exit 0
