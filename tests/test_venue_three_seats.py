"""The venue with a three-seat game: event.toml, MP of a three-seat group (the seed's worked
example), the console's boards across tables and the hand records, all with the seats E, N, W."""

from paizhuo import rules
from paizhuo.venue import console, deals, records, scoring
from paizhuo.venue.event import EXAMPLE, EventError, load_text

THREE = [g for g in sorted(rules.GAMES) if len(rules.game(g).seats) == 3 and rules.game(g).at_table][0]
SEATS = rules.game(THREE).seats
SECRET = b"three seat venue tests, long enough"


def test_an_event_of_the_three_seat_game_seats_its_players_three_to_a_table():
    text = EXAMPLE.replace('game = "%s"' % rules.DEFAULT_GAME, 'game = "%s"' % THREE)
    try:  # the example's 8 players fill two tables of four, but three of three
        load_text(text, "event.toml", base="/srv/event")
        raise AssertionError("two tables were enough")
    except EventError as e:
        assert e.code == "too_few_tables" and "need 3 tables" in str(e)
    cfg = load_text(text + '\n[[tables]]\ntable = "3"\nhub = "T03"\n', "event.toml", base="/srv/event")
    assert cfg.game == THREE and cfg.seats == SEATS == ("E", "N", "W")
    assert cfg.tables_needed() == -(-len(cfg.players) // 3)  # 8 players: 3 tables, the last with a bot


def test_the_seeds_worked_example_as_one_three_seat_group():
    """RULES.md: three players hold one seat on three deals: R = 50.0, 58.3, 41.7, ranking 2, 1, 3.
    Here each deal's seat is a different one of E, N, W, so every seat is compared."""
    scores = [(15, 7, 21), (11, 11, -3), (18, 51, 18)]
    rows = [{"player": p + 1, "board": b + 1, "seat": SEATS[b], "table": p + 1, "score": s[p], "think_ms": 0}
            for b, s in enumerate(scores) for p in range(3)]
    st = scoring.standings(rows, seats=SEATS)
    assert [(e.player, e.R_display) for e in st] == [(2, "58.3"), (1, "50.0"), (3, "41.7")]
    bad = dict(rows[0], seat="S")
    try:
        scoring.standings([bad] + rows[1:], seats=SEATS)
        raise AssertionError("a row for S was scored")
    except scoring.ScoringInputError as e:
        assert "E, N, W" in str(e)


def test_the_console_and_the_records_show_three_seats_in_play_order():
    st = {"players": [{"player": "P%d%s" % (t, s), "name": "n", "boards": {"r1b1": {
        "round": 1, "group": 1, "board": 1, "table": str(t), "seat": s, "score": 3 - k, "mp": 2, "rate": 50.0,
        "place": 1}}} for t in (1, 2) for k, s in enumerate(reversed(SEATS))]}
    out = console.board_breakdown(st)
    assert [[r["seat"] for r in t["rows"]] for t in out[0]["tables"]] == [list(SEATS), list(SEATS)]
    rec = deals.deal(SECRET, THREE, 1, 1, 1)
    spec = {"group": 1, "players": {s: {"id": "P%s" % s, "name": "选手" + s, "no": i + 1, "bot": False}
                                    for i, s in enumerate(SEATS)}}
    rows = [{"seat": s, "player": "P%s" % s, "score": (2, -1, -1)[i], "think_ms": 0, "auto_moves": 0,
             "result_id": "T1/1/r1/g1/b1/" + s} for i, s in enumerate(SEATS)]
    actions = [{"type": "discard", "seat": "E", "card": "x5"}, {"type": "chi", "seat": "N", "groups": [["x4", "x5", "x6"]]},
               {"type": "peng", "seat": "W"}, {"type": "pass", "seat": "E"}, {"type": "hu", "seat": "N"}]
    play = {"group": 1, "board": 1, "table": "1", "hub": "T1",
            "record": {"deal_hash": rec.hash, "rows": rows, "record": {"actions": actions, "result": {"scores": {}}}}}
    r = records.build("demo", "Demo", THREE, SECRET, 1, [1], [{"hub": "T1", "table": "1", "spec": spec}], [play])
    t = r["deals"][0]["tables"][0]
    assert t["same_deal"] and [row["seat"] for row in t["rows"]] == list(SEATS)
    assert sorted(r["deals"][0]["deal"]["hands"]) == sorted(SEATS)
    page = records.render_html(r)
    assert "南 South" not in page and "东 East" in page and "西 West" in page
    assert "亮张 shown" in page and "底牌 stock" in page
    for words in ("打出 discard", "吃 chi", "碰 peng", "胡 hu"):
        assert words in page


def played_message(board=1):
    """A three-seat deal as the venue derives it, played by the game's bots, as a hub's result
    message carries it (its record and a row per seat)."""
    from paizhuo.venue import verify  # noqa: F401 (the module under test below)
    g = rules.game(THREE)
    rec = deals.deal(SECRET, THREE, 1, 1, board)
    state = g.state(g.deal_for(rec))
    bots = {s: g.new_bot(seed=i) for i, s in enumerate(SEATS)}
    while state.phase != "over":
        seat = state.to_act()[0]
        state.apply(bots[seat].choose(state.view(seat), None))
    res = state.result().to_dict()
    rows = [{"seat": s, "score": res["scores"][s], "think_ms": res["think_ms"][s], "auto_moves": res["auto_moves"][s]}
            for s in SEATS]
    record = {"deal": rec.to_dict(), "actions": state.record()["actions"], "result": res}
    return rec, {"record": record, "rows": rows}


def test_the_venue_replays_a_three_seat_result_and_holds_a_forged_one():
    import copy
    from paizhuo.venue import verify
    rec, msg = played_message()
    assert verify.check_result(THREE, None, rec, msg) is None
    forged = copy.deepcopy(msg)
    forged["rows"][0]["score"] += 1
    assert verify.check_result(THREE, None, rec, forged).code == "score_mismatch"
    claims = [i for i, a in enumerate(msg["record"]["actions"]) if a["type"] in ("pass", "peng")]
    assert claims
    forged = copy.deepcopy(msg)
    forged["record"]["actions"][claims[0]] = {"type": "hu", "seat": msg["record"]["actions"][claims[0]]["seat"]}
    assert verify.check_result(THREE, None, rec, forged).code in ("illegal_action", "bad_record")
    other, _ = played_message(board=2)
    assert verify.check_result(THREE, None, other, msg).code == "record_deal_mismatch"
