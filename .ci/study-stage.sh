#!/usr/bin/env bash
# CI stage for a study (issue 30): config/study-quick.yaml (13 candidates of three libraries and
# the staged MALLET model on the first 400 AP articles) end to end locally into results-study/,
# its report built, then the same study through the SLURM profile on the one-node SLURM
# (.ci/slurm-stage.sh), every output compared with the local run's.
# Usage: .ci/study-stage.sh MIRROR   (from the repository root, venv active).
set -euo pipefail
MIRROR=$1
CONFIG=config/study-quick.yaml
start=$(date +%s)
snakemake --cores 2 --configfile "$CONFIG" \
  --config data_mirror="$MIRROR" results_dir=results-study resources_dir=resources
echo "local study took $(( $(date +%s) - start )) s"
snakemake --report study-report.html --configfile "$CONFIG" \
  --config data_mirror="$MIRROR" results_dir=results-study resources_dir=resources
grep -q "is the best of" results-study/studies/quick/perplexity.caption.md
TOPICEVAL_SKIP_INSTALL=${TOPICEVAL_SKIP_INSTALL:-} .ci/slurm-stage.sh "$MIRROR" "$CONFIG" results-study
