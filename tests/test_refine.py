"""Refinement of a suppression release (milp_anon.heuristics.refine): every refined table passes the
independent verifier, never costs more than its start nor less than the optimum (brute force), and the
rows are partitioned; a hand-made instance where the split is worked out; the search uses it."""

import numpy as np
import pandas as pd
from helpers import brute, criteria_for, sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.heuristics import criteria_pattern_greedy
from milp_anon.heuristics.refine import refine_blocks, refine_release
from milp_anon.pipeline.solve import solve as pipeline_solve
from milp_anon.release.partition import verified_release
from milp_anon.release.verified import Release
from milp_anon.search import lns
from milp_anon.search.starts import all_masks
from milp_anon.tables.table import SUPPRESSED


def _cost(table, blocks):
    return sum(int((table.codes[b] != table.codes[b][:1]).any(axis=0).sum()) * b.size for b in blocks)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_refined_tables_meet_the_criteria_and_lie_between_start_and_optimum(data):
    frame, qi, k = data.draw(sensitive_tables(n=(6, 10)))
    criteria = [ma.KAnonymity(k), data.draw(criteria_for(frame))]
    table = ma.Table.from_frame(frame, qi, "s")
    request = ma.Request(*criteria)
    whole = [np.arange(table.n)]
    try:
        verified_release(table, whole, request.criteria)
    except ma.errors.VerificationError:
        return  # the whole table fails: no start to refine
    starts = [whole]
    greedy = criteria_pattern_greedy(table, request.criteria, all_masks(table.m))
    if greedy is not None:
        from milp_anon.release.partition import blocks_of
        starts.append(blocks_of(greedy[0], qi))
    best = brute(frame, qi, criteria)
    for start in starts:
        blocks = refine_blocks(table, request.criteria, start)
        assert np.array_equal(np.sort(np.concatenate(blocks)), np.arange(table.n))  # a partition of the rows
        released, cost = verified_release(table, blocks, request.criteria)  # raises if a class fails
        assert cost == _cost(table, blocks) <= _cost(table, start)
        assert cost >= best - 1e-9


def _example():
    # a: x x x x y y y y / b: p q p q ... / s: u v u v ...; k = 2, distinct 2-diversity. Split by a: both
    # halves hold u and v (cost 8: b stays suppressed); split again by b: (x, p) holds u twice, fails.
    frame = pd.DataFrame({"a": list("xxxxyyyy"), "b": list("pqpqpqpq"), "s": list("uvuvuvuv")})
    table = ma.Table.from_frame(frame, ["a", "b"], "s")
    return frame, table, ma.Request(ma.KAnonymity(2), ma.LDiversity(2, kind="distinct"))


def test_a_split_worked_out_by_hand():
    frame, table, request = _example()
    blocks = refine_blocks(table, request.criteria, [np.arange(8)])
    assert sorted(sorted(b.tolist()) for b in blocks) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    whole = frame.copy()
    whole[["a", "b"]] = SUPPRESSED
    released, cost = refine_release(table, request.criteria, whole)
    assert cost == 8 == brute(frame, ["a", "b"], request.criteria)
    assert (released["a"] != SUPPRESSED).all() and (released["b"] == SUPPRESSED).all()


def test_the_search_refines_before_its_sub_problems():
    frame, table, request = _example()
    whole = frame.copy()
    whole[["a", "b"]] = SUPPRESSED
    start = Release.verified(table, request, whole)
    best, log = lns.improve(table, request, start, 30.0, ma.SolverOptions(), sub_solve=pipeline_solve)
    assert log.refined >= 1 and best.objective == 8 < start.objective == 16


def test_a_deadline_passed_leaves_the_blocks_as_they_are():
    _, table, request = _example()
    blocks = refine_blocks(table, request.criteria, [np.arange(8)], deadline=0.0)
    assert [b.tolist() for b in blocks] == [list(range(8))]
