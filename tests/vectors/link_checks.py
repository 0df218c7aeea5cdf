"""Seat-link vector checks (link_frames.jsonl) for tests/mpy/run_vectors.py.

make_link_vectors.py (beside this file) describes the case format.  Plain code for
MicroPython and CPython alike; ``check(case)`` returns None or what went wrong.
Under MicroPython the runner imports the .mpy that tests/mpy/build.py makes of it.
"""

import binascii

from paizhuo_shared import link as L


def _bytes(spec):
    """A line or chunk: a list of parts, each text, [text, n] (repeated) or {"hex": ...}.

    Returns a bytearray filled in place: a 4 KB line is allocated once (64 KB heap).
    """
    pieces = []
    size = 0
    for part in spec:
        if isinstance(part, str):
            b = part.encode()
            pieces.append((b, 1))
        elif isinstance(part, list):
            b = part[0].encode()
            pieces.append((b, part[1]))
        else:
            b = binascii.unhexlify(part["hex"])
            pieces.append((b, 1))
        size += len(b) * pieces[-1][1]
    out = bytearray(size)
    i = 0
    for b, n in pieces:
        for _ in range(n):
            out[i:i + len(b)] = b
            i += len(b)
    return out


def _msg(case):
    """The case's message, its ``why`` filled from ``pad`` [char, n] if given."""
    msg = case["msg"]
    if "pad" in case:
        msg["why"] = case["pad"][0] * case["pad"][1]
    return msg


def _same_msg(msg, case):
    """msg == _msg(case), without building a padded ``why`` (4 KB) to compare with."""
    want = case["msg"]
    if "pad" not in case:
        return msg == want
    ch, n = case["pad"]
    why = msg.get("why")
    if not isinstance(why, str) or len(why) != n or why.count(ch) != n:
        return False
    for k in msg:
        if k != "why" and (k not in want or want[k] != msg[k]):
            return False
    return len(msg) == len(want)


def _link_call(case, fn):
    """Run fn(); (result, None) if it returned, (None, problem) if it fails the case."""
    want = case.get("error")
    try:
        got = fn()
    except L.LinkError as e:
        if want is None:
            return None, "refused with %s (%s), expected success" % (e.code, e.en)
        if e.code != want:
            return None, "refused with %s (%s), expected %s" % (e.code, e.en, want)
        if not e.en or not e.zh or e.to_dict() != {"code": e.code, "en": e.en, "zh": e.zh}:
            return None, "error %s lacks en/zh text" % e.code
        return None, None
    if want is not None:
        return None, "accepted, expected error %s" % want
    return got, None


def _unhex(text):
    return binascii.unhexlify(text)


def _link_hmac(case, L):
    got = binascii.hexlify(L.hmac_sha256(_unhex(case["key_hex"]), _unhex(case["msg_hex"]))).decode()
    if got != case["mac_hex"]:
        return "hmac_sha256 gives %s, expected %s" % (got, case["mac_hex"])


def _link_session(case, L):
    got, err = _link_call(case, lambda: L.session_key(_unhex(case["key_hex"]), case["hn"], case["n"]))
    if err or got is None:
        return err
    got = binascii.hexlify(got).decode()
    if got != case["k_hex"]:
        return "session_key gives %s, expected %s" % (got, case["k_hex"])


def _link_encode(case, L):
    key = _unhex(case["key_hex"])
    msg = _msg(case)
    line, err = _link_call(case, lambda: L.encode(msg, key))
    if err or line is None:
        return err
    if len(line) > L.MAX_FRAME or line[-1:] != b"\n" or line.count(b"\n") != 1:
        return "frame of %d bytes, newline-terminated: %s" % (len(line), line[-1:] == b"\n")
    cut = len(line) - 66
    want = binascii.hexlify(L.hmac_sha256(key, memoryview(line)[:cut]))
    if line[cut + 1:-1] != want:
        return "tag is not HMAC-SHA256 of the JSON bytes"
    if L.decode(line, key) != msg:
        return "decodes to %s" % (L.decode(line, key),)


def _link_decode(case, L):
    line = _bytes(case["line"])
    if case["op"] == "peek":
        fn = lambda: L.peek(line)  # noqa: E731
    else:
        key = _unhex(case["key_hex"])
        fn = lambda: L.decode(line, key)  # noqa: E731
    msg, err = _link_call(case, fn)
    if err or msg is None:
        return err
    if not _same_msg(msg, case):
        return "gives %s, expected %s" % (msg, case["msg"])
    if "sender" in case:
        L.check_message(msg, case["sender"])


def _link_check(case, L):
    return _link_call(case, lambda: L.check_message(case["msg"], case["sender"]))[1]


def _link_open(case, L):
    session = L.Session(_unhex(case["key_hex"]), case["peer"])
    for i, frame in enumerate(case["frames"]):
        msg, err = _link_call(frame, lambda: session.open(_bytes(frame["line"])))
        if err:
            return "frame %d: %s" % (i + 1, err)
        if msg is not None and msg != frame["msg"]:
            return "frame %d: gives %s" % (i + 1, msg)
        if session.last_in != frame["last_in"]:
            return "frame %d: last_in %d, expected %d" % (i + 1, session.last_in, frame["last_in"])
        if session.next_out != 1:
            return "frame %d: open changed next_out" % (i + 1)


def _each_byte(specs):
    """The bytes of several line specs one at a time, without building them."""
    for spec in specs:
        for part in spec:
            if isinstance(part, str):
                b, n = part.encode(), 1
            elif isinstance(part, list):
                b, n = part[0].encode(), part[1]
            else:
                b, n = binascii.unhexlify(part["hex"]), 1
            for _ in range(n):
                for x in b:
                    yield x


def _same_bytes(data, spec):
    """data == _bytes(spec), without building the expected bytes."""
    i = 0
    for x in _each_byte((spec,)):
        if i >= len(data) or data[i] != x:
            return False
        i += 1
    return i == len(data)


def _pieces(specs, size):
    """The stream of several specs cut into pieces of ``size`` bytes (one buffer, reused)."""
    buf = bytearray(size)
    k = 0
    for x in _each_byte(specs):
        buf[k] = x
        k += 1
        if k == size:
            yield buf
            k = 0
    if k:
        yield bytes(buf[:k])


def _link_lines(case, L):
    # The same stream fed as chunked in the case, in 7-byte pieces and byte by byte must
    # give the same lines.  At most one chunk exists at a time (a 64 KB heap).
    want = case["lines"]
    for how in ("as given", "in 7-byte pieces", "byte by byte"):
        reader = L.LineReader()
        got = []
        if how == "as given":
            for spec in case["chunks"]:
                got.extend(reader.feed(_bytes(spec)))
        else:
            for piece in _pieces(case["chunks"], 7 if how[0] == "i" else 1):
                got.extend(reader.feed(piece))
        ok = len(got) == len(want)
        for i in range(len(got) if ok else 0):
            if want[i] is None:
                ok = got[i] is L.TOO_LONG
            else:
                ok = got[i] is not L.TOO_LONG and _same_bytes(got[i], want[i])
            if not ok:
                break
        if not ok:
            return "fed %s: %d lines %s, expected %d" % (how, len(got), [g if g is L.TOO_LONG else g[:20] for g in got],
                                                          len(want))
        reader = got = None


LINK_OPS = {"hmac": _link_hmac, "session": _link_session, "encode": _link_encode, "decode": _link_decode,
            "peek": _link_decode, "check": _link_check, "open": _link_open, "lines": _link_lines}


def check(name, case):
    fn = LINK_OPS.get(case.get("op"))
    if fn is None:
        return "unknown link op %s (known: %s)" % (case.get("op"), " ".join(sorted(LINK_OPS)))
    return fn(case, L)
