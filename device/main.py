# Seat board entry point: MicroPython runs boot.py, then this file (from the board's
# filesystem; the packages come from the ROMFS image at /rom/lib).  See device/README.md.
#
# Service mode: hold the board's BOOT button (GPIO0) through reset and the firmware does
# not start, so the REPL stays on USB for staff (the running firmware owns the USB link
# and switches Ctrl-C off).
try:
    from machine import Pin

    _service = Pin(0, Pin.IN, Pin.PULL_UP).value() == 0
except (ImportError, AttributeError, ValueError):  # the unix port has no pins
    _service = False

if _service:
    print("paizhuo seat: service mode (BOOT held at reset); the firmware is not started")
else:
    from seat import app

    app.main()
