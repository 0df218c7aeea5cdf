/* Helpers shared by the venue pages.  Every text from the server goes into the page through
   textContent (never innerHTML): a player's name cannot become markup. */
"use strict";
const PZ = (() => {
  const SEAT_ZH = { E: "东", N: "北", W: "西", S: "南" };
  const SEAT_EN = { E: "East", N: "North", W: "West", S: "South" };
  const SUITS = { D: ["♦", true], C: ["♣", false], H: ["♥", true], S: ["♠", false] };
  /* Each game's title ("中文 English"), from the registry of games (the session's "games"). */
  const GAME = {};

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

  function setGames(titles) {
    Object.assign(GAME, titles || {});
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

  /* A match event's standings rows (场分, then the tie-break chain; decided_by names the step). */
  function sideRows(st) {
    const steps = st.steps || {};
    return (st.sides || []).map((r) => {
      const step = steps[r.decided_by];
      const why = r.decided_by === "tie" ? bi("并列", "tie")
        : step ? el("span", { class: "tag", title: step.en }, step.zh, " ", el("span", { class: "en" }, step.en))
          : el("span", { class: "hint" }, "");
      return el("tr", { dataset: { side: String(r.side) } },
        el("td", { class: "num rank" }, String(r.rank)),
        el("td", { class: "player" }, el("strong", {}, String(r.name)), " ", el("span", { class: "en" }, String(r.side)),
          el("div", { class: "hint" }, (r.players || []).flatMap((n, i) => [i ? " · " : "", el("span", { class: "nw" }, String(n))]))),
        el("td", { class: "num changfen" }, String(r.changfen)),
        el("td", { class: "num" }, String(r.jichafen)),
        el("td", { class: "num" }, r.wins + "-" + r.draws + "-" + r.losses),
        el("td", { class: "num" }, String(r.byes)),
        el("td", { class: "num" }, (r.level_diff > 0 ? "+" : "") + r.level_diff),
        el("td", { class: "num" }, String(r.opponents_changfen)),
        el("td", {}, why));
    });
  }

  /* Who sits where this round: per table its seats; a match event adds the match, the room and the
     sides (E–W against N–S), and the side that sits out. */
  const ROOM = { open: ["开室", "open room"], closed: ["闭室", "closed room"] };
  function seatMap(map) {
    const names = (t, seats) => seats.map((s) => (t.seats[s] ? t.seats[s].name + " #" + t.seats[s].no : "—")).join(" / ");
    const items = (map.tables || []).map((t) => {
      const head = ["第 " + t.table + " 桌"];
      if (t.match) head.push(" · 第 " + t.match + " 场 ");
      if (ROOM[t.room]) head.push(bi(ROOM[t.room][0], ROOM[t.room][1]));
      return el("div", { class: "seat-table", dataset: { table: String(t.table) } },
        el("div", { class: "seat-head" }, head),
        el("div", {}, el("span", { class: "tag" }, "东西 E–W"), t.ew ? el("strong", {}, String(t.ew_name) + " ") : "", names(t, ["E", "W"])),
        el("div", {}, el("span", { class: "tag" }, "南北 N–S"), t.ns ? el("strong", {}, String(t.ns_name) + " ") : "", names(t, ["N", "S"])));
    });
    if (map.bye) items.push(el("div", { class: "seat-table bye" }, bi("轮空 " + (map.bye_name || map.bye), "bye " + map.bye)));
    if (!items.length) return [];
    return [el("h2", {}, "第 " + map.round + " 轮座位 ", el("span", { class: "en" }, "round " + map.round + " seat map"))]
      .concat([el("div", { class: "seat-grid" }, items)]);
  }

  return { el, bi, seat, card, cards, clock, time, game, setGames, live, sideRows, seatMap, SEAT_ZH, SEAT_EN };
})();
