"""The players of an event from a list: a CSV file or the spreadsheet (XLSX) federations export.

``paizhuo venue players FILE`` turns the list into ``[[players]]`` blocks for event.toml.  The
first row names the columns; the names may be English or Chinese, in any order and case:

- ``name`` / ``姓名`` (required): the player's name;
- ``id`` / ``编号`` / ``会员号``: the federation's id (default ``P`` + the number, ``P007``);
- ``no`` / ``序号`` / ``号码``: the number typed at check-in (default: the row's place in the list);
- ``bot`` / ``电脑``: ``yes``/``是``/``1`` for a computer player (人机赛 AI), empty for a person.

Other columns (club, rating, …) are ignored.  Every entry is checked with the rule of event.toml's
``[[players]]`` (:func:`paizhuo.venue.event.player_problems`), ids and numbers once each, and every
problem is reported with its row, in English and Chinese; nothing is printed when one is found.

>>> players = players_from_rows([["姓名", "会员号"], ["张三", "CN-01"], ["李四", ""]], "p.csv")
>>> [(p.id, p.name, p.no) for p in players]
[('CN-01', '张三', 1), ('P002', '李四', 2)]
>>> print(players_toml(players[:1]))
[[players]]
id = "CN-01"
name = "张三"
no = 1
<BLANKLINE>
>>> players_from_rows([["name", "no"], ["王五", "x"], ["", "3"]], "p.csv")
Traceback (most recent call last):
...
paizhuo.venue.roster.RosterError: p.csv: 2 problem(s):
  row 2: no: must be a whole number from 1 to 999999, not 'x'
  row 3: name: must be the player's name, 1 to 64 printable characters
"""

import csv
import io
import json
import os
from datetime import date, datetime, time

from ..errors import CodedError
from .event import MAX_PLAYER_NO, Player, player_problems

__all__ = ["RosterError", "read_players", "players_from_rows", "players_toml", "MAX_ROWS", "MAX_BYTES"]

MAX_BYTES = 16 * 1024 * 1024   # a list of thousands of players is well under a megabyte
MAX_ROWS = 20000
MAX_PROBLEMS = 30              # shown; the count says how many more

COLUMNS = {
    "id": ("id", "player id", "player_id", "编号", "选手编号", "会员号", "注册号"),
    "name": ("name", "player", "player name", "姓名", "选手姓名", "名字", "选手"),
    "no": ("no", "no.", "number", "序号", "选手序号", "号码", "参赛号"),
    "bot": ("bot", "ai", "电脑", "电脑选手"),
}
FIELD_ZH = {"id": "编号", "name": "姓名", "no": "序号", "bot": "电脑"}
YES = ("yes", "y", "true", "1", "是", "√")
NO = ("", "no", "n", "false", "0", "否")


class RosterError(CodedError):
    """A players' list that cannot be imported: ``problems`` holds ``(row, en, zh)`` for each
    (``row`` 1-based as the spreadsheet shows it, None for the file as a whole)."""

    def __init__(self, file, problems, code="bad_players"):
        self.file = file
        self.problems = problems
        shown = problems[:MAX_PROBLEMS]
        more = len(problems) - len(shown)

        def lines(lang):
            out = []
            for row, en, zh in shown:
                text = en if lang == "en" else zh
                out.append(("row %d: %s" if lang == "en" else "第 %d 行：%s") % (row, text) if row else text)
            if more:
                out.append("… %d more" % more if lang == "en" else "……另有 %d 个" % more)
            return "\n  ".join(out)

        super().__init__(code, "%s: %d problem(s):\n  %s" % (file, len(problems), lines("en")),
                         "%s：发现 %d 个问题：\n  %s" % (file, len(problems), lines("zh")))


def _cell(value):
    """A spreadsheet cell as text (whole numbers without ``.0``; nothing for an empty cell)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    return str(value).strip()


def _columns(header, file):
    wanted = {alias: field for field, aliases in COLUMNS.items() for alias in aliases}
    where, problems = {}, []
    for i, title in enumerate(header):
        field = wanted.get(_cell(title).lower())
        if field is None:
            continue
        if field in where:
            problems.append((1, "two columns are %s (%d and %d): keep one" % (field, where[field] + 1, i + 1),
                             "有两列都是 %s（第 %d 列和第 %d 列）：请只保留一列" % (field, where[field] + 1, i + 1)))
        where[field] = i
    if "name" not in where:
        problems.append((1, "the first row must name the columns, with a name (姓名) column; it has %s"
                         % (", ".join(repr(_cell(t)) for t in header[:8]) or "nothing"),
                         "第一行应为列名，且须有姓名（name）列；现为 %s" % ("、".join(repr(_cell(t)) for t in header[:8]) or "空")))
    if problems:
        raise RosterError(file, problems, "bad_header")
    return where


def players_from_rows(rows, file="players"):
    """The :class:`~paizhuo.venue.event.Player` list of ``rows`` (the header first, then one row
    per player; blank rows skipped), or :class:`RosterError` with every problem found."""
    rows = list(rows)
    if not rows:
        raise RosterError(file, [(None, "is empty: the first row names the columns (name, id, no), then one row "
                                  "per player", "是空的：第一行为列名（name、id、no），之后每行一名选手")], "empty")
    if len(rows) > MAX_ROWS + 1:
        raise RosterError(file, [(None, "has %d rows; an event takes at most %d players" % (len(rows) - 1, MAX_ROWS),
                                  "有 %d 行；一场比赛最多 %d 名选手" % (len(rows) - 1, MAX_ROWS))], "too_many")
    where = _columns(rows[0], file)
    players, problems, seen_id, seen_no = [], [], {}, {}
    place = 0
    for n, row in enumerate(rows[1:], 2):
        cells = [_cell(c) for c in row]
        if not any(cells):
            continue
        place += 1

        def get(field):
            i = where.get(field)
            return cells[i] if i is not None and i < len(cells) else ""

        row_problems = []
        no_text = get("no")
        if not no_text:
            no = place
        elif no_text.isascii() and no_text.isdigit() and len(no_text) <= 7:
            no = int(no_text)
        else:
            no = None
            row_problems.append(("no", "must be a whole number from 1 to %d, not %r" % (MAX_PLAYER_NO, no_text),
                                 "必须是 1 到 %d 的整数，而不是 %r" % (MAX_PLAYER_NO, no_text)))
        pid = get("id") or ("P%03d" % no if no is not None else "")
        name = get("name")
        bot_text = get("bot").lower()
        if bot_text not in YES + NO:
            row_problems.append(("bot", "must be yes or empty (a person), not %r" % bot_text,
                                 "应为 是 或留空（真人），而不是 %r" % bot_text))
        # The event.toml rule; a number already refused above, or an id made from it, is not told twice.
        skip = {"no"} | ({"id"} if not pid else set()) if no is None else set()
        row_problems += [(f, en, zh) for f, en, zh, _ in player_problems(pid or "P", name, 1 if no is None else no) if f not in skip]
        for field, value, seen in (("id", pid, seen_id), ("no", no, seen_no)):
            if value is not None and value in seen and not any(f == field for f, _, _ in row_problems):
                row_problems.append((field, "%r is also row %d's: every player has their own" % (value, seen[value]),
                                     "%r 与第 %d 行重复：每位选手各不相同" % (value, seen[value])))
            elif value is not None:
                seen.setdefault(value, n)
        problems += [(n, "%s: %s" % (f, en), "%s：%s" % (FIELD_ZH[f], zh)) for f, en, zh in row_problems]
        if not row_problems:
            players.append(Player(pid, name, no, bot_text in YES))
    if problems:
        raise RosterError(file, problems)
    if not players:
        raise RosterError(file, [(None, "has no players: one row per player below the column names",
                                  "没有选手：列名下面每行一名选手")], "empty")
    return players


def _decode(raw, file):
    for encoding in ("utf-8-sig", "gb18030"):   # Excel on a Chinese Windows saves CSV as GBK
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise RosterError(file, [(None, "is neither UTF-8 nor GB18030 text: save it again as CSV UTF-8",
                              "既不是 UTF-8 也不是 GB18030 文本：请另存为 CSV UTF-8")], "not_text")


def _csv_rows(raw, file):
    text = _decode(raw, file)
    if "\0" in text:
        raise RosterError(file, [(None, "holds NUL characters: it is not a CSV file (an .xlsx? name it .xlsx)",
                                  "含有 NUL 字符：不是 CSV 文件（若是 .xlsx，请用 .xlsx 扩展名）")], "not_text")
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        return list(csv.reader(io.StringIO(text, newline=""), dialect))
    except csv.Error as e:
        raise RosterError(file, [(None, "is not a readable CSV file (%s)" % e, "不是可读的 CSV 文件（%s）" % e)],
                          "bad_csv") from None


def _xlsx_rows(path, file):
    try:
        import openpyxl
    except ImportError:
        raise RosterError(file, [(None, "reading .xlsx needs openpyxl (pip install openpyxl); or save the sheet as CSV",
                                  "读取 .xlsx 需要 openpyxl（pip install openpyxl）；或将表格另存为 CSV")],
                          "no_xlsx") from None
    import zipfile
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, TypeError) as e:
        raise RosterError(file, [(None, "is not an .xlsx workbook (%s): save it from the spreadsheet as .xlsx or CSV"
                                  % e.__class__.__name__, "不是 .xlsx 工作簿（%s）：请从表格软件另存为 .xlsx 或 CSV"
                                  % e.__class__.__name__)], "bad_xlsx") from None
    try:
        sheet = book.worksheets[0]
        rows = []
        for row in sheet.iter_rows(values_only=True):
            rows.append(list(row))
            if len(rows) > MAX_ROWS + 1:
                break
        return rows
    finally:
        book.close()


def read_players(path):
    """The players of the list at ``path`` (``.xlsx``: its first sheet; anything else: CSV)."""
    file = str(path)
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            raise RosterError(file, [(None, "is %d bytes; a players' list is far smaller (is it the right file?)" % size,
                                      "有 %d 字节；选手名单不会这么大（文件对吗？）" % size)], "too_big")
        if file.lower().endswith((".xlsx", ".xlsm")):
            rows = _xlsx_rows(path, file)
        else:
            with open(path, "rb") as f:
                rows = _csv_rows(f.read(), file)
    except OSError as e:
        raise RosterError(file, [(None, "cannot be read (%s): check the path" % e.strerror,
                                  "无法读取（%s）：请检查路径" % e.strerror)], "no_file") from None
    return players_from_rows(rows, file)


def players_toml(players):
    """``[[players]]`` blocks for event.toml, one per player, in list order."""
    out = []
    for p in players:
        out += ["[[players]]", "id = %s" % json.dumps(p.id, ensure_ascii=False),
                "name = %s" % json.dumps(p.name, ensure_ascii=False), "no = %d" % p.no]
        if p.bot:
            out.append("bot = true")
        out.append("")
    return "\n".join(out)
