"""``paizhuo demo``: a small event, or one Big Two table, played through and told on the terminal.

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
Screenshots of each seat at the key moments (明牌, 加倍, the first play, 报单, the result)
are written as PNG files to a folder the demo names.

``--terminal`` plays the same deal with the engine and the bots alone (no firmware, no hub),
which is what the quick tests use.  The deal comes from the event's HMAC deal generator
(:mod:`paizhuo.venue.deals`) with a demo secret derived from the seed.
"""

import hashlib
import unicodedata

from paizhuo_shared.bigtwo import KIND_NAMES_ZH
from paizhuo_shared.cards import pretty

from .bots.bigtwo import BigTwoBot
from .rules.bigtwo import SEAT_NAMES_ZH, SEATS, BigTwo
from .venue import deals

SEAT_LABEL = {s: "%s %s" % (SEAT_NAMES_ZH[s], s) for s in SEATS}


def _pad(text, width):
    """Left-align ``text`` in ``width`` terminal columns (Chinese characters take two)."""
    cols = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - cols)


def _cards(codes):
    return " ".join(pretty(c) for c in codes) if codes else "—"


def demo_secret(seed):
    """The demo's event secret: a fixed function of the seed (an event uses 32 random bytes)."""
    return hashlib.sha256(b"paizhuo demo secret|%d" % seed).digest()


def demo_record(seed, board=1):
    """The demo deal as the venue records it (round 1, group 1), hash included."""
    return deals.deal(demo_secret(seed), "bigtwo", 1, 1, board)


def seeded_deal(seed, board=1):
    """The Big Two engine deal of board ``board`` from the event deal generator, seeded by ``seed``."""
    return demo_record(seed, board).to_engine_deal()


class Narrator:
    """Tells a deal on the terminal: the hands, every 明牌/加倍 choice, every play, 报单 and
    the scored result.  Fed with each applied action and the events the engine returned."""

    def __init__(self, out=print):
        self.out = out

    def opening(self, game, deal):
        out = self.out
        out("Board %s — 竞技锄大地, seeded deal" % deal.board)
        for seat in SEATS:
            out("  %s  %s" % (SEAT_LABEL[seat], _cards(game.view(seat)["hand"])))
        out("首家 (holds ♦3): %s" % SEAT_LABEL[deal.first_seat])
        out("")
        out("明牌 (show hand), decided together:")

    def action(self, action, events):
        out = self.out
        if action.type == "show":
            out("  %s %s" % (SEAT_LABEL[action.seat], "明牌 shows" if action.yes else "不明牌 keeps it hidden"))
        for ev in events:
            kind = ev["type"]
            if kind == "shown":
                for s, hand in sorted(ev["hands"].items()):
                    out("  shown: %s %s" % (SEAT_LABEL[s], _cards(hand)))
            elif kind == "phase" and ev["phase"] == "double":
                out("")
                out("加倍 (double), one by one from %s:" % SEAT_LABEL[ev["turn"]])
            elif kind == "double":
                out("  %s %s" % (SEAT_LABEL[ev["seat"]], "加倍 doubles" if ev["yes"] else "不加倍 does not double"))
            elif kind == "phase" and ev["phase"] == "play":
                out("")
                out("Play (%s leads with ♦3):" % SEAT_LABEL[ev["turn"]])
            elif kind == "play":
                out("  %s  %s %s (%s), %d left" % (
                    SEAT_LABEL[ev["seat"]], _pad(_cards(ev["cards"]), 16), ev["kind"], KIND_NAMES_ZH[ev["kind"]],
                    ev["left"]))
            elif kind == "pass":
                out("  %s  过 pass" % SEAT_LABEL[ev["seat"]])
            elif kind == "report":
                out("  ** 报单: %s has one card left **" % SEAT_LABEL[ev["seat"]])
            elif kind == "round_end":
                out("  — round over, %s leads —" % SEAT_LABEL[ev["leader"]])

    def result(self, r):
        out = self.out
        out("")
        out("Result: %s went out." % SEAT_LABEL[r.winner])
        out("  " + "".join(_pad(h, w) for h, w in (("seat", 7), ("left", 6), ("♠2", 5), ("明牌", 6), ("加倍", 6),
                                                      ("牌分", 6), ("score", 8), ("place", 5))))
        for s in SEATS:
            out("  %s%4d  %s%s%s%4d  %6d  %5d" % (
                _pad(SEAT_LABEL[s], 7), r.cards_left[s], _pad("yes" if "2S" in r.hands_left[s] else "", 5),
                _pad("yes" if r.shown[s] else "", 6), _pad("yes" if r.doubled[s] else "", 6), r.points[s],
                r.scores[s], r.places[s]))
        out("  scores sum to %d" % sum(r.scores.values()))


def play_deal(deal, bots, out=print):
    """Play ``deal`` with one bot per seat, narrating every event through ``out``; return the state."""
    game = BigTwo(deal)
    tell = Narrator(out)
    tell.opening(game, deal)
    while game.phase != "over":
        seat = game.to_act()[0]
        action = bots[seat].choose(game.view(seat), game.legal_actions(seat))
        tell.action(action, game.apply(action))
    tell.result(game.result())
    return game


def main(seed=2026, board=1, out=print, terminal=False, folder=None, table=False, stay=False, tables=4, rounds=2,
         boards=2):
    if terminal:
        return terminal_demo(seed, board, out)
    if table:
        return table_demo(seed, board, folder, out)
    return event_demo(seed, folder, out, stay=stay, tables=tables, rounds=rounds, boards=boards)


def _run_folder(folder, kind):
    import datetime
    import os

    if folder is None:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
        folder = os.path.join("demo-out", "%s-%s" % (kind, stamp))
    return os.path.abspath(folder)  # printed for the user to open, whatever the working folder


def event_demo(seed=2026, folder=None, out=print, stay=False, tables=4, rounds=2, boards=2, pin="2468"):
    """The venue, one firmware table and bot tables play ``rounds`` rounds; returns the folder."""
    import os
    import time

    from .sim.event import SimEvent

    folder = _run_folder(folder, "event")
    out("paizhuo demo: a small event — the venue service, %d table hubs over MQTT, %d rounds of %d boards"
        % (tables, rounds, boards))
    out("  run folder: %s" % folder)
    ev = SimEvent(folder, tables=tables, rounds=rounds, boards=boards, seed=seed, pin=pin)
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

    with ev:
        out("  building the firmware, starting the venue and the hubs ...")
        standings_url, console_url = ev.start(on_step=lambda text: out("  " + text))
        out("")
        out("  public standings 成绩公告:  %s" % standings_url)
        out("  referee console 裁判台:     %s   (demo PIN %s)" % (console_url, pin))
        out("")
        started = time.monotonic()
        ev.run(on_checkin=on_checkin, on_action=on_action)
        out("")
        out("The event is complete (%.0f s). Final standings (from %sstandings.json):" % (
            time.monotonic() - started, standings_url))
        final = ev.standings()
        for p in final.get("players", [])[:len(final.get("players", []))]:
            out("  %3s  %-6s %s  R %s  MP %s" % (p.get("rank"), p.get("player"), _pad(p.get("name", ""), 8),
                                                 p.get("R"), p.get("mp")))
        for r in range(1, rounds + 1):
            out("Hand records of round %d: %srecords/%d (JSON: %srecords/%d.json)" % (r, standings_url, r, standings_url, r))
        out("Screenshots of table 1's East seat at check-in (%d PNG files): %s" % (len(taken), shots))
        if stay:
            out("")
            out("Staying up (--stay): the pages are served until Ctrl-C.")
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
    return folder


def table_demo(seed=2026, board=1, folder=None, out=print):
    """A table of hub + four firmware seats plays board ``board``; returns the folder of the run."""
    import os

    from .rules.bigtwo import Action, Deal
    from .sim.table import SimTable

    folder = _run_folder(folder, "table")
    shots = os.path.join(folder, "screenshots")
    secret = demo_secret(seed).hex()
    out("paizhuo demo: table 7 — the hub and four seat boards (MicroPython firmware) on pty serial links")
    out("  run folder: %s" % folder)
    players = {"E": ("P001", "张伟"), "N": ("P002", "王芳"), "W": ("P003", "李娜"), "S": ("P004", "刘洋")}
    table = SimTable(folder, boards=str(board), secret=secret, players=players)
    mirror = {}
    tell = Narrator(out)

    def on_action(history, entry):
        k = entry.body["deal"]
        if mirror.get("deal") != k:
            d = history.deals[k]
            out("Deal hash (each table's result carries it; published after the round): %s" % d.deal_hash)
            mirror["deal"], mirror["game"] = k, BigTwo(Deal.from_dict(d.game.deal.to_dict(), board=d.board), d.game.rules)
            tell.opening(mirror["game"], mirror["game"].deal)
        action = Action.from_dict(entry.body["action"])
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
    out("  the hub's logged scores: %s — %s" % (", ".join("%s %d" % (s, logged[s]) for s in SEATS),
        "the same as this replay" if same else "DIFFERENT from this replay: report it"))
    if not same:
        raise SystemExit(1)
    out("")
    out("Screenshots (%d PNG files, one per seat per moment): %s" % (len(taken), shots))
    out("Event log (hash-chained SQLite): %s — check it with: paizhuo hub verify --log %s" % (
        table.log_path, table.log_path))
    return folder


def terminal_demo(seed=2026, board=1, out=print):
    record = demo_record(seed, board)
    out("Deal hash (each table's result carries it; published after the round): %s" % record.hash)
    deal = record.to_engine_deal()
    bots = {seat: BigTwoBot(seed * 10 + i) for i, seat in enumerate(SEATS)}
    return play_deal(deal, bots, out)
