"""Every game's house options and their defaults, written out from RULES.md (§10, §3.7, §4.4, §11) and
the engine's requirements ("defaults are the base rules without a house fee ... Batta Maki ties push, Atosaki ties
card_points, and otherwise §10"), not read back from the code. Also: every value they name for an
option is accepted, and a value they do not name is refused."""
import pytest

from dealer.games import GAME_NAMES, RoundError, get_game

NO_LIMITS = {"min_bet": None, "max_bet": None}               # §3.1: wager limits are unattested
FAMILY_FEE = {"fee_model": "none", "fee_rate": 0.1}           # the requirements: no house fee by default; §3.1 rate 10%
# §3.1 "the dealer puts his own stake on the lighter side"; §10 A5: the dealer tops up in Atosaki too
TOPS_UP = {"equalise": "dealer_tops_up"}
# §3.1's banker formula; §3.2 Atosaki "the spectators who bet on the winning set take all the bets
# and split them" (the same with equal sides)
BANKER, PARIMUTUEL = {"settlement": "banker"}, {"settlement": "parimutuel"}

DEFAULTS = {
    # §10 A1: tie push; §3.2 card points are the Hana-awase 20/10/5/1
    "batta-maki": {"deck_count": 1, **FAMILY_FEE, "tie_rule": "push", "tie_fallback": "push",
                   "card_points_table": "standard", **TOPS_UP, **BANKER, **NO_LIMITS},
    # the requirements: Atosaki ties card_points; §10 A5 fee none
    "atosaki": {**FAMILY_FEE, "tie_rule": "card_points", "tie_fallback": "push", "card_points_table": "standard",
                **TOPS_UP, **PARIMUTUEL, **NO_LIMITS},
    # §3.3: identical to Atosaki
    "koikoi-atosaki": {**FAMILY_FEE, "tie_rule": "card_points", "tie_fallback": "push",
                       "card_points_table": "standard", **TOPS_UP, **PARIMUTUEL, **NO_LIMITS},
    # §10 A9: Batta Maki on 40 cards
    "mutsu-wari": {"deck_count": 1, **FAMILY_FEE, "tie_rule": "push", "tie_fallback": "push",
                   "card_points_table": "standard", **TOPS_UP, **BANKER, **NO_LIMITS},
    # §10 A8: Hon-Bana card points; Hankan's half-cash is its rule, not a fee option
    "hankan": {"card_points_table": "honbana", **NO_LIMITS},
    # §3.6 bets must be equal, §10 A5 the dealer tops up, fee none
    "shoniban": {"card_points_table": "honbana", **TOPS_UP, **FAMILY_FEE, **NO_LIMITS},
    # §4.4 / §10 O1-O5: no multipliers, dealer max 5 cards, dealer bust 16, Goshita Gomai > 16, ties push
    "otoroku": {"teyaku_multipliers": False, "fee_model": "none", "fee_rate": 0.1, "dealer_max_cards": 5,
                "dealer_bust_limit": 16, "dealer_bust_settlement": "pay_survivors",
                "goshita_vs_16": "goshita_higher", "deck": "hanafuda",
                "teyaku_tie": "push"},
    # §10 K1: the §5.2 3-card list; §6 the 48-card deck; §10 K3 the dealer rotates counter-clockwise
    "kabu-tsukuri": {"ranking": "extended", "deck": "hanafuda", "next_dealer": "rotate_ccw"},
    # the requirements: profit 5; §7.1 max 4 cards; §10 E1 fixed stake per card
    "echobo": {"profit": 5, "max_cards": 4, "bet_mode": "fixed_per_card", "bet_size": None, "bet_limit": None,
               "deck_count": 1},
    # §8 spades trumps by default; §10 KT3 Rensho; §10 KT1 aces dealt
    "kakeya-toranpu": {"default_trump": "S", "rensho_rule": "standard", "ace_basis": "dealt", "stones_per_pair": 5},
}


def test_every_game_is_listed():
    assert sorted(DEFAULTS) == sorted(GAME_NAMES)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_defaults(game):
    assert get_game(game).resolve_house({}) == DEFAULTS[game]
    assert get_game(game).resolve_house(None) == DEFAULTS[game]


FAMILY = ("batta-maki", "atosaki", "koikoi-atosaki", "mutsu-wari")
# (games, option, values the requirements name (all accepted), values refused)
VALUES = [
    (FAMILY, "fee_model", ["none", "percent", "buta_han"], ["fixed", "", None, 0]),
    (("shoniban", "otoroku"), "fee_model", ["none", "percent"], ["buta_han"]),
    (("batta-maki", "mutsu-wari"), "deck_count", [1, 2], [0, 3, "2", 1.5, True]),
    (("echobo",), "deck_count", [1, 2, 3], [0, 4, "2", 1.5, True]),  # (§6: more decks, more bettors)
    (FAMILY, "tie_rule", ["push", "dealer_takes_all", "redraw", "card_points", "raw_total", "carry_over"],
     ["coin", None]),
    (FAMILY + ("hankan", "shoniban"), "card_points_table", ["standard", "honbana"], ["tensho"]),
    (FAMILY, "settlement", ["banker", "parimutuel"], ["pari-mutuel", "bank", None]),
    (("otoroku",), "teyaku_multipliers", [True, False], ["yes", 1, 0, None]),
    (("echobo",), "profit", [5, 4.5, 4.6], [4, 6, "5", True, None]),
    (("echobo",), "max_cards", [1, 4, 6], [0, 7, 2.5, "4", True]),
]


@pytest.mark.parametrize("games, option, good, bad", VALUES, ids=[f"{v[1]}:{v[0][0]}" for v in VALUES])
def test_option_values(games, option, good, bad):
    for game in games:
        g = get_game(game)
        for value in good:
            house = {option: value}
            if option == "fee_model" and value == "percent":
                house["fee_rate"] = 0.1
            assert g.resolve_house(house)[option] == value
        for value in bad:
            with pytest.raises(RoundError, match=f"house option '{option}' cannot be"):
                g.resolve_house({option: value})


@pytest.mark.parametrize("game", GAME_NAMES)
def test_an_unknown_option_is_an_error(game):
    with pytest.raises(RoundError, match=f"unknown house option 'no_such_option' for {game}"):
        get_game(game).resolve_house({"no_such_option": 1})


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_house_option_says_what_it_does(game):
    # the Settings page shows each option's doc beside it: Otoroku's dealer_bust_limit and fee_model,
    # and Echobo's bet_mode, showed none (and dealer_max_cards only its range), so 16 or 17 was a guess
    for option in get_game(game).options:
        doc = option.doc or ""
        assert doc.strip(), f"{game}: {option.name} has no doc"
        assert ":" in doc or len(doc.split()) >= 4, f"{game}: {option.name}'s doc says only {doc!r}"
