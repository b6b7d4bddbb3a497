"""The MILP against brute force over set partitions (the main correctness evidence)."""

import numpy as np
import pytest
from helpers import frame_from_array, small_tables, solve_k
from hypothesis import given, settings

from milp_anon.bench.instances import edge_table, planted_partition_graph
from milp_anon.exact import brute_force_k_anonymity
from milp_anon.privacy.verify import verify_k_anonymity


@settings(max_examples=250)
@given(small_tables())
def test_milp_equals_brute_force(case):
    frame, qi, k = case
    expected, blocks = brute_force_k_anonymity(frame.to_numpy(), k)
    result = solve_k(frame, qi, k)
    if expected is None:
        assert result.status == "infeasible" and k > len(frame)
        return
    assert result.status == "optimal"
    assert result.objective == expected
    assert result.bound == expected and result.gap == 0
    # the released table passes the verifier again, here, from the outside
    v = verify_k_anonymity(frame, result.table, qi, k, claimed_cost=expected)
    assert v.min_group_size >= k
    # the released frame is the input with some QI cells starred, nothing else
    assert list(result.table.columns) == list(frame.columns)


@settings(max_examples=60)
@given(small_tables(n=(4, 9)))
def test_closure_pruning_loses_nothing(case):
    frame, qi, k = case
    with_closure = solve_k(frame, qi, k)
    without = solve_k(frame, qi, k, closure=False)
    assert with_closure.status == without.status
    assert with_closure.objective == without.objective


@settings(max_examples=40)
@given(small_tables(n=(4, 9), k=(2, 3)))
def test_other_routes_agree(case):
    """The bulk highspy path, PuLP's own HiGHS interface and CBC give one optimum."""
    frame, qi, k = case
    a = solve_k(frame, qi, k)
    b = solve_k(frame, qi, k, via_pulp=True)
    c = solve_k(frame, qi, k, solver="PULP_CBC_CMD")
    assert a.status == b.status == c.status
    assert a.objective == b.objective == c.objective


@given(small_tables(k=(1, 1)))
@settings(max_examples=20)
def test_k1_costs_nothing(case):
    frame, qi, _ = case
    r = solve_k(frame, qi, 1)
    assert r.status == "optimal" and r.objective == 0
    assert (r.table[qi] == frame[qi]).all().all()


@pytest.mark.parametrize("n,k", [(5, 2), (6, 6), (9, 4)])
def test_identical_rows_cost_nothing(n, k):
    frame = frame_from_array(np.ones((n, 3), dtype=int))
    r = solve_k(frame, list(frame.columns), k)
    assert r.status == "optimal" and r.objective == 0 and r.n_groups == 1


def test_k_above_n_is_infeasible():
    frame = frame_from_array(np.arange(12).reshape(4, 3))
    r = solve_k(frame, list(frame.columns), 5)
    assert r.status == "infeasible"
    assert "exceeds the number of rows" in r.reason
    assert r.table is None


def test_whole_table_one_group_when_k_equals_n():
    arr = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 1]])
    frame = frame_from_array(arr)
    r = solve_k(frame, list(frame.columns), 4)
    # columns 0 and 1 vary, column 2 is constant: 2 stars in each of 4 rows (hand count)
    assert r.status == "optimal" and r.objective == 8
    assert (r.table["q2"] == "1").all()


# --- Blocki-Williams App. C: binary 3-anonymity of a graph's edge table -------------------
# Optimum = 3|E| exactly when the edges split into triangles and 4-stars (K_{1,3}).
TRI_STAR_GRAPHS = {
    "K4 = 4-star + triangle": ([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)], 4),
    "two triangles sharing a vertex": ([(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (2, 4)], 5),
    "triangle + disjoint 4-star": ([(0, 1), (1, 2), (0, 2), (3, 4), (3, 5), (3, 6)], 7),
    "4-star + triangle on its leaves' neighbours": ([(0, 1), (0, 2), (0, 3), (1, 4), (4, 5), (1, 5)], 6),
}
NO_PARTITION_GRAPHS = {
    "path on 4 vertices": ([(0, 1), (1, 2), (2, 3)], 4),
    "4-cycle": ([(0, 1), (1, 2), (2, 3), (0, 3)], 4),
    "5-cycle plus chord": ([(0, 1), (1, 2), (2, 3), (3, 4), (0, 4), (0, 2)], 5),
}


@pytest.mark.parametrize("name", sorted(TRI_STAR_GRAPHS))
def test_gadget_partitionable(name):
    edges, nv = TRI_STAR_GRAPHS[name]
    frame = edge_table(edges, nv)
    r = solve_k(frame, list(frame.columns), 3)
    assert r.status == "optimal" and r.objective == 3 * len(edges)


@pytest.mark.parametrize("name", sorted(NO_PARTITION_GRAPHS))
def test_gadget_not_partitionable(name):
    edges, nv = NO_PARTITION_GRAPHS[name]
    frame = edge_table(edges, nv)
    arr = frame.to_numpy()
    r = solve_k(frame, list(frame.columns), 3)
    assert r.status == "optimal" and r.objective > 3 * len(edges)
    assert r.objective == brute_force_k_anonymity(arr, 3)[0]


@pytest.mark.parametrize("seed", range(6))
def test_gadget_random_planted_partition(seed):
    edges = planted_partition_graph(9, 4, seed)
    frame = edge_table(edges, 9)
    r = solve_k(frame, list(frame.columns), 3)
    assert r.status == "optimal" and r.objective == 3 * len(edges)
