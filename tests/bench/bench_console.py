"""Benchmark: console update latency — from a hub event to the referee's browser.

A simulated hub (an MQTT client keeping to the venue contract, ``tests/venue_web_sim.py``)
publishes through a real mosquitto; the real Venue takes the message, the web layer streams it
by SSE, and a headless chromium page of the referee console redraws.  A MutationObserver in the
page stamps the moment the console's DOM shows the change (``performance.timeOrigin +
performance.now()``, the same wall clock as the publisher's ``time.time()`` on this machine).

Two kinds of hub events are timed:

- a **live snapshot** (QoS 0): a bot's move → the table's "turn" cell on the console;
- an **alert** (QoS 1 outbox message: the venue stores it with an fsynced SQLite commit before
  it tells the pages) → a new line in the console's calls-and-alerts list.

Events are spaced 60 ms apart so that each is drawn on its own (the console coalesces bursts).
Run alone with ``python tests/bench/bench_console.py [--quick]``.
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
sys.path.insert(0, os.path.dirname(HERE))            # tests/: brokers, venue_web_sim
from timing import percentile  # noqa: E402  (tests/bench, beside this file)

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
GAP_S = 0.06

# Installed in the console page: stamps each turn shown for table 1 and each bench alert shown.
OBSERVER = """() => {
  window.__seen = {turns: {}, alerts: {}};
  const stamp = () => performance.timeOrigin + performance.now();
  new MutationObserver(() => {
    const cell = document.querySelector('#tables tbody tr[data-table="1"] td.turn');
    const t = cell && cell.dataset.turn;
    if (t && !(t in window.__seen.turns)) window.__seen.turns[t] = stamp();
  }).observe(document.querySelector('#tables tbody'), {childList: true, subtree: true, characterData: true});
  new MutationObserver(() => {
    for (const li of document.querySelectorAll('#alerts li')) {
      const m = /bench-(\\d+)/.exec(li.textContent);
      if (m && !(m[1] in window.__seen.alerts)) window.__seen.alerts[m[1]] = stamp();
    }
  }).observe(document.querySelector('#alerts'), {childList: true, subtree: true});
}"""


async def _measure(moves, alerts):
    from playwright.async_api import async_playwright

    from brokers import Mosquitto
    from venue_web_sim import PIN, venue_world

    chromium = shutil.which("chromium")
    if chromium is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        broker = Mosquitto(tmp)
        broker.start()
        try:
            async with venue_world(Path(tmp), broker.port) as w, async_playwright() as p:
                browser = await p.chromium.launch(executable_path=chromium, args=ARGS)
                try:
                    page = await browser.new_page(viewport={"width": 1440, "height": 900})
                    await page.goto(w.url("/referee/login"))
                    await page.fill("#who", "bench")
                    await page.fill("#pin", PIN)
                    await page.click("button[type=submit]")
                    await page.wait_for_url("**/referee")
                    await page.wait_for_function("() => document.querySelector('#live').classList.contains('on') && "
                                                 "document.querySelectorAll('#tables tbody tr').length === 2")
                    await page.evaluate(OBSERVER)
                    # The page's clock against the publisher's: both are this machine's wall clock,
                    # but chromium's timeOrigin is taken once; check how far apart they are.
                    for _ in range(5):
                        t0 = time.time() * 1000
                        v = await page.evaluate("() => performance.timeOrigin + performance.now()")
                        t1 = time.time() * 1000
                        skew.append((v - (t0 + t1) / 2, (t1 - t0) / 2))
                    hub = w.sims["1"]

                    async def fresh_deal(board=None):
                        hub.begin_deal(board)
                        await asyncio.sleep(0.3)
                        hub.sent_at.clear()
                        await page.evaluate("() => { window.__seen.turns = {}; }")

                    async def stamp(kind, key):
                        # the console draws within a few ms; wait up to 2 s for a slow one
                        for _ in range(100):
                            seen = await page.evaluate("([k, i]) => window.__seen[k][i] || null", [kind, str(key)])
                            if seen is not None:
                                return seen
                            await asyncio.sleep(0.02)
                        return None

                    await fresh_deal()
                    done = 0
                    while done < moves:
                        if not hub.game.to_act():
                            await fresh_deal(hub.spec["boards"][0])   # a fresh deal: its turns count anew
                            continue
                        hub.step(1)
                        if not hub.game.to_act():
                            continue                # the deal's last move: the turn cell shows no turn
                        turn = hub.snapshot()["turn"]
                        await asyncio.sleep(GAP_S)
                        seen = await stamp("turns", turn)
                        if seen is not None:
                            live_lat.append(seen - hub.sent_at[turn])
                        done += 1
                    for i in range(alerts):
                        n = hub.call("E", reason="bench-%d" % i)
                        await asyncio.sleep(GAP_S)
                        seen = await stamp("alerts", i)
                        if seen is not None:
                            alert_lat.append(seen - hub.alert_at[n])
                finally:
                    await browser.close()
        finally:
            broker.stop()
    return True


live_lat = []
alert_lat = []
skew = []


def measure(moves, alerts):
    del live_lat[:], alert_lat[:], skew[:]
    ok = asyncio.run(_measure(moves, alerts))
    if ok is None:
        return None
    best = min(skew, key=lambda s: s[1])       # the check with the shortest round trip
    return {"moves": moves, "alerts": alerts, "live": list(live_lat), "alert": list(alert_lat), "skew": best}


def _row(name, values, total):
    if not values:
        return "| %s | 0 of %d | — | — | — |" % (name, total)
    return "| %s | %d of %d | %.1f | %.1f | %.1f |" % (name, len(values), total, statistics.median(values),
                                                      percentile(values, 0.99), max(values))


def section(quick):
    r = measure(30 if quick else 300, 5 if quick else 40)
    head = "## Referee console: hub event → browser"
    if r is None:
        return head + "\n\nSkipped: Debian `chromium` is not installed (`apt-get install chromium`).\n"
    lines = [
        head, "",
        "A simulated hub publishes through mosquitto; the Venue takes the message, the web layer streams it by",
        "SSE, headless chromium redraws the referee console.  Latency is from just before the hub's publish to the",
        "moment the console's DOM shows the change (a MutationObserver's wall-clock stamp; same machine, same",
        "clock).  One event every %d ms; %s." % (GAP_S * 1000, "quick run" if quick else "full run"), "",
        "| hub event | drawn | median ms | p99 ms | max ms |",
        "|---|---|---|---|---|",
        _row("live snapshot (QoS 0): a move → the table's turn cell", r["live"], r["moves"]),
        _row("alert (QoS 1, stored with fsync first) → the alerts list", r["alert"], r["alerts"]),
        "",
        "Clock check: the page's clock read %+.2f ms from the publisher's (± %.2f ms, half the round trip of the"
        % r["skew"],
        "check).  Everything (mosquitto, the venue, the web server, the simulated hub and chromium) shares the",
        "2 cores.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
