"""The proving round of benchmarks/experiments/parallel_tree.py, with one thread and with HiGHS's parallel tree,
against brute force: at ``UB`` = the optimum it proves that no table is cheaper, at ``UB`` = the optimum + 1 it finds
one at the optimum."""

from helpers import small_tables
from hypothesis import given, settings

import milp_anon as ma
from benchmarks.experiments.parallel_tree import VARIANTS, proving_round, solve_round
from milp_anon.exact.brute_force import brute_force_k_anonymity


@settings(max_examples=25, deadline=None)
@given(small_tables(n=(6, 10), m=(2, 4), alphabet=(2, 3), k=(2, 3)))
def test_the_proving_round_agrees_with_brute_force(case):
    frame, qi, k = case
    optimum = float(brute_force_k_anonymity(frame[qi].to_numpy(), k)[0])
    table, request = ma.Table.from_frame(frame, qi), ma.Request(ma.KAnonymity(k))
    for ub, table_below in ((optimum, False), (optimum + 1, True)):
        am, grid, facts = proving_round(table, request, ub)
        if not facts["covered"]:  # a row type has no pair below UB: nothing costs less than UB
            assert not table_below
            continue
        for variant in VARIANTS:
            out = solve_round(am, grid, ub, variant, None)
            found = out.objective is not None and out.objective < ub - 0.5
            assert found == table_below
            if table_below:  # the optimum's pairs lie in S(optimum + 1): its bound is at most the optimum
                assert abs(out.objective - optimum) < 1e-5
                assert out.bound is not None and out.bound <= optimum + 1e-6
            else:  # nothing below the optimum: a bound of at least UB, or none at all
                assert out.status.value == "infeasible" or (out.bound is not None and out.bound >= ub - 1e-6)
