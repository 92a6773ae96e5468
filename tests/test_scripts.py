"""The scripts: the virtual environment that demo.sh and test.sh make, and the GPU training scripts'
arguments (their usage when too few are given, a SHARED folder that is not there refused by name,
never passed over for another shared folder)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def run_script(name, *args):
    return subprocess.run(["bash", str(SCRIPTS / name), *args], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("name, arguments", [
    ("train-crop-net-gpu.sh", "SHARED OUT [MINUTES] [PEAK_LR] [DEVICE] [FIRST_SEED] [CHANNELS]"),
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


def fake_python(path, refuses):
    """A Python that runs the real one, except for ``-m <refuses>``, which fails as a Python without
    that module does (``-m venv`` after making half a virtual environment, as Debian's does)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\nif [ "$1 $2" = "-m {refuses}" ]; then\n'
                    f'  [ "$2" = venv ] && mkdir -p "$3/bin" && touch "$3/bin/python"\n'
                    f'  echo "No module named {refuses}" >&2; exit 1\nfi\n'
                    f'exec {sys.executable} "$@"\n', encoding="utf-8")
    path.chmod(0o755)
    return path


def test_a_venv_moved_or_copied_with_its_checkout_installs_this_checkout_again(tmp_path):
    """The install was stamped with pyproject.toml alone: a checkout copied with its .venv ran the
    first checkout's code (installed there, editable), and one moved failed on its scripts' first line."""
    first = tmp_path / "first"
    (first / ".venv" / "bin").mkdir(parents=True)
    (first / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    python = first / ".venv" / "bin" / "python"  # (pip installs are written down, not made)
    python.write_text(f'#!/bin/sh\nif [ "$1 $2 $3" = "-m pip install" ]; then echo "$PWD" >> "{tmp_path}/installs"; exit 0; fi\n'
                      f'if [ "$1 $2" = "-m pip" ]; then echo pip; exit 0; fi\nexec {sys.executable} "$@"\n',
                      encoding="utf-8")
    python.chmod(0o755)

    def ensure(where):
        done = subprocess.run(["bash", "-c", f'. "{SCRIPTS / "venv.sh"}"; ensure_venv ""'], cwd=where,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return (tmp_path / "installs").read_text(encoding="utf-8").split()
    assert ensure(first) == [str(first)]
    assert ensure(first) == [str(first)]  # (installed already: no index needed)
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(first), str(copy)], check=True)
    assert ensure(copy) == [str(first), str(copy)]
    assert "python -m hanadealer" in (SCRIPTS / "demo.sh").read_text(encoding="utf-8")


def test_a_venv_without_pip_is_made_again_and_a_python_without_venv_is_said(tmp_path):
    """A first try on a Python without its venv module left a .venv without pip, and every later
    start failed on it with "No module named pip"."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    fake_python(tmp_path / ".venv" / "bin" / "python", "pip")
    python = fake_python(tmp_path / "bin" / "python3", "venv")
    done = subprocess.run(["bash", "-c", f'. "{SCRIPTS / "venv.sh"}"; ensure_venv ""'], cwd=tmp_path,
                          env={**os.environ, "PYTHON": str(python)}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "note: .venv/ is not a working Python 3.11 or later with pip: making it again" in done.stderr
    version = f"python3.{sys.version_info[1]}-venv"
    assert "cannot make a virtual environment" in done.stderr and version in done.stderr
    assert not (tmp_path / ".venv").exists()  # (the half-made one gone: the next start makes it again)


@pytest.mark.parametrize("name, arguments, cores, first_seed, said", [
    ("train-mask-net-gpu.sh", ["1", "1e-3", "cpu", "8"], 2, "677", "training seed 777 is one of the validation seeds"),
    ("train-crop-net-gpu.sh", ["1", "1e-3", "cpu"], 2, "677", "training seed 777 is one of the validation seeds"),
    # with more cores, more renderers for the first seconds: the detector's quads of the last of
    # them render from FIRST_SEED + 261 on 64 cores (FIRST_SEED + 259 was the most checked)
    ("train-crop-net-gpu.sh", ["1", "1e-3", "cpu"], 64, "516", "training seed 777 is one of the validation seeds"),
    ("train-mask-net-gpu.sh", ["1", "1e-3", "cpu", "8"], 2, "-5", "must be a whole number, 0 or more"),
    ("train-crop-net-gpu.sh", ["1", "1e-3", "cpu"], 2, "1e3", "must be a whole number, 0 or more"),
    # (bash read 0100 as octal, seed 64)
    ("train-mask-net-gpu.sh", ["1", "1e-3", "cpu", "8"], 2, "0100", "no leading zero"),
])
def test_a_first_seed_the_trainer_would_refuse_is_refused_before_anything_is_made(tmp_path, name, arguments, cores,
                                                                                   first_seed, said):
    # a renderer refused its seed only in its own log, in the background, and the round trained on less
    out = tmp_path / "out"
    (tmp_path / "cards.csv").write_text("id\n", encoding="utf-8")  # (a shared folder, as far as the script looks)
    bin_dir = tmp_path / "bin"  # (the machine's cores, as the script counts them)
    bin_dir.mkdir()
    (bin_dir / "nproc").write_text(f"#!/bin/sh\necho {cores}\n", encoding="utf-8")
    (bin_dir / "nproc").chmod(0o755)
    env = {**os.environ, "PYTHON": sys.executable, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", str(SCRIPTS / name), str(tmp_path), str(out), *arguments, first_seed],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2, done.stderr
    assert f"error: FIRST_SEED '{first_seed}'" in done.stderr and said in done.stderr, done.stderr
    assert not out.exists()


def test_a_negative_training_seed_is_refused_by_the_trainer_too():
    from datasets.splits import check_training_seed
    with pytest.raises(ValueError, match="training seed -1 must be 0 or more"):
        check_training_seed(-1)
    assert check_training_seed(0) == 0


@pytest.mark.parametrize("channels", ["256", "256x", "0x48", "256x96x2", "12345x48", "5000x48", "64x48", "128x32"])
def test_crop_net_channels_that_are_not_two_widths_are_refused_before_anything_is_made(tmp_path, channels):
    out = tmp_path / "out"
    (tmp_path / "cards.csv").write_text("id\n", encoding="utf-8")
    done = subprocess.run(["bash", str(SCRIPTS / "train-crop-net-gpu.sh"), str(tmp_path), str(out), "1", "1e-3",
                           "cpu", "2300", channels], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHON": sys.executable})
    assert done.returncode == 2, done.stderr
    assert f"error: CHANNELS '{channels}' must be LATExMAPS, LATE from 128 and MAPS from 48" in done.stderr
    assert not out.exists()


def _plan(tmp_path, name, cores, arguments):
    (tmp_path / "cards.csv").write_text("id\n", encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "nproc").write_text(f"#!/bin/sh\necho {cores}\n", encoding="utf-8")
    (bin_dir / "nproc").chmod(0o755)
    env = {**os.environ, "PYTHON": sys.executable, "GPU_PLAN_ONLY": "1",
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["bash", str(SCRIPTS / name), str(tmp_path), str(tmp_path / "out"), *arguments],
                          capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("name, cores, renderers", [
    # on 56 cores and more the crop script's default FIRST_SEED (500 then) put a renderer on validation seed 777
    ("train-crop-net-gpu.sh", 56, 56), ("train-crop-net-gpu.sh", 128, 128), ("train-crop-net-gpu.sh", 16, 16),
    # on 76 cores and more the mask script gave two renderers the same seeds
    ("train-mask-net-gpu.sh", 80, 80), ("train-mask-net-gpu.sh", 16, 16),
])
def test_the_default_round_plans_hold_on_many_cores_each_renderer_its_own_seed(tmp_path, name, cores, renderers):
    done = _plan(tmp_path, name, cores, [])
    assert done.returncode == 0, done.stderr
    plan = [line.split() for line in done.stdout.splitlines()]
    assert len(plan) == renderers and len({(kind, seed) for kind, seed, _ in plan}) == renderers
    assert not (tmp_path / "out").exists()  # (the plan only: nothing made, nothing rendered)


def test_a_plan_that_gives_two_renderers_one_seed_is_refused(tmp_path):
    # (the mask script's plan as it was on 80 cores: steady renderers from FIRST_SEED, the first
    # seconds' from FIRST_SEED + 50)
    plan = "".join(f"data {1100 + i} 1000\n" for i in range(53)) + "data 1150 4\n"
    done = subprocess.run(["bash", "-c", f'. "{SCRIPTS / "gpu-args.sh"}"; check_round_seeds 1100'], input=plan,
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHON": sys.executable})
    assert done.returncode == 2
    assert "two renderers would render the same scenes (seed 1150)" in done.stderr


@pytest.mark.parametrize("name, arguments, said", [
    ("train-crop-net-gpu.sh", ["0"], "error: MINUTES '0': 0 is out of range: a number above 0"),
    ("train-crop-net-gpu.sh", ["7", "fast"], "error: PEAK_LR 'fast': 'fast' is not a number"),
    ("train-crop-net-gpu.sh", ["7", "1e-3", "gpu"], "error: DEVICE 'gpu' must be auto, cpu or cuda"),
    ("train-mask-net-gpu.sh", ["nan"], "error: MINUTES 'nan': nan is out of range: a number above 0"),
    ("train-mask-net-gpu.sh", ["6", "1e-3", "cuda", "0"], "error: BATCH '0': 0 is out of range: a whole number"),
    ("train-mask-net-gpu.sh", ["6", "1e-3", "cuda", "12.5"], "error: BATCH '12.5': '12.5' is not a whole number"),
])
def test_the_training_options_are_checked_before_anything_is_made(tmp_path, name, arguments, said):
    # GPU_PLAN_ONLY passed a MINUTES, PEAK_LR, DEVICE or BATCH the trainer refuses, and a real round
    # made OUT and rendered for half a minute before the trainer said so
    done = _plan(tmp_path, name, 16, arguments)
    assert done.returncode == 2
    assert said in done.stderr, done.stderr
    assert not done.stdout and not (tmp_path / "out").exists()
    assert _plan(tmp_path, name, 16, ["7.5", "3e-4", "cpu"]).returncode == 0
