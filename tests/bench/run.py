"""`make bench`: measure the Big Two code and write docs/benchmarks.md (figures plus the machine).

Speed is measured here, never asserted in tests: these are shared 2-core machines.

    python tests/bench/run.py --out docs/benchmarks.md [--quick]
"""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from paizhuo.bots.bigtwo import BigTwoBot
from paizhuo.rules.bigtwo import BigTwo, Deal
from paizhuo_shared import bigtwo as bt
from timing import percentile  # noqa: E402  (tests/bench, beside this file)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VECTORS = os.path.join(ROOT, "tests", "vectors")

# Public Python Big Two engines, measured on this kind of machine on the same workload
# (issue #2): median time to list a 13-card lead, and complete deals simulated per second.
REFERENCE = [
    ("public engine A (misses some triples and full houses)", 0.14, 135),
    ("public engine B (misses pairs and triples)", 0.25, 44),
    ("public engine C (complete: tries all 8,191 subsets)", 5.1, 16),
]


def seeded_hands(n, seed=1, size=13):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        order = list(range(52))
        rng.shuffle(order)
        out.append(tuple(sorted(order[:size])))
    return out


def bench_lead_listing(n):
    rules = bt.Rules()
    hands = seeded_hands(n)
    for h in hands[:50]:  # warm up
        bt.plays(h, rules)
    times = []
    counts = []
    for h in hands:
        t = time.perf_counter_ns()
        found = bt.plays(h, rules)
        times.append(time.perf_counter_ns() - t)
        counts.append(len(found))
    times.sort()
    return {
        "hands": n,
        "median_ms": times[len(times) // 2] / 1e6,
        "p99_ms": percentile(times, 0.99) / 1e6,
        "worst_ms": times[-1] / 1e6,
        "mean_plays": statistics.mean(counts),
        "max_plays": max(counts),
    }


def bench_follow_listing(n):
    """Listing when following a random legal play of another hand (the common case at a table)."""
    rules = bt.Rules()
    rng = random.Random(2)
    cases = []
    for h in seeded_hands(n, seed=3):
        other = [c for c in range(52) if c not in h]
        rng.shuffle(other)
        options = bt.plays(tuple(sorted(other[:13])), rules)
        p = options[rng.randrange(len(options))]
        cases.append((h, len(p[0]), p[2]))
    times = []
    for h, size, above in cases:
        t = time.perf_counter_ns()
        bt.plays(h, rules, size=size, above=above)
        times.append(time.perf_counter_ns() - t)
    times.sort()
    return {"hands": n, "median_ms": times[len(times) // 2] / 1e6, "p99_ms": percentile(times, 0.99) / 1e6}


def bench_classify(seconds):
    rules = bt.Rules()
    rng = random.Random(4)
    sets = []
    for _ in range(2000):
        order = list(range(52))
        rng.shuffle(order)
        size = rng.choice((1, 2, 3, 5, 5, 5))
        sets.append(tuple(sorted(order[:size])))
    # Random five-card sets are rarely legal; add every legal play of some hands so both paths count.
    for h in seeded_hands(100, seed=5):
        sets.extend(p[0] for p in bt.plays(h, rules))
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for cs in sets:
            bt.classify(cs, rules)
        calls += len(sets)
    return {"calls_per_s": calls / (time.perf_counter() - start), "sets": len(sets)}


def play_bot_deal(seed):
    order = list(range(52))
    random.Random(seed).shuffle(order)
    game = BigTwo(Deal.from_permutation(order, board=1))
    bots = {s: BigTwoBot(seed * 4 + i) for i, s in enumerate("ENWS")}
    steps = 0
    while game.phase != "over":
        seat = game.to_act()[0]
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions(seat)))
        steps += 1
    return steps


def bench_deals(n):
    play_bot_deal(10_000)  # warm up
    start = time.perf_counter()
    steps = sum(play_bot_deal(s) for s in range(n))
    elapsed = time.perf_counter() - start
    return {"deals": n, "deals_per_s": n / elapsed, "actions_per_deal": steps / n}


def bench_micropython(n_hands):
    """Classification vectors and 13-card lead listings timed under `micropython -X heapsize=64k`."""
    exe = shutil.which("micropython") or os.path.join(os.path.dirname(sys.executable), "micropython")
    if not os.path.exists(exe):
        return {"error": "no micropython executable (make test installs the unix port)"}
    spec = importlib.util.spec_from_file_location("mpy_build", os.path.join(ROOT, "tests", "mpy", "build.py"))
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    with tempfile.TemporaryDirectory() as tmp:
        lib = build.build_mpy(os.path.join(tmp, "lib"))
        hands_path = os.path.join(tmp, "hands.jsonl")
        with open(hands_path, "w") as f:
            for h in seeded_hands(n_hands, seed=1):
                f.write(json.dumps({"hand": bt.codes(h)}) + "\n")
        env = build.micropython_env(lib)
        out = subprocess.run(
            [exe, "-X", "heapsize=64k", os.path.join(HERE, "mpy_bench.py"),
             os.path.join(VECTORS, "bigtwo_classify.jsonl"), hands_path],
            capture_output=True, text=True, env=env, timeout=600)
        if out.returncode != 0:
            return {"error": (out.stderr or out.stdout).strip()[-500:]}
        version = subprocess.run([exe, "-c", "import sys; print(sys.version)"], capture_output=True, text=True)
        data = json.loads(out.stdout.strip().splitlines()[-1])
        data["version"] = version.stdout.strip()
        return data


def machine():
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def render(m, lead, follow, classify, deals, mpy):
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`tests/bench/run.py`); rerun it to refresh.  Speed is measured here,",
        "never asserted in tests.",
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        "| CPU | %s (%s cores) |" % (m["cpu"], m["cores"]),
        "| Python | %s |" % m["python"],
        "| MicroPython | %s |" % mpy.get("version", "—"),
        "| Platform | %s |" % m["platform"],
        "| Measured | %s |" % m["date"],
        "",
        "## Big Two: listing every legal play",
        "",
        "`paizhuo_shared.bigtwo.plays()` lists every legal play of a hand — singles, pairs, triples,",
        "straights, flushes, full houses, 铁枝 and straight flushes — built from rank and suit groups",
        "instead of trying subsets; completeness is checked against brute force in the tests.",
        "",
        "| workload | median | p99 | worst | plays per hand |",
        "|---|---|---|---|---|",
        "| lead, 13-card hands (%d seeded) | %.4f ms | %.4f ms | %.4f ms | %.1f mean, %d max |" % (
            lead["hands"], lead["median_ms"], lead["p99_ms"], lead["worst_ms"], lead["mean_plays"], lead["max_plays"]),
        "| follow a random play, 13-card hands (%d seeded) | %.4f ms | %.4f ms | | |" % (
            follow["hands"], follow["median_ms"], follow["p99_ms"]),
        "",
        "Compared with public Python Big Two engines measured on this kind of machine (issue #2):",
        "",
        "| engine | 13-card lead, median | deals per second |",
        "|---|---|---|",
        "| **paizhuo** (complete) | **%.4f ms** | **%.0f** |" % (lead["median_ms"], deals["deals_per_s"]),
    ]
    for name, ms, dps in REFERENCE:
        lines.append("| %s | %.2f ms | %d |" % (name, ms, dps))
    lines += [
        "",
        "Aim: a complete listing under 0.14 ms median and more than 135 complete deals a second — %s." % (
            "met" if lead["median_ms"] < 0.14 and deals["deals_per_s"] > 135 else "NOT met"),
        "",
        "How: cards are integers `rank*4+suit` in Big Two order, so the single order is integer order",
        "and one integer value orders every play of a size; straights come from a table of rank",
        "windows (a bit mask per window), flushes from 5-subsets of each suit, full houses and 铁枝",
        "from rank groups; the engine wraps the tuples into actions without re-validating them.",
        "",
        "## Big Two: classification and whole deals (CPython)",
        "",
        "| measure | figure |",
        "|---|---|",
        "| `classify()` calls per second (%d mixed sets, legal and not) | %.0f |" % (
            classify["sets"], classify["calls_per_s"]),
        "| complete bot-vs-bot deals per second (engine + 4 bots, %d seeded deals) | %.0f |" % (
            deals["deals"], deals["deals_per_s"]),
        "| actions per deal (明牌, 加倍, plays, passes) | %.1f |" % deals["actions_per_deal"],
        "",
        "## Under MicroPython (`micropython -X heapsize=64k`, precompiled with mpy-cross)",
        "",
    ]
    if "error" in mpy:
        lines.append("Not measured: %s" % mpy["error"])
    else:
        lines += [
            "| measure | figure |",
            "|---|---|",
            "| classification vectors: calls | %d |" % mpy["classify_calls"],
            "| classification: µs per call | %.1f |" % (mpy["classify_us_total"] / mpy["classify_calls"]),
            "| 13-card lead listing, median (%d hands) | %.2f ms |" % (mpy["lead_hands"], mpy["lead_median_us"] / 1000),
            "| 13-card lead listing, worst | %.2f ms |" % (mpy["lead_max_us"] / 1000),
            "| heap free after the run (of 64 KB) | %d bytes |" % mpy["heap_free_after"],
            "",
            "These are unix-port figures on this x86-64 machine, not a seat board's: an ESP32-S3 is",
            "much slower, and board figures come with the firmware (issue #4).  The seat only needs",
            "`classify()` for its pre-check of one selection; the full listing runs on the hub.",
        ]
    lines.append("")
    return "\n".join(lines)


def plugged_sections(quick):
    """Sections from tests/bench/bench_*.py: each module's ``section(quick) -> markdown``.

    Every part of the system keeps its benchmark beside the others without editing this
    script; a section starts with its own ``## heading`` and names its workload.
    """
    out = []
    for fname in sorted(os.listdir(HERE)):
        if not (fname.startswith("bench_") and fname.endswith(".py")):
            continue
        spec = importlib.util.spec_from_file_location(fname[:-3], os.path.join(HERE, fname))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        t = time.monotonic()
        out.append((fname, mod.section(quick)))
        print("section %s took %.1f s" % (fname, time.monotonic() - t), flush=True)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    p.add_argument("--quick", action="store_true", help="smaller workloads, for checking the script")
    args = p.parse_args(argv)
    q = args.quick
    m = machine()
    print("machine:", m)
    lead = bench_lead_listing(200 if q else 1000)
    print("lead listing:", lead)
    follow = bench_follow_listing(200 if q else 1000)
    print("follow listing:", follow)
    classify = bench_classify(0.3 if q else 2.0)
    print("classify:", classify)
    deals = bench_deals(20 if q else 500)
    print("deals:", deals)
    mpy = bench_micropython(20 if q else 200)
    print("micropython:", mpy)
    text = render(m, lead, follow, classify, deals, mpy)
    for name, section in plugged_sections(q):
        print("section:", name)
        text += "\n" + section.rstrip("\n") + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    print("wrote", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
