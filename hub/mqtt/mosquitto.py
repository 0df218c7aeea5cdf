"""The production broker: a mosquitto configuration with one login per hub and topic ACLs.

``paizhuo broker config --event demo --hubs T01,T02 --out DIR`` writes into ``DIR``:

- ``mosquitto.conf`` — ``allow_anonymous false``, ``use_username_as_clientid true`` (no login can
  take over another client's session), ``set_tcp_nodelay true``, persistence, the
  password and ACL files, packet and queue limits (commented; ``hub/venue/brokers/mosquitto.conf``
  is the same template with every choice explained);
- ``passwd`` — one line per client in mosquitto's own ``$7$`` format (PBKDF2-HMAC-SHA512, 101
  iterations, 12-byte random salt, base64 — exactly what ``mosquitto_passwd`` writes; computed
  here with ``hashlib`` so no Debian tool is needed to make it; the tests check that mosquitto
  accepts it);
- ``acl`` — written from :func:`topic_rules`, the one table of the broker rules (the embedded
  broker, ``hub/mqtt/broker.py``, enforces the same table with the same ``passwd``): each hub may
  write only ``paizhuo/v1/<event>/hub/<its id>/#`` and read its own venue topics, the standings
  and the hand records; ``venue`` reads every hub and writes the venue topics; ``monitor`` (hall
  displays) reads the public topics (the venue's table feed, the standings of finished boards,
  finished rounds' hand records) and writes nothing — never a hub's live snapshot, which shows
  the plays of a board other tables may still be playing;
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
           "read_password_file", "read_passwd", "topic_rules", "role_of", "VENUE_USER", "MONITOR_USER", "add_arguments", "command"]

VENUE_USER = "venue"
MONITOR_USER = "monitor"
# What hall displays may read: the venue's public table feed (who is online, boards finished,
# in play or waiting), the standings of finished boards and the hand records of finished rounds.
# Never a hub's own topics: its live snapshot lists every play of a board that other tables of
# the group may still be playing (docs/venue.md § What is public when).
MONITOR_READS = ("venue/tables", "venue/standings", "venue/records/#")
ITERATIONS = 101        # mosquitto_passwd's default; passwords are random, see the module docstring
SALT_BYTES = 12
FILES = ("mosquitto.conf", "passwd", "acl")
DEFAULT_RUN_USER = "mosquitto"  # mosquitto's own default for `user`


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
    except UnicodeDecodeError:
        raise MosquittoError("no_password_file", "the MQTT password file %s is not UTF-8 text: write it again"
                             % path, "MQTT 密码文件 %s 不是 UTF-8 文本：请重新生成" % path) from None
    if st.st_mode & 0o077:
        raise MosquittoError("password_file_mode", "%s is readable by others (mode %o): run chmod 600 %s"
                             % (path, stat.S_IMODE(st.st_mode), path),
                             "%s 可被他人读取（权限 %o）：请执行 chmod 600 %s" % (path, stat.S_IMODE(st.st_mode), path))
    password = text.strip()
    if not password:
        raise MosquittoError("empty_password_file", "%s is empty" % path, "%s 是空文件" % path)
    return password


# ---- ACL ---------------------------------------------------------------------------------------

def role_of(user):
    """The role of a broker client: ``venue``, ``monitor`` or (any other name) ``hub``."""
    return "venue" if user == VENUE_USER else "monitor" if user == MONITOR_USER else "hub"


def topic_rules(event, user, role):
    """What one client may do, as data: a list of ``(access, filter)`` with access ``read`` or
    ``write``; ``role`` is ``hub``, ``venue`` or ``monitor``.  The one table of the broker rules:
    mosquitto's acl file (:func:`acl_rules`) and the embedded broker's topic plugin
    (``paizhuo.mqtt.broker``) are both made from it.

    >>> topic_rules("demo", "T01", "hub")[:2]
    [('write', 'paizhuo/v1/demo/hub/T01/#'), ('read', 'paizhuo/v1/demo/venue/+/T01')]
    """
    root = "%s/%s" % (wire.ROOT, event)
    if role == "hub":
        return [("write", "%s/hub/%s/#" % (root, user))] + [("read", f) for f in wire.hub_subscriptions(event, user)]
    if role == "venue":
        return [("read", "%s/hub/#" % root), ("write", "%s/venue/#" % root)]
    if role == "monitor":
        # Public information only: never a round spec (the seating and deal hashes, for its
        # hub), a control (a start carries the round key, which opens every hand of the
        # round), a result or a live snapshot (they show a board other tables of the group
        # may still be playing).
        return [("read", "%s/%s" % (root, leaf)) for leaf in MONITOR_READS]
    raise ValueError("role must be hub, venue or monitor, not %r" % (role,))


def acl_rules(event, user, role):
    """The mosquitto ACL lines of one client (:func:`topic_rules` written as ``topic <access> <filter>``)."""
    return ["topic %s %s" % rule for rule in topic_rules(event, user, role)]


def _acl_text(event, hubs):
    out = ["# paizhuo MQTT ACL for event %s (written by `paizhuo broker config`)." % event,
           "# A client may only use the topics listed under its user; anything else is silently dropped",
           "# (a publish) or refused (a subscription).  Anonymous clients are refused by mosquitto.conf.", ""]
    for user, role, why in ([(VENUE_USER, "venue", "the venue service: reads every hub, writes round specs, "
                              "control, acks, standings and records")]
                            + [(MONITOR_USER, "monitor", "hall displays: read public topics (tables, standings, "
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
        "# Each login's client id is its username: with another client's id, a login could take",
        "# that client's session over and disconnect it.",
        "use_username_as_clientid true",
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
        "# The venue link caps payloads at 256 KB, a result (a whole match's record) at 4 MB",
        "# (hub/mqtt/wire.py); refuse anything larger.",
        "max_packet_size %d" % wire.BROKER_PACKET,
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
    _give_to_run_user(folder)
    return written


def run_user(conf_opts=None):
    """The account mosquitto reads its files as: started as root it drops to ``user`` of
    mosquitto.conf (default ``mosquitto``) before it opens the password and ACL files; started
    by anyone else it stays that user.  ``(name, uid, gids)``, uid None when the account is missing."""
    import grp
    import pwd
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid()).pw_name, os.geteuid(), set(os.getgroups()) | {os.getegid()}
    name = ((conf_opts or {}).get("user") or [DEFAULT_RUN_USER])[-1]
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        return name, None, set()
    return name, pw.pw_uid, {pw.pw_gid} | {g.gr_gid for g in grp.getgrall() if name in g.gr_mem}


def _give_to_run_user(folder):
    # Written by root, the files are root's; mosquitto (started as root) reads passwd and writes
    # its persistence as `mosquitto`: passwd root:mosquitto 0640, data/ mosquitto's own 0700.
    if os.geteuid() != 0:
        return
    name, uid, gids = run_user()
    if uid is None:
        return      # check_run_user says what to do
    import pwd
    gid = pwd.getpwuid(uid).pw_gid
    os.chown(os.path.join(folder, "passwd"), 0, gid)
    os.chown(os.path.join(folder, "data"), uid, gid)
    os.chmod(os.path.join(folder, "data"), 0o700)


class _Problems(list):
    """What is wrong, in English (the list itself) and in Chinese (``zh``, in the same order)."""

    def __init__(self):
        super().__init__()
        self.zh = []

    def add(self, en, zh):
        self.append(en)
        self.zh.append(zh)


def _parse_passwd(text, problems):
    """{user: $7$ hash} of a passwd file; each bad line is added to ``problems``."""
    hashes = {}
    for n, line in enumerate(text.splitlines(), 1):
        user, sep, hashed = line.partition(":")
        if not sep or not hashed.startswith("$7$"):
            problems.add("passwd line %d: not user:$7$… (mosquitto's PBKDF2-SHA512 format)" % n,
                         "passwd 第 %d 行：不是 用户:$7$…（mosquitto 的 PBKDF2-SHA512 格式）" % n)
        elif user in hashes:
            problems.add("passwd: user %s appears twice" % user, "passwd：用户 %s 出现两次" % user)
        else:
            hashes[user] = hashed
    return hashes


def read_passwd(folder):
    """{user: $7$ hash} of ``folder/passwd`` (as :func:`write_config` or ``mosquitto_passwd`` wrote it);
    the embedded broker checks logins against it.  Raises :class:`MosquittoError` on a missing or bad file."""
    path = os.path.join(folder, "passwd")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise MosquittoError("bad_broker_dir", "cannot read %s (%s): write the folder with `paizhuo broker config`"
                             % (path, e.strerror), "无法读取 %s（%s）：请用 `paizhuo broker config` 生成"
                             % (path, e.strerror)) from None
    problems = _Problems()
    hashes = _parse_passwd(text, problems)
    if not hashes and not problems:
        problems.add("no users", "没有用户")
    if problems:
        raise MosquittoError("bad_broker_dir", "%s: %s" % (path, "; ".join(problems)), "%s：%s" % (path, "；".join(problems.zh)))
    return hashes


def _allowed(uid, gids, st, want):
    """May ``uid`` (in ``gids``) do ``want`` (a mask of 4 read, 2 write, 1 search) on a file of stat ``st``?"""
    if uid == 0:
        return True
    shift = 6 if st.st_uid == uid else 3 if st.st_gid in gids else 0
    return (st.st_mode >> shift) & want == want


def check_run_user(folder, opts):
    """What would stop mosquitto once it runs as :func:`run_user`: ``[(en, zh, fix command)]``.
    It opens passwd and acl and writes its persistence folder as that user, so each must be
    reachable (every folder above it searchable) and readable (the folder writable)."""
    name, uid, gids = run_user(opts)
    if uid is None:
        return [("mosquitto runs as user %s when started as root, and there is no such user" % name,
                 "以 root 启动时 mosquitto 以用户 %s 运行，但没有这个用户" % name,
                 "apt-get install mosquitto   # makes the user; or add `user <name>` to mosquitto.conf")]
    found = []
    wants = [(opts.get("password_file", [None])[-1], 4, "read"), (opts.get("acl_file", [None])[-1], 4, "read")]
    data = opts.get("persistence_location", [None])[-1]
    if data:
        wants.append((data.rstrip("/") or "/", 7, "write"))
    for path, want, what in wants:
        if not path or not os.path.isabs(path):
            continue
        path = os.path.normpath(path)
        parts = path.split(os.sep)
        closed = []
        for i in range(1, len(parts)):
            above = os.sep + os.path.join(*parts[1:i]) if i > 1 else os.sep
            try:
                if not _allowed(uid, gids, os.stat(above), 1):
                    closed.append(above)
            except OSError:
                break
        if closed:
            found.append(("user %s cannot reach %s: the folder%s %s %s closed to it"
                          % (name, path, "s" if len(closed) > 1 else "", ", ".join(closed), "are" if len(closed) > 1 else "is"),
                          "用户 %s 无法访问 %s：文件夹 %s 不允许它进入" % (name, path, "、".join(closed)),
                          "chmod o+x %s" % " ".join(closed)))
        else:
            try:
                st = os.stat(path)
            except OSError:
                continue    # reported with the other checks
            if not _allowed(uid, gids, st, want):
                if want == 4:
                    fix = "chgrp %s %s && chmod g+r %s" % (name, path, path)
                else:
                    fix = "chown %s: %s && chmod 700 %s" % (name, path, path)
                found.append(("user %s cannot %s %s (owner %d, mode %o)"
                              % (name, what, path, st.st_uid, stat.S_IMODE(st.st_mode)),
                              "用户 %s 无法%s %s（所有者 %d，权限 %o）"
                              % (name, "读取" if want == 4 else "写入", path, st.st_uid, stat.S_IMODE(st.st_mode)), fix))
    return found


def check_config(folder, as_run_user=False):
    """Check a folder written by :func:`write_config`; returns ``{"event", "clients", "hubs", "port", "tls"}``
    (``tls``: True for a TLS listener) or raises :class:`MosquittoError` listing every problem found.
    ``as_run_user``: also what mosquitto will check as the user it runs as (:func:`check_run_user`;
    ``paizhuo broker check``)."""
    problems = _Problems()

    def read(name):
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            problems.add("%s: cannot read (%s)" % (name, e.strerror), "%s：无法读取（%s）" % (name, e.strerror))
            return None
        except UnicodeDecodeError as e:   # a damaged or foreign file: a refusal, not a traceback
            problems.add("%s: not UTF-8 text (byte %d)" % (name, e.start), "%s：不是 UTF-8 文本（第 %d 字节）" % (name, e.start))
            return None

    conf, passwd, acl = read("mosquitto.conf"), read("passwd"), read("acl")
    if conf is None or passwd is None or acl is None:
        raise MosquittoError("bad_broker_dir", "%s: %s — write it with `paizhuo broker config`" % (folder, "; ".join(problems)),
                             "%s：%s —— 请用 `paizhuo broker config` 生成" % (folder, "；".join(problems.zh)))
    opts = _parse_conf(conf)
    for key, want in (("allow_anonymous", "false"), ("set_tcp_nodelay", "true"), ("persistence", "true"),
                      ("per_listener_settings", "false"), ("use_username_as_clientid", "true")):
        if opts.get(key, [None])[-1] != want:
            problems.add("mosquitto.conf: %s must be %s, is %s" % (key, want, opts.get(key, ["unset"])[-1]),
                         "mosquitto.conf：%s 必须是 %s，现为 %s" % (key, want, opts.get(key, ["未设置"])[-1]))
    for key, name in (("password_file", "passwd"), ("acl_file", "acl")):
        got = opts.get(key, [None])[-1]
        if got is None:
            problems.add("mosquitto.conf: %s is missing" % key, "mosquitto.conf：缺少 %s" % key)
        elif not (os.path.isabs(got) and os.path.exists(got) and os.path.samefile(got, os.path.join(folder, name))):
            problems.add("mosquitto.conf: %s %s is not this folder's %s (absolute path expected)" % (key, got, name),
                         "mosquitto.conf：%s %s 不是本文件夹的 %s（应为绝对路径）" % (key, got, name))
    port = None
    listeners = opts.get("listener", [])
    if len(listeners) != 1:
        problems.add("mosquitto.conf: expected one listener line, found %d" % len(listeners),
                     "mosquitto.conf：应有一行 listener，现有 %d 行" % len(listeners))
    else:
        p = listeners[0].split()[0]
        port = int(p) if p.isdigit() else None
        if port is None or not 0 < port < 65536:
            problems.add("mosquitto.conf: listener port %r is not 1-65535" % p, "mosquitto.conf：监听端口 %r 不在 1 到 65535 之间" % p)
    tls_keys = [k for k in ("certfile", "keyfile", "cafile") if k in opts]
    tls = bool(tls_keys)
    if tls:
        for key in ("certfile", "keyfile", "cafile"):
            got = opts.get(key, [None])[-1]
            if got is None:
                problems.add("mosquitto.conf: %s is missing (a TLS listener needs certfile, keyfile and cafile)" % key,
                                 "mosquitto.conf：缺少 %s（TLS 监听需要 certfile、keyfile 和 cafile）" % key)
            elif not os.path.isabs(got):
                problems.add("mosquitto.conf: %s %s must be an absolute path" % (key, got), "mosquitto.conf：%s %s 必须是绝对路径" % (key, got))
            elif not os.access(got, os.R_OK):
                problems.add("mosquitto.conf: %s %s cannot be read" % (key, got), "mosquitto.conf：%s %s 无法读取" % (key, got))
        version = opts.get("tls_version", [None])[-1]
        if version not in ("tlsv1.2", "tlsv1.3"):
            problems.add("mosquitto.conf: tls_version must be tlsv1.2 (or tlsv1.3), is %s" % (version or "unset"),
                         "mosquitto.conf：tls_version 必须是 tlsv1.2（或 tlsv1.3），现为 %s" % (version or "未设置"))
    elif "tls_version" in opts:
        problems.add("mosquitto.conf: tls_version without certfile/keyfile/cafile (a half-made TLS listener)",
                     "mosquitto.conf：有 tls_version 却没有 certfile/keyfile/cafile（TLS 监听未配完整）")

    hashes = _parse_passwd(passwd, problems)
    rules = _parse_acl(acl)
    if None in rules:
        problems.add("acl: %d rule(s) before any `user` line apply to every client; remove them" % len(rules[None]),
                     "acl：第一个 user 行之前的 %d 条规则对所有客户端生效：请删除" % len(rules[None]))
        del rules[None]
    if any(line.strip().startswith("pattern ") for line in acl.splitlines()):
        problems.add("acl: `pattern` rules apply to every client; this setup uses per-user rules only",
                     "acl：pattern 规则对所有客户端生效；本配置只用按用户的规则")
    event = None
    for line in rules.get(VENUE_USER, []):
        parts = line.split()
        if len(parts) == 3 and parts[1] == "write" and parts[2].startswith(wire.ROOT + "/") \
                and parts[2].endswith("/venue/#"):
            event = parts[2][len(wire.ROOT) + 1:-len("/venue/#")]
    if event is None:
        problems.add("acl: no `user %s` block writing %s/<event>/venue/# — cannot tell the event" % (VENUE_USER, wire.ROOT),
                     "acl：没有写 %s/<赛事>/venue/# 的 user %s 段，无法确定赛事" % (wire.ROOT, VENUE_USER))
    hubs = sorted(u for u in rules if u not in (VENUE_USER, MONITOR_USER))
    if event is not None:
        for user in sorted(rules):
            role = role_of(user)
            if role == "hub":
                try:
                    wire.check_id(user, "hub")
                except wire.WireError:
                    problems.add("acl: user %r is not a valid hub id" % user, "acl：用户 %r 不是有效的 hub 编号" % user)
                    continue
            want = acl_rules(event, user, role)
            if sorted(rules[user]) != sorted(want):
                problems.add("acl: user %s has rules %s, expected exactly %s" % (user, rules[user], want),
                             "acl：用户 %s 的规则为 %s，应正好是 %s" % (user, rules[user], want))
        for user in (VENUE_USER, MONITOR_USER):
            if user not in rules:
                problems.add("acl: no rules for %s" % user, "acl：没有 %s 的规则" % user)
    if set(hashes) != set(rules):
        only_p = sorted(set(hashes) - set(rules))
        only_a = sorted(set(rules) - set(hashes))
        if only_p:
            problems.add("passwd has users with no ACL (they could log in and do nothing): %s" % ", ".join(only_p),
                         "passwd 中有用户没有 ACL（能登录却什么也做不了）：%s" % "、".join(only_p))
        if only_a:
            problems.add("acl names users with no password (they cannot log in): %s" % ", ".join(only_a),
                         "acl 中有用户没有密码（无法登录）：%s" % "、".join(only_a))
    for user in sorted(hashes):
        path = os.path.join(folder, "%s.pass" % user)
        if not os.path.exists(path):
            problems.add("%s.pass is missing (the client's password file)" % user, "缺少 %s.pass（该客户端的密码文件）" % user)
            continue
        try:
            password = read_password_file(path)
        except MosquittoError as e:
            problems.add(e.en, e.zh)
            continue
        if not verify_password(password, hashes[user]):
            problems.add("%s.pass does not match the passwd entry of %s" % (user, user), "%s.pass 与 passwd 中 %s 的条目不符" % (user, user))
    if as_run_user:
        for en, zh, fix in check_run_user(folder, opts):
            problems.add("%s — fix: %s" % (en, fix), "%s —— 解决：%s" % (zh, fix))
    if problems:
        raise MosquittoError("bad_broker_dir", "%s: %d problem(s):\n  %s" % (folder, len(problems), "\n  ".join(problems)),
                             "%s：发现 %d 个问题：\n  %s" % (folder, len(problems), "\n  ".join(problems.zh)))
    return {"event": event, "clients": sorted(hashes), "hubs": hubs, "port": port, "tls": tls, "user": run_user(opts)[0]}


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
            print("wrote %d files to %s / 已写入 %d 个文件:" % (len(files), out, len(files)))
            for f in files:
                print("  %s" % os.path.basename(f))
            with open(os.path.join(out, "mosquitto.conf"), encoding="utf-8") as f:
                fixes = check_run_user(out, _parse_conf(f.read()))
            if fixes:
                print("before starting mosquitto, run (as root) / 启动 mosquitto 之前请（以 root）执行:")
                for fix in sorted({fix for _, _, fix in fixes}):
                    print("  %s" % fix)
                for en, zh, _ in fixes:
                    print("    # %s / %s" % (en, zh))
            print("run the broker / 启动代理:   mosquitto -c %s" % os.path.join(out, "mosquitto.conf"))
            if tls is not None:
                print("TLS listener: give every hub and the venue %s as tls_ca / TLS 监听：把 %s 作为 tls_ca 交给每个 hub "
                      "和场地" % (tls.ca, tls.ca))
            print("give each hub its <hub>.pass (keep mode 0600) and the venue venue.pass;"
                  " check with: paizhuo broker check --dir %s" % out)
            print("把 <hub>.pass 交给对应的 hub（保持 0600 权限），venue.pass 交给场地；检查：paizhuo broker check --dir %s" % out)
            return 0
        info = check_config(args.dir, as_run_user=True)
        print("ok: event %s, port %s%s, %d hubs (%s), clients %s" % (
            info["event"], info["port"], " (TLS)" if info["tls"] else "", len(info["hubs"]), ", ".join(info["hubs"]), ", ".join(info["clients"])))
        print("正常：赛事 %s，端口 %s，%d 个 hub；mosquitto 以用户 %s 运行时能读写它需要的文件" % (
            info["event"], info["port"], len(info["hubs"]), info["user"]))
        return 0
    except MosquittoError as e:
        print("paizhuo broker: %s\n%s" % (e.en, e.zh), file=sys.stderr)
        return 2
