"""The weak-duality bound of any row multipliers (milp_anon.solvers.dual_bound): never above an LP's optimum
(HiGHS, solved apart) for any multipliers; the optimum itself at HiGHS's optimal ones; the implied upper
bounds never cut off a feasible point (each column maximized over the LP by HiGHS); on the whole model of a
t-closeness instance, a simplex stopped early still bounds the brute-force optimum; the repair of rows
private to an unbounded column (by hand, and valid at random multipliers)."""

import highspy
import numpy as np
import pandas as pd
from helpers import brute
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.formulations import build
from milp_anon.pipeline import solve as pipeline
from milp_anon.release.result import Timings
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.solvers import SolverOptions
from milp_anon.solvers.dual_bound import dual_bound, implied_upper, repaired
from milp_anon.solvers.highs import solve_highs
from milp_anon.solvers.model import LinearModel

INF = np.inf


@st.composite
def linear_programs(draw):
    """A small LP: integer matrix, rows with one or two sides, columns with or without an upper bound."""
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    A = np.array(draw(st.lists(st.integers(-3, 3), min_size=m * n, max_size=m * n)), dtype=float).reshape(m, n)
    lm = LinearModel()
    upper = [draw(st.one_of(st.just(INF), st.integers(0, 6).map(float))) for _ in range(n)]
    cost = draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))
    cols = lm.add_vars("x", n, lower=0.0, upper=np.array(upper), cost=np.array(cost, dtype=float))
    lo, up = [], []
    for _ in range(m):
        a, b = sorted(draw(st.lists(st.integers(-8, 8), min_size=2, max_size=2)))
        kind = draw(st.sampled_from(["le", "ge", "range", "eq"]))
        lo.append(-INF if kind == "le" else float(a if kind != "eq" else b))
        up.append(INF if kind == "ge" else float(b))
    r, c = np.nonzero(A)
    lm.add_rows("r", m, rows=r, cols=cols[c], vals=A[r, c], lower=np.array(lo), upper=np.array(up))
    return lm


def _solve(lm, objective=None):
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    lm.to_highs(h)
    if objective is not None:
        h.changeColsCost(len(objective), np.arange(len(objective), dtype=np.int32), np.asarray(objective, float))
    h.run()
    return h


@settings(max_examples=300, deadline=None)
@given(lm=linear_programs(), data=st.data())
def test_any_multipliers_bound_the_lp_and_optimal_ones_reach_it(lm, data):
    a = lm.arrays()
    up = implied_upper(a)
    assert (up <= a["upper"]).all()
    h = _solve(lm)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return  # infeasible or unbounded: nothing to compare with
    opt = h.getInfo().objective_function_value
    y = np.asarray(data.draw(st.lists(st.floats(-5, 5), min_size=lm.n_rows, max_size=lm.n_rows)))
    assert dual_bound(a, y, up) <= opt + 1e-9
    assert dual_bound(a, y) <= opt + 1e-9
    if np.isfinite(up).all():
        at_optimum = dual_bound(a, np.asarray(h.getSolution().row_dual), up)
        assert opt - 1e-6 * (1 + abs(opt)) <= at_optimum <= opt + 1e-9


@settings(max_examples=200, deadline=None)
@given(lm=linear_programs())
def test_implied_upper_bounds_cut_off_no_feasible_point(lm):
    a = lm.arrays()
    up = implied_upper(a)
    for j in range(lm.n_cols):
        objective = np.zeros(lm.n_cols)
        objective[j] = -1.0  # maximize column j
        h = _solve(lm, objective)
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kOptimal:
            assert h.getSolution().col_value[j] <= up[j] + 1e-7
        elif status == highspy.HighsModelStatus.kUnbounded:
            assert up[j] == INF


def test_a_simplex_stopped_early_still_bounds_the_optimum():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.integers(0, 3, 12).astype(str), "b": rng.integers(0, 2, 12).astype(str),
                          "s": rng.choice(list("uvw"), 12)})
    criteria = [ma.KAnonymity(2), ma.TCloseness(0.3)]
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(*criteria)
    instance, _, why = pipeline.prepare(table, request, Timings())
    assert why is None
    lp = build(instance, request).lm.relaxed()
    a = lp.arrays()
    up = implied_upper(a)
    assert np.isfinite(up).all()  # the criteria's auxiliary columns get bounds from their rows
    whole = solve_highs(lp, SolverOptions(), ObjectiveGrid(1))
    best = brute(frame, ["a", "b"], criteria)
    assert whole.row_dual is not None
    assert whole.objective - 1e-6 <= dual_bound(a, whole.row_dual, up) <= whole.objective <= best + 1e-9
    seen = []
    for limit in (1, 3, 10, 30):
        early = solve_highs(lp, SolverOptions(highs_options={"simplex_iteration_limit": limit}), ObjectiveGrid(1))
        if early.row_dual is not None:
            seen.append(dual_bound(a, early.row_dual, up))
    assert seen and max(seen) <= whole.objective + 1e-9


def _closeness_lp(seed):
    """The LP relaxation of a random 300-row table under k = 3 and 0.15-closeness: ``(lp, arrays, upper)``."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 6, 300).astype(str), "b": rng.integers(0, 5, 300).astype(str),
                          "s": rng.choice(list("uvwxyz"), 300)})
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.TCloseness(0.15))
    instance, _, why = pipeline.prepare(table, request, Timings())
    assert why is None
    lp = build(instance, request).lm.relaxed()
    a = lp.arrays()
    up = implied_upper(a)
    return lp, a, up


def test_an_lp_in_pieces_reaches_the_optimum_and_keeps_valid_multipliers():
    lp, a, up = _closeness_lp(11)
    simplex = {"solver": "simplex"}
    whole = solve_highs(lp, SolverOptions(highs_options=simplex), ObjectiveGrid(1))
    assert whole.status == "optimal"
    # pieces of a millisecond: HiGHS stops and continues from its basis many times, and still ends optimal
    pieces = solve_highs(lp, SolverOptions(time_limit=60, highs_options=simplex), ObjectiveGrid(1), checkpoint=1e-3)
    assert pieces.status == "optimal" and abs(pieces.objective - whole.objective) <= 1e-6 * (1 + whole.objective)
    assert abs(dual_bound(a, pieces.row_dual, up) - whole.objective) <= 1e-5 * (1 + whole.objective)
    assert pieces.multiplier_bound == dual_bound(a, pieces.row_dual, up)  # what the stage reads
    # stopped early: the best multipliers seen bound the optimum
    early = solve_highs(lp, SolverOptions(time_limit=0.01, highs_options=simplex), ObjectiveGrid(1),
                        checkpoint=2e-3)
    if early.status != "optimal" and early.row_dual is not None:
        assert dual_bound(a, early.row_dual, up) <= whole.objective + 1e-9


def test_a_presolved_lp_in_one_piece_gives_the_bound_of_its_multipliers():
    """Presolve on, ``checkpoint=inf``: one piece, the postsolved multipliers' weak-duality bound evaluated
    at its end (what the relaxation stage reads), equal to the LP optimum found without presolve."""
    import math

    lp, a, up = _closeness_lp(12)
    simplex = {"solver": "simplex"}
    plain = solve_highs(lp, SolverOptions(highs_options=simplex), ObjectiveGrid(1))
    assert plain.status == "optimal" and plain.multiplier_bound is None  # no pieces asked: none evaluated
    one = solve_highs(lp, SolverOptions(time_limit=60, presolve="on", highs_options=simplex), ObjectiveGrid(1),
                      checkpoint=math.inf)
    assert one.status == "optimal" and abs(one.objective - plain.objective) <= 1e-6 * (1 + plain.objective)
    assert one.multiplier_bound == dual_bound(a, one.row_dual, up)
    assert abs(one.multiplier_bound - plain.objective) <= 1e-5 * (1 + plain.objective)


def test_the_repair_removes_an_unbounded_columns_negative_reduced_cost():
    # min x  s.t.  v − x >= 0,  v <= 5,  0 <= x <= 1,  v >= 0 with no given upper bound: the optimum is 0.
    lm = LinearModel()
    x = lm.add_vars("x", 1, lower=0.0, upper=1.0, cost=1.0)
    v = lm.add_vars("v", 1, lower=0.0)
    lm.add_rows("def", 1, rows=[0, 0], cols=[v[0], x[0]], vals=[1.0, -1.0], lower=0.0)
    lm.add_rows("cap", 1, rows=[0], cols=[v[0]], vals=[1.0], upper=5.0)
    a = lm.arrays()
    up = implied_upper(a)
    assert up[v[0]] >= 5.0 - 1e-6
    y = np.array([2.0, 0.0])
    # at y: d_v = −2 times v's bound 5 gives −10, d_x = 3 at x = 0; the repair sets the private row's 2 to 0
    assert np.allclose(repaired(a, y), [0.0, 0.0])
    assert abs(dual_bound(a, y, up)) <= 1e-6
    # a row with two unbounded columns is nobody's private row, so nothing moves there
    lm2 = LinearModel()
    w = lm2.add_vars("w", 2, lower=0.0)
    lm2.add_rows("both", 1, rows=[0, 0], cols=w, vals=[1.0, 1.0], lower=1.0)
    assert np.allclose(repaired(lm2.arrays(), np.array([3.0])), [3.0])


@settings(max_examples=300, deadline=None)
@given(lm=linear_programs(), data=st.data())
def test_repaired_multipliers_bound_the_lp_too(lm, data):
    a = lm.arrays()
    h = _solve(lm)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return
    opt = h.getInfo().objective_function_value
    y = np.asarray(data.draw(st.lists(st.floats(-5, 5), min_size=lm.n_rows, max_size=lm.n_rows)))
    r = repaired(a, y)
    # the repair only moves multipliers towards zero
    assert (np.abs(r) <= np.abs(y) + 1e-12).all()
    # valid at the repaired multipliers alone (the bound takes the larger of the two sums)
    from milp_anon.solvers.dual_bound import _sum
    col = np.repeat(np.arange(lm.n_cols), np.diff(a["start"]))
    assert _sum(a, col, r, implied_upper(a)) <= opt + 1e-9
