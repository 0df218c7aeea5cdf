"""TLS on the venue link, against a real mosquitto TLS listener.

The test makes a throwaway venue CA and a broker certificate with the ``openssl`` command-line tool
(the same steps docs/venue.md § The broker gives staff), writes the broker's files with
``paizhuo broker config --tls-cert/--tls-key/--tls-ca`` and runs mosquitto on them.  Checked:
a client trusting the CA connects and a QoS 1 message round-trips; a wrong CA or a wrong host
name is one ``tls_failed`` error and never a connection; a plain-TCP client gets nothing from the
TLS listener; a real ``paizhuo hub`` subprocess delivers its result over TLS; and the
configuration keys (``[venue] tls_ca``, ``[broker] tls_ca``) refuse bad files naming the key.
"""

import asyncio
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys

import pytest

from brokers import Mosquitto, free_port, mosquitto, reachable_by_mosquitto, wait_for  # noqa: F401 (mosquitto: a fixture)
from paizhuo import cli
from paizhuo.mqtt import mosquitto as mq
from paizhuo.mqtt import wire
from paizhuo.mqtt.client import MqttClient, MqttError, tls_context
from paizhuo.table import config as table_config
from paizhuo.venue import event as venue_event

EV = "demo"
HUBS = ["T07"]
OPENSSL = shutil.which("openssl")


def _openssl(*args, cwd):
    done = subprocess.run([OPENSSL] + list(args), cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, "openssl %s failed:\n%s" % (" ".join(args), done.stderr)


def make_ca(folder, name):
    """A private CA: ``<name>-ca.pem`` and its key (EC P-256, as docs/venue.md shows)."""
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", "%s-ca.key" % name, "-out", "%s-ca.pem" % name, "-days", "2", "-subj", "/CN=%s venue CA" % name,
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             cwd=folder)
    return os.path.join(folder, "%s-ca.pem" % name)


def make_server_cert(folder, ca_name, names="DNS:localhost,IP:127.0.0.1"):
    """The broker's key and certificate, signed by ``ca_name``'s CA, for ``names``."""
    with open(os.path.join(folder, "server.ext"), "w") as f:
        f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
                "subjectAltName=%s\n" % names)
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "server.key",
             "-out", "server.csr", "-subj", "/CN=localhost", cwd=folder)
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "%s-ca.pem" % ca_name, "-CAkey", "%s-ca.key" % ca_name,
             "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext", cwd=folder)
    os.chmod(os.path.join(folder, "server.key"), 0o600)
    return os.path.join(folder, "server.pem"), os.path.join(folder, "server.key")


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """The venue CA, a broker certificate it signed, and an unrelated CA (the wrong one)."""
    if OPENSSL is None:     # fail, not skip: TLS is the point of this file
        raise RuntimeError("openssl is not installed: apt-get install openssl (`make test` installs it)")
    folder = str(tmp_path_factory.mktemp("pki"))
    ca = make_ca(folder, "venue")
    cert, key = make_server_cert(folder, "venue")
    other = make_ca(folder, "other")
    return {"folder": folder, "ca": ca, "cert": cert, "key": key, "other_ca": other}


@pytest.fixture
def tls_broker(tmp_path, pki):
    """mosquitto with the files of `paizhuo broker config --tls-cert … --tls-key … --tls-ca …`."""
    folder = tmp_path / "broker"
    port = free_port()
    assert cli.main(["broker", "config", "--event", EV, "--hubs", ",".join(HUBS), "--out", str(folder),
                     "--port", str(port), "--bind", "127.0.0.1", "--tls-cert", pki["cert"], "--tls-key", pki["key"],
                     "--tls-ca", pki["ca"]]) == 0
    b = Mosquitto(folder, conf=folder / "mosquitto.conf", port=port)
    b.start()
    b.files = folder
    try:
        yield b
    finally:
        b.stop()


def password(broker, user):
    return mq.read_password_file(str(broker.files / ("%s.pass" % user)))


def test_generated_conf_has_a_tls_listener_and_check_accepts_it(tls_broker, pki, capsys):
    conf = (tls_broker.files / "mosquitto.conf").read_text()
    assert "listener %d 127.0.0.1\n" % tls_broker.port in conf
    for line in ("certfile %s" % pki["cert"], "keyfile %s" % pki["key"], "cafile %s" % pki["ca"], "tls_version tlsv1.2"):
        assert line + "\n" in conf
    capsys.readouterr()
    reachable_by_mosquitto(tls_broker.files)
    assert cli.main(["broker", "check", "--dir", str(tls_broker.files)]) == 0
    assert "port %d (TLS)" % tls_broker.port in capsys.readouterr().out
    assert mq.check_config(str(tls_broker.files))["tls"] is True


def test_with_the_ca_a_qos1_message_round_trips(tls_broker, pki):
    async def main():
        got = []
        venue = MqttClient("venue-demo", tls_broker.host, tls_broker.port, username="venue",
                           password=password(tls_broker, "venue"), tls=tls_context(pki["ca"]),
                           on_message=lambda t, p: got.append((t, p)))
        hub = MqttClient("T07", tls_broker.host, tls_broker.port, username="T07", password=password(tls_broker, "T07"),
                         tls=tls_context(pki["ca"]), tls_server_name="localhost")
        await venue.start()
        await hub.start()
        try:
            await venue.wait_connected(10)
            await hub.wait_connected(10)
            venue.subscribe(wire.hub_filter(EV, "result"))
            topic = wire.hub_topic(EV, "T07", "result")
            # a burst: several MQTT packets share TLS records, every one must come out
            sent = [("结果 %d" % i).encode() * 50 for i in range(40)]
            await wait_for(lambda: venue.connects == 1, what="venue subscribed")
            await asyncio.sleep(0)
            mids = [hub.publish(topic, p, qos=1) for p in sent]
            for mid in mids:
                await hub.published(mid, 10)
            await wait_for(lambda: len(got) >= len(sent), what="all messages at the venue")
            assert got == [(topic, p) for p in sent]
            assert hub.error is None and venue.error is None
        finally:
            await hub.stop()
            await venue.stop()
    asyncio.run(main())


@pytest.mark.parametrize("which,server_name,needle", [
    ("other_ca", None, "does not verify"),                   # a CA that did not sign the broker
    ("ca", "broker.elsewhere", "broker.elsewhere"),            # the right CA, a name the certificate lacks
])
def test_a_certificate_that_does_not_verify_is_one_tls_failed_error(tls_broker, pki, which, server_name, needle,
                                                                    caplog):
    async def main():
        c = MqttClient("T07", tls_broker.host, tls_broker.port, username="T07", password=password(tls_broker, "T07"),
                       tls=tls_context(pki[which]), tls_server_name=server_name)
        await c.start()
        try:
            with pytest.raises(MqttError) as e:
                await c.wait_connected(10)
            assert e.value.code == "tls_failed"
            assert needle in e.value.en and "TLS" in e.value.en and "TLS" in e.value.zh
            await asyncio.sleep(0.5)       # a few retries happen meanwhile: still the one error, never connected
            assert c.connects == 0 and not c.connected and c.error.code == "tls_failed"
            with pytest.raises(MqttError) as again:     # asked again: the stored error at once
                await c.wait_connected(0.01)
            assert again.value.code == "tls_failed"
        finally:
            await c.stop()
    asyncio.run(main())
    said = [r for r in caplog.records if r.name == "paizhuo.mqtt.client" and "TLS" in r.getMessage()]
    assert len(said) == 1 and not said[0].exc_info      # logged once, no traceback per retry
    assert "as T07" not in tls_broker.log()     # mosquitto never saw an MQTT CONNECT from it


def test_a_plain_tcp_client_gets_nothing_from_the_tls_listener(tls_broker):
    async def main():
        c = MqttClient("T07", tls_broker.host, tls_broker.port, username="T07", password=password(tls_broker, "T07"))
        await c.start()
        try:
            with pytest.raises(MqttError) as e:
                await c.wait_connected(3)
            assert e.value.code == "not_connected" and "TLS-only" in e.value.en
            assert c.connects == 0
        finally:
            await c.stop()
    asyncio.run(main())


def test_a_tls_client_gets_nothing_from_a_plain_listener(mosquitto, pki):
    async def main():
        c = MqttClient("x", mosquitto.host, mosquitto.port, tls=tls_context(pki["ca"]))
        await c.start()
        try:
            with pytest.raises(MqttError) as e:
                await c.wait_connected(3)
            assert e.value.code in ("tls_failed", "not_connected") and "TLS" in e.value.en
            assert c.connects == 0
        finally:
            await c.stop()
    asyncio.run(main())


def test_a_real_hub_delivers_its_result_over_tls(tmp_path, tls_broker, pki):
    """`paizhuo hub` with an all-bot table and `[venue] tls_ca` plays its board and its result
    reaches a subscriber (the venue's account) through the TLS listener."""
    folder = tmp_path / "t7"
    folder.mkdir()
    shutil.copy(pki["ca"], folder / "venue-ca.pem")
    shutil.copy(tls_broker.files / "T07.pass", folder / "T07.pass")
    os.chmod(folder / "T07.pass", 0o600)
    (folder / "table.toml").write_text(
        '[table]\nhub = "T07"\nid = "7"\nevent = "TLS test"\ngame = "bigtwo"\nlog = "table7.sqlite"\n\n'
        '[venue]\nbroker = "127.0.0.1:%d"\nevent = "%s"\npassword_file = "T07.pass"\ntls_ca = "venue-ca.pem"\n'
        'keepalive_seconds = 2\nresend_seconds = 0.5\n\n'
        '[seats]\nbots = ["E", "N", "W", "S"]\nbot_think_seconds = 0\n\n'
        '[deals]\nsecret = "text:tls test deals, long enough"\nboards = "1"\n\n' % (tls_broker.port, EV)
        + "".join('[players.%s]\nid = "P%d"\nname = "选手%d"\n' % (s, i, i) for i, s in enumerate("ENWS", 1)),
        encoding="utf-8")

    async def main():
        results = []

        def on_message(topic, payload):
            t, msg = wire.check(EV, topic, payload)
            if t.leaf == "result":
                results.append(msg)
        venue = MqttClient("venue-demo", tls_broker.host, tls_broker.port, username="venue",
                           password=password(tls_broker, "venue"), tls=tls_context(pki["ca"]), on_message=on_message)
        await venue.start()
        await venue.wait_connected(10)
        venue.subscribe(wire.hub_filter(EV, "result"))
        await wait_for(lambda: venue.connected, what="venue up")
        out = open(tmp_path / "hub.txt", "wb")
        hub = subprocess.Popen([sys.executable, "-m", "paizhuo.cli", "hub", "--config", str(folder / "table.toml")],
                               stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        try:
            def arrived():
                assert hub.poll() is None, "the hub exited:\n" + (tmp_path / "hub.txt").read_text()
                return bool(results)
            await wait_for(arrived, 60, "the hub's result over TLS")
            msg = results[0]
            assert msg["hub"] == "T07" and msg["table"] == "7" and msg["board"] == 1
            assert len(msg["rows"]) == 4 and all(row["bot"] for row in msg["rows"])
        finally:
            if hub.poll() is None:
                os.killpg(hub.pid, signal.SIGTERM)
                try:
                    hub.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(hub.pid, signal.SIGKILL)
                    hub.wait()
            await venue.stop()
    asyncio.run(main())
    log = tls_broker.log()
    assert "T07" in log     # mosquitto logged the hub's (TLS) login


# ---- configuration ------------------------------------------------------------------------------

def test_cli_refuses_half_or_mismatched_tls_files(tmp_path, pki, capsys):
    d = str(tmp_path / "b")
    base = ["broker", "config", "--event", EV, "--hubs", "T07", "--out", d]
    assert cli.main(base + ["--tls-cert", pki["cert"]]) == 2
    assert "--tls-key" in capsys.readouterr().err
    assert cli.main(base + ["--tls-cert", pki["cert"], "--tls-key", pki["other_ca"]]) == 2      # a cert, not a key
    assert "private key" in capsys.readouterr().err
    other_key = os.path.join(pki["folder"], "other-ca.key")
    assert cli.main(base + ["--tls-cert", pki["cert"], "--tls-key", other_key]) == 2          # someone else's key
    assert "do not load together" in capsys.readouterr().err
    assert cli.main(base + ["--tls-cert", pki["cert"], "--tls-key", pki["key"], "--tls-ca", "/no/ca.pem"]) == 2
    assert "/no/ca.pem" in capsys.readouterr().err
    assert not os.path.exists(d) or os.listdir(d) == []     # nothing written by a refused command


@pytest.mark.parametrize("old,new,needle", [
    ("tls_version tlsv1.2", "tls_version tlsv1", "tls_version must be tlsv1.2"),
    ("keyfile ", "# keyfile ", "keyfile is missing"),
    ("cafile /", "cafile relative/", "must be an absolute path"),
])
def test_check_finds_a_broken_tls_listener(tmp_path, pki, old, new, needle):
    d = tmp_path / "b"
    mq.write_config(str(d), EV, HUBS, port=8883, tls=mq.Tls(pki["cert"], pki["key"], pki["ca"]))
    conf = d / "mosquitto.conf"
    text = conf.read_text()
    assert old in text
    conf.write_text(text.replace(old, new, 1))
    with pytest.raises(mq.MosquittoError) as e:
        mq.check_config(str(d))
    assert needle in e.value.en


def _venue_toml(extra):
    return ('[table]\nhub = "T07"\nid = "7"\nevent = "e"\n[venue]\nbroker = "broker.hall:8883"\nevent = "demo"\n%s'
            '[seats]\nbots = ["E", "N", "W", "S"]\n' % extra)


def _event_toml(extra):
    return ('[event]\nid = "cup"\nname = "杯赛"\ngame = "bigtwo"\nsecret = "text:sixteen chars secret"\nrounds = 1\n'
            'boards_per_round = 2\n[broker]\nhost = "broker.hall"\nport = 8883\n%s'
            '[[tables]]\ntable = "1"\nhub = "T01"\n' % extra
            + "".join('[[players]]\nid = "P%d"\nname = "选手%d"\nno = %d\n' % (i, i, i) for i in range(1, 5)))


def _load_table(text, base):
    return table_config.load_text(text, "table.toml", base=base).venue


def _load_event(text, base):
    return venue_event.load_text(text, "event.toml", base=base).broker


@pytest.mark.parametrize("load,make,error,prefix", [
    (_load_table, _venue_toml, table_config.ConfigError, "venue"),
    (_load_event, _event_toml, venue_event.EventError, "broker"),
])
def test_tls_ca_is_read_relative_to_the_file_and_bad_ones_name_the_key(tmp_path, pki, load, make, error, prefix):
    shutil.copy(pki["ca"], tmp_path / "ca.pem")
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    link = load(make('tls_ca = "ca.pem"\ntls_server_name = "broker.hall"\n'), str(tmp_path))
    assert link.tls_ca == str(tmp_path / "ca.pem") and link.tls_server_name == "broker.hall"
    ctx = link.tls()
    assert ctx.check_hostname and ctx.verify_mode.name == "CERT_REQUIRED"
    assert load(make(""), str(tmp_path)).tls() is None         # no tls_ca: plain TCP
    for extra, code, needle in [
        ('tls_ca = "missing.pem"\n', "bad_tls_ca", "missing.pem"),
        ('tls_ca = "junk.pem"\n', "bad_tls_ca", "not a PEM certificate"),
        ('tls_ca = 7\n', "bad_type", "tls_ca"),
        ('tls_server_name = "broker.hall"\n', "bad_tls_server_name", "only applies with tls_ca"),
        ('tls_ca = "ca.pem"\ntls_server_name = "two words"\n', "bad_tls_server_name", "host name"),
    ]:
        with pytest.raises(error) as e:
            load(make(extra), str(tmp_path))
        assert e.value.code == code, extra
        assert e.value.key.startswith(prefix + ".tls_") and needle in str(e.value) + e.value.en, extra
        assert e.value.zh


def test_tls_context_refuses_what_is_not_a_ca_file(tmp_path):
    with pytest.raises(MqttError) as e:
        tls_context(str(tmp_path / "none.pem"))
    assert e.value.code == "bad_tls_ca" and "none.pem" in e.value.en
    with pytest.raises(MqttError) as e:
        MqttClient("x", "127.0.0.1", 1883, tls="ca.pem")
    assert e.value.code == "bad_client"



def test_the_venue_and_a_hub_play_a_round_over_tls(tmp_path, tls_broker, pki):
    """`paizhuo venue` with `[broker] tls_ca` and a `paizhuo hub` with `[venue] tls_ca`: the venue
    starts the round (its key crosses the link only inside TLS) and stores the table's results."""
    from paizhuo.venue.store import hash_secret
    shutil.copy(pki["ca"], tmp_path / "venue-ca.pem")
    lines = ["[event]", 'id = "%s"' % EV, 'name = "TLS"', 'game = "bigtwo"', 'secret = "text:paizhuo tls test secret"',
             "rounds = 1", "boards_per_round = 1", "auto_start = true", "",
             "[broker]", 'host = "127.0.0.1"', "port = %d" % tls_broker.port, 'username = "venue"',
             'password_file = "%s"' % (tls_broker.files / "venue.pass"), 'tls_ca = "venue-ca.pem"', "", "[web]",
             'host = "127.0.0.1"', "port = %d" % free_port(), 'referee_pin_hash = "%s"' % hash_secret("7319"), "",
             "[store]", 'path = "venue.sqlite"', "", "[[tables]]", 'table = "7"', 'hub = "T07"', ""]
    for i in range(1, 5):
        lines += ["[[players]]", 'id = "P%d"' % i, 'name = "选手%d"' % i, "no = %d" % i, ""]
    (tmp_path / "event.toml").write_text("\n".join(lines), encoding="utf-8")
    folder = tmp_path / "t7"
    folder.mkdir()
    shutil.copy(pki["ca"], folder / "venue-ca.pem")
    (folder / "table.toml").write_text(
        '[table]\nhub = "T07"\nid = "7"\nevent = "TLS"\nlog = "table.sqlite"\n\n'
        '[venue]\nbroker = "127.0.0.1:%d"\nevent = "%s"\npassword_file = "%s"\ntls_ca = "venue-ca.pem"\n'
        'keepalive_seconds = 2\n\n[seats]\nbots = ["E", "N", "W", "S"]\nbot_think_seconds = 0\n'
        % (tls_broker.port, EV, tls_broker.files / "T07.pass"), encoding="utf-8")
    procs = []
    try:
        for name, args in (("venue", ["venue", "--event", str(tmp_path / "event.toml"), "--stay"]),
                           ("hub", ["hub", "--config", str(folder / "table.toml")])):
            with open(tmp_path / ("%s.txt" % name), "wb") as out:
                procs.append(subprocess.Popen([sys.executable, "-m", "paizhuo.cli"] + args, stdout=out,
                                              stderr=subprocess.STDOUT, start_new_session=True))

        def stored():
            for p in procs:
                assert p.poll() is None, "a process exited:\n" + "".join(
                    (tmp_path / n).read_text(errors="replace") for n in ("venue.txt", "hub.txt"))
            if not (tmp_path / "venue.sqlite").exists():
                return 0
            db = sqlite3.connect("file:%s?mode=ro" % (tmp_path / "venue.sqlite"), uri=True)
            try:
                return db.execute("SELECT count(*) FROM results").fetchone()[0]
            except sqlite3.OperationalError:    # tables not made yet
                return 0
            finally:
                db.close()
        asyncio.run(wait_for(lambda: stored() >= 4, 120, "the table's results at the venue"))
        assert "(TLS)" in (tmp_path / "venue.txt").read_text()
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
