"""The grid of feasible objective values, and the one tolerance policy for bounds on it.

When every cost is a multiple of ``1/D`` and multiplies an integer count of
rows, every feasible objective value is a multiple of ``1/D`` (``D = 1``:
integers). A proven lower bound may then be rounded up to that grid: HiGHS
reports ``2.9999993`` for an optimum of 3, and a bound of ``16,999.3`` proves
17,000. Every bound of the toolkit — HiGHS's dual bound, the Lagrangian
bound, the reduction's pair thresholds and lower bounds — is rounded here,
and every "are objective and bound equal" question is answered here.

Tolerance policy (one rule): a computed bound ``b`` is trusted down to
``b − tol(b)``, with ``tol(b) = max(1e-6 · step, 1e-7 · max(1, |b|))`` on a
grid, capped at half a step so that an exact bound always proves its grid
value, and ``1e-7 · max(1, |b|)`` without a grid. Subtracting before
rounding only ever weakens a bound. Objective and bound are equal when they
differ by less than half a step on a grid, or by at most ``2 · tol`` without
one (the bound was lowered by ``tol`` once).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["MAX_DENOMINATOR", "NO_GRID", "ObjectiveGrid", "relative_gap"]

#: the finest grid the toolkit recognizes (costs in millionths)
MAX_DENOMINATOR = 10**6
#: relative part of the tolerance: floating-point error of a bound of magnitude |b|
_RELATIVE = 1e-7


@dataclass(frozen=True)
class ObjectiveGrid:
    """Every feasible objective value is a multiple of ``1/denominator`` (``None``: no grid known)."""

    denominator: int | None = 1

    @classmethod
    def of_costs(cls, costs) -> ObjectiveGrid:
        """The grid of sums of integer multiples of ``costs`` (integers for an integer dtype)."""
        costs = np.asarray(costs)
        if np.issubdtype(costs.dtype, np.integer):
            return cls(1)
        d = 1
        for c in np.unique(costs.astype(float)):
            f = Fraction(float(c)).limit_denominator(MAX_DENOMINATOR)
            if abs(float(f) - c) > 1e-12:
                return NO_GRID
            d = math.lcm(d, f.denominator)
            if d > MAX_DENOMINATOR:
                return NO_GRID
        return cls(d)

    @classmethod
    def for_objective(cls, objective: str, costs) -> ObjectiveGrid:
        """The grid of a model's objective: counts (``rows``, ``types``) are integers; ``cost`` follows the costs."""
        return cls(1) if objective != "cost" else cls.of_costs(costs)

    @property
    def step(self) -> float:
        """The distance between neighbouring feasible values (1e-6 without a grid)."""
        return 1.0 / self.denominator if self.denominator else 1e-6

    def tolerance(self, value: float) -> float:
        """How far below a computed bound ``value`` the proven bound is trusted (module docstring)."""
        rel = _RELATIVE * max(1.0, abs(value))
        if not self.denominator:
            return rel
        return min(0.5 * self.step, max(1e-6 * self.step, rel))

    def ceil(self, value: float | None) -> float | None:
        """The smallest grid value at or above ``value − tol(value)``; ``None`` for an unknown bound."""
        if value is None or not math.isfinite(value):
            return None
        lowered = value - self.tolerance(value)
        if not self.denominator:
            return lowered
        return math.ceil(lowered * self.denominator) / self.denominator

    def cutoff_below(self, value: float) -> float:
        """A solver's cutoff that leaves only solutions at least one step below ``value``: the grid value below it
        plus twice :meth:`tolerance`, so a node pruned there holds a bound that, trusted down by its tolerance,
        still lies above that grid value, and :meth:`ceil` of the cutoff is ``value`` again. A grid only: without
        one, nothing separates ``value`` from the values just below it."""
        if not self.denominator:
            raise ValueError("a cutoff one step below needs a grid")
        return value - self.step + 2.0 * self.tolerance(value)

    def ceil_array(self, values: np.ndarray) -> np.ndarray:
        """:meth:`ceil` of every entry (all finite)."""
        values = np.asarray(values, dtype=float)
        rel = _RELATIVE * np.maximum(1.0, np.abs(values))
        if not self.denominator:
            return values - rel
        tol = np.minimum(0.5 * self.step, np.maximum(1e-6 * self.step, rel))
        return np.ceil((values - tol) * self.denominator) / self.denominator

    def equal(self, objective: float, bound: float) -> bool:
        """Whether ``bound`` (rounded by :meth:`ceil`) reaches ``objective``."""
        diff = objective - bound
        if self.denominator:
            return diff < 0.5 * self.step
        return diff <= 2 * self.tolerance(objective)

    def gap(self, objective: float | None, bound: float | None) -> float | None:
        """``(objective − bound) / |objective|``; 0 when they are :meth:`equal`; ``None`` if either is unknown."""
        if objective is None or bound is None:
            return None
        if self.equal(objective, bound):
            return 0.0
        if abs(objective) <= 1e-12:
            return math.inf
        return (objective - bound) / abs(objective)


#: no grid known: bounds are used as computed (less the tolerance)
NO_GRID = ObjectiveGrid(None)


def relative_gap(objective: float | None, bound: float | None, grid: ObjectiveGrid = NO_GRID) -> float | None:
    """``(objective − bound) / |objective|`` on ``grid`` (see :meth:`ObjectiveGrid.gap`)."""
    return grid.gap(objective, bound)
