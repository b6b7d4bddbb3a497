"""LP rounding with criteria (milp_anon.search.lp_rounding) and its stage before the whole model
(milp_anon.pipeline.relaxation): the rounding keeps every unit's rows; its tables meet the criteria (independent
verifier) from any split of the units, never cost less than the optimum (brute force); the stage's bound
never exceeds the optimum, and a solve with it is verified and reports it."""

import dataclasses
import math
import time

import highspy
import numpy as np
import pandas as pd
import pytest
from helpers import SENS_HIERARCHY, brute, criteria_for, sensitive_tables
from hypothesis import event, given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.bounds import blocks
from milp_anon.bounds.subgradient import Ascent, second_ascent, second_ascent_job
from milp_anon.formulations import build
from milp_anon.pipeline import relaxation
from milp_anon.pipeline import solve as pipeline
from milp_anon.pipeline.solve import solve as pipeline_solve
from milp_anon.privacy.verify import verify_release
from milp_anon.release.result import Timings
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.search import lns
from milp_anon.search.lp_rounding import round_units, round_with_criteria, slack_lp
from milp_anon.tables.table import SUPPRESSED


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_rounding_keeps_every_units_rows_within_a_row_of_the_lp(data):
    U = data.draw(st.integers(1, 6))
    counts = np.array(data.draw(st.lists(st.integers(1, 9), min_size=U, max_size=U)))
    per = data.draw(st.lists(st.integers(1, 4), min_size=U, max_size=U))
    pair_unit = np.repeat(np.arange(U), per)
    # a split of each unit's rows among its pairs (an LP's assignment rows)
    x = np.concatenate([counts[u] * np.asarray(data.draw(st.lists(st.floats(0.01, 1.0), min_size=n, max_size=n)))
                        / 1.0 for u, n in enumerate(per)])
    share = np.bincount(pair_unit, weights=x)
    x = x * (counts / share)[pair_unit]
    g = round_units(x, pair_unit, counts)
    assert (np.bincount(pair_unit, weights=g, minlength=U) == counts).all()
    assert (g >= np.floor(x + 1e-9)).all() and (g <= np.floor(x + 1e-9) + 1).all()


def test_rounding_refuses_floors_above_a_units_rows():
    assert round_units(np.array([2.0, 2.0]), np.array([0, 0]), np.array([3])) is None


def _frame(seed: int, n: int) -> pd.DataFrame:
    """``n`` random rows: QIs ``a`` (4 values), ``b`` (3 values), sensitive ``s`` (6 values)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.integers(0, 4, n).astype(str), "b": rng.integers(0, 3, n).astype(str),
                         "s": rng.choice(list("uvwxyz"), n)})


def _two_cores() -> bool:
    import os

    return len(os.sched_getaffinity(0)) >= 2


def _instance(frame, qi, criteria):
    table = ma.Table.from_frame(frame, qi, "s")
    request = ma.Request(*criteria)
    instance, _, why = pipeline.prepare(table, request, Timings())
    return table, request, instance, why


def _lp(am):
    return _lp_of(am.lm.relaxed())


def _lp_of(model):
    """HiGHS's optimum of an LP (presolve off): ``(column values, objective)``."""
    h = model.to_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return np.asarray(h.getSolution().col_value), h.getInfo().objective_function_value


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_tables_from_the_lp_and_from_any_split_meet_the_criteria(data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 12), m=(1, 3), k=(1, 3)))
    criteria = [ma.KAnonymity(k), data.draw(criteria_for(frame))]
    table, request, instance, why = _instance(frame, qi, criteria)
    if why:
        return
    am = build(instance, request)
    x, lp = _lp(am)
    best = brute(frame, qi, criteria)
    assert lp <= best + 1e-6  # a relaxation
    weights = np.asarray(data.draw(st.lists(st.integers(0, 4), min_size=am.g.size, max_size=am.g.size))) + 0.5
    # any split of every unit's rows among its pairs, as the assignment rows ask
    per = np.bincount(am.pair_unit, weights=weights, minlength=instance.units.n_units)
    random_split = weights * (instance.units.counts / per)[am.pair_unit]
    for values in (x[am.g], random_split):
        out = round_with_criteria(instance, criteria, am.pair_unit, am.pair_cand, values)
        assert out is not None
        released, groups, cost = out
        v = verify_release(frame, released, qi, criteria, sensitive=["s"])  # raises on a violation
        assert v.cost == cost == int((released[qi].astype(str) == SUPPRESSED).to_numpy().sum())
        assert cost >= best


def test_the_stage_runs_before_the_whole_model_and_reports():
    frame = _frame(3, 60)
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.TCloseness(0.25), criteria_rows="all")
    r = request.solve(table, time_limit=30)
    assert r.verified and r.lp_rounding is not None
    lr = r.lp_rounding
    assert lr.lp_objective is not None and lr.lp_objective <= r.objective + 1e-6
    assert lr.refined is None or lr.refined < lr.rounded  # the refinement is kept only when it gains
    # the slack LP (t-closeness) ran in the time left: a restriction of the LP, its table verified
    assert lr.slack_status is not None and lr.slack_objective is not None
    assert lr.slack_objective >= lr.lp_objective - 1e-6 and lr.slack_rounded is not None
    assert r.objective <= min(lr.rounded, lr.slack_rounded) and "slack LP" in r.summary()
    assert r.bound <= r.objective
    assert "lp_rounding" in r.report() and "LP rounding" in r.summary()
    exact = request.solve(table)  # no time limit: no stage, HiGHS to its optimum
    assert exact.lp_rounding is None and exact.is_optimal
    assert r.bound <= exact.objective <= r.objective
    assert r.is_optimal == (r.objective == exact.objective and r.gap == 0)


def test_the_stages_lp_with_presolve_and_in_pieces_gives_the_same_bound():
    """A small LP runs with presolve in one piece (``Tuning.lp_presolve_max_columns``), a larger one without, in
    pieces: both reach the LP optimum, whose multipliers' bound is the stage's, below the exact optimum."""
    from milp_anon.runtime.grid import ObjectiveGrid

    frame = _frame(4, 60)
    table, request, instance, why = _instance(frame, ["a", "b"], [ma.KAnonymity(3), ma.TCloseness(0.25)])
    assert why is None
    am = build(instance, request)
    solver = ma.SolverOptions(time_limit=60, isolate="never")
    logs = {}
    for cap in (10 ** 9, -1):
        capped = dataclasses.replace(solver, tuning=ma.Tuning(lp_presolve_max_columns=cap))
        _, _, logs[cap] = relaxation.lp_rounding_stage(am, request, capped, ObjectiveGrid(1), None)
    on, off = logs[10 ** 9], logs[-1]
    assert on.lp_presolve and not off.lp_presolve
    exact = request.solve(table).objective
    for log in (on, off):
        assert log.lp_objective is not None and log.lp_bound is not None
        assert abs(log.lp_bound - log.lp_objective) <= 1e-5 * (1 + log.lp_objective) and log.lp_bound <= exact
    assert abs(on.lp_objective - off.lp_objective) <= 1e-6 * (1 + off.lp_objective)


def test_the_whole_model_is_skipped_when_its_root_lp_would_not_finish(monkeypatch):
    """The whole model's root LP runs without presolve: after a presolved LP of ``s`` seconds it is estimated
    at ``PRESOLVE_SPEEDUP · s``, and skipped (the search takes its time) when that exceeds the time left."""
    frame = _frame(6, 40)
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.TCloseness(0.3), criteria_rows="all")
    limit = 30.0
    stage = relaxation.lp_rounding_stage
    for presolved in (True, False):
        def timed(*args, presolved=presolved, **kw):  # the stage as it is, reporting an LP of 0.8 of the limit
            bound, release, log = stage(*args, **kw)
            return bound, release, dataclasses.replace(log, lp_seconds=0.8 * limit, lp_presolve=presolved)

        monkeypatch.setattr(relaxation, "lp_rounding_stage", timed)
        r = request.solve(table, time_limit=limit)
        assert r.verified and r.lp_rounding.model_skipped == presolved
        assert r.bound <= r.objective


def test_where_the_stage_does_not_run():
    t = ma.TCloseness(0.3)
    assert relaxation.unavailable(ma.Request(ma.KAnonymity(2)), ma.SolverOptions(time_limit=5))
    assert relaxation.unavailable(ma.Request(ma.KAnonymity(2), t), ma.SolverOptions())
    assert relaxation.unavailable(ma.Request(ma.KAnonymity(2), t, max_suppressed_records=1),
                                  ma.SolverOptions(time_limit=5))
    assert relaxation.unavailable(ma.Request(ma.KAnonymity(2), t), ma.SolverOptions(time_limit=5)) is None


def test_the_relaxation_has_no_integer_column_and_leaves_the_model_alone():
    frame = pd.DataFrame({"q": list("aabbc"), "s": list("xyxyz")})
    criteria = [ma.KAnonymity(2), ma.LDiversity(2)]
    _, request, instance, _ = _instance(frame, ["q"], criteria)
    am = build(instance, request)
    before = am.lm.n_integer
    assert am.lm.relaxed().n_integer == 0 and am.lm.n_integer == before > 0


def test_an_lp_stopped_early_gives_no_bound():
    """An LP's objective bounds the problem only at its optimum: stopped by a limit, the outcome has none."""
    from milp_anon.runtime.grid import ObjectiveGrid
    from milp_anon.solvers import SolverOptions
    from milp_anon.solvers.highs import solve_highs

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.integers(0, 5, 80).astype(str), "b": rng.integers(0, 4, 80).astype(str),
                          "s": rng.choice(list("uvwxyz"), 80)})
    _, request, instance, _ = _instance(frame, ["a", "b"], [ma.KAnonymity(3), ma.TCloseness(0.2)])
    lp = build(instance, request).lm.relaxed()
    whole = solve_highs(lp, SolverOptions(), ObjectiveGrid(1))
    assert whole.bound is not None and whole.bound <= whole.objective + 1e-9
    early = solve_highs(lp, SolverOptions(highs_options={"simplex_iteration_limit": 1}), ObjectiveGrid(1))
    assert early.bound is None


def test_rounding_refuses_values_that_are_not_finite():
    assert round_units(np.array([np.inf, 1.0]), np.array([0, 0]), np.array([3])) is None


def test_the_search_runs_beside_an_isolated_lp_and_the_result_stays_exact():
    if not _two_cores():
        return  # the search runs beside the LP on a second core only
    frame = _frame(7, 60)
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.TCloseness(0.25), criteria_rows="all")
    r = request.solve(table, time_limit=30, lns=0.5, isolate="always")
    assert r.verified and r.lp_rounding is not None
    search = r.lp_rounding.search
    assert search is not None and search["end"] <= search["start"]
    assert r.lp_rounding.lp_bound is not None and r.bound <= r.objective
    exact = request.solve(table)
    assert r.bound <= exact.objective <= r.objective
    assert r.objective <= search["end"] + 1e-9  # the search's table is kept when it is the better one


def test_the_search_stops_when_asked():
    from milp_anon.release.verified import Release
    from milp_anon.search import lns

    rng = np.random.default_rng(8)
    frame = pd.DataFrame({"a": rng.integers(0, 4, 40).astype(str), "s": rng.choice(list("uvw"), 40)})
    table = ma.Table.from_frame(frame, ["a"], "s")
    request = ma.Request(ma.KAnonymity(2), ma.LDiversity(2))
    whole = frame.copy()
    whole["a"] = SUPPRESSED
    start = Release.verified(table, request, whole)
    best, log = lns.improve(table, request, start, 30.0, ma.SolverOptions(), stop=lambda: True, sub_solve=pipeline_solve)
    assert best is start and log.solved == 0 and log.passes == 0


def test_a_failing_search_stops_the_lp_beside_it_at_once(monkeypatch):
    """The search beside an isolated LP raises: the error comes out now, and the LP's process is stopped
    instead of being waited for until its limit (here a stand-in that never returns)."""
    import time

    from helpers import hanging_solve

    from milp_anon.release.verified import Release
    from milp_anon.runtime.grid import ObjectiveGrid
    from milp_anon.solvers.isolated import solve_isolated

    rng = np.random.default_rng(9)
    frame = pd.DataFrame({"a": rng.integers(0, 4, 40).astype(str), "s": rng.choice(list("uvw"), 40)})
    table, request, instance, _ = _instance(frame, ["a"], [ma.KAnonymity(2), ma.LDiversity(2)])
    am = build(instance, request)
    whole = frame.copy()
    whole["a"] = SUPPRESSED
    start = Release.verified(table, request, whole)
    seen = {}

    def lp_in_a_hanging_process(lp, options, grid, cancel=None, pieces=True):
        seen["cancel"] = cancel
        return solve_isolated(lp, options, grid, solve_fn=hanging_solve, cancel=cancel)

    def failing_search(incumbent, seconds, stop):
        time.sleep(1.0)
        raise RuntimeError("the search failed")

    monkeypatch.setattr(relaxation, "_solve_lp", lp_in_a_hanging_process)
    monkeypatch.setattr(lns, "_cores", lambda: 2)
    t0 = time.perf_counter()
    with pytest.raises(RuntimeError, match="the search failed"):
        relaxation.lp_rounding_stage(am, request, ma.SolverOptions(time_limit=300, isolate="always"),
                                     ObjectiveGrid(1), start, search=failing_search)
    assert time.perf_counter() - t0 < 60  # the LP's share would be 270 s
    assert seen["cancel"] is not None and seen["cancel"].is_set()


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_the_slack_lp_leaves_each_group_a_rows_room_and_its_rounding_meets_the_criteria(data):
    """Equal distance against the table's distribution: every group of the slack LP's optimum is within
    ``max(t − 1/max(s, k), t/2)`` in total variation (computed here from the pair values), ``s`` its size in
    the LP's optimum; only groups the LP opened, or the whole table's, receive rows; the slack LP is a
    restriction (its optimum is at least the LP's), always feasible, and its rounding is verified and never
    below brute force."""
    frame, qi, k = data.draw(sensitive_tables(n=(4, 12), m=(1, 3), k=(1, 3)))
    t = data.draw(st.sampled_from([0.1, 0.2, 0.25, 0.4, 0.5]))
    criteria = [ma.KAnonymity(k), ma.TCloseness(t)]
    table, request, instance, why = _instance(frame, qi, criteria)
    if why:
        return
    am = build(instance, request)
    x, lp = _lp(am)
    slack = slack_lp(am.lm.relaxed(), am, x[am.size_columns], k)
    x2, lp2 = _lp_of(slack)
    assert lp2 >= lp - 1e-6
    C = instance.candidates.n_candidates
    first = np.bincount(am.pair_cand, weights=x[am.g], minlength=C)
    size = np.bincount(am.pair_cand, weights=x2[am.g], minlength=C)
    value = table.sensitive_codes[np.argsort(instance.units.row_unit, kind="stable"), 0][
        np.searchsorted(np.sort(instance.units.row_unit), np.arange(instance.units.n_units))]
    V = len(table.sensitive_values[0])
    P = np.bincount(table.sensitive_codes[:, 0], minlength=V) / table.n
    counts = np.zeros((C, V))
    np.add.at(counts, (am.pair_cand, value[am.pair_unit]), x2[am.g])
    whole = np.flatnonzero(instance.candidates.capacity == table.n)
    assert np.all((first > 1e-9) | (size < 1e-9) | np.isin(np.arange(C), whole))
    for j in np.flatnonzero(size > 1e-6):
        tv = 0.5 * np.abs(counts[j] / size[j] - P).sum()
        assert tv <= max(t - 1.0 / max(first[j], k), t / 2) + 1e-6
    out = round_with_criteria(instance, criteria, am.pair_unit, am.pair_cand, x2[am.g])
    assert out is not None
    released, groups, cost = out
    v = verify_release(frame, released, qi, criteria, sensitive=["s"])  # raises on a violation
    assert v.cost == cost >= brute(frame, qi, criteria)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_restricted_lp_over_any_pair_bounds_is_feasible_and_its_table_verified(data):
    """Whatever the pair bounds, the restricted LP keeps every pair of the whole-table candidate and at most
    about ``Tuning.restricted_share`` of the others (ties kept); it is a restriction of the LP (its optimum is at
    least the LP's), feasible, and its rounding is verified and never below brute force; the stage still
    reports the whole LP's bound, below the optimum."""
    from milp_anon.runtime.grid import ObjectiveGrid

    frame, qi, k = data.draw(sensitive_tables(n=(4, 12), m=(1, 3), k=(1, 3)))
    criteria = [ma.KAnonymity(k), data.draw(st.sampled_from([ma.TCloseness(0.3), ma.LDiversity(2)]))]
    table, request, instance, why = _instance(frame, qi, criteria)
    if why:
        return
    am = build(instance, request)
    c = instance.candidates
    bounds = np.asarray(data.draw(st.lists(st.integers(0, 5), min_size=c.n_pairs, max_size=c.n_pairs)),
                        dtype=float)
    keep = relaxation.restricted_pairs(am, bounds)
    whole = c.capacity == table.n
    if keep is None:
        return
    assert whole.any() and keep[whole[c.pair_cand]].all()
    others = ~whole[c.pair_cand]
    assert np.all(bounds[keep & others] <= np.quantile(bounds, ma.Tuning().restricted_share))
    # the LP "may not finish": the restricted one first
    unfinished = ma.SolverOptions(time_limit=60, isolate="never", tuning=ma.Tuning(lp_presolve_max_columns=-1))
    bound, release, log = relaxation.lp_rounding_stage(am, request, unfinished, ObjectiveGrid(1), None,
                                                       pair_bounds=bounds)
    best = brute(frame, qi, criteria)
    assert log.restricted_status == "Optimal" and log.restricted_rounded is not None
    assert log.restricted_objective >= log.lp_objective - 1e-6
    assert min(log.restricted_rounded, log.restricted_refined or np.inf) >= best
    assert bound <= best and release is not None
    v = verify_release(frame, release.table, qi, criteria, sensitive=["s"])  # raises on a violation
    assert v.cost == release.cost >= best


def test_a_solve_runs_the_restricted_lp_from_its_pair_bounds_when_the_lp_may_not_finish():
    """Through the pipeline: the Lagrangian stage's pair bounds reach the LP stage, which solves the
    restricted LP first when the LP is above ``Tuning.lp_presolve_max_columns`` (here every LP), and not below,
    whatever presolve the user asks for."""
    frame = _frame(8, 60)
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.TCloseness(0.3), criteria_rows="all")
    # the ball's integer block ties this table's pair bounds, so the restriction would keep >= 90 % of the pairs
    # and not run: the plumbing is tested with the necessary-shape blocks
    shapes = ma.Tuning(ball_blocks=False)
    small = request.solve(table, time_limit=30, tuning=shapes).lp_rounding
    assert small.lp_presolve and small.restricted_status is None
    unfinished = dataclasses.replace(shapes, lp_presolve_max_columns=-1)
    r = request.solve(table, time_limit=30, tuning=unfinished)
    lr = r.lp_rounding
    assert r.verified and not lr.lp_presolve and lr.restricted_status == "Optimal"
    assert lr.restricted_objective >= lr.lp_objective - 1e-6 and lr.restricted_rounded >= r.objective
    assert r.bound <= r.objective
    # the LP's size decides, not the presolve asked for: presolve="on" on a large LP still gets it first
    on = request.solve(table, time_limit=30, presolve="on", tuning=unfinished)
    assert on.verified and on.lp_rounding.restricted_status == "Optimal" and on.lp_rounding.lp_presolve


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_restricted_model_replaces_an_lp_that_cannot_raise_the_bound(data):
    """Pair bounds that put an optimal table's pairs first make the restricted LP's optimum at most the
    optimum (the LP of a restriction that holds an optimal solution); with brute force's optimum as the bound
    the stage then skips the LP (no LP bound, the whole model skipped) and solves the MILP over the restricted
    pairs and the start's: it finds the optimum (the restriction holds it), its table verified."""
    from milp_anon.release.verified import Release
    from milp_anon.runtime.grid import ObjectiveGrid
    from milp_anon.search.starts import best_heuristic

    frame, qi, k = data.draw(sensitive_tables(n=(4, 12), m=(1, 3), k=(1, 3)))
    criteria = [ma.KAnonymity(k), data.draw(st.sampled_from([ma.TCloseness(0.3), ma.LDiversity(2),
                                                             ma.LDiversity(2, kind="frequency"),
                                                             ma.PSensitivity(2)]))]
    table, request, instance, why = _instance(frame, qi, criteria)
    if why:
        return
    am = build(instance, request)
    c = instance.candidates
    best = brute(frame, qi, criteria)
    optimum = request.solve(table)
    assert optimum.status == ma.Status.OPTIMAL and optimum.objective == best
    used = relaxation._table_pairs(am, Release.verified(table, request, optimum.table))
    others = np.asarray(data.draw(st.lists(st.integers(1, 5), min_size=c.n_pairs, max_size=c.n_pairs)), dtype=float)
    bounds = np.where(used, 0.0, others)
    if relaxation.restricted_pairs(am, bounds) is None:
        return
    start = best_heuristic(table, request)
    # the LP "may not finish": the restricted one first
    unfinished = ma.SolverOptions(time_limit=60, isolate="never", tuning=ma.Tuning(lp_presolve_max_columns=-1))
    bound, release, log = relaxation.lp_rounding_stage(am, request, unfinished, ObjectiveGrid(1), start,
                                                       pair_bounds=bounds, bound=best)
    assert log.restricted_status == "Optimal" and log.restricted_objective <= best + 1e-6
    assert bound is None and log.lp_objective is None and log.model_skipped and log.model_status == "Optimal"
    assert log.model_objective == best
    if best < start.objective:
        v = verify_release(frame, release.table, qi, criteria, sensitive=["s"])  # raises on a violation
        assert v.cost == release.cost == best
    else:
        assert release is None  # nothing better than the start


def test_a_solve_honours_the_stages_skip_of_the_lp_and_names_the_restricted_model(monkeypatch):
    """Through the pipeline, with the stage told that the LP cannot raise the bound (its decision is checked
    above, from valid bounds): the whole model is skipped too, the release is verified with the relaxations'
    bound below it, ``REPORT.json`` and the summary name the restricted model."""
    frame = _frame(8, 60)
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.LDiversity(2), criteria_rows="all")
    stage = relaxation.lp_rounding_stage
    monkeypatch.setattr(relaxation, "lp_rounding_stage",
                        lambda *a, bound=None, **kw: stage(*a, bound=math.inf, **kw))
    r = request.solve(table, time_limit=30, tuning=ma.Tuning(lp_presolve_max_columns=-1))
    lr = r.lp_rounding
    assert r.verified and lr.lp_status.startswith("skipped") and lr.model_skipped and lr.lp_bound is None
    assert lr.model_status is not None and lr.model_objective >= r.objective and r.bound <= r.objective
    assert "restricted model" in r.summary() and r.report()["lp_rounding"]["model_pairs"] == lr.model_pairs
    assert r.solver_status == ("the whole model skipped (its LP relaxation cannot raise the bound: the restricted "
                               "model ran instead)")
    verify_release(frame, r.table, ["a", "b"], request.criteria, sensitive=["s"])  # raises on a violation


def test_the_slack_lp_needs_closeness_rows():
    frame = pd.DataFrame({"q": list("aabbcc"), "s": list("xyxyzx")})
    _, request, instance, _ = _instance(frame, ["q"], [ma.KAnonymity(2), ma.LDiversity(2)])
    am = build(instance, request)
    assert slack_lp(am.lm.relaxed(), am, np.ones(instance.candidates.n_candidates), 2) is None


def test_the_slack_lp_is_not_started_when_it_would_not_finish(monkeypatch):
    """It takes about as long as the first LP: when that took more than the share of the time left, the
    stage ends without it (here: any time is too much), and the result is the first LP's as before."""
    frame = _frame(3, 60)
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.TCloseness(0.25), criteria_rows="all")
    monkeypatch.setattr(relaxation, "SLACK_START", 0.0)
    r = request.solve(table, time_limit=30)
    lr = r.lp_rounding
    assert r.verified and lr is not None and lr.lp_objective is not None and lr.rounded is not None
    assert lr.slack_status is None and lr.slack_rounded is None and "slack LP" not in r.summary()


def test_the_slack_lps_room_is_one_row_moved_the_least_ground_distance():
    """Each closeness block carries its metric's least distance between two values (equal 1; a hierarchy of
    height H: 1/H for siblings; a line of V values: 1/(V−1)), and the slack LP scales each candidate's size
    coefficient by exactly (t − d/max(s, k)) / t, floored at one half."""
    from helpers import SENS_HIERARCHY

    frame = pd.DataFrame({"q": list("aabbccdd"), "s": list("12341234")})
    H = 2  # SENS_HIERARCHY: leaves 1..4, then low/high, then *; siblings meet one level up, at 1/2
    cases = [(ma.TCloseness(0.4), 1.0), (ma.TCloseness(0.4, distance="hierarchical", hierarchy=SENS_HIERARCHY), 1 / H),
             (ma.TCloseness(0.4, distance="ordered"), 1 / 3)]
    for crit, d in cases:
        _, request, instance, why = _instance(frame, ["q"], [ma.KAnonymity(2), crit])
        assert why is None
        am = build(instance, request)
        (block, t, least), = am.closeness_rows
        assert float(t) == 0.4 and abs(least - d) < 1e-12
        C = instance.candidates.n_candidates
        sizes = np.arange(C, dtype=float) * 3.0  # 0, 3, 6, ...: below k, at k and above
        lp = am.lm.relaxed()
        a, b = lp.arrays(), slack_lp(lp, am, sizes, 2).arrays()
        rows = lp.row_blocks[block]
        col = np.repeat(np.arange(lp.n_cols), np.diff(a["start"]))
        on = (a["index"] >= rows.start) & (a["index"] < rows.start + rows.size) & np.isin(col, am.size_columns)
        j = a["index"][on] - rows.start
        expected = np.maximum(0.4 - d / np.maximum(sizes[j], 2), 0.2) / 0.4
        assert np.allclose(b["value"][on], a["value"][on] * expected)
        assert np.array_equal(b["value"][~on], a["value"][~on])


def _lp_duals(instance, request):
    """``(π, LP)``: the whole model's LP relaxation (presolve off) solved to optimality, its multipliers of the
    assignment rows and its optimum."""
    am = build(instance, request)
    h = am.lm.relaxed().to_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    rows = am.lm.row_blocks["assign"]
    return np.asarray(h.getSolution().row_dual)[rows.start:rows.start + rows.size], h.getInfo().objective_function_value


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_exact_group_blocks_bound_at_least_the_lp_at_its_duals(data):
    """Blocks marked exact (``RequestBlocks.exact``: one criterion's group problem solved exactly) have a
    Lagrangian dual at least the whole model's LP bound: at the LP's optimal multipliers of its assignment rows
    their bound is the LP's optimum or more (each block is the convex hull of its candidate's groups, inside
    the LP's rows for that candidate). This is what lets an unfinished LP be skipped (``Tuning.unfinished_lp_skips``).
    Relaxed blocks (t-closeness, recursive ℓ > 2, ℓ of 1) are never marked exact."""
    from milp_anon.bounds.blocks import request_blocks

    frame, qi, k = data.draw(sensitive_tables(n=(4, 12), m=(1, 3), k=(1, 3)))
    crit = data.draw(criteria_for(frame, ["p", "frequency", "distinct", "recursive", "t-equal", "t-hier"]))
    criteria = [ma.KAnonymity(k), crit]
    table, request, instance, why = _instance(frame, qi, criteria)
    if why:
        return
    rb = request_blocks(instance, request)
    if rb is None:
        return
    relaxed = isinstance(crit, ma.TCloseness) or (isinstance(crit, ma.LDiversity) and crit.kind == "recursive"
                                                   and crit.l != 2)
    assert rb.exact is not relaxed
    event(f"exact={rb.exact}")
    if not rb.exact:
        return
    pi, lp = _lp_duals(instance, request)
    assert rb.prices(pi).bound >= lp - 1e-6 * max(1.0, abs(lp))
    assert lp <= brute(frame, qi, criteria) + 1e-6


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_emd_blocks_bound_at_least_the_lp_at_its_duals(data):
    """t-closeness under the ordered and the hierarchical distance (a given reference too): the blocks with the EMD's
    integer block (``RequestBlocks.with_emd_blocks``: each candidate's group problem itself, over the integers)
    priced at the LP's optimal multipliers of its assignment rows give at least the LP's optimum — each block lies
    at or above its candidate's LP rows — and at most the optimum found by brute force; with no time for the
    integer programs, the LP blocks alone still give at least the LP and at most the integer blocks."""
    from milp_anon.bounds.blocks import request_blocks

    frame, qi, k = data.draw(sensitive_tables(n=(4, 12), m=(1, 3), k=(1, 3)))
    crit = data.draw(criteria_for(frame, ["t-ordered", "t-hier", "t-reference"]))
    if crit.distance_kind not in ("ordered", "hierarchical"):
        return
    criteria = [ma.KAnonymity(k), crit]
    table, request, instance, why = _instance(frame, qi, criteria)
    if why:
        return
    rb = request_blocks(instance, request)
    if rb is None:  # nothing beside the EMD's block: no bound stage (``request_blocks``)
        return
    wider = rb.with_emd_blocks()
    assert wider.has_emd_blocks and not rb.has_emd_blocks and not rb.exact
    pi, lp = _lp_duals(instance, request)
    bound = wider.prices(pi).bound
    event(f"above the LP: {bound > lp + 1e-6}")
    assert lp - 1e-6 * max(1.0, abs(lp)) <= bound <= brute(frame, qi, criteria) + 1e-6
    # no time for the integer programs: every candidate gets its LP block, and they still sum to the LP
    saved = blocks.EMD_PRICING_SECONDS
    try:
        blocks.EMD_PRICING_SECONDS = 0.0
        lp_only = wider.prices(pi).bound
    finally:
        blocks.EMD_PRICING_SECONDS = saved
    assert lp - 1e-6 * max(1.0, abs(lp)) <= lp_only <= bound + 1e-6


def test_the_second_ascent_prices_the_emds_block_at_its_start_with_its_whole_time():
    """A pricing given the whole time to a deadline (``RequestBlocks.until(..., whole=True)``) solves every
    candidate's integer program however short ``EMD_PRICING_SECONDS`` is. On this table (found by a search over
    random ones) the integer programs at the LP's multipliers reach the optimum, 13 (brute force), where the LP blocks
    give the LP's 12.47. The second ascent beside the search (no ``stop``) prices its start so, before its steps;
    asked to stop on demand, or told not to (``whole=False``, or ``Tuning.second_ascent_whole_pricing`` off in a job
    beside the search), it does not,
    and its steps, which see only the LP blocks here, stay at the LP."""
    from milp_anon.bounds.blocks import request_blocks

    frame = pd.DataFrame({"q0": ["1", "2", "0", "2", "0", "1", "2", "0"],
                          "q1": ["1", "1", "0", "0", "0", "1", "0", "1"],
                          "s": ["4", "3", "3", "3", "2", "1", "3", "1"]})
    qi, criteria = ["q0", "q1"], [ma.KAnonymity(3), ma.TCloseness(0.2, distance="hierarchical",
                                                                  hierarchy=SENS_HIERARCHY)]
    expected = brute(frame, qi, criteria)
    assert expected == 13
    table, request, instance, why = _instance(frame, qi, criteria)
    wider = request_blocks(instance, request).with_emd_blocks()
    pi, lp = _lp_duals(instance, request)
    saved = blocks.EMD_BLOCK_SECONDS, blocks.EMD_PRICING_SECONDS
    try:
        blocks.EMD_BLOCK_SECONDS = 10.0  # every program to its end
        full = wider.prices(pi).bound
        blocks.EMD_PRICING_SECONDS = 0.0  # the usual pricing: LP blocks only
        lp_prices = wider.prices(pi)
        whole = wider.until(time.perf_counter() + 60.0, whole=True).prices(pi).bound
        no_deadline = wider.until(None, whole=True).prices(pi).bound
        first = Ascent(pi=pi, prices=lp_prices, start_bound=lp_prices.bound, iterations=0, seconds=0.0)
        asc = second_ascent(wider, pi, first, upper=expected + 3, time_limit=1.0)
        stoppable = second_ascent(wider, pi, first, upper=expected + 3, time_limit=1.0, stop=lambda: False)
        off = second_ascent(wider, pi, first, upper=expected + 3, time_limit=0.5, whole=False)
        # as a process beside the search gets it: the parent's choice in the options it is sent
        job = second_ascent_job((wider, pi, first, expected + 3), ma.SolverOptions(time_limit=1.0),
                                ObjectiveGrid(1))
        job_off = second_ascent_job((wider, pi, first, expected + 3),
                                    ma.SolverOptions(time_limit=0.5,
                                                     tuning=ma.Tuning(second_ascent_whole_pricing=False)),
                                    ObjectiveGrid(1))
    finally:
        blocks.EMD_BLOCK_SECONDS, blocks.EMD_PRICING_SECONDS = saved
    assert lp_prices.bound == pytest.approx(lp) and full == pytest.approx(expected, abs=1e-6)
    assert whole == pytest.approx(full, rel=1e-9) and no_deadline == pytest.approx(lp)
    assert asc.bound == pytest.approx(expected, abs=1e-6) and asc.iterations >= 1 and asc.start_bound == first.bound
    assert stoppable.bound <= lp + 1e-6 and off.bound <= lp + 1e-6
    assert job.bound == pytest.approx(expected, abs=1e-6) and job_off.bound <= lp + 1e-6


def _unfinished_restricted_lp(*args, **kwargs):
    """The restricted LP as the stage sees it when it stops at its time limit (no optimum, no table)."""
    return None, None, dict(restricted_pairs="1 of 2", restricted_status="Time limit reached",
                            restricted_objective=None, restricted_seconds=1.0, restricted_rounded=None,
                            restricted_refined=None, restricted_search=None)


@pytest.mark.parametrize("exact", [True, False])
def test_an_unfinished_restricted_lp_skips_the_lp_under_exact_blocks_only(monkeypatch, exact):
    """The restricted LP did not finish: with exact group blocks (``blocks_exact``) the stage skips the LP
    and the whole model (no LP bound, no table of its own); without, the LP runs and bounds as before."""
    from milp_anon.runtime.grid import ObjectiveGrid

    frame = _frame(8, 40)
    table, request, instance, why = _instance(frame, ["a", "b"], [ma.KAnonymity(3), ma.LDiversity(2)])
    assert why is None
    am = build(instance, request)
    unfinished = ma.Tuning(lp_presolve_max_columns=-1)  # the LP "may not finish"
    monkeypatch.setattr(relaxation, "_restricted_lp", _unfinished_restricted_lp)
    bounds = np.arange(instance.candidates.n_pairs, dtype=float)
    bound, release, log = relaxation.lp_rounding_stage(am, request,
                                                       ma.SolverOptions(time_limit=60, isolate="never",
                                                                        tuning=unfinished),
                                                       ObjectiveGrid(1), None, pair_bounds=bounds, bound=1.0,
                                                       blocks_exact=exact)
    assert log.restricted_status == "Time limit reached"
    if exact:
        assert log.lp_status.startswith("skipped (the restricted LP did not finish") and log.model_skipped
        assert bound is None and log.lp_bound is None and log.lp_objective is None and release is None
    else:
        assert log.lp_status == "Optimal" and not log.model_skipped and bound is not None
    before = dataclasses.replace(unfinished, unfinished_lp_skips=False)  # the switch: the package before
    _, _, log = relaxation.lp_rounding_stage(am, request,
                                             ma.SolverOptions(time_limit=60, isolate="never", tuning=before),
                                             ObjectiveGrid(1), None, pair_bounds=bounds, bound=1.0,
                                             blocks_exact=exact)
    assert log.lp_status == "Optimal"


@pytest.mark.parametrize("criterion", [ma.LDiversity(2), ma.TCloseness(0.3)])
def test_a_solve_gives_an_unfinished_lps_time_to_the_search_under_exact_blocks(monkeypatch, criterion):
    """Through the pipeline, the restricted LP made to stop unfinished: with exact blocks (frequency
    ℓ-diversity) the whole model is skipped and named so, the release verified, the bound below it; with
    relaxed ones (t-closeness) the LP and the whole model run as before."""
    frame = _frame(8, 60)
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), criterion, criteria_rows="all")
    monkeypatch.setattr(relaxation, "_restricted_lp", _unfinished_restricted_lp)
    r = request.solve(table, time_limit=30, tuning=ma.Tuning(lp_presolve_max_columns=-1))
    verify_release(frame, r.table, ["a", "b"], request.criteria, sensitive=["s"])  # raises on a violation
    assert r.verified and r.bound <= r.objective
    lr = r.lp_rounding
    if isinstance(criterion, ma.LDiversity):
        assert lr.lp_status.startswith("skipped") and lr.model_skipped and lr.lp_bound is None
        assert r.solver_status == ("the whole model skipped (its restricted LP did not finish, and the group "
                                   "blocks' dual is at least the LP's)")
    else:
        assert lr.lp_status == "Optimal" and not r.solver_status.startswith("the whole model skipped")


@pytest.mark.parametrize("on", [True, False])
def test_the_search_runs_beside_the_whole_model_and_the_result_stays_exact(on):
    """After the LP stage the whole model runs in its own process with the search beside it
    (``Tuning.search_beside_whole_model``, two cores, ``lns > 0``); its log is the stage's ``whole_search``. The
    result is verified and its bound and table bracket the optimum either way."""
    if not _two_cores():
        return  # the search runs beside the model on a second core only
    table = ma.Table.from_frame(_frame(7, 60), ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.TCloseness(0.25), criteria_rows="all")
    r = request.solve(table, time_limit=30, lns=0.5, isolate="always",
                      tuning=ma.Tuning(search_beside_whole_model=on))
    assert r.verified and r.lp_rounding is not None and not r.lp_rounding.model_skipped
    search = r.lp_rounding.whole_search
    assert (search is not None) is on
    if on:
        assert search["end"] <= search["start"] and r.objective <= search["end"] + 1e-9
    exact = request.solve(table)
    assert r.bound <= exact.objective <= r.objective


def test_the_table_of_the_search_beside_the_whole_model_is_released_when_the_model_finds_none(monkeypatch):
    """The whole model stops without a table (a stand-in); the search beside it (a stand-in returning the
    exact optimum's verified table) improves on the stage's start (the heuristic table: no LP rounding, no
    search beside the LP): that table is released, with a bound at most the optimum."""
    import threading

    from milp_anon.release.verified import Release
    from milp_anon.runtime.status import Status
    from milp_anon.solvers.outcome import SolveOutcome

    if not _two_cores():
        return
    table = ma.Table.from_frame(_frame(14, 60), ["a", "b"], "s")  # heuristic 46, optimum 36
    request = ma.Request(ma.KAnonymity(3), ma.TCloseness(0.25), criteria_rows="all")
    exact = request.solve(table)
    assert exact.status == "optimal"
    best = Release.verified(table, request, exact.table)
    calls = {"model": 0, "improved": []}
    searched = threading.Event()

    def no_table(lm, options, grid, **kw):
        searched.wait(10.0)  # beside the search, the model ends after it (alone, after 10 s)
        calls["model"] += 1
        return SolveOutcome(Status.NO_SOLUTION, None, None, None, "stand-in: no table", 0.0)

    def improve(tbl, req, rel, seconds, solver, stop=None, on_better=None, memory=None, sub_solve=None):
        log = lns.LnsLog(start=rel.objective, end=min(rel.objective, best.objective))
        if rel.objective > best.objective:
            calls["improved"].append(calls["model"])  # how many model solves had ended then
            searched.set()
            return best, log
        return rel, log

    monkeypatch.setattr(pipeline, "solve_model", no_table)
    monkeypatch.setattr(lns, "improve", improve)
    monkeypatch.setattr(relaxation, "_rounded", lambda *a, **k: (None, None, None))
    r = request.solve(table, time_limit=30, lns=0.5, isolate="always",
                      tuning=ma.Tuning(slack_lp=False, search_beside_lp_stage=False, second_ascent=False))
    assert calls["model"] == 1
    assert calls["improved"] == [0]  # one improving search: beside the model, while it ran
    assert r.verified and r.objective == pytest.approx(exact.objective)
    assert r.lp_rounding.whole_search["end"] == pytest.approx(exact.objective)
    assert r.bound is None or r.bound <= exact.objective
