"""The embedded MQTT broker: amqtt in the ``paizhuo venue`` process (the zero-setup default).

For the demo and a small room on one machine.  It enforces what the production mosquitto does
with the files of ``paizhuo broker config`` (``hub/mqtt/mosquitto.py``), from the same folder:

- **logins**: every client gives a username and the password whose ``$7$`` hash is in the
  folder's ``passwd`` (constant-time comparison); anonymous clients, unknown users and wrong
  passwords are refused, so staff give hubs the same ``<hub>.pass`` files for either broker;
- **topic rules**: :func:`paizhuo.mqtt.mosquitto.topic_rules`, the one table mosquitto's ``acl``
  file is written from: a hub publishes only under ``hub/<its id>/#`` and receives only its own
  venue topics, the standings and the records; ``monitor`` receives only public topics.  Every
  publish, subscription, delivery, retained message and will is checked; a subscription wider
  than the rules (``#``) is granted but delivers only the topics the client may read, as
  mosquitto does.

- **packet size**: a packet over :data:`paizhuo.mqtt.wire.BROKER_PACKET` disconnects its client
  before its body is read, as mosquitto's ``max_packet_size`` does (its measure: the remaining
  length plus the packet's first byte), so a message one broker refuses the other refuses too.

What it does not do: TLS, or keep state on disk (sessions and retained messages live in memory;
after a venue restart the hubs resend what is unacknowledged and the venue republishes round
specs and standings).  So it listens on a **loopback** address only; hubs on other machines need
mosquitto (docs/venue.md § The embedded broker: what it is safe for).

Clients with ``clean_session=False`` (the venue, every hub) keep their subscriptions and QoS 1
messages across reconnects.  Each login has one client id, its username (mosquitto's
``use_username_as_clientid``): a client that names another id is taken under its own username, and
the log says so, so no login can take over (disconnect) or claim another client's session.

    async def main():
        broker = EmbeddedBroker("127.0.0.1", 0, credentials="broker")   # a `paizhuo broker config` folder
        port = await broker.start()          # the port it bound
        ...
        await broker.stop()
"""

import asyncio
import ipaddress
import logging
from dataclasses import dataclass, field

from amqtt.broker import Broker
from amqtt.contexts import Action
from amqtt.errors import MQTTError
from amqtt.mqtt.connack import NOT_AUTHORIZED, ConnackPacket
from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin
from amqtt.utils import gen_client_id

from ..errors import CodedError
from . import mosquitto, wire

__all__ = ["EmbeddedBroker", "BrokerError", "PasswordAuth", "TopicRules", "topic_matches", "filters_overlap"]

log = logging.getLogger(__name__)

# Checked when the user is unknown, so a refusal takes as long whether or not the name exists.
_NO_USER = mosquitto.hash_password("no such user", salt=bytes(mosquitto.SALT_BYTES))


class BrokerError(CodedError):
    """The embedded broker cannot start (a non-loopback address, the port taken, no credentials)."""


def topic_matches(topic_filter, topic):
    """Does the MQTT filter (``+`` one level, ``#`` the rest, the parent included) match ``topic``?

    >>> topic_matches("a/+/c", "a/b/c"), topic_matches("a/#", "a"), topic_matches("a/+", "a/b/c")
    (True, True, False)
    """
    f, t = topic_filter.split("/"), topic.split("/")
    for i, level in enumerate(f):
        if level == "#":
            return True
        if i >= len(t) or level not in ("+", t[i]):
            return False
    return len(f) == len(t)


def filters_overlap(a, b):
    """Can one topic match both filters?  (A subscription is granted only if it overlaps a read rule.)

    >>> filters_overlap("#", "x/y"), filters_overlap("x/+/z", "x/y/#"), filters_overlap("x/y", "x/z/#")
    (True, True, False)
    """
    a, b = a.split("/"), b.split("/")
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x == "#" or y == "#":
            return True
        if x is None or y is None:
            return False
        if x != y and "+" not in (x, y):
            return False
    return True


class PasswordAuth(BaseAuthPlugin):
    """amqtt auth plugin: a login is a known username and its password (against the ``$7$`` hash of
    ``passwd``) and a will the user may publish.  (The client id is the username: ``_Broker``.)"""

    @dataclass
    class Config:
        users: dict = field(default_factory=dict)    # username -> $7$ hash
        rules: dict = field(default_factory=dict)    # username -> [(access, filter)]

    async def authenticate(self, *, session):
        user, password = session.username, session.password
        if isinstance(password, bytes):
            password = password.decode("utf-8", "replace")
        why = None
        if not user or password is None:
            why = "no username or password"
        elif not mosquitto.verify_password(password, self.config.users.get(user, _NO_USER)) \
                or user not in self.config.users:
            why = "wrong username or password"
        elif session.will_flag and not _allowed(self.config.rules.get(user, ()), "write", session.will_topic or ""):
            why = "a will on %r, which %s may not publish" % (session.will_topic, user)
        if why is not None:
            log.warning("refused MQTT client %r (user %r): %s", session.client_id, user, why)
            return False
        session.is_anonymous = False    # amqtt keeps persistent sessions of non-anonymous clients only
        return True


def _allowed(rules, access, topic):
    return any(a == access and topic_matches(f, topic) for a, f in rules)


class TopicRules(BaseTopicPlugin):
    """amqtt topic plugin: publish needs a ``write`` rule matching the topic, each delivery (live,
    queued or retained) a ``read`` rule, a subscription a ``read`` rule it overlaps."""

    @dataclass
    class Config:
        rules: dict = field(default_factory=dict)    # username -> [(access, filter)]

    async def topic_filtering(self, *, session=None, topic=None, action=None):
        rules = self.config.rules.get(session.username if session else None, ())
        if not topic or not rules:
            return False
        if action == Action.PUBLISH:
            return _allowed(rules, "write", topic)
        if action == Action.RECEIVE:
            return _allowed(rules, "read", topic)
        if action == Action.SUBSCRIBE:
            return any(a == "read" and filters_overlap(f, topic) for a, f in rules)
        return False


class PacketTooBig(Exception):
    """A client sent a packet over the broker's limit: its connection is closed (not an
    ``MQTTError``, which amqtt's reader would log and read past, out of step with the stream)."""


class _SizeLimit:
    """A client's byte stream as amqtt reads it, framed as MQTT frames it (a first byte, the
    remaining length in 1-4 bytes, that many bytes): a packet whose remaining length plus one is
    over ``limit`` raises :class:`PacketTooBig` once its length is read, before its body is."""

    def __init__(self, reader, limit):
        self._reader = reader
        self.limit = limit
        self._left = 0        # body bytes of the current packet still to come
        self._length = None   # the remaining length being decoded (None: a first byte is next)
        self._scale = 1
        self.who = None       # the client id, once its CONNECT is read (for the log)

    async def read(self, n=-1):
        data = await self._reader.read(n)
        if data:
            self._count(data)
        return data

    def _count(self, data):
        i, end = 0, len(data)
        while i < end:
            if self._left:
                step = min(self._left, end - i)
                self._left -= step
                i += step
                continue
            b = data[i]
            i += 1
            if self._length is None:  # the packet type byte
                self._length, self._scale = 0, 1
                continue
            self._length += (b & 0x7F) * self._scale
            self._scale *= 128
            if b & 0x80:
                continue
            if self._length + 1 > self.limit:
                e = PacketTooBig("a packet of %d bytes is over the %d-byte limit (mosquitto's max_packet_size)"
                                 % (self._length + 1, self.limit))
                if self.who is not None:
                    log.warning("disconnected MQTT client %r: %s", self.who, e)
                raise e
            self._left, self._length = self._length, None

    def feed_eof(self):
        self._reader.feed_eof()


class _Broker(Broker):
    max_packet = wire.BROKER_PACKET

    async def _client_connected(self, listener_name, reader, writer):
        await super()._client_connected(listener_name, _SizeLimit(reader, self.max_packet), writer)

    async def _initialize_client_session(self, reader, writer, remote_address, remote_port):
        # amqtt 0.12.1 acts on a CONNECT's client id before it checks the login: it drops the
        # stored session of that id (clean session) or resumes it under the newcomer's name, so a
        # client without a password could leave the venue connected but deaf
        # (test_a_client_without_a_login_cannot_disturb_another_clients_session proves it).  So
        # the login is checked first; what follows is amqtt's own session choice, unchanged.
        try:
            handler, incoming = await BrokerProtocolHandler.init_from_connect(reader, writer, self.plugins_manager)
        except MQTTError:
            await writer.close()
            raise
        except PacketTooBig as e:  # a CONNECT over the limit
            log.warning("disconnected an MQTT client from %s: %s", remote_address, e)
            await writer.close()
            raise MQTTError(str(e)) from None
        if not await self._authenticate(incoming, None):
            await ConnackPacket.build(0, NOT_AUTHORIZED).to_stream(writer)
            await writer.close()
            raise MQTTError("client %r refused" % (incoming.client_id,))
        if incoming.client_id != incoming.username:
            # One client id per login, as mosquitto's use_username_as_clientid: with another
            # hub's (or the venue's) id a login could take that client's session over and
            # disconnect it (MQTT's session takeover).
            log.warning("MQTT client %r logged in as %r: taken as client %r (each login has one client id, its "
                        "username)", incoming.client_id, incoming.username, incoming.username)
            incoming.client_id = incoming.username
        if isinstance(reader, _SizeLimit):
            reader.who = incoming.client_id
        if incoming.clean_session:
            if incoming.client_id:
                await self._delete_session(incoming.client_id)
            else:
                incoming.client_id = gen_client_id()
            incoming.parent = 0
        elif incoming.client_id in self._sessions:
            stored = self._sessions[incoming.client_id][0]
            for name in ("will_flag", "will_message", "will_topic", "will_qos", "keep_alive", "username", "password"):
                setattr(stored, name, getattr(incoming, name))
            incoming = stored
            incoming.parent = 1
        else:
            incoming.parent = 0
        delay = self.config.get("timeout-disconnect-delay", 0)
        if incoming.keep_alive > 0 and isinstance(delay, int):
            incoming.keep_alive += delay
        return handler, incoming

    async def _publish_retained_messages_for_subscription(self, subscription, session):
        # amqtt 0.12.1 bug (test_no_hub_gets_another_hubs_retained_round_spec_or_status in
        # tests/test_mosquitto_acl.py proves it without this override): it sends retained messages
        # without its RECEIVE topic check, and on every connect it calls this for every filter
        # *anyone* subscribed to, so a client got the retained round specs of other hubs.  The
        # smallest fix: only the client's own filters, and each retained topic checked like a
        # live delivery.
        topic_filter, qos = subscription
        if not any(s.client_id == session.client_id for s, _ in self._subscriptions.get(topic_filter, ())):
            return
        handler = self._get_handler(session)
        if handler is None:
            return
        sends = []
        for topic, retained in list(self._retained_messages.items()):
            if self._matches(topic, topic_filter) and await self._topic_filtering(session, topic, Action.RECEIVE):
                sends.append(asyncio.ensure_future(
                    handler.mqtt_publish(retained.topic, retained.data, min(qos, retained.qos or qos), retain=True)))
        if sends:
            await asyncio.wait(sends)


def _loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def load_credentials(folder, event):
    """``({user: hash}, {user: [(access, filter)]})`` for ``event`` from a ``paizhuo broker config``
    folder: the hashes of its ``passwd``, the rules of :func:`paizhuo.mqtt.mosquitto.topic_rules`."""
    try:
        users = mosquitto.read_passwd(folder)
    except mosquitto.MosquittoError as e:
        raise BrokerError(e.code, e.en, e.zh) from None
    return users, {u: mosquitto.topic_rules(event, u, mosquitto.role_of(u)) for u in users}


class EmbeddedBroker:
    """amqtt on ``host:port`` (``port=0``: any free port) for ``event``, with the logins of the
    ``credentials`` folder (``paizhuo broker config``).  ``await start()`` returns the bound port."""

    def __init__(self, host="127.0.0.1", port=0, credentials=None, event=None):
        if not _loopback(host):
            raise BrokerError(
                "no_remote_embedded", "the embedded broker has no TLS and keeps nothing on disk, so it listens on"
                " loopback only, not %r; for hubs on other machines run mosquitto with `paizhuo broker config` and"
                " set [broker] in event.toml" % (host,),
                "内置代理没有 TLS、不在磁盘上保存状态，只能监听本机回环地址，不能是 %r；其他机器上的 hub 请使用 mosquitto"
                "（`paizhuo broker config`），并在 event.toml 中设置 [broker]" % (host,))
        if type(port) is not int or not 0 <= port < 65536:
            raise BrokerError("bad_port", "broker port must be 0-65535, not %r" % (port,),
                              "代理端口必须在 0 到 65535 之间，而不是 %r" % (port,))
        self.host = host
        self.port = port
        self.credentials = credentials
        self.event = event
        self._broker = None

    async def start(self):
        """Listen and serve; returns the bound port."""
        if self._broker is not None:
            raise BrokerError("running", "the embedded broker is already running", "内置代理已在运行")
        if self.credentials is None or self.event is None:
            raise BrokerError("no_credentials", "the embedded broker needs the event and a credentials folder"
                              " (`paizhuo broker config`): it lets no client in without a password",
                              "内置代理需要赛事 ID 和凭据目录（`paizhuo broker config`）：没有密码的客户端一律拒绝")
        users, rules = load_credentials(self.credentials, self.event)
        config = {
            "listeners": {"default": {"type": "tcp", "bind": "%s:%d" % (self.host, self.port)}},
            # No $SYS publisher and no per-packet logger: they cost CPU on a 2-core hub-class machine.
            "plugins": {"paizhuo.mqtt.broker.PasswordAuth": {"users": users, "rules": rules},
                        "paizhuo.mqtt.broker.TopicRules": {"rules": rules}},
        }
        broker = _Broker(config)
        try:
            await broker.start()
        except Exception as e:
            raise BrokerError("cannot_listen", "the embedded MQTT broker cannot listen on %s:%d: %s"
                              % (self.host, self.port, e.__cause__ or e),
                              "内置 MQTT 代理无法监听 %s:%d：%s" % (self.host, self.port, e.__cause__ or e)) from None
        self._broker = broker
        server = broker._servers["default"].instance   # amqtt keeps no public handle on the bound socket
        self.port = server.sockets[0].getsockname()[1]
        log.info("embedded MQTT broker on %s:%d, %d logins from %s", self.host, self.port, len(users), self.credentials)
        return self.port

    async def stop(self):
        """Disconnect every client and stop listening (idempotent)."""
        broker, self._broker = self._broker, None
        if broker is not None:
            try:
                await asyncio.wait_for(broker.shutdown(), 10)
            except asyncio.TimeoutError:
                log.warning("embedded MQTT broker took over 10 s to stop")

    @property
    def running(self):
        return self._broker is not None

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc):
        await self.stop()
