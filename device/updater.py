# The seat board's boot selector and image slots (staged updates with a trial boot).
#
# Not part of the firmware image: it chooses the image, so it lives beside main.py on the
# board's filesystem (on the unix port beside hostboot.mpy) and a release never replaces it.
#
# Two slots, "a" and "b", each holds one ROMFS image.  The board boots its active slot.  A
# committed update is written into the other slot and recorded as the trial; the next boot
# runs it once (its sha256 checked first, so a half-written image never runs) and marks it
# tried.  The trial is confirmed when that boot reaches a welcome from its hub; if it does
# not within its time limit, or the board resets before, the next boot goes back to the
# active slot by itself.  The record is one small JSON file written whole and renamed into
# place, so power lost at any moment leaves the old record or the new one.
#
# Storage: on a board the slots are the first two ROMFS partitions (vfs.rom_ioctl); on the
# unix port they are files in $PAIZHUO_FLASH/fw/ (the folder standing in for the flash).
import os
import sys
import time

try:
    import vfs
except ImportError:
    vfs = None

HOST = sys.platform == "linux"
FLASH = (os.getenv("PAIZHUO_FLASH") or ".") if HOST else ""
FW = FLASH + "/fw"
STATE = FW + "/boot.json"
MARK = FW + "/service"  # present: the next boot starts service mode (a staff tool asked for it)
HOST_SLOT = 1024 * 1024  # the unix port's slot size (a board's is its partition's)
TRIAL_MS = 120000  # the default time a trial boot has to reach its hub's welcome
RESET = 75  # the unix port's exit status for "reset me" (the simulation restarts the board)
_trial = None  # (slot, ticks_ms at boot, limit ms) while a trial boot runs
BUF = None  # the unix port: the buffer images are read into (set by hostboot)


def other(slot):
    return "b" if slot == "a" else "a"


def _mkdir(path):
    try:
        os.mkdir(path)
    except OSError:
        pass  # exists


def state():
    """The boot record: active slot, trial (slot or None), tried, limit, img {slot: {sha, ver, size}},
    rolled (the slot of the last trial that was rolled back)."""
    import json
    try:
        with open(STATE) as f:
            st = json.loads(f.read())
        if st.get("active") in ("a", "b"):
            return st
    except (OSError, ValueError):
        pass
    return {"active": "a", "trial": None, "tried": False, "limit": TRIAL_MS, "img": {}, "rolled": None}


def write_file(path, data):
    """Write ``data`` to ``path`` whole: a temporary file renamed over it (old or new, never half)."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.rename(tmp, path)


def save(st):
    import json
    _mkdir(FW)
    write_file(STATE, json.dumps(st))


def _part(slot):
    return 0 if slot == "a" else 1


def capacity(slot):
    """Bytes a slot holds."""
    if HOST:
        return HOST_SLOT
    return len(vfs.rom_ioctl(2, _part(slot)))


def image(slot):
    """The bytes of a slot's image (a buffer the ROMFS mounts from), or None."""
    if not HOST:
        return vfs.rom_ioctl(2, _part(slot))
    return image_file(FW + "/" + slot + ".romfs")


def digest(buf, size):
    """sha256 (hex) of the first ``size`` bytes of ``buf``, a slice at a time."""
    import binascii
    import hashlib
    h = hashlib.sha256()
    mv = memoryview(buf)
    i = 0
    while i < size:
        j = i + 4096 if i + 4096 < size else size
        h.update(mv[i:j])
        i = j
    return binascii.hexlify(h.digest()).decode()


def slot_digest(slot, size):
    """sha256 (hex) of the first ``size`` bytes of a slot, read from storage a piece at a time
    (service mode has no room for a second image in the heap)."""
    if not HOST:
        return digest(vfs.rom_ioctl(2, _part(slot)), size)
    import binascii
    import hashlib
    h = hashlib.sha256()
    piece = bytearray(2048)
    left = size
    with open(FW + "/" + slot + ".romfs", "rb") as f:
        while left > 0:
            n = f.readinto(piece)
            if not n:
                return ""
            h.update(memoryview(piece)[:n if n < left else left])
            left -= n
    return binascii.hexlify(h.digest()).decode()


def _good(st, slot, buf):
    meta = st["img"].get(slot)
    if buf is None or meta is None:
        return False
    return meta["size"] <= len(buf) and digest(buf, meta["size"]) == meta["sha"]


def _mount(buf):
    if HOST:
        vfs.mount(vfs.VfsRom(buf), "/rom")
    elif buf is not None:
        try:
            vfs.umount("/rom")
        except OSError:
            pass
        vfs.mount(vfs.VfsRom(buf), "/rom")
    for p in ("/rom", "/rom/lib"):
        if p not in sys.path:
            sys.path.insert(0, p)


def boot():
    """At reset: choose the slot (trial, rollback or active), mount it at /rom and return the
    mode: "service" when a staff tool asked for service mode, else None (the game).  Drops
    itself from sys.modules unless this is a trial boot (the app then confirms it)."""
    global _trial
    st = state()
    mode = None
    try:
        os.remove(MARK)
        mode = "service"  # the active image serves; a pending trial waits for a game boot
    except OSError:
        pass
    slot = st["active"]
    trial = st.get("trial")
    buf = None
    if trial and st.get("tried"):  # the trial boot ended without a welcome: back to the old image
        _roll(st, trial)
    elif trial and mode is None:
        buf = image(trial)
        if _good(st, trial, buf):
            st["tried"] = True
            save(st)  # before running it: a crash in it rolls back at the next reset
            slot = trial
            _trial = (trial, time.ticks_ms(), st.get("limit") or TRIAL_MS)
        else:
            buf = None
            _roll(st, trial)
    if mode is None and _blank():
        mode = "blank"
    if buf is None:
        import gc
        gc.collect()  # the record's garbage goes before the image (on the unix port, in the heap) comes
        buf = image(slot)
        if buf is None and HOST:  # a board never updated: the factory image
            buf = image_file(os.getenv("PAIZHUO_ROMFS"))
    _mount(buf)
    if _trial is None:
        del sys.modules["updater"]
    return mode


def _blank():
    """True if the provisioning file has no key at all (a blank board: service mode takes
    its first identity).  A file with a damaged key is not blank: the game says what is wrong."""
    import json
    try:
        with open((os.getenv("PAIZHUO_SEAT") or "/seat.json") if HOST else "/seat.json") as f:
            return "key" not in json.loads(f.read())
    except OSError:
        return True
    except ValueError:
        return False


def _roll(st, trial):
    st["trial"] = None
    st["tried"] = False
    st["rolled"] = trial
    save(st)


def image_file(path):
    """A file's bytes in BUF (hostboot's buffer, allocated before anything else), or None."""
    try:
        size = os.stat(path)[6]
    except OSError:
        return None
    buf = memoryview(BUF)[:size] if BUF is not None and size <= len(BUF) else bytearray(size)
    with open(path, "rb") as f:
        f.readinto(buf)
    return buf


def confirm():
    """The trial boot reached its hub: its slot becomes the active one."""
    global _trial
    if _trial is None:
        return
    st = state()
    if st.get("trial") == _trial[0]:
        st["active"] = _trial[0]
        st["trial"] = None
        st["tried"] = False
        st["rolled"] = None
        save(st)
    _trial = None
    del sys.modules["updater"]


def tick(now):
    """During a trial boot: past its limit without a welcome, roll back (reset; the next
    boot takes the active slot).  ``now`` None: the welcome came, :func:`confirm` (the app
    calls one name only: each name is a qstr on the game's heap)."""
    if now is None:
        confirm()
    elif _trial is not None and time.ticks_diff(now, _trial[1]) > _trial[2]:
        print("paizhuo seat: trial boot reached no hub in %d ms: rolling back" % _trial[2])
        reset()


def reset():
    """Restart the board (the unix port exits with RESET; the simulation starts it again)."""
    try:
        import machine
        machine.reset()
    except (ImportError, AttributeError):
        pass
    sys.exit(RESET)


class Writer:
    """Writes one image into a slot, in order; nothing marks it bootable (see ``commit``)."""

    def __init__(self, slot, size):
        self.slot = slot
        self.size = size
        self.at = 0
        if HOST:
            _mkdir(FW)
            self.f = open(FW + "/" + slot + ".romfs", "wb")
        else:
            self.f = None
            vfs.rom_ioctl(3, _part(slot), size)  # erase

    def write(self, data):
        if self.f is not None:
            self.f.write(data)
        else:
            vfs.rom_ioctl(4, _part(self.slot), self.at, data)
        self.at += len(data)

    def close(self):
        if self.f is not None:
            self.f.close()
            self.f = None
        elif not HOST:
            vfs.rom_ioctl(5, _part(self.slot))
