// Settings: start a session (game, house rules, players), and draw the table zones on the image.
"use strict";
const GAMES = JSON.parse(document.getElementById("games-data").textContent);
const SESSION = JSON.parse(document.getElementById("session-data").textContent);
// the session this page shows: a save from it is refused once the session changed (the next dealer)
const SETTINGS_KEY = JSON.parse(document.getElementById("settings-key").textContent);
const COLOURS = JSON.parse(document.getElementById("colours-data").textContent);
const gameSelect = document.getElementById("game");

function renderHouse() {
  const game = GAMES.find((g) => g.name === gameSelect.value);
  const box = document.getElementById("house-options");
  const chosen = (SESSION && SESSION.game === gameSelect.value && SESSION.house) || {};
  box.replaceChildren(el("legend", {}, "House rules"), ...(game ? game.options : []).map((o) => {
    const value = o.name in chosen ? chosen[o.name] : o.default;
    let input;
    if (o.choices) {
      input = el("select", {"data-option": o.name},
        o.choices.map((c) => el("option", {value: JSON.stringify(c), selected: JSON.stringify(c) === JSON.stringify(value) ? "selected" : null}, String(c))));
    } else {
      // an option with no value (no limit) is an empty field, not the word null: emptied, it is the default
      input = el("input", {"data-option": o.name, value: value === null ? "" : JSON.stringify(value),
        placeholder: o.default === null ? "none" : "default " + JSON.stringify(o.default)});
    }
    // (what the option does, shown: a tablet shows no tooltip)
    return el("label", {class: "house-option"}, el("span", {class: "option-name"}, o.name), " ", input,
      o.doc ? el("small", {class: "muted option-doc"}, o.doc) : "");
  }));
  showApplicable();
  showOnly(".otoroku-only", gameSelect.value === "otoroku");
  showOnly(".kabu-only", gameSelect.value === "kabu-tsukuri");
  showOnly(".kakeya-only", gameSelect.value === "kakeya-toranpu");
  // a single bet's limits mean nothing where the game takes no bets (shares, an ante, stones)
  showOnly(".bets-only", !(game && !game.takes_bets));
  // (the fieldset named for what it holds: the share, required, was under "Limits on a single bet (optional)")
  document.getElementById("stakes-legend").textContent = {
    "otoroku": "The share", "kabu-tsukuri": "The ante and the dealer",
    "kakeya-toranpu": "The dealing pair and trump"}[gameSelect.value] ||
    "Limits on a single bet (optional; the house rules may also limit each player's stake)";
}

// An option that does nothing under the others chosen (a fee rate with no percentage fee) is shown
// off and not sent: sent, its old value refused the change that turned it off ("fee_rate needs
// fee_model 'percent'"), and the dealer could not turn the fee off.
function showApplicable() {
  const game = GAMES.find((g) => g.name === gameSelect.value);
  for (const o of game ? game.options : []) {
    if (!o.applies_when) continue;
    const input = document.querySelector(`#house-options [data-option="${CSS.escape(o.name)}"]`);
    const ruling = document.querySelector(`#house-options [data-option="${CSS.escape(o.applies_when.option)}"]`);
    if (!input || !ruling) continue;
    let now = ruling.value;
    try { now = JSON.parse(now); } catch (e) { /* a plain string */ }
    const applies = o.applies_when.values.some((v) => JSON.stringify(v) === JSON.stringify(now));
    input.disabled = !applies;
    const label = input.closest("label");
    label.classList.toggle("not-applicable", !applies);
    // (said in words: a tablet shows no tooltip)
    let off = label.querySelector(".option-off");
    if (!applies && !off) {
      off = el("small", {class: "option-off"}, `applies only with ${o.applies_when.option} ` +
        o.applies_when.values.join(" or "));
      input.after(off);
    } else if (applies && off) off.remove();
  }
}
document.getElementById("house-options").addEventListener("change", showApplicable);

// Fields of another game are hidden and disabled: a hidden field holding a value the browser refuses
// (0 in Smallest bet) stopped the Start with its own check, which cannot show its word on a hidden field.
function showOnly(selector, shown) {
  document.querySelectorAll(selector).forEach((n) => {
    n.hidden = !shown;
    n.querySelectorAll("input, select").forEach((field) => { field.disabled = !shown; });
  });
}

function addPlayer(name, colour) {
  const i = document.querySelectorAll("#players .player").length;
  // a colour no player has yet (after a removal the row count gave one in use: two players' chips alike)
  const used = new Set([...document.querySelectorAll("#players .player-colour")].map((s) => s.value));
  const free = COLOURS.find((c) => !used.has(c)) || COLOURS[i % COLOURS.length];
  // (a player of the open session keeps his name as it was: the dealers named by it follow a rename)
  const field = el("input", {class: "player-name", value: name || "", placeholder: "name", "aria-label": "player name"});
  const remove = el("button", {type: "button", class: "small", onclick: removePlayer}, "Remove");
  // (named for its player, as he is typed now: a list of buttons read "Remove, Remove, Remove")
  const named = () => remove.setAttribute("aria-label", field.value.trim() ? `Remove player ${field.value.trim()}`
    : "Remove this player row");
  field.addEventListener("input", named);
  named();
  const row = el("div", {class: "player row", ...(name ? {"data-was": name} : {})}, field,
    el("select", {class: "player-colour", "aria-label": "chip colour"},
      COLOURS.map((c) => el("option", {value: c, selected: c === (colour || free) ? "selected" : null}, c))),
    remove);
  document.getElementById("players").append(row);
}

// A tablet's double tap on Remove took the next player too (his row moved up under the finger): a
// second Remove this soon after one is dropped.
let lastRemoved = -Infinity;
function removePlayer(ev) {
  if (Date.now() - lastRemoved < REPEAT_MS) return;
  lastRemoved = Date.now();
  // (the keyboard goes on from the next player's Remove, the one before it, or Add player: the focus
  // went to the page's top with the row)
  const row = ev.currentTarget.closest(".player");
  const next = row.nextElementSibling || row.previousElementSibling;
  const wasFocused = row.contains(document.activeElement);
  row.remove();
  if (wasFocused) (next ? next.querySelector("button") : document.getElementById("add-player")).focus();
}

gameSelect.addEventListener("change", renderHouse);
// a tablet keyboard's Go (Enter) in a name or a rule field started the session half filled in and left
// the page: only the Start button starts it
document.getElementById("session-form").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && ev.target instanceof HTMLInputElement) ev.preventDefault();
});
// (the new player's name field takes the focus, to be typed in at once)
document.getElementById("add-player").addEventListener("click", () => {
  addPlayer();
  [...document.querySelectorAll("#players .player-name")].pop().focus();
});
document.getElementById("session-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  // only the options the dealer set away from the game's default: an option that has no effect under
  // the others (a fee rate with no percentage fee) is refused when given, so the defaults are not sent
  const game = GAMES.find((g) => g.name === gameSelect.value);
  const defaults = Object.fromEntries((game ? game.options : []).map((o) => [o.name, JSON.stringify(o.default)]));
  const house = {};
  for (const input of document.querySelectorAll("[data-option]")) {
    if (input.disabled) continue;  // (an option that does nothing under the others: see showApplicable)
    if (input.value.trim() === "") continue;  // the game's default
    let v = input.value;
    try { v = JSON.parse(v); } catch (e) { /* a plain string */ }
    // a number written as a person writes one (.5, 5., +0.5) is a number, as in the bet boxes: sent
    // as text it was refused with "cannot be '.5' (a number ...)"
    if (typeof v === "string" && /^\s*\+?(\d+\.?\d*|\.\d+)\s*$/.test(v)) v = Number(v);
    // an amount typed is checked as a bet is: rounded to a float it was sent as another amount, and
    // 1e309 (Infinity, sent as null) silently became no limit at all
    if (typeof v === "number" && typedAmount(input.value, input.dataset.option) === null) return;
    if (JSON.stringify(v) !== defaults[input.dataset.option]) house[input.dataset.option] = v;
  }
  const players = [...document.querySelectorAll("#players .player")]
    .map((r) => ({name: r.querySelector(".player-name").value.trim(), colour: r.querySelector(".player-colour").value}))
    .filter((p) => p.name);
  const limits = {};
  // (table limits only for a game that takes bets: the others refuse them)
  const takesBets = Boolean(game && game.takes_bets);
  const minB = takesBets ? document.getElementById("min-bet").value : "";
  const maxB = takesBets ? document.getElementById("max-bet").value : "";
  for (const [raw, what] of [[minB, "smallest bet"], [maxB, "largest bet"]]) {
    if (raw !== "" && typedAmount(raw, what) === null) return;
  }
  if (minB !== "") limits.min_bet = Number(minB);
  if (maxB !== "") limits.max_bet = Number(maxB);
  const body = {game: gameSelect.value, house, players, limits, based_on: SETTINGS_KEY};
  // an emptied field was sent as 0, and the answer spoke of 0
  const stake = {"otoroku": "share", "kabu-tsukuri": "ante"}[gameSelect.value];
  if (stake) {
    const raw = document.getElementById(stake).value;
    if (raw === "") { showMessage(`Enter the ${stake} (in chips).`, true); return; }
    if (typedAmount(raw, stake) === null) return;
    body[stake] = Number(raw);
  }
  if (gameSelect.value === "kabu-tsukuri") {
    const field = document.getElementById("kabu-dealer");
    // (as filled in from the session, not typed: it follows a rename, and goes with its player)
    const dealer = field.value === field.defaultValue ? renamed([field.value.trim()])[0] : field.value.trim();
    if (dealer) body.dealer = dealer;
  }
  if (gameSelect.value === "kakeya-toranpu") {
    // players in the order of play; partners sit opposite, so the dealers are e.g. the 2nd and 4th
    const field = document.getElementById("dealers");
    let dealers = field.value.split(",").map((x) => x.trim()).filter(Boolean);
    // the pair filled in from the session, not typed: a pair of other players once the players are
    // more or fewer (the page's own guess sent back refused 4 players made 6), so then the server
    // names the pair that deals first; else it follows a rename
    // (and where a player of it was taken out: the field showed "B, D" and sent ["B"])
    if (field.value === field.defaultValue && dealers.length) {
      const kept = renamed(dealers);
      dealers = players.length === SESSION.players.length && kept.length === dealers.length ? kept : [];
    }
    if (dealers.length) body.dealers = dealers;
    const trump = document.getElementById("trump").value;
    if (trump) body.trump = trump;
  }
  // a player renamed is the same player (Kakeya: his pair keeps its stones, by names a new pair's
  // game; Kabu-Tsukuri: his rows lying stay his; a player with bets is told he was renamed, not taken out)
  const renames = {};
  document.querySelectorAll("#players .player").forEach((row) => {
    const now = row.querySelector(".player-name").value.trim();
    if (row.dataset.was && now && now !== row.dataset.was) renames[row.dataset.was] = now;
  });
  if (Object.keys(renames).length && SESSION && SESSION.players) body.renamed = renames;
  document.querySelectorAll("#session-form .invalid").forEach((n) => n.classList.remove("invalid"));
  try {
    await api("/api/session", body);
    showMessage("Session started.");
    setTimeout(() => { location.href = "/"; }, 500);
  } catch (e) {
    markField(String(e.message));
    // what a save may do only on the dealer's word: another game while a tie's pot is still to be
    // played for, and (Kakeya) another stones_per_pair, other partnerships or another game while the
    // pairs hold a game's stones, which ends that game (the standing was set aside without a word)
    const asked = [
      ["giving the pot up", "Give the pot up? It is booked back to those who put it in.", {drop_carry: true},
       "Session started; the carried pot was given up and booked back to those who put it in."],
      ["(new_game)", "End the game in progress now? The stones the pairs hold are set aside.", {new_game: true},
       "Session started; the game in progress was set aside."]];
    const ask = asked.find(([said]) => String(e.message).includes(said));
    if (ask && window.confirm(e.message + "\n\n" + ask[1])) {
      try {
        await api("/api/session", Object.assign(body, ask[2]));
        showMessage(ask[3]);
        setTimeout(() => { location.href = "/"; }, 500);
      } catch (e2) { /* shown */ }
    }
  }
});

// Players of the open session named as they are now in the form (a row renamed), those removed left out.
function renamed(names) {
  const rows = [...document.querySelectorAll("#players .player")];
  return names.flatMap((n) => {
    const row = rows.find((r) => r.dataset.was === n);
    const now = row ? row.querySelector(".player-name").value.trim() : "";
    return now ? [now] : [];
  });
}

// The field a refused save names, marked and focused (the message alone went by in 8 seconds, and
// "player 2" counted only the rows with a name): a player by number or name, a house rule, a limit.
function markField(message) {
  const rows = [...document.querySelectorAll("#players .player")].filter((r) => r.querySelector(".player-name").value.trim());
  let field = null;
  // (a name with an apostrophe, O'Brien, is quoted with double quotes)
  const byNumber = /^player (\d+)\b/.exec(message), byName = /^player (?:'([^']*)'|"([^"]*)")/.exec(message);
  if (byNumber && rows[Number(byNumber[1]) - 1]) field = rows[Number(byNumber[1]) - 1].querySelector(".player-name");
  else if (byName) {
    const named = byName[1] !== undefined ? byName[1] : byName[2];
    const row = rows.find((r) => r.querySelector(".player-name").value.trim() === named);
    if (row) field = row.querySelector(/chip colour/.test(message) ? ".player-colour" : ".player-name");
  } else {
    const option = [...document.querySelectorAll("#house-options [data-option]")].find((n) => message.includes(`'${n.dataset.option}'`));
    if (option) field = option;
    else if (/minimum bet|smallest bet|min_bet|^min bet/.test(message)) field = document.getElementById("min-bet");
    else if (/maximum bet|largest bet|max_bet|^max bet/.test(message)) field = document.getElementById("max-bet");
    else if (/^the dealers are/.test(message)) field = document.getElementById("dealers");
    else if (/^the dealer must be/.test(message)) field = document.getElementById("kabu-dealer");
  }
  // (scrolled to the middle: scrolled to the edge only, the field lay under the message box)
  if (field) { field.classList.add("invalid"); field.focus({preventScroll: true}); field.scrollIntoView({block: "center"}); }
}

renderHouse();
// (Otoroku's players in turn order, as its seats have them: the order saved is the turn order)
const seatOf = (p) => (SESSION.game === "otoroku" && SESSION.seats ? SESSION.seats.indexOf(p.name) : 0);
if (SESSION && SESSION.players) [...SESSION.players].sort((a, b) => seatOf(a) - seatOf(b)).forEach((p) => addPlayer(p.name, p.colour));
else { addPlayer(); addPlayer(); }
// the open session's own values, so that a change elsewhere (a player more) keeps them
if (SESSION && SESSION.share !== undefined) document.getElementById("share").value = SESSION.share;
if (SESSION && SESSION.ante !== undefined) document.getElementById("ante").value = SESSION.ante;
// (set as the fields' defaults too: a value left as filled in is told from one the dealer typed)
const filledIn = (id, value) => { const f = document.getElementById(id); f.value = value; f.defaultValue = value; };
if (SESSION && SESSION.dealers) filledIn("dealers", SESSION.dealers.join(", "));
if (SESSION && SESSION.trump) document.getElementById("trump").value = SESSION.trump;
if (SESSION && SESSION.dealer) filledIn("kabu-dealer", SESSION.dealer);
if (SESSION && SESSION.limits) {
  if (SESSION.limits.min_bet !== undefined) document.getElementById("min-bet").value = SESSION.limits.min_bet;
  if (SESSION.limits.max_bet !== undefined) document.getElementById("max-bet").value = SESSION.limits.max_bet;
}

// --- zones drawn on the live image (stored in image pixels) ---
const img = document.getElementById("zone-image");
const canvas = document.getElementById("zone-canvas");
let zones = [];
let current = [];
// the size of the picture the corners are being drawn on: a camera back at another size gives a
// picture whose pixels are not theirs
let drawnSize = null;
const pictureSize = () => (img.naturalWidth ? {width: img.naturalWidth, height: img.naturalHeight} : undefined);

function scale() { return img.naturalWidth ? img.naturalWidth / img.clientWidth : 1; }

function draw() {
  canvas.width = img.clientWidth; canvas.height = img.clientHeight;
  const ctx = canvas.getContext("2d");
  const k = 1 / scale();
  ctx.lineWidth = 3; ctx.font = "18px sans-serif";
  for (const z of zones) {
    ctx.strokeStyle = "#2a9d8f"; ctx.fillStyle = "rgba(42,157,143,0.2)";
    ctx.beginPath();
    z.points.forEach(([x, y], i) => (i ? ctx.lineTo(x * k, y * k) : ctx.moveTo(x * k, y * k)));
    ctx.closePath(); ctx.fill(); ctx.stroke();
    ctx.fillStyle = "#fff"; ctx.fillText(z.name, z.points[0][0] * k + 4, z.points[0][1] * k + 20);
  }
  ctx.strokeStyle = "#e9c46a"; ctx.beginPath();
  current.forEach(([x, y], i) => (i ? ctx.lineTo(x * k, y * k) : ctx.moveTo(x * k, y * k)));
  ctx.stroke();
  for (const [x, y] of current) { ctx.fillStyle = "#e9c46a"; ctx.fillRect(x * k - 5, y * k - 5, 10, 10); }
  // (the keyboard's cross, where Enter sets a corner: not shown on a tablet's tap, which focuses too)
  if (cursor && canvas.matches(":focus-visible")) {
    const [x, y] = cursor;
    for (const [colour, width] of [["#000", 4], ["#fff", 2]]) {  // (seen on a light table and a dark one)
      ctx.strokeStyle = colour; ctx.lineWidth = width; ctx.beginPath();
      ctx.moveTo(x * k - 12, y * k); ctx.lineTo(x * k + 12, y * k);
      ctx.moveTo(x * k, y * k - 12); ctx.lineTo(x * k, y * k + 12);
      ctx.stroke();
    }
  }
}

function addCorner(point) {
  drawnSize = drawnSize || pictureSize() || null;
  current.push(point);
  justClosed = false;
  draw();
}

// Corners by keyboard too (a tablet with a keyboard, a dealer who cannot tap precisely): a cross moved
// by the arrow keys, in the picture's own pixels, kept inside it
let cursor = null;
canvas.addEventListener("focus", () => {
  const size = pictureSize();
  if (!cursor && size) cursor = [Math.round(size.width / 2), Math.round(size.height / 2)];
  draw();
});
canvas.addEventListener("blur", draw);
canvas.addEventListener("keydown", (ev) => {
  const size = pictureSize();
  const moves = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  if (ev.key in moves && size) {
    cursor = cursor || [Math.round(size.width / 2), Math.round(size.height / 2)];
    const step = Math.max(1, Math.round((ev.shiftKey ? 2 : 20) * scale()));
    const [dx, dy] = moves[ev.key];
    cursor = [Math.min(size.width, Math.max(0, cursor[0] + dx * step)),
              Math.min(size.height, Math.max(0, cursor[1] + dy * step))];
    draw();
  } else if ((ev.key === "Enter" || ev.key === " ") && cursor) {
    addCorner([...cursor]);
  } else if (ev.key === "Backspace" || ev.key === "Delete") {
    undoCorner();
  } else {
    return;
  }
  ev.preventDefault();  // (the arrows scrolled the page, Space too)
});

// the last corner taken back (a tap off its mark was kept, and only "Clear all", every zone, undid it)
function undoCorner() {
  if (!current.length) return;
  current.pop();
  if (!current.length && !zones.length) drawnSize = null;
  draw();
}
document.getElementById("zone-undo").addEventListener("click", undoCorner);

canvas.addEventListener("click", (ev) => {
  const r = canvas.getBoundingClientRect();
  const point = [Math.round((ev.clientX - r.left) * scale()), Math.round((ev.clientY - r.top) * scale())];
  cursor = [...point];  // (the keyboard goes on from the last tap)
  addCorner(point);
});
// (a Close right after one closed a zone is the second tap of a double tap: the zone is closed already)
let justClosed = false;
document.getElementById("zone-close").addEventListener("click", () => {
  if (justClosed && current.length === 0) return;
  if (current.length < 3) { showMessage("A zone needs at least 3 corners.", true); return; }
  justClosed = true;
  const name = document.getElementById("zone-name").value;
  zones = zones.filter((z) => z.name !== name).concat([{name, points: current}]);
  current = []; draw();
});
document.getElementById("zone-clear").addEventListener("click", () => {
  zones = []; current = []; drawnSize = null; justClosed = false; cursor = null; draw();
});
document.getElementById("zone-save").addEventListener("click", async () => {
  // (a zone whose corners were tapped but not closed was left out, and "saved" said all the same)
  if (current.length) { showMessage("Close the zone being drawn (Close zone) or clear it before saving.", true); return; }
  // (with the size of the picture they were drawn on: the camera may have come back at another)
  const drawnOn = drawnSize || pictureSize();
  try {
    const r = await api("/api/zones", {zones, drawn_on: drawnOn});
    showMessage(`${r.saved} zone(s) saved.` + (r.note ? ` Note: ${r.note}.` : ""), Boolean(r.note));
  } catch (e) {
    // refused for being drawn on a picture of another size: the picture as it is now, to draw on
    // (it was reloaded only when a banner cleared, and every redraw was made on the old one)
    if (/draw them again on the picture as it is now/.test(String(e && e.message))) {
      img.src = img.src.split("?")[0] + "?t=" + Date.now();
    }
  }
});
// (asked when the picture loads and when the saved zones come, whichever is last)
function checkPictureSize() {
  const now = pictureSize();
  if (drawnSize && now && (now.width !== drawnSize.width || now.height !== drawnSize.height)) {
    showMessage(`The camera's picture is ${now.width}x${now.height} now, not the ${drawnSize.width}x` +
                `${drawnSize.height} the zones were being drawn on: draw them again.`, true);
    zones = []; current = []; drawnSize = null; cursor = null;
  }
  draw();
}
img.addEventListener("load", checkPictureSize);
img.addEventListener("error", () => showMessage("No camera image yet: the zones can be drawn once the table is visible.", true));
window.addEventListener("resize", draw);
api("/api/zones").then((r) => {
  zones = r.zones || [];
  drawnSize = zones.length && r.drawn_on ? r.drawn_on : null;  // (the size their corners are in)
  checkPictureSize();
  if (r.error) showMessage(r.error, true);
  document.getElementById("zone-name").replaceChildren(...r.names.map((n) => el("option", {value: n.name}, n.label)));
  draw();
});

// --- the camera lost, or the server out of reach, is said here too: zones drawn on a picture that
// is no longer live would be laid on the table as it was, not as it is ---
function followBanner() {
  const banner = document.getElementById("banner");
  const source = new EventSource("/events");
  let lost = false, awaitingLive = false;
  source.addEventListener("state", (ev) => {
    const s = JSON.parse(ev.data);
    // live again: a fresh picture, once the table is read from frames taken since (the picture as
    // the banner went was of before the outage until a new frame was read; so was one fetched while
    // the table was not live, with no banner, as the page opened or came back)
    if ((lost && !s.banner) || s.table !== "live") awaitingLive = true;
    if (awaitingLive && s.table === "live") {
      awaitingLive = false;
      img.src = img.src.split("?")[0] + "?t=" + Date.now();
    }
    lost = Boolean(s.banner);
    banner.hidden = !s.banner;
    banner.textContent = s.banner || "";
    placeMessage();
  });
  source.onerror = () => {
    lost = true;
    banner.hidden = false;
    banner.textContent = "Lost contact with the server: reconnecting…";
    placeMessage();
    if (source.readyState === EventSource.CLOSED) setTimeout(followBanner, 2000);
  };
  watchStream(source);
}
followBanner();
