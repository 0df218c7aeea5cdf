# The unix port's stand-in for a seat board's ROM partition (MicroPython ROMFS).
#
# A seat board runs the firmware from a ROMFS image in flash: bytecode, strings and the
# glyph bitmaps are used in place and never copied into the heap.  The unix port has no
# flash, so this loader reads the same image into one buffer and mounts it at /rom exactly
# as the board does.  The image path is $PAIZHUO_ROMFS.
#
#   micropython -X heapsize=N -m hostboot          runs the firmware (main.py in the image)
#   micropython -X heapsize=N -c "import hostboot; …"   mounts it for a test script
import os
import sys
import vfs

_path = os.getenv("PAIZHUO_ROMFS")
if not _path:
    print("hostboot: set PAIZHUO_ROMFS to the firmware image (python -m paizhuo.sim.firmware builds it)")
    sys.exit(2)
_image = bytearray(os.stat(_path)[6])  # exactly the image's size: read() would over-allocate
with open(_path, "rb") as _f:
    _f.readinto(_image)
vfs.mount(vfs.VfsRom(_image), "/rom")
sys.path.insert(0, "/rom/lib")
sys.path.insert(0, "/rom")
del _f, _path

if __name__ == "__main__":
    import main  # noqa: F401  (runs the firmware)
