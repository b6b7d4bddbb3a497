"""The API's one shape: Request / ModelOptions / SolverOptions, keyword routing, typed results, model export."""

import json

import pandas as pd
import pytest

import milp_anon as ma
from milp_anon.exact import brute_force_k_anonymity
from milp_anon.runtime.errors import InfeasibleRequest

FRAME = pd.DataFrame({"a": list("aabbccddab"), "b": list("xyxyxyxyxx"), "s": list("1212121212")})


def table(sensitive=None):
    return ma.Table.from_frame(FRAME, ["a", "b"], sensitive)


def test_keywords_route_to_model_and_solver_options():
    """The function form, the object form with option objects, and keywords all give one request."""
    t = table()
    a = ma.anonymize(t, ma.KAnonymity(3), budget=40, reduction="none", time_limit=30, threads=1)
    b = ma.Request(ma.KAnonymity(3), model=ma.ModelOptions(budget=40, reduction="none")).solve(
        t, ma.SolverOptions(time_limit=30, threads=1))
    c = ma.Request([ma.KAnonymity(3)], budget=40, reduction="none").solve(t, time_limit=30, threads=1)
    expected = brute_force_k_anonymity(FRAME[["a", "b"]].to_numpy(), 3)[0]
    assert a.status == b.status == c.status == ma.Status.OPTIMAL
    assert a.objective == b.objective == c.objective == expected
    # a keyword refines a given options object; a solver's name stands for SolverOptions(solver=...)
    r = ma.Request(ma.KAnonymity(3), model=ma.ModelOptions(budget=1), budget=40).solve(t, "highs")
    assert r.objective == expected and r.solver == "HiGHS"


@pytest.mark.parametrize("kw,match", [
    (dict(time_limt=5), "unknown option.*time_limt"),
    (dict(model=ma.SolverOptions()), "expected ModelOptions"),
    (dict(solver=ma.ModelOptions()), "expected SolverOptions"),
])
def test_bad_keywords_name_the_cause(kw, match):
    with pytest.raises(ma.InputError, match=match):
        ma.anonymize(table(), ma.KAnonymity(2), **kw)


def test_request_is_frozen_and_adds_k1():
    req = ma.Request(ma.LDiversity(2), t_out=3)
    assert isinstance(req.criteria[0], ma.KAnonymity) and req.criteria[0].k == 1
    assert (req.model.t_out_min, req.model.t_out_max) == (3, 3) and not req.model.closure_applies
    with pytest.raises(AttributeError):
        req.model = ma.ModelOptions()
    with pytest.raises(ma.InputError, match="no privacy criterion"):
        ma.Request()
    with pytest.raises(ma.InputError, match="unknown model option"):
        ma.Request(ma.KAnonymity(2), time_limit=3)


def test_result_is_typed_and_its_report_keeps_the_contract():
    # the LP rounding's table is optimal here and no round would run: off, so that a round is reported
    # (and the table is the solver's); with it on, the rounding's table is released and named
    rounded = ma.anonymize(table(), ma.KAnonymity(3), time_limit=30)
    assert rounded.status == "optimal" and rounded.source == rounded.fallback == "LP rounding"
    assert rounded.reduction.rounding_objective == rounded.objective
    r = ma.anonymize(table(), ma.KAnonymity(3), time_limit=30, tuning=ma.Tuning(lp_rounding=False))
    assert r.status is ma.Status.OPTIMAL and r.status == "optimal"
    assert isinstance(r.size, ma.ModelSize) and isinstance(r.timings, ma.Timings)
    assert isinstance(r.reduction, ma.ReductionLog) and all(isinstance(x, ma.Round) for x in r.reduction.rounds)
    assert r.source == "solver" and r.fallback is None
    report = json.loads(r.to_json())
    # the keys REPORT.json has always had (scripts rely on them); new ones may be added
    for key in ("status", "objective", "cost", "bound", "gap", "reason", "criteria", "solver", "solver_status",
                "n_rows", "t_in", "n_candidates", "n_pairs", "n_variables", "n_integer", "n_constraints",
                "n_nonzeros", "n_groups", "candidate_counts", "seconds", "verified", "reduction"):
        assert key in report, key
    assert report["status"] == "optimal" and report["seconds"]["total"] > 0
    for key in ("lp_bound", "lp_value", "lp_converged", "cg_iterations", "master_candidates", "master_pairs",
                "full_candidates", "full_pairs", "type_bound", "lower_bound", "rounds"):
        assert key in report["reduction"], key
    assert {"G", "pairs", "candidates", "status", "objective", "bound", "seconds"} <= set(report["reduction"]["rounds"][0])
    with pytest.raises(ValueError, match="needs a verified table"):
        ma.Result(status="optimal")
    with pytest.raises(ValueError, match="unknown status"):
        ma.Result(status="solved")


def test_write_model_and_to_pulp(tmp_path):
    req = ma.Request(ma.KAnonymity(3))
    req.write_model(table(), tmp_path / "m.mps")
    req.write_model(table(), tmp_path / "m.txt", format="lp")
    assert "ROWS" in (tmp_path / "m.mps").read_text() and "Subject To" in (tmp_path / "m.txt").read_text()
    prob = req.to_pulp(table())
    assert len(prob.variables()) > 0 and prob.numConstraints() > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.mps", "m.txt"]  # no partial files
    with pytest.raises(ma.InputError, match="format"):
        req.write_model(table(), tmp_path / "m.json")
    with pytest.raises(InfeasibleRequest, match="exceeds the number of rows"):
        ma.Request(ma.KAnonymity(11)).write_model(table(), tmp_path / "x.mps")
    assert not (tmp_path / "x.mps").exists()


def test_a_dataframe_is_taken_with_its_qi_or_refused_in_one_line_saying_how():
    """``anonymize(frame, ...)`` with ``qi=`` solves the same table as ``Table.from_frame``; without it, or with a
    value that is no table, one :class:`InputError` that names the way (no AttributeError from deep inside)."""
    frame = pd.DataFrame({"a": list("aabbc"), "b": list("xxyyz"), "s": list("12121")})
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    direct = ma.anonymize(frame, ma.KAnonymity(2), qi=["a", "b"], sensitive="s")
    assert direct.status == "optimal" and direct.objective == ma.anonymize(table, ma.KAnonymity(2)).objective
    assert direct.objective == brute_force_k_anonymity(frame[["a", "b"]].to_numpy(), 2)[0]
    for call in (lambda: ma.anonymize(frame, ma.KAnonymity(2)),
                 lambda: ma.Request(ma.KAnonymity(2)).solve(frame),
                 lambda: ma.Request(ma.KAnonymity(2)).inspect(frame)):
        with pytest.raises(ma.InputError, match="Table.from_frame"):
            call()
    with pytest.raises(ma.InputError, match="got list"):
        ma.anonymize([["a", "x"]], ma.KAnonymity(2))
    with pytest.raises(ma.InputError, match="a Table already has"):
        ma.anonymize(table, ma.KAnonymity(2), qi=["a"])
