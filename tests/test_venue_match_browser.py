"""A match event's pages in headless chromium: the public page shows the seat map (pairs at their
tables, the bye) and the standings by 场分 with the tie-break chain, counting a match only when
every table of its group is done; the referee console shows every counted match at once and
records a forfeit from its form.  Screenshots go to ``$PAIZHUO_SCREENSHOTS`` (default: the
test's temp folder)."""

import asyncio
import contextlib
import os
import shutil
import sys

import pytest
from aiohttp.test_utils import TestServer

from paizhuo.venue.store import hash_secret
from paizhuo.venue.web import make_app

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from brokers import wait_for  # noqa: E402
from test_venue_match_event import event_text, hubs_of, running, send, settle, venue_of  # noqa: E402
from test_venue_browser import ARGS, CHROMIUM, shots_dir, text_of, until  # noqa: E402

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed (apt-get install chromium)")
PIN = "135790"


class Browser:
    """A chromium context whose pages' script and console errors are collected in ``errors``."""

    def __init__(self, ctx):
        self.ctx, self.errors = ctx, []

    async def page(self):
        page = await self.ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        return page


@contextlib.asynccontextmanager
async def served(venue, width=1440, height=900):
    """The venue running (its round started), its pages on a loopback port and chromium:
    ``(url, Browser)``."""
    stop, task = await running(venue)
    server = TestServer(make_app(venue, hash_secret(PIN, rounds=1000)), host="127.0.0.1")
    await server.start_server()
    try:
        async with playwright_api.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                ctx = await browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN")
                yield (lambda path: str(server.make_url(path))), Browser(ctx)
            finally:
                await browser.close()
    finally:
        await server.close()
        stop.set()
        await task


def test_a_pairs_event_on_the_public_page_and_the_console_in_chromium(tmp_path):
    shots = shots_dir(tmp_path)

    async def main():
        venue = venue_of(event_text())
        hubs = hubs_of(venue)
        async with served(venue) as (url, browser):
            public = await browser.page()
            await public.goto(url("/"))
            await until(public, "() => document.querySelectorAll('#match-standings tbody tr').length === 5",
                        what="five sides on the public page")
            assert await public.locator("#standings").is_hidden()
            sm = venue.seat_map()
            await until(public, "() => document.querySelectorAll('#seatmap .seat-table').length === 3",
                        what="two tables and the bye in the seat map")
            first = await text_of(public, '#seatmap .seat-table[data-table="1"]')
            home = venue.config.side(sm["matches"][0]["home"])
            assert "第 1 场" in first and "开室" not in first and home.name in first
            assert all("#%d" % venue.config.player(p).no in first for p in home.players)
            assert "轮空 " + sm["bye_name"] in await text_of(public, "#seatmap")

            con = await browser.page()
            await con.goto(url("/referee"))
            await con.fill("#who", "裁判 李")
            await con.fill("#pin", PIN)
            await con.click("button[type=submit]")
            await con.wait_for_url("**/referee", timeout=10000)
            await until(con, "() => document.querySelectorAll('#ref-match-standings tbody tr').length === 5",
                        what="the referees' standings")

            # Table 1 done, table 2 still playing: the console counts it, the public page waits.
            send(venue, hubs["T01"], hubs["T01"].result(venue.spec_of("T01")))
            await settle(venue)
            pair = sm["matches"][0]["home"]
            row = '#ref-match-standings tr[data-side="%s"]' % pair
            await until(con, "sel => document.querySelector(sel) && /\\d-\\d-\\d/.test(document.querySelector(sel).textContent)"
                        " && !document.querySelector(sel).textContent.includes('0-0-0')", row,
                        what="table 1's match on the console")
            pub_row = await text_of(public, '#match-standings tr[data-side="%s"]' % pair)
            assert "0-0-0" in pub_row
            await public.screenshot(path=os.path.join(shots, "match-public-waiting.png"), full_page=True)
            await con.click('#tables tbody tr[data-table="1"]')
            await until(con, "() => document.querySelector('#detail-finished .tag.match')", what="table 1's match in the detail")
            assert "一场 2 局" in await text_of(con, "#detail-finished")
            await con.screenshot(path=os.path.join(shots, "match-console.png"), full_page=True)

            send(venue, hubs["T02"], hubs["T02"].result(venue.spec_of("T02")))
            await wait_for(lambda: venue.round == 2, 5, "round 2 seated")
            await until(public, "sel => !document.querySelector(sel).textContent.includes('0-0-0')",
                        '#match-standings tr[data-side="%s"]' % pair, what="the match public once table 2 is done")
            await until(public, "() => document.querySelector('#seatmap h2').textContent.includes('第 2 轮')",
                        what="round 2's seat map")
            ranks = await public.eval_on_selector_all("#match-standings tbody tr td.changfen",
                                                      "cells => cells.map(c => Number(c.textContent))")
            assert ranks == sorted(ranks, reverse=True)
            await public.screenshot(path=os.path.join(shots, "match-public-round2.png"), full_page=True)
            shown = await text_of(public, "main")
            assert "object" not in shown and all(n in shown for n in ("选手1 · 选手2", "选手9 · 选手10"))

            # A forfeit from the console's form, audited.
            m2 = venue.seat_map()["matches"][1]
            await venue.start_round(2, "裁判 李")
            await con.fill("#forfeit-form input[name=round]", "2")
            await con.fill("#forfeit-form input[name=table]", m2["rooms"][0]["table"])
            await con.fill("#forfeit-form input[name=side]", m2["away"])
            await con.fill("#forfeit-form input[name=reason]", "未到场 no show")
            await con.click("#forfeit-form button[type=submit]")
            await until(con, "() => document.querySelector('#audit').textContent.includes('判弃权')",
                        what="the forfeit in the audit log")
            await con.screenshot(path=os.path.join(shots, "match-console-forfeit.png"), full_page=True)
            # a refused action's 4xx is logged by chromium as a failed load; nothing else may be
            assert [e for e in browser.errors if not e.startswith("Failed to load resource: the server responded "
                                                                  "with a status of 4")] == [], browser.errors
    asyncio.run(asyncio.wait_for(main(), 120))


def test_a_teams_seat_map_shows_the_open_and_closed_rooms_in_chromium(tmp_path):
    shots = shots_dir(tmp_path)

    async def main():
        venue = venue_of(event_text(fmt="teams", sides=4, tables=4, rounds=2, max_deals=1))
        async with served(venue, 1280, 800) as (url, browser):
            page = await browser.page()
            await page.goto(url("/"))
            await until(page, "() => document.querySelectorAll('#seatmap .seat-table').length === 4",
                        what="four rooms in the seat map")
            sm = venue.seat_map()
            home = venue.config.side(sm["matches"][0]["home"])
            open_room = await text_of(page, '#seatmap .seat-table[data-table="1"]')
            closed_room = await text_of(page, '#seatmap .seat-table[data-table="2"]')
            assert "开室" in open_room and "闭室" in closed_room
            # the home team E–W in the open room, N–S in the closed room, each with its own pair
            assert open_room.index(home.name) < open_room.index("南北") < closed_room.index(home.name)
            assert all("#%d" % venue.config.player(p).no in open_room for p in home.players[:2])
            assert all("#%d" % venue.config.player(p).no in closed_room for p in home.players[2:])
            await page.screenshot(path=os.path.join(shots, "match-teams-seatmap.png"), full_page=True)
    asyncio.run(asyncio.wait_for(main(), 60))
