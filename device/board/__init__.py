"""Board layer: what the seat app needs from the hardware, behind a tiny interface.

``setup(cfg)`` returns a board object with:

- ``name``: what ``hello`` reports as ``board`` (``"host"``, ``"ref-s3"``);
- ``display``: a :class:`board.band.BandDisplay` (a ``framebuf.FrameBuffer`` holding one band);
- ``touch``: ``await touch.tap()`` → ``(x, y)`` in screen pixels, or None when input ends;
- ``open_port()``: the link to the hub (``await readinto(buf)``, ``write(data)``, ``close()``);
  raises OSError while there is none;
- ``emit``: a control-line writer on a host (tests read it), None on a real board.

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
