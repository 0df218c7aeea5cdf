"""Issue #13: provisioning and staged updates over the seat's own link, against the real
firmware on the MicroPython unix port over pty pairs.

Each board is a :class:`simboard.SimBoard` (flash folder, image slots, a reset that starts it
again); the staff tool's side is :class:`paizhuo.provision.boardlink.BoardLink` on the hub
end of the pty, exactly as ``paizhuo provision`` drives a USB port.
"""

import hashlib
import json
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "firmware"))

import scenes  # noqa: E402
from simboard import SimBoard, shared_firmware  # noqa: E402

from paizhuo.provision.boardlink import BoardError, BoardLink  # noqa: E402
from paizhuo.sim.links import PtyLink  # noqa: E402

pytestmark = pytest.mark.micropython

KEY = bytes(range(100, 132))
DEV = "S-0042"
PIN = "246810"


def variant(fw, folder, note):
    """A second valid image: ``fw``'s files plus a note file, as another release would differ."""
    from mpremote.romfs import VfsRomWriter
    rom = Path(fw.folder) / "rom"
    w = VfsRomWriter()

    def walk(path):
        for entry in sorted(path.iterdir()):
            if entry.is_dir():
                w.opendir(entry.name)
                walk(entry)
                w.closedir()
            else:
                w.mkfile(entry.name, entry.read_bytes())
    walk(rom)
    w.mkfile("NOTE", note.encode())
    data = w.finalise()
    out = Path(folder) / "variant.romfs"
    out.write_bytes(data)
    return data


MANIFEST = {"version": "0.2.0-test", "boards": ["ref-s3", "host"], "mpy": 6}


@pytest.fixture(scope="module")
def fw():
    return shared_firmware()


@pytest.fixture(scope="module")
def new_image(fw, tmp_path_factory):
    return variant(fw, tmp_path_factory.mktemp("v"), "release two")


@pytest.fixture
def bench(fw, tmp_path):
    """(pty, board): a provisioned board in its game, the tool's end at pty.hub_path."""
    pty = PtyLink(str(tmp_path), "E")
    board = SimBoard(fw, tmp_path / "board", pty.seat_path, dev=DEV, key=KEY)
    try:
        board.wait_line("link open")
        yield pty, board
    finally:
        board.stop()
        print(board.output())  # shown when a test fails
        pty.close()


def sha(data):
    return hashlib.sha256(data).hexdigest()


def test_a_full_update_is_tried_then_kept_once_it_reaches_its_hub(bench, new_image):
    pty, board = bench
    with BoardLink(pty.hub_path) as tool:
        hi = tool.open_service(KEY)  # the game restarts in service mode
        assert hi["mode"] == "service" and hi["active"] == "a" and not hi["zero"]
        assert board.exits[0] == 75, "the game restarted itself into service mode"
        seen = []
        tool.push(new_image, MANIFEST, progress=lambda o, n: seen.append(o))
        assert seen[-1] == len(new_image) and seen == sorted(seen)
        st = board.boot_state()
        assert st["trial"] == "b" and st["active"] == "a" and st["img"]["b"]["sha"] == sha(new_image)
        tool.reboot()
        tool.confirm_as_hub(KEY, "T07", "E", "7", "test")
        board.wait_line("link up E", after=0)
        hi = tool.open_service(KEY)
    assert hi["active"] == "b" and hi["trial"] is None and hi["img"]["b"]["sha"] == sha(new_image)
    assert (Path(board.flash) / "fw" / "b.romfs").read_bytes() == new_image


def test_a_corrupted_chunk_is_refused_and_sent_again(bench, new_image):
    pty, board = bench
    with BoardLink(pty.hub_path) as tool:
        tool.open_service(KEY)
        bad = []

        def tamper(o, data):
            if o == 8 * 1024 and not bad:
                bad.append(o)
                return bytes([data[0] ^ 0xFF]) + data[1:]
            return None
        tool.push(new_image, MANIFEST, tamper=tamper)
    assert bad == [8192]
    board.wait_line("service no chunk bad_chunk")
    assert board.boot_state()["img"]["b"]["sha"] == sha(new_image)
    assert (Path(board.flash) / "fw" / "b.romfs").read_bytes() == new_image


def test_a_cable_pulled_mid_transfer_leaves_the_old_firmware_booting(fw, bench, new_image, tmp_path):
    pty, board = bench
    tool = BoardLink(pty.hub_path, timeout=2.0)
    tool.open_service(KEY)
    with pytest.raises(BoardError) as e:
        tool.push(new_image, MANIFEST, progress=lambda o, n: o > n // 2 and pty.close())
    tool.close()
    assert e.value.code == "link_lost"
    assert "keeps the firmware it had" in e.value.en and "保留原固件" in e.value.zh
    st = board.boot_state()
    assert st["active"] == "a" and st["trial"] is None and "b" not in st["img"]
    # The cable back in, the board power-cycled: the old image boots into its game.
    with PtyLink(str(tmp_path), "E") as again, BoardLink(again.hub_path) as tool:
        mark = board.mark()
        board.power_cycle()
        board.wait_line("start precheck", after=mark)
        tool.confirm_as_hub(KEY, "T07", "E", "7", "test")
        board.wait_line("link up E", after=mark)
    assert board.boot_state()["active"] == "a"


def test_a_trial_boot_that_never_reaches_its_hub_rolls_back_by_itself(bench, new_image):
    pty, board = bench
    with BoardLink(pty.hub_path) as tool:
        tool.open_service(KEY)
        tool.push(new_image, MANIFEST, limit_ms=2000)
        mark = board.mark()
        tool.reboot()
        # No hub answers: the trial gives up after 2 s and the board starts its old image.
        board.wait_line("paizhuo seat: trial boot reached no hub", after=mark, timeout=20)
        board.wait_line("start precheck", after=board.mark(), timeout=20)
        hi = tool.probe()
    st = board.boot_state()
    assert st["active"] == "a" and st["trial"] is None and st["rolled"] == "b"
    assert hi["mode"] == "game"


def test_a_board_in_a_running_deal_refuses_service_without_the_referee_pin(fw, tmp_path):
    with PtyLink(str(tmp_path), "E") as pty:
        board = SimBoard(fw, tmp_path / "board", pty.seat_path)  # blank: its identity comes with a PIN
        try:
            with BoardLink(pty.hub_path) as tool:
                tool.open_service(None)
                tool.ident(DEV, KEY, "zh", "test", "7", "E", "T07", pin=PIN)
                tool.open_service(KEY)
                tool.reboot()
                tool.confirm_as_hub(KEY, "T07", "E", "7", "test")
                tool.hub_send(scenes.state(None, screen="deal"))  # the deal runs
                time.sleep(0.3)
                exits = list(board.exits)
                for pin, code in ((None, "in_deal"), ("000000", "bad_pin")):
                    with pytest.raises(BoardError) as e:
                        tool.open_service(KEY, pin=pin)
                    assert e.value.code == code
                with pytest.raises(BoardError) as e:
                    tool.open_service(KEY)
                assert "裁判" in e.value.zh and "referee PIN" in e.value.en and "referee console" in e.value.en
                assert board.exits == exits, "the board plays on"
                hi = tool.open_service(KEY, pin=PIN)
                assert hi["mode"] == "service"
        finally:
            board.stop()


def test_a_blank_board_takes_a_first_identity_then_refuses_one_without_its_key(fw, tmp_path):
    with PtyLink(str(tmp_path), "E") as pty:
        board = SimBoard(fw, tmp_path / "board", pty.seat_path)
        try:
            with BoardLink(pty.hub_path) as tool:
                hi = tool.open_service(None)
                assert hi["zero"] and hi["dev"] is None
                tool.ident(DEV, KEY, "zh", "test", "7", "E", "T07")
                with pytest.raises(BoardError) as e:  # a second identity, without the key
                    tool.open_service(None)
                assert e.value.code == "needs_key" and "BOOT" in e.value.en
                hi = tool.open_service(KEY)  # with it: the board answers under its new key
                assert (hi["dev"], hi["table"], hi["seat"], hi["hub"]) == (DEV, "7", "E", "T07")
                received = bytes(tool.received)
            assert board.seat_file()["key"] == KEY.hex()
            assert KEY.hex().encode() not in received, "the key is never sent back"
            assert KEY.hex() not in board.output(), "nor printed"
            # The service button held through a reset: a first identity again (a lost key).
            with BoardLink(pty.hub_path) as tool:
                mark = board.mark()
                board.power_cycle(button=True)
                board.wait_line("service mode", after=mark)
                hi = tool.open_service(None)
                assert hi["zero"]
                tool.ident("S-0043", bytes(32 * [7]), "en", "test", "8", "N", "T08")
            assert json.loads(Path(board.seat_json).read_text())["dev"] == "S-0043"
        finally:
            board.stop()
