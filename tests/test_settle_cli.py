"""``hanadealer settle``: prints the JSON result; bad input ends with status 2 and one line on stderr."""
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hanadealer.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"

GOOD = {"game": "batta-maki",
        "rows": {"saki": ["pine-crane", "plum-warbler", "cherry-curtain"],
                 "ato": ["maple-deer", "susuki-moon", "iris-bridge"]},
        "bets": [{"player": "ann", "on": "saki", "amount": 30}, {"player": "ben", "on": "ato", "amount": 10}]}


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["settle", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_settles_a_file(tmp_path, capsys):
    path = tmp_path / "round.json"
    path.write_text(json.dumps(GOOD))
    code, out, err = run(capsys, str(path))
    assert code == 0 and err == ""
    result = json.loads(out)
    # saki 1+2+3 = 6, ato 10+8+5 = 23 -> 3: saki wins; the dealer topped up 20 on ato
    assert result["winner"] == "saki" and result["net"] == {"ann": 30, "ben": -10, "dealer": -20}


def test_settles_standard_input(capsys, monkeypatch):
    code, out, _ = run(capsys, "-", stdin=json.dumps(GOOD), monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["winner"] == "saki"


def test_equalise_only(capsys, monkeypatch):
    before_reveal = {"game": "shoniban", "bets": [{"player": "ann", "on": "naka-e", "amount": 50},
                                                  {"player": "ben", "on": "oto-e", "amount": 70}]}
    code, out, _ = run(capsys, "--equalise", "-", stdin=json.dumps(before_reveal), monkeypatch=monkeypatch)
    assert code == 0
    assert json.loads(out) == {"game": "shoniban", "totals": {"naka-e": 50, "oto-e": 70}, "lighter_side": "naka-e",
                               "difference": 20, "dealer_adds": 20, "dealer_side": "naka-e",
                               "message": "the dealer adds 20 on naka-e"}


@pytest.mark.parametrize("round_, message", [
    ({"game": "atosaki", "house": {"equalise": "required"},
      "bets": [{"player": "a", "on": "saki", "amount": 5}]},
     "ato is short by 5: the players must equalise"),
    ({"game": "batta-maki", "bets": [{"player": "a", "on": "saki", "amount": 5},
                                     {"player": "b", "on": "ato", "amount": 5}]}, "the bets are equal"),
])
def test_equalise_messages(capsys, monkeypatch, round_, message):
    code, out, _ = run(capsys, "--equalise", "-", stdin=json.dumps(round_), monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["message"] == message


@pytest.mark.parametrize("round_, message", [
    ({"game": "batta-maki", "bets": [{"player": "ann", "on": "saki", "amount": 50},
                                     {"player": "ann", "on": "ato", "amount": 50}]},
     "player 'ann' bets on both 'saki' and 'ato'; a player may bet on one side only"),
    ({"game": "batta-maki", "house": {"min_bet": 5, "max_bet": 10},
      "bets": [{"player": "ann", "on": "saki", "amount": 500}, {"player": "bob", "on": "ato", "amount": 5}]},
     "player 'ann' stakes 500 on 'saki', above the house's max_bet 10"),
    ({"game": "atosaki", "house": {"tie_rule": "carry_over"},
      "bets": [{"player": "ann", "on": "saki", "amount": 6e11}]}, "a tie would carry a pot of 1200000000000"),
])
def test_equalise_refuses_the_bets_the_round_would_be_refused_for(capsys, monkeypatch, round_, message):
    # it told the dealer to add 495 chips, or that a player on both sides was "equal": the round was
    # refused only once its cards were shown
    code, out, err = run(capsys, "--equalise", "-", stdin=json.dumps(round_), monkeypatch=monkeypatch)
    assert code == 2 and out == "" and err.startswith(f"hanadealer settle: {message}")


BAD = [
    # id, stdin text, start of the one stderr line
    ("not JSON", "{game: batta-maki}", "standard input is not valid JSON: Expecting property name"),
    ("empty input", "", "standard input is not valid JSON"),
    ("duplicate key", '{"game": "batta-maki", "game": "hankan"}', "key 'game' appears twice in one object"),
    ("NaN", '{"game": "batta-maki", "carry": NaN}', "NaN is not a number a round may contain"),
    ("missing field", json.dumps({"game": "hankan", "bets": []}), "missing field 'rows'"),
    ("unknown card", json.dumps(dict(GOOD, rows={"saki": ["pine-crane", "plum-warbler", "sakura"],
                                                 "ato": GOOD["rows"]["ato"]})),
     "unknown card 'sakura' in row 'saki' (card 3)"),
    ("bad bet", json.dumps(dict(GOOD, bets=[{"player": "a", "on": "ato", "amount": -1}])),
     "bet 1 amount must be a positive number, not -1"),
    ("equalise for a game without it", json.dumps({"game": "hankan", "bets": []}), "hankan does not equalise bets"),
]


@pytest.mark.parametrize("text, message", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_input_is_one_line_and_status_2(capsys, monkeypatch, text, message):
    argv = ["--equalise", "-"] if "equalise" in message else ["-"]
    code, out, err = run(capsys, *argv, stdin=text, monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    assert err.startswith("hanadealer settle: " + message)
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_file(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "nope.json"))
    assert code == 2 and err == f"hanadealer settle: cannot read {tmp_path / 'nope.json'}: No such file or directory\n"


def test_not_utf8(capsys, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"game": "café"}'.encode("latin-1"))
    code, _, err = run(capsys, str(path))
    assert code == 2 and err == f"hanadealer settle: {path} is not UTF-8 text\n"


def test_a_device_or_a_huge_file_is_refused_without_reading_it_all(capsys, tmp_path, monkeypatch):
    # /dev/zero named by mistake filled the memory until the process was killed
    import dealer.cli as dealer_cli
    monkeypatch.setattr(dealer_cli, "MAX_ROUND_BYTES", 2 ** 20)
    code, _, err = run(capsys, "/dev/zero")
    assert code == 2 and err == "hanadealer settle: /dev/zero is larger than 1 MB: no round document is (is it the file meant?)\n"
    big = tmp_path / "big.json"
    big.write_text('{"game": "batta-maki", "note": "' + "x" * 2 ** 20 + '"}')
    code, _, err = run(capsys, str(big))
    assert code == 2 and "is larger than 1 MB" in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(big.read_bytes()), encoding="utf-8"))
    assert main(["settle", "-"]) == 2
    assert "standard input is larger than 1 MB" in capsys.readouterr().err
    # (a file of the most it may hold is read)
    near = tmp_path / "near.json"
    near.write_text(" " * (2 ** 20 - 3) + "{}\n")
    code, _, err = run(capsys, str(near))
    assert "larger than" not in err


def test_game_of_a_missing_module_is_a_clear_error(capsys, monkeypatch):
    from dealer import games
    monkeypatch.setitem(games._MODULES, "batta-maki", "dealer.games.no_such_module")
    code, _, err = run(capsys, "-", stdin=json.dumps(GOOD), monkeypatch=monkeypatch)
    assert code == 2 and err.startswith("hanadealer settle: this game is not available:")
    assert err.count("\n") == 1


def test_a_defect_is_one_line_too(capsys, monkeypatch):
    import dealer.cli
    monkeypatch.setattr(dealer.cli, "settle_round", lambda r: {}["boom"])
    code, _, err = run(capsys, "-", stdin=json.dumps(GOOD), monkeypatch=monkeypatch)
    assert code == 1 and err == "hanadealer settle: internal error (KeyError: 'boom')\n"


ALL_EXAMPLES = sorted(p.stem for p in EXAMPLES.glob("*.json") if not p.name.endswith(".out.json"))


@pytest.mark.parametrize("name", ALL_EXAMPLES)
def test_settle_command_prints_every_documented_output(name, capsys):
    code, out, err = run(capsys, str(EXAMPLES / f"{name}.json"))
    assert code == 0, err
    assert json.loads(out) == json.loads((EXAMPLES / f"{name}.out.json").read_text())


@pytest.mark.parametrize("name", ["batta-maki", "hankan"])
def test_console_command_on_the_readme_examples(name):
    """The command as the README shows it, in a fresh process."""
    done = subprocess.run([sys.executable, "-m", "hanadealer", "settle", f"docs/examples/{name}.json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads((EXAMPLES / f"{name}.out.json").read_text())


def test_console_command_bad_input_has_no_traceback():
    done = subprocess.run([sys.executable, "-m", "hanadealer", "settle", "-"], input='{"game": "mahjong"}',
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("hanadealer settle: unknown game 'mahjong'") and done.stderr.count("\n") == 1


def test_readme_shows_the_examples_as_they_settle():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Settling a round: `hanadealer settle`"):]
    for name in ("batta-maki.json", "hankan.json", "hankan.out.json"):
        assert (EXAMPLES / name).read_text().strip() in section, name
    out = json.loads((EXAMPLES / "batta-maki.out.json").read_text())
    for key in ("winner", "scores", "equalise", "fee", "net", "carry_in", "carry"):
        assert f'"{key}": {json.dumps(out[key])}' in section, key


def test_readme_shows_an_error_line_as_it_is_printed(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = next(line.strip() for line in readme.splitlines() if "unknown card 'pine-cran'" in line)
    doc = json.loads((EXAMPLES / "batta-maki.json").read_text())
    doc["rows"]["saki"][0] = "pine-cran"
    (tmp_path / "round.json").write_text(json.dumps(doc))
    done = subprocess.run([sys.executable, "-m", "hanadealer", "settle", str(tmp_path / "round.json")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.stderr.strip() == shown


def test_game_that_is_not_a_name_is_bad_input():
    from dealer.games import RoundError, settle_round
    with pytest.raises(RoundError, match="unknown game"):
        settle_round({"game": ["otoroku"]})


def _doc(name, **changes):
    doc = json.loads((EXAMPLES / f"{name}.json").read_text())
    doc.update(changes)
    return doc


def _kakeya_off_suit():
    doc = _doc("kakeya-toranpu")
    doc["tricks"][1] = ["2S", "2C", "KH", "KD"]  # dan leads a spade; ann holds spades but plays her club
    return doc


# the requirements' list of bad input, each through the command: status 2, one line on stderr, nothing on stdout
REQUIRED_BAD_INPUT = [
    ("unknown card", _doc("hankan", rows={**_doc("hankan")["rows"], "oto-e": ["willow-ribon", "pine-crane",
                                                                              "cherry-curtain"]}),
     "unknown card 'willow-ribon' in row 'oto-e' (card 1) (did you mean willow-ribbon"),
    ("row of the wrong size", _doc("atosaki", rows={"saki": ["pine-crane"], "ato": _doc("atosaki")["rows"]["ato"]}),
     "row 'saki' must have 3 cards, not 1"),
    ("card not in the game's deck", _doc("hankan", rows={**_doc("hankan")["rows"],
                                                         "oto-e": ["paulownia-chaff-1", "pine-crane", "cherry-curtain"]}),
     "card 'paulownia-chaff-1' in row 'oto-e' (card 1) is not in the deck of hankan"),
    ("card dealt twice with one deck", _doc("batta-maki", rows={"saki": ["pine-crane", "pine-crane", "plum-warbler"],
                                                                "ato": _doc("batta-maki")["rows"]["ato"]}),
     "card 'pine-crane' is dealt more than once"),
    ("bet on a row that does not exist", _doc("shoniban", bets=[{"player": "a", "on": "saki", "amount": 5}]),
     "bet 1 is on 'saki', which does not exist in this game"),
    ("bet that is not a positive number", _doc("echobo", bets=[{"player": "a", "on": 3, "amount": "10"}]),
     "bet 1 amount must be a positive number, not '10'"),
    ("illegal card in a trick", _kakeya_off_suit(), "trick 2: ann plays 2C but must follow spades (holds 10S, 3S,"),
    ("missing field", {k: v for k, v in _doc("otoroku").items() if k != "share"}, "missing field 'share'"),
    ("unknown house option", _doc("kabu-tsukuri", house={"tie_rule": "push"}),
     "unknown house option 'tie_rule' for kabu-tsukuri"),
]


@pytest.mark.parametrize("round_, message", [c[1:] for c in REQUIRED_BAD_INPUT], ids=[c[0] for c in REQUIRED_BAD_INPUT])
def test_every_kind_of_bad_input_the_requirements_list(capsys, monkeypatch, round_, message):
    code, out, err = run(capsys, "-", stdin=json.dumps(round_), monkeypatch=monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith("hanadealer settle: " + message), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_stdin_that_is_not_utf8_and_numbers_too_long_are_bad_input(monkeypatch, capsys):
    # bytes that are not UTF-8 were let through and blamed on the JSON; an integer of 5,000 digits
    # was an "internal error" with another exit status
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"game": "batta-maki", "rows": \xff}'),
                                                       encoding="utf-8", errors="surrogateescape"))
    assert main(["settle", "-"]) == 2
    assert "standard input is not UTF-8 text" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"game": ' + "9" * 5000 + "}"))
    assert main(["settle", "-"]) == 2
    assert "standard input holds a number too long to read" in capsys.readouterr().err


@pytest.mark.parametrize("number, message", [
    ("999999999999.999999", "the number 999999999999.999999 has more digits than can be read exactly"),
    ("12345678901.1234567", "the number 12345678901.1234567 has more digits than can be read exactly"),
    ("1e400", "the number 1e400 is too large to read (an amount is at most 1000000000000)"),
    ("1e-400", "the number 1e-400 is too small to read (an amount is at least 0.000001)"),
])
def test_an_amount_a_float_cannot_hold_as_written_is_refused(capsys, monkeypatch, number, message):
    # read as floats, 999999999999.999999 was settled as 10^12 and 12345678901.1234567 (7 decimals)
    # as 12345678901.123457; 1e400 was said "not inf"
    text = json.dumps(GOOD).replace('"amount": 30', '"amount": ' + number)
    code, out, err = run(capsys, "-", stdin=text, monkeypatch=monkeypatch)
    assert (code, out) == (2, "") and err.startswith("hanadealer settle: standard input: " + message), err


@pytest.mark.parametrize("number, paid", [("0.1", 0.1), ("999999999999.5", 999999999999.5), ("2.50", 2.5),
                                          ("3e1", 30), ("1.000000", 1)])
def test_an_amount_written_with_an_exponent_or_trailing_zeros_is_read(capsys, monkeypatch, number, paid):
    text = json.dumps(GOOD).replace('"amount": 30', '"amount": ' + number)
    code, out, err = run(capsys, "-", stdin=text, monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["net"]["ann"] == paid, err


def test_a_result_that_cannot_be_written_is_one_line(monkeypatch, capsys):
    class Full(io.StringIO):
        def write(self, text):
            raise OSError(28, "No space left on device")
    monkeypatch.setattr(sys, "stdout", Full())
    assert main(["settle", str(EXAMPLES / "atosaki.json")]) == 2
    assert "cannot write the result: No space left on device" in capsys.readouterr().err



def test_stdin_closed_is_bad_input_in_one_line(monkeypatch, capsys):
    # an "internal error" (status 1) before: sys.stdin is None when the process starts with it closed
    import sys
    monkeypatch.setattr(sys, "stdin", None)
    assert main(["settle", "-"]) == 2
    assert "cannot read standard input: it is closed" in capsys.readouterr().err


def test_a_reader_that_goes_away_is_no_error(monkeypatch, capsys):
    # `settle ... | head`: some runs ended with status 2 and "cannot write the result: Broken pipe",
    # where every other command takes the reader gone as no error of its own
    class Gone(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            return devnull

    import os
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        monkeypatch.setattr(sys, "stdout", Gone())
        assert main(["settle", str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "atosaki.json")]) == 0
    finally:
        os.close(devnull)
    assert capsys.readouterr().err == ""


def test_a_round_file_saved_with_a_byte_order_mark_is_read(capsys, tmp_path):
    # "UTF-8 with BOM", as Windows editors save, was refused: "Unexpected UTF-8 BOM (decode using utf-8-sig)"
    example = Path(__file__).resolve().parents[1] / "docs" / "examples" / "batta-maki.json"
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + example.read_bytes())
    code, out, err = run(capsys, str(path))
    assert code == 0 and err == "" and json.loads(out)["game"] == "batta-maki"


def test_a_file_name_that_is_not_utf8_is_said_with_its_byte_escaped(tmp_path, capsys):
    # it was written with Python's stand-in, caf\udce9, where recognise wrote caf\xe9
    import os
    odd = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.json")
    Path(odd).write_text("{")
    code, _, err = run(capsys, odd)
    assert code == 2 and "caf\\xe9.json is not valid JSON" in err and "udce9" not in err
