"""What an early end must undo: temporary files and child processes.

Whatever creates a temporary file or a child process registers it here for
its lifetime (:func:`tracked_file`, :func:`tracked_process`).
:func:`exit_on_signals` (the command line installs it) turns ``SIGTERM`` and
``SIGHUP`` into: wait until no output is being committed
(:func:`committing`), kill the registered processes, delete the registered
files, one line on stderr, exit ``128 + signal``. A watcher thread acts on
them (through Python's signal wakeup descriptor), so they act at once even
while the main thread is inside HiGHS, where a Python signal handler would
only run once HiGHS returns. ``SIGKILL`` cannot be caught: a child still ends with its
parent (:mod:`milp_anon.solvers.worker`), but a temporary file may stay.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import threading
import time

__all__ = ["committing", "exit_on_signals", "track_file", "track_process", "tracked_file", "tracked_process",
           "untrack_file", "untrack_process"]

_lock = threading.RLock()
_files: set[str] = set()
_processes: set = set()
_installed = False


def track_file(path: str) -> None:
    """Delete ``path`` (a file, or a directory with everything in it) on an early end."""
    with _lock:
        _files.add(path)


def untrack_file(path: str) -> None:
    """``path`` is renamed, deleted or kept on purpose: no longer for an early end to delete."""
    with _lock:
        _files.discard(path)


@contextlib.contextmanager
def tracked_file(path: str):
    """Delete ``path`` on an early end while the block runs (the block itself decides its fate otherwise)."""
    track_file(path)
    try:
        yield path
    finally:
        untrack_file(path)


def track_process(proc) -> None:
    """Kill ``proc`` (anything with ``kill()``: a ``Popen``, a ``multiprocessing.Process``) on an early end."""
    with _lock:
        _processes.add(proc)


def untrack_process(proc) -> None:
    """``proc`` has ended or is no longer this process's to kill."""
    with _lock:
        _processes.discard(proc)


@contextlib.contextmanager
def tracked_process(proc):
    """Kill ``proc`` on an early end while the block runs."""
    track_process(proc)
    try:
        yield proc
    finally:
        untrack_process(proc)


@contextlib.contextmanager
def committing():
    """A block a signal must not cut short (renaming finished outputs into place)."""
    with _lock:
        yield


def _end_descendants() -> None:
    """Kill this process's children and theirs (a Dask cluster's nannies and workers) and wait for them (at most
    5 s): one still running may write into a scratch directory while it is being deleted, leaving it behind (the
    CI run of stop 97). Where psutil is installed (Dask depends on it; without Dask there are no such children)."""
    try:
        import psutil
    except ImportError:
        return
    with contextlib.suppress(Exception):
        children = psutil.Process().children(recursive=True)
        for child in children:
            with contextlib.suppress(Exception):
                child.kill()
        psutil.wait_procs(children, timeout=5)


def _undo() -> None:
    for proc in list(_processes):
        with contextlib.suppress(OSError):
            proc.kill()
    _end_descendants()  # before the directories go
    for path in list(_files):
        with contextlib.suppress(OSError):
            if os.path.isdir(path) and not os.path.islink(path):  # a scratch directory (a Dask cluster's)
                for _ in range(20):
                    shutil.rmtree(path, ignore_errors=True)
                    if not os.path.exists(path):
                        break
                    time.sleep(0.05)
            else:
                os.unlink(path)


def _watch(read_fd: int, signals: frozenset) -> None:
    while True:
        try:
            data = os.read(read_fd, 64)
        except InterruptedError:  # pragma: no cover
            continue
        caught = [b for b in data if b in signals]
        if caught:
            break
    signum = caught[0]
    with _lock:  # an output being committed is finished first
        _undo()
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"milp-anon: stopped by {signal.Signals(signum).name}\n")
            sys.stderr.flush()
        os._exit(128 + signum)


def exit_on_signals(signals=("SIGTERM", "SIGHUP")) -> None:
    """Make ``signals`` undo and exit at once, even while the main thread is inside HiGHS.

    Python runs a signal handler only between bytecodes of the main thread;
    HiGHS may hold it for minutes. The C-level handler does write the
    signal's number to the wakeup file descriptor at once, so a watcher
    thread reading it acts instead. Once per process, from the main thread;
    other signals (Ctrl-C's ``KeyboardInterrupt``) keep their handlers. A
    signal the process inherited as ignored stays ignored: under ``nohup`` a
    closed terminal must not end a run.
    """
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    sigs = frozenset(int(getattr(signal, s)) for s in signals
                     if hasattr(signal, s) and signal.getsignal(getattr(signal, s)) is not signal.SIG_IGN)
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    for s in sigs:
        signal.signal(s, lambda signum, frame: None)  # the watcher acts; the main thread carries on until then
    signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    threading.Thread(target=_watch, args=(read_fd, sigs), name="signal-watch", daemon=True).start()
    _installed = True
