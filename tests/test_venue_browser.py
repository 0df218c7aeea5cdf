"""The venue pages in a real browser: headless Debian chromium driven by Playwright.

The venue is real (Venue service, SQLite store, mosquitto), the hubs are simulated MQTT clients
that keep to the venue contract (``tests/venue_web_sim.py``).  A referee logs in with the PIN,
starts the round, watches a table's turn change live, pauses the table (the hub receives the
pause and answers; the console shows it paused, the clock stops), acknowledges a call, records
an adjustment with a reason and finds it in the audit log; the public standings page follows
the results and the adjustment without being reloaded.

Screenshots of every page go to ``$PAIZHUO_SCREENSHOTS`` (default: the test's temp folder).
"""

import asyncio
import os
import shutil

import pytest

from brokers import mosquitto, wait_for  # noqa: F401  (pytest fixture)
from venue_web_sim import PIN, venue_world

playwright_api = pytest.importorskip("playwright.async_api")
CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed (apt-get install chromium)")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
WAIT_MS = 10000


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 180))


def shots_dir(tmp_path):
    d = os.environ.get("PAIZHUO_SCREENSHOTS") or str(tmp_path / "screenshots")
    os.makedirs(d, exist_ok=True)
    return d


async def text_of(page, selector):
    return (await page.locator(selector).inner_text()).strip()


async def until(page, js, arg=None, what="the page"):
    """Wait until ``js`` (a function of ``arg``) is true in the page."""
    try:
        await page.wait_for_function(js, arg=arg, timeout=WAIT_MS)
    except playwright_api.TimeoutError:
        raise AssertionError("timed out waiting for %s" % what) from None


async def standings_order(page):
    return await page.eval_on_selector_all("#standings tbody tr", "rows => rows.map(r => r.dataset.player)")


def test_referee_console_and_public_standings_in_chromium(mosquitto, tmp_path):
    shots = shots_dir(tmp_path)

    async def main():
        async with venue_world(tmp_path, mosquitto.port, start_round=False) as w, \
                playwright_api.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                ctx = await browser.new_context(viewport={"width": 1440, "height": 900}, locale="zh-CN")
                errors = []   # script errors and console errors (a CSP violation is one)

                def watch(page):
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
                    return page
                public = watch(await ctx.new_page())
                await public.goto(w.url("/"))
                await until(public, "() => document.querySelector('#live').classList.contains('on')",
                            what="the public page live")
                assert "网页测试赛" in await text_of(public, "#event")
                assert "第 1 轮" in await text_of(public, "#round")
                assert await public.locator("#empty").is_visible()

                # -- log in: a wrong PIN is refused on the page, the right one opens the console
                con = watch(await ctx.new_page())
                await con.goto(w.url("/referee"))
                assert con.url.endswith("/referee/login")
                await con.fill("#who", "裁判 李")
                await con.fill("#pin", "000000")
                await con.click("button[type=submit]")
                await until(con, "() => document.querySelector('#message').textContent.includes('PIN 码错误')",
                            what="the wrong-PIN message")
                await con.screenshot(path=os.path.join(shots, "login-wrong-pin.png"))
                assert w.venue.audit()[-1]["action"] == "login_failed"
                await con.fill("#pin", PIN)
                await con.click("button[type=submit]")
                await con.wait_for_url("**/referee", timeout=WAIT_MS)
                await until(con, "() => document.querySelectorAll('#tables tbody tr').length === 2", what="two tables")
                await until(con, "() => document.querySelector('#live').classList.contains('on')", what="console live")
                assert "裁判 李" in await text_of(con, "#who")

                # -- start round 1 from the console
                await con.fill("#start-form input[name=round]", "1")
                await con.click("#start-form button[type=submit]")
                await wait_for(lambda: all(1 in s.started for s in w.sims.values()), what="round 1 started at both hubs")
                await until(con, "() => document.querySelector('#msg').textContent.includes('开始本轮')",
                            what="the start confirmed")

                # -- a table's turn changes live
                hub = w.sims["1"]
                hub.begin_deal()
                hub.step(5)                                # four doubling decisions, then the first play
                row = '#tables tbody tr[data-table="1"]'
                # the seat to act and its player, never the hub's turn counter
                turn_js = "([sel, want]) => document.querySelector(sel + ' td.turn').textContent.trim() === want"
                seat_zh = {"E": "东", "N": "北", "W": "西", "S": "南"}

                def to_act_text(snap):
                    s = snap["to_act"][0]
                    return "%s %s · %s" % (seat_zh[s], s, snap["seats"][s]["player"]["name"])
                snap = hub.snapshot()
                await until(con, turn_js, [row, to_act_text(snap)], what="the seat to act on the console")
                first = await text_of(con, row + " td.turn")
                assert "#" not in first
                hub.step(1)
                snap = hub.snapshot()
                await until(con, turn_js, [row, to_act_text(snap)], what="the next seat to act on the console")
                second = await text_of(con, row + " td.turn")
                assert second != first and "#" not in second
                clock = await text_of(con, row + " td.clock")
                assert clock.count(":") == 1               # counting down from the snapshot's 0:30

                # -- the detail of table 1: public plays only
                await con.click(row)
                await con.wait_for_url("**/referee/table/1", timeout=WAIT_MS)
                await until(con, "() => document.querySelectorAll('#detail-seats tbody tr').length === 4",
                            what="the table's seats")
                plays = [pl for pl in hub.snapshot()["plays"] if pl["type"] == "play"]
                assert plays
                await until(con, "n => document.querySelectorAll('#detail-plays .card').length === n",
                            sum(len(pl["cards"]) for pl in plays), what="the plays of the deal")
                shown_cards = await con.eval_on_selector_all("#detail-plays .card", "cs => cs.map(c => c.title)")
                assert shown_cards == [c for pl in plays for c in pl["cards"]]
                await con.screenshot(path=os.path.join(shots, "console-detail.png"), full_page=True)

                # -- pause without a reason: refused on the page, nothing sent to the hub
                sent = len(hub.controls)
                await con.click("#pause-form button[type=submit]")
                await until(con, "() => document.querySelector('#msg.err') && document.querySelector('#msg').textContent.includes('理由')",
                            what="the no-reason refusal")
                assert len(hub.controls) == sent
                # -- pause with a reason: the hub gets it and answers, the console shows the table paused
                await con.fill("#pause-form input[name=reason]", "北家申请上洗手间")
                await con.click("#pause-form button[type=submit]")
                await wait_for(lambda: any(c["op"] == "pause" for c in hub.controls), what="the pause at the hub")
                op = [c for c in hub.controls if c["op"] == "pause"][-1]
                assert (op["by"], op["reason"]) == ("裁判 李", "北家申请上洗手间")
                assert hub.replies[-1]["ok"] is True
                await until(con, "sel => document.querySelector(sel + ' td:last-child').textContent.includes('已暂停')",
                            row, what="paused on the console")
                await until(con, "sel => document.querySelector(sel + ' td.clock').classList.contains('frozen')",
                            row, what="the clock stopped")
                frozen = await text_of(con, row + " td.clock")
                await con.wait_for_timeout(1200)           # a stopped clock does not count down
                assert await text_of(con, row + " td.clock") == frozen

                # -- a call from table 2 appears; the referee acknowledges it; the hub is told
                w.sims["2"].call("W")
                await until(con, "() => document.querySelector('#alerts li.open') !== null", what="the call on the console")
                assert "呼叫裁判" in await text_of(con, "#alerts li.open")
                await con.screenshot(path=os.path.join(shots, "console-paused-call.png"), full_page=True)
                await con.click("#alerts li.open button")
                await wait_for(lambda: any(c["op"] == "ack_call" for c in w.sims["2"].controls), what="ack_call at hub 2")
                ack = [c for c in w.sims["2"].controls if c["op"] == "ack_call"][-1]
                assert (ack["seat"], ack["by"]) == ("W", "裁判 李")
                await until(con, "() => document.querySelector('#alerts li.done') && !document.querySelector('#alerts li.open')",
                            what="the call acknowledged")
                assert "裁判 李" in await text_of(con, "#alerts li.done")

                # -- resume, and both tables finish the board: the public page ranks the field
                await con.click("#resume-form button[type=submit]")
                await wait_for(lambda: hub.paused is None, what="resumed at the hub")
                hub.finish()
                w.sims["2"].begin_deal()
                w.sims["2"].finish()
                await wait_for(lambda: len(w.venue.standings()["players"]) == 8, what="the standings of 8 players")
                want = [p["player"] for p in w.venue.standings()["players"]]
                await until(public, "n => document.querySelectorAll('#standings tbody tr').length === n", 8,
                            what="8 players on the public page")
                await until(public, "want => [...document.querySelectorAll('#standings tbody tr')].map(r => r.dataset.player).join() === want.join()",
                            want, what="the venue's ranking on the public page")
                assert await public.locator("#empty").is_hidden()

                # -- an adjustment with a reason, picked by round and table: one seat alone would
                #    unbalance the deal (refused until the referee says why); the audit log has it
                last = want[-1]
                res = [r for r in w.venue.results() if r["player"] == last][0]
                await con.select_option("#pick-form select[name=round]", "1")
                await con.select_option("#pick-form select[name=table]", str(res["table"]))
                form = '#results form.deal-form[data-board="1"]'
                await until(con, "sel => document.querySelector(sel) !== null", form, what="the deal's results")
                await con.fill(form + " input[name=score-%s]" % res["seat"], "500")
                await con.fill(form + " input[name=reason]", "记分表经四方签字更正")
                assert await con.locator(form + " label.unbalanced").is_visible()
                await con.click(form + " button[type=submit]")
                await until(con, "() => document.querySelector('#msg.err') && document.querySelector('#msg').textContent.includes('合计')",
                            what="the unbalanced deal refused")
                await con.fill(form + " input[name=unbalanced]", "罚分：其他座位不变")
                await until(con, "() => document.querySelector('#msg').hidden", what="the error gone once its form is edited")
                await con.click(form + " button[type=submit]")
                await until(con, "() => [...document.querySelectorAll('#audit tbody tr')].some(r => r.dataset.action === 'adjust_deal_requested' && r.textContent.includes('记分表经四方签字更正') && r.textContent.includes('裁判 李'))",
                            what="the adjustment in the audit log")
                await wait_for(lambda: w.venue.standings()["players"][0]["player"] == last, what="the adjusted player first")
                want = [p["player"] for p in w.venue.standings()["players"]]
                await until(public, "want => [...document.querySelectorAll('#standings tbody tr')].map(r => r.dataset.player).join() === want.join()",
                            want, what="the new ranking on the public page")
                assert (await standings_order(public))[0] == last
                await con.screenshot(path=os.path.join(shots, "console.png"), full_page=True)
                await public.screenshot(path=os.path.join(shots, "standings.png"), full_page=True)

                # -- the round's second board, then the hand records page
                for s in w.sims.values():
                    s.begin_deal()
                    s.finish()
                await wait_for(lambda: w.venue.finished_rounds() == [1], what="round 1 finished")
                await until(public, "() => document.querySelector('#records a') !== null", what="the records link")
                await public.click("#records a")
                await public.wait_for_url("**/records/1", timeout=WAIT_MS)
                assert "第 1 轮牌谱" in await public.title()
                await public.screenshot(path=os.path.join(shots, "records.png"), full_page=True)
                login = await ctx.new_page()
                await ctx.clear_cookies()
                await login.goto(w.url("/referee/login"))
                await login.screenshot(path=os.path.join(shots, "login.png"))
                # the refusals above (wrong PIN, no reason) are logged by chromium as failed loads;
                # anything else (a script error, a CSP violation) is a fault of the pages
                assert [e for e in errors if not e.startswith("Failed to load resource: the server responded "
                                                              "with a status of 4")] == [], errors
            finally:
                await browser.close()
    run(main())
