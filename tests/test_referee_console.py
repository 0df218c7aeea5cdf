"""The referee console and the public page for a referee at a large event, in headless Debian chromium
(Playwright), as a referee uses them: the counts and filters of the glance, the seat to act with
its player and clock, cards left, the round's state from check-in to the end of the event, a pause
refused with the reason and the error gone once its cause is, calls with their context and
"acknowledge all", a correction picked by round and table after the next round was seated (and the
re-seat it offers), the tie-break value that decided a place, and both pages on a phone.

The venue, store and broker are real; the hubs are ``tests/venue_web_sim.py``'s.  Screenshots go
to ``$PAIZHUO_SCREENSHOTS`` (default: the test's temp folder): look at them.
"""

import os

from brokers import mosquitto, wait_for  # noqa: F401  (pytest fixture)
from test_venue_browser import ARGS, CHROMIUM, WAIT_MS, playwright_api, pytestmark, run, shots_dir, text_of, until  # noqa: F401
from venue_web_sim import PIN, venue_world

SEAT_ZH = {"E": "东", "N": "北", "W": "西", "S": "南"}


async def log_in(page, url, who="裁判 孙"):
    await page.goto(url)
    await page.fill("#who", who)
    await page.fill("#pin", PIN)
    await page.click("button[type=submit]")
    await page.wait_for_url("**/referee", timeout=WAIT_MS)
    await until(page, "() => document.querySelector('#live').classList.contains('on')", what="console live")


def state_of(table):
    return "document.querySelector('#tables tbody tr[data-table=\"%s\"]').dataset.state" % table


async def visible_tables(page):
    return await page.eval_on_selector_all("#tables tbody tr", "rs => rs.filter(r => !r.hidden).map(r => r.dataset.table)")


async def no_overflow(page, width):
    got = await page.evaluate("() => document.documentElement.scrollWidth")
    assert got <= width, "the page is %d px wide on a %d px screen" % (got, width)


def test_the_console_glance_round_state_alerts_and_corrections(mosquitto, tmp_path):
    shots = shots_dir(tmp_path)

    async def main():
        async with venue_world(tmp_path, mosquitto.port, rounds=2, boards=1, start_round=False) as w, \
                playwright_api.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                ctx = await browser.new_context(viewport={"width": 1440, "height": 900}, locale="zh-CN")
                errors = []

                def watch(page):
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
                    return page
                t1, t2 = w.sims["1"], w.sims["2"]
                t1.unchecked = {"N"}
                t1.publish_live()
                await wait_for(lambda: w.venue.glance(["1"])[0]["state"] == "checkin", what="table 1 in check-in")
                public = watch(await ctx.new_page())
                await public.goto(w.url("/"))
                await until(public, "() => document.querySelector('#round').textContent.includes('尚未开始')",
                            what="the public page: the round not started (not 进行中)")
                con = watch(await ctx.new_page())
                await log_in(con, w.url("/referee"))
                await until(con, "() => document.querySelectorAll('#tables tbody tr').length === 2", what="two tables")

                # -- check-in: 签到中 only while a seat is not checked in
                assert await con.evaluate(state_of("1")) == "checkin" and await con.evaluate(state_of("2")) == "ready"
                assert "签到中" in await text_of(con, '#tables tr[data-table="1"] td:last-child')
                assert "签到中" not in await text_of(con, '#tables tr[data-table="2"] td:last-child')
                assert "尚未开始" in await text_of(con, "#round-state")
                # the public feed says the same: check-in only at the table still checking in
                await until(public, "() => document.querySelector('#tables [data-table=\"2\"]').dataset.state === 'waiting' && "
                            "document.querySelector('#tables [data-table=\"1\"]').dataset.state === 'checkin'",
                            what="the public tables: 签到中 only at table 1")
                t1.unchecked = set()
                t1.publish_live()
                await until(con, "() => %s === 'ready'" % state_of("1"), what="table 1 checked in")

                # -- a pause before the round: refused with the reason; the error goes with its cause
                await con.click('#tables tr[data-table="2"]')
                await con.fill("#pause-form input[name=reason]", "选手迟到")
                await con.click("#pause-form button[type=submit]")
                await until(con, "() => document.querySelector('#msg.err') && document.querySelector('#msg').textContent.includes('尚未开始')",
                            what="the pause refused with its reason")
                assert not any(c["op"] == "pause" for c in t2.controls)
                await w.venue.start_round(1, "裁判 赵")        # another referee starts the round
                await wait_for(lambda: all(1 in s.started for s in w.sims.values()), what="round 1 started")
                await until(public, "() => document.querySelector('#round').textContent.includes('进行中')",
                            what="the public page: in progress once started")
                await until(con, "() => %s === 'waiting'" % state_of("2"), what="table 2 waiting for its deal")
                assert await con.locator("#msg.err").is_visible()   # still nothing to pause
                for s in (t1, t2):
                    s.begin_deal()
                    s.step(6)
                await until(con, "() => %s === 'playing'" % state_of("2"), what="table 2 playing")
                await until(con, "() => document.querySelector('#msg').hidden", what="the error cleared with its cause")

                # -- the seat to act with its player and clock; every seat's name and cards left
                snap = t1.snapshot()
                s = snap["to_act"][0]
                want = "%s %s · %s" % (SEAT_ZH[s], s, snap["seats"][s]["player"]["name"])
                await until(con, "w => document.querySelector('#tables tr[data-table=\"1\"] td.turn').textContent.trim() === w",
                            want, what="the seat to act")
                left = {x: v["cards"] for x, v in t1.snapshot()["seats"].items()}
                await until(con, "want => JSON.stringify(Object.fromEntries([...document.querySelectorAll('#tables tr[data-table=\"1\"] .seat')].map(n => [n.dataset.seat, +n.querySelector('.left').textContent]))) === JSON.stringify(want)",
                            left, what="cards left per seat")
                names = await text_of(con, '#tables tr[data-table="1"] .seats')
                assert all(v["player"]["name"] in names for v in snap["seats"].values())

                # -- counts, filters, search and sort
                await con.click('#tables tr[data-table="1"]')
                await con.fill("#pause-form input[name=reason]", "东家申请暂停")
                await con.click("#pause-form button[type=submit]")
                await until(con, "() => %s === 'paused'" % state_of("1"), what="table 1 paused")
                counts_js = "() => Object.fromEntries([...document.querySelectorAll('#summary button')].map(b => [b.dataset.filter, +b.dataset.count]))"
                await until(con, "() => (%s)().paused === 1" % counts_js, what="the counts follow")
                counts = await con.evaluate(counts_js)
                assert (counts["all"], counts["playing"], counts["paused"], counts["offline"], counts["finished"]) == (2, 1, 1, 0, 0)
                await con.click('#summary button[data-filter="paused"]')
                assert await visible_tables(con) == ["1"]
                await con.click('#summary button[data-filter="playing"]')
                assert await visible_tables(con) == ["2"]
                await con.click('#summary button[data-filter="all"]')
                name2 = t2.spec["players"]["W"]["name"]
                await con.fill("#find", name2)
                assert await visible_tables(con) == ["2"]
                await con.fill("#find", "")
                await con.select_option("#sort", "state")
                order = await con.eval_on_selector_all("#tables tbody tr", "rs => rs.map(r => r.dataset.table)")
                assert order == ["2", "1"]                   # playing before paused
                await con.select_option("#sort", "table")

                # -- calls with their context (player, board, how long waiting), acknowledged at once
                t1.call("E")
                t2.call("W")
                await until(con, "() => document.querySelectorAll('#alerts li.open').length === 2", what="two calls")
                await until(con, "() => document.querySelector('#summary button[data-filter=\"calls\"]').dataset.count === '2'",
                            what="two calls waiting in the counts")
                text = await text_of(con, '#alerts li.open[data-kind="call"]:has-text("第 2 桌")')
                assert name2 in text and "第 1 轮第 1 副" in text and "等待" in text
                await until(con, "() => [...document.querySelectorAll('#alerts li.open .waiting')].every(n => /等待 [1-9]/.test(n.textContent))",
                            what="the waiting time counting up")
                await con.screenshot(path=os.path.join(shots, "console-glance.png"), full_page=True)
                await con.click("#ack-all")
                await until(con, "() => !document.querySelector('#alerts li.open')", what="every alert acknowledged")
                await wait_for(lambda: all(any(c["op"] == "ack_call" for c in s.controls) for s in (t1, t2)),
                               what="both seats told")
                assert "ack_all_requested" in [a["action"] for a in w.venue.audit()]

                # -- round 1 ends, round 2 is seated; a correction of round 1 warns and re-seats
                await con.click('#tables tr[data-table="1"]')
                await con.click("#resume-form button[type=submit]")
                await wait_for(lambda: t1.paused is None, what="resumed")
                for s in (t1, t2):
                    s.finish()
                await wait_for(lambda: w.venue.finished_rounds() == [1], what="round 1 closed")
                await until(con, "() => document.querySelector('#round-state').dataset.round === '2'", what="round 2 shown")
                assert "第 2 轮尚未开始" in await text_of(con, "#round-state")
                await con.select_option("#pick-form select[name=round]", "1")
                await con.select_option("#pick-form select[name=table]", "2")
                form = '#results[data-round="1"][data-table="2"] form.deal-form[data-board="1"]'
                await until(con, "sel => document.querySelector(sel) !== null", form, what="round 1's results of table 2")
                rows = {r["seat"]: r["score"] for r in w.venue.results() if r["table"] == "2" and r["round"] == 1}
                await con.fill(form + " input[name=score-E]", str(rows["E"] + 10))
                await con.fill(form + " input[name=score-N]", str(rows["N"] - 10))
                assert "合计 sum 0" in await text_of(con, form + " .sum")
                await con.fill(form + " input[name=reason]", "记分表更正")
                await con.click(form + " button[type=submit]")
                await until(con, "() => !document.querySelector('#results-warning').hidden", what="the next-round warning")
                assert "第 2 轮已按更正前的排名安排座位" in await text_of(con, "#results-warning")
                await until(con, "sel => document.querySelector(sel + ' tr[data-seat=\"E\"] .was') !== null", form,
                            what="the corrected row marked with the score as played")
                # the deal's record can be corrected and replayed; a broken one is refused, said why
                await con.click(form + " details.record summary")
                await con.fill(form + " details.record textarea", "[{\"type\": \"play\"")
                await con.fill(form + " details.record input[name=reason]", "出牌登记有误")
                await con.click(form + " details.record button[type=submit]")
                await until(con, "() => document.querySelector('#msg.err') && document.querySelector('#msg').textContent.includes('牌谱')",
                            what="a broken record refused")
                await con.screenshot(path=os.path.join(shots, "console-results.png"), full_page=True)
                ids = {t: s.spec["id"] for t, s in w.sims.items()}
                await con.fill("#reseat-form input[name=reason]", "按更正后的排名重新编排")
                await con.click("#reseat-form button[type=submit]")
                await wait_for(lambda: all(s.spec["id"] != ids[t] for t, s in w.sims.items()), what="round 2 re-seated")

                # -- the last round: the console and the public page say the event is over
                await w.venue.start_round(2, "test")
                await wait_for(lambda: all(2 in s.started for s in w.sims.values()), what="round 2 started")
                for s in (t1, t2):
                    s.begin_deal()
                t1.finish()
                t2.finish(deal_hash="0" * 64)                # held: not the board's deal hash
                await wait_for(lambda: any(r["status"] == "held" for r in w.venue.results()), what="a held result")
                # released from the same picker, with a reason
                await con.select_option("#pick-form select[name=round]", "2")
                await con.select_option("#pick-form select[name=table]", "2")
                form = '#results[data-round="2"][data-table="2"] form.deal-form[data-board="1"]'
                await until(con, "sel => document.querySelector(sel + ' button.release') !== null", form, what="the held deal")
                await con.fill(form + " input[name=reason]", "核对牌号无误，放行")
                await con.click(form + " button.release")
                await wait_for(lambda: w.venue.finished.is_set(), what="the event over")
                assert "release" in [a["action"] for a in w.venue.audit() if a["who"] == "裁判 孙"]
                await until(con, "() => document.querySelector('#round-state').dataset.finished === '1'", what="event over")
                assert "比赛已结束" in await text_of(con, "#round-state")
                await until(public, "() => document.querySelector('#round').textContent.includes('比赛已结束')",
                            what="the public page: the event is over")
                # the tie-break value beside the place it decided, the correction marked
                st = w.venue.public_standings()
                await until(public, "n => document.querySelectorAll('#standings tbody tr').length === n", len(st["players"]),
                            what="the final standings")
                for pl in st["players"]:
                    cell = await text_of(public, '#standings tr[data-player="%s"] td:last-child' % pl["player"])
                    if pl["decided_by"] == "opponents_beaten":
                        assert str(pl["opponents_beaten"]["mean_R"] or 0) in cell
                    elif pl["decided_by"] == "R":
                        assert "%.1f" % pl["R"] in cell
                assert await public.locator("#standings .adjusted").count() >= 2
                await until(public, "() => document.querySelectorAll('#board-breakdown tbody tr').length === 8",
                            what="a board across both tables")
                await public.screenshot(path=os.path.join(shots, "standings-final.png"), full_page=True)
                await public.goto(w.url("/records/1"))
                assert "裁判已更正" in await public.inner_text("body")
                await public.screenshot(path=os.path.join(shots, "records-adjusted.png"), full_page=True)

                # -- a phone: nothing wider than the screen
                phone = await browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN",
                                                  device_scale_factor=2, is_mobile=True, has_touch=True)
                pp = watch(await phone.new_page())
                await pp.goto(w.url("/"))
                await until(pp, "() => document.querySelectorAll('#standings tbody tr').length > 0", what="standings on a phone")
                await pp.screenshot(path=os.path.join(shots, "standings-phone.png"), full_page=True)
                await no_overflow(pp, 390)
                pc = watch(await phone.new_page())
                await log_in(pc, w.url("/referee"), "裁判 手机")
                await until(pc, "() => document.querySelectorAll('#tables tbody tr').length === 2", what="tables on a phone")
                await pc.screenshot(path=os.path.join(shots, "console-phone.png"))
                await pc.screenshot(path=os.path.join(shots, "console-phone-full.png"), full_page=True)
                await no_overflow(pc, 390)
                assert [e for e in errors if not e.startswith("Failed to load resource: the server responded "
                                                              "with a status of 4")] == [], errors
            finally:
                await browser.close()
    run(main())
