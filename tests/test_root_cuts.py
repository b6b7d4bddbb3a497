"""A MILP solved through its root's cuts (milp_anon.solvers.root_cuts): the cuts' LP, reduced-cost fixing
against a target and the compact MILP keep every solution at most the target, against brute force and
the whole model; the model operations it rests on (LinearModel.with_rows_added / with_columns,
dual_bound.bound_and_reduced_costs); the reduction's rounds solved that way."""

import dataclasses
import functools

import numpy as np
import pytest
from helpers import (
    duplicated_case,
    duplicated_tables,
    every_round_through_root_cuts,
    generalization_cases,
    small_tables,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force, brute_force_k_anonymity
from milp_anon.formulations import read_assignment
from milp_anon.pipeline import solve as pipeline
from milp_anon.release.verified import Release
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status
from milp_anon.solvers import SolverOptions, root_cuts, solve_model
from milp_anon.solvers.dual_bound import bound_and_reduced_costs, implied_upper
from milp_anon.solvers.model import LinearModel
from milp_anon.solvers.root_cuts import solve_by_root_cuts

OPTIONS = SolverOptions(threads=1)
#: steps 2 and 3 even where the root settles the model (with no cuts, then)
FORCED = dataclasses.replace(OPTIONS, tuning=ma.Tuning(return_settled_root=False))


def _model(frame, qi, k, recoding=None):
    table = ma.Table.from_frame(frame, qi)
    request = ma.Request(ma.KAnonymity(k), recoding=recoding, model=ma.ModelOptions(reduction="none"))
    am = pipeline.build_model(table, request)
    grid = ObjectiveGrid.for_objective(request.model.objective, am.instance.candidates.cost)
    return table, request, am, grid


def _released_cost(table, request, am, x):
    """The verified release of the solution ``x`` (its cost recounted from the table)."""
    g, _ = read_assignment(am, x, request.criteria, OPTIONS)
    released, groups, cost = am.release(g)
    return Release.verified(table, request, released, cost=cost, groups=groups).objective


def _dense(lm):
    a = lm.arrays()
    m = np.zeros((lm.n_rows, lm.n_cols))
    col = np.repeat(np.arange(lm.n_cols), np.diff(a["start"]))
    np.add.at(m, (a["index"], col), a["value"])
    return m, a


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_rows_added_and_columns_dropped_are_the_same_matrix(data):
    """with_rows_added appends the rows given row-wise; with_columns keeps the columns asked for, in order."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    n, m, extra = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 5)), data.draw(st.integers(0, 4))
    lm = LinearModel()
    lm.add_vars("x", n, upper=rng.integers(1, 4, n).astype(float), cost=rng.integers(-3, 4, n).astype(float),
                integer=True)
    dense = rng.integers(-2, 3, (m, n)) * (rng.random((m, n)) < 0.6)
    r, c = np.nonzero(dense)
    lm.add_rows("rows", m, r, c, dense[r, c].astype(float), lower=-rng.integers(0, 5, m).astype(float),
                upper=rng.integers(0, 5, m).astype(float))
    cuts = rng.integers(-2, 3, (extra, n)) * (rng.random((extra, n)) < 0.6)
    start = np.concatenate([[0], np.cumsum((cuts != 0).sum(axis=1))])
    cr, cc = np.nonzero(cuts)
    lo, up = -rng.integers(0, 5, extra).astype(float), np.full(extra, np.inf)
    added = lm.with_rows_added("cuts", lo, up, start, cc, cuts[cr, cc].astype(float))
    got, a = _dense(added)
    assert np.array_equal(got, np.vstack([dense, cuts]))
    assert np.array_equal(a["row_lower"][m:], lo) and np.array_equal(a["row_upper"][m:], up)
    assert added.row_blocks["cuts"].start == m and added.row_blocks["cuts"].size == extra
    keep = np.asarray(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    compact = added.with_columns(keep)
    got_c, ac = _dense(compact)
    assert np.array_equal(got_c, np.vstack([dense, cuts])[:, keep])
    assert np.array_equal(ac["cost"], a["cost"][keep]) and np.array_equal(ac["upper"], a["upper"][keep])
    assert np.array_equal(ac["integer"], a["integer"][keep]) and compact.n_rows == added.n_rows


@settings(max_examples=40, deadline=None)
@given(small_tables(n=(5, 10), m=(2, 4), k=(2, 3)), st.data())
def test_every_solution_costs_the_bound_plus_its_reduced_costs(case, data):
    """bound_and_reduced_costs at any multipliers: every feasible point (here: each table's optimum,
    integral) costs at least the bound plus d_j x_j for a column at lower bound 0 with d_j > 0."""
    frame, qi, k = case
    table, request, am, grid = _model(frame, qi, k)
    a = am.lm.arrays()
    out = solve_model(am.lm, OPTIONS, grid)
    lp = solve_model(am.lm.relaxed(), OPTIONS, grid)
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    for y in (lp.row_dual, lp.row_dual + rng.normal(0, 0.5, lp.row_dual.shape)):
        L, d = bound_and_reduced_costs(a, y, implied_upper(a))
        assert L <= out.objective + 1e-6
        pos = (d > 0) & (a["lower"] == 0)
        assert np.all(L + d[pos] * out.x[pos] <= out.objective + 1e-6)
    L, _ = bound_and_reduced_costs(a, lp.row_dual, implied_upper(a))
    assert abs(L - lp.objective) <= 1e-6 * max(1.0, abs(lp.objective))  # the LP's optimum at its duals


def _check_targets(table, request, am, grid, expected):
    """Through the root's cuts (steps 2 and 3 forced), with only solutions below the optimum + a step, below the
    optimum, and from the root's incumbent: the optimum found, nothing below it, the optimum proven."""
    s = grid.step
    told = []  # every bound told on the way (what a killed round keeps) must hold for the whole model
    method = functools.partial(solve_by_root_cuts, integral_assignment=True,
                               on_progress=lambda **f: told.append(f))
    found = method(am.lm, FORCED, grid, below=expected + s)
    assert found.status == Status.OPTIMAL and found.objective == pytest.approx(expected, abs=1e-5)
    assert _released_cost(table, request, am, found.x) == pytest.approx(expected, abs=1e-9)
    none_below = method(am.lm, FORCED, grid, below=expected)
    assert none_below.bound == pytest.approx(expected, abs=1e-9)  # at most: valid; at least: complete
    assert none_below.objective is None or none_below.objective >= expected - 1e-5
    whole = method(am.lm, FORCED, grid)
    assert whole.status == Status.OPTIMAL and whole.objective == pytest.approx(expected, abs=1e-5)
    assert _released_cost(table, request, am, whole.x) == pytest.approx(expected, abs=1e-9)
    # a table known elsewhere (the search beside a round) bounds the target as `below` does
    found_c = method(am.lm, FORCED, grid, ceiling=lambda: expected + s)
    assert found_c.status == Status.OPTIMAL and found_c.objective == pytest.approx(expected, abs=1e-5)
    none_c = method(am.lm, FORCED, grid, ceiling=lambda: expected)
    assert none_c.bound == pytest.approx(expected, abs=1e-9)
    assert none_c.objective is None or none_c.objective >= expected - 1e-5
    if "target" in none_c.root_cuts:
        assert none_c.root_cuts["target"] == pytest.approx(expected - s, abs=1e-9)
    bounds = [f["solver_bound"] for f in told if f.get("solver_bound") is not None]
    finite = [b for b in bounds if not np.isnan(b) and b != -np.inf]
    assert all(b < np.inf and grid.ceil(b) <= expected + 1e-9 for b in finite), (bounds, expected)
    steps = [f["root_cuts"] for f in told if "root_cuts" in f]
    if "cut_bound" in found.root_cuts:  # step 2 ran: its bound and log were told before the compact model
        assert any(st_.get("cut_bound") == found.root_cuts["cut_bound"] for st_ in steps)
    return found.root_cuts


@settings(max_examples=60, deadline=None)
@given(small_tables(n=(5, 11), m=(2, 4), k=(2, 4)))
def test_fixing_keeps_every_solution_up_to_the_target_by_brute_force(case):
    frame, qi, k = case
    expected, _ = brute_force_k_anonymity(frame[qi].to_numpy(), k)
    if expected is None:
        return
    table, request, am, grid = _model(frame, qi, k)
    _check_targets(table, request, am, grid, float(expected))


@settings(max_examples=40, deadline=None)
@given(generalization_cases())
def test_fixing_keeps_every_solution_up_to_the_target_with_hierarchies(case):
    """The same with hierarchies and fractional costs (``lm``, weights in halves): a grid finer than 1."""
    frame, qi, k, rec = case
    expected = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k)], recoding=rec, columns=qi)[0]
    if expected is None:
        return
    table, request, am, grid = _model(frame, qi, k, recoding=rec)
    if not grid.denominator:
        return
    _check_targets(table, request, am, grid, float(expected))


def test_with_real_cuts_the_compact_model_keeps_the_whole_models_optimum(monkeypatch):
    """Tables of 60–140 rows, where HiGHS's root separates cuts: through them the optimum of the whole
    model (solved as usual) is found below it + a step, nothing is found below it, and columns are fixed;
    the same with every compact model solved again through its own root's cuts (``Tuning.root_cuts_again``)."""
    rng = np.random.default_rng(20261128)
    cuts = fixed = nested = 0
    for again in [False] * 12 + [True] * 6:  # then every compact model again through its own root's cuts
        monkeypatch.setattr(root_cuts, "AGAIN_MIN_COLUMNS", 0 if again else 10 ** 9)
        monkeypatch.setattr(root_cuts, "AGAIN_SHARE", 1.0)
        frame, k = duplicated_case(rng)
        qi = list(frame.columns)
        table, request, am, grid = _model(frame, qi, k)
        expected = solve_model(am.lm, OPTIONS, grid)
        assert expected.status == Status.OPTIMAL
        log = _check_targets(table, request, am, grid, expected.objective)
        cuts += log["cuts"] > 0
        fixed += log.get("fixed", 0) > 0
        nested += again and "again" in log
    assert cuts > 0 and fixed > 0 and nested > 0  # the cuts, the fixing and the nesting were exercised


def test_a_ceiling_sent_to_the_child_sets_the_target():
    """Through the root's cuts in a child process (as a round beside the search): the parent's ceiling, the
    optimum's cost, reaches the child, which aims one step below it, finds nothing there and proves the
    optimum as the bound."""
    rng = np.random.default_rng(20261129)
    method = functools.partial(solve_by_root_cuts, integral_assignment=True)
    aimed = 0
    for _ in range(8):
        frame, k = duplicated_case(rng)
        table, request, am, grid = _model(frame, list(frame.columns), k)
        expected = solve_model(am.lm, OPTIONS, grid).objective
        out = solve_model(am.lm, SolverOptions(threads=1, time_limit=60, isolate="always"), grid, method=method,
                          ceiling=lambda: expected)
        assert out.bound == pytest.approx(expected, abs=1e-9)
        assert out.objective is None or out.objective >= expected - 1e-5
        if "target" in out.root_cuts:
            assert out.root_cuts["target"] == pytest.approx(expected - grid.step, abs=1e-9)
            aimed += 1
    assert aimed > 0


@settings(max_examples=60, deadline=None)
@given(small_tables(n=(5, 11), m=(1, 4), k=(2, 4)))
def test_rounds_through_the_root_cuts_equal_brute_force(case):
    """Every round that does not polish solved through its root's cuts (no size threshold, no polish, no LP
    rounding: the rounds stop at their G): the reduction still ends at the optimum, proven."""
    frame, qi, k = case
    expected, _ = brute_force_k_anonymity(frame[qi].to_numpy(), k)
    with pytest.MonkeyPatch.context() as mp:
        tuning = every_round_through_root_cuts(mp, return_settled_root=False)
        r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), reduction="lagrangian", tuning=tuning)
    if expected is None:
        assert r.status == "infeasible"
        return
    assert r.status == "optimal" and r.objective == expected and r.bound == expected


def test_rounds_through_the_root_cuts_equal_the_whole_model(monkeypatch):
    """The same on 15 tables of 60–140 rows against the whole model; some rounds go through the cuts."""
    tuning = every_round_through_root_cuts(monkeypatch)
    through = 0
    for table, k in duplicated_tables(1128, 15):
        whole = ma.anonymize(table, ma.KAnonymity(k), reduction="none")
        red = ma.anonymize(table, ma.KAnonymity(k), reduction="lagrangian", tuning=tuning)
        assert whole.status == red.status == "optimal" and red.objective == whole.objective
        through += sum(rnd.root_cuts is not None for rnd in red.reduction.rounds)
    assert through > 0
