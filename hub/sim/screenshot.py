"""Seat screenshots: the host display's frame files as PNG images, and frame hashes.

A frame file is what a seat's SPI panel would have received for the whole screen:
480×320 pixels, rows top to bottom, 2 bytes per pixel, **big-endian RGB565**
(307200 bytes).  Tests compare :func:`frame_hash` (sha256 of those bytes), never PNG
bytes (PNG encoders may differ between Pillow versions).

    >>> raw = bytes(FRAME_BYTES)
    >>> frame_hash(raw)[:12]
    '7818f5542a04'
    >>> to_image(raw).getpixel((0, 0))
    (0, 0, 0)
"""

import hashlib
from pathlib import Path

WIDTH = 480
HEIGHT = 320
FRAME_BYTES = WIDTH * HEIGHT * 2


class FrameError(ValueError):
    """Not a frame file (wrong size); the message says what was found."""


def _read(frame):
    data = Path(frame).read_bytes() if isinstance(frame, (str, Path)) else bytes(frame)
    if len(data) != FRAME_BYTES:
        raise FrameError("a seat frame is %d bytes (480×320 RGB565), not %d" % (FRAME_BYTES, len(data)))
    return data


def frame_hash(frame):
    """sha256 (hex) of a frame's raw bytes (a path or the bytes)."""
    return hashlib.sha256(_read(frame)).hexdigest()


def to_image(frame):
    """A Pillow RGB image of a frame (a path or the bytes)."""
    from PIL import Image

    data = bytearray(_read(frame))
    data[0::2], data[1::2] = data[1::2], data[0::2]  # big-endian -> little-endian 5-6-5
    return Image.frombuffer("RGB", (WIDTH, HEIGHT), bytes(data), "raw", "BGR;16", 0, 1)


def pixel(frame, x, y):
    """(r, g, b) of one pixel, 8 bits per channel (the low bits are zero)."""
    data = _read(frame)
    i = (y * WIDTH + x) * 2
    v = (data[i] << 8) | data[i + 1]
    return ((v >> 11) & 0x1F) << 3, ((v >> 5) & 0x3F) << 2, (v & 0x1F) << 3


def save_png(frame, path, scale=1):
    """Write a frame as a PNG (``scale`` 2 doubles it for a closer look); return the path."""
    img = to_image(frame)
    if scale != 1:
        from PIL import Image
        img = img.resize((WIDTH * scale, HEIGHT * scale), Image.NEAREST)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)
    return path
