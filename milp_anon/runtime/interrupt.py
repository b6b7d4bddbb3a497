"""Ctrl-C as "stop now and give me the best you have".

Within :func:`stop_on_sigint` (the command line's solves), the first Ctrl-C
only asks the running solve to stop: HiGHS is interrupted from its own
callbacks, the isolated child is ended, the reduction ends its rounds, and
the best verified table so far is released as ``time_limit`` (exit 4) — as
a time limit would. A second Ctrl-C aborts (``KeyboardInterrupt``).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

__all__ = ["armed", "stop_on_sigint", "stop_requested"]

_requested = threading.Event()
_armed = False


def stop_requested() -> bool:
    """The user asked the solve to stop (the solvers poll this)."""
    return _requested.is_set()


def armed() -> bool:
    """Ctrl-C means "stop" here (solvers then listen for it)."""
    return _armed


@contextlib.contextmanager
def stop_on_sigint(stream=None):
    """Turn the first Ctrl-C inside the block into a stop request (main thread only; elsewhere a no-op)."""
    global _armed
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stream = stream or sys.stderr

    def handler(signum, frame):
        if _requested.is_set():
            raise KeyboardInterrupt
        _requested.set()
        with contextlib.suppress(OSError, ValueError):
            stream.write("\nmilp-anon: stopping at the user's request with the best verified table so far "
                         "(Ctrl-C again to abort)\n")
            stream.flush()

    previous = signal.signal(signal.SIGINT, handler)
    _requested.clear()
    _armed = True
    try:
        yield
    finally:
        _armed = False
        _requested.clear()
        signal.signal(signal.SIGINT, previous)
