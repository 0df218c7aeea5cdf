"""Benchmark: duplicate MP standings for a large individual field (issue #3 aim: 2,000 players ×
24 boards under one second).  Picked up by tests/bench/run.py; run alone with
``python tests/bench/bench_scoring.py [--quick]``.

The field is generated deterministically: players reseated at random for every board (so
everyone meets many table-mates and tie-break 1 has work), four seats per table, scores in a
Big Two-like range with plenty of ties, 2 % of results missing so Neuberg scaling runs.
"""

import random

from paizhuo.venue.scoring import standings
from timing import best_of  # noqa: E402  (tests/bench, beside this file)

AIM_SECONDS = 1.0


def field(players, boards, tables_per_group, seed=2026, missing=0.02):
    """Result rows of a seeded field: ``players`` (a multiple of 4) over ``boards`` boards."""
    rng = random.Random(seed)
    ids = ["p%04d" % i for i in range(players)]
    rows = []
    for board in range(1, boards + 1):
        rng.shuffle(ids)
        for t in range(players // 4):
            group = "G%d" % (t // tables_per_group + 1)
            for s, seat in enumerate("ENWS"):
                if rng.random() < missing:
                    continue
                rows.append({"player": ids[4 * t + s], "board": board, "seat": seat, "table": t + 1,
                             "group": group, "score": rng.randint(-120, 120) // 4,
                             "think_ms": rng.randint(30, 400) * 500})
    return rows


def section(quick):
    players, boards = (400, 12) if quick else (2000, 24)
    repeat = 1 if quick else 3
    lines = ["## Venue: duplicate MP standings", "",
             "`paizhuo.venue.scoring.standings`: validate every row, MP per (group, deal, seat) from one",
             "sort, Neuberg where results are missing, R, the whole tie-break chain, and the `Standings`",
             "value.  Seeded field: players reseated every board, 4 seats, ~2 %% of results missing.  Best of %d." % repeat,
             "", "| workload | time | per result |", "|---|---|---|"]
    met = True
    for label, tables_per_group in (("one group", players // 4), ("groups of 32 tables", 32)):
        rows = field(players, boards, tables_per_group)
        seconds, st = best_of(lambda: standings(rows), repeat)
        met = met and seconds < AIM_SECONDS
        lines.append("| %s players × %d boards, %s (%s results) | %.3f s | %.1f µs |" % (
            format(players, ","), boards, label, format(len(rows), ","), seconds, seconds / len(rows) * 1e6))
        if tables_per_group == 32:
            t_dict, _ = best_of(st.to_dict, repeat)
            t_csv, _ = best_of(st.to_csv, repeat)
            t_html, _ = best_of(st.to_html, repeat)
            lines.append("| the same standings rendered: JSON-ready dict / CSV / HTML | %.3f / %.3f / %.3f s | |"
                         % (t_dict, t_csv, t_html))
    if quick:
        lines += ["", "Quick run (%s players × %d boards): the aim is judged on the full run." % (
            format(players, ","), boards), ""]
    else:
        lines += ["", "Aim: standings for 2,000 players × 24 boards under %.0f s — %s." % (
            AIM_SECONDS, "met" if met else "NOT met"), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    print(section("--quick" in sys.argv))
