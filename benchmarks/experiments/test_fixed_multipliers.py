"""The relaxation of benchmarks/experiments/fixed_multipliers.py (the LP's multipliers fixed outside a region, the
region exact): a lower bound by brute force, the LP's value with an empty region and in its LP
relaxation, the optimum with every type in the region."""

import numpy as np
from helpers import small_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from benchmarks.experiments.fixed_multipliers import fractional_region, grow, region_bound
from milp_anon.bounds.lagrangian import column_generation
from milp_anon.exact.brute_force import brute_force_k_anonymity
from milp_anon.instance.candidates import suppression_candidates
from milp_anon.tables.rowtypes import RowTypes


@settings(max_examples=60, deadline=None)
@given(small_tables(n=(5, 9), m=(2, 4), alphabet=(3, 3), k=(2, 3)), st.data())
def test_region_bound_between_lp_and_optimum(case, data):
    frame, qi, k = case
    types = RowTypes.from_table(ma.Table.from_frame(frame, qi))
    c = suppression_candidates(types, k)
    n, w, pt, pc = types.counts.astype(float), c.cost.astype(float), c.pair_type, c.pair_cand
    cg = column_generation(n, w, pt, pc, k)
    optimum = brute_force_k_anonymity(frame[qi].to_numpy(), k)[0]
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=n.size, max_size=n.size)), bool)
    y, g = cg.primal
    for region in (mask, fractional_region(n, pt, pc, y, g), grow(fractional_region(n, pt, pc, y, g), pt, pc, g)):
        r = region_bound(n, w, pt, pc, k, cg.pi, region)
        assert r["proven"]
        assert abs(r["lp"] - cg.bound) <= 1e-6 * max(1.0, cg.bound)  # complementary slackness
        assert cg.bound - 1e-6 <= r["bound"] <= optimum + 1e-6
    empty = region_bound(n, w, pt, pc, k, cg.pi, np.zeros(n.size, bool))
    assert abs(empty["bound"] - cg.bound) <= 1e-6 * max(1.0, cg.bound)  # L(π*) alone
    whole = region_bound(n, w, pt, pc, k, cg.pi, np.ones(n.size, bool))
    assert abs(whole["bound"] - optimum) <= 1e-4 * max(1.0, optimum)  # the problem itself
