"""The embedded MQTT broker: amqtt in the ``paizhuo venue`` process (the zero-setup demo default).

For the demo and a small room on one machine: it listens on a **loopback** address only, checks
no passwords and has no ACLs, and keeps its state (sessions, retained messages) in memory, so a
venue restart forgets them (the hubs' outboxes and the venue's store make up for that: hubs resend
everything unacknowledged and the venue republishes round specs and standings).  Anything with
hubs on other machines, or where a hub must not be able to speak for another, runs mosquitto with
the configuration ``paizhuo broker config`` writes (``hub/mqtt/mosquitto.py``).

Clients that give a username (the venue, every hub) get a persistent session when they ask for one
(``clean_session=False``): their subscriptions and QoS 1 messages wait for them across reconnects.
Anonymous clients are accepted too (only loopback can reach the broker) with throwaway sessions.

    async def main():
        broker = EmbeddedBroker("127.0.0.1", 0)
        port = await broker.start()          # the port it bound
        ...
        await broker.stop()
"""

import asyncio
import ipaddress
import logging
from dataclasses import dataclass

from amqtt.broker import Broker
from amqtt.plugins.base import BaseAuthPlugin

from ..errors import CodedError

__all__ = ["EmbeddedBroker", "BrokerError", "NamedSessionAuth"]


class BrokerError(CodedError):
    """The embedded broker cannot start (a non-loopback address, the port taken)."""


class NamedSessionAuth(BaseAuthPlugin):
    """amqtt auth plugin: accept every client (loopback only); a client with a username is not
    anonymous, so amqtt keeps its persistent session (amqtt drops anonymous sessions on disconnect)."""

    @dataclass
    class Config:
        pass

    async def authenticate(self, *, session):
        session.is_anonymous = not session.username
        return True


def _loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class EmbeddedBroker:
    """amqtt on ``host:port`` (``port=0``: any free port).  ``await start()`` returns the bound port."""

    def __init__(self, host="127.0.0.1", port=0):
        if not _loopback(host):
            raise BrokerError(
                "no_remote_embedded", "the embedded broker checks no passwords, so it listens on loopback only, not %r;"
                " for hubs on other machines run mosquitto with `paizhuo broker config` and set [broker] in event.toml"
                % (host,),
                "内置代理不校验密码，只能监听本机回环地址，不能是 %r；其他机器上的 hub 请使用 mosquitto"
                "（`paizhuo broker config`），并在 event.toml 中设置 [broker]" % (host,))
        if type(port) is not int or not 0 <= port < 65536:
            raise BrokerError("bad_port", "broker port must be 0-65535, not %r" % (port,),
                              "代理端口必须在 0 到 65535 之间，而不是 %r" % (port,))
        self.host = host
        self.port = port
        self._broker = None

    async def start(self):
        """Listen and serve; returns the bound port."""
        if self._broker is not None:
            raise BrokerError("running", "the embedded broker is already running", "内置代理已在运行")
        config = {
            "listeners": {"default": {"type": "tcp", "bind": "%s:%d" % (self.host, self.port)}},
            # No $SYS publisher and no per-packet logger: they cost CPU on a 2-core hub-class machine.
            "plugins": {"paizhuo.mqtt.broker.NamedSessionAuth": {}},
        }
        broker = Broker(config)
        try:
            await broker.start()
        except Exception as e:
            raise BrokerError("cannot_listen", "the embedded MQTT broker cannot listen on %s:%d: %s"
                              % (self.host, self.port, e.__cause__ or e),
                              "内置 MQTT 代理无法监听 %s:%d：%s" % (self.host, self.port, e.__cause__ or e)) from None
        self._broker = broker
        server = broker._servers["default"].instance   # amqtt keeps no public handle on the bound socket
        self.port = server.sockets[0].getsockname()[1]
        logging.getLogger(__name__).info("embedded MQTT broker on %s:%d", self.host, self.port)
        return self.port

    async def stop(self):
        """Disconnect every client and stop listening (idempotent)."""
        broker, self._broker = self._broker, None
        if broker is not None:
            try:
                await asyncio.wait_for(broker.shutdown(), 10)
            except asyncio.TimeoutError:
                logging.getLogger(__name__).warning("embedded MQTT broker took over 10 s to stop")

    @property
    def running(self):
        return self._broker is not None

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc):
        await self.stop()
