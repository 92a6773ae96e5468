// Shared by every page: the CSRF token, JSON calls, messages and the dealer's PIN.
"use strict";
const CSRF = document.querySelector('meta[name="csrf-token"]').content;

// A tablet turns a double tap into two taps: the same action sent again while the first is on its
// way, or this soon after it (a bet booked twice, two tricks undone), is dropped. A second tap that
// changes something differs in what it sends, so it still goes.
const REPEAT_MS = 700;
const lastSent = new Map(), inFlight = new Set();

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json", "X-CSRF-Token": CSRF},
    body: JSON.stringify(body), credentials: "same-origin"};
  const key = body === undefined ? null : path + " " + opts.body;
  if (key !== null) {
    const now = Date.now();
    if (inFlight.has(key) || now - (lastSent.get(key) || -Infinity) < REPEAT_MS) {
      throw new Error("the same action again at once: dropped");
    }
    lastSent.set(key, now);
    inFlight.add(key);
  }
  let resp;
  try {
    resp = await fetch(path, opts);
  } catch (e) {  // no answer at all (the tablet's Wi-Fi, the server stopped): say so, or a tap seems to do nothing
    showMessage("No answer from the server (is the connection down?): " +
      (body === undefined ? "try again." : "check the page before doing it again."), true);
    throw e;
  } finally {
    if (key !== null) { inFlight.delete(key); lastSent.set(key, Date.now()); }
  }
  let data = null;
  try { data = await resp.json(); } catch (e) { data = {error: "the server sent no JSON (" + resp.status + ")"}; }
  if (resp.status === 401 && body !== undefined && !path.endsWith("/login")) {
    askPin(true);
  }
  if (!resp.ok) { showMessage(data.error || ("error " + resp.status), true); throw new Error(data.error); }
  return data;
}

// A box drawn anew keeps the keyboard's place: the button focused in it, known by its id or its
// data-key, is focused again in the new drawing (it went to the page's top, and a dealer using the
// keyboard tabbed through the whole page back to it). A button gone with what it did (a warning
// waved away) leaves the focus on the box's `fallback` (a selector) where one is given.
function keepingFocus(box, redraw, fallback) {
  const active = document.activeElement;
  const inside = Boolean(active && active !== box && box.contains(active));
  const id = inside ? active.id : "", key = inside ? active.dataset.key : undefined;
  redraw();
  if (!inside || box.contains(document.activeElement)) return;
  const again = id ? document.getElementById(id) : (key !== undefined ? box.querySelector(`[data-key="${CSS.escape(key)}"]`) : null);
  if (again && box.contains(again)) again.focus();
  else if (fallback && box.querySelector(fallback)) box.querySelector(fallback).focus();
}

// how long a message shows (an error, a note), in ms
const MESSAGE_SHOWN_MS = {error: 8000, note: 3000};

function showMessage(text, isError) {
  const box = document.getElementById("message");
  // (read out by a screen reader as it comes: an error at once, anything else when it is quiet)
  box.setAttribute("role", isError ? "alert" : "status");
  box.onclick = () => { box.hidden = true; };  // (read, it is tapped away)
  box.textContent = text;
  box.className = "message" + (isError ? " error" : "");
  box.hidden = false;
  placeMessage();
  clearTimeout(showMessage.timer);
  if (showMessage.stopWaiting) showMessage.stopWaiting();
  showMessage.stopWaiting = null;
  // an error about a form stays while the dealer is still in it (a slow reader, or one typing the
  // amount again, lost it half read), and goes once he leaves the form
  const active = document.activeElement;
  const form = isError && active && active.closest ? active.closest("form") : null;
  showMessage.timer = setTimeout(() => {
    if (!form || !form.contains(document.activeElement)) { box.hidden = true; return; }
    const left = (event) => {
      if (event.relatedTarget && form.contains(event.relatedTarget)) return;  // (still in it)
      showMessage.stopWaiting();
      box.hidden = true;
    };
    form.addEventListener("focusout", left);
    showMessage.stopWaiting = () => form.removeEventListener("focusout", left);
  }, isError ? MESSAGE_SHOWN_MS.error : MESSAGE_SHOWN_MS.note);
}

// Below the red banner (camera lost, contact lost) while that is in view, never over it: placed
// when a message shows, and again whenever the banner changes.
function placeMessage() {
  const box = document.getElementById("message"), banner = document.getElementById("banner");
  if (!box || box.hidden) return;
  const below = banner && !banner.hidden ? banner.getBoundingClientRect().bottom + 8 : 0;
  box.style.top = below > 10 ? below + "px" : "";
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// amounts as the server books them (to 6 decimals), written the same way on every tablet (a German
// one wrote 1.234,5 beside the bet list's 1234.5)
// A typed amount as the number to send, or null where a number cannot carry it exactly (a JSON number
// is a double: 999999999999.123456 went as 999999999999.1235, and was booked so without a word).
// Text that is no plain decimal is sent as typed, for the server to name what is wrong with it.
function exactAmount(text) {
  const n = Number(text);
  const plain = /^\+?(\d*)\.?(\d*)$/.exec(text.trim());
  if (!plain || !Number.isFinite(n) || text.trim() === "" || /e/i.test(String(n))) return n;
  const digits = (i, f) => i.replace(/^0+/, "") + "." + f.replace(/0+$/, "");
  const shown = /^(\d*)\.?(\d*)$/.exec(String(n));
  return digits(plain[1], plain[2]) === digits(shown[1], shown[2]) ? n : null;
}

function tooPrecise(text) {
  return `${text.trim()} has more digits than an amount can carry exactly (about 15): round it`;
}

// an amount the dealer typed, as the number sent; null (said on the page) where it is none or would be
// sent as another amount
function typedAmount(text, what) {
  const n = Number(text);
  if (!Number.isFinite(n)) { showMessage(`${what}: ${text.trim()} is not a number`, true); return null; }
  if (exactAmount(text) === null) { showMessage(tooPrecise(text), true); return null; }
  return n;
}

function fmt(n) { return (n > 0 ? "+" : "") + Number(n).toLocaleString("en-US", {maximumFractionDigits: 6}); }

function askPin(forAction) {
  askPin.forAction = Boolean(forAction);  // (asked because a tap was refused: it is to be tapped again)
  const dlg = document.getElementById("pin-dialog");
  document.getElementById("pin-input").value = "";
  document.getElementById("pin-error").hidden = true;
  if (!dlg.open) dlg.showModal();
}

document.getElementById("pin-cancel").addEventListener("click", () => document.getElementById("pin-dialog").close());
document.getElementById("pin-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const pin = document.getElementById("pin-input").value;
  const first = document.body.dataset.pinSet !== "yes";
  try {
    if (first) {
      try {
        await api("/api/pin", {pin});
      } catch (e) {
        // set meanwhile on another tablet: this one logs in with it (it asked to set one for good)
        if (!String(e.message).includes("already set")) throw e;
        document.body.dataset.pinSet = "yes";
        document.getElementById("pin-title").textContent = "Dealer PIN";
        await api("/api/login", {pin});
      }
    } else {
      await api("/api/login", {pin});
    }
    document.getElementById("pin-dialog").close();
    // the page stays as it is (reloaded, it lost what the dealer had typed: a new player, a bet)
    document.body.dataset.pinSet = document.body.dataset.loggedIn = "yes";
    document.getElementById("auth-state").textContent = "Dealer";
    document.getElementById("login-btn").textContent = "Lock";
    showMessage(askPin.forAction ? "PIN accepted: tap it again." : "PIN accepted.");
  } catch (e) {
    // said in the dialog too: the page's message lies under the dialog's backdrop (and the keyboard)
    const said = document.getElementById("pin-error");
    said.textContent = e.message;
    said.hidden = false;
    document.getElementById("pin-input").value = "";
    document.getElementById("pin-input").focus();
  }
});
document.getElementById("login-btn").addEventListener("click", async () => {
  if (document.body.dataset.loggedIn === "yes") { await api("/api/logout", {}); location.reload(); }
  else askPin();
});
if (document.body.dataset.pinSet !== "yes") askPin();

// A stream gone quiet without closing (a tablet's Wi-Fi dropping out) raises no error: the server
// pings every every_s seconds, and silence for three of them is taken as the contact lost. The
// stream is closed and its onerror said (which tries again), so the page never shows a frozen
// table as live.
function watchStream(source) {
  let heard = Date.now(), every = 15;
  const heardNow = () => { heard = Date.now(); };
  source.addEventListener("ping", (ev) => {
    heardNow();
    try { every = Number(JSON.parse(ev.data).every_s) || every; } catch (e) { /* the period kept */ }
  });
  source.addEventListener("state", heardNow);
  source.addEventListener("open", heardNow);
  const timer = setInterval(() => {
    if (source.readyState === EventSource.CLOSED) { clearInterval(timer); return; }
    if (Date.now() - heard > Math.max(3 * every, 5) * 1000) {
      clearInterval(timer);
      source.close();
      if (source.onerror) source.onerror();
    }
  }, 1000);
}
