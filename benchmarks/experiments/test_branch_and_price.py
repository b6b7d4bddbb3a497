"""The branch-and-price prototype (benchmarks/experiments/branch_and_price.py): its optimum against brute force
(dense and sparse tables, k up to 5), every node's bound against brute force over the node's subtree, and a run
cut off by a limit (a verified table, a bound at most the optimum)."""

import itertools

import numpy as np
import pandas as pd
import pytest

import milp_anon as ma
from benchmarks.experiments.branch_and_price import BranchAndPrice, solve
from milp_anon.exact.brute_force import brute_force_k_anonymity, set_partitions
from milp_anon.pipeline.solve import prepare
from milp_anon.release.result import Timings
from milp_anon.release.verified import Release
from milp_anon.runtime.grid import ObjectiveGrid


def _table(arr):
    frame = pd.DataFrame(np.asarray(arr).astype(str), columns=[f"q{c}" for c in range(np.shape(arr)[1])])
    return ma.Table.from_frame(frame, list(frame.columns))


def _random(rng, n, m, a, k):
    arr = rng.integers(0, int(rng.integers(*a)), size=(int(rng.integers(*n)), int(rng.integers(*m))))
    return arr, min(int(rng.integers(*k)), arr.shape[0])


def _check_optimum(arr, k, **options):
    s = solve(_table(arr), k, **options)
    optimum = brute_force_k_anonymity(arr, k)[0]
    assert isinstance(s.release, Release) and s.release.objective == s.cost
    assert s.status == "optimal" and s.cost == optimum and s.bound == optimum
    return s.tree.nodes


def test_optimum_equals_brute_force_dense():
    rng = np.random.default_rng(1)
    nodes = [_check_optimum(*_random(rng, (4, 10), (1, 5), (2, 4), (2, 6))) for _ in range(60)]
    assert max(nodes) > 1  # the tree branched somewhere, not only at the root


def test_optimum_equals_brute_force_sparse():
    # many row types of one row each (alphabets of 4-6 values over 3-5 columns), k up to 5; without the restricted
    # master heuristic, so that the tree's own incumbents (rounding, integral nodes) have to reach the optimum
    rng = np.random.default_rng(7)
    nodes = [_check_optimum(*_random(rng, (6, 11), (3, 6), (4, 7), (2, 6)), rmh_every=0) for _ in range(50)]
    assert sum(n > 1 for n in nodes) >= 10


def _subtree_optimum(rows, cand_codes, k, zero, one):
    """Brute force over the node's subtree: every partition of the rows into blocks of at least k, each block
    released as a candidate compatible with all its rows (from the codes: kept cells equal) and not closed,
    every open candidate used; a block costs its rows times its candidate's stars. Blocks may share a
    candidate (they form one class of >= 2k rows)."""
    stars = (cand_codes < 0).sum(axis=1)
    one, best = list(one), np.inf
    for part in set_partitions(list(range(rows.shape[0]))):
        if min(len(b) for b in part) < k:
            continue
        options = []
        for b in part:
            fits = np.all((cand_codes[None, :, :] < 0) | (cand_codes[None, :, :] == rows[list(b)][:, None, :]),
                          axis=(0, 2))
            fits[list(zero)] = False
            ok = np.flatnonzero(fits)
            if ok.size == 0:
                break
            cheapest = int(ok[np.argmin(stars[ok])])  # a block not covering an open candidate takes the cheapest
            options.append([cheapest] + [j for j in one if fits[j]])
        else:
            for labels in itertools.product(*options):
                if set(one) <= set(labels):
                    best = min(best, sum(len(b) * stars[j] for b, j in zip(part, labels)))
    return best


@pytest.mark.parametrize("rc_fixing", [False, True])
def test_node_bounds_are_valid_for_their_subtree(rc_fixing):
    rng = np.random.default_rng(11 + rc_fixing)
    checked = deep = 0
    for _ in range(30):
        arr, k = _random(rng, (5, 9), (2, 5), (3, 5), (2, 4))
        instance, _, why = prepare(_table(arr), ma.Request(ma.KAnonymity(k)), Timings())
        c, ty = instance.candidates, instance.types
        bp = BranchAndPrice(ty.counts, c.cost, c.pair_type, c.pair_cand, k, grid=ObjectiveGrid.of_costs(c.cost),
                            rc_fixing=rc_fixing, trace=True, rmh_every=0)
        bp.run()
        rows = ty.codes[ty.row_type]
        for node in bp.trace:
            opt = _subtree_optimum(rows, c.codes, k, node["zero"], node["one"])
            # without fixing every bound holds for the whole subtree; with it, for its solutions cheaper than the
            # incumbent when the node was solved (the fixings removed the others)
            assert node["bound"] <= opt + 1e-9 if not rc_fixing else min(node["bound"], node["ub"]) <= opt + 1e-9
            checked += 1
            deep += len(node["zero"]) + len(node["one"]) > 0
    assert deep >= 20 and checked > deep


def _branching_case():
    """A seeded table the tree needs several nodes for, with its optimum (brute force)."""
    rng = np.random.default_rng(3)
    while True:
        arr, k = _random(rng, (8, 11), (3, 5), (3, 6), (3, 6))
        if solve(_table(arr), k, rmh_every=0).tree.nodes >= 5:
            return arr, k, brute_force_k_anonymity(arr, k)[0]


def test_a_run_cut_by_the_node_limit_returns_a_verified_table_and_a_valid_bound():
    arr, k, optimum = _branching_case()
    s = solve(_table(arr), k, node_limit=2, rmh_every=0)
    assert s.status == "node_limit" and s.tree.open_nodes > 0 and s.tree.nodes == 2
    assert isinstance(s.release, Release) and s.release.objective == s.cost
    assert s.bound <= optimum <= s.cost and s.bound < s.cost


def test_a_run_cut_by_the_time_limit_returns_a_verified_table_and_a_valid_bound():
    arr, k, optimum = _branching_case()
    for limit in (0.0, 1e-3, 0.01):  # before the root, in it, or a few nodes in
        s = solve(_table(arr), k, time_limit=limit)
        assert isinstance(s.release, Release) and s.release.objective == s.cost
        assert s.bound <= optimum <= s.cost
        assert (s.status == "optimal") == (s.bound == s.cost)
    assert solve(_table(arr), k, time_limit=0.0).status == "time_limit"
