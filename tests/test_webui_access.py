"""Who may act as the dealer: the names the page answers to, who may choose the PIN, what ends a
login, and connections left silent (each of these let someone who is not the dealer act as him, or
keep the dealer's page from answering)."""
import socket
import time

import pytest

from test_webui_api import PIN, SESSION, Dealer
from test_webui_api import app, ledger_path, live  # noqa: F401 (pytest fixtures)
from webfakes import FakeLiveTable
from webui.app import create_app


@pytest.mark.parametrize("host, answered", [
    ("localhost", True), ("127.0.0.1:5000", True), ("192.168.1.20:5000", True), ("[::1]:5000", True),
    ("dealer.local:5000", True), ("dealer.local.:5000", True), ("localhost.", True),  # (named with --allow-host)
    # a web page that points its own name at the server (DNS rebinding): same-origin to itself, it
    # claimed the PIN before one was set, started sessions, took bets and read the books
    ("rebind.attacker.example:5000", False), ("localhost.attacker.example", False),
])
def test_the_page_answers_only_to_its_addresses_and_the_names_it_was_given(tmp_path, host, answered):
    app = create_app({"LIVE": FakeLiveTable(), "LEDGER": str(tmp_path / "ledger.sqlite"), "TESTING": True,
                      "ALLOWED_HOSTS": ["Dealer.local"]})
    client = app.test_client()
    for url in ("/", "/api/state", "/export.csv", "/api/auth"):
        r = client.get(url, headers={"Host": host})
        assert (r.status_code != 403) is answered, (url, r.status_code)
    if not answered:
        r = client.post("/api/pin", json={"pin": "1357"}, headers={"Host": host, "Origin": f"http://{host}"})
        assert r.status_code == 403 and "not to the name" in r.get_json()["error"]
        assert app.extensions["hanadealer"]["ledger"].get_meta("pin_hash") is None


def test_the_first_pin_is_chosen_on_the_servers_own_machine(tmp_path):
    # served on the network without a PIN, the first device to ask became the dealer, for good
    app = create_app({"LIVE": FakeLiveTable(), "LEDGER": str(tmp_path / "ledger.sqlite"), "TESTING": True})
    tablet = app.test_client()
    tablet.environ_base["REMOTE_ADDR"] = "192.168.1.20"
    token = tablet.get("/api/auth").get_json()["csrf"]
    r = tablet.post("/api/pin", json={"pin": "9999"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 403 and "chosen on the server's own machine" in r.get_json()["error"]
    # (nor through a proxy on the server's machine, where every device comes from 127.0.0.1)
    here = app.test_client()
    token = here.get("/api/auth").get_json()["csrf"]
    r = here.post("/api/pin", json={"pin": "9999"}, headers={"X-CSRF-Token": token, "X-Forwarded-For": "192.168.1.66"})
    assert r.status_code == 403
    assert here.post("/api/pin", json={"pin": "1357"}, headers={"X-CSRF-Token": token}).status_code == 200
    assert here.get("/api/auth").get_json()["logged_in"] is True


class _Socket:
    def __init__(self, address):
        self.address = address

    def getsockname(self):
        return (self.address, 5000)


@pytest.mark.parametrize("remote, local, mine", [
    ("::ffff:127.0.0.1", "::ffff:127.0.0.1", True),  # (a server on "::", opened at 127.0.0.1 there)
    ("192.0.2.2", "192.0.2.2", True),  # (a server on the machine's network address, opened there)
    ("192.0.2.7", "192.0.2.2", False), ("::ffff:192.0.2.7", "::ffff:192.0.2.2", False),
])
def test_the_servers_own_machine_is_told_however_it_reaches_the_page(tmp_path, remote, local, mine):
    # on "::" (IPv4 mapped into IPv6) or on its own network address, the server's own machine was
    # taken for a device on the network, and no PIN could be chosen on the page at all
    app = create_app({"LIVE": FakeLiveTable(), "LEDGER": str(tmp_path / "ledger.sqlite"), "TESTING": True})
    client = app.test_client()
    client.environ_base.update({"REMOTE_ADDR": remote, "werkzeug.socket": _Socket(local)})
    token = client.get("/api/auth").get_json()["csrf"]
    r = client.post("/api/pin", json={"pin": "1357"}, headers={"X-CSRF-Token": token})
    assert (r.status_code == 200) is mine, r.get_json()


def test_lock_ends_the_login_for_a_copy_of_its_cookie_too(app, ledger_path):
    # Lock only dropped the flag from the tablet's own cookie: a copy taken before (a sniffed or
    # copied cookie) stayed logged in, across restarts too
    d = Dealer(app)
    cookie = d.c.get_cookie("session").value
    assert d.post("/api/logout").status_code == 200
    copy = app.test_client()
    copy.set_cookie("session", cookie)
    assert copy.get("/api/auth").get_json()["logged_in"] is False
    restarted = create_app({"LIVE": FakeLiveTable(), "LEDGER": str(ledger_path), "PIN": PIN, "TESTING": True})
    again = restarted.test_client()
    again.set_cookie("session", cookie)
    token = again.get("/api/auth").get_json()["csrf"]
    r = again.post("/api/session", json=SESSION, headers={"X-CSRF-Token": token})
    assert r.status_code == 401
    # a device logged in again (a second tab, a double tap on Login): Lock ends its earlier login too
    d = Dealer(app)
    before = d.c.get_cookie("session").value
    token = d.c.get("/api/auth").get_json()["csrf"]
    assert d.c.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token}).status_code == 200
    assert d.post("/api/logout").status_code == 200
    copy = app.test_client()
    copy.set_cookie("session", before)
    assert copy.get("/api/auth").get_json()["logged_in"] is False
    # (a login not ended is kept over a restart, as before)
    other = Dealer(app)
    kept = restarted.test_client()
    kept.set_cookie("session", other.c.get_cookie("session").value)
    assert kept.get("/api/auth").get_json()["logged_in"] is True


def test_a_pin_given_at_start_replaces_the_one_stored_and_ends_every_login(app, ledger_path):
    # given once, the environment's PIN was passed over afterwards: a PIN claimed by someone else,
    # or forgotten, could not be replaced but by editing the ledger
    d = Dealer(app)
    cookie = d.c.get_cookie("session").value
    restarted = create_app({"LIVE": FakeLiveTable(), "LEDGER": str(ledger_path), "PIN": "97531", "TESTING": True})
    old = restarted.test_client()
    old.set_cookie("session", cookie)
    assert old.get("/api/auth").get_json()["logged_in"] is False
    client = restarted.test_client()
    token = client.get("/api/auth").get_json()["csrf"]
    assert client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token}).status_code == 401
    assert client.post("/api/login", json={"pin": "97531"}, headers={"X-CSRF-Token": token}).status_code == 200
    # the same PIN given again ends nothing
    same = create_app({"LIVE": FakeLiveTable(), "LEDGER": str(ledger_path), "PIN": "97531", "TESTING": True})
    kept = same.test_client()
    kept.set_cookie("session", client.get_cookie("session").value)
    assert kept.get("/api/auth").get_json()["logged_in"] is True


def test_a_connection_left_silent_is_closed(app, monkeypatch):
    # held open sending nothing, connections each kept a thread and a file for good: enough of them
    # and the dealer's page got no answer at all
    import webui.cli
    monkeypatch.setattr(webui.cli, "IDLE_TIMEOUT_S", 0.5)
    with webui.cli.ServerThread(app) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as silent:
            started = time.monotonic()
            assert silent.recv(1) == b""  # (closed by the server)
            assert time.monotonic() - started < 8
        with socket.create_connection(("127.0.0.1", port), timeout=10) as talking:
            talking.sendall(b"GET /api/auth HTTP/1.1\r\nHost: localhost\r\n\r\n")
            assert talking.recv(12).startswith(b"HTTP/1.1 200")
