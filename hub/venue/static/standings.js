/* Public standings: one line per player, replaced in place from /live/standings (SSE). */
"use strict";
(() => {
  const { el, bi } = PZ;
  const body = document.querySelector("#standings tbody");
  let lastRanks = new Map();

  function decided(p, steps) {
    const step = steps[p.decided_by];
    if (p.playoff) return el("span", { class: "tag warn" }, "需加赛 ", el("span", { class: "en" }, "play-off"));
    if (!step || p.decided_by === "R") return el("span", { class: "hint" }, "R");
    return el("span", { class: "tag", title: step.en }, step.zh, " ", el("span", { class: "en" }, step.en));
  }

  function playerCell(p) {
    const name = p.name !== undefined && p.name !== null ? String(p.name) : String(p.player);
    const bits = [el("strong", {}, name)];
    if (p.no !== undefined && p.no !== null) bits.push(" ", el("span", { class: "en" }, "#" + p.no));
    else if (p.name !== undefined && String(p.name) !== String(p.player)) bits.push(" ", el("span", { class: "en" }, String(p.player)));
    return el("td", { class: "player" }, bits);
  }

  function render(st) {
    document.getElementById("event").textContent = st.event || "成绩排名";
    document.title = (st.event ? st.event + " · " : "") + "成绩排名 Standings";
    const round = document.getElementById("round");
    if (st.round) {
      round.replaceChildren(bi("第 " + st.round + " 轮" + (st.complete ? "（已完成）" : "（进行中）"),
                               "Round " + st.round + (st.complete ? ", complete" : ", in progress")));
    } else {
      round.replaceChildren(bi("尚未开始", "not started"));
    }
    const ranks = new Map();
    const rows = (st.players || []).map((p) => {
      const key = String(p.player);
      ranks.set(key, p.rank);
      const moved = lastRanks.size > 0 && lastRanks.get(key) !== p.rank;
      const cls = [p.playoff ? "playoff" : "", moved ? "changed" : ""].join(" ").trim();
      return el("tr", { class: cls || null, dataset: { player: key } },
        el("td", { class: "num rank" }, String(p.rank)),
        playerCell(p),
        el("td", { class: "num R" }, p.R === null || p.R === undefined ? "—" : Number(p.R).toFixed(1)),
        el("td", { class: "num" }, String(p.mp)),
        el("td", { class: "num" }, String(p.deals ?? "")),
        el("td", {}, decided(p, st.steps || {})));
    });
    lastRanks = ranks;
    body.replaceChildren(...rows);
    document.getElementById("empty").hidden = rows.length > 0;
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
  }

  PZ.live("/live/standings", document.getElementById("live"), { standings: render });
})();
