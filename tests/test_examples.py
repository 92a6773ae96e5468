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
