"""The seat firmware under the real MicroPython unix port, on a pty link to a test hub that
speaks the real link codec.  Every screen is reached from hub messages built by the real
engine, taps go in through the firmware's touch channel, and fixed scenes are checked by
frame hash (tests/firmware/frames.json; PNGs of each land in the test's tmp folder).
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "firmware"))

import pins  # noqa: E402
import scenes  # noqa: E402
from rig import DEV, KEY, KEY_HEX, Rig  # noqa: E402
from testhub import TestHub  # noqa: E402

from paizhuo.rules.bigtwo import Action, IllegalActionError  # noqa: E402
from paizhuo.sim.firmware import DATA_HEAP, SeatError, SeatProcess, build, checkin_taps  # noqa: E402
from paizhuo.sim.links import PtyLink  # noqa: E402
from paizhuo.sim.screenshot import save_png  # noqa: E402
from paizhuo_shared import link  # noqa: E402

pytestmark = pytest.mark.micropython

SEAT = scenes.SEAT
WELCOME = {"seat": SEAT, "table": "7", "event": "demo", "lang": "zh", "player": scenes.PLAYERS[SEAT]}


# The check-in scenes' player: names are data, so their glyphs come in as the build's extra
# text, as an event's players' names do (李 is in no UI or hub text).
CHECKIN_PLAYER = {"id": "P012", "name": "李四", "no": 12, "bot": False}


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    return build(tmp_path_factory.mktemp("firmware"), extra_text=CHECKIN_PLAYER["name"])


@pytest.fixture
def rigs(fw, tmp_path):
    made = []

    def make(first_state=None, **kw):
        kw.setdefault("welcome", WELCOME)
        r = Rig(fw, tmp_path / ("seat%d" % len(made)), **kw)
        made.append(r)
        if first_state is not None:
            r.hub.on_session = lambda hub: hub.send(first_state)
        return r

    yield make
    for r in made:
        r.close()


def texts(ui):
    return ui["text"]


def enabled(ui, wid):
    return ui["widgets"][wid][4] == 1


def hand_y(ui, code):
    """The top of card ``code`` in the hand when not selected (its row's top)."""
    return 225 if ui["widgets"]["card:" + code][1] < 250 else 275


def event_msg(game, events):
    """The ``event`` message for the seat under test after the engine applied something."""
    return {"t": "event", "events": events, "view": game.view(SEAT), "turn": len(game.actions),
            "clock": scenes.clock(game.to_act())}


# ---- handshake -------------------------------------------------------------------------------

def test_hello_is_resent_until_the_hub_answers(rigs):
    r = rigs(scenes.state(None, screen="waiting"), open_hub=False)
    r.seat.wait_line("link open")
    r.hub.auto = False
    r.hub.open()  # late, and flushing what the seat wrote before
    r.hub.wait(lambda h: len(h.hellos) >= 2, 5, "two hellos with no challenge sent")
    hellos = [m for _, m in r.hub.hellos]
    assert all(m["hn"] == "" and m["dev"] == DEV and m["board"] == "host" for m in hellos)
    assert len({m["n"] for m in hellos}) == len(hellos), "each hello carries a new nonce"
    r.hub.auto = True
    r.hub.challenge()
    r.hub.wait_session()
    ui = r.seat.wait_screen("waiting")
    assert r.hub.hellos[-1][1]["hn"] != ""
    assert "第7桌 · " + "东南西北"["ESWN".index(SEAT)] + "家" in texts(ui)


def test_unknown_device_is_shown_on_the_connecting_screen(fw, tmp_path):
    with PtyLink(str(tmp_path), "s") as pty, TestHub(pty.hub_path, {}) as hub:
        seat = SeatProcess(fw, "S-9999", KEY_HEX, pty.seat_path, tmp_path / "frames")
        try:
            hub.open()
            hub.challenge()
            ui = seat.wait_screen("connecting", where=lambda u: any("未在 7 号桌登记" in t for t in u["text"]))
            assert "设备 S-9999" in texts(ui)
            assert ui["missing"] == 0
        finally:
            seat.stop()


def test_bad_provisioning_file_stops_with_a_clear_message(fw, tmp_path):
    seat = SeatProcess(fw, "S-0001", "not hex", "/dev/null", tmp_path / "frames")
    try:
        seat.wait_for(lambda s: not s.alive(), 10, "the firmware to exit")
    finally:
        seat.stop()
    assert seat.proc.returncode == 2
    assert "seat config: key must be the 32-byte device key" in seat.output()


# ---- screens ---------------------------------------------------------------------------------

def test_waiting_screen(rigs, tmp_path, fw):
    r = rigs(scenes.state(None, screen="waiting"))
    ui = r.seat.wait_screen("waiting")
    assert "选手：王明" in texts(ui)
    assert "请稍候，牌局即将开始" in texts(ui)
    pins.check(fw, "waiting", r.seat.settle()[1], tmp_path)


def test_show_decision_sends_the_choice_for_the_current_turn(rigs, tmp_path, fw):
    g = scenes.fresh()
    r = rigs(scenes.state(g))
    ui = r.seat.wait_screen("show", where=lambda u: enabled(u, "btn:yes"))
    assert "是否明牌？明牌后得分×3" in texts(ui)
    pins.check(fw, "show", r.seat.settle()[1], tmp_path)
    mark = r.seat.mark()
    r.seat.tap_widget("btn:yes")
    intent = r.hub.wait_msg("intent")
    assert intent["turn"] == 0 and intent["a"] == {"type": "show", "yes": True}
    ui = r.seat.wait_screen("show", after=mark)
    assert not enabled(ui, "btn:yes") and not enabled(ui, "btn:no"), "locked until the hub answers"
    events = g.apply(Action.show(SEAT, True))
    r.hub.send(event_msg(g, events))
    ui = r.seat.wait_screen("show", where=lambda u: "已选择，等待其他玩家" in u["text"])
    assert "btn:yes" not in ui["widgets"]


def test_double_decision(rigs, tmp_path, fw):
    g = scenes.double_phase()
    r = rigs(scenes.state(g))
    ui = r.seat.wait_screen("double", where=lambda u: enabled(u, "btn:no"))
    assert "是否加倍？加倍后得分×2" in texts(ui)
    pins.check(fw, "double", r.seat.settle()[1], tmp_path)
    r.seat.tap_widget("btn:no")
    intent = r.hub.wait_msg("intent")
    assert intent["turn"] == len(g.actions) and intent["a"] == {"type": "double", "yes": False}


def test_play_select_deselect_play_and_refusal(rigs, tmp_path, fw):
    g = scenes.play_phase()
    r = rigs(scenes.state(g))
    ui = r.seat.wait_screen("play")
    assert not enabled(ui, "btn:play") and not enabled(ui, "btn:pass"), "nothing selected; a leader may not pass"
    assert "首攻须含♦3" in texts(ui)
    pins.check(fw, "play", r.seat.settle()[1], tmp_path)
    hand = g.view(SEAT)["hand"]
    low, other = hand[0], hand[-1]  # ♦3 and the highest card
    y0 = ui["widgets"]["card:" + low][1]
    # tap: selected (it rises), tap again: deselected
    r.seat.tap_widget("card:" + low)
    ui = r.seat.wait_screen("play", where=lambda u: u["widgets"]["card:" + low][1] < y0)
    assert enabled(ui, "btn:play") and "单张" in texts(ui)
    r.seat.tap_widget("card:" + low)
    ui = r.seat.wait_screen("play", where=lambda u: u["widgets"]["card:" + low][1] == y0)
    assert not enabled(ui, "btn:play")
    # two unrelated cards are no combination: the pre-check greys Play (the hub would refuse it anyway)
    r.seat.tap_widget("card:" + low)
    r.seat.wait_screen("play", where=lambda u: u["widgets"]["card:" + low][1] < y0)
    r.seat.tap_widget("card:" + other)
    ui = r.seat.wait_screen("play", where=lambda u: "不成牌型" in u["text"])
    assert not enabled(ui, "btn:play")
    pins.check(fw, "play_selected", r.seat.settle()[1], tmp_path)
    r.seat.tap_widget("card:" + low)
    ui = r.seat.wait_screen("play", where=lambda u: enabled(u, "btn:play"))
    # a single without ♦3: the seat sends it, the hub (the engine) refuses, the seat shows why
    r.seat.tap_widget("btn:play")
    intent = r.hub.wait_msg("intent")
    assert intent["turn"] == len(g.actions) and intent["a"] == {"type": "play", "cards": [other]}
    with pytest.raises(IllegalActionError) as refused:
        g.verify(Action.from_dict(dict(intent["a"], seat=SEAT)))
    r.hub.send(link.reject_message(refused.value, intent["s"]))
    ui = r.seat.wait_screen("refusal")
    assert refused.value.zh in texts(ui) and ui["base"] == "play"
    assert set(ui["widgets"]) == {"btn:ok"}, "only the refusal takes taps"
    pins.check(fw, "refusal", r.seat.settle()[1], tmp_path)
    r.seat.tap_widget("btn:ok")
    ui = r.seat.wait_screen("play")
    # issue #12: the refused play keeps its selection (the player fixes it, not redoes it)
    assert ui["widgets"]["card:" + other][1] < hand_y(ui, other) and enabled(ui, "btn:play")
    # now the right play: ♦3 alone
    r.seat.tap_widget("card:" + other)
    r.seat.wait_screen("play", where=lambda u: not enabled(u, "btn:play"))
    r.seat.tap_widget("card:" + low)
    r.seat.wait_screen("play", where=lambda u: enabled(u, "btn:play"))
    mark = r.hub.mark()
    r.seat.tap_widget("btn:play")
    intent = r.hub.wait_msg("intent", after=mark)
    assert intent["a"] == {"type": "play", "cards": [low]}
    events = g.apply(Action.play(SEAT, [low]))
    r.hub.send(event_msg(g, events))
    ui = r.seat.wait_screen("play", where=lambda u: "card:" + low not in u["widgets"])
    assert len([w for w in ui["widgets"] if w.startswith("card:")]) == 12
    assert not enabled(ui, "btn:play"), "not this seat's turn any more"


def test_pass_when_following(rigs):
    g = scenes.following()
    r = rigs(scenes.state(g))
    ui = r.seat.wait_screen("play", where=lambda u: enabled(u, "btn:pass"))
    r.seat.tap_widget("btn:pass")
    intent = r.hub.wait_msg("intent")
    assert intent == {"t": "intent", "s": intent["s"], "turn": len(g.actions), "a": {"type": "pass"}}


def test_report_and_shown_hands(rigs, tmp_path, fw):
    g = scenes.report()
    r = rigs(scenes.state(g))
    ui = r.seat.wait_screen("play")
    assert "报单" in texts(ui)
    shown = g.view(SEAT)["shown"]
    assert shown and all(" ".join(sorted(cs, key=lambda c: ("3456789TJQKA2".index(c[0]), "DCHS".index(c[1]))))
                         in texts(ui) for cs in shown.values())
    pins.check(fw, "report", r.seat.settle()[1], tmp_path)
    # the 报单 event puts up the alert line
    one = [s for s, n in g.view(SEAT)["counts"].items() if n == 1 and s != SEAT][0]
    r.hub.send(event_msg(g, [{"type": "report", "seat": one}]))
    name = {"E": "东家", "S": "南家", "W": "西家", "N": "北家"}[one]
    # issue #12: the alert and the duty it brings are shown together (the duty was hidden under it)
    ui = r.seat.wait_screen("play", where=lambda u: any(name + "报单！" in t for t in u["text"]))
    if g.view(SEAT)["duty"]:
        assert any(name + "报单！" in t and "单张须出最大" in t for t in texts(ui)), texts(ui)


def test_result_screen(rigs, tmp_path, fw):
    g = scenes.finished()
    r = rigs(scenes.state(g, seatmap={"table": "7", "seat": SEAT, "player": scenes.PLAYERS[SEAT],
                                      "next": {"table": "3", "seat": "S"}}))
    ui = r.seat.wait_screen("result")
    res = g.result()
    for seat in "ENWS":
        assert str(res.scores[seat]) in texts(ui)
    assert "下一轮：第3桌 南家" in texts(ui)
    pins.check(fw, "result", r.seat.settle()[1], tmp_path)


def test_english_setting(rigs, tmp_path, fw):
    g = scenes.play_phase()
    r = rigs(scenes.state(g), welcome=dict(WELCOME, lang="en"))
    ui = r.seat.wait_screen("play")
    assert ui["lang"] == "en"
    assert {"Your turn", "Play", "Pass", "The first play must include ♦3"} <= set(texts(ui))
    pins.check(fw, "play_en", r.seat.settle()[1], tmp_path)


def test_band_height_does_not_change_the_picture(rigs):
    g = scenes.report()
    frames = []
    for rows in (8, 16, 32):
        # A taller band is a bigger buffer (480 x rows x 2 bytes): the heap grows by as much, so
        # each seat keeps the 8-row seat's margin and the test compares pictures, not heaps
        # (at 64 KB the 32-row seat had 2.5 KB left, and a loaded machine ran it out).
        heap = DATA_HEAP + (rows - 8) * 480 * 2
        r = rigs(scenes.state(g, clock_ms=60000, paused=True), rows=rows, data_heap=heap)
        r.seat.wait_screen("play")
        frames.append(Path(r.seat.settle()[1]).read_bytes())
    assert frames[0] == frames[1] == frames[2]


# ---- clock -----------------------------------------------------------------------------------

def test_clock_counts_down_locally_and_locks_input_at_zero(rigs):
    g = scenes.play_phase()
    r = rigs(scenes.state(g, clock_ms=2500))
    r.seat.wait_screen("play")
    hand = g.view(SEAT)["hand"]
    r.seat.tap_widget("card:" + hand[0])
    r.seat.wait_screen("play", where=lambda u: enabled(u, "btn:play"))
    ui = r.seat.wait_screen("play", timeout=8, where=lambda u: "时间到" in u["text"])
    assert not enabled(ui, "btn:play") and not enabled(ui, "btn:pass")
    ticks = [ln for ln in r.seat.lines if ln.startswith("frame ") and ln.endswith("rows=0-24")]
    assert len(ticks) >= 2, "the clock redrew its row band each second"
    mark = r.hub.mark()
    r.seat.tap_widget("btn:play")
    r.seat.wait_line("tap ", after=r.seat.mark() - 1)
    r.hub.send({"t": "clock", "clock": scenes.clock([SEAT], 0)})  # a round trip: anything sent is in by then
    r.seat.wait_screen("play")
    assert not [m for m in r.hub.received[mark:] if m["t"] == "intent"], "no intent after the clock ran out"


def test_only_the_newest_frames_are_kept_when_asked(rigs):
    g = scenes.play_phase()
    r = rigs(scenes.state(g, clock_ms=4000), frames_keep=2)
    r.seat.wait_frame(after=3, timeout=8)  # the clock draws a frame a second
    n = r.seat.frames[-1][0]
    files = sorted(p.name for p in Path(r.seat.frames_dir).glob("f*.raw"))
    assert len(files) <= 2 and "f%05d.raw" % n in files
    assert (Path(r.seat.frames_dir) / "screen.raw").stat().st_size == 480 * 320 * 2


def test_paused_clock_holds_and_locks(rigs, tmp_path, fw):
    g = scenes.play_phase()
    r = rigs(scenes.state(g, clock_ms=9000, paused=True))
    ui = r.seat.wait_screen("play")
    assert {"暂停 · 裁判处理中", "暂停 · 裁判处理中，请等待恢复"} <= set(texts(ui)), "top bar and hint line"
    # a stopped clock draws the same digits however slow the machine: its box is pinned too
    pins.check(fw, "paused_clock", r.seat.settle()[1], tmp_path, clock=True)
    low = "card:" + g.view(SEAT)["hand"][0]
    r.seat.tap_widget(low)
    ui = r.seat.wait_screen("play", where=lambda u: u["widgets"][low][1] in (222, 272))  # picked (it rose 3 px)
    assert not enabled(ui, "btn:play")
    assert "暂停 · 裁判处理中，请等待恢复" in texts(ui), "while paused the hint line says so, not the kind"


def test_paused_between_deals(rigs, tmp_path, fw):
    r = rigs(scenes.state(None, screen="paused"))
    ui = r.seat.wait_screen("waiting", where=lambda u: "暂停 · 裁判处理中" in u["text"])
    assert {"暂停 · 裁判处理中", "暂停 · 裁判处理中，请等待恢复"} <= set(texts(ui))
    assert "请稍候，牌局即将开始" not in texts(ui)
    pins.check(fw, "paused", r.seat.settle()[1], tmp_path, clock=True)


# ---- link faults -------------------------------------------------------------------------------

def test_sequence_gap_starts_a_new_session_with_a_full_state(rigs):
    g = scenes.play_phase()
    r = rigs(scenes.state(g))
    r.seat.wait_screen("play")
    r.hub.wait_session(1)
    r.hub.skip(1)
    r.hub.send({"t": "clock", "clock": scenes.clock([SEAT], 5000)})  # arrives with a gap
    r.hub.wait_session(2)
    hello = r.hub.hellos[-1][1]
    assert hello["hn"] != ""
    r.seat.wait_line("link down seq_gap")
    ui = r.seat.wait_screen("play", after=r.seat.mark() - 1)
    assert len([w for w in ui["widgets"] if w.startswith("card:")]) == 13


@pytest.mark.parametrize("how", ["challenge", "no_session"])
def test_hub_lost_session_means_new_handshake(rigs, how):
    r = rigs(scenes.state(None, screen="waiting"))
    r.seat.wait_screen("waiting")
    r.hub.wait_session(1)
    if how == "challenge":  # the hub restarted: it knows no session (a bad-tag reject: test_seat_link_auth.py)
        r.hub.session = None
        r.hub.challenge()
    else:
        r.hub.send(link.reject_message(link.LinkError(how), 1))
    r.hub.wait_session(2)
    r.seat.wait_line("link up", after=0)
    assert r.hub.errors == [] or set(r.hub.errors) <= {"no_session"}


def test_frames_from_a_wrong_key_or_replayed_are_dropped(rigs):
    r = rigs(scenes.state(None, screen="waiting"))
    r.seat.wait_screen("waiting")
    r.hub.wait_session(1)
    forged = link.encode({"t": "state", "s": 99, "screen": "result", "view": None, "turn": None, "clock": None,
                          "players": {}, "result": None, "seatmap": None}, b"\x01" * 32)
    r.hub.write(forged)
    r.hub.write(b"garbage\n" + b"x" * 5000 + b"\n")
    mark = r.seat.mark()
    r.hub.send({"t": "seatmap", "seatmap": {"table": "7", "seat": SEAT, "player": None, "next": None}})
    r.seat.wait_screen("waiting", after=mark)
    assert r.hub.sessions == 1 and r.seat.alive()


def test_a_malformed_state_costs_the_view_and_a_resync_brings_it_back(rigs):
    """A ``state`` lets the old view go before it is parsed (the heap never holds two); when
    it then fails its field checks the seat drops it and asks for a full state."""
    g = scenes.play_phase()
    r = rigs(scenes.state(g))
    r.seat.wait_screen("play")
    r.hub.wait_session(1)
    bad = dict(scenes.state(g), screen="bogus", s=r.hub.session.next_out)
    r.hub.session.next_out += 1
    mark, before = r.seat.mark(), r.hub.mark()
    r.hub.write(link._encode(bad, r.hub.session._pads))  # a good tag on a message the hub would never send
    assert r.hub.wait_msg("resync", after=before)["t"] == "resync"
    ui = r.seat.wait_screen("play", after=mark)  # the hub answered the resync with its last state
    assert len([w for w in ui["widgets"] if w.startswith("card:")]) == 13
    assert r.seat.wait_line("drop bad_message", after=mark) and r.seat.alive()


def test_heartbeat_acks_the_last_hub_frame(rigs):
    r = rigs(scenes.state(None, screen="waiting"))
    r.hub.wait_session(1)
    r.seat.wait_screen("waiting")
    last = r.hub.send({"t": "seatmap", "seatmap": {"table": "7", "seat": SEAT, "player": None, "next": None}})
    acks = r.hub.wait(lambda h: [m for m in h.received if m["t"] == "ack" and m["upto"] == last], 5, "an ack")
    assert acks[0]["upto"] == last


def test_link_loss_and_reconnect(rigs):
    r = rigs(scenes.state(None, screen="waiting"))
    r.hub.wait_session(1)
    r.seat.wait_screen("waiting")
    r.link.close()  # the cable is pulled
    r.seat.wait_line("link lost")
    r.hub.close()
    r.link = PtyLink(r.folder, "seat")  # plugged in again: the same path
    r.hub = TestHub(r.link.hub_path, {DEV: KEY}, welcome=WELCOME)
    r.hub.on_session = lambda hub: hub.send(scenes.state(scenes.play_phase()))
    r.hub.open()
    r.hub.challenge()
    r.hub.wait_session(1, timeout=10)
    r.seat.wait_screen("play")


# ---- drawing and memory -------------------------------------------------------------------------

def test_drawing_allocates_nothing_and_the_heap_holds(rigs):
    g = scenes.play_phase()
    r = rigs(scenes.state(g))
    r.seat.wait_screen("play")
    for c in g.view(SEAT)["hand"][:5]:
        r.seat.tap_widget("card:" + c)
        r.seat.wait_line("tap ", after=r.seat.mark() - 1)
    r.seat.settle()
    r.seat.wait_for(lambda s: s.mem is not None, 5, "a heap figure")
    assert r.seat.frames and all(f[2] == 0 for f in r.seat.frames), "draw loop allocated: %r" % r.seat.frames
    free, low = r.seat.mem
    assert low >= 4096, "the lowest free heap seen was %d bytes of %d" % (low, DATA_HEAP)
    assert r.seat.heapsize == r.firmware.heapsize(DATA_HEAP)


def test_display_holds_a_band_never_a_frame(fw, tmp_path):
    from paizhuo.sim.firmware import run_snippet
    code = (
        "import gc\n"
        "from board.host import HostDisplay\n"
        "gc.collect(); a = gc.mem_free()\n"
        "d = HostDisplay(%r, 32, 1)\n" % str(tmp_path / "frames") +
        "gc.collect(); print(d.buffer_bytes(), a - gc.mem_free(), d.rows, len(d.band))\n")
    out = run_snippet(fw, code)
    assert out.returncode == 0, out.stdout + out.stderr
    held, grew, rows, band = map(int, out.stdout.split())
    assert rows == 32 and band == 480 * 32 // 2
    assert held <= 480 * 32 and grew < 480 * 32 + 2048, "one band, not a 300 KB frame"


def test_call_referee_from_any_screen(rigs, tmp_path):
    r = rigs(scenes.state(None, screen="waiting"))
    r.seat.wait_screen("waiting")
    r.seat.tap_widget("btn:call")
    # issue #12: 叫裁判 asks first; cancelling sends nothing
    ui = r.seat.wait_screen("call")
    assert "叫裁判？" in texts(ui) and set(ui["widgets"]) == {"btn:yes", "btn:ok"}
    save_png(r.seat.settle()[1], tmp_path / "call_confirm.png")
    r.seat.tap_widget("btn:ok")
    r.seat.wait_screen("waiting")
    assert r.hub.messages("call") == []
    r.seat.tap_widget("btn:call")
    r.seat.wait_screen("call")
    r.seat.tap_widget("btn:yes")
    call = r.hub.wait_msg("call")
    assert call["why"] == "seat"
    r.seat.wait_screen("waiting", where=lambda u: "已叫裁判，请稍候" in u["text"])


def test_show_phase_marks_who_has_chosen(rigs):
    g = scenes.fresh()
    others = [s for s in "ENWS" if s != SEAT]
    g.apply(Action.show(others[0], True))
    r = rigs(scenes.state(g))
    ui = r.seat.wait_screen("show")
    assert texts(ui).count("已选") == 1, "one seat has chosen; what it chose stays hidden until all have"


# ---- check-in (venue rounds) -----------------------------------------------------------------

SEAT_ZH = {"E": "东家", "S": "南家", "W": "西家", "N": "北家"}


def checkin_state(next_seat=None, checked=False, player=CHECKIN_PLAYER):
    seatmap = {"table": "7", "seat": SEAT, "player": player, "next": next_seat, "checked": checked}
    return scenes.state(None, screen="checkin", players={SEAT: player} if player else {}, seatmap=seatmap)


def keypad(ui):
    return sorted(w for w in ui["widgets"] if w.startswith("key:") or w in ("btn:del", "btn:checkin"))


class CheckinHub:
    """Answers a ``checkin`` as the table hub does: the right number → a state with
    ``checked``; any other → reject ``checkin_wrong`` naming the seat, never the number."""

    def __init__(self, right, next_seat=None):
        self.right = right
        self.next_seat = next_seat
        self.typed = []

    def __call__(self, hub, msg):
        if msg["t"] != "checkin":
            return
        self.typed.append(msg["no"])
        if msg["no"] == self.right:
            hub.send(checkin_state(self.next_seat, checked=True))
        else:
            hub.send({"t": "reject", "code": "checkin_wrong", "ref": msg["s"],
                      "en": "Player %d does not sit here this round; ask a referee" % msg["no"],
                      "zh": "%d 号选手本轮不在此座位，请叫裁判" % msg["no"]})


def test_checkin_screen_shows_who_sits_here_and_the_keypad(rigs, tmp_path, fw):
    r = rigs(checkin_state())
    ui = r.seat.wait_screen("checkin")
    assert "第7桌 %s · 本轮选手 李四" % SEAT_ZH[SEAT] in texts(ui)
    assert "请输入选手号，再点确认" in texts(ui)
    assert not any(t.startswith("上轮选手请到") for t in texts(ui)), "no next seat given"
    assert keypad(ui) == sorted(["key:%d" % d for d in range(10)] + ["btn:del", "btn:checkin"])
    assert all(enabled(ui, "key:%d" % d) for d in range(10))
    assert not enabled(ui, "btn:del") and not enabled(ui, "btn:checkin"), "nothing typed yet"
    assert enabled(ui, "btn:call"), "叫裁判 stays available"
    assert ui["missing"] == 0
    pins.check(fw, "checkin", r.seat.settle()[1], tmp_path)


def test_checkin_with_the_previous_players_next_seat(rigs, tmp_path, fw):
    r = rigs(checkin_state(next_seat={"table": "3", "seat": "N"}))
    ui = r.seat.wait_screen("checkin")
    assert "上轮选手请到 第3桌 北家" in texts(ui)
    pins.check(fw, "checkin_next", r.seat.settle()[1], tmp_path)


def test_checkin_keypad_types_at_most_six_digits_and_deletes(rigs, tmp_path, fw):
    r = rigs(checkin_state())
    ui = r.seat.wait_screen("checkin")
    for d in "1234567":
        mark = r.seat.mark()
        r.seat.tap_widget("key:" + d)
        ui = r.seat.wait_screen("checkin", after=mark) if d != "7" else r.seat.wait_line("tap ", after=mark)
    ui = r.seat.ui
    assert "123456" in texts(ui) and "1234567" not in texts(ui)
    assert not any(enabled(ui, "key:%d" % d) for d in range(10)), "six digits: the digit keys lock"
    assert enabled(ui, "btn:del") and enabled(ui, "btn:checkin")
    pins.check(fw, "checkin_typed", r.seat.settle()[1], tmp_path)
    mark = r.seat.mark()
    r.seat.tap_widget("btn:del")
    ui = r.seat.wait_screen("checkin", after=mark)
    assert "12345" in texts(ui) and enabled(ui, "key:0")
    assert r.hub.messages("checkin") == [], "nothing is sent before 确认"


def test_checkin_by_taps_wrong_number_then_right(rigs, tmp_path, fw):
    answer = CheckinHub(right=12)
    r = rigs(checkin_state())
    r.hub.on_message = answer
    r.seat.wait_screen("checkin")
    # A wrong number: the hub refuses it; the seat shows the hub's words like any refusal
    s = r.seat.check_in(7)
    sent = r.hub.wait_msg("checkin")
    assert sent == {"t": "checkin", "s": s, "no": 7}
    ui = r.seat.wait_screen("refusal")
    assert "7 号选手本轮不在此座位，请叫裁判" in texts(ui) and ui["base"] == "checkin"
    pins.check(fw, "checkin_wrong", r.seat.settle()[1], tmp_path)
    r.seat.tap_widget("btn:ok")
    ui = r.seat.wait_screen("checkin")
    assert not enabled(ui, "btn:del") and texts(ui).count("7") == 1, "the digits go (7 is its key's only)"
    # The right one, typed over a half-typed number (check_in clears it as a person would)
    mark = r.seat.mark()
    r.seat.tap_widget("key:9")
    r.seat.wait_screen("checkin", after=mark, where=lambda u: "9" in u["text"])
    mark = r.hub.mark()
    r.seat.check_in(12)
    assert r.hub.wait_msg("checkin", after=mark)["no"] == 12
    ui = r.seat.wait_screen("checked_in")
    assert "已签到，请等待开始" in texts(ui)
    assert ui["missing"] == 0, "every character drawn from the font (the refusal's too)"
    assert not keypad(ui), "checked in: no keypad"
    assert answer.typed == [7, 12]
    pins.check(fw, "checked_in", r.seat.settle()[1], tmp_path)
    assert all(f[2] == 0 for f in r.seat.frames), "the draw loop allocated: %r" % r.seat.frames
    trouble = [ln for ln in r.seat.lines if ln.startswith(("error", "drop"))]
    assert trouble == [] and r.seat.stderr == []


def test_checkin_in_english(rigs, tmp_path, fw):
    r = rigs(checkin_state(next_seat={"table": "3", "seat": "N"}), welcome=dict(WELCOME, lang="en"))
    ui = r.seat.wait_screen("checkin")
    assert {"Table 7, %s · this round: 李四" % {"E": "East", "S": "South", "W": "West", "N": "North"}[SEAT],
            "Previous player: go to table 3, North", "Delete", "Confirm"} <= set(texts(ui))
    pins.check(fw, "checkin_en", r.seat.settle()[1], tmp_path)
    r.hub.send(checkin_state(checked=True))
    ui = r.seat.wait_screen("checked_in")
    assert "Checked in, waiting for the start" in texts(ui)


def test_checkin_unanswered_frees_the_keypad(rigs):
    """A hub that never answers (an older hub): the keypad locks while the check-in is out,
    and frees itself again so the player can retry."""
    r = rigs(checkin_state())
    r.seat.wait_screen("checkin")
    s = r.seat.check_in(5)
    ui = r.seat.wait_screen("checkin", where=lambda u: "已发送，等待主机确认" in u["text"])
    assert not enabled(ui, "key:1") and not enabled(ui, "btn:checkin")
    ui = r.seat.wait_screen("checkin", timeout=15, where=lambda u: enabled(u, "btn:checkin"))
    assert "5" in texts(ui), "the digits stay for another try"
    assert [m["s"] for m in r.hub.messages("checkin")] == [s]


def ui_snippet(frames):
    """MicroPython lines that make a seat's UI (``ui``, its mirror ``m``, welcomed at table 7) on a
    host display writing to ``frames``, and ``state(screen)``: a check-in state message."""
    return (
        "import gc, sys\n"
        "from board.host import HostDisplay\n"
        "from seat.state import Mirror\n"
        "from seat.ui import UI\n"
        "class App:\n"
        "    dev = 'S-0007'\n"
        "m = Mirror(0)\n"
        "ui = UI(HostDisplay(%r, 8, 1), m, App())\n" % str(frames) +
        "m.apply({'t': 'welcome', 'seat': 'E', 'table': '7', 'event': 'e', 'lang': 'zh', 'player': None}, 0)\n"
        "def state(screen):\n"
        "    return {'t': 'state', 'screen': screen, 'view': None, 'turn': None, 'clock': None, 'players': {},\n"
        "            'result': None, 'seatmap': {'table': '7', 'seat': 'E', 'player': {'id': 'P1', 'name': 'x'},\n"
        "                                        'next': None, 'checked': False}}\n")


def snippet_output(fw, code):
    """What MicroPython ``code`` printed with the image mounted (it must exit 0)."""
    from paizhuo.sim.firmware import run_snippet
    out = run_snippet(fw, code)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_checkin_module_is_loaded_only_while_its_screen_is_up(fw, tmp_path):
    """The check-in screen's code lives in seat/checkin.py, imported when the screen is built
    and dropped when another screen is: a deal's heap never carries it."""
    code = (
        ui_snippet(tmp_path / "frames") +
        "def cycle():\n"
        "    m.apply(state('checkin'), 0); ui.update()\n"
        "    up = 'seat.checkin' in sys.modules and len(ui.widgets)\n"
        "    m.apply(state('waiting'), 0); ui.update(); gc.collect()\n"
        "    return up, 'seat.checkin' in sys.modules, gc.mem_free()\n"
        "m.apply(state('waiting'), 0); ui.update(); gc.collect()\n"
        "out = [gc.mem_free(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"  # no list growth while measuring
        "for i in range(4):\n"
        "    out[1 + 3 * i:4 + 3 * i] = cycle()\n"
        "print(*out)\n")
    words = snippet_output(fw, code).split()
    start, rounds = int(words[0]), [words[i:i + 3] for i in range(1, 13, 3)]
    assert all(int(w) > 20 for w, _, _ in rounds), "the keypad was built, every round"
    assert all(loaded == "False" for _, loaded, _ in rounds), "seat.checkin was dropped with its screen"
    free = [int(f) for _, _, f in rounds]
    # The first check-ins leave the module's qstrs (interned for good) and grown tables
    # (sys.modules, the widget list: about 600 bytes on the unix port); then nothing more.
    assert start - free[0] < 1024, "the first check-in kept %d bytes" % (start - free[0])
    assert free[0] - free[1] <= 32 and free[1] == free[2] == free[3], "check-ins keep heap: free after each %r" % free


def test_checkin_taps_come_from_the_hit_map():
    keys = {"key:%d" % d: [d * 10, 200, 8, 4, 1] for d in range(10)}
    keys["btn:checkin"] = [400, 300, 60, 20, 0]
    ui = {"screen": "checkin", "widgets": keys}
    assert checkin_taps(ui, 907) == [(94, 202), (4, 202), (74, 202), (430, 310)]
    assert checkin_taps(ui, 0) == [(4, 202), (430, 310)]
    for bad in (-1, 1000000, 1.0, "12", True, None):
        with pytest.raises(ValueError, match="whole number from 0 to 999999"):
            checkin_taps(ui, bad)
    with pytest.raises(SeatError, match="not at check-in"):
        checkin_taps({"screen": "play", "widgets": {"btn:play": [0, 0, 1, 1, 1]}}, 1)


# ---- referee notes -------------------------------------------------------------------------------

def test_note_banner_until_the_screen_changes(rigs, tmp_path, fw):
    r = rigs(scenes.state(None, screen="waiting"))
    r.seat.wait_screen("waiting")
    r.hub.send({"t": "note", "en": "A referee is on the way", "zh": "裁判已收到，请稍候"})
    ui = r.seat.wait_screen("waiting", where=lambda u: "裁判已收到，请稍候" in u["text"])
    assert "A referee is on the way" not in texts(ui)
    pins.check(fw, "note", r.seat.settle()[1], tmp_path)
    # messages that leave the screen as it is keep the note up
    mark = r.seat.mark()
    r.hub.send({"t": "seatmap", "seatmap": {"table": "7", "seat": SEAT, "player": None, "next": None}})
    ui = r.seat.wait_screen("waiting", after=mark)
    assert "裁判已收到，请稍候" in texts(ui)
    # a new screen takes it down
    g = scenes.fresh()
    r.hub.send(scenes.state(g))
    ui = r.seat.wait_screen("show")
    assert "裁判已收到，请稍候" not in texts(ui)


def test_note_goes_after_ten_seconds_and_follows_the_language(rigs):
    r = rigs(scenes.state(scenes.play_phase()), welcome=dict(WELCOME, lang="en"))
    r.seat.wait_screen("play")
    r.hub.send({"t": "note", "en": "Table paused by referee Li", "zh": "李裁判暂停了本桌"})
    ui = r.seat.wait_screen("play", where=lambda u: "Table paused by referee Li" in u["text"])
    assert "card:" + scenes.play_phase().view(SEAT)["hand"][0] in ui["widgets"] and enabled(ui, "btn:call")
    r.seat.wait_screen("play", timeout=20, where=lambda u: "Table paused by referee Li" not in u["text"])


def test_a_garbage_collection_during_a_band_is_not_counted_as_the_draw_loops_allocation(fw, tmp_path):
    """Calling a function with many locals (gfx.draw, Font.draw) puts its frame on the heap for
    the call; on a heap full of garbage that allocation collects, and the collection used to
    show as the band's allocation (a negative figure: "the draw loop allocated" once under
    load).  Here every band starts on a heap whose free room is holes of one size, from too
    small for the drawing functions' frames to large enough, and the rest garbage: every frame
    drawn reports 0 bytes."""
    code = (
        ui_snippet(tmp_path / "frames") +
        "m.apply(state('checkin'), 0)\n"
        "def garbage_around_holes(size):\n"
        "    # Free room only in holes of `size` bytes between garbage (gc off while it is laid out).\n"
        "    gc.collect()\n"
        "    gc.disable()\n"
        "    holes = seps = None\n"  # chains of tuples: a list's growth would leave large holes
        "    try:\n"
        "        while True:\n"
        "            holes = (holes, bytearray(size))\n"
        "            seps = (seps,)\n"
        "    except MemoryError:\n"
        "        pass\n"
        "    holes = None\n"
        "    gc.collect()\n"
        "    seps = None\n"
        "    gc.enable()\n"
        "out = []\n"
        "for size in range(16, 528, 16):\n"
        "    ui.update()\n"
        "    garbage_around_holes(size)\n"
        "    while ui.draw():\n"
        "        pass\n"
        "    out.append(ui._alloc)\n"
        "print(*out)\n")
    figures = [int(w) for w in snippet_output(fw, code).split()]
    assert len(figures) == 32 and figures == [0] * 32, "the bands' allocation on a heap full of garbage: %r" % figures
