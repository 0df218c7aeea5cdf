"""The one error shape every refusal in ``paizhuo`` shares.

A person reads it (a player on a seat, a referee at the console, staff at a terminal),
a program branches on it: ``code`` is stable, ``en`` and ``zh`` say what was wrong and
what to do.  ``str(error)`` is the English text.

    >>> e = CodedError("bad_seat", "unknown seat 'X': seats are E, N, W, S", "没有座位 'X'")
    >>> e.to_dict()["code"], str(e)
    ('bad_seat', "unknown seat 'X': seats are E, N, W, S")
    >>> isinstance(e, ValueError)
    True
"""


class CodedError(ValueError):
    """A refusal with a stable ``code`` and texts in English (``en``) and Chinese (``zh``)."""

    def __init__(self, code, en, zh=None):
        super().__init__(en)
        self.code = code
        self.en = en
        self.zh = zh or en

    def to_dict(self):
        return {"code": self.code, "en": self.en, "zh": self.zh}


# What reading a damaged SQLite file can raise.  CPython's sqlite3 decodes SQLite's own error
# message as strict UTF-8; a damaged schema puts raw bytes into that message ("malformed database
# schema (events) - near "\x80ULL""), and the decode then raises UnicodeDecodeError in place of
# the DatabaseError.  Every place that reads a file from outside catches both.
import sqlite3 as _sqlite3

SQLITE_READ_ERRORS = (_sqlite3.DatabaseError, UnicodeDecodeError)
