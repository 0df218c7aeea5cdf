# Runs under MicroPython (and CPython): times Big Two classification and play listing.
# Usage: micropython -X heapsize=64k mpy_bench.py CLASSIFY_JSONL HANDS_JSONL
# Prints one JSON line of figures.  Read line by line: a 64 KB heap holds no whole file.
import sys
import json
import gc

try:
    from time import ticks_us, ticks_diff
except ImportError:  # CPython, for checking the script itself
    from time import perf_counter

    def ticks_us():
        return int(perf_counter() * 1000000)

    def ticks_diff(a, b):
        return a - b

from paizhuo_shared import bigtwo as bt


def load(path, field):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                case = json.loads(line)
                try:
                    out.append(bt.cards(case[field]))
                except ValueError:
                    pass  # vectors of invalid input are not timed
    return out


def main():
    rules = bt.Rules()
    sets = load(sys.argv[1], "cards")
    gc.collect()
    rounds = 20
    t0 = ticks_us()
    for _ in range(rounds):
        for cs in sets:
            bt.classify(cs, rules)
    classify_us = ticks_diff(ticks_us(), t0)
    classify_calls = rounds * len(sets)
    sets = None
    times = []
    count = 0
    f = open(sys.argv[2])  # hands are streamed: 200 of them do not fit beside the timings
    for line in f:
        if not line.strip():
            continue
        h = bt.cards(json.loads(line)["hand"])
        line = None
        gc.collect()
        t = ticks_us()
        found = bt.plays(h, rules)
        times.append(ticks_diff(ticks_us(), t))
        count += len(found)
        found = None
    f.close()
    times.sort()
    free = gc.mem_free() if hasattr(gc, "mem_free") else -1
    print(json.dumps({
        "classify_calls": classify_calls,
        "classify_us_total": classify_us,
        "lead_hands": len(times),
        "lead_median_us": times[len(times) // 2],
        "lead_max_us": times[-1],
        "lead_mean_plays": count // max(1, len(times)),
        "heap_free_after": free,
    }))


main()
