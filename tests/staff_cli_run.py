"""`paizhuo …` run in the test's own process, for the staff tests: fast, and the output captured."""

import io
import sys

import pytest

from paizhuo import cli


class Result:
    """What a command did: ``returncode``, ``stdout``, ``stderr`` (as subprocess.run gives them)."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def paizhuo(capsys, monkeypatch):
    """``paizhuo(*args, stdin=None)`` → :class:`Result`; a traceback in the output fails the test."""
    def run(*args, stdin=None):
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        try:
            code = cli.main(list(args))
        except SystemExit as e:
            code = e.code
        out = capsys.readouterr()
        assert "Traceback" not in out.err
        return Result(code, out.out, out.err)
    return run
