"""An MQTT client for the asyncio loop: paho-mqtt 2.x driven through its external-loop seam.

paho is the reference MQTT client; it offers ``loop_read`` / ``loop_write`` / ``loop_misc`` for
programs that own their event loop.  :class:`MqttClient` registers paho's socket with the asyncio
loop (``add_reader`` / ``add_writer``) so the hub's seats, clocks and the venue link share one
thread, and adds what both ends of the venue link need:

- ``TCP_NODELAY`` on the socket (small MQTT packets otherwise wait 40+ ms for Nagle/delayed ACK);
- reconnecting forever with backoff 0.2 s → 5 s until :meth:`MqttClient.stop`;
- subscriptions remembered and renewed after every reconnect;
- QoS 1 publishes accepted while offline (paho keeps them and sends them after the reconnect);
- a refused connection (wrong password, not authorised) reported once as :class:`MqttError`
  with the broker's reason, not as a traceback per retry.

The TCP connect itself is done by asyncio (so an unreachable broker never blocks the loop) and
handed to paho, which then sends CONNECT over it.

TLS (``tls=`` an :class:`ssl.SSLContext`, see :func:`tls_context`): the handshake runs on the
non-blocking socket driven by the loop (``do_handshake`` until it stops asking to read/write), and
paho gets the finished ``SSLSocket`` — paho's own ``_ssl_wrap_socket`` would do a *blocking*
handshake.  paho's ``_sock_recv``/``_sock_send`` already map ``SSLWantRead``/``SSLWantWrite`` to
"try again", so nothing else of paho changes.  A certificate that does not verify is reported
once as ``MqttError("tls_failed")`` with the reason (wrong CA, wrong host name, expired…).

Persistent sessions: the venue and each hub use a fixed client id with ``clean_session=False``
(MQTT 3.1.1), so the broker keeps their subscriptions and queues QoS 1 messages for them while
they are away (mosquitto: ``persistent_client_expiration`` bounds how long).

    async def main():
        c = MqttClient("T07", "127.0.0.1", 1883, username="T07", password="…",
                       will=(status_topic, offline_payload, 1, True), clean_session=False,
                       on_message=lambda topic, payload: print(topic, payload))
        await c.start()
        await c.wait_connected(10)
        c.subscribe("paizhuo/v1/demo/venue/ack/T07")
        mid = c.publish("paizhuo/v1/demo/hub/T07/result", b'{"v":1,...}', qos=1)
        await c.published(mid, 10)
        await c.stop()
"""

import asyncio
import logging
from dataclasses import dataclass
import socket
import ssl

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from ..errors import CodedError

__all__ = ["Broker", "MqttClient", "MqttError", "tls_context", "BACKOFF_MIN", "BACKOFF_MAX"]

log = logging.getLogger(__name__)

BACKOFF_MIN = 0.2   # seconds before the first reconnect attempt
BACKOFF_MAX = 5.0   # the wait between attempts doubles up to this
CONNECT_TIMEOUT = 5.0

# paho has no public way to hand it a socket connected elsewhere; this is the one private method
# we replace (paho-mqtt is pinned <3; tests/test_mqtt_client.py fails loudly if it moves).
_PAHO_SOCKET_HOOK = "_create_socket_connection"
assert hasattr(paho.Client, _PAHO_SOCKET_HOOK), "paho-mqtt changed: MqttClient needs %s" % _PAHO_SOCKET_HOOK


class MqttError(CodedError):
    """The broker refused us, or the client was used wrongly; ``code`` says which.

    Codes: ``broker_refused`` (CONNACK refused: credentials, authorisation, client id — the text
    carries the broker's reason), ``not_connected`` (waited for a connection that did not come),
    ``publish_timeout``, ``bad_client`` (wrong arguments), ``tls_failed`` (the TLS handshake
    failed: the broker's certificate does not verify against our CA or host name, or the port
    does not speak TLS — the text carries the reason), ``bad_tls_ca`` (the CA file cannot be used).
    """


def tls_context(ca_file):
    """A client :class:`ssl.SSLContext` trusting only the CAs in ``ca_file`` (PEM), TLS 1.2 or newer,
    certificate and host name verified.

    A venue runs a private CA (docs/venue.md § The broker): the system's public CAs are not
    trusted, so a certificate bought by anyone for any name cannot stand in for the venue broker.

        >>> tls_context("/no/such/ca.pem")
        Traceback (most recent call last):
        ...
        paizhuo.mqtt.client.MqttError: cannot use the CA file /no/such/ca.pem: No such file or directory
    """
    try:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)     # CERT_REQUIRED and check_hostname by default
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_verify_locations(cafile=ca_file)
    except (OSError, ssl.SSLError) as e:
        why = getattr(e, "strerror", None) or getattr(e, "reason", None) or str(e)
        if isinstance(e, ssl.SSLError):
            why = "not a PEM certificate file (%s)" % why
        raise MqttError("bad_tls_ca", "cannot use the CA file %s: %s" % (ca_file, why),
                        "无法使用 CA 证书文件 %s：%s" % (ca_file, why)) from None
    return ctx


class _Paho(paho.Client):
    """paho's client taking a socket the asyncio side has already connected."""

    _ready_socket = None

    def _create_socket_connection(self):
        sock, self._ready_socket = self._ready_socket, None
        if sock is None:
            raise ConnectionError("no connected socket (MqttClient connects before paho)")
        return sock


def _call(fn, *args):
    """Run a user callback; a bug in it is logged and never breaks the link."""
    if fn is None:
        return
    try:
        fn(*args)
    except Exception:
        log.exception("MQTT callback %r failed", fn)


_CONNACK_CODES = {1: ("the broker does not speak MQTT 3.1.1", "代理不支持 MQTT 3.1.1"),
                  2: ("the client id is refused", "客户端 ID 被拒绝"),
                  3: ("the broker is unavailable", "代理暂不可用"),
                  4: ("bad user name or password", "用户名或密码错误"),
                  5: ("not authorised", "未获授权")}


@dataclass(frozen=True)
class Broker:
    """Where and how a client reaches the broker: what a hub's ``[venue]`` and the venue's
    ``[broker]`` both say (each configuration checks its own keys, then makes one of these).

    ``password_file``: its first line is the password (None: no password, the embedded demo
    broker); ``tls_ca``: the venue CA's certificate (PEM) when the broker listens with TLS (None:
    plain TCP); ``tls_server_name``: the name in the broker's certificate (default ``host``).

    >>> b = Broker("127.0.0.1", 1883, username="T07")
    >>> b.password(), b.tls()
    (None, None)
    """

    host: str
    port: int
    username: str = None
    password_file: str = None
    keepalive: int = 5
    tls_ca: str = None
    tls_server_name: str = None

    def password(self):
        """The password (first line of ``password_file``), or None without one."""
        if self.password_file is None:
            return None
        with open(self.password_file, encoding="utf-8") as f:
            return f.readline().strip()

    def tls(self):
        """The client ``ssl.SSLContext`` trusting ``tls_ca``, or None for plain TCP."""
        return None if self.tls_ca is None else tls_context(self.tls_ca)

    def check_login(self, timeout=5.0):
        """Whether the broker accepts this login, asked without touching its session: one MQTT
        3.1.1 CONNECT under the login's own client id (clean session off, so a stopped hub's
        session and what the venue queued in it stay), the CONNACK read, the socket closed.
        Nothing the broker then delivers is read or acknowledged, so every queued QoS 1
        message stays queued for the hub (a paho client would acknowledge and so consume it).
        Returns None when accepted; raises MqttError ``broker_refused`` or ``tls_failed``, or
        OSError when the broker cannot be reached."""
        def field(b):
            return len(b).to_bytes(2, "big") + b
        user = (self.username or "").encode("utf-8")
        password = self.password()
        flags = (0x80 if user else 0) | (0x40 if password is not None else 0)  # clean session bit left 0
        body = field(b"MQTT") + bytes([4, flags]) + int(self.keepalive).to_bytes(2, "big") + field(user)
        if user:
            body += field(user)
        if password is not None:
            body += field(password.encode("utf-8"))
        n, length = len(body), b""
        while True:  # MQTT's variable-length remaining length
            n, digit = n >> 7, n & 0x7F
            length += bytes([digit | (0x80 if n else 0)])
            if not n:
                break
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        try:
            if self.tls_ca is not None:
                try:
                    sock = self.tls().wrap_socket(sock, server_hostname=self.tls_server_name or self.host)
                except ssl.SSLError as e:
                    raise MqttError("tls_failed", "TLS with the broker failed: %s" % (e.reason or e),
                                    "与代理的 TLS 握手失败：%s" % (e.reason or e)) from None
            sock.sendall(b"\x10" + length + body)
            ack = b""
            while len(ack) < 4:
                chunk = sock.recv(4 - len(ack))
                if not chunk:
                    raise ConnectionError("the broker closed the connection before its CONNACK")
                ack += chunk
        finally:
            sock.close()
        if ack[0] != 0x20 or ack[1] != 2:
            raise ConnectionError("the server's answer is not an MQTT CONNACK (is this port the broker?)")
        if ack[3] != 0:
            why = _CONNACK_CODES.get(ack[3], "code %d" % ack[3])
            raise MqttError("broker_refused", "the broker refused the login: %s" % why[0],
                            "代理拒绝了登录：%s" % why[1])
        return None

    def client(self, client_id, **options):
        """An :class:`MqttClient` for this broker (not started); ``options`` are the rest of
        MqttClient's (will, clean_session, on_message, ...)."""
        return MqttClient(client_id, self.host, self.port, username=self.username, password=self.password(),
                          keepalive=self.keepalive, tls=self.tls(), tls_server_name=self.tls_server_name, **options)


class MqttClient:
    """One MQTT connection on the running asyncio loop (see the module docstring).

    ``will`` is ``(topic, payload, qos, retain)``.  ``on_message(topic: str, payload: bytes)``,
    ``on_connect()`` and ``on_disconnect()`` are plain callables run on the loop.
    ``nodelay=False`` leaves Nagle on (only the benchmark wants that).
    ``tls``: an :class:`ssl.SSLContext` (:func:`tls_context`) for a TLS listener, None for plain
    TCP; ``tls_server_name``: the name the broker's certificate must carry (default ``host``).
    """

    def __init__(self, client_id, host, port, *, username=None, password=None, keepalive=10, will=None,
                 clean_session=True, on_message=None, on_connect=None, on_disconnect=None, nodelay=True,
                 max_inflight=100, tls=None, tls_server_name=None):
        if tls is not None and not isinstance(tls, ssl.SSLContext):
            raise MqttError("bad_client", "tls must be an ssl.SSLContext or None, not %r" % (tls,),
                            "tls 必须是 ssl.SSLContext 或 None")
        if not client_id and not clean_session:
            raise MqttError("bad_client", "a persistent session (clean_session=False) needs a fixed client id",
                            "持久会话需要固定的客户端 ID")
        if not isinstance(port, int) or not 0 < port < 65536:
            raise MqttError("bad_client", "broker port must be 1-65535, not %r" % (port,),
                            "代理端口必须在 1 到 65535 之间，而不是 %r" % (port,))
        if not isinstance(keepalive, (int, float)) or keepalive < 1:
            raise MqttError("bad_client", "keepalive must be at least 1 second, not %r" % (keepalive,),
                            "心跳间隔至少 1 秒")
        self.client_id = client_id
        self.host = host
        self.port = port
        self.username = username
        self.keepalive = int(keepalive)
        self.nodelay = nodelay
        self.tls = tls
        self.tls_server_name = tls_server_name or host
        self.on_message = on_message
        self.on_connect = on_connect
        self.on_disconnect = on_disconnect
        self.error = None           # the last refusal (MqttError), cleared by a successful connect
        self.problem = None         # why we are not connected (text), for logs and wait_connected's error
        self._no_connack = False
        self.connects = 0           # successful connections so far (tests and the console read it)
        self._unacked_subs = set()  # message ids of SUBSCRIBEs the broker has not acknowledged
        self._subs = {}             # topic filter → qos, renewed on every connect
        self._pending = {}          # mid → Future of a QoS>0 publish not yet acknowledged
        self._loop = None
        self._task = None
        self._stopping = False
        self._sock = None
        self._closed = None         # asyncio.Event set when the current socket closes
        self._up = None             # asyncio.Event set while connected
        self._refused = None        # asyncio.Event set when the broker refused a CONNECT

        c = _Paho(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
                  protocol=paho.MQTTv311)
        if username is not None:
            c.username_pw_set(username, password)
        if will is not None:
            topic, payload, qos, retain = will
            c.will_set(topic, payload, qos, retain)
        c.max_inflight_messages_set(max_inflight)
        c.max_queued_messages_set(0)        # unlimited: QoS 1 published while offline waits for the broker
        c.suppress_exceptions = True        # our callbacks catch their own; never let one break paho's state
        c.enable_logger(logging.getLogger(__name__ + ".paho"))     # so a swallowed exception is still logged
        c.on_socket_open = self._socket_open
        c.on_socket_close = self._socket_close
        c.on_socket_register_write = self._want_write
        c.on_socket_unregister_write = self._no_write
        c.on_connect = self._connected
        c.on_disconnect = self._disconnected
        c.on_message = self._message
        c.on_subscribe = self._suback
        c.on_publish = self._published
        self._paho = c

    # ---- public API ------------------------------------------------------------------------

    @property
    def connected(self):
        """True while the broker has accepted us (CONNACK 0) and the socket is open."""
        return self._up is not None and self._up.is_set()

    @property
    def subscribed(self):
        """Connected, and the broker has acknowledged every subscription sent since (SUBACK):
        from here on, what is published to those topics reaches us.  ``connected`` alone is
        not enough on a first connection — a message published between the CONNACK and the
        broker's handling of our SUBSCRIBE is not ours."""
        return self.connected and not self._unacked_subs

    async def start(self):
        """Begin connecting (in the background, forever, until :meth:`stop`)."""
        if self._task is not None:
            raise MqttError("bad_client", "start() was already called", "已经启动")
        self._loop = asyncio.get_running_loop()
        self._stopping = False      # start() after stop() connects again
        self._up = asyncio.Event()
        self._refused = asyncio.Event()
        self._task = self._loop.create_task(self._run(), name="mqtt %s" % self.client_id)

    async def wait_connected(self, timeout=None):
        """Wait for a connection; a refusal by the broker raises :class:`MqttError` at once."""
        if self._up is None:
            raise MqttError("bad_client", "call start() first", "请先调用 start()")
        if self.connected:
            return
        if self.error is not None:      # the broker already refused these credentials
            raise self.error
        self._refused.clear()
        up = asyncio.ensure_future(self._up.wait())
        refused = asyncio.ensure_future(self._refused.wait())
        try:
            await asyncio.wait({up, refused}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            up.cancel()
            refused.cancel()
        if self.connected:
            return
        if self.error is not None:
            raise self.error
        raise MqttError("not_connected", "no connection to the MQTT broker at %s:%d within %s s%s"
                        % (self.host, self.port, timeout, ": " + self.problem if self.problem else ""),
                        "%s 秒内未能连接 MQTT 代理 %s:%d%s" % (timeout, self.host, self.port,
                                                          "：" + self.problem if self.problem else ""))

    def subscribe(self, topic, qos=1):
        """Subscribe now if connected, and again after every reconnect."""
        self._subs[topic] = qos
        if self.connected:
            self._send_subscribe(self._paho, topic, qos)

    def _send_subscribe(self, client, topic, qos):
        rc, mid = client.subscribe(topic, qos)
        if mid is not None:
            self._unacked_subs.add(mid)

    def _suback(self, client, userdata, mid, *rest):
        self._unacked_subs.discard(mid)

    def unsubscribe(self, topic):
        self._subs.pop(topic, None)
        if self.connected:
            self._paho.unsubscribe(topic)

    def publish(self, topic, payload, qos=1, retain=False):
        """Publish; returns the message id (QoS ≥ 1) to await with :meth:`published`, or ``None``.

        QoS 1 works offline: paho keeps the message and sends it after the reconnect.  QoS 0
        while offline is dropped and returns ``None`` (live snapshots: a stale one is worthless).
        """
        if isinstance(payload, str):
            payload = payload.encode("utf-8")
        if qos == 0 and not self.connected:
            return None
        info = self._paho.publish(topic, payload, qos, retain)
        if info.rc not in (paho.MQTT_ERR_SUCCESS, paho.MQTT_ERR_NO_CONN):
            raise MqttError("publish_failed", "publish to %s failed: %s" % (topic, paho.error_string(info.rc)),
                            "发布到 %s 失败：%s" % (topic, paho.error_string(info.rc)))
        if qos == 0:
            return None
        # on_publish for QoS ≥ 1 comes with the PUBACK, never inside publish(): always pending here.
        self._pending[info.mid] = (self._loop or asyncio.get_running_loop()).create_future()
        return info.mid

    async def published(self, mid, timeout=None):
        """Wait until the broker acknowledged message ``mid`` (PUBACK).  Await it soon after the
        publish: ids wrap at 65535."""
        fut = self._pending.get(mid)
        if fut is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(fut), timeout)
        except asyncio.TimeoutError:
            raise MqttError("publish_timeout", "message %d not acknowledged by the broker within %s s"
                            % (mid, timeout), "代理 %s 秒内未确认消息 %d" % (timeout, mid)) from None

    @property
    def unacknowledged(self):
        """QoS ≥ 1 messages published and not yet acknowledged by the broker."""
        return len(self._pending)

    async def stop(self):
        """Disconnect cleanly (no will is published) and stop reconnecting."""
        await self._halt(clean=True)

    async def abort(self):
        """Drop the connection without DISCONNECT (the broker publishes the will) and stop.
        For tests and for simulating a crashed hub."""
        await self._halt(clean=False)

    # ---- the connection loop ---------------------------------------------------------------

    async def _halt(self, clean):
        if self._task is None:
            return
        self._stopping = True
        if self._sock is not None:
            if clean and self.connected:
                self._paho.disconnect()     # queues DISCONNECT; paho closes the socket once it is written
                try:
                    await asyncio.wait_for(self._closed.wait(), 2.0)
                except asyncio.TimeoutError:
                    pass
            if self._sock is not None:
                self._shutdown()
                try:
                    await asyncio.wait_for(self._closed.wait(), 2.0)
                except asyncio.TimeoutError:
                    pass
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass
        self._task = None
        for fut in self._pending.values():
            fut.cancel()
        self._pending.clear()

    def _shutdown(self):
        """Close the socket under paho: the reader fires, paho sees the loss and cleans up."""
        sock = self._sock
        if sock is None:
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            # Not connected any more: make paho notice now.
            self._paho.loop_read()

    async def _open(self):
        """A TCP connection to the broker made by asyncio (never blocks the loop)."""
        infos = await self._loop.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
        last = None
        for family, type_, proto, _, addr in infos:
            sock = socket.socket(family, type_, proto)
            sock.setblocking(False)
            try:
                await asyncio.wait_for(self._loop.sock_connect(sock, addr), CONNECT_TIMEOUT)
                return sock
            except (OSError, asyncio.TimeoutError) as e:
                sock.close()
                last = e
            except BaseException:       # cancelled by stop(): do not leak the half-open socket
                sock.close()
                raise
        raise last if isinstance(last, OSError) else ConnectionError("connect timed out")

    async def _handshake(self, sock):
        """The TLS handshake on the connected non-blocking ``sock``, driven by the loop; returns the
        ``SSLSocket`` for paho.  Raises ``ssl.SSLError`` (verification, not TLS…) or ``OSError``."""
        if self.nodelay:        # before the handshake: its small records are MQTT-sized too
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            tls = self.tls.wrap_socket(sock, server_hostname=self.tls_server_name, do_handshake_on_connect=False)
        except BaseException:
            sock.close()
            raise
        try:
            await asyncio.wait_for(self._drive_handshake(tls), CONNECT_TIMEOUT)
        except asyncio.TimeoutError:
            tls.close()
            raise ConnectionError("no TLS handshake within %s s (is the port a TLS listener?)" % CONNECT_TIMEOUT) \
                from None
        except BaseException:
            tls.close()
            raise
        return tls

    async def _drive_handshake(self, tls):
        while True:
            try:
                tls.do_handshake()
                return
            except ssl.SSLWantReadError:
                await self._ready(tls, self._loop.add_reader, self._loop.remove_reader)
            except ssl.SSLWantWriteError:
                await self._ready(tls, self._loop.add_writer, self._loop.remove_writer)

    async def _ready(self, sock, add, remove):
        """Wait until ``sock`` is readable/writable (``add``/``remove`` are the loop's reader or writer hooks)."""
        fut = self._loop.create_future()
        add(sock.fileno(), lambda: fut.done() or fut.set_result(None))
        try:
            await fut
        finally:
            remove(sock.fileno())

    def _tls_failed(self, e):
        """A handshake error as the one clear :class:`MqttError` (stored, and wakes wait_connected)."""
        if isinstance(e, ssl.SSLCertVerificationError):
            why = "the broker's certificate does not verify: %s — is tls_ca the venue's CA, and does the " \
                  "certificate name %s?" % (e.verify_message or e.reason, self.tls_server_name)
            why_zh = "代理的证书验证失败：%s —— tls_ca 是否为场地的 CA？证书是否包含名称 %s？" \
                     % (e.verify_message or e.reason, self.tls_server_name)
        else:
            why = "%s (is the port a TLS listener, and its TLS version 1.2 or newer?)" % (e.reason or e)
            why_zh = "%s（该端口是 TLS 监听端口吗？TLS 版本是否为 1.2 或更高？）" % (e.reason or e)
        self.error = MqttError("tls_failed", "TLS with the MQTT broker %s:%d failed: %s" % (self.host, self.port, why),
                               "与 MQTT 代理 %s:%d 的 TLS 握手失败：%s" % (self.host, self.port, why_zh))
        self._refused.set()

    def _problem(self, why, level=logging.WARNING):
        """Remember why we are not connected; log it when it changes (a broker down all night is one line)."""
        if why != self.problem:
            log.log(level, "%s (retrying every %.1f-%.0f s)", why, BACKOFF_MIN, BACKOFF_MAX)
        self.problem = why

    async def _run(self):
        delay = BACKOFF_MIN
        while not self._stopping:
            try:
                sock = await self._open()
            except (OSError, asyncio.TimeoutError) as e:
                self._problem("cannot reach the MQTT broker at %s:%d: %s" % (self.host, self.port, e or "timed out"))
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_MAX)
                continue
            if self.tls is not None:
                try:
                    sock = await self._handshake(sock)
                except (ssl.SSLError, OSError) as e:
                    if isinstance(e, ssl.SSLError) and not isinstance(e, (ssl.SSLEOFError, ssl.SSLZeroReturnError)):
                        self._tls_failed(e)
                        self._problem(str(self.error), logging.ERROR)
                    else:       # the broker hung up mid-handshake: a restart, or not a TLS port
                        self._problem("%s:%d closed the connection during the TLS handshake: %s"
                                      % (self.host, self.port, e or "timed out"))
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, BACKOFF_MAX)
                    continue
            self._closed = asyncio.Event()
            self._paho._ready_socket = sock
            before = self.connects
            self._no_connack = False
            try:
                self._paho.connect(self.host, self.port, self.keepalive)
            except Exception as e:      # paho refused to start (bad will topic…): a bug, say it once
                sock.close()
                self._problem("MQTT connect failed: %s" % e, logging.ERROR)
                self._closed.set()
            ticker = self._loop.create_task(self._tick(self._closed))
            try:
                await self._closed.wait()
            finally:
                ticker.cancel()
            if self._stopping:
                break
            if self.connects > before:
                delay = BACKOFF_MIN
                self._problem("lost the connection to the MQTT broker at %s:%d" % (self.host, self.port))
            elif self.error is not None:
                self._problem(str(self.error), logging.ERROR)
            elif self._no_connack:
                self._problem("%s:%d accepted the TCP connection but never answered CONNECT (is it an MQTT broker?)"
                              % (self.host, self.port))
            else:
                self._problem("%s:%d closed the connection before accepting us (is it an MQTT broker? a TLS-only "
                              "port?)" % (self.host, self.port))
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    async def _tick(self, closed):
        """paho's housekeeping (keepalive pings, retries) and a deadline for the CONNACK."""
        step = min(1.0, self.keepalive / 4)
        waited = 0.0
        while not closed.is_set():
            await asyncio.sleep(step)
            if self._sock is None:
                continue
            if not self.connected:
                waited += step
                if waited > max(CONNECT_TIMEOUT, self.keepalive):
                    self._no_connack = True
                    self._shutdown()
                continue        # paho's own keepalive check would close a slow CONNECT without saying why
            self._paho.loop_misc()

    # ---- paho callbacks (all on the loop thread) ---------------------------------------------

    def _socket_open(self, client, userdata, sock):
        if self.nodelay:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock = sock
        self._loop.add_reader(sock, self._readable)

    def _socket_close(self, client, userdata, sock):
        if self._sock is sock:
            self._loop.remove_reader(sock)
            self._loop.remove_writer(sock)
            self._sock = None
        was_up = self._up.is_set()
        self._up.clear()
        if self._closed is not None:
            self._closed.set()
        if was_up:      # paho tells on_disconnect after the close; the socket closing is the one sure sign
            _call(self.on_disconnect)

    def _want_write(self, client, userdata, sock):
        if sock is self._sock:
            self._loop.add_writer(sock, self._writable)

    def _no_write(self, client, userdata, sock):
        if sock is self._sock:
            self._loop.remove_writer(sock)

    def _readable(self):
        self._paho.loop_read()
        # TLS: a record may hold more MQTT packets than loop_read took; they wait decrypted in the
        # SSLSocket, where the selector cannot see them — read them now, or they wait for the next byte.
        sock = self._sock
        while sock is not None and sock is self._sock and isinstance(sock, ssl.SSLSocket) and sock.pending():
            self._paho.loop_read()

    def _writable(self):
        self._paho.loop_write()

    def _connected(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.error = MqttError(
                "broker_refused",
                "MQTT broker %s:%d refused client %r (user %r): %s — check the username and its password file, "
                "and the broker's ACL" % (self.host, self.port, self.client_id, self.username, reason.getName()),
                "MQTT 代理 %s:%d 拒绝了客户端 %r（用户 %r）：%s —— 请检查用户名、密码文件和代理的 ACL"
                % (self.host, self.port, self.client_id, self.username, reason.getName()))
            self._refused.set()
            return
        self.error = None
        self.problem = None
        self.connects += 1
        self._unacked_subs = set()  # a new connection: only what is sent on it counts
        self._up.set()
        for topic, qos in self._subs.items():
            self._send_subscribe(client, topic, qos)
        _call(self.on_connect)

    def _disconnected(self, client, userdata, flags, reason, properties):
        self._up.clear()

    def _message(self, client, userdata, msg):
        _call(self.on_message, msg.topic, msg.payload)

    def _published(self, client, userdata, mid, reason, properties):
        fut = self._pending.pop(mid, None)
        if fut is not None and not fut.done():
            fut.set_result(None)
