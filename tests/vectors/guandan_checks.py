"""Guandan vector checks (guandan_*.jsonl) for tests/mpy/run_vectors.py.

Plain code for MicroPython and CPython alike, like game_checks.py.  A family of its own:
under a 64 KB heap the Guandan module (about 27 KB imported) and the Big Two one do not fit
beside each other with a listing in flight, so the runner loads one family at a time.
``check(name, case)`` returns None or what went wrong.
"""

import gc

from paizhuo_shared import cards as C
from paizhuo_shared import guandan as G


def _expect_error(case):
    """The cards must be refused with the case's error code and a text in both languages."""
    try:
        G.cards(case["cards"])
        return "accepted, expected error %s" % case["error"]
    except C.InvalidCardError as e:
        if e.code == case["error"] and e.zh and e.en:
            return None
        return "raised %s (%s / %s), expected %s with zh and en text" % (e.code, e.en, e.zh, case["error"])


def _meaning(codes, name, rules):
    """The meaning ``name`` of the cards, or the only one when ``name`` is None."""
    found = G.classify(G.cards(codes), rules)
    if name is None:
        if len(found) != 1:
            raise ValueError("%s has %d meanings, name one" % (" ".join(codes), len(found)))
        return found[0]
    for p in found:
        if p.name == name:
            return p
    raise ValueError("%s cannot mean %s" % (" ".join(codes), name))


def check_classify(case, rules):
    if "error" in case:
        return _expect_error(case)
    found = G.classify(G.cards(case["cards"]), rules)
    names = [p.name for p in found]
    if names != case["meanings"]:
        return "classify gives %s, expected %s" % (names, case["meanings"])
    stands = case.get("stands") or {}
    for p in found:
        want = stands.get(p.name)
        if want is not None and G.codes(p.stands) != want:
            return "%s: the wild cards stand for %s, expected %s" % (p.name, G.codes(p.stands), want)
        if len(p.stands) != p.cards.count(rules.wild):
            return "%s: %d stands for %d wild cards" % (p.name, len(p.stands), p.cards.count(rules.wild))


def check_beats(case, rules):
    play = _meaning(case["play"], case.get("play_as"), rules)
    over = _meaning(case["over"], case.get("over_as"), rules)
    got = G.beats(play, over, rules)
    if got != case["beats"]:
        return "beats gives %s, expected %s" % (got, case["beats"])


def _listed(found, item):
    cs = sorted(G.cards(item[0]))
    for p in found:
        if p.name == item[1] and sorted(p.cards) == cs:
            return True
    return False


def check_plays(case, rules):
    hand = G.cards(case.pop("hand"))
    over = None
    if case.get("over"):
        over = _meaning(case.pop("over"), case.get("over_as"), rules)
    gc.collect()
    found = G.plays(hand, rules, over)
    per = {}
    for p in found:
        per[p.kind] = per.get(p.kind, 0) + 1
        if over is not None and not G.beats(p, over, rules):
            return "plays lists %r, which does not beat %r" % (p, over)
    if len(found) != case["count"] or per != case["by_kind"]:
        return "plays lists %d plays (%s), expected %d (%s)" % (len(found), per, case["count"], case["by_kind"])
    for item in case["includes"]:
        if not _listed(found, item):
            return "plays misses %s as %s" % (" ".join(item[0]), item[1])
    for item in case.get("excludes", ()):
        if _listed(found, item):
            return "plays wrongly lists %s as %s" % (" ".join(item[0]), item[1])
    # Each listed play is one of classify's meanings of its cards, listed once.
    seen = {}
    for p in found:
        if p in seen:
            return "plays lists %r twice" % (p,)
        seen[p] = 1
    seen = None
    for p in found:
        if p not in G.classify(tuple(sorted(p.cards)), rules):
            return "plays lists %r, which classify does not give" % (p,)
    kinds = {}
    found = None
    gc.collect()
    for p in G.plays_by_kind(hand, rules, over):
        k = (p.kind, len(p.cards), p.key)
        if k in kinds:
            return "plays_by_kind lists %s twice" % (k,)
        kinds[k] = 1
    if len(kinds) != case["kinds"]:
        return "plays_by_kind lists %d, expected %d" % (len(kinds), case["kinds"])


def check(name, case):
    """None if the case of vector file ``name`` holds, else what went wrong."""
    rules = G.Rules.from_dict(case.get("rules"))
    if name == "guandan_classify.jsonl":
        return check_classify(case, rules)
    if name == "guandan_beats.jsonl":
        return check_beats(case, rules)
    if name == "guandan_plays.jsonl":
        return check_plays(case, rules)
    return "no Guandan checker for vector file %s" % name
