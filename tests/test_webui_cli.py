"""``hanadealer serve`` / ``bench-latency`` from the command line: clear errors, JSON figures."""
import json
import os

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


def test_serve_rotate_takes_quarter_turns_and_not_the_demo(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--images", str(tmp_path), "--rotate", "45"])
    assert exc.value.code == 2 and "invalid choice: 45" in capsys.readouterr().err
    assert main(["serve", "--demo", "--rotate", "180", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("hanadealer: the demo table is drawn the right way up") and "\n" not in err
    assert not list(tmp_path.iterdir())  # refused before the ledger was opened
    assert main(["serve", "--demo", "--mirror", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("hanadealer: the demo table is drawn unmirrored") and "\n" not in err
    assert not list(tmp_path.iterdir())


def test_serve_with_a_file_for_its_data_folder_says_so(capsys, tmp_path):
    (tmp_path / "afile").write_text("x")
    assert main(["serve", "--demo", "--data", str(tmp_path / "afile")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"hanadealer: the data folder {tmp_path / 'afile'} is a file, not a folder (--data, or $HANADEALER_DATA)"


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
    with pytest.raises(SystemExit) as stop:  # refused by the argument's type now
        main(["bench-tricks", "--hands", "0"])
    assert stop.value.code == 2


def test_serve_demo_starts_the_dealer_page_on_the_demo_table(tmp_path):
    """The README's first command, past its install: ``hanadealer serve --demo`` serves the page, the
    table state, the live updates and the video, and stops cleanly on SIGTERM, as on Ctrl-C (which a
    process started in the background may have ignored)."""
    import json
    import os
    import re
    import signal
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request
    pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HANADEALER_")}
    # its output goes to a file: a pipe left unread fills up, and a server blocked writing its log
    # does not stop on Ctrl-C
    log_path = tmp_path / "serve.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-c", "import sys; from hanadealer.cli import main; sys.exit(main())",
                                 "serve", "--demo", "--port", "0", "--data", str(tmp_path),
                                 "--allow-host", "dealer.local"],
                                stdout=log, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        said, deadline, url = "", time.monotonic() + 90, None
        while url is None and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            said = log_path.read_text()
            found = re.search(r"page is at (http://127\.0\.0\.1:\d+/)", said)
            url = found.group(1) if found else None
        assert url, f"the page never said where it is: {said!r}"
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.status == 200 and "text/html" in r.headers["Content-Type"]
        # by the name it was given, and by no other (a web page pointing its own name at it)
        with urllib.request.urlopen(urllib.request.Request(url + "api/auth", headers={"Host": "dealer.local"}),
                                    timeout=10) as r:
            assert r.status == 200
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(url + "api/auth", headers={"Host": "evil.example"}),
                                   timeout=10)
        assert refused.value.code == 403
        assert "no PIN is set: choose it on this machine's page" in log_path.read_text()
        state = {}
        while time.monotonic() < deadline and not any(z["cards"] for z in state.get("zones", [])):
            with urllib.request.urlopen(url + "api/state", timeout=10) as r:
                state = json.load(r)
            time.sleep(0.5)
        assert state["session"]["game"] == "batta-maki"
        assert any(z["cards"] for z in state["zones"]), "the demo table dealt no card in time"
        with urllib.request.urlopen(url + "events", timeout=10) as r:
            assert r.headers["Content-Type"].startswith("text/event-stream")
            lines = [r.readline() for _ in range(8)]  # a retry hint and a ping, then the first state
            assert b"event: state\n" in lines and any(line.startswith(b"data: {") for line in lines), lines
        with urllib.request.urlopen(url + "video.mjpg", timeout=10) as r:
            assert r.headers["Content-Type"].startswith("multipart/x-mixed-replace")
            assert b"\xff\xd8" in r.read(20000)  # a JPEG begins
        assert (tmp_path / "ledger.sqlite").is_file()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"no exit 30 s after SIGTERM; its output: {log_path.read_text()[-3000:]}") from None
    assert code == 0, log_path.read_text()[-3000:]



@pytest.mark.parametrize("argv, message", [
    (["serve", "--port", "70000"], "argument --port: 70000 is out of range: a whole number from 0 to 65535"),
    (["serve", "--camera", "2147483648"], "argument --camera: 2147483648 is out of range"),
    (["bench-latency", "--seconds", "nan"], "argument --seconds: nan is out of range: a number above 0"),
    (["bench-latency", "--fps", "0"], "argument --fps: 0 is out of range"),
    (["bench-latency", "--seed", "-1"], "argument --seed: -1 is out of range"),
    (["bench-tricks", "--hands", "0"], "argument --hands: 0 is out of range"),
    # rendered first, a hundred million frames filled the memory; an fps of 1e-300 ended in an
    # OverflowError, said without the command's name, and a report with status 0
    (["bench-vision", "--frames", "100000000"], "argument --frames: 100000000 is out of range: a whole number from 1 to 10000"),
    (["bench-western", "--frames", "100000000"], "argument --frames: 100000000 is out of range"),
    (["bench-tricks", "--hands", "5000"], "argument --hands: 5000 is out of range"),
    (["bench-latency", "--fps", "1e-300"], "argument --fps: 1e-300 is out of range: a number from 0.1 to 120"),
])
def test_numbers_out_of_range_are_refused_before_anything_starts(argv, message, capsys):
    # port 70000 served on 4464; --fps 0 and --seed -1 ended in tracebacks; --seconds nan printed NaN
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("argv, option", [
    # --data "" (a variable unset in a start-up script) served the default books without a word
    (["serve", "--demo", "--data", ""], "--data"),
    (["serve", "--video", ""], "--video"),  # said as "video file '.' is a folder"
    (["serve", "--images", " "], "--images"),
    (["recognise", ""], "IMAGE"),
    (["recognise", "x.png", "--models", ""], "--models"),
    (["settle", ""], "ROUND.json"),
    (["deck", "--out", ""], "--out"),
    (["synth", "--art", "demo", "--count", "1", "--out", ""], "--out"),
    (["bench-vision", "--shared", ""], "--shared"),
    (["bench-western", "--models", ""], "--models"),
    (["bench-synth", "--shared", ""], "--shared"),
])
def test_an_empty_file_or_folder_name_is_refused_by_the_option_that_has_it(argv, option, capsys, tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("HANADEALER_DATA", str(tmp_path))  # (a serve that started would write here, not home)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert f"argument {option}: an empty or blank name names no file or folder" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_bench_latency_names_an_unknown_game(capsys):
    assert main(["bench-latency", "--game", "bogus"]) == 2
    assert "unknown game 'bogus'" in capsys.readouterr().err
    # Kakeya's session of three demo players was refused, and the benchmark ended in a traceback
    assert main(["bench-latency", "--game", "kakeya-toranpu"]) == 2
    assert "Kakeya Toranpu's tricks are timed by bench-tricks" in capsys.readouterr().err


@pytest.mark.parametrize("game, players, message", [
    ("batta-maki", "dealer,bob", "'dealer' is the bank, not a player name"),
    ("batta-maki", "a,a", "a"),
    ("kakeya-toranpu", "A,B,C", "the demo table deals kakeya-toranpu for 4 players (A,B,C,D): --players names 3"),
    # the demo deals for its own players: Otoroku's hands of A, B and C were read into X's and Y's
    # seats (C's hand left unread) and settled so
    ("otoroku", "X,Y", "the demo table deals otoroku for 3 players (A,B,C): --players names 2; name 3"),
    ("kabu-tsukuri", "X,Y,Z,W", "the demo table deals kabu-tsukuri for 3 players (A,B,C): --players names 4"),
    ("echobo", "X,Y", "the demo table deals echobo for 3 players"),
    ("kakeya-toranpu", "A,B,C,D,E,F", "the demo table deals kakeya-toranpu for 4 players (A,B,C,D): --players names 6"),
])
def test_serve_with_players_the_game_cannot_seat_says_so_in_one_line(game, players, message, capsys, tmp_path,
                                                                      monkeypatch):
    # with a fresh data folder the session was refused, the server went on without one and ended in a
    # traceback reading its game
    pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    import werkzeug.serving

    def no_server(*args, **kwargs):  # (a server started would serve until stopped)
        raise AssertionError("a server was started for a session refused")
    monkeypatch.setattr(werkzeug.serving, "make_server", no_server)
    assert main(["serve", "--demo", "--port", "0", "--data", str(tmp_path), "--detector", "truth", "--game", game,
                 "--players", players]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hanadealer: ") and message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("game, players", [("otoroku", ["X", "Y", "Z"]), ("batta-maki", ["X", "Y"]),
                                           ("hankan", ["X", "Y", "Z", "W"]), ("kakeya-toranpu", ["N", "E", "S", "W"])])
def test_the_demo_takes_other_names_or_bettors_in_any_number(game, players):
    # (as many players as it deals for, named otherwise, or bettors on rows that seat no player)
    pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    from webui.cli import demo_players_problem
    assert demo_players_problem(game, players) is None


def test_the_settings_page_on_the_demo_table_refuses_players_it_does_not_deal_for(tmp_path):
    # Settings started an Otoroku session of two on the demo, which deals for three: its hands were
    # read into the wrong seats and settled so
    demo = pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    from webui.cli import build_live_app
    from webui.service import InputError
    table = demo.DemoTable(game="otoroku", seed=0, realtime=False)
    _, app = build_live_app(table, demo.DemoTruthDetector(table), "otoroku", ["A", "B", "C"], tmp_path)
    service = app.extensions["hanadealer"]["service"]
    with pytest.raises(InputError, match=r"the demo table deals otoroku for 3 players \(A,B,C\): the session "
                                         r"names 2; name 3$"):
        service.start_session({"game": "otoroku", "players": [{"name": "X"}, {"name": "Y"}]})
    assert [p["name"] for p in service.session["players"]] == ["A", "B", "C"]  # (the session kept)
    service.start_session({"game": "otoroku", "players": [{"name": n} for n in ("X", "Y", "Z")]})
    # (held to the game the demo deals: another game is read from its deal only where it has the same
    # deck and places; chosen in Settings, Hankan on Batta Maki's deal waited for a third row for good)
    with pytest.raises(InputError, match=r"^the demo table deals otoroku: to play kabu-tsukuri on it, start it "
                                         r"again with --game kabu-tsukuri \(hanadealer serve --demo --game kabu-tsukuri\)$"):
        service.start_session({"game": "kabu-tsukuri", "players": [{"name": n} for n in ("X", "Y", "Z")]})
    from webui.cli import demo_game_problem
    assert demo_game_problem("batta-maki", "atosaki") is None
    assert demo_game_problem("batta-maki", "hankan") and demo_game_problem("batta-maki", "mutsu-wari")


def test_the_demo_command_said_for_another_game_repeats_the_options_it_was_started_with(tmp_path):
    # it said "hanadealer serve --demo --game hankan" alone: typed as said, the demo served another
    # folder's ledger, on another port, from the tablet's point of view a server gone
    demo = pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    from hanadealer.cli import build_parser
    from webui.cli import build_live_app, demo_command, demo_game_problem
    from webui.service import InputError
    folder = tmp_path / "my books"
    args = build_parser().parse_args(["serve", "--demo", "--data", str(folder), "--port", "5123", "--host", "0.0.0.0",
                                      "--allow-host", "table.local", "--detector", "truth", "--players", "X,Y,Z"])
    said = demo_game_problem("batta-maki", "hankan", args)
    assert said == (f"the demo table deals batta-maki: to play hankan on it, start it again with --game hankan "
                    f"(hanadealer serve --demo --game hankan --data '{folder}' --host 0.0.0.0 --port 5123 "
                    f"--allow-host table.local --detector truth --players X,Y,Z)")
    # players the other game's deal cannot seat are left out (the demo's own are dealt for)
    assert "--players" not in demo_command("kakeya-toranpu", args)
    # the demo in place of a camera that did not open kept its books in the folder's demo/
    fallback = build_parser().parse_args(["serve", "--data", str(folder)])
    assert demo_command("otoroku", fallback) == f"hanadealer serve --demo --game otoroku --data '{folder / 'demo'}'"
    assert demo_command("otoroku") == "hanadealer serve --demo --game otoroku"
    # and the Settings page says it so
    table = demo.DemoTable(game="batta-maki", seed=0, realtime=False)
    _, app = build_live_app(table, demo.DemoTruthDetector(table), "batta-maki", ["A", "B", "C"], tmp_path, args=args)
    with pytest.raises(InputError, match=r"\(hanadealer serve --demo --game hankan --data .* --port 5123 "):
        app.extensions["hanadealer"]["service"].start_session({"game": "hankan", "players": [{"name": "A"}]})


def test_a_serve_that_cannot_listen_leaves_the_ledger_as_it_was(capsys, tmp_path):
    # it opened the ledger (and the session in it) before finding the port taken
    import socket
    from dealer.ledger import Ledger
    pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    Ledger(tmp_path / "ledger.sqlite").save_session({"game": "batta-maki", "players": [], "bets": [],
                                                     "corrections": {"7": "pine-crane"}})
    before = (tmp_path / "ledger.sqlite").read_bytes()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--demo", "--port", str(port), "--data", str(tmp_path), "--detector", "truth"]) == 2
    assert "cannot listen" in capsys.readouterr().err
    assert Ledger(tmp_path / "ledger.sqlite").load_session()["corrections"] == {"7": "pine-crane"}
    assert (tmp_path / "ledger.sqlite").read_bytes() == before


def test_a_ledger_that_cannot_be_written_is_one_clear_line(capsys, tmp_path, monkeypatch):
    # a read-only ledger ended in sqlite3's traceback (here opened read-only: root may write anyway)
    import sqlite3
    from dealer.ledger import Ledger
    pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    Ledger(tmp_path / "ledger.sqlite")
    monkeypatch.setattr(Ledger, "_connect",
                        lambda self: sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None))
    assert main(["serve", "--demo", "--port", "0", "--data", str(tmp_path), "--detector", "truth"]) == 2
    err = capsys.readouterr().err
    assert f"cannot write to the ledger {tmp_path / 'ledger.sqlite'}: attempt to write a readonly database" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_serve_with_no_camera_says_it_serves_the_demo_and_keeps_it_out_of_the_books(capsys, tmp_path, monkeypatch):
    # it fell back on the demo table in silence, and its rounds went into the dealer's own ledger
    import vision.camera as camera
    import werkzeug.serving
    pytest.importorskip("vision.demo_table", reason="the demo table is not available")

    def no_camera(index):
        raise camera.CameraError(f"camera {index} cannot be opened")

    def stop(*a, **k):  # (ends the command before it serves, after the ledger is opened)
        raise OSError("stopped by the test")
    monkeypatch.setattr(camera, "CameraSource", no_camera)
    monkeypatch.setattr(werkzeug.serving, "make_server", stop)
    monkeypatch.setenv("HANADEALER_DATA", str(tmp_path))
    assert main(["serve", "--port", "0", "--detector", "truth"]) == 2
    assert "no camera opened: serving the built-in demo table" in capsys.readouterr().err
    assert (tmp_path / "demo" / "ledger.sqlite").exists() and not (tmp_path / "ledger.sqlite").exists()
    # ...and so with the dealer's folder named (--data): its books and session are his
    books = tmp_path / "books"
    assert main(["serve", "--port", "0", "--detector", "truth", "--data", str(books)]) == 2
    assert (books / "demo" / "ledger.sqlite").exists() and not (books / "ledger.sqlite").exists()


def test_the_demo_keeps_to_a_folder_of_its_own_unless_told(monkeypatch, tmp_path):
    from webui.cli import data_folder
    monkeypatch.delenv("HANADEALER_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert data_folder(None, demo=False) == tmp_path / ".hanadealer"
    assert data_folder(None, demo=True) == tmp_path / ".hanadealer" / "demo"
    monkeypatch.setenv("HANADEALER_DATA", str(tmp_path / "books"))
    assert data_folder(None, demo=True) == tmp_path / "books" / "demo"
    assert data_folder(str(tmp_path / "here"), demo=True) == tmp_path / "here"


def test_the_demo_plays_the_game_asked_for_unless_the_open_session_holds_something(tmp_path):
    # the demo dealt Kakeya cards while a Batta Maki session left in its folder read them
    from webfakes import FakeLiveTable
    from webui.app import create_app
    from webui.cli import demo_session
    app = create_app({"LIVE": FakeLiveTable(), "LEDGER": str(tmp_path / "l.sqlite"), "PIN": "2468", "TESTING": True})
    service = app.extensions["hanadealer"]["service"]
    service.start_session({"game": "batta-maki", "players": [{"name": "Aki"}, {"name": "Ben"}]})
    assert demo_session(service, "otoroku", ["Aki", "Ben", "Cho"]) is None
    assert service.session["game"] == "otoroku"
    service.start_session({"game": "batta-maki", "players": [{"name": "Aki"}, {"name": "Ben"}]})
    service.add_bet({"player": "Aki", "on": "saki", "amount": 10})
    problem = demo_session(service, "hankan", ["Aki", "Ben"])
    assert "the demo's open session plays batta-maki and cannot give way to hankan" in problem
    assert "1 bet(s) of batta-maki are on the table" in problem and service.session["game"] == "batta-maki"
    # Kakeya after another game's demo: with the pair the demo deals for, or no one was proposed to
    # lead and the tricks were never read
    service.remove_bet(service.session["bets"][0]["id"])
    players = ["Aki", "Ben", "Cho", "Dan"]
    assert demo_session(service, "kakeya-toranpu", players, ["Ben", "Dan"]) is None
    assert service.session["game"] == "kakeya-toranpu" and service.session["dealers"] == ["Ben", "Dan"]


def test_a_source_that_gives_no_frame_is_refused_in_one_line_without_opencvs_own_warnings(tmp_path):
    # a text file named .png opened as a "video" (OpenCV reads it as an image sequence) was served as
    # a page that never had a frame, after two lines of FFmpeg's about the PNG signature
    import subprocess
    import sys
    (tmp_path / "text.png").write_text("hello")
    (tmp_path / "empty.mp4").write_bytes(b"x")
    for source, said in [("text.png", "has no frame that can be read"), ("empty.mp4", "cannot be opened")]:
        r = subprocess.run([sys.executable, "-m", "hanadealer", "serve", "--video", str(tmp_path / source),
                            "--data", str(tmp_path / "data"), "--port", "0"],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        assert r.returncode == 2 and said in r.stderr, r.stderr
        assert r.stderr.strip().count("\n") == 0, r.stderr  # one line: ours
    r = subprocess.run([sys.executable, "-m", "hanadealer", "settle", "--bogus", "round.json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("usage: hanadealer settle")
    assert "hanadealer settle: error: unrecognized arguments: --bogus" in r.stderr


def test_serve_with_a_data_folder_that_cannot_be_made_names_it(capsys, tmp_path):
    # a bare "[Errno 20] Not a directory" named no folder the dealer typed
    (tmp_path / "afile").write_text("x")
    assert main(["serve", "--demo", "--data", str(tmp_path / "afile" / "sub")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"hanadealer: the data folder {tmp_path / 'afile' / 'sub'} cannot be made (Not a directory; "
                   f"--data, or $HANADEALER_DATA)")


def test_a_damaged_video_is_said_in_our_one_line_only(capfd, tmp_path):
    # the demuxer printed its own line first, with a raw byte in it
    cv2 = pytest.importorskip("cv2")
    import numpy as np
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (160, 120))
    for i in range(20):
        writer.write(np.full((120, 160, 3), i * 10, np.uint8))
    writer.release()
    path.write_bytes(path.read_bytes()[:2000])
    assert main(["serve", "--video", str(path), "--port", "0", "--data", str(tmp_path / "d")]) == 2
    err = capfd.readouterr().err
    assert err.strip().count("\n") == 0 and err.startswith(f"hanadealer: video file '{path}'"), err


def test_the_address_a_tablet_takes_is_said_for_a_server_on_every_address(monkeypatch):
    # "the page is at http://0.0.0.0:5000/", which no tablet opens
    import socket
    from webui.cli import network_address
    assert network_address("0.0.0.0") not in ("0.0.0.0", "")

    class NoRoute(socket.socket):
        def connect(self, address):
            raise OSError("network is unreachable")
    monkeypatch.setattr(socket, "socket", NoRoute)
    assert network_address("0.0.0.0") == socket.gethostname()


@pytest.mark.parametrize("host, url", [("127.0.0.1", "http://127.0.0.1:5000/"), ("::1", "http://[::1]:5000/"),
                                       ("0.0.0.0", "http://0.0.0.0:5000/"), ("::", "http://[::]:5000/")])
def test_the_page_address_printed_is_one_a_browser_takes(host, url):
    from webui.cli import page_url
    assert page_url(host, 5000) == url


def test_a_second_ctrl_c_while_stopping_is_passed_over_and_the_stop_finishes():
    import signal
    from webui.cli import _interrupts_held
    finished = []
    # (Ctrl-C as a terminal gives it: a test run started in the background, as CI may, begins with
    # it ignored, and the check after saw the ignoring restored)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with _interrupts_held():
            os.kill(os.getpid(), signal.SIGINT)  # would raise KeyboardInterrupt here, mid-stop
            finished.append(True)
        assert finished == [True]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C works again after
    finally:
        signal.signal(signal.SIGINT, before)


def test_serve_beside_a_lost_pot_of_another_game_starts_and_says_so(capsys, tmp_path, monkeypatch):
    # no session could start for otoroku beside a Batta Maki pot whose session was set aside: the
    # server read the game of the session it did not have, and ended in a traceback
    pytest.importorskip("vision.demo_table", reason="the demo table is not available")
    import werkzeug.serving
    import webui.cli
    from dealer.games import settle_round
    from dealer.ledger import Ledger
    tie = {"game": "atosaki", "house": {"tie_rule": "carry_over"},
           "rows": {"saki": ["pine-crane", "plum-chaff-1", "cherry-chaff-1"],
                    "ato": ["pine-chaff-1", "plum-warbler", "cherry-curtain"]},
           "bets": [{"player": "Aki", "on": "saki", "amount": 100}, {"player": "Ben", "on": "ato", "amount": 100}]}
    ledger = Ledger(tmp_path / "ledger.sqlite")
    ledger.record_round(round_=tie, result=settle_round(tie), rule_version="1", cards=[])
    ledger.set_meta("session", "{damaged")

    class Served:  # (serves at once and stops, as after a Ctrl-C)
        server_port = 5999

        def serve_forever(self):
            pass

        def server_close(self):
            pass
    monkeypatch.setattr(werkzeug.serving, "make_server", lambda *a, **k: Served())
    monkeypatch.setattr(webui.cli, "_stop_on_sigterm", lambda: None)
    assert main(["serve", "--demo", "--port", "0", "--data", str(tmp_path), "--detector", "truth",
                 "--game", "otoroku"]) == 0
    err = capsys.readouterr().err
    assert "no session was started for otoroku: the pot of 200 carried over" in err and "Traceback" not in err, err
