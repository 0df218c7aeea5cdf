"""Processes the simulations start end with the process that started them, however it ends.

``paizhuo demo`` and the test harness start the venue, hubs, seat firmware and socat; most run
in their own session (so they can be signalled alone), so nothing reaches them when the demo is
SIGKILLed.  :func:`popen` is ``subprocess.Popen`` with Linux's parent-death signal
(``prctl(PR_SET_PDEATHSIG, SIGTERM)``) set in the child before exec: when the starter dies,
every child gets SIGTERM (and stops the way it does on a staff member's SIGTERM).

Linux sends that signal when the *thread* that forked the child exits, not the process.  So
every child is forked on one daemon thread of this module that lives as long as the process
(a child started from a short-lived worker thread would otherwise be killed when that thread
ends).  A child whose parent died between fork and prctl sees a new parent and ends itself.
Elsewhere than Linux the children are started as plain ``Popen`` (no such signal there).

    >>> p = popen(["sleep", "5"])
    >>> p.terminate(); p.wait()
    -15
"""

import ctypes
import ctypes.util
import os
import queue
import signal
import subprocess
import sys
import threading

__all__ = ["popen"]

PR_SET_PDEATHSIG = 1    # <linux/prctl.h>


def _load_prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


# Looked up here, in the parent: between fork and exec the child should call as little as it can.
_prctl = _load_prctl()
_jobs = queue.Queue()
_thread = None
_thread_lock = threading.Lock()


def _in_child(parent):
    def arm():
        _prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:     # the starter died before prctl: the signal will never come
            os.kill(os.getpid(), signal.SIGTERM)
    return arm


def _spawner():
    while True:
        args, kwargs, done = _jobs.get()
        try:
            done.append(subprocess.Popen(*args, preexec_fn=_in_child(os.getpid()), **kwargs))
        except BaseException as e:     # handed to the caller, raised on its thread
            done.append(e)
        finally:
            done.ready.set()


class _Done(list):
    def __init__(self):
        super().__init__()
        self.ready = threading.Event()


def popen(*args, **kwargs):
    """``subprocess.Popen(*args, **kwargs)`` whose process gets SIGTERM when this one dies (Linux)."""
    global _thread
    if _prctl is None:
        return subprocess.Popen(*args, **kwargs)
    with _thread_lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_spawner, name="paizhuo-spawner", daemon=True)
            _thread.start()
    done = _Done()
    _jobs.put((args, kwargs, done))
    done.ready.wait()
    if isinstance(done[0], BaseException):
        raise done[0]
    return done[0]
