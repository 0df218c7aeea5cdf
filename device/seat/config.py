"""The seat's provisioning file: who this board is and how it reaches its hub.

On a seat board it is ``/seat.json``, written by venue staff when they provision the board;
on the unix port the path comes from the environment variable ``PAIZHUO_SEAT``.

    {"dev": "S-0001", "key": "<64 hex chars>", "lang": "zh", "board": "ref-s3"}

Host runs add ``"port"`` (the pty's seat end) and ``"frames"`` (the folder frames go to);
optional: ``"frames_keep"`` (keep only the newest N frame files, 0 = all) and ``"rows"``
(band height, 8 (default), 16 or 32).  Anything wrong raises :class:`ConfigError` naming the field.
"""

import json
import os

from paizhuo_shared import link

FIELDS = ("dev", "key", "lang", "board", "port", "frames", "frames_keep", "rows")
BOARDS = ("host", "ref-s3")
DEFAULT_PATH = "/seat.json"
ENV = "PAIZHUO_SEAT"


class ConfigError(ValueError):
    """The provisioning file is missing or wrong; ``en``/``zh`` say what to fix."""

    def __init__(self, en, zh):
        super().__init__(en)
        self.code = "bad_config"
        self.en = en
        self.zh = zh


class Config:
    """The checked provisioning values (see the module doc): ``dev``, ``key`` (32 bytes),
    ``lang``, ``board``, ``port``, ``frames``, ``frames_keep``, ``rows``.

    It has no methods on purpose: nothing then refers back to this module, so the app can
    drop the module after reading the file and get its heap back.
    """


def path():
    """Where the provisioning file is: ``$PAIZHUO_SEAT`` on a host, else ``/seat.json``."""
    return os.getenv(ENV) or DEFAULT_PATH


def _fail(field, en, zh):
    raise ConfigError("seat config: %s %s" % (field, en), "座位配置：%s %s" % (field, zh))


def parse(data):
    """A :class:`Config` from the decoded JSON object; ConfigError on anything wrong."""
    if not isinstance(data, dict):
        _fail("file", "must hold a JSON object", "必须是 JSON 对象")
    for name in data:
        if name not in FIELDS:
            _fail(name, "is not a setting (settings: %s)" % ", ".join(FIELDS), "不是有效设置")
    dev = data.get("dev")
    ok = isinstance(dev, str) and 1 <= len(dev) <= 32
    if ok:  # the UTF-8 bytes: iterating the str would intern each character on MicroPython
        for b in dev.encode():
            if not (48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122 or b == 45 or b == 95):
                ok = False
    if not ok:
        _fail("dev", "must be the device id, 1-32 of A-Z a-z 0-9 - _ (e.g. S-0001)",
              "必须是设备编号，1-32 个字母、数字、- 或 _（例如 S-0001）")
    try:
        key = link.parse_key(data.get("key"))
    except link.LinkError:
        _fail("key", "must be the 32-byte device key as 64 hex characters",
              "必须是 32 字节设备密钥（64 个十六进制字符）")
    lang = data.get("lang", "zh")
    if lang not in ("zh", "en"):
        _fail("lang", "must be \"zh\" or \"en\"", "必须是 \"zh\" 或 \"en\"")
    board = data.get("board", "ref-s3")
    if board not in BOARDS:
        _fail("board", "must be one of %s" % ", ".join(BOARDS), "必须是 %s 之一" % "、".join(BOARDS))
    port = data.get("port")
    frames = data.get("frames")
    if board == "host":
        if not isinstance(port, str) or not port:
            _fail("port", "must be the path of the pty's seat end", "必须是 pty 座位端的路径")
        if not isinstance(frames, str) or not frames:
            _fail("frames", "must be the folder the frames are written to", "必须是保存画面的文件夹")
    keep = data.get("frames_keep", 0)
    if not isinstance(keep, int) or isinstance(keep, bool) or keep < 0:
        _fail("frames_keep", "must be a whole number >= 0 (0 keeps every frame)", "必须是非负整数（0 表示全部保留）")
    rows = data.get("rows", 8)
    if rows not in (8, 16, 32) or isinstance(rows, bool):
        _fail("rows", "must be 8, 16 or 32 (band height in pixel rows)", "必须是 8、16 或 32（每条带的行数）")
    c = Config()
    c.dev = dev
    c.key = key
    c.lang = lang
    c.board = board
    c.port = port
    c.frames = frames
    c.frames_keep = keep
    c.rows = rows
    return c


def load(where=None):
    """Read and check the provisioning file (default :func:`path`)."""
    where = where or path()
    try:
        with open(where) as f:
            text = f.read()
    except OSError:
        raise ConfigError("seat config: cannot read %s; provision the board (see device/README.md)" % where,
                          "座位配置：无法读取 %s，请先配置设备" % where)
    try:
        data = json.loads(text)
    except ValueError:
        raise ConfigError("seat config: %s is not valid JSON" % where, "座位配置：%s 不是有效的 JSON" % where)
    return parse(data)
