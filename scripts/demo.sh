#!/usr/bin/env bash
# Install the project into .venv and start the dealer page on the built-in demo table
# (no camera, no outside files). Open http://127.0.0.1:5000/ in a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
ensure_venv ""
exec .venv/bin/python -m hanadealer serve --demo "$@"  # (a script's first line names the .venv where it was made)
