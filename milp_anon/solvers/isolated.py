"""HiGHS in a child process with a hard deadline.

HiGHS does not always honour its time limit or the watchdog's interrupt (on
Adult with 6 QIs a 120 s solve returned after 206–244 s), so models of at
least ``ISOLATE_MIN_COLUMNS`` columns under a time limit are solved in a
child process that streams every improving incumbent and bound back and is
killed :func:`hard_limit_margin` after the watchdog. The last reported
incumbent survives a kill, and so does the best dual bound it reported.

The child is ``python -m milp_anon.solvers.worker`` (:mod:`.worker`): it
never imports the caller's ``__main__``, the model reaches it in a temporary
file (so the parent never blocks writing into a pipe), a reader thread takes
its messages (so the parent never blocks reading from a dead child), and it
ends with the parent however the parent ends. The temporary file has no
name (``O_TMPFILE``, or unlinked at once) and reaches the child as an
inherited descriptor, so no ``SIGKILL`` of either process can leave it in
the temporary directory (a model file can be hundreds of MB).
"""

from __future__ import annotations

import math
import os
import pickle
import queue
import subprocess
import sys
import tempfile
import threading
import time

from milp_anon.runtime import interrupt, progress
from milp_anon.runtime.cleanup import track_process, untrack_process
from milp_anon.runtime.errors import SolverError
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.memory import tree_resident_bytes
from milp_anon.runtime.status import Status
from milp_anon.solvers.frames import read_frames, write_frame
from milp_anon.solvers.highs import watchdog_margin
from milp_anon.solvers.options import SolverOptions, StopAtBound
from milp_anon.solvers.outcome import SolveOutcome

__all__ = ["ISOLATE_MIN_COLUMNS", "MEMORY_POLL", "hard_limit_margin", "should_isolate", "solve_isolated"]

#: models at least this large are solved in a child process under a time limit (``isolate="auto"``)
ISOLATE_MIN_COLUMNS = 100_000

# A child given the rest of the caller's limit is killed ``options.tuning.hard_end_grace`` seconds past the caller's
# end (``hard_end``), for a solver that stops at its limit to hand back its table: HiGHS on a 1.04 M-pair reduction
# round (Adult, 7 QIs, k = 5) ran 56 s past its 350-s limit, to the kill's own margins, and the run took 654 s of its
# 600.
#: seconds between two reads of the resident memory of this process and its descendants under ``max_memory_bytes``
MEMORY_POLL = 0.1

#: the directory that holds the ``milp_anon`` package (the child imports the same copy)
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def hard_limit_margin(time_limit: float) -> float:
    """Seconds past the watchdog after which the child process running HiGHS is killed: ``max(10 s, 10 %)``."""
    return max(10.0, 0.10 * float(time_limit))


def should_isolate(options: SolverOptions, n_cols: int) -> bool:
    """Whether a model of ``n_cols`` columns is solved in a child process under ``options``."""
    return options.isolate == "always" or (
        options.isolate == "auto" and options.time_limit is not None and n_cols >= ISOLATE_MIN_COLUMNS)


def _start_child(job) -> subprocess.Popen:
    with tempfile.TemporaryFile(prefix="milp-anon-job-") as fh:  # nameless: nothing to clean up, ever
        pickle.dump(list(sys.path), fh, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump(job, fh, protocol=pickle.HIGHEST_PROTOCOL)
        fh.flush()
        fh.seek(0)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        return subprocess.Popen([sys.executable, "-m", "milp_anon.solvers.worker", str(fh.fileno()),
                                 str(os.getpid())], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                pass_fds=(fh.fileno(),))


def _stop(proc: subprocess.Popen) -> None:
    """Kill the child if it still runs, and reap it (no zombie, no orphan)."""
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process that survives SIGKILL
        pass
    for stream in (proc.stdin, proc.stdout):
        try:
            stream.close()
        except OSError:
            pass


def solve_isolated(lm, options: SolverOptions, grid: ObjectiveGrid, hint=None, *, solve_fn=None,
                   stop_bound: StopAtBound | None = None, cancel: threading.Event | None = None,
                   ceiling=None, hard_end: float | None = None,
                   max_memory_bytes: float | None = None, on_fields=None) -> SolveOutcome:
    """HiGHS in a child process with a hard deadline (``solve_fn``, importable by name, replaces HiGHS in tests).

    ``cancel``: when set (by another thread of this process), the child is stopped as at the deadline.
    ``ceiling``: a function of no arguments giving the cost of the best verified table known to this process
    (found beside the solve, by another thread); each value lower than the last reaches the child, whose
    ``solve_fn`` reads it if it takes a ``ceiling`` (:func:`~.root_cuts.solve_by_root_cuts`: only solutions
    cheaper than it matter).
    ``hard_end``: the end of the caller's whole time limit (a ``time.perf_counter()`` instant), which a solve given
    the rest of it must not overrun: the child is killed ``options.tuning.hard_end_grace`` seconds later even when
    the margins past its own limit (:func:`hard_limit_margin`) have not run out (a 1.04 M-pair round on Adult, 7 QIs,
    was killed 56 s after its 350-s limit, so the run took 654 s of its 600).
    ``max_memory_bytes``: the memory this process and all its descendants may hold together (the child, and any
    other solve's process beside it, such as a large-neighbourhood sub-model's); the child is killed as soon as
    their resident memory (read every ``MEMORY_POLL`` seconds) exceeds it, keeping its incumbent and bound as at
    the deadline, and the outcome's ``memory_killed`` says so. The model's estimate before it was built
    (:mod:`milp_anon.formulations.sizing`) cannot bound what HiGHS's search allocates later (Adult, 7 QIs with hierarchies: a
    1.8 M-pair round's process reached 6.7 GiB beside a parent of 2.3 GiB under an 8-GiB cap).
    ``on_fields(fields)``: each dict the child's ``solve_fn`` tells (its ``on_progress``), before the progress
    listener gets it; it takes (pops) the fields that are its own, which no listener knows (a column
    generation's ``lp_guide``, :func:`~milp_anon.bounds.lagrangian.column_generation_job`)."""
    # the wall-clock start goes with the job: the child's own start-up (an interpreter, imports, the
    # model read back: 2-3 s for a 350 k-column round) comes out of its solver's limit (worker.time_left)
    proc = _start_child((lm, options, grid, hint, solve_fn, stop_bound, time.time()))
    track_process(proc)  # a SIGTERM to the command line kills it at once (milp_anon.runtime.cleanup)
    t0 = time.perf_counter()
    messages: queue.Queue = queue.Queue()
    threading.Thread(target=_read_messages, args=(proc, messages), name="solver-reader", daemon=True).start()
    told = [math.inf]  # the last ceiling sent to the child

    def send_ceiling():
        value = float(ceiling())
        if value < told[0] - 1e-9:
            told[0] = value
            try:  # one small frame, atomic on a pipe; the child's stdin watch reads it at once
                write_frame(proc.stdin.fileno(), ("ceiling", value))
            except (OSError, ValueError):  # the child is gone: its end is read below
                pass

    end = _kill_instant(options, t0, hard_end)
    latest = None
    # the best dual bound the child reported (``solver_bound``), and the last log of its steps through the
    # root's cuts: a kill keeps both, so what the child proved before overrunning its limit is not lost
    proven, steps = -math.inf, None
    stopped_by_user = cancelled = over_memory = False
    polled = -math.inf
    try:
        while True:
            if ceiling is not None:
                send_ceiling()
            if time.perf_counter() > end:  # before every message: they may stream without a pause
                break
            if max_memory_bytes is not None and time.perf_counter() - polled >= MEMORY_POLL:
                polled = time.perf_counter()
                if tree_resident_bytes() > max_memory_bytes:  # the cap is the run's: all its processes
                    over_memory = True
                    break
            try:
                msg = messages.get(timeout=0.2)
            except queue.Empty:
                if interrupt.stop_requested():
                    stopped_by_user = True
                    break
                if cancel is not None and cancel.is_set():
                    cancelled = True
                    break
                continue
            if msg[0] == "progress":
                latest = msg[1:]
                progress.report(incumbent=latest[1], solver_bound=latest[2])
            elif msg[0] == "bound":
                proven, steps = _heard_bound(msg[1], on_fields, proven, steps)
            elif msg[0] == "final":
                return msg[1]
            elif msg[0] == "error":
                raise SolverError(f"HiGHS failed in its process: {msg[1]}")
            else:  # end of file without a final message
                code = proc.wait()
                raise SolverError(f"the HiGHS process died (exit code {code})")
    finally:
        _stop(proc)
        untrack_process(proc)
    secs = time.perf_counter() - t0
    at_end = hard_end is not None and time.perf_counter() > hard_end + options.tuning.hard_end_grace
    raw = "interrupted by the user" if stopped_by_user else "stopped by the pipeline" \
        if cancelled else \
        f"killed at the memory allowed ({max_memory_bytes / 2**30:.1f} GiB, this process and all it started) " \
        f"after {secs:.0f} s" if over_memory else \
        f"killed at the caller's end after {secs:.0f} s" if at_end else \
        f"killed {secs - options.time_limit:.0f} s after the time limit"
    return _killed_outcome(latest, proven, steps, grid, raw, secs, over_memory)


def _read_messages(proc: subprocess.Popen, messages: queue.Queue) -> None:
    """The reader thread of :func:`solve_isolated`: the child's frames into ``messages``, then ``("eof",)``
    (``("error", …)`` first for a torn frame), so that the parent never blocks reading from a dead child."""
    try:
        for msg in read_frames(proc.stdout):
            messages.put(msg)
    except Exception as exc:  # a torn or foreign frame: the child is treated as dead
        messages.put(("error", f"unreadable message from the solver process ({type(exc).__name__})"))
    messages.put(("eof",))


def _kill_instant(options: SolverOptions, t0: float, hard_end: float | None) -> float:
    """The ``perf_counter`` instant :func:`solve_isolated` kills its child at: the limit's own margins past ``t0``,
    or ``hard_end`` plus its grace when sooner."""
    end = math.inf
    if options.time_limit is not None:
        end = t0 + options.time_limit + watchdog_margin(options.time_limit) + hard_limit_margin(options.time_limit)
    if hard_end is not None:
        end = min(end, hard_end + options.tuning.hard_end_grace)
    return end


def _heard_bound(told: dict, on_fields, proven: float, steps):
    """A ``bound`` message of the child: ``on_fields`` takes its own fields, the rest reach the progress listener;
    returns ``(proven, steps)`` with the message's dual bound and root-cut steps taken in."""
    fields = dict(told)
    if on_fields is not None:
        on_fields(fields)
    steps = fields.pop("root_cuts", steps)
    sb = fields.get("solver_bound")
    if sb is not None and not math.isnan(sb):
        proven = max(proven, float(sb))
    progress.report(**fields)
    return proven, steps


def _killed_outcome(latest, proven: float, steps, grid: ObjectiveGrid, raw: str, secs: float,
                    over_memory: bool) -> SolveOutcome:
    """The outcome of a child stopped before its final message: its last incumbent (``latest``) and the best dual
    bound it reported, on the grid and never above that incumbent."""
    x, obj, dual = latest if latest is not None else (None, None, -math.inf)
    dual = max(dual, proven)
    bound = grid.ceil(dual) if math.isfinite(dual) else None
    if latest is not None and bound is not None:
        bound = min(bound, grid.ceil(obj))  # never above the incumbent it comes with
    return SolveOutcome(Status.TIME_LIMIT if latest is not None else Status.NO_SOLUTION, x, obj, bound, raw, secs,
                        root_cuts=steps, memory_killed=over_memory)

