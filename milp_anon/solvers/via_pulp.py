"""Any solver PuLP knows, given the same model as a :class:`pulp.LpProblem`.

For solvers other than HiGHS the toolkit can only read PuLP's solution
status: ``optimal`` then rests on that solver's own claim at gap 0, and the
bound is reported only when it is the objective itself. PuLP's in-process
HiGHS is read through HiGHS's own status (:func:`~milp_anon.solvers.highs.map_status`).
"""

from __future__ import annotations

import time

import highspy
import numpy as np
import pulp

from milp_anon.runtime.errors import SolverError
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status
from milp_anon.solvers.highs import map_status
from milp_anon.solvers.highs_banner import new_highs
from milp_anon.solvers.options import SolverOptions, highs_option_values, pulp_solver_keywords
from milp_anon.solvers.outcome import SolveOutcome

__all__ = ["solve_pulp"]

#: options PuLP's getSolver takes itself (the rest of the HiGHS options are passed through)
_PULP_OWN = ("output_flag", "time_limit", "mip_rel_gap", "mip_abs_gap", "threads")


def _solver(options: SolverOptions):
    kwargs = pulp_solver_keywords(options)
    if options.solver == "HiGHS":  # PuLP passes extra keywords to Highs.setOptionValue
        kwargs.update({k: v for k, v in highs_option_values(options).items() if k not in _PULP_OWN})
        kwargs.update(dict(options.highs_options))  # the user's own, as given
    return pulp.getSolver(options.solver, **kwargs)


def solve_pulp(lm, options: SolverOptions, grid: ObjectiveGrid) -> SolveOutcome:
    """Solve a :class:`~milp_anon.solvers.model.LinearModel` through PuLP with ``options.solver``."""
    solver = _solver(options)
    prob, variables = lm.to_pulp()
    if options.solver == "HiGHS":
        new_highs()  # PuLP makes its own Highs object: this process's banner goes to the null device first
    t0 = time.perf_counter()
    try:
        prob.solve(solver)
    except pulp.PulpSolverError as exc:
        raise SolverError(f"{options.solver} failed: {exc}") from None
    secs = time.perf_counter() - t0
    if options.solver == "HiGHS":
        if options.threads is not None and prob.solverModel.getModelStatus() == highspy.HighsModelStatus.kNotset:
            # PuLP runs HiGHS on the calling thread, whose scheduler keeps its first run's count (highs_banner)
            raise SolverError(f"HiGHS through PuLP refused threads={options.threads}: this thread already ran HiGHS "
                              "at another thread count; give every solve of this process the same threads, or none")
        # PuLP's in-process HiGHS: read HiGHS's own status, not PuLP's.
        status, x_h, obj, bound, raw = map_status(prob.solverModel, grid)
        x = None if x_h is None else np.array([v.varValue for v in variables], dtype=float)
        return SolveOutcome(status, x, obj, bound, raw, secs)
    raw = f"{pulp.LpStatus[prob.status]} / {pulp.LpSolution[prob.sol_status]}"
    has = prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
    x = np.array([v.varValue if v.varValue is not None else np.nan for v in variables]) if has else None
    if has and np.isnan(x).any():
        x, has = None, False
    obj = float(pulp.value(prob.objective) or 0.0) if has else None
    if prob.sol_status == pulp.LpSolutionOptimal and options.gap == 0:
        return SolveOutcome(Status.OPTIMAL, x, obj, obj, raw, secs)
    if prob.status == pulp.LpStatusInfeasible or prob.sol_status == pulp.LpSolutionInfeasible:
        return SolveOutcome(Status.INFEASIBLE, None, None, None, raw, secs)
    if has:
        status = Status.GAP_LIMIT if prob.sol_status == pulp.LpSolutionOptimal else Status.TIME_LIMIT
        return SolveOutcome(status, x, obj, None, raw, secs)
    return SolveOutcome(Status.NO_SOLUTION, None, None, None, raw, secs)
