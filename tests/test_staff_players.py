"""Players imported from a CSV or an XLSX list, with clear errors per row (issue 12)."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from paizhuo.venue import event as event_
from paizhuo.venue.roster import RosterError, _csv_rows, players_from_rows, players_toml, read_players

from staff_cli_run import paizhuo  # noqa: F401 (a fixture)

# An event without players: the imported blocks complete it.
HEAD = event_.example_text(secret="hex:" + "3c" * 32, pin_hash="pbkdf2-sha256$200000$" + "00" * 16 + "$" + "ab" * 32)
HEAD = HEAD[:HEAD.index("[[players]]")]


@pytest.fixture
def venue(paizhuo):
    return lambda *args: paizhuo("venue", *args)


def test_a_csv_list_becomes_players_blocks_the_venue_accepts(tmp_path, venue):
    csv = "\ufeff会员号;姓名;序号;俱乐部\nCN-0001;王鑫;1;北京\nCN-0002;李昊;2;上海\n;;;\nCN-0003;张淼;3;\n"
    csv += "".join("CN-%04d;选手%d;%d;\n" % (i, i, i) for i in range(4, 9))
    (tmp_path / "players.csv").write_text(csv, encoding="utf-8")
    out = venue("players", str(tmp_path / "players.csv"))
    assert out.returncode == 0, out.stderr
    assert "8 player(s)" in out.stderr and "已读取 8 名选手" in out.stderr
    (tmp_path / "event.toml").write_text(HEAD + out.stdout)
    cfg = event_.load(str(tmp_path / "event.toml"))
    assert [(p.id, p.name, p.no) for p in cfg.players[:3]] == [("CN-0001", "王鑫", 1), ("CN-0002", "李昊", 2),
                                                              ("CN-0003", "张淼", 3)]
    assert venue("check", "--event", str(tmp_path / "event.toml")).returncode == 0


def test_every_bad_row_is_told_in_both_languages_and_nothing_is_printed(tmp_path, venue):
    text = "姓名,序号,编号\n王五,x,A1\n,3,A2\n赵六,4,A1\n钱七,4,A4\nbot:x,5,bot:x\n"
    (tmp_path / "p.csv").write_bytes(text.encode("gb18030"))   # as Excel on a Chinese Windows saves it
    out = venue("players", str(tmp_path / "p.csv"))
    assert out.returncode == 2 and out.stdout == ""
    for en, zh in (("row 2: no: must be a whole number from 1 to 999999, not 'x'", "第 2 行：序号：必须是 1 到 999999 的整数"),
                   ("row 3: name: must be the player's name", "第 3 行：姓名："),
                   ("row 4: id: 'A1' is also row 2's", "第 4 行：编号：'A1' 与第 2 行重复"),
                   ("row 5: no: 4 is also row 4's", "第 5 行：序号：4 与第 4 行重复"),
                   ("row 6: id: must not start with 'bot:'", "第 6 行：编号：不能以 'bot:' 开头")):
        assert en in out.stderr and zh in out.stderr
    (tmp_path / "h.csv").write_text("club,rating\nx,1\n")
    out = venue("players", str(tmp_path / "h.csv"))
    assert out.returncode == 2 and "with a name (姓名) column" in out.stderr and "须有姓名（name）列" in out.stderr


def test_an_xlsx_export_is_read_from_its_first_sheet(tmp_path, venue):
    import openpyxl
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["No.", "Name", "Player ID", "Rating"])
    for i, name in enumerate(["王鑫", "李昊", "张淼", "Smith"], 1):
        sheet.append([float(i), name, 1000 + i, 1500.5])   # spreadsheets keep numbers as floats
    book.save(tmp_path / "players.xlsx")
    players = read_players(tmp_path / "players.xlsx")
    assert [(p.id, p.name, p.no) for p in players] == [("1001", "王鑫", 1), ("1002", "李昊", 2), ("1003", "张淼", 3),
                                                       ("1004", "Smith", 4)]
    (tmp_path / "bad.xlsx").write_bytes(b"PK\x03\x04 not really a workbook")
    out = venue("players", str(tmp_path / "bad.xlsx"))
    assert out.returncode == 2 and "is not an .xlsx workbook" in out.stderr and "不是 .xlsx 工作簿" in out.stderr


HEADERS = st.lists(st.sampled_from(["name", "姓名", "id", "编号", "no", "序号", "bot", "电脑", "club", "", "Name"]),
                   min_size=1, max_size=5)
CELLS = st.one_of(st.none(), st.integers(-3, 2000000), st.floats(allow_nan=True), st.text(max_size=70),
                  st.sampled_from(["1", "2", "是", "yes", "bot:1", " 张三 ", "P001", "\t", "x\ny"]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(header=HEADERS, rows=st.lists(st.lists(CELLS, max_size=6), max_size=8))
def test_any_list_gives_players_the_event_reads_back_or_row_errors_in_both_languages(header, rows):
    table = [header] + rows
    try:
        players = players_from_rows(table, "p.csv")
    except RosterError as e:
        assert e.problems and all(row is None or 1 <= row <= len(table) for row, _, _ in e.problems)
        assert all(en and zh for _, en, zh in e.problems) and e.zh != e.en
        return
    if all(p.bot for p in players):
        return   # an event of bots alone is refused by event.toml's reader, not row by row
    cfg = event_.load_text(HEAD + players_toml(players), "event.toml", base="/srv")
    assert list(cfg.players) == players


@settings(max_examples=100, deadline=None)
@given(raw=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(lambda t: t.encode("utf-8"))))
def test_any_file_is_read_or_refused_with_a_roster_error(raw):
    try:
        players_from_rows(_csv_rows(raw, "p.csv"), "p.csv")
    except RosterError as e:
        assert e.en and e.zh


def test_number_zero_is_refused_as_event_toml_refuses_it():
    # found by the property test: 0 was taken for "no number given"
    try:
        players_from_rows([["name", "no"], ["王五", "0"]], "p.csv")
    except RosterError as e:
        assert e.problems == [(2, "no: must be between 1 and 999999, not 0", "序号：必须在 1 到 999999 之间，而不是 0")]
    else:
        raise AssertionError("player number 0 accepted")
