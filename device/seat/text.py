"""Every text the seat shows, in Chinese (``ZH``, the default) and English (``EN``).

One line per text: ``key|中文|English``.  The table is a single string constant on purpose:
on a seat board it stays in flash (ROMFS), where a dict of sixty pairs would cost about
10 KB of heap (measured on the unix port).  :func:`t` finds a line when a screen is built,
never while drawing.

This table is also the input of the glyph build: the bitmap font holds exactly the
characters used here, in the refusal texts the hub can send (the engine's, the link's and
the table hub's string literals), and ASCII (``paizhuo.sim.glyphs``).

Plain Python (no MicroPython imports): the CPython build reads it too.

>>> t("play", ZH), t("play", EN)
('出牌', 'Play')
>>> seat_name("N", ZH)
'北家'
"""

ZH = 0
EN = 1

_TABLE = """
connecting|正在连接牌桌主机…|Connecting to the table hub…
device|设备 %s|Device %s
table_seat|第%s桌 · %s|Table %s · %s
player|选手：%s|Player: %s
no_player|本座位暂无选手|No player at this seat
wait_deal|请稍候，牌局即将开始|Please wait: the deal starts soon
match_left|剩%d分~比赛时间到|%d min left~Match time up
forfeited|裁判已结束本场比赛（弃权）~原因：%s|The referee ended this match (forfeit)~Reason: %s
done|本轮在本桌已全部打完~请留在座位，等待其他桌打完；下一轮的座位将显示在这里|This round is over at this table~Stay seated until the other tables finish; your next round's seat will show here
event|赛事：%s|Event: %s
your_turn|轮到你|Your turn
wait_for|等待%s|Waiting for %s
reconnecting|重新连接…|Reconnecting…
paused|暂停 · 裁判处理中|Paused (referee)
paused_long|暂停 · 裁判处理中，请等待恢复|Paused: the referee is handling it; please wait
call_ref|叫裁判|Referee
called|已叫裁判，请稍候|Referee called, wait
call|叫裁判？~裁判会来到本桌。确定要叫裁判吗？~确定叫裁判~取消|Call a referee?~A referee will come to this table. Call one?~Call referee~Cancel
board|第%d副|Board %d
q_show|是否明牌？明牌后得分×3|Show your hand? Scores ×3
q_double|是否加倍？加倍后得分×2|Double? Scores ×2
show_yes|明牌|Show
show_no|不明牌|Don't show
double_yes|加倍|Double
double_no|不加倍|No double
decided|已选择，等待其他玩家|Chosen; waiting for the others
chose|已选|Chosen
wait_double|等待%s选择加倍|Waiting for %s to decide
time_up|时间到|Time is up
play|出牌|Play
pass|过牌|Pass
passed|过|Pass
cards_left|%d张|%d left
shown|明牌|Shown
doubled|加倍|Doubled
report|报单|1 card
report_alert|%s报单！|%s: 1 card left!
duty|下家报单：单张须出最大|Next has 1 card: a single must be your highest
seat_0|上家|Left
seat_1|对家|Across
seat_2|下家|Right
to_beat|要压|To beat
lead|你引牌：可出任意牌型|You lead: any combination
first_play|首攻须含♦3|The first play must include ♦3
select|请选牌，再点出牌|Select cards, then Play
not_combo|不成牌型|Not a combination
sent|已发送，等待主机确认|Sent; waiting for the hub
you|你|You
refused|操作未被接受|Not accepted
ok|知道了|OK
result|本副结果~得分=Σ(他家牌分−你的牌分)×双方倍数；明牌×3，加倍×2~你本轮累计：%d~座位~选手~剩牌~牌分~倍数~得分~名次~×%d|Deal result~Score = Σ (each other's points − yours) × both multipliers; shown ×3, doubled ×2~Your total this round: %d~Seat~Player~Left~Points~Mult.~Score~Place~×%d
next_seat|下一轮：第%s桌 %s|Next round: table %s, %s
stay|请留在座位，等待下一副|Stay seated for the next deal
checkin_who|第%s桌 %s · 本轮选手 %s|Table %s, %s · this round: %s
prev_go|上轮选手请到 第%s桌 %s|Previous player: go to table %s, %s
checkin_ask|请输入选手号，再点确认|Type your player number, then Confirm
key_del|删除|Delete
key_ok|确认|Confirm
checked|已签到，请等待开始|Checked in, waiting for the start
seat_E|东家|East
seat_S|南家|South
seat_W|西家|West
seat_N|北家|North
kind_single|单张|Single
kind_pair|对子|Pair
kind_triple|三张|Triple
kind_straight|顺子|Straight
kind_flush|同花|Flush
kind_full_house|葫芦|Full house
kind_four_of_a_kind|铁枝|Four of a kind
kind_straight_flush|同花顺|Straight flush
gd|打%s · 我方%s · 对方%s~队友~报牌%d张~上游~二游~三游~下游~进贡：请选最大的一张牌（红桃级牌除外）~还牌：请选一张不大于10的牌（没有则选最小的）~进贡~还牌~等待%s进贡~等待%s还牌~抗贡：本副不进贡~接风：你领出~正在查询牌型…~可作：%s~请选择牌型~不成牌型或大不过~第%s副~取消~本副结果~比赛结束~%s胜~你领出：可出任意牌型~请选牌，再点出牌~小王~大王~东西 %s · 南北 %s~东西~南北|Playing %s · us %s · them %s~Partner~%d left~1st~2nd~3rd~4th~Tribute: your highest card (not a heart level card)~Return: a card of 10 or lower (your lowest if none)~Give~Return~Waiting for %s's tribute~Waiting for %s's return~抗贡: no tribute this deal~接风: you lead~Checking…~Can be: %s~Choose the meaning~Not a play, or too low~Deal %s~Cancel~Deal result~Match over~%s wins~You lead: any play~Select cards, then Play~Small joker~Big joker~EW %s · NS %s~EW~NS
gk|单张~对子~三同张~三带对~三连对~钢板~顺子~炸弹~同花顺~四大天王|Single~Pair~Triple~Full house~Pair run~Triple run~Straight~Bomb~Straight flush~Four jokers
pz|底牌%d张 · 庄：%s~%d张 · 胡息%d~%s翻出~%s打出~胡~碰~吃~选一张牌，再点出牌~点一张牌，再点另一列，可移牌~可以%s，或点过~等待其他玩家决定~选择吃法（连比牌）~取消~胡息%d~%s 胡牌~ · 自摸~荒庄：本副无人胡牌~胡息%d · 囤%d · 番%d~名堂：%s~本列已满~新列~过~你~红胡~红乌~点胡~乌胡~对子胡|Stock %d · dealer: %s~%d cards · huxi %d~Turned up by %s~Discarded by %s~Hu~Pung~Chow~Pick a card, then Play~Tap a card, then another column to move it~You may %s, or Pass~Waiting for the others to decide~How to chow (with 比牌)~Cancel~Huxi %d~%s wins~ · self-drawn~荒庄: nobody won this deal~Huxi %d · tun %d · fan %d~Bonuses: %s~This column is full~New~Pass~You~Red~All red~One red~No red~All pairs
gkw| single pair triple full_house pair_run triple_run straight bomb straight_flush joker_bomb | single pair triple full_house pair_run triple_run straight bomb straight_flush joker_bomb 
"""

# Card faces: the suit symbols (in the order D C H S), ranks as drawn (T is "10"), jokers.
SUIT_FACES = "♦♣♥♠"
JOKER_FACES = "小大王"


def t(key, lang, i=-1):
    """The text ``key`` in language ``lang`` (ZH or EN); KeyError for an unknown key.  With
    ``i`` >= 0, the ``i``-th of its ``~``-separated texts (one key for a screen's many
    texts: every key a screen names is a qstr on the seat, for good), found in place:
    splitting the line would make thirty strings of a 64 KB heap at every look-up
    (measured: frames dropped for want of memory on a 27-card game's screens).  IndexError
    past the last one.  One function, not two: each module function is heap on the seat."""
    k = _TABLE.find("\n" + key + "|")
    if k < 0:
        raise KeyError(key)
    start = k + len(key) + 2
    end = _TABLE.find("|", start)
    if lang != ZH:
        start = end + 1
        end = _TABLE.find("\n", start)
    if i < 0:
        return _TABLE[start:end]
    while i > 0:
        start = _TABLE.find("~", start, end) + 1
        if start == 0:
            raise IndexError(i)
        i -= 1
    stop = _TABLE.find("~", start, end)
    return _TABLE[start:end if stop < 0 else stop]


def seat_name(seat, lang):
    """东家 / East for ``"E"``; an unknown seat is shown as it is."""
    if isinstance(seat, str) and len(seat) == 1 and seat in "ESWN":
        return t("seat_" + seat, lang)
    return str(seat)


def rank_face(rank):
    return "10" if rank == "T" else rank


def lang_index(code):
    """``"en"`` -> EN, anything else -> ZH (Chinese is the default)."""
    return EN if code == "en" else ZH


def keys():
    """Every key of the table (tests check each is used and drawable)."""
    return [line.split("|")[0] for line in _TABLE.split("\n") if line]


def all_texts():
    """Every string the table holds (the glyph build's input)."""
    out = []
    for line in _TABLE.split("\n"):
        if line:
            out.extend(line.split("|")[1:])
    out.append(SUIT_FACES)
    out.append(JOKER_FACES)
    out.append("一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾")  # number cards (paizhuo.sim.glyphs.NUMBER_FACES;
    # not a name here: each module global is a qstr on the seat for good)
    out.append("0123456789JQKA")
    return out
