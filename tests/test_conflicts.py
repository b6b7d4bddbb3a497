"""The candidates' conflict graph against its definition, and its cliques against brute force."""

import itertools

import highspy
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon import pipeline
from milp_anon.conflicts import clique_bounds, conflicting_pairs, violated_cliques
from milp_anon.exact import brute_force_k_anonymity
from milp_anon.lagrangian import block_prices

from helpers import small_tables


def _both_hold_k(only_a, only_b, shared, k):
    """From the definition: some split of each shared row type's rows gives both candidates k rows."""
    for split in itertools.product(*(range(n + 1) for n in shared)):
        if only_a + sum(split) >= k and only_b + sum(n - x for n, x in zip(shared, split)) >= k:
            return True
    return False


@st.composite
def incidences(draw):
    n_units = draw(st.integers(1, 5))
    rows = draw(st.lists(st.integers(1, 4), min_size=n_units, max_size=n_units))
    n_cand = draw(st.integers(1, 7))
    held = [draw(st.sets(st.integers(0, n_units - 1))) for _ in range(n_cand)]
    return rows, held, draw(st.integers(1, 5))


@settings(max_examples=300)
@given(incidences())
def test_conflicting_pairs_are_the_pairs_that_cannot_both_hold_k_rows(case):
    rows, held, k = case
    pairs = [(u, j) for j, units in enumerate(held) for u in sorted(units)]
    pu = np.array([u for u, _ in pairs], dtype=np.int64)
    pc = np.array([j for _, j in pairs], dtype=np.int64)
    a, b = conflicting_pairs(pu, pc, rows, k, len(held))
    got = set(zip(a.tolist(), b.tolist()))
    expected = set()
    for x, y in itertools.combinations(range(len(held)), 2):
        alone_x = sum(rows[u] for u in held[x]) >= k
        alone_y = sum(rows[u] for u in held[y]) >= k
        if not (alone_x and alone_y):
            continue  # a candidate that can never be open conflicts with nothing that matters
        shared = [rows[u] for u in held[x] & held[y]]
        if not _both_hold_k(sum(rows[u] for u in held[x] - held[y]), sum(rows[u] for u in held[y] - held[x]),
                            shared, k):
            expected.add((x, y))
    assert got == expected


def _highs(lm, cliques, y_cols):
    h = lm.to_highs()
    for name, value in (("output_flag", False), ("presolve", "off"), ("threads", 1)):
        h.setOptionValue(name, value)
    if cliques:
        sizes = np.array([len(q) for q in cliques])
        index = y_cols[np.concatenate([np.array(q) for q in cliques])].astype(np.int32)
        h.addRows(len(cliques), np.full(len(cliques), -np.inf), np.ones(len(cliques)), index.size,
                  np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int32), index, np.ones(index.size))
    return h


@settings(max_examples=60, deadline=None)
@given(small_tables(n=(5, 10), m=(2, 4), k=(2, 3)))
def test_cliques_keep_the_brute_force_optimum_and_bound_it_from_below(case):
    """Every conflicting pair and every clique separated at the LP's point, added to the whole model: its
    MILP still reaches the brute-force optimum (no table is cut off), and its LP stays at or below it. At
    that LP's duals the Lagrangian bound with the cliques dualized is the LP's value, and no pair of the
    optimal table has a pair bound above the optimum."""
    frame, qi, k = case
    expected, _ = brute_force_k_anonymity(frame.to_numpy(), k)
    if expected is None:
        return
    am = pipeline.build_model(ma.Table.from_frame(frame, qi),
                              ma.Request(ma.KAnonymity(k), model=ma.ModelOptions(reduction="none")))
    a, b = conflicting_pairs(am.pair_unit, am.pair_cand, am.instance.units.counts, k, am.y.size)
    lp = _highs(am.lm.relaxed(), [], am.y)
    lp.run()
    known: set = set()
    cliques = []
    while True:
        found = violated_cliques(a, b, np.asarray(lp.getSolution().col_value)[am.y], known)
        if not found:
            break
        cliques += found
        lp = _highs(am.lm.relaxed(), cliques, am.y)
        lp.run()
    assert lp.getModelStatus() == highspy.HighsModelStatus.kOptimal
    value = lp.getInfo().objective_function_value
    assert value <= expected + 1e-6
    dual = np.asarray(lp.getSolution().row_dual)
    rows = am.lm.row_blocks["assign"]
    pi = dual[rows.start:rows.start + rows.size]
    prices = block_prices(pi, am.instance.units.counts, am.instance.candidates.cost, am.pair_unit, am.pair_cand, k)
    bound, pair_bounds = clique_bounds(prices, cliques, -dual[am.lm.n_rows:], am.pair_cand)
    assert abs(bound - value) <= 1e-6 * max(1.0, abs(value))
    every = cliques + [(int(x), int(y)) for x, y in zip(a, b)]
    mip = _highs(am.lm, every, am.y)
    mip.run()
    assert mip.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert round(mip.getInfo().objective_function_value) == expected
    used = np.asarray(mip.getSolution().col_value)[am.g] > 0.5
    assert np.all(pair_bounds[used] <= expected + 1e-6)


def test_violated_cliques_grow_from_violated_edges_once():
    """A triangle and a pendant edge: at y = 0.6 everywhere the triangle is found once, from its first edge,
    the pendant edge on its own; a second call with the same ``known`` finds nothing new."""
    a, b = np.array([0, 0, 1, 2]), np.array([1, 2, 2, 3])
    y = np.full(4, 0.6)
    known: set = set()
    assert violated_cliques(a, b, y, known) == [(0, 1, 2), (2, 3)]
    assert violated_cliques(a, b, y, known) == []
    assert violated_cliques(a, b, np.array([0.5, 0.5, 0.0, 1.0])) == []  # no edge above 1
