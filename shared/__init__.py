"""paizhuo_shared: pure code that runs on the seat boards (MicroPython) and the hub (CPython).

Nothing here does I/O, reads a clock or draws a random number: the hub and the
firmware pass everything in. Every module must compile with ``mpy-cross`` and pass
the vectors in ``tests/vectors`` under ``micropython -X heapsize=64k``.
"""
