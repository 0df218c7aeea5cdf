"""The command line's parser: argparse, speaking Chinese and English to staff.

Every ``paizhuo`` command is built from :class:`Parser` (its sub-commands inherit it), so a
mistake on the command line is told in both languages, on standard error, with exit status 2
and never a traceback; ``--help`` has bilingual headings and its own bilingual ``-h`` line.

    >>> p = Parser(prog="paizhuo x")
    >>> _ = p.add_argument("--n", type=int, help="a number / 一个数")
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     try:
    ...         p.parse_args(["--n", "abc"])
    ...     except SystemExit as e:
    ...         print(e.code)
    2
    >>> print(err.getvalue().splitlines()[-2:])
    ["paizhuo x: error: argument --n: invalid int value: 'abc'", "paizhuo x: 错误：参数 --n：无效的整数值 'abc'"]
"""

import argparse
import re
import sys

from .cli_zh import HELP_ZH

__all__ = ["Parser", "translate", "bilingual"]


def bilingual(text):
    """``text / 中文`` for a help text in the catalog (:data:`paizhuo.cli_zh.HELP_ZH`); any other
    text (one written in both languages already) is kept.  A catalog entry with ``%s`` is a
    template: a help text made from it (a list of the registry's games, say) gets its Chinese
    with the same values.

    >>> bilingual("the game: %s" % "a, b")
    'the game: a, b / 游戏：a, b'
    """
    if not isinstance(text, str):
        return text
    if text in HELP_ZH:
        return "%s / %s" % (text, HELP_ZH[text])
    for pattern, zh in _TEMPLATES:
        m = pattern.fullmatch(text)
        if m:
            return "%s / %s" % (text, zh % m.groups())
    return text


_TEMPLATES = [(re.compile("(.+?)".join(re.escape(part) for part in en.split("%s")), re.S), zh)
              for en, zh in HELP_ZH.items() if "%s" in en]

_TYPES_ZH = {"int": "整数", "float": "数字", "str": "文字"}

# argparse's own messages (Python 3.11-3.13), English pattern → Chinese.  What is not listed
# keeps its English line and gets a generic Chinese one, so no message is English alone.
_MESSAGES = [
    (r"the following arguments are required: (.*)", lambda m: "缺少必需的参数：%s" % m.group(1)),
    (r"unrecognized arguments: (.*)", lambda m: "无法识别的参数：%s" % m.group(1)),
    (r"argument (\S+): invalid (\w+) value: (.*)",
     lambda m: "参数 %s：无效的%s值 %s" % (m.group(1), _TYPES_ZH.get(m.group(2), m.group(2)), m.group(3))),
    (r"argument (\S+): invalid choice: (.*) \(choose from (.*)\)",
     lambda m: "参数 %s：无效的选项 %s（可选：%s）" % (m.group(1), m.group(2), m.group(3))),
    (r"argument (\S+): expected one argument", lambda m: "参数 %s 后面需要一个值" % m.group(1)),
    (r"argument (\S+): expected at most one argument", lambda m: "参数 %s 后面最多一个值" % m.group(1)),
    (r"argument (\S+): expected at least one argument", lambda m: "参数 %s 后面至少需要一个值" % m.group(1)),
    (r"argument (\S+): not allowed with argument (\S+)", lambda m: "参数 %s 不能与 %s 同时使用" % m.groups()),
    (r"argument (\S+): ignored explicit argument (.*)", lambda m: "参数 %s 不接受值 %s" % m.groups()),
    (r"ambiguous option: (\S+) could match (.*)", lambda m: "有歧义的选项 %s：可能是 %s" % m.groups()),
    (r"one of the arguments (.*) is required", lambda m: "需要以下参数之一：%s" % m.group(1)),
    (r"unexpected option string: (.*)", lambda m: "意外的选项：%s" % m.group(1)),
    (r"argument (\S+): (.*) / (.*)", lambda m: "参数 %s：%s" % (m.group(1), m.group(3))),   # our own types: en / zh
    (r"argument (\S+): (.*)", lambda m: "参数 %s 有误：%s" % m.groups()),
]


def translate(message):
    """``(en, zh)`` for one of argparse's error messages (an ``en / zh`` message of our own is split)."""
    for pattern, zh in _MESSAGES:
        m = re.fullmatch(pattern, message, re.S)
        if m:
            en = message
            if " / " in message and pattern.startswith(r"argument (\S+): (.*) / "):
                en = "argument %s: %s" % (m.group(1), m.group(2))
            return en, zh(m)
    return message, "命令行参数有误（详见上面的英文说明；用 --help 查看用法）"


class _Formatter(argparse.HelpFormatter):
    def add_usage(self, usage, actions, groups, prefix=None):
        return super().add_usage(usage, actions, groups, "usage 用法: " if prefix is None else prefix)


class _SubParsers(argparse._SubParsersAction):
    def add_parser(self, name, **kwargs):
        if "help" in kwargs:
            kwargs["help"] = bilingual(kwargs["help"])
            kwargs.setdefault("description", kwargs["help"])
        return super().add_parser(name, **kwargs)


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors and help headings are Chinese and English."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        add_help = kwargs.pop("add_help", True)
        super().__init__(*args, add_help=False, **kwargs)
        self._positionals.title = "positional arguments 位置参数"
        self._optionals.title = "options 选项"
        if add_help:
            self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS,
                              help="show this help and exit / 显示本帮助并退出")

    def add_argument(self, *args, **kwargs):
        if "help" in kwargs:
            kwargs["help"] = bilingual(kwargs["help"])
        return super().add_argument(*args, **kwargs)

    def add_subparsers(self, **kwargs):
        kwargs.setdefault("action", _SubParsers)
        return super().add_subparsers(**kwargs)

    def _sub_commands(self):
        return [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]

    def error(self, message):
        """Print the usage and the error in English and Chinese on standard error; exit 2."""
        m = re.fullmatch(r"the following arguments are required: (.*)", message)
        for action in self._sub_commands():
            name = argparse._get_action_name(action)
            if m and name in [n.strip() for n in m.group(1).split(",")]:
                choices = list(action.choices)
                en = "say what to do: %s %s … (each has --help: %s %s --help)" % (
                    self.prog, "|".join(choices), self.prog, choices[0])
                zh = "请给出要做的事：%s %s …（每项都有 --help，如 %s %s --help）" % (
                    self.prog, "|".join(choices), self.prog, choices[0])
                self._bail(en, zh)
        self._bail(*translate(message))

    def _bail(self, en, zh):
        self.print_usage(sys.stderr)
        print("%s: error: %s" % (self.prog, en), file=sys.stderr)
        print("%s: 错误：%s" % (self.prog, zh), file=sys.stderr)
        raise SystemExit(2)
