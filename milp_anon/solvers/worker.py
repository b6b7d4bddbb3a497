"""The isolated solver's child process: ``python -m milp_anon.solvers.worker JOB_FD PARENT_PID``.

Started by :func:`~milp_anon.solvers.isolated.solve_isolated` as a plain
subprocess, never through :mod:`multiprocessing`: a spawned
``multiprocessing`` child re-imports the user's ``__main__``, and a script
without ``if __name__ == "__main__":`` then killed it while the parent
waited forever. This module imports only the toolkit.

Protocol. ``JOB_FD`` is an inherited descriptor of a nameless temporary
file holding two pickles: the parent's ``sys.path`` (so that a test's
stand-in solver is importable) and the job ``(lm, options, grid, hint,
solve_fn, stop_bound, started)`` (``started``: the parent's wall clock when it
started the child, taken off the time limit by :func:`time_left`); the file is
gone once both processes close it.
Messages go to the parent on the child's original stdout as
frames ``8-byte big-endian length + pickle``: ``("progress", x, objective,
dual_bound)`` for every improving incumbent, ``("bound", fields)`` every
second (HiGHS's incumbent and ``solver_bound``, a dual bound of the job's
model, which the parent keeps should it have to kill this process; a
``root_cuts`` log from :mod:`.root_cuts` once its steps have run), then one
``("final", SolveOutcome)`` or ``("error", text)``. Everything else written to fd 1 (the
HiGHS log) goes to stderr instead.

The child ends with its parent, whatever ends the parent (an exception, a
signal, ``SIGKILL``): the parent holds the write end of the child's stdin,
so the child's stdin reaches end of file exactly when the parent is gone; a
thread waits for it. On that stdin the parent writes only ``("ceiling",
cost)`` frames: the cost of a verified table found beside the solve, which a
``solve_fn`` taking a ``ceiling`` reads. On Linux the kernel's parent-death
signal (``PR_SET_PDEATHSIG``) backs it up.
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import os
import pickle
import signal
import sys
import threading
import time

import numpy as np

from milp_anon.solvers.frames import read_frames, write_frame
from milp_anon.solvers.highs import MIN_SOLVE_SECONDS, solve_highs
from milp_anon.solvers.keywords import accepts
from milp_anon.solvers.options import SolverOptions

__all__ = ["main", "time_left"]


#: the cost of the best verified table the parent knows (its ``("ceiling", value)`` frames on this process's
#: stdin), for a ``solve_fn`` that takes a ``ceiling``
_ceiling = [math.inf]


def _end_with_parent(parent_pid: int) -> None:
    def wait_for_eof():
        try:
            for msg in read_frames(sys.stdin.buffer):
                if msg[0] == "ceiling":
                    _ceiling[0] = min(_ceiling[0], float(msg[1]))
        except Exception:  # a read error or a torn frame: treated as the parent's end
            pass
        os._exit(70)  # the parent is gone: nobody reads the result

    threading.Thread(target=wait_for_eof, name="parent-watch", daemon=True).start()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the stdin watch suffices
            pass
    if os.getppid() != parent_pid:  # the parent died before the watch was set up
        os._exit(70)


def time_left(options: SolverOptions, started: float, now: float) -> SolverOptions:
    """``options`` with the time limit less the seconds since the parent started the child (wall clock,
    the one clock both processes read): the parent's limit covers this process's start-up too."""
    if options.time_limit is None:
        return options
    used = max(0.0, now - started)  # a clock stepped back counts nothing
    return dataclasses.replace(options, time_limit=max(MIN_SOLVE_SECONDS, options.time_limit - used))


def main(argv: list[str]) -> int:
    job_fd, parent_pid = int(argv[0]), int(argv[1])
    out_fd = os.dup(1)
    os.dup2(2, 1)  # the solver's own log goes to stderr, never into the message stream
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it ends this child
    _end_with_parent(parent_pid)
    with os.fdopen(job_fd, "rb") as fh:
        sys.path[:] = pickle.load(fh)
        lm, options, grid, hint, solve_fn, stop_bound, started = pickle.load(fh)
    options = time_left(options, started, time.time())

    def on_improving(e):
        d = e.data_out
        try:
            write_frame(out_fd, ("progress", np.asarray(d.mip_solution, dtype=float), float(d.objective_function_value),
                                 float(d.mip_dual_bound)))
        except OSError:  # the parent is gone: the stdin watch ends this process
            pass

    def on_progress(**fields):  # the parent's listener gets them (milp_anon.runtime.progress)
        try:
            write_frame(out_fd, ("bound", fields))
        except OSError:
            pass

    solve_fn = solve_highs if solve_fn is None else solve_fn
    extra = {}  # a test's stand-in solver may take neither; HiGHS sends its incumbent and bound every second
    if accepts(solve_fn, "on_progress"):
        extra["on_progress"] = on_progress
    if accepts(solve_fn, "ceiling"):
        extra["ceiling"] = lambda: _ceiling[0]
    try:
        out = solve_fn(lm, options, grid, hint, on_improving=on_improving, stop_bound=stop_bound, **extra)
        write_frame(out_fd, ("final", out))
    except BaseException as exc:  # reported, never lost
        try:
            write_frame(out_fd, ("error", f"{type(exc).__name__}: {exc}"))
        except OSError:
            pass
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
