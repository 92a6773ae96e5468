"""``hanadealer recognise`` and ``hanadealer bench-vision`` from the command line."""
import json

import cv2
import numpy as np
import pytest

from datasets.deck import render_card
from hanadealer.cli import main
from vision_frames import place, table


@pytest.fixture(scope="module")
def two_card_image(tmp_path_factory):
    frame = table()
    place(frame, render_card("cherry-curtain", 435), (420, 360), 280, 8)
    place(frame, render_card("paulownia-chaff-2", 435), (860, 360), 280, 180 - 6)
    path = tmp_path_factory.mktemp("img") / "table.png"
    cv2.imwrite(str(path), frame)
    return path


def test_recognise_json_prints_one_document_per_image(two_card_image, capsys):
    assert main(["recognise", str(two_card_image), str(two_card_image), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    doc = json.loads(lines[0])
    assert doc["image"] == str(two_card_image) and doc["ms"] > 0
    assert sorted(c["face"] for c in doc["cards"]) == ["cherry-curtain", "paulownia-chaff"]
    chaff = next(c for c in doc["cards"] if c["face"] == "paulownia-chaff")
    assert chaff["card"] == "paulownia-chaff-1"  # a chaff face names its month's first chaff card
    for c in doc["cards"]:
        assert set(c) == {"card", "face", "quad", "confidence", "uncertain"}
        assert len(c["quad"]) == 4 and all(len(p) == 2 for p in c["quad"])


def test_recognise_doubts_a_card_seen_more_often_than_the_decks_in_play_hold(tmp_path, capsys):
    # the one cherry-curtain of a deck, seen twice: one of the two readings is wrong
    frame = table()
    place(frame, render_card("cherry-curtain", 435), (420, 360), 280, 8)
    place(frame, render_card("cherry-curtain", 435), (860, 360), 280, 180 - 6)
    path = tmp_path / "twice.png"
    cv2.imwrite(str(path), frame)
    assert main(["recognise", str(path), "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)["cards"]
    assert [c["face"] for c in cards] == ["cherry-curtain"] * 2 and all(c["uncertain"] for c in cards)
    # two decks mixed (a house rule of some games): both can be right
    assert main(["recognise", str(path), "--json", "--decks", "2"]) == 0
    cards = json.loads(capsys.readouterr().out)["cards"]
    assert [c["face"] for c in cards] == ["cherry-curtain"] * 2 and not any(c["uncertain"] for c in cards)
    with pytest.raises(SystemExit):
        main(["recognise", str(path), "--decks", "0"])
    assert "--decks" in capsys.readouterr().err


def test_recognise_text_output(two_card_image, capsys):
    assert main(["recognise", str(two_card_image)]) == 0
    out = capsys.readouterr().out
    assert "2 cards" in out and "cherry-curtain" in out


def test_bad_images_get_a_clear_error_and_the_others_are_still_read(two_card_image, tmp_path, capsys):
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    missing = tmp_path / "missing.png"
    rc = main(["recognise", str(corrupt), str(two_card_image), str(empty), str(missing), "--json"])
    assert rc == 2
    captured = capsys.readouterr()
    docs = [json.loads(line) for line in captured.out.strip().splitlines()]  # one per image, in order
    assert [d["image"] for d in docs] == [str(corrupt), str(two_card_image), str(empty), str(missing)]
    assert [("cards" in d, "error" in d) for d in docs] == [(False, True), (True, False), (False, True), (False, True)]
    assert docs[2]["error"] == f"{empty}: the file is empty"
    err = captured.err
    assert f"{corrupt}: not a readable image" in err
    assert f"{empty}: the file is empty" in err
    assert f"{missing}: no such file" in err
    assert "Traceback" not in err


def test_an_image_claiming_more_pixels_than_can_be_decoded_is_named(two_card_image, tmp_path, capsys):
    # OpenCV raised its own error for the header's 60000 x 60000 pixels: a traceback, exit status 1;
    # then it was said corrupt. (Below OpenCV's limit, a 32000 x 32000 one took 6 GB to decode.)
    import struct
    import zlib
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    huge = tmp_path / "huge.png"
    huge.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + chunk(b"IEND", b""))
    assert main(["recognise", str(huge), str(two_card_image)]) == 2
    captured = capsys.readouterr()
    assert (f"{huge}: 60000 x 60000 pixels, too large to decode (at most 100 million pixels)" in captured.err
            and "Traceback" not in captured.err)


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes are a POSIX thing")
def test_a_pipe_or_a_device_is_refused_by_name_not_waited_on(two_card_image, tmp_path, capsys):
    # a named pipe was read for ever, silently; /dev/zero was said to be "empty"
    import os
    pipe = tmp_path / "camera.png"
    os.mkfifo(pipe)
    assert main(["recognise", str(pipe), "/dev/zero", str(two_card_image)]) == 2
    captured = capsys.readouterr()
    assert f"{pipe}: not a regular file" in captured.err and "/dev/zero: not a regular file" in captured.err
    assert "2 cards" in captured.out
    assert "2 cards" in captured.out


def test_an_image_too_small_to_show_a_card_is_named_and_the_others_are_still_read(two_card_image, tmp_path,
                                                                                     capsys):
    # a side of one pixel cannot even be halved for the mask net: it used to end in an OpenCV traceback
    paths = []
    for name, shape in (("dot.png", (1, 1, 3)), ("line.png", (1, 50, 3)), ("strip.png", (20, 400, 3))):
        paths.append(tmp_path / name)
        cv2.imwrite(str(paths[-1]), np.full(shape, 90, np.uint8))
    rc = main(["recognise", *map(str, paths[:2]), str(two_card_image), str(paths[2]), "--json"])
    assert rc == 2
    captured = capsys.readouterr()
    docs = [json.loads(line) for line in captured.out.strip().splitlines()]
    assert [d["image"] for d in docs if "cards" in d] == [str(two_card_image)] and len(docs) == 4
    for path, size in zip(paths, ("1x1", "50x1", "400x20")):
        assert f"{path}: the frame is too small ({size} pixels)" in captured.err
    assert "Traceback" not in captured.err


def test_missing_models_are_named(tmp_path, two_card_image, capsys):
    assert main(["recognise", str(two_card_image), "--models", str(tmp_path)]) == 2
    assert "vision.json" in capsys.readouterr().err


def test_bench_vision_prints_json_timings_per_stage(capsys):
    assert main(["bench-vision", "--no-accuracy", "--frames", "2", "--cards", "9"]) == 0
    report = json.loads(capsys.readouterr().out)
    nine = report["speed"]["9_cards"]
    # the shipped settings re-fit the quads and leave the edge proposals out (a stage of no time)
    assert report["machine"]["refit_quads"] is True and report["machine"]["edge_proposals"] is False
    for stage in ("mask", "quads", "refit", "classify", "total"):
        assert nine[stage]["median_ms"] > 0 and nine[stage]["p95_ms"] >= nine[stage]["median_ms"]
    assert 0 <= nine["proposals"]["median_ms"] < 0.5


def test_bench_vision_names_the_processor_its_times_were_taken_on(capsys, tmp_path, monkeypatch):
    from vision.bench import cpu_model
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Example Xeon(R) Processor\ncpu MHz\t\t: 2299.998\n\n"
                    "processor\t: 1\nmodel name\t: Example Xeon(R) Processor\ncpu MHz\t\t: 2299.998\n")
    assert cpu_model(info) == "Example Xeon(R) Processor @ 2300 MHz"
    # no clock said (or not a number): the name alone
    info.write_text("model name\t: Example Xeon(R) Processor\ncpu MHz\t: unknown\n")
    assert cpu_model(info) == "Example Xeon(R) Processor"
    # no /proc/cpuinfo (another system): what Python's platform module says
    monkeypatch.setattr("platform.processor", lambda: "arm")
    assert cpu_model(tmp_path / "absent") == "arm"
    monkeypatch.undo()
    assert main(["bench-vision", "--no-accuracy", "--frames", "1", "--cards", "9"]) == 0
    assert json.loads(capsys.readouterr().out)["machine"]["cpu_model"] == cpu_model()


@pytest.mark.parametrize("flags,proposals,refit", [(["--proposals"], True, True), (["--no-refit"], False, False),
                                                   (["--proposals", "--no-refit"], True, False)])
def test_bench_vision_can_switch_the_proposals_and_the_refit(capsys, flags, proposals, refit):
    assert main(["bench-vision", "--no-accuracy", "--frames", "2", "--cards", "9", *flags]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["machine"]["edge_proposals"] is proposals and report["machine"]["refit_quads"] is refit
    nine = report["speed"]["9_cards"]
    assert (nine["proposals"]["median_ms"] > 0.5) is proposals


def test_bench_vision_on_the_demo_split(capsys):
    assert main(["bench-vision", "--no-speed", "--splits", "demo", "--scenes", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    demo = report["splits"]["demo"]
    assert demo["scenes"] == 3
    for key in ("face_accuracy", "detection_recall", "detection_precision", "uncertain_share",
                "confident_wrong_rate"):
        assert key in demo
    assert report["renders"] == "development"
    assert report["totals"]["cards"] == demo["cards"] and report["totals"]["found"] == demo["cards"] - demo["missed"]
    assert report["totals"]["uncertain"] == demo["uncertain"]


def test_bench_vision_test_renders_are_the_splits_at_other_seeds_nothing_was_chosen_on(capsys):
    # the development splits' zero of confident misreads was selected for: fresh renders showed some
    assert main(["bench-vision", "--no-speed", "--splits", "demo", "--scenes", "2", "--test"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["renders"] == "test" and sorted(report["splits"]) == ["demo+1000", "demo+2000"]
    from datasets.splits import get_split, split_scenes
    dev, test = next(split_scenes("demo", limit=1)), next(split_scenes(get_split("demo", 1000), limit=1))
    assert dev[2] != test[2]  # (other scenes)
    assert report["totals"]["cards"] == sum(r["cards"] for r in report["splits"].values())
    with pytest.raises(ValueError, match="a test render is at a seed offset of 1000 or 2000"):
        get_split("demo", 5)


def test_bench_vision_says_why_cards_were_missed(monkeypatch, capsys):
    # a detector that sees nothing and has no candidate quads: every card is missed for want of a quad
    from vision import detector
    from vision.detector import CardDetector

    class Blind(CardDetector):
        def detect_timed(self, frame):
            return [], {"total": 1.0}

        def candidate_readings(self, frame):
            return [], []

    monkeypatch.setattr(detector, "CardDetector", Blind)
    assert main(["bench-vision", "--no-speed", "--splits", "demo", "--scenes", "2", "--markdown"]) == 0
    said = capsys.readouterr()
    demo = json.loads(said.out)["splits"]["demo"]  # (the JSON alone on stdout: the tables followed it there)
    assert demo["missed"] == demo["cards"] > 0
    assert demo["missed_by_cause"] == {"no_quad": demo["cards"], "quad_off": 0, "read_as_no_card": 0,
                                       "read_but_not_reported": 0}
    assert sum(demo["missed_in_the_open_by_cause"].values()) == demo["cards_in_the_open"]
    assert "| no quad | quad off | read as no card | read but not reported |" in said.err


def test_bench_vision_markdown_tables(capsys):
    assert main(["bench-vision", "--splits", "demo", "--scenes", "1", "--frames", "1", "--cards", "9",
                 "--markdown"]) == 0
    said = capsys.readouterr()
    assert "| demo | " in said.err and "| 9 cards (median / p95 ms) |" in said.err
    json.loads(said.out)


def test_bench_vision_refuses_an_unknown_split(capsys):
    assert main(["bench-vision", "--no-speed", "--splits", "nonsense"]) == 2
    assert "unknown split" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["recognise", "x.png", "--threshold", "5"], "argument --threshold: 5 is out of range: a number from 0 to 1"),
    (["recognise", "x.png", "--threshold", "nan"], "argument --threshold: nan is out of range"),
    (["bench-vision", "--frames", "0"], "argument --frames: 0 is out of range: a whole number from 1 to 10000"),
    (["bench-vision", "--scenes", "-3"], "argument --scenes: -3 is out of range"),
    (["bench-vision", "--threads", "-1"], "argument --threads: -1 is out of range"),
    (["bench-western", "--cards", "0"], "argument --cards: 0 is out of range"),
    # a scene holds at most 48 cards: more failed once the whole accuracy run was done
    (["bench-vision", "--cards", "9", "100"], "argument --cards: 100 is out of range: a whole number from 1 to 48"),
    (["bench-western", "--cards", "50"], "argument --cards: 50 is out of range"),
    # no values: nothing timed, or no split read, and the exit said it went well
    (["bench-vision", "--cards"], "argument --cards: expected at least one argument"),
    (["bench-vision", "--splits"], "argument --splits: expected at least one argument"),
    # both: nothing measured, and the exit said it went well
    (["bench-vision", "--no-accuracy", "--no-speed"], "argument --no-speed: not allowed with argument --no-accuracy"),
    (["bench-western", "--no-speed", "--no-accuracy"], "argument --no-accuracy: not allowed with argument --no-speed"),
])
def test_numbers_out_of_range_are_refused_before_any_work(argv, message, capsys):
    # a threshold of 5 flagged every card and nan none; --frames 0 ended in an IndexError
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_models_that_cannot_be_loaded_are_named_in_one_line(tmp_path, two_card_image, capsys):
    import shutil
    from pathlib import Path
    models = Path(__file__).resolve().parent.parent / "models"
    for name in ("vision.json", "cardface.onnx"):
        shutil.copy(models / name, tmp_path / name)
    (tmp_path / "cardmask.onnx").write_bytes(b"not a model")
    assert main(["recognise", str(two_card_image), "--models", str(tmp_path)]) == 2
    assert f"model file {tmp_path / 'cardmask.onnx'} cannot be loaded" in capsys.readouterr().err
    assert main(["recognise", str(two_card_image), "--models", str(tmp_path / "vision.json")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["bench-western", "--models", str(tmp_path / "vision.json"), "--quick"]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_a_shared_folder_given_that_is_not_one_is_refused_not_replaced(tmp_path, capsys):
    # a wrong --shared was silently replaced by ../shared, and its figures reported
    assert main(["bench-vision", "--shared", str(tmp_path), "--no-speed", "--splits", "demo", "--scenes", "1"]) == 2
    assert f"no shared data folder at {tmp_path}" in capsys.readouterr().err


@pytest.mark.parametrize("argv,scenes,frames", [(["--quick"], 20, 10), (["--quick", "--frames", "3"], 20, 3),
                                                (["--quick", "--scenes", "2"], 2, 10), ([], None, 30)])
def test_bench_vision_quick_gives_way_to_the_counts_given(monkeypatch, capsys, argv, scenes, frames):
    """--quick took 10 timed frames even with --frames 3 (an explicit --scenes was kept)."""
    import vision.bench
    import vision.cli
    seen = {}
    monkeypatch.setattr(vision.cli, "_detector", lambda args: object())
    monkeypatch.setattr(vision.bench, "run_benchmark", lambda detector, **kw: seen.update(kw) or {})
    assert main(["bench-vision"] + argv) == 0
    assert (seen["scenes"], seen["frames"]) == (scenes, frames)


def test_an_image_named_in_bytes_that_are_not_utf8_is_read_and_its_name_shown_escaped(two_card_image, tmp_path,
                                                                                    capsys, monkeypatch):
    # a strict UTF-8 output (a desktop locale) raised UnicodeEncodeError after the image was read
    import io
    import os
    import sys
    name = os.fsdecode(bytes(tmp_path) + b"/deck\xff.png")
    os.link(two_card_image, name)
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["recognise", name]) == 0
    out.flush()
    assert f"{tmp_path}/deck\\xff.png: 2 cards" in out.buffer.getvalue().decode("utf-8")
    # and in JSON as the same escaped text: a lone surrogate there is refused by strict parsers
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["recognise", "--json", name]) == 0
    out.flush()
    line = out.buffer.getvalue().decode("utf-8")
    assert "\\ud" not in line and json.loads(line)["image"] == f"{tmp_path}/deck\\xff.png"


def test_a_missing_image_named_in_bytes_that_are_not_utf8_is_said_the_same_on_stderr_as_in_json(tmp_path, capsys):
    # standard error wrote the one odd byte as \udcff, the JSON beside it as \xff
    import os
    name = os.fsdecode(bytes(tmp_path) + b"/gone\xff.png")
    assert main(["recognise", "--json", name]) == 2
    out, err = capsys.readouterr()
    said = f"{tmp_path}/gone\\xff.png: no such file"
    assert json.loads(out)["error"] == said and err.strip() == f"hanadealer: recognise: {said}"


def test_recognise_with_its_output_closed_says_so_in_one_line(two_card_image, capsys, monkeypatch):
    # started with standard output closed, every line printed vanished (and flush raised)
    import sys
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["recognise", str(two_card_image)]) == 2
    assert capsys.readouterr().err == "hanadealer recognise: cannot write the output: standard output is closed\n"


def test_serve_with_its_output_closed_is_not_refused_for_it(capsys, monkeypatch):
    # the page's server writes only to standard error
    import sys
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["serve", "--demo", "--game", "poker"]) == 2
    assert capsys.readouterr().err.startswith("hanadealer: unknown game 'poker'")


def test_ctrl_c_during_a_command_stops_it_in_one_line(two_card_image, capsys, monkeypatch):
    import vision.cli

    def interrupted(_image):
        raise KeyboardInterrupt
    monkeypatch.setattr(vision.cli, "read_image", interrupted)
    assert main(["recognise", str(two_card_image)]) == 130
    assert capsys.readouterr().err == "hanadealer recognise: stopped (Ctrl-C)\n"


def test_a_damaged_png_is_said_in_our_one_line_alone(two_card_image, tmp_path, capfd):
    # libpng wrote "libpng error: ..." (and OpenCV its own line) to the process's standard error first
    good = two_card_image.read_bytes()
    (tmp_path / "cut.png").write_bytes(good[:200])  # the header whole, the picture cut short
    (tmp_path / "sig.png").write_bytes(good[:8])    # the PNG signature alone
    assert main(["recognise", str(tmp_path / "cut.png"), str(tmp_path / "sig.png")]) == 2
    err = capfd.readouterr().err
    assert err.splitlines() == [
        f"hanadealer: recognise: {tmp_path / 'cut.png'}: not a readable image (corrupt or unsupported format)",
        f"hanadealer: recognise: {tmp_path / 'sig.png'}: not a readable image (corrupt or unsupported format)"], err


def test_a_file_too_large_for_a_picture_is_refused_before_it_is_read(two_card_image, capsys, monkeypatch):
    # a 3 GB file that was no picture was read whole (17 s, 3 GB of memory) before it was refused
    import vision.camera
    monkeypatch.setattr(vision.camera, "MAX_PICTURE_BYTES", 1024)
    assert main(["recognise", str(two_card_image)]) == 2
    assert "too large for a picture of the table (at most 0 MB)" in capsys.readouterr().err


def test_bench_vision_names_the_photo_folder_it_looked_in(tmp_path, capsys):
    # "../shared/photos-dev is not present" was said whatever folder --shared named
    import shutil
    from pathlib import Path
    shutil.copy(Path(__file__).resolve().parent.parent / "dealer" / "cards.csv", tmp_path / "cards.csv")
    assert main(["bench-vision", "--no-speed", "--scenes", "1", "--splits", "demo", "--shared", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["photos_dev"] == {"skipped": f"{tmp_path / 'photos-dev' / 'labels.csv'} is not present"}
