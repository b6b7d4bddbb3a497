"""Solver options and the one place where solver statuses become ours.

Status vocabulary of the toolkit:

``optimal``
    HiGHS's own model status is Optimal *and* the gap is zero (the dual bound,
    rounded up where every objective coefficient is integral, reaches the
    objective). PuLP maps a time limit to ``LpStatusOptimal``; we never read
    PuLP's status for HiGHS.
``gap_limit``
    HiGHS stopped at the user's relative gap tolerance ``gap > 0`` with a
    positive gap: a feasible solution, not proven optimal.
``time_limit``
    a limit (time, iterations, interrupt) stopped the solver with a feasible
    incumbent; the bound and gap are reported.
``no_solution``
    a limit stopped the solver before any feasible solution was found.
``infeasible``
    no solution exists (the solver proved it, or a pre-check named why).

Other solvers are reached by their PuLP name (``PULP_CBC_CMD``,
``HiGHS_CMD``, ...). For them the toolkit can only read PuLP's solution
status: ``optimal`` then rests on that solver's own claim at gap 0, and the
bound is reported only when it is the objective itself.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .errors import InputError, SolverError

STATUSES = ("optimal", "gap_limit", "time_limit", "no_solution", "infeasible")

#: HiGHS's MIP presolve default (see the note at _highs_options)
HIGHS_PRESOLVE_DEFAULT = "off"

_ALIASES = {"highs": "HiGHS", "cbc": "PULP_CBC_CMD", "highs_cmd": "HiGHS_CMD", "glpk": "GLPK_CMD"}


@dataclass(frozen=True)
class SolverOptions:
    """How to solve a model.

    Parameters
    ----------
    solver
        A PuLP solver name; ``"HiGHS"`` (default) passes the model to highspy
        in bulk. Aliases: ``highs``, ``cbc``.
    time_limit
        Seconds for the solver (``None``: no limit).
    threads
        Solver threads (``None``: the solver's default).
    gap
        Relative MIP gap at which to stop; 0 (default) proves optimality.
    msg
        Show the solver's log.
    via_pulp
        Route HiGHS through PuLP's own HiGHS interface instead of the bulk
        transfer (same model; slower to load; used to cross-check).
    max_memory_gb
        Refuse to build a model estimated above this size (``None``: 80 % of
        the memory available now).
    presolve
        HiGHS presolve: ``"off"`` (default; see ``HIGHS_PRESOLVE_DEFAULT``)
        or ``"on"``.
    highs_options
        Extra HiGHS options as ``(name, value)`` pairs or a dict, applied
        last (e.g. ``{"presolve": "off"}``).
    isolate
        Run HiGHS in a child process that is killed if it is still running
        ``hard_limit_margin`` after the time limit (HiGHS does not always stop
        at its limit or at an interrupt; see :func:`hard_limit_margin`). The
        incumbents and bounds it reports on the way are kept. ``"auto"``
        (default): with a time limit and at least ``ISOLATE_MIN_COLUMNS``
        columns; ``"always"``; ``"never"``.
    """

    solver: str = "HiGHS"
    time_limit: float | None = None
    threads: int | None = None
    gap: float = 0.0
    msg: bool = False
    via_pulp: bool = False
    max_memory_gb: float | None = None
    presolve: str = HIGHS_PRESOLVE_DEFAULT
    highs_options: tuple = ()
    isolate: str = "auto"

    def __post_init__(self):
        if self.isolate not in ("auto", "always", "never"):
            raise InputError(f"isolate must be 'auto', 'always' or 'never', got {self.isolate!r}")
        if self.presolve not in ("on", "off"):
            raise InputError(f"presolve must be 'on' or 'off', got {self.presolve!r}")
        if isinstance(self.highs_options, dict):
            object.__setattr__(self, "highs_options", tuple(self.highs_options.items()))
        name = _ALIASES.get(str(self.solver).lower(), str(self.solver))
        object.__setattr__(self, "solver", name)
        if self.time_limit is not None and not (self.time_limit > 0 and math.isfinite(self.time_limit)):
            raise InputError(f"time limit must be a positive number of seconds, got {self.time_limit}")
        if self.threads is not None and (int(self.threads) != self.threads or self.threads < 1):
            raise InputError(f"threads must be a whole number >= 1, got {self.threads}")
        if not (0 <= self.gap < 1):
            raise InputError(f"relative gap must be in [0, 1), got {self.gap}")
        if self.max_memory_gb is not None and not self.max_memory_gb > 0:
            raise InputError(f"max memory must be positive, got {self.max_memory_gb}")

    @property
    def is_highs(self) -> bool:
        return self.solver == "HiGHS"


@dataclass
class SolveOutcome:
    """What a solver returned, in the toolkit's vocabulary."""

    status: str
    x: np.ndarray | None
    objective: float | None
    bound: float | None
    solver_status: str
    seconds: float


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """``(objective - bound) / |objective|``; 0 when both are 0; ``None`` if unknown."""
    if objective is None or bound is None:
        return None
    diff = max(0.0, objective - bound)
    if diff <= 1e-9 * max(1.0, abs(objective)):  # fractional node costs: equal up to rounding
        return 0.0
    if abs(objective) <= 1e-9:
        return math.inf
    return diff / abs(objective)


def effective_bound(bound: float | None, integral_objective) -> float | None:
    """The dual bound, rounded up to the grid of feasible objective values.

    ``integral_objective``: ``True`` (every feasible objective is an integer),
    a whole number ``D > 1`` (every feasible objective is a multiple of
    ``1/D``, e.g. generalization costs in halves or thirds), or ``False``.
    """
    if bound is None or not math.isfinite(bound):
        return None
    if integral_objective is True or integral_objective == 1:
        return float(math.ceil(bound - 1e-6))
    if integral_objective:
        d = int(integral_objective)
        return math.ceil(bound * d - 1e-6) / d
    return float(bound)


def objective_grid(costs, max_denominator: int = 10**6):
    """``D`` such that every cost is a multiple of ``1/D`` (1 for integers), or ``False``.

    With integer variables multiplying these costs, every feasible objective
    value is then a multiple of ``1/D``, so a dual bound may be rounded up to
    that grid (HiGHS reports bounds a few 1e-7 below an exact optimum).
    """
    from fractions import Fraction

    d = 1
    for c in np.unique(np.asarray(costs, dtype=float)):
        f = Fraction(float(c)).limit_denominator(max_denominator)
        if abs(float(f) - c) > 1e-12:
            return False
        d = math.lcm(d, f.denominator)
        if d > max_denominator:
            return False
    return d


@dataclass(frozen=True)
class StopAtBound:
    """Stop HiGHS once its dual bound reaches ``bound``, but not before ``after`` seconds of the solve.

    ``after`` lets the solve keep improving its incumbent for a while (the
    bound is already proven); HiGHS still stops by itself when optimal.
    """

    bound: float
    after: float = 0.0


def solve_model(lm, options: SolverOptions, *, integral_objective: bool = True, hint=None,
                stop_bound: "float | StopAtBound | None" = None) -> SolveOutcome:
    """Solve a :class:`~milp_anon.model.LinearModel` and map the status.

    ``hint`` is an optional start handed to HiGHS: a full column vector, or
    ``(indices, values)`` for some columns (HiGHS completes the rest).
    ``stop_bound`` (HiGHS through highspy only; a number or a
    :class:`StopAtBound`): stop as soon as the dual bound, rounded up to the
    objective's grid, reaches it. The outcome is then ``time_limit`` (or
    ``no_solution``) with that bound: the caller learns that no solution
    cheaper than ``stop_bound`` exists, which is all a reduction round needs.
    """
    if stop_bound is not None and not isinstance(stop_bound, StopAtBound):
        stop_bound = StopAtBound(float(stop_bound))
    if options.is_highs and not options.via_pulp:
        import multiprocessing as mp

        isolate = options.isolate == "always" or (
            options.isolate == "auto" and options.time_limit is not None and lm.n_cols >= ISOLATE_MIN_COLUMNS)
        if isolate and mp.current_process().daemon:
            # a daemonic process (e.g. a multiprocessing.Pool worker) cannot start one:
            # only the in-process watchdog applies there
            isolate = False
        if isolate:
            return _solve_highs_isolated(lm, options, integral_objective, hint, stop_bound=stop_bound)
        return _solve_highs(lm, options, integral_objective, hint, stop_bound=stop_bound)
    return _solve_pulp(lm, options, integral_objective)


#: models at least this large are solved in a child process under a time limit (``isolate="auto"``)
ISOLATE_MIN_COLUMNS = 100_000


def hard_limit_margin(time_limit: float) -> float:
    """Seconds past the time limit after which the child process running HiGHS is killed.

    The in-process watchdog interrupts HiGHS ``watchdog_margin`` after the
    limit; HiGHS honours that only where it checks for interrupts (on Adult
    with 6 QIs a 120 s solve returned after 206–244 s), so the process is
    killed ``max(10 s, 10 %)`` after the limit.
    """
    return max(10.0, 0.10 * float(time_limit))


def _isolated_child(conn, lm, options, integral_objective, hint, solve_fn=None, stop_bound=None):
    """Child process: solve, report every improving incumbent, then the final outcome."""
    try:
        def on_improving(e):
            d = e.data_out
            try:
                conn.send(("progress", np.asarray(d.mip_solution, dtype=float), float(d.objective_function_value),
                           float(d.mip_dual_bound)))
            except Exception:  # the parent may be gone; never break the solve
                pass

        out = (solve_fn or _solve_highs)(lm, options, integral_objective, hint, on_improving=on_improving,
                                         stop_bound=stop_bound)
        conn.send(("final", out))
    except BaseException as exc:  # reported, never lost
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _solve_highs_isolated(lm, options, integral_objective, hint, *, solve_fn=None, stop_bound=None) -> SolveOutcome:
    """HiGHS in a spawned child with a hard deadline; the last reported incumbent survives a kill."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_isolated_child,
                       args=(child, lm, options, integral_objective, hint, solve_fn, stop_bound), daemon=True)
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
        return SolveOutcome("no_solution", None, None, None, raw, secs)
    x, obj, dual = latest
    bound = effective_bound(dual, integral_objective) if math.isfinite(dual) else None
    return SolveOutcome("time_limit", x, obj, bound, raw, secs)


#: HiGHS's MIP presolve is off by default. In HiGHS 1.15.1 it returned a wrong
#: "Optimal" on small models of this toolkit twice (objective 2 where brute force,
#: CBC and HiGHS without presolve all give 0): once through the Aggregator rule,
#: once through Forcing row / Sparsify with the Aggregator off. Both models are in
#: ``tests/data/``. ``presolve="on"`` (``--presolve on``) trades that risk for speed.


def _highs_options(h, options: SolverOptions):
    h.setOptionValue("output_flag", bool(options.msg))
    h.setOptionValue("presolve", options.presolve)
    h.setOptionValue("mip_rel_gap", float(options.gap))
    h.setOptionValue("mip_abs_gap", 0.0 if options.gap == 0 else 1e-6)
    if options.time_limit is not None:
        h.setOptionValue("time_limit", float(options.time_limit))
    if options.threads is not None:
        h.setOptionValue("threads", int(options.threads))
    for key, value in options.highs_options:  # the user's own, last
        h.setOptionValue(key, value)


def _map_highs(h, integral_objective: bool, gap_requested: float):
    import highspy

    ms = h.getModelStatus()
    info = h.getInfo()
    raw = h.modelStatusToString(ms)
    S = highspy.HighsModelStatus
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value, dtype=float) if has_solution else None
    obj = float(info.objective_function_value) if has_solution else None
    bound = effective_bound(float(info.mip_dual_bound), integral_objective)
    if ms == S.kOptimal and has_solution:
        if bound is None:  # LP without integers: the LP optimum is the bound
            bound = effective_bound(obj, integral_objective)
        gap = relative_gap(obj, bound)
        status = "optimal" if gap == 0 else "gap_limit"
    elif ms in (S.kInfeasible,):
        status, x, obj, bound = "infeasible", None, None, None
    elif ms in (S.kTimeLimit, S.kIterationLimit, S.kInterrupt, S.kSolutionLimit, S.kMemoryLimit,
                S.kObjectiveBound, S.kObjectiveTarget, S.kHighsInterrupt):
        status = "time_limit" if has_solution else "no_solution"
    else:
        raise SolverError(f"HiGHS ended with model status '{raw}'")
    return status, x, obj, bound, raw


def _solve_highs(lm, options, integral_objective, hint, on_improving=None, stop_bound=None) -> SolveOutcome:
    import highspy

    h = highspy.Highs()
    _highs_options(h, options)
    lm.to_highs(h)
    if on_improving is not None:
        h.cbMipImprovingSolution.subscribe(on_improving)
    if stop_bound is not None:
        t_start = time.perf_counter()

        def at_bound(e):
            # HiGHS calls this periodically during branch-and-bound; the
            # interrupt leaves model status Interrupt with the bound reached
            if time.perf_counter() - t_start < stop_bound.after:
                return
            bound = effective_bound(float(e.data_out.mip_dual_bound), integral_objective)
            if bound is not None and bound >= stop_bound.bound - 1e-9:
                e.data_in.user_interrupt = True

        h.cbMipInterrupt.subscribe(at_bound)
    if hint is not None:
        if isinstance(hint, tuple):  # sparse (index, value): HiGHS completes the other columns
            idx, val = hint
            h.setSolution(len(idx), np.asarray(idx, dtype=np.int32), np.asarray(val, dtype=float))
        else:
            sol = highspy.HighsSolution()
            sol.col_value = np.asarray(hint, dtype=float)
            sol.value_valid = True
            h.setSolution(sol)
    t0 = time.perf_counter()
    if options.time_limit is None:
        h.run()
    else:
        # HiGHS has been seen to run far past its own time_limit (inside the interior-point
        # root of large models, and on a t-closeness model: 226 s for a 120 s limit), so a
        # watchdog interrupts it a margin after the limit; the incumbent is kept.
        h.HandleUserInterrupt = True
        h.startSolve()
        done, _ = h.wait(options.time_limit + watchdog_margin(options.time_limit))
        if not done:
            h.cancelSolve()
            h.wait()
    secs = time.perf_counter() - t0
    status, x, obj, bound, raw = _map_highs(h, integral_objective, options.gap)
    return SolveOutcome(status, x, obj, bound, raw, secs)


def watchdog_margin(time_limit: float) -> float:
    """Seconds past the time limit after which the watchdog interrupts HiGHS."""
    return max(2.0, 0.05 * float(time_limit))


def _solve_pulp(lm, options, integral_objective) -> SolveOutcome:
    import pulp

    if options.solver not in pulp.listSolvers():
        raise InputError(f"unknown solver {options.solver!r}; PuLP knows: {', '.join(pulp.listSolvers())}")
    kwargs = dict(msg=bool(options.msg), timeLimit=options.time_limit, gapRel=options.gap)
    if options.threads is not None:
        kwargs["threads"] = int(options.threads)
    if options.solver == "HiGHS":  # PuLP passes extra keywords to Highs.setOptionValue
        kwargs["presolve"] = options.presolve
        kwargs.update(dict(options.highs_options))
    try:
        solver = pulp.getSolver(options.solver, **kwargs)
    except TypeError:
        kwargs.pop("threads", None)
        solver = pulp.getSolver(options.solver, **kwargs)
    if not solver.available():
        raise InputError(f"solver {options.solver!r} is not available on this machine")
    prob, variables = lm.to_pulp()
    t0 = time.perf_counter()
    try:
        prob.solve(solver)
    except pulp.PulpSolverError as exc:
        raise SolverError(f"{options.solver} failed: {exc}") from None
    secs = time.perf_counter() - t0
    if options.solver == "HiGHS":
        # PuLP's in-process HiGHS: read HiGHS's own status, not PuLP's.
        status, x_h, obj, bound, raw = _map_highs(prob.solverModel, integral_objective, options.gap)
        x = None
        if x_h is not None:
            x = np.array([v.varValue for v in variables], dtype=float)
        return SolveOutcome(status, x, obj, bound, raw, secs)
    raw = f"{pulp.LpStatus[prob.status]} / {pulp.LpSolution[prob.sol_status]}"
    has = prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
    x = np.array([v.varValue if v.varValue is not None else np.nan for v in variables]) if has else None
    if has and np.isnan(x).any():
        x = None
        has = False
    obj = float(pulp.value(prob.objective) or 0.0) if has else None
    if prob.sol_status == pulp.LpSolutionOptimal and options.gap == 0:
        return SolveOutcome("optimal", x, obj, obj, raw, secs)
    if prob.status == pulp.LpStatusInfeasible or prob.sol_status == pulp.LpSolutionInfeasible:
        return SolveOutcome("infeasible", None, None, None, raw, secs)
    if has:
        status = "gap_limit" if prob.sol_status == pulp.LpSolutionOptimal else "time_limit"
        return SolveOutcome(status, x, obj, None, raw, secs)
    return SolveOutcome("no_solution", None, None, None, raw, secs)
