"""The referee console against real tables: headless Debian chromium (Playwright) on the pages of
a real ``paizhuo venue`` process, whose hubs are real ``paizhuo hub`` processes — table 1 with four
firmware seat boards on pty links (MicroPython), table 2 played by the hub's bots.

A referee logs in, watches table 2's turn change live, pauses it (the hub logs the pause and
its clock stops: no move is made while paused), resumes it, answers a 叫裁判 pressed on a seat
board's screen (the hub logs the acknowledgement and tells the seat), records an adjustment with
a reason and finds it in the audit log; the public standings page shows the venue's ranking.
"""

import asyncio
import shutil
import sqlite3
import threading
import time

import pytest

from paizhuo.sim.event import SimEvent

from table_seat import log_entries

playwright_api = pytest.importorskip("playwright.async_api")
CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed (apt-get install chromium)")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
PIN = "580213"
WAIT_MS = 30000


async def until(page, js, arg=None, what="the page"):
    try:
        await page.wait_for_function(js, arg=arg, timeout=WAIT_MS)
    except playwright_api.TimeoutError:
        raise AssertionError("timed out waiting for %s" % what) from None


async def poll(cond, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError("timed out waiting for %s" % what)


def test_the_console_pauses_a_real_hub_answers_a_seats_call_and_the_public_page_ranks(tmp_path):
    ev = SimEvent(tmp_path / "event", tables=2, rounds=1, boards=1, pin=PIN, bot_think_seconds=0.6)
    failure = []

    def play():
        try:
            ev.run(timeout=300)
        except Exception as e:  # reported by the test below
            failure.append(e)

    async def main(standings_url, console_url):
        log2 = ev.folder / "table-2" / "table.sqlite"
        log1 = ev.sim.log_path
        async with playwright_api.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                ctx = await browser.new_context(viewport={"width": 1440, "height": 900}, locale="zh-CN")
                errors = []
                con = await ctx.new_page()
                con.on("pageerror", lambda e: errors.append(str(e)))
                await con.goto(console_url)
                await con.fill("#who", "裁判 王")
                await con.fill("#pin", PIN)
                await con.click("button[type=submit]")
                await con.wait_for_url("**/referee", timeout=WAIT_MS)
                row = '#tables tbody tr[data-table="2"]'
                await until(con, "sel => document.querySelector(sel) !== null", row, what="table 2 on the console")

                # Table 2's turn changes live while its bots play.
                await until(con, "sel => document.querySelector(sel + ' td.turn').dataset.turn !== ''", row,
                            what="a turn on table 2")
                first = await con.locator(row + " td.turn").get_attribute("data-turn")
                await until(con, "([sel, t]) => document.querySelector(sel + ' td.turn').dataset.turn !== t",
                            [row, first], what="table 2's turn to change")

                # Pause it: the hub logs the pause with the referee's name and reason, and no
                # move is made while it is paused.
                await con.click(row)
                await con.wait_for_url("**/referee/table/2", timeout=WAIT_MS)
                await con.fill("#pause-form input[name=reason]", "东家申请暂停")
                await con.click("#pause-form button[type=submit]")
                pause = await poll(lambda: log_entries(log2, "2", "pause"), "the pause in table 2's log")
                assert (pause[-1].body["by"], pause[-1].body["reason"]) == ("裁判 王", "东家申请暂停")
                await until(con, "sel => document.querySelector(sel + ' td:last-child').textContent.includes('已暂停')",
                            row, what="table 2 paused on the console")
                moves = len(log_entries(log2, "2", "action"))
                await asyncio.sleep(2.0)  # over three bot moves' worth of time
                assert len(log_entries(log2, "2", "action")) == moves, "the hub made a move while paused"
                await con.click("#resume-form button[type=submit]")
                await poll(lambda: len(log_entries(log2, "2", "action")) > moves, "a move after the resume")

                # 叫裁判 on table 1's East seat board (a tap on its screen): the console shows the
                # call, the referee acknowledges it, the hub logs that and tells the seat.
                east = ev.sim.seats["E"]
                mark = east.mark()
                east.tap_widget("btn:call")
                east.wait_screen("call", after=mark, timeout=15)  # the seat asks first (issue #12)
                east.tap_widget("btn:yes")
                await until(con, "() => document.querySelector('#alerts li.open') !== null", what="the call")
                assert "呼叫裁判" in await con.locator("#alerts li.open").first.inner_text()
                await con.click("#alerts li.open button")
                acked = await poll(lambda: log_entries(log1, "1", "ack_call"), "the acknowledgement in table 1's log")
                assert acked[-1].body == {"seat": "E", "by": "裁判 王"}

                # The event ends; the public page shows the venue's ranking.
                await poll(lambda: ev.finished() or failure, "the end of the event", timeout=300)
                assert not failure, failure
                final = ev.standings()
                want = [pl["player"] for pl in final["players"]]
                assert len(want) == 8
                public = await ctx.new_page()
                public.on("pageerror", lambda e: errors.append(str(e)))
                await public.goto(standings_url)
                await until(public, "want => [...document.querySelectorAll('#standings tbody tr')]"
                            ".map(r => r.dataset.player).join() === want.join()",
                            want, what="the venue's ranking on the public page")

                # An adjustment with a reason: in the audit log, and the ranking follows.
                last = want[-1]
                db = sqlite3.connect("file:%s?mode=ro" % (ev.folder / "venue.sqlite"), uri=True)
                try:
                    rnd, table, board, seat = db.execute("SELECT round, table_no, board, seat FROM results WHERE player = ?",
                                                         (last,)).fetchone()
                finally:
                    db.close()
                # picked by round and table; one seat alone changes the deal's total: that needs its reason
                await con.goto(console_url)
                await until(con, "n => document.querySelectorAll('#pick-form select[name=round] option').length >= n",
                            rnd, what="the rounds to pick from")
                await con.select_option("#pick-form select[name=round]", str(rnd))
                await con.select_option("#pick-form select[name=table]", str(table))
                form = '#results form.deal-form[data-board="%d"]' % board
                await until(con, "sel => document.querySelector(sel) !== null", form, what="the deal to correct")
                await con.fill(form + " input[name=score-%s]" % seat, "999")
                await con.fill(form + " input[name=reason]", "记分表更正，四方签字")
                await con.fill(form + " input[name=unbalanced]", "罚分，其他座位不变")
                await con.click(form + " button[type=submit]")
                await until(con, "() => [...document.querySelectorAll('#audit tbody tr')].some(r => "
                            "r.textContent.includes('记分表更正，四方签字') && r.textContent.includes('裁判 王'))",
                            what="the adjustment in the audit log")
                def moved_up():
                    players = ev.standings()["players"]
                    order = [pl["player"] for pl in players]
                    return order if order.index(last) < len(order) - 1 else None
                after = await poll(moved_up, "the adjusted player ranked higher at the venue")
                await until(public, "want => [...document.querySelectorAll('#standings tbody tr')]"
                            ".map(r => r.dataset.player).join() === want.join()",
                            after, what="the new ranking on the public page")
                assert not errors, errors
            finally:
                await browser.close()

    with ev:
        standings_url, console_url = ev.start()
        player = threading.Thread(target=play, daemon=True)
        player.start()
        try:
            asyncio.run(asyncio.wait_for(main(standings_url, console_url), 400))
        finally:
            player.join(timeout=30)
