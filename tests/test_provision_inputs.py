"""Issue #13: what provisioning takes from outside — a release folder, staff's arguments, and the
frames a service-mode board reads from its cable — is refused clearly and changes nothing."""

import json
import string
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent / "firmware"))

from simboard import SimBoard, shared_firmware  # noqa: E402

from paizhuo.errors import CodedError  # noqa: E402
from paizhuo.provision import ProvisionError, staff  # noqa: E402
from paizhuo.provision.boardlink import BoardLink  # noqa: E402
from paizhuo.provision.release import ReleaseError, load_release  # noqa: E402
from paizhuo.sim.links import PtyLink  # noqa: E402
from paizhuo_shared import link  # noqa: E402

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                      max_size=4), max_leaves=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(manifest=st.one_of(json_values, st.fixed_dictionaries({
    "format": st.just(1), "version": json_values, "commit": json_values, "boards": json_values, "mpy": json_values,
    "image": json_values, "files": st.lists(st.fixed_dictionaries({"path": st.text(max_size=12), "size": json_values,
                                                                    "sha256": json_values}), max_size=3)})))
def test_any_manifest_is_a_release_or_a_clear_refusal(tmp_path_factory, manifest):
    folder = tmp_path_factory.mktemp("rel")
    (folder / "manifest.json").write_text(json.dumps(manifest))
    try:
        load_release(folder)
    except ReleaseError as e:
        assert e.en and e.zh and e.code in ("not_release", "release_damaged")
    except (TypeError, KeyError, AttributeError) as e:  # pragma: no cover - the property's failure
        raise AssertionError("traceback instead of a refusal: %r" % e)


@settings(max_examples=60, deadline=None)
@given(ports=st.text(alphabet=string.printable, max_size=40), devices=st.text(alphabet=string.printable, max_size=40))
def test_bad_assign_arguments_are_refused_before_any_board_is_asked(tmp_path_factory, ports, devices):
    out = tmp_path_factory.mktemp("out")
    try:
        staff.assign("7", "T07", ports, str(out), devices=devices or None)
    except (ProvisionError, CodedError) as e:
        assert e.en and e.zh
    assert not (out / "table.toml").exists()


@pytest.mark.micropython
def test_a_service_mode_board_survives_any_frame_on_its_cable(tmp_path):
    """Garbage, frames under the wrong key, replays, odd fields: each is answered or dropped, the
    board stays in service mode and still answers its staff tool, and nothing is written."""
    fw = shared_firmware()
    key = bytes(range(50, 82))
    with PtyLink(str(tmp_path), "E") as pty:
        board = SimBoard(fw, tmp_path / "board", pty.seat_path, dev="S-0009", key=key)
        try:
            with BoardLink(pty.hub_path) as tool:
                tool.open_service(key)
                seat_before = board.seat_file()
                boot_before = board.boot_state()
                k = tool.k
                junk = [b"\n", b"x" * 5000 + b"\n", b"{}\t" + b"0" * 64 + b"\n", b"\xff\xfe\t\n",
                        link.encode({"t": "svc", "s": 0, "n": "nothex"}, b""),
                        link.encode({"t": "ident", "s": 1, "dev": "S-1", "key": "00" * 32}, b""),
                        link.encode({"t": "ident", "s": 1, "dev": "S-1", "key": "00" * 32}, bytes(32)),
                        link.encode({"t": "begin", "s": 1, "size": -5, "sha": 7, "boards": "host", "mpy": None}, k),
                        link.encode({"t": "chunk", "s": 2, "o": "x", "d": 5, "h": []}, k),
                        link.encode({"t": "commit", "s": 3}, k),
                        link.encode({"t": "ident", "s": 4, "dev": "bad id!", "key": "zz"}, k),
                        link.encode({"t": "ident", "s": 5, "dev": "S-1", "key": "ab" * 32, "lang": "zh", "event": "e",
                                     "table": "7", "seat": "E", "hub": ["x"]}, k),
                        link.encode({"t": "rollback", "s": 6}, k),
                        link.encode({"t": "rollback", "s": 6}, k),  # a replay
                        link.encode({"t": "nothing", "s": 7, "x": {"y": [1, 2]}}, k)]
                for frame in junk:
                    tool.write(frame)
                time.sleep(1.0)  # the board answers each (plain refusals and "no"s): let them go by
                tool.ser.reset_input_buffer()
                tool.lines, tool.out = [], 8
                tool.reader.reset()
                info = tool.info()  # still in the same session, still answering
                assert info["dev"] == "S-0009"
                assert board.seat_file() == seat_before and board.boot_state() == boot_before
            assert board.exits == [75], "one restart (into service mode), no crash"
            assert "Traceback" not in board.output()
        finally:
            board.stop()


@pytest.mark.micropython
def test_a_port_held_by_a_running_hub_is_refused(tmp_path):
    import subprocess
    with PtyLink(str(tmp_path), "E") as pty:
        hub = subprocess.Popen([sys.executable, "-c", "import sys, time; f = open(sys.argv[1], 'rb'); "
                                "print('open', flush=True); time.sleep(30)", pty.hub_path], stdout=subprocess.PIPE)
        try:
            assert hub.stdout.readline().strip() == b"open"
            with pytest.raises(CodedError) as e:
                BoardLink(pty.hub_path)
            assert e.value.code == "port_busy" and "stop the table hub" in e.value.en and "请先停止" in e.value.zh
        finally:
            hub.kill()
            hub.wait()
