"""The solver-neutral linear model (milp_anon.solvers.model): scaling one row block's coefficients."""

import numpy as np
import pytest

from milp_anon.solvers.model import LinearModel


def _model():
    lm = LinearModel()
    x = lm.add_vars("x", 3, upper=5)
    z = lm.add_vars("z", 2)
    lm.add_rows("a", 2, rows=[0, 0, 1, 1], cols=[x[0], z[0], x[1], z[1]], vals=[1, 2, 3, 4], upper=10)
    lm.add_rows("b", 2, rows=[0, 1, 1], cols=[x[0], x[2], z[1]], vals=[5, 6, 7], lower=1)
    return lm, x, z


def _dense(lm):
    a = lm.arrays()
    A = np.zeros((lm.n_rows, lm.n_cols))
    col = np.repeat(np.arange(lm.n_cols), np.diff(a["start"]))
    A[a["index"], col] = a["value"]
    return A


def test_with_scaled_multiplies_one_blocks_entries_on_the_columns_given_by_its_rows_factors():
    lm, x, z = _model()
    before = _dense(lm)
    out = lm.with_scaled("b", x, np.array([2.0, 0.5]))
    A = _dense(out)
    expected = before.copy()
    expected[2, x[0]] *= 2.0  # block b's row 0
    expected[3, x[2]] *= 0.5  # block b's row 1; z's entry stays
    assert np.array_equal(A, expected)
    assert np.array_equal(_dense(lm), before)  # the model itself is unchanged
    a, b = lm.arrays(), out.arrays()
    for key in ("cost", "lower", "upper", "row_lower", "row_upper", "integer"):
        assert np.array_equal(a[key], b[key])


def test_with_fixed_sets_the_columns_upper_bounds_to_their_lower_and_nothing_else():
    lm, x, z = _model()
    out = lm.with_fixed(np.array([x[1], z[0]]))
    a, b = lm.arrays(), out.arrays()
    expected = a["upper"].copy()
    expected[[x[1], z[0]]] = a["lower"][[x[1], z[0]]]
    assert np.array_equal(b["upper"], expected) and not np.array_equal(a["upper"], expected)
    for key in ("cost", "lower", "row_lower", "row_upper", "integer", "start", "index", "value"):
        assert np.array_equal(a[key], b[key])
    assert out.row_blocks == lm.row_blocks and out.var_blocks == lm.var_blocks


def test_with_scaled_wants_a_factor_per_row():
    lm, x, _ = _model()
    with pytest.raises(ValueError, match="one factor per row"):
        lm.with_scaled("a", x, np.ones(3))
