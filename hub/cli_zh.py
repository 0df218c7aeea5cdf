"""The Chinese of the command line's help texts: English (as written beside each option) → Chinese.

A message catalog, as gettext keeps one: the code keeps writing its help in English, and
:class:`paizhuo.argparse_zh.Parser` shows each help as ``English / 中文``.  A help text missing
here is found by ``tests/test_staff_cli.py`` (every option of every sub-command is bilingual).
"""

HELP_ZH = {
    # paizhuo
    "a simulated event (venue + table hubs over MQTT, two rounds); --table: one table; --terminal: one deal":
        "模拟一场比赛（场地服务 + 经 MQTT 连接的桌机，两轮）；--table：一桌；--terminal：一副牌",
    "the rules oracle": "规则查询",
    "a round's seeded duplicate deals with their hashes (JSON)": "一轮的复式牌局及其哈希（JSON）",
    "the next round's seating (Swiss movement)": "下一轮的座位安排（瑞士移位）",
    "duplicate MP scores and standings from results (JSON in)": "由成绩（JSON）计算复式 MP 分与排名",
    "match events of %s: standings and Swiss pairing": "%s 的对抗赛：排名与瑞士制配对",
    "run a table hub (--config table.toml), verify its log, export its results":
        "运行桌机（--config table.toml）、校验其日志、导出其成绩",
    "seat boards' keys and a table's table.toml (venue staff)": "座位板密钥与一桌的 table.toml（场地工作人员）",
    "the production mosquitto broker's files: config, passwords, ACL (venue staff)":
        "正式 mosquitto 代理的文件：配置、密码、ACL（场地工作人员）",
    "run an event's venue service (--event event.toml); check it; make the referees' PIN hash":
        "运行赛事的场地服务（--event event.toml）；检查配置；生成裁判 PIN 的哈希",
    # paizhuo demo
    "seed of the deal and the bots (default 2026)": "牌局与机器人的随机种子（默认 2026）",
    "board number shown (default 1)": "显示的牌号（默认 1）",
    "engine and bots only, told on the terminal (no hub, no firmware)": "只用规则引擎与机器人，在终端讲述（无桌机、无固件）",
    "the run folder (default demo-out/event-<time> or table-<time>)":
        "运行文件夹（默认 demo-out/event-<时间> 或 table-<时间>）",
    "one table only: hub + four firmware seats play one deal": "只演示一桌：桌机 + 四块固件座位板打一副牌",
    "keep the standings and the console served after the event": "比赛结束后继续提供成绩页与裁判台",
    "tables in the demo event (2-5, default 4)": "演示赛的桌数（2 到 5，默认 4）",
    "rounds in the demo event (default 2)": "演示赛的轮数（默认 2）",
    "boards per round in the demo event (default 2)": "演示赛每轮的牌数（默认 2）",
    "seconds each bot waits before it plays (default 0.15; 2 to watch the event in a browser)":
        "每个机器人出牌前等待的秒数（默认 0.15；在浏览器中观看可设为 2）",
    # paizhuo rules
    "answer JSON requests, one per line on stdin, until EOF": "逐行回答标准输入上的 JSON 请求，直到输入结束",
    "the kind of a play": "一手牌的牌型",
    "every legal play of a hand": "一手牌的全部合法出法",
    "does one play beat another?": "一手牌能否压过另一手？",
    "card points and scores of a finished deal": "已结束牌局的牌分与得分",
    "rule options as JSON, e.g. '{\"straights\": \"no_two\"}'": "规则选项（JSON），如 '{\"straights\": \"no_two\"}'",
    "the game: %s": "游戏：%s",
    "the rank being played, in a game played in levels, e.g. 5": "当前打的级（打级的游戏），如 5",
    "the play to beat": "要压过的牌",
    "the meaning of --over, e.g. straight or straight:7 (wild-card games)":
        "--over 的含义，如 straight 或 straight:7（有百搭牌的游戏）",
    "the meaning of --play, e.g. bomb or straight:7 (wild-card games)": "--play 的含义，如 bomb 或 straight:7（有百搭牌的游戏）",
    "the meaning of --over (wild-card games)": "--over 的含义（有百搭牌的游戏）",
    "cards left in a seat's hand (every seat)": "各座位手中的剩牌（每个座位都要给出）",
    "the 首攻: plays must contain ♦3": "首攻：出牌必须含 ♦3",
    "报单 duty: a single must be the highest card": "报单义务：出单张必须出最大的牌",
    "seats that showed their hand (明牌)": "明牌的座位",
    "seats that doubled (加倍)": "加倍的座位",
    "the seat that won, or none for a drawn deal (word-card games)": "胡牌的座位，荒庄写 none（字牌游戏）",
    "the winner's cards in hand, the winning card too (word-card games)": "胡牌者手中的牌，包括胡的那张（字牌游戏）",
    "an open group, like pao:d8,d8,d8,d8 (kinds chi peng wei pao ti)":
        "亮出的组合，如 pao:d8,d8,d8,d8（组合：chi 吃、peng 碰、wei 偎、pao 跑、ti 提）",
    "the winner turned up the winning card (自摸)": "胡的那张是胡牌者自己翻出的（自摸）",
    "the 胡息 of groups (word-card games)": "组合的胡息（字牌游戏）",
    "a group, like ju:x1,x2,x3 (kinds kan ju jiao jiang chi peng wei pao ti)":
        "一个组合，如 ju:x1,x2,x3（组合：kan 坎、ju 句、jiao 绞、jiang 将、chi 吃、peng 碰、wei 偎、pao 跑、ti 提）",
    "does a holding win, with its best arrangement (word-card games)": "这手牌能否胡，及其最佳组合（字牌游戏）",
    # paizhuo hub
    "the table configuration to serve (docs/table-hub.md)": "要运行的桌机配置（见 docs/table-hub.md）",
    "a referee's decision to start on a log that fails the start-up check (broken, or shorter than the hub's kept "
    "head); the reason is logged with what was wrong":
        "裁判决定在未通过启动检查的日志上启动（日志损坏或短于桌机保存的末端）；理由与问题一并记入日志",
    "check a table log: SQLite integrity, hash chain and its end, deal hashes, every result by replay":
        "校验桌机日志：SQLite 完整性、哈希链及其末端、牌局哈希，并重放核对每个成绩",
    "print an example table.toml": "打印一份 table.toml 示例",
    "the log's finished deals as result rows for `paizhuo score` (JSON)": "把日志中已完成的牌局输出为 paizhuo score 的成绩行（JSON）",
    "the event log (SQLite) to check": "要校验的事件日志（SQLite）",
    "the venue's anchors (paizhuo venue anchors --out FILE): the heads it acknowledged must still be in the log":
        "场地的锚点（paizhuo venue anchors --out 文件）：场地确认过的末端必须仍在日志中",
    "the venue-mode example: rounds come from the venue over MQTT ([venue], [seats], a spare)":
        "场地模式示例：各轮由场地经 MQTT 下发（[venue]、[seats]、一块备用板）",
    "the table configuration (its [players] own the results; its log is read)": "桌机配置（其 [players] 拥有成绩；读取其日志）",
    "a log other than the configuration's (e.g. a copy)": "配置以外的日志（例如副本）",
    # paizhuo provision
    "write one board's seat.json with a fresh key; print its table.toml block": "以新密钥写一块板的 seat.json，并打印其 table.toml 配置块",
    "write a table.toml and the four boards' seat.json files, keys random": "写 table.toml 与四块板的 seat.json，密钥随机",
    "does a board's seat.json match the table.toml? (never prints keys)": "板的 seat.json 与 table.toml 是否匹配？（从不显示密钥）",
    "the board's device id (its label), like S-0001": "板的设备编号（其标签），如 S-0001",
    "the seat it plays (E, N, W, S), or spare (a board a referee may put in for a failed one), for the printed block; "
    "default: a placeholder": "它所坐的座位（E、N、W、S），或 spare（裁判可用来替换故障板的备用板），写入打印的配置块；默认为占位符",
    "the board's language until the hub says otherwise: zh (default) or en": "板的语言（在主机另行指定之前）：zh（默认）或 en",
    "the board model: ref-s3 (default, hardware/README.md)": "板的型号：ref-s3（默认，见 hardware/README.md）",
    "the file to write, like seat.json": "要写的文件，如 seat.json",
    "replace an existing file (its key is lost)": "覆盖已有文件（其密钥将丢失）",
    "table number or name, like 7 or 第8桌 (names the log table-7.sqlite)": "桌号或桌名，如 7 或 第8桌（日志名为 table-7.sqlite）",
    "the hub's id, like T07": "主机编号，如 T07",
    "the boards and their seats, like S-0001:E,S-0002:N,S-0003:W,S-0004:S": "各板及其座位，如 S-0001:E,S-0002:N,S-0003:W,S-0004:S",
    "the hub's serial ports, any order, like /dev/ttyACM0,/dev/ttyACM1,/dev/ttyACM2,/dev/ttyACM3":
        "主机的串口，顺序不限，如 /dev/ttyACM0,/dev/ttyACM1,/dev/ttyACM2,/dev/ttyACM3",
    "where table.toml and DIR/<dev>/seat.json go": "table.toml 与 DIR/<设备>/seat.json 的存放位置",
    "the event's name shown on the seats (default: practice)": "座位上显示的赛事名称（默认 practice）",
    "the seats' language: zh (default) or en": "座位语言：zh（默认）或 en",
    "the boards' model: ref-s3 (default)": "板的型号：ref-s3（默认）",
    "the round key the venue released (default: practice deals)": "场地发布的轮次密钥（默认：练习牌）",
    "the round of --round-key": "--round-key 所属的轮次",
    "the group of this table (default 1)": "本桌所在的组（默认 1）",
    "the boards to play, like 1-8 (practice: 1-4)": "要打的牌号，如 1-8（练习：1-4）",
    "replace existing files (their keys are lost)": "覆盖已有文件（其密钥将丢失）",
    "the game the table plays (default: the default game); a board on each of its seats":
        "本桌所打的项目（默认：默认项目）；该项目的每个座位一块板",
    "the table hub's configuration": "桌机的配置",
    "one or more boards' provisioning files": "一个或多个板的配置文件",
    # paizhuo broker
    "write mosquitto.conf, passwd, acl and one 0600 password file per client":
        "写 mosquitto.conf、passwd、acl，并为每个客户端写一个 0600 权限的密码文件",
    "verify a folder written by `paizhuo broker config`": "检查 paizhuo broker config 写出的文件夹",
    "event id (the topic segment), e.g. demo": "赛事编号（主题中的一段），如 demo",
    "hub ids, comma-separated: T01,T02,T03": "主机编号，逗号分隔：T01,T02,T03",
    "folder for the files (created)": "存放文件的文件夹（会自动创建）",
    "listener port (default 1883)": "监听端口（默认 1883）",
    "listen on this address only (default: every interface)": "只在此地址上监听（默认：所有网卡）",
    "replace existing files (new passwords for everyone)": "覆盖已有文件（所有人都换新密码）",
    "the broker's certificate (PEM): the listener speaks TLS only": "代理的证书（PEM）：监听端口只接受 TLS",
    "the private key of --tls-cert (PEM)": "--tls-cert 的私钥（PEM）",
    "the venue CA's certificate (PEM) the hubs trust (default: --tls-cert)": "各主机信任的场地 CA 证书（PEM）（默认：--tls-cert）",
    "the user mosquitto runs as (default: mosquitto when started as root; the files are given to it)":
        "mosquitto 运行所用的用户（以 root 启动时默认为 mosquitto；文件归属于该用户）",
    # paizhuo venue
    "the event configuration to serve (docs/venue.md)": "要运行的赛事配置（见 docs/venue.md）",
    "keep serving after the last round (the standings stay up)": "最后一轮结束后继续服务（成绩页保持在线）",
    "port of the embedded broker when event.toml has no [broker] (default 1883; 0: any free port)":
        "event.toml 没有 [broker] 时内置代理的端口（默认 1883；0：任一空闲端口）",
    "check event.toml (and its store, if it exists) without starting anything": "检查 event.toml（及其数据库，若已存在），不启动任何服务",
    "print an example event.toml (with a fresh deal secret)": "打印一份 event.toml 示例（含新生成的发牌密钥）",
    "read the referees' PIN twice and print its hash for [web] referee_pin_hash":
        "读取两次裁判 PIN，打印其哈希，用于 [web] referee_pin_hash",
    "write, per hub, the head of its event log the venue acknowledged (for paizhuo hub verify --anchor)":
        "写出场地已确认的各主机事件日志末端（供 paizhuo hub verify --anchor 使用）",
    "read the PIN once from standard input (scripts)": "从标准输入读取一次 PIN（供脚本使用）",
    "write the JSON here (default: standard output)": "把 JSON 写到此处（默认：标准输出）",
    "[[players]] blocks for event.toml from a CSV or XLSX list of players (id, name, no)":
        "由选手名单（CSV 或 XLSX：id、name、no）生成 event.toml 的 [[players]] 配置块",
    "the players' list: a .csv file (UTF-8, or GB18030 as spreadsheets save it) or a .xlsx workbook":
        "选手名单：.csv 文件（UTF-8，或电子表格保存的 GB18030）或 .xlsx 工作簿",
    # paizhuo deals
    "the event secret: hex digits, or text (prefix hex: or text: to say which)": "赛事密钥：十六进制或文字（用前缀 hex: 或 text: 表明）",
    "a round's key as a hub receives it, instead of --secret": "主机收到的轮次密钥，代替 --secret",
    "round number (default 1)": "轮次（默认 1）",
    "group number (default 1)": "组号（默认 1）",
    "boards, like 1-8, 3 or 1,4,7-9": "牌号，如 1-8、3 或 1,4,7-9",
    "print only the round's key (what the venue releases to the hubs when the round starts)":
        "只打印该轮的密钥（开轮时场地发给各主机的内容）",
    # paizhuo movement
    "the round to seat (1 = seeded random draw)": "要安排座位的轮次（1 = 按种子随机抽签）",
    "JSON list of player ids in player-number order": "按选手序号排列的选手编号 JSON 列表",
    "cumulative standings (paizhuo score output, or a JSON list of ids in rank order); needed from round 2":
        "累计排名（paizhuo score 的输出，或按名次排列的编号 JSON 列表）；第 2 轮起需要",
    "earlier rounds' seatings (JSON list of this command's outputs)": "之前各轮的座位（本命令输出的 JSON 列表）",
    "seats per table: 4, or 3 for a three-seat game; default 4": "每桌座位数：4，三人游戏为 3；默认 4",
    "tables that play the same deals (default: all tables are one group)": "打同一套牌的桌数（默认：所有桌为一组）",
    "the event secret, for round 1's draw": "赛事密钥，用于第 1 轮抽签",
    "the humans' seat with --vs-ai (default E)": "--vs-ai 时真人所坐的座位（默认 E）",
    "json (default) or text": "json（默认）或 text",
    # paizhuo score, matches
    "results: a JSON array of rows, or {\"results\": [...]}; - reads standard input":
        "成绩：JSON 行数组，或 {\"results\": [...]}；- 表示读取标准输入",
    "output format (default json)": "输出格式（默认 json）",
    "write here (whole or not at all) instead of standard output": "写到此处（要么完整写入，要么不写），代替标准输出",
    "results each deal and seat should have (Neuberg when fewer); default: the tables seen in the group; repeat "
    "GROUP=N per group": "每副牌每个座位应有的成绩数（不足时用 Neuberg 公式）；默认：该组出现的桌数；每组可重复给出 组=N",
    "judge equal R on the exact value, not the official one-decimal R (rule option)":
        "按精确值判断 R 是否相同，而不是正式的一位小数 R（规则选项）",
    "matches.json (- reads standard input)": "matches.json（- 表示读取标准输入）",
    "the round to pair": "要配对的轮次",
    "matches.json of the earlier rounds (- reads standard input)": "之前各轮的 matches.json（- 表示读取标准输入）",
    "sides.json: the sides that play this round, by side number": "sides.json：本轮参赛的各方，按编号",
    "the event secret (round 1 without seeds)": "赛事密钥（第 1 轮且无种子时）",
    # paizhuo hub doctor, paizhuo provision (boards over their links)
    "check the hub: seat ports, each board's firmware and key, the broker, the clock, the disk and the log (stop the hub first to check the boards)":
        "检查桌机：座位端口、每块板的固件与密钥、代理、时钟、磁盘与日志（检查座位板前请先停止桌机）",
    "list the seat boards on USB: device id, firmware, identity, free flash":
        "列出 USB 上的座位板：设备号、固件、身份、剩余闪存",
    "give a table's four blank boards their seats, keys and labels in one go":
        "一次为一桌的四块空白板分配座位、密钥与标签",
    "update boards to a release (trial boot, kept once welcomed)": "把座位板更新到某个发布版本（试启动，得到桌机欢迎后保留）",
    "check each board's key, identity and firmware": "检查每块板的密钥、身份与固件",
    "put boards back on the firmware they ran before": "让座位板回到之前运行的固件",
    "ports, comma separated (default: /dev/paizhuo/seat-*, else /dev/ttyACM*)":
        "端口，以逗号分隔（默认 /dev/paizhuo/seat-*，否则 /dev/ttyACM*）",
    "also check each board's key against this table": "同时按此桌配置检查每块板的密钥",
    "the seats' ports in seat order E,N,W,S (a three-seat game: E,N,W)": "各座位的端口，按座位顺序 E、N、W、S（三人项目：E、N、W）",
    "where table.toml, the boards' files and labels.txt go": "table.toml、各板文件与 labels.txt 的存放位置",
    "device ids in seat order (default HUB-E, HUB-N, HUB-W, HUB-S)": "按座位顺序的设备号（默认 HUB-E、HUB-N、HUB-W、HUB-S）",
    "read the referee PIN (unlocks a board in a deal)": "读取裁判 PIN（解锁牌局中的座位板）",
    "only this board (repeat for more); default: the whole table": "只处理这块板（可重复给出多块）；默认整桌",
    "a release folder (make firmware: build/release/paizhuo-seat-…)": "发布文件夹（make firmware 生成：build/release/paizhuo-seat-…）",
    "read the referee PIN (a board in a running deal)": "读取裁判 PIN（正在牌局中的座位板）",
    "time a trial boot has to reach its hub": "试启动连上桌机的时限",
    "space writes as a serial line of this speed would (8N1), like 115200; default: as fast as the port takes them":
        "按此速率的串口（8N1）节奏写入，如 115200；默认按端口所能接收的最快速度",
    # paizhuo demo --game / --format (match events)
    "the demo event's game (default %s); a game whose board is a match plays pairs or teams":
        "演示赛的游戏（默认 %s）；以整场对局为一副的游戏按双人或团体赛进行",
    "a match game's event: pairs (default) or teams (open and closed rooms)":
        "对局类游戏的赛制：双人赛（默认）或团体赛（开室与闭室）",
}
