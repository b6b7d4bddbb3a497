"""The k-anonymity LP bound reported for time-limited models with sensitive criteria (milp_anon.pipeline)."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon import pipeline
from milp_anon.grid import ObjectiveGrid
from milp_anon.result import Timings
from milp_anon.solvers import SolverOptions
from milp_anon.status import Status

from helpers import brute, criteria_for, sensitive_tables


def _instance_and_grid(table, request):
    instance, _, why = pipeline._prepare(table, request, Timings())
    assert not why
    return instance, ObjectiveGrid.for_objective("cost", instance.candidates.cost)


def _k_bound(table, request, time_limit=5.0):
    instance, grid = _instance_and_grid(table, request)
    bound, _ = pipeline._k_relaxation_bound(instance, request, SolverOptions(time_limit=time_limit), grid, Timings())
    return bound


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


def test_no_k_bound_without_a_time_limit_or_for_k_alone():
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    instance, grid = _instance_and_grid(table, ma.Request(ma.KAnonymity(2), ma.LDiversity(2)))
    untimed = SolverOptions()
    assert pipeline._k_relaxation_bound(instance, ma.Request(ma.KAnonymity(2), ma.LDiversity(2)), untimed, grid,
                                        Timings()) == (None, untimed)
    timed = SolverOptions(time_limit=5)
    assert pipeline._k_relaxation_bound(instance, ma.Request(ma.KAnonymity(2)), timed, grid, Timings()) == \
        (None, timed)
    budget = ma.Request(ma.KAnonymity(2), ma.LDiversity(2), budget=100)
    assert pipeline._k_relaxation_bound(instance, budget, timed, grid, Timings())[0] is None


def _adult_like():
    rng = np.random.default_rng(3)
    n = 60
    frame = pd.DataFrame({f"q{i}": rng.choice(list("abcd"), n) for i in range(3)})
    frame["s"] = rng.choice(list("xyz"), n)
    return frame, ["q0", "q1", "q2"]


def test_a_solver_bound_of_zero_is_replaced_by_the_k_bound(monkeypatch):
    """A model whose root LP does not finish (simulated: the solver reports bound 0 at its time limit)
    ends with the k-anonymity LP bound, named as the bound's source; the table is still verified."""
    frame, qi = _adult_like()
    table = ma.Table.from_frame(frame, qi, "s")
    real = pipeline.solve_model

    def stopped_at_root(lm, options, grid, **kw):
        out = real(lm, options, grid, **kw)
        return dataclasses.replace(out, status=Status.TIME_LIMIT, bound=0.0)

    monkeypatch.setattr(pipeline, "solve_model", stopped_at_root)
    r = ma.anonymize(table, ma.KAnonymity(3), ma.LDiversity(2), time_limit=30)
    k_lp = _k_bound(table, ma.Request(ma.KAnonymity(3), ma.LDiversity(2)))
    assert r.status == ("optimal" if r.bound >= r.objective else "time_limit")
    assert r.bound == pytest.approx(k_lp) and r.bound > 0
    assert "k-anonymity LP bound" in r.bound_source and r.report()["bound_source"] == r.bound_source
    assert "k-anonymity LP bound" in r.summary()
    assert r.verified and r.bound <= r.objective

    monkeypatch.setattr(pipeline, "solve_model", real)
    plain = ma.anonymize(table, ma.KAnonymity(3), ma.LDiversity(2), time_limit=30)
    assert plain.status == "optimal" and plain.bound_source is None and plain.bound == plain.objective
    assert 0 < r.bound <= plain.objective
