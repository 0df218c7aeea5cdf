# Runs first at every reset of a seat board (not on the unix port).
# The touch controller's interrupt handler may raise; keep room for its traceback.
import micropython

micropython.alloc_emergency_exception_buf(100)
