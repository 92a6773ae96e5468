"""Every documented round example (docs/examples/<name>.json) settles to its documented output
(<name>.out.json), so the documentation cannot drift from the engine."""
import json
from pathlib import Path

import pytest

from dealer.games import GAME_NAMES, settle_round

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
CASES = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".out.json"))


@pytest.mark.parametrize("example", CASES, ids=[p.stem for p in CASES])
def test_example_settles_to_documented_output(example):
    expected = json.loads(example.with_name(example.stem + ".out.json").read_text())
    assert settle_round(json.loads(example.read_text())) == expected


def test_every_game_has_an_example():
    games = {json.loads(p.read_text())["game"] for p in CASES}
    assert [g for g in GAME_NAMES if g not in games] == []


@pytest.mark.parametrize("example", CASES, ids=[p.stem for p in CASES])
def test_results_have_the_keys_the_requirements_name(example):
    """winner, scores, net everywhere; carry for Kabu-Tsukuri and the Atosaki family's carry-over."""
    round_ = json.loads(example.read_text())
    out = settle_round(round_)
    assert {"winner", "scores", "net"} <= set(out)
    if round_["game"] in ("kabu-tsukuri", "batta-maki", "atosaki", "koikoi-atosaki", "mutsu-wari"):
        assert "carry" in out


@pytest.mark.parametrize("example", CASES, ids=[p.stem for p in CASES])
def test_a_results_house_can_be_the_next_rounds_house(example):
    # the echo listed fee_rate beside another fee model and tie_fallback beside a tie rule that never
    # falls back: fed back as the next round's house rules, the engine refused them
    round_ = json.loads(example.read_text())
    out = settle_round(round_)
    assert settle_round({**round_, "house": out["house"]}) == out


@pytest.mark.parametrize("house, left_out", [
    ({"fee_model": "none", "tie_rule": "push"}, {"fee_rate", "tie_fallback"}),
    ({"fee_model": "percent", "fee_rate": 0.05, "tie_rule": "card_points", "tie_fallback": "carry_over"}, set()),
    ({"fee_model": "buta_han", "tie_rule": "raw_total"}, {"fee_rate"}),
])
def test_a_results_house_leaves_out_only_the_options_that_did_nothing(house, left_out):
    round_ = json.loads((EXAMPLES / "batta-maki.json").read_text())
    echoed = settle_round({**round_, "house": house})["house"]
    assert {"fee_rate", "tie_fallback"} - set(echoed) == left_out
    assert {k: echoed.get(k) for k in house if k not in left_out} == {k: v for k, v in house.items() if k not in left_out}
