# Sourced by the GPU training scripts: their first two arguments, SHARED and OUT, as the caller named
# them (relative to the folder it was run from), set as $shared and $out; then the checkout is the
# working folder. Too few arguments show the script's usage; a SHARED that is not there is said,
# never passed over for another shared folder. With GPU_PLAN_ONLY=1 in the environment a script
# checks its arguments (MINUTES, PEAK_LR, DEVICE and BATCH as the trainer will), prints its renderers
# ("KIND SEED SHARDS", one a line) and stops there.
read_shared_and_out() {  # SCRIPT ARGS...
    local script=$1
    shift
    if [ $# -lt 2 ]; then
        sed -n '/^#   scripts/p' "$script" | sed 's/^#   /usage: /' >&2
        exit 2
    fi
    if [ ! -f "$1/cards.csv" ]; then
        echo "error: no shared data folder at $1 (it must hold cards.csv)" >&2
        exit 2
    fi
    shared=$(cd "$1" && pwd)
    # the script's own checks of its other arguments, where it has them, before OUT is made
    if declare -F check_arguments >/dev/null; then check_arguments "$@"; fi
    if [ -n "${GPU_PLAN_ONLY:-}" ]; then exit 0; fi
    mkdir -p "$2"
    out=$(cd "$2" && pwd)
    cd "$(dirname "$script")/.."
}

check_round_seeds() {  # FIRST_SEED, with the round's renderers on standard input ("KIND SEED SHARDS" lines)
    # each seed a renderer is given, and its + 100, as the trainer checks them: a renderer refused its
    # seed only in its own log, in the background, and the round trained on less
    local first=$1
    # (no leading zero: bash reads 0100 as octal, 64; nor more than 9 digits, which wrap round)
    if ! [[ $first =~ ^(0|[1-9][0-9]{0,8})$ ]]; then
        echo "error: FIRST_SEED '$first' must be a whole number, 0 or more, of at most 9 digits and no leading zero" >&2
        exit 2
    fi
    # two renderers of one kind on one seed render the same scenes: the round would train on fewer
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && "${PYTHON:-python3}" -c 'import os, sys; from datasets.splits import check_training_seed as c
given = set()
try:
    for line in sys.stdin:
        kind, seed = line.split()[0], int(line.split()[1])
        c(seed)
        c(seed + 100)
        if (kind, seed) in given:
            raise ValueError(f"two renderers would render the same scenes (seed {seed}): the round plan is wrong")
        given.add((kind, seed))
        if os.environ.get("GPU_PLAN_ONLY"):
            print(line.strip())
except ValueError as e:
    sys.exit(f"error: FIRST_SEED {sys.argv[1]!r}: {e}")' "$first") || exit 2
}

check_training_options() {  # MINUTES PEAK_LR DEVICE [BATCH]: as the trainer will check them, before OUT is
    # made and the renderers start (a bad one was said by the trainer only after half a minute of rendering,
    # and GPU_PLAN_ONLY passed it)
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && "${PYTHON:-python3}" -c 'import argparse, sys
from hanadealer.args import number, whole
checks = [("MINUTES", number(0, above=True)), ("PEAK_LR", number(0, above=True)),
          ("DEVICE", None), ("BATCH", whole(1, 65536))]
for (name, parse), given in zip(checks, sys.argv[1:]):
    if parse is None:
        if given not in ("auto", "cpu", "cuda"):
            sys.exit(f"error: DEVICE {given!r} must be auto, cpu or cuda")
        continue
    try:
        parse(given)
    except argparse.ArgumentTypeError as e:
        sys.exit(f"error: {name} {given!r}: {e}")' "$@") || exit 2
}
