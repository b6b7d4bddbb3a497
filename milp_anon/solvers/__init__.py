"""Solving a :class:`~milp_anon.solvers.model.LinearModel`: one back end per module.

* :mod:`.options` — :class:`SolverOptions`, :class:`StopAtBound`, the HiGHS option values;
* :mod:`.highs` — HiGHS in this process (bulk transfer, watchdog, stop at a bound);
* :mod:`.isolated` — HiGHS in a child process killed past the limit;
* :mod:`.via_pulp` — any PuLP solver (and PuLP's own HiGHS, for cross-checks);
* :mod:`.outcome` — :class:`SolveOutcome` (and an LP's :class:`Basis`), with statuses of :class:`~milp_anon.runtime.status.Status`.
"""

from __future__ import annotations

from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.solvers.highs import solve_highs
from milp_anon.solvers.isolated import should_isolate, solve_isolated
from milp_anon.solvers.keywords import accepts
from milp_anon.solvers.options import SolverOptions, StopAtBound, highs_option_values
from milp_anon.solvers.outcome import Basis, SolveOutcome
from milp_anon.solvers.via_pulp import solve_pulp

__all__ = ["Basis", "SolveOutcome", "SolverOptions", "StopAtBound", "highs_option_values", "solve_model"]


def solve_model(lm, options: SolverOptions, grid: ObjectiveGrid = ObjectiveGrid(1), *, hint=None,  # noqa: B008 (a frozen value)
                stop_bound: float | StopAtBound | None = None, cancel=None, method=None,
                ceiling=None, hard_end: float | None = None, max_memory_bytes: float | None = None) -> SolveOutcome:
    """Solve ``lm`` under ``options``; bounds are rounded up to ``grid``.

    ``hint`` is an optional start handed to HiGHS: a full column vector, or
    ``(indices, values)`` for some columns (HiGHS completes the rest).
    ``stop_bound`` (HiGHS through highspy only; a number or a
    :class:`StopAtBound`): stop as soon as the dual bound, rounded up to the
    grid, reaches it. The outcome is then ``time_limit`` (or ``no_solution``)
    with that bound: the caller learns that no solution cheaper than
    ``stop_bound`` exists, which is all a reduction round needs.
    ``cancel`` (a :class:`threading.Event`, set by another thread) stops a
    solve in a child process (:func:`~.isolated.solve_isolated`) as at its
    limit; a solve in this process does not read it.
    ``method`` (HiGHS in bulk only; importable by name, e.g. a
    :func:`functools.partial` of :func:`~.root_cuts.solve_by_root_cuts`):
    solves in place of :func:`~.highs.solve_highs`, with its arguments, in
    this process or the child.
    ``ceiling`` (with ``method``): a function giving the cost of the best
    verified table known, which may fall while the solve runs (a search
    beside it); ``method`` receives it as its ``ceiling`` keyword.
    ``hard_end`` (a ``time.perf_counter()`` instant): the caller's end; a
    solve in a child process is killed just after it at the latest
    (:func:`~.isolated.solve_isolated`); a solve in this process does not
    read it.
    ``max_memory_bytes``: what this process and a solve in a child process
    may hold together; the child is killed beyond it (its outcome's
    ``memory_killed``); a solve in this process does not read it.
    """
    if stop_bound is not None and not isinstance(stop_bound, StopAtBound):
        stop_bound = StopAtBound(float(stop_bound))
    if options.in_bulk:
        if should_isolate(options, lm.n_cols):
            return solve_isolated(lm, options, grid, hint, stop_bound=stop_bound, cancel=cancel, solve_fn=method,
                                  ceiling=ceiling if method is not None else None, hard_end=hard_end,
                                  max_memory_bytes=max_memory_bytes)
        if method is not None and ceiling is not None and accepts(method, "ceiling"):
            return method(lm, options, grid, hint, stop_bound=stop_bound, ceiling=ceiling)
        return (method or solve_highs)(lm, options, grid, hint, stop_bound=stop_bound)
    return solve_pulp(lm, options, grid)
