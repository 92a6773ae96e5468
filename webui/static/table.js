// The live table page: one EventSource brings the whole state on every change; taps send JSON.
"use strict";
let STATE = null;
let CARDS = [];
let CARDS_KIND = null;
let correcting = null;

// the cards a correction may choose from: the 48 hanafuda cards, or the 52 western ones (Kakeya)
function loadCards(kind) {
  if (kind === CARDS_KIND) return;
  CARDS_KIND = kind;
  api(kind === "western" ? "/api/cards?deck=western" : "/api/cards").then(
    // an answer for a deck no longer in play (Kakeya's western cards asked for before the flower
    // cards came) is left out; a failed one is asked for again at the next update
    (cards) => { if (CARDS_KIND === kind) CARDS = cards; },
    () => { if (CARDS_KIND === kind) CARDS_KIND = null; });
}
loadCards("hanafuda");

// The table's limits on a single bet (Settings): shown beside the house rules, whose min_bet and
// max_bet (a player's whole stake) read "none" while these were in force, shown nowhere
function limitsText(limits) {
  const low = limits ? limits.min_bet : undefined, high = limits ? limits.max_bet : undefined;
  if (low === undefined && high === undefined) return [];
  if (low !== undefined && high !== undefined) return [`each bet: ${low} to ${high}`];
  return [low !== undefined ? `each bet: at least ${low}` : `each bet: at most ${high}`];
}

// Otoroku's share and Kabu-Tsukuri's ante: the stake of every round of these games, which have no bets
function stakeText(sess) {
  return [["share", sess.share], ["ante", sess.ante]].filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}: ${v}`);
}

function render(s) {
  STATE = s;
  const banner = document.getElementById("banner");
  banner.hidden = !s.banner;
  banner.textContent = s.banner || "";
  placeMessage();  // (a message shown before the banner came up moves below it)
  const sess = s.session;
  document.getElementById("game-title").textContent = sess ? `${sess.title_en} ${sess.title_ja}` : "No session yet: open Settings";
  document.getElementById("house").textContent = sess ? Object.entries(sess.house).map(([k, v]) => `${k}: ${v === null ? "none" : v}`)
    .concat(limitsText(sess.limits)).concat(stakeText(sess)).concat(sess.dealer ? [`dealer: ${sess.dealer}`] : []).join(" · ") : "";
  renderZones(s);
  renderWinner(s);
  const probs = document.getElementById("problems");
  probs.replaceChildren(...(s.problems || []).map((p) => el("li", {}, p)));
  renderBets(s);
  if (sess) loadCards(sess.card_kind || "hanafuda");
  renderChoose(s);
  renderRedraw(s);
  renderTricks(s);
  renderPending(s);
  // (the problems listed say why not)
  document.getElementById("settle-btn").disabled = !s.can_settle;
  if (focusAfterSettlement) {
    focusAfterSettlement = false;
    const settle = document.getElementById("settle-btn");
    (settle.disabled ? document.getElementById("settle-heading") : settle).focus();
  }
  document.getElementById("unassigned").textContent = s.unassigned ? `${s.unassigned} card(s) outside every zone` : "";
}

// A part of the page is drawn again only when what it shows changed: a state comes on every change
// (a bet, a card moved), and a button replaced under the dealer's finger loses the tap (an open
// picker closes).
function changed(node, shown) {
  const key = JSON.stringify(shown);
  if (node.dataset.shown === key) return false;
  node.dataset.shown = key;
  return true;
}

function renderZones(s) {
  const scores = Object.assign({}, s.row_scores || {}, (s.preview && s.preview.scores) || {});
  const box = document.getElementById("zones");
  if (!changed(box, [scores, s.zones.map((z) => [z.name, z.label_en, z.label_ja, z.face_down, z.expected, z.scored,
    z.complete, z.group, z.cards.map((c) => [c.track_id, c.card, c.face, c.label, c.uncertain, c.corrected, c.redraw,
      c.position, c.discarded, Math.round((c.confidence || 0) * 100)])])])) return;
  // (the card a keyboard was on, drawn anew, keeps the focus: it went back to the page's top, and a
  // dealer tabbing along a row started over at each card read)
  keepingFocus(box, () => box.replaceChildren(...s.zones.map((z) => {
    // (an Otoroku hand read bust and discarded: no longer on the table; a tap takes the bust back)
    const cards = z.cards.map((c) => el("button", {
      class: "card" + (c.uncertain ? " uncertain" : "") + (c.corrected ? " corrected" : "") + (c.discarded ? " discarded" : ""),
      type: "button", "data-track": c.track_id, "data-key": "card:" + c.track_id, title: c.card || c.face,
      onclick: c.discarded ? () => forgetBust(z) : () => openCorrect(z, c)},
      el("span", {class: "card-name"}, c.label),
      el("span", {class: "card-conf"}, c.discarded ? "bust, discarded: tap to forget" : c.corrected ? "corrected" : (c.uncertain ? "unsure: tap" : Math.round((c.confidence || 0) * 100) + "%")),
      c.redraw ? el("span", {class: "card-redraw"}, `redraw ${c.redraw}`) : ""));
    for (let i = 0; i < z.face_down; i++) cards.push(el("span", {class: "card down"}, "face down"));
    // (the cards face down are the row's too: a row of three with one face down said 2/3)
    const dealt = z.cards.filter((c) => !c.redraw).length + (z.face_down || 0);
    const exp = z.expected ? ` ${dealt}/${z.expected}` : "";
    const score = scores[z.name];
    // (a group named by its row: a screen reader said "Pine crane 98%", not whose card it was)
    return el("div", {class: "zone" + (z.scored ? "" : " unscored") + (z.complete ? " complete" : ""), "data-zone": z.name,
      role: "group", "aria-label": `${z.label_en}${exp ? "," + exp + " cards" : ""}`},
      el("div", {class: "zone-head"},
        el("span", {class: "zone-label"}, z.label_en, " ", el("span", {lang: "ja"}, z.label_ja)),
        el("span", {class: "zone-count muted"}, z.group ? z.group + " ·" : "", exp, z.scored ? "" : " (not scored)"),
        zoneScore(score)),
      el("div", {class: "cards"}, cards));
  })));
}

function zoneScore(score) {
  const text = score === undefined ? "" : (typeof score === "object" ? JSON.stringify(score) : String(score));
  return el("span", {class: "zone-score" + (text.length > 4 ? " long" : "")}, text);  // (a hand's name: "Nobori ...")
}

function renderWinner(s) {
  const box = document.getElementById("winner");
  const result = (s.pending && s.pending.result) || s.preview;
  // (a live region, drawn again only when what it says changes: filled afresh at every change of
  // the table, the same winner was read out to a screen reader again and again)
  if (!result) {
    if (changed(box, null)) { box.textContent = ""; box.className = "winner"; }
    return;
  }
  if (result.settled === false) {
    // a tie still to be redrawn (or the deck said to have run out) decides nothing yet: no green
    // "Tie" to be taken for a push
    if (!changed(box, "undecided")) return;
    box.className = "winner undecided";
    box.replaceChildren(el("span", {class: "winner-label"}, "Not decided yet 未決"),
      el("span", {class: "winner-name", id: "winner-name"}, "Redraw · 引き直し"));
    return;
  }
  const name = winnerText(result.winner, s.zones, s.session && s.session.game);
  // (several contests, or long names: smaller type that wraps, never past the screen's edge)
  const how = tieBrokenText(result, s.zones);
  if (!changed(box, [name, how])) return;
  box.className = "winner shown";
  box.replaceChildren(el("span", {class: "winner-label"}, "Winner 勝ち"),
    el("span", {class: "winner-name" + (name.length > 18 ? " long" : ""), id: "winner-name"}, name),
    ...(how ? [el("span", {class: "winner-how", id: "winner-how"}, how)] : []));
}

// How a tie of the rows was settled: the rows show equal scores beside a winner (or "Tie" where the
// dealer took every stake), and the page did not say why (the result's tie_break and tie rule)
function tieBrokenText(result, zones) {
  const label = (name) => { const z = zones.find((x) => x.name === name); return z ? z.label_en : name; };
  const each = (values) => Object.entries(values || {}).map(([row, v]) => `${label(row)} ${v}`).join(", ");
  const rules = {push: "every bet is returned", dealer_takes_all: "the dealer takes every bet",
    carry_over: "every stake goes into the pot for the next round"};
  const brk = result.tie_break;
  let compared = "";
  if (brk && (brk.method === "card_points" || brk.method === "raw_total")) {
    compared = `${brk.method === "card_points" ? "card points" : "the sum of the card values"} (${each(brk.values)})`;
  } else if (brk && brk.method === "redraw" && brk.draws && brk.draws.length) {
    const n = brk.draws.length;
    compared = `${n === 1 ? "a card drawn" : n + " cards drawn"} onto each row (${each(brk.draws[n - 1].scores)})`;
  }
  // (the tie-break left the rows tied too: the rule it falls back to says what becomes of the bets)
  if (result.winner === "tie") {
    const rule = rules[(brk && brk.then) || result.tie];
    if (compared) return `Tied again on ${compared}${rule ? ": " + rule : ""}`;
    return rule ? `Tie: ${rule}` : "";
  }
  return compared ? `Tied: decided by ${compared}` : "";
}

// The winner is a row name, a player, "tie", the dealer's month (Echobo), or (games with several
// contests) a list or a map of them: each said with its row or seat, as History says it (a set of
// the names lost which row, or which seat, went to whom).
function winnerText(w, zones, game) {
  const one = (x) => {
    if (x === "tie") return "Tie · 引き分け";
    if (x === "dealer") return "Dealer · 親";
    const zone = zones.find((z) => z.name === x);
    return zone ? `${zone.label_en} ${zone.label_ja}` : String(x);
  };
  if (w === null || w === undefined) return "—";
  if (Array.isArray(w)) {
    if (game === "kakeya-toranpu") return w.join(" and ");  // the winning pair
    return w.map((x, i) => `row ${i + 1}: ${x === "tie" ? "Tie" : x}`).join(" · ");  // Kabu-Tsukuri
  }
  // Otoroku: each seat's showdown (a seat not chosen has no contest, so no winner)
  if (typeof w === "object") {
    const played = Object.entries(w).filter(([, x]) => x !== null && x !== undefined);
    if (!played.length) return "No showdown · 勝負なし";
    return played.map(([seat, x]) => `${seat}: ${x === seat ? "wins" : (x === "dealer" ? "Dealer" : (x === "tie" ? "Tie" : x))}`).join(" · ");
  }
  if (game === "echobo") return `month ${w} · ${w}月`;
  return one(w);
}

function renderBets(s) {
  const sess = s.session;
  const player = document.getElementById("bet-player");
  const on = document.getElementById("bet-on");
  if (sess) {
    const keepP = player.value, keepO = on.value;
    if (changed(player, sess.players)) {
      player.replaceChildren(...sess.players.map((p) => el("option", {value: p.name}, `${p.name} (${p.colour})`)));
      // the choice kept only while it is still offered (else the picker showed nothing, and Add bet
      // said "unknown player ''")
      if (keepP && sess.players.some((p) => p.name === keepP)) player.value = keepP;
    }
    if (changed(on, sess.targets)) {
      on.replaceChildren(...sess.targets.map((t) => el("option", {value: String(t.on)}, t.label)));
      if (keepO && sess.targets.some((t) => String(t.on) === keepO)) on.value = keepO;
    }
  }
  document.getElementById("bet-form").hidden = Boolean(sess && sess.no_bets);
  // (a bet changed while a settlement waits would change what it settles: Confirm or Cancel first)
  const waiting = Boolean(s.pending);
  document.getElementById("bet-add").disabled = waiting;
  document.getElementById("no-bets").textContent = (sess && sess.no_bets) ||
    (waiting ? "A settlement is waiting: confirm it, or cancel it to change the bets." : "");
  const carryIn = document.getElementById("carry-in");
  carryIn.hidden = !(sess && sess.carry);
  carryIn.textContent = !(sess && sess.carry) ? "" : `Pot carried in from the last tie: ${sess.carry_text || sess.carry} ` +
    (sess.game === "kabu-tsukuri" ? "(the winner of the next row won takes it)" : "(the winners of this round share it)");
  const colours = Object.fromEntries((sess ? sess.players : []).map((p) => [p.name, p.colour]));
  const labels = Object.fromEntries((sess ? sess.targets : []).map((t) => [String(t.on), t.label]));
  // (redrawn only when the bets change: a Remove button replaced under the pointer loses the click)
  const list = document.getElementById("bet-list");
  if (changed(list, [sess ? sess.bets : [], colours, labels])) {
    // (a Remove pressed with the keyboard: the focus goes to the Remove now in its place, or the last
    // one, or the amount field; it went to the page's top, and the dealer tabbed the whole page again)
    const buttons = [...list.querySelectorAll("button")];
    const at = buttons.indexOf(document.activeElement);
    const kept = at >= 0 ? buttons[at].closest("li").dataset.bet : null;
    list.replaceChildren(...(sess ? sess.bets : []).map((b) =>
      el("li", {class: "bet", "data-bet": b.id}, el("span", {class: "chip chip-" + colours[b.player]}), `${b.player}: ${b.amount} on ${labels[String(b.on)] || b.on}` +
        (b.after_reveal ? (b.unseen ? " (taken while the table was not being read)" : " (taken after the reveal)") : ""),
        // (named for its bet: a list of buttons read "Remove, Remove, Remove", and the wrong bet went)
        el("button", {type: "button", class: "small", onclick: () => removeBet(b.id),
          "aria-label": `Remove ${b.player}'s bet of ${b.amount} on ${labels[String(b.on)] || b.on}`}, "Remove"))));
    if (at >= 0) {
      const now = [...list.querySelectorAll("button")];
      const same = now.find((b) => b.closest("li").dataset.bet === kept);  // (another bet changed)
      (same || now[Math.min(at, now.length - 1)] || document.getElementById("bet-amount")).focus();
    }
  }
  list.querySelectorAll("button").forEach((b) => { b.disabled = waiting; });  // (kept in place, not drawn anew)
  const adv = s.advice;
  document.getElementById("advice").textContent = !adv ? "" :
    (adv.dealer_adds ? `Equalise: the dealer adds ${adv.dealer_adds} on ${labels[adv.dealer_side] || adv.dealer_side}` :
      ("Equalise: " + (adv.message || "the sides are even")));
}

// A tablet's double tap on Remove took the next bet too (its line moved up under the finger once
// the list was redrawn): a second Remove this soon after one is dropped.
let lastBetRemoved = -Infinity;
function removeBet(id) {
  if (Date.now() - lastBetRemoved < REPEAT_MS) return;
  lastBetRemoved = Date.now();
  afterRevealToo(`/api/bets/${id}/remove`, {}, "Remove it");
}

// Otoroku: when the rules let him, the dealer picks the bettors he shows down with.
const CHOICE = {queue: Promise.resolve(), sent: null, waiting: 0};
function renderChoose(s) {
  const box = document.getElementById("choose");
  const sess = s.session;
  const may = Boolean(sess && sess.game === "otoroku" &&
    ((sess.chosen !== null && sess.chosen !== undefined) || s.dealer_may_choose || (s.preview && s.preview.dealer_may_choose)));
  box.hidden = !may;
  if (!may) { box.replaceChildren(); box.dataset.shown = ""; return; }
  const chosen = sess.chosen;
  const seats = sess.seats || sess.players.map((p) => p.name);
  // (no change while a settlement waits: it settles the choice as it stands; Cancel it first)
  const frozen = Boolean(s.pending);
  if (!changed(box, [chosen, seats, frozen])) return;
  // each tap builds on the last one sent, not on the state last drawn: two quick taps (Aki, then
  // Ben) sent [Aki], then [Ben]. (The buttons outlive the state they were drawn from: the newest is read.)
  // The taps go one after another (two sent at once could arrive in the other order, and the server
  // kept the first tap's list), each built on the list last sent while any is on its way.
  const set = (list) => {
    CHOICE.sent = list;
    CHOICE.waiting += 1;
    CHOICE.queue = CHOICE.queue.then(() => api("/api/chosen", {chosen: list}).catch(() => {}))
      .finally(() => { CHOICE.waiting -= 1; });
  };
  const toggle = (seat) => {
    const now = CHOICE.waiting ? CHOICE.sent : STATE.session.chosen;
    const next = now && now.includes(seat) ? now.filter((x) => x !== seat) : [...(now || []), seat];
    // the last seat tapped off is back to everyone: an empty choice played no one and paid no one
    set(next.length ? next : null);
  };
  // (which are chosen said in words too, not by colour alone; the seat pressed keeps the focus)
  keepingFocus(box, () => box.replaceChildren(el("span", {}, "Dealer shows down with:"),
    ...seats.map((seat) => el("button", {type: "button", class: "small" + (chosen && chosen.includes(seat) ? " primary" : ""),
      "data-key": "seat:" + seat, "aria-pressed": String(Boolean(chosen && chosen.includes(seat))), disabled: frozen,
      onclick: () => toggle(seat)}, seat)),
    el("button", {type: "button", class: "small" + (chosen ? "" : " primary"), "data-key": "everyone",
      "aria-pressed": String(!chosen), disabled: frozen, onclick: () => set(null)}, "Everyone")));
}

// A tie redrawn card by card: when the deck runs out first, the dealer says so (the pot carries over).
function renderRedraw(s) {
  const box = document.getElementById("redraw");
  const r = s.redraw;
  const show = Boolean(r && (r.waiting || r.deck_exhausted));
  box.hidden = !show;
  if (!show) { box.replaceChildren(); box.dataset.shown = ""; return; }
  const frozen = Boolean(s.pending);  // (as the bettors chosen: the settlement waiting settles it)
  if (!changed(box, [r.deck_exhausted, frozen])) return;
  keepingFocus(box, () => box.replaceChildren(el("button", {type: "button", id: "deck-exhausted-btn", class: "small" + (r.deck_exhausted ? " primary" : ""),
    "aria-pressed": String(r.deck_exhausted), disabled: frozen,
    onclick: () => api("/api/round/deck-exhausted", {exhausted: !r.deck_exhausted}).catch(() => {})},
    r.deck_exhausted ? "Deck ran out (tap to undo)" : "Deck ran out")));
}

// Kakeya Toranpu: the tricks read off the table (or entered by hand), who leads, the pictures taken.
function renderTricks(s) {
  const box = document.getElementById("tricks");
  const t = s.tricks;
  document.getElementById("trick-form").hidden = !t;
  box.hidden = !t;
  if (!t) { box.replaceChildren(); box.dataset.shown = ""; return; }
  if (!changed(box, t)) return;  // (the leader's buttons kept under the dealer's finger)
  // (focusable by the page alone: "None was missed" done, the keyboard stays here, not at the top)
  const head = el("p", {class: "tricks-head", tabindex: "-1"}, (t.count >= t.of ? `All ${t.of} tricks recorded` : `Trick ${t.count + 1} of ${t.of}`) +
    ` · trump ${t.trump} · Rensho ${t.rensho}` + (t.dealers ? ` · dealers ${t.dealers.join(" and ")}` : ""));
  const parts = [head];
  if (!t.leader || t.count === 0) {
    // the pair that did not deal leads; the page proposes its first player, the dealer may change it
    parts.push(el("div", {class: "row"}, el("span", {}, t.leader ? "Leads the first trick:" : "Who leads the first trick?"),
      ...t.active.map((p) => el("button", {type: "button", class: "small" + (p === t.leader ? " primary" : ""), "data-leader": p,
        "data-key": "leader:" + p, "aria-pressed": String(p === t.leader), onclick: () => api("/api/tricks/leader", {player: p}).catch(() => {})}, p))));
  }
  if (t.missed) {
    // (a hand passing over the middle may be taken for a trick gathered unread: the dealer who has
    // checked the tricks listed says so, and a trick entered is again added as the next)
    parts.push(el("div", {class: "row"}, el("span", {}, "A trick may have been missed. Checked the tricks below?"),
      el("button", {type: "button", class: "small", id: "none-missed",
        onclick: () => api("/api/tricks/none-missed", {}).then(() => showMessage("No trick was missed: the warning is gone."))
          .catch(() => {})}, "None was missed")));
  }
  if (t.leader && t.next_order && t.count < t.of) {
    parts.push(el("p", {id: "next-order"}, `Next: ${t.next_order.join(" → ")}`));
  }
  parts.push(el("ol", {id: "trick-list", class: "trick-list"}, ...t.recorded.map((r) =>
    el("li", {}, r.players.map((p, i) => `${p} ${cardText(r.cards[i])}`).join(" · "),
      ` → ${r.winner}`, r.source === "hand" ? " (entered by hand)" : ""))));
  parts.push(el("p", {id: "pictures"}, "Picture cards taken: " +
    Object.entries(t.pictures).map(([pair, cards]) => `${pair} ${cards.length}`).join(" · ")));
  if (t.stones) {
    parts.push(el("p", {id: "stones", class: t.game_over ? "error" : ""}, "Stones held: " +
      Object.entries(t.stones).map(([pair, n]) => `${pair} ${n}`).join(" · ") +
      (t.game_over ? ` · the game is over: ${t.game_over} has none` : "")));
  }
  keepingFocus(box, () => box.replaceChildren(...parts), ".tricks-head");
}

let trickEnteredAt = -Infinity;
// the form stays put while the table changes (it is not redrawn with the state)
document.getElementById("trick-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const input = document.getElementById("trick-input"), which = document.getElementById("trick-number");
  const how = document.getElementById("trick-how").value;
  // (the suits as the trick list writes them, 4♦, are the letters the server reads, 4D)
  const letters = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"};
  // (an emoji keyboard follows a suit with an invisible variation selector: 2♠️ read as "2S" and it)
  const cards = input.value.replace(/[\uFE0E\uFE0F]/g, "").trim().replace(/[♠♥♦♣♤♡♢♧]/g, (s) => letters[s]).toUpperCase()
    .split(/[\s,]+/).filter(Boolean);
  // (the second tap of a double tap found the box emptied by the first, and sent a trick of no card)
  if (!cards.length) {
    if (Date.now() - trickEnteredAt > REPEAT_MS) showMessage("Type the trick's cards first, e.g. QH 3H AD 5H.", true);
    return;
  }
  try {
    const answer = how === "replace" ? await api(`/api/tricks/${Number(which.value)}`, {cards})
      : await api("/api/tricks", how === "insert" ? {cards, at: Number(which.value)} : {cards});
    input.value = ""; which.value = "";
    trickEnteredAt = Date.now();
    showMessage(`Trick ${cards.join(" ")} entered.` + (answer && answer.settlement_cancelled
      ? " The settlement waiting was cancelled by it: settle again." : ""), Boolean(answer && answer.settlement_cancelled));
  } catch (e) { /* shown */ }
});
document.getElementById("undo-trick").addEventListener("click", () => api("/api/tricks/undo", {}).then((answer) => {
  if (answer && answer.settlement_cancelled) showMessage("The settlement waiting was cancelled by the undo: settle again.", true);
}).catch(() => {}));

function cardText(id) {
  const suits = {S: "♠", H: "♥", D: "♦", C: "♣"};
  return id.slice(0, -1) + (suits[id.slice(-1)] || id.slice(-1));
}

function renderPending(s) {
  const box = document.getElementById("pending");
  const p = s.pending;
  if (!p) {
    // (confirmed or cancelled from the keyboard: back to Settle, not to the page's top; see render)
    if (box.contains(document.activeElement)) focusAfterSettlement = true;
    box.replaceChildren(); box.dataset.shown = ""; return;
  }
  // drawn again only when the settlement or its note changes: Confirm replaced while the table
  // changed (a card gathered) lost the dealer's click
  if (!changed(box, [p.id, p.result, s.pending_note])) return;
  const net = p.result.net || {};
  const text = s.pending_text || {};  // (the amounts as booked, to 6 decimals: a JSON number is not exact)
  const rows = Object.entries(net).map(([who, amount]) =>
    el("tr", {class: who === "dealer" ? "dealer" : ""}, el("td", {}, who === "dealer" ? "Dealer 胴元" : who),
      el("td", {class: "num " + (amount < 0 ? "neg" : "pos")}, (text.net && text.net[who]) || fmt(amount),
        amount < 0 ? " pays" : (amount > 0 ? " wins" : ""))));
  const extra = [];
  // (a fee of 0, where the house takes none, said nothing but noise)
  for (const key of ["fee", "house_fee", "terazen"]) if (p.result[key] !== undefined && p.result[key] !== 0) extra.push(el("p", {}, `Fee (terazen 寺銭): ${JSON.stringify(p.result[key])}`));
  // (the losers pay what they hold: fewer than due once they run out, and the game ends)
  const short = p.result.stones_paid !== undefined && p.result.stones_paid < p.result.stones;
  if (p.result.stones !== undefined) extra.push(el("p", {id: "stones-paid"}, "Stones 石: " +
    (short ? `${p.result.stones_paid} of the ${p.result.stones} due (all they have)` : `${p.result.stones}`) +
    ` from the losing pair to ${(p.result.winner || []).join(" and ")} (${p.result.decided_by})`));
  if (p.result.carry) extra.push(el("p", {id: "carry-out"}, `Pot carried to the next round: ${text.carry || Number(p.result.carry).toLocaleString("en-US", {maximumFractionDigits: 6})}`));
  // the note above the amounts, and Cancel beside Confirm, never above or below it: a note appearing
  // as the dealer reached for Cancel moved Confirm under his finger, and booked the old result
  const fresh = !box.querySelector("#confirm-btn");  // (none waiting before: the settlement just made)
  keepingFocus(box, () => box.replaceChildren(...(s.pending_note ? [el("p", {class: "problems", id: "pending-note"}, "⚠ " + s.pending_note)] : []),
    el("table", {class: "grid net", id: "net-table"}, rows), ...extra,
    el("div", {class: "row pending-actions"},
      el("button", {type: "button", class: "primary big", id: "confirm-btn", onclick: confirmRound}, "Confirm & record"),
      el("button", {type: "button", class: "big", id: "cancel-btn", onclick: () => api("/api/settle/cancel", {pending: p.id}).catch(() => {})}, "Cancel"))));
  // (Settle pressed, and held once the settlement waits: the keyboard goes on to Confirm)
  const settle = document.getElementById("settle-btn");
  if (fresh && settlePressed && (document.activeElement === settle || document.activeElement === document.body)) {
    document.getElementById("confirm-btn").focus();
  }
  if (fresh) settlePressed = false;
  // (the first drawing follows the dealer's own Settle; a drawing again came by itself)
  PENDING_DRAWN_AT = p.id === PENDING_DRAWN_ID ? Date.now() : 0;
  PENDING_DRAWN_ID = p.id;
}

// a tap on Confirm this soon after the settlement's box was drawn again (a note came or went) was
// aimed at what lay there before: it asks for a second look instead
const SETTLE_LOOK_MS = 700;
let focusAfterSettlement = false;
let PENDING_DRAWN_AT = 0, PENDING_DRAWN_ID = null;

async function confirmRound() {
  if (Date.now() - PENDING_DRAWN_AT < SETTLE_LOOK_MS) {
    showMessage("The settlement just changed on the screen: check it, then tap Confirm again.", true);
    return;
  }
  try {
    const r = await api("/api/confirm", {pending: STATE.pending.id});
    // (recorded, but the balances could not be read back: the file is damaged, and that is said)
    if (r.balances_error) showMessage(`Round ${r.round} recorded, but the ledger cannot be read: ${r.balances_error}`, true);
    else showMessage(`Round ${r.round} recorded.`);
  } catch (e) { /* shown */ }
}

function forgetBust(zone) {
  // a bust the dealer knows was none (a card passing over the hand was read with it) is his to take back
  const cards = zone.cards.map((c) => c.label).join(", ");
  if (!window.confirm(`${zone.label_en}: forget the bust (${cards})? The hand is then read from the table again ` +
    "(with its zone empty, the round waits for it, unless the dealer chose bettors without it).")) return;
  api("/api/busts/forget", {seat: zone.name}).catch(() => {});
}

function openCorrect(zone, card) {
  correcting = card;
  document.getElementById("correct-undo").hidden = !card.corrected;  // (nothing to undo otherwise)
  document.getElementById("correct-what").textContent = `${zone.label_en} ${zone.label_ja}, card ${card.position}: read as ${card.label}` +
    (card.uncertain ? " (unsure)" : "");
  const box = document.getElementById("card-choices");
  // (only the game's own deck: a card of none was taken, then refused at Settle)
  const deck = STATE && STATE.session && STATE.session.deck ? new Set(STATE.session.deck) : null;
  box.replaceChildren(...CARDS.filter((c) => !deck || deck.has(c.id)).map((c) => el("button", {type: "button", class: "choice" + (c.id === card.card ? " current" : ""),
    "aria-current": c.id === card.card ? "true" : null, value: c.id, onclick: () => chooseCard(c.id)}, c.label)));
  document.getElementById("correct-dialog").showModal();
  const current = box.querySelector(".current");  // (the keyboard starts on the card as read)
  if (current) current.focus();
}

// The dialog closed, the focus goes back to the card tapped: the browser gives it to the button that
// opened the dialog, and where the cards were drawn anew meanwhile (on a live table, nearly always)
// that button was gone and the focus went to the page's top
document.getElementById("correct-dialog").addEventListener("close", (ev) => {
  const active = document.activeElement;
  if (correcting && (!active || active === document.body || ev.currentTarget.contains(active))) {
    const card = document.querySelector(`#zones .card[data-track="${CSS.escape(String(correcting.track_id))}"]`);
    if (card) card.focus();
  }
});

async function chooseCard(id) {
  document.getElementById("correct-dialog").close();
  // (with the face the dialog showed as read: a card laid in its place meanwhile is refused, not named)
  try { saidCorrected(await api("/api/correct", {track_id: correcting.track_id, card: id, face: correcting.face})); } catch (e) { /* shown */ }
}

// a settlement waiting is voided by a correction: said, not left to vanish from the page unexplained
function saidCorrected(answer) {
  if (answer && answer.settlement_cancelled) showMessage("The settlement waiting was cancelled by the correction: settle again.");
}

document.getElementById("correct-undo").addEventListener("click", async () => {
  try { saidCorrected(await api("/api/correct", {track_id: correcting.track_id, card: null})); } catch (e) { /* shown */ }
});

// (Enter in the form with Add bet held while a settlement waits did nothing and said nothing: the
// browser sends no form whose button is disabled)
document.getElementById("bet-form").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && document.getElementById("bet-add").disabled && STATE && STATE.pending &&
      ev.target instanceof HTMLInputElement) {
    showMessage("A settlement is waiting: confirm it, or cancel it to change the bets.", true);
  }
});

let betTakenAt = -Infinity;
document.getElementById("bet-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  // (the second tap of a double tap found the amount emptied by the first: sent, its refusal said in
  // red under the bet just taken, and a dealer who trusted it booked the bet again)
  if (document.getElementById("bet-amount").value === "" && Date.now() - betTakenAt <= REPEAT_MS) return;
  const onRaw = document.getElementById("bet-on").value;
  // (with no session, or before the first state, the server says what is missing)
  const target = ((STATE && STATE.session && STATE.session.targets) || []).find((t) => String(t.on) === onRaw);
  const amount = exactAmount(document.getElementById("bet-amount").value);
  if (amount === null) { showMessage(tooPrecise(document.getElementById("bet-amount").value), true); return; }
  const sent = await afterRevealToo("/api/bets", {player: document.getElementById("bet-player").value,
    on: target ? target.on : onRaw, amount: document.getElementById("bet-amount").value === "" ? null : amount},
    "Take it");
  if (sent) { document.getElementById("bet-amount").value = ""; betTakenAt = Date.now(); }
});

// A bet taken or removed once the cards it is on are face up goes only on the dealer's word, asked
// here, and is marked so with the round (the server refuses it otherwise): true once it went.
async function afterRevealToo(path, body, doIt) {
  let marked;
  try {
    await api(path, body);
    return true;
  } catch (e) {
    const said = String(e.message).replace(" (after_reveal)", "");  // (the field is the server's word)
    // (or while the camera is away: whether the cards are still face down is then not seen)
    const unseen = said.includes("cannot be seen");
    if (!(said.includes("bets close before the reveal") || unseen) ||
        !window.confirm(`${said}\n\n${doIt} anyway? It is recorded as done ` +
                        `${unseen ? "while the table was not being read" : "after the reveal"}.`)) return false;
    marked = unseen ? "Done, and marked as done while the table was not being read." :
      "Done, and marked as after the reveal.";
  }
  try {
    await api(path, Object.assign({}, body, {after_reveal: true}));
    showMessage(marked);  // (the refusal stayed up, as if it had failed)
    return true;
  } catch (e) { return false; /* shown */ }
}

// (a settlement of this page's own Settle, not one another tablet made or one waiting as the page
// opened, takes the focus to its Confirm)
let settlePressed = false;
document.getElementById("settle-btn").addEventListener("click", () => {
  settlePressed = true;
  api("/api/settle", {}).catch(() => { settlePressed = false; });
});

let lostContact = false;

// While the server is out of reach the page shows what it last knew, dimmed, with its buttons held:
// the winner and amounts of minutes ago looked like the table now, and Settle stayed offered
// (the control the keyboard was on is given back once the contact is: held, the focus fell to the
// page itself, and Enter on Confirm did nothing)
let focusHeld = null;
function holdWhileOffline(off) {
  document.body.classList.toggle("offline", off);
  const held = [...document.querySelectorAll(
    ".round button, .round input, .bets button, .bets input, .bets select, .settle button")];
  if (off && held.includes(document.activeElement)) focusHeld = document.activeElement;
  held.forEach((b) => {
    if (off && !b.dataset.held) { b.dataset.held = b.disabled ? "was" : "yes"; b.disabled = true; }
    else if (!off && b.dataset.held) { b.disabled = b.dataset.held === "was"; delete b.dataset.held; }
  });
  if (!off && focusHeld) {
    // (the control itself, or the one drawn in its place since: a bet's Remove has no id)
    const back = focusHeld.isConnected ? focusHeld : (focusHeld.id && document.getElementById(focusHeld.id));
    if (back && !back.disabled && (document.activeElement === document.body || !document.activeElement)) back.focus();
    focusHeld = null;
  }
}

function connect() {
  const source = new EventSource("/events");
  source.addEventListener("state", (ev) => render(JSON.parse(ev.data)));
  source.onerror = () => {
    lostContact = true;
    holdWhileOffline(true);
    const banner = document.getElementById("banner");
    banner.hidden = false;
    banner.textContent = "Lost contact with the server: reconnecting…";
    placeMessage();
    // the browser tries again by itself only after a dropped connection; an answer that was no
    // stream (an error page, a proxy's 502) closes it for good
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
  };
  source.onopen = () => {
    if (lostContact) {
      // the video stream ended with the contact and a picture keeps its last frame: start it again,
      // or the dealer compares the table with a picture minutes old
      const video = document.getElementById("video");
      video.src = video.src.split("?")[0] + "?t=" + Date.now();
      lostContact = false;
    }
    holdWhileOffline(false);
    if (STATE) render(STATE);
  };
  watchStream(source);
}
connect();
