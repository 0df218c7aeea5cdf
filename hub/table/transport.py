"""Seat transports: how bytes reach a seat board.  Serial (USB CDC, a pty in the simulation)
now; an MQTT transport for Wi-Fi seats can be added later by implementing :class:`Transport`.

A transport only moves bytes.  Framing, authentication and everything else is the link
codec's (:mod:`paizhuo_shared.link`) and the table runtime's job, so a new transport is small:

- ``await open(on_data)`` connects and from then on calls ``on_data(bytes)`` for every chunk
  received (in the event loop, in order);
- ``write(data)`` queues bytes without blocking (a seat that stopped reading must never stall
  the hub: the queue is bounded and a full queue drops the link);
- ``await closed()`` returns when the link is gone (cable pulled, EOF, I/O error, ``close()``);
- ``close()`` closes it.
"""

import asyncio

import serial
import serial_asyncio_fast

__all__ = ["Transport", "SerialTransport", "TransportError"]

# A seat frame is at most 4096 bytes; a state plus a burst of events fits many times over.
# A seat whose queue grows past this is not reading: the link is dropped and reopened.
MAX_QUEUED = 256 * 1024


class TransportError(OSError):
    """A port could not be opened (missing device, permissions): the message says which."""


class Transport:
    """The interface every seat transport implements (see the module doc)."""

    name = "?"

    async def open(self, on_data):
        raise NotImplementedError

    def write(self, data):
        raise NotImplementedError

    async def closed(self):
        raise NotImplementedError

    def close(self):
        raise NotImplementedError


class _Protocol(asyncio.Protocol):
    def __init__(self, on_data, lost):
        self.on_data = on_data
        self.lost = lost

    def data_received(self, data):
        self.on_data(data)

    def connection_lost(self, exc):
        if not self.lost.done():
            self.lost.set_result(exc)


class SerialTransport(Transport):
    """A serial port through pyserial-asyncio-fast (non-blocking reads in the event loop).

    Works the same on a Raspberry Pi's ``/dev/ttyACM0`` and on a socat pty (``PtyLink``).
    Input already waiting in the port when it opens is discarded: it belongs to an older
    session, and the seat answers the fresh challenge anyway.
    """

    def __init__(self, path, baudrate=115200):
        self.path = path
        self.name = path
        self.baudrate = baudrate
        self._transport = None
        self._lost = None

    async def open(self, on_data):
        loop = asyncio.get_running_loop()
        self._lost = loop.create_future()
        try:
            transport, _ = await serial_asyncio_fast.create_serial_connection(
                loop, lambda: _Protocol(on_data, self._lost), self.path, baudrate=self.baudrate)
        except (serial.SerialException, OSError, ValueError) as e:
            raise TransportError("cannot open serial port %s: %s" % (self.path, e)) from None
        try:
            transport.serial.reset_input_buffer()
        except (serial.SerialException, OSError):
            pass  # a port that cannot flush still works; stale frames fail their tag
        self._transport = transport

    def write(self, data):
        t = self._transport
        if t is None or t.is_closing():
            return
        if t.get_write_buffer_size() > MAX_QUEUED:
            t.abort()  # the seat stopped reading: drop the link rather than grow without end
            return
        t.write(data)

    async def closed(self):
        if self._lost is not None:
            await self._lost

    def close(self):
        t, self._transport = self._transport, None
        if t is not None and not t.is_closing():
            # Do not wait to flush to a seat that may be gone.  Never abort twice: after a read
            # error the library is already closing, and a second abort schedules a second
            # connection_lost that fails inside pyserial-asyncio-fast.
            t.abort()
        if self._lost is not None and not self._lost.done():
            self._lost.set_result(None)
