"""Issue #11 part 4: the seat's Guandan screens, the firmware under the real MicroPython unix
port on a pty link to the test hub, with views made by the real Guandan engine
(``hub/rules/guandan.py``) and its bot (``tests/firmware/gdscenes.py``).

- The tribute (进贡): the payer sees its eligible cards and the rule, picks one by touch,
  进贡 sends it; the return (还牌) likewise for the receiver, with the clock.
- Play with a wild card: every selection change asks the hub (``describe`` → ``meanings``,
  answered from the engine's ``describe`` hook); a selection with four legal meanings opens
  the chooser, and the chosen meaning goes out with the play.
- 报牌 counts (10 cards or fewer) and places in the other seats' panels; the end of the deal
  with the places and the match's progress.
- Chinese and English screenshots of each land in the test's tmp folder (PNG artefacts).
- The heap: a whole Guandan deal with tribute by touch in the 64 KB data heap, never a drop,
  the draw loop allocation-free, the low-water mark held (``GD_MARGIN``).
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "firmware"))

import gdscenes  # noqa: E402
from rig import Rig, assert_clean_and_within  # noqa: E402

from paizhuo.rules.guandan import Action  # noqa: E402
from paizhuo.sim.firmware import DATA_HEAP, build  # noqa: E402
from paizhuo.sim.screenshot import save_png  # noqa: E402

pytestmark = pytest.mark.micropython

GD_MARGIN = 8 * 1024  # the lowest free heap allowed while playing Guandan, as for every game


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    return build(tmp_path_factory.mktemp("firmware"), common_hanzi=False, extra_text="王明")


def welcome(seat, lang="zh"):
    return {"seat": seat, "table": "7", "event": "demo", "lang": lang, "player": gdscenes.PLAYERS[seat]}


def rig_for(fw, tmp_path, seat, game, lang="zh", match=None, name="seat"):
    """A seat ``seat`` whose hub answers ``describe`` from ``game`` (a list holding the
    current GuandanDeal, so a test can move it on) and sends the deal's state first."""
    r = Rig(fw, tmp_path / name, welcome=welcome(seat, lang), lang=lang)

    def answer(h, msg):
        if msg["t"] == "describe":
            h.send(gdscenes.describe_answer(game[0], msg, seat))
    r.hub.on_message = answer
    r.hub.on_session = lambda h: h.send(gdscenes.state(game[0], seat=seat, match=match))
    return r


def shot(seat, tmp_path, name):
    n, path = seat.settle()
    save_png(path, Path(tmp_path) / (name + ".png"))
    return path


def tap_and_wait(seat, wid, screen=None):
    mark = seat.mark()
    seat.tap_widget(wid)
    return seat.wait_line("ui ", after=mark)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_tribute_and_return_by_touch(fw, tmp_path, lang):
    m, g = gdscenes.match_with_tribute()
    payer = g.to_act()[0]
    game = [g]
    r = rig_for(fw, tmp_path, payer, game, lang, match=m, name="payer")
    try:
        seat, hub = r.seat, r.hub
        ui = seat.wait_screen("tribute", timeout=20)
        eligible = g.view(payer)["tribute"]["eligible"]
        want = "进贡：请选最大的一张牌（红桃级牌除外）" if lang == "zh" else \
            "Tribute: your highest card (not a heart level card)"
        assert want in ui["text"] and ui["widgets"]["btn:give"][4] == 0
        assert len([w for w in ui["widgets"] if w.startswith("card:")]) == 27, "27 cards, each tappable"
        rows = sorted({w[1] for k, w in ui["widgets"].items() if k.startswith("card:")})
        assert len(rows) == 2, "two rows of cards"
        shot(seat, tmp_path, "gd_tribute_" + lang)
        ui = tap_and_wait(seat, "card:" + eligible[0])
        ui = seat.wait_screen("tribute", where=lambda u: u["widgets"]["btn:give"][4] == 1)
        shot(seat, tmp_path, "gd_tribute_picked_" + lang)
        mark = hub.mark()
        seat.tap_widget("btn:give")
        intent = hub.wait_msg("intent", after=mark)
        assert intent["a"] == {"type": "tribute", "cards": [eligible[0]]}
        events = g.apply(Action.from_dict(dict(intent["a"], seat=payer)))
        for other in g.to_act():  # the other payer (双下) pays too
            if g.phase == "tribute":
                events = g.apply(g.default_action(other))
        mark = seat.mark()
        hub.send(gdscenes.event(g, events, payer))
        seat.wait_screen("return", after=mark)
    finally:
        r.close()
    # The receiver's return.
    receiver = g.to_act()[0]
    r = rig_for(fw, tmp_path, receiver, game, lang, match=m, name="receiver")
    try:
        seat, hub = r.seat, r.hub
        ui = seat.wait_screen("return", timeout=20)
        eligible = g.view(receiver)["tribute"]["eligible"]
        assert any(t.startswith("还牌" if lang == "zh" else "Return:") for t in ui["text"])
        shot(seat, tmp_path, "gd_return_" + lang)
        tap_and_wait(seat, "card:" + eligible[0])
        seat.wait_screen("return", where=lambda u: u["widgets"]["btn:give"][4] == 1)
        mark = hub.mark()
        seat.tap_widget("btn:give")
        intent = hub.wait_msg("intent", after=mark)
        assert intent["a"] == {"type": "return", "cards": [eligible[0]]}
        assert g.can(Action.from_dict(dict(intent["a"], seat=receiver)))
    finally:
        r.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_wild_card_play_asks_the_hub_and_the_player_chooses(fw, tmp_path, lang):
    g, cards = gdscenes.wild_choice()  # a straight or a straight flush, to 6 or to 7
    assert len(g.describe("E", cards)) == 4
    game = [g]
    r = rig_for(fw, tmp_path, "E", game, lang)
    try:
        seat, hub = r.seat, r.hub
        seat.wait_screen("play", timeout=20)
        for c in cards:
            tap_and_wait(seat, "card:" + c)
        ui = seat.wait_screen("play", where=lambda u: u["widgets"]["btn:play"][4] == 1)
        asked = [msg for msg in hub.received if msg["t"] == "describe"]
        assert len(asked) == len(cards), "one round trip per selection change"
        assert sorted(asked[-1]["cards"]) == sorted(cards)
        want = "可作：" if lang == "zh" else "Can be: "
        assert any(t.startswith(want) for t in ui["text"])
        shot(seat, tmp_path, "gd_selected_" + lang)
        mark = seat.mark()
        seat.tap_widget("btn:play")
        ui = seat.wait_screen("choose", after=mark)
        assert {"mean:0", "mean:1", "mean:2", "mean:3", "btn:cancel"} <= set(ui["widgets"])
        shot(seat, tmp_path, "gd_choose_" + lang)
        mark = hub.mark()
        seat.tap_widget("mean:3")
        intent = hub.wait_msg("intent", after=mark)
        assert intent["a"]["meaning"] == "straight_flush:7" and sorted(intent["a"]["cards"]) == sorted(cards)
        assert g.can(Action.from_dict(dict(intent["a"], seat="E")))
    finally:
        r.close()


def _late_play(seed=3):
    """A deal played by the bots until someone is out and someone else reports (报牌)."""
    g = gdscenes.GuandanDeal(gdscenes.deal(seed))
    bots = gdscenes.bots()
    gdscenes.play_out(g, bots, lambda g: g.out and any(len(h) <= 10 for k, h in enumerate(g.hands)
                                                        if k not in g.out) and g.to_act()[0] != "E")
    return g, bots


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_reports_places_and_the_end_of_the_deal(fw, tmp_path, lang):
    g, bots = _late_play()
    game = [g]
    r = rig_for(fw, tmp_path, "E", game, lang)
    try:
        seat, hub = r.seat, r.hub
        ui = seat.wait_screen("play", timeout=20)
        places = ("上游", "二游") if lang == "zh" else ("1st", "2nd")
        report = "报牌" if lang == "zh" else " left"
        assert any(t in places for t in ui["text"]), "a place shown"
        assert any(report in t for t in ui["text"]), "a 报牌 count shown"
        shot(seat, tmp_path, "gd_play_late_" + lang)
        events = gdscenes.play_out(g, bots)
        mark = seat.mark()
        hub.send(gdscenes.event(g, events))
        ui = seat.wait_screen("result", after=mark)
        first = g.result()["places"][0]
        assert any(t.startswith(places[0]) and t.split()[1] in ("东家南家西家北家" if lang == "zh" else "EastSouthWestNorth")
                   for t in ui["text"] if len(t.split()) > 1), first
        shot(seat, tmp_path, "gd_result_" + lang)
    finally:
        r.close()


def _tap_cards(seat, cards):
    """Tap ``cards`` (codes, two of a card possible) as a player would, each after a redraw."""
    seen = {}
    for c in cards:
        wid = "card:" + c + ("+" if seen.get(c) else "")
        seen[c] = seen.get(c, 0) + 1
        tap_and_wait(seat, wid)


class Progress:
    """A match's progress as the hub sends it (``Table._progress``): the engine's, with the
    time the hub measures (``time_left_ms``) and a referee's forfeit put in."""

    def __init__(self, **more):
        self.p = dict({"deal": 1, "deals_done": 0, "levels": {"EW": "2", "NS": "2"}, "playing": "EW",
                       "max_deals": None, "match_minutes": 30}, **more)

    def progress(self):
        return dict(self.p)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_timed_match_shows_its_time_left_and_a_forfeit_says_so(fw, tmp_path, lang):
    """Issue #11: the match's time left on the play screen, counted down by the seat between
    the hub's figures (the hub sends ``time_left_ms`` with each state and result), orange at
    5 minutes, 比赛时间到 once up; a match a referee ended (弃权) says so, with the reason, on
    the screen the seat waits on.  The draw loop allocates nothing."""
    zh = lang == "zh"
    g = gdscenes.GuandanDeal(gdscenes.deal(5))
    me = g.to_act()[0]
    r = rig_for(fw, tmp_path, me, [g], lang, match=Progress(time_left_ms=2 * 60000 + 600), name="timed")
    try:
        seat, hub = r.seat, r.hub
        left = (lambda n: "剩%d分" % n) if zh else (lambda n: "%d min left" % n)
        seat.wait_screen("play", timeout=20, where=lambda u: any(left(3) in t for t in u["text"]))
        # no message from the hub: the seat's own countdown reaches the next minute
        seat.wait_screen("play", timeout=5, where=lambda u: any(left(2) in t for t in u["text"]))
        shot(seat, tmp_path, "gd_time_left_" + lang)
        mark = seat.mark()
        hub.send(gdscenes.state(g, seat=me, match=Progress(time_left_ms=0, time_up=True)))
        up = "比赛时间到" if zh else "Match time up"
        seat.wait_screen("play", after=mark, where=lambda u: any(up in t for t in u["text"]))
        mark = seat.mark()
        hub.send({"t": "state", "screen": "waiting", "view": None, "turn": None, "clock": None,
                  "players": gdscenes.PLAYERS, "result": None, "seatmap": None,
                  "match": Progress(forfeited={"by": "referee", "reason": "no show"}).progress()})
        ui = seat.wait_screen("waiting", after=mark)
        want = ["裁判已结束本场比赛（弃权）", "原因：no show"] if zh else \
            ["The referee ended this match (forfeit)", "Reason: no show"]
        assert all(w in ui["text"] for w in want), ui["text"]
        shot(seat, tmp_path, "gd_forfeit_" + lang)
        assert seat.frames and all(f[2] == 0 for f in seat.frames), "the draw loop allocated"
        assert seat.alive() and seat.stderr == []
    finally:
        r.close()


def test_a_whole_guandan_deal_with_tribute_in_a_64k_data_heap(fw, tmp_path):
    """The seat pays the tribute and plays the whole deal by touch (the others are the bot),
    every play pre-checked by the hub (``describe``) and its meaning chosen when there are
    several; then the result with the match's progress.  No drop, no error, the draw loop
    allocation-free, the low-water mark at least GD_MARGIN."""
    m, g = gdscenes.match_with_tribute()
    me = g.to_act()[0]  # a payer
    game = [g]
    bots = gdscenes.bots()
    r = rig_for(fw, tmp_path, me, game, match=m, name="heap")
    seat, hub = r.seat, r.hub
    try:
        assert seat.heapsize == fw.heapsize(DATA_HEAP)
        seat.wait_screen("tribute", timeout=20)
        plays = 0
        while g.phase != "over":
            acting = g.to_act()
            if me not in acting:
                events = g.apply(bots[acting[0]].choose(g.view(acting[0])))
                hub.send(gdscenes.event(g, events, me))
                continue
            a = bots[me].choose(g.view(me)).to_dict()
            before = hub.mark()
            # The seat has every event once it acknowledges the last one (its heartbeat).
            last = hub.sent[-1]["s"]
            hub.wait(lambda h: any(x["t"] == "ack" and x["upto"] >= last for x in h.received[-5:]), 10, "ack")
            seat.wait_screen(g.phase, where=lambda u: "轮到你" in u["text"])
            if g.phase in ("tribute", "return"):
                _tap_cards(seat, a["cards"])
                seat.wait_screen(g.phase, where=lambda u: u["widgets"]["btn:give"][4] == 1)
                seat.tap_widget("btn:give")
            elif a["type"] == "pass":
                seat.wait_screen("play", where=lambda u: u["widgets"]["btn:pass"][4] == 1)
                seat.tap_widget("btn:pass")
            else:
                _tap_cards(seat, a["cards"])
                seat.wait_screen("play", where=lambda u: u["widgets"]["btn:play"][4] == 1)
                meanings = g.describe(me, a["cards"])
                mark = seat.mark()
                seat.tap_widget("btn:play")
                if len(meanings) > 1:
                    seat.wait_screen("choose", after=mark)
                    seat.tap_widget("mean:%d" % meanings.index(a["meaning"]))
                plays += 1
            intent = hub.wait_msg("intent", after=before)
            events = g.apply(Action.from_dict(dict(intent["a"], seat=me)))
            hub.send(gdscenes.event(g, events, me))
        m.finish(g)
        mark = seat.mark()
        hub.send({"t": "result", "result": g.result(), "match": m.progress()})
        lv = m.progress()["levels"]
        want = "东西 %s · 南北 %s" % tuple(("10" if lv[s] == "T" else lv[s]) for s in ("EW", "NS"))
        ui = seat.wait_screen("result", after=mark, where=lambda u: want in u["text"])
        assert plays > 0
        shot(seat, tmp_path, "gd_heap_result")
        assert_clean_and_within(seat, GD_MARGIN, "playing Guandan")
    finally:
        r.close()


# ---- the pre-check's round trip: the engine hook and the link's message checks ---------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from paizhuo.rules.guandan import GuandanDeal  # noqa: E402
from paizhuo_shared import link  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(0, 40), st.lists(st.integers(0, 26), min_size=1, max_size=8, unique=True))
def test_describe_is_exactly_the_legal_plays_of_those_cards(seed, steps, picks):
    """``describe(seat, cards)`` (what the hub answers a seat's ``describe``) lists exactly
    the meanings of the legal plays of exactly those cards, in any state of a deal."""
    g = GuandanDeal(gdscenes.deal(1 + seed % 1000))
    bots = gdscenes.bots()
    for _ in range(steps):
        if g.phase == "over":
            break
        s = g.to_act()[0]
        g.apply(bots[s].choose(g.view(s)))
    if g.phase != "play":
        return
    seat = g.to_act()[0]
    hand = g.view(seat)["hand"]
    cards = sorted(hand[i] for i in picks if i < len(hand))
    if not cards:
        return
    want = sorted(a.meaning for a in g.legal_actions(seat)
                  if a.type == "play" and sorted(a.to_dict()["cards"]) == cards)
    assert sorted(g.describe(seat, cards)) == want
    other = [s for s in "ENWS" if s != seat][0]
    assert g.describe(other, cards) == [], "not its turn: no meanings"


@pytest.mark.parametrize("msg, ok", [
    ({"t": "describe", "s": 3, "turn": 7, "cards": ["2H", "3D"]}, True),
    ({"t": "describe", "s": 3, "turn": 7, "cards": []}, False),
    ({"t": "describe", "s": 3, "turn": 7, "cards": ["2H"] * 28}, False),
    ({"t": "describe", "s": 3, "turn": -1, "cards": ["2H"]}, False),
    ({"t": "describe", "s": 3, "turn": 7, "cards": ["2H"], "x": 1}, False),
    ({"t": "describe", "s": 3, "turn": 7, "cards": ["TOOLONG"]}, False),
])
def test_describe_frames_from_a_seat_are_checked(msg, ok):
    if ok:
        link.check_message(msg, "seat")
    else:
        with pytest.raises(link.LinkError) as e:
            link.check_message(msg, "seat")
        assert e.value.code == "bad_message" and e.value.zh and e.value.en


def test_meanings_frames_from_the_hub_are_checked():
    good = {"t": "meanings", "s": 4, "turn": 7, "cards": ["2H"], "meanings": ["single:2"]}
    link.check_message(good, "hub")
    link.check_message(dict(good, meanings=[]), "hub")
    for bad in (dict(good, meanings="single:2"), dict(good, meanings=[""]), dict(good, meanings=["x" * 33])):
        with pytest.raises(link.LinkError):
            link.check_message(bad, "hub")


def test_no_seat_code_outside_the_games_names_a_game():
    """A game is a plug-in on the seat too: outside ``device/seat/games/<game>*.py`` no name
    and no string of the firmware's code names a game (comments and docstrings may)."""
    import ast
    root = Path(__file__).resolve().parents[1] / "device"
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("seat/games/") and rel != "seat/games/__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for n in ast.walk(tree):
            words = []
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
                words = [n.value]
            elif isinstance(n, ast.Name):
                words = [n.id]
            elif isinstance(n, ast.alias):
                words = [n.name]
            for w in words:
                for game in ("bigtwo", "guandan", "paohuzi"):
                    if game in w.lower() and not (rel == "seat/games/__init__.py" and w.strip() == "bigtwo guandan paohuzi"):
                        found.append((rel, w))
    assert found == [], "game names outside seat/games/<game>: %r" % found
