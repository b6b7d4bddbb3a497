"""HiGHS in this process, the model passed in bulk through highspy.

A watchdog interrupts HiGHS a margin after the time limit (HiGHS has been
seen to run far past its own ``time_limit``: inside the interior-point root of
large models, and on a t-closeness model 226 s for a 120 s limit); the
incumbent is kept. An optional :class:`~milp_anon.solvers.options.StopAtBound`
interrupts the search once the dual bound reaches a threshold.
"""

from __future__ import annotations

import math
import time

import highspy
import numpy as np

from milp_anon.runtime import interrupt, progress
from milp_anon.runtime.errors import SolverError
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status
from milp_anon.solvers.dual_bound import dual_bound, implied_upper
from milp_anon.solvers.highs_banner import new_highs
from milp_anon.solvers.options import SolverOptions, StopAtBound, highs_option_values
from milp_anon.solvers.outcome import Basis, SolveOutcome

__all__ = ["apply_options", "map_status", "solve_highs", "subscribe_progress", "watchdog_margin"]

_LIMITS = (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kIterationLimit,
           highspy.HighsModelStatus.kInterrupt, highspy.HighsModelStatus.kSolutionLimit,
           highspy.HighsModelStatus.kMemoryLimit, highspy.HighsModelStatus.kObjectiveBound,
           highspy.HighsModelStatus.kObjectiveTarget, highspy.HighsModelStatus.kHighsInterrupt)


#: HiGHS's feasibility-jump heuristic: off in a MIP given a start, unless the caller's ``highs_options`` set it
FEASIBILITY_JUMP = "mip_heuristic_run_feasibility_jump"

#: HiGHS's time limit when the caller's limit is used up before the solve starts (it then stops at once)
MIN_SOLVE_SECONDS = 0.01


def watchdog_margin(time_limit: float) -> float:
    """Seconds past the time limit after which the watchdog interrupts HiGHS."""
    return max(2.0, 0.05 * float(time_limit))


def apply_options(h, options: SolverOptions, **kw) -> None:
    """Set :func:`~milp_anon.solvers.options.highs_option_values` on a :class:`highspy.Highs`."""
    for key, value in highs_option_values(options, **kw).items():
        h.setOptionValue(key, value)


def map_status(h, grid: ObjectiveGrid):
    """HiGHS's model status and solution as ``(status, x, objective, bound, raw)``.

    ``optimal`` needs HiGHS's own Optimal and a bound (rounded up to ``grid``)
    that reaches the objective; Optimal with a positive gap (a user gap) is
    ``gap_limit``; a limit is ``time_limit`` with an incumbent, ``no_solution``
    without.
    """
    ms = h.getModelStatus()
    info = h.getInfo()
    raw = h.modelStatusToString(ms)
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value, dtype=float) if has_solution else None
    obj = float(info.objective_function_value) if has_solution else None
    is_lp = len(h.getLp().integrality_) == 0  # HiGHS reports mip_dual_bound 0 for an LP
    if is_lp:  # an LP's objective bounds the problem only at its optimum (a simplex iterate's is above it)
        optimal = has_solution and ms == highspy.HighsModelStatus.kOptimal
        bound = grid.ceil(obj) if optimal else None
    else:
        bound = grid.ceil(float(info.mip_dual_bound))
        cutoff = float(h.getOptionValue("objective_bound")[1])
        if bound is not None and math.isfinite(cutoff):
            # HiGHS prunes every node whose bound reaches its cutoff, so all it proves is "nothing below the
            # cutoff"; a solution it reports above the cutoff comes with that solution's value as its "dual
            # bound" ("Optimal 4" on a table whose optimum is 2, cutoff 1.5: tests/test_user_cutoff.py)
            bound = min(bound, grid.ceil(cutoff))
    if ms == highspy.HighsModelStatus.kOptimal and has_solution:
        status = Status.OPTIMAL if grid.gap(obj, bound) == 0 else Status.GAP_LIMIT
    elif ms == highspy.HighsModelStatus.kInfeasible:
        status, x, obj, bound = Status.INFEASIBLE, None, None, None
    elif ms in _LIMITS:
        status = Status.TIME_LIMIT if has_solution else Status.NO_SOLUTION
    else:
        raise SolverError(f"HiGHS ended with model status '{raw}'")
    return status, x, obj, bound, raw


def _set_start(h, hint) -> None:
    if isinstance(hint, Basis):  # an LP's simplex starts from this basis
        members = [highspy.HighsBasisStatus(v) for v in range(5)]
        b = highspy.HighsBasis()
        b.col_status = [members[v] for v in hint.col_status.tolist()]
        b.row_status = [members[v] for v in hint.row_status.tolist()]
        b.valid = True
        h.setBasis(b)
    elif isinstance(hint, tuple):  # sparse (index, value): HiGHS completes the other columns
        idx, val = hint
        h.setSolution(len(idx), np.asarray(idx, dtype=np.int32), np.asarray(val, dtype=float))
    else:
        sol = highspy.HighsSolution()
        sol.col_value = np.asarray(hint, dtype=float)
        sol.value_valid = True
        h.setSolution(sol)


def subscribe_progress(h, send, every: float = 1.0) -> None:
    """Pass HiGHS's incumbent and dual bound to ``send(incumbent=, solver_bound=)``, at most every ``every`` s."""
    last = [0.0]

    def on_interrupt(e):
        now = time.perf_counter()
        if now - last[0] >= every:
            last[0] = now
            send(incumbent=float(e.data_out.mip_primal_bound), solver_bound=float(e.data_out.mip_dual_bound))

    def on_improving(e):
        send(incumbent=float(e.data_out.objective_function_value))

    h.cbMipInterrupt.subscribe(on_interrupt)
    h.cbMipImprovingSolution.subscribe(on_improving)


#: HiGHS's own words for a stop its callback asked for, which it says whoever asked (the pipeline or the user)
HIGHS_INTERRUPTED = "Interrupted by user"


def _stopped(stops: list, why: str, e) -> None:
    """Interrupt HiGHS from a callback, keeping why (HiGHS says "Interrupted by user" whoever asked)."""
    if not stops:
        stops.append(why)
    e.data_in.user_interrupt = True


def _subscribe_user_stop(h, stops: list) -> None:
    """Interrupt HiGHS once the user asked to stop (:mod:`milp_anon.runtime.interrupt`), in any of its loops."""
    def check(e):
        if interrupt.stop_requested():
            _stopped(stops, "interrupted by the user", e)

    for event in (h.cbMipInterrupt, h.cbSimplexInterrupt, h.cbIpmInterrupt):
        event.subscribe(check)


def _subscribe_stop(h, stop: StopAtBound, grid: ObjectiveGrid, stops: list) -> None:
    t_start = time.perf_counter()
    found = [math.inf]  # the best solution's objective (mip_primal_bound is the cutoff before any solution)

    def improving(e):
        found[0] = min(found[0], float(e.data_out.objective_function_value))

    def at_bound(e):
        # HiGHS calls this periodically during branch-and-bound; the interrupt
        # leaves model status Interrupt with the bound reached
        if math.isfinite(stop.known) and math.isfinite(found[0]) and grid.equal(found[0], stop.known):
            # a solution at a bound proven outside the solve: optimal, the rest would re-prove it
            _stopped(stops, f"stopped by the pipeline: a table at the bound {stop.known:g} proven before", e)
            return
        if time.perf_counter() - t_start < stop.after:
            return
        bound = grid.ceil(float(e.data_out.mip_dual_bound))
        if bound is not None and bound >= stop.bound - 1e-9:
            _stopped(stops, f"stopped by the pipeline: its bound reached {stop.bound:g}", e)

    if math.isfinite(stop.known):
        h.cbMipImprovingSolution.subscribe(improving)
    h.cbMipInterrupt.subscribe(at_bound)


def _subscribe_cut_pool(h, pool: dict, stops: list, stop: bool = False) -> None:
    """Keep the cuts HiGHS holds in its LP when its root's separation ends (``kCallbackMipGetCutPool``, called
    once, before the search): ``pool`` gets ``lower``, ``upper`` and the rows as ``start`` (one more than
    the cuts), ``index``, ``value``, on the model's own columns (presolve off). ``stop``: interrupt HiGHS
    at its next check once they are kept."""
    def keep(e):
        d = e.data_out
        n = int(d.cutpool_num_cut)
        # copies: the arrays are HiGHS's memory, freed when the callback returns
        start = np.array(d.cutpool_start, dtype=np.int64)[:n + 1] if n else np.zeros(1, dtype=np.int64)
        pool.update(lower=np.array(d.cutpool_lower, dtype=float)[:n],
                    upper=np.array(d.cutpool_upper, dtype=float)[:n], start=start,
                    index=np.array(d.cutpool_index, dtype=np.int64)[:start[-1]],
                    value=np.array(d.cutpool_value, dtype=float)[:start[-1]])

    def interrupt_after(e):
        if pool:
            _stopped(stops, "stopped by the pipeline once its root's cuts were kept", e)

    h.cbMipGetCutPool.subscribe(keep)
    if stop:
        h.cbMipInterrupt.subscribe(interrupt_after)


def solve_highs(lm, options: SolverOptions, grid: ObjectiveGrid, hint=None, on_improving=None,
                stop_bound: StopAtBound | None = None, on_progress=None,
                checkpoint: float | None = None, cut_pool: dict | None = None,
                stop_at_cut_pool: bool = False) -> SolveOutcome:
    """Solve a :class:`~milp_anon.solvers.model.LinearModel` with HiGHS in this process.

    ``hint``: a start (a full column vector, or ``(indices, values)``; for an LP, a :class:`Basis`);
    ``on_improving``: a callback subscribed to every improving incumbent;
    ``on_progress``: where incumbent and bound go every second (default: a
    progress listener of :mod:`milp_anon.runtime.progress`, if any);
    ``checkpoint`` (an LP under a time limit): HiGHS runs in pieces of that
    many seconds, each continuing from the last basis, and the outcome's
    ``row_dual`` are the multipliers of the best weak-duality bound
    (:mod:`milp_anon.solvers.dual_bound`) seen at the ends of the pieces (the last
    piece's at the optimum), that bound its ``multiplier_bound``: a simplex stopped by the limit can stand at multipliers far
    worse than those it passed (4 QIs, 0.2-closeness (hierarchical): a bound
    of 6,759 in one run, −2,136 in the next). ``checkpoint=math.inf``: one
    piece, its multipliers' bound evaluated at its end (a presolved LP: one
    stopped by its limit returns no multipliers, so pieces gain nothing).
    ``cut_pool`` (a MILP): filled with the cuts in HiGHS's LP at the end of its root's separation
    (:func:`_subscribe_cut_pool`); ``stop_at_cut_pool``: HiGHS is interrupted once it has them.
    """
    t0 = time.perf_counter()  # the limit counts from here: passing a 350 k-column model takes seconds
    h = new_highs()
    apply_options(h, options)
    lm.to_highs(h)
    if on_improving is not None:
        h.cbMipImprovingSolution.subscribe(on_improving)
    stops: list = []  # why a callback interrupted HiGHS, in the pipeline's words
    if stop_bound is not None:
        _subscribe_stop(h, stop_bound, grid, stops)
    if cut_pool is not None:
        _subscribe_cut_pool(h, cut_pool, stops, stop_at_cut_pool)
    if on_progress is not None or progress.listening():
        subscribe_progress(h, on_progress or progress.reporter())  # HiGHS's thread calls it
    if hint is not None:
        _set_start(h, hint)
        if not isinstance(hint, Basis) and FEASIBILITY_JUMP not in dict(options.highs_options):
            # HiGHS's feasibility jump runs before its root and never reads the time limit: 7-8 s on
            # a 389 k-column round (6 QIs on Adult), longer than a 5-s limit; with a start it finds nothing
            h.setOptionValue(FEASIBILITY_JUMP, False)
    if interrupt.armed():
        _subscribe_user_stop(h, stops)
    if options.time_limit is not None and "time_limit" not in dict(options.highs_options):  # the caller's own wins
        h.setOptionValue("time_limit", max(MIN_SOLVE_SECONDS, options.time_limit - (time.perf_counter() - t0)))
    h.HandleUserInterrupt = True
    is_lp = len(h.getLp().integrality_) == 0
    pieces = checkpoint is not None and is_lp and options.time_limit is not None
    if pieces:
        arrays = lm.arrays()
        upper = implied_upper(arrays)
    best, best_dual = -np.inf, None
    while True:
        limit = options.time_limit
        if pieces:  # HiGHS's limit counts the object's total run time, so the piece ends at run time + step
            step = min(checkpoint, options.time_limit - (time.perf_counter() - t0))
            h.setOptionValue("time_limit", h.getRunTime() + max(step, 0.1))
            limit = time.perf_counter() - t0 + max(step, 0.1)
        h.startSolve()
        # short waits: between them this thread runs Python's signal handlers (Ctrl-C asks to stop)
        deadline = None if limit is None else t0 + limit + watchdog_margin(options.time_limit)
        done = cancelled = False
        while not done:
            wait = 0.25 if deadline is None else max(0.0, min(0.25, deadline - time.perf_counter()))
            done, _ = h.wait(wait)
            if not done and ((deadline is not None and time.perf_counter() >= deadline) or interrupt.stop_requested()):
                stops.append("interrupted by the user" if interrupt.stop_requested() else
                             f"stopped by the pipeline {watchdog_margin(options.time_limit):.0f} s past the time "
                             "limit, which HiGHS overran")
                h.cancelSolve()
                h.wait()
                cancelled = True
                break
        if not pieces:
            break
        if h.getInfo().dual_solution_status != 0:
            y = np.asarray(h.getSolution().row_dual, dtype=float)
            value = dual_bound(arrays, y, upper)
            if value > best:
                best, best_dual = value, y
        if cancelled or h.getModelStatus() != highspy.HighsModelStatus.kTimeLimit \
                or time.perf_counter() - t0 >= options.time_limit - 1e-3:
            break
    secs = time.perf_counter() - t0
    status, x, obj, bound, raw = map_status(h, grid)
    if stops and raw == HIGHS_INTERRUPTED:
        raw = stops[0]
    row_dual, multiplier_bound = None, None
    if pieces:
        row_dual, multiplier_bound = best_dual, (best if np.isfinite(best) else None)
    elif is_lp and h.getInfo().dual_solution_status != 0:  # an LP with multipliers
        row_dual = np.asarray(h.getSolution().row_dual, dtype=float)
    basis = None
    if is_lp and h.getInfo().basis_validity == 1:
        b = h.getBasis()
        basis = Basis(np.fromiter((int(v) for v in b.col_status), dtype=np.int8, count=len(b.col_status)),
                      np.fromiter((int(v) for v in b.row_status), dtype=np.int8, count=len(b.row_status)))
    return SolveOutcome(status, x, obj, bound, raw, secs, row_dual=row_dual, multiplier_bound=multiplier_bound,
                        basis=basis)
