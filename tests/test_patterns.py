"""Pattern-guided k-anonymity: MILP against brute force, the greedy (Algorithm 1), Thm. 4."""

import itertools

import pandas as pd
import pytest
from helpers import small_tables, solve_k
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force
from milp_anon.heuristics import pattern_greedy
from milp_anon.privacy.verify import verify_release


@st.composite
def pattern_cases(draw):
    frame, qi, k = draw(small_tables(n=(4, 9), m=(1, 4), alphabet=(2, 3), k=(2, 3)))
    m = len(qi)
    all_masks = ["".join(b) for b in itertools.product("10", repeat=m)]
    pats = draw(st.lists(st.sampled_from(all_masks), min_size=1, max_size=len(all_masks), unique=True))
    return frame, qi, k, pats


@settings(max_examples=200)
@given(pattern_cases())
def test_patterns_equal_brute_force(case):
    frame, qi, k, pats = case
    rec = ma.Patterns(pats)
    table = ma.Table.from_frame(frame, qi)
    r = ma.anonymize(table, ma.KAnonymity(k), recoding=rec)
    expected = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k)], recoding=rec, columns=qi)[0]
    if expected is None:
        assert r.status == "infeasible", r.summary()
        assert r.reason
        return
    assert r.status == "optimal", r.summary()
    assert r.objective == expected
    verify_release(frame, r.table, qi, [ma.KAnonymity(k)], claimed_cost=expected, recoding=rec)
    # the greedy is a valid (never better) solution whenever it returns one
    g = pattern_greedy(table, k, rec.masks(table))
    if g is not None:
        released, cost = g
        verify_release(frame, released, qi, [ma.KAnonymity(k)], claimed_cost=cost, recoding=rec)
        assert cost >= expected


@settings(max_examples=60)
@given(small_tables(n=(4, 9), k=(2, 3)))
def test_all_masks_is_plain_k_anonymity(case):
    frame, qi, k = case
    pats = ["".join(b) for b in itertools.product("10", repeat=len(qi))]
    a = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), recoding=ma.Patterns(pats))
    b = solve_k(frame, qi, k)
    assert a.status == b.status and a.objective == b.objective


def tight_instance(m, k):
    """Thm. 4: k all-1 rows; for each column i, k−1 rows all 1 but a unique symbol at i.
    Patterns: all-keep, all-suppress, and 'suppress only column i' for each i."""
    rows = [["1"] * m for _ in range(k)]
    u = 0
    for i in range(m):
        for _ in range(k - 1):
            r = ["1"] * m
            r[i] = f"u{u}"
            u += 1
            rows.append(r)
    frame = pd.DataFrame(rows, columns=[f"q{c}" for c in range(m)])
    pats = ["1" * m, "0" * m] + ["".join("0" if c == i else "1" for c in range(m)) for i in range(m)]
    return frame, ma.Patterns(pats)


@pytest.mark.parametrize("m,k", [(3, 3), (3, 5), (4, 4), (5, 6)])
def test_theorem_4_tight_instance(m, k):
    """Greedy keeps the k all-1 rows and fully suppresses the m(k−1) others: m²(k−1) stars.
    The optimum suppresses one cell per row (block i at column i, one all-1 row joins each
    block): k + m(k−1) stars (hand count, needs k >= m). The ratio tends to m as k grows."""
    frame, rec = tight_instance(m, k)
    table = ma.Table.from_frame(frame, list(frame.columns))
    released, cost = pattern_greedy(table, k, rec.masks(table))
    verify_release(frame, released, list(frame.columns), [ma.KAnonymity(k)], claimed_cost=cost, recoding=rec)
    opt = ma.anonymize(table, ma.KAnonymity(k), recoding=rec)
    assert cost == m * m * (k - 1)
    assert opt.status == "optimal" and opt.objective == k + m * (k - 1)


def test_unhostable_rows_are_named():
    frame = pd.DataFrame({"a": list("xxyyz"), "b": list("11223")})
    r = ma.anonymize(ma.Table.from_frame(frame, ["a", "b"]), ma.KAnonymity(2), recoding=ma.Patterns(["10", "01"]))
    assert r.status == "infeasible" and "data rows 5" in r.reason


@pytest.mark.parametrize("pats,match", [(["1x"], "must have 2 characters"), (["111"], "must have 2"),
                                        ([["a", "zz"]], "not QI columns: zz"), ([], "empty")])
def test_bad_patterns(pats, match):
    frame = pd.DataFrame({"a": list("xxyy"), "b": list("1122")})
    with pytest.raises(ma.InputError, match=match):
        ma.anonymize(ma.Table.from_frame(frame, ["a", "b"]), ma.KAnonymity(2), recoding=ma.Patterns(pats))


def test_pattern_symbols_and_column_lists_agree():
    frame = pd.DataFrame({"a": list("xxyyz"), "b": list("11223"), "c": list("ppqqq")})
    t = ma.Table.from_frame(frame, ["a", "b", "c"])
    a = ma.anonymize(t, ma.KAnonymity(2), recoding=ma.Patterns(["□□☆", "☆☆☆"]))
    b = ma.anonymize(t, ma.KAnonymity(2), recoding=ma.Patterns([["a", "b"], []]))
    assert a.objective == b.objective


@settings(max_examples=60)
@given(pattern_cases())
def test_greedy_warm_start_keeps_the_optimum(case):
    frame, qi, k, pats = case
    table = ma.Table.from_frame(frame, qi)
    cold = ma.anonymize(table, ma.KAnonymity(k), recoding=ma.Patterns(pats))
    warm = ma.anonymize(table, ma.KAnonymity(k), recoding=ma.Patterns(pats), warm_start="greedy")
    assert cold.status == warm.status and cold.objective == warm.objective
    if warm.warm_start_cost is not None:
        assert warm.warm_start_cost >= warm.objective


def test_warm_start_needs_k_only_suppression():
    frame = pd.DataFrame({"a": list("xxyy"), "s": list("1212")})
    t = ma.Table.from_frame(frame, ["a"], "s")
    with pytest.raises(ma.InputError, match="k-anonymity alone"):
        ma.anonymize(t, ma.KAnonymity(2), ma.PSensitivity(2), warm_start="greedy", recoding=ma.Patterns(["1", "0"]))
    # with suppression the start is the plain suppression greedy, which handles every criterion
    r = ma.anonymize(t, ma.KAnonymity(2), ma.PSensitivity(2), warm_start="greedy")
    assert r.status == "optimal" and r.objective == 0 and r.warm_start_cost == 0
    with pytest.raises(ma.InputError, match="local recoding"):
        ma.anonymize(t, ma.KAnonymity(2), warm_start="greedy",
                     recoding=ma.Generalization({"a": {"x": ["*"], "y": ["*"]}}, scheme="full-domain"))
    # hierarchies: Mondrian with the hierarchies handles every criterion
    r = ma.anonymize(t, ma.KAnonymity(2), ma.PSensitivity(2), warm_start="greedy",
                     recoding=ma.Generalization({"a": {"x": ["*"], "y": ["*"]}}))
    assert r.status == "optimal" and r.warm_start_cost is not None


@settings(max_examples=80)
@given(data=st.data())
def test_patterns_with_sensitive_criteria(data):
    from helpers import criteria_for, sensitive_tables

    frame, qi, k = data.draw(sensitive_tables(n=(4, 8), m=(1, 3)))
    all_masks = ["".join(b) for b in itertools.product("10", repeat=len(qi))]
    pats = data.draw(st.lists(st.sampled_from(all_masks), min_size=1, max_size=len(all_masks), unique=True))
    crit = data.draw(criteria_for(frame, ["p", "frequency", "recursive", "t-equal", "t-ordered"]))
    rec = ma.Patterns(pats)
    r = ma.anonymize(ma.Table.from_frame(frame, qi, "s"), ma.KAnonymity(k), crit, recoding=rec)
    expected = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k), crit], {"s": frame["s"].tolist()},
                           recoding=rec, columns=qi)[0]
    if expected is None:
        assert r.status == "infeasible"
    else:
        assert r.status == "optimal" and r.objective == expected


def test_greedy_start_outside_the_budget_is_skipped():
    frame, rec = tight_instance(3, 3)  # greedy costs 18, the optimum 9
    table = ma.Table.from_frame(frame, list(frame.columns))
    r = ma.anonymize(table, ma.KAnonymity(3), recoding=rec, budget=9, warm_start="greedy")
    assert r.status == "optimal" and r.objective == 9 and r.warm_start_cost is None
