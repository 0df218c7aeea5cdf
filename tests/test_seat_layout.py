"""Issue #12: no text overflows its box on any screen, in Chinese and in English, and a
finger lands on one thing.

Every screen of every game (Big Two's, Guandan's and Paohuzi's) is built by the real firmware under
MicroPython (the UI, the mirror, the fonts), from hub messages made by the real engines;
the widgets' measured boxes and the hit map come back and are checked here: every text
inside the screen, a button's label inside the button, a table cell inside its column, a
text that starts in a panel ends in it, no two texts on top of each other, and no two
enabled targets of the hit map (buttons, cards, 叫裁判) overlapping."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "firmware"))

import gdscenes  # noqa: E402
import pzscenes  # noqa: E402
import scenes  # noqa: E402

from paizhuo.sim.firmware import build, run_snippet  # noqa: E402

pytestmark = pytest.mark.micropython

SEAT = scenes.SEAT
LONG = {s: {"id": "P%d" % i, "name": n} for i, (s, n) in enumerate(zip(
    "ENWS", ["Alexandrina Constantinopoulou", "王明", "Christopher Montgomery-Smith", "欧阳娜娜"]))}


def gd_screens():
    """(name, [messages], seat, extra) of every Guandan screen: the tribute, the return,
    play late in a deal (报牌, places), the wild-card meaning chooser, the result."""
    m, g = gdscenes.match_with_tribute()
    payer = g.to_act()[0]
    out = [("gd_tribute", [gdscenes.state(g, seat=payer, players=LONG, match=m)], payer, None)]
    bots = gdscenes.bots()
    gdscenes.play_out(g, bots, lambda g: g.phase != "tribute")
    if g.phase == "return":
        s = g.to_act()[0]
        out.append(("gd_return", [gdscenes.state(g, seat=s, players=LONG, match=m)], s, None))
    g = gdscenes.GuandanDeal(gdscenes.deal(3))
    gdscenes.play_out(g, bots, lambda g: g.out and any(len(h) <= 10 for h in g.hands))
    s = g.to_act()[0]
    out.append(("gd_play", [gdscenes.state(g, seat=s, players=LONG)], s, None))
    w, cards = gdscenes.wild_choice()
    out.append(("gd_choose", [gdscenes.state(w, seat="E", players=LONG)], "E",
                {"selected": cards, "choosing": w.describe("E", cards)}))
    g = gdscenes.GuandanDeal(gdscenes.deal(4))
    gdscenes.play_out(g, bots)
    out.append(("gd_result", [gdscenes.state(g, players=LONG, match=m)], "E", None))
    return out


def pz_screens():
    """(name, [messages], seat, extra) of every Paohuzi screen: the discard, a claim, a 吃 the
    seat may make five ways, a claim it is not asked in, the result."""
    three = {s: LONG[s] for s in "ENW"}
    seatmap = {"table": "7", "seat": "E", "player": LONG["E"], "next": {"table": "12", "seat": "N"}}
    return [("pz_discard", [pzscenes.state(pzscenes.discard(), players=three)], "E", None),
            ("pz_claim", [pzscenes.state(pzscenes.claim(), players=three)], "E", None),
            ("pz_chi", [pzscenes.state(pzscenes.chi_choice(), players=three)], "E", None),
            ("pz_waiting", [pzscenes.state(pzscenes.waiting(), players=three)], "E", None),
            ("pz_result", [pzscenes.state(pzscenes.over(), players=three, result=pzscenes.RESULT,
                                          seatmap=seatmap)], "E", None)]


def screens():
    """(name, [messages], seat, extra) of every screen a player sees."""
    seatmap = {"table": "7", "seat": SEAT, "player": LONG[SEAT], "next": {"table": "12", "seat": "N"}}
    done = dict(seatmap, next=None, done=True)
    checkin = dict(seatmap, checked=False)
    out = [
        ("waiting", [scenes.state(None, screen="waiting", players=LONG, seatmap=seatmap)]),
        ("done", [scenes.state(None, screen="waiting", players=LONG, seatmap=done)]),
        ("paused", [scenes.state(None, screen="paused", players=LONG, seatmap=seatmap)]),
        ("checkin", [scenes.state(None, screen="checkin", players=LONG, seatmap=checkin)]),
        ("show", [scenes.state(scenes.fresh(), players=LONG)]),
        ("double", [scenes.state(scenes.double_phase(), players=LONG)]),
        ("play", [scenes.state(scenes.play_phase(), players=LONG)]),
        ("follow", [scenes.state(scenes.following(), players=LONG)]),
        ("report", [scenes.state(scenes.report(), players=LONG),
                    {"t": "event", "events": [{"type": "report", "seat": "N" if SEAT != "N" else "E"}],
                     "view": scenes.report().view(SEAT), "turn": len(scenes.report().actions),
                     "clock": scenes.clock([SEAT])}]),
        ("result", [scenes.state(scenes.finished(), players=LONG, seatmap=seatmap)]),
    ]
    return [(name, msgs, SEAT, None) for name, msgs in out] + gd_screens() + pz_screens()


CODE = """
import json
from board.host import HostDisplay
from seat.state import Mirror
from seat.ui import UI
from seat import games, gfx
class App:
    dev = 'S-0007'
    def describe(self, cards):
        pass
out = []
import time
hits = []
for lang, name, msgs, called, seat, extra in json.loads(open(%r).read()):
    m = Mirror(0)
    ui = UI(HostDisplay(%r, 8, 1), m, App())
    m.apply({'t': 'welcome', 'seat': seat, 'table': '7', 'event': 'Provincial Open 2026', 'lang': lang,
             'player': None}, 0)
    for msg in msgs:
        m.apply(msg, time.ticks_ms())  # the clock runs from now: the buttons as the player sees them
    m.called = called
    if extra:  # the wild-card chooser: a selection the hub said has several meanings
        m.selected = extra['selected']
        m.meanings = ([gfx.CODES[n] for n in gfx.card_bytes(m.selected)], extra['choosing'])
        ui.update()
        games.load('guandan')._choosing = extra['choosing']
    ui.update()
    del hits[:]
    sep = ''
    for w in ui.widgets[ui.first_tap:]:
        sep = gfx.taps(w, hits.append, sep)
    ws = []
    for w in ui.widgets[:ui.first_tap or len(ui.widgets)]:
        k = w[0]
        if k == gfx.TEXT:
            ws.append(['T', w[1], w[2], w[3], w[4], w[5].decode()])
        elif k == gfx.BUTTON:
            ws.append(['B', w[1], w[2], w[3], w[4], w[5].decode(), w[9], ui.f16.width(w[5])])
        elif k == gfx.BOX and w[5] >= 0:
            ws.append(['X', w[1], w[2], w[3], w[4]])
            if len(w) > 7:  # a panel's header
                ws.append(['T', w[1] + 4, w[2] + 4, ui.f16.width(w[7]), ui.f16.height, w[7].decode()])
        elif k == gfx.CELLS:
            for y, b in w[6]:
                ws.append(['C', list(w[5]), y, [[p.decode(), ui.f16.width(p)] for p in b.split(b'\\0')]])
    out.append([lang, name, ws, json.loads('{' + ''.join(hits) + '}')])
    del ui, m
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("layout")
    return build(folder / "fw", extra_text="".join(p["name"] for p in LONG.values()), common_hanzi=False), folder


def boxes(fw, folder, lang):
    cases = [[lang, name, msgs, called, seat, extra] for name, msgs, seat, extra in screens() for called in (False, True)]
    path = folder / ("cases_%s.json" % lang)
    path.write_text(json.dumps(cases), encoding="utf-8")
    (folder / "frames").mkdir(exist_ok=True)
    out = run_snippet(fw, CODE % (str(path), str(folder / "frames")), data_heap=2 * 1024 * 1024, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


WHOLE = {"正在连接牌桌主机…", "Connecting to the table hub…", "重新连接…", "Reconnecting…"}  # … is theirs


def inside(a, b):
    return b[0] <= a[0] and b[1] <= a[1] and a[0] + a[2] <= b[0] + b[2] and a[1] + a[3] <= b[1] + b[3]


def overlap(a, b):
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_text_overflows_its_box(built, lang):
    fw, folder = built
    problems = []
    for _, name, ws, _hits in boxes(fw, folder, lang):
        # A text a box drawn after it covers (the wild-card chooser) is not seen: not checked.
        texts = [w for i, w in enumerate(ws) if w[0] == "T" and not any(
            b[0] == "X" and overlap(w[1:5], b[1:5]) for b in ws[i + 1:])]
        panels = [w[1:5] for w in ws if w[0] == "X" and w[3] < 480]
        for t in texts:
            r = t[1:5]
            if not inside(r, (0, 0, 480, 320)):
                problems.append((name, "off the screen", t[5], r))
            for p in panels:
                if p[0] <= r[0] < p[0] + p[2] and p[1] <= r[1] < p[1] + p[3] and not inside(r, p):
                    problems.append((name, "out of its panel", t[5], r, p))
            if t[5].endswith("…") and t[5] not in WHOLE and not any(n["name"][:3] in t[5] for n in LONG.values()):
                problems.append((name, "a text cut short (only names may be)", t[5]))
        for i, a in enumerate(texts):
            for b in texts[i + 1:]:
                if overlap(a[1:5], b[1:5]):
                    problems.append((name, "texts on each other", a[5], b[5]))
        for w in ws:
            if w[0] == "B" and w[5] and not (w[1] + 2 <= w[6] and w[6] + w[7] <= w[1] + w[3] - 2):
                problems.append((name, "label wider than its button", w[5], w[3], w[7]))
            if w[0] == "B":
                for t in texts:
                    if overlap(t[1:5], w[1:5]) and not inside(t[1:5], w[1:5]):
                        problems.append((name, "text under a button", t[5], w[5]))
            if w[0] == "C":
                xs = w[1] + [480]
                for i, (s, width) in enumerate(w[3]):
                    if xs[i] + width > xs[i + 1] - 2:
                        problems.append((name, "cell wider than its column", s, width, xs[i + 1] - xs[i]))
    assert problems == [], "\n".join(map(str, problems))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_finger_lands_on_one_thing(built, lang):
    """No two enabled targets of any screen's hit map overlap (叫裁判 and a panel's or a
    game's buttons, two buttons, a button and a card): a tap picks one thing."""
    fw, folder = built
    problems = []
    seen = set()
    for _, name, _ws, hits in boxes(fw, folder, lang):
        seen.add(name)
        on = [(k, v[:4]) for k, v in hits.items() if v[4]]
        for i, (a, ra) in enumerate(on):
            if not inside(ra, (0, 0, 480, 320)):
                problems.append((name, "off the screen", a, ra))
            for b, rb in on[i + 1:]:
                if overlap(ra, rb):
                    problems.append((name, a, ra, b, rb))
    assert {"play", "gd_tribute", "gd_play", "gd_choose", "gd_result", "pz_claim", "pz_result"} <= seen
    assert problems == [], "\n".join(map(str, problems))
