#!/usr/bin/env bash
# CI stage: build the documentation site (docs/, published at topiceval._docs.DOCS_URL) with
# Sphinx, every warning an error (-W; --keep-going lists them all before failing).  The pages
# that are notebooks (front matter `file_format: mystnb`: getting started and the examples of
# each library) run their code cells during the build, on data that ships with the packages
# (no network, no data mirror), so an example that no longer runs fails this stage.  The
# docs extra (Sphinx, MyST-NB, numpydoc, the theme, the peer libraries) is installed first into
# the active environment.
# Usage: .ci/docs-stage.sh [OUTDIR]   (from the repository root; default docs/_build/html)
set -euo pipefail
OUT=${1:-docs/_build/html}
python -m pip install -q -e ".[docs]"
python -m sphinx -W --keep-going -b html docs "$OUT"
# the Examples sections of the API reference's docstrings, run (a failing example fails)
python -m sphinx -W --keep-going -b doctest docs "$OUT/../doctest"
# the layout checks need the docs extra, which the test stage does not install
python -m pytest -q -p no:xdist tests/test_docs_layout.py
echo "documentation site built in $OUT"
