"""The ``paizhuo`` command.

    paizhuo demo [--stay] [--out DIR]            a small event: venue + table hubs over MQTT, two rounds, web pages
    paizhuo demo --table [--seed N]              one table: hub + four firmware seats, bots play by touch
    paizhuo demo --terminal [--seed N]           one deal with the engine and bots alone
    paizhuo rules serve                          the rules oracle: JSON lines on stdin/stdout
    paizhuo rules classify GAME CARDS ...        what kind of play is this?
    paizhuo rules beats GAME --play ... --over ...
    paizhuo rules legal GAME CARDS ... [--over ...]
    paizhuo rules score GAME --left E="5D 6D" --left N= ... [--shown E] [--doubled E S]
    paizhuo rules score GAME --winner E --hand ... [--open KIND:CARDS ...] [--self-drawn]   (word-card games)
    paizhuo rules huxi GAME --group KIND:CARDS ...     the 胡息 of groups (word-card games)
    paizhuo rules win GAME CARDS ... [--open KIND:CARDS ...]   the win check and its best arrangement
    paizhuo rules --help                         every game's own examples (its oracle's, via the registry)
    paizhuo deals --secret S --game GAME [--round 1] [--group 1] --boards 1-8   deals and hashes (JSON)
    paizhuo movement --round N --players players.json [--standings F] [--history F] [--secret S] ...
    paizhuo score --input results.json [--format json|csv|html] [--output F] [--expected N]   MP standings
    paizhuo matches standings --input matches.json [--format json|csv]     a match game's standings
    paizhuo matches pair --round N --input matches.json --sides sides.json [--secret S]
                                                 (also under the match game's name: paizhuo GAME ...)
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
    paizhuo venue players players.csv            [[players]] blocks for event.toml from a CSV / XLSX list
"""

import argparse
import json
import sys

from . import provision
from . import rules as rules_
from .argparse_zh import Parser
from .inputs import InputError, check_text, parse_json
from .mqtt import mosquitto as mqtt_broker
from .rules import oracle
from .table import cli as table_cli
from .venue import deals as venue_deals
from .venue import matches as venue_matches
from .venue import movement as venue_movement
from .venue import score_cmd
from .venue import cli as venue_cli

# Commands that live beside their code: name → (help, (add_arguments(parser), run(args) → exit code)).
COMMANDS = {
    "deals": ("a round's seeded duplicate deals with their hashes (JSON)",
              (venue_deals.add_arguments, venue_deals.command)),
    "movement": ("the next round's seating (Swiss movement)", (venue_movement.add_arguments, venue_movement.command)),
    "score": ("duplicate MP scores and standings from results (JSON in)", (score_cmd.add_arguments, score_cmd.command)),
    "matches": ("match events of %s: standings and Swiss pairing" % venue_matches.GAME,
                (venue_matches.add_arguments, venue_matches.command)),
    "hub": ("run a table hub (--config table.toml), verify its log, export its results",
            (table_cli.add_arguments, table_cli.run)),
    "provision": ("seat boards' keys and a table's table.toml (venue staff)",
                  (provision.add_arguments, provision.command)),
    "broker": ("the production mosquitto broker's files: config, passwords, ACL (venue staff)",
               (mqtt_broker.add_arguments, mqtt_broker.command)),
    "venue": ("run an event's venue service (--event event.toml); check it; make the referees' PIN hash",
              (venue_cli.add_arguments, venue_cli.run)),
}
# Other names of a command: the match game's own name runs its match events (as it always did).
ALIASES = {venue_matches.GAME: "matches"}


def _seats(values):
    return {s: s in (values or []) for s in "ENWS"}


def _fail(en, zh):
    """Refuse bad input on the command line: both languages on stderr, exit status 2."""
    print("paizhuo: %s" % en, file=sys.stderr)
    print("paizhuo: %s" % zh, file=sys.stderr)
    raise SystemExit(2)


def _rules_json(text):
    if text is None:
        return None
    try:
        data = parse_json(text, "--rules", max_bytes=oracle.MAX_LINE)
    except InputError as e:
        _fail("%s; --rules takes a JSON object of rule options" % e.en, "%s；--rules 应为规则选项的 JSON 对象" % e.zh)
    return data


def _check_argv(argv):
    # An argument that is not UTF-8 reaches Python as lone surrogates (surrogateescape), which no
    # file, terminal or database can take: refuse it here, once for every command.
    for i, arg in enumerate(argv):
        try:
            check_text(arg)
        except InputError as e:
            _fail("argument %d (%.40r): %s" % (i + 1, arg, e.en), "第 %d 个参数：%s" % (i + 1, e.zh))


def _left(items):
    out = {}
    for item in items or []:
        seat, sep, cards = item.partition("=")
        if not sep or seat not in "ENWS" or len(seat) != 1:
            _fail("--left takes SEAT=CARDS, like --left E=\"5D 6D\" (seats E, N, W, S), not %r" % item,
                  "--left 的格式是 座位=牌，例如 --left E=\"5D 6D\"（座位 E、N、W、S）")
        if seat in out:
            _fail("--left names seat %s twice" % seat, "--left 重复给出座位 %s" % seat)
        out[seat] = cards.replace(",", " ").split()
    missing = [s for s in "ENWS" if s not in out]
    if missing:
        _fail("--left must be given for every seat; missing %s (use E= for no cards)" % ", ".join(missing),
              "每个座位都要给出 --left；缺少 %s（没有剩牌写 E=）" % "、".join(missing))
    return out


def _groups_arg(items, option):
    """``KIND:CARDS`` arguments (cards separated by commas or spaces) → ``[{"kind", "cards"}]``."""
    out = []
    for item in items or []:
        kind, sep, cards = item.partition(":")
        if not sep or not kind:
            _fail("%s takes KIND:CARDS, like %s pao:d8,d8,d8,d8, not %r" % (option, option, item),
                  "%s 的格式是 组合:牌，例如 %s pao:d8,d8,d8,d8" % (option, option))
        out.append({"kind": kind, "cards": cards.replace(",", " ").split()})
    return out


def _print_answer(ans):
    print(json.dumps(ans, ensure_ascii=False))
    return 0 if ans.get("ok") else 2


GAME_HELP = "the game: %s" % ", ".join(sorted(rules_.GAMES))
LEVEL_HELP = "the rank being played, in a game played in levels, e.g. 5"
OPEN_HELP = "an open group, like pao:d8,d8,d8,d8 (kinds chi peng wei pao ti)"


def _rules_examples():
    """``paizhuo rules --help``'s examples: each game's own (its oracle's ``EXAMPLES``)."""
    lines = ["examples 示例 (each game's own, from the registry):"]
    for name in sorted(rules_.GAMES):
        for args, en, zh in rules_.game(name).examples:
            op, _, rest = args.partition(" ")
            lines.append("  paizhuo rules %s %s %s" % (op, name, rest))
            lines.append("      %s / %s" % (en, zh))
    return "\n".join(lines)


def build_parser():
    """The whole ``paizhuo`` command line (every sub-command), not yet parsed."""
    p = Parser(prog="paizhuo", description="Competition system for networked card events / 牌桌：联网牌类比赛系统。")
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
    demo.add_argument("--game", choices=sorted(g for g in rules_.GAMES if rules_.game(g).at_table), default=None,
                      help="the demo event's game (default %s); a game whose board is a match plays pairs or teams"
                      % rules_.DEFAULT_GAME)
    demo.add_argument("--format", choices=("pairs", "teams"), default=None,
                      help="a match game's event: pairs (default) or teams (open and closed rooms)")
    demo.add_argument("--pace", type=float, metavar="SECONDS",
                      help="seconds each bot waits before it plays (default 0.15; 2 to watch the event in a browser)")

    rules = sub.add_parser("rules", help="the rules oracle", epilog=_rules_examples(),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    rsub = rules.add_subparsers(dest="rules_command", required=True)
    rsub.add_parser("serve", help="answer JSON requests, one per line on stdin, until EOF")
    for name, helptext in (("classify", "the kind of a play"), ("legal", "every legal play of a hand")):
        q = rsub.add_parser(name, help=helptext)
        q.add_argument("game", help=GAME_HELP)
        q.add_argument("cards", nargs="*")
        q.add_argument("--rules", help="rule options as JSON, e.g. '{\"straights\": \"no_two\"}'")
        q.add_argument("--level", help=LEVEL_HELP)
        if name == "legal":
            q.add_argument("--over", nargs="+", help="the play to beat")
            q.add_argument("--over-kind", help="the meaning of --over, e.g. straight or straight:7 (wild-card games)")
            q.add_argument("--first-play", action="store_true", help="the 首攻: plays must contain ♦3")
            q.add_argument("--duty", action="store_true", help="报单 duty: a single must be the highest card")
    b = rsub.add_parser("beats", help="does one play beat another?")
    b.add_argument("game", help=GAME_HELP)
    b.add_argument("--play", nargs="+", required=True)
    b.add_argument("--over", nargs="+", required=True)
    b.add_argument("--rules")
    b.add_argument("--level", help=LEVEL_HELP)
    b.add_argument("--play-kind", help="the meaning of --play, e.g. bomb or straight:7 (wild-card games)")
    b.add_argument("--over-kind", help="the meaning of --over (wild-card games)")
    s = rsub.add_parser("score", help="card points and scores of a finished deal")
    s.add_argument("game", help=GAME_HELP)
    s.add_argument("--left", action="append", metavar="SEAT=CARDS", help="cards left in a seat's hand (every seat)")
    s.add_argument("--shown", nargs="*", metavar="SEAT", help="seats that showed their hand (明牌)")
    s.add_argument("--doubled", nargs="*", metavar="SEAT", help="seats that doubled (加倍)")
    s.add_argument("--rules")
    s.add_argument("--winner", metavar="SEAT", help="the seat that won, or none for a drawn deal (word-card games)")
    s.add_argument("--hand", nargs="*", help="the winner's cards in hand, the winning card too (word-card games)")
    s.add_argument("--open", action="append", metavar="KIND:CARDS", help=OPEN_HELP)
    s.add_argument("--self-drawn", action="store_true", help="the winner turned up the winning card (自摸)")
    h = rsub.add_parser("huxi", help="the 胡息 of groups (word-card games)")
    h.add_argument("game", help=GAME_HELP)
    h.add_argument("--group", action="append", metavar="KIND:CARDS", required=True,
                   help="a group, like ju:x1,x2,x3 (kinds kan ju jiao jiang chi peng wei pao ti)")
    h.add_argument("--rules")
    w = rsub.add_parser("win", help="does a holding win, with its best arrangement (word-card games)")
    w.add_argument("game", help=GAME_HELP)
    w.add_argument("cards", nargs="*")
    w.add_argument("--open", action="append", metavar="KIND:CARDS", help=OPEN_HELP)
    w.add_argument("--rules")

    for name, (helptext, (add_arguments, _)) in COMMANDS.items():
        aliases = sorted(a for a, to in ALIASES.items() if to == name)
        add_arguments(sub.add_parser(name, help=helptext, aliases=aliases))
    return p


def main(argv=None):
    p = build_parser()
    _check_argv(sys.argv[1:] if argv is None else argv)
    args = p.parse_args(argv)
    command = ALIASES.get(args.command, args.command)
    if command in COMMANDS:
        return COMMANDS[command][1][1](args)
    if args.command == "demo":
        from . import demo as demo_mod
        if args.board < 1:
            _fail("demo: --board must be 1 or more, not %d" % args.board, "demo：--board 至少为 1，而不是 %d" % args.board)
        if not 2 <= args.tables <= 5:
            _fail("demo: --tables must be 2 to 5, not %d" % args.tables, "demo：--tables 必须在 2 到 5 之间，而不是 %d" % args.tables)
        if not 1 <= args.rounds <= 9 or not 1 <= args.boards <= 8:
            _fail("demo: --rounds must be 1 to 9 and --boards 1 to 8", "demo：--rounds 必须在 1 到 9 之间，--boards 在 1 到 8 之间")
        if args.format is not None and not (args.game and rules_.game(args.game).match):
            _fail("demo: --format applies to a game whose board is a match (pairs or teams)",
                  "demo：--format 仅用于以场为单位的项目（双人或团体）")
        if args.format == "teams" and args.tables % 2:
            _fail("demo: a teams event plays each match at two tables: give an even --tables",
                  "demo：团体赛每场比赛用两张桌（开室、闭室）：--tables 须为偶数")
        if args.pace is not None and not 0 <= args.pace <= 30:
            _fail("demo: --pace must be 0 to 30 seconds, not %s" % args.pace, "demo：--pace 必须在 0 到 30 秒之间，而不是 %s" % args.pace)
        return demo_mod.main(seed=args.seed, board=args.board, terminal=args.terminal, folder=args.out, table=args.table,
                             stay=args.stay, tables=args.tables, rounds=args.rounds, boards=args.boards, pace=args.pace,
                             game=args.game, format=args.format)
    rc = args.rules_command
    if rc == "serve":
        oracle.serve(sys.stdin.buffer, sys.stdout)
        return 0
    req = {"op": rc, "game": args.game}
    if getattr(args, "rules", None):
        req["rules"] = _rules_json(args.rules)
    for name in ("level", "play_kind", "over_kind"):  # fields some games take; unset ones are not sent
        if getattr(args, name, None) is not None:
            req[name] = getattr(args, name)
    if rc == "classify":
        req["cards"] = args.cards
    elif rc == "legal":
        req.update(hand=args.cards, over=args.over, first_play=args.first_play, duty=args.duty)
    elif rc == "beats":
        req.update(play=args.play, over=args.over)
    elif rc == "huxi":
        req["groups"] = _groups_arg(args.group, "--group")
    elif rc == "win":
        req.update(hand=args.cards, open=_groups_arg(args.open, "--open"))
    elif rc == "score" and args.winner is not None:  # a game scored by its winner's holding
        req.update(winner=None if args.winner.lower() == "none" else args.winner, hand=args.hand or [],
                   open=_groups_arg(args.open, "--open"), self_drawn=args.self_drawn)
    elif rc == "score":
        req.update(hands_left=_left(args.left), shown=_seats(args.shown), doubled=_seats(args.doubled))
        for name, seats in (("--shown", args.shown), ("--doubled", args.doubled)):
            bad = [x for x in seats or [] if x not in ("E", "N", "W", "S")]
            if bad:
                _fail("%s takes seats E, N, W, S, not %s" % (name, ", ".join(bad)),
                      "%s 只接受座位 E、N、W、S，而不是 %s" % (name, "、".join(bad)))
    return _print_answer(oracle.answer(req))


if __name__ == "__main__":
    sys.exit(main())
