"""Safe reading of input from outside: JSON and TOML text, command-line values.

Every place that parses a file, a request body, a line of ``rules serve`` or an MQTT payload
goes through here, so one set of limits holds everywhere: a size limit, a nesting limit
(deep nesting made the parsers and everything after them recurse until a ``RecursionError``),
text without NUL or lone surrogates (SQLite, UTF-8 files and terminals cannot take them), and
numbers that are finite and no larger than a JavaScript-safe integer (a score of 10^400 or
``1e999`` is a typo or an attack, never a value).  A refusal is an :class:`InputError`, a
:class:`~paizhuo.errors.CodedError` with English and Chinese text that says what to do.

    >>> parse_json('{"a": [1, 2.5, "x"]}', "the body")
    {'a': [1, 2.5, 'x']}
    >>> parse_json("[" * 100 + "]" * 100, "the body")
    Traceback (most recent call last):
    ...
    paizhuo.inputs.InputError: the body: the data is nested more than 32 levels deep; flatten it
    >>> parse_json('{"name": "a\\\\u0000b"}', "players.json")
    Traceback (most recent call last):
    ...
    paizhuo.inputs.InputError: players.json: name: the text holds a NUL character; remove it
    >>> parse_toml("x = 1e999", "table.toml")
    Traceback (most recent call last):
    ...
    paizhuo.inputs.InputError: table.toml: x: the number is infinite or not a number; write a finite number
"""

import argparse
import json
import math
import tomllib

from .errors import CodedError

__all__ = ["InputError", "MAX_DEPTH", "MAX_INT", "MAX_BYTES", "parse_json", "parse_toml", "check_tree",
           "check_text", "whole_number"]

MAX_DEPTH = 32           # the deepest real input (a round spec, a standings file) is under 8
MAX_INT = 2 ** 53 - 1    # the largest integer every JSON reader (and the console's JavaScript) keeps exact
MAX_BYTES = 64 * 1024 * 1024   # a whole event's results are a few MB


class InputError(CodedError):
    """Input from outside that is refused before anything is done; ``where`` names the input
    (a file, an option, "the body") and ``path`` the place inside it ("players[3].name")."""

    def __init__(self, code, en, zh, where="", path=""):
        at = [p for p in (where, path) if p]
        super().__init__(code, ": ".join(at + [en]), "：".join(at + [zh]))
        self.where = where
        self.path = path
        self.what = (en, zh)   # the texts without the place, for callers that name it their own way


def _no_constant(name):
    # CPython's json reads NaN and Infinity; JSON has neither.
    raise ValueError("%s is not JSON" % name)


def _text_fault(s):
    """What is wrong with the string ``s`` (None: nothing)."""
    if "\x00" in s:
        return ("nul_char", "the text holds a NUL character; remove it", "文字中含有 NUL 字符；请删除")
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return ("bad_text", "the text holds a lone surrogate (\\ud800-\\udfff), which is not a character; "
                "send real UTF-8 text", "文字中含有孤立的代理码位（\\ud800–\\udfff），不是有效字符；请发送正常的 UTF-8 文字")
    return None


def check_text(s, where="", path=""):
    """``s`` if it is text without NUL or lone surrogates, else :class:`InputError`.

    >>> check_text("牌桌", "--name")
    '牌桌'
    >>> check_text("a\\udcff", "--secret")
    Traceback (most recent call last):
    ...
    paizhuo.inputs.InputError: --secret: the text holds a lone surrogate (\\ud800-\\udfff), which is not a character; send real UTF-8 text
    """
    fault = _text_fault(s)
    if fault:
        raise InputError(*fault, where=where, path=path)
    return s


def _path(parts):
    out = ""
    for p in parts:
        out += "[%d]" % p if isinstance(p, int) else ("%s%s" % ("." if out else "", p))
    return out


def _ok(value, max_depth, texts):
    """True when ``value`` is within the limits (the fast walk: no paths; ``texts`` False skips
    the text checks, when the source text cannot have made a bad string)."""
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        v, depth = pop()
        t = type(v)
        if t is str:
            if texts and ("\x00" in v or not v.isascii() and _text_fault(v)):
                return False
        elif t is int:
            if not -MAX_INT <= v <= MAX_INT:
                return False
        elif t is float:
            if not -MAX_INT <= v <= MAX_INT:     # False for NaN and the infinities too
                return False
        elif isinstance(v, dict):
            if depth > max_depth:
                return False
            for k, item in v.items():
                if texts and type(k) is str and ("\x00" in k or not k.isascii() and _text_fault(k)):
                    return False
                push((item, depth + 1))
        elif isinstance(v, list):
            if depth > max_depth:
                return False
            for item in v:
                push((item, depth + 1))
    return True


def check_tree(value, where="", max_depth=MAX_DEPTH, texts=True):
    """``value`` (parsed JSON or TOML) if every part of it is within the limits; refuses deep
    nesting, bad text (keys too), non-finite or huge numbers.  Iterative: it cannot recurse."""
    if _ok(value, max_depth, texts):
        return value
    stack = [(value, 1, ())]     # a fault: walk again, with paths, to say where
    while stack:
        v, depth, parts = stack.pop()
        if isinstance(v, (dict, list)):
            if depth > max_depth:
                raise InputError("too_deep", "the data is nested more than %d levels deep; flatten it" % max_depth,
                                 "数据嵌套超过 %d 层；请减少嵌套" % max_depth, where)
            if isinstance(v, dict):
                for k, item in v.items():
                    if isinstance(k, str):
                        check_text(k, where, _path(parts + ("(key)",)))
                    stack.append((item, depth + 1, parts + (k,)))
            else:
                stack.extend((item, depth + 1, parts + (i,)) for i, item in enumerate(v))
        elif isinstance(v, str):
            check_text(v, where, _path(parts))
        elif isinstance(v, bool):
            pass
        elif isinstance(v, int):
            if not -MAX_INT <= v <= MAX_INT:
                raise InputError("bad_number", "the number has %d digits; numbers here are at most %d"
                                 % (len(str(abs(v))), MAX_INT), "数字有 %d 位；此处数字最大为 %d"
                                 % (len(str(abs(v))), MAX_INT), where, _path(parts))
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise InputError("bad_number", "the number is infinite or not a number; write a finite number",
                                 "数字为无穷大或非数字；请写有限的数字", where, _path(parts))
            if abs(v) > MAX_INT:
                raise InputError("bad_number", "the number %g is too large; numbers here are at most %d"
                                 % (v, MAX_INT), "数字 %g 过大；此处数字最大为 %d" % (v, MAX_INT), where, _path(parts))
    return value


def _too_big(n, limit, where):
    return InputError("too_big", "%d bytes is more than the %d this input may have" % (n, limit),
                      "%d 字节超过此输入的上限 %d 字节" % (n, limit), where)


def _as_text(data, where, limit):
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
        if len(data) > limit:
            raise _too_big(len(data), limit, where)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError("not_utf8", "not UTF-8 text (byte %d); save or send it as UTF-8" % e.start,
                             "不是 UTF-8 文本（第 %d 字节）；请以 UTF-8 保存或发送" % e.start, where) from None
    if not isinstance(data, str):
        raise InputError("bad_input", "expected text, not %s" % type(data).__name__, "应为文本", where)
    if len(data) > limit:   # characters ≤ bytes: a cheap first cut
        raise _too_big(len(data), limit, where)
    return data


def parse_json(data, where, *, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH, object_pairs_hook=None):
    """The JSON value in ``data`` (str or UTF-8 bytes), checked by :func:`check_tree`;
    :class:`InputError` (``bad_json``, ``too_big``, ``too_deep``, ``not_utf8``, ``bad_text``,
    ``nul_char``, ``bad_number``) otherwise.  ``where`` names the input in the message."""
    text = _as_text(data, where, max_bytes)
    # Without a \u escape, a bad string could only come from bad characters in the text itself:
    # one C-speed look at the text spares a look at every string.
    texts = "\\u" in text or not text.isascii() and _text_fault(text) is not None
    try:
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=object_pairs_hook)   # 1e999: check_tree
    except RecursionError:
        raise InputError("too_deep", "the data is nested more than %d levels deep; flatten it" % max_depth,
                         "数据嵌套超过 %d 层；请减少嵌套" % max_depth, where) from None
    except ValueError as e:   # JSONDecodeError, a huge number, more than 4300 digits
        raise InputError("bad_json", "not valid JSON: %s" % e, "不是有效的 JSON：%s" % e, where) from None
    return check_tree(value, where, max_depth, texts)


def parse_toml(data, where, *, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH):
    """The TOML document in ``data`` (str or UTF-8 bytes), checked by :func:`check_tree`;
    :class:`InputError` (``bad_toml`` and the codes of :func:`parse_json`) otherwise."""
    text = _as_text(data, where, max_bytes)
    try:
        value = tomllib.loads(text)   # inf, nan: check_tree
    except RecursionError:
        raise InputError("too_deep", "the data is nested more than %d levels deep; flatten it" % max_depth,
                         "数据嵌套超过 %d 层；请减少嵌套" % max_depth, where) from None
    except ValueError as e:   # TOMLDecodeError, an integer of more than 4300 digits
        raise InputError("bad_toml", "not valid TOML: %s" % e, "不是有效的 TOML：%s" % e, where) from None
    return check_tree(value, where, max_depth)


def whole_number(name, low, high):
    """An argparse ``type`` for a whole number from ``low`` to ``high``, refused in English and
    Chinese (argparse then exits 2).

    >>> whole_number("--round", 1, 999)("7")
    7
    >>> whole_number("--round", 1, 999)("1e30")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: --round must be a whole number from 1 to 999, not '1e30' / --round 必须是 1 到 999 的整数
    """
    def parse(text):
        t = text.strip()
        ok = t.lstrip("-").isdigit() and t.isascii() and len(t) <= 20
        if ok and low <= int(t) <= high:
            return int(t)
        raise argparse.ArgumentTypeError("%s must be a whole number from %d to %d, not %.30r / %s 必须是 %d 到 %d 的整数"
                                         % (name, low, high, text, name, low, high))
    parse.__name__ = name.lstrip("-")
    return parse
