"""Risk and utility of released tables (issue 95): each metric against a hand computation from its definition
(ARX's published formulas), the REPORT.json contract of ``solve`` and ``gap``, ``gap --score-only``, peers'
tables read without ``--ignore``, and per-column weights against a weighted brute force."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.cli import main
from milp_anon.exact.brute_force import set_partitions
from milp_anon.privacy.risk import prosecutor_risk
from milp_anon.privacy.utility import utility_metrics
from milp_anon.tables.hierarchy import Hierarchy

L2 = math.log2


def _frame(**cols):
    return pd.DataFrame({c: [str(x) for x in v] for c, v in cols.items()})


# --- prosecutor risk ----------------------------------------------------------------------------------------

def test_prosecutor_risk_by_hand():
    # classes of 2, 3 and 5 rows: risks 1/2, 1/3, 1/5; 5 records above 0.2 (the 2- and 3-row classes)
    rel = _frame(a=["x"] * 2 + ["y"] * 3 + ["z"] * 5)
    r = prosecutor_risk(rel, ["a"])
    assert r["max"] == 0.5
    assert r["average"] == pytest.approx((2 * 0.5 + 3 / 3 + 5 / 5) / 10)  # = 3 classes / 10 records
    assert r["records_above"] == 5 and r["records_above_share"] == 0.5 and r["threshold"] == 0.2


def test_prosecutor_risk_leaves_withheld_records_out():
    rel = _frame(a=["x", "x", "*", "*"], b=["p", "p", "p", "*"])
    r = prosecutor_risk(rel, ["a", "b"], withheld=np.array([False, False, False, True]))
    # released: (x,p) twice, (*,p) once -> risks 1/2, 1/2, 1
    assert r["max"] == 1.0 and r["average"] == pytest.approx(2 / 3)
    assert r["records_above"] == 3 and r["records_above_share"] == 1.0
    none = prosecutor_risk(rel, ["a", "b"], withheld=np.ones(4, dtype=bool))
    assert none["max"] is None and none["records_above"] == 0


# --- utility: suppression, hierarchies, intervals, value sets, withheld records -----------------------------

ORIG = _frame(a=["x", "x", "y", "z"], b=["p", "p", "p", "q"])
SUPP = _frame(a=["x", "x", "*", "*"], b=["p", "p", "p", "*"])


def test_utility_of_suppression_by_hand():
    u = utility_metrics(ORIG, SUPP, ["a", "b"])
    # loss = precision: the share of '*' cells per column (a: 2 of 4, b: 1 of 4), mean over the columns
    assert u["per_column"]["loss"] == {"a": 0.5, "b": 0.25}
    assert u["per_column"]["precision"] == {"a": 0.5, "b": 0.25}
    assert u["loss"] == u["precision"] == pytest.approx(0.375)
    # entropy: a '*' over a value seen N(v) times of n = 4 costs -log2(N(v)/4): y and z once each; q once
    assert u["per_column"]["non_uniform_entropy"]["a"] == pytest.approx(2 + 2)
    assert u["per_column"]["non_uniform_entropy"]["b"] == pytest.approx(2)
    assert u["non_uniform_entropy"] == pytest.approx(6)
    # ARX's maximum: every cell suppressed; a: x,x at -log2(2/4) = 1 each, y, z 2 each; b: p x3 at log2(4/3), q 2
    assert u["normalized"]["non_uniform_entropy"] == pytest.approx(6 / (6 + 3 * L2(4 / 3) + 2))
    # classes (x,p) x2, (*,p), (*,*): 4 + 1 + 1; the input's own classes (x,p) x2, (y,p), (z,q): also 6
    assert u["discernibility"] == 6 and u["normalized"]["discernibility"] == 0
    assert u["aecs"] == pytest.approx(4 / 3) and u["normalized"]["aecs"] == 0


def test_utility_with_a_withheld_record_by_hand():
    u = utility_metrics(ORIG, SUPP, ["a", "b"], withheld=np.array([False, False, False, True]))
    # the withheld record (z, q) counts as '*' in every QI: the cell figures are unchanged here
    assert u["per_column"]["loss"] == {"a": 0.5, "b": 0.25}
    assert u["non_uniform_entropy"] == pytest.approx(6)
    # released classes (x,p) x2 and (*,p): 4 + 1, plus n = 4 for the withheld record; AECS: 4 records in
    # 2 released classes and the withheld records' one
    assert u["discernibility"] == 4 + 1 + 4
    assert u["normalized"]["discernibility"] == pytest.approx((9 - 6) / (16 - 6))
    assert u["aecs"] == pytest.approx(4 / 3)


def test_utility_of_a_hierarchy_by_hand():
    # 6 leaves in the hierarchy (5 and 6 are not in the data), height 2
    h = Hierarchy.coerce({"1": ["1-2", "*"], "2": ["1-2", "*"], "3": ["3-4", "*"], "4": ["3-4", "*"],
                          "5": ["5-6", "*"], "6": ["5-6", "*"]})
    rec = ma.Generalization({"age": h}, cost="lm")
    orig = _frame(age=[1, 2, 3, 3])
    rel = _frame(age=["1-2", "1-2", "3", "*"])
    u = utility_metrics(orig, rel, ["age"], rec)
    # loss: '1-2' covers 2 of 6 leaves, (2 - 1)/(6 - 1) = 0.2; '*' 1
    assert u["loss"] == pytest.approx((0.2 + 0.2 + 0 + 1) / 4)
    # precision: level / height = 1/2 for '1-2', 1 for '*'
    assert u["precision"] == pytest.approx((0.5 + 0.5 + 0 + 1) / 4)
    # entropy: '1-2' covers 1 and 2 (once each): -log2(1/2) each; 3 as '*': -log2(2/4)
    assert u["non_uniform_entropy"] == pytest.approx(1 + 1 + 0 + 1)


def test_utility_of_intervals_by_hand():
    rec = ma.Generalization(intervals=["age"])
    orig = _frame(age=[10, 20, 20, 40])
    rel = _frame(age=["10-20", "10-20", "20", "*"])
    u = utility_metrics(orig, rel, ["age"], rec)
    # loss: width over the range 10..40: 10/30; precision: a range is the one level above the value
    assert u["loss"] == pytest.approx((1 / 3 + 1 / 3 + 0 + 1) / 4)
    assert u["precision"] == pytest.approx(3 / 4)
    # entropy: 10-20 covers 10 (once) and 20 (twice): 10 costs log2(3), 20 log2(3/2); 40 as '*': log2(4)
    assert u["non_uniform_entropy"] == pytest.approx(L2(3) + L2(3 / 2) + 2)


def test_utility_of_value_sets_by_hand():
    rec = ma.Generalization(value_sets=["race"])
    orig = _frame(race=["a", "a", "b", "c"])
    rel = _frame(race=["a,b", "a", "a,b", "*"])
    u = utility_metrics(orig, rel, ["race"], rec)
    # loss: a 2-set of 3 values, (2 - 1)/(3 - 1); precision 1 per recoded cell
    assert u["loss"] == pytest.approx((0.5 + 0 + 0.5 + 1) / 4)
    assert u["precision"] == pytest.approx(3 / 4)
    # entropy: {a, b} holds 3 records: a costs log2(3/2), b log2(3); c as '*': log2(4)
    assert u["non_uniform_entropy"] == pytest.approx(L2(3 / 2) + L2(3) + 2)


def test_loss_of_a_release_is_its_lm_cost_per_cell():
    """Under ``lm`` costs, intervals' width and value sets' share the loss is the verified cost over n·m."""
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult
    table = ma.Table.from_frame(load_adult().head(60), qi=["sex", "age", "race"])
    rec = ma.Generalization({"age": adult_hierarchy_path("age")}, cost="lm", value_sets=["race"])
    r = ma.anonymize(table, ma.KAnonymity(4), recoding=rec, max_suppressed_records=2, time_limit=60)
    assert r.utility["loss"] == pytest.approx(r.cost / (60 * 3))
    for c, v in r.cost_by_column.items():
        assert r.utility["per_column"]["loss"][c] == pytest.approx(v / 60)


# --- the contract: REPORT.json of solve and gap, the summaries, --score-only ----------------------------------

TABLE = ("sex,age,race,occ,note\n"
         "M,30,w,a,x\nM,30,w,b,x\nF,31,b,a,y\nF,31,b,c,y\nM,32,w,a,z\nM,32,b,b,z\nF,30,w,c,x\nF,33,b,a,y\n")


def _contract(rep):
    assert set(rep["risk"]["prosecutor"]) >= {"max", "average", "records_above"}
    assert set(rep["utility"]) >= {"loss", "precision", "non_uniform_entropy", "discernibility", "aecs"}
    assert set(rep["utility"]["per_column"]) == {"loss", "precision", "non_uniform_entropy"}
    for metric in rep["utility"]["per_column"].values():
        assert set(metric) == {"sex", "age", "race"}


def test_report_keys_of_solve_and_gap(tmp_path, capsys):
    t = tmp_path / "t.csv"
    t.write_text(TABLE)
    assert main(["solve", str(t), "--qi", "sex,age,race", "--k", "2", "--out", str(tmp_path / "o.csv"),
                 "--report", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert any(ln.startswith("risk ") for ln in out.splitlines())
    assert any(ln.startswith("utility ") for ln in out.splitlines())
    solved = json.loads((tmp_path / "r.json").read_text())
    _contract(solved)
    # every class has >= 2 rows: risk at most 1/2
    assert solved["risk"]["prosecutor"]["max"] <= 0.5
    assert main(["gap", str(t), str(tmp_path / "o.csv"), "--qi", "sex,age,race", "--k", "2",
                 "--report", str(tmp_path / "g.json")]) == 0
    out = capsys.readouterr().out
    assert any(ln.startswith("risk ") for ln in out.splitlines())
    scored = json.loads((tmp_path / "g.json").read_text())
    _contract(scored)
    assert scored["utility"] == solved["utility"] and scored["risk"] == solved["risk"]  # the same table


def test_gap_score_only_end_to_end(tmp_path, capsys):
    t = tmp_path / "t.csv"
    t.write_text(TABLE)
    anon = tmp_path / "a.csv"
    rows = [r.split(",") for r in TABLE.splitlines()[1:]]
    anon.write_text("sex,age,race,occ,note\n" + "".join(f"*,*,*,{r[3]},{r[4]}\n" for r in rows))
    assert main(["gap", str(t), str(anon), "--qi", "sex,age,race", "--k", "2", "--score-only",
                 "--report", str(tmp_path / "g.json")]) == 0
    out = capsys.readouterr().out
    assert "not computed (--score-only)" in out
    rep = json.loads((tmp_path / "g.json").read_text())
    _contract(rep)
    assert rep["valid"] and rep["cost"] == 24 and rep["score_only"]
    assert rep["optimum"] is None and rep["gap"] is None and rep["status"] is None and rep["bound"] is None
    # one class of 8: risk 1/8 for everyone; every cell suppressed: loss and precision 1, entropy at ARX's max
    assert rep["risk"]["prosecutor"] == {"max": 0.125, "average": 0.125, "records_above": 0,
                                         "records_above_share": 0.0, "threshold": 0.2}
    assert rep["utility"]["loss"] == 1 and rep["utility"]["precision"] == 1
    assert rep["utility"]["normalized"]["non_uniform_entropy"] == pytest.approx(1)
    assert rep["utility"]["discernibility"] == 64 and rep["utility"]["aecs"] == 8


# --- peers' tables as written --------------------------------------------------------------------------------

def _peer_files(tmp_path):
    t = tmp_path / "t.csv"
    t.write_text(TABLE)
    rows = [r.split(",") for r in TABLE.splitlines()[1:]]
    return t, rows


def test_anjana_like_index_column_is_read_without_ignore(tmp_path, capsys):
    t, rows = _peer_files(tmp_path)
    anon = tmp_path / "anjana.csv"
    anon.write_text("index,sex,age,race,occ,note\n"
                    + "".join(f"{i},*,*,*,{r[3]},{r[4]}\n" for i, r in enumerate(rows)))
    assert main(["gap", str(t), str(anon), "--qi", "sex,age,race", "--k", "2", "--score-only"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln for ln in lines if ln.startswith("ignored")] == ["ignored    index (the release's row numbering)"]
    # withheld records dropped (anjana's suppression): the index numbers the kept input rows, from 1 here
    anon.write_text("index,sex,age,race,occ,note\n"
                    + "".join(f"{i + 1},*,*,*,{r[3]},{r[4]}\n" for i, r in enumerate(rows) if i != 2))
    assert main(["gap", str(t), str(anon), "--qi", "sex,age,race", "--k", "2", "--score-only",
                 "--record-suppression", "--report", str(tmp_path / "g.json")]) == 0
    rep = json.loads((tmp_path / "g.json").read_text())
    assert rep["ignored_columns"] == ["index"] and rep["withheld_records"] == 1


def test_an_index_that_is_not_a_row_numbering_stays_an_error(tmp_path, capsys):
    t, rows = _peer_files(tmp_path)
    anon = tmp_path / "a.csv"
    anon.write_text("index,sex,age,race,occ,note\n" + "".join(f"7,*,*,*,{r[3]},{r[4]}\n" for r in rows))
    assert main(["gap", str(t), str(anon), "--qi", "sex,age,race", "--k", "2", "--score-only"]) == 2
    assert "unexpected index" in capsys.readouterr().err


def test_anonypy_like_table_without_the_other_columns(tmp_path, capsys):
    t, rows = _peer_files(tmp_path)
    anon = tmp_path / "anonypy.csv"  # only the QI and sensitive columns, each cell a one-element list
    anon.write_text("sex,age,race,occ\n" + "".join(f"['*'],['*'],['*'],{r[3]}\n" for r in rows))
    assert main(["gap", str(t), str(anon), "--qi", "sex,age,race", "--sensitive", "occ", "--k", "2",
                 "--score-only"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln for ln in lines if ln.startswith("ignored")] == [
        "ignored    note (not in the release, neither QI nor sensitive)"]
    # a QI (or sensitive) column left out is still an error
    anon.write_text("sex,age,occ\n" + "".join(f"*,*,{r[3]}\n" for r in rows))
    assert main(["gap", str(t), str(anon), "--qi", "sex,age,race", "--sensitive", "occ", "--k", "2",
                 "--score-only"]) == 2
    assert "missing race" in capsys.readouterr().err


# --- per-column weights ------------------------------------------------------------------------------------

def _weighted_brute_force(arr, k, w):
    """min over set partitions into blocks of >= k rows of Σ_blocks |B| · Σ_{columns varying in B} w_c."""
    best = None
    for part in set_partitions(range(len(arr))):
        if any(len(b) < k for b in part):
            continue
        cost = sum(len(b) * sum(w[c] for c in range(arr.shape[1]) if len({arr[i, c] for i in b}) > 1)
                   for b in part)
        best = cost if best is None or cost < best else best
    return best


@st.composite
def weighted_cases(draw):
    n = draw(st.integers(3, 7))
    m = draw(st.integers(1, 3))
    arr = np.array([[draw(st.sampled_from("ab" if c % 2 else "abc")) for c in range(m)] for _ in range(n)],
                   dtype=object)
    k = draw(st.integers(2, 3))
    w = [draw(st.sampled_from([0.5, 1.0, 2.0, 3.0])) for _ in range(m)]
    return arr, k, w


@settings(max_examples=40, deadline=None)
@given(weighted_cases())
def test_weights_agree_with_a_weighted_brute_force(case):
    arr, k, w = case
    qi = [f"q{c}" for c in range(arr.shape[1])]
    frame = pd.DataFrame(arr, columns=qi)
    expect = _weighted_brute_force(arr, k, w)
    weights = dict(zip(qi, w))
    r = ma.anonymize(frame, ma.KAnonymity(k), qi=qi, recoding=ma.Suppression(weights=weights))
    if expect is None:
        assert r.status == "infeasible"
        return
    assert r.status == "optimal" and r.cost == pytest.approx(expect)
    assert sum(r.cost_by_column.values()) == pytest.approx(expect)
    ones = ma.anonymize(frame, ma.KAnonymity(k), qi=qi, recoding=ma.Suppression(weights=dict.fromkeys(qi, 1)))
    plain = ma.anonymize(frame, ma.KAnonymity(k), qi=qi)
    assert ones.cost == plain.cost == _weighted_brute_force(arr, k, [1] * len(qi))


def test_weights_change_the_optimum_and_gap_scores_with_them(tmp_path):
    # 4 rows: (a,x) (a,y) (b,x) (b,y), k = 2. Pair by the first column (suppress the second) or by the
    # second (suppress the first): 4 cells either way; a weight of 3 on the second column forces the latter
    frame = pd.DataFrame({"u": ["a", "a", "b", "b"], "v": ["x", "y", "x", "y"]})
    r = ma.anonymize(frame, ma.KAnonymity(2), qi=["u", "v"], recoding=ma.Suppression(weights={"v": 3}))
    assert r.cost == 4 and r.cost_by_column == {"u": 4.0, "v": 0}
    t = tmp_path / "t.csv"
    frame.to_csv(t, index=False)
    anon = tmp_path / "a.csv"
    pd.DataFrame({"u": ["a", "a", "b", "b"], "v": ["*"] * 4}).to_csv(anon, index=False)
    assert main(["gap", str(t), str(anon), "--qi", "u,v", "--k", "2", "--weight", "v=3",
                 "--report", str(tmp_path / "g.json")]) == 0
    rep = json.loads((tmp_path / "g.json").read_text())
    assert rep["cost"] == 12 and rep["optimum"] == 4 and rep["gap"] == 2


def test_weights_scale_generalization_costs():
    h = {"30": ["30-31", "*"], "31": ["30-31", "*"], "32": ["32-33", "*"], "33": ["32-33", "*"]}
    frame = pd.DataFrame({"sex": ["M", "M", "F", "F"], "age": ["30", "31", "32", "33"]})
    plain = ma.anonymize(frame, ma.KAnonymity(2), qi=["sex", "age"],
                         recoding=ma.Generalization({"age": h}, cost="height"))
    heavy = ma.anonymize(frame, ma.KAnonymity(2), qi=["sex", "age"],
                         recoding=ma.Generalization({"age": h}, cost="height", weights={"age": 2}))
    # {30,31} and {32,33} released at level 1 of 2: 4 cells at 1/2, doubled by the weight
    assert plain.cost == 2 and heavy.cost == 4 and heavy.cost_by_column == {"sex": 0.0, "age": 4.0}


@pytest.mark.parametrize("weights, phrase", [({"age": 0}, "> 0"), ({"age": -1}, "> 0"),
                                             ({"age": float("nan")}, "> 0"), ({"age": "2"}, "> 0"),
                                             ({"nope": 2}, "not QI columns")])
def test_bad_weights_in_the_api(weights, phrase):
    frame = pd.DataFrame({"sex": ["M", "M"], "age": ["30", "30"]})
    with pytest.raises(ma.InputError, match=phrase):
        ma.anonymize(frame, ma.KAnonymity(2), qi=["sex", "age"], recoding=ma.Suppression(weights=weights))
