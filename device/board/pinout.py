"""The reference board's pins, read from the wiring data file (hardware/pinout.csv, in the image
at /rom/lib/board/pinout.csv): the code and hardware/README.md's wiring table have one source.

    pins = pinout.load()        # {"SCK": 12, "MOSI": 11, …}

Read once at board set-up (a few hundred bytes of heap while it runs, nothing after).
"""

PATH = "/rom/lib/board/pinout.csv"


def load(path=PATH):
    """``{name: gpio}`` of every row (comment lines start with #)."""
    pins = {}
    with open(path) as f:
        for line in f:
            if line[:1] == "#" or not line.strip():
                continue
            parts = line.split(",")
            pins[parts[0].strip()] = int(parts[1])
    return pins
