"""The relaxation bound reported for time-limited models with sensitive criteria (milp_anon.pipeline.solve):
the k-anonymity LP bound, and the Lagrangian bound of the exact group blocks (milp_anon.reduction.block_bounds)."""

import contextlib
import dataclasses
import os
import time

import numpy as np
import pandas as pd
import pytest
from helpers import brute, criteria_for, sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon import reduction
from milp_anon.bounds import blocks, subgradient
from milp_anon.bounds.subgradient import alternating_ascent, second_ascent, second_ascent_job
from milp_anon.formulations import build, read_assignment
from milp_anon.pipeline import solve as pipeline
from milp_anon.privacy.verify import verify_release
from milp_anon.release.result import ModelSize, Timings
from milp_anon.release.verified import Outcome
from milp_anon.runtime.errors import SolverError
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status
from milp_anon.solvers import SolverOptions, solve_model


def _instance_and_grid(table, request):
    instance, _, why = pipeline.prepare(table, request, Timings())
    assert not why
    return instance, ObjectiveGrid.for_objective("cost", instance.candidates.cost)


def _k_bound(table, request, time_limit=5.0):
    """The k-anonymity LP bound alone (what the relaxation bound was before the blocks)."""
    instance, grid = _instance_and_grid(table, request)
    return grid.ceil(reduction.k_anonymity_bounds(instance, request, grid, SolverOptions(), time_limit).bound)


def _relaxation_bound(table, request, time_limit=5.0):
    instance, grid = _instance_and_grid(table, request)
    bound, source, *_ = pipeline._relaxation_bound(instance, request, SolverOptions(time_limit=time_limit),
                                                   grid, Timings())
    return bound, source


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_k_bound_lies_below_the_optimum_with_criteria(data):
    """The bound is valid for the request: never above its optimum (brute force with every criterion).
    It may exceed the k-anonymity optimum over *all* candidates (e.g. 7 against 2 for p = 2 on a table
    of six rows (a,a,1) and one (a,b,2)): only candidates that can host a group meeting the criteria
    are kept, and the LP runs over those."""
    frame, qi, k = data.draw(sensitive_tables(n=(4, 9), k=(2, 3)))
    crit = data.draw(criteria_for(frame))
    criteria = [ma.KAnonymity(k), crit]
    expected = brute(frame, qi, criteria)
    if expected is None:
        return
    table = ma.Table.from_frame(frame, qi, "s")
    bound = _k_bound(table, ma.Request(*criteria))
    assert bound is not None
    assert bound <= expected + 1e-9
    relaxed, source = _relaxation_bound(table, ma.Request(*criteria))
    assert bound - 1e-9 <= relaxed <= expected + 1e-9
    # the source is named from the raw bounds, which may differ by less than a grid step: a bound above
    # the k-anonymity LP's is the blocks', and one named the k-anonymity LP's is that bound
    if relaxed > bound + 1e-9:
        assert source == pipeline.BLOCK_BOUND_SOURCE
    assert source in (pipeline.K_BOUND_SOURCE, pipeline.BLOCK_BOUND_SOURCE)
    if source == pipeline.K_BOUND_SOURCE:
        assert relaxed == pytest.approx(bound)


def _blocks_case(data):
    """A random small table with a criterion that has group blocks, and brute force's optimum:
    ``(request, optimum, instance, grid)``, or ``None`` when no release meets the criteria."""
    frame, qi, k = data.draw(sensitive_tables(n=(4, 9), k=(2, 3)))
    crit = data.draw(criteria_for(frame, kinds=["frequency", "distinct", "recursive", "p", "t-equal", "t-hier",
                                                "t-reference", "t-matrix"]))
    request = ma.Request(ma.KAnonymity(k), crit)
    expected = brute(frame, qi, request.criteria)
    if expected is None:
        return None
    return (request, expected) + _instance_and_grid(ma.Table.from_frame(frame, qi, "s"), request)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_block_pair_bounds_keep_an_optimal_solution(data):
    """Every (type, candidate) pair an optimal solution uses has a block pair bound at or below the optimum
    (so fixing at G = OPT + 1 never removes it), and the block bound lies below the brute-force optimum;
    with t-closeness, at the ball multipliers the ascent ends with."""
    case = _blocks_case(data)
    if case is None:
        return
    request, expected, instance, grid = case
    # the ascent's target: guessed, or a known upper bound at or above the optimum (a table's cost)
    upper = data.draw(st.one_of(st.none(), st.integers(0, 6).map(lambda d: expected + d)))
    pb = reduction.block_bounds(instance, request, grid, SolverOptions(), 5.0, upper=upper)
    if pb.log.block_bound is not None:  # None: ℓ or p of 1, no block beyond k-anonymity's
        assert pb.log.block_bound >= pb.log.block_start - 1e-9
    assert pb.log.lp_bound - 1e-9 <= pb.bound <= expected + 1e-9
    am = build(instance, request)
    out = solve_model(am.lm, SolverOptions(), grid)
    g, _ = read_assignment(am, out.x, request.criteria, SolverOptions())
    assert out.objective == pytest.approx(expected)
    cands, units = instance.candidates, instance.units
    reps = np.diff(np.searchsorted(units.unit_type, np.arange(instance.types.t_in + 1)))[cands.pair_type]
    type_pair = np.repeat(np.arange(cands.n_pairs), reps)  # the type pair of every unit pair
    used = type_pair[np.flatnonzero(g[:am.pair_unit.shape[0]] > 0.5)]
    assert np.all(pb.thresholds[used] <= expected + 1e-9)


def test_the_block_bound_lies_above_the_k_bound_where_the_criteria_bind():
    """Frequency 2-diversity and 3-sensitivity on a 60-row table: the exact blocks lift the bound above the
    k-anonymity LP's over the same candidates (64 → 71 and 71 → 95; derived by running both — the
    frequency k-LP was 50 before the candidates without a frequency-diverse group were pruned), and never
    above the optimum (72 and 97)."""
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    for crit, margin in ((ma.LDiversity(2), 5), (ma.PSensitivity(3), 10)):
        request = ma.Request(ma.KAnonymity(3), crit)
        k_lp = _k_bound(table, request)
        relaxed, source = _relaxation_bound(table, request, time_limit=20.0)
        opt = request.solve(table).objective
        assert k_lp + margin <= relaxed <= opt and source == pipeline.BLOCK_BOUND_SOURCE


def test_the_heuristic_table_is_computed_once_and_is_the_ascents_target(monkeypatch):
    """A timed solve with frequency 2-diversity computes the best heuristic table once, before the bound
    stage, and the ascent steps towards its objective (a verified table's: at or above the optimum)."""
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    request = ma.Request(ma.KAnonymity(3), ma.LDiversity(2))
    tables, targets = [], []
    real_heuristic, real_ascent = pipeline.best_heuristic, reduction.alternating_ascent

    def heuristic(t, *a, **kw):
        if t.n == table.n:  # the solve's own table, not a sub-table of a repair's sub-solve
            tables.append(real_heuristic(t, *a, **kw))
            return tables[-1]
        return real_heuristic(t, *a, **kw)

    def ascent(blocks, *a, upper=None, **kw):
        if blocks.n.sum() == table.n:
            targets.append(upper)
        return real_ascent(blocks, *a, upper=upper, **kw)

    monkeypatch.setattr(pipeline, "best_heuristic", heuristic)
    monkeypatch.setattr(reduction, "alternating_ascent", ascent)
    result = request.solve(table, time_limit=30)
    assert len(tables) == 1 and tables[0] is not None
    assert targets == [tables[0].objective]
    assert targets[0] >= result.objective and result.status == Status.OPTIMAL


def test_ball_multipliers_lift_the_t_closeness_block_bound(monkeypatch):
    """0.15-closeness (equal) with k = 2 on the 60-row table: the blocks of what every close group holds
    give 39.08 (ceil 40), with the ball multipliers the ascent reaches 40.08 (ceil 41); the optimum is 70
    (numbers derived by running both and the exact solve), both ascents starting at the LP's multipliers
    (with the conflict cliques' the ascent starts at 43.9 and both reach 43.92)."""
    # no cliques; the ball's multipliers on the necessary-shape blocks (no ball's integer block)
    options = SolverOptions(tuning=ma.Tuning(cliques=False, ball_blocks=False))
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    request = ma.Request(ma.KAnonymity(2), ma.TCloseness(0.15))
    instance, grid = _instance_and_grid(table, request)
    with_balls = reduction.block_bounds(instance, request, grid, options, 20.0)
    real = reduction.request_blocks
    monkeypatch.setattr(reduction, "request_blocks", lambda i, r: dataclasses.replace(real(i, r), balls=()))
    shapes = reduction.block_bounds(instance, request, grid, options, 20.0)
    assert grid.ceil(shapes.bound) + 1 <= grid.ceil(with_balls.bound) <= request.solve(table).objective


def test_the_balls_integer_block_lifts_the_t_closeness_block_bound_further():
    """The same table and request: the ball's integer block (``Tuning.ball_blocks``), priced once at the first
    ascent's best multipliers, gives a bound at least the necessary-shape blocks' with the ball's multipliers,
    and still at most the optimum; it keeps the ascent's multipliers and holds the ball's block for the later
    pricings. At the whole model's LP
    multipliers of the assignment rows its ``L`` is at least the LP's optimum (each candidate's LP rows are its
    fractional block at a real size, the block's fractional part at every integer size)."""
    import highspy

    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    request = ma.Request(ma.KAnonymity(2), ma.TCloseness(0.15))
    instance, grid = _instance_and_grid(table, request)
    opt = request.solve(table).objective
    no_cliques = ma.Tuning(cliques=False)
    once = reduction.block_bounds(instance, request, grid, SolverOptions(tuning=no_cliques), 20.0)
    shapes = reduction.block_bounds(instance, request, grid,
                                    SolverOptions(tuning=dataclasses.replace(no_cliques, ball_blocks=False)), 20.0)
    assert not shapes.ascent[0].has_ball_blocks and once.ascent[0].has_ball_blocks
    assert shapes.bound - 1e-9 <= once.bound <= opt + 1e-9
    # priced once, it lifts L here (a 20-s stage: the ascent stops by its own rules, the pricing always fits): the
    # bound is L at the ascent's own multipliers with the ball's block (recomputed here), above the plain blocks' L
    b, _, asc = once.ascent
    assert b.has_ball_blocks
    assert b.prices(asc.pi, asc.betas or None).bound == pytest.approx(asc.bound, rel=1e-12)
    plain = dataclasses.replace(b, specs=tuple(spec for spec in b.specs if spec[0] != "ball"))
    assert plain.prices(asc.pi, asc.betas or None).bound < asc.bound
    am = build(instance, request)
    h = am.lm.relaxed().to_highs()
    h.setOptionValue("output_flag", False)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    rows = am.lm.row_blocks["assign"]
    pi = np.asarray(h.getSolution().row_dual)[rows.start:rows.start + rows.size]
    at_lp = blocks.request_blocks(instance, request).with_ball_blocks().prices(pi).bound
    lp = h.getInfo().objective_function_value
    assert lp - 1e-6 * max(1.0, abs(lp)) <= at_lp <= opt + 1e-9


def test_no_k_bound_without_a_time_limit_or_for_k_alone():
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    instance, grid = _instance_and_grid(table, ma.Request(ma.KAnonymity(2), ma.LDiversity(2)))
    untimed = SolverOptions()
    assert pipeline._relaxation_bound(instance, ma.Request(ma.KAnonymity(2), ma.LDiversity(2)), untimed, grid,
                                      Timings()) == (None, None, untimed, None, None, None, None)
    timed = SolverOptions(time_limit=5)
    assert pipeline._relaxation_bound(instance, ma.Request(ma.KAnonymity(2)), timed, grid, Timings()) == \
        (None, None, timed, None, None, None, None)
    budget = ma.Request(ma.KAnonymity(2), ma.LDiversity(2), budget=100)
    assert pipeline._relaxation_bound(instance, budget, timed, grid, Timings())[0] is None


def _adult_like():
    rng = np.random.default_rng(3)
    n = 60
    frame = pd.DataFrame({f"q{i}": rng.choice(list("abcd"), n) for i in range(3)})
    frame["s"] = rng.choice(list("xyz"), n, p=[0.4, 0.35, 0.25])
    return frame, ["q0", "q1", "q2"]


@pytest.mark.parametrize("crit, source", [
    # ordered over 3 values: what every close group holds is vacuous (d_min = 1/2), so no block
    (ma.TCloseness(0.3, distance="ordered", order=["x", "y", "z"]), pipeline.K_BOUND_SOURCE),
    (ma.TCloseness(0.2), pipeline.BLOCK_BOUND_SOURCE),  # >= 2 values, none above 0.6 |G|: 70 against 50
    (ma.LDiversity(2), pipeline.BLOCK_BOUND_SOURCE)])
def test_a_solver_bound_of_zero_is_replaced_by_the_relaxation_bound(monkeypatch, crit, source):
    """A model whose root LP does not finish (simulated: the solver reports bound 0 at its time limit)
    ends with the relaxation bound, named as the bound's source: the k-anonymity LP bound where no
    criterion has a block, the blocks' for ℓ-diversity and equal-distance t-closeness; the table is
    still verified."""
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    real = pipeline.solve_model

    def stopped_at_root(lm, options, grid, **kw):
        out = real(lm, options, grid, **kw)
        return dataclasses.replace(out, status=Status.TIME_LIMIT, bound=0.0)

    monkeypatch.setattr(pipeline, "solve_model", stopped_at_root)
    # the whole model at once (criteria_rows="all"): row generation has its own test (test_row_generation.py)
    r = ma.anonymize(table, ma.KAnonymity(3), crit, time_limit=30, criteria_rows="all")
    request = ma.Request(ma.KAnonymity(3), crit)
    k_lp = _k_bound(table, request)
    assert r.status == ("optimal" if r.bound >= r.objective else "time_limit")
    if source == pipeline.K_BOUND_SOURCE:
        assert r.bound == pytest.approx(k_lp) and r.bound > 0
    else:
        assert r.bound > k_lp
    assert r.bound_source == source and r.report()["bound_source"] == r.bound_source
    assert source in r.summary()
    assert r.verified and r.bound <= r.objective

    monkeypatch.setattr(pipeline, "solve_model", real)
    plain = ma.anonymize(table, ma.KAnonymity(3), crit, time_limit=30, criteria_rows="all")
    assert plain.status == "optimal" and plain.bound_source is None and plain.bound == plain.objective
    assert 0 < r.bound <= plain.objective



def _ascended_case(data):
    """:func:`_blocks_case` with the bound stage run on it (the group blocks' first ascent, 5 s at most):
    ``(request, optimum, instance, grid, pair bounds)``, or ``None`` when no release meets the criteria or no
    criterion adds a block beyond k-anonymity's (ℓ or p of 1)."""
    case = _blocks_case(data)
    if case is None:
        return None
    request, expected, instance, grid = case
    pb = reduction.block_bounds(instance, request, grid, SolverOptions(), 5.0)
    return None if pb.ascent is None else (request, expected, instance, grid, pb)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_second_ascent_stays_below_the_optimum(data):
    """The second ascent from the bound stage's start (subgradient.second_ascent), towards a table's cost at or
    above the optimum: its bound never falls below the first ascent's and never exceeds the brute-force
    optimum, for every criterion with group blocks (t-closeness: with its ball multipliers too)."""
    case = _ascended_case(data)
    if case is None:
        return
    request, expected, instance, grid, pb = case
    blocks, pi0, first = pb.ascent
    upper = expected + data.draw(st.integers(0, 6))
    again = second_ascent(blocks, pi0, first, upper=upper, time_limit=0.2)
    assert again.start_bound == first.bound
    assert first.bound - 1e-9 <= again.bound <= expected + 1e-9
    assert again.prices.bound == pytest.approx(again.bound)
    assert len(again.betas) == len(first.betas) == len(blocks.balls)
    # as the job of a process beside the search: each better bound told, the target lowered to the search's
    # tables (here the optimum's cost) at each restart
    told = []
    out = second_ascent_job((blocks, pi0, first, upper + 50), SolverOptions(time_limit=0.2), grid,
                            on_progress=lambda **f: told.append(f["solver_bound"]), ceiling=lambda: expected)
    assert first.bound - 1e-9 <= out.bound <= expected + 1e-9
    assert out.job["start"] == first.bound and out.job["bound"] == out.bound
    assert told == sorted(told) and all(first.bound < b <= out.bound for b in told)
    assert (told[-1] == out.bound) if told else out.bound == first.bound


@contextlib.contextmanager
def _priced_points():
    """Every point ``(π, β)`` at which a :class:`~milp_anon.bounds.blocks.RequestBlocks` is priced meanwhile, in order
    (``β`` all 0 written as none: the blocks' start)."""
    seen, real = [], blocks.RequestBlocks.prices

    def recorded(self, pi, betas=None):  # the ball steps' pricings too: they call it
        zero = not any(np.asarray(b).any() for b in (betas or ()))
        seen.append((np.asarray(pi).tobytes(), () if zero else tuple(np.asarray(b).tobytes() for b in betas)))
        return real(self, pi, betas)

    blocks.RequestBlocks.prices = recorded
    try:
        yield seen
    finally:
        blocks.RequestBlocks.prices = real


def test_the_second_ascent_ends_when_it_gains_nothing_unless_the_search_lowers_the_target(monkeypatch):
    """From a point where a whole ascent gains nothing (here the first ascent's start: the heuristic table's cost
    is out of reach), another ascent from the same point towards the same target would take the same steps:
    the second ascent ends long before its limit. Beside a search (``ceiling``) it waits instead, and ascends
    again once the search's table lowers the target; a target that does not fall keeps it waiting to its limit."""
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    outcome, first = _stopped_early(ma.Request(ma.KAnonymity(3), ma.LDiversity(2)), table, 2)
    blocks_, pi0, _ = outcome.ascent
    upper = outcome.release.objective
    monkeypatch.setattr(subgradient, "SECOND_PATIENCE", 1)  # θ halved after each step: here nothing gained
    with _priced_points() as alone:
        ended = second_ascent(blocks_, pi0, first, upper=upper, time_limit=20.0)
    # one ascent (about 0.1 s) and its end, not 20 s of the same steps again
    assert ended.bound == first.bound and len(set(alone)) == len(alone) == ended.iterations + 1
    t0 = time.perf_counter()
    with _priced_points() as waited:
        lowered = second_ascent(blocks_, pi0, first, upper=upper, time_limit=2.0,
                                ceiling=lambda: upper if time.perf_counter() - t0 < 1.0 else upper - 1)
    lowered_s, t0 = time.perf_counter() - t0, time.perf_counter()
    with _priced_points() as kept_priced:
        kept = second_ascent(blocks_, pi0, first, upper=upper, time_limit=1.5, ceiling=lambda: upper)
    kept_s = time.perf_counter() - t0
    # it waited for the lower target, ascended towards it (new steps), then waited to its limit
    assert lowered_s >= 2.0 - 0.05 and len(waited) > len(alone) and lowered.bound >= first.bound
    assert kept_s >= 1.5 - 0.05 and len(kept_priced) == len(alone) and kept.bound == first.bound
    # in its own process beside the search the parent's switch travels with its options (``options.tuning``)
    grid = ObjectiveGrid.for_objective("cost", [1.0])
    job = (blocks_, pi0, first, upper)
    before = second_ascent_job(job, SolverOptions(time_limit=1.0, tuning=ma.Tuning(known_steps=False)),
                               grid)  # steps again to its limit
    after = second_ascent_job(job, SolverOptions(time_limit=1.0), grid)
    assert after.job["steps"] == ended.iterations < before.job["steps"]
    assert before.seconds >= 1.0 - 0.05 and before.bound == after.bound == first.bound


@pytest.mark.parametrize("crit, patience", [(ma.LDiversity(2), 3), (ma.LDiversity(2), 5), (ma.TCloseness(0.2), 5)])
def test_the_second_ascent_solves_no_point_twice(monkeypatch, crit, patience):
    """The steps are deterministic, so a second ascent takes none twice: a restart after a gain starts from its
    best point without solving it again and stops where θ reaches what the last ascent explored from there
    (``Ascent.explored``), and a round of ball steps hands its point to the π steps unsolved. Here (restarts
    after gains, rounds of ball steps) every pricing is at a point ``(π, β)`` not priced before in it, and the
    bound is the best priced."""
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    outcome, first = _stopped_early(ma.Request(ma.KAnonymity(3), crit), table, 2)
    blocks_, pi0, _ = outcome.ascent
    ascents, real_ascent = [], subgradient.alternating_ascent

    def counted(*args, **kwargs):
        got = real_ascent(*args, **kwargs)
        ascents.append(got.bound > got.start_bound)
        return got

    monkeypatch.setattr(subgradient, "alternating_ascent", counted)
    monkeypatch.setattr(subgradient, "SECOND_PATIENCE", patience)  # θ runs down in a few dozen steps: restarts
    with _priced_points() as seen:
        again = second_ascent(blocks_, pi0, first, upper=outcome.release.objective, time_limit=10.0)
    assert len(ascents) >= 2 and ascents[0] and not ascents[-1]  # restarted after a gain; ended on none
    assert len(set(seen)) == len(seen) > 50
    assert again.bound > first.bound


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_blocks_rounding_is_a_verified_table_at_or_above_the_optimum(data):
    """The rounding of the group blocks' average over the ascent (pipeline._blocks_rounding): a table that
    passes the verifier, costs at least brute force's optimum, and replaces the heuristic table only where
    cheaper; what it did is told (steps averaged, its objective, the heuristic's, used)."""
    case = _ascended_case(data)
    if case is None:
        return
    request, expected, instance, grid, pb = case
    heuristic = pipeline.best_heuristic(instance.table, request)
    held = {}
    got = pipeline._blocks_rounding(instance, request, pb, heuristic, 10.0, held)
    log = held["blocks_rounding"]
    assert log["steps"] == pb.primal.averaged >= 1 and log["heuristic"] == heuristic.objective
    if log["rounded"] is None:  # no whole-table candidate to round into
        assert got is heuristic and not log["used"]
        return
    assert got.objective == min(heuristic.objective, log["refined"] or log["rounded"])
    assert got.objective >= expected - 1e-9 and log["rounded"] >= expected - 1e-9
    assert log["used"] == (got is not heuristic)
    if log["used"]:
        assert got.source.startswith(pipeline.BLOCKS_ROUNDING_SOURCE)
        t = instance.table  # the verifier again, from the definitions, with the cost it recounts
        v = verify_release(t.frame, got.table, t.qi, request.criteria, sensitive=t.sensitive)
        assert v.cost == pytest.approx(got.objective)


def _stopped_early(request, table, steps):
    """A timed stage's outcome on ``table`` that stopped early: the best heuristic table released, the bound
    of the group blocks' ascent after ``steps`` steps, and that ascent with its start."""
    instance, grid = _instance_and_grid(table, request)
    kb = reduction.k_anonymity_bounds(instance, request, grid, SolverOptions(), 5.0)
    blocks = reduction.request_blocks(instance, request)
    pi0 = np.asarray(kb.log.multipliers, dtype=float)[instance.units.unit_type]
    first = alternating_ascent(blocks, pi0, max_iterations=steps)
    release = pipeline.best_heuristic(table, request)
    outcome = Outcome(release, grid.ceil(first.bound), Status.TIME_LIMIT, "stopped early", ModelSize(),
                      dict(instance.candidates.counts), grid, bound_certifies=True,
                      bound_source=pipeline.K_BOUND_SOURCE, ascent=(blocks, pi0, first))
    return outcome, first


def _early_case():
    """Frequency 2-diversity, k = 3, on the 60-row table, and a stage's outcome there whose ascent stopped after
    2 steps with a gap: ``(table, request, optimum, outcome, first ascent)``."""
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    request = ma.Request(ma.KAnonymity(3), ma.LDiversity(2))
    opt = request.solve(table).objective
    outcome, first = _stopped_early(request, table, 2)
    assert outcome.bound < outcome.release.objective  # a gap to close
    return table, request, opt, outcome, first


def test_the_pipeline_runs_a_second_ascent_in_the_time_left():
    """Frequency 2-diversity on the 60-row table: an outcome whose ascent stopped after 2 steps gets its bound
    raised by the second ascent in the 3 s left (towards the released table's cost), named the group blocks'
    bound, logged in the report and the summary, never above the optimum; not with ``lns = 0`` (the search's
    sub-problems) nor with ``Tuning.second_ascent`` off."""
    table, request, opt, outcome, first = _early_case()
    timed = SolverOptions(time_limit=4.0, lns=0.25)
    raised = pipeline._second_ascent(outcome, timed, Timings())
    log = raised.second_ascent
    assert log["start"] == first.bound and log["target"] == outcome.release.objective and log["steps"] > 0
    assert log["seconds"] <= 3.0 + 0.5
    assert outcome.bound < raised.bound == outcome.grid.ceil(log["bound"]) <= opt
    assert raised.bound_source == pipeline.BLOCK_BOUND_SOURCE and raised.release is outcome.release
    result = pipeline._finish(raised, request, timed, Timings(), {})
    assert result.bound == raised.bound and result.report()["second_ascent"]["steps"] == log["steps"]
    assert "the group blocks' second ascent, after the search" in result.summary()
    assert pipeline._second_ascent(outcome, dataclasses.replace(timed, lns=0.0), Timings()) is outcome
    off = dataclasses.replace(timed, tuning=ma.Tuning(second_ascent=False))
    assert pipeline._second_ascent(outcome, off, Timings()) is outcome


def _workers() -> list[int]:
    """This process's children that are isolated solver processes (milp_anon.solvers.worker), alive."""
    out = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        with contextlib.suppress(OSError), open(f"/proc/{os.getpid()}/task/{task}/children") as fh:
            for pid in map(int, fh.read().split()):
                with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as cmd:
                    if b"milp_anon.solvers.worker" in cmd.read():
                        out.append(pid)
    return out


def test_the_second_ascent_runs_beside_the_search(monkeypatch):
    """With two cores, the search after the stage runs with the second ascent beside it in its own process for
    the whole time left (pipeline._improve): the bound is raised (never above the optimum), named the group
    blocks', logged as beside the search with the search's best table as its target; no second ascent follows
    the search, and no process is left behind. Not with ``Tuning.second_ascent_beside`` off or ``isolate="never"``:
    then the search runs alone and the ascent is left for after it."""
    monkeypatch.setattr(pipeline._lns, "_cores", lambda: 2)  # as on the CI's two cores, whatever this machine has
    table, request, opt, outcome, first = _early_case()
    timed = SolverOptions(time_limit=5.0, lns=0.25)
    improved = pipeline._improve(outcome, table, request, timed, Timings())
    log = improved.second_ascent
    assert log["beside"] is True and log["start"] == first.bound and log["steps"] > 0
    assert log["target"] == improved.release.objective <= outcome.release.objective
    assert outcome.bound < improved.bound == outcome.grid.ceil(log["bound"]) <= opt
    assert improved.bound_source == pipeline.BLOCK_BOUND_SOURCE and improved.lns is not None
    assert improved.ascent is None and pipeline._second_ascent(improved, timed, Timings()) is improved
    assert _workers() == []
    result = pipeline._finish(improved, request, timed, Timings(), {})
    assert "the group blocks' second ascent, beside the search" in result.summary()
    assert result.report()["second_ascent"]["beside"] is True

    def died(*args, **kwargs):
        raise SolverError("the HiGHS process died (exit code -9)")

    with monkeypatch.context() as m:  # the ascent's process dies: the search's table, the stage's bound
        m.setattr(pipeline, "solve_isolated", died)
        lost = pipeline._improve(outcome, table, request, dataclasses.replace(timed, time_limit=2.5), Timings())
        assert lost.second_ascent is None and lost.bound == outcome.bound and lost.lns is not None

    for options in (dataclasses.replace(timed, tuning=ma.Tuning(second_ascent_beside=False)),
                    dataclasses.replace(timed, isolate="never")):
        alone = pipeline._improve(outcome, table, request, dataclasses.replace(options, time_limit=2.5), Timings())
        assert alone.second_ascent is None and alone.ascent is outcome.ascent and alone.lns is not None
