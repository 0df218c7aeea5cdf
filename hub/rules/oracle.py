"""The rules oracle: answers rule questions as JSON, for referees and conformance tests.

``paizhuo rules serve`` reads one JSON request per line and writes one JSON answer per line.
A malformed request gets ``{"ok": false, "error": "..."}`` and the next line is read as usual.

Ops: ``classify`` (cards → kinds), ``beats`` (play over play), ``score`` (hands left, 明牌 and
加倍 → card points and scores), ``legal`` (every legal play of a hand, optionally over a play,
on the 首攻 or under the 报单 duty), ``replay`` (a deal record → where it stands, and the
result if it is over; an illegal action is named by its index), ``huxi`` and ``win`` (word-card
games: the 胡息 of groups, the win check with the best arrangement) and ``games``.  Each op takes
optional ``"rules"``: rule options by name (docs/rules-options.md).  Each game answers through
its oracle in the registry of games (``<game>_oracle.py`` beside the engine); this module
knows no game.  A refusal carries ``code``, ``en`` and
``zh`` (and ``error``, the English text, as before).

>>> answer({"op": "games"})["games"] == sorted(registry.GAMES)
True
>>> answer({"op": "classify", "game": "chess", "cards": []})["code"]
'unknown_game'
"""

import json
import sys

from ..errors import CodedError
from ..inputs import InputError, parse_json
from .. import rules as registry

OPS = ("classify", "beats", "score", "legal", "replay", "huxi", "win", "games")
MAX_LINE = 64 * 1024  # a request longer than this is refused without parsing


class RequestError(CodedError):
    """A request the oracle cannot answer; the message says what to fix."""

    def __init__(self, en, zh=None, code="bad_request"):
        super().__init__(code, en, zh or "请求有误：%s" % en)


def _field(req, name, kind=None):
    if name not in req:
        raise RequestError("missing field %r" % name, "缺少字段 %s" % name, "missing_field")
    value = req[name]
    if kind is not None and not isinstance(value, kind):
        en, zh = {list: ("a list", "列表"), dict: ("an object", "对象"), str: ("a string", "文字")}[kind]
        raise RequestError("field %r must be %s" % (name, en), "字段 %s 必须是%s" % (name, zh), "bad_field")
    return value


def answer(req):
    """Answer one request (a dict); never raises for bad input."""
    try:
        if not isinstance(req, dict):
            raise RequestError("a request must be a JSON object like {\"op\": \"classify\", ...}")
        op = _field(req, "op", str)
        if op not in OPS:
            raise RequestError("unknown op %r; ops are %s" % (op, ", ".join(OPS)))
        if op == "games":
            return {"ok": True, "games": sorted(registry.GAMES)}
        game = _field(req, "game", str)
        if game not in registry.GAMES:
            names = ", ".join(sorted(registry.GAMES))
            raise RequestError("unknown game %r; games are %s" % (game, names),
                               "没有游戏 %r；可用的游戏有 %s" % (game, names), "unknown_game")
        out = {"ok": True}
        # Each game's questions are its own (the registry's oracle: request, op → the answer's fields).
        out.update(registry.game(game).oracle(req, op))
        return out
    except ValueError as e:  # CodedError, InvalidCardError, IllegalActionError, rule options, deals
        return _refusal(e)


def _refusal(e):
    """The answer to a refused request: the English text as ``error`` (and ``en``), ``code``, ``zh``."""
    en = getattr(e, "en", None) or str(e)
    return {"ok": False, "error": str(e), "code": getattr(e, "code", None) or "bad_request", "en": en,
            "zh": getattr(e, "zh", None) or "请求有误：%s" % en}




def answer_line(line):
    """Answer one line (text or UTF-8 bytes) of the serve protocol; returns the JSON text of the
    answer (no newline).

    >>> json.loads(answer_line(b'{"op": "games"}'))["ok"]
    True
    >>> answer_line("[" * 30000)
    '{"ok": false, "error": "the request: the data is nested more than 32 levels deep; flatten it", "code": "too_deep", "en": "the request: the data is nested more than 32 levels deep; flatten it", "zh": "the request：数据嵌套超过 32 层；请减少嵌套"}'
    """
    if len(line) > MAX_LINE:
        en = "request longer than %d bytes" % MAX_LINE
        out = {"ok": False, "error": en, "code": "too_big", "en": en, "zh": "请求超过 %d 字节" % MAX_LINE}
    else:
        try:
            req = parse_json(line, "the request", max_bytes=MAX_LINE)
        except InputError as e:   # not JSON, not UTF-8, too deep, bad text or numbers
            out = {"ok": False, "error": e.en, "code": e.code, "en": e.en, "zh": e.zh}
        else:
            try:
                out = answer(req)
            except Exception as e:  # a bug must not end a referee's session; say so and carry on
                sys.stderr.write("paizhuo rules: internal error on %r: %r\n" % (line[:200], e))
                en = "internal error (reported on stderr): %s" % type(e).__name__
                out = {"ok": False, "error": en, "code": "internal_error", "en": en, "zh": "内部错误（详见 stderr）：%s" % type(e).__name__}
    return json.dumps(out, ensure_ascii=False)


def serve(inp, out):
    """Read requests from ``inp`` (text, or bytes: ``sys.stdin.buffer``, so that a line that is not
    UTF-8 is refused, not fatal) line by line until EOF, answering each on ``out`` at once."""
    for line in inp:
        if not line.strip():
            continue
        out.write(answer_line(line) + "\n")
        out.flush()
