"""The GPU training scripts' arguments: their usage when too few are given, and a SHARED folder that is
not there refused by name (never passed over for another shared folder)."""
import subprocess
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def run_script(name, *args):
    return subprocess.run(["bash", str(SCRIPTS / name), *args], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("name, arguments", [
    ("train-crop-net-gpu.sh", "SHARED OUT [MINUTES] [PEAK_LR] [DEVICE]"),
    ("train-mask-net-gpu.sh", "SHARED OUT [MINUTES] [PEAK_LR] [DEVICE] [BATCH] [FIRST_SEED]"),
])
def test_too_few_arguments_show_the_usage(name, arguments):
    done = run_script(name, "only-one")
    assert done.returncode == 2
    assert done.stderr.strip() == f"usage: scripts/{name} {arguments}"


@pytest.mark.parametrize("name", ["train-crop-net-gpu.sh", "train-mask-net-gpu.sh"])
def test_a_shared_folder_without_cards_is_refused_by_name(name, tmp_path):
    missing = tmp_path / "no-such-shared"
    done = run_script(name, str(missing), str(tmp_path / "out"))
    assert done.returncode == 2
    assert f"no shared data folder at {missing}" in done.stderr
    assert not (tmp_path / "out").exists()
