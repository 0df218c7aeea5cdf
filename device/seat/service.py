"""Service mode: provisioning and firmware updates over the seat's own link (docs/operations.md).

Loaded only in service mode, never during a game (a staff tool's request in a game is
``seat/svcgate.py``'s, a few hundred bytes).  The contract with
the staff tool (``paizhuo provision``, ``paizhuo.provision.service``):

- Every frame is the link's (``paizhuo_shared.link``): JSON, a tab, HMAC-SHA256 tag.
- The tool opens with a plain ``{"t":"svc","s":0,"n":TN}``; the seat answers ``svc_hi``
  (``s`` 0, its own nonce ``n``, ``hn`` = TN, public facts: device id, firmware, board,
  identity without the key, images, free flash, ``deal``), tagged with its device key (the
  all-zero key on a board that has none).  Both then use K = session_key(key, TN, n) and
  number their frames 1, 2, 3 … (any other number, or a bad tag, is refused).
- In a game the board's answer is ``seat/svcgate.py``'s (``mode`` "game", fewer facts):
  ``svc_go`` (with ``pin`` when ``deal``) → ``svc_ok``, and the board restarts in service
  mode; a board in a running deal without the referee PIN answers ``svc_no`` ``in_deal``
  and plays on.
- In service mode: ``info``, ``ident`` (identity and device key), ``begin`` / ``chunk`` /
  ``commit`` (an image into the spare slot, see device/updater.py), ``rollback``, ``reboot``.
  Answers are ``ok`` or ``no`` with a ``code``.  A board without a key (blank, or its
  service button held at reset) takes only ``info`` and one ``ident`` in a session under
  the zero key; everything else needs a session under its device key.  The key is never
  sent back.
"""

import binascii
import hashlib
import json
import os
import sys
import time

from paizhuo_shared import link as codec

ZERO = bytes(32)
IDLE_MS = 120000  # service mode with no tool: back to the game
MAX_CHUNK = 1280  # image bytes a chunk may carry; its frame is under FRAME
FRAME = 2048  # the longest service frame (a chunk of 1 KB is about 1.5 KB): half the game's buffer


def _nonce():
    return binascii.hexlify(os.urandom(16)).decode()


def _ident_path():
    import updater
    return updater.FLASH + "/ident.json"


def _read_json(path):
    try:
        with open(path) as f:
            return json.loads(f.read())
    except (OSError, ValueError):
        return None


def facts(board_name, dev, deal, keyed):
    """What ``svc_hi`` and ``info`` tell: nothing secret (no key, no PIN)."""
    import updater
    st = updater.state()
    ident = _read_json(_ident_path()) or {}
    try:
        s = os.statvfs(updater.FLASH or "/")
        free = s[0] * s[4]
    except (OSError, AttributeError):
        free = -1
    imp = sys.implementation
    out = {"dev": dev, "fw": _fw(), "board": board_name, "mp": "%d.%d.%d" % imp.version[:3],
           "mpy": getattr(imp, "_mpy", 0) & 0xFF, "deal": deal, "keyed": keyed, "free": free,
           "slot_max": updater.capacity("a"), "active": st["active"], "trial": st.get("trial"),
           "rolled": st.get("rolled"), "img": st["img"], "pin": "pin" in ident}
    for k in ("event", "table", "seat", "hub"):
        out[k] = ident.get(k)
    return out


def _fw():
    from seat import link
    return link.FIRMWARE


# ---- service mode ---------------------------------------------------------------------

def _config(mode):
    """(config, keyed): the provisioning file as the game reads it, or, on a board without a
    usable one, its board settings only (host boards keep their pty and frame folder there)."""
    from seat import config
    try:
        return config.load(), True
    except config.ConfigError:
        raw = _read_json(config.path()) or {}
    if ("key" in raw or "dev" in raw) and mode == "blank":
        return None, False  # a damaged identity is no blank board: staff must look at it
    c = config.Config()
    c.dev = None
    c.key = None
    c.lang = raw.get("lang", "zh")
    c.board = raw.get("board", "ref-s3")
    c.port = raw.get("port")
    c.frames = raw.get("frames")
    c.frames_keep = raw.get("frames_keep", 0)
    c.rows = raw.get("rows", 8)
    return c, False


class Service:
    """One board in service mode: ``Service(cfg, keyed, board, button)``; ``run()``."""

    def __init__(self, cfg, keyed, board, first):
        self.cfg = cfg
        self.keyed = keyed
        self.board = board
        self.first = first  # a first identity may be written under the zero key
        self.emit = board.emit
        self.port = None
        self.k = None  # the session key
        self.zero = False  # the session is under the zero key
        self.inn = 0
        self.out = 1
        self.w = None  # the image being received: updater.Writer
        self.want = None  # (size, sha, ver) of that image
        self.h = None
        self.reader = codec.LineReader(FRAME)
        self.buf = bytearray(512)
        self.seen = time.ticks_ms()

    def log(self, line):
        if self.emit:
            self.emit("service " + line)

    def run(self):
        import updater
        import gc
        gc.collect()
        self.log("mode keyed=%d first=%d free=%d" % (self.keyed, self.first, gc.mem_free()))
        reopen = 0
        touch = self.board.touch
        while not self.board.ended:
            touch.poll()  # taps mean nothing here; on a host this also sees the control channel close
            now = time.ticks_ms()
            if time.ticks_diff(now, self.seen) > IDLE_MS:
                self.log("idle: back to the game")
                updater.reset()
            if self.port is None:
                if time.ticks_diff(now, reopen) >= 0:
                    try:
                        self.port = self.board.open_port()
                        self.reader.reset()
                        self.log("link open")
                    except OSError:
                        reopen = time.ticks_add(now, 500)
                self.board.wait(100)
                continue
            try:
                n = self.port.readinto(self.buf)
            except OSError:
                self.log("link lost")
                self.port.close()
                self.port = None
                self.k = None  # a new cable, a new session; a half-received image stays unbootable
                self.w = None
                reopen = time.ticks_add(now, 500)
                continue
            if n:
                self.reader.feed(memoryview(self.buf)[:n], self.line)
            else:
                self.board.wait(100)

    def send(self, msg, key=None):
        if key is None:
            msg["s"] = self.out
            self.out += 1
            key = self.k
        self.port.write(codec.encode(msg, key))

    def no(self, re, code, **more):
        more.update({"t": "no", "re": re, "code": code})
        self.send(more)
        self.log("no %s %s" % (re, code))

    def line(self, line):
        self.seen = time.ticks_ms()
        try:
            self._line(line)
        except MemoryError:
            self.reader.reset()
            self.log("out of memory")
        except Exception as e:  # a bug must not end service mode: the tool sees the code
            if self.k is not None:
                try:
                    self.no("?", "error", why="%s: %s" % (type(e).__name__, e))
                except Exception:
                    pass

    def _line(self, line):
        try:
            msg = codec.decode(line, b"")
        except codec.LinkError:
            msg = None
        if msg is not None:
            if msg["t"] == "svc" and codec.is_nonce(msg.get("n")):
                self.hello(msg["n"])
            return
        if self.k is None:
            self.send({"t": "no", "s": 0, "re": "?", "code": "no_session"}, b"")
            return
        try:
            msg = codec.decode(line, self.k)
        except codec.LinkError as e:
            self.send({"t": "no", "s": 0, "re": "?", "code": e.code}, b"")
            return
        if msg["s"] != self.inn + 1:
            self.send({"t": "no", "s": 0, "re": msg["t"], "code": "seq"}, b"")
            return
        self.inn = msg["s"]
        t = msg["t"]
        if t == "info":
            self.ok(t, self.facts())
        elif t == "ident":
            self.ident(msg)
        elif self.zero:
            self.no(t, "needs_key")
        elif t == "begin":
            self.begin(msg)
        elif t == "chunk":
            self.chunk(msg)
        elif t == "commit":
            self.commit(msg)
        elif t == "rollback":
            self.rollback()
        elif t == "reboot":
            self.ok(t)
            import updater
            self.log("reboot")
            updater.reset()
        else:
            self.no(t, "unknown")

    def ok(self, re, more=None):
        msg = more or {}
        msg.update({"t": "ok", "re": re})
        self.send(msg)

    def facts(self):
        return facts(self.cfg.board, self.cfg.dev, False, self.keyed)

    def hello(self, tn):
        key = self.cfg.key if self.keyed else ZERO
        if self.keyed and self.first:
            key = ZERO  # service button held: a first identity again (the key was lost)
        n = _nonce()
        hi = self.facts()
        hi.update({"t": "svc_hi", "s": 0, "n": n, "hn": tn, "mode": "service", "zero": key is ZERO})
        self.k = codec.session_key(key, tn, n)
        self.zero = key is ZERO
        self.inn = 0
        self.out = 1
        self.w = None
        self.send(hi, key)
        self.log("session zero=%d" % self.zero)

    # ---- identity ----------------------------------------------------------------------

    def ident(self, msg):
        if self.zero and not self.first:
            self.no("ident", "needs_key")
            return
        from seat import config
        raw = {"dev": msg.get("dev"), "key": msg.get("key"), "lang": msg.get("lang", "zh"), "board": self.cfg.board}
        c = self.cfg
        if c.board == "host":
            raw.update({"port": c.port, "frames": c.frames, "frames_keep": c.frames_keep, "rows": c.rows})
        try:
            new = config.parse(raw)
        except config.ConfigError as e:
            self.no("ident", "bad_ident", en=e.en)
            return
        ident = {}
        for k in ("event", "table", "seat", "hub"):
            v = msg.get(k)
            if not (isinstance(v, str) and 0 < len(v) <= 64):
                self.no("ident", "bad_ident", field=k)
                return
            ident[k] = v
        pin = msg.get("pin")
        if pin is not None:
            if not (isinstance(pin, str) and len(pin) == 64):
                self.no("ident", "bad_ident", field="pin")
                return
            ident["pin"] = pin
        import updater
        updater.write_file(_ident_path(), json.dumps(ident))
        updater.write_file(config.path(), json.dumps(raw))
        self.ok("ident", {"dev": new.dev})
        self.log("ident %s" % new.dev)
        # From now on only frames under the new key: this session (under the old or the
        # zero key) ends, and a first identity is no longer taken.
        self.cfg = new
        self.keyed = True
        self.first = False
        self.k = None

    # ---- images ------------------------------------------------------------------------

    def begin(self, msg):
        import updater
        size = msg.get("size")
        sha = msg.get("sha")
        boards = msg.get("boards")
        if not isinstance(boards, list) or self.cfg.board not in boards:
            self.no("begin", "wrong_board", board=self.cfg.board)
            return
        if msg.get("mpy") != getattr(sys.implementation, "_mpy", 0) & 0xFF:
            self.no("begin", "wrong_mpy", mpy=getattr(sys.implementation, "_mpy", 0) & 0xFF)
            return
        st = updater.state()
        slot = updater.other(st["active"])
        if type(size) is not int or size <= 0 or size > updater.capacity(slot):
            self.no("begin", "too_big", slot_max=updater.capacity(slot))
            return
        if not (isinstance(sha, str) and len(sha) == 64):
            self.no("begin", "bad_begin")
            return
        # The spare slot stops being anything bootable before its first byte is overwritten.
        if st["img"].get(slot) is not None or st.get("trial") == slot:
            st["img"].pop(slot, None)
            st["trial"] = None
            st["tried"] = False
            updater.save(st)
        self.w = updater.Writer(slot, size)
        self.want = (size, sha, msg.get("ver") or "?")
        self.h = hashlib.sha256()
        self.ok("begin", {"slot": slot, "chunk": MAX_CHUNK})
        self.log("begin %s %d" % (slot, size))

    def chunk(self, msg):
        w = self.w
        if w is None:
            self.no("chunk", "no_begin")
            return
        if msg.get("o") != w.at:
            self.no("chunk", "bad_offset", o=w.at)
            return
        try:
            data = binascii.a2b_base64(msg.get("d"))
        except (ValueError, TypeError):
            data = None
        if (data is None or not data or len(data) > MAX_CHUNK or w.at + len(data) > self.want[0]
                or binascii.hexlify(hashlib.sha256(data).digest()[:8]).decode() != msg.get("h")):
            self.no("chunk", "bad_chunk", o=w.at)
            return
        w.write(data)
        self.h.update(data)
        self.ok("chunk", {"o": w.at})

    def commit(self, msg):
        import updater
        w = self.w
        if w is None:
            self.no("commit", "no_begin")
            return
        size, sha, ver = self.want
        self.w = None
        w.close()
        got = binascii.hexlify(self.h.digest()).decode() if w.at == size else ""
        if got != sha or updater.slot_digest(w.slot, size) != sha:
            self.no("commit", "bad_sha", got=w.at)
            return
        limit = msg.get("limit")
        st = updater.state()
        st["img"][w.slot] = {"sha": sha, "ver": ver, "size": size}
        st["trial"] = w.slot
        st["tried"] = False
        st["limit"] = limit if type(limit) is int and limit > 0 else updater.TRIAL_MS
        updater.save(st)
        self.ok("commit", {"slot": w.slot})
        self.log("commit %s" % w.slot)

    def rollback(self):
        import updater
        st = updater.state()
        if st.get("trial"):
            st["trial"] = None  # a committed update not yet booted: cancelled
            st["tried"] = False
            updater.save(st)
            self.ok("rollback", {"active": st["active"], "cancelled": True})
            return
        prev = updater.other(st["active"])
        meta = st["img"].get(prev)
        if meta is None or updater.slot_digest(prev, meta["size"]) != meta["sha"]:
            self.no("rollback", "no_previous")
            return
        st["active"] = prev
        updater.save(st)
        self.ok("rollback", {"active": prev})
        self.log("rollback %s" % prev)


def main(mode):
    """Service mode from reset: ``mode`` "service" (a tool asked), "button" (held at reset)
    or "blank" (no usable provisioning file)."""
    cfg, keyed = _config(mode)
    if cfg is None:
        return
    import board
    brd = board.setup(cfg)
    Service(cfg, keyed, brd, mode != "service" or not keyed).run()
