#!/usr/bin/env bash
# Install the project into .venv and start the dealer page on the built-in demo table
# (no camera, no outside files). Open http://127.0.0.1:5000/ in a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
exec .venv/bin/hanadealer serve --demo "$@"
