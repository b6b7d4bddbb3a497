"""The command-line contract: outputs, exit codes, atomic writes, reports."""

import hashlib
import json
import os

import pandas as pd
import pytest

from milp_anon.cli import main
from milp_anon.exact import brute_force_k_anonymity
from milp_anon.tables.datasets import ADULT_QI, load_adult

CSV = "a;b;c;note\r\n1;x;p;n1\r\n1;x;q;n2\r\n1;y;p;n3\r\n2;y;q;n4\r\n2;y;q;n5\r\n2;x;p;n6\r\n"


@pytest.fixture
def table(tmp_path):
    p = tmp_path / "in.csv"
    p.write_bytes(CSV.encode())
    return p


def digest(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_solve_writes_verified_table_and_report(table, tmp_path, capsys):
    out, rep, mps = tmp_path / "out.csv", tmp_path / "r.json", tmp_path / "m.mps"
    before = digest(table)
    code = main(["solve", str(table), "--qi", "a,b,c", "--k", "2", "--sep", ";", "--out", str(out),
                 "--report", str(rep), "--mps", str(mps)])
    assert code == 0
    assert digest(table) == before  # input untouched
    text = out.read_text()
    assert text.splitlines()[0] == "a;b;c;note"  # header and delimiter kept
    released = pd.read_csv(out, sep=";", dtype=str)
    assert released["note"].tolist() == [f"n{i}" for i in range(1, 7)]  # row order kept
    report = json.loads(rep.read_text())
    for key in ("status", "objective", "bound", "gap", "n_rows", "t_in", "n_candidates", "n_variables",
                "n_constraints", "seconds"):
        assert key in report
    rows = [line.split(";")[:3] for line in CSV.strip().split("\r\n")[1:]]
    assert report["status"] == "optimal"
    assert report["objective"] == brute_force_k_anonymity(rows, 2)[0]
    assert (released[["a", "b", "c"]] == "*").sum().sum() == report["objective"]
    assert mps.read_text().startswith("*SENSE:Minimize") or "ROWS" in mps.read_text()
    assert not [f for f in os.listdir(tmp_path) if f.endswith((".tmp", ".part"))]
    assert "status        optimal" in capsys.readouterr().out


def test_infeasible_exit_3(table, tmp_path, capsys):
    out = tmp_path / "out.csv"
    code = main(["solve", str(table), "--qi", "a,b", "--k", "7", "--sep", ";", "--out", str(out)])
    assert code == 3
    assert not out.exists()
    assert "exceeds the number of rows" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args,match",
    [
        (["--qi", "a,zz", "--k", "2"], "not in the table: zz"),
        (["--qi", "a", "--k", "0"], "--k: expected a whole number >= 1"),
        (["--qi", "a", "--k", "2", "--sensitive", "a"], "both quasi-identifier and sensitive"),
        (["--qi", "a", "--k", "2", "--gap", "2"], "relative gap"),
        (["--qi", "a"], "give --k"),
        (["--qi", "a", "--k", "two"], "--k: expected a whole number >= 1, got 'two'"),
    ],
)
def test_bad_input_exit_2_one_line_no_output(table, tmp_path, capsys, args, match):
    out = tmp_path / "out.csv"
    code = main(["solve", str(table), "--sep", ";", "--out", str(out)] + args)
    err = capsys.readouterr().err
    assert code == 2
    assert match in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_wrong_separator_is_named(table, tmp_path, capsys):
    code = main(["solve", str(table), "--qi", "a", "--k", "2", "--out", str(tmp_path / "o.csv")])
    assert code == 2
    assert "not in the table" in capsys.readouterr().err


def test_output_may_not_be_input(table, capsys):
    before = digest(table)
    code = main(["solve", str(table), "--qi", "a", "--k", "2", "--sep", ";", "--out", str(table)])
    assert code == 2 and "is the input file" in capsys.readouterr().err
    assert digest(table) == before


def test_missing_input_file(tmp_path, capsys):
    code = main(["solve", str(tmp_path / "nope.csv"), "--qi", "a", "--k", "2", "--out", str(tmp_path / "o.csv")])
    assert code == 2 and "not found" in capsys.readouterr().err


def test_time_limit_exit_4(tmp_path, capsys):
    """8 Adult QIs on 1,000 rows at k = 5 is far from solved in one second."""
    src = tmp_path / "adult.csv"
    load_adult().head(1000).to_csv(src, sep=";", index=False)
    out, rep = tmp_path / "out.csv", tmp_path / "r.json"
    code = main(["solve", str(src), "--qi", ",".join(ADULT_QI), "--k", "5", "--sep", ";", "--time-limit", "1",
                 "--out", str(out), "--report", str(rep)])
    report = json.loads(rep.read_text())
    assert code == 4
    assert report["status"] in ("time_limit", "no_solution")
    assert out.exists() == (report["status"] == "time_limit")
    if report["status"] == "time_limit":
        assert report["objective"] is not None and report["verified"]


def test_inspect(table, capsys):
    code = main(["inspect", str(table), "--qi", "a,b,c", "--k", "2", "--sep", ";", "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0
    assert info["n_rows"] == 6 and info["t_in"] == 5
    c = info["candidates"]
    assert c["generated"] >= c["support"] >= c["kept"] and c["closure_only"] >= c["kept"]
    assert info["n_variables"] == info["n_candidates"] + info["n_pairs"]


def test_reduce_option_and_report(table, tmp_path, capsys):
    """--reduce lagrangian reports its LP rounding and rounds; --reduce none builds the whole model; both give
    the optimum; inspect --lp reports the LP bound and the pairs kept per threshold."""
    rows = [line.split(";")[:3] for line in CSV.strip().split("\r\n")[1:]]
    expected = brute_force_k_anonymity(rows, 3)[0]
    reports = {}
    for mode in ("lagrangian", "none"):
        out, rep = tmp_path / f"{mode}.csv", tmp_path / f"{mode}.json"
        code = main(["solve", str(table), "--qi", "a,b,c", "--k", "3", "--sep", ";", "--out", str(out),
                     "--report", str(rep), "--reduce", mode])
        assert code == 0
        reports[mode] = json.loads(rep.read_text())
        assert reports[mode]["objective"] == expected
    red = reports["lagrangian"]["reduction"]
    assert red["lp_bound"] <= expected <= red["rounding_objective"]
    # rounds ran, or the LP rounding's table met the Lagrangian bound before any
    assert red["rounds"] or (red["lower_bound"] == expected == red["rounding_objective"])
    assert "reduction" not in reports["none"]  # no reduction log without the reduction
    capsys.readouterr()
    code = main(["inspect", str(table), "--qi", "a,b,c", "--k", "3", "--sep", ";", "--json", "--lp"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and info["lagrangian"]["lp_bound"] <= expected
    assert all(v["pairs"] <= info["lagrangian"]["type_pairs"] <= info["n_pairs"]
               for v in info["lagrangian"]["kept_below"].values())
    # with a sensitive criterion: the k relaxation over the request's candidates and the exact blocks' bound,
    # both below the request's optimum
    ldiv = ["--qi", "a,b,c", "--k", "3", "--sep", ";", "--l", "2", "--sensitive", "note"]
    out = tmp_path / "l.csv"
    assert main(["solve", str(table), *ldiv, "--out", str(out), "--report", str(tmp_path / "l.json")]) == 0
    optimum = json.loads((tmp_path / "l.json").read_text())["objective"]
    capsys.readouterr()
    assert main(["inspect", str(table), *ldiv, "--json", "--lp"]) == 0
    lag = json.loads(capsys.readouterr().out)["lagrangian"]
    assert lag["lp_bound"] <= lag["block_start"] + 1e-9 and lag["block_bound"] <= optimum + 1e-9
    assert lag["relaxation"].startswith("the groups under the criteria") and lag["rounds"].startswith("not run")
    assert main(["inspect", str(table), *ldiv, "--lp"]) == 0
    text = capsys.readouterr().out
    assert "relaxation" in text and "block bound" in text
    tclose = ["--qi", "a,b,c", "--k", "3", "--sep", ";", "--t", "0.5", "--sensitive", "note"]
    assert main(["inspect", str(table), *tclose, "--json", "--lp"]) == 0
    lag = json.loads(capsys.readouterr().out)["lagrangian"]
    # t = 0.5 (equal) over six values asks every group for >= 3 of them: a block
    assert lag["relaxation"].startswith("the groups under") and lag["block_bound"] >= lag["lp_bound"] - 1e-9
    ordered = [*tclose[:-4], "--t", "0.3", "--distance", "ordered", "--order", "n1,n2,n3,n4,n5,n6",
               "--sensitive", "note"]
    assert main(["inspect", str(table), *ordered, "--json", "--lp"]) == 0
    lag = json.loads(capsys.readouterr().out)["lagrangian"]
    assert lag["relaxation"].startswith("k-anonymity over") and "block_bound" not in lag
    code = main(["inspect", str(table), *ldiv, "--lp", "--max-suppressed-records", "1"])
    assert code == 2 and "does not apply" in capsys.readouterr().err


def test_demo_small(capsys):
    code = main(["demo", "--qi", "sex,race", "--k", "3"])
    out = capsys.readouterr().out
    assert code == 0 and "status        optimal" in out


def test_cbc_route(table, tmp_path):
    out = tmp_path / "o.csv"
    assert main(["solve", str(table), "--qi", "a,b,c", "--k", "3", "--sep", ";", "--solver", "cbc",
                 "--out", str(out)]) == 0
