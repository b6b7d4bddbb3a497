"""The objective grid and its one tolerance policy (milp_anon.runtime.grid)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from milp_anon.runtime.grid import NO_GRID, ObjectiveGrid

GRIDS = st.sampled_from([ObjectiveGrid(1), ObjectiveGrid(2), ObjectiveGrid(3), ObjectiveGrid(73 * 15 * 6),
                         ObjectiveGrid(10**6)])


@settings(max_examples=400)
@given(GRIDS, st.integers(-10**5, 10**7), st.floats(-0.999, 0.999))
def test_ceil_is_a_valid_rounding(grid, i, frac):
    """``ceil(v)`` is a grid value, at least ``v − tol(v)`` (never stronger than the computed bound
    allows) and below ``v + step`` (it rounds up by less than a step)."""
    D = grid.denominator
    v = (i + frac) / D
    c = grid.ceil(v)
    assert abs(c * D - round(c * D)) < 1e-6 * max(1, abs(c * D))
    assert c >= v - grid.tolerance(v) - 1e-12 * max(1, abs(v))
    assert c < v + grid.step
    assert grid.ceil_array(np.array([v]))[0] == c


@settings(max_examples=200)
@given(GRIDS, st.integers(-10**5, 10**7))
def test_exact_grid_values_prove_themselves(grid, i):
    """A bound exactly on the grid, or a hair below it (floating point), proves that grid value."""
    g = i / grid.denominator
    assert grid.ceil(g) == g
    assert grid.ceil(g - 1e-9 * grid.step) == g
    assert grid.gap(g, grid.ceil(g)) == 0.0
    assert grid.gap(g + grid.step, g) > 0  # one step apart is never "equal"


def test_no_grid_and_unknown_bounds():
    assert NO_GRID.ceil(None) is None and ObjectiveGrid(1).ceil(math.inf) is None
    assert 2.4 - 1e-6 < NO_GRID.ceil(2.4) < 2.4
    assert NO_GRID.gap(2.4, NO_GRID.ceil(2.4)) == 0.0 and NO_GRID.gap(2.4, 2.3) > 0
    assert ObjectiveGrid(1).gap(None, 3.0) is None
    assert ObjectiveGrid.for_objective("types", [0.5]) == ObjectiveGrid(1)
    assert ObjectiveGrid.for_objective("cost", [0.5]) == ObjectiveGrid(2)


@settings(max_examples=300)
@given(GRIDS, st.integers(-10**5, 10**7))
def test_the_cutoff_one_step_below_keeps_that_step_and_proves_the_value(grid, i):
    """``cutoff_below(v)`` keeps a solution one step below ``v`` even as computed a tolerance too high, leaves out
    everything a tolerance above that step, and what a solver proves under it (``ceil``) is ``v`` itself."""
    v = i / grid.denominator
    below = v - grid.step
    c = grid.cutoff_below(v)
    assert c >= below + grid.tolerance(below)
    assert c <= below + 2 * grid.tolerance(v) + 1e-12 * max(1, abs(v))
    assert grid.ceil(c) == v
    try:
        NO_GRID.cutoff_below(v)
    except ValueError:
        pass
    else:
        raise AssertionError("a cutoff one step below without a grid")
