"""Card and Big Two vector checks (cards_*.jsonl, bigtwo_*.jsonl) for tests/mpy/run_vectors.py.

Plain code for MicroPython and CPython alike: no f-string specs, no rjust/ljust, no
itertools/typing/dataclasses.  ``check(name, case)`` returns None or what went wrong.
Under MicroPython the runner imports the .mpy that tests/mpy/build.py makes of it.
"""

import gc

from paizhuo_shared import bigtwo as B
from paizhuo_shared import cards as C


def _get(case, key, seat):
    m = case.get(key)
    return bool(m and m.get(seat))


def _expect_error(case, fn):
    """For a case with "error": the call must raise InvalidCardError with that code."""
    try:
        fn()
    except C.InvalidCardError as e:
        if e.code != case["error"]:
            return "raised %s (%s), expected %s" % (e.code, e, case["error"])
        if not e.zh or not e.en:
            return "error %s has no zh/en text" % e.code
        return None
    return "accepted, expected error %s" % case["error"]


def check_cards(case, rules):
    deck = case.get("deck", C.DECK52)
    if "error" in case:
        return _expect_error(case, lambda: C.parse_many(case["input"], deck))
    got = C.parse_many(case["input"], deck)
    if got != case["cards"]:
        return "parse_many gives %s, expected %s" % (got, case["cards"])
    if "sorted" in case:
        got_sorted = C.sort_codes(got)
        if got_sorted != case["sorted"]:
            return "sort_codes gives %s, expected %s" % (got_sorted, case["sorted"])
    if "pretty" in case:
        shown = [C.pretty(c) for c in got]
        if shown != case["pretty"]:
            return "pretty gives %s, expected %s" % (shown, case["pretty"])


def check_decks(case, rules):
    d = C.deck(case["deck"])
    if len(d) != case["size"]:
        return "deck %s has %d cards, expected %d" % (case["deck"], len(d), case["size"])
    distinct = {}
    for c in d:
        distinct[c] = distinct.get(c, 0) + 1
    if len(distinct) != case["distinct"] or max(distinct.values()) != case["copies"]:
        return "deck %s: %d distinct, %d copies max" % (case["deck"], len(distinct), max(distinct.values()))


def check_classify(case, rules):
    if "error" in case:
        return _expect_error(case, lambda: B.cards(case["cards"]))
    got = B.classify(B.cards(case["cards"]), rules)
    kinds = [] if got is None else [got[0]]
    if kinds != case["kinds"]:
        return "classify gives %s, expected %s" % (kinds, case["kinds"])


def check_beats(case, rules):
    got = B.beats(B.cards(case["play"]), B.cards(case["over"]), rules)
    if got != case["beats"]:
        return "beats gives %s, expected %s" % (got, case["beats"])


def check_score(case, rules):
    seats = case["seats"]
    hands = case.get("hands")
    pts = []
    for s in seats:
        if hands is not None:
            h = B.cards(hands[s])
            pts.append(B.card_points(len(h), B.SPADE_TWO in h, rules))
        else:
            pts.append(B.card_points(case["left"][s], _get(case, "spade_two", s), rules))
    want = [case["points"][s] for s in seats]
    if pts != want:
        return "card points %s, expected %s (seats %s)" % (pts, want, seats)
    got = B.scores(pts, [_get(case, "shown", s) for s in seats],
                   [_get(case, "doubled", s) for s in seats])
    want = [case["scores"][s] for s in seats]
    if got != want:
        return "scores %s, expected %s (seats %s)" % (got, want, seats)


def _find(cs, found):
    for p in found:
        if p[0] == cs:
            return True
    return False


def check_plays(case, rules):
    # Lean on purpose: a 13-card hand can have 200+ plays, close to what a 64 KB heap holds.
    # The card lists become tuples and the JSON strings are dropped before plays() runs.
    hand = B.cards(case.pop("hand"))
    incl = [B.cards(p) for p in case.pop("includes", ())]
    excl = [B.cards(p) for p in case.pop("excludes", ())]
    size = case.get("size", 0)
    above = -1
    if case.get("over"):
        above = B.classify(B.cards(case["over"]), rules)[1]
    must = case.get("must_hold")
    must = -1 if must is None else B.card(must)
    gc.collect()
    got = B.plays(hand, rules, size, above, must, bool(case.get("top_single_only")))
    per = {}
    prev = None
    for cs, kind, value in got:
        if B.classify(cs, rules) != (kind, value):
            return "plays lists %s as %s %d, classify says %s" % (
                " ".join(B.codes(cs)), kind, value, B.classify(cs, rules))
        if size and len(cs) != size:
            return "plays lists %s when following with %d cards" % (" ".join(B.codes(cs)), size)
        if cs == prev:  # plays are sorted with the cards in the key: a repeat is adjacent
            return "plays lists %s twice" % " ".join(B.codes(cs))
        prev = cs
        per[kind] = per.get(kind, 0) + 1
    if len(got) != case["count"]:
        return "plays lists %d plays, expected %d (by kind %s, expected %s)" % (
            len(got), case["count"], per, case.get("by_kind"))
    if "by_kind" in case and per != case["by_kind"]:
        return "plays by kind %s, expected %s" % (per, case["by_kind"])
    for cs in incl:
        if not _find(cs, got):
            return "plays misses %s" % " ".join(B.codes(cs))
    for cs in excl:
        if _find(cs, got):
            return "plays wrongly lists %s" % " ".join(B.codes(cs))


CHECKS = {
    "cards_parse.jsonl": check_cards,
    "cards_decks.jsonl": check_decks,
    "bigtwo_classify.jsonl": check_classify,
    "bigtwo_beats.jsonl": check_beats,
    "bigtwo_score.jsonl": check_score,
    "bigtwo_plays.jsonl": check_plays,
}


def check(name, case):
    fn = CHECKS.get(name)
    if fn is None:
        return "no checker for vector file %s (known: %s link_frames.jsonl)" % (name, " ".join(sorted(CHECKS)))
    return fn(case, B.Rules.from_dict(case.get("rules")))
