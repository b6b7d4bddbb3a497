"""`milp-anon gap` beyond one table in the input's order: row ids, ignored columns, withheld records
(ARX's and anjana's record suppression), a reused optimum, and the wording of an unproven optimum."""

import json

import pandas as pd
import pytest
from helpers import sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.cli import main
from milp_anon.scoring import score_release

QI = ["a", "b"]
ORIGINAL = pd.DataFrame({"id": ["r1", "r2", "r3", "r4", "r5", "r6"], "a": list("aaaabc"),
                         "b": list("xxxxyz"), "s": list("121212")})


def _table(frame=ORIGINAL):
    return ma.Table.from_frame(frame, QI, "s")


def _release(rows, withheld_as_stars=()):
    out = ORIGINAL.copy()
    out.loc[list(withheld_as_stars), QI] = "*"
    return out.iloc[list(rows)].reset_index(drop=True)


def test_rows_matched_by_id_in_any_order():
    rel = _release([5, 4, 3, 2, 1, 0])
    rel.loc[rel["id"].isin(["r5", "r6"]), QI] = "*"
    assert not score_release(_table(), rel, [ma.KAnonymity(2)], solve=False).valid  # by position: wrong rows
    rep = score_release(_table(), rel, [ma.KAnonymity(2)], id_column="id")
    assert rep.valid and rep.cost == 4 and rep.optimum == 4 and rep.gap == 0


def test_rows_missing_from_a_release_matched_by_id_are_suppressed_records(tmp_path, capsys):
    """Issue 17's contract: with ``--id`` alone, the input's rows missing from the release are suppressed records,
    each charged all its QI cells, and the optimum may withhold as many (``--max-suppressed-records`` lowers it)."""
    rel = _release([3, 0, 2, 1])  # anjana's way: r5 (b, y) and r6 (c, z) dropped, the rest in another order
    rep = score_release(_table(), rel, [ma.KAnonymity(3)], id_column="id")
    # 2 records × 2 QI cells; a class of r5, r6 and an (a, x) row instead costs 6, so the optimum withholds both
    assert rep.valid and rep.withheld_records == 2 and rep.max_suppressed_records == 2
    assert rep.cost == 4 and rep.optimum == 4 and rep.gap == 0
    orig, anon, out = tmp_path / "orig.csv", tmp_path / "anon.csv", tmp_path / "gap.json"
    ORIGINAL.to_csv(orig, index=False)
    rel.to_csv(anon, index=False)
    assert main(["gap", str(orig), str(anon), "--qi", "a,b", "--k", "3", "--id", "id", "--report", str(out)]) == 0
    g = json.loads(out.read_text())
    assert g["valid"] and g["withheld_records"] == 2 and g["cost"] == 4 and g["optimum"] == 4 and g["gap"] == 0
    capsys.readouterr()
    assert main(["gap", str(orig), str(anon), "--qi", "a,b", "--k", "3", "--id", "id",
                 "--max-suppressed-records", "1"]) == 5
    assert "2 records withheld, more than 1" in capsys.readouterr().err
    # nothing missing: the same score as before the contract (no record counted as withheld)
    whole = score_release(_table(), _release(range(6), withheld_as_stars=[4, 5]), [ma.KAnonymity(2)],
                          id_column="id", solve=False)
    assert whole.valid and whole.withheld_records == 0 and whole.max_suppressed_records is None


def test_withheld_records_missing_or_all_stars():
    # r5 and r6 fit no class of 2 without 4 stars; anjana drops them, ARX writes them as '*' rows
    plain = score_release(_table(), _release([0, 1, 2, 3]), [ma.KAnonymity(2)], solve=False)
    assert not plain.valid and "scored with --record-suppression" in plain.violation
    for rel in (_release([0, 1, 2, 3]), _release(range(6), withheld_as_stars=[4, 5])):
        rep = score_release(_table(), rel, [ma.KAnonymity(3)], record_suppression=True)
        assert rep.valid and rep.withheld_records == 2 and rep.max_suppressed_records == 2
        assert rep.cost == 4 and rep.optimum == 4 and rep.gap == 0  # 2 records × 2 cells; the optimum may withhold 2
    tight = score_release(_table(), _release([0, 1, 2, 3]), [ma.KAnonymity(3)], record_suppression=True,
                          max_withheld=1)
    assert not tight.valid and "2 records withheld, more than 1" in tight.violation
    # with k = 2 the two '*' rows are a class of their own: nothing withheld
    rep = score_release(_table(), _release(range(6), withheld_as_stars=[4, 5]), [ma.KAnonymity(2)],
                        record_suppression=True)
    assert rep.valid and rep.withheld_records == 0 and rep.cost == 4 and rep.gap == 0


def test_withheld_records_matched_in_order():
    rel = _release([0, 1, 3, 4, 5])
    rel.loc[[3, 4], QI] = "*"
    rep = score_release(_table(), rel, [ma.KAnonymity(2)], record_suppression=True)
    # r3 is missing (withheld, 2 cells); the '*' rows r5, r6 are a class of 2 (4 cells)
    assert rep.valid and rep.withheld_records == 1 and rep.cost == 6 and rep.optimum == 4 and rep.gap == 0.5
    rev = score_release(_table(), rel.iloc[::-1], [ma.KAnonymity(2)], record_suppression=True, solve=False)
    assert not rev.valid and "not a recoding of any input row" in rev.violation


def test_ignored_columns():
    rel = _release(range(6), withheld_as_stars=[4, 5]).assign(extra="x").drop(columns=["id"])
    rep = score_release(_table(), rel, [ma.KAnonymity(2)], ignore=["extra", "id"], record_suppression=True)
    assert rep.valid and rep.cost == 4
    with pytest.raises(ma.InputError, match="leave columns out with --ignore"):
        score_release(_table(), rel, [ma.KAnonymity(2)])
    with pytest.raises(ma.InputError, match="QI or sensitive"):
        score_release(_table(), rel, [ma.KAnonymity(2)], ignore=["a"])
    with pytest.raises(ma.InputError, match="no such column"):
        score_release(_table(), rel, [ma.KAnonymity(2)], ignore=["nope"])


def test_bad_ids_are_input_errors():
    rel = _release(range(6))
    for frame, match in ((rel.assign(id=["r1"] * 6), "repeats the id"),
                         (rel.assign(id=[f"x{i}" for i in range(6)]), "which the input lacks")):
        with pytest.raises(ma.InputError, match=match):
            score_release(_table(), frame, [ma.KAnonymity(2)], id_column="id")
    with pytest.raises(ma.InputError, match="QI or sensitive"):
        score_release(_table(), rel, [ma.KAnonymity(2)], id_column="a")


@pytest.fixture
def files(tmp_path):
    orig = tmp_path / "orig.csv"
    ORIGINAL.to_csv(orig, index=False)
    rel = tmp_path / "anjana.csv"
    _release([0, 1, 2, 3]).to_csv(rel, index=False)
    report = tmp_path / "opt.json"  # the optimum that may withhold 2 records, solved once
    assert main(["solve", str(orig), *ARGS, "--max-suppressed-records", "2", "--report", str(report),
                 "--out", str(tmp_path / "o.csv"), "--quiet"]) == 0
    return tmp_path, orig, rel, report


ARGS = ["--qi", "a,b", "--sensitive", "s", "--k", "2"]


def test_cli_reuses_an_optimum_and_refuses_another_problem(files, capsys):
    tmp, orig, rel, report = files
    args = ARGS
    capsys.readouterr()
    assert main(["gap", str(orig), str(rel), *args, "--record-suppression", "--optimum-from", str(report)]) == 0
    out = capsys.readouterr().out
    assert "optimum    4 (proven optimal; may withhold 2 records; from" in out and "gap        0 %" in out
    for other in (["--k", "3"], ["--max-suppressed-records", "1"]):
        code = main(["gap", str(orig), str(rel), *args, "--record-suppression", "--optimum-from", str(report),
                     *other])
        assert code == 2 and "solved another problem" in capsys.readouterr().err
    changed = tmp / "orig2.csv"
    ORIGINAL.assign(id=list("ABCDEF")).to_csv(changed, index=False)  # another file: ids differ
    assert main(["gap", str(changed), str(rel), *args, "--record-suppression", "--optimum-from", str(report),
                 "--ignore", "id"]) == 2
    assert "input file (SHA-256)" in capsys.readouterr().err


def test_an_unproven_optimum_is_called_best_known_with_its_bound(files, capsys):
    tmp, orig, rel, report = files
    args = ARGS
    rep = json.loads(report.read_text())
    rep.update(status="time_limit", objective=4.0, bound=10 / 3, gap=1 / 6)  # as a solve stopped by its limit
    report.write_text(json.dumps(rep))
    capsys.readouterr()
    out_json = tmp / "g.json"
    assert main(["gap", str(orig), str(rel), *args, "--record-suppression", "--optimum-from", str(report),
                 "--report", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert not any(line.startswith("optimum") for line in out.splitlines())
    assert "best known 4 (time_limit: not proven optimal" in out and "bound      3.33333" in out
    assert "between 0 % (to the best known) and 20 % (to the bound)" in out
    g = json.loads(out_json.read_text())
    assert g["optimum"] is None and g["gap"] is None and g["best_known"] == 4
    assert g["gap_to_bound"] == pytest.approx(0.2) and g["gap_to_best_known"] == 0


def test_cli_record_suppression_needs_the_flag(files, capsys):
    tmp, orig, rel, _ = files
    capsys.readouterr()
    assert main(["gap", str(orig), str(rel), "--qi", "a,b", "--k", "2"]) == 5
    assert "--record-suppression" in capsys.readouterr().err
    assert main(["gap", str(orig), str(rel), "--qi", "a,b", "--k", "2", "--max-suppressed-records", "3"]) == 2
    assert "needs --record-suppression" in capsys.readouterr().err


@settings(max_examples=40, deadline=None)
@given(sensitive_tables(n=(3, 9), m=(1, 3), k=(1, 3)), st.integers(0, 3), st.randoms(use_true_random=False))
def test_an_optimal_release_with_withheld_records_scores_gap_0(case, N, rnd):
    """Solve with record suppression, drop the withheld rows (as anjana does), shuffle the rest, match by id."""
    frame, qi, k = case
    frame = frame.assign(id=[f"r{i}" for i in range(len(frame))])
    table = ma.Table.from_frame(frame, qi, "s")
    r = ma.anonymize(table, ma.KAnonymity(k), max_suppressed_records=N)
    if r.status != "optimal":
        return
    rel = r.table.copy()
    order = list(range(len(rel)))
    rnd.shuffle(order)
    rep = score_release(table, rel.iloc[order], [ma.KAnonymity(k)], id_column="id", record_suppression=True,
                        max_withheld=N)
    assert rep.valid, rep.violation
    assert rep.cost == pytest.approx(r.cost) and rep.optimum == pytest.approx(r.cost) and rep.gap == 0
    assert rep.withheld_records == len(r.withheld)
