"""The relaxation of benchmarks/experiments/semi_lagrangian.py (the rows relaxed to ``<=`` and priced by ``π``): a lower
bound by brute force for any ``π``, unchanged when the candidates with ``rc_j(π) >= 0`` are closed, the optimum for
``π`` large, and the facility-location rule (drop every pair with ``w_j − π_i >= 0``) wrong here."""

import numpy as np
from helpers import small_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from benchmarks.experiments.semi_lagrangian import subproblem
from milp_anon.bounds.lagrangian import block_values
from milp_anon.exact.brute_force import brute_force_k_anonymity
from milp_anon.instance.candidates import suppression_candidates
from milp_anon.tables.rowtypes import RowTypes


def slr(pi, n, w, pt, pc, k, keep):
    dual, value, status, g, kept = subproblem(pi, n, w, pt, pc, k, keep, 60.0)
    assert status == "optimal"
    return float(pi @ n) + dual


@settings(max_examples=60, deadline=None)
@given(small_tables(n=(5, 9), m=(2, 4), alphabet=(3, 3), k=(2, 3)), st.data())
def test_semi_lagrangian_bound_by_brute_force(case, data):
    frame, qi, k = case
    types = RowTypes.from_table(ma.Table.from_frame(frame, qi))
    c = suppression_candidates(types, k)
    n, w, pt, pc = types.counts.astype(float), c.cost.astype(float), c.pair_type, c.pair_cand
    optimum = brute_force_k_anonymity(frame[qi].to_numpy(), k)[0]
    top = float(w.max()) + 1.0
    pi = np.array(data.draw(st.lists(st.floats(-1.0, top, allow_nan=False), min_size=n.size, max_size=n.size)))
    everything = np.ones(w.size, bool)
    bound = slr(pi, n, w, pt, pc, k, everything)
    assert bound <= optimum + 1e-6
    blocks = block_values(pi, n, w, pt, pc, k)
    assert abs(slr(pi, n, w, pt, pc, k, blocks.rc < 1e-9) - bound) <= 1e-6 * max(1.0, abs(bound))
    assert bound >= blocks.bound - 1e-6  # at least L(π)
    # every row priced above the dearest candidate: placing all rows pays, so SLR is the optimum (zero gap)
    large = np.full(n.size, top * (n.sum() + 1))
    assert abs(slr(large, n, w, pt, pc, k, everything) - optimum) <= 1e-6 * max(1.0, optimum)


def test_dropping_pairs_priced_above_zero_overstates_the_bound():
    # one row of type A, five of B; candidate 0 (cost 1) holds both, candidate 1 (cost 0) is B alone; k = 2
    n, w = np.array([1.0, 5.0]), np.array([1.0, 0.0])
    pt, pc, k = np.array([0, 1, 1]), np.array([0, 0, 1]), 2
    optimum = 2.0  # A with one B in candidate 0, the other four B in candidate 1
    pi = np.array([3.0, 0.0])
    everything = np.ones(2, bool)
    assert abs(slr(pi, n, w, pt, pc, k, everything) - optimum) <= 1e-9
    negative_pairs = w[pc] - pi[pt] < 0  # the facility-location rule: only (A, 0) stays, which cannot open alone
    dual, *_ = subproblem(pi, n, w, pt[negative_pairs], pc[negative_pairs], k, everything, 60.0)
    assert float(pi @ n) + dual > optimum + 0.5
