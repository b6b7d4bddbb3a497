"""The exact Lagrangian blocks of sensitive criteria (milp_anon/blocks.py) against enumeration.

Each block is enumerated over every integer group ``0 <= x_u <= n_u`` of one
candidate; the criteria are checked from their definitions here (distinct
values counted, the largest count against the size), not by the code under test.
"""

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from milp_anon import blocks
from milp_anon.blocks import combine, distinct_blocks, frequency_blocks
from milp_anon.lagrangian import block_prices


def enumerate_block(v, n, val, ok):
    """``(optimum over non-empty groups meeting ok, forced optimum per unit)``; inf where none."""
    best, forced = math.inf, [math.inf] * len(v)
    for x in itertools.product(*[range(int(c) + 1) for c in n]):
        if sum(x) == 0 or not ok(x):
            continue
        cost = sum(a * b for a, b in zip(v, x))
        best = min(best, cost)
        for u, xu in enumerate(x):
            if xu >= 1:
                forced[u] = min(forced[u], cost)
    return best, forced


def distinct_ok(val, k, D):
    return lambda x: sum(x) >= k and len({val[u] for u, xu in enumerate(x) if xu}) >= D


def frequency_ok(val, k, a, b):
    def ok(x):
        counts = {}
        for u, xu in enumerate(x):
            counts[val[u]] = counts.get(val[u], 0) + xu
        return sum(x) >= k and a * max(counts.values()) <= b * sum(x)
    return ok


@st.composite
def blocks_instance(draw):
    """Two or three candidates over up to 5 units with small counts and integer or half-integer costs."""
    U = draw(st.integers(1, 5))
    n = np.array([draw(st.integers(1, 3)) for _ in range(U)], dtype=float)
    value = np.array([draw(st.integers(0, 3)) for _ in range(U)])
    pi = np.array([draw(st.integers(-4, 8)) / 2 for _ in range(U)])
    C = draw(st.integers(1, 3))
    w = np.array([draw(st.integers(0, 6)) / 2 for _ in range(C)])
    pairs = [(u, j) for j in range(C) for u in range(U) if draw(st.booleans()) or u == j % U]
    pair_unit = np.array([p[0] for p in pairs], dtype=np.int64)
    pair_cand = np.array([p[1] for p in pairs], dtype=np.int64)
    k = draw(st.integers(1, 5))
    return pi, n, w, pair_unit, pair_cand, value, k


def check_against_enumeration(prices, inst, ok_of, exact_forced):
    pi, n, w, pu, pc, value, k = inst
    for j in range(w.shape[0]):
        idx = np.flatnonzero(pc == j)
        units = pu[idx]
        v = [w[j] - pi[u] for u in units]
        best, forced = enumerate_block(v, n[units], value[units], ok_of(value[units]))
        if exact_forced or prices.rc[j] < 0 or best < 0:
            # exact: the same optimum (inf when no group meets the criterion)
            assert prices.rc[j] == best or math.isclose(prices.rc[j], best, abs_tol=1e-9)
        else:
            # a non-negative block may keep k-anonymity's value, which only ever lies below
            assert 0 <= prices.rc[j] <= best + 1e-9
        for p, f in zip(idx, forced):
            if exact_forced:
                assert prices.forced[p] == f or math.isclose(prices.forced[p], f, abs_tol=1e-9)
            else:
                assert prices.forced[p] <= f + 1e-9  # a lower bound on the forced block
        # the block solution is a group of the candidate meeting the criterion, at cost rc
        if math.isfinite(prices.rc[j]) and (exact_forced or prices.rc[j] < 0):
            x = prices.take[idx]
            assert np.all((x >= 0) & (x <= n[units])) and ok_of(value[units])(tuple(int(t) for t in x))
            assert math.isclose(float(np.dot(x, v)), prices.rc[j], abs_tol=1e-9)


@settings(max_examples=300, deadline=None)
@given(blocks_instance(), st.integers(1, 3))
def test_distinct_blocks_equal_enumeration(inst, D):
    pi, n, w, pu, pc, value, k = inst
    prices = distinct_blocks(pi, n, w, pu, pc, value, k, D)
    check_against_enumeration(prices, inst, lambda val: distinct_ok(val, k, D), exact_forced=True)
    finite = np.minimum(prices.rc, 0.0)
    assert math.isclose(prices.bound, float(pi @ n + finite.sum()))


@settings(max_examples=300, deadline=None)
@given(blocks_instance(), st.sampled_from([(1, 1), (3, 2), (2, 1), (5, 2), (3, 1)]), st.booleans())
def test_frequency_blocks_equal_enumeration(inst, ab, small_chunks):
    """Also with caps q evaluated one or two at a time, so the early stop between chunks is exercised."""
    pi, n, w, pu, pc, value, k = inst
    a, b = ab
    saved = blocks._Q_CHUNK, blocks._Q_CHUNK_MAX
    if small_chunks:
        blocks._Q_CHUNK, blocks._Q_CHUNK_MAX = 1, 2
    try:
        prices = frequency_blocks(pi, n, w, pu, pc, value, k, a, b)
    finally:
        blocks._Q_CHUNK, blocks._Q_CHUNK_MAX = saved
    check_against_enumeration(prices, inst, lambda val: frequency_ok(val, k, a, b), exact_forced=False)


def recursive_ok(val, k, c_num, c_den, l):
    """Recursive (c, l)-diversity from its definition: r_1 < c (r_l + r_{l+1} + ...), counts sorted down."""
    def ok(x):
        counts = {}
        for u, xu in enumerate(x):
            counts[val[u]] = counts.get(val[u], 0) + xu
        r = sorted(counts.values(), reverse=True)
        return sum(x) >= k and c_den * r[0] < c_num * sum(r[l - 1:])
    return ok


@settings(max_examples=300, deadline=None)
@given(blocks_instance(), st.sampled_from([(1, 1), (3, 2), (2, 1), (3, 1)]))
def test_strict_cap_blocks_equal_recursive_2_diversity(inst, c):
    """Recursive (c, 2)-diversity is the strict-cap block with a/b = (c + 1)/c, against enumeration."""
    pi, n, w, pu, pc, value, k = inst
    num, den = c
    prices = frequency_blocks(pi, n, w, pu, pc, value, k, num + den, num, strict=True)
    check_against_enumeration(prices, inst, lambda val: recursive_ok(val, k, num, den, 2), exact_forced=False)


@settings(max_examples=100, deadline=None)
@given(blocks_instance(), st.integers(1, 3))
def test_combined_blocks_bound_both_criteria(inst, D):
    """The combination of k, distinct and frequency blocks never lies above the enumerated optimum of the
    group problem under both criteria, per candidate and per forced pair."""
    pi, n, w, pu, pc, value, k = inst
    prices = combine([block_prices(pi, n, w, pu, pc, k), distinct_blocks(pi, n, w, pu, pc, value, k, D),
                      frequency_blocks(pi, n, w, pu, pc, value, k, 2, 1)], pi, n, pc)
    for j in range(w.shape[0]):
        idx = np.flatnonzero(pc == j)
        units = pu[idx]
        v = [w[j] - pi[u] for u in units]
        d_ok, f_ok = distinct_ok(value[units], k, D), frequency_ok(value[units], k, 2, 1)
        best, forced = enumerate_block(v, n[units], value[units], lambda x: d_ok(x) and f_ok(x))
        assert prices.rc[j] <= best + 1e-9
        for p, f in zip(idx, forced):
            assert prices.forced[p] <= f + 1e-9
