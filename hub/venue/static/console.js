/* The referee console: every table live from /referee/live (SSE), one table in detail, actions
   POSTed as JSON to /referee/api/<action> with the session's X-CSRF token, the audit log live.
   Clocks count down here from the last snapshot; the hub stays the authority on time. */
"use strict";
(() => {
  const { el, bi, seat, cards, game } = PZ;
  const SEATS = ["E", "N", "W", "S"];
  const ALERT = {
    call: ["呼叫裁判", "call"], seat_offline: ["座位离线", "seat offline"], seat_online: ["座位恢复连接", "seat online"],
    clock_expiry: ["超时", "clock expired"], reject_burst: ["连续无效操作", "reject burst"],
    checkin_wrong: ["签到号码错误", "wrong check-in"], log_failed: ["日志写入失败", "log write failed"],
    hub_error: ["主机错误", "hub error"], deal_hash_mismatch: ["牌局校验不符", "deal hash mismatch"],
    deal_mismatch: ["轮次密钥与牌局不符，未开始", "round key does not give the spec's deals: not started"],
    hub_offline: ["主机离线", "hub offline"], hub_online: ["主机上线", "hub online"],
  };
  const ACTION = {
    pause: "暂停", resume: "恢复", ack_alert: "确认警报", replace: "更换座位板", adjust: "更正成绩",
    release: "放行成绩", start_round: "开始本轮", login: "登录", login_failed: "登录失败",
    login_locked: "登录已锁定", logout: "退出", hold: "扣留成绩", note: "发送提示",
  };
  const SCREEN = {
    checkin: "签到中 check-in", waiting: "等待开始 waiting", deal: "进行中 playing", paused: "已暂停 paused",
    result: "本副结束 deal over",
  };
  const STAGE = { requested: "（请求）", refused: "（被拒）", reply: "（桌机回复）" };

  /* "pause_reply" → 暂停（桌机回复）; an action the console does not know is shown as it is. */
  function actionLabel(action) {
    const m = /^(.*)_(requested|refused|reply)$/.exec(action || "");
    if (m && ACTION[m[1]]) return ACTION[m[1]] + STAGE[m[2]];
    return ACTION[action] || "";
  }

  /* {"table": "1", "reason": "…"} → table: 1 · reason: … (the protocol version "v" left out). */
  function detailText(d) {
    if (d === null || d === undefined) return "";
    if (typeof d !== "object") return String(d);
    return Object.entries(d).filter(([k]) => k !== "v")
      .map(([k, v]) => k + ": " + (v !== null && typeof v === "object" ? JSON.stringify(v) : String(v))).join(" · ");
  }
  const state = { csrf: null, who: null, tables: new Map(), selected: null, detailBusy: false, detailDirty: false };

  // ---- talking to the server ----------------------------------------------------------------
  function toLogin() { location.assign("/referee/login"); }

  async function getJSON(url) {
    const r = await fetch(url, { credentials: "same-origin" });
    if (r.status === 401) { toLogin(); throw new Error("login needed"); }
    const data = await r.json();
    if (!r.ok) throw Object.assign(new Error(data.en || r.statusText), { data });
    return data;
  }

  function say(ok, zh, en) {
    const box = document.getElementById("msg");
    box.className = ok ? "msg ok" : "msg err";
    box.replaceChildren(bi(zh, en || ""));
    box.hidden = false;
    clearTimeout(say.timer);
    if (ok) say.timer = setTimeout(() => { box.hidden = true; }, 6000);
  }

  async function post(action, body) {
    let data = {};
    let r;
    try {
      r = await fetch("/referee/api/" + action, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF": state.csrf || "" },
        body: JSON.stringify(body),
      });
      data = await r.json();
    } catch (err) {
      say(false, "无法连接服务器，操作未完成", "cannot reach the venue server; nothing was done");
      return null;
    }
    if (r.status === 401) { toLogin(); return null; }
    if (!data.ok) {
      say(false, data.zh || "操作被拒绝", data.en || "refused");
      return null;
    }
    say(true, "已完成：" + (ACTION[action] || action), "done: " + action);
    return data;
  }

  function formBody(form, names) {
    const out = {};
    for (const n of names) out[n] = form.elements[n].value;
    return out;
  }

  function onSubmit(id, build, after) {
    const form = document.getElementById(id);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const [action, body] = build(form);
      const button = form.querySelector("button[type=submit]");
      button.disabled = true;
      try {
        const done = await post(action, body);
        if (done && after) after(form);
      } finally {
        button.disabled = false;
      }
    });
  }

  // ---- tables at a glance ------------------------------------------------------------------
  function clockOf(row) {
    const c = row.clock;
    if (!c) return null;
    const frozen = !!(c.paused || row.paused || row.online === false);
    return { seats: c.seats || [], ms: c.ms, frozen, base: performance.now(), age: row._age || 0 };
  }

  function remaining(c) {
    if (c.frozen) return c.ms;
    return c.ms - c.age - (performance.now() - c.base);
  }

  function clockCell(row) {
    const c = row._clock;
    if (!c) return el("td", { class: "clock" }, "—");
    const left = remaining(c);
    const cls = "clock" + (c.frozen ? " frozen" : left < 10000 ? " low" : "");
    return el("td", { class: cls, dataset: { table: row.table } }, PZ.clock(left));
  }

  function seatsCell(row) {
    const seats = row.seats || {};
    const turn = new Set(row.to_act || []);
    return el("td", {}, el("div", { class: "seats" }, SEATS.filter((s) => seats[s]).map((s) => {
      const v = seats[s] || {};
      const p = v.player || {};
      const bits = [PZ.SEAT_ZH[s] || s];
      if (v.bot || p.bot) bits.push(" AI");
      else if (v.checked) bits.push(" ✓");
      const title = [s, p.name, p.no !== undefined ? "#" + p.no : "", v.dev, v.online ? "online 在线" : "offline 离线",
                     v.checked ? "checked in 已签到" : "not checked in 未签到"].filter(Boolean).join(" · ");
      const cls = "seat " + (v.online || v.bot ? "on" : "off") + (turn.has(s) ? " turn" : "");
      return el("span", { class: cls, title }, bits.join(""));
    })));
  }

  function stateCell(row) {
    const tags = [];
    if (row.online === false) tags.push(el("span", { class: "tag bad" }, "主机离线 ", el("span", { class: "en" }, "hub offline")));
    if (row.paused) {
      tags.push(el("span", { class: "tag warn", title: (row.paused.reason || "") + (row.paused.by ? " — " + row.paused.by : "") },
        "已暂停 ", el("span", { class: "en" }, "paused")));
    }
    const screen = row.screen;
    if (screen === "checkin") tags.push(el("span", { class: "tag" }, "签到中 ", el("span", { class: "en" }, "check-in")));
    else if (screen === "waiting") tags.push(el("span", { class: "tag" }, "等待开始 ", el("span", { class: "en" }, "waiting")));
    else if (screen === "result") tags.push(el("span", { class: "tag good" }, "本副结束 ", el("span", { class: "en" }, "deal over")));
    else if (screen === "deal" && !row.paused && row.online !== false) tags.push(el("span", { class: "tag good" }, "进行中 ", el("span", { class: "en" }, "playing")));
    if (row.unacked) tags.push(el("span", { class: "tag warn", title: "outbox messages not yet acknowledged" }, "待确认 " + row.unacked));
    return el("td", {}, tags);
  }

  function turnText(row) {
    const to = row.to_act || [];
    if (!to.length) return "—";
    return to.map((s) => seat(s)).join("、") + (row.turn !== null && row.turn !== undefined ? "  #" + row.turn : "");
  }

  function rowNode(row) {
    const open = row.alerts_open || 0;
    const rb = [row.round ? "第" + row.round + "轮" : "", row.board ? "第" + row.board + "副" : ""].filter(Boolean).join(" · ");
    const tr = el("tr", {
      class: [state.selected === row.table ? "selected" : "", row.online === false ? "offline" : ""].join(" ").trim() || null,
      dataset: { table: row.table }, onclick: () => select(row.table),
    },
      el("td", { class: "table-no" }, String(row.table)),
      el("td", {}, String(row.hub || ""), " ", row.online === false ? el("span", { class: "tag bad" }, "离线 offline")
        : el("span", { class: "tag good" }, "在线 online"), el("div", { class: "seen", dataset: { table: row.table } })),
      el("td", {}, rb || "—", row.game ? el("div", { class: "en" }, game(row.game)) : null),
      el("td", { class: "turn" }, turnText(row)),
      clockCell(row),
      seatsCell(row),
      el("td", { class: "num" }, open ? el("span", { class: "tag bad" }, String(open)) : "0"),
      stateCell(row));
    return tr;
  }

  function putRow(row, now) {
    // The snapshot is this old when it reaches us (venue clock on both sides: no skew with this laptop).
    row._age = (now && row.last_seen) ? Math.max(0, now - row.last_seen) : 0;
    row._clock = clockOf(row);
    row._recv = performance.now();
    state.tables.set(row.table, row);
    const body = document.querySelector("#tables tbody");
    const fresh = rowNode(row);
    const old = body.querySelector('tr[data-table="' + CSS.escape(String(row.table)) + '"]');
    if (old) old.replaceWith(fresh);
    else {
      // keep tables in their natural order (1, 2, …, 10)
      const after = [...body.children].find((tr) => naturalLess(String(row.table), tr.dataset.table));
      body.insertBefore(fresh, after || null);
    }
    document.getElementById("no-tables").hidden = state.tables.size > 0;
    if (state.selected === row.table) detailChanged();
  }

  function naturalLess(a, b) {
    return a.localeCompare(b, undefined, { numeric: true }) < 0;
  }

  /* A hub silent for more than 10 s is marked on its row, with how long ago it was last heard. */
  function silence(row, node) {
    if (!row.last_seen || row.online === false) { node.replaceChildren(); return; }
    const ms = row._age + (performance.now() - row._recv);
    if (ms < 10000) { node.replaceChildren(); return; }
    const s = Math.round(ms / 1000);
    node.replaceChildren(el("span", { class: "tag warn" }, s + " 秒无消息 ", el("span", { class: "en" }, "silent " + s + " s")));
  }

  function tick() {
    for (const node of document.querySelectorAll("#tables div.seen[data-table]")) {
      const row = state.tables.get(node.dataset.table);
      if (row) silence(row, node);
    }
    for (const td of document.querySelectorAll("#tables td.clock[data-table]")) {
      const row = state.tables.get(td.dataset.table);
      if (!row || !row._clock) continue;
      const left = remaining(row._clock);
      td.textContent = PZ.clock(left);
      td.className = "clock" + (row._clock.frozen ? " frozen" : left < 10000 ? " low" : "");
    }
  }

  // ---- one table in detail -----------------------------------------------------------------
  function select(table) {
    state.selected = table;
    history.replaceState(null, "", "/referee/table/" + encodeURIComponent(table));
    for (const tr of document.querySelectorAll("#tables tbody tr")) tr.classList.toggle("selected", tr.dataset.table === table);
    document.getElementById("detail-hint").hidden = true;
    document.getElementById("detail").hidden = false;
    document.getElementById("detail-title").textContent = "第 " + table + " 桌 · Table " + table;
    detailChanged();
  }

  async function detailChanged() {
    // At most one request in flight; changes that arrive meanwhile cause exactly one more.
    if (state.detailBusy) { state.detailDirty = true; return; }
    state.detailBusy = true;
    try {
      do {
        state.detailDirty = false;
        const table = state.selected;
        try {
          const data = await getJSON("/referee/table/" + encodeURIComponent(table) + ".json");
          if (table === state.selected) renderDetail(data.table);
        } catch (err) {
          const d = err.data || {};
          if (table === state.selected) say(false, d.zh || "无法读取该桌", d.en || String(err.message));
        }
      } while (state.detailDirty);
    } finally {
      state.detailBusy = false;
    }
  }

  function playNode(p) {
    const who = el("strong", {}, seat(p.seat) + "：");
    if (p.type === "pass") return el("div", { class: "play" }, who, "过 ", el("span", { class: "en" }, "pass"));
    if (p.type === "play") return el("div", { class: "play" }, who, cards(p.cards));
    const extra = p.yes === undefined ? "" : (p.yes ? " ✓" : " ✗");
    return el("div", { class: "play" }, who, String(p.type || "") + extra);
  }

  function renderDetail(t) {
    if (!t) return;
    const info = document.getElementById("detail-info");
    const items = [
      ["主机 Hub", (t.hub || "") + (t.online === false ? " · 离线 offline" : " · 在线 online")],
      ["项目 Game", game(t.game)],
      ["轮 · 副 Round · Board", [t.round ? "第" + t.round + "轮 round " + t.round : "", t.board ? "第" + t.board + "副 board " + t.board : ""].filter(Boolean).join(" · ") || "—"],
      ["轮到 Turn", turnText(t)],
      ["状态 State", t.paused ? "已暂停 paused — " + (t.paused.reason || "") + (t.paused.by ? "（" + t.paused.by + "）" : "")
        : (SCREEN[t.screen] || t.screen || "—")],
      ["完成副数 Deals done", t.deals_done !== undefined ? String(t.deals_done) + (t.boards ? " / " + t.boards.length : "") : "—"],
    ];
    info.replaceChildren(...items.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));

    const seats = t.seats || {};
    document.querySelector("#detail-seats tbody").replaceChildren(...SEATS.filter((s) => seats[s]).map((s) => {
      const v = seats[s];
      const p = v.player || {};
      return el("tr", {},
        el("td", {}, seat(s)),
        el("td", {}, p.name ? p.name + (p.no !== undefined ? " #" + p.no : "") : "—", v.bot || p.bot ? " (AI)" : ""),
        el("td", {}, v.dev || "—"),
        el("td", {}, v.online || v.bot ? el("span", { class: "tag good" }, "在线 online") : el("span", { class: "tag bad" }, "离线 offline")),
        el("td", {}, v.checked || v.bot ? "✓" : "—"),
        el("td", { class: "num" }, v.cards === null || v.cards === undefined ? "—" : String(v.cards)));
    }));

    const plays = t.plays || [];
    const pbox = document.getElementById("detail-plays");
    pbox.replaceChildren(...(plays.length ? plays.map(playNode) : [el("span", { class: "hint" }, "尚无出牌 ", el("span", { class: "en" }, "no plays yet"))]));
    pbox.scrollTop = pbox.scrollHeight;

    const shown = t.shown || {};
    const shownSeats = Object.keys(shown);
    document.getElementById("detail-shown").replaceChildren(...(shownSeats.length ? [
      el("h3", {}, "明牌 ", el("span", { class: "en" }, "shown hands")),
      ...shownSeats.map((s) => el("div", {}, el("strong", {}, seat(s) + "："), cards(shown[s]))),
    ] : []));

    const finished = t.finished || t.deals || [];
    const names = {};
    for (const p of Object.values(t.players || {})) if (p && p.id !== undefined) names[p.id] = p.name;
    document.getElementById("detail-finished").replaceChildren(...(finished.length ? finished.map((d) => finishedNode(d, names))
      : [el("p", { class: "hint" }, "本轮尚无完成的牌局 ", el("span", { class: "en" }, "no finished deal yet"))]));
  }

  function finishedNode(d, names) {
    const rec = d.record || d;
    const deal = rec.deal || {};
    const hands = deal.hands || d.hands || {};
    const result = rec.result || d.result || {};
    const scores = result.scores || {};
    const rows = d.rows || [];
    const byseat = {};
    for (const r of rows) byseat[r.seat] = r;
    const board = d.board ?? deal.board ?? "?";
    return el("div", { class: "deal-block" },
      el("strong", {}, "第 " + board + " 副 · board " + board),
      d.same_deal === false ? el("span", { class: "tag bad" }, " 牌局校验不符 deal hash mismatch") : null,
      el("table", { class: "grid" }, el("tbody", {}, SEATS.filter((s) => hands[s] || byseat[s]).map((s) => {
        const r = byseat[s] || {};
        const score = r.score !== undefined ? r.score : scores[s];
        const who = r.player !== undefined ? (names[r.player] ? names[r.player] + " (" + r.player + ")" : String(r.player)) : "";
        return el("tr", {},
          el("td", { class: "seat-col" }, seat(s)),
          el("td", { class: "seat-col" }, who),
          el("td", {}, cards(hands[s])),
          el("td", { class: "num" }, score === undefined ? "" : String(score)),
          el("td", {}, r.result_id ? el("a", { href: "#adjust-form", class: "en", title: "填入更正表单 fill the adjust form",
            onclick: (e) => { e.preventDefault(); useResult(r.result_id); } }, r.result_id) : ""));
      }))));
  }

  /* A result id clicked in a finished deal goes into the adjust and release forms. */
  function useResult(id) {
    for (const f of ["adjust-form", "release-form"]) document.getElementById(f).elements.result_id.value = id;
    document.getElementById("adjust-form").elements.value.focus();
  }

  // ---- alerts and audit --------------------------------------------------------------------
  function alertText(a) {
    const k = ALERT[a.kind] || [a.kind, a.kind];
    const f = a.fields || {};
    const where = "第 " + (a.table ?? "?") + " 桌" + (f.seat ? " " + seat(f.seat) : "");
    const boards = Array.isArray(f.boards) ? "round " + f.round + " boards " + f.boards.join(", ") : "";
    const more = [f.reason, f.why, f.typed !== undefined ? "typed " + f.typed : "", f.dev, boards].filter(Boolean).join(" · ");
    return [where + " · " + k[0], k[1] + (more ? " · " + more : "")];
  }

  function renderAlerts(list) {
    const open = list.filter((a) => !a.acked_by);
    const done = list.filter((a) => a.acked_by).slice(-10);
    const ul = document.getElementById("alerts");
    ul.replaceChildren(...open.concat(done.reverse()).map((a) => {
      const [zh, en] = alertText(a);
      const li = el("li", { class: a.acked_by ? "done" : "open", dataset: { alert: String(a.id) } },
        el("span", {}, el("span", { class: "hint" }, PZ.time(a.at) + " "), zh, " ", el("span", { class: "en" }, en)));
      if (a.acked_by) li.append(el("span", { class: "en" }, "已确认 acked by " + a.acked_by));
      else li.append(el("button", { type: "button", onclick: () => post("ack_alert", { alert: a.id }) }, "确认 ", el("span", { class: "en" }, "Acknowledge")));
      return li;
    }));
    document.getElementById("no-alerts").hidden = list.length > 0;
    const count = document.getElementById("alerts-count");
    count.textContent = open.length ? String(open.length) : "";
    count.className = open.length ? "tag bad" : "tag";
  }

  function renderAudit(list) {
    const body = document.querySelector("#audit tbody");
    body.replaceChildren(...list.slice().reverse().map((a) => el("tr", { dataset: { action: a.action } },
      el("td", {}, PZ.time(a.at)),
      el("td", {}, String(a.who || "")),
      el("td", {}, actionLabel(a.action), " ", el("span", { class: "en" }, a.action)),
      el("td", { class: "detail" }, detailText(a.detail)))));
  }

  // ---- start -------------------------------------------------------------------------------
  function wire() {
    onSubmit("pause-form", (f) => ["pause", { table: state.selected, reason: f.elements.reason.value }], (f) => { f.reset(); });
    onSubmit("resume-form", () => ["resume", { table: state.selected }]);
    onSubmit("note-form", (f) => {
      const b = { table: state.selected, zh: f.elements.zh.value };
      if (f.elements.seat.value) b.seat = f.elements.seat.value;
      if (f.elements.en.value.trim()) b.en = f.elements.en.value;
      return ["note", b];
    }, (f) => { f.reset(); });
    onSubmit("replace-form", (f) => ["replace", Object.assign({ table: state.selected }, formBody(f, ["seat", "dev", "reason"]))], (f) => { f.reset(); });
    onSubmit("adjust-form", (f) => {
      const b = formBody(f, ["result_id", "field", "value", "reason"]);
      if (b.field !== "player" && /^\s*-?\d+\s*$/.test(b.value)) b.value = parseInt(b.value, 10);
      return ["adjust", b];
    }, (f) => { f.reset(); });
    onSubmit("release-form", (f) => ["release", formBody(f, ["result_id", "reason"])], (f) => { f.reset(); });
    onSubmit("start-form", (f) => {
      const v = f.elements.round.value;
      return ["start_round", { round: /^\d+$/.test(v) ? parseInt(v, 10) : v }];
    });
    document.getElementById("logout").addEventListener("click", async () => {
      await fetch("/referee/logout", { method: "POST", credentials: "same-origin", headers: { "X-CSRF": state.csrf || "" } });
      toLogin();
    });
  }

  async function main() {
    const s = await getJSON("/referee/session.json");
    state.csrf = s.csrf;
    state.who = s.who;
    document.getElementById("who").replaceChildren(bi(s.who, "referee 裁判"));
    if (s.event) document.getElementById("event").textContent = "· " + s.event;
    wire();
    const m = location.pathname.match(/^\/referee\/table\/([^/]+)$/);
    if (m) select(decodeURIComponent(m[1]));
    PZ.live("/referee/live", document.getElementById("live"), {
      glance: (d) => { for (const row of d.tables || []) putRow(row, d.now); },
      table: (d) => putRow(d.table, d.now),
      alerts: (d) => renderAlerts(d.alerts || []),
      audit: (d) => renderAudit(d.audit || []),
      logout: () => toLogin(),
    });
    setInterval(tick, 250);
  }

  main().catch((err) => console.error(err));
})();
