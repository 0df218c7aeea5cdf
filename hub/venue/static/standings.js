/* Public standings (finished boards only) and the tables' status, replaced in place from /live/standings (SSE). */
"use strict";
(() => {
  const { el, bi } = PZ;
  const body = document.querySelector("#standings tbody");
  let lastRanks = new Map();

  /* The step that decided a place and its value (both R 58.3: the opponents' mean R 44.63 decided). */
  function decided(p, steps) {
    const step = steps[p.decided_by];
    if (p.playoff) return el("span", { class: "tag warn" }, "需加赛 ", el("span", { class: "en" }, "play-off"));
    const value = p.tiebreak ? el("b", { class: "tb-value" }, " " + p.tiebreak.value) : null;
    if (!step || p.decided_by === "R") return el("span", { class: "hint" }, "R", value);
    return el("span", { class: "tag", title: step.en }, step.zh, value, " ", el("span", { class: "en" }, step.en));
  }

  /* A corrected result is marked with the referee's reason. */
  function adjustedMark(p) {
    const list = p.adjusted || [];
    if (!list.length) return null;
    const what = list.map((a) => a.label + " " + a.field + " " + a.old + "→" + a.new).join("; ");
    const why = list.map((a) => a.why).join("；");
    return el("span", { class: "tag warn adjusted", title: what + "：" + why }, "裁判已更正：" + why + " ",
              el("span", { class: "en" }, "adjusted: " + what));
  }

  function playerCell(p, mark) {
    const name = p.name !== undefined && p.name !== null ? String(p.name) : String(p.player);
    const bits = [el("strong", {}, name)];
    if (p.no !== undefined && p.no !== null) bits.push(" ", el("span", { class: "en" }, "#" + p.no));
    else if (p.name !== undefined && String(p.name) !== String(p.player)) bits.push(" ", el("span", { class: "en" }, String(p.player)));
    if (mark) bits.push(" ", mark);
    return el("td", { class: "player" }, bits);
  }

  function render(st) {
    document.getElementById("event").textContent = st.event || "成绩排名";
    document.title = (st.event ? st.event + " · " : "") + "成绩排名 Standings";
    const round = document.getElementById("round");
    if (st.complete) {
      round.replaceChildren(bi("比赛已结束（共 " + (st.rounds || st.round) + " 轮）", "the event is over"));
    } else if (st.round && st.round_started === false) {
      round.replaceChildren(bi("第 " + st.round + " 轮（尚未开始）", "Round " + st.round + ", not started yet"));
    } else if (st.round && st.round_closed) {
      round.replaceChildren(bi("第 " + st.round + " 轮（已完成）", "Round " + st.round + ", complete"));
    } else if (st.round) {
      round.replaceChildren(bi("第 " + st.round + " 轮（进行中）", "Round " + st.round + ", in progress"));
    } else {
      round.replaceChildren(bi("尚未开始", "not started"));
    }
    const matches = st.sides !== undefined;  // a match event ranks sides by 场分
    const mbody = document.querySelector("#match-standings tbody");
    document.getElementById("standings").hidden = matches;
    document.getElementById("match-standings").hidden = !matches;
    if (matches) {
      document.getElementById("legend").textContent = "场分 2 / 1 / 0 · 轮空 1.5 · 级差分 13 ± 级差 (≤ 13) · 弃权 2 : 0, 17 : 0";
      const rows = PZ.sideRows(st);
      mbody.replaceChildren(...rows);
      document.getElementById("empty").hidden = rows.length > 0;
    }
    const ranks = new Map();
    const rows = (st.players || []).map((p) => {
      const key = String(p.player);
      ranks.set(key, p.rank);
      const moved = lastRanks.size > 0 && lastRanks.get(key) !== p.rank;
      const cls = [p.playoff ? "playoff" : "", moved ? "changed" : ""].join(" ").trim();
      return el("tr", { class: cls || null, dataset: { player: key } },
        el("td", { class: "num rank" }, String(p.rank)),
        playerCell(p, adjustedMark(p)),
        el("td", { class: "num R" }, p.R === null || p.R === undefined ? "—" : Number(p.R).toFixed(1)),
        el("td", { class: "num" }, String(p.mp)),
        el("td", { class: "num wide" }, String(p.deals ?? "")),
        el("td", {}, decided(p, st.steps || {})));
    });
    lastRanks = ranks;
    body.replaceChildren(...rows);
    if (!matches) document.getElementById("empty").hidden = rows.length > 0;
    const po = document.getElementById("playoffs");
    po.replaceChildren(...(st.playoffs || []).map((group) =>
      el("p", { class: "tag warn" }, "需加赛 play-off: " + group.join("、"))));
    // Hand records exist for every finished round.
    const done = st.round ? (st.complete ? st.round : st.round - 1) : 0;
    const links = [];
    for (let r = 1; r <= done; r++) {
      links.push(el("a", { href: "/records/" + r }, "第 " + r + " 轮牌谱 ", el("span", { class: "en" }, "round " + r + " records")));
    }
    document.getElementById("records").replaceChildren(...links);
    document.body.dataset.updated = String(performance.now());
    loadBoards();
  }

  // Every public board across its tables (never a board some table of its group still plays).
  let boards = [];
  async function loadBoards() {
    let data;
    try {
      const r = await fetch("/boards.json");
      data = await r.json();
    } catch (err) { return; }
    boards = data.boards || [];
    const sel = document.getElementById("board-pick");
    const keep = sel.value;
    sel.replaceChildren(...boards.map((b, i) => el("option", { value: String(i) }, "第" + b.round + "轮 第" + b.board + "副 · r" + b.round + " b" + b.board)));
    if (keep && +keep < boards.length) sel.value = keep;
    renderBoard();
  }

  function renderBoard() {
    const b = boards[+document.getElementById("board-pick").value || 0];
    document.getElementById("boards").hidden = !b;
    if (!b) return;
    document.getElementById("board-breakdown").replaceChildren(el("table", { class: "grid breakdown" },
      el("thead", {}, el("tr", {}, el("th", {}, "桌 ", el("span", { class: "en" }, "Table")), el("th", {}, "选手 ", el("span", { class: "en" }, "Player")),
        el("th", { class: "num" }, "得分 ", el("span", { class: "en" }, "Score")), el("th", { class: "num" }, "MP"),
        el("th", { class: "num" }, "名次 ", el("span", { class: "en" }, "Place")))),
      el("tbody", {}, b.tables.flatMap((t) => t.rows.map((r, i) => el("tr", {},
        el("td", {}, i === 0 ? "第 " + t.table + " 桌" : ""), el("td", {}, PZ.seat(r.seat) + " " + (r.name || String(r.player))),
        el("td", { class: "num" }, String(r.score), r.adjusted ? " ✎" : ""), el("td", { class: "num" }, String(r.mp)),
        el("td", { class: "num" }, String(r.place))))))));
  }
  document.getElementById("board-pick").addEventListener("change", renderBoard);

  // The tables: online, boards finished, in play or waiting — never which board or what was played.
  const STATE = {
    offline: ["离线", "offline"], idle: ["空闲", "idle"], checkin: ["签到中", "check-in"], waiting: ["等待", "waiting"],
    playing: ["进行中", "in play"], paused: ["暂停", "paused"], done: ["本轮已完成", "round done"],
  };
  function renderTables(msg) {
    const items = (msg.tables || []).map((t) => {
      const s = STATE[t.state] || [String(t.state), String(t.state)];
      return el("span", { class: "tag" + (t.state === "offline" ? " warn" : ""), dataset: { table: String(t.table), state: String(t.state) } },
        "第 " + t.table + " 桌 " + s[0] + " " + t.boards_done + "/" + t.boards + " ", el("span", { class: "en" }, s[1]));
    });
    document.getElementById("tables").replaceChildren(...items);
  }

  function renderSeats(map) { document.getElementById("seatmap").replaceChildren(...PZ.seatMap(map)); }

  PZ.live("/live/standings", document.getElementById("live"), { standings: render, tables: renderTables, seatmap: renderSeats });
})();
