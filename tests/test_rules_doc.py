"""The rule engine's documentation (docs/rules.md) of Otoroku, Kabu-Tsukuri, Echobo and Kakeya Toranpu shows each example round
and its output exactly as in docs/examples (which tests/test_examples.py settles)."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["otoroku", "kabu-tsukuri", "echobo", "kakeya-toranpu"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("suffix", [".json", ".out.json"])
def test_readme_shows_the_example(game, suffix):
    readme = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    example = (ROOT / "docs" / "examples" / f"{game}{suffix}").read_text(encoding="utf-8")
    assert "```json\n" + example + "```" in readme
