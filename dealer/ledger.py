"""The dealer's ledger: every confirmed round, the players' balances and the open session, in SQLite.

One file, WAL mode, ``synchronous=FULL``; each confirmed round is written in ONE transaction (the
round row and its per-player entries together), so killing the process at any moment leaves either
the whole round or none of it. The open session (game, house rules, players, pending bets and
corrections) is kept in the same file so a restarted server resumes where it stopped.

Amounts are stored as exact fractions (text ``"p/q"``) so balances add up without rounding.
No imports from ``vision/`` or ``webui/``: the ledger only knows rounds, players and money.
"""
from __future__ import annotations

import csv
import functools
import io
import json
import math
import re
import sqlite3
import unicodedata
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from dealer.cards import same_face
from dealer.pot import BOOKING_TEXT, DEALER, exact

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    time          TEXT NOT NULL,
    game          TEXT NOT NULL,
    rule_version  TEXT NOT NULL,
    round_json    TEXT NOT NULL,
    result_json   TEXT NOT NULL,
    cards_json    TEXT NOT NULL,   -- recognised and corrected cards, per zone
    snapshot_jpeg BLOB
);
CREATE TABLE IF NOT EXISTS entries (
    round_id INTEGER NOT NULL REFERENCES rounds(id),
    player   TEXT NOT NULL,
    amount   TEXT NOT NULL,        -- exact fraction 'p/q' or 'p'
    PRIMARY KEY (round_id, player)
);
"""


# the meta key under which a confirmed settlement's id names the round it was recorded as
SETTLED_KEY = "settled:"

# a round whose result says other amounts than it booked (edited by hand): told by its bookings
BOOKINGS_DISAGREE = "does not agree with what it booked"

# games settled in stones between pairs of partners, not in chips (their balances are kept apart)
STONE_GAMES = ("kakeya-toranpu",)


class LedgerError(RuntimeError):
    """The ledger file cannot be used (the message says why)."""


class SettlementGone(LedgerError):
    """The settlement to record is no longer the one the stored session waits on: recorded already,
    or replaced (by another server on the same ledger)."""


class SessionChanged(LedgerError):
    """The open session stored is not the one the writer last read or wrote: another server on the
    same ledger changed it meanwhile (written over, its change, a bet taken, was lost)."""


class SessionUnreadable(LedgerError):
    """The open session stored in the ledger is not one (damaged JSON, another shape)."""


def _said_as_ledger_error(what: str):
    """A method whose SQLite error (a read-only or locked file, a damaged one) becomes a LedgerError
    naming the file: one line for the dealer, not a traceback."""
    def wrap(method):
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except sqlite3.DatabaseError as exc:
                raise LedgerError(f"cannot {what} the ledger {self.path}: {exc}") from None
        return guarded
    return wrap


@dataclass(frozen=True)
class RoundRecord:
    id: int
    time: str
    game: str
    rule_version: str
    round: dict
    result: dict
    cards: list
    has_snapshot: bool
    # why the round as stored is not one (a result of null, cards that are no list): said where it is
    # shown, the other rounds still listed; None for a sound round
    damage: str | None = None

    def to_json(self) -> dict:
        out = {"id": self.id, "time": self.time, "game": self.game, "rule_version": self.rule_version,
               "round": self.round, "result": self.result, "cards": self.cards,
               "has_snapshot": self.has_snapshot}
        if self.damage:
            out["damage"] = self.damage
        return out


def booked_amounts(result: Mapping[str, Any]) -> dict[str, Fraction]:
    """A result's per-player amounts as they are booked: ``net``, or exactly ``net_exact``."""
    net = result.get("net")
    if not isinstance(net, Mapping) or not net:
        raise ValueError("the result has no 'net' amounts to record")
    amounts = {str(p): exact(a) for p, a in net.items()}
    said_exact = result.get("net_exact")
    if said_exact is not None:
        if not isinstance(said_exact, Mapping) or set(map(str, said_exact)) != set(amounts):
            raise ValueError("the result's 'net_exact' does not name the players of its 'net'")
        exact_amounts = {str(p): exact(a) for p, a in said_exact.items()}
        # the JSON number is the exact amount to 6 decimals, as a float: as near as a float can be
        off = [p for p, a in exact_amounts.items() if not _near(a, amounts[p])]
        if off:
            raise ValueError(f"the result's 'net_exact' and 'net' disagree for {', '.join(off)}")
        amounts = exact_amounts
    return amounts


def _insert_round(db, when: str, round_: Mapping[str, Any], result: Mapping[str, Any], rule_version: str,
                  cards: list | None, snapshot_jpeg: bytes | None, amounts: Mapping[str, Fraction],
                  between: Callable[[], None] | None = None) -> int:
    cur = db.execute(
        "INSERT INTO rounds(time, game, rule_version, round_json, result_json, cards_json,"
        " snapshot_jpeg) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (when, str(round_.get("game", "")), rule_version, json.dumps(round_, sort_keys=True),
         json.dumps(result, sort_keys=True), json.dumps(cards or []),
         sqlite3.Binary(snapshot_jpeg) if snapshot_jpeg else None))
    round_id = cur.lastrowid
    if between is not None:  # tests: interrupt between the two halves of the write
        between()
    db.executemany("INSERT INTO entries(round_id, player, amount) VALUES (?, ?, ?)",
                   [(round_id, p, str(a)) for p, a in amounts.items()])
    return round_id


# what a spreadsheet reads as a number, a date, a time or a truth value, not as the text it is
# (players "007" and "7" both became 7, "1-2" the 2nd of January)
# ("Jan 2", "2 May" and "3 pm" are dates and times to it too)
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_READ_AS_VALUE = re.compile(r"[\d .,:/-]*\d[\d .,:/-]*|\d+(\.\d*)?[eE][+-]?\d+|true|false"
                            rf"|\d+[ /-]*{_MONTH}([ /-]*\d+)?|{_MONTH}[ /-]*\d+([ /-]*\d+)?"
                            r"|\d+([:.]\d+)*\s*[ap]\.?m?\.?", re.IGNORECASE)


def _text_cell(text: str, values: bool = True) -> str:
    """A name as a spreadsheet cell: one starting like a formula (a player "-A1") is read as the
    formula by a spreadsheet, one such as "007" as a number: each is kept as text with a leading
    apostrophe. A name that starts with an apostrophe gets one more, so that no two names are one
    cell ("'-A1" was written as "-A1" was, and the two players' amounts added up as one's).
    ``values`` false: a number is left one (a month that won)."""
    if text[:1] in ("=", "+", "-", "@", "\t", "\r", "'") or (values and _READ_AS_VALUE.fullmatch(text)):
        return "'" + text
    return text


def _winner_cell(winner) -> str:
    """A round's winner as a spreadsheet cell: a side, a month, or the winners of a game with several
    (``p1; p3``, not the JSON list), empty where there is none."""
    if winner is None:
        return ""
    if isinstance(winner, (list, tuple)):
        return "; ".join(_winner_cell(w) for w in winner)
    if isinstance(winner, (str, int, float)):
        return str(winner)
    return json.dumps(winner, ensure_ascii=False, sort_keys=True)


def _read_as(card: Mapping[str, Any]) -> str:
    """What the camera read of a card the dealer corrected, as the export writes it."""
    read = card.get("recognised")
    if read:
        return str(read)
    return "face down" if card.get("face") == "back" else "nothing"


def _near(a: Fraction, b: Fraction) -> bool:
    """As near as a float can be (an older version booked a float's nearby fraction); an amount past
    a float's range (a hand-edited 1e400) is near only itself."""
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-6)
    except OverflowError:
        return a == b


def _number(x: Fraction) -> int | float:
    if x.denominator == 1:
        return int(x)
    try:
        return round(float(x), 6)
    except OverflowError:  # (a hand-edited amount: said as damage, not an internal error)
        raise LedgerError(f"an amount booked, {str(x)[:40]}..., is past what a JSON number carries") from None


def _decimal(x: Fraction, places: int) -> Decimal:
    """``x`` (a multiple of 10^-places) as the Decimal it is, exactly: no context rounds it."""
    return Decimal(f"{x.numerator * 10**places // x.denominator}e-{places}")  # (a string: taken exactly)


def is_stored_session(stored: str | None, session: Any) -> bool:
    """Whether the session stored (its JSON text, None or empty for none) is ``session``: compared as
    JSON values, not as text (the same session written by hand with other spacing or key order was
    taken for another page's change, and every write was refused for good)."""
    try:
        value = json.loads(stored) if stored else None
    except ValueError:
        return False
    return value == json.loads(json.dumps(session))


def six_decimals(x: Fraction) -> Decimal:
    """An amount to 6 decimals, exactly rounded (a float of it showed 10^12 + 1/3 as ...000.333374)."""
    return _decimal(Fraction(round(x, 6)), 6)


# the most digits a stored amount may have: the ledger writes at most a few dozen, and one of
# thousands (edited by hand: '1e5000') could not be written out again, a 500 on every page of it
MOST_AMOUNT_DIGITS = 1000


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"a number too large to read: {text[:40]}")
    return value


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is no number")


def _strict_json(text: Any) -> Any:
    """A round's stored JSON, with no number that JSON cannot write back (1e400 read as infinity was
    sent on as Infinity, and no browser could read the list of rounds)."""
    return json.loads(text, parse_float=_finite, parse_constant=_no_constant)


def stored_amount(amount: Any) -> Fraction:
    """An amount as the ledger stores it ('p/q' or 'p'); ValueError for one of too many digits, or
    an exponent that makes it so (1e999999999 would be worked out digit by digit)."""
    if isinstance(amount, str):
        exponent = re.search(r"[eE]\s*([+-]?\d+)\s*$", amount)
        if len(amount) > 2 * MOST_AMOUNT_DIGITS + 1 or (exponent and abs(int(exponent[1])) > MOST_AMOUNT_DIGITS):
            raise ValueError(f"not an amount as booked: {amount[:40]!r}")
    x = Fraction(amount)
    if max(abs(x.numerator), x.denominator).bit_length() > MOST_AMOUNT_DIGITS * 10 // 3:
        raise ValueError("an amount of too many digits")
    return x


def _exact_cell(x: Fraction) -> str:
    """An amount exactly as booked: its decimals where they end (1/2 is 0.5, which a spreadsheet reads
    as the number, not as 2 January), else the fraction (103/3)."""
    den, places = x.denominator, 0
    for p in (2, 5):
        k = 0
        while den % p == 0:
            den //= p
            k += 1
        places = max(places, k)
    if den != 1 or x.denominator == 1:
        return str(x)
    return format(_decimal(x, places), "f")


def _six_cell(x: Fraction) -> str:
    """An amount to 6 decimals as the export writes it (0.5, 1.333333, 1200)."""
    return str(x) if x.denominator == 1 else format(six_decimals(x), "f").rstrip("0").rstrip(".")


class Ledger:
    """Open (or create) the ledger at ``path``. Each call opens its own connection, so one Ledger
    is safe to share between the web server's threads."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with closing(self._connect()) as db:
                mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if mode.lower() != "wal":
                    raise LedgerError(f"{self.path}: the ledger needs WAL mode, got {mode!r}")
                with db:
                    db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"cannot open the ledger {self.path}: {exc}") from None

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA synchronous=FULL")  # a confirmed round survives a power cut too
        db.execute("PRAGMA foreign_keys=ON")
        db.isolation_level = ""  # back to implicit transactions, committed by ``with db``
        return db

    # --- key/value settings (PIN hash, secret key, the open session) ----------------------------
    @_said_as_ledger_error("read")
    def get_meta(self, key: str) -> str | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    @_said_as_ledger_error("write to")
    def set_meta(self, key: str, value: str) -> None:
        with closing(self._connect()) as db, db:
            db.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    @_said_as_ledger_error("write to")
    def set_meta_once(self, key: str, value: str) -> bool:
        """Set ``key`` only if it has no value yet (first start); True if this call set it."""
        with closing(self._connect()) as db, db:
            cur = db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (key, value))
            return cur.rowcount == 1

    @_said_as_ledger_error("write to")
    def save_session(self, session: Mapping[str, Any] | None, expected: Any = ...,
                     bookings: Iterable[tuple[Mapping[str, Any], Mapping[str, Any], str]] = ()) -> None:
        """The open session (game, house, players, pending bets...), or None when there is none.

        ``expected``: the session the writer last read or wrote (None: none). Given, the session is
        written only if the stored one is still that, checked in the same transaction: else
        SessionChanged, and nothing is written. ``bookings``: amounts booked by the change that are
        no round played (``(round, result, rule_version)``, recorded as rounds are: a pot given up,
        returned to its stakers; a pot named when a session started), in the same transaction, so
        the session never shows a pot gone while the books still hold it, or the other way round."""
        value = json.dumps(session, sort_keys=True)
        checked = [(round_, result, rule_version, booked_amounts(result)) for round_, result, rule_version in bookings]
        if expected is ... and not checked:
            self.set_meta("session", value)
            return
        when = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with closing(self._connect()) as db, db:
            db.execute("BEGIN IMMEDIATE")  # no other writer between the check and the write
            if expected is not ...:
                row = db.execute("SELECT value FROM meta WHERE key = 'session'").fetchone()
                if not is_stored_session(row[0] if row else None, expected):
                    raise SessionChanged("the session was changed meanwhile by another page or server on this "
                                         "ledger")
            for round_, result, rule_version, amounts in checked:
                _insert_round(db, when, round_, result, rule_version, [], None, amounts)
            db.execute("INSERT INTO meta(key, value) VALUES ('session', ?) "
                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (value,))

    def load_session(self) -> dict | None:
        """The open session, None when there is none; a LedgerError when what is stored is not one
        (see set_session_aside)."""
        raw = self.get_meta("session")
        if not raw:
            return None
        try:
            session = json.loads(raw)
        except ValueError as exc:
            raise SessionUnreadable(f"the open session stored in the ledger {self.path} is not JSON: {exc}") from None
        if session is not None and not isinstance(session, dict):
            raise SessionUnreadable(f"the open session stored in the ledger {self.path} is not an object: {raw[:80]!r}")
        return session

    @_said_as_ledger_error("write to")
    def set_session_aside(self) -> None:
        """Keep an unreadable open session under another key (nothing is thrown away) and open none."""
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        with closing(self._connect()) as db, db:
            # (one set aside in the same second, or by a second server starting on the same ledger, is
            # kept too: the same key refused the start with a database error; no other writer
            # between the look and the write, and what is kept is what is taken away)
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT value FROM meta WHERE key = 'session'").fetchone()
            raw = row[0] if row else None
            key, n = f"session-set-aside-{stamp}", 1
            while db.execute("SELECT 1 FROM meta WHERE key = ?", (key,)).fetchone():
                n += 1
                key = f"session-set-aside-{stamp}-{n}"
            db.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (key, raw or ""))
            db.execute("DELETE FROM meta WHERE key = 'session'")

    # --- rounds ----------------------------------------------------------------------------------
    @_said_as_ledger_error("write to")
    def record_round(self, *, round_: Mapping[str, Any], result: Mapping[str, Any], rule_version: str,
                     cards: list | None = None, snapshot_jpeg: bytes | None = None,
                     session: Mapping[str, Any] | None = None, time: str | None = None,
                     pending_id: str | None = None, _between: Callable[[], None] | None = None) -> int:
        """Store one confirmed round and its per-player amounts (``result['net']``, or exactly
        ``result['net_exact']`` where the result gives it: a pro rata third is not the 6 decimals of
        its JSON number) in one transaction; also saves ``session`` (e.g. with the bets cleared) in
        the same transaction, so a crash can never record the round yet keep its bets pending.
        ``pending_id``: the settlement the stored session must still wait on, checked in the same
        transaction (SettlementGone otherwise): two servers on one ledger cannot both record it.
        Returns the round id."""
        amounts = booked_amounts(result)
        when = time or datetime.now(timezone.utc).isoformat(timespec="seconds")
        with closing(self._connect()) as db, db:
            if pending_id is not None:
                db.execute("BEGIN IMMEDIATE")  # no other writer between the check and the write
                row = db.execute("SELECT value FROM meta WHERE key = 'session'").fetchone()
                try:
                    waiting = ((json.loads(row[0]) or {}).get("pending") or {}).get("id") if row else None
                except (ValueError, AttributeError):
                    waiting = None
                if waiting != pending_id:
                    raise SettlementGone("this settlement is no longer waiting: it was recorded or replaced "
                                         "(by another page or server on this ledger)")
            round_id = _insert_round(db, when, round_, result, rule_version, cards, snapshot_jpeg, amounts,
                                     _between)
            if pending_id is not None:  # (which round it became, for a page or server that asks later)
                db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                           (SETTLED_KEY + pending_id, str(int(round_id))))
            if session is not None:
                db.execute("INSERT INTO meta(key, value) VALUES ('session', ?) "
                           "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           (json.dumps(session, sort_keys=True),))
        return int(round_id)

    @_said_as_ledger_error("read")
    def round_of_settlement(self, pending_id: str) -> int | None:
        """The round a confirmed settlement was recorded as, None if it never was (cancelled,
        replaced, or unknown): a restarted server, or another on this ledger, knows it too."""
        with closing(self._connect()) as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (SETTLED_KEY + str(pending_id),)).fetchone()
        try:
            return int(row[0]) if row else None
        except (TypeError, ValueError):  # (edited by hand into something else: not known)
            return None

    @_said_as_ledger_error("read")
    def rounds(self, limit: int | None = None, before: int | None = None) -> list[RoundRecord]:
        """Confirmed rounds, newest first; ``before``: only those of a lower id (the next page)."""
        sql = ("SELECT id, time, game, rule_version, round_json, result_json, cards_json,"
               " snapshot_jpeg IS NOT NULL FROM rounds")
        params: tuple = ()
        if before is not None:
            sql += " WHERE id < ?"
            params += (int(before),)
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params += (int(limit),)
        with closing(self._connect()) as db:
            rows = db.execute(sql, params).fetchall()
            booked = self._bookings_of(db, [r[0] for r in rows])
        return [self._record(r, booked.get(r[0], {})) for r in rows]

    @_said_as_ledger_error("read")
    def get_round(self, round_id: int) -> RoundRecord | None:
        with closing(self._connect()) as db:
            r = db.execute("SELECT id, time, game, rule_version, round_json, result_json, cards_json,"
                           " snapshot_jpeg IS NOT NULL FROM rounds WHERE id = ?", (round_id,)).fetchone()
            if r is None:
                return None
            booked = self._bookings_of(db, [r[0]])
        return self._record(r, booked.get(r[0], {}))

    @staticmethod
    def _bookings_of(db, ids: list[int]) -> dict[int, dict[str, str]]:
        """What each of the rounds ``ids`` booked, each player's amount as stored."""
        out: dict[int, dict[str, str]] = {}
        if ids:
            for rid, player, amount in db.execute("SELECT round_id, player, amount FROM entries WHERE round_id "
                                                  "BETWEEN ? AND ?", (min(ids), max(ids))):
                out.setdefault(rid, {})[player] = amount
        return out

    @_said_as_ledger_error("read")
    def snapshot(self, round_id: int) -> bytes | None:
        with closing(self._connect()) as db:
            r = db.execute("SELECT snapshot_jpeg FROM rounds WHERE id = ?", (round_id,)).fetchone()
        # (a picture is bytes: anything else stored there by hand is none, not a failed page)
        return bytes(r[0]) if r and isinstance(r[0], (bytes, bytearray, memoryview)) and r[0] else None

    @_said_as_ledger_error("read")
    def round_count(self) -> int:
        with closing(self._connect()) as db:
            return int(db.execute("SELECT COUNT(*) FROM rounds").fetchone()[0])

    @_said_as_ledger_error("read")
    def balances(self, stones: bool = False, exact: bool = False) -> dict[str, int | float | Fraction]:
        """Each player's (and the dealer's) running total in chips over every confirmed round; with
        ``stones``, each pair's in stones over the Kakeya Toranpu hands (STONE_GAMES), which are
        settled in stones between the pairs and never summed with chips. A name typed two ways that
        look the same (its accent apart in one session, as one letter in another) is one player, shown
        as first booked; so is a pair named from another of its seats ("Cho+Aki" is "Aki+Cho").
        ``exact``: each as the Fraction booked (a JSON number of 10^12 chips has no room for 6 decimals)."""
        totals: dict[str, Fraction] = {}
        shown: dict[str, str] = {}  # the name in one Unicode form -> as first booked
        marks = ",".join("?" * len(STONE_GAMES))
        with closing(self._connect()) as db:
            for rid, player, amount in db.execute(
                    f"SELECT e.round_id, e.player, e.amount FROM entries e JOIN rounds r ON r.id = e.round_id "
                    f"WHERE r.game {'IN' if stones else 'NOT IN'} ({marks}) ORDER BY e.rowid", STONE_GAMES):
                same = unicodedata.normalize("NFC", player)
                if stones:
                    same = "+".join(sorted(same.split("+")))
                player = shown.setdefault(same, player)
                totals[player] = totals.get(player, Fraction(0)) + self._booked(amount, rid)
        return {p: a if exact else _number(a) for p, a in sorted(totals.items(), key=lambda kv: (kv[0] == DEALER, kv[0]))}

    @_said_as_ledger_error("read")
    def export_csv(self) -> str:
        """One line per player per round: round, time, game, winner, player, amount (to 6 decimals),
        the amount exactly as booked (``103/3`` where 6 decimals do not say it; the column that adds
        up to the balances), corrections, and the notes of bets taken or removed after the reveal."""
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(["round", "time", "game", "rule_version", "winner", "player", "amount", "amount_exact",
                    "corrections", "notes"])
        booked: dict[int, list[tuple[str, Fraction]]] = {}
        for rid, player, amount in self.iter_entries():
            booked.setdefault(rid, []).append((player, amount))
        # (a name typed two ways that look the same: one player, as the balances; a pair of partners
        # named from either seat, "Cho+Aki" or "Aki+Cho": one pair)
        shown: dict[tuple[bool, str], str] = {}
        for rec in reversed(self.rounds()):
            # a round whose record is damaged is exported by its bookings, which the balances add up,
            # the damage said in its notes (the whole export was refused for one round's cards)
            fixes = "" if rec.damage else "; ".join(
                f"{c.get('zone')}#{c.get('position')}: {_read_as(c)} -> {c.get('card')}"
                for c in rec.cards if c.get("corrected") and not same_face(c.get("recognised"), c.get("card")))
            late = rec.result.get("late_bets") if not rec.damage else None
            notes = "; ".join(n for n in late if isinstance(n, str)) if isinstance(late, list) else ""
            if rec.damage:
                notes = f"this round cannot be read from the ledger: it {rec.damage}"
            stones = rec.game in STONE_GAMES
            for player, amount in booked.get(rec.id, []):
                same = unicodedata.normalize("NFC", player)
                if stones:
                    same = "+".join(sorted(same.split("+")))
                player = shown.setdefault((stones, same), player)
                w.writerow([rec.id, rec.time, rec.game, rec.rule_version,
                            _text_cell("" if rec.damage else BOOKING_TEXT.get(rec.round.get("pot"))
                                       or _winner_cell(rec.result.get("winner")),
                                       values=not rec.damage and isinstance(rec.result.get("winner"), str)),
                            _text_cell(player), _six_cell(amount), _exact_cell(amount), _text_cell(fixes),
                            _text_cell(notes)])
        return out.getvalue()

    @_said_as_ledger_error("check")
    def integrity(self, quick: bool = False) -> str:
        """SQLite's own integrity check ('ok' when the file is sound), and amounts booked by no round;
        ``quick``: SQLite's quicker check (the pages and their links, not every index), as a server
        starts."""
        with closing(self._connect()) as db:
            said = db.execute(f"PRAGMA {'quick_check' if quick else 'integrity_check'}").fetchone()[0]
        lost = self.entries_of_no_round()
        if said == "ok" and lost:
            return f"amounts are booked for round(s) {', '.join(map(str, lost))}, which the ledger no longer holds"
        return said

    @_said_as_ledger_error("read")
    def entries_of_no_round(self) -> list[int]:
        """The round ids that amounts are booked for but that are no longer in the ledger (a round
        deleted by hand, in a tool that does not enforce the link): their amounts are in no balance."""
        with closing(self._connect()) as db:
            return [r[0] for r in db.execute(
                "SELECT DISTINCT round_id FROM entries WHERE round_id NOT IN (SELECT id FROM rounds) ORDER BY round_id")]

    @_said_as_ledger_error("read")
    def iter_entries(self) -> list[tuple[int, str, Fraction]]:
        """(round id, player, amount) of every booked amount, in the order they were booked."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT round_id, player, amount FROM entries ORDER BY rowid").fetchall()
        return [(rid, player, self._booked(amount, rid)) for rid, player, amount in rows]

    @_said_as_ledger_error("read")
    def booked(self, round_id: int) -> dict[str, Fraction]:
        """Each amount booked by one round, by player (the books' own, apart from its record)."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT player, amount FROM entries WHERE round_id = ? ORDER BY rowid",
                              (int(round_id),)).fetchall()
        out: dict[str, Fraction] = {}
        for player, amount in rows:
            out[player] = out.get(player, Fraction(0)) + self._booked(amount, round_id)
        return out

    def _booked(self, amount: Any, round_id: Any) -> Fraction:
        """An amount as the ledger stores it; one that is not (a damaged file) named, not a traceback."""
        try:
            return stored_amount(amount)
        except (TypeError, ValueError, ZeroDivisionError):
            shown = f"{amount[:40]}..." if isinstance(amount, str) and len(amount) > 40 else amount
            raise LedgerError(f"the ledger {self.path} is damaged: round {round_id} books {shown!r}, "
                              f"which is not an amount") from None

    def _record(self, r, booked: Mapping[str, str]) -> RoundRecord:
        not_text = [(what, value) for what, value in (("time", r[1]), ("game", r[2]), ("rule version", r[3]))
                    if not isinstance(value, str)]
        if not_text:
            # (edited by hand into a number or bytes: the list of rounds failed as an internal error)
            what, value = not_text[0]
            texts = [v if isinstance(v, str) else repr(v) for v in r[1:4]]
            return RoundRecord(r[0], *texts, {}, {}, [], bool(r[7]), f"cannot be read (its {what} is {repr(value)[:60]})")
        try:
            round_, result, cards = (_strict_json(r[4]), _strict_json(r[5]), _strict_json(r[6]))
        except (TypeError, ValueError) as exc:
            # (marked, as a round of another shape is: one such round made every list of rounds fail,
            # the history, and the look for the pot the books hold)
            return RoundRecord(r[0], r[1], r[2], r[3], {}, {}, [], bool(r[7]), f"cannot be read ({exc})")
        # (a round, a result or cards of another shape failed later, in the history page or the
        # export, as an internal error: it is marked, said on the history, refused by the export)
        shapes = (("round", round_, dict), ("result", result, dict), ("cards", cards, list),
                  ("result's net", result.get("net") if isinstance(result, dict) else {}, dict),
                  ("round's pot", round_.get("pot", "") if isinstance(round_, dict) else "", str))
        net = result.get("net") if isinstance(result, dict) and isinstance(result.get("net"), dict) else {}
        wrong = [(what, value) for what, value, kind in shapes if not isinstance(value, kind)] + \
            [("card", c) for c in (cards if isinstance(cards, list) else ()) if not isinstance(c, dict)] + \
            [(f"amount for {p}", a) for p, a in net.items()
             if isinstance(a, bool) or not isinstance(a, (int, float))]
        damage = None
        if wrong:
            what, value = wrong[0]
            damage = f"cannot be read (its {what} is {json.dumps(value)[:60]})"
        else:
            # its result edited by hand: the history showed amounts the balances did not hold, and a
            # pot it said was given up as said, chips booked from nothing
            try:
                said = booked_amounts(result)
            except ValueError as exc:
                said, damage = None, f"cannot be read ({exc})"
            if said is not None:
                on_books = {}
                for player, amount in booked.items():
                    try:
                        on_books[player] = stored_amount(amount)
                    except (TypeError, ValueError, ZeroDivisionError):
                        on_books[player] = None
                # (as near as a float: an older version booked a float's nearby fraction)
                off = sorted(set(said) ^ set(on_books) | {
                    p for p in set(said) & set(on_books) if on_books[p] is None
                    or not _near(said[p], on_books[p])})
                if off:
                    damage = f"{BOOKINGS_DISAGREE} (for {', '.join(off)})"
        return RoundRecord(r[0], r[1], r[2], r[3], round_, result, cards, bool(r[7]), damage)
