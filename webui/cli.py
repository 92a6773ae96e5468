"""``hanadealer serve`` (the dealer's page), ``hanadealer bench-latency`` and ``hanadealer bench-tricks``.

The vision side (frame sources, the LiveTable) is imported only when a command runs, so the web
app and its tests need no camera and no OpenCV window.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from hanadealer.args import PORT, SEED, named, number, whole
from hanadealer.text import shown_text

DEFAULT_PORT = 5000


def register(subparsers) -> None:
    p = subparsers.add_parser("serve", help="the dealer's page (live table, bets, settlement, ledger)",
                              description="Start the dealer's page. With no source option: a camera "
                                          "if one opens, otherwise the built-in demo table.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", type=whole(0, 99), metavar="N", help="webcam number (0 is the first)")
    src.add_argument("--video", type=named, metavar="FILE", help="a video file (looped)")
    src.add_argument("--images", type=named, metavar="DIR", help="a folder of images")
    src.add_argument("--demo", action="store_true", help="the built-in demo table (no camera needed)")
    p.add_argument("--rotate", type=int, choices=(0, 90, 180, 270), default=0, metavar="DEGREES",
                   help="turn the camera's picture clockwise by 90, 180 or 270 degrees, so that the "
                        "page shows the table as the dealer sees it and rows read left to right "
                        "from his seat (a camera mounted facing him: 180; default 0)")
    p.add_argument("--mirror", action="store_true",
                   help="flip the camera's picture left to right (before --rotate): for a webcam that "
                        "mirrors its picture and cannot be set not to (a mirrored card is read as another)")
    p.add_argument("--game", default="batta-maki", help="game of a new session (default batta-maki)")
    p.add_argument("--players", default=None,
                   help="comma-separated players of a new session (default: the demo's A,B,C; A,B,C,D for "
                        "kakeya-toranpu)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; "
                        "0.0.0.0 lets a tablet on the network connect)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="a host name the page may be opened by (repeatable; localhost and IP addresses always "
                        "may): another name is refused, as a web page can point its own name at this server")
    p.add_argument("--port", type=PORT, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--data", type=named, default=None,
                   metavar="DIR", help="folder of the ledger and the drawn zones, used as named, with --demo too "
                                       "(default $HANADEALER_DATA, else ~/.hanadealer; with --demo, its demo/ "
                                       "folder)")
    p.add_argument("--detector", choices=("model", "truth"), default=None,
                   help="card detector: the ONNX models, or (demo only) the demo's own truth "
                        "(default: model for a camera/video/images, truth for the demo when "
                        "no model is installed)")
    p.set_defaults(func=serve)

    b = subparsers.add_parser("bench-latency",
                              help="time from a card appearing in the frames to the page (JSON)",
                              description="Run the demo table through the whole live pipeline and the "
                                          "web server; measure, on an SSE client, how long after a card "
                                          "is revealed in the frames it reaches the page, and how long "
                                          "after the last card of a round the result does. Prints JSON.")
    b.add_argument("--game", default="batta-maki")
    b.add_argument("--seconds", type=number(0, above=True), default=45.0, help="how long to run at most (default 45)")
    b.add_argument("--cards", type=whole(1), default=None,
                   help="stop once this many cards have been measured (default: run --seconds)")
    b.add_argument("--fps", type=number(0.1, 120), default=10.0, help="demo frame rate, 0.1 to 120 (default 10)")
    b.add_argument("--detector", choices=("model", "truth"), default="truth",
                   help="truth: the demo's own detections (default); model: the ONNX models")
    b.add_argument("--seed", type=SEED, default=0)
    b.set_defaults(func=bench_latency)

    t = subparsers.add_parser("bench-tricks",
                              help="Kakeya Toranpu: how many tricks of demo hands the live table reads right (JSON)",
                              description="Play whole hands of Kakeya Toranpu on the demo table (its own "
                                          "western deck), run the frames through the live table and the "
                                          "dealer's session as the page does, and compare the tricks recorded "
                                          "with the tricks the demo laid. Prints JSON.")
    t.add_argument("--hands", type=whole(1, 1000), default=3,
                   help="hands to play, one per seed from --seed, 1 to 1,000 (default 3)")
    t.add_argument("--seed", type=SEED, default=0)
    t.add_argument("--every", type=whole(1, 10), default=2, metavar="K",
                   help="read every K-th frame of the 10 frames/s demo (default 2: the model's pace)")
    t.add_argument("--detector", choices=("model", "truth"), default="model")
    t.set_defaults(func=bench_tricks)


def _fail(message: str) -> int:
    print(f"hanadealer: {shown_text(message)}", file=sys.stderr)
    return 2


def _detector(kind: str | None, source, game: str = "batta-maki"):
    """The detector asked for; the model one built for ``game``'s cards (a Kakeya table needs only
    the western models)."""
    from dealer.games import get_game
    from vision.live import default_detector
    try:
        cards = get_game(game).card_kind
    except Exception:  # (an unknown game is said by the session; the hanafuda cards meanwhile)
        cards = "hanafuda"
    is_demo = type(source).__name__ == "DemoTable"
    if kind == "truth" or (kind is None and is_demo):
        if not is_demo:
            raise RuntimeError("--detector truth works only with the demo table")
        if kind is None:
            try:
                return default_detector(cards)
            except Exception:  # no model installed: the demo shows its own truth
                pass
        from vision.demo_table import DemoTruthDetector
        return DemoTruthDetector(source)
    return default_detector(cards)


def _layout(game: str, players: list[str]):
    from dealer.games import get_game
    from webui.round_builder import layout_setup
    from webui.tricks import live_layout
    try:
        return live_layout(get_game(game), layout_setup({"game": game, "players": [{"name": n} for n in players]}))
    except Exception:
        from vision.demo_table import demo_layout
        return demo_layout(game)


def demo_players_problem(game: str, players: list[str], named: str = "--players names") -> str | None:
    """Why the demo table cannot be played with these players, or None. It deals for its own players
    (three; four for Kakeya Toranpu): where the game seats each player (Otoroku's hands, Kabu-Tsukuri's
    rows, Echobo's bettors, Kakeya's tricks), another number of them read its deal into seats it does
    not deal to, and settled it so. Other names for as many players, or Batta Maki's bettors, are fine."""
    from dealer.games import RoundError, get_game
    from vision.demo_table import demo_setup
    demo = list(demo_setup(game)["players"])
    try:
        western = get_game(game).card_kind == "western"
    except RoundError:
        return None  # (an unknown game is said where the session starts)
    if len(players) == len(demo) or (not western and len(_layout(game, players)) == len(_layout(game, demo))):
        return None
    return (f"the demo table deals {game} for {len(demo)} players ({','.join(demo)}): {named} "
            f"{len(players)}; name {len(demo)}" + (", or leave --players out" if named.startswith("--") else ""))


def demo_command(game: str, args: argparse.Namespace | None = None) -> str:
    """The command that starts the demo table dealing ``game``, with the other options it was started
    with (``args``): suggested with --game alone, it served another folder's ledger, or another port."""
    words = ["hanadealer", "serve", "--demo", "--game", game]
    if args is not None:
        if getattr(args, "data", None):  # (the demo in place of a camera kept its books in the demo/ folder)
            words += ["--data", str(Path(args.data) if getattr(args, "demo", True) else Path(args.data) / "demo")]
        if getattr(args, "host", "127.0.0.1") != "127.0.0.1":
            words += ["--host", args.host]
        if getattr(args, "port", DEFAULT_PORT) != DEFAULT_PORT:
            words += ["--port", str(args.port)]
        for host in getattr(args, "allow_host", None) or ():
            words += ["--allow-host", host]
        if getattr(args, "detector", None):
            words += ["--detector", args.detector]
        players = _players(args.players) if getattr(args, "players", None) else None
        if players and not demo_players_problem(game, players):  # (names another deal cannot seat: left out)
            words += ["--players", ",".join(players)]
    return shlex.join(words)


def demo_game_problem(dealt: str, game: str, args: argparse.Namespace | None = None) -> str | None:
    """Why the demo table, dealing ``dealt``, cannot be played as ``game``, or None: it deals one game,
    and another is read from its deal only where that has the same deck and the same places (Atosaki
    on Batta Maki's two rows). Chosen in Settings, Hankan on its deal waited for a third row for
    good, and Mutsu-wari found a card outside its deck in most rounds. ``args``: the options the demo
    was started with, repeated in the command said."""
    from dealer.games import RoundError
    from vision.demo_table import demo_deck_ids, demo_layout
    if game == dealt:
        return None
    try:
        shape = lambda g: [(z.cards, z.scored, z.dealer_side, z.group is None) for z in demo_layout(g)]
        if demo_deck_ids(game) == demo_deck_ids(dealt) and shape(game) == shape(dealt):
            return None
    except RoundError:
        return None  # (an unknown game is said where the session starts)
    return (f"the demo table deals {dealt}: to play {game} on it, start it again with --game {game} "
            f"({demo_command(game, args)})")


def _players(arg: str | None, game: str | None = None) -> list[str]:
    """The players named on the command line, else the demo's (three; four for Kakeya Toranpu)."""
    if arg:
        return [n.strip() for n in arg.split(",") if n.strip()]
    from vision.demo_table import DEMO_PLAYERS, demo_setup
    return list(demo_setup(game)["players"]) if game else list(DEMO_PLAYERS)


def build_live_app(source, detector, game: str, players: list[str], data_dir: Path, pin: str | None = None,
                   allowed_hosts: list[str] | None = None, args: argparse.Namespace | None = None):
    """The LiveTable on ``source`` and the app on it; a new session for ``game`` when none is open
    (Kakeya Toranpu on the demo table: the demo's dealing pair and first leader). ``args``: the
    command line's options, repeated where the page says how to start the demo again."""
    from vision.live import LiveTable
    from webui.app import create_app

    live = LiveTable(source, detector, _layout(game, players))
    # (a session of the Settings page for other players than the demo deals for: refused as --players is;
    # and for a game the demo's deal cannot be read as: its deal is what is read)
    check = (lambda g, names: demo_game_problem(source.game, g, args)
             or demo_players_problem(source.game, names, "the session names")) \
        if type(source).__name__ == "DemoTable" else None
    app = create_app({"LIVE": live, "LEDGER": str(data_dir / "ledger.sqlite"), "ZONES_DIR": str(data_dir),
                      "PIN": pin, "PLAYERS_CHECK": check, "ALLOWED_HOSTS": list(allowed_hosts or ())})
    service = app.extensions["hanadealer"]["service"]
    if service.session is None:
        from webui.service import InputError
        try:
            service.start_session(first_session(game, players, getattr(source, "kakeya_dealers", None)))
        except InputError as exc:
            if not _pot_on_the_books(service):
                raise  # (players the game cannot seat: said, and no server started without a session)
            # a pot of another game left on the books: the dealer decides in Settings
            service.layout_note = "; ".join(filter(None, [service.layout_note, f"no session was started for {game}: {exc}"]))
    return live, app


def _pot_on_the_books(service) -> bool:
    from dealer.ledger import LedgerError
    try:
        return bool(service._stakers_on_the_books())
    except LedgerError:
        return False


def wait_until_read(live, timeout: float = 10.0) -> bool:
    """Wait until the live table has read the table (bets are taken only then: before its first
    pictures it cannot see that the cards are still face down). Whether it has."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (live.snapshot().get("status") or {}).get("table") != "stale":
            return True
        time.sleep(0.02)
    return False


def first_session(game: str, players: list[str], dealers: list[str] | None = None) -> dict:
    """The session a table starts with; Kakeya's with the pair the demo deals for (the page then
    proposes who leads; without them it waits to be told)."""
    session: dict = {"game": game, "players": [{"name": n} for n in players]}
    if game == "kakeya-toranpu" and dealers and set(dealers) <= set(players):
        session["dealers"] = list(dealers)
    return session


def serve(args: argparse.Namespace) -> int:
    from dealer.games import RoundError, get_game
    from dealer.ledger import LedgerError
    from webui.service import InputError
    try:
        get_game(args.game)
    except RoundError as exc:
        return _fail(str(exc))
    # the address first: a server that cannot listen must not have opened the camera nor touched the
    # ledger (its session, the corrections in it)
    problem = _cannot_listen(args.host, args.port)
    if problem:
        return _fail(f"cannot listen on {args.host}:{args.port}: {problem}")
    try:
        from vision.camera import CameraError, open_source
    except ImportError as exc:
        return _fail(f"the live table is not available: {exc}")
    try:
        source = open_source(camera=args.camera, video=args.video, images=args.images, demo=args.demo,
                             game=args.game, rotate=args.rotate, mirror=args.mirror)
    except CameraError as exc:
        return _fail(str(exc))
    # with no source asked for and no camera, the demo table: said, and kept out of the dealer's books
    demo = args.demo or type(source).__name__ == "DemoTable"
    if demo and not args.demo:
        print("hanadealer: no camera opened: serving the built-in demo table (its rounds are kept apart "
              "from the dealer's books; --camera N names a camera)", file=sys.stderr)
    if demo and args.players:
        problem = demo_players_problem(args.game, _players(args.players, args.game))
        if problem:
            return _fail(problem)
    try:
        detector = _detector(args.detector, source, args.game)
    except RuntimeError as exc:
        return _fail(str(exc))
    data_dir = data_folder(args.data, demo)
    if demo and not args.demo and args.data:
        # (the demo stood in for a camera that did not open: the folder named holds the dealer's own
        # books, and its session was replaced by the demo's)
        data_dir = data_dir / "demo"
    if data_dir.exists() and not data_dir.is_dir():  # (said as "[Errno 17] File exists" before)
        return _fail(f"the data folder {data_dir} is a file, not a folder (--data, or $HANADEALER_DATA)")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # (a bare "[Errno 20] Not a directory" named no folder the dealer typed)
        return _fail(f"the data folder {data_dir} cannot be made ({exc.strerror or exc}; --data, or "
                     f"$HANADEALER_DATA)")
    everywhere = args.host in ("0.0.0.0", "::", "")
    # (the names the page is opened by: those given, the one it listens on, and where it listens on
    # every address, the name said to the tablets when the machine has no address on a network)
    # (and the machine's own names, which a page of the web cannot point at it: a tablet may open
    # it by its local name, dealer-pc.local)
    hosts = list(args.allow_host) + [args.host] + ([network_address(args.host), socket.gethostname(),
                                                    socket.gethostname() + ".local"] if everywhere else [])
    try:
        live, app = build_live_app(source, detector, args.game, _players(args.players, args.game), data_dir,
                                   pin=os.environ.get("HANADEALER_PIN"), allowed_hosts=hosts, args=args)
    except (LedgerError, InputError, OSError) as exc:
        return _fail(str(exc))
    try:
        server = _make_server(args.host, args.port, app)
    except (OSError, SystemExit) as exc:  # werkzeug exits on a bind error; keep it one line
        return _fail(f"cannot listen on {args.host}:{args.port}: {exc}")
    service = app.extensions["hanadealer"]["service"]
    open_game = service.session["game"] if service.session else None
    if open_game is None:  # (beside a pot of another game on the books: the dealer decides in Settings)
        print(f"hanadealer: {service.layout_note}", file=sys.stderr)
    elif open_game != args.game and demo:
        problem = demo_session(service, args.game, _players(args.players, args.game),
                               getattr(source, "kakeya_dealers", None))
        if problem:
            server.server_close()
            return _fail(problem)
    elif open_game != args.game:
        print(f"hanadealer: resuming the open session of {open_game} (start a new one in Settings)",
              file=sys.stderr)
    live.start()
    print(f"hanadealer: the dealer's page is at {page_url(args.host, server.server_port)} "
          f"(ledger {data_dir / 'ledger.sqlite'}); Ctrl-C stops", file=sys.stderr)
    if everywhere:  # (no browser opens that address: where a tablet finds it)
        print(f"hanadealer: from a tablet on the network: {page_url(network_address(args.host), server.server_port)}",
              file=sys.stderr)
    if app.extensions["hanadealer"]["ledger"].get_meta("pin_hash") is None:
        here = page_url("127.0.0.1" if everywhere else args.host, server.server_port)
        print(f"hanadealer: no PIN is set: choose it on this machine's page ({here}) or start with "
              f"HANADEALER_PIN; a tablet cannot choose it", file=sys.stderr)
    _stop_on_sigterm()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        # a second Ctrl-C (or a signal sent to the whole process group) while stopping must not
        # leave the camera open behind a traceback: the stop is finished first
        with _interrupts_held():
            server.server_close()
            live.stop()
    return 0


def network_address(host: str) -> str:
    """This machine's address on the network (for a server listening on every address): the one its
    route out leaves from (nothing is sent), else its name."""
    import socket
    family, probe = (socket.AF_INET6, "2001:db8::1") if ":" in host else (socket.AF_INET, "192.0.2.1")
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))
            return s.getsockname()[0]
    except OSError:
        return socket.gethostname()


# how long a connection may stay silent while its request is read (or between requests on it): held
# open sending nothing, connections each kept a thread and a file for good, until new ones were refused
IDLE_TIMEOUT_S = 30.0


def _make_server(host: str, port: int, app):
    """The threaded HTTP server of the page, dropping a connection silent for IDLE_TIMEOUT_S."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    class Handler(WSGIRequestHandler):
        timeout = IDLE_TIMEOUT_S

    return make_server(host, port, app, threaded=True, request_handler=Handler)


def page_url(host: str, port: int) -> str:
    """The page's address as a browser takes it: an IPv6 address is bracketed."""
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


@contextlib.contextmanager
def _interrupts_held():
    """Ctrl-C and SIGTERM passed over while the block runs: the process is already stopping as asked."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def follow_demo_hand(seed: int, detector_kind: str = "model", every: int = 2, data_dir: Path | None = None) -> dict:
    """One Kakeya hand of the demo table followed by the live table and the dealer's session:
    the tricks laid, the tricks recorded, and what the session says is still missing."""
    from dealer.ledger import Ledger
    from vision.demo_table import DemoTable, DemoTruthDetector, demo_layout, demo_setup
    from vision.live import LiveTable, default_detector
    from webui.service import DealerService
    game = "kakeya-toranpu"
    table = DemoTable(game=game, seed=seed, realtime=False)
    detector = DemoTruthDetector(table) if detector_kind == "truth" else default_detector("western")
    live = LiveTable(table, detector, demo_layout(game))
    live.set_card_kind("western")
    with tempfile.TemporaryDirectory(prefix="hanadealer-tricks-") as tmp:
        service = DealerService(Ledger(Path(data_dir or tmp) / "ledger.sqlite"), live)
        service.start_session({"game": game, "players": demo_setup(game)["players"],
                               "dealers": table.kakeya_dealers})
        laid: list[list[str]] = []
        first_seen: dict[str, int] = {}
        ms: list[float] = []
        while table.rounds_completed == 0:
            frame = table.read()
            truth = table.ground_truth()
            for t in truth:
                first_seen.setdefault(t["card"], table.frame_index)
            if len(truth) == 4:
                cards = sorted((t["card"] for t in truth), key=first_seen.get)
                if not laid or set(laid[-1]) != set(cards):
                    laid.append(cards)
            if table.frame_index % every:
                continue
            t0 = time.perf_counter()
            live.process(frame)
            ms.append((time.perf_counter() - t0) * 1e3)
            service.observe_table()
        recorded = [t["cards"] for t in service.session["tricks"]]
        problems = list(service.build().problems)
    as_laid = {tuple(t) for t in laid}
    return {"seed": seed, "tricks_laid": len(laid), "tricks_recorded": len(recorded),
            # recorded with the same cards in the same order of play as some trick laid
            "tricks_right": sum(tuple(t) in as_laid for t in recorded),
            "tricks_missed": len(as_laid - {tuple(t) for t in recorded}),
            "frames_read": len(ms), "ms_per_frame_median": round(statistics.median(ms), 1) if ms else None,
            "problems": problems}


def bench_tricks(args: argparse.Namespace) -> int:
    try:
        hands = [follow_demo_hand(args.seed + k, args.detector, args.every) for k in range(args.hands)]
    except RuntimeError as exc:
        return _fail(str(exc))
    laid = sum(h["tricks_laid"] for h in hands)
    right = sum(h["tricks_right"] for h in hands)
    print(json.dumps({"game": "kakeya-toranpu", "detector": args.detector, "every": args.every,
                      "hands": hands, "tricks_laid": laid, "tricks_right": right,
                      "hands_settled_as_laid": sum(h["tricks_right"] == h["tricks_laid"] and not h["problems"]
                                                   for h in hands)}, indent=2))
    return 0


def demo_session(service, game: str, players: list[str], dealers: list[str] | None = None) -> str | None:
    """The demo deals ``game``: its session must play that game, or the page reads the demo's cards
    for another one. A session of another game gives way to it unless it still holds something
    (bets, a pot, a settlement waiting): then why the demo cannot start, else None."""
    from webui.service import InputError
    open_game = service.session["game"] if service.session else None
    if open_game == game:
        return None
    try:
        service.start_session(first_session(game, players, dealers))
    except InputError as exc:
        return (f"the demo's open session plays {open_game} and cannot give way to {game}: {exc} (or run the "
                f"demo with --game {open_game}, or another --data folder)")
    return None


def data_folder(given: str | None, demo: bool) -> Path:
    """Where the ledger and the drawn zones live: the folder given, else $HANADEALER_DATA, else
    ~/.hanadealer; unless given, the demo's is a folder of its own in it, so the rounds played on the
    demo table never enter the dealer's books."""
    if given:
        return Path(given)
    home = Path(os.environ.get("HANADEALER_DATA") or Path.home() / ".hanadealer")
    return home / "demo" if demo else home


def _stop_on_sigterm() -> None:
    """SIGTERM (how a service manager stops a server) stops it as Ctrl-C does: the camera released,
    the live table stopped. (Started in the background, a process may have Ctrl-C ignored.)"""
    import signal
    import threading

    def stop(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


def _cannot_listen(host: str, port: int) -> str | None:
    """Why the address cannot be bound (in use, not this machine's), or None."""
    import socket
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"unknown host ({exc.strerror})"
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(addr)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


class ServerThread:
    """The app served on 127.0.0.1 (a free port) in a background thread (benchmarks, browser tests)."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, quiet: bool = True):
        import logging
        from werkzeug.serving import make_server
        if quiet:  # one log line per request would drown the benchmark's JSON
            logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.server = _make_server(host, port, app)
        self.url = f"http://{host}:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, name="http", daemon=True)

    def __enter__(self) -> "ServerThread":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.thread.join(5)


class _TimedDemo:
    """Wraps the demo table: notes when each face and each complete round first shows in the frames."""

    def __init__(self, table, expected_cards: int | None):
        self.table = table
        self.expected = expected_cards
        self.appeared: dict[str, float] = {}   # face -> time it was first face up
        self.complete_at: float | None = None  # when every card of the round was face up
        self._prev: set[str] = set()
        self._was_complete = False
        self.lock = threading.Lock()

    def __getattr__(self, name):  # everything else (ground_truth, truth_for, close...) as the table
        return getattr(self.table, name)

    def read(self):
        frame = self.table.read()
        now = time.monotonic()
        truth = self.table.ground_truth()
        faces = {t["face"] for t in truth if t.get("face_up")}
        complete = bool(truth) and all(t.get("face_up") for t in truth) and (
            self.expected is None or len(truth) >= self.expected)
        with self.lock:
            for face in faces - self._prev:
                self.appeared[face] = now
            for face in self._prev - faces:
                self.appeared.pop(face, None)
            if complete and not self._was_complete:
                self.complete_at = now
            if not complete:
                self.complete_at = None
            self._prev, self._was_complete = faces, complete
        return frame


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    ms = sorted(v * 1000 for v in values)
    q = statistics.quantiles(ms, n=100, method="inclusive") if len(ms) > 1 else [ms[0]] * 99
    return {"n": len(ms), "p50_ms": round(q[49], 1), "p95_ms": round(q[94], 1),
            "max_ms": round(ms[-1], 1), "mean_ms": round(statistics.fmean(ms), 1)}


def bench_latency(args: argparse.Namespace) -> int:
    from dealer.games import RoundError, get_game
    try:
        get_game(args.game)
    except RoundError as exc:
        return _fail(str(exc))
    if args.game == "kakeya-toranpu":  # (no rows to score: a hand is its thirteen tricks)
        return _fail("bench-latency times the rows and hands of a deal read and scored; Kakeya Toranpu's "
                     "tricks are timed by bench-tricks")
    try:
        from vision.demo_table import DemoTable
    except ImportError as exc:
        return _fail(f"the demo table is not available: {exc}")
    import http.client
    from urllib.parse import urlsplit

    players = _players(None)
    layout = _layout(args.game, players)
    expected = sum(z.cards for z in layout) if all(z.cards for z in layout) else None
    table = DemoTable(game=args.game, seed=args.seed, fps=args.fps)
    timed = _TimedDemo(table, expected)
    try:
        if args.detector == "truth":
            from vision.demo_table import DemoTruthDetector
            detector = DemoTruthDetector(table)
        else:
            from dealer.games import get_game
            from vision.live import default_detector
            detector = default_detector(get_game(args.game).card_kind)
    except RuntimeError as exc:
        return _fail(str(exc))
    card_lat: list[float] = []
    result_lat: list[float] = []
    web_lat: list[float] = []
    with tempfile.TemporaryDirectory(prefix="hanadealer-bench-") as tmp:
        live, app = build_live_app(timed, detector, args.game, players, Path(tmp))
        service = app.extensions["hanadealer"]["service"]
        targets = [t["on"] for t in service.view()["session"]["targets"]]
        live.start()
        # (the bets once the table is read: before, whether its cards are face down cannot be seen)
        wait_until_read(live)
        for player, on in zip(players, targets[:2]):
            service.add_bet({"player": player, "on": on, "amount": 100})
        try:
            with ServerThread(app) as srv:
                u = urlsplit(srv.url)
                conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
                conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
                resp = conn.getresponse()
                deadline = time.monotonic() + args.seconds
                measured: set[str] = set()
                result_seen = False
                event = b""
                while time.monotonic() < deadline and (args.cards is None or len(card_lat) < args.cards):
                    line = resp.readline()
                    if not line:
                        break
                    if line.startswith(b"event: "):
                        event = line[7:].strip()
                    if not line.startswith(b"data: ") or event != b"state":  # (the stream's pings)
                        continue
                    now = time.monotonic()
                    view = json.loads(line[6:])
                    if view.get("table_time"):  # the frame's processing time, wall clock
                        web_lat.append(max(0.0, time.time() - view["table_time"]))
                    faces = {c["face"] for z in view.get("zones", []) for c in z["cards"]}
                    with timed.lock:
                        for face in faces & set(timed.appeared):
                            if face not in measured:
                                card_lat.append(now - timed.appeared[face])
                                measured.add(face)
                        measured &= set(timed.appeared)  # a card picked up may come back next round
                        if view.get("preview") and timed.complete_at is not None and not result_seen:
                            result_lat.append(now - timed.complete_at)
                            result_seen = True
                        if timed.complete_at is None:
                            result_seen = False
                conn.close()
        finally:
            live.stop()
    out = {"game": args.game, "detector": args.detector, "fps": args.fps, "seconds": args.seconds,
           "card_to_page": _percentiles(card_lat), "round_result_to_page": _percentiles(result_lat),
           "table_change_to_page": _percentiles(web_lat),
           "target_p95_ms": 1000}
    out["meets_target"] = bool(card_lat) and out["card_to_page"]["p95_ms"] < 1000 and (
        not result_lat or out["round_result_to_page"]["p95_ms"] < 1000)
    print(json.dumps(out, indent=2))
    return 0
