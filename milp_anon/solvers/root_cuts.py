"""A MILP solved through its root's cuts: HiGHS's root cut pool, the LP with those cuts, reduced-cost fixing
against a target, and the MILP over the columns left.

Problem. ``min c·x`` over a MILP ``M`` whose objective lies on a grid (step ``s``), with a target ``τ``
on it: find a solution costing at most ``τ`` or show there is none. ``τ`` is ``G − s`` in a reduction
round at ``G`` (solutions below ``G`` are what the round asks for), or one step
below the root's incumbent, or below a verified table found beside the solve (``ceiling``), the least of these.

Why. On Adult with 6 QIs and k = 5 HiGHS's root cuts lift the bound from the LP's 11,118.6 to 11,133 of
the 11,134–11,136 needed, and then its search explores 4 nodes in 600 s: every node re-solves an LP over
all 389 k columns, although the root's reduced costs already exclude most of them. Taking the cuts out
of HiGHS and fixing columns outside it leaves a MILP a fraction of the size, with the same cuts.

Method.

1. HiGHS's root on ``M`` (node limit 1, the caller's cutoff and start); its incumbent and bound are
   kept. HiGHS hands over the cuts in its LP when the root's separation ends
   (:func:`~milp_anon.solvers.highs.solve_highs`'s ``cut_pool``). They hold for every solution of ``M``
   below HiGHS's cutoff or incumbent, hence for every solution costing at most ``τ``.
2. The LP of ``M`` with the cuts, and at its row duals ``y`` the weak-duality bound ``L`` and the
   reduced costs ``d`` (:func:`milp_anon.solvers.dual_bound.bound_and_reduced_costs`, evaluated in numpy: nothing
   rests on HiGHS's tolerances). Every solution ``x`` of ``M`` with the cuts has
   ``c·x >= L + d_j x_j`` for a column with lower bound 0 and ``d_j > 0``.
3. A column with lower bound 0, ``d_j > τ − L``, and ``x_j >= 1`` whenever it is not 0 (an integer
   column; or any column when ``integral_assignment``: for fixed integer columns the continuous ones
   have an integral optimum, as the k-anonymity assignment, a transportation problem, does) is 0 in
   every solution costing at most ``τ``: a solution with ``x_j >= 1`` would cost more than ``τ``, and
   (``integral_assignment``) one with a fractional ``x_j`` has an integral twin at most as costly that
   satisfies the cuts too. The MILP over the other columns, with the cuts and the cutoff just above ``τ``
   (:meth:`~milp_anon.runtime.grid.ObjectiveGrid.cutoff_below` ``τ + s``), is
   solved in the time left — itself through its own root's cuts while it stays large and the fixing
   keeps taking a share (``options.tuning.root_cuts_again``): its root, under that cutoff, adds cuts valid for the same
   solutions, and the slack ``τ − L`` narrows.

Bound. Solutions using a fixed column cost more than ``τ``, so at least ``τ + s``; the others at least
the compact MILP's bound ``b`` (``+∞`` when it proves none below its cutoff). So ``M``'s optimum is at least
``max(root bound, ⌈L⌉, min(b, τ + s))``; with a solution at that value, it is optimal.

Cost: the root as HiGHS runs it, one LP with the cuts (seconds at 389 k columns), ``O(nnz)`` for the
fixing, and the compact MILP. Without a grid, without cuts, or when the root already settles the
model, the root's outcome is returned as it is.
"""

from __future__ import annotations

import dataclasses
import math
import time
from types import SimpleNamespace

import numpy as np

from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status
from milp_anon.solvers.dual_bound import MARGIN, bound_and_reduced_costs, implied_upper
from milp_anon.solvers.highs import solve_highs
from milp_anon.solvers.options import SolverOptions, StopAtBound
from milp_anon.solvers.outcome import SolveOutcome

__all__ = ["AGAIN_DEPTH", "AGAIN_MIN_COLUMNS", "AGAIN_SHARE", "ROOT_NODES", "solve_by_root_cuts"]

#: HiGHS's node limit for step 1: the root alone
ROOT_NODES = 1

# HiGHS stops once it hands over its cuts (``options.tuning.stop_at_cut_pool``: its root heuristics after them
# took 113 s on Adult, 6 QIs, k = 5, after 193 s of separation, and found nothing; the reduction's search finds
# its tables), and the root's outcome is returned as it is when it settles the model (``return_settled_root``,
# off in tests only: steps 2 and 3 then run anyway, with no cuts).

#: with ``options.tuning.root_cuts_again``, solve a compact model again through its own root's cuts while it has
#: ``AGAIN_MIN_COLUMNS`` columns or more and the fixing kept at most ``AGAIN_SHARE`` of the columns (each root lifts
#: the cuts' bound a little: 6 QIs, k = 5, 11,133.30 → 11,133.69 on the compact model, so its slack narrows), at
#: most ``AGAIN_DEPTH`` deep
AGAIN_MIN_COLUMNS = 100_000
AGAIN_SHARE = 0.9
AGAIN_DEPTH = 4

#: HiGHS options that belong to step 1 alone
_ROOT_ONLY = ("mip_max_nodes", "objective_bound")


def _without(options: SolverOptions, names, time_limit, extra=()) -> SolverOptions:
    kept = tuple((k, v) for k, v in options.highs_options if k not in names)
    return dataclasses.replace(options, time_limit=time_limit, highs_options=kept + tuple(extra))


def solve_by_root_cuts(lm, options: SolverOptions, grid: ObjectiveGrid, hint=None, on_improving=None,
                       stop_bound: StopAtBound | None = None, *, integral_assignment: bool = False,
                       below: float | None = None, on_progress=None, ceiling=None, depth: int = 0) -> SolveOutcome:
    """Solve ``lm`` (a MILP) as the module docstring says; the outcome's ``root_cuts`` says what each step did.
    Same arguments as :func:`~milp_anon.solvers.highs.solve_highs`; ``integral_assignment``: the continuous
    columns have an integral optimum for fixed integer columns (step 3); ``below``: only solutions costing
    less matter (a round at ``G``), so ``τ`` is at most the grid value below it; ``ceiling``: a function giving
    the cost of a verified table known elsewhere (found beside this solve: it may fall while the root runs),
    read when the root and when the cuts' LP have ended: only cheaper solutions matter either, so ``τ`` is at
    most the grid value below it too; ``depth``: how many compact models led here (:data:`AGAIN_DEPTH` at most)."""
    t0 = time.perf_counter()

    def left():
        return None if options.time_limit is None else max(0.0, options.time_limit - (time.perf_counter() - t0))

    def tell(bound, **fields):  # a bound of ``lm`` and the steps so far reach the caller at once (a kill keeps them)
        if on_progress is not None:
            on_progress(solver_bound=float(bound), root_cuts=dict(log), **fields)

    root, pool, log, done = _root_step(lm, options, grid, hint, on_improving, stop_bound, on_progress)
    if done or not grid.denominator or (left() is not None and left() <= 1.0):
        return root
    s = grid.step
    tau = _target(root, options, grid, below, ceiling)  # a grid value; solutions costing more do not matter
    if not math.isfinite(tau):
        return root
    log["target"] = tau

    # 2. the LP with the cuts
    cut_lp = _cuts_lp(lm, pool, options, grid, left, log)
    if cut_lp is None:
        return root
    lmc, a, L, d = cut_lp
    log["cut_bound"] = float(L)
    bound = max(root.bound if root.bound is not None else -math.inf, grid.ceil(L))
    tell(bound)
    tau = _below_ceiling(tau, ceiling, grid)  # read again: the search beside ran on during the LP
    log["target"] = tau
    if bound > tau:  # nothing costs at most τ: the cuts' LP alone shows it
        return _settled(root, bound, grid, log, seconds=time.perf_counter() - t0)

    # 3. fixing, and the MILP over the columns left
    fixable = (a["lower"] == 0) & (a["integer"] if not integral_assignment else np.ones(lm.n_cols, dtype=bool))
    fix = fixable & (d - MARGIN * (1.0 + np.abs(d)) > tau - L)
    keep = ~fix
    log.update(fixed=int(fix.sum()), kept=int(keep.sum()))
    compact = lmc.with_columns(keep)
    start = _compact_start(lm.n_cols, fix, keep, root.x, hint)

    def full(xc):
        x = np.zeros(lm.n_cols)
        x[keep] = xc
        return x

    outside = tau + s  # what every solution using a fixed column costs at least

    def mapped(e):  # the caller's callback sees whole solutions, and bounds that hold for the whole model
        dual = _whole_bound(bound, float(e.data_out.mip_dual_bound), outside)
        on_improving(SimpleNamespace(data_out=SimpleNamespace(
            mip_solution=full(np.asarray(e.data_out.mip_solution, dtype=float)),
            objective_function_value=e.data_out.objective_function_value, mip_dual_bound=dual)))

    tell(bound)  # with the fixing's counts

    def compact_progress(solver_bound=None, root_cuts=None, **_):
        # its incumbents reach the caller through on_improving
        if solver_bound is not None and not math.isnan(solver_bound):
            if root_cuts is not None:
                log["again"] = root_cuts
            tell(_whole_bound(bound, float(solver_bound), outside))

    rest = left()
    if rest is not None and rest <= 1.0:
        return _settled(root, bound, grid, log, seconds=time.perf_counter() - t0)
    compact_options = _without(options, _ROOT_ONLY, rest, (("objective_bound", grid.cutoff_below(tau + s)),))
    callback = mapped if on_improving is not None else None
    if options.tuning.root_cuts_again and depth < AGAIN_DEPTH and compact.n_cols >= AGAIN_MIN_COLUMNS \
            and keep.sum() <= AGAIN_SHARE * lm.n_cols:
        # still large, and the fixing took a share: the compact model's own root adds cuts, which fix more
        out = solve_by_root_cuts(compact, compact_options, grid, start, on_improving=callback,
                                 stop_bound=stop_bound, integral_assignment=integral_assignment, below=tau + s,
                                 on_progress=compact_progress if on_progress is not None else None,
                                 ceiling=ceiling, depth=depth + 1)
        log["again"] = out.root_cuts
    else:
        out = solve_highs(compact, compact_options, grid, start, on_improving=callback, stop_bound=stop_bound,
                          on_progress=compact_progress if on_progress is not None else None)
    log["compact_seconds"] = round(out.seconds, 3)
    b = math.inf if out.status == Status.INFEASIBLE else (-math.inf if out.bound is None else out.bound)
    bound = _whole_bound(bound, b, outside)
    if out.x is not None and (root.objective is None or out.objective < root.objective - 0.5 * s):
        root = dataclasses.replace(root, x=full(out.x), objective=out.objective)
    return _settled(root, bound, grid, log, seconds=time.perf_counter() - t0, raw=out.solver_status)


def _root_step(lm, options: SolverOptions, grid: ObjectiveGrid, hint, on_improving, stop_bound, on_progress):
    """Step 1, HiGHS's root with its cut pool: ``(root, pool, log, done)``, ``done`` when the root settles the model,
    reaches ``stop_bound`` or gave no cuts; apart from :func:`solve_by_root_cuts` as its first step."""
    pool: dict = {}
    root = solve_highs(lm, _without(options, ("mip_max_nodes",), options.time_limit, (("mip_max_nodes", ROOT_NODES),)),
                       grid, hint, on_improving=on_improving, stop_bound=stop_bound, on_progress=on_progress,
                       cut_pool=pool, stop_at_cut_pool=options.tuning.stop_at_cut_pool)
    log = {"cuts": int(pool["lower"].shape[0]) if pool else 0, "root_bound": root.bound,
           "root_seconds": round(root.seconds, 3)}
    root = dataclasses.replace(root, root_cuts=log)
    settled = root.status in (Status.OPTIMAL, Status.INFEASIBLE, Status.GAP_LIMIT)
    reached = stop_bound is not None and root.bound is not None and root.bound >= stop_bound.bound - 1e-9
    if not options.tuning.return_settled_root and not pool and root.status != Status.INFEASIBLE:
        pool = {"lower": np.zeros(0), "upper": np.zeros(0), "start": np.zeros(1, dtype=np.int64),
                "index": np.zeros(0, dtype=np.int64), "value": np.zeros(0)}
        settled = reached = False
    return root, pool, log, settled or reached or not pool


def _target(root: SolveOutcome, options: SolverOptions, grid: ObjectiveGrid, below, ceiling) -> float:
    """The target ``τ`` (the module docstring's): the least grid value below the caller's cutoff, ``below``, the
    root's incumbent and ``ceiling()``; apart because it reads only these."""
    s = grid.step
    user = dict(options.highs_options)
    tau = math.inf
    if "objective_bound" in user:  # HiGHS prunes above the cutoff: what is left costs at most the grid value at or
        # below it, less its tolerance (a cutoff exactly on the grid may prune that value: the one below)
        cut = float(user["objective_bound"])
        tau = math.floor((cut - grid.tolerance(cut)) / s + 1e-9) * s
    if below is not None and math.isfinite(below):
        tau = min(tau, (math.ceil(below / s - 1e-9) - 1) * s)
    if root.objective is not None:
        tau = min(tau, grid.ceil(root.objective) - s)
    return _below_ceiling(tau, ceiling, grid)


def _cuts_lp(lm, pool: dict, options: SolverOptions, grid: ObjectiveGrid, left, log: dict):
    """Step 2, the LP of ``lm`` with the cuts: ``(lmc, a, L, d)`` (the model with the cuts, its arrays, the bound and
    reduced costs at the LP's duals), ``None`` without duals or a finite ``L``; apart as a step of its own."""
    lmc = lm.with_rows_added("root cuts", pool["lower"], pool["upper"], pool["start"], pool["index"],
                             pool["value"])
    lp = solve_highs(lmc.relaxed(), _without(options, _ROOT_ONLY, left()), grid)
    log["lp_seconds"] = round(lp.seconds, 3)
    if lp.row_dual is None:
        return None
    a = lmc.arrays()
    L, d = bound_and_reduced_costs(a, lp.row_dual, implied_upper(a))
    if not math.isfinite(L):
        return None
    return lmc, a, L, d


def _compact_start(n_cols: int, fix: np.ndarray, keep: np.ndarray, root_x, hint):
    """The compact model's start: the root's incumbent or else the caller's start, if it uses no fixed column."""
    for x in (root_x, hint if isinstance(hint, np.ndarray) else None):
        if x is not None and x.shape == (n_cols,) and not np.any(x[fix] > 0):
            return x[keep]
    return None


def _below_ceiling(tau: float, ceiling, grid: ObjectiveGrid) -> float:
    """``τ``, at most one grid step below the cost ``ceiling()`` of a table found elsewhere (none: ``τ``)."""
    known = float(ceiling()) if ceiling is not None else math.inf
    # a verified table costs as much: only cheaper solutions matter
    return min(tau, grid.ceil(known) - grid.step) if math.isfinite(known) else tau


def _whole_bound(bound: float, b: float, outside: float) -> float:
    """The bound of the whole model from ``bound`` (the root's and the cuts' LP's) and a bound ``b`` of the compact
    model: solutions using a fixed column cost at least ``outside`` (``τ + s``), the others at least ``b``."""
    return max(bound, min(b, outside))


def _settled(root: SolveOutcome, bound: float, grid: ObjectiveGrid, log: dict, seconds: float,
             raw=None) -> SolveOutcome:
    """``root`` (its incumbent, perhaps replaced) with the bound proven, and the ``seconds`` of every step:
    optimal when the bound reaches the incumbent."""
    if root.objective is not None and grid.equal(root.objective, bound):
        status = Status.OPTIMAL
    else:
        status = Status.TIME_LIMIT if root.x is not None else Status.NO_SOLUTION
    log["bound"] = bound
    return dataclasses.replace(root, status=status, bound=bound if math.isfinite(bound) else None,
                               seconds=seconds,
                               solver_status=f"root cuts: {raw or root.solver_status}", root_cuts=log)
