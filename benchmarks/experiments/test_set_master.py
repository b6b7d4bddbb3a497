"""The set master with subset-row cuts (benchmarks/experiments/set_master.py): its bound against brute force, its LP
against the assignment LP, its exact pricing against enumeration, its start against the LP point."""

import itertools

import numpy as np
import pandas as pd
from helpers import small_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from benchmarks.experiments.set_master import SetMaster, _enumerate, _integer_program, decompose, master_bound, separate
from milp_anon.bounds.lagrangian import column_generation
from milp_anon.exact.brute_force import brute_force_k_anonymity
from milp_anon.instance.candidates import suppression_candidates
from milp_anon.tables.rowtypes import RowTypes


def _instance(frame, qi, k):
    types = RowTypes.from_table(ma.Table.from_frame(frame, qi))
    c = suppression_candidates(types, k)
    return types.counts.astype(float), c.cost.astype(float), c.pair_type, c.pair_cand


@settings(max_examples=120, deadline=None)
@given(small_tables(n=(5, 9), m=(2, 4), alphabet=(3, 3), k=(2, 3)))
def test_bound_is_valid_and_starts_at_the_lp(case):
    frame, qi, k = case
    n, w, pt, pc = _instance(frame, qi, k)
    cg = column_generation(n, w, pt, pc, k)
    mb = master_bound(n, w, pt, pc, k, pi=cg.pi, primal=cg.primal)
    optimum = brute_force_k_anonymity(frame[qi].to_numpy(), k)[0]
    assert mb.converged
    assert abs(mb.lp - cg.bound) <= 1e-5 * max(1.0, cg.bound)  # no cut: the assignment LP
    assert cg.bound - 1e-6 <= mb.bound <= optimum + 1e-6


def test_cuts_lift_the_bound():
    # seven rows, four QIs, k = 3 (found by a random search): an LP gap of three units that the cuts
    # narrow; the optimum by brute force, the LP from the assignment model, the claim only "strictly above"
    rows = [[1, 0, 2, 1], [1, 0, 1, 2], [2, 0, 1, 0], [2, 0, 1, 2], [1, 2, 0, 2], [2, 0, 0, 0], [0, 0, 0, 2]]
    arr = np.array(rows)
    frame = pd.DataFrame(np.array(list("abc"))[arr], columns=["q0", "q1", "q2", "q3"])
    n, w, pt, pc = _instance(frame, list(frame.columns), 3)
    cg = column_generation(n, w, pt, pc, 3)
    optimum = brute_force_k_anonymity(arr, 3)[0]
    assert cg.bound < optimum - 1  # a gap the LP leaves
    without = master_bound(n, w, pt, pc, 3, pi=cg.pi, primal=cg.primal, cuts=False)
    with_cuts = master_bound(n, w, pt, pc, 3, pi=cg.pi, primal=cg.primal)
    assert without.cuts == 0 and abs(without.bound - cg.bound) < 1e-5
    assert with_cuts.cuts > 0 and cg.bound + 0.5 < with_cuts.bound <= optimum + 1e-6


def _block_by_enumeration(v, nn, ti, k, cut_types, rho):
    best = np.inf
    for a in itertools.product(*[range(int(x) + 1) for x in nn]):
        a = np.array(a, float)
        if a.sum() < k:
            continue
        pen = sum(r * (a[np.isin(ti, R)].sum() // 2) for R, r in zip(cut_types, rho))
        best = min(best, float(v @ a) + pen)
    return best


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_priced_block_equals_enumeration(data):
    m = data.draw(st.integers(2, 7))
    k = data.draw(st.integers(1, 5))
    nn = np.array(data.draw(st.lists(st.sampled_from([1, 1, 1, 2, 3]), min_size=m, max_size=m)), float)
    v = np.array(data.draw(st.lists(st.integers(-6, 6), min_size=m, max_size=m)), float) / 2
    ti = np.arange(m) * 3 + 1  # type ids, not positions
    singles = ti[nn == 1]
    cut_types, rho = [], []
    if singles.size >= 2:
        for _ in range(data.draw(st.integers(0, 4))):
            members = data.draw(st.lists(st.sampled_from(list(singles)), min_size=2, max_size=3, unique=True))
            others = [t for t in range(100, 103)]  # a cut may hold rows the candidate does not
            cut_types.append(sorted(members + others[:3 - len(members)]))
            rho.append(data.draw(st.integers(1, 8)) / 4)
    cut_types = np.array(cut_types, np.int64).reshape(-1, 3)
    rho = np.array(rho, float)
    expected = _block_by_enumeration(v, nn, ti, k, cut_types, rho)
    val, a = _enumerate(v, nn, ti, k, cut_types, rho)
    if not np.isfinite(expected):
        assert val == np.inf
        return
    assert abs(val - expected) < 1e-9
    # the solution returned has that value
    pen = sum(r * (a[np.isin(ti, R)].sum() // 2) for R, r in zip(cut_types, rho))
    assert a.sum() >= k and np.all(a <= nn) and abs(float(v @ a) + pen - expected) < 1e-9
    ip_val, ip_a = _integer_program(v, nn, ti, k, cut_types, rho)
    assert abs(ip_val - expected) < 1e-6


@settings(max_examples=60, deadline=None)
@given(small_tables(n=(5, 10), m=(2, 4), alphabet=(2, 3), k=(2, 4)))
def test_decompose_reproduces_the_lp_point(case):
    frame, qi, k = case
    n, w, pt, pc = _instance(frame, qi, k)
    if n.sum() < k:
        return
    cg = column_generation(n, w, pt, pc, k)
    y, g = cg.primal
    m = SetMaster(n, w, pt, pc, k)
    (cand, starts, types, amts), weights = decompose(m, y, g)
    lens = np.diff(starts)
    assert np.all(np.bincount(np.repeat(np.arange(cand.size), lens), weights=amts, minlength=cand.size) >= k - 1e-9)
    # Σ weight · group = the LP point: per candidate its y, per (type, candidate) its g
    assert np.allclose(np.bincount(cand, weights=weights, minlength=w.size), np.where(y > 1e-9, y, 0.0), atol=1e-7)
    got = {}
    for c_, t, a, wt in zip(np.repeat(cand, lens), types, amts, np.repeat(weights, lens)):
        got[(int(t), int(c_))] = got.get((int(t), int(c_)), 0.0) + a * wt
    for p in np.flatnonzero(g > 1e-9):
        if y[pc[p]] > 1e-9:
            assert abs(got.get((int(pt[p]), int(pc[p])), 0.0) - g[p]) < 1e-6


def test_separation_finds_the_odd_triangle():
    # three single rows a, b, c; three groups {a, b}, {b, c}, {a, c} at one half each: left side 3/2
    n = np.ones(3)
    w = np.ones(3)
    pt = np.array([0, 1, 1, 2, 0, 2])
    pc = np.array([0, 0, 1, 1, 2, 2])
    m = SetMaster(n, w, pt, pc, 2)
    m.add_columns((np.array([0, 1, 2]), np.array([0, 2, 4, 6]), np.array([0, 1, 1, 2, 0, 2]), np.ones(6)))
    found = separate(m, np.full(3, 0.5), 10)
    assert found == [(1.5, (0, 1, 2))]
    assert separate(m, np.array([1.0, 0.0, 0.0]), 10) == []
