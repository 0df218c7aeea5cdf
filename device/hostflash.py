# The unix port's stand-in for a seat board's main.py with its flash (staged updates, service mode).
#
# hostboot.py mounts one image as it is; this loader is a board with a filesystem instead:
# $PAIZHUO_FLASH is the folder standing in for the board's flash (seat.json, ident.json, the
# image slots fw/a.romfs and fw/b.romfs, the boot record), and the boot selector (updater.py,
# beside this file, as it is beside main.py on a board) picks the slot and the mode.
# $PAIZHUO_BUTTON=1 is the service button held at reset.  A separate file from hostboot so that
# a plain simulated seat loads none of this (each of its names would be a qstr on its heap).
#
#   micropython -X heapsize=N -m hostflash          (tests/firmware/simboard.py runs it)
import os

import updater

_mode = updater.boot()
del updater
if os.getenv("PAIZHUO_BUTTON") == "1":
    _mode = "button"
if __name__ == "__main__":
    if _mode:
        from seat import service

        service.main(_mode)
    else:
        from seat import app

        app.main()
