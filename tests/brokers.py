"""Real MQTT brokers for tests: a mosquitto process and the embedded amqtt broker.

Small API, shared by every test that needs a broker (import with ``from brokers import ...``;
``tests/`` is on ``sys.path`` under pytest):

``free_port() -> int``
    A free loopback TCP port (bind port 0, read it, close).

``Mosquitto(folder, conf=None, port=None)``
    ``/usr/sbin/mosquitto -c <conf>`` on ``127.0.0.1:<port>``.  Without ``conf`` it writes an open
    test configuration (anonymous allowed, ``set_tcp_nodelay true``, persistence in ``folder``);
    with ``conf`` (a path) it runs that file as is — its ``listener`` must use ``port`` (as root,
    a copy with ``user root`` added, so persistence can write the temp folder).
    ``start()`` returns once the port accepts connections (or raises with mosquitto's log);
    ``stop()`` (SIGTERM: persistence is saved), ``kill()`` (SIGKILL), ``restart()``; ``.host``,
    ``.port``, ``.log()`` (its output so far).  Also a context manager.

``mosquitto`` (pytest fixture)
    A started open-configuration ``Mosquitto`` in ``tmp_path``, stopped after the test.

``async with amqtt_broker() as port: ...``
    The project's embedded amqtt broker (:class:`paizhuo.mqtt.broker.EmbeddedBroker`) on a free
    loopback port, stopped on exit.  Give clients a username to get persistent sessions.

``async wait_for(condition, timeout=10, what="condition")``
    Poll ``condition()`` every 10 ms until true; ``AssertionError`` naming ``what`` after ``timeout``.

Example::

    def test_x(mosquitto):
        async def main():
            c = MqttClient("t", mosquitto.host, mosquitto.port)
            ...
        asyncio.run(main())
"""

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"

__all__ = ["free_port", "Mosquitto", "mosquitto", "amqtt_broker", "wait_for", "MOSQUITTO"]


def free_port():
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def open_conf(port, folder):
    """The open test configuration: anonymous clients on loopback, persistence in ``folder``."""
    return ("listener %d 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n%s"
            "persistence true\npersistence_location %s/\nautosave_interval 1\n"
            "log_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\n"
            % (port, "user root\n" if os.geteuid() == 0 else "", folder))


class Mosquitto:
    """A mosquitto process for one test (see the module docstring)."""

    host = "127.0.0.1"

    def __init__(self, folder, conf=None, port=None):
        if not os.path.exists(MOSQUITTO):   # fail, not skip: the broker tests are the point
            raise RuntimeError("mosquitto is not installed: apt-get install mosquitto (`make test` installs it)")
        self.folder = str(folder)
        self.port = port or free_port()
        if conf is None:
            conf = os.path.join(self.folder, "mosquitto-test.conf")
            with open(conf, "w") as f:
                f.write(open_conf(self.port, self.folder))
        elif os.geteuid() == 0:
            # mosquitto started as root drops to user "mosquitto", which cannot write the test's temp
            # folder (persistence): run a copy that stays root.  Only the process identity changes.
            with open(conf) as f:
                text = f.read()
            conf = os.path.join(self.folder, "as-root-" + os.path.basename(str(conf)))
            with open(conf, "w") as f:
                f.write(text + "\nuser root\n")
        self.conf = str(conf)
        self.proc = None
        self._log_path = os.path.join(self.folder, "mosquitto-%d.log" % self.port)

    def start(self, timeout=10.0):
        if self.proc is not None and self.proc.poll() is None:
            return self
        log = open(self._log_path, "ab")
        self.proc = subprocess.Popen([MOSQUITTO, "-c", self.conf], stdout=log, stderr=subprocess.STDOUT,
                                     cwd=self.folder)
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("mosquitto exited with %s:\n%s" % (self.proc.returncode, self.log()))
            try:
                with socket.create_connection((self.host, self.port), timeout=0.5):
                    return self
            except OSError:
                if time.monotonic() > deadline:
                    self.kill()
                    raise RuntimeError("mosquitto did not listen on %d within %s s:\n%s"
                                       % (self.port, timeout, self.log()))
                time.sleep(0.02)

    def stop(self):
        """SIGTERM and wait: mosquitto saves its persistence file on the way out."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self):
        self.stop()
        return self.start()

    def log(self):
        try:
            with open(self._log_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


@pytest.fixture
def mosquitto(tmp_path):
    """An open-configuration mosquitto on a free loopback port, stopped after the test."""
    broker = Mosquitto(tmp_path)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@contextlib.asynccontextmanager
async def amqtt_broker(port=None):
    """The embedded amqtt broker on a free loopback port: ``async with amqtt_broker() as port``."""
    from paizhuo.mqtt.broker import EmbeddedBroker
    broker = EmbeddedBroker("127.0.0.1", port or free_port())
    bound = await broker.start()
    try:
        yield bound
    finally:
        await broker.stop()


async def wait_for(condition, timeout=10.0, what="condition"):
    """Poll ``condition()`` until it is true; fail the test naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %s s waiting for %s" % (timeout, what))
        await asyncio.sleep(0.01)
