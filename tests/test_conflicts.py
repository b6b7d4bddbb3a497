"""The candidates' conflict graph against its definition, and its cliques against brute force."""

import itertools
import json

import highspy
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from helpers import quiet_highs, small_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.bounds.conflicts import clique_bounds, conflicting_pairs, violated_cliques, violated_rank_rows
from milp_anon.bounds.lagrangian import block_prices, column_generation
from milp_anon.certify import certify
from milp_anon.exact import brute_force_k_anonymity
from milp_anon.pipeline import solve as pipeline


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


def _whole_model(case):
    """``(k, the brute-force optimum or None, the whole model)`` of a ``small_tables`` case."""
    frame, qi, k = case
    expected, _ = brute_force_k_anonymity(frame.to_numpy(), k)
    am = pipeline.build_model(ma.Table.from_frame(frame, qi),
                              ma.Request(ma.KAnonymity(k), model=ma.ModelOptions(reduction="none")))
    return k, expected, am


def _highs(lm, cliques, y_cols):
    h = quiet_highs(lm)
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
    k, expected, am = _whole_model(case)
    if expected is None:
        return
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


@settings(max_examples=60, deadline=None)
@given(small_tables(n=(5, 10), m=(2, 4), k=(2, 3)))
def test_column_generation_with_cliques_bounds_the_brute_force_optimum(case):
    """The column generation with cliques in its master: its cliques are conflict cliques (every two members
    conflict), its bound ``L(π, μ)`` lies between the LP's and the brute-force optimum, and no pair of an
    optimal table (the whole MILP's, which reaches the brute-force optimum) has a pair bound above it."""
    k, expected, am = _whole_model(case)
    if expected is None:
        return
    n, w = am.instance.units.counts, am.instance.candidates.cost
    plain = column_generation(n, w, am.pair_unit, am.pair_cand, k)
    cg = column_generation(n, w, am.pair_unit, am.pair_cand, k, cliques=True)
    assert cg.converged and plain.converged
    edges = set(zip(*(x.tolist() for x in conflicting_pairs(am.pair_unit, am.pair_cand, n, k, am.y.size))))
    assert all(pair in edges for q in cg.cliques for pair in itertools.combinations(q, 2))
    assert plain.bound - 1e-6 <= cg.bound <= expected + 1e-6
    if cg.cliques:
        assert cg.bound_without_cliques == pytest.approx(plain.bound)
        assert clique_bounds(cg.prices, cg.cliques, cg.mu, am.pair_cand[:1])[0] == cg.bound
    mip = _highs(am.lm, [], am.y)
    mip.run()
    assert round(mip.getInfo().objective_function_value) == expected
    used = np.asarray(mip.getSolution().col_value)[am.g] > 0.5
    assert np.all(cg.pair_bounds(am.pair_cand)[used] <= expected + 1e-6)


def _tables_with_cliques():
    """Random 10-row tables (fixed seeds) whose reduction proof has conflict cliques, with their k."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        frame = pd.DataFrame(rng.choice(list("abc"), size=(10, 3)), columns=["q0", "q1", "q2"])
        k = int(rng.integers(2, 4))
        r = ma.anonymize(ma.Table.from_frame(frame, ["q0", "q1", "q2"]), ma.KAnonymity(k), reduction="lagrangian")
        if r.status == "optimal" and r.reduction.cliques:
            yield frame, k, r


def test_a_proof_with_cliques_certifies_and_a_wrong_clique_does_not():
    """Proofs whose bound has conflict cliques certify (their cliques checked from the table); a clique with
    two candidates that could both hold k rows, a negative μ or a raised clique bound make them fail."""
    found = wrong_clique = 0
    for frame, k, r in _tables_with_cliques():
        table, request = ma.Table.from_frame(frame, ["q0", "q1", "q2"]), ma.Request(ma.KAnonymity(k))
        expected, _ = brute_force_k_anonymity(frame.to_numpy(), k)
        assert r.objective == expected and r.reduction.clique_bound <= expected + 1e-6
        rep = json.loads(r.to_json())
        cert = certify(table, request, rep)
        assert cert.ok, cert.lines()
        assert cert.lagrangian_bound == pytest.approx(r.reduction.clique_bound)
        inst = pipeline.build_model(table, ma.Request(ma.KAnonymity(k), model=ma.ModelOptions(reduction="none")))
        a, b = conflicting_pairs(inst.pair_unit, inst.pair_cand, inst.instance.units.counts, k, inst.y.size)
        edges = set(zip(a.tolist(), b.tolist()))
        counts = inst.instance.units.counts
        held = np.bincount(inst.pair_cand, weights=counts[inst.pair_unit], minlength=inst.y.size)
        # two candidates that can both hold k rows: each holds k alone and they do not conflict (Hall)
        free = next(((x, y) for x, y in itertools.combinations(np.flatnonzero(held >= k).tolist(), 2)
                     if (x, y) not in edges), None)
        tampered = [lambda d: d["reduction"].update(clique_multipliers=[-1.0] * len(d["reduction"]["cliques"])),
                    lambda d: d["reduction"].update(clique_bound=d["reduction"]["clique_bound"] + 1)]
        if free is not None:
            tampered.append(lambda d: (d["reduction"]["cliques"].__setitem__(0, list(free)),
                                       d["reduction"].get("clique_rhs", [1]).__setitem__(0, 1)))
            wrong_clique += 1
        for tamper in tampered:
            bad = json.loads(r.to_json())
            tamper(bad)
            assert not certify(table, request, bad).ok
        found += 1
    assert found >= 3 and wrong_clique >= 1


def _can_all_hold_k(members, held, rows, k):
    """From the definition: the candidates ``members`` can each hold ``k`` rows of their own (a flow from the
    row types, each with its rows, to the members, each taking ``k``, saturates)."""
    g = nx.DiGraph()
    for j in members:
        g.add_edge(("c", j), "t", capacity=k)
        for u in held[j]:
            g.add_edge("s", ("u", u), capacity=rows[u])
            g.add_edge(("u", u), ("c", j), capacity=rows[u])
    return bool(members) and nx.maximum_flow_value(g, "s", "t") >= k * len(members)


@settings(max_examples=300, deadline=None)
@given(incidences(), st.data())
def test_rank_rows_are_violated_and_no_more_members_can_be_open(case, data):
    """Each rank row found at a random point: its right-hand side counts its members' rows, the point
    violates it, and no ``r + 1`` of its members can each hold ``k`` rows of their own (a flow, from the
    definition), so every table meets it."""
    rows, held, k = case
    y = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=len(held),
                                    max_size=len(held))))
    pairs = [(u, j) for j, units in enumerate(held) for u in sorted(units)]
    pu = np.array([u for u, _ in pairs], dtype=np.int64)
    pc = np.array([j for _, j in pairs], dtype=np.int64)
    known: set = set()
    found, rhs = violated_rank_rows(pu, pc, rows, k, y, known)
    assert len(found) == len(rhs) == len(set(found))
    for q, r in zip(found, rhs):
        assert r == sum(rows[u] for u in set().union(*(held[j] for j in q))) // k
        assert y[list(q)].sum() > r + 1e-9
        assert not any(_can_all_hold_k(c, held, rows, k) for c in itertools.combinations(q, r + 1))
    assert violated_rank_rows(pu, pc, rows, k, y, known) == ([], [])  # all known now


def test_rank_rows_find_three_overlapping_candidates():
    """Five single rows, k = 2: candidates over rows {0,1,2}, {1,2,3}, {2,3,4} conflict pairwise with no one
    (each two hold 4 = 2k rows), but all three hold 5 rows, so at most ⌊5/2⌋ = 2 are open; at y = 0.75 each
    (sum 2.25) the row is found, at 0.6 (sum 1.8) not."""
    held = [{0, 1, 2}, {1, 2, 3}, {2, 3, 4}]
    pu = np.array([u for units in held for u in sorted(units)])
    pc = np.repeat(np.arange(3), 3)
    assert conflicting_pairs(pu, pc, [1] * 5, 2, 3)[0].size == 0
    assert violated_rank_rows(pu, pc, [1] * 5, 2, np.full(3, 0.75)) == ([(0, 1, 2)], [2])
    assert violated_rank_rows(pu, pc, [1] * 5, 2, np.full(3, 0.6)) == ([], [])


@settings(max_examples=60, deadline=None)
@given(small_tables(n=(6, 12), m=(2, 4), k=(2, 3)))
def test_column_generation_with_rank_rows_bounds_the_brute_force_optimum(case):
    """The column generation with cliques and rank rows: every row is valid from the table (a clique's two
    members conflict, a rank row's members hold fewer than ``(r + 1) k`` rows), its bound lies between the
    LP's and the brute-force optimum, and no pair of an optimal table has a pair bound above it."""
    k, expected, am = _whole_model(case)
    if expected is None:
        return
    n, w = am.instance.units.counts, am.instance.candidates.cost
    plain = column_generation(n, w, am.pair_unit, am.pair_cand, k)
    cg = column_generation(n, w, am.pair_unit, am.pair_cand, k, cliques=True, rank_rows=True)
    assert cg.converged and plain.converged
    edges = set(zip(*(x.tolist() for x in conflicting_pairs(am.pair_unit, am.pair_cand, n, k, am.y.size))))
    for q, r in zip(cg.cliques, cg.rhs if cg.cliques else []):
        units = np.unique(am.pair_unit[np.isin(am.pair_cand, q)])
        assert (r == 1 and all(pair in edges for pair in itertools.combinations(q, 2))) or n[units].sum() < (r + 1) * k
    assert plain.bound - 1e-6 <= cg.bound <= expected + 1e-6
    mip = _highs(am.lm, [], am.y)
    mip.run()
    used = np.asarray(mip.getSolution().col_value)[am.g] > 0.5
    assert round(mip.getInfo().objective_function_value) == expected
    assert np.all(cg.pair_bounds(am.pair_cand)[used] <= expected + 1e-6)
