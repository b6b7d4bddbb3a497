"""The status vocabulary of the toolkit: the one place where solver outcomes become ours.

``optimal``
    A lower bound reaches the verified cost of the released table. From a
    single HiGHS model: HiGHS's own model status is Optimal *and* its dual
    bound, rounded up to the objective's grid, reaches the objective (PuLP
    maps a time limit to ``LpStatusOptimal``; we never read PuLP's status for
    HiGHS). Through the Lagrangian reduction the bound is composite
    (``formulations/reduction.md``). From another PuLP solver: that solver's
    own claim at gap 0.
``gap_limit``
    stopped at the user's relative gap ``gap > 0`` with a positive gap: a
    verified table, not proven optimal.
``time_limit``
    a limit (time, memory, interrupt) stopped the solve with a verified table;
    the bound and gap are reported.
``no_solution``
    a limit stopped the solve before any verified table existed.
``infeasible``
    no release meets the request (the solver proved it, or a pre-check named why).

:class:`Status` is a :class:`enum.StrEnum`: ``Status.OPTIMAL == "optimal"``, and it
is written to JSON as the plain string.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Status", "counted", "format_gap"]


class Status(StrEnum):
    """Outcome of a solve (see the module docstring)."""

    OPTIMAL = "optimal"
    GAP_LIMIT = "gap_limit"
    TIME_LIMIT = "time_limit"
    NO_SOLUTION = "no_solution"
    INFEASIBLE = "infeasible"

    @property
    def has_table(self) -> bool:
        """Whether a result with this status carries a verified table."""
        return self in (Status.OPTIMAL, Status.GAP_LIMIT, Status.TIME_LIMIT)


def format_gap(gap: float | None) -> str:
    """A relative gap as every line of the toolkit prints it: three significant digits, in percent (``0.935 %``,
    ``12.8 %``, ``0 %``); ``-`` when there is none, ``infinite`` when the bound is not positive."""
    if gap is None:
        return "-"
    if gap == float("inf"):
        return "infinite"
    return f"{100 * gap:.3g} %"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, plural (``plural``, default ``noun + "s"``) unless one: "1 model", "2 models",
    "1,024 records", "1 class"."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
