"""HiGHS objects that print nothing: :func:`new_highs`, the one way this package makes a ``highspy.Highs``; and
:func:`run_here`, the one way it runs one on the calling thread.

HiGHS 1.16 prints its banner ("Running HiGHS 1.16.0 …") on standard output
when a process makes its first ``Highs`` object, before any option can turn
its output off. On a command line that writes a table or a report to standard
output, or in a child process whose output is read, those lines would be
mixed into the result. The first object of each process is therefore made
with file descriptor 1 pointed at the null device; the banner goes there, and
C's buffered output is flushed before the descriptor is put back. Later
objects print no banner. HiGHS 1.15 prints none at all.

HiGHS keeps one task scheduler per thread, sized by the ``threads`` option of
the first run on that thread (0, the default: half the machine's cores, rounded
up, before 1.16; all of them from 1.16), and refuses every later run on it that
asks for another count: ``run()`` returns an error and the model status stays
"Not Set". So a run on the calling thread (:func:`run_here`: the column
generation's masters, the EMD's block programs, the LP rounding's
transportation problem) leaves ``threads`` at 0, which takes the scheduler as
it is; a solve that sets it (:func:`~milp_anon.solvers.highs.solve_highs`, a
user's ``threads``) runs in a thread of its own (``startSolve``) or a child
process. Otherwise whichever ran first decides, and on a machine of three
cores or more a master at the default followed by a program asking for one
thread failed silently, its bound lost (``tests/test_highs_banner.py``).
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading

import highspy

__all__ = ["new_highs", "run_here"]

_lock = threading.Lock()
_made = False


def _flush_c_stdout() -> None:
    try:
        ctypes.CDLL(None).fflush(None)  # every C stream (the banner sits in stdout's buffer when piped)
    except (OSError, AttributeError):  # pragma: no cover - no C library by that name (not on Linux/macOS)
        pass


def _first_highs() -> highspy.Highs:
    """A ``Highs`` made with file descriptor 1 on the null device (its banner goes there)."""
    try:
        sys.stdout.flush()  # what Python holds for the real standard output goes out first
    except (AttributeError, ValueError, OSError):
        pass
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 at all: nothing to protect
        return highspy.Highs()
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        try:
            h = highspy.Highs()
        finally:
            _flush_c_stdout()
            os.dup2(saved, 1)
    finally:
        os.close(null)
        os.close(saved)
    return h


def new_highs() -> highspy.Highs:
    """A ``highspy.Highs`` with its output off (``output_flag`` false); the first in a process is made
    quietly, and ``threads`` is left at 0 for :func:`run_here` (module docstring)."""
    global _made
    with _lock:
        if _made:
            h = highspy.Highs()
        else:
            h = _first_highs()
            _made = True
    h.setOptionValue("output_flag", False)
    return h


def run_here(h: highspy.Highs) -> highspy.HighsStatus:
    """``h.run()`` on the calling thread, whose ``threads`` must be 0 (module docstring): a count set here would
    be refused whenever another one ran on this thread first."""
    if h.getOptionValue("threads")[1] != 0:  # (status, value), as every getOptionValue here reads it
        raise ValueError("a HiGHS run on the calling thread leaves 'threads' at 0 (milp_anon.solvers.highs_banner)")
    return h.run()
