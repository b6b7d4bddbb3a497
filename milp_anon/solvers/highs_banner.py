"""HiGHS objects that print nothing: :func:`new_highs`, the one way this package makes a ``highspy.Highs``.

HiGHS 1.16 prints its banner ("Running HiGHS 1.16.0 …") on standard output
when a process makes its first ``Highs`` object, before any option can turn
its output off. On a command line that writes a table or a report to standard
output, or in a child process whose output is read, those lines would be
mixed into the result. The first object of each process is therefore made
with file descriptor 1 pointed at the null device; the banner goes there, and
C's buffered output is flushed before the descriptor is put back. Later
objects print no banner. HiGHS 1.15 prints none at all.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading

import highspy

__all__ = ["new_highs"]

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
    quietly (module docstring)."""
    global _made
    with _lock:
        if _made:
            h = highspy.Highs()
        else:
            h = _first_highs()
            _made = True
    h.setOptionValue("output_flag", False)
    return h
