"""``hanadealer serve`` / ``bench-latency`` from the command line: clear errors, JSON figures."""
import json

import pytest

from hanadealer.cli import main


def test_serve_unknown_game_is_one_clear_line(capsys):
    assert main(["serve", "--demo", "--game", "poker"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("hanadealer: unknown game 'poker'") and "\n" not in err


def test_serve_missing_video_is_one_clear_line(capsys, tmp_path):
    pytest.importorskip("vision.camera", reason="vision.camera is not available")
    assert main(["serve", "--video", str(tmp_path / "nothing.mp4"), "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "nothing.mp4" in err and "Traceback" not in err


def test_serve_only_one_source(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--demo", "--camera", "0"])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_bench_latency_prints_percentiles_as_json(capsys):
    pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    assert main(["bench-latency", "--cards", "2", "--seconds", "60"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["card_to_page"]["n"] == 2
    assert 0 < out["card_to_page"]["p50_ms"] <= out["card_to_page"]["p95_ms"]
    assert out["table_change_to_page"]["n"] >= 1
    assert out["target_p95_ms"] == 1000 and isinstance(out["meets_target"], bool)


def test_serve_on_a_busy_port_is_one_clear_line(capsys, tmp_path):
    pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["serve", "--demo", "--port", str(port), "--data", str(tmp_path), "--detector", "truth"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert f"cannot listen on 127.0.0.1:{port}" in err and "Traceback" not in err


def test_bench_tricks_follows_a_demo_hand_of_kakeya(capsys):
    assert main(["bench-tricks", "--hands", "1", "--detector", "truth", "--every", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    hand = out["hands"][0]
    assert hand["tricks_laid"] == 13 and hand["tricks_right"] == 13 and hand["problems"] == []
    assert out["hands_settled_as_laid"] == 1
    assert main(["bench-tricks", "--hands", "0"]) == 2
