"""``paizhuo score``: results in, standings out (JSON, CSV or an HTML page).

    paizhuo score --input results.json [--format json|csv|html] [--output FILE] [--expected N | GROUP=N ...]
                  [--exact-ties]

The input is a JSON array of result rows, or an object ``{"results": [...]}`` (what the venue
exports); ``--input -`` reads standard input.  Each row: ``player``, ``board``, ``seat``, ``table``,
``score`` (integer), ``think_ms`` (integer), optional ``group`` and ``round`` (see
`paizhuo.venue.scoring`).  ``--expected`` sets N, the results each deal and seat should have in a
group (default: the tables seen in the group); ``--expected 11`` for every group, ``--expected A=11``
for group A (repeatable).  ``--exact-ties`` judges equal R on the exact value instead of the
official one-decimal R (see `paizhuo.venue.scoring`).

Bad input prints what is wrong, naming the row, to stderr and exits with 2; no output file is
written then (the file is written whole or not at all).
"""

import json
import os
import sys
import tempfile

from ..inputs import InputError, parse_json
from . import scoring

FORMATS = ("json", "csv", "html")
EXIT_BAD_INPUT = 2


class _Row(dict):
    """A JSON object that remembers keys it had twice (JSON allows it; a result must not)."""
    duplicates = ()


def _object(pairs):
    row = _Row()
    dup = []
    for k, v in pairs:
        if k in row and k not in dup:
            dup.append(k)
        row[k] = v
    if dup:
        row.duplicates = tuple(dup)
    return row


def load_rows(text):
    """The result rows of an input text; refuses what is not a JSON list of rows.

    >>> load_rows('{"results": [{"player": 1}]}')
    [{'player': 1}]
    >>> load_rows('[{"score": 1, "score": 2}]')
    Traceback (most recent call last):
    ...
    paizhuo.venue.scoring.ScoringInputError: row 1: the key 'score' is given twice; give each field once
    """
    try:
        data = parse_json(text, "the input", object_pairs_hook=_object)
    except InputError as e:
        raise scoring.ScoringInputError(
            e.code, "%s; it must be a JSON array of result rows" % e.en, "%s；应为成绩行的 JSON 数组" % e.zh) from None
    if isinstance(data, dict):
        if "results" not in data:
            raise scoring.ScoringInputError(
                "not_a_list", "the input is an object without \"results\"; give a JSON array of result rows "
                "or {\"results\": [...]}", "输入对象中没有 \"results\"；请给出成绩行数组或 {\"results\": [...]}")
        data = data["results"]
    if not isinstance(data, list):
        raise scoring.ScoringInputError(
            "not_a_list", "the results must be a JSON array of result rows, not %s" % type(data).__name__,
            "成绩必须是成绩行的 JSON 数组")
    for i, row in enumerate(data, 1):
        dup = getattr(row, "duplicates", ())
        if dup:
            raise scoring.ScoringInputError(
                "duplicate_key", "row %d: the key %r is given twice; give each field once" % (i, dup[0]),
                "第 %d 行：字段 %r 出现两次；每个字段只写一次" % (i, dup[0]), row=i)
    return [dict(r) if isinstance(r, _Row) else r for r in data]


def parse_expected(values, results):
    """``--expected`` values (``"11"`` or ``"A=11"``) as the ``expected`` argument of `scoring.standings`.

    ``results`` are the validated rows: group names on the command line are text and are matched to
    the groups of the input by their text (group 1 in the input is ``1=11``).

    >>> parse_expected(["11"], [])
    11
    """
    if not values:
        return None
    groups = {}
    for r in results:
        groups.setdefault(str(r.group), r.group)
    default = None
    named = {}
    for v in values:
        name, sep, number = v.rpartition("=")
        try:
            n = int(number)
        except ValueError:
            n = 0
        if n < 1 or not number.strip().isdigit():
            raise scoring.ScoringInputError(
                "bad_expected", "--expected takes N or GROUP=N with N a whole number of at least 1, not %r" % v,
                "--expected 的格式是 N 或 组=N，N 为不小于 1 的整数，而不是 %r" % v)
        if not sep:
            if default is not None:
                raise scoring.ScoringInputError("bad_expected", "--expected N is given twice; give it once",
                                                "--expected N 只能给一次")
            default = n
            continue
        if name not in groups:
            raise scoring.ScoringInputError(
                "unknown_group", "--expected names group %r, which has no results; the groups are %s"
                % (name, ", ".join(sorted(groups))), "--expected 中的组 %r 没有成绩；现有的组是 %s"
                % (name, "、".join(sorted(groups))))
        if groups[name] in named:
            raise scoring.ScoringInputError("bad_expected", "--expected names group %r twice" % name,
                                            "--expected 中组 %r 出现两次" % name)
        named[groups[name]] = n
    if default is not None and not named:
        return default
    out = {g: named.get(g, default) for g in groups.values() if g in named or default is not None}
    return out


def render(st, fmt):
    """The standings as text in ``fmt``.

    JSON is ``Standings.to_dict()`` with one player per line: readable in an editor and diff, and
    written by the fast compact encoder (``indent`` takes the slow one: 1.7 s against 0.4 s for
    2,000 players × 24 boards).
    """
    if fmt == "json":
        d = st.to_dict()
        players = d.pop("players")
        head = json.dumps(d, ensure_ascii=False)[:-1]
        lines = [json.dumps(p, ensure_ascii=False) for p in players]
        return head + ', "players": [\n' + ",\n".join(lines) + "\n]}\n"
    if fmt == "csv":
        return st.to_csv()
    return st.to_html()


def _write_whole(path, text):
    """Write ``text`` to ``path`` through a temporary file beside it, so a reader never sees half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".paizhuo-score-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        umask = os.umask(0)  # mkstemp makes the file 0600; give it the mode a plain open() would
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def run(input_path, fmt="json", output=None, expected=None, exact_ties=False, stdin=None, stdout=None, stderr=None):
    """The command: returns the exit code (0, or 2 for bad input or an unusable file)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    if fmt not in FORMATS:
        print("paizhuo score: --format is one of %s, not %r" % (", ".join(FORMATS), fmt), file=stderr)
        return EXIT_BAD_INPUT
    if output is not None and input_path != "-" and os.path.exists(output) and os.path.exists(input_path) \
            and os.path.samefile(output, input_path):
        print("paizhuo score: --output %s is the input file; write the standings elsewhere" % output, file=stderr)
        print("paizhuo score: 输出文件 %s 就是输入文件；请写到别处" % output, file=stderr)
        return EXIT_BAD_INPUT
    try:
        if input_path == "-":
            text = stdin.read()
        else:
            with open(input_path, encoding="utf-8-sig") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print("paizhuo score: cannot read the input %s: %s" % (input_path, e), file=stderr)
        print("无法读取输入文件 %s" % input_path, file=stderr)
        return EXIT_BAD_INPUT
    try:
        rows = load_rows(text)
        # Group names on the command line are matched against the validated rows' groups.
        named = any("=" in v for v in expected or ())
        st = scoring.standings(rows, expected=parse_expected(expected, scoring.validate(rows) if named else ()),
                               exact_ties=exact_ties)
    except scoring.ScoringInputError as e:
        print("paizhuo score: %s" % e.en, file=stderr)
        print("paizhuo score: %s" % e.zh, file=stderr)
        return EXIT_BAD_INPUT
    out = render(st, fmt)
    if output is None:
        stdout.write(out)
        return 0
    try:
        _write_whole(output, out)
    except OSError as e:
        print("paizhuo score: cannot write %s: %s" % (output, e), file=stderr)
        return EXIT_BAD_INPUT
    return 0


def add_arguments(parser):
    """The options of ``paizhuo score`` on its argparse sub-parser."""
    parser.add_argument("--input", required=True, metavar="FILE",
                        help="results: a JSON array of rows, or {\"results\": [...]}; - reads standard input")
    parser.add_argument("--format", default="json", choices=FORMATS, help="output format (default json)")
    parser.add_argument("--output", metavar="FILE", help="write here (whole or not at all) instead of standard output")
    parser.add_argument("--expected", action="append", metavar="N|GROUP=N",
                        help="results each deal and seat should have (Neuberg when fewer); default: the tables "
                             "seen in the group; repeat GROUP=N per group")
    parser.add_argument("--exact-ties", action="store_true",
                        help="judge equal R on the exact value, not the official one-decimal R (rule option)")


def command(args):
    """Run ``paizhuo score`` from parsed arguments; returns the exit code."""
    return run(args.input, fmt=args.format, output=args.output, expected=args.expected, exact_ties=args.exact_ties)
