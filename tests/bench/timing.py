"""Measuring helpers every benchmark section shares (imported by the bench_*.py files and run.py)."""

import time


def percentile(values, fraction):
    """The value at ``fraction`` (0.99 for p99) of the sorted values: nearest rank, never interpolated."""
    s = sorted(values)
    return s[min(len(s) - 1, int(fraction * len(s)))]


def best_of(fn, repeat):
    """``(seconds, result)`` of the fastest of ``repeat`` calls of ``fn`` (the least disturbed run)."""
    best = result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        t = time.perf_counter() - t0
        best = t if best is None or t < best else best
    return best, result
