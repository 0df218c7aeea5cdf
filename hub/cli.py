"""The ``paizhuo`` command.

    paizhuo demo [--stay] [--out DIR]            a small event: venue + table hubs over MQTT, two rounds, web pages
    paizhuo demo --table [--seed N]              one table: hub + four firmware seats, bots play by touch
    paizhuo demo --terminal [--seed N]           one deal with the engine and bots alone
    paizhuo rules serve                          the rules oracle: JSON lines on stdin/stdout
    paizhuo rules classify bigtwo 3D 3S          what kind of play is this?
    paizhuo rules beats bigtwo --play 2D --over AS
    paizhuo rules legal bigtwo 3D 4D 3S ... [--over 5H] [--first-play] [--duty]
    paizhuo rules score bigtwo --left E="5D 6D" --left N= ... [--shown E] [--doubled E S]
    paizhuo deals --secret S --game bigtwo [--round 1] [--group 1] --boards 1-8   deals and hashes (JSON)
    paizhuo movement --round N --players players.json [--standings F] [--history F] [--secret S] ...
    paizhuo score --input results.json [--format json|csv|html] [--output F] [--expected N]   MP standings
    paizhuo guandan standings --input matches.json [--format json|csv]     Guandan match standings
    paizhuo guandan pair --round N --input matches.json --sides sides.json [--secret S]
    paizhuo hub --config table.toml              run a table hub (seats on serial ports)
    paizhuo hub verify --log table7.sqlite       hash chain and every deal's result by replay
    paizhuo provision board --dev S-0001 --out seat.json [--seat E]   a board's key file + its table.toml block
    paizhuo provision table --table 7 --hub T07 --devices S-0001:E,… --ports /dev/ttyACM0,… --out-dir DIR
    paizhuo provision check --config table.toml --board seat.json    does a board's file match its table?
    paizhuo broker config --event demo --hubs T01,T02 --out DIR [--port 1883]   production mosquitto files
    paizhuo broker check --dir DIR               verify them (passwords, ACL, modes, settings)
    paizhuo venue --event event.toml [--stay]    the venue service: results, standings, movement, console
    paizhuo venue check --event event.toml       check an event configuration (and its store)
    paizhuo venue pin                            the referees' PIN → its hash for event.toml
"""

import argparse
import json
import sys

from . import provision
from .mqtt import mosquitto as mqtt_broker
from .rules import oracle
from .table import cli as table_cli
from .venue import deals as venue_deals
from .venue import matches as guandan_matches
from .venue import movement as venue_movement
from .venue import score_cmd
from .venue import cli as venue_cli

# Commands that live beside their code: name → (help, (add_arguments(parser), run(args) → exit code)).
COMMANDS = {
    "deals": ("a round's seeded duplicate deals with their hashes (JSON)",
              (venue_deals.add_arguments, venue_deals.command)),
    "movement": ("the next round's seating (Swiss movement)", (venue_movement.add_arguments, venue_movement.command)),
    "score": ("duplicate MP scores and standings from results (JSON in)", (score_cmd.add_arguments, score_cmd.command)),
    "guandan": ("Guandan match events: standings and Swiss pairing",
                (guandan_matches.add_arguments, guandan_matches.command)),
    "hub": ("run a table hub (--config table.toml), verify its log, export its results",
            (table_cli.add_arguments, table_cli.run)),
    "provision": ("seat boards' keys and a table's table.toml (venue staff)",
                  (provision.add_arguments, provision.command)),
    "broker": ("the production mosquitto broker's files: config, passwords, ACL (venue staff)",
               (mqtt_broker.add_arguments, mqtt_broker.command)),
    "venue": ("run an event's venue service (--event event.toml); check it; make the referees' PIN hash",
              (venue_cli.add_arguments, venue_cli.run)),
}


def _seats(values):
    return {s: s in (values or []) for s in "ENWS"}


def _rules_json(text):
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise SystemExit("paizhuo: --rules must be a JSON object of rule options: %s" % e)
    return data


def _left(items):
    out = {}
    for item in items or []:
        seat, sep, cards = item.partition("=")
        if not sep or seat not in "ENWS" or len(seat) != 1:
            raise SystemExit("paizhuo: --left takes SEAT=CARDS, like --left E=\"5D 6D\" (seats E, N, W, S), not %r" % item)
        if seat in out:
            raise SystemExit("paizhuo: --left names seat %s twice" % seat)
        out[seat] = cards.replace(",", " ").split()
    missing = [s for s in "ENWS" if s not in out]
    if missing:
        raise SystemExit("paizhuo: --left must be given for every seat; missing %s (use E= for no cards)" % ", ".join(missing))
    return out


def _print_answer(ans):
    print(json.dumps(ans, ensure_ascii=False))
    return 0 if ans.get("ok") else 2


def main(argv=None):
    p = argparse.ArgumentParser(prog="paizhuo", description="Competition system for networked card events (牌桌).")
    sub = p.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="a simulated event (venue + table hubs over MQTT, two rounds); --table: one table; --terminal: one deal")
    demo.add_argument("--seed", type=int, default=2026, help="seed of the deal and the bots (default 2026)")
    demo.add_argument("--board", type=int, default=1, help="board number shown (default 1)")
    demo.add_argument("--terminal", action="store_true", help="engine and bots only, told on the terminal (no hub, no firmware)")
    demo.add_argument("--out", metavar="DIR", help="the run folder (default demo-out/event-<time> or table-<time>)")
    demo.add_argument("--table", action="store_true", help="one table only: hub + four firmware seats play one deal")
    demo.add_argument("--stay", action="store_true", help="keep the standings and the console served after the event")
    demo.add_argument("--tables", type=int, default=4, help="tables in the demo event (2-5, default 4)")
    demo.add_argument("--rounds", type=int, default=2, help="rounds in the demo event (default 2)")
    demo.add_argument("--boards", type=int, default=2, help="boards per round in the demo event (default 2)")

    rules = sub.add_parser("rules", help="the rules oracle")
    rsub = rules.add_subparsers(dest="rules_command", required=True)
    rsub.add_parser("serve", help="answer JSON requests, one per line on stdin, until EOF")
    for name, helptext in (("classify", "the kind of a play"), ("legal", "every legal play of a hand")):
        q = rsub.add_parser(name, help=helptext)
        q.add_argument("game")
        q.add_argument("cards", nargs="*")
        q.add_argument("--rules", help="rule options as JSON, e.g. '{\"straights\": \"no_two\"}'")
        if name == "legal":
            q.add_argument("--over", nargs="+", help="the play to beat")
            q.add_argument("--first-play", action="store_true", help="the 首攻: plays must contain ♦3")
            q.add_argument("--duty", action="store_true", help="报单 duty: a single must be the highest card")
    b = rsub.add_parser("beats", help="does one play beat another?")
    b.add_argument("game")
    b.add_argument("--play", nargs="+", required=True)
    b.add_argument("--over", nargs="+", required=True)
    b.add_argument("--rules")
    s = rsub.add_parser("score", help="card points and scores of a finished deal")
    s.add_argument("game")
    s.add_argument("--left", action="append", metavar="SEAT=CARDS", help="cards left in a seat's hand (every seat)")
    s.add_argument("--shown", nargs="*", metavar="SEAT", help="seats that showed their hand (明牌)")
    s.add_argument("--doubled", nargs="*", metavar="SEAT", help="seats that doubled (加倍)")
    s.add_argument("--rules")

    for name, (helptext, (add_arguments, _)) in COMMANDS.items():
        add_arguments(sub.add_parser(name, help=helptext))

    args = p.parse_args(argv)
    if args.command in COMMANDS:
        return COMMANDS[args.command][1][1](args)
    if args.command == "demo":
        from . import demo as demo_mod
        if args.board < 1:
            raise SystemExit("paizhuo demo: --board must be 1 or more, not %d" % args.board)
        if not 2 <= args.tables <= 5:
            raise SystemExit("paizhuo demo: --tables must be 2 to 5, not %d" % args.tables)
        if not 1 <= args.rounds <= 9 or not 1 <= args.boards <= 8:
            raise SystemExit("paizhuo demo: --rounds must be 1 to 9 and --boards 1 to 8")
        demo_mod.main(seed=args.seed, board=args.board, terminal=args.terminal, folder=args.out, table=args.table,
                      stay=args.stay, tables=args.tables, rounds=args.rounds, boards=args.boards)
        return 0
    rc = args.rules_command
    if rc == "serve":
        oracle.serve(sys.stdin, sys.stdout)
        return 0
    req = {"op": rc, "game": args.game}
    if getattr(args, "rules", None):
        req["rules"] = _rules_json(args.rules)
    if rc == "classify":
        req["cards"] = args.cards
    elif rc == "legal":
        req.update(hand=args.cards, over=args.over, first_play=args.first_play, duty=args.duty)
    elif rc == "beats":
        req.update(play=args.play, over=args.over)
    elif rc == "score":
        req.update(hands_left=_left(args.left), shown=_seats(args.shown), doubled=_seats(args.doubled))
        for name, seats in (("--shown", args.shown), ("--doubled", args.doubled)):
            bad = [x for x in seats or [] if x not in ("E", "N", "W", "S")]
            if bad:
                raise SystemExit("paizhuo: %s takes seats E, N, W, S, not %s" % (name, ", ".join(bad)))
    return _print_answer(oracle.answer(req))


if __name__ == "__main__":
    sys.exit(main())
