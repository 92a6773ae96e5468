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
