"""From the stable table (a LiveTable snapshot) to the round document of ``hanadealer settle``.

The camera reports each card with a face and a confidence; the dealer may have corrected some cards
by a tap. ``RoundBuilder.build`` turns the cards of each zone into card ids (corrections first),
checks that every card the game needs is there, face up and sure, and writes the round JSON for the
game's shape (rows, Otoroku hands, Kabu-Tsukuri rows per player, Echobo's dealer card). Anything that
stops the round from being settled is a plain sentence in ``problems``; it is never guessed away.
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from dataclasses import dataclass, field
from typing import Any, Mapping

from dealer.cards import BACK, cards_of_face, get_card, is_card, UnknownCardError
from dealer.games import Game, RoundError, ZoneSpec
from dealer.games.common import check_deck_usage
from dealer.ledger import six_decimals
from dealer.western import is_western_card

ROW_GAMES = {"batta-maki", "atosaki", "koikoi-atosaki", "mutsu-wari", "hankan", "shoniban"}
# Games whose stake is not a bet on a target: Otoroku is played in shares, Kabu-Tsukuri for an ante.
NO_BETS = {"otoroku": "Otoroku is played in shares (the share is set when the session starts), not bets",
           "kabu-tsukuri": "Kabu-Tsukuri is played for the ante set when the session starts, not bets"}
# Games whose tied round can carry its pot into the next round (the engine's "carry" in and out).
CARRY_GAMES = {"kabu-tsukuri", "batta-maki", "atosaki", "koikoi-atosaki", "mutsu-wari"}
# Kakeya Toranpu settles in stones between the pairs (its round is built from the tricks, webui.tricks)
NO_BETS["kakeya-toranpu"] = "Kakeya Toranpu is settled in stones between the pairs, not bets"


# --- the snapshot, read defensively -------------------------------------------------------------

def table_zones(snapshot: Mapping[str, Any] | None) -> tuple[dict[str, list[dict]], dict[str, int], list[dict]]:
    """(zone name -> cards in table order, zone name -> face-down count, unassigned cards).

    Accepts the zones as a mapping (name -> list of cards, or name -> {"cards", "face_down"}) or as
    a list of {"name", "cards", "face_down"}; a card whose face is ``back`` counts as face down,
    unless it is uncertain: then it stays among the cards, shown unsure for the dealer to name (the
    backs read in doubt are mostly face-up cards partly hidden, models/MODEL.md)."""
    zones: dict[str, list[dict]] = {}
    down: dict[str, int] = {}
    if not snapshot:
        return zones, down, []
    raw = snapshot.get("zones") or {}
    items = raw.items() if isinstance(raw, Mapping) else (((z.get("name"), z) for z in raw))
    for name, value in items:
        if isinstance(value, Mapping):
            cards = list(value.get("cards") or [])
            extra = int(value.get("face_down") or value.get("face_down_count") or 0)
        else:
            cards, extra = list(value or []), 0
        up = [c for c in cards if c.get("face") != BACK or c.get("uncertain")]
        zones[str(name)] = up
        # the count may or may not include the backs listed among the cards: never count twice; the
        # live table counts every back, the unsure ones kept among the cards too
        unsure_backs = sum(1 for c in up if c.get("face") == BACK)
        down[str(name)] = max(extra - unsure_backs, len(cards) - len(up), 0)
    top_down = snapshot.get("face_down") or {}
    if isinstance(top_down, Mapping):
        for name, n in top_down.items():
            down[str(name)] = max(down.get(str(name), 0), int(n or 0))
    return zones, down, list(snapshot.get("unassigned") or [])


# --- the result of building ---------------------------------------------------------------------

@dataclass(frozen=True)
class ZoneView:
    """One zone as the page shows it."""
    name: str
    label_en: str
    label_ja: str
    expected: int | None
    scored: bool
    group: str | None
    cards: tuple[dict, ...]   # each: track_id, card, face, recognised, confidence, uncertain, corrected
    face_down: int

    @property
    def dealt(self) -> list[dict]:
        """The row as dealt: without the cards drawn onto it to break a tie."""
        return [c for c in self.cards if not c.get("redraw")]

    @property
    def complete(self) -> bool:
        if self.face_down:
            return False
        return len(self.dealt) == self.expected if self.expected is not None else bool(self.cards)

    def to_json(self) -> dict:
        return {"name": self.name, "label_en": self.label_en, "label_ja": self.label_ja,
                "expected": self.expected, "scored": self.scored, "group": self.group,
                "cards": list(self.cards), "face_down": self.face_down, "complete": self.complete}


@dataclass(frozen=True)
class BuiltRound:
    round: dict | None                    # the round document, None while ``problems`` is not empty
    zones: tuple[ZoneView, ...]
    problems: tuple[str, ...] = ()
    cards: tuple[dict, ...] = field(default_factory=tuple)  # recognised/corrected, for the ledger

    @property
    def ready(self) -> bool:
        return self.round is not None


def zone_title(z: ZoneSpec | ZoneView) -> str:
    return f"{z.label_en} {z.label_ja}".strip()


def lifted_corrections(setup: Mapping[str, Any], seen: Mapping[str, list], unassigned: list) -> dict:
    """The camera's reading -> the card the dealer named, of each card put right (read as another)
    whose track is no longer on the table."""
    on_table = {str(c.get("track_id")) for cards in seen.values() for c in cards} | {
        str(c.get("track_id")) for c in unassigned}
    readings = setup.get("corrected_readings") or {}
    out = {}
    for track, named in (setup.get("corrections") or {}).items():
        read = readings.get(track) if isinstance(readings, Mapping) else None
        if track not in on_table and isinstance(read, str) and isinstance(named, str) and another_card(read, named):
            out[read] = named
    return out


def another_card(read: str, named: str) -> bool:
    """Whether the card the dealer named is another than the camera read: not a copy of the same face
    (the camera reads a month's look-alike chaff as one face, the page names it by a copy: a chaff
    kept as read was taken for one put right as another, and every card so read came back in doubt)."""
    if read == named:
        return False
    faces = face_of(read), face_of(named)
    return faces[0] is None or faces[0] != faces[1]


class RoundBuilder:
    """``build(snapshot, game, setup, bets, corrections) -> BuiltRound``.

    ``setup``: the session (house, players, seats, share, ante, carry, chosen). ``corrections`` maps a
    track id (as a string) to the card id the dealer chose for it."""

    def build(self, snapshot: Mapping[str, Any] | None, game: Game, setup: Mapping[str, Any],
              bets: list[dict], corrections: Mapping[str, str]) -> BuiltRound:
        house = game.resolve_house(setup.get("house"))
        layout = game.layout(layout_setup(setup))
        try:
            deck = Counter(game.deck(house))
        except Exception:  # a deck that cannot be built should not hide the cards themselves
            deck = Counter()
        seen, down, unassigned = table_zones(snapshot)
        redraw_rows = tie_redraw_rows(layout, house)
        problems: list[str] = []
        used: Counter = Counter()
        views: list[ZoneView] = []
        ledger_cards: list[dict] = []
        # the cards Echobo's bettors bet on are in their hands: the dealer's card is another copy
        if game.name == "echobo":
            used.update(b["on"] for b in bets if isinstance(b.get("on"), str) and is_card(b["on"]))
        # cards put right before a restart: the camera's reading of each, and the card named for it
        # (not while a settlement waits: it keeps the corrections it was made with, and a tap voids it)
        # (and before a switch of game, which keeps none of the old game's corrections: ``before``)
        doubts = {} if setup.get("pending") else {
            d.get("read"): d.get("card") for d in setup.get("restart_doubts") or () if isinstance(d, Mapping)}
        doubts_before = {d.get("read"): d.get("before") for d in setup.get("restart_doubts") or ()
                         if isinstance(d, Mapping) and isinstance(d.get("before"), str)}
        # cards put right and since lifted off the table or hidden long enough to leave it: laid again,
        # the tracker numbers them afresh and the tap, kept by the old number, no longer holds; a card
        # read as the one put right was shown sure and settled on that reading, unsaid
        lifted = {} if setup.get("pending") else lifted_corrections(setup, seen, unassigned)
        # corrected cards first, so a guess never takes the copy the dealer named; a look-alike chaff
        # named is a copy of its face, the one free (the copies cannot be told apart: the copy named,
        # held by a bettor or named twice, refused a legal table as a card dealt twice)
        corrections = dict(corrections)
        for cards in seen.values():
            for c in cards:
                fix = corrections.get(str(c.get("track_id")))
                if fix:
                    fix = _free_copy(fix, deck, used)
                    corrections[str(c.get("track_id"))] = fix
                    used[fix] += 1
        for z in layout:
            here = seen.get(z.name) or []
            face_down = down.get(z.name, 0)
            bust = (setup.get("busts") or {}).get(z.name) if game.name == "otoroku" else None
            if not here and bust and 0 <= face_down <= len(bust):
                # a bust hand read surely, then discarded as the rules say (taken off the table, or
                # turned face down where it lies: it paid nothing then): it still pays its share
                # (its cards stacked face down are fewer backs to the camera: not another hand)
                here = [{"track_id": None, "card": cid, "face": face_of(cid), "confidence": None,
                         "uncertain": False, "discarded": True} for cid in bust]
                face_down = 0
            needed = zone_needed(game, z, setup, here, face_down, corrections)
            out = []
            for pos, c in enumerate(here, start=1):
                fix = corrections.get(str(c.get("track_id")))
                if fix:  # what the camera read, as if the card's own fix did not hold that copy
                    used[fix] -= 1
                recognised = _recognised_id(c, deck, used)
                if fix:
                    used[fix] += 1
                card = fix or recognised
                if not fix and recognised:
                    used[recognised] += 1
                item = {"track_id": c.get("track_id"), "card": card, "face": c.get("face"),
                        "recognised": recognised, "confidence": c.get("confidence"),
                        "uncertain": bool(c.get("uncertain")) and not fix, "corrected": bool(fix),
                        "position": pos, **({"discarded": True} if c.get("discarded") else {}),
                        # (whether the card tapped was in doubt: the history said "unsure, confirmed"
                        # of a card read surely that the dealer tapped and kept as read)
                        **({"read_uncertain": bool(c.get("uncertain"))} if fix else {})}
                # (a bust discarded is the hand as read surely then, not a reading now: no tap reaches it)
                named_before = None if fix or c.get("discarded") else doubts.get(c.get("card"))
                named_lifted = None if fix or named_before or c.get("discarded") else lifted.get(c.get("card"))
                if named_before or named_lifted:
                    item["uncertain"] = True
                if z.name in redraw_rows and pos > z.cards:
                    # a card laid after a full row is one drawn onto it to break a tie, in order
                    item["redraw"] = pos - z.cards
                out.append(item)
                if needed:
                    ledger_cards.append({"zone": z.name, **item})
                where = f"card {pos} of {zone_title(z)}"
                if not needed:
                    continue
                if item["uncertain"] and c.get("face") == BACK:
                    # a hand the dealer did not choose may be thrown in: gathered, it is not read
                    thrown = (", or take a hand thrown in off the table" if game.name == "otoroku" and
                              setup.get("chosen") is not None and z.name != "dealer" and
                              z.name not in setup["chosen"] else "")
                    problems.append(f"{where} looks face down, but unsure: turn it face up, or tap it "
                                    f"to name the card{thrown}")
                elif named_before:
                    when = doubts_before.get(c.get("card")) or "the server restarted"
                    problems.append(f"{where} was put right as {card_label(named_before)} before {when}, "
                                    f"and the camera still reads {card_label(c.get('card'))}: tap it to "
                                    f"confirm or correct it")
                elif named_lifted:
                    problems.append(f"{where} was put right as {card_label(named_lifted)}, then lifted or "
                                    f"hidden long enough to leave the table (a card laid again is read afresh), "
                                    f"and the camera reads {card_label(c.get('card'))}: tap it to confirm or "
                                    f"correct it")
                elif item["uncertain"]:
                    problems.append(f"{where} is uncertain (looks like {card or c.get('face')}): "
                                    f"tap it to confirm or correct it")
                elif card is None:
                    problems.append(f"{where} was not recognised: tap it to choose the card")
            view = ZoneView(z.name, z.label_en, z.label_ja, z.cards, z.scored, z.group, tuple(out), face_down)
            views.append(view)
            if not needed:
                continue
            if view.face_down:
                problems.append(f"{zone_title(z)}: {view.face_down} card(s) still face down")
            elif z.cards is not None and len(view.dealt) != z.cards:
                problems.append(f"{zone_title(z)} has {len(out)} of {z.cards} cards")
            elif z.cards is None and not out:
                problems.append(f"{zone_title(z)} has no cards yet")
        problems += _uneven_redraws(views, redraw_rows, revealed_scores(game, views, house) if redraw_rows else {})
        if game.name in ROW_GAMES and not problems and deck:
            problems += _unscored_cards_not_in_deck(game, views, deck)
        if game.name == "echobo" and not problems:
            problems += _dealer_card_held_by_a_bettor(views, bets, deck)
            # (the dealer's card of the round just recorded still lying: the bettors' cards beside it,
            # recorded with it only as its bets, are that round's too)
            if not any(_of_the_round_recorded(setup, v.name, c) for v in views if v.name == "dealer" for c in v.cards):
                problems += _cards_laid_not_bet(views, bets)
        if problems:
            return BuiltRound(None, tuple(views), tuple(problems), tuple(ledger_cards))
        try:
            round_ = build_round_document(game, setup, bets, views)
        except RoundError as exc:
            return BuiltRound(None, tuple(views), (str(exc),), tuple(ledger_cards))
        return BuiltRound(round_, tuple(views), (), tuple(ledger_cards))


def _unscored_cards_not_in_deck(game: Game, views: tuple[ZoneView, ...] | list[ZoneView],
                                deck: Counter) -> list[str]:
    """Hankan's and Shoniban's Shi-e, where it goes to the engine only read whole and surely: why a
    card of it read surely (or named) cannot be there, or nothing. Checked by the engine only with
    the whole row, one card of it in doubt (or still face down) let a round be settled on a scored
    card that a sure reading in Shi-e says is another (a Tsuke's pine read surely in Shi-e too)."""
    placed: list[tuple[str, str]] = []
    check = False
    for z in views:
        if z.scored:
            placed += [(c["card"], f"row {z.name!r} (card {c['position']})") for c in z.dealt if c.get("card")]
            continue
        whole = len(z.dealt) == z.expected and not z.face_down and all(
            c["card"] and not c["uncertain"] for c in z.cards)
        sure = [c for c in z.dealt if c.get("card") and not c.get("uncertain") and c.get("face") != BACK
                or c.get("corrected")]
        if sure and not whole:  # (whole, the engine checks it with the round)
            check = True
            placed += [(c["card"], f"row {z.name!r} (card {c['position']})") for c in sure]
    if not check:
        return []
    try:
        check_deck_usage(placed, deck, game.name)
    except RoundError as exc:
        return [str(exc)]
    return []


def _dealer_card_held_by_a_bettor(views: tuple[ZoneView, ...] | list[ZoneView], bets: list[dict],
                                  deck: Counter) -> list[str]:
    """Echobo: why the dealer's card cannot be the card read or named for it, or nothing. The bettors'
    cards are shown, not played for, so the engine never sees them: the dealer's card named as a card
    lying surely in a bettor's cards was settled on, though the deck holds no other copy. Counted by
    face (a month's look-alike chaff are one face); a bettor's card lying and his bet on a card id may
    be one card, so he holds the more of the two."""
    dealer = next((v for v in views if v.name == "dealer"), None)
    card = dealer.cards[0].get("card") if dealer is not None and len(dealer.cards) == 1 else None
    face = face_of(card) if card else None
    copies = sum(n for cid, n in deck.items() if face_of(cid) == face) if face else 0
    if not copies:
        return []
    held = []
    for v in views:
        if v.name == "dealer":
            continue
        lying = sum(1 for c in v.cards if c.get("card") and not c.get("uncertain") and face_of(c["card"]) == face)
        bet_on = sum(1 for b in bets if b.get("player") == v.name and isinstance(b.get("on"), str)
                     and face_of(b["on"]) == face)
        if max(lying, bet_on):
            held.append((v.name, max(lying, bet_on)))
    if 1 + sum(n for _, n in held) <= copies:
        return []
    who = " and ".join(name for name, _ in held)
    decks = "the deck holds one" if copies == 1 else f"the deck(s) hold {copies}"
    return [f"the dealer's card reads {card_label(card)}, and {who} {'holds' if len(held) == 1 else 'hold'} "
            f"{'it' if copies == 1 else 'one'} too ({decks}): one of them is misread: tap it to correct it"]


def _of_the_round_recorded(setup: Mapping[str, Any], zone: str, card: Mapping[str, Any]) -> bool:
    """Whether ``card``, lying in ``zone``, is one of the round just recorded, still lying (known by
    its track and reading, or by its place and face until the round's cards are seen gone)."""
    if f"{card.get('track_id')}:{card.get('recognised')}" in (setup.get("settled_tracks") or ()):
        return True
    face = card.get("face")
    return not setup.get("settled_gone") and face not in (None, BACK) and \
        f"{zone}:{face}" in (setup.get("settled_cards_all") or setup.get("settled_cards") or ())


def _cards_laid_not_bet(views: tuple[ZoneView, ...] | list[ZoneView], bets: list[dict]) -> list[str]:
    """Echobo: each card a bettor has laid face up (read surely, or named by the dealer) that none of
    his bets is on (RULES.md §7.1: each bettor lays face down the cards he bets on), and two such
    cards of one month (he holds one card of each). The bets are
    entered on the page: a month entered wrong, or a bet not entered, was settled as entered, and a
    winning card laid went unpaid, unsaid. (Not asked while the round just recorded lies: after each
    Confirm the page said to enter bets on its cards, and a bet so entered was paid in the next round.)"""
    out = []

    def months_bet(player: str) -> set[int]:
        months: set[int] = set()
        for b in bets:
            if b.get("player") != player:
                continue
            on = b.get("on")
            if isinstance(on, (int, float)) and not isinstance(on, bool) and math.isfinite(on) and on == int(on):
                months.add(int(on))  # (a month sent as 1.0 is month 1)
            elif isinstance(on, str) and is_card(on):
                months.add(get_card(on).month)
        return months

    # the bettors whose zone shows no card: a card of theirs laid beside a neighbour's may be read in
    # the neighbour's zone (without zones drawn, two single cards laid close are one hand)
    bare = [v.name for v in views if v.name != "dealer" and not v.cards and not v.face_down]
    # each bare bettor's card lies in one seat only: the cards of a month beyond one a seat, in all
    # the seats together, are more than they can be (a card of one lent to two seats let a misread
    # through, a winning card's bet never entered)
    extra: Counter = Counter()
    for v in views:
        if v.name != "dealer":
            seen = Counter(get_card(c["card"]).month for c in v.cards
                           if c.get("card") and not c.get("uncertain") and is_card(c["card"]))
            extra.update({m: n - 1 for m, n in seen.items() if n > 1})
    for v in views:
        if v.name == "dealer":
            continue
        months = months_bet(v.name)
        laid: dict[int, list[str]] = {}
        for c in v.cards:
            if not c.get("card") or c.get("uncertain") or not is_card(c["card"]):
                continue
            month = get_card(c["card"]).month
            laid.setdefault(month, []).append(c["card"])
            if month not in months:
                bet = (f"his bets are on month {', '.join(str(m) for m in sorted(months))}" if months
                       else "no bet of his is entered")
                out.append(f"{v.name}'s card {card_label(c['card'])} (month {month}) lies face up, but {bet}: "
                           f"enter the bet on it, or put the card right (a card of another bettor's, read in "
                           f"this seat: draw the zones in Settings)")
        # (a bettor holds one card of each month: two of one month laid is a card misread, or laid in
        # his zone from another's, and the card it should have been, with its bet, went unpaid)
        for month, cards in sorted(laid.items()):
            # (each card but his own may be that of a bettor betting on the month whose zone is bare:
            # held, a round of two bettors on one month was held, and tapping the cards never freed it)
            theirs = [name for name in bare if month in months_bet(name)]
            if len(cards) > 1 and (month not in months or extra[month] > len(theirs)):
                out.append(f"{v.name} lays {len(cards)} cards of month {month} face up "
                           f"({', '.join(card_label(c) for c in cards)}), but each bettor holds one card of each "
                           f"month: one of them is misread (tap it to correct it), or another bettor's, read in "
                           f"this seat (draw the zones in Settings, or lay the hands further apart)")
    return out


def tie_redraw_rows(layout: list[ZoneSpec], house: Mapping[str, Any]) -> tuple[str, ...]:
    """The two rows a tie is broken on by drawing a card onto each (Batta Maki family with the house
    tie rule ``redraw``), or () when ties are not redrawn. The drawn cards are laid at the end of
    their row, so a row may hold more cards than it is dealt."""
    names = tuple(z.name for z in layout)
    if house.get("tie_rule") == "redraw" and names == ("saki", "ato"):
        return names
    return ()


def _uneven_redraws(views: list[ZoneView], rows: tuple[str, ...], scores: Mapping[str, Any]) -> list[str]:
    drawn = {v.name: v for v in views if v.name in rows}
    counts = {name: len(v.cards) - len(v.dealt) for name, v in drawn.items()}
    if len(set(counts.values())) <= 1:
        return []
    if all(n in scores for n in rows) and len({scores[n] for n in rows}) > 1:
        # (the rows dealt are not tied: a card after a full row is no draw, and asking for one onto the
        # other row only led to "the rows are not tied")
        extra = ", ".join(zone_title(v) for n, v in drawn.items() if counts[n])
        return [f"a card lies after the full row of {extra}, but the rows are not tied: a card is drawn "
                f"onto each row only to break a tie (take it away, or it is a card of another round; a card drawn "
                f"is laid after the row's last card, to its right as the page shows it: one laid before the first "
                f"is read as dealt)"]
    said = ", ".join(f"{zone_title(v)} {counts[n]}" for n, v in drawn.items())
    return [f"a redraw lays one card at the end of each set; the cards drawn so far: {said}"]


def _surely_face_down(c: Mapping[str, Any], corrections: Mapping[str, str]) -> bool:
    """A card read surely as a back and not named by the dealer. A back read in doubt may be a card
    lying face up, and a card the dealer named is known: neither says the hand was thrown in."""
    return (c.get("face") == BACK and not c.get("uncertain") and not c.get("corrected")
            and str(c.get("track_id")) not in corrections)


def _shown_face_up(cards: list[dict] | tuple[dict, ...] | None, face_down: int | None,
                   corrections: Mapping[str, str]) -> bool:
    """Whether a hand may lie on the table all face up (an Otoroku hand not chosen is read only so, its
    cards in doubt to be confirmed: a card of it surely face down, or none there, is a hand thrown in)."""
    return bool(cards) and not face_down and not any(_surely_face_down(c, corrections) for c in cards)


def zone_needed(game: Game, z: ZoneSpec | ZoneView, setup: Mapping[str, Any] | None = None,
                cards: list[dict] | tuple[dict, ...] | None = None, face_down: int = 0,
                corrections: Mapping[str, str] | None = None) -> bool:
    """Whether the round cannot be settled without this zone's cards (``cards``, ``face_down``: what
    lies in it). In Echobo only the dealer's card decides; the bettors' cards are shown, their bets
    are entered on the page. In Otoroku a bettor the dealer did not choose to show down with may
    throw his hand in unseen, but a hand of his that lies all face up is read all the same: a
    bust bettor pays before the dealer chooses (RULES.md §4.1). A card of it read as a back only in
    doubt, or named by the dealer (``corrections``: track id -> card), is no hand thrown in."""
    if game.name == "echobo":
        return z.name == "dealer"
    if not z.scored:  # Hankan's Shi-e is shown, not played for (and dealt face down in Shoniban)
        return False
    chosen = (setup or {}).get("chosen")
    if game.name == "otoroku" and chosen is not None:
        seats = (setup or {}).get("seats") or []
        role = "last" if seats and z.name == seats[-1] else "bettor"
        return z.name == "dealer" or z.name in chosen or _shown_face_up(cards, face_down, corrections or {}) \
            or _buta_whatever_hidden(_as_corrected(cards, corrections or {}), face_down, role)
    return True


def _as_corrected(cards, corrections: Mapping[str, str]) -> list[dict]:
    """The cards as the dealer put them right (a card he named is that card, and sure): whether a
    hand must be seen was told from the camera's reading, and its hand booked from his."""
    out = []
    for c in cards or ():
        fix = corrections.get(str(c.get("track_id")))
        out.append(dict(c, card=fix, uncertain=False, corrected=True) if fix else dict(c))
    return out


# the highest card of Otoroku's deck: a card read in doubt may be it
_HIGHEST = 10


def _buta_whatever_hidden(cards, face_down: int | None, role: str) -> bool:
    """Whether an Otoroku hand lying as dealt (its first card face down) is buta whatever that card:
    a buta is revealed and pays its share, chosen or not (left out as thrown in, it paid nothing).
    A card read in doubt may be any card: it counts as the highest where that makes the hand buta,
    so the round waits for the dealer to confirm it (read as a low card in doubt and left out, a buta
    went unpaid with the card still amber)."""
    from dealer.games.otoroku import bust_limit, value_of
    # (a back read in doubt may be a face-up card partly hidden, and one the dealer named is that card:
    # dropped as backs, a hand whose first card lay face down was left out as thrown in, unseen)
    shown = [c for c in cards or () if c.get("face") != BACK or c.get("uncertain") or c.get("corrected")]
    try:
        months = [_HIGHEST if c.get("uncertain") and not c.get("corrected") else value_of(c.get("card"))
                  for c in shown if c.get("card") or c.get("uncertain")]
    except (UnknownCardError, ValueError, KeyError):
        return False
    if not months:
        return False
    limit = bust_limit(role, {})
    held = len(cards or ()) + (face_down or 0)
    return sum(months) - max(months) + 1 >= limit or \
        sum(months) + 1 >= limit and not (held == 5 and max(months) <= 5)


def face_of(card_id: str) -> str | None:
    try:
        return get_card(card_id).face
    except UnknownCardError:
        return card_id if is_western_card(card_id) else None


def _free_copy(card: str, deck: Counter, used: Counter) -> str:
    """``card``, or where every copy of it is taken already, another card of its face not yet taken
    (a month's look-alike chaff); ``card`` where none is free (the engine names the card dealt twice)."""
    if used[card] < deck.get(card, 0):
        return card
    face = face_of(card)
    try:
        copies = [c.id for c in cards_of_face(face)] if face else []
    except (UnknownCardError, KeyError, ValueError):
        copies = []
    return next((c for c in copies if used[c] < deck.get(c, 0)), card)


def _recognised_id(c: Mapping[str, Any], deck: Counter, used: Counter) -> str | None:
    """The card id for what the camera saw. Cards sharing a face (a month's chaff) are told apart
    only by the deck: take the first copy of that face not yet on the table."""
    face = c.get("face")
    card = c.get("card")
    if face in (None, BACK):
        return None
    try:
        options = [x.id for x in cards_of_face(face)]
    except UnknownCardError:
        return card if is_card(card) else None
    if is_card(card) and card in options:  # the camera's own pick first
        options.remove(card)
        options.insert(0, card)
    for cid in options:
        if used[cid] < max(deck.get(cid, 0), 1):
            return cid
    return options[0]


def layout_setup(setup: Mapping[str, Any]) -> dict:
    """What ``Game.layout`` is given: the seats / players of the session."""
    names = [p["name"] for p in setup.get("players", [])]
    seats = list(setup.get("seats") or names)
    return {"game": setup.get("game"), "seats": seats, "players": names}


def build_round_document(game: Game, setup: Mapping[str, Any], bets: list[dict],
                         zones: list[ZoneView] | tuple[ZoneView, ...]) -> dict:
    """The round JSON of ``hanadealer settle`` for this game's shape."""
    ids = {z.name: [c["card"] for c in z.cards] for z in zones}
    doc: dict[str, Any] = {"game": game.name, "house": dict(setup.get("house") or {})}
    if game.name not in NO_BETS:
        doc["bets"] = [{"player": b["player"], "on": b["on"], "amount": b["amount"]} for b in bets]
    if game.name == "otoroku":
        doc["seats"] = list(setup.get("seats") or [p["name"] for p in setup.get("players", [])])
        # the hands the round needs (read surely by now: the round is built only then)
        doc["hands"] = {z.name: ids[z.name] for z in zones
                        if ids[z.name] and zone_needed(game, z, setup, z.cards, z.face_down)}
        doc["share"] = setup.get("share", 1)
        if setup.get("chosen") is not None:
            doc["chosen"] = list(setup["chosen"])
    elif game.name == "kabu-tsukuri":
        rows: dict[str, list[list[str]]] = {}
        for z in zones:
            owner = z.group or z.name
            rows.setdefault(owner, []).append(ids[z.name])
        doc["rows"] = rows
        doc["bet"] = setup.get("ante", 1)
        if setup.get("dealer") in rows:  # (who deals next is the engine's to say)
            doc["dealer"] = setup["dealer"]
    elif game.name == "echobo":
        dealer = [z for z in zones if z.name == "dealer"] or list(zones[:1])
        cards = ids[dealer[0].name] if dealer else []
        if len(cards) != 1:
            raise RoundError(f"the dealer's card must be one card, the table shows {len(cards)}")
        doc["dealer_card"] = cards[0]
    else:
        # an unscored row (Shi-e) only when it is read whole and surely: the engine takes it or not
        dealt = {z.name: [c["card"] for c in z.dealt] for z in zones
                 if z.scored or (len(z.dealt) == z.expected and not z.face_down
                                 and all(c["card"] and not c["uncertain"] for c in z.cards))}
        doc["rows"] = dealt
        drawn = {z.name: [c["card"] for c in z.cards if c.get("redraw")] for z in zones}
        if any(drawn.values()):
            doc["redraws"] = [dict(zip(drawn, pair)) for pair in zip(*drawn.values())]
        if setup.get("deck_exhausted") and tie_redraw_rows(game.layout(layout_setup(setup)),
                                                           game.resolve_house(setup.get("house"))):
            doc["deck_exhausted"] = True  # (a flag left from a tie rule no longer played is not the round's)
    if game.name in CARRY_GAMES and setup.get("carry"):
        # exactly, where a JSON number could not hold the pot (the engine's carry_exact)
        doc["carry"] = setup.get("carry_exact") or setup["carry"]
    return doc


# --- bets ---------------------------------------------------------------------------------------

def bet_targets(game: Game, setup: Mapping[str, Any]) -> list[Any]:
    """What a bet may be ``on`` in this game (nothing for the games without bets)."""
    if game.name in NO_BETS:
        return []
    if game.bet_targets is not None:
        return list(game.bet_targets(layout_setup(setup) | {"house": setup.get("house") or {}}))
    layout = game.layout(layout_setup(setup))
    if game.name == "echobo":
        house = game.resolve_house(setup.get("house"))
        return sorted(c for c, n in game.deck(house).items() if n) + list(range(1, 7))
    return [z.name for z in layout if z.scored]


def card_label(card_id: str | None) -> str:
    """'pine-crane' -> 'Pine crane 松' (for the page)."""
    if not card_id:
        return "?"
    if is_western_card(card_id):  # 'QH' -> 'Q♥'
        return card_id[:-1] + SUIT_SYMBOLS[card_id[-1]]
    try:
        card = get_card(card_id)
    except UnknownCardError:
        return card_id
    rest = card_id[len(card.suit) + 1:].replace("-", " ") if card_id.startswith(card.suit) else card_id
    return f"{card.suit.replace('-', ' ').capitalize()} {rest} {SUIT_JA.get(card.suit, '')}".strip()


SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_JA = {"pine": "松", "plum": "梅", "cherry": "桜", "wisteria": "藤", "iris": "菖蒲", "peony": "牡丹",
           "clover": "萩", "bush-clover": "萩", "susuki": "芒", "chrysanthemum": "菊", "maple": "紅葉", "willow": "柳",
           "paulownia": "桐"}


# --- scores as the rows are revealed ------------------------------------------------------------

def revealed_scores(game: Game, zones: list[ZoneView] | tuple[ZoneView, ...],
                    house: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Each complete, sure, scored row's score before the whole round can be settled (row games,
    and Kabu-Tsukuri's rows, whose result scores each player's three rows as one list), from the
    rule engine's own row scoring; {} for other games or while nothing is complete."""
    scorer = _row_scorer(game.name, house or {})
    if scorer is None:
        return {}
    out: dict[str, Any] = {}
    for z in zones:
        if not z.scored or not z.complete or any(c["uncertain"] or not c["card"] for c in z.dealt):
            continue
        try:
            out[z.name] = scorer([c["card"] for c in z.dealt])
        except Exception:  # a card the game does not know: the full settle will say so
            continue
    return out


def _row_scorer(name: str, house: Mapping[str, Any]):
    try:
        if name in ("hankan", "shoniban"):
            from dealer.games.hankan import score_set
            return lambda cards: score_set(cards).shown
        if name == "kabu-tsukuri":
            from dealer.games.kabu_tsukuri import score_row as kabu_row
            return lambda cards: kabu_row(cards, house.get("ranking", "extended")).label_en()
        from dealer.games.batta_maki import FAMILY, score_row
    except ImportError:
        return None
    family = FAMILY.get(name)
    if family is None:
        return None
    return lambda cards: score_row(cards, family.value).score


def signed(amount) -> str:
    """+1,200 / -0.5 / 0: an amount with its sign, readable (no exponent); a Fraction to its 6
    decimals exactly (a float of 10^12 chips and a third showed ...000.333374)."""
    if isinstance(amount, Fraction) and amount.denominator != 1:
        text = f"{six_decimals(amount):+,f}".rstrip("0").rstrip(".")
    elif isinstance(amount, float) and not amount.is_integer():
        # (as written, not the float's binary value: 10^11 and a tenth showed ...000.100006)
        text = f"{six_decimals(Fraction(repr(amount))):+,f}".rstrip("0").rstrip(".")
    else:
        text = f"{int(amount):+,}"
    return "0" if text in ("+0", "-0") else text


def result_texts(result: Mapping[str, Any]) -> dict:
    """A settlement's amounts as shown (the page's box, the history), to 6 decimals of the amounts
    as booked: from the exact amounts where the engine gives them (a JSON number of 10^10 chips and a
    fraction, or one rounded as a float, showed other decimals than the ledger books)."""
    exact = result.get("net_exact") if isinstance(result.get("net_exact"), Mapping) else {}
    net = result.get("net") if isinstance(result.get("net"), Mapping) else {}
    texts = {who: _amount_text(amount, exact.get(who)) for who, amount in net.items()}
    return {"net": {who: text for who, text in texts.items() if text is not None},
            "carry": (_amount_text(result.get("carry"), result.get("carry_exact")) or "").lstrip("+") or None,
            # (a pot carried in, as the round was settled with it: the history said nothing of it)
            "carry_in": (_amount_text(result.get("carry_in"), None) or "").lstrip("+") or None}


def _amount_text(amount: Any, exact: Any) -> str | None:
    """``signed`` of the exact amount (a fraction as text) where it reads, else of the JSON number;
    None for neither (a record damaged by hand is shown as damaged elsewhere, not here)."""
    if isinstance(exact, str):
        try:
            return signed(Fraction(exact))
        except (ValueError, ZeroDivisionError):
            pass
    if isinstance(amount, int) and not isinstance(amount, bool) or isinstance(amount, float) and math.isfinite(amount):
        return signed(amount)
    return None
