"""HiGHS in a child process with a hard deadline.

HiGHS does not always honour its time limit or the watchdog's interrupt (on
Adult with 6 QIs a 120 s solve returned after 206–244 s), so models of at
least ``ISOLATE_MIN_COLUMNS`` columns under a time limit are solved in a
spawned child that streams every improving incumbent and bound back and is
killed :func:`hard_limit_margin` after the watchdog. The last reported
incumbent survives a kill.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import time

import numpy as np

from ..errors import SolverError
from ..grid import ObjectiveGrid
from ..status import Status
from .highs import solve_highs, watchdog_margin
from .options import SolverOptions, StopAtBound
from .outcome import SolveOutcome

__all__ = ["ISOLATE_MIN_COLUMNS", "hard_limit_margin", "should_isolate", "solve_isolated"]

#: models at least this large are solved in a child process under a time limit (``isolate="auto"``)
ISOLATE_MIN_COLUMNS = 100_000


def hard_limit_margin(time_limit: float) -> float:
    """Seconds past the watchdog after which the child process running HiGHS is killed: ``max(10 s, 10 %)``."""
    return max(10.0, 0.10 * float(time_limit))


def should_isolate(options: SolverOptions, n_cols: int) -> bool:
    """Whether a model of ``n_cols`` columns is solved in a child process under ``options``."""
    isolate = options.isolate == "always" or (
        options.isolate == "auto" and options.time_limit is not None and n_cols >= ISOLATE_MIN_COLUMNS)
    # a daemonic process (e.g. a multiprocessing.Pool worker) cannot start one:
    # only the in-process watchdog applies there
    return isolate and not mp.current_process().daemon


def _child(conn, lm, options, grid, hint, solve_fn=None, stop_bound=None):
    """Child process: solve, report every improving incumbent, then the final outcome."""
    try:
        def on_improving(e):
            d = e.data_out
            try:
                conn.send(("progress", np.asarray(d.mip_solution, dtype=float), float(d.objective_function_value),
                           float(d.mip_dual_bound)))
            except Exception:  # the parent may be gone; never break the solve
                pass

        out = (solve_fn or solve_highs)(lm, options, grid, hint, on_improving=on_improving, stop_bound=stop_bound)
        conn.send(("final", out))
    except BaseException as exc:  # reported, never lost
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def solve_isolated(lm, options: SolverOptions, grid: ObjectiveGrid, hint=None, *, solve_fn=None,
                   stop_bound: StopAtBound | None = None) -> SolveOutcome:
    """HiGHS in a spawned child with a hard deadline (``solve_fn`` replaces HiGHS in tests)."""
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, lm, options, grid, hint, solve_fn, stop_bound), daemon=True)
    t0 = time.perf_counter()
    proc.start()
    child.close()
    deadline = None
    if options.time_limit is not None:
        deadline = options.time_limit + watchdog_margin(options.time_limit) + hard_limit_margin(options.time_limit)
    latest = None
    try:
        while True:
            if parent.poll(0.2):
                try:
                    msg = parent.recv()
                except EOFError:
                    msg = ("error", f"the solver process died (exit code {proc.exitcode})")
                if msg[0] == "progress":
                    latest = msg[1:]
                    continue
                if msg[0] == "final":
                    proc.join()
                    return msg[1]
                raise SolverError(f"HiGHS failed in its process: {msg[1]}")
            if not proc.is_alive() and not parent.poll(0.5):
                raise SolverError(f"the HiGHS process died (exit code {proc.exitcode})")
            if deadline is not None and time.perf_counter() - t0 > deadline:
                proc.kill()
                proc.join()
                break
    finally:
        parent.close()
        if proc.is_alive():  # pragma: no cover - interrupted parent
            proc.kill()
    secs = time.perf_counter() - t0
    raw = f"killed {secs - options.time_limit:.0f} s after the time limit"
    if latest is None:
        return SolveOutcome(Status.NO_SOLUTION, None, None, None, raw, secs)
    x, obj, dual = latest
    bound = grid.ceil(dual) if math.isfinite(dual) else None
    return SolveOutcome(Status.TIME_LIMIT, x, obj, bound, raw, secs)
