"""Interval and value-set recoding: the MILP against brute force, the verifier's reading of ranges and sets,
and ``gap`` on Mondrian-style releases (anonypy's aggregated output, ranges from overlapping partitions)."""

import json
import os
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import LETTERS, criteria_for, random_hierarchy, solve_with_oracle
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force
from milp_anon.privacy.verify import parse_range, verify_release
from milp_anon.runtime.errors import InputError, VerificationError
from milp_anon.scoring import score_release

NUMBERS = ["-3", "0", "1", "2.5", "4", "10"]


@st.composite
def interval_cases(draw):
    """A table with a numeric column x, a letter column y (value set, hierarchy or suppression),
    sometimes a third letter column, a sensitive column s; k and sometimes a sensitive criterion."""
    n = draw(st.integers(3, 8))
    nums = draw(st.lists(st.sampled_from(NUMBERS), min_size=n, max_size=n))
    ys = draw(st.lists(st.sampled_from(list(LETTERS[:3]) + ["d"]), min_size=n, max_size=n))
    frame = pd.DataFrame({"x": nums, "y": ys})
    qi = ["x", "y"]
    if draw(st.booleans()):
        frame["z"] = draw(st.lists(st.sampled_from(list(LETTERS[:2])), min_size=n, max_size=n))
        qi.append("z")
    frame["s"] = [str(v) for v in draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))]
    criteria = [ma.KAnonymity(draw(st.integers(1, 3)))]
    if draw(st.booleans()):
        criteria.append(draw(criteria_for(frame, ["p", "frequency", "distinct", "t-equal", "t-ordered"])))
    y_kind = draw(st.sampled_from(["set", "hierarchy", "suppression"]))
    hier = {}
    if y_kind == "hierarchy":
        hier["y"] = draw(random_hierarchy(list(LETTERS[:3]) + ["d"]))
    recoding = ma.Generalization(hier, cost=draw(st.sampled_from(["height", "lm"])), intervals=("x",),
                                 value_sets=("y",) if y_kind == "set" else ())
    return frame, qi, criteria, recoding


@settings(max_examples=80, deadline=None)
@given(interval_cases())
def test_milp_equals_brute_force(case):
    frame, qi, criteria, recoding = case
    table = ma.Table.from_frame(frame, qi, "s")
    r = ma.anonymize(table, *criteria, recoding=recoding)
    expected, _ = brute_force(frame[qi].to_numpy(), criteria, {"s": frame["s"].tolist()}, recoding=recoding,
                              columns=qi)
    if expected is None:
        assert r.status == "infeasible", r
        return
    assert r.status == "optimal", r
    assert r.objective == pytest.approx(float(expected), abs=1e-9)
    # intervals only add choices: never worse than suppressing those cells
    plain = ma.Generalization(recoding.hierarchies, cost=recoding.cost)
    worse, _ = brute_force(frame[qi].to_numpy(), criteria, {"s": frame["s"].tolist()}, recoding=plain, columns=qi)
    assert worse >= expected


@settings(max_examples=40, deadline=None)
@given(interval_cases(), st.integers(0, 2))
def test_with_record_suppression(case, N):
    frame, qi, criteria, recoding = case
    r, expected, _ = solve_with_oracle(frame, qi, criteria, recoding, N)
    if expected is None:
        return
    assert r.status == "optimal" and r.objective == pytest.approx(float(expected), abs=1e-9)


def test_a_worked_example():
    # ages 20, 21, 29, 30 with k = 2: {20, 21} and {29, 30} cost 2·1/10 + 2·1/10 = 0.4 (ranges of width 1
    # over the range 20..30); suppressing would cost 4
    frame = pd.DataFrame({"age": ["20", "21", "29", "30"]})
    table = ma.Table.from_frame(frame, ["age"])
    r = ma.anonymize(table, ma.KAnonymity(2), recoding=ma.Generalization(intervals=["age"]))
    assert r.status == "optimal" and r.objective == pytest.approx(0.4)
    assert sorted(r.table["age"]) == ["20-21", "20-21", "29-30", "29-30"]
    # the range spanning the whole column is '*': cost 1 per cell
    r = ma.anonymize(table, ma.KAnonymity(4), recoding=ma.Generalization(intervals=["age"]))
    assert r.objective == pytest.approx(4.0) and set(r.table["age"]) == {"*"}


def test_value_sets_cost_the_share_of_values():
    frame = pd.DataFrame({"m": ["a", "b", "c", "d", "a", "b"]})
    table = ma.Table.from_frame(frame, ["m"])
    r = ma.anonymize(table, ma.KAnonymity(2), recoding=ma.Generalization(value_sets=["m"]))
    # a and b are paired already (cost 0); c and d join as {c, d}: 2 · (2 − 1)/(4 − 1)
    assert r.objective == pytest.approx(2 / 3)
    assert sorted(set(r.table["m"])) == ["a", "b", "c,d"]


def test_overlapping_ranges_are_two_classes():
    frame = pd.DataFrame({"age": ["35", "36", "38", "38", "39", "40"]})
    released = frame.copy()
    released["age"] = ["35-39", "35-39", "35-39", "38-40", "38-40", "38-40"]
    rec = ma.Generalization(intervals=["age"])
    v = verify_release(frame, released, ["age"], [ma.KAnonymity(3)], recoding=rec)
    assert v.n_groups == 2
    assert v.cost == pytest.approx(float(3 * Fraction(4, 5) + 3 * Fraction(2, 5)))


@pytest.mark.parametrize("text, expected", [
    ("28-29", (28, 29)), ("-5--1", (-5, -1)), ("2.5-7", (Fraction(5, 2), 7)), ("[20, 29]", (20, 29)),
    ("-3-4", (-3, 4)), ("29-28", None), ("a-b", None), ("28", None), ("*", None)])
def test_parse_range(text, expected):
    assert parse_range(text) == expected


@pytest.mark.parametrize("cell, why", [
    ("30-39", "not '28'"),          # does not hold the value
    ("28,29", "not '28'"),          # a set in an interval column
    ("abc", "not '28'")])
def test_the_verifier_refuses_cells_that_do_not_hold_the_value(cell, why):
    frame = pd.DataFrame({"age": ["28", "29"]})
    released = pd.DataFrame({"age": [cell, "28-29"]})
    with pytest.raises(VerificationError, match=why):
        verify_release(frame, released, ["age"], [ma.KAnonymity(1)], recoding=ma.Generalization(intervals=["age"]))


def test_a_range_wider_than_the_data_costs_its_part_inside():
    frame = pd.DataFrame({"age": ["20", "25", "30"]})
    released = pd.DataFrame({"age": ["0-99", "0-99", "0-99"]})
    v = verify_release(frame, released, ["age"], [ma.KAnonymity(3)], recoding=ma.Generalization(intervals=["age"]))
    assert v.cost == pytest.approx(3.0)


def test_a_set_listing_a_value_the_column_lacks_is_refused():
    frame = pd.DataFrame({"m": ["a", "b"]})
    released = pd.DataFrame({"m": ["a,b,z", "a,b,z"]})
    with pytest.raises(VerificationError, match="set of the column's values"):
        verify_release(frame, released, ["m"], [ma.KAnonymity(2)], recoding=ma.Generalization(value_sets=["m"]))


@pytest.mark.parametrize("kwargs, frame, match", [
    ({"intervals": ["m"]}, {"m": ["a", "b"]}, "not a number"),
    ({"intervals": ["m"]}, {"m": ["1", "1.0"]}, "the same number"),
    ({"value_sets": ["m"]}, {"m": ["a,b", "c"]}, "contains ','"),
    ({"value_sets": ["m"]}, {"m": [str(i) for i in range(17)]}, "17 distinct values"),
    ({"value_sets": ["zz"]}, {"m": ["a", "b"]}, "not QI columns"),
])
def test_bad_cell_columns(kwargs, frame, match):
    table = ma.Table.from_frame(pd.DataFrame(frame), ["m"])
    with pytest.raises(InputError, match=match):
        ma.anonymize(table, ma.KAnonymity(1), recoding=ma.Generalization(**kwargs))


def test_bad_recodings():
    with pytest.raises(InputError, match="interval and as a value-set"):
        ma.Generalization(intervals=["a"], value_sets=["a"])
    with pytest.raises(InputError, match="has a hierarchy"):
        ma.Generalization({"a": {"x": ["*"], "y": ["*"]}}, intervals=["a"])
    with pytest.raises(InputError, match="local recodings"):
        ma.Generalization(intervals=["a"], scheme="full-domain")
    table = ma.Table.from_frame(pd.DataFrame({"a": ["1", "2", "3", "4"]}), ["a"])
    with pytest.raises(InputError, match="cost objective"):
        ma.anonymize(table, ma.KAnonymity(2), recoding=ma.Generalization(intervals=["a"]), budget=4,
                     objective="types")


# --- gap on Mondrian-style releases -----------------------------------------------------------------

def _mondrian_like(frame, qi, interval, k, rng):
    """A Mondrian-style release: median cuts on ``interval`` only, ranges ``lo-hi`` and value sets
    (in a random order) for the other QIs, written as anonypy does (one row per class and sensitive
    value with a count, each cell a one-element list), rows shuffled."""
    order = np.argsort(frame[interval].astype(float).to_numpy(), kind="stable")
    parts = [order[i:i + k] for i in range(0, len(order) - len(order) % k, k)]
    if len(order) % k:
        parts[-1] = np.concatenate([parts[-1], order[len(order) - len(order) % k:]])
    rows = []
    for p in parts:
        sub = frame.iloc[p]
        cells = {}
        for c in qi:
            if c == interval:
                x = sub[c].astype(float)
                lo, hi = sub[c][x.idxmin()], sub[c][x.idxmax()]
                cells[c] = f"['{lo}']" if lo == hi else f"['{lo}-{hi}']"
            else:
                vals = list(dict.fromkeys(sub[c]))
                rng.shuffle(vals)
                cells[c] = f"['{','.join(vals)}']"
        for s, cnt in sub["s"].value_counts().items():
            rows.append({**cells, "s": s, "count": int(cnt)})
    out = pd.DataFrame(rows)
    return out.iloc[rng.permutation(len(out))].reset_index(drop=True)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 3))
def test_gap_scores_mondrian_style_releases(seed, k):
    rng = np.random.default_rng(seed)
    n = 12
    frame = pd.DataFrame({"age": [str(x) for x in rng.integers(18, 60, n)],
                          "m": rng.choice(list("abcd"), n), "s": rng.choice(["x", "y"], n),
                          "extra": [str(i) for i in range(n)]})
    released = _mondrian_like(frame, ["age", "m"], "age", k, rng)
    table = ma.Table.from_frame(frame, ["age", "m"], "s")
    rec = ma.Generalization(intervals=["age"], value_sets=["m"])
    rep = score_release(table, released, [ma.KAnonymity(k)], rec, count_column="count", ignore=["extra"])
    assert rep.valid, rep.violation
    # the cost from the definitions, class by class
    ages = frame["age"].astype(float)
    span, D = ages.max() - ages.min(), frame["m"].nunique()
    expected = 0.0
    for _, row in released.iterrows():
        a = row["age"][2:-2]
        lo, hi = (float(x) for x in a.split("-")) if "-" in a else (float(a), float(a))
        ms = row["m"][2:-2].split(",")
        expected += row["count"] * ((hi - lo) / span if span else 0.0)
        expected += row["count"] * ((len(ms) - 1) / (D - 1) if len(ms) > 1 else 0.0)
    assert rep.cost == pytest.approx(expected)
    assert rep.status == "optimal" and rep.optimum <= rep.cost + 1e-9


def test_gap_refuses_a_release_with_a_record_too_many():
    frame = pd.DataFrame({"age": ["20", "21", "22", "23"], "s": ["x", "x", "y", "y"]})
    released = pd.DataFrame({"age": ["20-21", "22-23"], "s": ["x", "y"], "count": [2, 3]})
    table = ma.Table.from_frame(frame, ["age"], "s")
    rep = score_release(table, released, [ma.KAnonymity(2)], ma.Generalization(intervals=["age"]),
                        count_column="count", solve=False)
    assert not rep.valid and "not a recoding of any input row" in rep.violation


def test_gap_with_counts_and_record_suppression():
    # the release drops the row aged 90; as a withheld record it costs its one QI cell
    frame = pd.DataFrame({"age": ["20", "21", "22", "23", "90"], "s": ["x", "x", "y", "y", "x"]})
    released = pd.DataFrame({"age": ["20-21", "22-23"], "s": ["x", "y"], "count": [2, 2]})
    table = ma.Table.from_frame(frame, ["age"], "s")
    rec = ma.Generalization(intervals=["age"])
    rep = score_release(table, released, [ma.KAnonymity(2)], rec, count_column="count", solve=False)
    assert not rep.valid and "--record-suppression" in rep.violation
    rep = score_release(table, released, [ma.KAnonymity(2)], rec, count_column="count", record_suppression=True)
    assert rep.valid and rep.withheld_records == 1
    assert rep.cost == pytest.approx(4 * 1 / 70 + 1)
    assert rep.status == "optimal" and rep.optimum == pytest.approx(rep.cost)


@pytest.mark.parametrize("counts, match", [(["2", "x"], "'x' is not a whole number"),
                                           (["2", "0"], "'0' is not a whole number")])
def test_bad_counts(counts, match):
    frame = pd.DataFrame({"age": ["20", "21", "22", "23"]})
    released = pd.DataFrame({"age": ["20-21", "22-23"], "count": counts})
    with pytest.raises(InputError, match=match):
        score_release(ma.Table.from_frame(frame, ["age"]), released, [ma.KAnonymity(2)],
                      ma.Generalization(intervals=["age"]), count_column="count", solve=False)


def test_gap_scores_a_real_anonypy_release(tmp_path, capsys):
    """anonypy 0.2.1's Mondrian output as it comes (tests/data/README.md), scored by the CLI."""
    from milp_anon.cli import main
    from milp_anon.tables.datasets import load_adult

    fixture = os.path.join(os.path.dirname(__file__), "data", "anonypy-0.2.1_adult150_k5.csv")
    adult = load_adult().head(150)
    src = tmp_path / "adult150.csv"
    adult.to_csv(src, sep=";", index=False)
    rep_path = tmp_path / "gap.json"
    code = main(["gap", str(src), fixture, "--sep", ";", "--qi", "sex,age,race", "--sensitive", "salary-class",
                 "--k", "5", "--count", "count", "--interval", "age", "--value-set", "sex,race",
                 "--ignore", "marital-status,education,native-country,workclass,occupation",
                 "--report", str(rep_path)])
    assert code == 0, capsys.readouterr().err
    rep = json.loads(rep_path.read_text())
    # the cost from the definitions, row by row of the fixture
    rel = pd.read_csv(fixture, sep=";", dtype=str)
    ages = adult["age"].astype(float)
    span, D = ages.max() - ages.min(), adult["race"].nunique()
    expected = 0.0
    for _, row in rel.iterrows():
        n = int(row["count"])
        age = row["age"][2:-2]
        lo, hi = (float(x) for x in age.split("-")) if "-" in age else (float(age),) * 2
        races = row["race"][2:-2].split(",")
        sexes = row["sex"][2:-2].split(",")
        expected += n * ((hi - lo) / span + (len(races) - 1) / (D - 1) + (len(sexes) - 1))
    assert rep["valid"] and rep["cost"] == pytest.approx(expected)
    assert rep["status"] == "optimal" and rep["optimum"] < rep["cost"]
    assert rep["gap"] == pytest.approx((rep["cost"] - rep["optimum"]) / rep["optimum"])


def test_solve_writes_ranges_and_sets(tmp_path):
    from milp_anon.cli import main

    frame = pd.DataFrame({"age": ["20", "21", "29", "30", "31"], "m": ["a", "b", "a", "b", "c"]})
    src, out = tmp_path / "t.csv", tmp_path / "out.csv"
    frame.to_csv(src, index=False)
    assert main(["solve", str(src), "--qi", "age,m", "--k", "2", "--interval", "age", "--value-set", "m",
                 "--out", str(out), "--quiet"]) == 0
    released = pd.read_csv(out, dtype=str)
    v = verify_release(frame, released, ["age", "m"], [ma.KAnonymity(2)],
                       recoding=ma.Generalization(intervals=["age"], value_sets=["m"]))
    assert v.min_group_size >= 2 and any("-" in x for x in released["age"])
