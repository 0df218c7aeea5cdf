"""Issue #12, the seat for a player: each behaviour under the real MicroPython firmware,
driven through hub messages and taps, with screenshots (PNG) kept in the test's folder."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "firmware"))

import scenes  # noqa: E402
from rig import Rig  # noqa: E402

from paizhuo.sim.firmware import build  # noqa: E402
from paizhuo.sim.screenshot import save_png  # noqa: E402

pytestmark = pytest.mark.micropython

SEAT = scenes.SEAT
WELCOME = {"seat": SEAT, "table": "7", "event": "demo", "lang": "zh", "player": scenes.PLAYERS[SEAT]}


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    return build(tmp_path_factory.mktemp("firmware"), common_hanzi=False)


@pytest.fixture
def rigs(fw, tmp_path):
    made = []

    def make(first_state, **kw):
        kw.setdefault("welcome", WELCOME)
        r = Rig(fw, tmp_path / ("seat%d" % len(made)), **kw)
        made.append(r)
        r.hub.on_session = lambda hub: hub.send(first_state)
        return r

    yield make
    for r in made:
        r.close()


def test_a_drag_selects_a_run_of_cards(rigs, tmp_path):
    g = scenes.play_phase()
    r = rigs(scenes.state(g))
    ui = r.seat.wait_screen("play")
    hand = g.view(SEAT)["hand"]
    a, b = ui["widgets"]["card:" + hand[1]], ui["widgets"]["card:" + hand[4]]
    r.seat.proc.stdin.write(b"drag %d %d %d %d\n" % (a[0] + 20, a[1] + 20, b[0] + 20, b[1] + 20))
    r.seat.proc.stdin.flush()
    ui = r.seat.wait_screen("play", where=lambda u: u["widgets"]["card:" + hand[2]][1] < 225)
    picked = [c for c in hand if ui["widgets"]["card:" + c][1] in (222, 272)]
    assert picked == hand[1:5]
    save_png(r.seat.settle()[1], tmp_path / "drag.png")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_result_explains_the_score(rigs, tmp_path, lang):
    g = scenes.finished()
    r = rigs(scenes.state(g, seatmap={"table": "7", "seat": SEAT, "player": scenes.PLAYERS[SEAT], "next": None}),
             welcome=dict(WELCOME, lang=lang))
    ui = r.seat.wait_screen("result")
    res = g.result()
    for seat in "ENWS":
        x = (3 if res.shown[seat] else 1) * (2 if res.doubled[seat] else 1)
        assert "×%d" % x in ui["text"]
    save_png(r.seat.settle()[1], tmp_path / ("result_%s.png" % lang))


def test_own_choices_show_on_own_screen(rigs, tmp_path):
    g = scenes.game_until(lambda g: g.phase == "play", shows={"E": False, "N": False, "W": False, "S": False},
                          doubles={s: s == SEAT for s in "ENWS"})
    r = rigs(scenes.state(g))
    ui = r.seat.wait_screen("play")
    assert any("加倍×2" in t for t in ui["text"]) and any("不明牌" in t for t in ui["text"])
    save_png(r.seat.settle()[1], tmp_path / "own_marks.png")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_table_done_with_its_round_says_so(rigs, tmp_path, lang):
    seatmap = {"table": "7", "seat": SEAT, "player": scenes.PLAYERS[SEAT], "next": None, "done": True}
    r = rigs(scenes.state(None, screen="waiting", seatmap=seatmap), welcome=dict(WELCOME, lang=lang))
    done = "本轮在本桌已全部打完" if lang == "zh" else "This round is over at this table"
    ui = r.seat.wait_screen("waiting", where=lambda u: done in u["text"])
    assert "请稍候，牌局即将开始" not in ui["text"] and "Please wait: the deal starts soon" not in ui["text"]
    save_png(r.seat.settle()[1], tmp_path / ("done_%s.png" % lang))
