"""Local recoding with hierarchies: the MILP against brute force, cost functions, verifier."""

import pandas as pd
import pytest
from helpers import LETTERS, generalization_cases, random_hierarchy, sensitive_tables, small_tables, solve_k
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force
from milp_anon.privacy.verify import verify_release
from milp_anon.tables.recoding import Generalization


@settings(max_examples=200)
@given(generalization_cases())
def test_generalization_equals_brute_force(case):
    frame, qi, k, rec = case
    table = ma.Table.from_frame(frame, qi)
    r = ma.anonymize(table, ma.KAnonymity(k), recoding=rec)
    expected = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k)], recoding=rec, columns=qi)[0]
    if expected is None:
        assert r.status == "infeasible"
        return
    assert r.status == "optimal", r.summary()
    assert r.objective == pytest.approx(float(expected), abs=1e-9)
    verify_release(frame, r.table, qi, [ma.KAnonymity(k)], claimed_cost=r.objective, recoding=rec)


@settings(max_examples=80)
@given(data=st.data())
def test_generalization_with_sensitive_criteria(data):
    frame, qi, k = data.draw(sensitive_tables(n=(4, 8), m=(1, 2)))
    hier = {qi[0]: data.draw(random_hierarchy(list(LETTERS[:3])))}
    rec = Generalization(hier, cost=data.draw(st.sampled_from(["height", "lm"])))
    crit = data.draw(st.sampled_from([ma.LDiversity(2), ma.PSensitivity(2), ma.TCloseness(0.3)]))
    table = ma.Table.from_frame(frame, qi, "s")
    r = ma.anonymize(table, ma.KAnonymity(k), crit, recoding=rec)
    expected = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k), crit], {"s": frame["s"].tolist()},
                           recoding=rec, columns=qi)[0]
    if expected is None:
        assert r.status == "infeasible"
    else:
        assert r.status == "optimal" and r.objective == pytest.approx(float(expected), abs=1e-9)


@settings(max_examples=60)
@given(small_tables(n=(4, 9), k=(2, 3)))
def test_suppression_as_height_one_hierarchy(case):
    """Suppression written as hierarchies of height 1 gives the suppression optimum."""
    frame, qi, k = case
    hier = {c: {v: ["*"] for v in set(frame[c])} for c in qi}
    for cost in ("suppression", "height", "lm"):
        if cost == "lm":  # lm of a height-1 hierarchy is 1 only at the root: same as suppression
            pass
        g = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), recoding=Generalization(hier, cost=cost))
        s = solve_k(frame, qi, k)
        assert g.status == s.status and g.objective == s.objective


ADULT_AGE = {str(a): [f"{a // 10 * 10}-{a // 10 * 10 + 9}", "<50" if a < 50 else ">=50", "*"] for a in range(100)}


def test_generalized_cells_hold_hierarchy_text():
    frame = pd.DataFrame({"age": ["31", "35", "38", "52", "57", "59"], "sex": list("MMMMMM")})
    rec = Generalization({"age": ADULT_AGE}, cost="height")
    r = ma.anonymize(ma.Table.from_frame(frame, ["age", "sex"]), ma.KAnonymity(3), recoding=rec)
    assert r.status == "optimal"
    # hand count: classes {30-39} and {50-59}: each row costs 1/3 (age at level 1 of 3)
    assert r.objective == pytest.approx(6 / 3)
    assert r.table["age"].tolist() == ["30-39"] * 3 + ["50-59"] * 3 and set(r.table["sex"]) == {"M"}


@pytest.mark.parametrize(
    "make,match",
    [
        (lambda: Generalization({"age": ADULT_AGE}, cost="shannon"), "cost must be one of"),
        (lambda: Generalization({"age": ADULT_AGE}, cost={"age": [0, 1, 0.5, 2]}), "non-decreasing"),
        (lambda: Generalization({"age": ADULT_AGE}, cost={"age": [1, 1, 1, 2]}), "level 0"),
        (lambda: Generalization({"age": ADULT_AGE}, cost={"age": [0, 1]}), "need 4 levels"),
    ],
)
def test_bad_costs(make, match):
    frame = pd.DataFrame({"age": ["31", "35", "38"], "sex": list("MFM")})
    with pytest.raises(ma.InputError, match=match):
        ma.anonymize(ma.Table.from_frame(frame, ["age", "sex"]), ma.KAnonymity(2), recoding=make())


def test_value_missing_from_hierarchy_is_named():
    frame = pd.DataFrame({"age": ["31", "35", "abc"], "sex": list("MFM")})
    with pytest.raises(ma.InputError, match=r"value 'abc' of column 'age' is not in the hierarchy"):
        ma.anonymize(ma.Table.from_frame(frame, ["age", "sex"]), ma.KAnonymity(2),
                     recoding=Generalization({"age": ADULT_AGE}))


def test_adult_with_arx_hierarchies():
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

    qi = ["sex", "age", "race", "marital-status"]
    frame = load_adult().iloc[::20].reset_index(drop=True)
    rec = Generalization({c: adult_hierarchy_path(c) for c in qi}, cost="lm")
    r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(5), recoding=rec, time_limit=120)
    assert r.status == "optimal" and r.verified
    assert set(r.table["age"]) - set(frame["age"]) <= {p for path in rec.hierarchies["age"].paths.values()
                                                      for p in path}
