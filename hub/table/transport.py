"""Seat transports: how bytes reach a seat board.  Serial (USB CDC, a pty in the simulation)
now; an MQTT transport for Wi-Fi seats can be added later by implementing :class:`Transport`.

A transport only moves bytes.  Framing, authentication and everything else is the link
codec's (:mod:`paizhuo_shared.link`) and the table runtime's job, so a new transport is small:

- ``await open(on_data)`` connects and from then on calls ``on_data(bytes)`` for every chunk
  received (in the event loop, in order);
- ``write(data)`` queues bytes without blocking and returns True, or False when they were
  dropped: the seat has not read what was queued before (at most ``MAX_QUEUED`` bytes wait
  for a seat).  The runtime then ends that seat's session; the seat comes back with a new
  handshake (and a full state) once it reads again.  On a closed link it does nothing and
  returns None (``closed()`` tells);
- ``await closed()`` returns when the link is gone (cable pulled, EOF, I/O error, ``close()``);
- ``close()`` closes it.
"""

import asyncio
import os
import termios

import serial

__all__ = ["Transport", "SerialTransport", "TransportError", "MAX_QUEUED"]

# A seat frame is at most 4096 bytes: a welcome, a state and a burst of events fit many times
# over.  More than this waiting means the seat is not reading; what comes after is dropped
# (bounded memory, and a seat never gets minutes of stale frames when it reads again).
MAX_QUEUED = 64 * 1024
_READ = 65536  # bytes taken from the port per readable event


class TransportError(OSError):
    """A port could not be opened (missing device, permissions): the message says which."""


class Transport:
    """The interface every seat transport implements (see the module doc)."""

    name = "?"

    async def open(self, on_data):
        """Connect; from then on ``on_data(bytes)`` gets every chunk received, in order."""
        raise NotImplementedError

    def write(self, data):
        """Queue ``data`` without blocking: True, False (dropped: the seat is not reading) or None (closed)."""
        raise NotImplementedError

    async def closed(self):
        """Return when the link is gone (with the OSError that ended it, if any)."""
        raise NotImplementedError

    def close(self):
        """Close the link now, without waiting for queued bytes."""
        raise NotImplementedError


class SerialTransport(Transport):
    """A serial port driven from the event loop: pyserial opens and configures it, then its
    non-blocking file descriptor is read with ``loop.add_reader`` and written with
    ``loop.add_writer`` (registered only while bytes wait, so an idle port costs nothing).

    Not pyserial-asyncio-fast: its 0.16 never removes its writer once the buffer has drained
    (the loop then spins on a failing assertion for ever, 100 % CPU, after one stalled seat),
    and it writes straight to the port in ``write()``, which can block the loop.  What the hub
    needs is this small class.

    Works the same on a Raspberry Pi's ``/dev/ttyACM0`` and on a socat pty (``PtyLink``).
    Input already waiting in the port when it opens is discarded: it belongs to an older
    session, and the seat answers the fresh challenge anyway.
    """

    def __init__(self, path, baudrate=115200, max_queued=MAX_QUEUED):
        self.path = path
        self.name = path
        self.baudrate = baudrate
        self.max_queued = max_queued
        self.dropped = 0  # writes refused because the seat was not reading (since start)
        self._serial = None
        self._fd = None
        self._loop = None
        self._on_data = None
        self._out = bytearray()  # bytes queued, not yet taken by the port
        self._lost = None

    @property
    def queued(self):
        """Bytes waiting for the port."""
        return len(self._out)

    async def open(self, on_data):
        loop = asyncio.get_running_loop()
        try:
            port = serial.Serial(self.path, baudrate=self.baudrate, timeout=0, write_timeout=0)
        except (serial.SerialException, OSError, ValueError) as e:
            raise TransportError("cannot open serial port %s: %s" % (self.path, e)) from None
        try:
            port.reset_input_buffer()
        except (serial.SerialException, OSError, termios.error):
            pass  # a port that cannot flush still works; stale frames fail their tag
        self._serial = port
        self._fd = port.fileno()
        os.set_blocking(self._fd, False)  # pyserial opens it so; the loop must never wait on it
        self._loop = loop
        self._on_data = on_data
        self._out = bytearray()
        self._lost = loop.create_future()
        loop.add_reader(self._fd, self._readable)

    def write(self, data):
        if self._fd is None:
            return None
        if len(self._out) + len(data) > self.max_queued:
            self.dropped += 1
            return False
        if self._out:  # the writer is registered already: keep the order
            self._out += data
            return True
        try:
            n = os.write(self._fd, data)
        except (BlockingIOError, InterruptedError):
            n = 0
        except OSError as e:
            self._lose(e)
            return None
        if n < len(data):
            self._out += memoryview(data)[n:]
            self._loop.add_writer(self._fd, self._writable)
        return True

    def _writable(self):
        try:
            n = os.write(self._fd, self._out)
        except (BlockingIOError, InterruptedError):
            return  # woken without room after all: wait for the next writable event
        except OSError as e:
            self._lose(e)
            return
        del self._out[:n]
        if not self._out:
            self._loop.remove_writer(self._fd)  # drained: an idle port must not wake the loop

    def _readable(self):
        try:
            data = os.read(self._fd, _READ)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:  # EIO: the other end hung up (cable pulled, socat gone)
            self._lose(e)
            return
        if not data:
            self._lose(None)  # end of file
            return
        self._on_data(data)

    def _lose(self, exc):
        fd, self._fd = self._fd, None
        if fd is not None:
            self._loop.remove_reader(fd)
            self._loop.remove_writer(fd)
            self._out = bytearray()  # do not wait to flush to a seat that may be gone
            try:
                # Nor let the kernel wait: a tty's close drains its output first (up to 30 s
                # on a USB serial port whose board stopped reading), and it would block the loop.
                self._serial.reset_output_buffer()
            except (serial.SerialException, OSError, termios.error):
                pass  # hung up already: nothing to wait for
            try:
                self._serial.close()
            except (serial.SerialException, OSError):
                pass
            self._serial = None
        if self._lost is not None and not self._lost.done():
            self._lost.set_result(exc)

    async def closed(self):
        if self._lost is not None:
            await self._lost

    def close(self):
        self._lose(None)
