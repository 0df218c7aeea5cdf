"""Benchmark: the referee console's glance at an event of hundreds of tables.

A real Venue (SQLite store; its MQTT link a recorder: no hub is connected, every table is seated
and "never heard", which is the largest glance row the console draws before the live fields) of
``N`` tables and ``4·N`` players, its web app on a loopback port, and headless chromium on the
console.  Timed: the glance as JSON (the venue's side), the console's first draw of every row and
its counts, a filter (a count clicked), a search by a player's name, and the sort by state.
Run alone with ``python tests/bench/bench_console_glance.py [--quick]``.
"""

import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))            # tests/: venue_web_sim

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]


class _Recorder:
    def publish(self, topic, payload, qos=1, retain=False):
        pass

    def subscribe(self, topic, qos=1):
        pass


async def _measure(tables, repeats):
    from aiohttp.test_utils import TestClient, TestServer
    from playwright.async_api import async_playwright

    from paizhuo.venue import web
    from paizhuo.venue.event import load_text
    from paizhuo.venue.service import Venue
    from paizhuo.venue.store import Store, hash_secret
    from venue_web_sim import PIN, event_toml

    chromium = shutil.which("chromium")
    if chromium is None:
        return None
    players = [("P%04d" % i, "选手%d" % i, i) for i in range(1, 4 * tables + 1)]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        cfg = load_text(event_toml(1, Path(tmp) / "v.sqlite", rounds=1, boards=4, players=players, tables=tables),
                        str(Path(tmp) / "event.toml"), base=tmp)
        store = Store(cfg.store_path)
        venue = Venue(cfg, store, _Recorder())
        venue.restore()
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            text = web.Live(venue).glance_text()
            times.append((time.perf_counter() - t) * 1000)
        out["json_ms"] = statistics.median(times)
        out["json_kb"] = len(text.encode("utf-8")) / 1024
        app = web.make_app(venue, hash_secret(PIN, rounds=1000))
        async with TestClient(TestServer(app, host="127.0.0.1")) as client, async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium, args=ARGS)
            try:
                page = await browser.new_page(viewport={"width": 1440, "height": 900})
                page.on("console", lambda m: print("CONSOLE", m.text, time.perf_counter()))
                await page.goto(str(client.make_url("/referee/login")))
                await page.fill("#who", "bench")
                await page.fill("#pin", PIN)
                await page.click("button[type=submit]")
                t = time.perf_counter()
                print("LOGIN CLICKED", t)
                await page.wait_for_function("n => document.querySelectorAll('#tables tbody tr').length === n && "
                                             "document.querySelector('#summary button')", arg=tables, timeout=60000)
                out["draw_ms"] = (time.perf_counter() - t) * 1000
                name = "选手%d" % (4 * tables - 1)
                for key, js in (
                        ("filter_ms", "() => { document.querySelector('#summary button[data-filter=\"offline\"]').click(); "
                                      "document.querySelector('#summary button[data-filter=\"all\"]').click(); }"),
                        ("find_ms", "name => { const f = document.querySelector('#find'); f.value = name; "
                                    "f.dispatchEvent(new Event('input')); f.value = ''; f.dispatchEvent(new Event('input')); }"),
                        ("sort_ms", "() => { const s = document.querySelector('#sort'); s.value = 'state'; "
                                    "s.dispatchEvent(new Event('change')); s.value = 'table'; s.dispatchEvent(new Event('change')); }")):
                    got = []
                    for _ in range(repeats):
                        got.append(await page.evaluate("async (a) => { const t = performance.now(); (%s)(a); "
                                                       "await new Promise(r => requestAnimationFrame(() => r())); "
                                                       "return performance.now() - t; }" % js, name))
                    out[key] = statistics.median(got) / 2      # each case does it and undoes it
            finally:
                await browser.close()
        store.close()
    return out


def measure(tables, repeats):
    return asyncio.run(_measure(tables, repeats))


def section(quick):
    tables = 100 if quick else 500
    r = measure(tables, 3 if quick else 7)
    head = "## Referee console: the glance of %d tables" % tables
    if r is None:
        return head + "\n\nSkipped: Debian `chromium` is not installed (`apt-get install chromium`).\n"
    lines = [
        head, "",
        "The venue's glance as JSON (every table's row, the counts, the rounds) and the console in headless chromium",
        "(%d tables, %d players; median of %d)." % (tables, 4 * tables, 3 if quick else 7), "",
        "| step | ms |", "|---|---|",
        "| the venue makes the glance JSON (%.0f KB) | %.1f |" % (r["json_kb"], r["json_ms"]),
        "| the console's first draw of every row and the counts (from the login) | %.0f |" % r["draw_ms"],
        "| a count clicked: only those tables shown | %.1f |" % r["filter_ms"],
        "| a player's name typed in the search | %.1f |" % r["find_ms"],
        "| sorted by state | %.1f |" % r["sort_ms"],
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
