"""Board layer: what the seat app needs from the hardware, behind a tiny interface.

``setup(cfg)`` returns a board object with:

- ``name``: what ``hello`` reports as ``board`` (``"host"``, ``"ref-s3"``);
- ``display``: a :class:`board.band.BandDisplay` (a ``framebuf.FrameBuffer`` holding one band);
- ``touch``: ``touch.poll()`` → the ``(x, y)`` of a finished tap in screen pixels, or None;
- ``open_port()``: the link to the hub (``readinto(buf)`` → the bytes there now, 0 if none,
  OSError when the link is gone; ``write(data)``; ``close()``); raises OSError while there is none;
- ``wait(ms)``: sleep until the link or the touch may have something, at most ``ms``;
- ``ended``: True once input has ended (the host's control channel closed): the app stops;
- ``emit``: a control-line writer on a host (tests read it), None on a real board;
  ``emit_part`` (optional) writes a piece of a control line.

``host`` runs on the MicroPython unix port (tests, the demo); ``ref_s3`` is the reference
seat board (hardware/README.md).  Each board module is imported only when chosen, so a seat
board never loads the host drivers and the unix port never touches ``machine``.
"""


def setup(cfg):
    if cfg.board == "host":
        from board import host
        return host.setup(cfg)
    if cfg.board == "ref-s3":
        from board import ref_s3
        return ref_s3.setup(cfg)
    raise ValueError("unknown board %r (host, ref-s3)" % (cfg.board,))
