"""The exact certificate (`milp-anon certify --certificate`) and its stdlib-only checker."""

import copy
import json
import shutil
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from helpers import small_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon import certificate_check as cc
from milp_anon.bounds.conflicts import clique_bounds
from milp_anon.bounds.lagrangian import block_prices
from milp_anon.certify import exact_certificate
from milp_anon.cli import main
from milp_anon.pipeline.solve import prepare
from milp_anon.release.result import Timings
from milp_anon.runtime.grid import ObjectiveGrid

QI = "sex,age,race,marital-status"


@pytest.fixture(scope="module")
def proof(tmp_path_factory):
    """k = 10 on 5,000 rows of Adult with the LP rounding off: ``L(π)`` is 1,813.8 below the optimum 1,815, so the
    certificate needs one restricted model, which CBC re-solves."""
    tmp = tmp_path_factory.mktemp("certificate")
    frame = ma.datasets.load_adult().iloc[:5000]
    table = ma.Table.from_frame(frame, QI.split(","))
    r = ma.anonymize(table, ma.KAnonymity(10), reduction="lagrangian", tuning=ma.Tuning(lp_rounding=False))
    assert r.status == "optimal" and r.objective == 1815
    report = json.loads(r.to_json())
    cert = exact_certificate(table, ma.Request(ma.KAnonymity(10)), report, r.table)
    return tmp, frame, r, report, cert


def _fails(cert, what):
    with pytest.raises(cc.Failed, match=what):
        cc.check(cert)


def test_a_certificate_with_a_confirmed_round_holds(proof):
    tmp, frame, r, report, cert = proof
    said = cc.check(json.loads(json.dumps(cert)))  # as read back from its file
    assert said[-1].startswith("OPTIMAL") and Fraction(cert["objective"]) == 1815
    (rnd,) = cert["rounds"]
    assert rnd["engine"]["confirmed"] and rnd["engine"]["engine"].startswith("CBC")
    # the engine's model is the checker's problem over K: no other rows cut OPT(K)
    assert set(rnd["engine"]["model"]) <= {"columns", "assign", "link", "kanon", "conflict_cliques"}
    assert any("CBC" in line and "confirmed" in line for line in said)
    # L(π) alone is short of the optimum (so the round is needed), and the type bound too
    assert not any(line.startswith("L(π, μ)") and line.endswith("OPT >= 1815") for line in said)


def test_the_checker_runs_alone_as_a_copied_file(proof, tmp_path):
    """``-I -S``: no site-packages (neither milp_anon nor numpy importable), only the standard library."""
    cert = proof[4]
    script = tmp_path / "certificate_check.py"
    shutil.copy(cc.__file__, script)
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(cert))
    run = subprocess.run([sys.executable, "-I", "-S", str(script), str(path)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OPTIMAL" in run.stdout.splitlines()[-1]
    cert = copy.deepcopy(cert)
    cert["objective"] = "1814"
    path.write_text(json.dumps(cert))
    run = subprocess.run([sys.executable, "-I", "-S", str(script), str(path)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert run.returncode == 1 and run.stdout.count("\n") == 1 and run.stdout.startswith("FAIL")
    path.write_text("{not json")
    run = subprocess.run([sys.executable, "-I", "-S", str(script), str(path)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def _resealed(cert):
    cert["instance_sha256"] = cc.instance_sha256(cert)  # a tamperer who also recomputes the fingerprint
    return cert


def test_a_changed_multiplier_is_rejected(proof):
    cert = copy.deepcopy(proof[4])
    pi = cert["multipliers"]
    pi["numerators"][0] += 5 * pi["denominator"]
    _fails(cert, "round 1: pair .* not in the restricted model|does not reach")


def test_a_pair_dropped_is_rejected(proof):
    cert = copy.deepcopy(proof[4])
    cert["rounds"][0]["pairs"].pop(len(cert["rounds"][0]["pairs"]) // 2)  # from the restricted model
    _fails(cert, "round 1: pair .* has a bound below G")
    cert = copy.deepcopy(proof[4])  # from the instance: a pair the assignment uses
    p = cert["assignment"]["pairs"][0]
    for key in ("type", "candidate"):
        del cert["pairs"][key][p]
    _fails(copy.deepcopy(cert), "instance_sha256")

    def shift(q):
        return q - (q > p)

    a = cert["assignment"]
    a["pairs"], a["rows"] = [shift(q) for q in a["pairs"][1:]], a["rows"][1:]
    cert["rounds"][0]["pairs"] = [shift(q) for q in cert["rounds"][0]["pairs"] if q != p]
    _fails(_resealed(cert), "assignment: row type")


def test_an_altered_cost_is_rejected(proof):
    cert = copy.deepcopy(proof[4])
    j = cert["pairs"]["candidate"][cert["assignment"]["pairs"][0]]
    cert["cost"]["numerators"][j] += 1
    _fails(copy.deepcopy(cert), "instance_sha256")
    _fails(_resealed(cert), "assignment costs")


def test_a_changed_objective_is_rejected(proof):
    for objective, what in (("1814", "assignment costs 1815"), ("1816", "assignment costs 1815")):
        cert = copy.deepcopy(proof[4])
        cert["objective"] = objective
        _fails(cert, what)
    cert = copy.deepcopy(proof[4])
    cert["rounds"][0]["engine"]["confirmed"] = False  # the round's bound no longer confirmed: 1,814 < 1,815
    _fails(cert, r"does not reach the objective 1815 \(round \[1\] not confirmed")


def test_a_class_below_k_is_rejected(proof):
    """Rows of one type moved to a candidate no class uses: a class of fewer than k rows."""
    cert = copy.deepcopy(proof[4])
    k, n = cert["k"], cert["rows_per_type"]
    pt, pc = cert["pairs"]["type"], cert["pairs"]["candidate"]
    a = cert["assignment"]
    used = {pc[p] for p in a["pairs"]}
    x = next(x for x, (p, g) in enumerate(zip(a["pairs"], a["rows"])) if g == n[pt[p]] and g < k
             and any(pt[q] == pt[p] and pc[q] not in used for q in range(len(pt))))
    p = a["pairs"][x]
    a["pairs"][x] = next(q for q in range(len(pt)) if pt[q] == pt[p] and pc[q] not in used)
    _fails(cert, r"holds \d+ rows < k")


def test_an_invalid_packing_row_is_rejected(proof):
    """A conflict clique of two candidates that cannot both hold k rows is accepted (with μ = 0 it moves no bound);
    with a member added that can hold k rows beside them it is rejected."""
    cert = copy.deepcopy(proof[4])
    k, n = cert["k"], cert["rows_per_type"]
    held: dict = {}
    for i, j in zip(cert["pairs"]["type"], cert["pairs"]["candidate"]):
        held.setdefault(j, set()).add(i)
    rows = {j: sum(n[i] for i in s) for j, s in held.items()}
    small = sorted(j for j in held if k <= rows[j] < 2 * k)
    a, b = next((a, b) for a in small for b in small if a < b and held[a] & held[b]
                and sum(n[i] for i in held[a] | held[b]) < 2 * k)
    big = next(j for j in held if rows[j] >= 3 * k and not held[j] & (held[a] | held[b]))
    mu = {"denominator": 1, "numerators": [0]}
    cert["packing_rows"] = {"members": [[a, b]], "rhs": [1], "multipliers": mu}
    assert cc.check(cert)[-1].startswith("OPTIMAL")
    cert["packing_rows"]["members"][0].append(big)
    _fails(cert, "packing row 0 .* is not valid")


@st.composite
def _tables_and_multipliers(draw):
    frame, qi, k = draw(st.one_of(small_tables(n=(4, 12), m=(1, 4), k=(2, 4)),
                                  small_tables(n=(6, 14), m=(3, 4), alphabet=(3, 3), k=(2, 3))))  # sparse
    table = ma.Table.from_frame(frame, qi)
    instance, _, why = prepare(table, ma.Request(ma.KAnonymity(k)), Timings())
    if why or instance.candidates.n_pairs == 0:
        return None
    t, c = instance.types.t_in, instance.candidates.n_candidates
    pi = draw(st.lists(st.integers(-16, 40), min_size=t, max_size=t))
    rows = draw(st.lists(st.lists(st.integers(0, c - 1), min_size=1, max_size=3, unique=True), max_size=3))
    mu = draw(st.lists(st.integers(0, 12), min_size=len(rows), max_size=len(rows)))
    rhs = draw(st.lists(st.integers(1, 2), min_size=len(rows), max_size=len(rows)))
    return instance, k, pi, rows, mu, rhs


@settings(max_examples=40, deadline=None)
@given(_tables_and_multipliers())
def test_the_exact_bounds_equal_the_float_ones(case):
    """``L(π, μ)`` and every pair bound of the checker (integers) against :func:`block_prices` and
    :func:`clique_bounds` (floats), for multipliers in quarters and packing rows with multipliers in eighths."""
    if case is None:
        return
    instance, k, pi, rows, mu, rhs = case
    types, cands = instance.types, instance.candidates
    D = ObjectiveGrid.of_costs(cands.cost).denominator
    assert D
    cert = {"k": k, "rows_per_type": [int(x) for x in types.counts],
            "cost": {"denominator": D, "numerators": [round(float(w) * D) for w in cands.cost]},
            "pairs": {"type": cands.pair_type.tolist(), "candidate": cands.pair_cand.tolist()},
            "packing_rows": {"members": rows, "rhs": rhs}}
    S = 8 * D
    L, b = cc.blocks(cert, [x * 2 * D for x in pi], [x * D for x in mu], S)
    pif, muf = np.asarray(pi) / 4, np.asarray(mu) / 8
    prices = block_prices(pif, types.counts, cands.cost, cands.pair_type, cands.pair_cand, k)
    Lf, bf = clique_bounds(prices, rows, muf, cands.pair_cand, np.asarray(rhs, dtype=float))
    assert float(Fraction(L, S)) == pytest.approx(Lf, abs=1e-6)
    for x, y in zip(b, bf):
        if x is not None:  # None: a candidate holding fewer than k rows, never open
            assert float(Fraction(x, S)) == pytest.approx(y, abs=1e-6)


def _files(tmp, frame, r, report):
    orig, rep, rel = tmp / "adult.csv", tmp / "r.json", tmp / "released.csv"
    frame.to_csv(orig, sep=";", index=False)
    rep.write_text(json.dumps(report))
    r.table.to_csv(rel, sep=";", index=False)
    return orig, rep, rel


def test_certify_writes_a_certificate_the_checker_accepts(proof, tmp_path, capsys):
    orig, rep, rel = _files(tmp_path, *proof[1:4])
    cert = tmp_path / "cert.json"
    code = main(["certify", str(orig), str(rep), "--sep", ";", "--qi", QI, "--k", "10", "--certificate", str(cert),
                 "--released", str(rel)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "confirmed" in out and "UNCONFIRMED" not in out and f"wrote {cert}" in out
    assert cc.main([str(cert), "--quiet"]) == 0
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []


def test_certify_refuses_bad_certificate_paths_before_any_work(proof, tmp_path, capsys):
    orig, rep, rel = _files(tmp_path, *proof[1:4])
    base = ["certify", str(orig), str(rep), "--sep", ";", "--qi", QI, "--k", "10"]
    for extra, what in (([" --certificate", str(tmp_path / "no" / "c.json"), "--released", str(rel)], None),
                        (["--certificate", str(tmp_path / "c.json")], "needs --released")):
        extra[0] = extra[0].strip()
        code = main(base + extra)
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert what is None or what in err
    assert not (tmp_path / "c.json").exists() and not (tmp_path / "no").exists()
    assert cc.main([str(tmp_path / "missing.json")]) == 2


@settings(max_examples=25, deadline=None)
@given(small_tables(n=(4, 12), m=(1, 4), k=(2, 4)))
def test_every_reduction_proof_gives_a_certificate_that_holds(case):
    """Whatever the rounds, the conflict cliques and the rank rows of the report, the certificate of an optimal
    reduction holds, and says the objective of the released table."""
    frame, qi, k = case
    table = ma.Table.from_frame(frame, qi)
    r = ma.anonymize(table, ma.KAnonymity(k), reduction="lagrangian", tuning=ma.Tuning(lp_rounding=False))
    if r.status != "optimal":
        return
    cert = exact_certificate(table, ma.Request(ma.KAnonymity(k)), json.loads(r.to_json()), r.table)
    assert cc.check(json.loads(json.dumps(cert)))[-1].startswith("OPTIMAL")
    assert Fraction(cert["objective"]) == pytest.approx(r.objective)


def test_an_unconfirmed_round_is_said_and_fails(proof, tmp_path, capsys, monkeypatch):
    """The second engine stopped at its limit: the certificate is written, says so, and does not hold (exit 6)."""
    import milp_anon.certify as certify_module
    from milp_anon.runtime.status import Status
    from milp_anon.solvers import SolveOutcome

    monkeypatch.setattr(certify_module, "solve_model",
                        lambda *a, **kw: SolveOutcome(Status.TIME_LIMIT, None, None, None, "stopped", 1.0))
    orig, rep, rel = _files(tmp_path, *proof[1:4])
    cert = tmp_path / "cert.json"
    code = main(["certify", str(orig), str(rep), "--sep", ";", "--qi", QI, "--k", "10", "--certificate", str(cert),
                 "--released", str(rel), "--engine-time-limit", "1"])
    out = capsys.readouterr()
    assert code == 6 and "UNCONFIRMED" in out.out and "not confirmed by a second engine" in out.err
    assert cert.exists() and cc.main([str(cert), "--quiet"]) == 1
