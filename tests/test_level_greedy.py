"""The level greedy (k-anonymity with hierarchies) and the starts it gives the solver."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_generalization import generalization_cases

import milp_anon as ma
from milp_anon.exact import brute_force
from milp_anon.heuristics import level_greedy
from milp_anon.privacy.verify import verify_release
from milp_anon.search.starts import heuristic_tables
from milp_anon.tables.recoding import Generalization


@settings(max_examples=150)
@given(generalization_cases())
def test_level_greedy_is_verified_and_never_below_the_optimum(case):
    frame, qi, k, rec = case
    table = ma.Table.from_frame(frame, qi)
    res = level_greedy(table, k, rec)
    expected = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k)], recoding=rec, columns=qi)[0]
    if expected is None:
        assert res is None
        return
    released, cost = res
    # recounted from the definitions, independently of the greedy
    v = verify_release(frame, released, qi, [ma.KAnonymity(k)], recoding=rec)
    assert v.cost == pytest.approx(cost, abs=1e-9)
    assert cost >= float(expected) - 1e-9


def test_leftover_rows_join_the_class_they_widen_least():
    # k = 2: (a, x) x2 and (b, x) x2 form classes at level 0; (c, y) is left over. Joining the
    # (b, x) class costs less than joining (a, x): b and c share the parent "bc"
    frame = pd.DataFrame({"v": list("aabbc"), "w": list("xxxxy")})
    hier = {"v": {"a": ["a-only", "*"], "b": ["bc", "*"], "c": ["bc", "*"]}}
    rec = Generalization(hier, cost="height")
    released, cost = level_greedy(ma.Table.from_frame(frame, ["v", "w"]), 2, rec)
    assert released["v"].tolist() == ["a", "a", "bc", "bc", "bc"]
    assert released["w"].tolist() == ["x", "x", "*", "*", "*"]
    assert cost == pytest.approx(3 * 0.5 + 3 * 1.0)
    # and it is the optimum here
    assert cost == pytest.approx(float(brute_force(frame.to_numpy(), [ma.KAnonymity(2)], recoding=rec,
                                                   columns=["v", "w"])[0]))


def test_hierarchies_get_generalizing_heuristics():
    frame = pd.DataFrame({"v": list("aabbcc"), "s": list("xyxyxy")})
    hier = {"v": {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["c-only", "*"]}}
    rec = Generalization(hier, cost="lm")
    names = [n for n, _, _ in heuristic_tables(ma.Table.from_frame(frame, ["v"]), ma.Request(ma.KAnonymity(2),
                                                                                              recoding=rec))]
    assert names == ["level greedy", "mondrian"]
    table = ma.Table.from_frame(frame, ["v"], "s")
    names = [n for n, _, _ in heuristic_tables(table, ma.Request(ma.KAnonymity(2), ma.PSensitivity(2),
                                                                  recoding=rec))]
    assert names == ["mondrian"]  # the level greedy checks k alone


@settings(max_examples=60)
@given(generalization_cases(), st.booleans())
def test_greedy_warm_start_with_hierarchies_keeps_the_optimum(case, reduce):
    frame, qi, k, rec = case
    table = ma.Table.from_frame(frame, qi)
    how = "auto" if reduce else "none"
    cold = ma.anonymize(table, ma.KAnonymity(k), recoding=rec, reduction=how)
    warm = ma.anonymize(table, ma.KAnonymity(k), recoding=rec, reduction=how, warm_start="greedy")
    assert cold.status == warm.status
    if cold.status == "optimal":
        assert warm.objective == pytest.approx(cold.objective, abs=1e-9)
        assert warm.warm_start_cost is not None and warm.warm_start_cost >= warm.objective - 1e-9


def test_the_start_maps_a_hierarchy_release_onto_the_model():
    """The greedy's table, read back as a start, is complete: every row in a pair, at the table's cost."""
    from milp_anon.formulations import build
    from milp_anon.instance.instance import Instance, collapse, generate_candidates
    from milp_anon.search.starts import best_heuristic, release_start

    frame = pd.DataFrame({"v": list("aabbcdd"), "w": list("xxyyyzz")})
    hier = {"v": {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"], "d": ["cd", "*"]}}
    rec = Generalization(hier, cost="lm")
    table = ma.Table.from_frame(frame, ["v", "w"])
    request = ma.Request(ma.KAnonymity(2), recoding=rec)
    lattices = rec.lattices(table)
    types, units = collapse(table, request)
    am = build(Instance(table, lattices, types, units, generate_candidates(table, request, types, units, lattices)),
               request)
    rel = best_heuristic(table, request, whole_table=False)
    assert rel.table["v"].tolist() == ["a", "a", "*", "*", "*", "d", "d"]  # {b, c} meet only at the root
    idx, vals = release_start(am, rel)
    start = dict(zip(idx.tolist(), vals.tolist()))
    g = np.array([start[int(col)] for col in am.g])  # every g column is set: a complete start
    assert g.sum() == 7
    assert float(g @ am.cands.cost[am.pair_cand]) == pytest.approx(rel.cost)
