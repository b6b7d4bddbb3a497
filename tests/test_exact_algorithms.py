"""The papers' exact algorithms against brute force, the MILP and the gadget optimum."""

import itertools

import numpy as np
import pandas as pd
import pytest
from helpers import LETTERS, criteria_for, random_hierarchy, sensitive_tables, small_tables
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.bench.instances import edge_table, planted_partition_graph
from milp_anon.exact import (
    brute_force,
    divide_and_conquer,
    fpt_patterns,
    fpt_t_in,
    kernel_then,
    kernelize,
    simplex_hypergraph,
    split_recursion,
    two_anonymity,
    two_diversity,
)
from milp_anon.release.partition import verified_release


def _few_types(frame, qi, limit):
    return len(frame[qi].drop_duplicates()) <= limit


def _check_blocks(frame, qi, blocks, criteria, cost, recoding=None, sensitive=None):
    """The algorithm's partition is a verified release of exactly the claimed cost."""
    table = ma.Table.from_frame(frame, qi, sensitive)
    _, verified = verified_release(table, blocks, criteria, recoding)
    assert verified == pytest.approx(float(cost))


@st.composite
def hier_cases(draw):
    frame, qi, k = draw(small_tables(n=(4, 8), m=(1, 2), alphabet=(2, 3), k=(2, 3)))
    hier = {c: draw(random_hierarchy(list(LETTERS[:3]))) for c in qi if draw(st.booleans())}
    cost = draw(st.sampled_from(["suppression", "height", "lm"]))
    return frame, qi, k, (ma.Generalization(hier, cost=cost) if hier else None)


@settings(max_examples=120)
@given(small_tables(n=(2, 9), m=(1, 3), k=(1, 4)))
def test_divide_and_conquer_equals_brute_force(case):
    frame, qi, k = case
    arr = frame[qi].to_numpy()
    expected = brute_force(arr, [ma.KAnonymity(k)])[0]
    cost, blocks = divide_and_conquer(arr, k)
    assert cost == expected
    if cost is not None:
        _check_blocks(frame, qi, blocks, [ma.KAnonymity(k)], cost)


@settings(max_examples=60)
@given(hier_cases())
def test_divide_and_conquer_with_hierarchies(case):
    frame, qi, k, rec = case
    arr = frame[qi].to_numpy()
    expected = brute_force(arr, [ma.KAnonymity(k)], recoding=rec, columns=qi)[0]
    cost, blocks = divide_and_conquer(arr, k, rec, qi)
    assert cost == expected
    if cost is not None:
        _check_blocks(frame, qi, blocks, [ma.KAnonymity(k)], cost, rec)


@settings(max_examples=40)
@given(st.data())
def test_kernel_then_exact_equals_milp(data):
    """Many copies of few rows: the kernel peels groups; kernel + D&C = the MILP optimum."""
    m = data.draw(st.integers(1, 2))
    k = data.draw(st.integers(2, 3))
    n_types = data.draw(st.integers(1, 3))
    types = [tuple(data.draw(st.sampled_from("ab")) for _ in range(m)) for _ in range(n_types)]
    counts = [data.draw(st.integers(1, 60)) for _ in types]
    rows = [t for t, c in zip(types, counts) for _ in range(c)]
    frame = pd.DataFrame(rows, columns=[f"q{c}" for c in range(m)])
    qi = list(frame.columns)
    arr = frame.to_numpy()
    assume(len(arr) >= k)
    kernel, peeled = kernelize(arr, k)
    threshold = k * 2 * k * 2 ** m
    kept = pd.Series([tuple(r) for r in arr[kernel]]).value_counts()
    assert kept.max() <= threshold
    assert all(len(g) == k and len({tuple(arr[r]) for r in g}) == 1 for g in peeled)
    cost, blocks = kernel_then(arr, k, divide_and_conquer)
    r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k))
    assert r.status == "optimal" and r.objective == cost
    _check_blocks(frame, qi, blocks, [ma.KAnonymity(k)], cost)


def test_kernel_peels_when_a_row_is_frequent():
    frame = pd.DataFrame({"q0": ["a"] * 40 + ["b"] * 3})
    kernel, peeled = kernelize(frame.to_numpy(), 2)  # threshold 2*4*2 = 16
    assert len(peeled) == 12 and len(kernel) == 43 - 24


@settings(max_examples=80)
@given(small_tables(n=(2, 8), m=(1, 3), alphabet=(2, 2), k=(1, 3)))
def test_fpt_t_in_equals_brute_force(case):
    frame, qi, k = case
    assume(_few_types(frame, qi, 4))
    arr = frame[qi].to_numpy()
    cost, blocks = fpt_t_in(arr, k)
    assert cost == brute_force(arr, [ma.KAnonymity(k)])[0]
    if cost is not None:
        _check_blocks(frame, qi, blocks, [ma.KAnonymity(k)], cost)


@settings(max_examples=40)
@given(hier_cases())
def test_fpt_t_in_with_hierarchies(case):
    """Bredereck et al. Thm. 5: the same algorithm with lowest common ancestors."""
    frame, qi, k, rec = case
    assume(_few_types(frame, qi, 4))
    arr = frame[qi].to_numpy()
    cost, blocks = fpt_t_in(arr, k, rec, qi)
    assert cost == brute_force(arr, [ma.KAnonymity(k)], recoding=rec, columns=qi)[0]
    if cost is not None:
        _check_blocks(frame, qi, blocks, [ma.KAnonymity(k)], cost, rec)


@settings(max_examples=60)
@given(sensitive_tables(n=(2, 8), m=(1, 2), alphabet=(2, 2), values=(2, 3), k=(1, 3)), st.integers(1, 3))
def test_p_row_assignment_equals_brute_force(case, p):
    frame, qi, k = case
    assume(_few_types(frame, qi, 4))
    arr = frame[qi].to_numpy()
    crits = [ma.KAnonymity(k), ma.PSensitivity(p)]
    expected = brute_force(arr, crits, {"s": frame["s"].tolist()})[0]
    cost, blocks = fpt_t_in(arr, k, p=p, sensitive=frame["s"].tolist())
    assert cost == expected
    if cost is not None:
        _check_blocks(frame, qi, blocks, crits, cost, sensitive="s")


@settings(max_examples=60)
@given(small_tables(n=(2, 7), m=(1, 3), alphabet=(2, 2), k=(1, 3)), st.data())
def test_fpt_patterns_equals_brute_force(case, data):
    frame, qi, k = case
    assume(_few_types(frame, qi, 4))
    m = len(qi)
    all_masks = ["".join(b) for b in itertools.product("10", repeat=m)]
    pats = data.draw(st.lists(st.sampled_from(all_masks), min_size=1, max_size=3, unique=True))
    rec = ma.Patterns(pats)
    arr = frame[qi].to_numpy()
    table = ma.Table.from_frame(frame, qi)
    cost, blocks = fpt_patterns(arr, k, rec.masks(table))
    assert cost == brute_force(arr, [ma.KAnonymity(k)], recoding=rec, columns=qi)[0]
    if cost is not None:
        _check_blocks(frame, qi, blocks, [ma.KAnonymity(k)], cost, rec)
        r = ma.anonymize(table, ma.KAnonymity(k), recoding=rec)
        assert r.status == "optimal" and r.objective == cost


@settings(max_examples=120)
@given(st.data())
def test_split_recursion_equals_brute_force(data):
    """Liang-Yuan Thm. 8 for t-closeness (every metric) and the other criteria."""
    frame, qi, k = data.draw(sensitive_tables(n=(2, 8), m=(1, 2), k=(1, 3)))
    crit = data.draw(criteria_for(frame, ["t-equal", "t-ordered", "t-hier", "t-matrix", "frequency", "recursive"]))
    crits = [ma.KAnonymity(k), crit]
    arr = frame[qi].to_numpy()
    sens = {"s": frame["s"].tolist()}
    expected = brute_force(arr, crits, sens)[0]
    cost, blocks = split_recursion(arr, crits, sens)
    assert cost == expected
    if cost is not None:
        _check_blocks(frame, qi, blocks, crits, cost, sensitive="s")


@settings(max_examples=100)
@given(small_tables(n=(2, 9), m=(1, 3), k=(2, 2)))
def test_two_anonymity_simplex_matching(case):
    frame, qi, _ = case
    arr = frame[qi].to_numpy()
    cost, blocks = two_anonymity(arr)
    assert cost == brute_force(arr, [ma.KAnonymity(2)])[0]
    if cost is not None:
        assert all(len(b) in (2, 3) for b in blocks)
        _check_blocks(frame, qi, blocks, [ma.KAnonymity(2)], cost)


@settings(max_examples=100)
@given(sensitive_tables(n=(2, 8), m=(1, 3), values=(2, 4), k=(2, 2)))
def test_two_diversity_simplex_matching(case):
    frame, qi, _ = case
    arr = frame[qi].to_numpy()
    sens = {"s": frame["s"].tolist()}
    crits = [ma.KAnonymity(2), ma.LDiversity(2)]
    cost, blocks = two_diversity(arr, sens)
    assert cost == brute_force(arr, crits, sens)[0]
    if cost is not None:
        _check_blocks(frame, qi, blocks, crits, cost, sensitive="s")


@settings(max_examples=30)
@given(sensitive_tables(n=(3, 6), m=(1, 3), values=(2, 4), k=(2, 2)), st.booleans())
def test_simplex_condition_holds(case, diversity):
    """Blocki-Williams Thm. 1 / Liang-Yuan Thm. 11: the hypergraph meets the simplex condition."""
    frame, qi, _ = case
    edges = simplex_hypergraph(frame[qi].to_numpy(), diversity=diversity, sensitive={"s": frame["s"].tolist()})
    for e, c in edges.items():
        if len(e) == 3:
            assert 2 * c >= sum(edges[p] for p in itertools.combinations(e, 2))


@settings(max_examples=40, deadline=None)
@given(small_tables(n=(10, 13), m=(2, 4), alphabet=(2, 2), k=(2, 3)))
def test_milp_equals_divide_and_conquer_beyond_brute_force(case):
    frame, qi, k = case
    arr = frame[qi].to_numpy()
    r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k))
    assert r.status == "optimal" and r.objective == divide_and_conquer(arr, k)[0]
    if k == 2:
        assert r.objective == two_anonymity(arr)[0]


@pytest.mark.parametrize("seed", range(4))
def test_gadget_optimum_by_exact_algorithms(seed):
    """Blocki-Williams App. C: planted triangles / 4-stars give optimum 3|E| — for D&C and Liang-Yuan too."""
    edges = planted_partition_graph(7, 2, seed)
    frame = edge_table(edges, 7)
    arr = frame.to_numpy()
    assert divide_and_conquer(arr, 3)[0] == 3 * len(edges)
    assert split_recursion(arr, [ma.KAnonymity(3)])[0] == 3 * len(edges)


def test_infeasible_and_empty():
    arr = np.array([["a"], ["b"]], dtype=object)
    assert divide_and_conquer(arr, 3) == (None, None)
    assert fpt_t_in(arr, 3) == (None, None)
    assert two_diversity(arr, {"s": ["x", "x"]}) == (None, None)
    assert split_recursion(arr, [ma.KAnonymity(3)]) == (None, None)
