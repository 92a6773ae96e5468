"""The dealer's session as one object: game and house rules, players, bets, corrections, the settlement
waiting for confirmation, and the ledger. The Flask routes only translate HTTP to these methods.

Every write goes to the ledger's session record at once, so a restarted server resumes the same
session with the same pending bets; a confirmed round is recorded together with the cleared session
in one transaction.
"""
from __future__ import annotations

import base64
import collections
import copy
import hashlib
import json
import math
import logging
import re
import secrets
import threading
import time
import unicodedata
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from importlib import metadata
from typing import Any, Callable, Mapping

from dealer.cards import BACK, get_card, is_card, nearest_ids
from dealer.games import (GAME_NAMES, MAX_AMOUNT, RoundError, did_you_mean, exact_amounts, get_game, parse_amount,
                          parse_carried_pot, settle_round, to_json_amount)
from dealer.ledger import (BOOKINGS_DISAGREE, Ledger, is_stored_session, LedgerError, SessionChanged, SessionUnreadable,
                           SettlementGone, booked_amounts)
from dealer.pot import (DEALER, GIVEN_UP, NAMED, carried, pot_said, pot_stakers, result_from_bookings,
                        stakers_on_the_books)
from dealer.equalise import equalise
from dealer.games.batta_maki import check_tie_fallback_applies
from dealer.games.echobo import check_bet_size_within_limit
from dealer.games.common import Bet, check_fee_rate_applies, house_as_played
from dealer.games.kabu_tsukuri import check_ante_can_carry
from dealer.games.kakeya import pairs_of
from dealer.games.otoroku import MAX_BETTORS as OTOROKU_MAX_BETTORS, evaluate, may_choose_bettors
from dealer.games.row_games import check_wager_limits, may_carry
from dealer.games.kakeya import TRICKS, rensho_of
from dealer.western import SUITS, is_western_card, nearest_western_ids
from vision.live import CAMERA_AWAY
from webui.tricks import (KAKEYA, TRICK_ZONE, TrickWatch, active_players, check_trick_cards, game_over, live_layout,
                          missed_trick_warning,
                          known_seats_of, order_trick, play_order, player_names, replay_tricks, ring_of, round_document, starting_stones)
from webui.round_builder import (CARRY_GAMES, another_card, face_of, NO_BETS, ROW_GAMES, BuiltRound, ZoneView, RoundBuilder,
                                 revealed_scores, bet_targets, card_label, layout_setup, lifted_corrections,
                                 result_texts, signed, table_zones, tie_redraw_rows, zone_title)

log = logging.getLogger(__name__)

CHIP_COLOURS = ("red", "blue", "green", "black", "white", "yellow", "purple", "orange")
MAX_PLAYERS = 12
NAME_RE = re.compile(r"^[\w .'-]{1,24}$")


def _is_name(name: str) -> bool:
    """1-24 letters, digits, spaces or .'- (counted as the letters written), a letter with its
    accent typed apart (a combining mark: 'José' typed as e and ´) too, as NAME_RE takes it typed
    as one. Kept as typed: made one form (NFC), a name stored before no longer matched itself, and
    some names changed letters (神 became another code point)."""
    if NAME_RE.match(name):
        return True
    return (1 <= len(unicodedata.normalize("NFC", name)) <= 24
            and all(ch.isalnum() or ch in " .'-_" or (i > 0 and unicodedata.category(ch).startswith("M"))
                    for i, ch in enumerate(name)))

# the end of the warning about a trick read with a card twice (cleared once that trick is read right)
# Kakeya: a moment the table was not read, with no card in the middle before and after, too short
# for a trick to be played and gathered (seconds)
GAP_UNSEEN_S = 3.0
RETRY_UNRECORDED_S = 2.0  # a change of the table the ledger refused is tried again this soon on the same table
GATHERED_S = 2.0  # the table bare this long after a bet taken after the reveal: that deal was gathered
SEEN_KEPT = 64  # cards kept of those seen since a reveal (a deal's, each by track and by place and face)
# the games whose zones are players' seats side by side: where each hand lay is kept with the session
SEATED_GAMES = ("otoroku", "echobo")
# an Otoroku hand seen with fewer cards than a moment before (a hand only grows until it is thrown in
# whole): a card under the dealer's sleeve, waited for this long before the hand is taken as it lies
HAND_SHRUNK_S = 3.0
STALL_SAID_S = 3.0  # (how long the live table shows a stalled camera's last frame before saying so)
MISREAD_HINT = ": tap the card misread, or enter the trick by hand"
NO_TRICK_ZONE_HINT = ("; with no trick zone drawn, every card in the camera's view is read as the trick, so "
                      "picture cards kept face up in view are read with it: keep them out of view, or draw "
                      "the trick zone in Settings")


class InputError(ValueError):
    """Bad input from the page; the message is shown to the dealer as is."""


def rule_version(game: str) -> str:
    try:
        v = metadata.version("hanadealer")
    except metadata.PackageNotFoundError:
        v = "unknown"
    return f"hanadealer {v} / {game}"


class Hub:
    """A version number that waiting Server-Sent-Event streams wake up on."""

    def __init__(self):
        self._version = 0
        self._cond = threading.Condition()

    @property
    def version(self) -> int:
        return self._version

    def bump(self) -> int:
        with self._cond:
            self._version += 1
            self._cond.notify_all()
            return self._version

    def wait(self, seen: int, timeout: float) -> int:
        with self._cond:
            self._cond.wait_for(lambda: self._version != seen, timeout=timeout)
            return self._version


def _missed_places(s: Mapping[str, Any]) -> list[int]:
    """Where the tricks the camera missed go, as each would be inserted in turn (``missed_tricks``
    holds, for each, how many recorded tricks come before it), while the hand lacks any (with
    thirteen recorded none can be missing: the dealer entered it, or none was missed)."""
    if len(s.get("tricks") or ()) >= TRICKS:
        return []
    return [before + 1 + k for k, before in enumerate(sorted(s.get("missed_tricks") or ()))]


def _missed_entered_at(missed: list[int], at: int, recorded: int) -> list[int]:
    """The tricks missed (recorded tricks before each) once a trick is inserted as trick ``at`` among
    ``recorded``: one missed there is the trick entered; those after it have one recorded trick more
    before them, but for one whose tricks before it are not all recorded (one taken back by an undo):
    the trick entered is one of those."""
    missed = sorted(missed)
    if at - 1 in missed:
        missed.remove(at - 1)
    return [b + 1 if at - 1 <= b <= recorded else b for b in missed]


def _zones_kept(zones, names: set) -> list:
    """The drawn zones whose names are in ``names``, with the picture they were drawn on kept."""
    kept = copy.copy(zones)  # (a copy of vision.zones.DrawnZones keeps its picture)
    kept[:] = [z for z in zones if z.name in names]
    return kept


class DealerService:
    def __init__(self, ledger: Ledger, live: Any, *, zones_loader: Callable[[str], Any] | None = None,
                 zones_renamer: Callable[[str, dict[str, str]], None] | None = None):
        self.ledger = ledger
        self.live = live
        self.hub = Hub()
        self.builder = RoundBuilder()
        self.zones_loader = zones_loader
        self.zones_renamer = zones_renamer
        # what the table can deal for: the demo table deals for its own players (game, names -> why not)
        self.players_check: Callable[[str, list[str]], str | None] | None = None
        self._lock = threading.RLock()
        self._view_cache: tuple[tuple[int, int], dict] | None = None
        self.trick_watch: TrickWatch | None = None  # Kakeya: reads each trick off the table
        # Kakeya: whether this server has read the table yet, the trick zone as read last, and the
        # zone and time when the table stopped being read mid-hand (a gap where a trick may be missed)
        self._table_read = False
        self._zone_read: frozenset = frozenset()
        self._gap_from: tuple[frozenset, float, int | None] | None = None
        self._restart_gap = False  # (Kakeya: a gap said at the first reading since the start, looked at again)
        # Kakeya: the middle seen bare since the last trick was recorded (its cards gathered, or a
        # hand over them), and the tracks of the trick on the table last warned of a misread
        self._bare_after_trick = False
        self._warned_tracks: frozenset = frozenset()
        # the tracks of the tricks undone (this run's: a restart numbers them afresh, and keeps the guard),
        # and whether the middle was seen bare since
        self._undone_tracks: set[str] = set()
        self._bare_after_undo = False
        self._undone_tracks_unknown = False  # (the middle seen bare since a restart, the trick undone unseen)
        # Kakeya: the watch of the middle for tricks of the next hand before the hand was confirmed
        # (those it read are kept with the session, as next_hands_tricks)
        self._next_hand_watch: TrickWatch | None = None
        self.layout_note: str | None = None
        self.ledger_note: str | None = None  # the ledger file found damaged (note_ledger_damage)
        self._unrecorded: str | None = None  # why the table's last change could not be recorded
        self._unrecorded_at: tuple = (None, 0.0)  # (the table's version then, and the time)
        self._zones_drawn = False  # (drawn in Settings, else found automatically)
        self._bare_since: float | None = None  # (the table seen bare since, for the late-bet notes)
        self._busts_bare_since: float | None = None  # (the same, for Otoroku's busts remembered)
        # Otoroku: a card hidden a moment was settled without it (_hands_shrunk)
        # zone -> (its count of cards now, their tracks, the larger counts it showed lately: when each ended)
        self._hand_counts: dict[str, tuple[int, set, list[tuple[float, int]]]] = {}
        # where each seat's hand lay last, as the session kept it before this start: given back to the
        # table once its picture is known to be the same (_restore_seat_places)
        self._places_to_restore: dict | None = None
        self._places_noted_at: Any = None  # (the table's version they were last noted at)
        self._stored_as: dict | None = None  # the open session as the ledger holds it (_stored_session)
        # the settlements made here, and the round each confirmed one was recorded as: a Confirm of
        # one no longer waiting (another tablet confirmed it, or voided it by a correction) was told
        # to "settle the round first" (the newest few: a Confirm of an older one is no tablet's)
        self._settlements_made: collections.OrderedDict[str, int | None] = collections.OrderedDict()
        self.session: dict | None = self._stored_session()
        held = self._stored_as
        for _ in range(5):  # (another server on this ledger may change it meanwhile: read it again)
            if not self.session:
                break
            started = self._as_this_run(self.session, held)
            if started == held:
                break
            try:
                # (written only over the session read: a bet another server took meanwhile was lost)
                self.ledger.save_session(started, expected=held)
            except SessionChanged:
                self.session = self._stored_session()
                held = self._stored_as
                continue
            self.session = held = started
            break
        else:
            raise LedgerError(f"the open session in the ledger {self.ledger.path} kept changing while this server "
                              f"started: another server is writing it; start this one again")
        if self.session:
            # (the cards of the round last recorded are still known by where they lie and what they
            # are, settled_cards: a restart with them on the table does not book them again)
            self._apply_layout()
            if isinstance(self.session.get("seat_places"), Mapping):
                self._places_to_restore = self.session["seat_places"]
        self._recorded = copy.deepcopy(held)  # the session as the ledger holds it

    def _as_this_run(self, read: dict, stored: dict | None) -> dict:
        """The open session as this run starts with it (``read``: as read, ``stored``: as the ledger
        holds it): what an earlier version stored, in today's shape, and what named cards by the last
        run's track ids set aside."""
        session = copy.deepcopy(read)
        for key in ("settled_cards", "settled_cards_all"):  # (stored by an earlier version: zone:card id)
            if session.get(key):
                session[key] = sorted({_key_by_face(k) for k in session[key]})
        if session.get("settled_tracks") and "settled_cards" not in session:
            # (stored by a version that knew the round last recorded by its track ids alone: its cards,
            # known by where they lie and what they are, are not booked again if they still lie)
            try:
                last = self.ledger.rounds(limit=1)
            except LedgerError:  # (a ledger that cannot be read: said by the page as the books are)
                last = []
            if last and last[0].game == session.get("game") and last[0].damage is None:
                session["settled_cards"] = sorted(_placed_keys(last[0].cards))
                session["settled_cards_all"] = list(session["settled_cards"])
                session["settled_gone"] = False
        for entry in session.get("late_bets") or ():  # (track ids: this run numbers its cards afresh)
            if isinstance(entry, dict) and entry.get("shown"):
                entry["shown"] = [k for k in entry["shown"] if not k.startswith("track:")]
        for key in ("revealed", "revealed_gathered"):  # (the next deal's cards got the same numbers: taken for it)
            kept = session.get(key)
            for field in ("seen", "keys"):
                if isinstance(kept, dict) and isinstance(kept.get(field), list):
                    kept[field] = [k for k in kept[field] if not (isinstance(k, str) and k.startswith("track:"))]
        if session.get("corrections") or session.get("settled_tracks") or session != stored:
            # a correction names a card by the tracker's track id, and the tracker of this run
            # numbers its cards afresh: kept, a correction would land on whichever card now has
            # that number (shown as corrected, never amber). The cards still in doubt come back
            # unsure, for the dealer to confirm again; a settlement waiting to be confirmed keeps
            # the corrections it was made with. So too the cards of the round last recorded.
            # A card the camera read surely but wrongly came back sure and wrong, unsaid, and the
            # round was settled on it: each card it still reads as it read the card put right
            # comes back unsure, saying what the dealer had named (RoundBuilder)
            session["restart_doubts"] = _doubts_after_restart(session)
            session["corrections"] = {}
            session["corrected_readings"] = {}
            session["settled_tracks"] = []
        return session

    def _stored_session(self) -> dict | None:
        """The open session kept in the ledger; one that cannot be read (damaged, not a session) is
        set aside in the ledger, not lost, and the page says so and starts with none."""
        try:
            stored = self.ledger.load_session()
            self._stored_as = stored
            session = copy.deepcopy(stored)
            if isinstance(session, dict) and isinstance(session.get("house"), dict):
                session["house"] = _house_as_applied(session.get("game"), session["house"])
            problem = None if session is None else _stored_session_problem(session)
            if problem is None:
                if session != stored:  # (kept so: the ledger holds the session this server shows)
                    try:
                        self.ledger.save_session(session, expected=stored)
                        self._stored_as = copy.deepcopy(session)
                    except (LedgerError, SessionChanged):  # (said at the next save, as any write refused)
                        pass
                return session
        except SessionUnreadable as exc:  # (a file that cannot be read at all is an error of its own)
            problem = str(exc)
        self.ledger.set_session_aside()
        self._stored_as = None
        self.layout_note = (f"the open session kept in the ledger could not be read ({problem}); it is kept "
                            f"aside in the ledger: start a new session in Settings")
        try:
            held = self._stakers_on_the_books()
        except LedgerError:  # (a round that cannot be read: its pot is not known, and the start goes on)
            held = {}
        if held:  # (its pot is still on the books, and on the table: say how to go on with it)
            game = self._newest_game()
            self.layout_note += (f"; the books hold a pot of {to_json_amount(sum(held.values()))} carried over from "
                                 f"its last tie in {game}: a new session of {game} goes on with it, another game "
                                 f"gives it up to those who put it in (Settings asks first)")
        return None

    # --- helpers ---------------------------------------------------------------------------------
    def _save(self, bookings=()) -> None:
        """Record the session as changed in memory (with ``bookings`` it makes: a pot given up or
        named). A change the ledger refuses is undone: kept, a bet refused with "cannot write to the
        ledger" was booked with the next round that could be."""
        try:
            # only over the session as this server last read or wrote it: two servers on one ledger
            # each wrote its own over the other's, and a bet taken on one was gone from the books
            self.ledger.save_session(self.session, expected=self._recorded, bookings=bookings)
        except SessionChanged as exc:
            self._show_changed_meanwhile(exc)
        except BaseException:
            self.session = copy.deepcopy(self._recorded)
            self.hub.bump()  # (the page was drawn from the change: draw it again)
            raise
        self._recorded = copy.deepcopy(self.session)
        self.hub.bump()

    def note_ledger_damage(self, said: str) -> None:
        """The ledger file found damaged (as the server started, or reading the balances after a
        round was recorded): said over the table until the server is started on a sound file."""
        said = said if str(self.ledger.path) in said else f"the ledger {self.ledger.path} is damaged ({said})"
        self.ledger_note = f"{said[:400]}: copy the file aside and have it checked"
        self.hub.bump()

    def stakers_on_the_books(self) -> dict[str, Fraction]:
        """Who put in the pot the books hold now (the history says the pot)."""
        with self._lock:
            return self._stakers_on_the_books()

    def _stakers_on_the_books(self) -> dict[str, Fraction]:
        """Who put in the pot the books hold now, from the recorded rounds (dealer.pot). A round whose
        record cannot be read is told by its bookings and the pot of the round before it: taken for
        one that carried nothing, a pot it left was not known, and named again it was booked twice."""
        def records():
            before = None
            while True:
                page = self.ledger.rounds(limit=50, before=before)
                yield from page
                if len(page) < 50:
                    return
                before = page[-1].id

        def told_by_bookings(unread: list, before) -> list:
            """The results of ``unread`` (newest first), ``before`` the round before them (its record
            and its pot; None: there is none, or it is of another game: a pot is played for in its own
            game only, another is started with it given up)."""
            told = []
            for rec in reversed(unread):
                carry_in = before[1] if before and before[0].game == rec.game else Fraction(0)
                try:
                    # (a Kabu-Tsukuri player's bookings are his rows won less every ante: not his
                    # share of the pot, which is then the dealer's to hand back)
                    told.append(result_from_bookings(self.ledger.booked(rec.id), carry_in,
                                                     stakers_known=rec.game != "kabu-tsukuri"))
                except ValueError as exc:
                    raise LedgerError(f"the pot the books hold is not known: round {rec.id} {rec.damage}, "
                                      f"and {exc}") from None
                before = (rec, carried(told[-1]))
            return told[::-1]

        def results():
            unread = []  # (newest first, of one game: each is told once the pot before it is known)
            for rec in records():
                if unread and rec.game != unread[-1].game:  # (nothing carried in from another game)
                    yield from told_by_bookings(unread, None)
                    unread = []
                # (a round whose cards alone are damaged says its pot; one whose result disagrees with
                # its bookings is told by them)
                carry = None if (rec.damage or "").startswith(BOOKINGS_DISAGREE) else pot_said(rec.result)
                if carry is None:
                    unread.append(rec if rec.damage else replace(rec, damage="says no pot that is an amount"))
                    if rec.game not in CARRY_GAMES:  # (nor in a game that carries none: told at once,
                        yield from told_by_bookings(unread, None)  # not after the whole history)
                        unread = []
                    continue
                yield from told_by_bookings(unread, (rec, carry))
                unread = []
                yield rec.result
            yield from told_by_bookings(unread, None)
        return stakers_on_the_books(results())

    def _newest_game(self) -> str | None:
        newest = self.ledger.rounds(limit=1)
        return newest[0].game if newest else None

    def _take_stored_session(self) -> None:
        """The session another page or server stored since this one read it, taken as the open one."""
        self.session = self._stored_session()  # the one stored, shown as it is now
        self._recorded = copy.deepcopy(self._stored_as)
        self._view_cache = None
        self.trick_watch = None
        if self.session:
            self._apply_layout()  # (its game may be another now)
        self.hub.bump()

    def _show_changed_meanwhile(self, exc: SessionChanged) -> None:
        """The session another page or server stored since this one read it, taken as the open one;
        the change asked for is refused, said so."""
        self._take_stored_session()
        raise InputError(f"{exc}: the page shows it as it is now; do it again if it is still to be "
                         f"done") from None

    def _refuse_if_changed_meanwhile(self) -> None:
        if not is_stored_session(self.ledger.get_meta("session"), self._recorded):
            self._show_changed_meanwhile(SessionChanged("the session was changed meanwhile by another page or "
                                                        "server on this ledger"))

    def _require_session(self) -> dict:
        if not self.session:
            raise InputError("no session yet: choose the game and the players first (Settings)")
        return self.session

    def _game(self):
        return get_game(self._require_session()["game"])

    def _note_next_hands_cards(self, s: Mapping[str, Any], snap: Mapping[str, Any] | None) -> None:
        """Kakeya, the hand's thirteen tricks recorded and not yet confirmed: each trick of the next
        hand read in the middle meanwhile (by a watch of its own, the last trick, still lying, read
        already). One played and gathered before Confirm went unread, unsaid, and the next trick was
        recorded in its place with the wrong players (see confirm)."""
        snap = self._snapshot() if snap is None else snap
        if _stale_table(snap):
            return
        if self._next_hand_watch is None:
            self._next_hand_watch = TrickWatch(len(active_players(s)))
            self._next_hand_watch.mark_read([{"track_id": None, "card": c}
                                             for cards in _last_trick_readings(s) for c in cards])
        trick, _ = self._next_hand_watch.observe(self._trick_cards(snap, s))
        # (the last trick, still lying, is this hand's; a trick seen again on new tracks is one trick)
        cards = [c.get("card") for c in trick or ()]
        if trick is not None and not any(set(cards) == set(t) for t in
                                         _last_trick_readings(s) + _next_hands_tricks(s)):
            # (kept with the session: after a restart before the Confirm it went unsaid)
            s["next_hands_tricks"] = _next_hands_tricks(s) + [cards]
            self._save()

    def _rename_zones(self, by_game: Mapping[str, Mapping[str, str]], playing: str | None) -> None:
        """Players renamed: their drawn zones (of every game: ``by_game``, game -> zone name before ->
        now) and, where the game ``playing`` goes on, what the table and this server remember of
        where each zone's cards lie are renamed with them. Left by their old names, a renamed
        player's cards lay outside every zone until all the zones were drawn again, and without
        zones drawn the hands lying were seated afresh in table order, a bust thrown in giving its
        seat to the next hand, with its money."""
        for game, names in by_game.items():
            if names and self.zones_renamer is not None:
                try:
                    self.zones_renamer(game, dict(names))
                except (OSError, ValueError) as exc:  # (the layout's note then says which zones are missing)
                    log.warning("the drawn zones of %s could not be renamed: %s", game, exc)
        names = by_game.get(playing) if playing else None
        if not names:
            return
        rename = getattr(self.live, "rename_zones", None)
        if rename is not None:
            rename(dict(names))
        self._hand_counts = {names.get(k, k): v for k, v in self._hand_counts.items()}
        if self._places_to_restore is not None:
            self._places_to_restore = _places_renamed(self._places_to_restore, names)

    def _apply_layout(self, strict: bool = False) -> None:
        """Tell the table the game's zones (and the drawn ones, if any). Drawn zones that do not
        fit are an error when the dealer just saved them (``strict``), else set aside with a note."""
        self.layout_note = None
        try:
            game = get_game(self.session["game"])
            layout = live_layout(game, layout_setup(self.session))
            use_deck = getattr(self.live, "set_card_kind", None)
            if use_deck is not None:  # the detector for the game's cards (western for Kakeya)
                # (and how many decks are mixed: a face may then lie on the table twice as often)
                decks = game.resolve_house(self.session.get("house") or {}).get("deck_count", 1)
                use_deck(game.card_kind, decks)
        except Exception as exc:
            self.layout_note = f"the game's layout is not available: {exc}"
            return
        try:
            zones = self.zones_loader(self.session["game"]) if self.zones_loader else None
            # a zone drawn for a seat no longer in the game (a player gone) is left out, as Settings
            # shows it: the table refused the whole set for it, and read every row automatically
            # while Settings showed the others in use
            gone = sorted({z.name for z in zones or ()} - {z.name for z in layout})
            if gone:
                zones = _zones_kept(zones, {z.name for z in layout})
            self.live.set_layout(layout, zones or None)
            self._zones_drawn = bool(zones)
            # a zone of the layout with none drawn gets no card (a player added since the zones were
            # drawn): his cards were only "outside every zone", with no word why
            undrawn = [z.name for z in layout if zones and z.name not in {d.name for d in zones}]
            notes = []
            if undrawn:
                notes.append(f"no zone is drawn for {', '.join(undrawn)}: draw the zones again in Settings "
                             f"(until then cards there are outside every zone)")
            if gone:
                notes.append(f"the zones drawn for {', '.join(gone)}, no longer at the table, are left out "
                             f"(save the zones in Settings to forget them)")
            self.layout_note = "; ".join(notes) or None
        except Exception as exc:
            if strict:
                raise InputError(f"the drawn zones cannot be used: {exc}") from None
            self.layout_note = f"the drawn zones were set aside ({exc}); rows are found automatically"
            self._zones_drawn = False
            try:
                self.live.set_layout(layout, None)
            except Exception as again:  # (a session stored so by an earlier version: no start at all)
                self.layout_note = f"the game's layout is not available: {again}"

    # --- session ---------------------------------------------------------------------------------
    def start_session(self, data: Mapping[str, Any]) -> dict:
        if not isinstance(data, Mapping):
            raise InputError("the session must be a JSON object with game, house and players")
        try:
            game = get_game(data.get("game"))
            _check_session_fields(game.name, data)
            house = game.resolve_house(data.get("house") or {})  # an unknown option or value is refused
            # options that cannot work together: refused now, not at the first reveal with bets taken
            if "fee_model" in house:
                check_fee_rate_applies({"house": data.get("house") or {}}, house)
            if "tie_fallback" in house:
                check_tie_fallback_applies({"house": data.get("house") or {}}, house)
            if "min_bet" in house and "max_bet" in house:
                check_wager_limits({}, house)
            if game.name == "echobo" and house["bet_size"] is not None and house["bet_mode"] != "fixed_per_card":
                raise RoundError("house option 'bet_size' applies only to bet_mode fixed_per_card")
            if game.name == "echobo":
                check_bet_size_within_limit(house)
            if house.get("deck", "hanafuda") != "hanafuda" and game.card_kind != house["deck"]:
                # the live table reads the game's own cards; such a round is settled from its file
                raise RoundError(f"the table reads {game.card_kind} cards for {game.name}: house rule deck "
                                 f"{house['deck']!r} is for rounds settled with 'hanadealer settle'")
        except RoundError as exc:
            raise InputError(str(exc)) from None
        players = self._check_players(data.get("players"))
        names = [p["name"] for p in players]
        if self.players_check is not None and (problem := self.players_check(game.name, names)):
            raise InputError(problem)
        session = {"game": game.name, "house": {k: v for k, v in (data.get("house") or {}).items()},
                   "players": players, "bets": [], "corrections": {}, "pending": None,
                   "limits": self._check_limits({} if data.get("limits") is None else data["limits"])}
        if session["limits"] and game.name in NO_BETS:  # (stored, they limited nothing, unsaid)
            raise InputError(f"table limits are for bets, and {NO_BETS[game.name]}")
        _check_limits_meet_house(session["limits"], house)
        if game.name == "otoroku":
            # (the Settings page lists the players in turn order, the seats' order where seats were
            # given: the order it sends is the turn order)
            seats = data.get("seats") or names
            if not data.get("seats") and not 1 <= len(names) <= OTOROKU_MAX_BETTORS:
                # (said of the players listed: the page sends no seats, and "field 'seats' ... (2 to 7
                # players with the dealer), not 7" read as if 7 were allowed)
                raise InputError(f"Otoroku takes 1 to {OTOROKU_MAX_BETTORS} players besides the dealer (the "
                                 f"bettors; the dealer is not listed), not {len(names)}")
            if not isinstance(seats, list) or not all(isinstance(x, str) for x in seats) \
                    or len(set(seats)) != len(seats):
                raise InputError("seats must list the players, each once, in turn order")
            strangers = [x for x in seats if x not in names]
            if strangers:
                raise InputError(f"seat {strangers[0]!r} is no player of the session: seats must list the "
                                 f"players, each once, in turn order")
            unseated = [x for x in names if x not in seats]
            if unseated:  # (a player with no seat was listed first by the page, and seated first by its save)
                raise InputError(f"{unseated[0]!r} has no seat: seats must list the players, each once, in turn order")
            session["seats"] = seats
            session["share"] = self._amount(data.get("share", 1), "the share")
        if game.name == "kabu-tsukuri":
            session["ante"] = self._amount(data.get("ante", 1), "the ante")
            dealer = data.get("dealer")
            if dealer not in (None, ""):  # who deals: the next dealer follows the house rule next_dealer
                if not isinstance(dealer, str) or dealer not in names:
                    raise InputError(f"the dealer must be one of the players ({', '.join(names)}), not {dealer!r}")
                session["dealer"] = dealer
        if game.name == KAKEYA:
            session.update(self._check_kakeya(data, names))
            # each partnership's stones: the game ends when one has none (§8, §10 KT5)
            session["stones"] = starting_stones(session, house)
        if data.get("carry") is not None and (isinstance(data["carry"], bool) or data["carry"] != 0):
            if game.name not in CARRY_GAMES:
                raise InputError(f"{game.name} has no pot to carry over from an earlier round")
            session["carry"] = self._amount(data["carry"], "the carried pot")
        try:  # the game's own checks of its seats and players (how many, names)
            places = [z.name for z in game.layout(layout_setup(session))]
        except RoundError as exc:
            raise InputError(str(exc)) from None
        # a player seated at a place named as one the game has besides the seats (Kakeya's "trick"):
        # the table was told two zones of one name, refused them after the session was saved, and the
        # server could not start again on that ledger (a bettor of Batta Maki has no place: "Saki" is
        # a name like any other there)
        fixed = Counter(places)
        fixed.subtract(set(names) & set(places))  # (each player's own seat is no other place)
        for name in sorted(set(names) & set(places)):
            clash = [z for z, n in fixed.items() if n > 0 and z.casefold() == name.casefold()]
            if clash:
                raise InputError(f"player {name!r}: {clash[0]!r} is a place of the {game.name} "
                                 f"table, not a player name: name the player otherwise")
        with self._lock:
            if data.get("based_on") is not None and data["based_on"] != settings_key(self.session):
                raise InputError("the session was changed since this Settings page was opened (after a round the "
                                 "next dealer deals, or another page saved it): open Settings again to see it, "
                                 "then make the change")
            self._carry_on(self.session, session, data, self._stakers_on_the_books)
            renamed = _renamed_players(data, self.session, session) if self.session else {}
            self._refuse_stake_change_mid_round(self.session, session, renamed)
            if not (self.session and self.session.get("carry")):
                # (a pot on the books that this server's session does not show is another server's
                # tie first: said as the change it is, not taken for a pot whose session was lost)
                self._refuse_if_changed_meanwhile()
            bookings = _pot_bookings(self.session, session, data, self._stakers_on_the_books, self._newest_game)
            if game.name == "kabu-tsukuri":  # (said now, not once the hand is dealt and shown)
                try:
                    check_ante_can_carry(_exact(session["ante"]), len(names), _pot(session))
                except RoundError as exc:
                    raise InputError(str(exc)) from None
            # (each game's drawn zones: those of a game played later were left by the old names too)
            zone_names = {name: _zone_renames(self.session, session, renamed, name) for name in GAME_NAMES} \
                if renamed else {}
            same_game = bool(self.session) and self.session.get("game") == session["game"]
            self.session = session
            self._save(bookings)  # (refused, the session before is back, and the table was never told)
            if zone_names:
                self._rename_zones(zone_names, session["game"] if same_game else None)
            self.trick_watch = None
            if not session.get("late_bets"):  # (notes carried on keep the time their deal lay bare)
                self._bare_since = None
            # the table is told the new game once it is recorded: told first and back again after a
            # refusal, a switch of deck forgot the cards twice, and the dealer's corrections with them
            self._apply_layout()
        return session

    @staticmethod
    def _carry_on(old: Mapping[str, Any] | None, new: dict, data: Mapping[str, Any],
                  on_books: Callable[[], dict] | None = None) -> None:
        """What a new session (the Settings page sends one for any change: a player more, another
        house rule) takes over from the open one, or why it cannot start: nothing the table holds
        may vanish with the old session (a settlement waiting, a carried pot, bets, tricks)."""
        if not old:
            return
        if old.get("pending"):
            raise InputError("a settlement waits for confirmation: confirm it, or cancel it, before changing "
                             "the session")
        same = old.get("game") == new["game"]
        # (said before the pot: the page asked to give the pot up for a save the bets then refused)
        bets = old.get("bets") or []
        if bets and not same:
            raise InputError(f"{len(bets)} bet(s) of {old['game']} are on the table: take them back (remove them) "
                             f"before changing the game")
        carry = old.get("carry") or 0
        named = new.get("carry")  # (a carry of 0 given is no pot given either)
        if carry and not data.get("drop_carry"):
            # (the pot named again as the page shows it, a JSON number, is the same pot)
            if named is not None and not (same and (_exact(named) == _pot(old) or named == carry)):
                # another pot named in its place replaced the one at stake without a word
                raise InputError(f"the pot of {carry} carried over from the last tie is still to be played for in "
                                 f"{old['game']}: a new session cannot name another pot (carry {named}); start "
                                 f"it without 'carry' to keep the pot, or give the pot up (drop_carry)")
            if same:
                # the pot of the last tie is played for in the next round (named again or not), exactly
                new["carry"] = carry
                new["carry_exact"] = old.get("carry_exact")
                new["carry_from"] = _stakers_json(_stakers(old, on_books))
            if named is None and not same:
                raise InputError(f"the pot of {carry} carried over from the last tie is still to be played for in "
                                 f"{old['game']}: play a round of it first, or start {new['game']} giving the "
                                 f"pot up (drop_carry)")
        names = {p["name"] for p in new["players"]}
        gone = sorted({b["player"] for b in bets} - names)
        # (a name changed in its row of the form, which the page sends as ``renamed``: said as a
        # rename, not as the player taken out, which the dealer had not done. Any bettor renamed: two
        # names swapped took nobody out, and each player's bets became the other's, with the money)
        bettors = {b["player"] for b in bets}
        renamed = {p: n for p, n in _renamed_players(data, old, new).items() if p in bettors}
        if renamed:
            said = ", ".join(f"{p} (now {n})" for p, n in renamed.items())
            raise InputError(f"{said} ha{'s' if len(renamed) == 1 else 've'} bets on the table, taken by that name: "
                             f"a player with bets is renamed once they are settled (or remove them first)")
        if gone:
            raise InputError(f"{', '.join(gone)} ha{'s' if len(gone) == 1 else 've'} bets on the table: remove them "
                             f"before taking {'that player' if len(gone) == 1 else 'those players'} out")
        if same and new["game"] == "kabu-tsukuri" and old.get("dealer") and not new.get("dealer") \
                and old["dealer"] not in names:
            # (his row removed, the session went on with no dealer, and no later hand named one again,
            # the title line still saying the deal rotates)
            raise InputError(f"the dealer must be named again: {old['dealer']}, who deals, is no longer a player "
                             f"(name the player who deals now)")
        game = get_game(new["game"])
        # (the rules in force are compared: a default given or left out is the same rule)
        if bets and (game.resolve_house(new.get("house") or {}) != game.resolve_house(old.get("house") or {})
                     or new.get("limits") != old.get("limits")):
            # a bet was taken under the rules and limits of then: they change between rounds
            raise InputError(f"{len(bets)} bet(s) are on the table: the house rules and limits change only "
                             f"between rounds (remove the bets first)")
        new["bets"] = [dict(b) for b in bets]
        # (a note of a bet taken or removed after the reveal goes with the round it was made in; dropped
        # at a switch of game, the bet taken back after the reveal was in no record. It keeps the game
        # it was made in: the deal still lying may be settled as the new game, the note then of its own
        # reveal, not of "an earlier deal, not settled")
        new["late_bets"] = [dict(entry) if isinstance(entry, Mapping) else entry
                            for entry in old.get("late_bets") or ()]
        if not same:
            for entry in new["late_bets"]:
                if isinstance(entry, dict):
                    entry.setdefault("game", old.get("game"))
        new["settled_tracks"] = list(old.get("settled_tracks") or [])  # the cards still on the table
        # (what is kept by zone follows a player renamed: a seat renamed mid-round lost its bust, the
        # dealer's choice of it, and its place; the hand just recorded, still lying, was booked again)
        zone_names = _zone_renames(old, new, _renamed_players(data, old, new)) if same else {}

        def by_new_zone(key: str) -> str:  # (a card lying, by "zone:face")
            zone, colon, face = key.rpartition(":") if isinstance(key, str) else ("", "", key)
            return f"{zone_names.get(zone, zone)}{colon}{face}" if colon else key

        new["settled_cards"] = [by_new_zone(k) for k in old.get("settled_cards") or []]
        new["settled_cards_all"] = [by_new_zone(k) for k in old.get("settled_cards_all") or []]
        new["settled_gone"] = bool(old.get("settled_gone"))
        if same and old.get("seat_places"):  # (a restart after the save gives the hands their seats too)
            new["seat_places"] = _places_renamed(old["seat_places"], zone_names)
        if old.get("game") == KAKEYA and old.get("tricks"):
            raise InputError(f"{len(old['tricks'])} trick(s) of this hand are recorded: settle the hand (or undo "
                             f"them) before changing the session")
        standing = _kakeya_standing_at_stake(old, data)
        if standing:
            # another game, or other partnerships, end the game in progress: its standing was set aside
            # without a word (and Kakeya saved again started every pair afresh)
            now = _renamed_players(data, old, new) if same else {}
            pairs = {_pair(k, now) for k in old["stones"]}
            if not same or pairs != {_pair(k) for k in new.get("stones") or ()}:
                ends = f"another game ({new['game']})" if not same else "other partnerships"
                raise InputError(f"the pairs hold the stones of a game in progress ({standing}): {ends} ends "
                                 f"it: save it once this game is over, or end the game now (new_game)")
        if same and old.get("game") == KAKEYA and not game_over(old.get("stones")):  # (a new game starts clean)
            for key in ("trick_warning", "missed_tricks", "camera_gap"):  # (a trick gathered unread is still to be entered)
                if old.get(key) is not None:
                    new[key] = old[key]
        if same and old.get("game") == KAKEYA:
            # the last trick of the hand before, not yet gathered, and a trick just undone whose cards
            # still lie as read, are not read into the hand again because Settings was saved
            for key in ("previous_trick", "previous_read", "undone_trick"):
                if old.get(key):
                    new[key] = old[key]
            # (a player renamed on the Settings page is the same player: his pair kept no stones, and
            # the game started again with the stones of a new one, unsaid)
            now = _renamed_players(data, old, new)
            if known_seats_of(old.get("known_seats")) and [now.get(p, p) for p in player_names(old)] == player_names(new):
                # (the same players in the same seats)
                new["known_seats"] = {now.get(p, p): a for p, a in known_seats_of(old["known_seats"]).items()}
                new["known_seats_picture"] = old.get("known_seats_picture")
            # the stones held go on with the same partnerships and stones a pair starts with; a game
            # over, another stones_per_pair, or the dealer's word (new_game: taken, and the stones kept,
            # the same pairs went on as if he had said nothing) starts a new game
            # (a pair by its two players: the same players listed from another seat named it "Cho+Aki",
            # and both pairs started again with the stones of a new game, unsaid)
            held = {_pair(k, now): v for k, v in (old.get("stones") or {}).items()}
            if held and set(held) == {_pair(k) for k in new.get("stones") or ()} \
                    and not game_over(old["stones"]):
                if _stones_per_pair(old) == _stones_per_pair(new) and not data.get("new_game"):
                    new["stones"] = {k: held[_pair(k)] for k in new["stones"]}
                elif standing:
                    # (the standing of the game in progress was set back to the new count, unsaid)
                    raise InputError(f"the pairs hold the stones of a game in progress ({standing}): "
                                     f"stones_per_pair {_stones_per_pair(old)} -> {_stones_per_pair(new)} "
                                     f"starts a new game, each pair with {_stones_per_pair(new)}: save it once "
                                     f"this game is over, or start the new game now (new_game)")
            # nor is the leader of the first trick the dealer chose (the page hides the choice once a
            # trick is read: the tricks went to the players after the default leader)
            leader = now.get(old.get("leader"), old.get("leader"))
            if leader in active_players(new) and leader not in (new.get("dealers") or ()):
                new["leader"] = leader
        if old.get("revealed") and (same or new["game"] in ROW_GAMES or new["game"] == "echobo"):
            # the cards shown lie on: bets stay closed until the round is confirmed or the deal is
            # gathered, whatever is saved meanwhile (a switch to Atosaki, the same rows turned face
            # down again, let a bet be taken unmarked on the rows seen)
            new["revealed"] = old["revealed"]
        if old.get("revealed_gathered") and (same or new["game"] in ROW_GAMES or new["game"] == "echobo"):
            new["revealed_gathered"] = old["revealed_gathered"]  # (a save in the moment the table lay hidden)
        if not same and KAKEYA not in (old.get("game"), new["game"]):
            # another game of the same cards (Batta Maki to Atosaki: the same two rows) may be played on
            # the cards lying: a card the camera read surely but wrongly, put right by the dealer, came
            # back sure and wrong. As after a restart, each card still read as it was read then comes
            # back unsure, saying what the dealer had named (the corrections themselves are the old game's)
            new["restart_doubts"] = [dict(d, before=d.get("before") or f"the game was changed from {old.get('game')}")
                                     for d in _doubts_after_restart(old)]
        if same:
            # the round on the table goes on: the cards the dealer corrected or confirmed stay so (a
            # player added mid-round brought them back unsure), as do his Otoroku choice, among the
            # seats still there, and a deck said to have run out
            new["corrections"] = dict(old.get("corrections") or {})
            new["corrected_readings"] = dict(old.get("corrected_readings") or {})
            new["restart_doubts"] = list(old.get("restart_doubts") or [])
            if old.get("deck_exhausted") and get_game(new["game"]).resolve_house(new.get("house")).get("tie_rule") == "redraw":
                # (kept only while ties are still redrawn: under another tie rule the flag refused
                # every round, and the page offered no way to clear it)
                new["deck_exhausted"] = True
            if old.get("chosen") is not None and new.get("seats"):
                chosen = {zone_names.get(x, x) for x in old["chosen"]}
                new["chosen"] = [x for x in new["seats"] if x in chosen]
            if old.get("busts") and new.get("seats"):
                # a bust hand discarded still pays its share, if it is still bust in its seat's role
                # (a bettor at 16 who became the last bettor, for whom 16 is no bust, won with it)
                house = get_game(new["game"]).resolve_house(new.get("house"))
                busts = {zone_names.get(k, k): v for k, v in old["busts"].items()}
                new["busts"] = {k: v for k, v in busts.items() if k in new["seats"]
                                and _is_bust(v, "last" if k == new["seats"][-1] else "bettor", house)}

    @staticmethod
    def _check_kakeya(data: Mapping[str, Any], names: list[str]) -> dict:
        """Kakeya's session: the trump (else the house's), the dealing pair (with none named, the pair
        RULES.md §8 has deal first: seats 2 and 4 of four, 3 and 6 of six), and an empty record of tricks."""
        if len(names) not in (4, 6):
            raise InputError(f"Kakeya Toranpu is played by 4 or 6 players (two or three pairs), not {len(names)}")
        out: dict[str, Any] = {"tricks": [], "leader": None, "trick_warning": None}
        trump = data.get("trump")
        if trump not in (None, ""):
            if trump not in SUITS:
                raise InputError(f"the trump is one of {', '.join(SUITS)} (spades, hearts, diamonds, clubs), "
                                 f"not {trump!r}")
            out["trump"] = trump
        dealers = data.get("dealers")
        if dealers in (None, [], ""):
            out["dealers"] = [names[1], names[3]] if len(names) == 4 else [names[2], names[5]]
        else:
            pairs = [set(p) for p in pairs_of(names)]
            if not isinstance(dealers, list) or not all(isinstance(d, str) for d in dealers) \
                    or set(dealers) not in pairs or len(dealers) != 2:
                raise InputError(f"the dealers are one of the pairs of partners "
                                 f"{[sorted(p) for p in pairs]}, not {dealers!r}")
            out["dealers"] = list(dealers)
        out["leader"] = default_leader({"players": names, **out})
        return out

    @staticmethod
    def _amount(value: Any, what: str):
        try:
            return to_json_amount(parse_amount(value, what))
        except RoundError as exc:
            raise InputError(str(exc)) from None

    def _check_players(self, raw: Any) -> list[dict]:
        if not isinstance(raw, list) or not raw:
            raise InputError("add at least one player (a name and a chip colour)")
        if len(raw) > MAX_PLAYERS:
            raise InputError(f"at most {MAX_PLAYERS} players")
        out, seen = [], set()
        for i, p in enumerate(raw, start=1):
            if isinstance(p, str):
                p = {"name": p}
            if not isinstance(p, Mapping):
                raise InputError(f"player {i} must have a name and a chip colour")
            # ("color" was dropped without a word: the page showed the bettor's chips in another colour)
            only_fields(p, ("name", "colour"), f"player {i}")
            if not isinstance(p.get("name", ""), str):  # (a null name became a player called "None")
                raise InputError(f"player {i}: a name is text (got {p.get('name')!r})")
            name = p.get("name", "").strip()
            if not _is_name(name):
                raise InputError(f"player {i}: a name is 1-24 letters, digits, spaces or .'- (got {name!r})")
            if name.lower() == "dealer":
                raise InputError(f"player {i}: 'dealer' is the bank, not a player name")
            if name.lower() == "tie":  # a row won by "Tie" read as a drawn row on the page
                raise InputError(f"player {i}: 'tie' says a drawn round, not a player name")
            # (one name typed in two ways, its accent apart and not, looks the same: one player)
            if unicodedata.normalize("NFC", name) in seen:
                raise InputError(f"player {name!r} is listed twice")
            seen.add(unicodedata.normalize("NFC", name))
            colour = p.get("colour")
            if colour in (None, ""):  # (false or 0 was given a colour too, as if none were named)
                colour = CHIP_COLOURS[(i - 1) % len(CHIP_COLOURS)]
            if colour not in CHIP_COLOURS:
                raise InputError(f"player {name!r}: chip colour {colour!r} is not one of "
                                 f"{', '.join(CHIP_COLOURS)}")
            out.append({"name": name, "colour": colour})
        return out

    @staticmethod
    def _check_limits(raw: Any) -> dict:
        if not isinstance(raw, Mapping):
            raise InputError("limits must be an object with min_bet and/or max_bet")
        for key in raw:  # a misspelt limit ("max_bets") would leave the table without one
            if key not in ("min_bet", "max_bet"):
                raise InputError(f"unknown limit {key!r}{did_you_mean(key, ('min_bet', 'max_bet'))}; the "
                                 f"limits are min_bet and max_bet")
        out = {}
        for key in ("min_bet", "max_bet"):
            if raw.get(key) not in (None, ""):
                try:
                    out[key] = to_json_amount(parse_amount(raw[key], key.replace("_", " ")))
                except RoundError as exc:
                    raise InputError(str(exc)) from None
        if "min_bet" in out and "max_bet" in out and out["min_bet"] > out["max_bet"]:
            raise InputError("the minimum bet is above the maximum bet")
        return out

    # --- bets ------------------------------------------------------------------------------------
    def add_bet(self, data: Mapping[str, Any]) -> dict:
        only_fields(data, ("player", "on", "amount", "after_reveal"), "a bet")
        with self._lock:
            s = self._require_session()
            game = self._game()
            if game.name in NO_BETS:
                raise InputError(NO_BETS[game.name])
            _no_bet_changes_while_settling(s)
            if not isinstance(data, Mapping):
                raise InputError("a bet is an object with player, on and amount")
            player = data.get("player")
            names = [p["name"] for p in s["players"]]
            if player not in names:
                raise InputError(f"unknown player {player!r} (players: {', '.join(names)})")
            on = data.get("on")
            targets = bet_targets(game, s)
            # (a month typed as text: plain digits only; "²" passed isdigit() and int() refused it)
            if isinstance(on, str) and re.fullmatch(r"[0-9]{1,2}", on) and int(on) in targets:
                on = int(on)
            elif isinstance(on, float) and on.is_integer() and int(on) in targets:
                on = int(on)  # a month as 1.0: the number it is (kept as 1.0, a card lookup failed on it)
            if on not in targets or isinstance(on, bool):
                shown = ", ".join(map(str, targets[:12])) + (" ..." if len(targets) > 12 else "")
                raise InputError(f"a bet cannot be on {on!r} in {game.name} (choose from {shown})")
            if data.get("amount") in (None, ""):
                raise InputError("enter the bet's amount (a positive number of chips)")
            try:
                amount = parse_amount(data.get("amount"), "the bet amount")
            except RoundError as exc:
                raise InputError(str(exc)) from None
            limits = s.get("limits") or {}
            if "min_bet" in limits and amount < _exact(limits["min_bet"]):
                raise InputError(f"the bet of {to_json_amount(amount)} is below the table minimum "
                                 f"of {limits['min_bet']}")
            if "max_bet" in limits and amount > _exact(limits["max_bet"]):
                raise InputError(f"the bet of {to_json_amount(amount)} is above the table maximum "
                                 f"of {limits['max_bet']}")
            other = next((b["on"] for b in s["bets"] if b["player"] == player and b["on"] != on), None)
            if game.name in ROW_GAMES and other is not None:
                # RULES.md 3.1: on Ato or Saki, never both (the engine refuses it once the cards show)
                side = next((t["label"] for t in _target_labels(game, s) if t["on"] == other), other)
                raise InputError(f"{player} already bets on {side}: a player bets on one side only")
            # a tie carries every stake into the next round's pot, which must still be an amount the
            # engine takes: over MAX_AMOUNT it refused every later round of the session
            carry = _pot(s)
            bets = [Bet(b["player"], b["on"], _exact(b["amount"])) for b in s["bets"]] + [Bet(player, on, amount)]
            staked = sum((b.amount for b in bets), Fraction(0)) + carry
            house = game.resolve_house(s.get("house"))
            if may_carry(house) and house.get("equalise") == "dealer_tops_up" and len(targets) == 2:
                # the dealer's top-up goes into a tied round's pot too (as the engine equalises)
                staked += equalise(bets, tuple(targets)).dealer_adds
            if staked > MAX_AMOUNT:
                raise InputError(f"the stakes on the table (with the dealer's top-up) would come to "
                                 f"{to_json_amount(staked)}, above the largest pot a round can carry ({MAX_AMOUNT})")
            self._check_house_limits(game, s, player, on, amount)
            bet = {"id": secrets.token_hex(4), "player": player, "on": on,
                   "amount": to_json_amount(amount)}
            shown = self._bets_closed(s, data.get("after_reveal"), "a bet")
            if shown:
                bet["after_reveal"] = True
                if shown.get("when"):  # (said so in the list of bets, not as "taken after the reveal")
                    bet["unseen"] = True
                s.setdefault("late_bets", []).append({
                    "note": f"{player}: {_plain(bet['amount'])} on {_target_said(game, s, on)} taken "
                            f"{shown.get('when', 'after the reveal')}{shown['doubt']}", "shown": shown["keys"],
                    **_reveal_of(s)})
            s["bets"].append(bet)
            s["pending"] = None
            self._save()
            return bet

    def _bets_closed(self, s: Mapping[str, Any], after_reveal: Any, what: str) -> dict | None:
        """Whether the cards the bets are on are shown already (RULES.md §3.1: the rows lie face down
        while bets are taken; Echobo's dealer's card is under the kamishita): then a bet taken or
        removed is refused, or, where the dealer says so (``after_reveal``), taken and marked. A bet
        changed with the outcome on the page had moved the dealer's top-up with it, unsaid. Where they
        are shown: the cards (their keys: the note is for the reveal of those cards) and, where all
        were read so in doubt, the words that say it; else None."""
        if after_reveal not in (None, False, True):
            raise InputError(f"after_reveal is true or false, not {after_reveal!r}")
        shown, in_doubt, keys = self._shown_before_settling(s)
        revealed = s.get("revealed") if isinstance(s.get("revealed"), Mapping) else None
        was = False
        if not shown and revealed and isinstance(revealed.get("zones"), list):
            shown, in_doubt, keys = list(revealed["zones"]), False, set(revealed.get("keys") or ())
            was = True
        if shown and after_reveal is not True:
            how = "are read face up, in doubt" if in_doubt else "were face up this round" if was else "are face up"
            # (and, where they lie no more, how bets open again: a deal revealed, not settled and dealt
            # again without the table lying bare, refused every bet of the next deal with no way out said)
            again = (" (they open again once this round is confirmed, or its deal gathered: the whole table "
                     "bare 2 seconds)") if was else ""
            raise InputError(f"the cards of {', '.join(shown)} {how}: bets close before the reveal; "
                             f"{what} now is taken only on the dealer's word (after_reveal), and marked so{again}")
        if not shown:
            # a table not being read shows its cards as last seen, face down: a bet taken while the
            # camera was away, the dealer's card turned meanwhile, was paid unmarked
            stale = _stale_table(self._snapshot()) if self._game().name in ROW_GAMES | {"echobo"} else None
            if stale is None:
                return None
            if after_reveal is not True:
                raise InputError(f"{stale.split(':')[0]}: whether the cards are still face down cannot be seen; "
                                 f"{what} is taken once the table is read again, or on the dealer's word "
                                 f"(after_reveal), and marked so")
            return {"keys": [], "doubt": "", "when": "while the table was not being read"}
        return {"keys": sorted(keys), "doubt": " (the cards read face up in doubt)" if in_doubt else ""}

    # the games whose stake is the session's (no bets): it plays the part of a bet
    SESSION_STAKES = {"otoroku": ("share", "the share"), "kabu-tsukuri": ("ante", "the ante")}

    def _refuse_stake_change_mid_round(self, old: Mapping[str, Any] | None, new: Mapping[str, Any],
                                       renamed: Mapping[str, str] | None = None) -> None:
        """In Otoroku and Kabu-Tsukuri the share or ante is the stake: like a bet (which is refused
        once the cards are shown, unless the dealer says so), it and the house rules change only
        between rounds, not while cards of this round lie on the table (changed with the cards face
        up, the round was booked at the new stake without a word)."""
        if not old or old.get("game") != new["game"] or new["game"] not in self.SESSION_STAKES:
            return
        key, what = self.SESSION_STAKES[new["game"]]
        game = get_game(new["game"])
        changed = [what] if _exact(old.get(key, 1)) != _exact(new.get(key, 1)) else []
        if game.resolve_house(old.get("house") or {}) != game.resolve_house(new.get("house") or {}):
            changed.append("the house rules")
        # Otoroku's seats: the last bettor (the last seat) may reach 16 where another bettor is buta
        # (RULES.md §4.1), and without zones drawn the hands lying are given to the seats in table
        # order. A player seated after him mid-round took the role from the hand dealt for it; one
        # seated before him, or one leaving, moved hands lying to other seats, with their money
        # (a name put right in its row, sent as ``renamed``, is the same seat: its hand, bust and
        # place go with it)
        if new["game"] == "otoroku" and [(renamed or {}).get(x, x) for x in old.get("seats") or ()] \
                != list(new.get("seats") or ()) and self._cards_of_this_round(old):
            last = (old.get("seats") or [None])[-1]
            raise InputError(f"cards of this round are on the table, dealt with {last} as the last bettor: "
                             f"Otoroku's seats (who plays, and in which order) change only between rounds "
                             f"(settle the round, or clear the table, first)")
        # Kabu-Tsukuri's players: without zones drawn, the columns of rows lying are the players' in
        # the order listed (left to right), and a player added (listed last) or one leaving moved the
        # rows lying, with their money, to other players
        # (a name put right in its row, sent as ``renamed``, moves no rows)
        if new["game"] == "kabu-tsukuri" and [(renamed or {}).get(p, p) for p in _player_names(old)] != _player_names(new) \
                and self._cards_of_this_round(old):
            raise InputError(f"cards of this round are on the table, dealt to {', '.join(_player_names(old))}: "
                             f"Kabu-Tsukuri's players (who plays, and in which order) change only between rounds "
                             f"(settle the round, or clear the table, first)")
        if changed and self._cards_of_this_round(old):
            raise InputError(f"cards of this round are on the table: {' and '.join(changed)} "
                             f"change{'s' if changed == [what] else ''} only between rounds "
                             f"(settle the round, or clear the table, first)")

    def _cards_of_this_round(self, s: Mapping[str, Any]) -> int:
        """How many cards of the round in play lie on the table (face up or down; the cards of the
        round just recorded, still lying, not counted)."""
        snap = self._snapshot()
        game = get_game(s["game"])
        old_tracks = set(s.get("settled_tracks") or ())
        old_places = set(s.get("settled_cards_all") or s.get("settled_cards") or ()) if not s.get("settled_gone") else set()
        zones = self.builder.build(snap, game, s, s.get("bets") or [], _corrections_in_force(snap, s)).zones
        # (face down too: a deal lying face down is this round's, and the ante or the rules changed
        # under it; the cards recorded, turned face down, are taken as gone for the next deal)
        return sum(1 for z in zones for c in z.cards if f"{c.get('track_id')}:{c.get('recognised')}" not in old_tracks
                   and _place_key(z.name, c) not in old_places) + sum(z.face_down or 0 for z in zones)

    def _shown_before_settling(self, s: Mapping[str, Any]) -> tuple[list[str], bool, set[str]]:
        """The zones of this round whose cards are hidden until the reveal and lie face up now (not
        counting the cards of the round just recorded, still lying), and whether every card of them
        read so is read in doubt (a face read unsure may be a back: the dealer is asked all the same,
        as a bet taken unsaid with the outcome in view is what the rule is for)."""
        game = self._game()
        if game.name not in ROW_GAMES and game.name != "echobo":
            return [], False, set()
        # (a table not being read now shows its cards as last seen: a bet taken while the camera was
        # away, the dealer's card last seen face up, was taken unmarked)
        snap = self._snapshot()
        old_tracks = set(s.get("settled_tracks") or ())
        old_places = set(s.get("settled_cards_all") or s.get("settled_cards") or ()) if not s.get("settled_gone") else set()
        shown, sure, keys = [], False, set()
        for z in self.builder.build(snap, game, s, s["bets"], _corrections_in_force(snap, s)).zones:
            if not (z.scored if game.name in ROW_GAMES else z.name == "dealer"):
                continue
            up = [c for c in z.cards if (c.get("corrected") or c.get("face") not in (None, BACK))
                  and f"{c.get('track_id')}:{c.get('recognised')}" not in old_tracks
                  and _place_key(z.name, c) not in old_places]
            if up:
                shown.append(zone_title(z))
                sure |= any(c.get("corrected") or not c.get("uncertain") for c in up)
                keys |= {k for c in up for k in _card_keys(z.name, c)}
                keys |= {f"track:{c.get('track_id')}" for c in up if c.get("track_id") is not None}
        return shown, bool(shown) and not sure, keys

    def _check_house_limits(self, game, s, player, on, amount) -> None:
        """The house's limits that a single new bet can already break (the rule engine checks them
        all again when the round is settled)."""
        house = game.resolve_house(s.get("house"))
        mine = [b for b in s["bets"] if b["player"] == player]
        total = amount + sum(_exact(b["amount"]) for b in mine)
        for key in ("max_bet", "bet_limit"):  # each player's stake in the round
            high = house.get(key)
            if isinstance(high, (int, float)) and not isinstance(high, bool) and total > _exact(high):
                raise InputError(f"{player} would stake {to_json_amount(total)} in this round, above the "
                                 f"house's {key} {high}")
        if game.name == "echobo":
            # a bettor holds one card of each month: a month number and a card of it are one card
            def month(x):
                return x if isinstance(x, int) else get_card(x).month
            months = {month(b["on"]) for b in mine}
            if month(on) in months:
                raise InputError(f"{player} already bets on month {month(on)}")
            # a bettor holds the card he bets on: a card has as many copies as there are decks (taken
            # now, two bets on one card were refused only once the dealer's card was turned)
            copies = house.get("deck_count", 1)
            holders = sorted({b["player"] for b in s["bets"] if b["on"] == on and b["player"] != player})
            if isinstance(on, str) and len(holders) >= copies:
                raise InputError(f"{', '.join(holders)} already bet{'s' if len(holders) == 1 else ''} on {on}, "
                                 f"and {copies} deck(s) hold {copies} of it: {player} cannot hold it too")
            # one deck holds four cards a month: the dealer's and three bettors' (RULES.md 7.1)
            bettors = {b["player"] for b in s["bets"]} | {player}
            most = 4 * house.get("deck_count", 1) - 1
            if len(bettors) > most:
                raise InputError(f"{house.get('deck_count', 1)} deck(s) serve the dealer and at most {most} "
                                 f"bettors: {player} would be bettor {len(bettors)}")
            if len(months) + 1 > house.get("max_cards", 6):
                raise InputError(f"{player} may bet on at most {house['max_cards']} cards in a round "
                                 f"(house rule max_cards)")
            if house.get("bet_mode") == "fixed_per_card":
                size = house.get("bet_size")
                fixed = _exact(size) if size is not None else (
                    _exact(s["bets"][0]["amount"]) if s["bets"] else None)
                if fixed is not None and amount != fixed:
                    raise InputError(f"every card carries the same stake of {to_json_amount(fixed)} "
                                     f"(house rule bet_mode fixed_per_card)")
            return
        max_cards = house.get("max_cards")
        if isinstance(max_cards, int) and not isinstance(max_cards, bool):
            if len({b["on"] for b in mine} | {on}) > max_cards:
                raise InputError(f"{player} may bet on at most {max_cards} cards in a round "
                                 f"(house rule max_cards)")

    def remove_bet(self, bet_id: str, data: Mapping[str, Any] | None = None) -> None:
        data = {} if data is None else data
        if not isinstance(data, Mapping):
            raise InputError('a bet\'s removal is sent with no body, or {"after_reveal": true}')
        only_fields(data, ("after_reveal",), "a bet's removal")
        with self._lock:
            s = self._require_session()
            _no_bet_changes_while_settling(s)
            gone = [b for b in s["bets"] if b["id"] == bet_id]
            if not gone:
                raise InputError(f"no bet {bet_id!r} (it may have been removed already)")
            shown = self._bets_closed(s, data.get("after_reveal"), "a bet's removal")
            if shown:
                b = gone[0]
                s.setdefault("late_bets", []).append({
                    "note": f"{b['player']}: {_plain(b['amount'])} on {_target_said(self._game(), s, b['on'])} removed "
                            f"{shown.get('when', 'after the reveal')}{shown['doubt']}", "shown": shown["keys"],
                    **_reveal_of(s)})
            if not shown and isinstance(s.get("revealed_gathered"), dict):
                b = gone[0]
                s["revealed_gathered"].setdefault("removed", []).append(
                    f"{b['player']}: {_plain(b['amount'])} on {_target_said(self._game(), s, b['on'])} removed after "
                    f"the reveal (the cards shown lay hidden a moment)")
            s["bets"] = [b for b in s["bets"] if b["id"] != bet_id]
            s["pending"] = None
            self._save()

    # --- Otoroku: the bettors the dealer chooses to show down with ------------------------------
    def choose(self, data: Mapping[str, Any]) -> list[str] | None:
        only_fields(data, ("chosen",), "the choice")
        with self._lock:
            s = self._require_session()
            if s["game"] != "otoroku":
                raise InputError("only in Otoroku does the dealer choose the bettors to show down with")
            if not isinstance(data, Mapping) or "chosen" not in data:  # (anything else read as "everyone")
                raise InputError('send {"chosen": [the seats]}, or {"chosen": null} for everyone')
            chosen = data["chosen"]
            if chosen is not None:
                seats = s.get("seats") or [p["name"] for p in s["players"]]
                if not isinstance(chosen, list) or any(c not in seats for c in chosen):
                    raise InputError(f"choose among the seats {', '.join(seats)}")
                chosen = [x for x in seats if x in chosen]
                # the dealer's hand read whole and surely, and it does not let him choose: the choice
                # taken was refused only at Settle, and held the round back
                try:
                    dealer = next((z for z in self.build().zones if z.name == "dealer"), None)
                except RoundError:  # (a table that cannot be read holds nothing against the choice)
                    dealer = None
                if dealer is not None and len(dealer.cards) >= 2 and _read_surely(dealer) \
                        and not _otoroku_dealer_may_choose([dealer], self._game().resolve_house(s.get("house"))):
                    raise InputError("the dealer's hand does not let him choose the bettors he shows down with "
                                     "(two cards totalling 10 or more, not buta): everyone shows down")
            if chosen != s.get("chosen") and s.get("pending"):
                # (it voided the settlement unsaid: gone from every tablet, Confirm told it was cancelled)
                raise InputError("a settlement is waiting: Cancel it first (it settles the bettors chosen "
                                 "as they stand)")
            s["chosen"] = chosen
            self._save()
            return chosen

    def forget_bust(self, data: Mapping[str, Any]) -> None:
        """Otoroku: the bust remembered for a seat is the dealer's to take back (a card passing over
        the hand, read with it as a bust, is not told from a card drawn by the states alone)."""
        only_fields(data, ("seat",), "the bust to forget")
        with self._lock:
            s = self._require_session()
            if s["game"] != "otoroku":
                raise InputError("only Otoroku remembers a bust hand discarded")
            seat = data.get("seat") if isinstance(data, Mapping) else None
            if not isinstance(seat, str) or seat not in (s.get("busts") or {}):
                raise InputError(f"no bust is remembered for {seat!r}")
            if s.get("pending"):
                raise InputError("a settlement is waiting: Cancel it first (it settles the bust as it stands)")
            s["busts"] = {k: v for k, v in s["busts"].items() if k != seat}
            self._save()

    # --- corrections -----------------------------------------------------------------------------
    def correct(self, data: Mapping[str, Any]) -> dict:
        only_fields(data, ("track_id", "card", "face"), "a correction")
        with self._lock:
            s = self._require_session()
            if not isinstance(data, Mapping) or "track_id" not in data:
                raise InputError("a correction names the card on the table (track_id) and the right card")
            track = str(data["track_id"])
            snap = self._snapshot()
            zones, _, unassigned = table_zones(snap)
            on_table = {str(c.get("track_id")) for cards in zones.values() for c in cards}
            on_table |= {str(c.get("track_id")) for c in unassigned}
            card = data.get("card")
            if card in (None, ""):
                if track not in s["corrections"]:
                    # nothing to undo: the settlement shown stays (it was voided, to be settled again)
                    return {"track_id": track, "card": None}
                s["corrections"].pop(track, None)
                (s.get("corrected_readings") or {}).pop(track, None)
            else:
                if track not in on_table:
                    raise InputError(f"there is no card {track} on the table now (it may have been picked up)")
                # the face the page showed as read, where it says (the chooser open, another card laid in
                # its place on the same track: the tap was for the card shown, and named the one now
                # there as it, and the round was settled on it)
                shown = data.get("face")
                now = next((c.get("face") for c in _cards_seen(snap) if str(c.get("track_id")) == track), None)
                if shown is not None and shown != now:
                    raise InputError(f"card {track} is read now as {card_label(now) if now else 'nothing'}, not "
                                     f"{card_label(shown) if isinstance(shown, str) else repr(shown)} as it was when "
                                     f"tapped (another card laid in its place?): look at it, and tap it again")
                if s["game"] == KAKEYA:
                    if not is_western_card(card):
                        near = nearest_western_ids(card)
                        hint = f" (did you mean {', '.join(near)}?)" if near else ""
                        raise InputError(f"unknown western card {card!r}{hint}")
                    # a card of a trick already recorded: the tap would change nothing recorded
                    shown = {(str(c["track_id"]), c["card"]) for c in self._trick_cards(snap, s)}
                    for n, trick in enumerate(s["tricks"], 1):
                        ring = {(str(r.get("track_id")), r.get("card")) for r in trick.get("ring") or ()}
                        if ring and ring == shown and any(t == track for t, _ in ring):
                            raise InputError(f"this card is in trick {n}, recorded already: correct that trick "
                                             f"with Replace (trick {n})")
                elif not is_card(card):
                    near = nearest_ids(card)
                    hint = f" (did you mean {', '.join(near)}?)" if near else ""
                    raise InputError(f"unknown card {card!r}{hint}")
                s["corrections"][track] = card
                # a card laid where another lay (the next trick's, a card swapped or put back) may go
                # on with its track: the tap holds for the card that was read so, not for whatever
                # takes its place (_corrections_in_force)
                read = next((c.get("card") for c in _cards_seen(snap) if str(c.get("track_id")) == track), None)
                s.setdefault("corrected_readings", {})[track] = read
            # (a settlement waiting is voided by the tap: said, or it simply vanished from the page)
            cancelled = s.get("pending") is not None
            s["pending"] = None
            self._save()
            return {"track_id": track, "card": card, **({"settlement_cancelled": True} if cancelled else {})}

    def set_deck_exhausted(self, data: Mapping[str, Any]) -> bool:
        """The dealer says the deck ran out while redrawing a tie (the pot then carries over)."""
        only_fields(data, ("exhausted",), "the deck running out")
        with self._lock:
            s = self._require_session()
            game = self._game()
            house = game.resolve_house(s.get("house"))
            if not tie_redraw_rows(game.layout(layout_setup(s)), house):
                raise InputError(f"the deck running out matters only when ties are redrawn; "
                                 f"{s['game']} here breaks ties by {house.get('tie_rule', 'its own rules')!r}")
            value = data.get("exhausted") if isinstance(data, Mapping) else None
            if not isinstance(value, bool):
                raise InputError("say whether the deck has run out: {\"exhausted\": true or false}")
            if value != bool(s.get("deck_exhausted")) and s.get("pending"):
                # (it voided the settlement unsaid, as the bettors chosen did)
                raise InputError("a settlement is waiting: Cancel it first (it settles the redraw as it "
                                 "stands)")
            s["deck_exhausted"] = value
            self._save()
            return value

    # --- Kakeya's tricks ----------------------------------------------------------------------------
    def _require_kakeya(self) -> dict:
        s = self._require_session()
        if s["game"] != KAKEYA:
            raise InputError(f"tricks are recorded only in Kakeya Toranpu; this session plays {s['game']}")
        return s

    def _trick_cards(self, snap: Mapping[str, Any] | None, s: Mapping[str, Any]) -> list[dict]:
        """The trick zone's cards as the page shows them, the dealer's corrections applied. A card of
        the trick being played that the dealer put right (read as another), then lifted or hidden long
        enough to leave, or numbered afresh by a restart, comes back unsure where the camera still
        reads it as it did: read surely, the trick was recorded on the misreading, unsaid."""
        zones, _, unassigned = table_zones(snap)
        out = []
        fixes = _corrections_in_force(snap, s)  # (not for another card now on the tapped card's track)
        played = {c for t in s.get("tricks") or () for c in t.get("cards") or ()}
        doubts = lifted_corrections(s, zones, unassigned)
        doubts.update((d.get("read"), d.get("card")) for d in s.get("restart_doubts") or ()
                      if isinstance(d, Mapping))
        # (a card named that a trick recorded holds was played as named: its reading is another card)
        doubts = {read: named for read, named in doubts.items() if named not in played}
        for pos, c in enumerate(zones.get(TRICK_ZONE, []), start=1):
            fix = fixes.get(str(c.get("track_id")))
            named = None if fix else doubts.get(c.get("card"))
            out.append({"track_id": c.get("track_id"), "card": fix or c.get("card"), "face": c.get("face"),
                        "recognised": c.get("card"), "confidence": c.get("confidence"),
                        "uncertain": (bool(c.get("uncertain")) or bool(named)) and not fix, "corrected": bool(fix),
                        "position": pos, "quad": c.get("quad"), **({"named_before": named} if named else {}),
                        # (whether the card tapped was in doubt: the history said "unsure, confirmed" of
                        # every card of a trick the dealer tapped, read surely or not)
                        **({"read_uncertain": bool(c.get("uncertain"))} if fix else {})})
        return out

    def _note_deal_gathered(self, s: dict, snap: Mapping[str, Any]) -> None:
        """The table seen bare after a bet was taken or removed after the reveal: that deal was gathered
        unsettled, and the note says so with the round it is recorded in (told by the cards alone, a
        card of the new deal lying where the same face lay, as a month's look-alike chaff often does,
        made the note this round's)."""
        now = time.monotonic()
        zones, down, unassigned = table_zones(snap)
        if _stale_table(snap):
            # (no cards seen on a table not being read is no bare table; bare long enough before the
            # camera went, it was gathered all the same: long enough with the time a stalled camera
            # takes to be said stalled, as that time showed the table as last read)
            # (a camera lost is said at once; one that stalls, with the camera "ok", only after a while)
            stalled = ((snap or {}).get("status") or {}).get("camera", "ok") == "ok"
            if self._bare_since is None or now - self._bare_since < GATHERED_S + (STALL_SAID_S if stalled else 0):
                self._bare_since = None
                return
        elif not any(zones.values()) and not any(down.values()) and not unassigned:
            # bare, face-down cards and all; gathered once it stayed so for a while (a hand held over
            # the deal for a moment, or over the one card lying, is no deal gathered), told when it is
            # so, or when the next deal's first cards come
            self._bare_since = self._bare_since if self._bare_since is not None else now
            if now - self._bare_since < GATHERED_S:
                return
        elif self._bare_since is None or now - self._bare_since < GATHERED_S:
            self._bare_since = None
            return
        self._bare_since = None
        for entry in s["late_bets"]:
            if isinstance(entry, dict) and entry.get("shown"):
                entry["gathered"] = True
        try:
            self._save()
        except (LedgerError, InputError):  # (undone by _save: noted again at the next look)
            pass

    def _note_settled_cards_gone(self, s: dict, snap: Mapping[str, Any]) -> None:
        """Once the live table shows none of the cards of the round just recorded (gathered, or turned
        face down for the next deal), the same cards laid again are a new round (Echobo's bettors
        may lay the card of last round again). Until then they are the round recorded, whatever
        tracks the camera gives them: a hand held over one card gave it a new one, and the whole
        round was settled and booked again."""
        if _stale_table(snap):
            return  # (cards not seen on a table not being read are not gone)
        zones, _, unassigned = table_zones(snap)
        placed = {k for name, cards in zones.items() for c in cards if (k := _place_key(name, c)) is not None}
        tracks = {str(c.get("track_id")) for cards in zones.values() for c in cards} | {
            str(c.get("track_id")) for c in unassigned if c.get("face") not in (None, BACK)}
        settled_tracks = {k.split(":", 1)[0] for k in s.get("settled_tracks") or ()}
        # each card by itself too: one seen gone is gone (gathered, to be dealt again), while those
        # still lying stay known by place and card, after a restart or under a new track (a row left
        # beside the next round's was settled with it once its tracks were new)
        lying = [k for k in s["settled_cards"] if k in placed]
        # (gone only once none of the round's cards lies: one left out of the list under a hand, seen
        # again on a new track while a hand covers the others, is still one of them)
        whole = s.get("settled_cards_all") or s["settled_cards"]
        if lying or any(k in placed for k in whole) or tracks & settled_tracks:
            if len(lying) < len(s["settled_cards"]):
                s["settled_cards"] = lying
                try:
                    self._save()
                except (LedgerError, InputError):  # (undone by _save: noted again at the next look)
                    log.warning("the ledger refused to note that some of the cards recorded are gone")
            return
        s["settled_gone"] = True
        # (and by track those turned face down where they lie: the tracker keeps a card's number through
        # a turn face down and up again, and the next reveal of the same card on it was taken for the
        # round recorded: bets stayed open with the dealer's card shown. Not the others: a hand over
        # the whole table a moment, its cards back on their numbers, was booked a second time)
        backs = _backs_lying(snap)
        s["settled_tracks"] = [k for k in s.get("settled_tracks") or () if k.split(":", 1)[0] not in backs]
        try:
            self._save()
        except (LedgerError, InputError):  # (undone by _save: noted again at the next look at the table)
            log.warning("the ledger refused to note that the cards recorded are gone")

    def _let_go_turned_tracks(self, s: dict, snap: Mapping[str, Any]) -> None:
        """A card of the round recorded seen face down where it lies, after the round's cards were seen
        gone (a hand over the table a moment first): its track is the next deal's (turned up again on
        it, the dealer's card was taken for the round recorded, and a bet was taken with it shown)."""
        if _stale_table(snap):
            return
        backs = _backs_lying(snap)
        kept = [k for k in s["settled_tracks"] if k.split(":", 1)[0] not in backs]
        if len(kept) < len(s["settled_tracks"]):
            s["settled_tracks"] = kept
            try:
                self._save()
            except (LedgerError, InputError):  # (undone by _save: noted again at the next look)
                pass

    def observe_table(self, snap: Mapping[str, Any] | None = None) -> None:
        """What the table's change means for the session (called on every change of the table, and
        before the page is drawn): the cards of the round just recorded seen gone, Otoroku's busts
        remembered, and Kakeya's trick in the middle read when it is complete and sure."""
        with self._lock:
            s = self.session
            if s and (s.get("settled_cards") or s.get("settled_cards_all")) and not s.get("settled_gone"):
                self._note_settled_cards_gone(s, self._snapshot() if snap is None else snap)
                s = self.session  # (a save refused put back the session as recorded)
            if s and s.get("settled_gone") and s.get("settled_tracks"):
                self._let_go_turned_tracks(s, self._snapshot() if snap is None else snap)
                s = self.session
            if s and not s.get("pending") and any(isinstance(e, dict) and e.get("shown") and not e.get("gathered")
                                                  for e in s.get("late_bets") or ()):
                self._note_deal_gathered(s, self._snapshot() if snap is None else snap)
                s = self.session
            else:
                self._bare_since = None  # (timed only while a note waits: a bare look of before is no guide)
            if s and s.get("game") in SEATED_GAMES and not _stale_table(snap := self._snapshot() if snap is None else snap):
                if self._places_to_restore is not None and self._restore_seat_places(s):
                    snap = self._snapshot()  # (the hands lying given their seats by them)
                self._note_seat_places(s, snap)
                s = self.session
            if s and s.get("game") == "otoroku" and not s.get("pending") and not _stale_table(
                    snap := self._snapshot() if snap is None else snap):
                self._hands_shrunk(snap, set(s.get("busts") or ()))  # (noted as the table changes: the time a card went matters)
                self._note_busts(s, snap)
                return
            if s and (s["game"] in ROW_GAMES or s["game"] == "echobo") and not s.get("pending") \
                    and not _stale_table(snap := self._snapshot() if snap is None else snap):
                lying = _cards_lying(snap)
                gathered = s.get("revealed_gathered")
                # (a card of a new deal: it is dealt; or where the reveal lay, cards face down only: a new
                # deal laid face down, its card turned where the same face lay no deal come back)
                if gathered and (any(not (set(card) & set(gathered.get("seen") or ())) for card in lying)
                                 or not lying and self._face_down_where_revealed(snap)):
                    s["revealed_gathered"] = None
                    self._save()
                if not s.get("revealed"):
                    # the cards the bets are on, seen face up surely this round: bets stay closed
                    # (judged by the table as it is now, the dealer's card turned face down again, or
                    # lifted and laid again, let a bet be taken unmarked with the outcome seen)
                    shown, in_doubt, keys = self._shown_before_settling(s)
                    if shown and not in_doubt:
                        if s.get("revealed_gathered") and self._same_cards_back(s["revealed_gathered"], snap, lying):
                            self._reveal_back(s)
                        else:
                            s["revealed_gathered"] = None
                            # (with the cards seen since, by track and by place and face: the same
                            # cards back after the deal was taken for gathered were only hidden a moment)
                            s["revealed"] = {"zones": shown, "keys": sorted(keys), "id": secrets.token_hex(4),
                                             "seen": sorted({k for card in lying for k in card})}
                        self._save()
                elif isinstance(s["revealed"], dict):
                    # (kept with the session, a few writes a deal: a restart in the moment hidden knew none)
                    seen = {k for card in lying for k in card}
                    # (bounded: a deal's cards, seen a few ways; past that, a card on a new track each look,
                    # only by place and face, which are few: frozen, the cards turned later went unknown)
                    if len(s["revealed"].get("seen") or ()) >= SEEN_KEPT:
                        seen = {k for k in seen if k.startswith("place:")}
                    if not seen <= set(s["revealed"].get("seen") or ()):
                        s["revealed"]["seen"] = sorted(seen | set(s["revealed"].get("seen") or ()))
                        try:
                            self._save()
                        except (LedgerError, InputError):  # (undone by _save: noted again at the next look)
                            pass
                # (the dealer's word that the deck ran out is of the tie he said it of: kept past a
                # deal gathered unsettled, the next deal's tie was carried without a redraw; and the
                # next deal's bets are taken before its reveal)
                if (s.get("deck_exhausted") or s.get("revealed")) and self._deal_gathered(snap):
                    s["deck_exhausted"] = False
                    if s.get("revealed"):
                        # (kept aside: a table hidden whole a moment, the same cards seen again, is no
                        # deal gathered; the bets taken meanwhile were paid unmarked with the outcome seen)
                        # (kept with the session: a restart, or Settings saved, in the moment hidden)
                        s["revealed_gathered"] = dict(s["revealed"], bets=[b.get("id") for b in s.get("bets") or ()],
                                                      removed=[])
                    s["revealed"] = None
                    self._save()
                return
            self._busts_bare_since = None  # (a table not read is no table seen bare)
            if not s or s.get("game") != KAKEYA or game_over(s.get("stones")):  # (no hand is played once the game is over)
                return
            if s.get("pending") or len(s["tricks"]) >= TRICKS:
                self._note_next_hands_cards(s, snap)
                return
            self._next_hand_watch = None
            if s.get("next_hands_tricks"):  # (an undo took the hand below thirteen tricks: not the next hand's)
                s["next_hands_tricks"] = None
                self._save()
            snap = self._snapshot() if snap is None else snap
            if _stale_table(snap):
                # not the trick as it is now: a table that could not be read shows no cards, and was
                # taken for the trick gathered unread. A trick played meanwhile goes unseen: said
                # (where to enter it) until the hand is whole
                # (not before this server has read the table: the frames of its start are no gap)
                # (at the start of a hand too: trick 1 played unseen made trick 2 the first, and every
                # trick after it went to the wrong players, unsaid)
                # (each time it goes: a second gap in the hand, the first still said, went unsaid,
                # and a trick missed in it was entered where the first said)
                if self._table_read and self._gap_from is None:
                    gaps = _camera_gaps(s)
                    added = len(s["tricks"]) if len(s["tricks"]) not in gaps else None
                    if added is not None:
                        _set_camera_gaps(s, gaps + [added])
                    self._gap_from = (self._zone_read, time.monotonic(), added)
                    self._save()
                return
            picture = self._picture()
            if s.get("known_seats") and picture and s.get("known_seats_picture") != picture:
                # the seats of the hands before, kept on another picture (a restart with another
                # --rotate): read from the camera's order again
                s.pop("known_seats", None)
                s.pop("known_seats_picture", None)
                self._save()
            if self.trick_watch is None:
                self.trick_watch = TrickWatch(len(active_players(s)))
                # the trick recorded last (or the last of the hand before), still lying, is read: its
                # card tapped in doubt comes back amber once the tap is gone (a Confirm, a restart),
                # and gathered it was taken for a trick missed, which held the next hand for good
                self.trick_watch.mark_read([{"track_id": None, "card": c}
                                            for cards in _last_trick_readings(s) for c in cards])
            in_zone = self._trick_cards(snap, s)
            changed = False
            zone = frozenset((c.get("track_id"), c.get("card")) for c in in_zone)
            if self._gap_from is not None:
                # back with the trick lying as it lay, cards on it or a moment only: nothing was missed
                before, since, added = self._gap_from
                self._gap_from = None
                # (or the middle bare when it went, and back within moments: no whole trick was laid
                # and gathered meanwhile, a card or two laid since are the trick being played)
                short = time.monotonic() - since < GAP_UNSEEN_S
                if added in _camera_gaps(s) and (zone == before and (before or short) or not before and short):
                    _set_camera_gaps(s, [g for g in _camera_gaps(s) if g != added])
                    changed = True
            if s["tricks"] and (not self._table_read or self._restart_gap):
                # as read before the restart, or as the camera reads them now (a card it read in doubt,
                # named by the dealer, is read so again)
                last = _last_trick_readings(s) + [[c.get("recognised") or c.get("card")
                                                  for c in s["tricks"][-1].get("read") or ()]]
                lying = [Counter(c.get(k) for c in in_zone) for k in ("card", "recognised")]
                lying_last = any(now == Counter(cards) for now in lying for cards in last if cards)
                if not self._table_read and len(s["tricks"]) not in _camera_gaps(s) and not lying_last:
                    # the first reading since this server started, mid-hand, and the last trick recorded
                    # does not lie there: a trick played and gathered while it was down went unseen,
                    # and entered as the next trick it went to the wrong players. Looked at again until
                    # a card of another trick comes (a card of it under a hand, or still entering the
                    # tracker, at the first look)
                    _set_camera_gaps(s, _camera_gaps(s) + [len(s["tricks"])])
                    self._restart_gap = True
                    changed = True
                elif self._restart_gap and len(s["tricks"]) in _camera_gaps(s) and lying_last:
                    _set_camera_gaps(s, [g for g in _camera_gaps(s) if g != len(s["tricks"])])
                    self._restart_gap = False
                    changed = True
                elif self._restart_gap and any(c.get("card") not in {x for cards in last for x in cards} and
                                               c.get("recognised") not in {x for cards in last for x in cards}
                                               for c in in_zone):
                    self._restart_gap = False
            self._table_read, self._zone_read = True, zone
            last_tracks = {str(c.get("track_id")) for c in s["tricks"][-1].get("read") or ()} if s["tricks"] else set()
            if not s.get("undone_trick"):
                self._undone_tracks, self._bare_after_undo, self._undone_tracks_unknown = set(), False, False
            elif not self._undone_tracks and not self._bare_after_undo:
                # (since a restart the tracks of the trick undone are not known: taken once its cards
                # are seen lying, so that gathered and laid again it is read; unknown, the trick laid
                # again was passed over, and the next trick went in its place with the wrong players)
                # (the middle seen bare: gathered, or under a hand; the table is read here, not at the
                # frames of a start)
                if _is_undone_trick(in_zone, s):
                    self._undone_tracks = {str(c.get("track_id")) for c in in_zone}
                elif not in_zone:
                    self._bare_after_undo = self._undone_tracks_unknown = True
            elif self._undone_tracks and not in_zone:
                self._bare_after_undo = True
            elif self._bare_after_undo and any(str(c.get("track_id")) not in self._undone_tracks for c in in_zone):
                if self._undone_tracks_unknown and _is_undone_trick(in_zone, s):
                    # (bare since a restart, then the whole trick undone at once: a hand lifted off it,
                    # its cards on new tracks as every card since the restart. Taken for gathered, the
                    # trick undone was read straight back in; laid again, its cards come one by one)
                    self._undone_tracks = {str(c.get("track_id")) for c in in_zone}
                    self._bare_after_undo = self._undone_tracks_unknown = False
                else:
                    # the middle bare, then a card on a new track: the trick undone was gathered, and
                    # laid again it is read (kept from it, the next trick went in its place with the
                    # wrong players). A hand passing over it, its cards back on their tracks, changes nothing
                    s["undone_trick"] = None
                    self._undone_tracks, self._bare_after_undo = set(), False
                    self._undone_tracks_unknown = False
                    changed = True
            if not in_zone:
                self._bare_after_trick = bool(s["tricks"])
            elif self._bare_after_trick and any(str(c.get("track_id")) not in last_tracks for c in in_zone):
                # the middle bare, then a card of the next trick: the trick recorded last was gathered,
                # and a tap on one of its cards was for that card, not for the next laid where it lay
                # (the tracker may give it the same track, and a card read as the one first misread
                # was shown as the card tapped, and not read). A hand passing over the cards, which
                # come back on their tracks, forgets none
                self._bare_after_trick = False
                # (a tap made since, for a card of the next trick on one of those tracks, is its own)
                recorded = {str(c.get("track_id")): c.get("card") for c in s["tricks"][-1].get("read") or ()}
                gone = {t for t in last_tracks & set(s["corrections"]) if s["corrections"][t] == recorded.get(t)}
                for track in gone:
                    s["corrections"].pop(track, None)
                    (s.get("corrected_readings") or {}).pop(track, None)
                if gone:
                    in_zone = self._trick_cards(snap, s)
                    changed = True
            # (as it was before this look: a trick read now but not written, the ledger refusing the
            # save, was taken as read for good, and the next trick went in its place)
            watched = copy.deepcopy(self.trick_watch)
            trick, warning = self.trick_watch.observe(in_zone)
            recorded = len(s["tricks"])  # (a trick missed comes before the one read now, if any)
            if trick is not None:
                house = self._game().resolve_house(s.get("house"))
                picture = self._picture()
                replayed = replay_tricks(s, house, s["tricks"], picture)
                leader = replayed.next_leader
                order = play_order(active_players(s), leader) if leader else None
                ring = ring_of(trick)
                trick, angles = order_trick(trick, order, replayed.seat_angles or s.get("seat_angles"))
                ids = [c["card"] for c in trick]
                played = {c for t in s["tricks"] for c in t["cards"]}
                twice = sorted({c for c in ids if ids.count(c) > 1})
                if any(set(ids) == set(u) for u in _undone_tricks(s)):
                    # a trick just undone, still on the table: read again only once a card of it is
                    # corrected (a tap), or it is gathered (and entered by hand); every trick undone
                    # since the last one read (undone twice, the one still lying there was recorded at
                    # once in the place of the one before it, with that one's players)
                    self.trick_watch.forget()
                elif twice:  # a misread: a trick is one card from each player, each card once in the pack
                    said = f"the trick on the table ({' '.join(ids)}) shows {', '.join(twice)} twice{MISREAD_HINT}"
                    changed |= s.get("trick_warning") != said
                    s["trick_warning"] = said
                    self._warned_tracks = frozenset(c.get("track_id") for c in trick)
                    # not recorded, so the same cards are read again once the misread one is corrected
                    self.trick_watch.forget()
                elif any(set(ids) == set(last) for last in _last_trick_readings(s)):
                    # the last trick, still on the table (read again after a restart), or the last
                    # trick of the hand just recorded, not yet gathered: not a trick of this hand
                    pass
                elif set(ids) & played:
                    said = (f"the trick on the table ({' '.join(ids)}) has cards already played: check the "
                            f"tricks recorded{MISREAD_HINT}")
                    if not self._zones_drawn:
                        # (the likelier cause, with every card in view read as the trick)
                        said += NO_TRICK_ZONE_HINT
                    changed |= s.get("trick_warning") != said
                    s["trick_warning"] = said
                    self._warned_tracks = frozenset(c.get("track_id") for c in trick)
                    # not recorded, so it is read again once the tricks recorded are put right or the
                    # misread card is tapped (kept as read, it was never recorded, and the next trick
                    # went in its place with the wrong leader)
                    self.trick_watch.forget()
                else:
                    # the ring: where the cards lay, from which replay_tricks works out who laid which
                    # (again whenever a trick before it or the first leader is corrected)
                    s["undone_trick"] = None
                    # (and the picture they lay on: a restart with another --rotate mid-hand turns
                    # the rings of the tricks read after it, and gave their cards to other players)
                    s["tricks"].append({"cards": ids, "source": "camera", "ring": ring,
                                        "read": [{k: v for k, v in c.items() if k != "quad"} for c in trick],
                                        **({"picture": picture} if picture else {})})
                    if len(s["tricks"]) >= TRICKS:
                        s["missed_tricks"] = []  # (the hand whole: none is missing)
                    if MISREAD_HINT in (s.get("trick_warning") or ""):
                        s["trick_warning"] = None  # it was about this trick, read right now
                    if angles:  # where each player lays his cards: the next tricks are read by it
                        s["seat_angles"] = angles
                    # (the picture the tricks were read on: the seats they give hold on it alone)
                    s["tricks_picture"] = self._picture() or s.get("tricks_picture")
                    changed = True
            if warning:
                # (said where it goes: entered as "the next trick" after the camera had read the
                # next ones in its place, the hand was settled on the wrong players)
                s["missed_tricks"] = sorted(list(s.get("missed_tricks") or ()) + [recorded])
                changed = True
            if changed:
                try:
                    self._save()
                except BaseException:
                    self.trick_watch = watched
                    raise

    def _same_cards_back(self, gathered: Mapping[str, Any], snap: Mapping[str, Any], lying: list[tuple[str, ...]]) -> bool:
        """Whether the cards face up now are those seen since the reveal, back after the table lay hidden:
        each on its track, or, where the tracker has forgotten it, where it lay with the same face, and
        then no card face down beside them where the reveal is (a new deal turned a card at a time,
        its first card where the same face lay, is no deal come back; Echobo's bettors' cards lie face
        down, and the dealer's card back where it lay was taken for a new reveal)."""
        seen = set(gathered.get("seen") or ())
        if not lying or not all(set(card) & seen for card in lying):
            return False
        if all(any(k.startswith("track:") and k in seen for k in card) for card in lying):
            return True
        return not self._face_down_where_revealed(snap)

    def _face_down_where_revealed(self, snap: Mapping[str, Any]) -> bool:
        """Whether a card lies face down where the reveal is (the rows scored; Echobo's dealer's card)."""
        game = self._game()
        hidden = {z.name for z in game.layout(layout_setup(self.session)) if z.scored} \
            if game.name in ROW_GAMES else {"dealer"}
        _, down, _ = table_zones(snap)
        return any(down.get(name) for name in hidden)

    def _reveal_back(self, s: dict) -> None:
        """The cards of the reveal seen again, on the tracks they lay on, after the table looked bare
        long enough to be taken for gathered (a body over it): the bets stay closed, and each bet
        taken or removed meanwhile is marked as after the reveal, as it was."""
        before = s.pop("revealed_gathered")
        s["revealed"] = {"zones": before.get("zones") or [], "keys": before.get("keys") or [],
                         "seen": before.get("seen") or [], **({"id": before["id"]} if before.get("id") else {})}
        kept = set(before.get("bets") or ())
        game = self._game()
        notes = s.setdefault("late_bets", [])
        for bet in s.get("bets") or ():
            if bet.get("id") not in kept and not bet.get("after_reveal"):
                bet["after_reveal"] = True
                notes.append({"note": f"{bet['player']}: {_plain(bet['amount'])} on {_target_said(game, s, bet['on'])} "
                                      f"taken after the reveal (the cards shown lay hidden a moment)",
                              "shown": list(s["revealed"]["keys"]), **_reveal_of(s)})
        notes.extend({"note": note, "shown": list(s["revealed"]["keys"]), **_reveal_of(s)}
                     for note in before.get("removed") or ())
        # (the notes of this reveal, taken for gathered with the deal, are this deal's again: they went
        # into the record as "after the reveal of an earlier deal, not settled"; not those of an earlier
        # deal's reveal, which may have shown the same cards where they lay)
        # (a note with no reveal named, taken before the reveal was noted or stored by an earlier
        # version: by the cards it was of)
        this = set(s["revealed"]["keys"]) | {k.split(":", 1)[1] for k in before.get("seen") or ()
                                             if isinstance(k, str) and k.startswith("place:")}
        for entry in notes:
            if not (isinstance(entry, dict) and entry.get("gathered")):
                continue
            if entry.get("reveal") == before.get("id") if entry.get("reveal") and before.get("id") \
                    else set(entry.get("shown") or ()) & this:
                del entry["gathered"]

    def _deal_gathered(self, snap: Mapping[str, Any]) -> bool:
        """Whether the whole table, the dealer's cards too, has now been seen bare GATHERED_S: the deal
        was gathered unsettled (said once; a hand over the table a moment is no deal gathered). Told
        when it is so, or when the next deal's first cards come."""
        now = time.monotonic()
        if self._busts_bare_since is not None and now - self._busts_bare_since >= GATHERED_S:
            self._busts_bare_since = None
            return True
        if not _bare(snap):
            self._busts_bare_since = None
        elif self._busts_bare_since is None:
            self._busts_bare_since = now
        return False

    def _restore_seat_places(self, s: Mapping[str, Any]) -> bool:
        """Give the table where each seat's hand lay before this server started, once its picture is
        known to be the one they were seen on (a restart with the cards lying read the hands in the
        table's order: beside a bust thrown in, each later hand took its neighbour's seat, the bust
        went unpaid and a 16 of the last bettor was charged as another's buta). Whether it was given."""
        picture = self._picture()
        if picture is None:  # (no frame yet: the picture may be another)
            return False
        kept, self._places_to_restore = self._places_to_restore, None
        remember = getattr(self.live, "remember_seat_places", None)
        if remember is None or self._zones_drawn or kept.get("picture") != picture \
                or kept.get("game") != s.get("game") or not isinstance(kept.get("places"), Mapping):
            return False
        remember(kept["places"])
        return True

    def _note_seat_places(self, s: dict, snap: Mapping[str, Any]) -> None:
        """Keep with the session where each seat's hand lay last (see _restore_seat_places), written
        when a hand has moved a quarter of a card or more since it was kept."""
        places_of = getattr(self.live, "seat_places", None)
        picture = self._picture()
        if places_of is None or self._zones_drawn or picture is None or self._places_to_restore is not None:
            return
        # (once a change of the table: each write wakes every page, whose look came back here, and a
        # bare table was written over and over, hundreds of times a second)
        version = (snap or {}).get("version")
        if version == self._places_noted_at:
            return
        self._places_noted_at = version
        places = {name: [round(x, 1), round(y, 1)] for name, (x, y) in places_of().items()}
        kept = s.get("seat_places") if isinstance(s.get("seat_places"), Mapping) else {}
        old = kept.get("places") if kept.get("picture") == picture and kept.get("game") == s["game"] else None
        if old == places:
            return
        if isinstance(old, Mapping) and set(old) == set(places):
            # (a card's size from every card lying, face-down ones too: with none, nothing has moved)
            sizes = [max(math.dist(q[i], q[(i + 1) % 4]) for i in range(4))
                     for q in _card_quads(snap) if len(q) == 4]
            if not sizes:
                return
            near = 0.25 * sorted(sizes)[len(sizes) // 2]
            try:
                if all(math.dist(old[n], places[n]) < near for n in places):
                    return
            except (TypeError, ValueError):  # (kept damaged: written anew)
                pass
        s["seat_places"] = {"game": s["game"], "picture": picture, "places": places}
        self._save()

    def _hands_shrunk(self, snap: Mapping[str, Any], busts: set[str]) -> list[str]:
        """Otoroku: each hand lying that showed more cards less than HAND_SHRUNK_S ago than it shows
        now, said as a problem (a hand only grows until it is thrown in whole: one a card short is
        one covered a moment, and its 16 was settled as the 11 left in view), even where it was gone
        whole a moment (under the dealer's sleeve, its cards then new to the tracker). A hand gone
        whole is thrown in, and one whose cards are all others (by their track ids), laid while the
        last hand still lay, is the next deal, no hand covered; so is a bust remembered (``busts``:
        thrown in a card at a time, or stacked face down). A hand seen first since this server started has no past to be short of."""
        now = time.monotonic()
        out = []
        up, down, _ = table_zones(snap)
        tracks = _zone_track_ids(snap)
        if not any(up.values()) and not any(down.values()):
            # the whole table bare: the hands gathered, not one covered (remembered, the next deal laid
            # within the wait was held as hands a card short of the last)
            self._hand_counts = {}
            return out
        for name in list(up) + [n for n in self._hand_counts if n not in up]:  # (a zone not shown is bare)
            count, ids = len(up.get(name, ())) + down.get(name, 0), tracks.get(name, set())
            last, before, larger = self._hand_counts.get(name, (count, set(), []))
            larger = [(t, n) for t, n in larger if now - t < HAND_SHRUNK_S]
            if before and ids and not ids & before and last:  # (the next deal laid where the last lay)
                larger = []
            elif count < last:  # (the larger count lasted until now)
                larger = larger + [(now, last)]
                # (the page drawn now says to wait: drawn again once the wait is over)
                timer = threading.Timer(HAND_SHRUNK_S + 0.1, self.hub.bump)
                timer.daemon = True
                timer.start()
            if count == 0:
                # (gone whole: thrown in, or covered whole a moment by the dealer's sleeve, its cards
                # seen again as new to the tracker; forgotten at once, two of its three cards seen
                # again were settled as the hand, the 16 as 11)
                if larger:
                    self._hand_counts[name] = (0, before | ids, larger)
                else:
                    self._hand_counts.pop(name, None)
                continue
            larger = [(t, n) for t, n in larger if n > count]
            self._hand_counts[name] = (count, ids, larger)
            if larger and name not in busts:
                who = "the dealer" if name == "dealer" else name
                out.append(f"{who}'s hand showed {max(n for _, n in larger)} cards a moment ago and shows {count} "
                           f"now: a card out of sight (under a hand?) is waited for {HAND_SHRUNK_S:g} seconds "
                           f"before the hand is taken as it lies")
        return out

    def _note_busts(self, s: dict, snap: Mapping[str, Any]) -> None:
        """Otoroku: a bettor's hand read whole and surely as buta is kept, so that it pays its share
        once discarded as the rules say (RULES.md §4.1): with its zone empty it was a hand thrown in
        unseen, and paid nothing, or the round could not be settled."""
        house = self._game().resolve_house(s.get("house"))
        seats = s.get("seats") or [p["name"] for p in s["players"]]
        if s.get("busts") or s.get("chosen") is not None:
            # the whole table bare a while, the dealer's cards too: the deal was gathered unsettled, and
            # its busts are not the next deal's (one was charged there, with the old deal's cards),
            # nor is the dealer's choice of whom to show down with (made on his old hand, it excused
            # him from paying the bettors not chosen in the next deal, unsaid)
            if self._deal_gathered(snap):
                s["busts"] = {}
                s["chosen"] = None
                self._save()
            if _bare(snap):
                return
        else:
            self._busts_bare_since = None
        busts = dict(s.get("busts") or {})
        # the cards of the round just recorded, still lying: not this round's (a bust of that round
        # was remembered again at once, and charged in the next)
        settled = set(s.get("settled_cards_all") or s.get("settled_cards") or ()) if not s.get("settled_gone") else set()
        for zone in self.builder.build(snap, self._game(), s, s["bets"], _corrections_in_force(snap, s)).zones:
            if zone.name == "dealer" or not zone.cards or not _read_surely(zone) \
                    or any(c.get("discarded") for c in zone.cards) \
                    or any(_place_key(zone.name, c) in settled for c in zone.cards):
                continue
            cards = [c["card"] for c in zone.cards]
            if _is_bust(cards, "last" if zone.name == seats[-1] else "bettor", house):
                busts[zone.name] = cards
            elif not Counter(cards) <= Counter(busts.get(zone.name) or ()):
                # read again, or corrected by the dealer, the hand is no bust: nor is it remembered as
                # one (a misread seen surely once, or a card passing through the zone, was charged);
                # but some of the bust's own cards, as it is thrown in a card at a time or a card is
                # hidden a moment, are that bust still
                busts.pop(zone.name, None)
        if busts != (s.get("busts") or {}):
            s["busts"] = busts
            self._save()

    def set_leader(self, data: Mapping[str, Any]) -> dict:
        """Who leads the first trick (the non-dealing pair leads it); whether a settlement waiting was
        cancelled by the change."""
        only_fields(data, ("player",), "the leader")
        with self._lock:
            s = self._require_kakeya()
            who = data.get("player") if isinstance(data, Mapping) else None
            active = active_players(s)
            if who not in active:
                raise InputError(f"the first trick is led by one of the players with a hand "
                                 f"({', '.join(active)}), not {who!r}")
            if len(active) == len(s["players"]) and who in (s.get("dealers") or []):
                raise InputError(f"{who} is of the dealing pair; the other pair leads the first trick")
            if who == s.get("leader"):  # (the same leader tapped again: a settlement shown was voided)
                return {"leader": who}
            cancelled = s.get("pending") is not None
            s["leader"] = who
            s["pending"] = None  # who led decides who played every trick: a settlement shown is void
            self._save()
            return {"leader": who, **({"settlement_cancelled": True} if cancelled else {})}

    def add_trick(self, data: Mapping[str, Any]) -> dict:
        """A trick entered by hand: its cards in the order played, from the player who leads it;
        ``at``: its place among the tricks (default: after the last; a trick the camera missed)."""
        only_fields(data, ("cards", "at"), "a trick")
        with self._lock:
            s = self._require_kakeya()
            over = game_over(s.get("stones"))
            if over:  # (taken, the Settings save of a new game was refused until it was undone)
                raise InputError(f"the game is over: {over} has no stones left; start a new game in Settings")
            if len(s["tricks"]) >= TRICKS:
                raise InputError(f"all {TRICKS} tricks are recorded: settle the hand, or undo a trick")
            played = {c for t in s["tricks"] for c in t["cards"]}
            try:
                cards = check_trick_cards(data.get("cards") if isinstance(data, Mapping) else None,
                                          len(active_players(s)), played)
            except RoundError as exc:
                raise InputError(str(exc)) from None
            before = sorted(s.get("missed_tricks") or ())
            if "at" not in data and before and before[0] < len(s["tricks"]):
                # (added after the tricks the camera read in its place, the hand was settled on the
                # wrong players, and nothing said so)
                raise InputError(f"the camera missed trick {before[0] + 1} and read {len(s['tricks']) - before[0]} "
                                 f"trick(s) after it: insert the missed trick as trick {before[0] + 1} (a trick added "
                                 f"goes after trick {len(s['tricks'])})")
            at = data.get("at", len(s["tricks"]) + 1)
            if not isinstance(at, int) or isinstance(at, bool) or not 1 <= at <= len(s["tricks"]) + 1:
                raise InputError(f"'at' is the place of the trick, 1 to {len(s['tricks']) + 1}, not {at!r}")
            s["tricks"].insert(at - 1, {"cards": cards, "source": "hand"})
            s["missed_tricks"] = _missed_entered_at(list(s.get("missed_tricks") or ()), at, len(s["tricks"]) - 1)
            if len(s["tricks"]) >= TRICKS:
                s["missed_tricks"] = []  # (the hand whole: none is missing)
            if MISREAD_HINT in (s.get("trick_warning") or "") and self.trick_watch is not None:
                # the trick warned of (a card misread), entered by hand as the warning says: lying there
                # still, it is read (it was read again at once, warned again, and when gathered a card
                # at a time taken for a trick missed, which held the hand for good)
                lying = self._trick_cards(self._snapshot(), s)
                # (only the trick warned of: gathered meanwhile, the next trick lying there is its own)
                if len(lying) == self.trick_watch.size and frozenset(c.get("track_id") for c in lying) == self._warned_tracks:
                    self.trick_watch.mark_read(lying)
                    if at == len(s["tricks"]):  # (its reading, lying there, is no trick of this hand)
                        s["tricks"][at - 1]["camera_read"] = [c["card"] for c in lying]
            elif self.trick_watch is not None:
                # entered by hand while it lies there (a card in doubt, not tapped): it is read, or
                # gathered it was taken for a trick missed. Only the trick entered: its sure cards are
                # among those entered (the next trick shares no card with it)
                lying = self._trick_cards(self._snapshot(), s)
                sure = [c.get("card") for c in lying if not c.get("uncertain")]
                if len(lying) == self.trick_watch.size and sure and set(sure) <= set(cards):
                    self.trick_watch.mark_read(lying)
                    if at == len(s["tricks"]) and Counter(c["card"] for c in lying) != Counter(cards):
                        # (as the camera reads it, lying there: read so again after a restart, it is
                        # this trick still, not a trick played unseen)
                        s["tricks"][at - 1]["camera_read"] = [c["card"] for c in lying]
            s["trick_warning"] = None
            # (a camera gap stays said: a second trick may have been missed in it, until the hand
            # has its thirteen; the place it says moves past the tricks entered there, and a gap
            # after the place of the trick entered moves on with the tricks after it)
            if _camera_gaps(s):
                _set_camera_gaps(s, [g + 1 if g >= at else g for g in _camera_gaps(s)])
            cancelled = bool(s.get("pending"))  # (said on the page, as a correction's is)
            s["pending"] = None
            self._save()
            return {"trick": at, "cards": cards, **({"settlement_cancelled": True} if cancelled else {})}

    def replace_trick(self, number: int, data: Mapping[str, Any]) -> dict:
        """Trick ``number`` (from 1) replaced by the cards the dealer enters (read wrong, or in the
        wrong order): its cards in the order played, from the player who led it."""
        only_fields(data, ("cards",), "a trick replaced")
        with self._lock:
            s = self._require_kakeya()
            if not 1 <= number <= len(s["tricks"]):
                raise InputError(f"there is no trick {number}: {len(s['tricks'])} recorded")
            played = {c for k, t in enumerate(s["tricks"], start=1) if k != number for c in t["cards"]}
            try:
                cards = check_trick_cards(data.get("cards") if isinstance(data, Mapping) else None,
                                          len(active_players(s)), played)
            except RoundError as exc:
                raise InputError(str(exc)) from None
            replaced = s["tricks"][number - 1]
            s["tricks"][number - 1] = {"cards": cards, "source": "hand"}
            # (its cards, read so, may still lie on the table: kept through a second replacement too)
            read = replaced.get("camera_read") or (list(replaced["cards"]) if replaced.get("source") == "camera" else None)
            if read:
                s["tricks"][number - 1]["camera_read"] = read
            s["trick_warning"] = None  # (a trick missed is still to be entered where it was missed)
            cancelled = bool(s.get("pending"))
            s["pending"] = None
            self._save()
            return {"trick": number, "cards": cards, **({"settlement_cancelled": True} if cancelled else {})}

    def none_missed(self) -> dict:
        """The dealer's word that no trick was missed where the page says one may have been (a hand
        passing over the middle, a card slid there and back, taken for a trick gathered unread): the
        warning goes, and a trick entered by hand is again added as the next one. The hand is still
        settled on its thirteen tricks only, so a trick truly missed still holds it."""
        with self._lock:
            s = self._require_kakeya()
            places = _missed_places(s)
            gap = bool(_camera_gaps(s)) and len(s["tricks"]) < TRICKS
            if not places and not gap:
                raise InputError("no trick is said to be missed")
            stale = _stale_table(self._snapshot())
            if gap and stale:  # (said again at the next look, while the table is still not read)
                raise InputError(f"the table is not being read ({stale}): a trick may still be played "
                                 f"unseen; say none was missed once it is read again")
            s["missed_tricks"] = []
            self._restart_gap = False
            s["camera_gap"] = None
            self._gap_from = None
            self._save()
            return {"cleared": places, "camera_gap": gap, "recorded": len(s["tricks"])}

    def undo_trick(self) -> dict:
        with self._lock:
            s = self._require_kakeya()
            if not s["tricks"]:
                raise InputError("no trick is recorded yet")
            removed = s["tricks"].pop()
            if self.trick_watch is not None:
                self.trick_watch.forget()
            if _camera_gaps(s):  # (a trick missed goes no later than the tricks left)
                _set_camera_gaps(s, [min(g, len(s["tricks"])) for g in _camera_gaps(s)])
            # (not read straight back in while it lies there as it was read)
            s["undone_trick"] = _undone_tricks(s) + [list(removed["cards"])]
            self._undone_tracks |= {str(c["track_id"]) for c in removed.get("read") or ()
                                    if isinstance(c, Mapping) and c.get("track_id") is not None}
            # (undone once its cards were gathered: the middle is bare already)
            self._bare_after_undo = self._table_read and not self._zone_read
            s["trick_warning"] = None
            # (a trick missed keeps its place: the trick taken back, entered again, comes before it; put
            # before it now, the trick entered again was taken for it)
            cancelled = bool(s.get("pending"))
            s["pending"] = None
            self._save()
            return {"trick": len(s["tricks"]) + 1, "cards": removed["cards"],
                    **({"settlement_cancelled": True} if cancelled else {})}

    def _build_kakeya(self, snap: Mapping[str, Any] | None) -> BuiltRound:
        s = self.session
        game = self._game()
        house = game.resolve_house(s.get("house"))
        active = active_players(s)
        _, down, _ = table_zones(snap)
        trick_zone = ZoneView(TRICK_ZONE, "Trick in play", "場の札", len(active), False, None,
                              tuple(self._trick_cards(snap, s)), down.get(TRICK_ZONE, 0))
        play = replay_tricks(s, house, s["tricks"])
        problems = list(play.problems)
        if s.get("trick_warning"):
            problems.append(s["trick_warning"])
        if _missed_places(s):
            problems.append(missed_trick_warning(_missed_places(s)))
        over = game_over(s.get("stones"))
        if over:
            problems.append(f"the game is over: {over} has no stones left; start a new game in Settings")
        if _camera_gaps(s) and len(play.tricks) < TRICKS:
            when, places = [], []
            for gap in _camera_gaps(s):
                goes = gap + 1  # (past the tricks entered by hand there since)
                while goes <= len(s["tricks"]) and s["tricks"][goes - 1].get("source") == "hand":
                    goes += 1
                when.append(f"after trick {gap} was recorded" if gap else "during the first trick")
                places.append(f"trick {goes}")
            where = (f"as {places[0]}" if len(places) == 1 else "where it was played: as " + " or as ".join(
                f"{place} (the {('first', 'second', 'third')[k] if k < 3 else f'{k + 1}th'} time)"
                for k, place in enumerate(places)))
            problems.append(f"the table was not read (the camera away, its reading stalled, or the server stopped) "
                            f"{', and '.join(when)}: a trick played meanwhile was not seen; if one is missing, "
                            f"enter it by hand {where}")
        if not problems and len(play.tricks) < TRICKS:
            problems.append(f"{len(play.tricks)} of {TRICKS} tricks recorded")
        cards = tuple({"zone": f"trick {t['trick']}", "position": k, "player": who, "card": card,
                       "source": t["source"], **_read_of(t, card)}
                      for t in play.tricks for k, (who, card) in enumerate(zip(t["players"], t["cards"]), start=1))
        round_ = round_document(s, play) if not problems else None
        return BuiltRound(round_, (trick_zone,), tuple(problems), cards)

    def kakeya_view(self, s: Mapping[str, Any]) -> dict:
        game = self._game()
        house = game.resolve_house(s.get("house"))
        play = replay_tricks(s, house, s["tricks"])
        active = active_players(s)
        trump = s.get("trump") or house["default_trump"]
        return {"recorded": list(play.tricks), "count": len(play.tricks), "of": TRICKS,
                "leader": s.get("leader"), "next_leader": play.next_leader,
                "next_order": play_order(active, play.next_leader) if play.next_leader in active else None,
                "pictures": play.pictures, "active": active, "dealers": s.get("dealers"),
                "stones": s.get("stones"), "game_over": game_over(s.get("stones")),
                "trump": trump, "rensho": rensho_of(trump, house["rensho_rule"]),
                "warning": "; ".join(filter(None, [s.get("trick_warning"), missed_trick_warning(_missed_places(s))
                                                    if _missed_places(s) else None])) or None,
                # (the page offers "none was missed" while one is said to be)
                "missed": bool(_missed_places(s)) or (bool(_camera_gaps(s)) and len(play.tricks) < TRICKS)}

    # --- the round -------------------------------------------------------------------------------
    def build(self, snapshot: Mapping[str, Any] | None = None):
        s = self._require_session()
        snap = self._snapshot() if snapshot is None else snapshot
        if s["game"] == KAKEYA:  # settled on the tricks recorded, not on the table as it is now
            return self._build_kakeya(snap)
        built = self.builder.build(snap, self._game(), s, s["bets"], _corrections_in_force(snap, s))
        stale = _stale_table(snap)
        if stale:
            return replace(built, round=None, problems=(*built.problems, stale))
        # (said after what else holds the round back: the cards of the round just recorded, lying
        # beside the next deal's, are gathered a card at a time)
        shrunk = self._hands_shrunk(snap, set(s.get("busts") or ())) \
            if s["game"] == "otoroku" and not s.get("pending") else []
        # a card face up outside every zone may be one of a hand's or a row's (laid a little apart):
        # settled without it, the hand would be another (a face-down one, a stock pile, holds nothing)
        _, _, unassigned = table_zones(snap)
        loose = [c for c in unassigned if c.get("face") not in (None, BACK) or c.get("uncertain")]
        if built.ready and loose:
            return replace(built, round=None, problems=(*built.problems, (
                f"{len(loose)} card(s) face up outside every zone: lay each in its row or hand (or draw the "
                f"zones again) before settling")))
        tracks = _settled_keys(built.cards)
        # known by place and card too: the tracker numbers a card afresh after a restart, or after a
        # few frames under a hand, until the cards recorded have left the table (settled_gone)
        placed = _placed_keys(built.cards) if not s.get("settled_gone") else set()
        if built.ready and (tracks and tracks <= set(s.get("settled_tracks") or ())
                            or placed and placed <= set(s.get("settled_cards_all") or s.get("settled_cards") or ())):
            # Settle and Confirm pressed again on the same table booked the same round twice
            return replace(built, round=None, problems=(*built.problems, "these are the cards of the round just "
                                                        "recorded: deal the next round before settling again (a "
                                                        "card of the new deal laid where the same card lay: lift "
                                                        "it a moment and lay it again)"))
        # some of them beside the next round's (a hand not yet gathered, the dealer's new cards laid by
        # his old ones): settled, they were booked a second time
        old = set(s.get("settled_tracks") or ())
        old_places = set(s.get("settled_cards") or ()) if not s.get("settled_gone") else set()
        lying = [c for c in built.cards if f"{c.get('track_id')}:{c.get('recognised')}" in old
                 or _place_key(c.get("zone"), c) in old_places]
        if lying:  # (said first where the round is not ready either: its advice is of the next round's cards)
            where = ", ".join(dict.fromkeys(str(c.get("zone")) for c in lying))
            return replace(built, round=None, problems=((
                f"{len(lying)} card(s) of the round just recorded still lie on the table ({where}): gather them "
                f"before settling the next round (a card of the new deal laid where the same card lay while the "
                f"table was not read: lift it a moment and lay it again)"), *built.problems))
        if shrunk:
            return replace(built, round=None, problems=(*built.problems, *shrunk))
        return built

    def settle(self) -> dict:
        """Freeze the table as it is now and settle it; the result waits for the dealer's confirm."""
        with self._lock:
            s = self._require_session()
            if s.get("pending"):  # (replaced, the page showing it was refused its Confirm)
                raise InputError("a settlement is waiting: Confirm it, or Cancel it to settle the table "
                                 "as it is now")
            snap = self._snapshot()
            built = self.build(snap)
            if not built.ready:
                raise InputError("cannot settle yet: " + "; ".join(built.problems))
            try:
                result = settle_round(built.round)
            except RoundError as exc:
                raise InputError(f"cannot settle: {_said_of_the_table(str(exc))}") from None
            unsettled = not_settled(result)
            if unsettled:
                raise InputError(f"cannot settle: {unsettled}")
            try:
                jpeg = self.live.jpeg() or b""
            except Exception:  # no picture is no reason to refuse the round
                jpeg = b""
            if s.get("late_bets"):  # (recorded with the round, as the history shows it)
                result = dict(result, late_bets=_late_notes(s["late_bets"], _placed_keys(built.cards) | {
                    f"track:{c.get('track_id')}" for c in built.cards if c.get("track_id") is not None}))
            s["pending"] = {"id": secrets.token_hex(6), "round": built.round, "result": result,
                            "cards": list(built.cards)}
            self._settlements_made[s["pending"]["id"]] = None
            while len(self._settlements_made) > 64:
                self._settlements_made.popitem(last=False)
            self._save()
            # kept with the session, so a restart between settle and confirm keeps the picture too;
            # written only once the settlement is (a settle refused, another server's, left its own
            # picture to be recorded with this one's round) and named by it
            try:
                self.ledger.set_meta("pending_jpeg", json.dumps({"pending": s["pending"]["id"],
                                                                 "jpeg": base64.b64encode(jpeg).decode()}))
            except LedgerError as exc:
                # the settlement is kept (answered as a failure, it waited all the same, and its
                # round was later booked with no picture and no word of it)
                log.warning("the table's picture of a settlement could not be kept: %s", exc)
                s["pending"]["no_picture"] = str(exc)
                try:
                    self._save()
                except LedgerError:  # (the note stays in memory: said on this page until a restart)
                    pass
            return s["pending"]

    def confirm(self, pending_id: Any) -> int:
        with self._lock:
            s = self._require_session()
            pending = s.get("pending")
            if not pending or pending_id != pending["id"]:
                # (a settlement made by another server on this ledger since this one last looked: said
                # as the change it is, not "settle the round first")
                self._refuse_if_recorded(pending_id, "nothing more to confirm")
                self._refuse_if_changed_meanwhile()
                if not pending and isinstance(pending_id, str) and pending_id in self._settlements_made:
                    raise InputError("this settlement was cancelled since it was shown (a Cancel, a "
                                     "correction, or the bets or the session changed, on this page or "
                                     "another): settle the round again")
            if not pending:
                raise InputError("nothing to confirm: settle the round first")
            if not isinstance(pending_id, str):  # (said "the settlement changed" when none was named)
                raise InputError('a confirmation names the settlement shown: {"pending": its id}')
            if pending_id != pending["id"]:
                raise InputError("the settlement changed since it was shown: check it and confirm again")
            after = dict(s, bets=[], corrections={}, corrected_readings={}, pending=None, chosen=None, busts={},
                         deck_exhausted=False, restart_doubts=[], late_bets=[], revealed=None, revealed_gathered=None)
            # the cards settled: the same cards still on the table are not settled again
            after["settled_tracks"] = sorted(_settled_keys(pending["cards"]))
            # (and by where they lie and what they are, which outlasts a restart: the tracker then
            # numbers the cards afresh)
            after["settled_cards"] = sorted(_placed_keys(pending["cards"]))
            # (each struck off the first list once seen gone; the second keeps them all, so the round
            # is gone only once none of them lies)
            after["settled_cards_all"] = list(after["settled_cards"])
            after["settled_gone"] = False  # (until the table is seen without them)
            if s["game"] in CARRY_GAMES:  # a tied round's pot goes to the next round
                after["carry"] = pending["result"].get("carry", 0) or 0
                # (and exactly, where a JSON number cannot hold the pot: the next round is played for it)
                after["carry_exact"] = pending["result"].get("carry_exact") if after["carry"] else None
                # (and who put it in: a pot given up goes back to them)
                after["carry_from"] = _stakers_json(pot_stakers(pending["result"], _stakers(s, self._stakers_on_the_books),
                                                                _pot(s))) \
                    if after["carry"] else None
            if s["game"] == "kabu-tsukuri" and pending["result"].get("next_dealer"):
                after["dealer"] = pending["result"]["next_dealer"]  # (house rule next_dealer)
            if s["game"] == KAKEYA:  # a new hand: the losing pair deals (§8)
                if pending["result"].get("stones_left"):
                    after["stones"] = {**(s.get("stones") or {}), **pending["result"]["stones_left"]}
                seated = replay_tricks(s, self._game().resolve_house(s.get("house")), s["tricks"],
                                       s.get("tricks_picture")).seat_angles
                if seated:  # where each player sat this hand: the next hands' tricks are read by it
                    after["known_seats"] = {**known_seats_of(s.get("known_seats")), **seated}
                    # (on this picture: on another turn or size, --rotate changed at a restart, they
                    # would seat every player at his neighbour's place)
                    after["known_seats_picture"] = s.get("tricks_picture")
                # a trick of the next hand read before this Confirm and gathered since was not recorded:
                # said, to be entered by hand at the start of the hand (one still lying is read). Not
                # once the game is over: there is no next hand
                now = self._trick_cards(self._snapshot(), s)
                lying = {c.get(k) for c in now for k in ("card", "recognised")}
                # (gone: fewer than half its cards lying, as the hand's own watch counts a trick gathered
                # unread; one card under a hand, or a trick being gathered, is left to that watch)
                gone = [t for t in _next_hands_tricks(s) if len(set(t) & lying) * 2 < len(t)]
                unread = [0] * len(gone) if not game_over(after.get("stones")) else []
                self._next_hand_watch = None
                after["next_hands_tricks"] = None
                after.update(tricks=[], tricks_picture=None, trick_warning=None, missed_tricks=unread, undone_trick=None, camera_gap=None,
                             previous_trick=list(s["tricks"][-1]["cards"]) if s["tricks"] else None,
                             # (and as the camera read it, where the dealer put it right by hand)
                             previous_read=(s["tricks"][-1].get("camera_read") if s["tricks"] else None),
                             dealers=pending["result"].get("next_dealers") or s.get("dealers"))
                after["leader"] = default_leader(after)
                self.trick_watch = None
            jpeg = _pending_picture(self.ledger.get_meta("pending_jpeg"), pending["id"])
            try:
                round_id = self.ledger.record_round(
                    round_=pending["round"], result=pending["result"],
                    rule_version=rule_version(s["game"]), cards=pending["cards"],
                    snapshot_jpeg=jpeg, session=after, pending_id=pending["id"])
            except SettlementGone as exc:
                # another server on this ledger recorded it (or settled anew): take the session as
                # stored, with its game's zones (it may have started another game since)
                self._refuse_if_recorded(pending["id"], "nothing more to confirm")  # (said with its round)
                self._take_stored_session()
                raise InputError(str(exc)) from None
            self.session = after
            self._recorded = copy.deepcopy(after)
            self._settlements_made[pending["id"]] = round_id
            self._bare_since = None
            if after.get("settled_cards") and after.get("game") != KAKEYA:
                # the cards gathered before the Confirm are gone now, not at the next look at the
                # table (the same card dealt again into its row was taken for one still lying)
                self._note_settled_cards_gone(after, self._snapshot())
            self.hub.bump()
            return round_id

    def _refuse_if_recorded(self, pending_id: Any, nothing_more: str) -> None:
        """A settlement confirmed already (on this server, a restart ago, or on another server on
        this ledger) is said so, with its round; the page then shows the session as it is now."""
        recorded = self._round_of_settlement(pending_id) if isinstance(pending_id, str) else None
        if recorded is None:
            return
        if not is_stored_session(self.ledger.get_meta("session"), self._recorded):
            self._take_stored_session()
        raise InputError(f"this settlement was recorded already, as round {recorded} (confirmed on another "
                         f"page): {nothing_more}")

    def _round_of_settlement(self, pending_id: str) -> int | None:
        """The round a settlement was confirmed as: known here, or by the ledger (a restart, or
        another server on it, confirmed it); None where it was not, or the ledger cannot say."""
        recorded = self._settlements_made.get(pending_id)
        if recorded is not None:
            return recorded
        if not pending_id.isascii():  # (ids are hex: a lone surrogate, which SQLite cannot take, was a 500)
            return None
        try:
            return self.ledger.round_of_settlement(pending_id)
        except LedgerError:  # (it cannot be read: nothing said of it, as before)
            return None

    def cancel_settlement(self, pending_id: Any = None) -> None:
        """Drop the settlement waiting. Named by its id (as the page does), only that one: a page
        left showing an older settlement cancelled the one settled since on another tablet, and a
        Cancel of one confirmed meanwhile said nothing, the dealer taking the round as not booked."""
        if pending_id is not None and not isinstance(pending_id, str):
            raise InputError('a cancel names the settlement shown: {"pending": its id}')
        with self._lock:
            s = self._require_session()
            pending = s.get("pending")
            # (asked of the ledger even where this server still has it waiting: another recorded it)
            self._refuse_if_recorded(pending_id, "nothing to cancel")
            if pending_id is not None and not (pending and pending["id"] == pending_id):
                # (one settled or cancelled by another server since this one looked: said as the
                # change it is, and the page shown as it is now)
                self._refuse_if_changed_meanwhile()
                if pending:
                    raise InputError("the settlement waiting is not the one shown (settled again on "
                                     "another page): check it, then Confirm or Cancel it")
                return  # (cancelled already, on this page or another: nothing waits)
            s["pending"] = None
            self._save()

    def _picture(self) -> dict | None:
        """The camera's picture as the page shows it (width, height, turn), None before a frame."""
        try:
            picture = self.live.picture() if callable(getattr(self.live, "picture", None)) else None
        except Exception:  # (a source that fails is said by the snapshot, not here)
            return None
        return dict(picture) if isinstance(picture, Mapping) else None

    def forget_known_seats(self) -> None:
        """The zones were drawn again (the camera moved): the seats of the hands before are no guide."""
        with self._lock:
            if self.session and self.session.pop("known_seats", None) is not None:
                self.session.pop("known_seats_picture", None)
                self._save()

    def _snapshot(self) -> dict:
        """The table now. A table source that fails (a camera driver raising, a bad reply) is shown
        as a camera away, with its error: the page and everything recorded stay, and nothing is
        settled on a table that could not be read."""
        try:
            snap = self.live.snapshot()
        except Exception as exc:  # any source's failure: said on the page, not a 500
            log.exception("the table source failed")
            return _failed_table(f"the table source failed: {type(exc).__name__}: {exc}")
        if snap is None:
            return {}
        if not isinstance(snap, Mapping):
            return _failed_table(f"the table source gave no table ({type(snap).__name__})")
        return snap

    # --- what the page shows ---------------------------------------------------------------------
    def view(self) -> dict:
        """Everything the page draws, as one JSON-ready dict (sent on every change)."""
        snap = self._snapshot()
        said = self._unrecorded
        version = snap.get("version")
        # (tried on this table already and refused: again once it changes. Each refusal woke every
        # page, whose look tried again at once, a thousand times a second while the ledger refused)
        if not (said and version is not None and version == self._unrecorded_at[0]
                and time.monotonic() - self._unrecorded_at[1] < RETRY_UNRECORDED_S):
            try:
                self.observe_table(snap)  # Kakeya: a trick completed on the table is recorded first
                self._unrecorded = None
            except (InputError, LedgerError) as exc:  # (not written: the page is drawn all the same)
                log.warning("the table's change could not be recorded: %s", exc)
                # (said on the page too: a trick read and not written was lost with a line in the log)
                self._unrecorded = (f"the table's change could not be recorded ({exc}): it is tried again when "
                                    f"the table changes, or at a look a moment later")
                self._unrecorded_at = (version, time.monotonic())
                # (a table that does not change wakes no page: looked at again once the wait is over)
                retry = threading.Timer(RETRY_UNRECORDED_S + 0.1, self.hub.bump)
                retry.daemon = True
                retry.start()
        if self._unrecorded != said:
            self.hub.bump()  # (the page drawn before says otherwise)
        key = (self.hub.version, int(snap.get("version", 0) or 0))
        cached = self._view_cache
        if cached and cached[0] == key and key[1] >= 0:  # (a failed read has no version to cache by)
            return cached[1]
        with self._lock:
            view = self._make_view(snap)
            view["version"] = f"{key[0]}.{key[1]}"
        self._view_cache = (key, view)
        return view

    def _make_view(self, snap: Mapping[str, Any]) -> dict:
        status = snap.get("status") or {}
        view: dict[str, Any] = {"table_time": snap.get("time"),
                                "camera": status.get("camera", "ok"), "error": status.get("error"),
                                "table": status.get("table", "live"), "banner": banner(status), "session": None, "zones": [],
                                "problems": [], "preview": None, "pending": None, "advice": None,
                                "redraw": None, "tricks": None, "can_settle": False}
        if self.ledger_note:  # (said over the table, whatever the camera does; no round is held by it)
            view["banner"] = "; ".join(filter(None, [view["banner"], f"Ledger: {self.ledger_note}"]))
        s = self.session
        if not s:
            view["problems"] = ["no session yet: choose the game and the players (Settings)"] + (
                [self.layout_note] if self.layout_note else [])
            return view
        game = get_game(s["game"])
        view["session"] = {"game": s["game"], "title_en": game.title_en, "title_ja": game.title_ja,
                           "house": house_as_played(game.resolve_house(s.get("house"))), "players": s["players"],
                           "bets": s["bets"], "limits": s.get("limits") or {},
                           # (the stake of the games without bets, shown on the title line: a share typed
                           # 10 for 1 was seen only in Settings, or in the settlement)
                           "share": s.get("share"), "ante": s.get("ante"),
                           "targets": _target_labels(game, s), "no_bets": NO_BETS.get(game.name),
                           "seats": s.get("seats"), "chosen": s.get("chosen"),
                           "card_kind": game.card_kind, "carry": s.get("carry") or 0,
                           # (as booked, to 6 decimals: the JSON number of a pot of 10^10 chips showed
                           # another millionth than the settlement that carried it)
                           "carry_text": result_texts({"carry": s.get("carry"), "carry_exact": s.get("carry_exact")})["carry"],
                           "dealer": s.get("dealer"), "deck": _deck_ids(game, s)}
        try:
            built = self.build(snap)
        except RoundError as exc:
            view["problems"] = [str(exc)]
            return view
        view["zones"] = [dict(z.to_json(), cards=[dict(c, label=_card_label(c)) for c in z.cards])
                         for z in built.zones]
        view["problems"] = list(built.problems) + ([self.layout_note] if self.layout_note else []) + (
            [self._unrecorded] if self._unrecorded else [])
        view["row_scores"] = revealed_scores(game, built.zones, game.resolve_house(s.get("house")))
        if game.name == "otoroku":
            view["dealer_may_choose"] = _otoroku_dealer_may_choose(built.zones, game.resolve_house(s.get("house")))
        if built.ready:
            try:
                view["preview"] = settle_round(built.round)
            except RoundError as exc:
                view["problems"] = [_said_of_the_table(str(exc))]
            else:
                unsettled = not_settled(view["preview"])
                if unsettled:
                    view["problems"] = [unsettled]
                # what settle() asks, so the page offers Settle only when it would be taken
                view["can_settle"] = not unsettled and not s.get("pending")
        short = _short_stake(game, s)
        if short and short not in view["problems"]:
            # said while the cards are face down: found at the reveal, it could be mended only by a
            # bet changed with the outcome known
            view["problems"].append(short)
        if game.name == KAKEYA:
            view["tricks"] = self.kakeya_view(s)
        if tie_redraw_rows(game.layout(layout_setup(s)), game.resolve_house(s.get("house"))):
            waiting = bool(view["preview"]) and view["preview"].get("settled") is False
            view["redraw"] = {"waiting": waiting, "deck_exhausted": bool(s.get("deck_exhausted"))}
        view["pending"] = s.get("pending")
        if s.get("pending"):
            view["pending_text"] = result_texts(s["pending"]["result"])
            if s["pending"].get("no_picture"):
                view["pending_note"] = ("the table's picture could not be kept with this settlement "
                                        f"({s['pending']['no_picture']}): confirmed, the round is recorded "
                                        "without it")
        if s.get("pending") and game.name != KAKEYA:  # (Kakeya is settled on its tricks, not the table)
            then = [_card_keys(c.get("zone"), c) for c in s["pending"].get("cards") or []]
            now = [k for c in built.cards if (k := _place_key(c.get("zone"), c))]
            if not _each_matched(now, then):
                # the rows show the table now, the settlement the table as it was: said, so that a
                # dealer does not pay out on a settlement the cards before him no longer match (cards
                # being gathered, the usual course before Confirm, are no change)
                view["pending_note"] = ("the cards on the table have changed since Settle: this settlement "
                                        "is of the cards as they were then (Cancel, then Settle, to settle "
                                        "the table as it is now)")
        view["advice"] = equalise_advice(game, s)
        _, _, unassigned = table_zones(snap)
        view["unassigned"] = len(unassigned)
        return view


def _is_bust(cards: list[str], role: str, house: Mapping[str, Any]) -> bool:
    """Whether an Otoroku hand is buta in its seat's role (not, where it is no Otoroku hand: the page
    names that problem)."""
    try:
        return evaluate(cards, role, house).buta
    except (RoundError, KeyError, ValueError, TypeError):
        return False


def _no_bet_changes_while_settling(s: Mapping[str, Any]) -> None:
    """A bet taken or removed while a settlement waits voided it without a word: the cards gathered
    meanwhile, the round could not be settled again, and its bets went on to the next deal."""
    if s.get("pending"):
        raise InputError("a settlement is waiting: Confirm it (it settles the bets as they stand), or Cancel it "
                         "to change the bets")


def _undone_tricks(s: Mapping[str, Any]) -> list[list[str]]:
    """The tricks undone since the last trick read (kept as one trick's cards by earlier versions)."""
    undone = s.get("undone_trick") or []
    if undone and all(isinstance(c, str) for c in undone):
        return [list(undone)]
    return [list(u) for u in undone if isinstance(u, list)]


def _check_limits_meet_house(limits: Mapping[str, Any], house: Mapping[str, Any]) -> None:
    """Table limits that leave no bet the house rules take are refused when the session starts (each
    bet was refused after: below the table minimum, or above the house's maximum)."""
    low, high = limits.get("min_bet"), limits.get("max_bet")
    said = {"max_bet": "the house's max_bet", "bet_limit": "the house's bet_limit (most a bettor stakes)",
            "bet_size": "the house's bet_size (the stake on every card)"}
    for key in ("max_bet", "bet_limit", "bet_size"):
        if house.get(key) is not None and low is not None and _exact(low) > _exact(house[key]):
            raise InputError(f"the table's smallest bet {low} is above {said[key]} {house[key]}: no bet could "
                             f"be taken")
    # (a house min_bet is a player's whole stake in the round, which several bets below the table's
    # largest may make up: only the stake on every card, which one bet is, cannot be)
    if house.get("bet_size") is not None and high is not None and _exact(high) < _exact(house["bet_size"]):
        raise InputError(f"the table's largest bet {high} is below {said['bet_size']} {house['bet_size']}: no bet "
                         f"could be taken")


def _stakers(s: Mapping[str, Any], on_books: Callable[[], dict] | None = None) -> dict[str, Fraction]:
    """Who put the session's carried pot in (``carry_from``) and how much each; for a session that
    kept none (stored before they were kept), those the books say (``on_books()``: the ties
    recorded since the last pot won or given up), where they add up to its pot; else the dealer's."""
    pot = _pot(s)
    if not pot:
        return {}
    # (the books read only where the session's own fail: one round that cannot be read blocked every
    # confirm while a pot was carried)
    for source in (lambda: s.get("carry_from"), on_books):
        try:
            shares = source() if source else None
            shares = {str(p): Fraction(a) for p, a in shares.items()} if isinstance(shares, Mapping) else {}
        except (TypeError, ValueError, ZeroDivisionError, LedgerError):
            shares = {}
        if shares and sum(shares.values()) == pot and min(shares.values()) > 0:
            return shares
    return {DEALER: pot}


def _stakers_json(stakers: Mapping[str, Fraction]) -> dict[str, str]:
    return {p: str(a) for p, a in stakers.items()}


def _pot_bookings(old: Mapping[str, Any] | None, new: dict, data: Mapping[str, Any],
                  on_books: Callable[[], dict], books_game: Callable[[], str | None]) -> list:
    """What a new session books of a carried pot (``(round, result, rule_version)`` each, recorded
    with it): the pot of the old session given up (``drop_carry``) returned to those who put it in
    (it was taken off the books with nobody's name on it, and the balances no longer added up), and
    a pot named for the new one, put on the table by the dealer (paid out by the round that takes it,
    it came from nowhere on the books). A pot played on in the same game books nothing.

    A pot the books hold that no session does (its session set aside as damaged; ``on_books()``,
    of the game ``books_game()``) is on the table still: named, it is that pot (booked again, its
    chips were counted twice), and another named is refused; not named, a session of its game goes
    on with it, and another game gives it up only on the dealer's word (``drop_carry``), returned to
    its stakers (started without it, the pot was lost for good)."""
    bookings = []
    if old and old.get("carry"):
        if data.get("drop_carry"):
            bookings.append(_pot_booking(old["game"], GIVEN_UP, _stakers(old, on_books), _pot(old), Fraction(0)))
        held = {}
    else:
        try:
            held = on_books()
        except LedgerError:  # (a round that cannot be read: no pot known)
            held = {}
    if held:
        pot, game = sum(held.values()), books_game() or new["game"]
        said = to_json_amount(pot)
        if data.get("drop_carry"):  # given up: back to its stakers (and a pot named then is a new one)
            bookings.append(_pot_booking(game, GIVEN_UP, held, pot, Fraction(0)))
        else:
            named = new.get("carry")
            if new["game"] != game:
                raise InputError(f"the pot of {said} carried over from the last tie is still to be played for in "
                                 f"{game}: play a round of it first, or start {new['game']} giving the pot up "
                                 f"(drop_carry)")
            if named is not None and not (_exact(named) == pot or named == said):
                raise InputError(f"the books hold a pot of {said} carried over from a tie whose session was lost: "
                                 f"name that pot (carry {said}), to play for it, or give it up (drop_carry)")
            new["carry"], new["carry_exact"] = _carry_json(pot)
            new["carry_from"] = _stakers_json(held)
            return bookings
    if new.get("carry") and new.get("carry_from") is None:
        pot = _pot(new)
        new["carry_from"] = _stakers_json({DEALER: pot})
        bookings.append(_pot_booking(new["game"], NAMED, {DEALER: -pot}, Fraction(0), pot))
    return bookings


def _carry_json(pot: Fraction) -> tuple[int | float, str | None]:
    """A pot as a session or a result keeps it: its JSON number, and exactly where that does not hold it."""
    said = to_json_amount(pot)
    return said, (str(pot) if Fraction(str(said)) != pot else None)


def _pot_booking(game: str, what: str, amounts: Mapping[str, Fraction], carry_in: Fraction, carry: Fraction):
    result = {"net": {p: to_json_amount(a) for p, a in amounts.items()}, "winner": None,
              "carry_in": to_json_amount(carry_in)}
    result["carry"], exact_carry = _carry_json(carry)
    if exact_carry is not None:  # (as the rounds keep a pot a JSON number cannot hold)
        result["carry_exact"] = exact_carry
    exact = exact_amounts(amounts)
    if exact is not None:
        result["net_exact"] = exact
    return {"game": game, "pot": what}, result, rule_version(game)


# the house options that are amounts (a wager limit, Echobo's stake and limit)
HOUSE_AMOUNTS = ("min_bet", "max_bet", "bet_size", "bet_limit")


def _house_as_applied(game: Any, house: dict) -> dict:
    """A stored session's house rules as near as they can be to how they were applied when it was
    stored: an amount of more than 6 decimals was taken rounded (now refused, the session was set
    aside with its bets), and so is it now; a fee rate of more than 6 decimals, charged then as its
    nearest fraction of up to a million (1/3 as a third), goes on at the rate to 6 decimals (0.333333),
    the finest now taken; and a tie_fallback beside a tie rule that never falls back did nothing (now
    refused, every round was)."""
    house = dict(house)
    for key in HOUSE_AMOUNTS:
        value = house.get(key)
        if isinstance(value, float) and math.isfinite(value) and round(Fraction(repr(value)), 6) != Fraction(repr(value)):
            house[key] = to_json_amount(round(Fraction(repr(value)), 6))
    rate = house.get("fee_rate")
    if isinstance(rate, float) and math.isfinite(rate) and 0 < rate < 1 \
            and round(Fraction(repr(rate)), 6) != Fraction(repr(rate)):
        # (a rate of more than 6 decimals was charged as its nearest fraction of a million; now
        # refused, the session was set aside with its bets): to 6 decimals, within (0, 1)
        step = Fraction(1, 10**6)
        house["fee_rate"] = float(min(max(round(Fraction(repr(rate)), 6), step), 1 - step))
    if "tie_fallback" in house:
        try:
            rule = get_game(game).resolve_house(house)["tie_rule"]
        except (RoundError, ImportError, KeyError, ValueError, TypeError):
            return house  # (a house that is not the game's is said as such)
        if rule not in ("card_points", "raw_total"):
            del house["tie_fallback"]
    return house


def _stored_session_problem(session: Mapping[str, Any]) -> str | None:
    """Why a session read back from the ledger cannot be the open one (damaged inside: a bet that is
    not one made every page answer 500, and the way out, a new session, too), or None."""
    if not isinstance(session.get("game"), str) or not isinstance(session.get("players"), list) \
            or not isinstance(session.get("bets"), list):
        return "it is not a session"
    try:
        get_game(session["game"])
    except (RoundError, ImportError, KeyError, ValueError):
        return f"its game {session['game']!r} is not known"
    if not all(isinstance(p, Mapping) and isinstance(p.get("name"), str) for p in session["players"]):
        return "a player in it has no name"
    for b in session["bets"]:
        if not (isinstance(b, Mapping) and isinstance(b.get("player"), str) and "on" in b
                and isinstance(b.get("amount"), (int, float)) and not isinstance(b.get("amount"), bool)):
            return f"a bet in it is not one ({b!r})"
    for key in ("house", "corrections", "corrected_readings", "limits", "busts", "carry_from", "stones"):
        if session.get(key) is not None and not isinstance(session[key], Mapping):
            return f"its {key} is not an object"
    if not isinstance(session.get("corrections"), Mapping):  # (read as one everywhere)
        return "its corrections are not an object"
    for key in ("settled_cards", "settled_cards_all", "settled_tracks"):
        if session.get(key) is not None and not (isinstance(session[key], list)
                                                 and all(isinstance(x, str) for x in session[key])):
            return f"its list of the cards last recorded ({key}) is not one"
    # (Otoroku: a choice of bettors given as a name, or a bust as text, was read letter by letter)
    if session.get("chosen") is not None and not (isinstance(session["chosen"], list)
                                                  and all(isinstance(x, str) for x in session["chosen"])):
        return "its choice of bettors is not a list of seats"
    if not all(isinstance(v, list) and all(isinstance(c, str) for c in v) for v in (session.get("busts") or {}).values()):
        return "a bust remembered in it is not a list of cards"
    if session.get("restart_doubts") is not None and not (isinstance(session["restart_doubts"], list) and all(
            isinstance(d, Mapping) and isinstance(d.get("read"), str) and isinstance(d.get("card"), str)
            for d in session["restart_doubts"])):
        return "its list of cards put right before a restart is not one"
    if session.get("late_bets") is not None and not (isinstance(session["late_bets"], list) and all(
            isinstance(x, str) or isinstance(x, Mapping) and isinstance(x.get("note"), str) and (
                x.get("shown") is None or isinstance(x["shown"], list) and all(isinstance(k, str) for k in x["shown"]))
            for x in session["late_bets"])):
        return "its list of bets changed after the reveal is not one"
    gaps = session.get("camera_gap")
    if gaps is not None and not all(isinstance(g, int) and not isinstance(g, bool) and g >= 0
                                    for g in (gaps if isinstance(gaps, list) else [gaps])):
        return "its trick counts at camera gaps are not numbers"
    if session.get("missed_tricks") is not None and not (isinstance(session["missed_tricks"], list) and all(
            isinstance(p, int) and not isinstance(p, bool) for p in session["missed_tricks"])):
        return "its list of tricks missed is not a list of numbers"
    pending = session.get("pending")
    if pending is not None and not (isinstance(pending, Mapping) and isinstance(pending.get("id"), str)
                                    and isinstance(pending.get("round"), Mapping)
                                    and isinstance(pending.get("result"), Mapping)
                                    and isinstance(pending.get("cards"), list)
                                    and all(isinstance(c, Mapping) for c in pending["cards"])):
        return "its settlement waiting is not one"
    if pending is not None:
        # (its Confirm answered an internal error: the amounts it would book are read as the ledger reads them)
        try:
            booked_amounts(pending["result"])
            carried(pending["result"])
        except ValueError as exc:
            return f"its settlement waiting cannot be booked ({exc})"
    # (each of these made every page load an error: a house rule renamed since, a seat list damaged)
    try:
        get_game(session["game"]).resolve_house(session.get("house") or {})
    except RoundError as exc:
        return f"its house rules are not the game's ({exc})"
    if session.get("seats") is not None and not (isinstance(session["seats"], list)
                                                 and all(isinstance(x, str) for x in session["seats"])):
        return "its seats are not a list of players"
    for key in ("share", "ante"):
        if session.get(key) is not None:
            try:
                _exact(session[key])
            except (RoundError, TypeError):
                return f"its {key} is not an amount ({session[key]!r})"
    for key, value in (session.get("limits") or {}).items():
        try:
            _exact(value)
        except (RoundError, TypeError):
            return f"its limit {key} is not an amount ({value!r})"
    try:
        _pot(session)
    except (RoundError, TypeError):
        return f"its carried pot is not an amount ({session.get('carry')!r})"
    return None


def only_fields(data: Any, known: tuple[str, ...], what: str) -> None:
    """Refuse a field the request does not read: a misspelt one ("position" for a trick's "at") was
    left out without a word, and the trick went at the end, changing who led every trick after it."""
    if not isinstance(data, Mapping):
        return  # (each request says what it needs)
    for key in data:
        if key not in known:
            if not known:
                raise InputError(f"unknown field {key!r} in {what}: it takes no fields")
            raise InputError(f"unknown field {key!r} in {what}{did_you_mean(str(key), known)}; its fields "
                             f"are: {', '.join(known)}")


# what a session given to start_session holds: these for every game, and each game's own
SESSION_FIELDS = ("game", "house", "players", "limits", "carry", "drop_carry", "based_on", "renamed", "new_game")
# what the Settings page sets: a page left open sends the key of the session it showed (based_on), and
# its save is refused where these changed since (the next Kabu-Tsukuri dealer after a round, Kakeya's
# dealing pair, another tablet's save: the old page's save put them back)
SETTINGS_FIELDS = ("game", "house", "players", "limits", "seats", "share", "ante", "dealer", "trump", "dealers")


def settings_key(session: Mapping[str, Any] | None) -> str:
    """A short digest of what the Settings page sets in ``session`` (nothing: no session)."""
    shown = {k: session.get(k) for k in SETTINGS_FIELDS} if session else None
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()[:16]
GAME_SESSION_FIELDS = {"otoroku": ("seats", "share"), "kabu-tsukuri": ("ante", "dealer"),
                       KAKEYA: ("trump", "dealers")}


def _card_quads(snap: Mapping[str, Any] | None) -> list[list]:
    """The corners of every card lying, in a zone or none, face-down ones too."""
    raw = (snap or {}).get("zones") or {}
    values = raw.values() if isinstance(raw, Mapping) else raw
    cards = [c for v in values for c in ((v.get("cards") if isinstance(v, Mapping) and "cards" in v else v) or ())]
    cards += list((snap or {}).get("unassigned") or ())
    return [q for c in cards if isinstance(c, Mapping) and isinstance(q := c.get("quad"), (list, tuple))]


def _zone_track_ids(snap: Mapping[str, Any] | None) -> dict[str, set]:
    """Each zone's cards by their track ids, face-down ones too (zones as a mapping or a list)."""
    raw = (snap or {}).get("zones") or {}
    items = raw.items() if isinstance(raw, Mapping) else ((z.get("name"), z) for z in raw if isinstance(z, Mapping))
    out: dict[str, set] = {}
    for name, value in items:
        cards = value.get("cards") if isinstance(value, Mapping) else value
        out[str(name)] = {c.get("track_id") for c in cards or () if isinstance(c, Mapping) and c.get("track_id") is not None}
    return out


def _player_names(session: Mapping[str, Any]) -> list[Any]:
    """The session's players by name, in the order listed (the order they sit)."""
    return [p.get("name") if isinstance(p, Mapping) else p for p in session.get("players") or ()]


def _renamed_players(data: Mapping[str, Any], old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, str]:
    """The players of the open session renamed by the Settings page (``renamed``: old name -> new
    name), each a player of the open session named as a player of the new one."""
    renamed = data.get("renamed")
    if renamed is None:
        return {}
    if not isinstance(renamed, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in renamed.items()):
        raise InputError(f"renamed maps a player's name before to his name now, not {renamed!r}")
    before, now = player_names(old), player_names(new)
    for was, name in renamed.items():
        if was not in before:
            raise InputError(f"renamed: {was!r} is no player of the open session ({', '.join(before)})")
        if name not in now:
            raise InputError(f"renamed: {was!r} is renamed {name!r}, who is no player of the session saved")
        if name in before and name not in renamed and name != was:
            raise InputError(f"renamed: {was!r} is renamed {name!r}, the name of another player of the open session")
    if len(set(renamed.values())) != len(renamed):
        raise InputError("renamed: two players are renamed alike")
    return {k: v for k, v in renamed.items() if k != v}


def _zone_renames(old: Mapping[str, Any] | None, new: Mapping[str, Any], renamed: Mapping[str, str],
                  game_name: str | None = None) -> dict[str, str]:
    """The zones of a game (``game_name``, else the new session's) named after players ``renamed``
    (name before -> now): zone name before -> now (Otoroku's seat 'bob' -> 'bobby', Kabu-Tsukuri's
    row 'bob/1' -> 'bobby/1'), for the drawn zones and all the session keeps by zone. Found by laying
    out the game for the players as they were, named before and now: a zone is where it was in the
    layout, whatever its name holds."""
    if not old or not renamed:
        return {}
    game = get_game(game_name or new["game"])
    before = layout_setup(old)
    after = dict(before, seats=[renamed.get(x, x) for x in before["seats"]],
                 players=[renamed.get(x, x) for x in before["players"]])
    try:
        pairs = list(zip([z.name for z in game.layout(before)], [z.name for z in game.layout(after)]))
    except (RoundError, KeyError, TypeError, ValueError):  # (a game these players cannot play)
        pairs = list(renamed.items())
    if game.name != new["game"]:
        return {a: b for a, b in pairs if a != b}
    now = {z.name for z in game.layout(layout_setup(new))}
    return {a: b for a, b in pairs if a != b and b in now}


def _check_session_fields(game: str, data: Mapping[str, Any]) -> None:
    """Refuse a field the session does not read: a misspelt one ('hosue', 'shares') was left out
    without a word, and the table played without the fee or the share it was given."""
    known = SESSION_FIELDS + GAME_SESSION_FIELDS.get(game, ())
    for key in data:
        if key in known:
            continue
        if any(key in fields for fields in GAME_SESSION_FIELDS.values()):
            raise InputError(f"{key!r} is not a field of a {game} session; its fields are: {', '.join(known)}")
        raise InputError(f"unknown field {key!r} in the session{did_you_mean(key, known)}; its fields are: "
                         f"{', '.join(known)}")
    # (false, 0, [] or "" read as none given: the table played with no house rules, in player order)
    if data.get("house") is not None and not isinstance(data["house"], Mapping):
        raise InputError(f"house must be an object of house rules, not {data['house']!r}")
    if data.get("seats") is not None and not isinstance(data["seats"], list):
        raise InputError(f"seats must list the players, each once, in turn order, not {data['seats']!r}")
    for flag in ("drop_carry", "new_game"):
        if flag in data and not isinstance(data[flag], bool):
            # read as true or false by its truth: "no", "false" or [0] gave the carried pot up
            raise InputError(f"{flag} must be true or false, not {data[flag]!r}")


def _read_surely(zone) -> bool:
    """Every card of the zone face up and read surely (none face down, none in doubt or unread)."""
    return not zone.face_down and all(c.get("card") and not c.get("uncertain") for c in zone.cards)


def _otoroku_dealer_may_choose(zones, house: Mapping[str, Any]) -> bool:
    """Whether the dealer's two cards, face up and read surely, let him choose the bettors he shows
    down with: the page offers the choice then, before the bettors' hands lie face up (one he does
    not choose throws his hand in unseen)."""
    dealer = next((z for z in zones if z.name == "dealer"), None)
    if dealer is None or len(dealer.cards) != 2 or not _read_surely(dealer):
        return False
    try:
        return may_choose_bettors(evaluate([c["card"] for c in dealer.cards], "dealer", house))
    except (RoundError, KeyError, ValueError):  # not an Otoroku card: the page names the problem
        return False


def default_leader(s: Mapping[str, Any]) -> str | None:
    """Who leads the first trick unless the dealer says otherwise: the pair that did not deal leads
    (§8), its first player in seat order; None while the dealers are not known (four players). The
    page shows it, and the dealer may change it."""
    active = active_players(s)
    dealers = set(s.get("dealers") or [])
    if not dealers:
        return None
    return next((p for p in active if p not in dealers), None)


def _read_of(trick: Mapping[str, Any], card: str) -> dict:
    """What the camera read for a card of a recorded trick (for the ledger), or {} if entered by hand.
    Found by the card, not its place: who laid which is worked out again when a trick before it or
    the first leader changes (replay_tricks)."""
    r = next((r for r in trick.get("read") or [] if r.get("card") == card), None)
    if r is None:
        return {}
    return {"recognised": r.get("recognised"), "confidence": r.get("confidence"), "corrected": r.get("corrected"),
            **({"read_uncertain": r["read_uncertain"]} if "read_uncertain" in r else {})}


def not_settled(result: Mapping[str, Any]) -> str | None:
    """Why the engine's result cannot be paid out yet (a tie waiting for a redraw), or None."""
    if result.get("settled", True) is not False:
        return None
    tie = result.get("tie_break") or {}
    step = tie.get("next") if isinstance(tie, Mapping) else None
    drawn = len(tie.get("draws") or []) if isinstance(tie, Mapping) else 0
    return (f"the sets are tied{' again' if drawn else ''} and the house rule asks for a redraw: draw one "
            f"card onto each set and lay it at the end of its row (after its last card: to its right as the "
            f"page shows it), or press 'Deck ran out' if the deck is empty" if step else "the sets are tied and the round waits for a redraw")


def _doubts_after_restart(s: Mapping[str, Any]) -> list[dict]:
    """The dealer's corrections of cards the camera read as another, as they stand when a restart
    clears them (with those of an earlier restart not yet settled): each the camera's reading and the
    card the dealer named. In Kakeya only those of the trick being played: a trick recorded keeps its
    own cards."""
    kept = [d for d in s.get("restart_doubts") or () if isinstance(d, Mapping)]
    readings = s.get("corrected_readings") or {}
    for track, card in (s.get("corrections") or {}).items():
        read = readings.get(track)
        if isinstance(read, str) and isinstance(card, str) and another_card(read, card):
            kept.append({"read": read, "card": card})
    if s.get("game") == KAKEYA:
        played = {c for t in s.get("tricks") or () for c in t.get("cards") or ()}
        kept = [d for d in kept if d.get("card") not in played]
    return kept


def _bare(snap: Mapping[str, Any] | None) -> bool:
    """Whether the table shows no card at all, in a zone, face down or outside every zone."""
    zones, down, unassigned = table_zones(snap)
    return not any(zones.values()) and not any(down.values()) and not unassigned


def _cards_seen(snap: Mapping[str, Any] | None) -> list[dict]:
    """Every card the live table shows, in a zone or outside every zone."""
    zones, _, unassigned = table_zones(snap)
    return [c for cards in zones.values() for c in cards] + list(unassigned)


def _corrections_in_force(snap: Mapping[str, Any] | None, s: Mapping[str, Any]) -> dict[str, str]:
    """The dealer's corrections that still hold: one whose track the camera now reads as another card
    than it read when the dealer tapped it (a card swapped, or put back in its place) is for a card no
    longer there, and the card there is shown as read (amber where in doubt) until tapped again."""
    readings = s.get("corrected_readings") or {}
    now = {str(c.get("track_id")): c.get("card") for c in _cards_seen(snap)}
    # (the camera reading now the card the dealer named agrees with the tap: it holds)
    return {t: card for t, card in s["corrections"].items()
            if not (t in readings and t in now and now[t] not in (readings[t], card))}


def _camera_gaps(s: Mapping[str, Any]) -> list[int]:
    """Kakeya: after how many tricks recorded the table went unread this hand, each time (kept as one
    number by an earlier version)."""
    gaps = s.get("camera_gap")
    if gaps is None:
        return []
    return sorted(set(gaps if isinstance(gaps, list) else [gaps]))


def _set_camera_gaps(s: dict, gaps: list[int]) -> None:
    s["camera_gap"] = sorted(set(gaps)) or None


def _pending_picture(stored: str | None, pending_id: str) -> bytes | None:
    """The picture kept for the settlement ``pending_id`` (None where the one kept is another's)."""
    try:
        kept = json.loads(stored or "null")
    except ValueError:  # kept bare by an earlier version, before it was named
        kept = {"pending": pending_id, "jpeg": stored}
    if not isinstance(kept, dict) or kept.get("pending") != pending_id:
        return None
    try:
        return base64.b64decode(kept.get("jpeg") or "", validate=True) or None
    except (ValueError, TypeError):
        return None


def banner(status: Mapping[str, Any]) -> str | None:
    camera = status.get("camera", "ok")
    error = status.get("error")
    if camera == "ok" and not error:
        return None
    if camera == "ok" and status.get("table") == "live":
        # a notice while the table is read all the same (an image of the folder skipped): "the table
        # cannot be read" said over a table that could be settled
        return f"Note: {error}"
    what = CAMERA_AWAY.get(camera, "The table cannot be read")
    return f"{what}: {error}" if error else what


def _plain(amount) -> str:
    """An amount as the notes write it: 0.00005, not 5e-05."""
    return signed(amount).lstrip("+")


def _late_notes(late: list, settled: set[str]) -> list[str]:
    """The notes of bets taken or removed after a reveal, as recorded with the round settled on the
    cards ``settled`` (place keys): one made after the reveal of other cards (a deal gathered
    unsettled, its bets left for the next: the table seen bare since, or none of its cards settled)
    says so, not that it came after this round's reveal."""
    out = []
    for entry in late:
        if isinstance(entry, str):
            out.append(entry)
        elif not entry.get("gathered") and (not entry.get("shown") or set(entry["shown"]) & settled):
            # (made before a switch of game: the deal was revealed as that game)
            out.append(entry["note"] + (f" (the game then {entry['game']})" if entry.get("game") else ""))
        else:
            game = f" of {entry['game']}" if entry.get("game") else ""
            out.append(entry["note"].replace("after the reveal", f"after the reveal of an earlier deal{game}, not settled"))
    return out


def _target_said(game, s, on) -> str:
    """What a bet is on, as the page says it: "Saki 先", "month 2", a card's name."""
    label = next((t["label"] for t in _target_labels(game, s) if t["on"] == on), None)
    return label or (card_label(on) if isinstance(on, str) else f"month {on}")


def _target_labels(game, s) -> list[dict]:
    try:
        targets = bet_targets(game, s)
        layout = {z.name: z for z in game.layout(layout_setup(s))}
    except Exception:
        return []
    out = []
    for t in targets:
        z = layout.get(t) if isinstance(t, str) else None
        out.append({"on": t, "label": zone_title(z) if z else (card_label(t) if isinstance(t, str) else f"month {t}")})
    return out


# the rule engine's words for a round file, as the table page says them
TABLE_WORDS = {
    "'redraws' is given but the sets are not tied":
        "a card lies after a full row, but the rows are not tied: a card is drawn onto each row only to "
        "break a tie (take it away, or it is a card of another round; a card drawn is laid after the row's "
        "last card, to its right as the page shows it: one laid before the first is read as dealt)",
    "'deck_exhausted' is true but the sets are not tied":
        "the deck was said to have run out, but the rows are not tied: tap \"Deck ran out\" again to take it back",
}


# (the engine's words for a round file, naming its fields: said of the cards on the table instead)
TABLE_PATTERNS = (
    (re.compile(r"'redraws' has (\d+) draws but the tie was broken by draw (\d+)"),
     lambda m: (f"the tie was broken by the card drawn onto each set in draw {m[2]}, but {m[1]} draws lie "
                f"there: take away the cards drawn after draw {m[2]}")),
    (re.compile(r"'deck_exhausted' is true but the tie was broken by draw (\d+)"),
     lambda m: (f"the deck was said to have run out, but draw {m[1]} broke the tie: tap \"Deck ran out\" "
                f"again to take it back")),
)


def _said_of_the_table(engine_said: str) -> str:
    for pattern, words in TABLE_PATTERNS:
        if (m := pattern.fullmatch(engine_said)):
            return words(m)
    return TABLE_WORDS.get(engine_said, engine_said)


def _deck_ids(game, s) -> list[str] | None:
    """The cards of the game's deck as the house plays it (the tap dialog offers only these: Mutsu-wari
    has no Willow, Hankan no Paulownia chaff), or None where it cannot be said."""
    try:
        return sorted(set(game.deck(game.resolve_house(s.get("house")))))
    except Exception:  # (a deck that cannot be built: every card offered, the round says what is wrong)
        return None


def equalise_advice(game, s) -> dict | None:
    """How much the dealer must add, and where, so that the sides carry equal stakes (the rule
    engine's helper, dealer/equalise.py); None for games that do not equalise."""
    bets = [{"player": b["player"], "on": b["on"], "amount": b["amount"]} for b in s["bets"]]
    try:
        from dealer.equalise import equalise_round
    except ImportError:  # an engine without the helper: the plain two-sided rule
        return _two_sided(game, s, bets)
    try:
        # (one stake below the house's min_bet, said among the problems, took the advice away from
        # every other bettor)
        advice = _jsonable(equalise_round({"game": game.name, "house": dict(s.get("house") or {}),
                                           "bets": bets}, check_limits=False))
    except (RoundError, ValueError):
        return None
    if isinstance(advice.get("message"), str):  # the rows as the page names them ("Ato 後", not "ato")
        for z in game.layout(layout_setup(s)):
            advice["message"] = re.sub(rf"(?<![\w-]){re.escape(z.name)}(?![\w-])", zone_title(z), advice["message"])
    return advice


def _two_sided(game, s, bets) -> dict | None:
    sides = [z.name for z in game.layout(layout_setup(s)) if z.scored]
    if len(sides) != 2 or game.name not in ("batta-maki", "atosaki", "koikoi-atosaki", "mutsu-wari",
                                            "shoniban"):
        return None
    totals = {side: sum(_exact(b["amount"]) for b in bets if b["on"] == side) for side in sides}
    low, high = sorted(sides, key=lambda k: totals[k])
    diff = totals[high] - totals[low]
    return {"totals": {k: to_json_amount(v) for k, v in totals.items()},
            "dealer_adds": to_json_amount(diff), "dealer_side": low if diff else None}


def _jsonable(x):
    if isinstance(x, Fraction):
        return to_json_amount(x)
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def _card_label(c: Mapping[str, Any]) -> str:
    """A card's name on the page: 'face down?' for one read as a back in doubt (never named)."""
    if not c.get("card") and c.get("face") == BACK:
        return "face down?"
    return card_label(c.get("card"))


def _short_stake(game, s: Mapping[str, Any]) -> str | None:
    """A row game's stake below the house's min_bet (a player's bets on his side, summed, as the
    engine counts them: a second bet may still make it up), or sides left unequal where the house
    requires equal bets; or None."""
    if game.name not in ROW_GAMES or not s.get("bets"):
        return None
    house = game.resolve_house(s.get("house"))
    if house.get("min_bet") is not None:
        stakes: dict[str, tuple[str, Fraction]] = {}
        for b in s["bets"]:
            side, total = stakes.get(b["player"], (b["on"], Fraction(0)))
            stakes[b["player"]] = (side, total + _exact(b["amount"]))
        try:
            check_wager_limits(stakes, {"min_bet": house["min_bet"]})
        except RoundError as exc:
            return str(exc)
    if house.get("equalise") == "required":
        # (said in the advice alone, it was found at the reveal, when a bet to even the sides is
        # taken only on the dealer's word, marked as taken with the cards in view)
        advice = equalise_advice(game, s)
        if advice and advice.get("lighter_side"):
            return f"{advice['message']} before the cards are revealed (the house requires equal bets)"
    return None


def _failed_table(error: str) -> dict:
    """A table that could not be read: no cards, the camera reported away with the reason."""
    return {"version": -1, "zones": [], "unassigned": [], "status": {"camera": "lost", "error": error}}


def _stones_per_pair(session: Mapping[str, Any]) -> Any:
    """Kakeya: the stones a partnership starts with under the session's house rules."""
    try:
        return get_game(KAKEYA).resolve_house(session.get("house") or {})["stones_per_pair"]
    except RoundError:
        return None


def _pair(key: str, now: Mapping[str, str] | None = None) -> frozenset:
    """A Kakeya partnership ("Aki+Cho") by its two players, listed from either seat and a name typed
    with its accents apart being the same name, as the ledger's balances take them; ``now``: renames
    (before -> now). Zoë typed so was taken for other partnerships, and its game for ended."""
    return frozenset(unicodedata.normalize("NFC", (now or {}).get(p, p)) for p in key.split("+"))


def _kakeya_standing_at_stake(old: Mapping[str, Any], data: Mapping[str, Any]) -> str | None:
    """The stones of a Kakeya game in progress, said ("Aki+Cho 3, ..."), that a new session would set
    aside; None where none would be: no Kakeya, a game not begun or over, or the dealer ends it (new_game)."""
    stones = old.get("stones")
    if old.get("game") != KAKEYA or data.get("new_game") or not stones or game_over(stones) \
            or all(v == _stones_per_pair(old) for v in stones.values()):
        return None
    return ", ".join(f"{k} {v}" for k, v in stones.items())


def _places_renamed(kept: Any, names: Mapping[str, str]) -> Any:
    """``seat_places`` (as kept with the session) with its zones renamed (``names``: before -> now);
    kept as it is where it is not such an object."""
    if not names or not isinstance(kept, Mapping) or not isinstance(kept.get("places"), Mapping):
        return kept
    return dict(kept, places={names.get(k, k): v for k, v in kept["places"].items()})


def _next_hands_tricks(s: Mapping[str, Any]) -> list[list[str]]:
    """Kakeya: the tricks of the next hand read whole in the middle while the hand waited for its
    Confirm (``next_hands_tricks``; an unreadable one left out)."""
    kept = s.get("next_hands_tricks")
    return [list(t) for t in kept if isinstance(t, list) and all(isinstance(c, str) for c in t)] \
        if isinstance(kept, list) else []


def _is_undone_trick(cards: list[Mapping[str, Any]], s: Mapping[str, Any]) -> bool:
    """Whether ``cards`` (the middle's) are, all of them and no other, a trick undone."""
    lying = [{c.get(k) for c in cards} for k in ("card", "recognised")]
    return bool(cards) and any(now == set(u) for now in lying for u in _undone_tricks(s))


def _last_trick_readings(s: Mapping[str, Any]) -> list[list[str]]:
    """Kakeya: the cards of the last trick recorded (or of the hand before's, not yet gathered), as
    recorded and as the camera read them before the dealer replaced them: lying there still, they
    are no trick of this hand (read again after a restart, a trick replaced warned "already played")."""
    last = s["tricks"][-1] if s["tricks"] else None
    if last is None:
        return [s[k] for k in ("previous_trick", "previous_read") if s.get(k)]
    return [last["cards"]] + ([last["camera_read"]] if last.get("camera_read") else [])


def _reveal_of(s: Mapping[str, Any]) -> dict:
    """The reveal a note of a bet after the reveal goes with, where one is kept ({"reveal": its id})."""
    revealed = s.get("revealed")
    return {"reveal": revealed["id"]} if isinstance(revealed, Mapping) and revealed.get("id") else {}


def _backs_lying(snap: Mapping[str, Any] | None) -> set[str]:
    """The tracks of the cards lying face down in the zones now (read so surely)."""
    raw = (snap or {}).get("zones") or {}
    values = raw.values() if isinstance(raw, Mapping) else raw
    out = set()
    for value in values:
        cards = value.get("cards") if isinstance(value, Mapping) else value
        # (not a back read unsure: mostly a face-up card partly hidden, table_zones; its track let go,
        # the round recorded was booked again)
        out |= {str(c.get("track_id")) for c in cards or () if isinstance(c, Mapping) and c.get("face") == BACK
                and not c.get("uncertain") and c.get("track_id") is not None}
    return out


def _cards_lying(snap: Mapping[str, Any] | None) -> list[tuple[str, ...]]:
    """Each card face up in the zones now, by its track and by its place and face (a card hidden longer
    than the tracker remembers comes back on a new track, where it lay). Not those outside every
    zone: a card held in a hand, on a new track each look, was a new deal, and a write each time."""
    zones, _, _ = table_zones(snap)
    return [tuple(k for k in (f"track:{c.get('track_id')}" if c.get("track_id") is not None else None,
                              f"place:{_place_key(name, c)}" if _place_key(name, c) else None) if k)
            for name, lying in zones.items() for c in lying if c.get("face") not in (None, BACK)]


def _stale_table(snap: Mapping[str, Any] | None) -> str | None:
    """Why the table's cards are not the table as it is now (the camera away, frames not read), or
    None: the cards seen last stay on the page, but no round is scored or settled on them."""
    status = (snap or {}).get("status") or {}
    if status.get("camera", "ok") != "ok":
        return "the camera is away: the cards shown are those seen last; settle when it is back"
    if status.get("table") == "stale":
        return "the table is not being read: the cards shown are those seen last; settle when it is read again"
    return None


def _pot(s: Mapping[str, Any]) -> Fraction:
    """The pot the session carries, exactly (``carry_exact`` where a JSON number could not hold it)."""
    if not s.get("carry"):
        return Fraction(0)
    return parse_carried_pot(s.get("carry_exact") or s["carry"], "the carried pot")


def _exact(amount: int | float) -> Fraction:
    """An amount stored as a JSON number, read as the engine reads one (the decimal it is written as:
    Fraction(0.1) is not a tenth, and a bet of 0.1 was refused as below a minimum of 0.1)."""
    return parse_amount(amount, "a stored amount")


def _place_key(zone: Any, card: Mapping[str, Any]) -> str | None:
    """A card by its zone and the face the camera reads on it, or None for a back: not the card id the
    page gives it, which a correction, or the chaff copy a bet on the other took, makes another than
    the camera's next reading of the same card (Echobo's card of the last round was booked again)."""
    face = card.get("face")
    return None if face in (None, BACK) else f"{zone}:{face}"


def _key_by_face(key: str) -> str:
    """A place key stored by an earlier version (zone:card id) as zone:face."""
    zone, _, card = key.rpartition(":")
    return f"{zone}:{face_of(card) or card}" if zone else key


def _card_keys(zone: Any, card: Mapping[str, Any]) -> set[str]:
    """A card by the face the camera reads and, where the dealer named it, by the card he named (the
    camera may read it right next time, or read a face where it had read a back)."""
    keys = {k} if (k := _place_key(zone, card)) is not None else set()
    if card.get("corrected") and isinstance(card.get("card"), str):
            keys.add(f"{zone}:{face_of(card['card']) or card['card']}")
    return keys


def _each_matched(keys: list[str], cards: list[set[str]]) -> bool:
    """Whether each key can be given a card of its own that is known by it (a card settled is known
    by the face the camera read and by the card the dealer named: each stands for one card only)."""
    held: dict[int, int] = {}  # card -> the key it is given to

    def give(i: int, seen: set[int]) -> bool:
        for j, known in enumerate(cards):
            if keys[i] in known and j not in seen:
                seen.add(j)
                if j not in held or give(held[j], seen):
                    held[j] = i
                    return True
        return False
    return all(give(i, set()) for i in range(len(keys)))


def _placed_keys(cards) -> set[str]:
    """Each card of a round by its zone and face (the cards of the next deal differ from them)."""
    return {k for c in cards for k in _card_keys(c.get("zone"), c)}


def _settled_keys(cards) -> set[str]:
    """Each card of a round as the camera saw it: its track and what the camera read on it (a card
    laid where another lay may go on with its track, but not with its reading; the dealer's
    corrections go with the round they were made in)."""
    return {f"{c.get('track_id')}:{c.get('recognised')}" for c in cards if c.get("track_id") is not None}

