"""`milp-anon certify`: the reduction's Lagrangian bound and fixing recomputed from the table alone."""

import dataclasses
import json
import math

import pytest
from helpers import small_tables
from hypothesis import given, settings

import milp_anon as ma
from milp_anon import cli
from milp_anon.certify import certify
from milp_anon.cli import main

QI = "sex,age,race,marital-status"


def _solve(tmp, rounding, k=5):
    orig = tmp / "adult.csv"
    ma.datasets.load_adult().iloc[:5000].to_csv(orig, sep=";", index=False)
    report = tmp / "r.json"
    options = cli._options
    with pytest.MonkeyPatch.context() as mp:  # the command line's solve with the LP rounding on or off
        mp.setattr(cli, "_options", lambda args: dataclasses.replace(options(args),
                                                                     tuning=ma.Tuning(lp_rounding=rounding)))
        assert main(["solve", str(orig), "--sep", ";", "--qi", QI, "--k", str(k), "--reduce", "lagrangian",
                     "--out", str(tmp / "o.csv"), "--report", str(report), "--quiet"]) == 0
    return tmp, orig, report


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """A proof resting on a HiGHS round: k = 10, where ``L(π)`` is 1,813.8 and the type bound 1,814 below the
    optimum 1,815 (the LP rounding is off, so the rounds find the optimal table)."""
    return _solve(tmp_path_factory.mktemp("certify"), rounding=False, k=10)


def test_a_proof_without_rounds_needs_no_solver(tmp_path, capsys):
    """Here the LP bound is 1,072 and the LP rounding's table costs 1,072: no round runs, and the
    certificate rests on nothing a solver computed."""
    tmp, orig, report = _solve(tmp_path, rounding=True)
    rep = json.loads(report.read_text())
    assert rep["status"] == "optimal" and rep["reduction"]["rounds"] == []
    assert rep["reduction"]["rounding_objective"] == rep["objective"]
    code, out = _certify(orig, report, capsys, k=5)
    assert code == 0, out.out
    assert "HiGHS" not in out.out and "certified without any solver" in out.out
    assert f"optimum is at least {rep['objective']:,.6g}" in out.out


def _certify(orig, report, capsys, *extra, k=10):  # the ``solved`` proof's k
    code = main(["certify", str(orig), str(report), "--sep", ";", "--qi", QI, "--k", str(k), *extra])
    return code, capsys.readouterr()


def test_a_reduction_proof_certifies(solved, capsys):
    tmp, orig, report = solved
    rep = json.loads(report.read_text())
    assert rep["status"] == "optimal" and len(rep["reduction"]["multipliers"]) == rep["t_in"]
    assert math.ceil(rep["reduction"]["lp_bound"]) < rep["objective"]  # the round's bound is needed
    code, out = _certify(orig, report, capsys)
    assert code == 0, out.out
    assert "FAIL" not in out.out and f"optimum is at least {rep['objective']:,.6g}" in out.out
    assert "HiGHS round 1" in out.out  # what the proof still rests on is said
    assert "with the HiGHS bounds above" in out.out and "without any solver" not in out.out


def test_a_proof_whose_rounds_only_found_the_table_needs_no_solver(tmp_path, capsys):
    """k = 5 with the LP rounding off: a round runs and finds the optimal table 1,072, but ``L(π)`` is 1,072
    already, so the round's HiGHS bound is not part of the proof."""
    tmp, orig, report = _solve(tmp_path, rounding=False)
    rep = json.loads(report.read_text())
    assert rep["status"] == "optimal" and rep["reduction"]["rounds"]
    assert math.ceil(rep["reduction"]["lp_bound"] - 1e-9) >= rep["objective"]
    code, out = _certify(orig, report, capsys, k=5)
    assert code == 0, out.out
    assert "certified without any solver" in out.out
    solver = [line for line in out.out.splitlines() if line.startswith("HiGHS")]
    assert solver and all("not needed" in line for line in solver)


@pytest.mark.parametrize("tamper, what", [
    (lambda r: r["reduction"].update(lp_bound=r["reduction"]["lp_bound"] + 5), "L(π)"),
    (lambda r: r["reduction"].update(multipliers=[0.0] * len(r["reduction"]["multipliers"])), "L(π)"),
    (lambda r: r["reduction"]["rounds"][0].update(below_G=r["reduction"]["rounds"][0]["below_G"] - 1), "round 1"),
    (lambda r: r["reduction"].update(type_bound=r["reduction"]["type_bound"] + 1), "type bound"),
    (lambda r: r.update(objective=r["objective"] - 1), "reach the verified objective"),
])
def test_a_tampered_report_does_not_certify(solved, capsys, tamper, what):
    tmp, orig, report = solved
    rep = json.loads(report.read_text())
    tamper(rep)
    bad = tmp / "bad.json"
    bad.write_text(json.dumps(rep))
    code, out = _certify(orig, bad, capsys)
    assert code == 6
    assert any(line.startswith("FAIL") and what in line for line in out.out.splitlines()), out.out


def test_another_input_or_problem_is_refused(solved, capsys, tmp_path):
    tmp, orig, report = solved
    other = tmp_path / "other.csv"
    ma.datasets.load_adult().iloc[:4000].to_csv(other, sep=";", index=False)
    code, out = _certify(other, report, capsys)
    assert code == 2 and "another input file" in out.err
    code, out = main(["certify", str(orig), str(report), "--sep", ";", "--qi", QI, "--k", "4"]), capsys.readouterr()
    assert code == 2 and "another problem" in out.err
    whole = tmp_path / "whole.json"
    assert main(["solve", str(orig), "--sep", ";", "--qi", "sex,age", "--k", "5", "--reduce", "none",
                 "--out", str(tmp_path / "o.csv"), "--report", str(whole), "--quiet"]) == 0
    capsys.readouterr()
    code = main(["certify", str(orig), str(whole), "--sep", ";", "--qi", "sex,age", "--k", "5"])
    assert code == 2 and "no reduction multipliers" in capsys.readouterr().err


@settings(max_examples=30, deadline=None)
@given(small_tables(n=(4, 12), m=(1, 4), k=(2, 4)))
def test_every_reduction_proof_certifies(case):
    frame, qi, k = case
    table = ma.Table.from_frame(frame, qi)
    r = ma.anonymize(table, ma.KAnonymity(k), reduction="lagrangian")
    if r.status != "optimal":
        return
    cert = certify(table, ma.Request(ma.KAnonymity(k)), json.loads(r.to_json()))
    assert cert.ok, cert.lines()
    assert cert.lower_bound == pytest.approx(r.objective)
    # solver-free exactly when L(π), the type bound or an empty round (a row type without a pair below G)
    # reaches the objective (suppression: whole costs)
    empty = [rnd.G for rnd in r.reduction.rounds if rnd.status == "empty"]
    from_table = max([math.ceil(cert.lagrangian_bound - 1e-6), cert.type_bound, *empty])
    assert cert.solver_free == (from_table >= r.objective - 1e-9 or not cert.solver_side)


def test_a_round_through_the_root_cuts_says_what_it_rests_on(monkeypatch):
    """A proof whose rounds went through their root's cuts certifies, and names the cuts and the fixing
    among the solver-side statements."""
    from helpers import duplicated_tables, every_round_through_root_cuts

    tuning = every_round_through_root_cuts(monkeypatch)
    named = 0
    for table, k in duplicated_tables(5, 10):
        r = ma.anonymize(table, ma.KAnonymity(k), reduction="lagrangian", tuning=tuning)
        assert r.status == "optimal"
        cert = certify(table, ma.Request(ma.KAnonymity(k)), json.loads(r.to_json()))
        assert cert.ok, cert.lines()
        through = [rnd for rnd in r.reduction.rounds if rnd.root_cuts and rnd.root_cuts.get("fixed") is not None]
        said = [line for line in cert.solver_side if "root cuts" in line]
        assert len(said) == len(through)
        named += len(said)
    assert named > 0
