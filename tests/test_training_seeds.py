"""Training never renders the scenes it is judged on: the evaluation splits' seeds, nor the validation
seeds the calibration chooses the threshold, the grow factor and the temperature on."""
import pytest

from datasets.splits import EVAL_SEED_BASE, VALIDATION_SEEDS, check_training_seed


def test_training_seeds_keep_clear_of_evaluation_and_validation():
    assert check_training_seed(11) == 11
    with pytest.raises(ValueError, match="collides with the evaluation splits"):
        check_training_seed(EVAL_SEED_BASE)
    for seed in (777, 778, 999):
        assert seed in VALIDATION_SEEDS
        with pytest.raises(ValueError, match=f"training seed {seed} is one of the validation seeds"):
            check_training_seed(seed)
        assert check_training_seed(seed, validation=True) == seed  # the calibration's own data


@pytest.mark.parametrize("seed", [777, 677])  # 677: its detector crops would be rendered from 777
def test_the_trainer_refuses_a_validation_seed_before_anything_is_written(seed, tmp_path, capsys):
    import models.train as train
    with pytest.raises(SystemExit) as stop:
        train.main(["--step", "data", "--seed", str(seed), "--work", str(tmp_path / "w"), "--out", str(tmp_path / "o")])
    assert stop.value.code == 2 and not (tmp_path / "w").exists()
    assert f"--seed {seed}: training seed 777 is one of the validation seeds" in capsys.readouterr().err


@pytest.mark.parametrize("module, args, said", [
    ("train", ["--step", "data", "--seed", "-5"], "argument --seed: -5 is out of range"),
    ("train", ["--step", "data", "--shards", "0"], "argument --shards: 0 is out of range"),
    ("train", ["--step", "mask", "--mask-minutes", "-1"], "argument --mask-minutes: -1 is out of range"),
    ("train", ["--step", "crops", "--crop-lr", "0"], "argument --crop-lr: 0 is out of range"),
    ("train", ["--step", "data", "--shared", "/no/such/folder"], "no shared data folder at /no/such/folder"),
    ("train_quad", ["--step", "data", "--seeds", "201", "1000001"], "--seeds 1000001: training seed 1000001 collides"),
    ("train_quad", ["--seeds", "-1"], "argument --seeds: -1 is out of range"),
    ("train_quad", ["--shared", "/no/such/folder"], "no shared data folder at /no/such/folder"),
    ("train_western", ["--minutes", "0"], "argument --minutes: 0 is out of range"),
])
def test_training_refuses_bad_values_in_one_line_before_any_work(module, args, said, tmp_path, capsys):
    # a traceback came after work had started (a negative seed, a missing shared folder), a net was
    # trained for -1 minutes and exported over the last, or nothing was done without a word (0 shards)
    import importlib
    main = importlib.import_module(f"models.{module}").main
    where = ["--work", str(tmp_path / "w")] if module == "train" else []
    with pytest.raises(SystemExit) as stop:
        main(args + where + ["--out", str(tmp_path / "o")])
    assert stop.value.code == 2 and not (tmp_path / "w").exists() and not (tmp_path / "o").exists()
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
