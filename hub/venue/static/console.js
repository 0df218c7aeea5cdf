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
    hub_error: ["主机错误", "hub error"], result_too_big: ["成绩过大，无法上传：请到桌机导出", "result too big to send: export it at the hub"], deal_hash_mismatch: ["牌局校验不符", "deal hash mismatch"],
    deal_mismatch: ["轮次密钥与牌局不符，未开始", "round key does not give the spec's deals: not started"],
    hub_offline: ["主机离线", "hub offline"], hub_online: ["主机上线", "hub online"],
    login_burst: ["大量 PIN 码错误（有人在猜）", "burst of wrong PINs (someone is guessing)"],
    round_not_started: ["本轮未开始即报成绩，已暂扣", "result before the round started: held"],
    player_mismatch: ["座位与安排不符，已暂扣", "seats not as the spec: held"],
    chain_fork: ["桌机日志被改写", "hub log rewritten (chain fork)"],
    score_mismatch: ["成绩与牌谱重放不符，已暂扣", "score not as the record replays: held"],
    result_mismatch: ["结果与牌谱重放不符，已暂扣", "result not as the record replays: held"],
    rules_mismatch: ["所用规则与赛事不同，已暂扣", "played under other rules: held"],
    round_waiting: ["本轮已完成但有成绩被暂扣", "round complete, results held"],
    pairing_failed: ["下一轮无法编排（无论怎样都会重复相遇）", "next round cannot be paired without a repeat"],
  };
  const ACTION = {
    pause: "暂停", resume: "恢复", ack_alert: "确认警报", replace: "更换座位板", adjust: "更正成绩",
    release: "放行成绩", start_round: "开始本轮", close_board: "公开本副牌", forfeit: "判弃权", login: "登录", login_failed: "登录失败",
    login_locked: "登录已锁定", logout: "退出", hold: "扣留成绩", note: "发送提示",
  };
  const SCREEN = {
    checkin: "签到中 check-in", waiting: "等待开始 waiting", deal: "进行中 playing", paused: "已暂停 paused",
    result: "本副结束 deal over",
  };
  const STAGE = { requested: "（请求）", refused: "（被拒）", reply: "（桌机回复）" };
  Object.assign(ACTION, { adjust_deal: "更正整副成绩", reseat_round: "重新安排座位", ack_all: "确认全部警报",
                          clear_seating: "清除座位安排" });
  // A table's state as the venue derives it (hub/venue/console.py), in the order the counts show.
  const STATE = {
    playing: ["进行中", "playing", "good"], paused: ["已暂停", "paused", "warn"], offline: ["主机离线", "offline", "bad"],
    checkin: ["签到中", "check-in", ""], ready: ["已签到 待开始", "checked in, not started", ""],
    waiting: ["等待下一副", "waiting for the next deal", ""], finished: ["本轮完成", "round done", "good"],
    idle: ["空闲", "idle", ""],
  };
  const STATE_ORDER = Object.keys(STATE);
  const STEP = {
    R: ["成绩 R", "R"], opponents_beaten: ["所胜对手平均 R", "opponents beaten"], places: ["单副名次", "deal places"],
    think_total: ["总用时", "total time"], think_trimmed: ["去头尾平均用时", "trimmed mean time"], playoff: ["需加赛", "play-off"],
  };

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
  const state = { csrf: null, who: null, tables: new Map(), selected: null, detailBusy: false, detailDirty: false,
                  filter: "all", query: "", sort: "table", rounds: [], round: null, finished: false, alerts: [],
                  error: null, resortDue: false, results: null };

  // ---- talking to the server ----------------------------------------------------------------
  function toLogin() { location.assign("/referee/login"); }

  async function getJSON(url) {
    const r = await fetch(url, { credentials: "same-origin" });
    if (r.status === 401) { toLogin(); throw new Error("login needed"); }
    const data = await r.json();
    if (!r.ok) throw Object.assign(new Error(data.en || r.statusText), { data });
    return data;
  }

  function say(ok, zh, en, cause) {
    const box = document.getElementById("msg");
    box.className = ok ? "msg ok" : "msg err";
    const close = el("button", { type: "button", class: "quiet close", title: "关闭 dismiss", onclick: clearError }, "×");
    box.replaceChildren(bi(zh, en || ""), ok ? "" : close);
    box.hidden = false;
    clearTimeout(say.timer);
    state.error = ok ? null : (cause || {});
    if (ok) say.timer = setTimeout(() => { box.hidden = true; }, 6000);
  }

  function clearError() {
    state.error = null;
    const box = document.getElementById("msg");
    if (box.classList.contains("err")) box.hidden = true;
  }

  /* An error stays only while its cause does: a table's hub back online, the deal it could not
     pause now running, the form it came from edited. */
  function errorGone(row) {
    const e = state.error;
    if (!e || !e.table || e.table !== row.table) return;
    if ((e.code === "hub_offline" && row.online !== false) ||
        (e.code === "no_deal" && (row.state === "playing" || row.state === "paused")) ||
        (e.code === "no_reply" && row.online !== false && e.at && performance.now() - e.at > 2000)) clearError();
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
      say(false, data.zh || "操作被拒绝", data.en || "refused",
          { code: data.code, table: body && body.table, action, at: performance.now() });
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
    const form = typeof id === "string" ? document.getElementById(id) : id;
    // Editing the form that was refused takes its error away.
    form.addEventListener("input", () => { if (state.error && state.error.form === form) clearError(); });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const [action, body] = build(form);
      const button = form.querySelector("button[type=submit]");
      button.disabled = true;
      try {
        const done = await post(action, body);
        if (!done && state.error) state.error.form = form;
        if (done && after) after(form, done);
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

  function playerName(row, s) {
    const v = (row.seats || {})[s] || {};
    const p = v.player || {};
    return p.name !== undefined && p.name !== null ? String(p.name) : (p.id !== undefined ? String(p.id) : "");
  }

  function seatsCell(row) {
    const seats = row.seats || {};
    const turn = new Set(row.to_act || []);
    return el("td", { class: "seats-cell" }, el("div", { class: "seats" }, SEATS.filter((s) => seats[s]).map((s) => {
      const v = seats[s] || {};
      const p = v.player || {};
      const name = playerName(row, s);
      const bits = [el("b", {}, PZ.SEAT_ZH[s] || s), " ", name];
      if (v.bot || p.bot) bits.push(" AI");
      else if (v.checked === false) bits.push(el("span", { class: "tag warn" }, "未签到"));
      if (v.cards !== null && v.cards !== undefined) bits.push(el("span", { class: "left", title: "cards left 余牌" }, String(v.cards)));
      const title = [s, p.name, p.no !== undefined ? "#" + p.no : "", v.dev, v.online ? "online 在线" : "offline 离线",
                     v.checked ? "checked in 已签到" : "not checked in 未签到"].filter(Boolean).join(" · ");
      const cls = "seat " + (v.online || v.bot ? "on" : "off") + (turn.has(s) ? " turn" : "");
      return el("span", { class: cls, title, dataset: { seat: s } }, bits);
    })));
  }

  function stateCell(row) {
    const tags = [];
    const st = STATE[row.state] || [String(row.state || "—"), "", ""];
    const title = row.paused ? (row.paused.reason || "") + (row.paused.by ? " — " + row.paused.by : "") : null;
    tags.push(el("span", { class: "tag " + st[2], title, dataset: { state: row.state || "" } }, st[0] + " ", el("span", { class: "en" }, st[1])));
    if (row.state === "playing" && row.screen === "result") tags.push(el("span", { class: "tag" }, "本副结束 ", el("span", { class: "en" }, "deal over")));
    if (row.unacked) tags.push(el("span", { class: "tag warn", title: "outbox messages not yet acknowledged" }, "待确认 " + row.unacked));
    return el("td", {}, tags);
  }

  /* The seat to act and its player ("南 S · 王五"), never the hub's internal turn counter. */
  function turnText(row) {
    const to = row.to_act || [];
    if (!to.length) return "—";
    return to.map((s) => seat(s) + (playerName(row, s) ? " · " + playerName(row, s) : "")).join("、");
  }

  function boardsText(row) {
    const n = (row.boards || []).length;
    const done = row.boards_done !== undefined && row.boards_done !== null ? row.boards_done : row.deals_done;
    return n ? (done || 0) + "/" + n : "";
  }

  function rowNode(row) {
    const open = row.alerts_open || 0;
    const rb = [row.round ? "第" + row.round + "轮" : "", row.board ? "第" + row.board + "副" : ""].filter(Boolean).join(" · ");
    const tr = el("tr", {
      class: [state.selected === row.table ? "selected" : "", row.online === false ? "offline" : ""].join(" ").trim() || null,
      dataset: { table: row.table, state: row.state || "" }, onclick: () => select(row.table),
    },
      el("td", { class: "table-no" }, String(row.table), el("div", { class: "en hub" }, String(row.hub || "")),
        el("div", { class: "seen", dataset: { table: row.table } })),
      el("td", {}, rb || "—", el("div", { class: "done", title: "boards done 已完成副数" }, boardsText(row) ? "完成 " + boardsText(row) : "")),
      // data-turn: the hub's move counter, for tools that time the console (tests/bench/bench_console.py), not shown
      el("td", { class: "turn", dataset: { turn: row.turn === null || row.turn === undefined ? "" : String(row.turn) } }, turnText(row)),
      clockCell(row),
      seatsCell(row),
      el("td", { class: "num alerts-cell", dataset: { label: "警报 alerts" } }, open ? el("span", { class: "tag bad" }, String(open)) : "0"),
      stateCell(row));
    tr.hidden = !shown(row);
    return tr;
  }

  // ---- counts, filters and order -------------------------------------------------------------
  function shown(row) {
    if (state.filter === "calls") { if (!callsAt(row.table)) return false; }
    else if (state.filter !== "all" && row.state !== state.filter) return false;
    const q = state.query.trim().toLowerCase();
    if (!q) return true;
    const names = SEATS.map((s) => playerName(row, s)).join(" ").toLowerCase();
    return String(row.table).toLowerCase() === q || String(row.table).toLowerCase().startsWith(q) || names.includes(q);
  }

  function callsAt(table) {
    return state.alerts.filter((a) => a.kind === "call" && !a.acked_by && String(a.table) === String(table)).length;
  }

  function renderSummary() {
    const counts = { all: state.tables.size, calls: state.alerts.filter((a) => a.kind === "call" && !a.acked_by).length };
    for (const r of state.tables.values()) counts[r.state] = (counts[r.state] || 0) + 1;
    const chips = [["all", "全部", "all", ""], ["playing", "进行中", "playing", "good"], ["paused", "已暂停", "paused", "warn"],
                   ["offline", "离线", "offline", "bad"], ["calls", "呼叫待处理", "calls waiting", "bad"],
                   ["finished", "本轮完成", "finished", "good"], ["checkin", "签到中", "check-in", ""], ["ready", "待开始", "ready", ""],
                   ["waiting", "等待下一副", "waiting", ""]];
    document.getElementById("summary").replaceChildren(...chips.filter(([k]) => ["all", "playing", "paused", "offline", "calls", "finished"].includes(k) || counts[k])
      .map(([k, zh, en, cls]) => el("button", {
        type: "button", class: "chip " + cls + (state.filter === k ? " on" : ""), dataset: { filter: k, count: String(counts[k] || 0) },
        "aria-pressed": state.filter === k ? "true" : "false",
        onclick: () => { state.filter = state.filter === k && k !== "all" ? "all" : k; applyFilter(); },
      }, el("b", {}, String(counts[k] || 0)), " " + zh + " ", el("span", { class: "en" }, en))));
  }

  function applyFilter() {
    let visible = 0;
    for (const tr of document.querySelectorAll("#tables tbody tr")) {
      const row = state.tables.get(tr.dataset.table);
      tr.hidden = !row || !shown(row);
      if (!tr.hidden) visible++;
    }
    document.getElementById("none-shown").hidden = visible > 0 || state.tables.size === 0;
    renderSummary();
  }

  function sortKey(row) {
    switch (state.sort) {
      case "state": return [STATE_ORDER.indexOf(row.state), 0];
      case "boards": return [row.boards_done || 0, 0];
      case "alerts": return [-(row.alerts_open || 0), 0];
      case "clock": return [row._clock ? remaining(row._clock) : Infinity, 0];
      default: return [0, 0];
    }
  }

  // One collator: localeCompare with options builds a new one at each call (seconds for 500 tables).
  const COLLATE = new Intl.Collator(undefined, { numeric: true }).compare;

  function compareRows(a, b) {
    const ka = sortKey(a), kb = sortKey(b);
    if (ka[0] !== kb[0]) return ka[0] < kb[0] ? -1 : 1;
    return COLLATE(String(a.table), String(b.table));
  }

  function resort() {
    state.resortDue = false;
    const body = document.querySelector("#tables tbody");
    const rows = [...body.children];
    rows.sort((x, y) => compareRows(state.tables.get(x.dataset.table) || {}, state.tables.get(y.dataset.table) || {}));
    body.replaceChildren(...rows);
  }

  function keepRow(row, now) {
    // The snapshot is this old when it reaches us (venue clock on both sides: no skew with this laptop).
    row._age = (now && row.last_seen) ? Math.max(0, now - row.last_seen) : 0;
    row._clock = clockOf(row);
    row._recv = performance.now();
    state.tables.set(row.table, row);
  }

  function putRow(row, now) {
    keepRow(row, now);
    const body = document.querySelector("#tables tbody");
    const fresh = rowNode(row);
    const old = body.querySelector('tr[data-table="' + CSS.escape(String(row.table)) + '"]');
    if (old) old.replaceWith(fresh);
    else {
      const after = [...body.children].find((tr) => compareRows(row, state.tables.get(tr.dataset.table) || {}) < 0);
      body.insertBefore(fresh, after || null);
    }
    if (state.sort !== "table") state.resortDue = true;
    document.getElementById("no-tables").hidden = state.tables.size > 0;
    errorGone(row);
    if (state.selected === row.table) detailChanged();
  }

  function glance(d) {
    state.rounds = d.rounds || state.rounds;
    state.round = d.round !== undefined ? d.round : state.round;
    state.finished = !!d.finished;
    // Every row at once, sorted once: hundreds of tables are drawn in one go.
    const rows = d.tables || [];
    for (const row of rows) keepRow(row, d.now);
    rows.sort(compareRows);
    document.querySelector("#tables tbody").replaceChildren(...rows.map(rowNode));
    document.getElementById("no-tables").hidden = state.tables.size > 0;
    for (const row of rows) errorGone(row);
    if (state.selected !== null && state.tables.has(state.selected)) detailChanged();
    renderRoundState();
    fillPicker();
    applyFilter();
  }

  /* The event's round: 签到中 / 进行中 / 本轮完成, and that the event is over after its last round. */
  function renderRoundState() {
    const box = document.getElementById("round-state");
    const r = state.rounds.find((x) => x.round === state.round);
    if (!r) { box.replaceChildren(); return; }
    const total = state.rounds.length ? Math.max(...state.rounds.map((x) => x.round)) : 0;
    let text;
    if (state.finished) text = bi("比赛已结束：共 " + total + " 轮全部完成", "the event is over: every round is complete");
    else if (r.closed) text = bi("第 " + r.round + " 轮已完成", "round " + r.round + " is complete");
    else if (!r.started) text = bi("第 " + r.round + " 轮尚未开始（签到、等待开始）", "round " + r.round + " has not started (check-in)");
    else text = bi("第 " + r.round + " 轮进行中 · 已完成 " + r.boards_done + "/" + r.boards_expected + " 副",
                   "round " + r.round + " in play · " + r.boards_done + " of " + r.boards_expected + " deals in");
    box.className = "round-state" + (state.finished ? " over" : "");
    box.dataset.round = String(r.round);
    box.dataset.finished = state.finished ? "1" : "0";
    box.replaceChildren(text);
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
    if (state.resortDue) resort();
    if (state.filterDue) { state.filterDue = false; applyFilter(); }
    for (const node of document.querySelectorAll("#alerts .waiting[data-alert]")) {
      const a = state.alerts.find((x) => String(x.id) === node.dataset.alert);
      if (a && a.waiting_ms !== null && a.waiting_ms !== undefined) node.textContent = waitText(a.waiting_ms + performance.now() - a._recv);
    }
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
      d.match ? el("span", { class: "tag match" }, " 一场 " + d.match.deals + " 局" + (d.match.levels ? " · 东西 " + d.match.levels.EW +
        " : 南北 " + d.match.levels.NS : "") + " ", el("span", { class: "en" }, "match of " + d.match.deals + " deals")) : null,
      el("table", { class: "grid" }, el("tbody", {}, SEATS.filter((s) => hands[s] || byseat[s]).map((s) => {
        const r = byseat[s] || {};
        const score = r.score !== undefined ? r.score : scores[s];
        const who = r.player !== undefined ? (names[r.player] ? names[r.player] + " (" + r.player + ")" : String(r.player)) : "";
        return el("tr", {},
          el("td", { class: "seat-col" }, seat(s)),
          el("td", { class: "seat-col" }, who),
          el("td", {}, cards(hands[s])),
          el("td", { class: "num" }, score === undefined ? "" : String(score)),
          el("td", {}, r.result_id ? el("a", { href: "#results-panel", title: "更正 correct",
            onclick: (e) => { e.preventDefault(); pick(r.round || state.round, d.table || state.selected); } }, "更正 ", el("span", { class: "en" }, "correct")) : ""));
      }))));
  }

  // ---- results of any round, picked by round and table; a deal corrected as a whole -------------
  function fillPicker() {
    const form = document.getElementById("pick-form");
    const rs = form.elements.round, ts = form.elements.table;
    const rounds = state.rounds.map((r) => String(r.round));
    if ([...rs.options].map((o) => o.value).join() !== rounds.join()) {
      const keep = rs.value;
      rs.replaceChildren(...rounds.map((r) => el("option", { value: r }, "第 " + r + " 轮 round " + r)));
      rs.value = rounds.includes(keep) ? keep : String(state.round || rounds[rounds.length - 1] || "");
    }
    const tables = [...state.tables.keys()].sort(COLLATE);
    if ([...ts.options].map((o) => o.value).join() !== ["", ...tables].join()) {
      const keep = ts.value;
      ts.replaceChildren(el("option", { value: "" }, "—"), ...tables.map((t) => el("option", { value: t }, "第 " + t + " 桌 table " + t)));
      ts.value = tables.includes(keep) ? keep : "";
    }
  }

  function pick(round, table) {
    const form = document.getElementById("pick-form");
    fillPicker();
    if (round) form.elements.round.value = String(round);
    if (table) form.elements.table.value = String(table);
    loadResults();
    document.getElementById("results-panel").scrollIntoView({ block: "start" });
  }

  async function loadResults() {
    const form = document.getElementById("pick-form");
    const round = form.elements.round.value, table = form.elements.table.value;
    const box = document.getElementById("results");
    if (!round || !table) return;
    try {
      const data = await getJSON("/referee/results.json?round=" + encodeURIComponent(round) + "&table=" + encodeURIComponent(table));
      state.results = data;
      renderResults(data);
    } catch (err) {
      const d = err.data || {};
      box.replaceChildren(el("p", { class: "msg err" }, bi(d.zh || "无法读取成绩", d.en || String(err.message))));
    }
  }

  function adjustedNote(list) {
    return (list || []).map((a) => el("div", { class: "adj-note" }, "已更正 ", el("span", { class: "en" }, "adjusted "),
      String(a.field) + " " + JSON.stringify(a.old) + " → " + JSON.stringify(a.new) + "：" + a.why + "（" + a.who + " " + PZ.time(a.at) + "）"));
  }

  function dealForm(d) {
    const form = el("form", { class: "deal-form", dataset: { board: String(d.board) } });
    const sum = el("span", { class: "sum" });
    const unb = el("label", { class: "unbalanced", hidden: true }, "合计改变的理由 ", el("span", { class: "en" }, "why the total may change"),
      el("input", { name: "unbalanced", placeholder: "如 罚分 e.g. a penalty" }));
    const rows = d.rows.map((r) => el("tr", { class: r.status === "held" ? "held" : (r.adjustments.length ? "adj" : null), dataset: { seat: r.seat } },
      el("td", { class: "seat-col" }, seat(r.seat)),
      el("td", {}, r.name ? r.name + " (" + r.player + ")" : String(r.player)),
      el("td", { class: "num" }, el("input", { name: "score-" + r.seat, type: "number", step: "1", value: String(r.score), class: "narrow",
                                                "aria-label": "score " + r.seat })),
      el("td", { class: "num" }, r.received !== r.score ? el("span", { class: "was", title: "as played 原始" }, String(r.received)) : ""),
      el("td", {}, r.status === "held" ? el("span", { class: "tag warn", title: JSON.stringify(r.held_why) }, "暂扣 held") : el("span", { class: "tag good" }, "计入 counted"),
        adjustedNote(r.adjustments))));
    const update = () => {
      let total = 0;
      for (const r of d.rows) total += parseInt(form.elements["score-" + r.seat].value || "0", 10) || 0;
      sum.textContent = "合计 sum " + total + (total !== d.played_sum ? "（打牌时 as played " + d.played_sum + "）" : "");
      sum.className = "sum" + (total !== d.played_sum ? " bad" : "");
      unb.hidden = total === d.played_sum;
    };
    form.append(
      el("div", { class: "deal-head" }, el("strong", {}, "第 " + d.board + " 副 · board " + d.board),
        d.adjusted ? el("span", { class: "tag warn" }, "已更正 adjusted") : null, d.held ? el("span", { class: "tag bad" }, "有暂扣 held") : null),
      el("table", { class: "grid" }, el("tbody", {}, rows)),
      el("div", { class: "act" }, sum, unb,
        el("input", { name: "reason", placeholder: "更正理由 reason (必填 required)" }),
        el("button", { type: "submit" }, "更正本副 ", el("span", { class: "en" }, "Correct the deal")),
        d.held ? el("button", { type: "button", class: "quiet release", onclick: () => releaseDeal(d, form) }, "放行 ", el("span", { class: "en" }, "Release")) : null));
    form.addEventListener("input", update);
    update();
    if ((d.actions || []).length) form.append(recordForm(d));
    onSubmit(form, (f) => {
      const scores = {};
      for (const r of d.rows) {
        const v = f.elements["score-" + r.seat].value;
        if (/^\s*-?\d+\s*$/.test(v) && parseInt(v, 10) !== r.score) scores[r.seat] = parseInt(v, 10);
      }
      const b = { round: d.round, table: d.table, board: d.board, scores, reason: f.elements.reason.value };
      if (f.elements.unbalanced.value.trim()) b.unbalanced = f.elements.unbalanced.value;
      return ["adjust_deal", b];
    }, (f, done) => { showWarning(done.reply && done.reply.warning); loadResults(); });
    return form;
  }

  /* The deal's record, one action a line, to correct and replay: the venue recomputes the scores. */
  function recordForm(d) {
    const text = "[\n" + d.actions.map((a) => JSON.stringify(a)).join(",\n") + "\n]";
    const form = el("form", { class: "record-form act" },
      el("textarea", { name: "actions", rows: "6", spellcheck: "false", "aria-label": "record" }, text),
      el("input", { name: "reason", placeholder: "重算理由 reason (必填 required)" }),
      el("button", { type: "submit" }, "按牌谱重算 ", el("span", { class: "en" }, "Recompute from the record")));
    onSubmit(form, (f) => {
      let actions = null;
      try { actions = JSON.parse(f.elements.actions.value); } catch (err) { actions = f.elements.actions.value; }
      return ["adjust_deal", { round: d.round, table: d.table, board: d.board, actions, reason: f.elements.reason.value }];
    }, (f, done) => { showWarning(done.reply && done.reply.warning); loadResults(); });
    return el("details", { class: "record" }, el("summary", {}, "从更正的牌谱重算 ", el("span", { class: "en" }, "recompute from a corrected record")), form);
  }

  async function releaseDeal(d, form) {
    const reason = form.elements.reason.value;
    for (const r of d.rows.filter((x) => x.status === "held")) {
      if (!(await post("release", { result_id: r.result_id, reason }))) return;
    }
    loadResults();
  }

  function renderResults(data) {
    const box = document.getElementById("results");
    box.dataset.round = String(data.round);
    box.dataset.table = String(data.table);
    box.replaceChildren(...(data.deals.length ? data.deals.map(dealForm)
      : [el("p", { class: "hint" }, "第 " + data.table + " 桌第 " + data.round + " 轮尚无成绩 ", el("span", { class: "en" }, "no result yet"))]));
  }

  /* A correction of a round whose standings already seated a later one: say so, offer to re-seat. */
  function showWarning(w) {
    const box = document.getElementById("results-warning");
    if (!w) { box.hidden = true; return; }
    const parts = [bi(w.zh, w.en)];
    if (w.can_reseat) {
      const form = el("form", { id: "reseat-form", class: "act" },
        el("input", { name: "reason", placeholder: "重新安排的理由 reason (必填 required)" }),
        el("button", { type: "submit" }, "重新安排第 " + w.round + " 轮座位 ", el("span", { class: "en" }, "Re-seat round " + w.round)));
      onSubmit(form, (f) => ["reseat_round", { round: w.round, reason: f.elements.reason.value }], () => { box.hidden = true; });
      parts.push(form);
    }
    box.dataset.round = String(w.round);
    box.replaceChildren(...parts);
    box.hidden = false;
  }

  // ---- standings for the referees: the tie-break value that decided a place, each board ---------
  function tiebreakText(p) {
    const t = p.tiebreak;
    if (p.playoff) return bi("需加赛", "play-off");
    if (!t) return "";
    const step = STEP[t.step] || [t.step, t.step];
    return bi(step[0] + " " + t.value, step[1]);
  }

  async function loadStandings() {
    let st, boards;
    try {
      st = await getJSON("/referee/standings.json");
      if (st.sides !== undefined) { renderStandings(st); return; }  // a match event ranks sides
      boards = await getJSON("/referee/boards.json");
    } catch (err) { return; }
    document.querySelector("#ref-standings tbody").replaceChildren(...(st.players || []).map((p) => el("tr", { dataset: { player: String(p.player) } },
      el("td", { class: "num" }, String(p.rank)),
      el("td", {}, p.name || String(p.player), (p.adjusted || []).length ? el("span", { class: "tag warn", title: p.adjusted.map((a) => a.label + ": " + a.why).join("; ") }, "已更正 adjusted") : null),
      el("td", { class: "num" }, p.R === null || p.R === undefined ? "—" : Number(p.R).toFixed(1)),
      el("td", { class: "tiebreak" }, tiebreakText(Object.assign({}, p, { tiebreak: tiebreakOf(p) }))),
      el("td", { class: "num" }, String(p.mp ?? "")))));
    state.boards = boards.boards || [];
    const sel = document.getElementById("board-pick");
    const keep = sel.value;
    sel.replaceChildren(...state.boards.map((b, i) => el("option", { value: String(i) }, "第" + b.round + "轮 第" + b.group + "组 第" + b.board + "副 · r" + b.round + " g" + b.group + " b" + b.board)));
    if (keep && +keep < state.boards.length) sel.value = keep;
    renderBoard();
  }

  /* The same value the public page shows (hub/venue/console.py tiebreak), from the full standings line. */
  function tiebreakOf(p) {
    const step = p.decided_by;
    if (!step || step === "playoff") return null;
    const ob = p.opponents_beaten || {};
    const secs = (ms) => (typeof ms === "number" ? (ms / 1000).toFixed(1) + " s" : null);
    const value = { R: p.R === null || p.R === undefined ? null : Number(p.R).toFixed(1),
                    opponents_beaten: ob.mean_R === null || ob.mean_R === undefined ? "0" : String(ob.mean_R),
                    places: (p.places || []).join("-"), think_total: secs(p.think_ms), think_trimmed: secs(p.think_trimmed_ms) }[step];
    return value === null || value === undefined ? null : { step, value };
  }

  function renderBoard() {
    const b = (state.boards || [])[+document.getElementById("board-pick").value || 0];
    const box = document.getElementById("board-breakdown");
    if (!b) { box.replaceChildren(el("p", { class: "hint" }, "尚无成绩 ", el("span", { class: "en" }, "no results yet"))); return; }
    box.replaceChildren(el("table", { class: "grid breakdown" },
      el("thead", {}, el("tr", {}, el("th", {}, "桌 Table"), el("th", {}, "座 Seat"), el("th", {}, "选手 Player"),
        el("th", { class: "num" }, "得分 Score"), el("th", { class: "num" }, "MP"), el("th", { class: "num" }, "名次 Place"))),
      el("tbody", {}, b.tables.flatMap((t) => t.rows.map((r, i) => el("tr", { class: r.adjusted ? "adj" : null },
        el("td", {}, i === 0 ? "第 " + t.table + " 桌" : ""), el("td", {}, seat(r.seat)), el("td", {}, r.name || String(r.player)),
        el("td", { class: "num" }, String(r.score), r.adjusted ? " ✎" : ""), el("td", { class: "num" }, String(r.mp)),
        el("td", { class: "num" }, String(r.place))))))));
  }

  // ---- alerts and audit --------------------------------------------------------------------
  function waitText(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    return s < 60 ? "等待 " + s + " 秒 waiting " + s + " s" : "等待 " + Math.floor(s / 60) + " 分 " + (s % 60) + " 秒 waiting " + Math.floor(s / 60) + " min";
  }

  function alertText(a) {
    const k = ALERT[a.kind] || [a.kind, a.kind];
    const f = a.fields || {};
    const where = (a.table == null ? "赛场 Venue" : "第 " + a.table + " 桌") + (f.seat ? " " + seat(f.seat) : "");
    const who = f.player && (f.player.name || f.player.id) ? String(f.player.name || f.player.id) : "";
    const board = f.board ? "第 " + (f.round ? f.round + " 轮第 " : "") + f.board + " 副" : "";
    const boardEn = f.board ? (f.round ? "round " + f.round + " " : "") + "board " + f.board : "";
    const boards = Array.isArray(f.boards) ? "round " + f.round + " boards " + f.boards.join(", ") : "";
    const more = [f.reason && f.reason !== a.kind ? f.reason : "", f.why, f.typed !== undefined ? "typed " + f.typed : "", f.dev, boards].filter(Boolean).join(" · ");
    // A held result's alert carries its reason in both languages (hub/venue/verify.py).
    return [[where, who, board, k[0]].filter(Boolean).join(" · ") + (f.zh ? " · " + f.zh : ""),
            [k[1], boardEn, more].filter(Boolean).join(" · ") + (f.en ? " · " + f.en : "")];
  }

  function renderAlerts(d) {
    const list = d.alerts || [];
    const now = performance.now();
    for (const a of list) a._recv = now;
    state.alerts = list;
    const open = list.filter((a) => !a.acked_by);
    const done = list.filter((a) => a.acked_by).slice(-10);
    const ul = document.getElementById("alerts");
    ul.replaceChildren(...open.concat(done.reverse()).map((a) => {
      const [zh, en] = alertText(a);
      const li = el("li", { class: a.acked_by ? "done" : "open", dataset: { alert: String(a.id), kind: a.kind } },
        el("span", {}, el("span", { class: "hint" }, PZ.time(a.at) + " "), zh, " ", el("span", { class: "en" }, en),
          a.acked_by ? null : el("span", { class: "waiting tag warn", dataset: { alert: String(a.id) } },
            a.waiting_ms === null || a.waiting_ms === undefined ? "" : waitText(a.waiting_ms))));
      if (a.acked_by) li.append(el("span", { class: "en" }, "已确认 acked by " + a.acked_by));
      else li.append(el("button", { type: "button", onclick: () => post("ack_alert", { alert: a.id }) }, "确认 ", el("span", { class: "en" }, "Acknowledge")));
      return li;
    }));
    document.getElementById("no-alerts").hidden = list.length > 0;
    const count = document.getElementById("alerts-count");
    count.textContent = open.length ? String(open.length) : "";
    count.className = open.length ? "tag bad" : "tag";
    document.getElementById("ack-all").hidden = open.length < 2;
    applyFilter();
  }

  function renderAudit(list) {
    const body = document.querySelector("#audit tbody");
    body.replaceChildren(...list.slice().reverse().map((a) => el("tr", { dataset: { action: a.action } },
      el("td", {}, PZ.time(a.at)),
      el("td", {}, String(a.who || "")),
      el("td", {}, actionLabel(a.action), " ", el("span", { class: "en" }, a.action)),
      el("td", { class: "detail" }, detailText(a.detail)))));
  }

  // ---- standings (every counted result: the referees') and the seat map --------------------------
  /* A match event's referee standings (one line per side), from the live stream or /referee/standings.json. */
  function renderStandings(st) {
    if (st.sides === undefined) return;
    document.getElementById("ref-standings").hidden = true;
    document.getElementById("board-pick").closest("h3").hidden = true;
    document.getElementById("ref-match-standings").hidden = false;
    document.querySelector("#ref-match-standings tbody").replaceChildren(...PZ.sideRows(st));
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
    const pf = document.getElementById("pick-form");
    pf.addEventListener("change", loadResults);
    pf.addEventListener("submit", (e) => { e.preventDefault(); loadResults(); });
    document.getElementById("ack-all").addEventListener("click", () => post("ack_all", {}));
    document.getElementById("find").addEventListener("input", (e) => { state.query = e.target.value; applyFilter(); });
    document.getElementById("sort").addEventListener("change", (e) => { state.sort = e.target.value; resort(); });
    document.getElementById("standings-refresh").addEventListener("click", loadStandings);
    document.getElementById("board-pick").addEventListener("change", renderBoard);
    onSubmit("start-form", (f) => {
      const v = f.elements.round.value;
      return ["start_round", { round: /^\d+$/.test(v) ? parseInt(v, 10) : v }];
    });
    // A board some table cannot finish: its scores go public now (docs/venue.md § What is public when).
    onSubmit("close-board-form", (f) => {
      const b = formBody(f, ["round", "group", "board", "reason"]);
      for (const k of ["round", "group", "board"]) if (/^\d+$/.test(b[k])) b[k] = parseInt(b[k], 10);
      return ["close_board", b];
    }, (f) => { f.reset(); });
    // A side (or both) did not play its match: the other side scores 场分 2, 级差分 17.
    onSubmit("forfeit-form", (f) => {
      const b = formBody(f, ["round", "table", "side", "reason"]);
      if (/^\d+$/.test(b.round)) b.round = parseInt(b.round, 10);
      return ["forfeit", b];
    }, (f) => { f.reset(); });
    document.getElementById("logout").addEventListener("click", async () => {
      await fetch("/referee/logout", { method: "POST", credentials: "same-origin", headers: { "X-CSRF": state.csrf || "" } });
      toLogin();
    });
  }

  async function main() {
    const s = await getJSON("/referee/session.json");
    state.csrf = s.csrf;
    state.who = s.who;
    PZ.setGames(s.games);
    // a three-seat game's event: the forms offer its seats only
    if (s.seats) document.querySelectorAll("select[name=seat] option").forEach((o) => { if (o.value && !s.seats.includes(o.value)) o.remove(); });
    document.getElementById("who").replaceChildren(bi(s.who, "referee 裁判"));
    if (s.event) document.getElementById("event").textContent = "· " + s.event;
    wire();
    const m = location.pathname.match(/^\/referee\/table\/([^/]+)$/);
    if (m) select(decodeURIComponent(m[1]));
    PZ.live("/referee/live", document.getElementById("live"), {
      glance: (d) => { glance(d); loadStandings(); if (state.results) loadResults(); },
      // hundreds of tables: counts and filters are redone at most four times a second (tick)
      table: (d) => { putRow(d.table, d.now); state.filterDue = true; },
      alerts: (d) => renderAlerts(d),
      audit: (d) => { renderAudit(d.audit || []); if ((d.audit || []).slice(-5).some((a) => CHANGES.test(a.action))) standingsSoon(); },
      standings: renderStandings,
      seatmap: (d) => document.getElementById("seatmap").replaceChildren(...PZ.seatMap(d)),
      logout: () => toLogin(),
    });
    setInterval(tick, 250);
    setInterval(loadStandings, 15000);
  }

  // Audit actions after which the standings differ (a correction, a release, a board made public, a re-seat).
  const CHANGES = /^(adjust|release|close_board|clear_seating|close_round|save_standings)$/;

  /* The referees' standings follow corrections at once, and new results every 15 s (they can be
     megabytes: not after every deal of hundreds of tables). */
  function standingsSoon() {
    if (standingsSoon.timer) return;
    standingsSoon.timer = setTimeout(() => { standingsSoon.timer = null; loadStandings(); }, 2000);
  }

  main().catch((err) => console.error(err));
})();
