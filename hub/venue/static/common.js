/* Helpers shared by the venue pages.  Every text from the server goes into the page through
   textContent (never innerHTML): a player's name cannot become markup. */
"use strict";
const PZ = (() => {
  const SEAT_ZH = { E: "东", N: "北", W: "西", S: "南" };
  const SEAT_EN = { E: "East", N: "North", W: "West", S: "South" };
  const SUITS = { D: ["♦", true], C: ["♣", false], H: ["♥", true], S: ["♠", false] };
  const GAME = { bigtwo: "锄大地 Big Two", guandan: "掼蛋 Guandan", paohuzi: "跑胡子 Paohuzi" };

  /* el("td", {class: "num", title: "…"}, "text", childNode, …): a DOM element, texts as text. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  /* Chinese first, English beside it: bi("暂停", "Paused"). */
  function bi(zh, en) {
    return el("span", {}, zh, " ", el("span", { class: "en" }, en));
  }

  function seat(s) {
    return SEAT_ZH[s] ? SEAT_ZH[s] + " " + s : String(s);
  }

  /* "TD" → 10♦ in red; anything else (a joker, an unknown code) is shown as it is. */
  function card(code) {
    const s = String(code);
    const suit = SUITS[s.slice(-1)];
    if (s.length === 2 && suit) {
      const rank = s[0] === "T" ? "10" : s[0];
      return el("span", { class: suit[1] ? "card red" : "card", title: s }, rank + suit[0]);
    }
    return el("span", { class: "card", title: s }, s);
  }

  function cards(list) {
    return el("span", { class: "cards" }, (list || []).map(card));
  }

  /* 83000 → "1:23"; a negative or missing time → "0:00". */
  function clock(ms) {
    const total = Math.max(0, Math.ceil((ms || 0) / 1000));
    const m = Math.floor(total / 60), s = total % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function time(value) {
    if (value === null || value === undefined || value === "") return "";
    const d = typeof value === "number" ? new Date(value) : new Date(String(value));
    if (isNaN(d.getTime())) return String(value);
    const p = (n) => (n < 10 ? "0" : "") + n;
    return p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds());
  }

  function game(g) {
    return GAME[g] || (g || "");
  }

  /* An EventSource that shows its state in the header's live badge. */
  function live(url, badge, handlers) {
    const es = new EventSource(url);
    const set = (on) => {
      badge.className = on ? "live on" : "live off";
      badge.replaceChildren(on ? bi("实时", "live") : bi("重新连接中", "reconnecting"));
    };
    es.addEventListener("open", () => set(true));
    es.addEventListener("error", () => set(false));
    for (const [name, fn] of Object.entries(handlers)) {
      es.addEventListener(name, (e) => {
        let data;
        try { data = JSON.parse(e.data); } catch (err) { console.error("bad live data", err); return; }
        set(true);
        fn(data);
      });
    }
    return es;
  }

  return { el, bi, seat, card, cards, clock, time, game, live, SEAT_ZH, SEAT_EN };
})();
