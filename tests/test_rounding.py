"""The LP rounding (milp_anon/search/rounding.py): a feasible, verified table from any LP point, never below the optimum."""

import numpy as np
from helpers import small_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.bounds.lagrangian import column_generation
from milp_anon.exact import brute_force_k_anonymity
from milp_anon.formulations import release_assignment
from milp_anon.pipeline import solve as pipeline
from milp_anon.release.result import Timings
from milp_anon.release.verified import Release
from milp_anon.search.lp_rounding import round_k_anonymity


def _instance(frame, qi, k):
    table = ma.Table.from_frame(frame, qi)
    request = ma.Request(ma.KAnonymity(k))
    instance, _, why = pipeline.prepare(table, request, Timings())
    return table, request, instance, why


def _assert_release(table, request, instance, a, k):
    """Every type's rows released once, every used candidate >= k rows, and the verifier agrees."""
    c, types = instance.candidates, instance.types
    assert np.array_equal(a, np.rint(a)) and np.all(a >= 0)
    assert np.array_equal(np.bincount(c.pair_type, weights=a, minlength=types.t_in), types.counts)
    size = np.bincount(c.pair_cand, weights=a, minlength=c.n_candidates)
    assert np.all((size == 0) | (size >= k))
    released, groups, cost = release_assignment(instance, c.pair_type, c.pair_cand, a)
    rel = Release.verified(table, request, released, cost=cost, groups=groups)  # raises on a violation
    assert rel.cost == float(a @ c.cost[c.pair_cand])
    return rel.cost


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_any_point_rounds_to_a_verified_table_no_cheaper_than_the_optimum(data):
    """Random points (fractional, out of range, not feasible for the LP, zero) and the LP optimum all give
    a release that passes the verifier; its cost is at least the brute-force optimum; the improvement never
    raises the cost of the rounded table."""
    frame, qi, k = data.draw(small_tables(n=(4, 11), m=(1, 4), k=(2, 4)))
    expected, _ = brute_force_k_anonymity(frame.to_numpy(), k)
    if expected is None:
        return
    table, request, instance, why = _instance(frame, qi, k)
    assert why is None
    c, types = instance.candidates, instance.types
    C, P = c.n_candidates, c.n_pairs
    kind = data.draw(st.sampled_from(["random", "zero", "lp"]))
    if kind == "random":
        y = np.array(data.draw(st.lists(st.floats(0, 1), min_size=C, max_size=C)))
        g = np.array(data.draw(st.lists(st.floats(-1, 12), min_size=P, max_size=P)))
    elif kind == "zero":
        y, g = np.zeros(C), np.zeros(P)
    else:
        y, g = column_generation(types.counts, c.cost, c.pair_type, c.pair_cand, k).primal
    plain = round_k_anonymity(types.counts, c.cost, c.pair_type, c.pair_cand, k, y, g, time_limit=0)
    improved = round_k_anonymity(types.counts, c.cost, c.pair_type, c.pair_cand, k, y, g)
    cost_plain = _assert_release(table, request, instance, plain, k)
    cost = _assert_release(table, request, instance, improved, k)
    assert expected <= cost <= cost_plain


@settings(max_examples=80, deadline=None)
@given(small_tables(n=(4, 11), m=(1, 4), k=(2, 4)))
def test_an_optimal_integral_point_is_kept(case):
    """An optimal partition (brute force), written as an LP point, rounds to a table of the optimal cost."""
    frame, qi, k = case
    expected, blocks = brute_force_k_anonymity(frame.to_numpy(), k)
    if expected is None:
        return
    table, request, instance, _ = _instance(frame, qi, k)
    c, types = instance.candidates, instance.types
    index = {tuple(code): j for j, code in enumerate(c.codes.tolist())}
    where = {(int(t), int(j)): p for p, (t, j) in enumerate(zip(c.pair_type, c.pair_cand))}
    y, g = np.zeros(c.n_candidates), np.zeros(c.n_pairs)
    for b in blocks:
        codes = table.codes[list(b)]
        j = index[tuple(int(x) for x in np.where((codes == codes[0]).all(axis=0), codes[0], -1))]
        y[j] = 1.0
        for r in b:
            g[where[(int(types.row_type[r]), j)]] += 1.0
    a = round_k_anonymity(types.counts, c.cost, c.pair_type, c.pair_cand, k, y, g, time_limit=0)
    assert _assert_release(table, request, instance, a, k) == expected


def test_the_reduction_reports_the_rounding_and_never_releases_worse():
    """On Adult (3 QIs, k = 5) the reduction rounds its LP first; the released table is at most as dear."""
    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult(), ["sex", "age", "race"])
    r = ma.anonymize(table, ma.KAnonymity(5), reduction="lagrangian")
    red = r.reduction.as_dict()
    assert r.status == "optimal"
    assert red["rounding_objective"] is not None and red["rounding_objective"] >= r.objective
    assert red["rounding_seconds"] >= 0
