"""R(A) with units split only inside A (milp_anon.formulations.partial_split): the same optimum as R(A) as the
whole model less the rows outside A (the row generation's first form), its solutions dealt out to a solution of
that R(A) with the same cost, starts carried over, and the row generation agreeing with brute force with and
without it."""

import numpy as np
import pandas as pd
import pytest
from helpers import brute, criteria_for, sensitive_tables
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.formulations import build
from milp_anon.formulations.partial_split import PartialSplit, applies
from milp_anon.pipeline import solve as pipeline
from milp_anon.release.result import Timings
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status
from milp_anon.search.starts import whole_table_start
from milp_anon.solvers import SolverOptions, solve_model
from milp_anon.solvers.model import LinearModel


def _model(table, request):
    instance, _, why = pipeline.prepare(table, request, Timings())
    assert not why
    return build(instance, request), ObjectiveGrid.for_objective("cost", instance.candidates.cost)


def _relaxation(am, active):
    """R(A) as the whole model less the criterion rows of the candidates outside A (written here from
    AssignmentModel's row owners, as the row generation did before the partial split)."""
    owner = am.row_candidates(am.criterion_rows)
    keep = np.ones(am.lm.n_rows, dtype=bool)
    keep[am.criterion_rows[(owner >= 0) & ~active[np.maximum(owner, 0)]]] = False
    return am.lm.with_rows(keep)


def _feasible(lm, x, tol=1e-6):
    """Whether ``x`` meets every row and column bound of ``lm``."""
    a = lm.arrays()
    col = np.repeat(np.arange(lm.n_cols), np.diff(a["start"]))
    act = np.bincount(a["index"], weights=a["value"] * x[col], minlength=lm.n_rows)
    return (np.all(act >= a["row_lower"] - tol) and np.all(act <= a["row_upper"] + tol)
            and np.all(x >= a["lower"] - tol) and np.all(x <= a["upper"] + tol))


def _draw(data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 10), k=(1, 3)))
    return frame, qi, [ma.KAnonymity(k), data.draw(criteria_for(frame))]


def _case(data):
    frame, qi, criteria = _draw(data)
    table = ma.Table.from_frame(frame, qi, "s")
    assume(not pipeline.prepare(table, ma.Request(*criteria), Timings())[2])  # refused before any model
    am, grid = _model(table, ma.Request(*criteria))
    C = am.cands.n_candidates
    active = np.array(data.draw(st.lists(st.booleans(), min_size=C, max_size=C)), dtype=bool)
    return frame, qi, criteria, am, grid, active


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_the_partial_split_has_the_optimum_of_the_relaxation(data):
    """For a random A: the same optimum as R(A), and its optimal solution dealt out to units is a solution of
    R(A) of that cost (y integer, links, k, every criterion row of A's candidates)."""
    _, _, criteria, am, grid, active = _case(data)
    request = ma.Request(*criteria)
    relaxed = _relaxation(am, active)
    ps = PartialSplit.build(am, request, active)
    a = solve_model(relaxed, SolverOptions(), grid)
    b = solve_model(ps.lm, SolverOptions(), grid)
    assert a.status == b.status
    if a.status != Status.OPTIMAL:
        assert a.status == Status.INFEASIBLE
        return
    assert b.objective == pytest.approx(a.objective)
    x = ps.to_whole(b.x)
    # the dealt-out point with the criteria's own columns completed: R(A) with y and g fixed is feasible
    fixed = relaxed.arrays()
    lo, up = fixed["lower"].copy(), fixed["upper"].copy()
    lo[am.y] = up[am.y] = np.rint(x[am.y])
    # pinned at the deal: at its integer where it is one up to HiGHS's tolerance (always, for integer pairs),
    # else within that tolerance (HiGHS 1.15.1 called some such ranges infeasible where the integers were not)
    g = x[am.g]
    near = np.abs(g - np.rint(g)) <= 1e-6
    assert near.all() or not am.integer
    lo[am.g] = np.where(near, np.rint(g), np.maximum(g - 1e-6, 0.0))
    up[am.g] = np.where(near, np.rint(g), g + 1e-6)
    pinned = LinearModel(name="pinned", col_cost=[fixed["cost"]], col_lower=[lo], col_upper=[up],
                                  col_integer=[fixed["integer"]], row_lower=[fixed["row_lower"]],
                                  row_upper=[fixed["row_upper"]], entries=relaxed.entries,
                                  var_blocks=dict(relaxed.var_blocks), n_cols=relaxed.n_cols, n_rows=relaxed.n_rows)
    c = solve_model(pinned, SolverOptions(), grid)
    assert c.status == Status.OPTIMAL
    assert c.objective == pytest.approx(b.objective, abs=1e-4)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_whole_table_start_carries_over(data):
    """The whole model's whole-table start, carried over, is feasible in the partial split (its y and its pairs;
    the criteria's auxiliary columns are left to HiGHS)."""
    _, _, criteria, am, _, active = _case(data)
    hint = whole_table_start(am)
    if hint is None:
        return
    ps = PartialSplit.build(am, ma.Request(*criteria), active)
    idx, val = ps.hint(hint)
    x = np.zeros(ps.lm.n_cols)
    x[idx] = val
    # the assignment rows, the type rows, the links and k (rows of y/g/h columns only) hold at the start
    a = ps.lm.arrays()
    cols = np.concatenate([ps.part.y, ps.part.g, ps.y_rest, ps.h])
    mask = np.zeros(ps.lm.n_cols, dtype=bool)
    mask[cols] = True
    col = np.repeat(np.arange(ps.lm.n_cols), np.diff(a["start"]))
    others = np.zeros(ps.lm.n_rows, dtype=bool)
    others[a["index"][~mask[col]]] = True  # rows that also read auxiliary columns
    act = np.bincount(a["index"], weights=a["value"] * x[col], minlength=ps.lm.n_rows)
    ok = (act >= a["row_lower"] - 1e-9) & (act <= a["row_upper"] + 1e-9)
    assert ok[~others].all()
    cost = float(a["cost"] @ x)
    assert cost == pytest.approx(float(am.lm.arrays()["cost"][hint[0]] @ hint[1]))


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_row_generation_with_and_without_the_partial_split_reaches_the_optimum(data):
    """The row generation's release is the brute-force optimum, proven, with the partial split and without."""
    frame, qi, criteria = _draw(data)
    expected = brute(frame, qi, criteria)
    table = ma.Table.from_frame(frame, qi, "s")
    for merge in (True, False):
        r = ma.Request(*criteria, criteria_rows="generated").solve(table, tuning=ma.Tuning(partial_split=merge))
        if expected is None:
            assert r.status == Status.INFEASIBLE
            continue
        assert r.status == Status.OPTIMAL and r.verified
        assert r.objective == pytest.approx(expected)


def test_the_deal_splits_a_type_over_its_units():
    """A hand-made case: two units of one type (sensitive 1 and 2), the type's rows split 3 / 1 between two
    candidates outside A; the deal gives every unit pair at most its unit's rows and keeps the totals."""
    frame = pd.DataFrame({"q0": list("aaaabbbb"), "q1": list("xxxxyyyy"), "s": list("11221122")})
    table = ma.Table.from_frame(frame, ["q0", "q1"], "s")
    request = ma.Request(ma.KAnonymity(2), ma.LDiversity(2, kind="distinct"))
    am, grid = _model(table, request)
    active = np.zeros(am.cands.n_candidates, dtype=bool)
    ps = PartialSplit.build(am, request, active)
    out = solve_model(ps.lm, SolverOptions(), grid)
    x = ps.to_whole(out.x)
    g = x[am.g]
    per_unit = np.bincount(am.pair_unit, weights=g, minlength=am.units.n_units)
    assert per_unit == pytest.approx(am.units.counts.astype(float))
    assert float(am.lm.arrays()["cost"] @ x) == pytest.approx(out.objective)


def test_it_applies_to_the_cost_objective_without_side_rows():
    k = ma.KAnonymity(2)
    assert applies(ma.Request(k, ma.LDiversity(2)))
    assert not applies(ma.Request(k, ma.LDiversity(2), budget=10))
    assert not applies(ma.Request(k, ma.LDiversity(2), max_suppressed_records=1))
    assert not applies(ma.Request(k, ma.LDiversity(2), objective="rows"))
