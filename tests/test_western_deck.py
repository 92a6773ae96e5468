"""The procedurally drawn western deck of the demo (no outside image)."""
import numpy as np
import pytest

from dealer.western import UnknownWesternCardError, western_ids
from datasets.western_deck import BACK, render_western_card, western_demo_deck


def test_the_deck_has_52_faces_and_a_back_of_the_right_size():
    deck = western_demo_deck()
    assert set(deck) == set(western_ids()) | {BACK} and len(deck) == 53
    for key, img in deck.items():
        assert img.shape == (352, 252, 3) and img.dtype == np.uint8, key  # 63:88


def test_no_two_cards_look_alike():
    # two cards differ clearly (by more than a quarter of the range) on at least 0.2% of their pixels (a two of clubs and one of spades differ in two small shapes)
    deck = western_demo_deck(176)
    keys = sorted(deck)
    flat = np.stack([deck[k].astype(np.int16).reshape(-1, 3) for k in keys])
    for i, key in enumerate(keys[:-1]):
        differs = (np.abs(flat[i + 1:] - flat[i]).max(axis=2) > 64).mean(axis=1)
        j = int(differs.argmin())
        assert differs[j] > 0.002, f"{key} and {keys[i + 1 + j]} look alike"


def test_suits_have_their_colours_and_the_deck_is_deterministic():
    def red_share(img):
        b, g, r = (img[..., k].astype(int) for k in range(3))
        return float(((r > 150) & (g < 90) & (b < 90)).mean())
    assert red_share(render_western_card("AH")) > 0.03 and red_share(render_western_card("7D")) > 0.03
    assert red_share(render_western_card("AS")) == 0 and red_share(render_western_card("7C")) == 0
    assert np.array_equal(render_western_card("QH", 200), render_western_card("QH", 200))
    assert render_western_card("10S", 100).shape == (100, 72, 3)


def test_bad_ids_and_heights_are_named():
    with pytest.raises(UnknownWesternCardError, match="1H"):
        render_western_card("1H")
    with pytest.raises(ValueError, match="height"):
        render_western_card("AS", 8)
    with pytest.raises(ValueError, match="height"):
        render_western_card("AS", 100.5)
