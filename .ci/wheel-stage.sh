#!/usr/bin/env bash
# CI stage: build the wheel and the sdist of this checkout, install the wheel with its test
# extra in a clean venv, and run the README's fast tests ($1, `python -m pytest -m "not slow" ...`)
# with that venv's python on the repository's tests from a directory outside the repository, so
# that they import the installed package (checked first), not src/.  A fresh install has no
# numba cache: the run includes compiling every kernel the fast tests call.  Then
# tests/test_kernel_cache.py, slow test included, on the installed package: an upgrade in place
# must not leave compiled kernels of the previous source.
# Usage: .ci/wheel-stage.sh 'python -m pytest -m "not slow" -n auto --dist loadfile'
#   (from the repository root, with a python that has pip on PATH; the build itself runs in an
#   isolated environment)
set -euo pipefail
FAST_CMD=$1
ROOT=$(pwd)
WORK=$(mktemp -d /tmp/topiceval-wheel.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
t0=$(date +%s)
step() { printf -- '--- %s (%ds)\n' "$1" "$(( $(date +%s) - t0 ))"; }

step "build"
python -m pip install -q build
python -m build --outdir "$WORK/dist" . > "$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; exit 1; }
wheel=$(ls "$WORK"/dist/*.whl)
sdist=$(ls "$WORK"/dist/*.tar.gz)
echo "built $(basename "$wheel") and $(basename "$sdist") (the wheel from the sdist)"

step "install the wheel in a clean venv"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "$wheel[test]"

step "fast tests against the installed package"
mkdir "$WORK/elsewhere"
cd "$WORK/elsewhere"
# shellcheck disable=SC1091
. "$WORK/venv/bin/activate"
unset PYTHONPATH
python - "$ROOT" <<'PY'
import sys
from pathlib import Path

import topiceval

where = Path(topiceval.__file__).resolve().parent
if Path(sys.argv[1]).resolve() in where.parents:
    sys.exit(f"the tests would import topiceval from the repository ({where})")
print(f"topiceval {topiceval.__version__} installed at {where}")
PY
echo "+ $FAST_CMD $ROOT/tests -p no:cacheprovider"
bash -euo pipefail -c "$FAST_CMD \"\$0\" -p no:cacheprovider" "$ROOT/tests"

step "an upgrade in place of the installed package recompiles its kernels (slow test included)"
python -m pytest "$ROOT/tests/test_kernel_cache.py" -p no:cacheprovider
step "done"
