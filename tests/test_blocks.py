"""The exact Lagrangian blocks of sensitive criteria (milp_anon/bounds/blocks.py) against enumeration.

Each block is enumerated over every integer group ``0 <= x_u <= n_u`` of one
candidate; the criteria are checked from their definitions here (distinct
values counted, the largest count against the size), not by the code under test.
"""

import functools
import itertools
import math
import time
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from milp_anon.bounds import blocks
from milp_anon.bounds.blocks import ball_blocks, combine, distinct_blocks, emd_blocks, frequency_blocks
from milp_anon.bounds.lagrangian import block_prices
from milp_anon.exact.brute_force import emd_flow


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


def _ball_lp_max(b, P, absent, tau):
    """``max b·q`` over distributions ``q`` on the table's values with ``TV(q, P ∪ absent) <= tau``, by an LP
    written from the definition (``TV = ½ Σ |q_s − P_s|`` over the whole domain, ``q = 0`` on absent values)."""
    import pulp

    lp = pulp.LpProblem("ball", pulp.LpMaximize)
    new_var = lp.add_variable if hasattr(lp, "add_variable") else pulp.LpVariable
    q = [new_var(f"q{s}", 0) for s in range(len(P))]
    d = [new_var(f"d{s}", 0) for s in range(len(P))]
    lp += pulp.lpSum(float(bs) * qs for bs, qs in zip(b, q))
    lp += pulp.lpSum(q) == 1
    for s in range(len(P)):
        lp += d[s] >= q[s] - float(P[s])
        lp += d[s] >= float(P[s]) - q[s]
    lp += 0.5 * (pulp.lpSum(d) + float(np.sum(absent))) <= tau
    if lp.solve(pulp.HiGHS(msg=False)) != pulp.LpStatusOptimal:
        return None
    return pulp.value(lp.objective)


@st.composite
def ball(draw, V=None):
    """A reference over ``V`` table values (some of mass 0) and up to two absent values, and a radius."""
    V = V or draw(st.integers(2, 5))
    mass = [draw(st.integers(0, 5)) for _ in range(V)]
    absent = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2)))]
    if sum(mass) == 0:
        mass[0] = 1
    total = float(sum(mass) + sum(absent))
    tau = draw(st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5, 0.8]))
    return blocks.TVBall(0, np.array(mass) / total, sum(absent) / total, tau)


@settings(max_examples=150, deadline=None)
@given(ball(), st.data())
def test_tv_ball_support_is_the_lp_maximum(bl, data):
    """``h(β)`` equals the LP maximum of ``β·q`` over the ball (where the ball holds a distribution on the
    table's values), and the maximizer ``q`` is a distribution within it attaining ``h``."""
    V = bl.P.shape[0]
    b = np.array([[data.draw(st.integers(-6, 6)) / 2 for _ in range(V)] for _ in range(3)])
    h, q = bl.support(b)
    for i in range(3):
        assert np.all(q[i] >= -1e-12) and math.isclose(q[i].sum(), 1.0)
        assert math.isclose(float(q[i] @ b[i]), h[i], abs_tol=1e-9)
        best = _ball_lp_max(b[i], bl.P, bl.absent, bl.tau)
        if best is None:  # the absent values alone carry more than tau: no close group exists
            assert bl.absent > bl.tau - 1e-9
            continue
        tv = 0.5 * (np.abs(q[i] - bl.P).sum() + bl.absent)
        assert tv <= bl.tau + 1e-9
        assert math.isclose(h[i], best, abs_tol=1e-7)


def tv_ok(val, k, bl, D):
    """Size >= k, at least D distinct values, and total variation <= tau from the ball's reference."""
    def ok(x):
        size = sum(x)
        counts = np.zeros(bl.P.shape[0])
        for u, xu in enumerate(x):
            counts[val[u]] += xu
        tv = 0.5 * (np.abs(counts / size - bl.P).sum() + bl.absent)
        return size >= k and tv <= bl.tau + 1e-12 and np.count_nonzero(counts) >= D
    return ok


@settings(max_examples=200, deadline=None)
@given(blocks_instance(), st.integers(0, 2), st.data())
def test_ball_multipliers_keep_every_block_below_the_t_close_group_problem(inst, D, data):
    """For any multipliers ``β``, every candidate's block (k-anonymity's and the distinct block, with the
    terms ``β_js − h(β_j)`` added) lies at or below the enumerated optimum over groups within the ball, and
    every forced block below the enumerated forced optimum; ``β = 0`` gives the blocks without terms."""
    pi, n, w, pu, pc, value, k = inst
    bl = data.draw(ball(V=4))
    C = w.shape[0]
    rb = blocks.RequestBlocks(n=n, w=w, unit_value=value[:, None], pair_unit=pu, pair_cand=pc,
                              type_pair_start=np.arange(pu.shape[0]), k=k,
                              specs=(("distinct", 0, D, None),) if D > 1 else (), balls=(bl,))
    beta = np.array([[data.draw(st.integers(-6, 6)) / 2 for _ in range(4)] for _ in range(C)])
    prices = rb.prices(pi, (beta,))
    for j in range(C):
        idx = np.flatnonzero(pc == j)
        units = pu[idx]
        v = [w[j] - pi[u] for u in units]
        best, forced = enumerate_block(v, n[units], value[units], tv_ok(value[units], k, bl, D))
        assert prices.rc[j] <= best + 1e-9
        for p, f in zip(idx, forced):
            assert prices.forced[p] <= f + 1e-9
    plain = rb.prices(pi, rb.start_betas())
    unshifted = combine([block_prices(pi, n, w, pu, pc, k)] +
                        ([distinct_blocks(pi, n, w, pu, pc, value, k, D)] if D > 1 else []), pi, n, pc)
    assert np.allclose(plain.rc, unshifted.rc) and math.isclose(plain.bound, unshifted.bound)
    # the supergradient in β_j: |G_s| − |G| q_s for candidates in use (it sums to 0), 0 elsewhere
    (g,) = rb.ball_supergradients((beta,), prices)
    assert g.shape == beta.shape and np.allclose(g.sum(axis=1), 0.0)
    assert np.all(g[prices.rc >= 0] == 0)
    # the ascent over β never lowers L and returns the prices of the β it returns
    betas, best = rb.ascend_balls(pi, (beta,), prices, iterations=5)
    assert best.bound >= prices.bound - 1e-9
    assert math.isclose(rb.prices(pi, betas).bound, best.bound, abs_tol=1e-9)


@settings(max_examples=200, deadline=None)
@given(blocks_instance(), st.data())
def test_a_floor_per_candidate_prices_each_block_as_its_own_k(inst, data):
    """With one floor per candidate (:func:`milp_anon.instance.instance.group_floors`) every block — k-anonymity's by
    sorting and by passes, the distinct and the frequency block — is the block priced with that candidate's
    floor as a scalar ``k`` (those are checked against enumeration above)."""
    pi, n, w, pu, pc, value, _ = inst
    C = w.shape[0]
    floors = np.array([data.draw(st.integers(1, 6)) for _ in range(C)], dtype=float)
    order = np.argsort(pc, kind="stable")  # sorted by candidate: the passes; shuffled: the sort
    sorted_pairs = data.draw(st.booleans())
    pu, pc = (pu[order], pc[order]) if sorted_pairs else (pu, pc)

    def each(price):
        got = price(floors)
        for j in range(C):
            one = price(float(floors[j]))
            mine = pc == j
            assert got.rc[j] == one.rc[j] or math.isclose(got.rc[j], one.rc[j], abs_tol=1e-9)
            assert np.allclose(got.take[mine], one.take[mine])
            assert np.allclose(got.forced[mine], one.forced[mine])

    each(lambda k: block_prices(pi, n, w, pu, pc, k))  # by passes where the pairs are sorted, else by sorting
    D = data.draw(st.integers(1, 3))
    each(lambda k: distinct_blocks(pi, n, w, pu, pc, value, k, D))
    each(lambda k: frequency_blocks(pi, n, w, pu, pc, value, k, 3, 2))


@settings(max_examples=300, deadline=None)
@given(blocks_instance(), st.booleans(), st.data())
def test_ball_block_lies_between_the_k_block_and_the_t_close_group_problem(inst, uniform, data):
    """The ball's integer block (:func:`ball_blocks`) is at least the k-anonymity block and at most the
    enumerated optimum over groups of size ``>= k`` within total variation ``τ`` of the reference (every forced
    block likewise); with a uniform reference (every value's fraction of ``P_σ s`` equal, so the partial rows'
    knapsack is exact) it equals that optimum wherever the k-block is negative."""
    pi, n, w, pu, pc, value, k = inst
    bl = data.draw(ball(V=4))
    if uniform:
        bl = blocks.TVBall(0, np.full(4, 0.25), 0.0, bl.tau)
    kp = block_prices(pi, n, w, pu, pc, k)
    got = ball_blocks(pi, n, w, pu, pc, value, k, bl.P, bl.tau, k_prices=kp)
    for j in range(w.shape[0]):
        idx = np.flatnonzero(pc == j)
        units = pu[idx]
        v = [w[j] - pi[u] for u in units]
        best, forced = enumerate_block(v, n[units], value[units], tv_ok(value[units], k, bl, 0))
        assert kp.rc[j] - 1e-9 <= got.rc[j] <= best + 1e-9
        for p, f in zip(idx, forced):
            assert got.forced[p] <= f + 1e-9
        if uniform and kp.rc[j] < -1e-12 and best < 0:
            assert math.isclose(got.rc[j], best, abs_tol=1e-7)
        assert np.all(got.take[idx] >= -1e-12) and np.all(got.take[idx] <= n[units] + 1e-12)


def _emd_rows(kind, N, t):
    """The compact form of a 4-value reference ``N``: ordered (cumulative masses, scale V − 1) or a two-level tree
    ({0, 1} and {2, 3} under the root, H = 2: every leaf and both inner nodes, scale 2H)."""
    groups = [[0], [0, 1], [0, 1, 2]] if kind == "ordered" else [[0], [1], [2], [3], [0, 1], [2, 3]]
    member = np.zeros((len(groups), 4), dtype=bool)
    for e, g in enumerate(groups):
        member[e, g] = True
    return blocks.EMDRows(0, np.arange(4), np.asarray(N, dtype=float), member, 3.0 if kind == "ordered" else 4.0,
                          t.numerator, t.denominator)


def _metric(kind):
    """The ground distance from its definition: rank difference over V − 1, or the LCA's level over H."""
    if kind == "ordered":
        return [[Fraction(abs(a - b), 3) for b in range(4)] for a in range(4)]
    return [[Fraction(0) if a == b else Fraction(1, 2) if a // 2 == b // 2 else Fraction(1) for b in range(4)]
            for a in range(4)]


@settings(max_examples=120, deadline=None)
@given(blocks_instance(), st.sampled_from(["ordered", "hierarchical"]),
       st.lists(st.integers(1, 6), min_size=4, max_size=4),
       st.sampled_from([Fraction(1, 5), Fraction(3, 10), Fraction(1, 2)]))
def test_emd_block_equals_the_t_close_group_problem(inst, kind, N, t):
    """The EMD's integer block (:func:`emd_blocks`) is the enumerated optimum over groups of size ``>= k`` whose
    EMD to the reference (a min-cost flow over the metric's definition, ``brute_force.emd_flow``) is at most
    ``t`` wherever the k-anonymity block is negative, and the k-block elsewhere; its take is such a group at that
    cost, and every forced block a lower bound. Without time for the programs (``seconds=0``) each candidate gets
    its LP block, between its k-anonymity block and the integer one; past a caller's ``deadline``, its k-block."""
    pi, n, w, pu, pc, value, k = inst
    d = _metric(kind)
    kp = block_prices(pi, n, w, pu, pc, k)
    got = emd_blocks(pi, n, w, pu, pc, value, k, _emd_rows(kind, N, t), k_prices=kp)

    @functools.cache
    def close(counts):
        return emd_flow(N, counts, d) <= t

    def ok_of(val):
        def ok(x):
            counts = [0] * 4
            for u, xu in enumerate(x):
                counts[val[u]] += xu
            return sum(x) >= k and close(tuple(counts))
        return ok

    for j in range(w.shape[0]):
        idx = np.flatnonzero(pc == j)
        units = pu[idx]
        v = [w[j] - pi[u] for u in units]
        best, forced = enumerate_block(v, n[units], value[units], ok_of(value[units]))
        if kp.rc[j] < -1e-12:
            assert got.rc[j] == best or math.isclose(got.rc[j], best, rel_tol=1e-8, abs_tol=1e-7)
        else:
            assert got.rc[j] == kp.rc[j] and got.rc[j] <= best + 1e-9
        for p, f in zip(idx, forced):
            assert got.forced[p] <= f + 1e-7
        if kp.rc[j] < -1e-12 and math.isfinite(best):
            x = got.take[idx]
            assert ok_of(value[units])(tuple(int(a) for a in x))
            assert math.isclose(float(np.dot(x, v)), best, abs_tol=1e-7)
    # no time for the integer programs: the LP blocks, between the k-anonymity block and the integer one
    lp_blocks = emd_blocks(pi, n, w, pu, pc, value, k, _emd_rows(kind, N, t), k_prices=kp, seconds=0.0)
    assert np.all(kp.rc <= lp_blocks.rc + 1e-7) and np.all(lp_blocks.rc <= got.rc + 1e-7)
    # past a caller's deadline nothing is solved: every candidate keeps its k-anonymity block
    late = emd_blocks(pi, n, w, pu, pc, value, k, _emd_rows(kind, N, t), k_prices=kp, deadline=time.perf_counter())
    assert np.array_equal(late.rc, kp.rc)
