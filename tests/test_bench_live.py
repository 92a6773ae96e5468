"""The live stages' benchmark prints JSON figures and refuses bad options clearly."""
import json

import pytest

from vision import bench_live


def test_bench_prints_json_figures(capsys):
    assert bench_live.main(["--frames", "40"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["frames"] == 40 and out["demo_render_fps"] > 0
    assert out["frames_until_card_shown"]["n"] >= 1
    assert out["frames_until_card_shown"]["median"] == 2.0   # shown on its third frame
    assert out["sure_wrong_readings_shown"] == 0
    assert "realtime" not in out


def test_cards_never_shown_right_are_counted_not_left_out_unsaid(capsys):
    # missed cards were simply absent from the delays, which looked the better for them
    for frames in ("42", "50", "120"):  # (a card appearing in the last frames had no time to be shown)
        assert bench_live.main(["--frames", frames, "--miss-rate", "0"]) == 0
        clean = json.loads(capsys.readouterr().out)
        assert clean["cards_never_shown_right"] == 0, frames
    assert bench_live.main(["--frames", "120", "--miss-rate", "0.95"]) == 0
    missing = json.loads(capsys.readouterr().out)
    assert missing["cards_never_shown_right"] > 0
    assert missing["frames_until_card_shown"]["n"] < clean["frames_until_card_shown"]["n"]


def test_bench_realtime_part(capsys):
    assert bench_live.main(["--frames", "5", "--realtime-seconds", "0.5"]) == 0
    realtime = json.loads(capsys.readouterr().out)["realtime"]
    assert realtime["jpegs"] >= 1 and realtime["cpu_percent_of_one_core"] >= 0


def test_bench_bad_options(capsys):
    with pytest.raises(SystemExit):
        bench_live.main(["--frames", "0"])
    assert "--frames" in capsys.readouterr().err
    assert bench_live.main(["--game", "poker", "--frames", "5"]) == 2
    assert "unknown game 'poker'" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--realtime-seconds", "nan"], "argument --realtime-seconds: nan is out of range"),  # (passed over)
    (["--realtime-seconds", "inf"], "argument --realtime-seconds: inf is out of range"),  # (ran for ever)
    (["--seed", "-1"], "argument --seed: -1 is out of range"),  # (a bare numpy message)
    (["--miss-rate", "1"], "argument --miss-rate: 1 is out of range"),
])
def test_bench_numbers_out_of_range_are_refused_before_any_work(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        bench_live.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err
