"""The dealer's page: a Flask application factory with three blueprints.

- ``pages``: the live table, the history (balances, CSV export) and the settings (session, PIN, zones).
- ``api``: JSON under ``/api``; every POST needs the dealer's PIN (a login cookie) and the page's
  CSRF token (header ``X-CSRF-Token``), and a cross-site ``Origin`` is refused.
- ``stream``: ``/events`` (Server-Sent Events: the whole page state on every change, to every open
  page) and ``/video.mjpg`` (the annotated live image).

``create_app(config)`` takes, besides Flask's own keys: ``LIVE`` (the LiveTable, or any object with
``snapshot()``, ``wait_for_change(version, timeout)``, ``jpeg()``, ``set_layout()``; without one the
page runs on an empty table with a banner saying so), ``LEDGER``
(path of the SQLite ledger), ``PIN`` (the dealer's PIN: set on the first start, and where it
differs from the one stored, put in its place, every login ended), ``ZONES_DIR`` (where drawn
zones are saved), ``VIDEO_FPS``, ``ALLOWED_HOSTS`` (host names the page answers to besides
``localhost`` and IP addresses).
"""
from __future__ import annotations

import functools
import hmac
import ipaddress
import json
import logging
import secrets
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from flask import (Blueprint, Flask, Response, abort, current_app, jsonify, render_template, request,
                   session, stream_with_context)
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import BadRequest
from werkzeug.security import check_password_hash, generate_password_hash

from dealer.cards import all_cards, same_face
from dealer.games import GAME_NAMES, RoundError, exact_json_float, get_game
from dealer.ledger import Ledger, LedgerError
from dealer.pot import BOOKING_TEXT
from dealer.western import all_western_cards
from webui.round_builder import NO_BETS, SUIT_JA, card_label, result_texts, signed, zone_title
from webui.service import CHIP_COLOURS, DealerService, InputError, only_fields, settings_key

pages = Blueprint("pages", __name__)
api = Blueprint("api", __name__, url_prefix="/api")
stream = Blueprint("stream", __name__)

PIN_MIN, PIN_MAX = 4, 12
# the largest request body taken: the largest the page sends (the zones drawn) is a few KB, and an
# unbounded one was read whole and parsed, without the PIN, until the server ran out of memory
MAX_REQUEST_BYTES = 1024 * 1024
LOCKOUT_AFTER, LOCKOUT_S = 5, 30.0
# the logins kept (each device's, newest last): a login is the server's to end (Lock, a new PIN), not
# the cookie's alone, which a copy kept working after Lock and every restart
MAX_LOGINS = 64

log = logging.getLogger(__name__)


class ExactNumbersJSON(DefaultJSONProvider):
    """Request bodies read as ``hanadealer settle`` reads a round: a number a float cannot hold as
    written is refused, not booked as another amount (the page checks what is typed; another client
    sending 12345678901.1234567 had it booked as 12345678901.123457)."""

    def loads(self, s, **kwargs):
        kwargs.setdefault("parse_float", exact_json_float)
        return super().loads(s, **kwargs)


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.json = ExactNumbersJSON(app)
    app.config.update(LEDGER="hanadealer-ledger.sqlite", LIVE=None, PIN=None, ZONES_DIR=None,
                      VIDEO_FPS=10.0, VIDEO_RESEND_S=1.0, SSE_KEEPALIVE_S=15.0,
                      MAX_CONTENT_LENGTH=MAX_REQUEST_BYTES)
    app.config.update(config or {})
    live = app.config["LIVE"]
    if live is None:  # e.g. `flask --app webui.app run`: the page works, the banner says why no table
        live = NoTable()
    ledger = Ledger(app.config["LEDGER"])
    # The signing key lives in the ledger so a restart keeps the dealer logged in.
    if not app.config.get("SECRET_KEY"):
        ledger.set_meta_once("secret_key", secrets.token_hex(32))
        app.config["SECRET_KEY"] = ledger.get_meta("secret_key")
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict")
    if app.config["PIN"]:
        # the PIN of the environment is the PIN: given once it is stored, and given another it replaces
        # the one stored (a PIN claimed by someone else, or forgotten, had no way back) and ends every login
        pin = _check_pin_format(str(app.config["PIN"]))
        stored = ledger.get_meta("pin_hash")
        if stored is None:
            ledger.set_meta_once("pin_hash", generate_password_hash(pin))
        elif not check_password_hash(stored, pin):
            ledger.set_meta("pin_hash", generate_password_hash(pin))
            ledger.set_meta("logins", "[]")
    zones_dir = Path(app.config["ZONES_DIR"]) if app.config["ZONES_DIR"] else Path(app.config["LEDGER"]).parent
    service = DealerService(ledger, live, zones_loader=lambda game: _load_zones(zones_dir, game),
                            zones_renamer=lambda game, names: _rename_zones(zones_dir, game, names))
    service.players_check = app.config.get("PLAYERS_CHECK")  # (the demo table's: webui.cli)
    try:  # (a damaged file went unsaid on the table page while round after round was written into it)
        said = ledger.integrity(quick=True)
        if said == "ok":  # (an amount booked that cannot be read: the file itself is sound)
            ledger.balances()
            ledger.balances(stones=True)
    except LedgerError as exc:
        said = str(exc)
    if said != "ok":
        service.note_ledger_damage(said)
    app.extensions["hanadealer"] = {"service": service, "ledger": ledger, "live": live,
                                    "zones_dir": zones_dir, "failures": [0, 0.0], "login_lock": threading.Lock(),
                                    "logins_lock": threading.Lock(),
                                    "watcher": _TableWatcher(live, service.hub, service.observe_table)}
    app.register_blueprint(pages)
    app.register_blueprint(api)
    app.register_blueprint(stream)
    app.before_request(_guard_host)
    app.before_request(_guard_writes)
    app.register_error_handler(InputError, lambda e: (jsonify(error=str(e)), 400))
    app.register_error_handler(RoundError, lambda e: (jsonify(error=str(e)), 400))
    # the ledger's file refused a read or a write (read-only, locked): nothing was recorded by it
    app.register_error_handler(LedgerError, _ledger_error)
    app.register_error_handler(404, lambda e: (_err(e, "not found"), 404))
    app.register_error_handler(405, lambda e: (_err(e, "method not allowed"), 405))
    app.register_error_handler(413, lambda e: (_err(None, f"the request is too large: at most "
                                                     f"{MAX_REQUEST_BYTES // 1024} KB"), 413))
    app.register_error_handler(Exception, _unexpected)
    app.add_template_filter(signed)
    app.add_template_filter(result_texts)
    app.add_template_filter(late_notes)
    app.add_template_filter(winner_text)
    app.add_template_filter(pot_text)
    app.add_template_filter(game_title)
    app.add_template_filter(zone_text)
    app.add_template_filter(card_label, "card_text")
    app.add_template_filter(same_face)
    if app.config.get("WATCH_TABLE", not app.testing):
        # Kakeya's tricks are read off the table as they are played, whether or not a page is open
        app.extensions["hanadealer"]["watcher"].ensure_started()
    app.context_processor(lambda: {"csrf_token": _csrf_token(), "logged_in": _logged_in(),
                                   "pin_set": ledger.get_meta("pin_hash") is not None})
    return app


class NoTable:
    """Stands in for the LiveTable when none is given: an empty table and a clear banner."""

    def __init__(self):
        self._snap = {"version": 1, "zones": [], "unassigned": [],
                      "status": {"camera": "lost",
                                 "error": "no table source: start the page with `hanadealer serve`"}}

    def snapshot(self) -> dict:
        return self._snap

    def wait_for_change(self, version, timeout=None):
        time.sleep(min(timeout or 1.0, 1.0))
        return None

    def jpeg(self) -> bytes:
        return b""

    def set_layout(self, layout, zones=None) -> None:
        pass


def late_notes(result) -> list[str]:
    """The notes of bets taken or removed after the reveal recorded with a round (none where a
    hand-edited record holds something else there)."""
    late = result.get("late_bets") if isinstance(result, Mapping) else None
    return [n for n in late if isinstance(n, str)] if isinstance(late, list) else []


def game_title(game: str) -> str:
    """'batta-maki' -> 'Batta Maki バッタまき' (the name a game is recorded by, where it is no more)."""
    try:
        g = get_game(game)
    except (RoundError, KeyError, ValueError, TypeError):
        return str(game)
    return f"{g.title_en} {g.title_ja}"


@functools.cache
def _fixed_zone_titles(game: str) -> dict[str, str]:
    """The zones a game names alike at every table (Saki, Ato, Naka-e, the dealer's hand...): their
    titles, as the table page shows them; the players' own zones are named by the players."""
    names = ["player-one", "player-two"]
    try:
        zones = get_game(game).layout({"players": names, "seats": names})
    except (RoundError, KeyError, ValueError, TypeError):
        return {}
    return {z.name: zone_title(z) for z in zones if not any(n in z.name for n in names)}


def zone_text(zone, game: str = "") -> str:
    """A zone of a recorded round as the table page named it ('saki' -> 'Saki 先'; 'Aki/2' -> 'Aki row 2')."""
    zone = str(zone)
    if zone in _fixed_zone_titles(game):
        return _fixed_zone_titles(game)[zone]
    if game == "kabu-tsukuri" and "/" in zone:
        player, row = zone.rsplit("/", 1)
        return f"{player} row {row}"
    return zone


def pot_text(what) -> str:
    """A booking of a pot that is no round played, as the history says it (a pot given up, named)."""
    return BOOKING_TEXT.get(what, f"pot {what}")


def winner_text(winner, game: str = "") -> str:
    """A round's winner as the history shows it: a pair of partners (Kakeya), each row's winner
    (Kabu-Tsukuri), each seat's contest (Otoroku: its winner, or a dash where the hand was not played
    for), the dealer's month (Echobo); else the row or player it names."""
    if winner is None:
        return "—"
    if isinstance(winner, Mapping):
        return " · ".join(f"{seat}: {'—' if w is None else w}" for seat, w in winner.items())
    if isinstance(winner, list):
        if game == "kakeya-toranpu":
            return " + ".join(map(str, winner))
        return " · ".join(f"row {i}: {w}" for i, w in enumerate(winner, 1))
    if game == "echobo":
        return f"month {winner}"
    return zone_text(winner, game)


def _err(e, default):
    if request.path.startswith("/api"):
        return jsonify(error=getattr(e, "description", None) or default)
    return getattr(e, "description", default)


def _ledger_error(e):
    """The ledger refused: JSON to the page's calls, a page of its own to a link followed (the
    history, the export gave a bare JSON text)."""
    if request.path.startswith("/api"):
        return jsonify(error=str(e)), 503
    return render_template("ledger_error.html", page=None, message=str(e)), 503


def _unexpected(e):
    from werkzeug.exceptions import HTTPException
    if isinstance(e, HTTPException):
        return (jsonify(error=e.description), e.code) if request.path.startswith("/api") else e
    current_app.logger.exception("unexpected error")
    return jsonify(error=f"internal error: {type(e).__name__}: {e}"), 500


def _ext() -> dict:
    return current_app.extensions["hanadealer"]


def _service() -> DealerService:
    return _ext()["service"]


class _TableWatcher:
    """One thread per app turning every LiveTable change into a Hub bump (wakes every SSE stream),
    after giving the change to ``on_change`` (the service reads Kakeya's tricks off the table)."""

    def __init__(self, live, hub, on_change=None):
        self.live, self.hub, self.on_change = live, hub, on_change
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def ensure_started(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="table-watcher", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        seen = None
        while not self._stop.is_set():
            try:
                if seen is None:
                    seen = int((self.live.snapshot() or {}).get("version", 0))
                asked = time.monotonic()
                snap = self.live.wait_for_change(seen, 1.0)
            except Exception:  # a broken table must not kill the page: retry
                self._stop.wait(0.5)
                continue
            if snap is None and time.monotonic() - asked < 0.1:
                # the table answered at once without a change: it is stopped. Do not spin on it.
                self._stop.wait(0.5)
            elif snap is not None:
                seen = int(snap.get("version", 0))
                if self.on_change is not None:
                    try:
                        self.on_change(snap)
                    except Exception:  # never let one bad state stop the page's updates
                        log.exception("reading the table change failed")
                self.hub.bump()


# --- security -------------------------------------------------------------------------------------

def _csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def _check_pin_format(pin: str) -> str:
    # (ASCII digits: "٢٤٦٨" is digits too, which no keypad types again)
    if not (pin.isascii() and pin.isdigit()) or not PIN_MIN <= len(pin) <= PIN_MAX:
        raise InputError(f"the PIN must be {PIN_MIN} to {PIN_MAX} digits")
    return pin


def _host_allowed(host: str, allowed) -> bool:
    """Whether the page answers to ``host`` (the request's Host, port and all): localhost, an IP
    address, or a name the server was started with."""
    name = (urlsplit(f"//{host}").hostname or "").rstrip(".")  # ("localhost." is localhost)
    if name == "localhost" or name.endswith(".localhost") or name.lower() in {h.lower().rstrip(".") for h in allowed or ()}:
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def _guard_host():
    """Every request: a page reached by a name the server was not started with is refused. A web
    page the dealer's machine opens can point its own name at 127.0.0.1 (DNS rebinding): it was then
    same-origin to itself, claimed the PIN before one was set, and read the books."""
    if _host_allowed(request.host, current_app.config.get("ALLOWED_HOSTS")):
        return None
    name = urlsplit(f"//{request.host}").hostname or request.host
    return jsonify(error=f"this page answers to localhost and IP addresses, not to the name {name!r} (start "
                         f"the server with --allow-host {name} to open it by that name)"), 403


def _logins() -> list[str]:
    try:
        logins = json.loads(_ext()["ledger"].get_meta("logins") or "[]")
    except ValueError:
        return []
    return [x for x in logins if isinstance(x, str)] if isinstance(logins, list) else []


def _logged_in() -> bool:
    """Whether this device is logged in: its cookie names a login the server still holds."""
    login = session.get("dealer")
    return isinstance(login, str) and login in _logins()


def _log_in() -> None:
    login, before = secrets.token_hex(16), session.get("dealer")
    with _ext()["logins_lock"]:
        # (the device's login before, logged in again: kept, Lock ended only the new one, and a copy
        # of the cookie of before went on working)
        kept = [x for x in _logins() if x != before]
        _ext()["ledger"].set_meta("logins", json.dumps((kept + [login])[-MAX_LOGINS:]))
    session["dealer"] = login


def _log_out() -> None:
    login = session.pop("dealer", None)
    with _ext()["logins_lock"]:
        logins = _logins()
        if login in logins:
            _ext()["ledger"].set_meta("logins", json.dumps([x for x in logins if x != login]))


def _guard_writes():
    """Every POST: same-origin, a valid CSRF token, and (except to set the PIN or log in) the PIN."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    origin = request.headers.get("Origin")
    if origin and origin != "null":
        if urlsplit(origin).netloc != request.host:
            return jsonify(error=f"cross-site request refused (origin {origin})"), 403
    elif origin == "null":
        return jsonify(error="cross-site request refused (origin null)"), 403
    token = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    expected = session.get("csrf")
    # compared as bytes: a str with a character outside ASCII made compare_digest raise (a 500)
    if not expected or not hmac.compare_digest(str(token).encode("utf-8", "surrogatepass"),
                                               str(expected).encode("utf-8")):
        return jsonify(error="missing or wrong CSRF token: reload the page"), 403
    if request.endpoint in ("api.set_pin", "api.login", "api.logout"):
        return None
    if not _logged_in():
        return jsonify(error="the dealer's PIN is needed for this (log in first)"), 401
    return None


def _json_body() -> Any:
    if not request.is_json:
        raise InputError("send a JSON body (Content-Type: application/json)")
    try:
        data = request.get_json()
    except BadRequest as exc:  # (a body that is no JSON, or a number too long to read: said which)
        raise InputError(f"the body cannot be read as JSON: {_json_fault(exc)}") from None
    except RecursionError:  # (werkzeug turns only a ValueError into a BadRequest)
        raise InputError("the body cannot be read as JSON: it is nested too deeply") from None
    if data is None:
        raise InputError("send a JSON body (Content-Type: application/json)")
    return data


def _no_fields(what: str) -> None:
    """A write that reads no body: one sent with fields is refused, as every write refuses a field it
    does not read (the page sends none, or ``{}``)."""
    if request.form:  # (a form's fields, read before for its CSRF token, leave no body to see)
        only_fields(request.form.to_dict(), ("csrf_token",), what)
    elif request.get_data():
        only_fields(_json_body(), (), what)


def _json_fault(exc: BadRequest) -> str:
    """What is wrong with a body that is no JSON, in the decoder's words (Flask says only that the
    browser sent a request the server could not understand)."""
    try:
        current_app.json.loads(request.get_data(as_text=True))
    except (ValueError, RecursionError) as fault:
        return str(fault).split("; use sys.")[0]  # (advice for a programmer, not for the request)
    return exc.description or "it is no JSON"


# --- pages ----------------------------------------------------------------------------------------

@pages.get("/")
def table():
    return render_template("table.html", page="table")


HISTORY_ROUNDS = 200  # the rounds the history page lists (all of them are in the CSV export)


@pages.get("/history")
def history():
    ledger = _ext()["ledger"]
    # an amount booked that cannot be read leaves no balance to show, but the rounds are shown, the
    # damaged one named (the page was a bare error, every round hidden)
    try:
        balances, stones = ledger.balances(exact=True), ledger.balances(stones=True, exact=True)
        balances_error = None
    except LedgerError as exc:
        balances, stones, balances_error = {}, {}, str(exc)
    try:  # (the pot a tie left on the table: the chip balances add up to minus it)
        pot, pot_error = sum(_service().stakers_on_the_books().values(), Fraction(0)), None
    except LedgerError as exc:  # (said: dropped, the balances added up to something with no word why)
        pot, pot_error = Fraction(0), str(exc)
    return render_template("history.html", page="history", rounds=ledger.rounds(limit=HISTORY_ROUNDS),
                           balances=balances, stones=stones, balances_error=balances_error, pot=pot,
                           pot_error=pot_error,
                           round_count=ledger.round_count(), rounds_gone=ledger.entries_of_no_round())


@pages.get("/settings")
def settings():
    games = []
    for name in GAME_NAMES:
        try:
            g = get_game(name)
        except Exception:  # a game not installed yet is left out, not fatal
            continue
        games.append({"name": g.name, "title_en": g.title_en, "title_ja": g.title_ja,
                      "takes_bets": g.name not in NO_BETS,
                      "options": [{"name": o.name, "default": o.default,
                                   "choices": list(o.choices) if o.choices else None, "doc": o.doc,
                                   "applies_when": {"option": o.applies_when[0], "values": list(o.applies_when[1])}
                                   if o.applies_when else None}
                                  for o in g.options]})
    return render_template("settings.html", page="settings", games=games, colours=CHIP_COLOURS,
                           session_data=_service().session, settings_key=settings_key(_service().session))


@pages.get("/export.csv")
def export_csv():
    # with a byte-order mark: a spreadsheet opening the file read its names (太郎, Zoë) in the
    # machine's own code page without one
    return Response("\ufeff" + _ext()["ledger"].export_csv(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=hanadealer-ledger.csv"})


@pages.get("/rounds/<int:round_id>/snapshot.jpg")
def round_snapshot(round_id: int):
    # (an id past SQLite's 64-bit integers is no round: asked for, it raised OverflowError)
    data = _ext()["ledger"].snapshot(round_id) if round_id <= LARGEST_ID else None
    if data is None:
        abort(404, f"round {round_id} has no snapshot")
    return Response(data, mimetype="image/jpeg")


# --- API ------------------------------------------------------------------------------------------

@api.get("/state")
def state():
    return jsonify(_service().view())


@api.get("/cards")
def cards():
    """The cards the dealer may choose from when correcting one: the 48 hanafuda cards, or with
    ``?deck=western`` the 52 western cards (Kakeya Toranpu)."""
    deck = (request.args.get("deck") or "hanafuda").lower()
    if deck not in ("hanafuda", "western"):  # (any other value gave the hanafuda cards unsaid)
        abort(400, description=f"deck: {request.args.get('deck')!r} is not a deck; the decks are hanafuda and western")
    if deck == "western":
        return jsonify([{"id": c.id, "label": card_label(c.id), "rank": c.rank, "suit": c.suit}
                        for c in all_western_cards()])
    return jsonify([{"id": c.id, "label": card_label(c.id), "month": c.month, "suit": c.suit,
                     "suit_ja": SUIT_JA.get(c.suit, "")} for c in all_cards()])


@api.get("/auth")
def auth():
    return jsonify(pin_set=_ext()["ledger"].get_meta("pin_hash") is not None,
                   logged_in=_logged_in(), csrf=_csrf_token())


@api.post("/pin")
def set_pin():
    data = _json_body()
    only_fields(data, ("pin",), "the PIN")
    pin = _check_pin_format(str(data.get("pin", "")) if isinstance(data, dict) else "")
    if _ext()["ledger"].get_meta("pin_hash") is not None:
        return jsonify(error="the PIN is already set"), 409
    if not _from_this_machine():
        # (the first device on the network to ask became the dealer, for good)
        return jsonify(error="the PIN is chosen on the server's own machine (the page it names as it starts), "
                             "or given in HANADEALER_PIN when the server starts: a device on the network "
                             "cannot choose it"), 403
    if not _ext()["ledger"].set_meta_once("pin_hash", generate_password_hash(pin)):
        return jsonify(error="the PIN is already set"), 409
    _log_in()
    return jsonify(ok=True)


def _from_this_machine() -> bool:
    """Whether the request comes from the server's own machine: a loopback address (an IPv4 one
    mapped into IPv6 too, as a server on "::" sees it), or the address it came in on."""
    def address(text):
        try:
            ip = ipaddress.ip_address((text or "").split("%")[0])
        except ValueError:
            return None
        return getattr(ip, "ipv4_mapped", None) or ip
    if any(h in request.headers for h in ("Forwarded", "X-Forwarded-For", "X-Real-IP")):
        return False  # (through a proxy on this machine every device comes from 127.0.0.1)
    remote = address(request.remote_addr)
    if remote is None:
        return False
    if remote.is_loopback:
        return True
    try:  # (a server started on the machine's own network address: its page opened there)
        local = address(request.environ["werkzeug.socket"].getsockname()[0])
    except (KeyError, AttributeError, OSError, IndexError, TypeError):
        return False
    return local is not None and local == remote


@api.post("/login")
def login():
    data = _json_body()
    # a misspelt field ("PIN") was checked as an empty PIN: five of them locked the dealer out
    only_fields(data, ("pin",), "a login")
    pin = str(data.get("pin", "")) if isinstance(data, dict) else ""
    # one PIN checked at a time: guesses sent at once all passed the lockout's check before the
    # slow hash had counted any of them
    with _ext()["login_lock"]:
        failures = _ext()["failures"]
        if failures[0] >= LOCKOUT_AFTER and time.monotonic() - failures[1] < LOCKOUT_S:
            return jsonify(error=f"too many wrong PINs: wait {LOCKOUT_S:.0f} seconds"), 429
        stored = _ext()["ledger"].get_meta("pin_hash")
        if stored is None:
            return jsonify(error="no PIN is set yet: set one first"), 409
        # (a PIN no keypad types, as a lone surrogate that cannot be hashed, is a wrong one too)
        if not (pin.isascii() and pin.isdigit()) or not check_password_hash(stored, pin):
            failures[0] += 1
            failures[1] = time.monotonic()
            return jsonify(error="wrong PIN"), 401
        failures[0] = 0
    _log_in()
    return jsonify(ok=True)


@api.post("/logout")
def logout():
    _no_fields("a logout")
    _log_out()
    return jsonify(ok=True)


@api.post("/session")
def start_session():
    return jsonify(_service().start_session(_json_body()))


@api.post("/bets")
def add_bet():
    return jsonify(_service().add_bet(_json_body())), 201


@api.post("/bets/<bet_id>/remove")
def remove_bet(bet_id: str):
    if request.form:  # (a form's fields, read for its CSRF token: checked as a body's are)
        only_fields(request.form.to_dict(), ("csrf_token", "after_reveal"), "a bet's removal")
    _service().remove_bet(bet_id, _json_body() if request.get_data() else None)
    return jsonify(ok=True)


@api.post("/busts/forget")
def forget_bust():
    """Otoroku: {"seat": name}: the bust remembered for that seat taken back by the dealer."""
    _service().forget_bust(_json_body())
    return jsonify(ok=True)


@api.post("/chosen")
def choose():
    """Otoroku: {"chosen": [seats]} the bettors the dealer shows down with, or {"chosen": null}: all."""
    return jsonify(chosen=_service().choose(_json_body()))


@api.post("/correct")
def correct():
    return jsonify(_service().correct(_json_body()))


@api.post("/tricks/leader")
def trick_leader():
    """Kakeya: who leads the first trick."""
    return jsonify(_service().set_leader(_json_body()))


@api.post("/tricks")
def add_trick():
    """Kakeya: a trick entered by hand (the camera could not read it), cards in the order played."""
    return jsonify(_service().add_trick(_json_body())), 201


@api.post("/tricks/<int:number>")
def replace_trick(number: int):
    """Kakeya: trick ``number`` corrected by hand."""
    return jsonify(_service().replace_trick(number, _json_body()))


@api.post("/tricks/none-missed")
def no_trick_missed():
    """Kakeya: the dealer checked the tricks recorded: the trick said to be missed was none."""
    _no_fields("the word that no trick was missed")
    return jsonify(_service().none_missed())


@api.post("/tricks/undo")
def undo_trick():
    _no_fields("an undo")  # ({"trick": 1} took back the last trick, not the first)
    return jsonify(_service().undo_trick())


@api.post("/round/deck-exhausted")
def deck_exhausted():
    """A tie being redrawn when the deck has run out: the round then ends as the house says."""
    return jsonify(exhausted=_service().set_deck_exhausted(_json_body()))


@api.get("/round")
def reveal():
    """The round as revealed so far: zones, cards, what is missing, and the scores once complete."""
    view = _service().view()
    return jsonify({k: view.get(k) for k in ("zones", "row_scores", "problems", "preview", "pending", "advice",
                                             "redraw")})


@api.post("/settle")
def settle():
    _no_fields("a settle")
    return jsonify(_service().settle())


@api.post("/settle/cancel")
def cancel_settle():
    # (the page names the settlement it shows; with no body, whatever waits is cancelled)
    if request.form:  # (a form's fields, its CSRF token read already)
        data = {k: v for k, v in request.form.to_dict().items() if k != "csrf_token"}
    else:
        data = _json_body() if request.get_data() else {}
    only_fields(data, ("pending",), "a cancel")
    _service().cancel_settlement(data.get("pending") if isinstance(data, dict) else None)
    return jsonify(ok=True)


@api.post("/confirm")
def confirm():
    data = _json_body()
    only_fields(data, ("pending",), "a confirmation")
    round_id = _service().confirm(data.get("pending") if isinstance(data, dict) else None)
    try:
        return jsonify(round=round_id, balances=_ext()["ledger"].balances())
    except LedgerError as exc:  # (an older round's damage: this one is recorded, said so all the same)
        _service().note_ledger_damage(str(exc))
        return jsonify(round=round_id, balances=None, balances_error=str(exc))


LARGEST_ID = 2**63 - 1  # SQLite's largest integer: a round id above it is none
MOST_ROUNDS = 1000  # rounds per request of /api/rounds (older ones: ?before=<the last id given>)


@api.get("/rounds")
def rounds():
    """Confirmed rounds, newest first: ``limit`` of them (50 by default, at most MOST_ROUNDS), those
    before round ``before`` (the next page)."""
    limit = _whole_number_arg("limit", 50, 1, MOST_ROUNDS)
    before = _whole_number_arg("before", None, 1, LARGEST_ID)
    return jsonify([r.to_json() for r in _ext()["ledger"].rounds(limit=limit, before=before)])


def _whole_number_arg(name: str, default, least: int, most: int | None):
    """A query argument read as the command line reads a whole number (hanadealer.args.whole)."""
    import argparse
    from hanadealer.args import whole
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        return whole(least, most)(raw)
    except argparse.ArgumentTypeError as exc:
        abort(400, description=f"{name}: {exc}")


@api.get("/balances")
def balances():
    """The chip balances; ``?stones=1``: the pairs' stones over the Kakeya Toranpu hands; ``?exact=1``:
    each as the exact amount booked, written as text ("-1699999999949/17"; a JSON number of 10^11
    chips has no room for 6 decimals)."""
    totals = _ext()["ledger"].balances(stones=_yes_no_arg("stones"), exact=_yes_no_arg("exact"))
    return jsonify({p: str(a) if isinstance(a, Fraction) else a for p, a in totals.items()})


def _yes_no_arg(name: str) -> bool:
    """A query argument that is a yes or a no (?stones=yes gave the chips, as if it were a no)."""
    raw = request.args.get(name)
    value = (raw or "").strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    abort(400, description=f"{name}: {raw!r} is neither yes nor no (1/true/yes/on or 0/false/no/off)")


@api.post("/zones")
def save_zones():
    """Zones drawn on the live image: {"zones": [{"name", "points": [[x, y], ...]}]} in frame pixels
    ("polygon" is accepted for "points"), and the size of the picture they were drawn on ("drawn_on":
    {"width", "height"}; the page sends it). Saved per game with vision.zones.save_zones."""
    from vision.zones import ZoneError, save_zones as write_zones, zones_from_json
    s = _service()
    if not s.session:
        raise InputError("choose the game first: zones belong to its layout")
    data = _json_body()
    only_fields(data, ("zones", "drawn_on"), "the zones")
    raw = data.get("zones") if isinstance(data, dict) else None
    drawn_on = data.get("drawn_on") if isinstance(data, dict) else None
    if drawn_on is not None and not (isinstance(drawn_on, dict) and all(
            isinstance(drawn_on.get(k), int) and not isinstance(drawn_on.get(k), bool) for k in ("width", "height"))):
        raise InputError(f"'drawn_on' is the picture's size, {{'width': ..., 'height': ...}}, not {drawn_on!r}")
    if not isinstance(raw, list):
        raise InputError("send {'zones': [{'name': ..., 'points': [[x, y], ...]}, ...]}")
    names = [z.name for z in _layout_of(s.session)]
    items = []
    for i, z in enumerate(raw, start=1):
        if not isinstance(z, dict) or z.get("name") not in names:
            said = f" ({z.get('name')!r})" if isinstance(z, dict) and isinstance(z.get("name"), str) else ""
            raise InputError(f"zone {i}{said}: the name must be one of {', '.join(names)}")
        # (a field not read was passed over: "polygon" beside "points" was dropped without a word)
        only_fields(z, ("name", "points", "polygon"), f"zone {i}")
        if "points" in z and "polygon" in z:
            raise InputError(f"zone {i}: give its corners once, as 'points' (or 'polygon'), not both")
        items.append({"name": z["name"], "polygon": z.get("points", z.get("polygon"))})
    try:
        zones = zones_from_json(items)
    except ZoneError as exc:
        raise InputError(str(exc)) from None
    path = _zones_path(_ext()["zones_dir"], s.session["game"])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # (as bytes: a damaged file the page says to draw again over refused every save as text)
        old = path.read_bytes() if path.exists() else None
        # (with the picture they were drawn on: on another size or turn they would be read wrongly)
        live = _ext()["live"]
        picture = live.picture() if callable(getattr(live, "picture", None)) else None
        if picture is None and zones and callable(getattr(live, "picture", None)):
            # (drawn on the "waiting for the camera" placeholder, they were stored with no picture
            # and laid over the camera's first frame, of any size, without a word)
            raise InputError("the camera has given no picture yet: draw the zones once the table is visible")
        if picture and drawn_on and (drawn_on["width"], drawn_on["height"]) != (picture["width"], picture["height"]):
            # (the camera came back at another size while they were drawn: stored as drawn on this
            # one, the corners of the old were read as live, and every card fell in one zone)
            raise InputError(f"the zones were drawn on a picture of {drawn_on['width']}x{drawn_on['height']}, and the "
                             f"camera's is {picture['width']}x{picture['height']} now: draw them again on the "
                             f"picture as it is now")
        write_zones(path, zones, picture)
    except (OSError, UnicodeDecodeError) as exc:  # (a folder in its place, a disk that refuses it)
        raise InputError(f"the zones cannot be saved to {path}: {exc}") from None
    s.forget_known_seats()  # (zones drawn again: the camera may have moved)
    try:
        s._apply_layout(strict=True)
    except InputError:
        if old is None:
            path.unlink()
        else:
            path.write_bytes(old)
        s._apply_layout()
        raise
    s.hub.bump()
    # (and what the table now lacks, said where the zones are drawn: a zone of the game left undrawn
    # was said on the Table page only, after "1 zone(s) saved.")
    return jsonify(saved=len(zones), note=s.layout_note)


@api.get("/zones")
def get_zones():
    s = _service()
    if not s.session:
        return jsonify(zones=[], names=[])
    names = [{"name": z.name, "label": f"{z.label_en} {z.label_ja}"} for z in _layout_of(s.session)]
    try:
        zones = _load_zones(_ext()["zones_dir"], s.session["game"]) or []
    except ValueError as exc:  # a damaged zone file: say so, and let the dealer draw them afresh
        return jsonify(zones=[], names=names, error=f"the zones saved for this game cannot be read ({exc}): "
                                                     f"draw them again and save")
    picture = getattr(zones, "picture", None)  # (the page keeps their corners in that picture's pixels)
    live = _ext()["live"]
    now = live.picture() if callable(getattr(live, "picture", None)) else None
    from vision.zones import describe_turn, picture_turn
    if picture and now and picture_turn(picture) != picture_turn(now):
        # drawn on the picture turned another way (--rotate or --mirror changed): shown over this
        # one, one zone redrawn and saved stored the others as on this turn, read wrongly without a word
        return jsonify(zones=[], names=names, error=f"the zones were drawn on the picture "
                                                     f"{describe_turn(picture, now)}, and it is "
                                                     f"{describe_turn(now, picture)} now: draw them again and save")
    # (a zone of a seat no longer in the game, a player gone, could be neither chosen nor removed, and
    # refused every save: left out, said)
    offered = {n["name"] for n in names}
    gone = sorted({z.name for z in zones} - offered)
    out = {"zones": [{"name": z.name, "points": [list(p) for p in z.polygon]} for z in zones if z.name in offered],
           "names": names,
           "drawn_on": {"width": picture["width"], "height": picture["height"]} if picture else None}
    if gone:
        out["error"] = (f"the zones drawn for {', '.join(gone)}, no longer at the table, are left out: save to "
                        f"forget them")
    return jsonify(**out)


def _layout_of(session_data):
    """The zones the camera reads for the session's game (for Kakeya only the trick)."""
    from webui.round_builder import layout_setup
    from webui.tricks import live_layout
    return live_layout(get_game(session_data["game"]), layout_setup(session_data))


def _zones_path(zones_dir: Path, game: str) -> Path:
    return Path(zones_dir) / f"zones-{game}.json"


def _load_zones(zones_dir: Path, game: str):
    """The zones drawn for this game (vision.zones.TableZone), or None when none are drawn."""
    path = _zones_path(zones_dir, game)
    if not path.exists():
        return None
    from vision.zones import load_zones  # the vision side's file format; imported only when drawn
    return load_zones(path)


def _rename_zones(zones_dir: Path, game: str, names: dict) -> None:
    """Rename the zones drawn for this game (``names``: name before -> now; players renamed in
    Settings), each kept where it was drawn, on the picture it was drawn on."""
    path = _zones_path(zones_dir, game)
    if not path.exists():
        return
    from dataclasses import replace
    from vision.zones import load_zones, save_zones as write_zones
    zones = load_zones(path)
    if not any(z.name in names for z in zones):
        return
    # (a zone left from before under a name now given to another is that player's no longer)
    kept = [z for z in zones if z.name in names or z.name not in names.values()]
    write_zones(path, [replace(z, name=names.get(z.name, z.name)) for z in kept], zones.picture)


# --- streams --------------------------------------------------------------------------------------

@stream.get("/events")
def events():
    """Server-Sent Events: the whole page state now, then again on every change."""
    service = _service()
    _ext()["watcher"].ensure_started()
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])

    # a ping the page sees, not a comment: a link gone quiet without closing (a tablet's Wi-Fi
    # dropping out) raises no error in the browser, and the page showed a frozen table as live; with
    # no ping for a few periods it says the contact is lost (its own watch, in table.js)
    ping = f"event: ping\ndata: {json.dumps({'every_s': keepalive})}\n\n"

    def gen():
        seen = None
        yield "retry: 1000\n\n" + ping
        while True:
            version = service.hub.version if seen is None else service.hub.wait(seen, keepalive)
            if version == seen:
                yield ping
                continue
            seen = version
            data = json.dumps(service.view(), separators=(",", ":"))
            yield f"id: {version}\nevent: state\ndata: {data}\n\n"

    return Response(stream_with_context(gen()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@stream.get("/frame.jpg")
def frame():
    """The table's picture now, to draw zones on: none (503) before the camera's first frame (the
    placeholder shown in the video was taken for the camera's picture, and its size for the camera's)."""
    live = _ext()["live"]
    try:
        waiting = callable(getattr(live, "picture", None)) and live.picture() is None
        data = None if waiting else live.jpeg()
    except Exception as exc:  # a source that failed: said, as for no picture yet
        abort(503, f"no camera image: {type(exc).__name__}: {exc}")
    if not data:
        abort(503, "no camera image yet")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@functools.lru_cache(maxsize=1)
def _no_picture_jpeg() -> bytes:
    """A small grey picture saying there is no camera image to show."""
    import cv2

    from vision.live import placeholder_picture
    return cv2.imencode(".jpg", placeholder_picture("no camera image", (480, 270)))[1].tobytes()


@stream.get("/video.mjpg")
def video():
    live = _ext()["live"]
    if isinstance(live, NoTable):  # (a stream that never sent a picture held its thread for good)
        abort(503, "no camera image: no table source")
    period = 1.0 / max(float(current_app.config["VIDEO_FPS"]), 0.5)
    resend = float(current_app.config["VIDEO_RESEND_S"])

    def gen():
        last, sent = None, 0.0
        while True:
            try:
                data = live.jpeg()
            except Exception:
                data = None
            # no picture (none yet, or one a JPEG cannot hold): a picture saying so, as often as the
            # same one is sent again, or the closed page of a client went unnoticed for good
            data = data or _no_picture_jpeg()
            # the same picture is sent again each second: written nothing while the picture stood
            # still (the camera away), a closed page went unnoticed and kept its thread
            if data is not last or time.monotonic() - sent >= resend:
                last, sent = data, time.monotonic()
                yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " +
                       str(len(data)).encode() + b"\r\n\r\n" + data + b"\r\n")
            time.sleep(period)

    return Response(gen(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-store"})
