"""The criteria options of `milp-anon solve` (exit codes and outputs)."""

import json

import pandas as pd
import pytest

import milp_anon as ma
from milp_anon.cli import main
from milp_anon.exact import brute_force

ROWS = ["x;1;a;flu", "x;1;a;cold", "x;2;a;flu", "y;2;b;cancer", "y;2;b;flu", "y;1;b;cold", "x;1;b;cancer",
        "y;1;a;cold"]
HIER = "flu;respiratory;*\ncold;respiratory;*\ncancer;other;*\n"


@pytest.fixture
def files(tmp_path):
    p = tmp_path / "in.csv"
    p.write_text("a;b;c;disease\n" + "\n".join(ROWS) + "\n")
    h = tmp_path / "h.csv"
    h.write_text(HIER)
    return p, h


def frame():
    return pd.DataFrame([r.split(";") for r in ROWS], columns=["a", "b", "c", "disease"])


@pytest.mark.parametrize(
    "args,crits",
    [
        (["--k", "2", "--l", "2"], [ma.KAnonymity(2), ma.LDiversity(2)]),
        (["--l", "2", "--l-kind", "distinct"], [ma.LDiversity(2, kind="distinct")]),
        (["--l", "2", "--l-kind", "recursive", "--c", "2"], [ma.LDiversity(2, kind="recursive", c=2)]),
        (["--p", "2", "--k", "3"], [ma.KAnonymity(3), ma.PSensitivity(2)]),
        (["--t", "0.3"], [ma.TCloseness(0.3)]),
        (["--t", "0.3", "--distance", "ordered", "--order", "flu,cold,cancer"],
         [ma.TCloseness(0.3, distance="ordered", order=["flu", "cold", "cancer"])]),
        (["--t", "0.25", "--distance", "hierarchical", "--sensitive-hierarchy", "H"],
         [ma.TCloseness(0.25, distance="hierarchical", hierarchy={"flu": ["respiratory", "*"],
                                                                    "cold": ["respiratory", "*"],
                                                                    "cancer": ["other", "*"]})]),
    ],
)
def test_solve_with_criteria(files, tmp_path, args, crits):
    inp, hier = files
    args = [str(hier) if a == "H" else a for a in args]
    out, rep = tmp_path / "out.csv", tmp_path / "r.json"
    code = main(["solve", str(inp), "--qi", "a,b,c", "--sensitive", "disease", "--sep", ";", "--out", str(out),
                 "--report", str(rep)] + args)
    f = frame()
    expected = brute_force(f[["a", "b", "c"]].to_numpy(), crits, {"disease": f["disease"].tolist()})[0]
    report = json.loads(rep.read_text())
    assert code == 0 and report["status"] == "optimal"
    assert report["objective"] == expected
    released = pd.read_csv(out, sep=";", dtype=str)
    assert (released["disease"] == f["disease"]).all()


@pytest.mark.parametrize(
    "args,reason",
    [
        (["--p", "4"], "exceeds the 3 distinct values"),
        (["--l", "4", "--l-kind", "distinct"], "exceeds the 3 distinct values"),
        (["--k", "9"], "exceeds the number of rows"),
    ],
)
def test_infeasible_exit_3(files, tmp_path, capsys, args, reason):
    inp, _ = files
    out = tmp_path / "out.csv"
    code = main(["solve", str(inp), "--qi", "a,b", "--sensitive", "disease", "--sep", ";", "--out", str(out)] + args)
    assert code == 3 and reason in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize(
    "args,match",
    [
        (["--t", "1.5"], "--t: expected a number in [0, 1]"),
        (["--t", "-0.1"], "--t: expected a number in [0, 1]"),
        (["--l", "0.5"], "--l: expected a number >= 1"),
        (["--p", "0"], "--p: expected a whole number >= 1"),
        (["--l", "2", "--l-kind", "recursive", "--c", "0.5"], "c must be in"),
        (["--l", "2", "--c", "2"], "--c applies to --l-kind recursive only"),
        (["--t", "0.2", "--distance", "hierarchical"], "needs a hierarchy"),
        (["--t", "0.2", "--distance", "ordered"], "not all numbers"),
        (["--t", "0.2", "--distance", "ordered", "--order", "flu,cold"], "misses value"),
        (["--t", "0.2", "--distance", "hierarchical", "--sensitive-hierarchy", "nope.csv"], "not found"),
        (["--order", "a,b"], "need --t"),
    ],
)
def test_bad_criteria_exit_2(files, tmp_path, capsys, args, match):
    inp, _ = files
    out = tmp_path / "out.csv"
    code = main(["solve", str(inp), "--qi", "a,b", "--sensitive", "disease", "--sep", ";", "--out", str(out)] + args)
    err = capsys.readouterr().err
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_criterion_without_sensitive_column(files, tmp_path, capsys):
    inp, _ = files
    code = main(["solve", str(inp), "--qi", "a,b", "--sep", ";", "--l", "2", "--out", str(tmp_path / "o.csv")])
    assert code == 2 and "needs a sensitive column" in capsys.readouterr().err


def test_value_missing_from_sensitive_hierarchy(files, tmp_path, capsys):
    inp, _ = files
    h = tmp_path / "h2.csv"
    h.write_text("flu;respiratory;*\ncold;respiratory;*\n")
    code = main(["solve", str(inp), "--qi", "a,b", "--sensitive", "disease", "--sep", ";", "--t", "0.3",
                 "--distance", "hierarchical", "--sensitive-hierarchy", str(h), "--out", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert code == 2 and "value 'cancer' of column 'disease' is not in the hierarchy" in err


def test_inspect_with_criteria(files, capsys):
    inp, _ = files
    code = main(["inspect", str(inp), "--qi", "a,b,c", "--sensitive", "disease", "--sep", ";", "--k", "2",
                 "--l", "2", "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and info["n_units"] == 8 and "l-diversity distinct values" in info["candidates"]


def test_solve_with_hierarchies(tmp_path):
    inp = tmp_path / "in.csv"
    inp.write_text("age;sex\n31;M\n35;M\n38;M\n52;M\n57;M\n59;M\n")
    h = tmp_path / "age.csv"
    h.write_text("".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(100)))
    out, rep = tmp_path / "out.csv", tmp_path / "r.json"
    code = main(["solve", str(inp), "--qi", "age,sex", "--k", "3", "--sep", ";", "--hierarchy", f"age={h}",
                 "--cost", "height", "--out", str(out), "--report", str(rep)])
    assert code == 0
    released = pd.read_csv(out, sep=";", dtype=str)
    assert released["age"].tolist() == ["30-39"] * 3 + ["50-59"] * 3  # text exactly as in the file
    assert json.loads(rep.read_text())["objective"] == pytest.approx(3.0)  # 6 rows at level 1 of 2


@pytest.mark.parametrize(
    "extra,match",
    [
        (["--hierarchy", "age"], "COL=FILE"),
        (["--hierarchy", "age=nope.csv"], "not found"),
        (["--cost", "lm"], "--cost needs"),
        (["--hierarchy", "zz=H"], "not QI columns: zz"),
    ],
)
def test_bad_hierarchy_args(tmp_path, capsys, extra, match):
    inp = tmp_path / "in.csv"
    inp.write_text("age;sex\n31;M\n35;M\n")
    h = tmp_path / "h.csv"
    h.write_text("31;30-39;*\n35;30-39;*\n")
    extra = [e.replace("=H", f"={h}") for e in extra]
    code = main(["solve", str(inp), "--qi", "age,sex", "--k", "2", "--sep", ";", "--out", str(tmp_path / "o.csv")]
                + extra)
    err = capsys.readouterr().err
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1


def test_solve_with_patterns(tmp_path):
    inp = tmp_path / "in.csv"
    inp.write_text("a,b,c\nx,1,p\nx,1,p\ny,2,q\ny,2,q\nz,3,q\n")
    pats = tmp_path / "p.txt"
    pats.write_text("110\n011\n000\n")
    out, rep = tmp_path / "out.csv", tmp_path / "r.json"
    code = main(["solve", str(inp), "--qi", "a,b,c", "--k", "2", "--patterns", str(pats), "--out", str(out),
                 "--report", str(rep)])
    frame = pd.read_csv(inp, dtype=str)
    expected = brute_force(frame.to_numpy(), [ma.KAnonymity(2)], recoding=ma.Patterns(["110", "011", "000"]),
                           columns=["a", "b", "c"])[0]
    assert code == 0 and json.loads(rep.read_text())["objective"] == expected
    bad = tmp_path / "bad.txt"
    bad.write_text("10\n")
    assert main(["solve", str(inp), "--qi", "a,b,c", "--k", "2", "--patterns", str(bad),
                 "--out", str(tmp_path / "o2.csv")]) == 2


def test_solve_with_options(tmp_path):
    inp = tmp_path / "in.csv"
    inp.write_text("a,b\nx,1\nx,1\ny,2\ny,2\nz,3\nz,3\n")
    rep = tmp_path / "r.json"
    code = main(["solve", str(inp), "--qi", "a,b", "--k", "2", "--t-out-max", "2", "--out", str(tmp_path / "o.csv"),
                 "--report", str(rep)])
    # hand count: three pairs must become two classes; the cheapest merges two pairs (4 rows x 2 stars)
    assert code == 0 and json.loads(rep.read_text())["objective"] == 8
    assert main(["solve", str(inp), "--qi", "a,b", "--k", "2", "--budget", "7", "--t-out-max", "2",
                 "--out", str(tmp_path / "o2.csv")]) == 3
    assert main(["solve", str(inp), "--qi", "a,b", "--k", "2", "--objective", "types",
                 "--out", str(tmp_path / "o3.csv")]) == 2
