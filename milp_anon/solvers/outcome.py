"""What one solver run returned, in the toolkit's vocabulary."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from milp_anon.runtime.status import Status

__all__ = ["Basis", "SolveOutcome"]


@dataclass(frozen=True)
class Basis:
    """A simplex basis: HiGHS's status codes (``HighsBasisStatus``) of every column and row, as small integer
    arrays (picklable, so an LP in its own process can hand it back). Passed as an LP's ``hint``, HiGHS
    starts its simplex from it (:func:`milp_anon.solvers.highs.solve_highs`)."""

    col_status: np.ndarray
    row_status: np.ndarray


@dataclass
class SolveOutcome:
    """One solver run.

    ``bound`` is the solver's proven lower bound, already rounded up to the
    objective's grid (:class:`~milp_anon.runtime.grid.ObjectiveGrid`), or ``None``;
    ``x`` the incumbent's column values when there is one; ``solver_status``
    the solver's own words; ``row_dual`` an LP's row multipliers when HiGHS
    has them (at its optimum or stopped by a limit: a dual simplex iterate),
    for :func:`milp_anon.solvers.dual_bound.dual_bound`; ``multiplier_bound`` that
    bound of ``row_dual`` (before the grid), when the solve in pieces
    already evaluated it.
    """

    status: Status
    x: np.ndarray | None
    objective: float | None
    bound: float | None
    solver_status: str
    seconds: float
    row_dual: np.ndarray | None = None
    multiplier_bound: float | None = None
    #: an LP's last simplex basis, when HiGHS has a valid one (a start for a related LP)
    basis: Basis | None = None
    #: what a solve through the root's cuts did (:mod:`milp_anon.solvers.root_cuts`), or None
    root_cuts: dict | None = None
    #: the solve's process was killed at the memory allowed (:func:`~.isolated.solve_isolated`)
    memory_killed: bool = False
    #: what a job run as a solve in a child process (a ``solve_fn`` of :func:`~.isolated.solve_isolated`) returned
    #: beside the solver's facts, for its caller to read (e.g. a column generation's LP, a search's table and log);
    #: the solvers carry it without reading it, so they know nothing of the stages above them
    job: object | None = None
