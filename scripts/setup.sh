#!/usr/bin/env bash
# Shared set-up for scripts/demo and scripts/test: a virtualenv in .venv with Fourfold installed from
# this checkout. Idempotent: a second run only checks that everything is there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
extras=${1:-}
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${extras:+[$extras]}"
