# Seat board entry point: MicroPython runs boot.py, then this file (from the board's
# filesystem; the packages come from the ROMFS image at /rom/lib).  See device/README.md.
#
# updater.py (beside this file on the board) picks the image slot first: a staged update
# boots once on trial and rolls back by itself (docs/operations.md).  Service mode
# (provisioning and updates over the USB link, from `paizhuo provision`): a staff tool asks
# for it, or hold the board's BOOT button (GPIO0) through reset — the board then also takes
# a first identity without its old key.  In service mode Ctrl-C still gives the REPL.
try:
    from machine import Pin
    import updater

    _mode = updater.boot()
    del updater
    if Pin(0, Pin.IN, Pin.PULL_UP).value() == 0:
        _mode = "button"
except (ImportError, AttributeError, ValueError, OSError):  # the unix port has no pins: hostboot chose the image
    _mode = None

if _mode:
    print("paizhuo seat: service mode (%s); Ctrl-C for the REPL" % _mode)
    from seat import service

    service.main(_mode)
else:
    from seat import app

    app.main()
