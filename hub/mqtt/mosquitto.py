"""The production broker: a mosquitto configuration with one login per hub and topic ACLs.

``paizhuo broker config --event demo --hubs T01,T02 --out DIR`` writes into ``DIR``:

- ``mosquitto.conf`` — ``allow_anonymous false``, ``set_tcp_nodelay true``, persistence, the
  password and ACL files, packet and queue limits (commented; ``hub/venue/brokers/mosquitto.conf``
  is the same template with every choice explained);
- ``passwd`` — one line per client in mosquitto's own ``$7$`` format (PBKDF2-HMAC-SHA512, 101
  iterations, 12-byte random salt, base64 — exactly what ``mosquitto_passwd`` writes; computed
  here with ``hashlib`` so no Debian tool is needed to make it; the tests check that mosquitto
  accepts it);
- ``acl`` — each hub may write only ``paizhuo/v1/<event>/hub/<its id>/#`` and read its own venue
  topics, the standings and the hand records; ``venue`` reads every hub and writes the venue
  topics; ``monitor`` (console displays) reads the public topics (hub status and live snapshots,
  standings, finished rounds' hand records) and writes nothing;
- ``<client>.pass`` — the password of each client (every hub, ``venue``, ``monitor``), mode 0600,
  no trailing newline: copy ``T07.pass`` to hub T07 and name it in its ``[venue] password_file``.

With ``--tls-cert CERT --tls-key KEY [--tls-ca CA]`` the listener speaks TLS only (``certfile``,
``keyfile``, ``cafile``, ``tls_version tlsv1.2``), so passwords and round keys never cross the hall
network in clear.  The certificates are the venue's own (a private CA: docs/venue.md § The
broker); this command never makes them.  Paths are stored absolute, as mosquitto needs.

Passwords are 32 random URL-safe characters (192 bits), so the hash's iteration count is not what
protects them.  ``paizhuo broker check --dir DIR`` re-reads everything and verifies each password
file against ``passwd``, the ACL against the client list, file modes, and the settings above.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> files = write_config(d, "demo", ["T01", "T02"], port=1883)
    >>> sorted(os.path.basename(p) for p in files)
    ['T01.pass', 'T02.pass', 'acl', 'monitor.pass', 'mosquitto.conf', 'passwd', 'venue.pass']
    >>> check_config(d)["clients"]
    ['T01', 'T02', 'monitor', 'venue']
    >>> acl_rules("demo", "T01", "hub")[0]
    'topic write paizhuo/v1/demo/hub/T01/#'
"""

import base64
import hashlib
import hmac
import os
import secrets
import stat
import sys

from ..errors import CodedError
from . import wire

__all__ = ["MosquittoError", "Tls", "write_config", "check_config", "hash_password", "verify_password", "acl_rules",
           "read_password_file", "VENUE_USER", "MONITOR_USER", "add_arguments", "command"]

VENUE_USER = "venue"
MONITOR_USER = "monitor"
# What console displays may read: hubs' online status and live (public) snapshots, the
# standings and the hand records of finished rounds.
MONITOR_READS = ("hub/+/status", "hub/+/live", "venue/standings", "venue/records/#")
ITERATIONS = 101        # mosquitto_passwd's default; passwords are random, see the module docstring
SALT_BYTES = 12
FILES = ("mosquitto.conf", "passwd", "acl")


class MosquittoError(CodedError):
    """The broker files cannot be written or do not check out; the text says what to do."""


# ---- passwords ---------------------------------------------------------------------------------

def hash_password(password, salt=None, iterations=ITERATIONS):
    """mosquitto's ``$7$`` hash of ``password``: ``$7$<iterations>$<b64 salt>$<b64 PBKDF2-SHA512>``.

    >>> h = hash_password("s3cret", salt=bytes(12))
    >>> h[:24], len(h)
    ('$7$101$AAAAAAAAAAAAAAAA$', 112)
    """
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    dk = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
    return "$7$%d$%s$%s" % (iterations, base64.b64encode(salt).decode(), base64.b64encode(dk).decode())


def verify_password(password, hashed):
    """Does ``password`` match a ``$7$`` hash (as ``mosquitto_passwd`` or :func:`hash_password` wrote it)?

    >>> verify_password("s3cret", hash_password("s3cret")), verify_password("other", hash_password("s3cret"))
    (True, False)
    """
    parts = hashed.split("$")
    if len(parts) != 5 or parts[0] != "" or parts[1] != "7" or not parts[2].isdigit():
        return False
    try:
        salt = base64.b64decode(parts[3], validate=True)
        want = base64.b64decode(parts[4], validate=True)
    except ValueError:
        return False
    got = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, int(parts[2]))
    return hmac.compare_digest(got, want)


def read_password_file(path):
    """The password in a ``<client>.pass`` file; refuses files others can read (must be 0600)."""
    try:
        st = os.stat(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise MosquittoError("no_password_file", "cannot read the MQTT password file %s: %s" % (path, e.strerror),
                             "无法读取 MQTT 密码文件 %s：%s" % (path, e.strerror)) from None
    if st.st_mode & 0o077:
        raise MosquittoError("password_file_mode", "%s is readable by others (mode %o): run chmod 600 %s"
                             % (path, stat.S_IMODE(st.st_mode), path),
                             "%s 可被他人读取（权限 %o）：请执行 chmod 600 %s" % (path, stat.S_IMODE(st.st_mode), path))
    password = text.strip()
    if not password:
        raise MosquittoError("empty_password_file", "%s is empty" % path, "%s 是空文件" % path)
    return password


# ---- ACL ---------------------------------------------------------------------------------------

def acl_rules(event, user, role):
    """The ACL lines of one client; ``role`` is ``hub``, ``venue`` or ``monitor``."""
    root = "%s/%s" % (wire.ROOT, event)
    if role == "hub":
        return ["topic write %s/hub/%s/#" % (root, user)] + ["topic read %s" % f
                                                              for f in wire.hub_subscriptions(event, user)]
    if role == "venue":
        return ["topic read %s/hub/#" % root, "topic write %s/venue/#" % root]
    if role == "monitor":
        # Public information only: never a round spec (the seating and deal hashes, for its
        # hub), a control (a start carries the round key, which opens every hand of the
        # round), or a result (its hand record shows a board other tables of the group may
        # still be playing).
        return ["topic read %s/%s" % (root, leaf) for leaf in MONITOR_READS]
    raise ValueError("role must be hub, venue or monitor, not %r" % (role,))


def _acl_text(event, hubs):
    out = ["# paizhuo MQTT ACL for event %s (written by `paizhuo broker config`)." % event,
           "# A client may only use the topics listed under its user; anything else is silently dropped",
           "# (a publish) or refused (a subscription).  Anonymous clients are refused by mosquitto.conf.", ""]
    for user, role, why in ([(VENUE_USER, "venue", "the venue service: reads every hub, writes round specs, "
                              "control, acks, standings and records")]
                            + [(MONITOR_USER, "monitor", "console displays: read public topics (status, live, standings, "
                              "records), write nothing")]
                            + [(h, "hub", "table hub %s: writes only under its own id" % h) for h in hubs]):
        out.append("# %s" % why)
        out.append("user %s" % user)
        out.extend(acl_rules(event, user, role))
        out.append("")
    return "\n".join(out)


def _parse_acl(text):
    """{user: [rule lines]} of an ACL file (``user`` blocks; comments and blanks skipped)."""
    rules, user = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("user "):
            user = line[5:].strip()
            rules.setdefault(user, [])
        elif user is None:
            rules.setdefault(None, []).append(line)     # rules for every client: refused by check
        else:
            rules[user].append(line)
    return rules


# ---- mosquitto.conf ----------------------------------------------------------------------------

TLS_VERSION = "tlsv1.2"     # mosquitto's minimum: TLS 1.2 and newer


class Tls:
    """The broker's TLS files (absolute paths): its certificate chain, private key and the CA.

    ``ca`` defaults to ``cert`` (a self-signed broker certificate is its own CA); with a venue CA,
    give the CA's certificate — hubs trust that one (``[venue] tls_ca``).
    """

    __slots__ = ("cert", "key", "ca")

    def __init__(self, cert, key, ca=None):
        self.cert = os.path.abspath(cert)
        self.key = os.path.abspath(key)
        self.ca = os.path.abspath(ca) if ca else self.cert

    def check(self):
        """Raise :class:`MosquittoError` ("bad_tls") unless the three files are PEM that load together."""
        import ssl
        for what, path, marker in (("--tls-cert", self.cert, "CERTIFICATE"), ("--tls-key", self.key, "PRIVATE KEY"),
                                   ("--tls-ca", self.ca, "CERTIFICATE")):
            try:
                with open(path, encoding="ascii", errors="replace") as f:
                    text = f.read()
            except OSError as e:
                raise MosquittoError("bad_tls", "%s %s cannot be read (%s)" % (what, path, e.strerror),
                                     "%s %s 无法读取（%s）" % (what, path, e.strerror)) from None
            if "-----BEGIN " not in text or marker not in text:
                raise MosquittoError("bad_tls", "%s %s is not a PEM %s" % (what, path, marker.lower()),
                                     "%s %s 不是 PEM 格式的%s" % (what, path, "证书" if marker == "CERTIFICATE" else "私钥"))
        try:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(self.cert, self.key)
            ctx.load_verify_locations(cafile=self.ca)
        except ssl.SSLError as e:
            raise MosquittoError("bad_tls", "the certificate %s and key %s do not load together (%s): give the "
                                 "broker's certificate and its own private key" % (self.cert, self.key, e.reason or e),
                                 "证书 %s 与私钥 %s 不匹配（%s）：请给出代理的证书及其私钥"
                                 % (self.cert, self.key, e.reason or e)) from None


def conf_text(folder, event, port=1883, bind=None, tls=None):
    """The ``mosquitto.conf`` for files in ``folder`` (absolute paths: mosquitto resolves relative
    ones against its working directory).  ``tls``: a :class:`Tls` for a TLS-only listener."""
    folder = os.path.abspath(folder)
    listener = ["listener %d%s" % (port, " " + bind if bind else "")]
    if tls is not None:
        listener += [
            "# TLS only on this listener: passwords and round keys never cross the hall network in clear.",
            "certfile %s" % tls.cert,
            "keyfile %s" % tls.key,
            "cafile %s" % tls.ca,
            "tls_version %s" % TLS_VERSION,
        ]
    return "\n".join([
        "# mosquitto configuration for the paizhuo event %s (written by `paizhuo broker config`)." % event,
        "# Every line is explained in hub/venue/brokers/mosquitto.conf of the paizhuo sources.",
        "# The paths are absolute: if you move these files, change them here too.",
        "",
        "per_listener_settings false",
    ] + listener + [
        "protocol mqtt",
        "",
        "# Only the clients in passwd, each limited by the acl file.",
        "allow_anonymous false",
        "password_file %s" % os.path.join(folder, "passwd"),
        "acl_file %s" % os.path.join(folder, "acl"),
        "",
        "# MQTT packets are small: without this each waits for Nagle/delayed ACK (44-88 ms measured).",
        "set_tcp_nodelay true",
        "",
        "# Sessions of the venue and hubs (clean_session false) and their queued QoS 1 messages",
        "# survive a broker restart.  The folder must be writable by the user mosquitto runs as.",
        "persistence true",
        "persistence_location %s/" % os.path.join(folder, "data"),
        "autosave_interval 30",
        "persistent_client_expiration 3d",
        "",
        "# The venue link caps payloads at 256 KB (hub/mqtt/wire.py); refuse anything larger.",
        "max_packet_size 300000",
        "# A hub offline for a while: its session may hold this many queued messages.",
        "max_queued_messages 10000",
        "max_inflight_messages 100",
        "",
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        "log_type notice",
        "connection_messages true",
        "log_timestamp_format %Y-%m-%dT%H:%M:%S",
        "",
    ])


def _parse_conf(text):
    """{option: [values]} of a mosquitto.conf."""
    opts = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        opts.setdefault(key, []).append(value.strip())
    return opts


# ---- writing and checking the folder -----------------------------------------------------------

def _check_ids(event, hubs):
    try:
        wire.check_id(event, "event")
        for h in hubs:
            wire.check_id(h, "hub")
    except wire.WireError as e:
        raise MosquittoError("bad_id", e.en, e.zh) from None
    if not hubs:
        raise MosquittoError("no_hubs", "name at least one hub (--hubs T01,T02,…)", "请至少给出一个 hub（--hubs T01,T02,…）")
    dup = sorted({h for h in hubs if hubs.count(h) > 1})
    if dup:
        raise MosquittoError("duplicate_hub", "hub %s is listed twice" % ", ".join(dup), "hub %s 重复" % "、".join(dup))
    reserved = [h for h in hubs if h in (VENUE_USER, MONITOR_USER)]
    if reserved:
        raise MosquittoError("reserved_hub", "%r is the name of a built-in client; give the hub another id" % reserved[0],
                             "%r 是内置客户端的名称，请为该 hub 另取 ID" % reserved[0])


def _write(path, text, mode):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)    # O_CREAT's mode is masked by umask; an existing file keeps its old mode


def write_config(folder, event, hubs, port=1883, bind=None, force=False, tls=None):
    """Write the broker files for ``event`` and ``hubs`` into ``folder``; returns their paths.

    Refuses to overwrite an existing set unless ``force`` (new passwords lock out deployed hubs).
    ``tls``: a :class:`Tls` (checked before anything is written) for a TLS-only listener.
    """
    hubs = list(hubs)
    _check_ids(event, hubs)
    if type(port) is not int or not 0 < port < 65536:
        raise MosquittoError("bad_port", "port must be 1-65535, not %r" % (port,), "端口必须在 1 到 65535 之间")
    if tls is not None:
        tls.check()
    users = [VENUE_USER, MONITOR_USER] + hubs
    os.makedirs(folder, exist_ok=True)
    existing = [f for f in list(FILES) + ["%s.pass" % u for u in users] if os.path.exists(os.path.join(folder, f))]
    if existing and not force:
        raise MosquittoError("exists", "%s already holds %s: new passwords would lock out every hub set up with the "
                             "old ones; use another folder, or --force to replace them"
                             % (folder, ", ".join(existing)),
                             "%s 中已有 %s：新密码会让已配置的 hub 无法登录；请换一个目录，或用 --force 覆盖"
                             % (folder, "、".join(existing)))
    os.makedirs(os.path.join(folder, "data"), exist_ok=True)
    passwords = {u: secrets.token_urlsafe(24) for u in users}
    written = []
    for u in users:
        path = os.path.join(folder, "%s.pass" % u)
        _write(path, passwords[u], 0o600)
        written.append(path)
    lines = ["%s:%s" % (u, hash_password(passwords[u])) for u in users]
    for name, text, mode in (("passwd", "\n".join(lines) + "\n", 0o640),
                             ("acl", _acl_text(event, hubs), 0o644),
                             ("mosquitto.conf", conf_text(folder, event, port, bind, tls), 0o644)):
        path = os.path.join(folder, name)
        _write(path, text, mode)
        written.append(path)
    return written


def check_config(folder):
    """Check a folder written by :func:`write_config`; returns ``{"event", "clients", "hubs", "port", "tls"}``
    (``tls``: True for a TLS listener) or raises :class:`MosquittoError` listing every problem found."""
    problems = []

    def read(name):
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            problems.append("%s: cannot read (%s)" % (name, e.strerror))
            return None

    conf, passwd, acl = read("mosquitto.conf"), read("passwd"), read("acl")
    if conf is None or passwd is None or acl is None:
        raise MosquittoError("bad_broker_dir", "%s: %s — write it with `paizhuo broker config`" % (folder, "; ".join(problems)),
                             "%s：%s —— 请用 `paizhuo broker config` 生成" % (folder, "；".join(problems)))
    opts = _parse_conf(conf)
    for key, want in (("allow_anonymous", "false"), ("set_tcp_nodelay", "true"), ("persistence", "true"),
                      ("per_listener_settings", "false")):
        if opts.get(key, [None])[-1] != want:
            problems.append("mosquitto.conf: %s must be %s, is %s" % (key, want, opts.get(key, ["unset"])[-1]))
    for key, name in (("password_file", "passwd"), ("acl_file", "acl")):
        got = opts.get(key, [None])[-1]
        if got is None:
            problems.append("mosquitto.conf: %s is missing" % key)
        elif not (os.path.isabs(got) and os.path.exists(got) and os.path.samefile(got, os.path.join(folder, name))):
            problems.append("mosquitto.conf: %s %s is not this folder's %s (absolute path expected)" % (key, got, name))
    port = None
    listeners = opts.get("listener", [])
    if len(listeners) != 1:
        problems.append("mosquitto.conf: expected one listener line, found %d" % len(listeners))
    else:
        p = listeners[0].split()[0]
        port = int(p) if p.isdigit() else None
        if port is None or not 0 < port < 65536:
            problems.append("mosquitto.conf: listener port %r is not 1-65535" % p)
    tls_keys = [k for k in ("certfile", "keyfile", "cafile") if k in opts]
    tls = bool(tls_keys)
    if tls:
        for key in ("certfile", "keyfile", "cafile"):
            got = opts.get(key, [None])[-1]
            if got is None:
                problems.append("mosquitto.conf: %s is missing (a TLS listener needs certfile, keyfile and cafile)" % key)
            elif not os.path.isabs(got):
                problems.append("mosquitto.conf: %s %s must be an absolute path" % (key, got))
            elif not os.access(got, os.R_OK):
                problems.append("mosquitto.conf: %s %s cannot be read" % (key, got))
        version = opts.get("tls_version", [None])[-1]
        if version not in ("tlsv1.2", "tlsv1.3"):
            problems.append("mosquitto.conf: tls_version must be tlsv1.2 (or tlsv1.3), is %s" % (version or "unset"))
    elif "tls_version" in opts:
        problems.append("mosquitto.conf: tls_version without certfile/keyfile/cafile (a half-made TLS listener)")

    hashes = {}
    for n, line in enumerate(passwd.splitlines(), 1):
        user, sep, hashed = line.partition(":")
        if not sep or not hashed.startswith("$7$"):
            problems.append("passwd line %d: not user:$7$… (mosquitto's PBKDF2-SHA512 format)" % n)
        elif user in hashes:
            problems.append("passwd: user %s appears twice" % user)
        else:
            hashes[user] = hashed
    rules = _parse_acl(acl)
    if None in rules:
        problems.append("acl: %d rule(s) before any `user` line apply to every client; remove them" % len(rules[None]))
        del rules[None]
    if any(line.strip().startswith("pattern ") for line in acl.splitlines()):
        problems.append("acl: `pattern` rules apply to every client; this setup uses per-user rules only")
    event = None
    for line in rules.get(VENUE_USER, []):
        parts = line.split()
        if len(parts) == 3 and parts[1] == "write" and parts[2].startswith(wire.ROOT + "/") \
                and parts[2].endswith("/venue/#"):
            event = parts[2][len(wire.ROOT) + 1:-len("/venue/#")]
    if event is None:
        problems.append("acl: no `user %s` block writing %s/<event>/venue/# — cannot tell the event"
                        % (VENUE_USER, wire.ROOT))
    hubs = sorted(u for u in rules if u not in (VENUE_USER, MONITOR_USER))
    if event is not None:
        for user in sorted(rules):
            role = "venue" if user == VENUE_USER else "monitor" if user == MONITOR_USER else "hub"
            if role == "hub":
                try:
                    wire.check_id(user, "hub")
                except wire.WireError:
                    problems.append("acl: user %r is not a valid hub id" % user)
                    continue
            want = acl_rules(event, user, role)
            if sorted(rules[user]) != sorted(want):
                problems.append("acl: user %s has rules %s, expected exactly %s" % (user, rules[user], want))
        for user in (VENUE_USER, MONITOR_USER):
            if user not in rules:
                problems.append("acl: no rules for %s" % user)
    if set(hashes) != set(rules):
        only_p = sorted(set(hashes) - set(rules))
        only_a = sorted(set(rules) - set(hashes))
        if only_p:
            problems.append("passwd has users with no ACL (they could log in and do nothing): %s" % ", ".join(only_p))
        if only_a:
            problems.append("acl names users with no password (they cannot log in): %s" % ", ".join(only_a))
    for user in sorted(hashes):
        path = os.path.join(folder, "%s.pass" % user)
        if not os.path.exists(path):
            problems.append("%s.pass is missing (the client's password file)" % user)
            continue
        try:
            password = read_password_file(path)
        except MosquittoError as e:
            problems.append(e.en)
            continue
        if not verify_password(password, hashes[user]):
            problems.append("%s.pass does not match the passwd entry of %s" % (user, user))
    if problems:
        raise MosquittoError("bad_broker_dir", "%s: %d problem(s):\n  %s" % (folder, len(problems), "\n  ".join(problems)),
                             "%s：发现 %d 个问题：\n  %s" % (folder, len(problems), "\n  ".join(problems)))
    return {"event": event, "clients": sorted(hashes), "hubs": hubs, "port": port, "tls": tls}


# ---- the `paizhuo broker` command ----------------------------------------------------------------

def add_arguments(p):
    sub = p.add_subparsers(dest="broker_command", required=True)
    c = sub.add_parser("config", help="write mosquitto.conf, passwd, acl and one 0600 password file per client")
    c.add_argument("--event", required=True, help="event id (the topic segment), e.g. demo")
    c.add_argument("--hubs", required=True, help="hub ids, comma-separated: T01,T02,T03")
    c.add_argument("--out", required=True, metavar="DIR", help="folder for the files (created)")
    c.add_argument("--port", type=int, default=1883, help="listener port (default 1883)")
    c.add_argument("--bind", metavar="ADDR", help="listen on this address only (default: every interface)")
    c.add_argument("--force", action="store_true", help="replace existing files (new passwords for everyone)")
    c.add_argument("--tls-cert", metavar="CERT", help="the broker's certificate (PEM): the listener speaks TLS only")
    c.add_argument("--tls-key", metavar="KEY", help="the private key of --tls-cert (PEM)")
    c.add_argument("--tls-ca", metavar="CA", help="the venue CA's certificate (PEM) the hubs trust (default: --tls-cert)")
    k = sub.add_parser("check", help="verify a folder written by `paizhuo broker config`")
    k.add_argument("--dir", required=True, metavar="DIR")


def command(args):
    try:
        if args.broker_command == "config":
            hubs = [h.strip() for h in args.hubs.split(",") if h.strip()]
            tls = None
            if args.tls_cert or args.tls_key or args.tls_ca:
                if not (args.tls_cert and args.tls_key):
                    raise MosquittoError("bad_tls", "a TLS listener needs both --tls-cert and --tls-key",
                                         "TLS 监听需要同时给出 --tls-cert 和 --tls-key")
                tls = Tls(args.tls_cert, args.tls_key, args.tls_ca)
            files = write_config(args.out, args.event, hubs, port=args.port, bind=args.bind, force=args.force, tls=tls)
            out = os.path.abspath(args.out)
            print("wrote %d files to %s:" % (len(files), out))
            for f in files:
                print("  %s" % os.path.basename(f))
            print("run the broker:   mosquitto -c %s" % os.path.join(out, "mosquitto.conf"))
            if tls is not None:
                print("TLS listener: give every hub and the venue %s as tls_ca" % tls.ca)
            print("give each hub its <hub>.pass (keep mode 0600) and the venue venue.pass;"
                  " check with: paizhuo broker check --dir %s" % out)
            return 0
        info = check_config(args.dir)
        print("ok: event %s, port %s%s, %d hubs (%s), clients %s" % (
            info["event"], info["port"], " (TLS)" if info["tls"] else "", len(info["hubs"]), ", ".join(info["hubs"]), ", ".join(info["clients"])))
        return 0
    except MosquittoError as e:
        print("paizhuo broker: %s\n%s" % (e.en, e.zh), file=sys.stderr)
        return 2
