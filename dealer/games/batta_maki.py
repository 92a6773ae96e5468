"""The Batta Maki family (RULES.md §3.1-3.4): Batta Maki, Atosaki, Koi-Koi no Atosaki, Mutsu-wari.

Two face-down sets, Saki 先 (dealt first, on the dealer's side) and Ato 後 (on the players' side). Each
player bets on one of them; the dealer tops the lighter side up so the stakes are equal. A set scores
the ones digit of the sum of its month values; the higher score wins. The games differ in the deck,
the value map, the set size, the house fee and what happens on a tie.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

from dealer.cards import Card, all_cards, get_card
from dealer.equalise import Equalisation, equalise
from dealer.games import Game, HouseOption, RoundError, ZoneSpec, exact_amounts, to_json_amount
from dealer.games.common import FEE_RATE_OPTION, check_fee_rate_applies, house_as_played, parse_bets, percent_fee
from dealer.games.row_games import (WAGER_LIMIT_OPTIONS, Settlement, amounts, check_pot_can_carry,
                                    check_wager_limits, may_carry, parse_carry, parse_rows, players_json, refuse_fields,
                                    settle_carry_over, settle_dealer_takes_all, settle_pot, settle_push,
                                    stakes_by_player)

SIDES = ("saki", "ato")
TIE_RULES = ("push", "dealer_takes_all", "redraw", "card_points", "raw_total", "carry_over")
# RULES.md §3.7 equalize (required|encouraged|none) with dealer_tops_up, as one option: the dealer
# tops up (the default, §3.1), the players must equalise, or the sides stay unequal (the dealer urging
# bets on the lighter side or not) and he covers the difference as banker
EQUALISE_MODES = ("dealer_tops_up", "required", "encouraged", "none")
# what a tie still unbroken by card points or raw totals becomes (not stated in the rules: push)
TIE_FALLBACKS = ("push", "dealer_takes_all", "carry_over")
# RULES.md §3.7 settlement (banker|parimutuel): what a win pays where the sides stay unequal (equalise
# encouraged or none; with equal sides the two are the same). banker: the dealer covers the
# difference and each winner is paid 1:1 (§3.1's formula); parimutuel: the winners split the losing
# stakes pro rata (§3.2's `payout_b = stake_b + stake_b/ΣW · ΣL`, Atosaki's default)
SETTLEMENTS = ("banker", "parimutuel")


# --- values and scores -----------------------------------------------------------------------

def standard_value(card: Card) -> int:
    """Batta Maki: the standard month, 1..12 (§1.2)."""
    return card.month


def atosaki_value(card: Card) -> int:
    """Atosaki, Koi-Koi no Atosaki: the standard month, but November and December count 10."""
    return min(card.month, 10)


def mutsu_wari_value(card: Card) -> int:
    """Mutsu-wari: 40 cards, months 1..10 (October = 10 scores 0)."""
    return card.month


def card_points(card: Card, table: str) -> int:
    """Hana-awase points 20/10/5/1 ('standard') or Hon-Bana points 30/20/10/5/0 ('honbana').
    Hon-Bana has no value for the three Paulownia chaff (its deck drops them): they count 0, as chaff."""
    if table == "standard":
        return card.std_points
    return card.honbana_points or 0


@dataclass(frozen=True)
class RowScore:
    cards: tuple[str, ...]
    values: tuple[int, ...]
    total: int          # raw total of the month values
    score: int          # its ones digit: 9 best, 0 (buta) worst
    card_points: int

    def to_json(self) -> dict:
        return {"cards": list(self.cards), "values": list(self.values), "total": self.total,
                "score": self.score, "card_points": self.card_points}


def score_row(cards: Sequence[str], value: Callable[[Card], int], points_table: str = "standard") -> RowScore:
    """Score one set: the sum of its month values mod 10. The order of the cards does not matter."""
    resolved = [get_card(c) for c in cards]
    values = tuple(value(c) for c in resolved)
    total = sum(values)
    return RowScore(tuple(cards), values, total, total % 10,
                    sum(card_points(c, points_table) for c in resolved))


# --- deciding the winner ---------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    winner: str | None            # 'saki', 'ato', or None on a tie no method broke
    decided_by: str | None        # 'score', 'card_points', 'raw_total', 'redraw'; None for a tie
    tie_result: str | None        # for an unbroken tie: 'push', 'dealer_takes_all', 'carry_over', 'pending'
    tie_break: dict | None        # what the tie-break compared (for the dealer to read)


def _higher(a: int, b: int) -> str | None:
    return "saki" if a > b else "ato" if b > a else None


def decide(scores: Mapping[str, RowScore], house: Mapping[str, Any], value: Callable[[Card], int],
           redraws: list[dict[str, str]], deck_exhausted: bool) -> Outcome:
    """Higher ones digit wins; a tie goes to the house's tie rule (§3.1 tie, §3.2 tie methods, §10 A4)."""
    saki, ato = scores["saki"], scores["ato"]
    winner = _higher(saki.score, ato.score)
    rule = house["tie_rule"]
    if winner is not None:
        if redraws:
            raise RoundError("'redraws' is given but the sets are not tied")
        if deck_exhausted:
            raise RoundError("'deck_exhausted' is true but the sets are not tied")
        return Outcome(winner, "score", None, None)
    if redraws and rule != "redraw":
        raise RoundError(f"'redraws' is given but the tie rule is {rule!r}, not 'redraw'")
    if rule in ("push", "dealer_takes_all", "carry_over"):
        return Outcome(None, None, rule, None)
    if rule in ("card_points", "raw_total"):
        if rule == "card_points":
            a, b = saki.card_points, ato.card_points
        else:
            a, b = saki.total, ato.total
        winner = _higher(a, b)
        tie_break = {"method": rule, "values": {"saki": a, "ato": b}}
        if rule == "card_points":
            tie_break["table"] = house["card_points_table"]
        if winner is not None:
            return Outcome(winner, rule, None, tie_break)
        tie_break["then"] = house["tie_fallback"]
        return Outcome(None, None, house["tie_fallback"], tie_break)
    # redraw: one card is drawn onto each set and the sets are rescored, as often as it stays tied
    totals = {"saki": saki.total, "ato": ato.total}
    steps = []
    for i, pair in enumerate(redraws):
        for side in SIDES:
            totals[side] += value(get_card(pair[side]))
        step = {"cards": {s: pair[s] for s in SIDES}, "scores": {s: totals[s] % 10 for s in SIDES}}
        steps.append(step)
        winner = _higher(totals["saki"] % 10, totals["ato"] % 10)
        if winner is not None:
            if i != len(redraws) - 1:
                raise RoundError(f"'redraws' has {len(redraws)} draws but the tie was broken by draw {i + 1}")
            if deck_exhausted:
                raise RoundError(f"'deck_exhausted' is true but the tie was broken by draw {i + 1}")
            return Outcome(winner, "redraw", None, {"method": "redraw", "draws": steps})
    if deck_exhausted:
        # §10 A4: a redraw still tied when the deck runs out carries the pot over
        return Outcome(None, None, "carry_over", {"method": "redraw", "draws": steps, "then": "carry_over"})
    return Outcome(None, None, "pending", {"method": "redraw", "draws": steps,
                                           "next": "draw one card onto each set and add the pair to 'redraws' "
                                                   "(or set 'deck_exhausted' to true if the deck has run out)"})


def _parse_redraws(round_: Mapping[str, Any]) -> list[dict[str, str]]:
    raw = round_.get("redraws", [])
    if not isinstance(raw, list):
        raise RoundError(f"field 'redraws' must be a list of {{\"saki\": card, \"ato\": card}}, not {raw!r}")
    for i, pair in enumerate(raw):
        if not isinstance(pair, Mapping) or set(pair) != set(SIDES):
            raise RoundError(f"redraw {i + 1} must be an object with exactly the keys 'saki' and 'ato'")
    return [dict(p) for p in raw]


def _deck_exhausted(round_: Mapping[str, Any]) -> bool:
    value = round_.get("deck_exhausted", False)
    if not isinstance(value, bool):
        raise RoundError(f"field 'deck_exhausted' must be true or false, not {value!r}")
    return value


# --- fees ------------------------------------------------------------------------------------

def fee_rate_for(house: Mapping[str, Any], losing: RowScore | None) -> Fraction:
    """The share of a winning player's profit the dealer keeps. 'buta_han' (§3.1 local rule, §10 A2):
    half, only when the losing set's dealt total has ones digit 0 (a buta: 10, 20, 30...)."""
    if house["fee_model"] == "buta_han":
        return Fraction(1, 2) if losing is not None and losing.score == 0 else Fraction(0)
    return percent_fee(house)


# --- the round -------------------------------------------------------------------------------

def equalisation_json(eq: Equalisation) -> dict:
    return {"totals": amounts(eq.totals), "lighter_side": eq.lighter_side,
            "difference": to_json_amount(eq.difference), "dealer_adds": to_json_amount(eq.dealer_adds),
            "dealer_side": eq.dealer_side}


def check_equalised(eq: Equalisation, house: Mapping[str, Any]) -> None:
    if house["equalise"] == "required" and not eq.equal:
        t = eq.totals
        sides = list(t)
        raise RoundError(f"bets are not equal ({sides[0]} {to_json_amount(t[sides[0]])}, {sides[1]} "
                         f"{to_json_amount(t[sides[1]])}) and the house requires equal bets")


@dataclass(frozen=True)
class PlayedRound:
    """Everything a settled round of a row game holds, exact (the JSON result is made from it)."""
    game: str
    house: Mapping[str, Any]
    rows: Mapping[str, Any]        # row name -> RowScore (or SetScore)
    outcome: Outcome
    equalisation: Equalisation | None
    stakes: Mapping[str, tuple[str, Fraction]]
    settlement: Settlement


def check_tie_fallback_applies(round_: Mapping[str, Any], house: Mapping[str, Any]) -> None:
    """A ``tie_fallback`` given with a tie rule that never falls back would do nothing: a house meaning
    "ties carry over" written there pushed every tie. Refused, never ignored."""
    given = round_.get("house") or {}
    if "tie_fallback" in given and house.get("tie_rule") not in ("card_points", "raw_total"):
        raise RoundError(f"house option 'tie_fallback' needs tie_rule 'card_points' or 'raw_total' (tie_rule "
                         f"is {house.get('tie_rule')!r}: set it to {given['tie_fallback']!r} if that is what a tie does)")


def play_family(game: "FamilyGame", round_: Mapping[str, Any], house: Mapping[str, Any]) -> PlayedRound:
    check_fee_rate_applies(round_, house)
    check_tie_fallback_applies(round_, house)
    bets = parse_bets(round_, SIDES)
    stakes = stakes_by_player(bets)
    check_wager_limits(stakes, house)
    if house["tie_rule"] != "redraw":
        refuse_fields(round_, ("redraws", "deck_exhausted"), f"the tie rule is {house['tie_rule']!r}, not 'redraw'")
    redraws = _parse_redraws(round_)
    deck_exhausted = _deck_exhausted(round_)
    carry_in = parse_carry(round_)
    extra = [(pair[s], f"redraw {i + 1} ({s})") for i, pair in enumerate(redraws) for s in SIDES]
    rows = parse_rows(round_, game.zones, game.deck(house), game.name, extra=extra)
    scores = {side: score_row(rows[side], game.value, house["card_points_table"]) for side in SIDES}
    # the dealer covers the lighter side (§3.1: his stake on the table, or, where the house lets the
    # sides stay unequal, from his bank at the showdown: the same money), unless equal bets are required
    eq = equalise(bets, SIDES, dealer_tops_up=house["equalise"] != "required")
    check_equalised(eq, house)
    on_table = eq.dealer_adds if house["equalise"] == "dealer_tops_up" else Fraction(0)  # (a tie's pot holds it)
    if may_carry(house):
        check_pot_can_carry(carry_in, stakes, on_table)
    outcome = decide(scores, house, game.value, redraws, deck_exhausted)

    # (parimutuel, with the sides left unequal: the dealer neither covers nor stakes)
    pool_only = house["settlement"] == "parimutuel" and not on_table
    if outcome.winner is not None and pool_only and not any(side == outcome.winner for side, _ in stakes.values()):
        # nobody bet on the winning set: no winner to split the losing stakes, which go back
        settlement = settle_push(stakes, carry_in)
    elif outcome.winner is not None:
        loser = "ato" if outcome.winner == "saki" else "saki"
        cover, cover_side = (Fraction(0), None) if pool_only else (eq.dealer_adds, eq.dealer_side)
        settlement = settle_pot(stakes, outcome.winner, cover, cover_side,
                                fee_rate_for(house, scores[loser]), carry_in, dealer_on_table=bool(on_table))
    elif outcome.tie_result == "dealer_takes_all":
        settlement = settle_dealer_takes_all(stakes, carry_in)
    elif outcome.tie_result == "carry_over":
        settlement = settle_carry_over(stakes, on_table, carry_in)
    else:  # push, or a redraw still to be made (nothing moves until it is)
        settlement = settle_push(stakes, carry_in)
    # (the round says what the dealer staked on the table: nothing where he covers as banker)
    shown = eq if on_table == eq.dealer_adds else replace(eq, dealer_adds=on_table, dealer_side=None)
    return PlayedRound(game.name, house, scores, outcome, shown, stakes, settlement)


def _settle_family(game: "FamilyGame", round_: Mapping[str, Any], house: Mapping[str, Any]) -> dict:
    p = play_family(game, round_, house)
    return result_json(p.game, p.house, rows_scores=p.rows, outcome=p.outcome, eq=p.equalisation,
                       stakes=p.stakes, settlement=p.settlement)


def result_json(name: str, house: Mapping[str, Any], *, rows_scores: Mapping[str, RowScore],
                outcome: Outcome, eq: Equalisation | None, stakes, settlement: Settlement,
                scores: Mapping[str, Any] | None = None, rows: Mapping[str, dict] | None = None) -> dict:
    out: dict[str, Any] = {
        "game": name,
        "house": house_as_played(house),
        "settled": outcome.tie_result != "pending",
        "winner": outcome.winner or "tie",
        "decided_by": outcome.decided_by,
        "tie": outcome.tie_result,
        "scores": dict(scores) if scores is not None else {s: r.score for s, r in rows_scores.items()},
        "rows": dict(rows) if rows is not None else {s: r.to_json() for s, r in rows_scores.items()},
    }
    if outcome.tie_break is not None:
        out["tie_break"] = outcome.tie_break
    if eq is not None:
        out["equalise"] = equalisation_json(eq)
    out["players"] = players_json(stakes, settlement)
    out["fee"] = to_json_amount(settlement.fee)
    out["net"] = amounts(settlement.net)
    if (exact := exact_amounts(settlement.net)) is not None:
        out["net_exact"] = exact
    if eq is not None:  # the pot games: what was carried in and what is carried out
        out["carry_in"] = to_json_amount(settlement.carry_in)
        out["carry"] = to_json_amount(settlement.carry)
        if Fraction(str(out["carry"])) != settlement.carry:  # a pot a JSON number cannot hold exactly
            out["carry_exact"] = str(settlement.carry)
    return out


# --- the four games --------------------------------------------------------------------------

@dataclass(frozen=True)
class FamilyGame:
    name: str
    value: Callable[[Card], int]
    set_size: int
    months: range
    zones: list[ZoneSpec]

    def deck(self, house: Mapping[str, Any]) -> Counter:
        copies = house.get("deck_count", 1)
        return Counter({c.id: copies for c in all_cards() if c.month in self.months})


def _zones(set_size: int) -> list[ZoneSpec]:
    # Saki is dealt first and lies on the dealer's side, Ato on the players' side (§3.1)
    return [ZoneSpec("saki", set_size, "Saki", "先"), ZoneSpec("ato", set_size, "Ato", "後")]


def _options(*, tie_default: str, deck_counts: bool, settlement_default: str) -> tuple[HouseOption, ...]:
    opts = []
    if deck_counts:
        opts.append(HouseOption("deck_count", 1, (1, 2), doc="1 deck (48 cards) or 2 mixed decks"))
    opts += [
        HouseOption("fee_model", "none", ("none", "percent", "buta_han"),
                    doc="none; percent: fee_rate of each winning player's profit; buta_han: half of it "
                        "when the losing set's total ends in 0"),
        FEE_RATE_OPTION,
        HouseOption("tie_rule", tie_default, TIE_RULES, doc="what a tie of the ones digits does"),
        HouseOption("tie_fallback", "push", TIE_FALLBACKS,
                    doc="what a tie still equal on card points or raw total does",
                    applies_when=("tie_rule", ("card_points", "raw_total"))),
        HouseOption("card_points_table", "standard", ("standard", "honbana"),
                    doc="card points for the card_points tie-break: 20/10/5/1 or Hon-Bana 30/20/10/5/0"),
        HouseOption("equalise", "dealer_tops_up", EQUALISE_MODES,
                    doc="dealer_tops_up: the dealer stakes the difference on the lighter side; "
                        "required: the players' bets must already be equal; encouraged: the dealer urges "
                        "bets on the lighter side and, as banker, covers what is left at the showdown; "
                        "none: the sides stay as bet and the dealer covers the difference as banker (a "
                        "win pays the same; a tie carries no stake of his); under settlement parimutuel "
                        "he covers nothing in the last two"),
        HouseOption("settlement", settlement_default, SETTLEMENTS,
                    doc="what a win pays where the sides stay unequal (equalise encouraged or none): "
                        "banker: the dealer covers the difference, each winner paid 1:1; parimutuel: "
                        "the winners split the losing stakes pro rata (all of them back where nobody "
                        "bet on the winning set). The same with equal sides"),
        *WAGER_LIMIT_OPTIONS,
    ]
    return tuple(opts)


FAMILY: dict[str, FamilyGame] = {}


def _make(name: str, title_en: str, title_ja: str, value, set_size: int, months: range,
          tie_default: str, deck_counts: bool, notes: tuple[str, ...], settlement_default: str = "banker") -> Game:
    family = FAMILY[name] = FamilyGame(name, value, set_size, months, _zones(set_size))
    return Game(name=name, title_en=title_en, title_ja=title_ja,
                options=_options(tie_default=tie_default, deck_counts=deck_counts,
                                 settlement_default=settlement_default),
                deck=family.deck, layout=lambda setup: list(family.zones),
                settle=lambda round_, house: _settle_family(family, round_, house),
                bet_targets=lambda setup: list(SIDES), notes=notes,
                fields=("bets", "rows", "carry", "redraws", "deck_exhausted"))


GAMES: dict[str, Game] = {
    g.name: g for g in (
        _make("batta-maki", "Batta Maki", "バッタまき", standard_value, 3, range(1, 13), "push", True,
              ("48 cards (96 with two decks), months 1-12; sets of 3",)),
        _make("atosaki", "Atosaki", "アトサキ", atosaki_value, 3, range(1, 13), "card_points", False,
              ("48 cards; November and December count 10; sets of 3; winners split the pot",),
              settlement_default="parimutuel"),
        _make("koikoi-atosaki", "Koi-Koi no Atosaki", "こいこいのアトサキ", atosaki_value, 4, range(1, 13),
              "card_points", False,
              ("as Atosaki with sets of 4 (the 8 Koi-Koi field cards)",), settlement_default="parimutuel"),
        _make("mutsu-wari", "Mutsu-wari", "六ツ割", mutsu_wari_value, 3, range(1, 11), "push", True,
              ("Batta Maki on 40 cards (no November, December), values 1-10",)),
    )
}


def play(round_: Mapping[str, Any]) -> PlayedRound:
    """The exact played round (Fractions) of a Batta Maki family round document."""
    game = GAMES[round_["game"]]
    return play_family(FAMILY[game.name], round_, game.resolve_house(round_.get("house")))
