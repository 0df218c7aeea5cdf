"""A game is a plug-in found through one registry (docs/architecture.md).

The table hub, uplink, venue, simulations and demo get a game's engine, state class, bot,
seats, default rules and deals from ``paizhuo.rules.game(name)`` and never import a game
module by name; the table never imports the venue.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from paizhuo import deals, rules
from paizhuo.table.config import ConfigError, load_text

ROOT = Path(__file__).resolve().parent.parent
SECRET = b"registry test secret, 32 bytes.."
# The games a table hub runs (their bots and screens exist); a game may have its engine first.
AT_TABLE = sorted(n for n in rules.GAMES if rules.game(n).at_table)


# ---- the registry's common face -------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(rules.GAMES))
def test_every_game_answers_the_common_face(name):
    g = rules.game(name)
    assert g.name == name and rules.engine(name) is g.engine
    assert g.seats in (("E", "N", "W", "S"), ("E", "N", "W")) and g.seats == rules.DEALING[name].seats
    assert g.dealing.shown == getattr(g.engine, "SHOWN", False)
    assert isinstance(g.rules, g.engine.Rules)
    for attr in ("Rules", "Deal", "Action", "IllegalActionError", "OVER"):
        assert hasattr(g.engine, attr), attr
    deal = deals.deal(SECRET, name, 1, 1, 3).to_engine_deal()
    assert deal == g.deal_for(deals.deal(SECRET, name, 1, 1, 3)) and deal.board == 3
    state = g.state(deal, g.rules)
    seat = state.to_act()[0]
    assert seat in g.seats and state.view(seat)["seat"] == seat
    action = state.legal_actions(seat)[0]
    state.apply(action)
    again = rules.replay(name, state.record())  # the state class replays its own record exactly
    assert again.record() == state.record()


@pytest.mark.parametrize("name", AT_TABLE)
def test_every_game_at_a_table_has_a_bot(name):
    assert callable(getattr(rules.game(name).bot, "choose"))


def _play_board(g, board, key, rounds=1):
    """Play a board to its end with the game's bots, each deal n from the round key."""
    bots = {s: g.new_bot(seed=i) for i, s in enumerate(g.seats)}
    while not board.over:
        rec = deals.deal_from_round_key(key, g.name, 1, 2, round=rounds, deal=board.number)
        state = board.start(g.deal_for(rec))
        while state.phase != g.engine.OVER:
            seat = state.to_act()[0]
            state.apply(bots[seat].choose(state.view(seat), state.legal_actions(seat)))
        board.finish(state)
    return board


@pytest.mark.parametrize("name", AT_TABLE)
def test_every_game_plays_a_board_through_the_common_face(name):
    g = rules.game(name)
    opts = {"max_deals": 3} if g.match else {}
    board = _play_board(g, g.new_board(g.engine.Rules(**opts)), deals.round_key(SECRET, 1))
    res = board.result()
    for field in ("scores", "think_ms", "auto_moves"):  # the face every board's result has (score rows)
        assert sorted(res[field]) == sorted(g.seats), field
    assert all(type(v) is int for v in res["scores"].values())
    assert len(board.deals) == (res["deals"] if g.match else 1) and (not g.match or len(board.deals) <= 3)
    if g.match:  # the venue replays a board's record to the board, and scores its result
        again = rules.replay(name, board.record())
        assert again.result() == res and again.record() == board.record()
        assert board.progress()["deals_done"] == len(board.deals)
    else:
        assert rules.replay(name, board.record()).result().to_dict() == res
        assert board.progress() is None


def test_the_oracle_asks_the_registry_for_a_games_answers():
    from paizhuo.rules import oracle
    assert oracle.answer({"op": "games"})["games"] == sorted(rules.GAMES)
    for name in rules.GAMES:
        assert callable(rules.game(name).oracle)
    assert not hasattr(oracle, "GAME_ANSWERS")


def test_an_unknown_game_is_refused_naming_the_games():
    with pytest.raises(ValueError, match="bigtwo, guandan, paohuzi"):
        rules.game("poker")


@given(st.one_of(st.text(max_size=20), st.none(), st.integers(), st.lists(st.text(max_size=3), max_size=2)))
def test_any_other_name_is_a_value_error_never_a_crash(name):
    if isinstance(name, str) and name in rules.GAMES:
        assert rules.game(name).name == name
        return
    with pytest.raises(ValueError):
        rules.game(name)


def test_the_rules_package_does_not_import_the_bots():
    # Bots import rules; the registry finds a bot only when asked, so there is no import cycle.
    code = "import sys, paizhuo.rules as r; print(any(m.startswith('paizhuo.bots') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_game_with_its_engine_only_is_refused_by_a_table():
    from paizhuo.table import config
    for name in sorted(set(rules.GAMES) - set(AT_TABLE)):
        text = config.EXAMPLE.replace('game = "%s"' % rules.DEFAULT_GAME, 'game = "%s"' % name)
        with pytest.raises(ConfigError) as e:
            load_text(text, "t.toml")
        assert e.value.code == "no_table_game"


@pytest.mark.parametrize("name", AT_TABLE)
def test_every_game_at_a_table_runs_at_a_table(name):
    assert rules.game(name).at_table
    from paizhuo.table import config
    text = config.EXAMPLE.replace('game = "%s"' % rules.DEFAULT_GAME, 'game = "%s"' % name)
    for seat in rules.game(rules.DEFAULT_GAME).seats:  # a three-seat game: the fourth board is a spare
        if seat not in rules.game(name).seats:
            text = text.replace('seat = "%s"' % seat, 'seat = "spare"')
    cfg = load_text(text, "t.toml")
    assert cfg.game == name and isinstance(cfg.rules, rules.engine(name).Rules)


def test_the_table_examples_name_no_game_of_their_own():
    from paizhuo.table import config
    for text in (config.EXAMPLE, config.EXAMPLE_VENUE):
        named = [g for g in rules.GAMES if g != rules.DEFAULT_GAME and g in text]
        assert named == [] and 'game = "%s"' % rules.DEFAULT_GAME in text
        assert load_text(text, "t.toml").game == rules.DEFAULT_GAME


def test_the_venue_deals_name_is_the_lower_module():
    from paizhuo.venue import deals as venue_deals
    assert venue_deals is deals


# ---- who imports what -----------------------------------------------------------------------

def _imports(path):
    """The absolute module names a file under hub/ imports (relative imports resolved)."""
    rel = path.relative_to(ROOT / "hub").with_suffix("")
    package = ["paizhuo"] + list(rel.parts[:-1] if rel.name != "__init__" else rel.parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.append(mod)
            out += [mod + "." + a.name for a in node.names]  # `from .. import venue` names a module too
    return out


def _hub_files(*folders):
    return sorted(p for f in folders for p in (ROOT / "hub" / f).glob("*.py"))


def test_the_table_and_mqtt_never_import_the_venue():
    bad = ["%s imports %s" % (p.relative_to(ROOT), m) for p in _hub_files("table", "mqtt")
           for m in _imports(p) if m == "paizhuo.venue" or m.startswith("paizhuo.venue.")]
    assert bad == []


GAME_MODULES = tuple("paizhuo.%s.%s" % (pkg, g) for pkg in ("rules", "bots") for g in rules.GAMES) + tuple(
    "paizhuo_shared.%s" % g for g in rules.GAMES)

# Where a game's own files are: shared/<game>.py, hub/rules/<game>.py, hub/bots/<game>.py, the
# seat screens and hub/sim/<game>.py (how a simulated player taps the game on those screens, found
# through the registry), each also as <game>_<part>.py (the oracle, the narrator, the key tables).
GAME_FOLDERS = ("shared", "hub/rules", "hub/bots", "hub/sim", "device/seat/games")
# The registries, which list the games by name.
REGISTRIES = {
    "hub/rules/__init__.py": "the registry of games",
    "device/seat/games/__init__.py": "the seat's registry of game screens (a heap string of names)",
}
# What else still names a game and why; keep it empty.
ALLOWED = {}
SCANNED = ("hub", "device", "shared")
TEXT_SUFFIXES = (".py", ".js", ".html", ".css", ".toml", ".conf", ".service", ".rules")


def _a_games_own(rel):
    folder, _, name = rel.rpartition("/")
    stem = name.split(".")[0]
    return folder in GAME_FOLDERS and any(stem == g or stem.startswith(g + "_") for g in rules.DEALING)


def _game_words():
    """Every way a game is named: each game the registry deals, by name and by its titles."""
    words = set()
    for name in rules.DEALING:
        words.update(w.lower() for w in (name,) + tuple(rules.title(name)))
    return sorted(words)


def names_of_games(text, words=None):
    """The game names in ``text``, however spaced or cased (Big Two, big_two, BigTwoBot)."""
    flat = "".join(text.lower().replace("_", " ").replace("-", " ").split())
    return sorted(w for w in (words or _game_words()) if "".join(w.split()) in flat)


def test_every_game_the_registry_deals_has_a_title():
    assert sorted(rules.TITLES) == sorted(rules.DEALING)
    for name in rules.DEALING:
        en, zh = rules.title(name)
        assert en and zh and rules.title(name) == rules.TITLES[name]
    assert rules.game(rules.DEFAULT_GAME).title == rules.title(rules.DEFAULT_GAME)
    with pytest.raises(ValueError, match="unknown game"):
        rules.title("poker")


def test_a_games_own_files_are_found_by_their_names():
    g = rules.DEFAULT_GAME
    assert _a_games_own("hub/rules/%s_narrator.py" % g) and _a_games_own("device/seat/games/%s.py" % g)
    assert not _a_games_own("hub/venue/%s.py" % g) and not _a_games_own("hub/rules/common.py")


def test_the_name_check_finds_a_game_however_it_is_written():
    assert names_of_games("a Big  Two table") == ["big two", "bigtwo"]
    assert names_of_games("class BigTwoBot") == ["big two", "bigtwo"] and names_of_games("big_two") == ["big two", "bigtwo"]
    assert names_of_games("打掼蛋") == ["掼蛋"] and names_of_games("a two-seat big table") == []
    # a game added to the registry is a name at once, with its titles
    assert names_of_games("Mahjong 麻将", ["mahjong", "麻将"]) == ["mahjong", "麻将"]


def test_nothing_outside_a_games_modules_names_a_game():
    """Not an import, a doctest, an example, a help text or a comment: a game's name outside its
    own files, the registries and :data:`ALLOWED` fails; lists of games come from the registry."""
    found = {}
    for top in SCANNED:
        for p in sorted((ROOT / top).rglob("*")):
            rel = p.relative_to(ROOT).as_posix()
            if not p.is_file() or p.suffix not in TEXT_SUFFIXES or "/__pycache__/" in rel or "/font" in rel:
                continue
            if _a_games_own(rel) or rel in REGISTRIES:
                continue
            named = names_of_games(p.read_text(encoding="utf-8"))
            if named:
                found[rel] = named
    unexpected = {k: v for k, v in found.items() if k not in ALLOWED}
    assert unexpected == {}
    stale = sorted(set(ALLOWED) - set(found))
    assert stale == [], "these no longer name a game: drop them from ALLOWED"
    assert not any(_a_games_own(k) for k in ALLOWED)


def test_nothing_outside_a_games_modules_imports_a_game_by_name():
    found = {}
    for p in sorted((ROOT / "hub").rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        if _a_games_own(rel) or rel in REGISTRIES:
            continue
        named = sorted(set(m for m in _imports(p) if any(m == g or m.startswith(g + ".") for g in GAME_MODULES)))
        if named:
            found[rel] = named
    assert {k: v for k, v in found.items() if k not in ALLOWED} == {}
