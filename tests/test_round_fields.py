"""A round file's fields: each game reads a known set, and any other field is refused with a line that
names it (and the field likely meant), so a misspelt fee, pot or showdown is never silently left out."""
import json
from pathlib import Path

import pytest

from dealer.games import GAME_NAMES, RoundError, settle_round
from hanadealer.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def example(game: str) -> dict:
    return json.loads((EXAMPLES / f"{game}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_field_the_game_does_not_read_is_refused_by_name(game):
    round_ = example(game)
    settle_round(round_)  # the documented example itself is fine
    with pytest.raises(RoundError, match=r"unknown field 'remarks' in a .* round; its fields are: game, house"):
        settle_round({**round_, "remarks": "late deal"})


BETS = [{"player": "a", "on": "saki", "amount": 10}, {"player": "b", "on": "ato", "amount": 10}]
ROWS = {"saki": ["pine-crane", "plum-chaff-1", "cherry-chaff-1"],  # 1 + 2 + 3: 6
        "ato": ["wisteria-chaff-1", "iris-chaff-1", "peony-chaff-1"]}  # 4 + 5 + 6: 5


@pytest.mark.parametrize("round_, field, meant", [
    # a house fee misspelt: b would be paid 10 instead of 9, the dealer's fee lost
    ({"game": "batta-maki", "bets": BETS, "rows": ROWS, "hosue": {"fee_model": "percent"}}, "hosue", "house"),
    ({"game": "batta-maki", "bets": BETS, "rows": ROWS, "House": {"fee_model": "percent"}}, "House", "house"),
    # the pot carried in, under the name the result gives it: the 30 would be lost
    ({"game": "atosaki", "bets": BETS, "rows": ROWS, "carry_in": 30}, "carry_in", "carry"),
    # the dealer's choice of whom to show down with, misspelt: everyone would be settled
    ({"game": "otoroku", "seats": ["a", "b"], "share": 1, "choosen": ["a"],
      "hands": {"a": ["pine-crane", "plum-warbler"], "dealer": ["maple-chaff-1", "pine-chaff-1"]}},
     "choosen", "chosen"),
])
def test_a_misspelt_field_names_the_field_meant(round_, field, meant):
    with pytest.raises(RoundError, match=f"unknown field '{field}' .*did you mean '{meant}'"):
        settle_round(round_)
    fixed = {(meant if k == field else k): v for k, v in round_.items()}
    settle_round(fixed)  # spelt right, the same round settles


def test_settle_cli_refuses_a_misspelt_field_with_one_line(tmp_path, capsys):
    path = tmp_path / "round.json"
    path.write_text(json.dumps({"game": "batta-maki", "bets": BETS, "rows": ROWS, "hosue": {"fee_model": "percent"}}))
    assert main(["settle", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "unknown field 'hosue'" in err and "did you mean 'house'" in err
    assert len(err.strip().splitlines()) == 1


def test_a_name_with_spaces_at_its_ends_is_refused_not_taken_for_another_person():
    # 'a' on saki and 'a ' on ato were two bettors: one person on both sides, her balance split
    bets = [{"player": "a", "on": "saki", "amount": 1}, {"player": "a ", "on": "ato", "amount": 1}]
    with pytest.raises(RoundError, match="bet 2: player 'a ' has spaces at its ends: write it 'a'"):
        settle_round({"game": "batta-maki", "bets": bets, "rows": ROWS})
    bets[1]["player"] = "a"
    with pytest.raises(RoundError, match="both"):  # written right, it is the one-side rule that refuses it
        settle_round({"game": "batta-maki", "bets": bets, "rows": ROWS})


@pytest.mark.parametrize("game, field", [("otoroku", "seats"), ("kakeya-toranpu", "players")])
def test_a_seat_or_player_list_name_with_spaces_at_its_ends_is_refused(game, field):
    round_ = example(game)
    round_[field] = [round_[field][0] + " ", *round_[field][1:]]
    with pytest.raises(RoundError, match="has spaces at its ends"):
        settle_round(round_)
