"""``paizhuo demo``: a small event, or one table, played through and told on the terminal.

By default the demo runs a small event on this machine (:mod:`paizhuo.sim.event`): the venue
service with its embedded MQTT broker and web pages, one real table (hub + four firmware seat
boards on pty links, whose simulated players check in on the keypad and play by touch) and
bot tables, two rounds with Swiss movement in between.  It prints where the public standings
and the referee console are served and ends by itself after the last round (``--stay`` keeps
the pages up until Ctrl-C).

``--table`` runs a whole table on this machine (:mod:`paizhuo.sim.table`): the
``paizhuo hub`` process, four pty serial links and four seat boards running the real
firmware under the MicroPython unix port.  Bots play by touching the seats' screens; every
move goes touch → seat firmware → signed frame → hub → engine → event log → every seat.
Screenshots of each seat at the key moments of the game (the result among them) are written
as PNG files to a folder the demo names.

``--terminal`` plays the same deal with the engine and the bots alone (no firmware, no hub),
which is what the quick tests use.  Both play the registry's default game and tell it with the
game's own narrator (``rules.game(name).narrator``); the event demo plays any game (``--game``).  The deal comes from the event's HMAC deal generator
(:mod:`paizhuo.venue.deals`) with a demo secret derived from the seed.
"""

import hashlib

from . import rules as rules_
from .rules.common import SEAT_NAMES_ZH
from .rules.common import pad as _pad
from .venue import deals

SEAT_LABEL = {s: "%s %s" % (SEAT_NAMES_ZH[s], s) for s in SEAT_NAMES_ZH}


def demo_secret(seed):
    """The demo's event secret: a fixed function of the seed (an event uses 32 random bytes)."""
    return hashlib.sha256(b"paizhuo demo secret|%d" % seed).digest()


def demo_record(seed, board=1, game=None):
    """The demo deal of ``game`` (None: the registry's default) as the venue records it (round 1,
    group 1), hash included."""
    return deals.deal(demo_secret(seed), game or rules_.DEFAULT_GAME, 1, 1, board)


def seeded_deal(seed, board=1, game=None):
    """The engine deal of board ``board`` of ``game`` (None: the registry's default) from the
    event deal generator, seeded by ``seed``."""
    return rules_.game(game or rules_.DEFAULT_GAME).deal_for(demo_record(seed, board, game))


def play_deal(deal, bots, out=print, game=None):
    """Play ``deal`` (an engine deal of ``game``, None: the registry's default) with one bot per
    seat, narrating every event through the game's narrator; return the state."""
    g = _narrated(game)
    state = g.state(deal)
    tell = g.narrator(out)
    tell.opening(state, deal)
    while state.phase != g.engine.OVER:
        seat = state.to_act()[0]
        action = bots[seat].choose(state.view(seat), state.legal_actions(seat))
        tell.action(action, state.apply(action))
    tell.result(state.result())
    return state


def _narrated(game=None):
    """The registry's game ``game`` (None: the default), which must have a terminal narrator."""
    g = rules_.game(game or rules_.DEFAULT_GAME)
    if g.narrator(lambda line: None) is None:
        raise ValueError("the game %r has no terminal narrator (--terminal, --table)" % g.name)
    return g


# Whatever ends the demo ends every process it started (venue, hubs, seats, socat): these
# signals unwind the `with` blocks that stop them, as Ctrl-C does.
END_SIGNALS = ("SIGTERM", "SIGHUP", "SIGINT")


class Ended(KeyboardInterrupt):
    """The demo was asked to end by a signal (SIGTERM, SIGHUP, SIGINT)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _end_on_signals():
    import signal

    def ended(signum, frame):
        for name in END_SIGNALS:   # a second signal must not cut the clean-up short
            signal.signal(getattr(signal, name), signal.SIG_IGN)
        raise Ended(signum)

    for name in END_SIGNALS:
        signal.signal(getattr(signal, name), ended)


def main(seed=2026, board=1, out=print, terminal=False, folder=None, table=False, stay=False, tables=4, rounds=2,
         boards=2, pace=None, game=None, format=None):
    """Run the demo; returns the exit code (0, or 128 + the signal that ended an unfinished run)."""
    if terminal:
        terminal_demo(seed, board, out)
        return 0
    _end_on_signals()
    try:
        if table:
            table_demo(seed, board, folder, out)
        else:
            event_demo(seed, folder, out, stay=stay, tables=tables, rounds=rounds, boards=boards, pace=pace, game=game,
                       format=format)
    except Ended as e:
        out("paizhuo demo: ended by signal %d before the end; every process it started is stopped" % e.signum)
        return 128 + e.signum
    return 0


def _run_folder(folder, kind):
    import datetime
    import os

    if folder is None:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
        folder = os.path.join("demo-out", "%s-%s" % (kind, stamp))
    return os.path.abspath(folder)  # printed for the user to open, whatever the working folder


# A match game's demo: matches of a few deals (a match to A takes an hour of real play).
DEMO_MATCH_RULES = {"max_deals": 3}


def event_demo(seed=2026, folder=None, out=print, stay=False, tables=4, rounds=2, boards=2, pin="246810", pace=None,
               game=None, format=None):
    """The venue, one firmware table and bot tables play ``rounds`` rounds; returns the folder.

    ``pace``: seconds each bot waits before it plays (the bot tables' think time, and a pause
    after every move at the firmware table), to watch the event in a browser.  ``game``:
    another game the table hubs play (the registry's); a game whose board is a match runs as a
    ``format`` ``"pairs"`` (default) or ``"teams"`` event of bot tables (odd pairs: a bye),
    matches of :data:`DEMO_MATCH_RULES` deals."""
    import os
    import time

    from .sim.event import SimEvent

    folder = _run_folder(folder, "event")
    if game is not None and rules_.game(game).match:
        fmt = format or "pairs"
        sides = min(tables * 2 + 1, 9) if fmt == "pairs" else tables // 2 * 2  # odd pairs: a bye each round
        out("paizhuo demo: a %s %s event — the venue service, %d table hubs over MQTT, %d rounds of one match "
            "(%d deals at most), %d %s paired by 积分编排" % (game, fmt, tables, rounds, DEMO_MATCH_RULES["max_deals"],
                                                          sides, fmt))
        # a match is hundreds of plays: the bots think 10 ms unless --pace; a teams group is both rooms of a match
        # (a pairs table keeps event.toml's default group; the seeded bots make tables on the same deals differ)
        ev = SimEvent(folder, tables=tables, rounds=rounds, seed=seed, pin=pin, game=game, format=fmt, sides=sides,
                      rules=DEMO_MATCH_RULES, firmware_table=False, bot_think_seconds=0.01 if pace is None else pace,
                      tables_per_group=None if fmt == "pairs" else 2)
    else:
        out("paizhuo demo: a small event — the venue service, %d table hubs over MQTT, %d rounds of %d boards"
            % (tables, rounds, boards))
        extra = {} if pace is None else {"bot_think_seconds": pace}
        # table 1 has firmware seats when its players can play the game by touch; else every table is bots
        from .sim.table import can_touch
        ev = SimEvent(folder, tables=tables, rounds=rounds, boards=boards, seed=seed, pin=pin, game=game,
                      firmware_table=can_touch(game or rules_.DEFAULT_GAME), **extra)
    out("  run folder 运行文件夹: %s" % folder)
    shots = os.path.join(folder, "screenshots")
    taken = []

    def on_checkin(rnd, seat, player, stage):
        if stage == "after":
            out("  round %d, table 1 %s: %s typed player number %d on the seat's keypad — checked in"
                % (rnd.round, SEAT_LABEL[seat], player["name"], player["no"]))
        if seat == "E":
            path, _ = ev.sim.screenshot(seat, os.path.join(shots, "round%d-checkin-%s-%s.png" % (rnd.round, stage, seat)))
            taken.append(path)

    deals_seen = set()

    def on_action(history, entry):
        k = entry.body["deal"]
        if k not in deals_seen:
            deals_seen.add(k)
            d = history.deals[k]
            out("  table 1: deal %d (board %s) started, deal hash %s…" % (k + 1, d.board, d.deal_hash[:16]))
        if pace:
            time.sleep(pace)   # the firmware table's players take their time too

    with ev:
        out("  building the firmware, starting the venue and the hubs ...")
        standings_url, console_url = ev.start(on_step=lambda text: out("  " + text))
        out("")
        out("  public standings 成绩公告:  %s" % standings_url)
        out("  referee console 裁判台:     %s   (demo PIN %s)" % (console_url, pin))
        out("  (served while the demo runs%s / 演示运行期间可访问%s)" % (
            " and after it, until you stop it" if stay else "; --stay keeps them up after the event",
            "，结束后仍保留，直到停止演示" if stay else "；加 --stay 可在赛后继续访问"))
        if not pace:
            out("  (to watch it in a browser, slow it down: paizhuo demo --pace 2 / 想在浏览器里观看，可加 --pace 2 放慢)")
        out("  broker logins 代理登录 (one password file per hub, checked by the embedded broker): %s" % ev.credentials)
        out("")
        started = time.monotonic()
        ev.run(on_checkin=on_checkin, on_action=on_action)
        out("")
        out("The event is complete (%.0f s). Final standings (from %sstandings.json):" % (
            time.monotonic() - started, standings_url))
        final = ev.standings()
        for line in standings_lines(final.get("players", [])):
            out(line)
        for r in final.get("sides", []):  # a match event ranks sides by 场分 and the tie-break chain
            out("  %3s  %-4s %s  场分 %-4s 级差分 %-4s %d-%d-%d  %s" % (
                r["rank"], r["side"], _pad(r["name"], 8), r["changfen"], r["jichafen"], r["wins"], r["draws"],
                r["losses"], " / ".join(r["players"])))
        saved = _save_pages(ev, folder, rounds)
        if stay:
            for r in range(1, rounds + 1):
                out("Hand records of round %d: %srecords/%d (JSON: %srecords/%d.json)"
                    % (r, standings_url, r, standings_url, r))
        if ev.sim is not None:
            out("Screenshots of table 1's East seat at check-in (%d PNG files): %s" % (len(taken), shots))
        _tell_run_folder(out, folder, ev, saved)
        if stay:
            out("")
            out("Staying up (--stay): the pages are served until Ctrl-C (or SIGTERM / SIGHUP) / 页面持续提供，按 Ctrl-C 结束")
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:   # Ctrl-C or an end signal (Ended): the normal end of --stay
                out("paizhuo demo: stopping the venue, the hubs and the seats / 正在停止场地、桌机与座位")
        else:
            out("The pages stop with the demo (--stay keeps them up); the records above are saved in the run folder.")
            out("页面随演示结束而停止（加 --stay 可保留）；上面的牌局记录已保存在运行文件夹中。")
    return folder


def standings_lines(players):
    """The final standings, one line per player; where a rank was decided among players of the
    same R, the tie-break that decided it and its value (issue: "both R 58.3").

    >>> for line in standings_lines([
    ...         {"rank": 1, "player": "P1", "name": "甲", "R": 58.3, "mp": 7, "decided_by": "opponents_beaten",
    ...          "opponents_beaten": {"mean_R": 44.63}},
    ...         {"rank": 2, "player": "P2", "name": "乙", "R": 58.3, "mp": 7, "decided_by": "opponents_beaten",
    ...          "opponents_beaten": {"mean_R": 39.26}},
    ...         {"rank": 3, "player": "P3", "name": "丙", "R": 40.0, "mp": 5, "decided_by": "R"}]):
    ...     print(line)  # doctest: +NORMALIZE_WHITESPACE
        1  P1     甲         R 58.3  MP 7   tie-break 同分决胜: mean R of opponents beaten 所胜对手平均成绩 44.63
        2  P2     乙         R 58.3  MP 7   tie-break 同分决胜: mean R of opponents beaten 所胜对手平均成绩 39.26
        3  P3     丙         R 40.0  MP 5
    """
    from .venue.scoring import STEP_TEXT
    values = {"opponents_beaten": lambda p: (p.get("opponents_beaten") or {}).get("mean_R"),
              "places": lambda p: "-".join(str(n) for n in p.get("places") or []),
              "think_total": lambda p: "%.1f s" % (p.get("think_ms", 0) / 1000.0),
              "think_trimmed": lambda p: "%.1f s" % (p.get("think_trimmed_ms", 0) / 1000.0),
              "playoff": lambda p: ""}
    tied_r = {}
    for p in players:
        tied_r[p.get("R")] = tied_r.get(p.get("R"), 0) + 1
    lines = []
    for p in players:
        line = "  %3s  %-6s %s  R %s  MP %s" % (p.get("rank"), p.get("player"), _pad(p.get("name", ""), 8),
                                              p.get("R"), p.get("mp"))
        step = p.get("decided_by")
        if tied_r[p.get("R")] > 1 and step in values:
            en, zh = STEP_TEXT[step]
            line = "%-40s   tie-break 同分决胜: %s %s %s" % (line, en, zh, values[step](p))
        lines.append(line.rstrip())
    return lines


def _save_pages(ev, folder, rounds):
    """The final standings and each round's hand records (JSON and the page), saved in
    ``folder/records`` while the venue still serves them; the saved paths."""
    import os
    import urllib.request

    where = os.path.join(folder, "records")
    os.makedirs(where, exist_ok=True)
    base = ev.urls[0].rstrip("/")
    saved = []
    pages = [("/standings.json", "standings.json"), ("/", "standings.html")]
    for r in range(1, rounds + 1):
        pages += [("/records/%d.json" % r, "round-%d.json" % r), ("/records/%d" % r, "round-%d.html" % r)]
    for path, name in pages:
        with urllib.request.urlopen(base + path, timeout=10) as page:
            data = page.read()
        target = os.path.join(where, name)
        with open(target, "wb") as f:
            f.write(data)
        saved.append(target)
    return saved


def _tell_run_folder(out, folder, ev, saved):
    import os
    out("")
    out("Run folder 运行文件夹: %s" % folder)

    def rel(path):
        return os.path.relpath(str(path), folder)

    out("  venue store 场地数据库:   %s   (paizhuo venue check --event %s)" % (rel(ev.folder / "venue.sqlite"),
                                                                          rel(ev.event_path)))
    out("  venue log 场地日志:       %s" % rel(ev.venue_output))
    out("  hubs' event logs 桌机日志: table-N/table.sqlite (paizhuo hub verify --log …), what each hub said: "
        "table-1/hub-*.txt, table-N/hub.txt")
    out("  records 牌局记录:         %s" % ", ".join(rel(p) for p in saved))
def table_demo(seed=2026, board=1, folder=None, out=print):
    """A table of hub + four firmware seats plays board ``board``; returns the folder of the run."""
    import os

    from .sim.table import SimTable

    g = _narrated()

    folder = _run_folder(folder, "table")
    shots = os.path.join(folder, "screenshots")
    secret = demo_secret(seed).hex()
    out("paizhuo demo: table 7 — the hub and four seat boards (MicroPython firmware) on pty serial links")
    out("  run folder: %s" % folder)
    players = {"E": ("P001", "张伟"), "N": ("P002", "王芳"), "W": ("P003", "李娜"), "S": ("P004", "刘洋")}
    table = SimTable(folder, boards=str(board), secret=secret, players=players)
    mirror = {}
    tell = g.narrator(out)

    def on_action(history, entry):
        k = entry.body["deal"]
        if mirror.get("deal") != k:
            d = history.deals[k]
            out("Deal hash (each table's result carries it; published after the round): %s" % d.deal_hash)
            deal = g.engine.Deal.from_dict(d.game.deal.to_dict(), board=d.board)
            mirror["deal"], mirror["game"] = k, g.state(deal, d.game.rules)
            tell.opening(mirror["game"], deal)
        action = g.engine.Action.from_dict(entry.body["action"])
        tell.action(action, mirror["game"].apply(action))

    taken = []

    def on_moment(name, seats):
        for seat in seats:
            path, _ = table.screenshot(seat, os.path.join(shots, "%s-%s.png" % (name, seat)))
            taken.append(path)

    with table:
        out("  building the firmware and starting the hub and the seats ...")
        table.start()
        out("  all four seats linked (signed frames, per-device keys); every move below is a touch on a seat")
        out("")
        history = table.play(seed=seed, on_action=on_action, on_moment=on_moment)
    replayed = mirror["game"].result()
    tell.result(replayed)
    logged = history.played[-1].result["result"]["scores"]
    same = logged == replayed.scores
    out("  the hub's logged scores: %s — %s" % (", ".join("%s %d" % (s, logged[s]) for s in g.seats),
        "the same as this replay" if same else "DIFFERENT from this replay: report it"))
    if not same:
        raise SystemExit(1)
    out("")
    out("Screenshots (%d PNG files, one per seat per moment): %s" % (len(taken), shots))
    out("Event log (hash-chained SQLite): %s — check it with: paizhuo hub verify --log %s" % (
        table.log_path, table.log_path))
    return folder


def terminal_demo(seed=2026, board=1, out=print):
    """The registry's default game's deal of ``seed`` played by its bots, told on the terminal."""
    g = _narrated()
    record = demo_record(seed, board, g.name)
    out("Deal hash (each table's result carries it; published after the round): %s" % record.hash)
    bots = {seat: g.new_bot(seed=seed * 10 + i) for i, seat in enumerate(g.seats)}
    return play_deal(g.deal_for(record), bots, out, g.name)
