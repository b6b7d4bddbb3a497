"""benchmarks/experiments/whole_cutoff.py (the whole model as MPS, HiGHS against a cutoff, the solution mapped back by column
name): against brute force on random small tables with a sensitive criterion, a cutoff just above the optimum
gives "Optimal" at the optimum with a verified table of that cost, and a cutoff just below it no cheaper table
and no bound above the cutoff."""

import importlib.util

import pytest
from helpers import brute, criteria_for, sensitive_tables
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import milp_anon as ma
from benchmarks.experiments.whole_cutoff import solve_whole_with_cutoff


def _instance(case, data):
    """A random table with k and one sensitive criterion: ``(table, whole-model request, brute-force optimum)``,
    or ``None`` when no release exists."""
    frame, qi, k = case
    criteria = [ma.KAnonymity(k), data.draw(criteria_for(frame))]
    optimum = brute(frame, qi, criteria)
    if optimum is None:
        return None
    return ma.Table.from_frame(frame, qi, "s"), ma.Request(*criteria, model=ma.ModelOptions(reduction="none")), optimum


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sensitive_tables(n=(4, 8), m=(1, 3), k=(1, 3)), st.data())
def test_whole_cutoff_against_brute_force(case, data):
    instance = _instance(case, data)
    if instance is None:  # no release: the model is never written
        return
    table, request, optimum = instance
    above = solve_whole_with_cutoff(table, request, optimum + 0.5, 60.0, quiet=True)
    assert above["highs_status"] == "Optimal"
    assert above["verified_cost"] == optimum
    below = solve_whole_with_cutoff(table, request, optimum - 0.5, 60.0, quiet=True)
    # nothing below the cutoff; HiGHS may still hand back a table above it ("Optimal 8", dual bound 8, against
    # the cutoff 3.5 where the optimum is 4), so only the capped bound is read
    assert below.get("verified_cost", optimum) >= optimum
    assert below["bound"] <= optimum - 0.5
    assert below["highs_status"] in ("Infeasible", "Objective bound", "Optimal")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sensitive_tables(n=(4, 8), m=(1, 3), k=(1, 3)), st.data())
def test_scip_engine_against_brute_force(case, data):
    """``engine="scip"`` (where pyscipopt is installed): the same MPS, SCIP's objective limit as the cutoff."""
    pytest.importorskip("pyscipopt")
    instance = _instance(case, data)
    if instance is None:  # no release: the model is never written
        return
    table, request, optimum = instance
    alone = solve_whole_with_cutoff(table, request, None, 60.0, quiet=True, engine="scip")
    assert alone["scip_status"] == "optimal" and alone["verified_cost"] == optimum
    above = solve_whole_with_cutoff(table, request, optimum + 0.5, 60.0, quiet=True, engine="scip")
    assert above["scip_status"] == "optimal" and above["verified_cost"] == optimum
    below = solve_whole_with_cutoff(table, request, optimum - 0.5, 60.0, quiet=True, engine="scip")
    # SCIP too may keep a solution at or above its objective limit (cost 0 against the limit −0.5)
    assert below["scip_status"] == "infeasible" and below.get("verified_cost", optimum) >= optimum
    assert below["bound"] == optimum - 0.5


def test_save_writes_the_solution(tmp_path):
    """``save``: the engine's solution as JSON; its columns give the objective the engine reported."""
    import json

    import pandas as pd

    frame = pd.DataFrame({"a": list("xxyyzz"), "b": list("112233"), "s": list("pqpqpq")})
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    request = ma.Request(ma.KAnonymity(3), ma.LDiversity(2), model=ma.ModelOptions(reduction="none"))
    path = tmp_path / "solution.json"
    out = solve_whole_with_cutoff(table, request, None, 60.0, quiet=True, save=str(path))
    saved = json.loads(path.read_text())
    assert saved["engine"] == "highs" and saved["cutoff"] is None
    problem = request.to_pulp(table)
    objective = sum(coef * saved["columns"][v.name] for v, coef in problem.objective.items())
    assert out["verified_cost"] == brute(frame, ["a", "b"], [ma.KAnonymity(3), ma.LDiversity(2)])
    assert objective == pytest.approx(out["highs_objective"]) and objective == pytest.approx(out["verified_cost"])
    assert [p.name for p in tmp_path.iterdir()] == ["solution.json"]  # no temporary file left


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sensitive_tables(n=(4, 8), m=(1, 3), k=(2, 3)), st.data())
def test_check_point_is_exact(case, data):
    """A saved optimum checks exactly at the brute-force optimum; the same point with its integer columns
    zeroed (no row assigned, nothing released) is no solution of the model."""
    import json
    import os
    import tempfile

    import numpy as np

    from benchmarks.experiments.whole_cutoff import check_point, check_saved
    from milp_anon.pipeline import solve as pipeline

    instance = _instance(case, data)
    if instance is None:  # no release: the model is never written
        return
    table, request, optimum = instance
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "solution.json")
        solve_whole_with_cutoff(table, request, None, 60.0, quiet=True, save=path)
        with open(path) as f:
            values = json.load(f)["columns"]
    checked = check_saved(table, request, values)
    assert checked["exact"] and checked["objective"] == checked["verified_cost"] == optimum
    # handed back as a start below a cutoff just above it, the engine proves the same optimum
    engine = "scip" if importlib.util.find_spec("pyscipopt") else "highs"
    again = solve_whole_with_cutoff(table, request, optimum + 0.5, 60.0, quiet=True, engine=engine, start=values)
    assert again["verified_cost"] == optimum and again["bound"] == pytest.approx(optimum, abs=1e-5)
    lm = pipeline.build_model(table, request).lm
    integer_columns = np.array(lm.col_names())[lm.arrays()["integer"]]
    assert not check_point(lm, values | {name: 0.0 for name in integer_columns})["exact"]


@pytest.mark.parametrize("args, cause", [
    (["--save", "EXISTS"], "the file exists"),
    (["--save", "/nonexistent-dir/solution.json"], "no such directory"),
    (["--limit", "0"], "--limit must be a positive"),
    (["--check", "/nonexistent-dir/solution.json"], "cannot read it"),
    (["--check", "EXISTS"], "not a solution written by --save"),
    (["--start", "EXISTS"], "not a solution written by --save"),
])
def test_bad_input_is_refused_before_work(tmp_path, capsys, args, cause):
    from benchmarks.experiments.whole_cutoff import main

    existing = tmp_path / "solution.json"
    existing.write_text("keep me")
    args = [str(existing) if a == "EXISTS" else a for a in args]
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    assert cause in capsys.readouterr().err
    assert existing.read_text() == "keep me" and [p.name for p in tmp_path.iterdir()] == ["solution.json"]
