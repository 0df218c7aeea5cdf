"""A staff tool's request for service mode, reaching a seat in its game (device/seat/service.py
has the whole contract).  Imported only when such a frame arrives and dropped from
``sys.modules`` at once: a game never carries it.  Small on purpose — the game's heap is
what is left for it (the full facts come from service mode).

- plain ``svc`` (the tool's nonce ``n``) → ``svc_hi`` tagged with the device key: device id,
  firmware, board, ``deal`` (a running deal), ``mode`` "game", the seat's nonce; the seat
  keeps K = session_key(key, tool nonce, seat nonce) for one answer;
- ``svc_go`` under K (``s`` 1, ``pin`` if in a deal) → ``svc_ok`` and a restart in service
  mode (a marker file the boot selector consumes), or ``svc_no`` ``in_deal`` / ``bad_pin``.
"""

import binascii
import os
import sys

from paizhuo_shared import link as codec

_PIN = b"paizhuo-pin|"


def _flash():
    return (os.getenv("PAIZHUO_FLASH") or ".") if sys.platform == "linux" else ""


def _read_ident():
    import json
    try:
        with open(_flash() + "/ident.json") as f:
            return json.loads(f.read())
    except (OSError, ValueError):
        return {}


def _ident():
    """The identity's public part (event, table, seat, hub; whether a PIN is set) and the
    free flash, for the answer to a listing."""
    d = _read_ident()
    d["pin"] = "pin" in d  # the PIN's verifier stays on the board
    try:
        s = os.statvfs(_flash() or "/")
        d["free"] = s[0] * s[4]
    except (OSError, AttributeError):
        pass
    return d


def _pin_ok(key, pin):
    want = _read_ident().get("pin")
    if not want or not isinstance(pin, str):
        return False
    return binascii.hexlify(codec.hmac_sha256(key, _PIN + pin.encode())).decode() == want


def main(app, line):
    """Answer a ``svc`` frame; on a good ``svc_go`` restart in service mode.  (Named ``main``:
    a name the firmware has already, so the game's link pays no new qstr to call it.)"""
    link = app.link
    try:
        try:
            msg = codec.decode(line, b"")
        except codec.LinkError:
            msg = None
        if msg is not None:
            if msg["t"] == "svc" and codec.is_nonce(msg.get("n")):
                n = binascii.hexlify(os.urandom(16)).decode()
                app.svc = codec.session_key(link.key, msg["n"], n)
                hi = _ident()
                hi.update({"t": "svc_hi", "s": 0, "n": n, "hn": msg["n"], "mode": "game", "dev": link.dev,
                           "fw": _fw(), "board": link.board.name, "deal": app.mirror.screen == "deal", "keyed": True})
                link.port.write(codec.encode(hi, link.key))
            return
        k = getattr(app, "svc", None)
        if k is None:
            return
        try:
            msg = codec.decode(line, k)
        except codec.LinkError:
            return
        app.svc = None  # one try per svc_hi
        if msg["t"] != "svc_go" or msg["s"] != 1:
            return
        if app.mirror.screen == "deal" and not _pin_ok(link.key, msg.get("pin")):
            code = "bad_pin" if msg.get("pin") else "in_deal"
            link.port.write(codec.encode({"t": "svc_no", "s": 1, "code": code}, k))
            if link.emit:
                link.emit("service refused %s" % code)
            return
        link.port.write(codec.encode({"t": "svc_ok", "s": 1}, k))
        try:
            os.mkdir(_flash() + "/fw")
        except OSError:
            pass
        with open(_flash() + "/fw/service", "wb") as f:
            f.write(b"1")
        if link.emit:
            link.emit("service restart")
        try:
            import machine
            machine.reset()
        except (ImportError, AttributeError):
            pass
        sys.exit(75)  # the unix port: the simulation starts the board again
    finally:
        sys.modules.pop("seat.svcgate", None)


def _fw():
    from seat import link
    return link.FIRMWARE
