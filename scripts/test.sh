#!/usr/bin/env bash
# Install everything the test suite needs, then run it. Works on a fresh machine with Python 3.11:
# a virtual environment in .venv, the project with its test and training extras, and Debian's
# Chromium for the browser test (installed with apt-get when missing, as root or through sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
ensure_venv test,train
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=none; fi
    if [ "$SUDO" != none ] && command -v apt-get >/dev/null 2>&1; then
        # a failed install (no network, no such package) skips the browser test, not the suite
        if ! { $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq &&
               DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >/dev/null; }; then
            echo "note: chromium could not be installed; the browser test will be skipped" >&2
        fi
    else
        echo "note: chromium is not installed and cannot be installed here; the browser test will be skipped" >&2
    fi
fi
exec .venv/bin/python -m pytest "$@"
