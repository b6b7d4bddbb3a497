"""Interval and value-set candidates pruned by closure while they are enumerated (``_cells_are_hulls``,
``_levels_are_closed``) are exactly those the closure after the enumeration keeps (``_closed_cells``): the same
candidates, costs and pairs with and without the early tests, on random tables with several cell columns (dense and
sparse: many row types of one row). The reference disables the early tests, so the enumeration is the one the
closure alone pruned before."""

import numpy as np
import pandas as pd
from helpers import random_hierarchy
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.instance import candidates as cand_module
from milp_anon.pipeline.solve import prepare
from milp_anon.release.result import Timings

NUMBERS = ["-3", "0", "1", "2.5", "4", "10", "11"]
LETTERS = ["a", "b", "c", "d"]


@st.composite
def tables(draw):
    """Two interval columns, a value-set column, and a hierarchy or suppression column; 4-14 rows, k 1-4."""
    n = draw(st.integers(4, 14))
    sparse = draw(st.booleans())  # wide alphabets: most row types hold one row
    nums = NUMBERS if sparse else NUMBERS[:3]
    frame = pd.DataFrame({
        "x": draw(st.lists(st.sampled_from(nums), min_size=n, max_size=n)),
        "w": draw(st.lists(st.sampled_from(nums), min_size=n, max_size=n)),
        "y": draw(st.lists(st.sampled_from(LETTERS if sparse else LETTERS[:2]), min_size=n, max_size=n)),
        "z": draw(st.lists(st.sampled_from(LETTERS[:3]), min_size=n, max_size=n)),
    })
    hier = {"z": draw(random_hierarchy(sorted(set(frame["z"]))))} if draw(st.booleans()) else {}
    recoding = ma.Generalization(hier, cost=draw(st.sampled_from(["height", "lm"])), intervals=("x", "w"),
                                 value_sets=("y",))
    return frame, recoding, draw(st.integers(1, 4))


def _candidates(frame, recoding, k):
    table = ma.Table.from_frame(frame, list(frame.columns))
    instance, _, why = prepare(table, ma.Request(ma.KAnonymity(min(k, len(frame))), recoding=recoding), Timings())
    c = instance.candidates
    pairs = {}
    for t, j in zip(c.pair_type.tolist(), c.pair_cand.tolist()):
        pairs.setdefault(j, []).append(t)
    return sorted((tuple(c.nodes[j].tolist()), float(c.cost[j]), tuple(sorted(pairs.get(j, []))))
                  for j in range(c.n_candidates))


@settings(max_examples=120, deadline=None)
@given(tables())
def test_early_closure_keeps_exactly_the_closed_candidates(case):
    frame, recoding, k = case
    pruned = _candidates(frame, recoding, k)
    with_early = cand_module._cells_are_hulls, cand_module._levels_are_closed
    try:
        cand_module._cells_are_hulls = lambda *a: True
        cand_module._levels_are_closed = lambda *a: True
        reference = _candidates(frame, recoding, k)
    finally:
        cand_module._cells_are_hulls, cand_module._levels_are_closed = with_early
    assert pruned == reference
    assert len(np.unique([p[0] for p in pruned], axis=0)) == len(pruned)  # one candidate per released tuple
