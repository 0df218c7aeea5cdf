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

``credentials(folder, event="demo", hubs=("T01", "T02"))``
    Write a ``paizhuo broker config`` folder (passwd, acl, ``<client>.pass``) and return its path.

``async with amqtt_broker(folder=None, event="demo", hubs=...) as broker: ...``
    The project's embedded amqtt broker (:class:`paizhuo.mqtt.broker.EmbeddedBroker`) on a free
    loopback port in this event loop, with the logins of ``folder`` (a fresh temporary one by
    default: ``broker.credentials``), stopped on exit.  ``broker.port`` is the bound port.

``EmbeddedThread(folder, event="demo")``
    The same broker on its own event loop in a thread, for synchronous tests and fixtures that
    run both brokers alike: ``start()``, ``stop()``, ``.host``, ``.port``, ``.files`` (the folder).

``login(broker, user, **options)``
    An :class:`MqttClient` logged in as ``user`` with its ``<user>.pass`` from ``broker.files``.

``async refused(broker, client_id="intruder", **options)``
    Assert the broker refuses this client (``MqttError`` ``broker_refused``); options as MqttClient's.

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
import tempfile
import threading
import time

import pytest

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"

__all__ = ["free_port", "Mosquitto", "mosquitto", "amqtt_broker", "EmbeddedThread", "credentials", "login", "refused", "wait_for",
           "reachable_by_mosquitto",
           "MOSQUITTO"]


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


def reachable_by_mosquitto(folder):
    """Do what `paizhuo broker config` says to before mosquitto starts as root (pytest's temp
    folders are closed to its user): `paizhuo broker check` then passes."""
    from paizhuo.mqtt import mosquitto as mq
    with open(os.path.join(str(folder), "mosquitto.conf")) as f:
        opts = mq._parse_conf(f.read())
    for fix in sorted({fix for _, _, fix in mq.check_run_user(str(folder), opts)}):
        subprocess.run(fix, shell=True, check=True)


def credentials(folder, event="demo", hubs=("T01", "T02")):
    """A ``paizhuo broker config`` folder for ``event`` and ``hubs`` (written now); returns its path."""
    from paizhuo.mqtt import mosquitto as mq
    mq.write_config(str(folder), event, list(hubs), bind="127.0.0.1")
    return str(folder)


def login(broker, user, **options):
    """An MqttClient (not started) for ``user`` with its password from ``broker.files``."""
    from paizhuo.mqtt import mosquitto as mq
    from paizhuo.mqtt.client import MqttClient
    password = mq.read_password_file(os.path.join(str(broker.files), "%s.pass" % user))
    return MqttClient(options.pop("client_id", user), broker.host, broker.port, username=user, password=password,
                      **options)


async def refused(broker, client_id="intruder", **options):
    """Assert that ``broker`` refuses the client (paizhuo's MqttError ``broker_refused``)."""
    from paizhuo.mqtt.client import MqttClient, MqttError
    c = MqttClient(client_id, broker.host, broker.port, **options)
    await c.start()
    try:
        with pytest.raises(MqttError) as e:
            await c.wait_connected(10)
        assert e.value.code == "broker_refused", e.value
    finally:
        await c.stop()


@contextlib.asynccontextmanager
async def amqtt_broker(folder=None, event="demo", hubs=("T01", "T02"), port=None):
    """The embedded amqtt broker on a free loopback port: ``async with amqtt_broker() as broker``."""
    from paizhuo.mqtt.broker import EmbeddedBroker
    with contextlib.ExitStack() as stack:
        if folder is None:
            folder = credentials(stack.enter_context(tempfile.TemporaryDirectory(prefix="paizhuo-amqtt-")), event, hubs)
        broker = EmbeddedBroker("127.0.0.1", port or free_port(), credentials=str(folder), event=event)
        await broker.start()
        try:
            yield broker
        finally:
            await broker.stop()


class EmbeddedThread:
    """The embedded broker on its own asyncio loop in a thread (see the module docstring)."""

    host = "127.0.0.1"

    def __init__(self, folder, event="demo"):
        self.files = str(folder)
        self.event = event
        self.port = None
        self._loop = None
        self._thread = None
        self._broker = None

    def start(self):
        from paizhuo.mqtt.broker import EmbeddedBroker
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="embedded-broker", daemon=True)
        self._thread.start()
        self._broker = EmbeddedBroker("127.0.0.1", 0, credentials=self.files, event=self.event)
        self.port = asyncio.run_coroutine_threadsafe(self._broker.start(), self._loop).result(30)
        return self

    def stop(self):
        if self._loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._broker.stop(), self._loop).result(30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(30)
            self._loop.close()
            self._loop = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


async def wait_for(condition, timeout=10.0, what="condition"):
    """Poll ``condition()`` until it is true; fail the test naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %s s waiting for %s" % (timeout, what))
        await asyncio.sleep(0.01)
