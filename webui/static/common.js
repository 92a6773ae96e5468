// Shared by every page: the CSRF token, JSON calls, messages and the dealer's PIN.
"use strict";
const CSRF = document.querySelector('meta[name="csrf-token"]').content;

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json", "X-CSRF-Token": CSRF},
    body: JSON.stringify(body), credentials: "same-origin"};
  const resp = await fetch(path, opts);
  let data = null;
  try { data = await resp.json(); } catch (e) { data = {error: "the server sent no JSON (" + resp.status + ")"}; }
  if (resp.status === 401 && body !== undefined && !path.endsWith("/login")) {
    askPin();
  }
  if (!resp.ok) { showMessage(data.error || ("error " + resp.status), true); throw new Error(data.error); }
  return data;
}

function showMessage(text, isError) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.className = "message" + (isError ? " error" : "");
  box.hidden = false;
  clearTimeout(showMessage.timer);
  showMessage.timer = setTimeout(() => { box.hidden = true; }, isError ? 8000 : 3000);
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

function fmt(n) { return (n > 0 ? "+" : "") + Number(n).toLocaleString(); }

function askPin() {
  const dlg = document.getElementById("pin-dialog");
  document.getElementById("pin-input").value = "";
  if (!dlg.open) dlg.showModal();
}

document.getElementById("pin-cancel").addEventListener("click", () => document.getElementById("pin-dialog").close());
document.getElementById("pin-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const pin = document.getElementById("pin-input").value;
  const first = document.body.dataset.pinSet !== "yes";
  try {
    await api(first ? "/api/pin" : "/api/login", {pin});
    document.getElementById("pin-dialog").close();
    location.reload();
  } catch (e) { /* message shown */ }
});
document.getElementById("login-btn").addEventListener("click", async () => {
  if (document.body.dataset.loggedIn === "yes") { await api("/api/logout", {}); location.reload(); }
  else askPin();
});
if (document.body.dataset.pinSet !== "yes") askPin();
