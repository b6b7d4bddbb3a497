"""The combinatorial layer's per-candidate floors (milp_anon/instance/instance.py, :func:`group_floors`).

A floor must lie at or below the size of every legal group a candidate can host; here every sub-multiset of a
candidate's compatible rows is tried on small random tables and judged by the independent verifier
(:func:`milp_anon.privacy.verify.verify_release`: the group released alone, every other row withheld, so t-closeness
still compares it with the whole table).
"""

from itertools import product

import numpy as np
import pandas as pd
from helpers import brute, criteria_for, sensitive_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.formulations import assignment
from milp_anon.instance.instance import group_floors
from milp_anon.pipeline import solve as pipeline
from milp_anon.privacy.verify import verify_release
from milp_anon.release.result import Timings
from milp_anon.runtime.errors import VerificationError
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.solvers import SolverOptions, solve_model

OPTIONS = SolverOptions(time_limit=60, threads=1)


def _prepared(frame, qi, criteria):
    table = ma.Table.from_frame(frame, qi, "s")
    request = ma.Request(*criteria)
    instance, _, _ = pipeline.prepare(table, request, Timings())
    return instance, request


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_no_legal_group_is_smaller_than_its_candidates_floor(data):
    """Every group of a candidate's compatible rows that meets k-anonymity and the sensitive criterion (every
    kind: p, ℓ three ways, t under every distance and a given reference) has at least the candidate's floor of
    rows, and every floor is at least k. (A candidate with no legal group may still have a floor within its rows:
    t-closeness's floor comes from the ball ``TV <= t/d_min``, which holds more groups than the EMD test.)"""
    frame, qi, k = data.draw(sensitive_tables(n=(3, 8), values=(2, 4)))
    criteria = [ma.KAnonymity(k), data.draw(criteria_for(frame))]
    instance, request = _prepared(frame, qi, criteria)
    if instance is None:  # the whole table fails the criterion: no candidates
        return
    cands = instance.candidates
    floors = group_floors(instance, request)
    assert floors.shape == (cands.n_candidates,) and np.all(floors >= k)
    vals = frame["s"].to_numpy()
    released = frame.copy()
    released[qi] = "*"  # the group written at the root; the rows withheld are too (their own rule)
    legal = {}

    def is_legal(rows):
        key = tuple(sorted(vals[rows]))
        if key not in legal:
            kept = np.zeros(len(frame), dtype=bool)
            kept[rows] = True
            try:
                verify_release(frame, released, qi, criteria, sensitive=["s"], withheld=~kept)
                legal[key] = True
            except VerificationError:
                legal[key] = False
        return legal[key]

    for j in range(cands.n_candidates):
        rows = np.flatnonzero(np.isin(instance.types.row_type, cands.pair_type[cands.pair_cand == j]))
        present = sorted(set(vals[rows]))
        of = {v: rows[vals[rows] == v] for v in present}
        sizes = [sum(g) for g in product(*(range(len(of[v]) + 1) for v in present))
                 if sum(g) and is_legal(np.concatenate([of[v][:c] for v, c in zip(present, g)]))]
        if sizes:
            assert min(sizes) >= floors[j], (j, sizes, floors[j])


def _lp_and_optimum(instance, request, floors: bool):
    """The model's LP value and optimum, with the floor rows or (``floors=False``) without them."""
    saved = assignment.group_floors
    if not floors:
        assignment.group_floors = lambda inst, req: np.full(inst.candidates.n_candidates, req.min_group_size())
    try:
        am = assignment.build(instance, request)
    finally:
        assignment.group_floors = saved
    assert ("floor" in am.lm.row_blocks) == (floors and bool(np.any(group_floors(instance, request) > request.min_group_size())))
    grid = ObjectiveGrid.of_costs(instance.candidates.cost)
    lp = solve_model(am.lm.relaxed(), OPTIONS, grid)
    mip = solve_model(am.lm, OPTIONS, grid)
    return lp.objective, mip.objective


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_floor_rows_keep_the_optimum_and_never_lower_the_lp(data):
    """With and without the floor rows the model's optimum is brute force's (from the definitions), and the LP
    with them is at least the LP without."""
    frame, qi, k = data.draw(sensitive_tables(n=(3, 8), values=(2, 4)))
    criteria = [ma.KAnonymity(k), data.draw(criteria_for(frame))]
    instance, request = _prepared(frame, qi, criteria)
    expected = brute(frame, qi, criteria)
    if instance is None or instance.unhostable() or expected is None:
        return
    lp_with, opt_with = _lp_and_optimum(instance, request, True)
    lp_without, opt_without = _lp_and_optimum(instance, request, False)
    assert abs(opt_with - expected) < 1e-6 and abs(opt_without - expected) < 1e-6
    assert lp_with >= lp_without - 1e-7


def test_the_floor_rows_lift_the_lp_of_a_close_table():
    """0.2-closeness on a 7-row table (found by a random search for an LP the floors lift): the reference is
    (2, 3, 2) / 7, and a group of fewer than 3 rows lies at total variation >= 2/7 from it, so every floor is at
    least 3, above k = 2. The LP rises with the floor rows; the optimum is brute force's either way."""
    frame = pd.DataFrame({"q0": list("babababa")[:7], "q1": list("abbcbac"), "s": list("2212331")})
    criteria = [ma.KAnonymity(2), ma.TCloseness(0.2)]
    instance, request = _prepared(frame, ["q0", "q1"], criteria)
    assert group_floors(instance, request).min() >= 3
    lp_with, opt_with = _lp_and_optimum(instance, request, True)
    lp_without, opt_without = _lp_and_optimum(instance, request, False)
    expected = brute(frame, ["q0", "q1"], criteria)
    assert abs(opt_with - expected) < 1e-6 and abs(opt_without - expected) < 1e-6
    assert lp_with > lp_without + 1e-6, (lp_with, lp_without)
