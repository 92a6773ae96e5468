# Sourced by demo.sh and test.sh: make .venv with Python 3.11 or later, and install the project into
# it with the extras asked for. The install is skipped where this pyproject.toml was installed with
# them already, so a second start needs no package index.
PYTHON=${PYTHON:-python3}
new_enough='import sys; sys.exit(sys.version_info < (3, 11))'

ensure_venv() {  # EXTRAS: "" or e.g. "test,train"
    local extras=$1 spec=. stamp
    [ -n "$extras" ] && spec=".[$extras]"
    if [ -e .venv ] && ! { .venv/bin/python -c "$new_enough" && .venv/bin/python -m pip --version; } >/dev/null 2>&1; then
        # a first try with another Python, or one without its venv module, left it (a Python without
        # pip): every later try failed the same way
        echo "note: .venv/ is not a working Python 3.11 or later with pip: making it again" >&2
        rm -rf .venv
    fi
    if [ ! -e .venv ]; then
        if ! "$PYTHON" -c "$new_enough" 2>/dev/null; then
            echo "error: '$PYTHON' is not Python 3.11 or later; run it as PYTHON=python3.11 bash $0" >&2
            exit 2
        fi
        if ! "$PYTHON" -m venv .venv; then
            rm -rf .venv  # (a half-made one, without pip, failed every later start)
            echo "error: '$PYTHON' cannot make a virtual environment (on Debian or Ubuntu, install its venv" \
                 "module: apt-get install $("$PYTHON" -c 'import sys; print("python3.%d-venv" % sys.version_info[1])'))" >&2
            exit 2
        fi
    fi
    # (hashed by the Python at hand: sha256sum is not on every system; with this checkout's place: a
    # .venv moved or copied with its checkout ran the first checkout's code, installed there)
    stamp=$(.venv/bin/python -c 'import hashlib, os; print(hashlib.sha256(open("pyproject.toml", "rb").read() + os.path.realpath(".").encode()).hexdigest())')
    # installed with these extras, or (for none) with any
    if grep -qx "$stamp $extras" .venv/.installed 2>/dev/null || { [ -z "$extras" ] && grep -q "^$stamp " .venv/.installed 2>/dev/null; }; then
        return 0
    fi
    .venv/bin/python -m pip install -q --disable-pip-version-check -e "$spec"
    echo "$stamp $extras" >>.venv/.installed
}
