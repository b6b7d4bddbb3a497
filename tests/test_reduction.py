"""Lagrangian bound and reduced-cost fixing (milp_anon.bounds.lagrangian) against independent computations."""

import dataclasses
import itertools
import json
import math
import types

import numpy as np
import pytest
from helpers import frame_from_array, generalization_cases, quiet_highs, small_tables
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon import reduction
from milp_anon.bounds import lagrangian
from milp_anon.bounds.conflicts import conflicting_pairs, violated_cliques
from milp_anon.bounds.lagrangian import block_prices, block_values, column_generation
from milp_anon.certify import certify
from milp_anon.exact import brute_force, brute_force_k_anonymity, divide_and_conquer
from milp_anon.formulations import build
from milp_anon.instance.candidates import suppression_candidates
from milp_anon.pipeline import solve as pipeline
from milp_anon.pipeline.solve import solve as pipeline_solve
from milp_anon.runtime import memory
from milp_anon.runtime.grid import NO_GRID, ObjectiveGrid
from milp_anon.search import lns
from milp_anon.tables.rowtypes import RowTypes


def _block_by_enumeration(v, n, k, force=None):
    """min Σ v_i g_i over integer 0 <= g_i <= n_i with Σ g_i >= k (and g_force >= 1), by enumeration."""
    best = np.inf
    for g in itertools.product(*[range(int(c) + 1) for c in n]):
        if sum(g) < k or (force is not None and g[force] < 1):
            continue
        best = min(best, float(np.dot(v, g)))
    return best


@settings(max_examples=150)
@given(data=st.data())
def test_block_prices_equal_enumeration(data):
    """rc_j and the forced-pair values against enumerating every integer block solution, with the pairs
    solved in one piece or in chunks of a few pairs (``price_chunk``)."""
    frame, qi, k = data.draw(small_tables(n=(4, 9), m=(1, 3)))
    table = ma.Table.from_frame(frame, qi)
    types = RowTypes.from_table(table)
    cands = suppression_candidates(types, k)
    pi = np.array(data.draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.5]),
                                     min_size=types.t_in, max_size=types.t_in)))
    chunk = data.draw(st.sampled_from([1, 2, 3, 5, ma.Tuning().price_chunk]))
    p = block_prices(pi, types.counts, cands.cost, cands.pair_type, cands.pair_cand, k, price_chunk=chunk)
    assert p.bound == pytest.approx(float(pi @ types.counts) + np.minimum(p.rc, 0.0).sum())
    for j in range(cands.n_candidates):
        sel = np.flatnonzero(cands.pair_cand == j)
        n = types.counts[cands.pair_type[sel]]
        v = cands.cost[j] - pi[cands.pair_type[sel]]
        assert p.rc[j] == pytest.approx(_block_by_enumeration(v, n, k))
        for a, q in enumerate(sel):
            assert p.forced[q] == pytest.approx(_block_by_enumeration(v, n, k, force=a))



@settings(max_examples=60)
@given(data=st.data())
def test_block_prices_in_chunks_equal_one_piece(data):
    """The chunks hold whole candidates, so every block is solved as in one piece: the same numbers exactly,
    with a per-pair shift, with candidates that have no pair (rc 0) between chunks, and unsorted pairs; and
    :func:`block_values` gives the same ``rc`` and ``L`` as :func:`block_prices`."""
    frame, qi, k = data.draw(small_tables(n=(4, 10), m=(1, 3)))
    types = RowTypes.from_table(ma.Table.from_frame(frame, qi))
    cands = suppression_candidates(types, k)
    pt, pc, w = cands.pair_type, cands.pair_cand, cands.cost.astype(float)
    drop = np.array(data.draw(st.lists(st.booleans(), min_size=cands.n_candidates, max_size=cands.n_candidates)))
    keep = ~drop[pc]  # candidates left without pairs
    pt, pc = pt[keep], pc[keep]
    P = pt.shape[0]
    pi = np.array(data.draw(st.lists(st.floats(-2, 4, allow_nan=False), min_size=types.t_in, max_size=types.t_in)))
    shift = np.array(data.draw(st.lists(st.floats(0, 2, allow_nan=False), min_size=P, max_size=P))) \
        if data.draw(st.booleans()) else None
    whole = block_prices(pi, types.counts, w, pt, pc, k, shift=shift)
    chunk = data.draw(st.integers(1, 4))
    chunked = block_prices(pi, types.counts, w, pt, pc, k, shift=shift, price_chunk=chunk)
    perm = np.random.default_rng(0).permutation(P)
    shuffled = block_prices(pi, types.counts, w, pt[perm], pc[perm], k,
                            shift=None if shift is None else shift[perm], price_chunk=chunk)
    values = block_values(pi, types.counts, w, pt, pc, k, shift=shift, price_chunk=chunk)  # chunked too
    for name in ("rc", "take", "forced"):
        assert np.array_equal(getattr(whole, name), getattr(chunked, name))
    assert whole.bound == chunked.bound
    # without the per-pair values: the same rc and L bit for bit, and the pairs the blocks take
    assert np.array_equal(values.rc, whole.rc) and values.bound == whole.bound
    assert np.array_equal(values.taken, whole.take > 0)
    assert np.allclose(shuffled.rc, whole.rc) and np.allclose(shuffled.forced, whole.forced[perm])
    assert np.all(whole.rc[drop] == 0)
    _assert_screened(whole, block_values(pi, types.counts, w, pt, pc, k, shift=shift, price_chunk=chunk,
                                         negative_only=True), pc)
    # candidates short of k (pairs dropped one by one) and a k of their own
    part = np.array(data.draw(st.lists(st.booleans(), min_size=P, max_size=P)), dtype=bool)
    kj = np.array(data.draw(st.lists(st.integers(1, 2 * k), min_size=w.size, max_size=w.size)), dtype=float)
    pt2, pc2 = pt[~part], pc[~part]
    _assert_screened(block_prices(pi, types.counts, w, pt2, pc2, kj, price_chunk=chunk),
                     block_values(pi, types.counts, w, pt2, pc2, kj, price_chunk=chunk, negative_only=True), pc2)


def _assert_screened(whole, screened, pc):
    """The screen solves only the blocks below 0: those exactly (value and pairs), ``L`` bit for bit, every other
    ``rc_j`` a lower bound above 0."""
    neg = whole.rc < 0
    assert screened.bound == whole.bound
    assert np.array_equal(screened.rc[neg], whole.rc[neg])
    assert np.array_equal(screened.taken[neg[pc]], whole.take[neg[pc]] > 0)
    assert np.all(screened.rc[~neg] >= 0) and np.all(screened.rc[~neg] <= whole.rc[~neg] + 1e-9)


def test_the_screen_cuts_off_a_block_above_0_and_solves_one_short_of_k():
    """Hand-worked blocks (``w = 1``): types of 1 row each with ``π = (0.5, 0, 0)``, ``k = 2``: ``v = (0.5, 1, 1)``,
    no negative unit, two more at least 0.5 each, so the screen's bound is 1.0 > 0 and the block (exactly
    0.5 + 1 = 1.5) is not solved. Two types with ``π = (2.5, 0)``, ``k = 3``: ``v = (−1.5, 1)``; only one more unit
    is left, so the bound is −1.5 + 1 = −0.5, and the block, short of ``k``, is solved: −0.5."""
    screened = block_values(np.array([0.5, 0.0, 0.0]), np.ones(3), np.ones(1), np.arange(3), np.zeros(3, int), 2,
                            negative_only=True)
    assert screened.rc.tolist() == [1.0] and screened.bound == 0.5
    short = block_values(np.array([2.5, 0.0]), np.ones(2), np.ones(1), np.arange(2), np.zeros(2, int), 3,
                         negative_only=True)
    assert short.rc.tolist() == [-0.5] and short.bound == 2.0 and short.taken.tolist() == [True, True]


@settings(max_examples=150)
@example(counts=[1, 3, 1, 2], k=3, pairs=[(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (2, 1)],
         values=[1.0, 1.0, 1.0, 0.0, -1.0, 2.0])
@given(counts=st.lists(st.integers(1, 4), min_size=1, max_size=6), k=st.integers(1, 6),
       pairs=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 4)), min_size=1, max_size=20, unique=True),
       values=st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0]), min_size=20, max_size=20))
def test_block_prices_by_passes_equal_by_sorting(counts, k, pairs, values):
    """The segment-minimum passes (pairs sorted by candidate) solve every block as the sort does: the same units
    taken, ties included (few distinct values, so many ties), the same ``rc`` and forced values."""
    T = len(counts)
    pairs = sorted({(t % T, j) for t, j in pairs}, key=lambda p: (p[1], p[0]))  # by candidate, types in order
    pt = np.array([t for t, _ in pairs])
    pc = np.array([j for _, j in pairs])
    n = np.array(counts, dtype=float)
    C = 5
    w = np.zeros(C)
    pi = -np.array(values[:T])  # v = w_j − π_i = values[i]: ties within a candidate
    shift = np.resize(np.array(values[::-1]), pt.size)  # a per-pair term, also with ties
    for s in (None, shift):  # the blocks' values and units taken, from which rc, the forced values and L follow
        v_passes, by_passes = lagrangian._blocks_by_passes(pi, n, w, pt, pc, k, s)
        v_sorted, by_sorting = lagrangian._blocks_by_sorting(pi, n, w, pt, pc, k, s)
        assert np.array_equal(v_passes, v_sorted) and np.array_equal(by_passes, by_sorting)


def _optimal_pairs(frame, k, cands, types):
    """Brute-force optimum and the (type, candidate) pairs of an optimal partition (LCA of each block)."""
    arr = frame.to_numpy()
    cost, blocks = brute_force_k_anonymity(arr, k)
    table = ma.Table.from_frame(frame, list(frame.columns))
    index = {tuple(c): j for j, c in enumerate(cands.codes.tolist())}
    pairs = set()
    for b in blocks:
        codes = table.codes[list(b)]
        lca = np.where((codes == codes[0]).all(axis=0), codes[0], -1)
        j = index[tuple(int(x) for x in lca)]
        for r in b:
            pairs.add((int(types.row_type[r]), j))
    return cost, pairs


@settings(max_examples=120)
@given(data=st.data())
def test_bounds_hold_for_any_multipliers(data):
    """L(π) and every pair bound of an optimal solution's pairs lie at or below the brute-force optimum."""
    frame, qi, k = data.draw(small_tables(n=(4, 9), m=(1, 3), k=(2, 3)))
    if k > len(frame):
        return
    table = ma.Table.from_frame(frame, qi)
    types = RowTypes.from_table(table)
    cands = suppression_candidates(types, k)
    opt, pairs = _optimal_pairs(frame, k, cands, types)
    pi = np.array(data.draw(st.lists(st.floats(-2, 4, allow_nan=False), min_size=types.t_in,
                                     max_size=types.t_in)))
    p = block_prices(pi, types.counts, cands.cost, cands.pair_type, cands.pair_cand, k)
    assert p.bound <= opt + 1e-9
    pb = p.pair_bounds(cands.pair_cand)
    where = {(int(t), int(j)): q for q, (t, j) in enumerate(zip(cands.pair_type, cands.pair_cand))}
    for pair in pairs:
        assert pb[where[pair]] <= opt + 1e-9
    # fixing at G = opt + 1 keeps every pair of this optimal solution
    keep = ObjectiveGrid(1).ceil_array(p.pair_bounds(cands.pair_cand)) < opt + 1
    assert all(keep[where[pair]] for pair in pairs)


@settings(max_examples=80)
@given(small_tables(n=(4, 10), m=(1, 4)), st.sampled_from([None, 0.0, 0.5, 0.95]), st.sampled_from([None, 1]),
       st.sampled_from([None, 1e-4]), st.sampled_from([None, False, True]),
       st.sampled_from([None, ma.Tuning(max_add_most=1)]))
def test_column_generation_reaches_the_lp_bound(case, smoothing, max_add, master_seconds, separate_links, tuning):
    """The column-generation bound equals the LP relaxation of the whole model (y relaxed), built independently,
    with and without Wentges smoothing, when a single candidate enters per round (many rounds, mis-prices),
    when every master run is cut short (priced at unfinished duals, or run again to the optimum), and with
    the masters' links separated (added when violated: from the start, or, by default, from the first
    master cut short) or all built; ``max_add`` growing a round where the master is faster than the pricing
    (the default) or fixed (``max_add_most=1``)."""
    frame, qi, k = case
    if k > len(frame):
        return
    table = ma.Table.from_frame(frame, qi)
    types = RowTypes.from_table(table)
    cands = suppression_candidates(types, k)
    cg = column_generation(types.counts, cands.cost, cands.pair_type, cands.pair_cand, k, smoothing=smoothing,
                           max_add=max_add, master_seconds=master_seconds, separate_links=separate_links,
                           tuning=tuning)
    assert cg.converged
    assert cg.bound <= cg.lp_value + 1e-6
    # the master's point, read back over every candidate and pair, is the LP optimum it reports
    y, g = cg.primal
    assert float(g @ cands.cost[cands.pair_cand]) == pytest.approx(cg.lp_value, abs=1e-6)
    assert np.allclose(np.bincount(cands.pair_type, weights=g, minlength=types.t_in), types.counts, atol=1e-6)
    assert np.all(g <= types.counts[cands.pair_type] * y[cands.pair_cand] + 1e-6)
    am = pipeline.build_model(table, ma.Request(ma.KAnonymity(k), reduction="none"))
    assert am.cands.n_candidates == cands.n_candidates  # the model of the same candidates
    a = am.lm.arrays()
    import highspy

    h = am.lm.to_highs()
    h.setOptionValue("output_flag", False)
    for c in np.flatnonzero(a["integer"]):
        h.changeColIntegrality(int(c), highspy.HighsVarType.kContinuous)
    h.run()
    lp = h.getInfo().objective_function_value
    assert cg.bound == pytest.approx(lp, abs=1e-6)



@settings(max_examples=60)
@given(data=st.data())
def test_master_prices_the_pairs_of_its_candidates_only(data):
    """``priced_pairs``: exactly the absent pairs of master candidates with a negative reduced cost at the given
    duals, found from the candidates' pair ranges (pairs sorted by candidate) or by scanning every pair."""
    frame, qi, k = data.draw(small_tables(n=(4, 10), m=(1, 3)))
    types = RowTypes.from_table(ma.Table.from_frame(frame, qi))
    cands = suppression_candidates(types, k)
    n, w, pt, pc = types.counts.astype(float), cands.cost.astype(float), cands.pair_type, cands.pair_cand
    C, P = cands.n_candidates, pt.shape[0]
    js = np.flatnonzero(data.draw(st.lists(st.booleans(), min_size=C, max_size=C)))
    some = np.array(data.draw(st.lists(st.booleans(), min_size=P, max_size=P)))
    perm = np.random.default_rng(0).permutation(P) if data.draw(st.booleans()) else np.arange(P)
    master = lagrangian.RestrictedMaster(n, w, pt[perm], pc[perm], k)
    master.add_with_pairs(js, some[perm])
    duals = np.array(data.draw(st.lists(st.floats(-3, 3, allow_nan=False), min_size=master.rows,
                                        max_size=master.rows)))
    sigma = np.zeros(C)
    sigma[js] = duals[master.k_row[js]]
    expected = {q for q in range(P) if master.in_master[pc[perm][q]] and not master.pair_in[q]
                and w[pc[perm][q]] - duals[pt[perm][q]] - sigma[pc[perm][q]] < -1e-9}
    assert set(master.priced_pairs(duals).tolist()) == expected

def test_column_generation_refuses_a_smoothing_outside_0_1():
    n, w = np.array([2.0]), np.array([0.0])
    for bad in (-0.1, 1.0):
        with pytest.raises(ValueError, match="smoothing"):
            column_generation(n, w, np.array([0]), np.array([0]), 2, smoothing=bad)


def test_master_options_reach_every_master_and_the_bound_stays_the_lp_s(monkeypatch):
    """``Tuning.master_highs_options`` are set on the masters' HiGHS (the caller's ``highs_options`` last), and under
    the primal
    simplex the column generation converges to the same bound as under the default dual simplex."""
    rng = np.random.default_rng(7)
    frame = frame_from_array(rng.integers(0, 3, size=(40, 4)))
    table = ma.Table.from_frame(frame, list(frame.columns))
    types = RowTypes.from_table(table)
    cands = suppression_candidates(types, 3)
    args = (types.counts, cands.cost, cands.pair_type, cands.pair_cand, 3)
    default = column_generation(*args)
    seen = []
    init = lagrangian.RestrictedMaster.__init__

    def spy(self, *a, **kw):
        init(self, *a, **kw)
        seen.append(self)

    monkeypatch.setattr(lagrangian.RestrictedMaster, "__init__", spy)
    primal = column_generation(*args, highs_options={"random_seed": 9},
                               tuning=ma.Tuning(master_highs_options={"simplex_strategy": 4, "random_seed": 5}))
    assert seen[0].h.getOptionValue("simplex_strategy")[1] == 4
    assert seen[0].h.getOptionValue("random_seed")[1] == 9  # the caller's own win
    assert default.converged and primal.converged
    assert primal.bound == pytest.approx(default.bound, abs=1e-6)


@settings(max_examples=150)
@given(small_tables(n=(4, 11), m=(1, 4), k=(2, 4)))
def test_reduction_equals_brute_force(case):
    frame, qi, k = case
    expected, _ = brute_force_k_anonymity(frame.to_numpy(), k)
    r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), reduction="lagrangian")
    if expected is None:
        assert r.status == "infeasible"
        return
    assert r.status == "optimal" and r.objective == expected and r.bound == expected


def _duplicated_table(rng, n_types, n_rows, m, a):
    """A random table whose rows repeat a few random QI vectors (many duplicates, like real data)."""
    vectors = rng.integers(0, a, size=(n_types, m))
    weights = rng.dirichlet(np.ones(n_types) * 0.5)
    rows = vectors[rng.choice(n_types, size=n_rows, p=weights)]
    return frame_from_array(rows)


def _random_case(rng):
    """A random duplicated table (40–120 rows, 3–6 columns), its k (2–5) and the whole model's solve of it."""
    m = int(rng.integers(3, 7))
    frame = _duplicated_table(rng, int(rng.integers(8, 40)), int(rng.integers(40, 121)), m, int(rng.integers(2, 4)))
    k = int(rng.integers(2, 6))
    table = ma.Table.from_frame(frame, list(frame.columns))
    return frame, table, k, ma.anonymize(table, ma.KAnonymity(k), reduction="none")


def test_reduction_equals_whole_model_beyond_brute_force(monkeypatch):
    """On 40 random tables of 40–120 rows the reduction and the whole model give one optimum; the
    reduction fixes pairs and, on some tables, needs more than one round (both paths are exercised).
    No polishing of the first round here, so that rounds stop at their threshold, and no LP rounding, so
    that the rounds find the incumbents (the LP rounding's table is often optimal already on these tables,
    and the bound then ends the solve before any round: checked on the same tables, with it on). Rounds
    end by the stop callback once their bound reaches their threshold."""
    monkeypatch.setattr(reduction, "ROUND_POLISH", 0.0)
    rng = np.random.default_rng(20261122)
    rounds, fixed, stopped, no_round = [], [], 0, 0
    for _ in range(40):
        m = int(rng.integers(3, 7))
        frame = _duplicated_table(rng, int(rng.integers(8, 40)), int(rng.integers(40, 121)), m,
                                  int(rng.integers(2, 4)))
        k = int(rng.integers(2, 6))
        qi = list(frame.columns)
        table = ma.Table.from_frame(frame, qi)
        whole = ma.anonymize(table, ma.KAnonymity(k), reduction="none")
        red = ma.anonymize(table, ma.KAnonymity(k), reduction="lagrangian", tuning=ma.Tuning(lp_rounding=False))
        rounded = ma.anonymize(table, ma.KAnonymity(k), reduction="lagrangian")
        assert whole.status == red.status == rounded.status == "optimal"
        assert red.objective == whole.objective == rounded.objective
        assert rounded.reduction.rounding_objective >= rounded.objective
        no_round += not rounded.reduction.rounds
        info = red.reduction
        rounds.append(len(info.rounds))
        fixed.append(info.rounds[0].pairs < info.full_pairs)
        stopped += sum(rnd.status == "stopped at G" for rnd in info.rounds)
    # some rounds end early, with no solution below G, once their bound reaches G (the stop_bound path)
    assert max(rounds) >= 2 and any(fixed) and stopped > 0
    assert no_round > 0  # the rounding's table and the Lagrangian bound alone settle some tables


def test_rounds_hold_the_incumbent_and_start_from_it(monkeypatch):
    """Every round's model is S(G) plus the incumbent's pairs, started from the incumbent: each round
    built returns a table no dearer than the incumbent before it (a round of S(G) alone, started from
    the whole table, may return none or a dearer one), and the optimum is still the whole model's."""
    monkeypatch.setattr(reduction, "ROUND_POLISH", 0.0)
    rng = np.random.default_rng(20261125)
    held, checked = 0, 0
    for _ in range(40):
        _, table, k, whole = _random_case(rng)
        red = ma.anonymize(table, ma.KAnonymity(k), reduction="lagrangian")
        assert red.status == whole.status == "optimal" and red.objective == whole.objective
        info = red.reduction
        ub = info.rounding_objective
        for rnd in info.rounds:
            if rnd.status == "empty":
                continue
            checked += 1
            assert rnd.objective is not None and rnd.objective <= ub + 1e-9
            held += rnd.incumbent_pairs > 0
            ub = rnd.objective
    assert checked > 0 and held > 0


@pytest.mark.parametrize("wide", [True, False])
def test_unused_polish_goes_to_the_next_rounds_while_the_gap_is_wide(monkeypatch, wide):
    """The first round searches for incumbents for a while (ROUND_POLISH); what it leaves unused (it was
    proven optimal sooner) goes to the next rounds while the gap is above HEURISTIC_GAP, and never after.
    The gap rule is set to always (or never) see a wide gap, so both branches are met whatever the timing."""
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

    rounds = []
    solve_round = reduction.LagrangianReduction._solve_round

    class Recording(reduction.StopAtBound):
        def __init__(self, bound, after=0.0):
            super().__init__(bound, after)
            rounds[-1]["after"] = after

    def recorded(self, am, G, remaining, first, hint=None, room=True):
        rounds.append({"first": first, "left": self.polish_left})
        return solve_round(self, am, G, remaining, first, hint, room)

    monkeypatch.setattr(reduction, "StopAtBound", Recording)
    monkeypatch.setattr(reduction.LagrangianReduction, "_solve_round", recorded)
    monkeypatch.setattr(reduction, "HEURISTIC_GAP", -1.0 if wide else math.inf)
    qi = ["sex", "age", "race", "marital-status"]
    table = ma.Table.from_frame(load_adult().iloc[:2000], qi)
    rec = ma.Generalization({c: adult_hierarchy_path(c) for c in qi}, cost="lm")
    # a generous limit: the first round (seconds here) leaves most of its polish time unused
    r = ma.anonymize(table, ma.KAnonymity(5), recoding=rec, time_limit=600)
    assert r.status == "optimal" and rounds[0]["first"] and rounds[0]["after"] > 0
    later = rounds[1:]
    assert later and later[0]["left"] > 0
    for rnd in later:
        assert rnd["after"] == (rnd["left"] if wide else 0.0)


def test_reduction_with_hierarchies_and_fractional_costs():
    """Generalization with lm costs (fractions): the reduction agrees with the whole model."""
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

    frame = load_adult().iloc[:400]
    qi = ["sex", "age", "race", "marital-status"]
    table = ma.Table.from_frame(frame, qi)
    rec = ma.Generalization({c: adult_hierarchy_path(c) for c in ("age", "marital-status")}, cost="lm")
    whole = ma.anonymize(table, ma.KAnonymity(5), recoding=rec, reduction="none")
    red = ma.anonymize(table, ma.KAnonymity(5), recoding=rec, reduction="lagrangian")
    assert whole.status == red.status == "optimal"
    assert red.objective == pytest.approx(whole.objective, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(generalization_cases())
def test_rounds_stopped_at_their_threshold_equal_brute_force_with_hierarchies(case):
    """The rounds stopped at their threshold (no polish, no LP rounding: the rounds find the tables and end with
    no solution below G) agree with brute force on random hierarchies and costs, including fractional grids
    (``lm``, weights in halves)."""
    frame, qi, k, rec = case
    expected = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k)], recoding=rec, columns=qi)[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reduction, "ROUND_POLISH", 0.0)
        r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), recoding=rec, reduction="lagrangian",
                         tuning=ma.Tuning(lp_rounding=False))
    if expected is None:
        assert r.status == "infeasible"
        return
    assert r.status == "optimal" and r.objective == pytest.approx(float(expected), abs=1e-9)


def test_time_limit_returns_a_verified_table():
    """A limit hit during the rounds (or the LP) still returns a verified table with a valid bound."""
    from milp_anon.tables.datasets import load_adult

    qi = ["sex", "age", "race", "marital-status", "education"]
    table = ma.Table.from_frame(load_adult(), qi)
    r = ma.anonymize(table, ma.KAnonymity(10), reduction="lagrangian", time_limit=0.5)
    assert r.status in ("time_limit", "optimal") and r.verified and r.table is not None
    assert r.bound is None or r.bound <= r.objective


@pytest.mark.parametrize("limit", [0.02, 0.05, 0.1])
def test_a_solve_cut_off_by_its_limit_returns_a_verified_table_and_a_valid_bound(limit):
    """Wherever the limit cuts the solve (the LP, a round, the proof), the table returned is verified and the bound
    is at most the optimum of the whole model solved without a limit, on 12 random duplicated tables."""
    rng = np.random.default_rng(20261206)
    for _ in range(12):
        _, table, k, whole = _random_case(rng)
        r = ma.anonymize(table, ma.KAnonymity(k), reduction="lagrangian", time_limit=limit)
        assert whole.status == "optimal" and r.status in ("optimal", "time_limit")
        assert r.verified and r.table is not None and r.objective >= whole.objective
        assert r.bound is None or r.bound <= whole.objective + 1e-9
        assert r.status != "optimal" or r.objective == whole.objective


def test_lagrangian_where_it_does_not_apply():
    frame = frame_from_array([[0, 1], [0, 1], [1, 1], [1, 0]])
    frame["s"] = ["a", "b", "a", "b"]
    table = ma.Table.from_frame(frame, ["q0", "q1"], sensitive="s")
    with pytest.raises(ma.InputError, match="k-anonymity alone"):
        ma.anonymize(table, ma.KAnonymity(2), ma.LDiversity(2), reduction="lagrangian")
    with pytest.raises(ma.InputError, match="reduction must be one of"):
        ma.Request(ma.KAnonymity(2), reduction="fast")
    # "auto" falls back to the whole model there
    r = ma.anonymize(table, ma.KAnonymity(2), ma.LDiversity(2))
    assert r.status == "optimal" and r.reduction is None


def test_relative_gap_option():
    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult().iloc[:3000], ["sex", "age", "race", "marital-status", "education"])
    exact = ma.anonymize(table, ma.KAnonymity(5))
    loose = ma.anonymize(table, ma.KAnonymity(5), gap=0.05)
    assert exact.status == "optimal"
    assert loose.status in ("optimal", "gap_limit")
    assert loose.objective <= exact.objective * 1.05 / (1 - 0.05) + 1e-9
    assert loose.bound <= exact.objective <= loose.objective
    opts = ma.SolverOptions(time_limit=60)
    assert reduction.unavailable(ma.Request(ma.KAnonymity(5)), opts) is None
    assert "highspy" in reduction.unavailable(ma.Request(ma.KAnonymity(5)), ma.SolverOptions(solver="cbc"))


def test_memory_limit_ends_the_rounds_with_a_verified_table(monkeypatch):
    """A round whose model is estimated above max_memory_gb is not built: the incumbent (or the
    heuristic table) comes back as time_limit with the bound proven so far, not an error."""
    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult().iloc[:2000], ["sex", "age", "race", "marital-status", "education"])
    exact = ma.anonymize(table, ma.KAnonymity(5))
    monkeypatch.setattr(memory, "pair_limit", lambda gb: None)  # the rounds' check here; the layer's: test_sizing
    r = ma.anonymize(table, ma.KAnonymity(5), max_memory_gb=1e-4)
    assert r.status == "time_limit" and r.verified and r.fallback
    assert "stopped before round 1" in r.solver_status and "GiB" in r.solver_status
    assert r.bound <= exact.objective <= r.objective
    # the whole model refuses before building, with the size
    with pytest.raises(ma.ModelTooLargeError, match="GiB"):
        ma.anonymize(table, ma.KAnonymity(5), max_memory_gb=1e-4, reduction="none")


def test_a_round_too_large_gives_way_to_the_largest_that_fits(monkeypatch):
    """With a memory limit between two rounds' sizes, the round above it is replaced by the largest round
    that fits (a threshold between the last round's and its own) instead of ending the rounds; the
    result is still verified, and its bound still lies below the optimum."""
    from milp_anon.tables.datasets import load_adult

    monkeypatch.setattr(reduction, "ROUND_POLISH", 0.0)  # rounds stop at their G: more rounds
    # no LP rounding; the LP bound alone (no cliques): a few rounds below the optimum
    tuning = ma.Tuning(lp_rounding=False, cliques=False)
    table = ma.Table.from_frame(load_adult().iloc[:3000], ["sex", "age", "race", "marital-status", "education"])
    exact = ma.anonymize(table, ma.KAnonymity(5), reduction="none")
    free = ma.anonymize(table, ma.KAnonymity(5), tuning=tuning)
    built = [rnd for rnd in free.reduction.rounds if rnd.status != "empty"]
    assert exact.status == free.status == "optimal"
    # a round whose threshold lies at least two grid steps (costs are whole cells) above the last one's:
    # a smaller round between the two exists
    i = next(i for i in range(1, len(built)) if built[i].G - built[i - 1].G >= 2)
    cap = built[i].pairs - 1  # the memory allowed, in pairs: the rounds before it fit, it does not

    def check_memory(instance, criteria, max_memory_gb, *, pulp_model, solver_factor=1.0):
        if instance.candidates.n_pairs > cap:
            raise ma.ModelTooLargeError(f"{instance.candidates.n_pairs} pairs, {cap} allowed")

    monkeypatch.setattr(reduction, "check_memory", check_memory)
    r = ma.anonymize(table, ma.KAnonymity(5), tuning=tuning)
    info = r.reduction.rounds
    statuses = [rnd.status for rnd in info]
    i = statuses.index("too large")
    assert i > 0 and i + 1 < len(info) and info[i + 1].status not in ("too large", "empty")
    last_built = max(rnd.G for rnd in info[:i] if rnd.status not in ("empty", "too large"))
    assert last_built < info[i + 1].G < info[i].G and info[i + 1].pairs <= cap
    assert r.verified and r.bound <= exact.objective <= r.objective


def test_a_round_killed_at_the_memory_allowed_caps_the_rounds_after_it(monkeypatch):
    """A round whose process outgrew the memory allowed (``memory_killed``): no later round holds as many pairs
    (a larger one is ``too large``, and gives way to a smaller one or ends the rounds), the bound it proved still
    counts, and the table is verified with a bound below the optimum."""
    from milp_anon.solvers import SolveOutcome
    from milp_anon.tables.datasets import load_adult

    monkeypatch.setattr(reduction, "ROUND_POLISH", 0.0)
    tuning = ma.Tuning(lp_rounding=False, cliques=False)
    table = ma.Table.from_frame(load_adult().iloc[:3000], ["sex", "age", "race", "marital-status", "education"])
    exact = ma.anonymize(table, ma.KAnonymity(5), reduction="none")
    real, calls = reduction.solve_model, []

    def killed_first(lm, *args, **kwargs):
        out = real(lm, *args, **kwargs)
        calls.append(lm.n_cols)
        if len(calls) == 1:  # as if its process had been killed at the memory allowed, with what it told
            out = dataclasses.replace(out, status=ma.Status.TIME_LIMIT if out.x is not None else
                                      ma.Status.NO_SOLUTION, memory_killed=True)
        assert isinstance(out, SolveOutcome)
        return out

    monkeypatch.setattr(reduction, "solve_model", killed_first)
    r = ma.anonymize(table, ma.KAnonymity(5), tuning=tuning)
    rounds = [rnd for rnd in r.reduction.rounds if rnd.status != "empty"]
    killed = rounds[0]
    assert killed.status in ("time_limit", "no_solution", "stopped at G") and killed.memory_killed
    assert not any(rnd.memory_killed for rnd in rounds[1:])
    later = rounds[1:]
    assert all(rnd.pairs < killed.pairs or rnd.status == "too large" for rnd in later)
    assert all(rnd.pairs < killed.pairs for rnd in later if rnd.status not in ("too large", "empty"))
    assert r.verified and r.bound <= exact.objective <= r.objective

def test_the_round_found_to_fit_is_built_though_the_memory_allowed_creeps_down(monkeypatch):
    """What the process holds creeps up between two checks, so a restriction found to fit at the edge may not fit
    when checked again (here: every second check of the same restriction fails). The round the bisection found to
    fit is built as found, not checked again and refused."""
    from milp_anon.tables.datasets import load_adult

    monkeypatch.setattr(reduction, "ROUND_POLISH", 0.0)
    tuning = ma.Tuning(lp_rounding=False, cliques=False)
    table = ma.Table.from_frame(load_adult().iloc[:3000], ["sex", "age", "race", "marital-status", "education"])
    free = ma.anonymize(table, ma.KAnonymity(5), tuning=tuning)
    built = [rnd for rnd in free.reduction.rounds if rnd.status != "empty"]
    i = next(i for i in range(1, len(built)) if built[i].G - built[i - 1].G >= 2)
    room, seen = built[i].pairs - 1, set()

    def check_memory(instance, criteria, max_memory_gb, *, pulp_model, solver_factor=1.0):
        n = instance.candidates.n_pairs
        if solver_factor != 1.0:  # whether the round's parallel tree fits: not the round's own check
            return
        if n > room or n in seen:
            raise ma.ModelTooLargeError(f"{n} pairs, {room} allowed")
        seen.add(n)

    monkeypatch.setattr(reduction, "check_memory", check_memory)
    r = ma.anonymize(table, ma.KAnonymity(5), tuning=tuning)
    statuses = [rnd.status for rnd in r.reduction.rounds]
    j = statuses.index("too large")
    assert statuses[j + 1] not in ("too large", "empty")
    assert r.verified and r.bound <= free.objective <= r.objective

def test_a_round_whose_model_outlasts_the_limit_is_not_solved(monkeypatch):
    """The time a round's restriction and model take comes out of its solve: a round whose build uses up the
    limit is not started (and reports so), and the run still releases a verified table with a valid bound."""
    import time

    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult().iloc[:3000], ["sex", "age", "race", "marital-status", "education"])
    real_build, solved = reduction.build, []

    def slow_build(*args, **kw):
        time.sleep(2.5)  # past the whole limit
        return real_build(*args, **kw)

    def no_solve(self, am, G, remaining, first, hint=None, room=True):
        solved.append(remaining)
        raise AssertionError("a round was solved after the limit")

    monkeypatch.setattr(reduction, "build", slow_build)
    monkeypatch.setattr(reduction.LagrangianReduction, "_solve_round", no_solve)
    r = ma.anonymize(table, ma.KAnonymity(5), time_limit=2)
    assert not solved
    assert [rnd.status for rnd in r.reduction.rounds][-1] == "not started"
    assert r.status == "time_limit" and r.verified and r.bound is not None and r.bound <= r.objective


def _k_models(rng, count):
    """``count`` random k-anonymity models of duplicated tables: ``(table, model, its optimum)``."""
    from milp_anon.solvers import solve_model

    for _ in range(count):
        frame = _duplicated_table(rng, int(rng.integers(15, 40)), int(rng.integers(60, 121)), 5, 3)
        table = ma.Table.from_frame(frame, list(frame.columns))
        am = pipeline.build_model(table, ma.Request(ma.KAnonymity(int(rng.integers(3, 6)))))
        opt = solve_model(am.lm, ma.SolverOptions())
        assert opt.status == "optimal"
        yield table, am, round(opt.objective)  # costs are integers


def test_stop_bound_stops_at_the_bound_and_never_cuts_an_optimum():
    """solve_model(stop_bound=s): below the optimum it may stop early, but only with a bound >= s;
    at or above the optimum it proves the optimum of the whole-model solve."""
    from milp_anon.solvers import StopAtBound, solve_model

    early = 0
    for _table, am, value in _k_models(np.random.default_rng(7), 12):
        for s in (value - 3, value - 1, value, value + 5):
            out = solve_model(am.lm, ma.SolverOptions(), stop_bound=s)
            if out.status == "optimal":
                assert round(out.objective) == value
            else:
                assert s <= value and out.status in ("time_limit", "no_solution")
                assert out.bound is not None and s <= out.bound <= value
                early += 1
        # not before `after` seconds: the solve runs to its optimum
        late = solve_model(am.lm, ma.SolverOptions(), stop_bound=StopAtBound(value - 3, after=1e9))
        assert late.status == "optimal" and round(late.objective) == value
    assert early > 0


def test_stop_at_a_known_bound_stops_at_a_solution_reaching_it():
    """StopAtBound(known=v): a lower bound proven outside the solve. The solve ends at the optimum or with
    a solution of objective at most ``v``, never above it; with ``v`` the whole table's cost (the start)
    it stops before the optimum on some tables, and with ``v`` the optimum it returns the optimum."""
    from milp_anon.search.starts import whole_table_start
    from milp_anon.solvers import StopAtBound, solve_model

    early = 0
    for table, am, value in _k_models(np.random.default_rng(11), 12):
        at = solve_model(am.lm, ma.SolverOptions(), stop_bound=StopAtBound(known=value))
        assert at.status in ("optimal", "time_limit") and round(at.objective) == value
        whole = table.n * len(table.qi)  # the start: every cell suppressed
        out = solve_model(am.lm, ma.SolverOptions(), hint=whole_table_start(am),
                          stop_bound=StopAtBound(known=whole))
        assert value <= round(out.objective) <= whole
        if out.status != "optimal":
            early += 1
    assert early > 0


def test_a_master_gets_its_own_time_limit_after_earlier_runs():
    """HiGHS checks ``time_limit`` against the run time summed over every ``run()`` of one object; a
    master given a limit shorter than the earlier runs together, but ample for itself, must still solve
    (it stopped at once when the option was the limit alone, and the column generation ended early)."""
    from milp_anon.bounds.lagrangian import RestrictedMaster

    rng = np.random.default_rng(3)
    frame = frame_from_array(rng.integers(0, 4, size=(300, 4)))
    table = ma.Table.from_frame(frame, list(frame.columns))
    types = RowTypes.from_table(table)
    cands = suppression_candidates(types, 3)
    master = RestrictedMaster(types.counts.astype(float), cands.cost.astype(float), cands.pair_type,
                              cands.pair_cand, 3)
    master.add_with_pairs(np.arange(cands.n_candidates), np.ones(cands.n_pairs, dtype=bool))
    first = master.solve(None)
    assert first is not None
    for _ in range(19):  # twenty cold solves: the summed run time is many times one solve's
        master.h.clearSolver()
        assert master.solve(None) is not None
    one = master.h.getRunTime() / 20
    master.h.clearSolver()
    again = master.solve(5 * one)  # five cold solves' time, far less than the sum already run
    assert again is not None and again[0] == pytest.approx(first[0])


def test_the_search_beside_the_rounds_keeps_the_optimum_and_hands_on_its_tables(monkeypatch):
    """With the large-neighbourhood search beside every round (each round in its own process; the limit rule
    off, so that these small rounds qualify), from a poor first incumbent, the reduction still ends at the
    whole model's optimum; the search ran beside some rounds, never ended above where it started, and
    improved on some. Its tables are verified by :func:`milp_anon.search.lns.improve` itself; the released one
    again by ``_finish``."""
    from milp_anon.release.verified import Release
    from milp_anon.search import lns
    from milp_anon.tables.table import SUPPRESSED

    monkeypatch.setattr(reduction, "ROUND_POLISH", 0.0)
    monkeypatch.setattr(reduction, "SEARCH_BESIDE_MIN_SECONDS", 0.0)
    monkeypatch.setattr(lns, "_cores", lambda: 2)
    rng = np.random.default_rng(20261127)
    searched, improved = 0, 0
    for _ in range(12):
        frame, table, k, whole = _random_case(rng)
        request = ma.Request(ma.KAnonymity(k), reduction="lagrangian")
        # the first incumbent: every cell suppressed (a poor one: more for the search to do)
        start = Release.verified(table, request, frame.map(lambda _: SUPPRESSED))
        red = pipeline.solve(table, request, ma.SolverOptions(time_limit=120, lns=0.25, isolate="always",
                                                              tuning=ma.Tuning(lp_rounding=False)), start=start)
        assert red.status == whole.status == "optimal" and red.objective == whole.objective and red.verified
        for before, _rnd in zip(red.reduction.rounds, red.reduction.rounds[1:] + [None]):
            if before.search is None:
                continue
            searched += 1
            assert before.search["end"] <= before.search["start"]
            improved += before.search["end"] < before.search["start"]
    assert searched > 0 and improved > 0


def _cases_for_a_search(rng, n):
    """Up to ``n`` duplicated tables (40–90 rows) as ``(table, request, whole model's result, its table
    labelled as the search's, the start with every cell suppressed)``, where the start is not optimal."""
    from milp_anon.release.verified import Release
    from milp_anon.tables.table import SUPPRESSED

    for _ in range(n):
        frame = _duplicated_table(rng, int(rng.integers(8, 30)), int(rng.integers(40, 90)), 4, 3)
        k = int(rng.integers(2, 5))
        table = ma.Table.from_frame(frame, list(frame.columns))
        request = ma.Request(ma.KAnonymity(k), reduction="lagrangian")
        whole = ma.anonymize(table, ma.KAnonymity(k), reduction="none")
        optimum = Release.verified(table, request, whole.table, source="the search (test)")
        start = Release.verified(table, request, frame.map(lambda _: SUPPRESSED))
        if whole.objective != start.objective:
            yield table, request, whole, optimum, start


def test_the_search_beside_a_round_hands_on_a_cheaper_table(monkeypatch):
    """A table the search beside a round finds becomes the incumbent: here the search (stubbed) returns the
    whole model's optimal table, labelled, at once, while the first round runs from a table with every cell
    suppressed; a round's table replaces the incumbent only when strictly cheaper, so the labelled table is
    the one released, at the optimum, proven."""
    from milp_anon.search import lns

    monkeypatch.setattr(reduction, "ROUND_POLISH", 0.0)
    monkeypatch.setattr(reduction, "SEARCH_BESIDE_MIN_SECONDS", 0.0)
    monkeypatch.setattr(lns, "_cores", lambda: 2)
    options = ma.SolverOptions(time_limit=120, lns=0.25, isolate="always", tuning=ma.Tuning(lp_rounding=False))
    calls = []
    for table, request, whole, optimum, start in _cases_for_a_search(np.random.default_rng(20261128), 6):

        def search(table_, request_, release, seconds, solver, stop=None, on_better=None, memory=None, sub_solve=None):
            calls.append(release.objective)
            return optimum, lns.LnsLog(start=release.objective, end=optimum.objective)

        monkeypatch.setattr(lns, "improve", search)
        red = pipeline.solve(table, request, options, start=start)
        assert red.status == "optimal" and red.objective == whole.objective
        assert red.reduction.rounds[0].search == {**lns.LnsLog(start.objective, whole.objective).as_dict()}
        assert red.source == "the search (test)"
    assert calls


def test_a_round_beside_the_search_is_told_the_search_s_tables(monkeypatch):
    """The search beside a round (stubbed) finds the whole model's optimal table at once and says so
    (``on_better``), then waits for the round; the round's solve is given that table's cost as its ``ceiling``
    (:func:`milp_anon.solvers.solve_model`; through the root's cuts it aims below it), and the reduction
    still ends proven at the whole model's optimum."""
    import time

    from milp_anon.search import lns

    monkeypatch.setattr(reduction, "ROUND_POLISH", 0.0)
    monkeypatch.setattr(reduction, "SEARCH_BESIDE_MIN_SECONDS", 0.0)
    monkeypatch.setattr(lns, "_cores", lambda: 2)
    options = ma.SolverOptions(time_limit=120, lns=0.25, isolate="always", tuning=ma.Tuning(lp_rounding=False))
    solve_model = reduction.solve_model
    told = []

    def spy(lm, options, grid, **kw):
        ceiling = kw.get("ceiling")
        if ceiling is not None:
            t0 = time.perf_counter()
            while ceiling() > optimum.objective and time.perf_counter() - t0 < 30:
                time.sleep(0.02)
            told.append((ceiling(), optimum.objective))
        return solve_model(lm, options, grid, **kw)

    monkeypatch.setattr(reduction, "solve_model", spy)
    for table, request, whole, optimum, start in _cases_for_a_search(np.random.default_rng(20261129), 4):

        def search(table_, request_, release, seconds, solver, stop=None, on_better=None, memory=None, sub_solve=None):
            on_better(optimum)
            while not stop():
                time.sleep(0.02)
            return optimum, lns.LnsLog(start=release.objective, end=optimum.objective)

        monkeypatch.setattr(lns, "improve", search)
        red = pipeline.solve(table, request, options, start=start)
        assert red.status == "optimal" and red.objective == whole.objective and red.verified
    assert told and all(got == want for got, want in told)


def test_no_search_beside_a_round_where_it_must_not_run(monkeypatch):
    """The search runs beside a round only with a search requested (``lns > 0``), an incumbent, heuristics on
    (its sub-problems choose their own candidates), a round of ``SEARCH_BESIDE_MIN_SECONDS`` or more, two
    cores, and a round in its own process (``isolate="always"``, or a large model under ``"auto"``)."""
    from milp_anon.release.result import ModelSize, Timings
    from milp_anon.release.verified import Release
    from milp_anon.search import lns
    from milp_anon.solvers.isolated import ISOLATE_MIN_COLUMNS

    frame = frame_from_array([[0, 1, 2], [0, 1, 2], [1, 1, 0], [1, 0, 0], [0, 0, 1], [1, 1, 1]])
    table = ma.Table.from_frame(frame, list(frame.columns))
    request = ma.Request(ma.KAnonymity(2), reduction="lagrangian")
    instance, _, why = pipeline.prepare(table, request, Timings())
    assert not why
    best = Release.verified(table, request, ma.anonymize(table, ma.KAnonymity(2)).table)
    ok = ma.SolverOptions(time_limit=600, lns=0.25, isolate="always")
    monkeypatch.setattr(lns, "_cores", lambda: 2)

    def beside(options=ok, heuristics=True, incumbent=best, limit=600.0, cols=10):
        red = reduction.LagrangianReduction(instance, request, options, Timings(), ModelSize(n_rows=6, t_in=5),
                                            start=incumbent, heuristics=heuristics, sub_solve=pipeline_solve)
        return red.search_beside(dataclasses.replace(options, time_limit=limit), cols)

    assert beside()
    assert not beside(options=ma.SolverOptions(time_limit=600, lns=0.0, isolate="always"))  # lns = 0
    assert not beside(options=ma.SolverOptions(time_limit=600, isolate="always"))  # "auto" the pipeline left unresolved
    assert not beside(incumbent=None)
    assert not beside(heuristics=False)
    assert not beside(limit=reduction.SEARCH_BESIDE_MIN_SECONDS - 1)
    assert not beside(options=ma.SolverOptions(time_limit=600, lns=0.25, isolate="never"))
    auto = ma.SolverOptions(time_limit=600, lns=0.25)
    assert not beside(options=auto) and beside(options=auto, cols=ISOLATE_MIN_COLUMNS)
    monkeypatch.setattr(lns, "_cores", lambda: 1)
    assert not beside()


def test_the_reduction_keeps_the_whole_limit_where_the_search_runs_beside_its_rounds(monkeypatch):
    """With a search asked for (``lns``), the reduction's stage gets the whole limit exactly when the search can run
    beside its rounds (two cores, rounds in their own process, a limit of ``SEARCH_BESIDE_MIN_SECONDS`` or more),
    else ``(1 − lns)`` of it; the search after the stage still runs (in what is left) and the table is optimal."""
    from milp_anon.search import lns

    frame = frame_from_array([[0, 1, 2], [0, 1, 2], [1, 1, 0], [1, 0, 0], [0, 0, 1], [1, 1, 1], [0, 1, 1]])
    table = ma.Table.from_frame(frame, list(frame.columns))
    stages, improved = [], []
    real_init, real_improve = reduction.LagrangianReduction.__init__, pipeline._improve

    def recording_init(self, instance, request, solver, *args, **kwargs):
        stages.append(solver.time_limit)
        real_init(self, instance, request, solver, *args, **kwargs)

    def recording_improve(*args, **kwargs):
        improved.append(True)
        return real_improve(*args, **kwargs)

    monkeypatch.setattr(reduction.LagrangianReduction, "__init__", recording_init)
    monkeypatch.setattr(pipeline, "_improve", recording_improve)

    def stage(cores=2, limit=600.0, share=0.25, isolate="always", keeps=True, beside=True):
        monkeypatch.setattr(lns, "_cores", lambda: cores)
        stages.clear(), improved.clear()
        r = ma.anonymize(table, ma.KAnonymity(2), reduction="lagrangian", time_limit=limit, lns=share,
                         isolate=isolate,
                         tuning=ma.Tuning(search_beside_keeps_limit=keeps, search_beside_rounds=beside))
        assert r.status == "optimal" and r.objective == ma.anonymize(table, ma.KAnonymity(2)).objective
        assert improved == ([True] if share else [])
        return stages[0]

    assert stage() == 600.0
    assert stage(cores=1) == stage(keeps=False) == stage(beside=False) == 450.0
    assert stage(limit=reduction.SEARCH_BESIDE_MIN_SECONDS - 1) == pytest.approx(0.75 * 99)
    assert stage(isolate="never") == 450.0
    assert stage(isolate="auto") == 450.0  # seven rows: no round is solved in its own process
    assert stage(share=0.0) == 600.0


def test_the_reduction_s_clock_starts_at_the_solve_and_its_rounds_end_with_it(monkeypatch):
    """The reduction's limit counts from the solve's call (the candidates' generation inside it, as for the
    search after it), and every round is given that limit's end, just after which its own process is killed at
    the latest: a round given the rest of the limit never overruns the run."""
    import time

    from milp_anon import solvers

    frame = frame_from_array([[0, 1, 2], [0, 1, 2], [1, 1, 0], [1, 0, 0], [0, 0, 1], [1, 1, 1], [0, 1, 1]])
    table = ma.Table.from_frame(frame, list(frame.columns))
    optimum = ma.anonymize(table, ma.KAnonymity(2), reduction="none").objective
    starts, ends = [], []
    real_init, real_solve = reduction.LagrangianReduction.__init__, solvers.solve_model

    def recording_init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        starts.append(self.t0)

    def recording_solve(*args, hard_end=None, **kwargs):
        ends.append(hard_end)
        return real_solve(*args, hard_end=hard_end, **kwargs)

    monkeypatch.setattr(reduction.LagrangianReduction, "__init__", recording_init)
    monkeypatch.setattr(reduction, "solve_model", recording_solve)
    before = time.perf_counter()
    real_prepare = pipeline.prepare

    def slow_prepare(*args, **kwargs):
        time.sleep(0.5)  # the candidates' generation: inside the limit
        return real_prepare(*args, **kwargs)

    monkeypatch.setattr(pipeline, "prepare", slow_prepare)
    r = ma.anonymize(table, ma.KAnonymity(2), reduction="lagrangian", time_limit=60)
    assert r.status == "optimal" and r.objective == optimum
    assert len(starts) == 1 and before <= starts[0] <= before + 0.4
    assert ends and all(e == pytest.approx(starts[0] + 60) for e in ends)
    starts.clear(), ends.clear()
    ma.anonymize(table, ma.KAnonymity(2), reduction="lagrangian")  # no limit: no end
    assert ends and all(e is None for e in ends)


def _milp_value(lm):
    h = quiet_highs(lm)
    h.run()
    return h.getInfo().objective_function_value if h.getInfo().primal_solution_status == 2 else None


def _random_round(case, data):
    """``(k, whole model, the candidates a random subset of its pairs leaves, that subset's kept pairs, the
    model over them)`` for a ``small_tables`` case, or ``None`` when the subset keeps no pair."""
    frame, qi, k = case
    request = ma.Request(ma.KAnonymity(k), model=ma.ModelOptions(reduction="none"))
    whole = pipeline.build_model(ma.Table.from_frame(frame, qi), request)
    cands, counts = whole.instance.candidates, whole.instance.types.counts
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=cands.n_pairs, max_size=cands.n_pairs)), dtype=bool)
    kept = cands.kept_pairs(keep, counts, k)
    if not kept.any():
        return None
    sub = cands.restrict_pairs(keep, counts, k, "test")
    return k, whole, sub, kept, build(whole.instance.with_candidates(sub), request)


def _in_round(cands, sub, members):
    """The round's indices of those of the whole model's candidates ``members`` it holds, matched by their
    released values (not by index), sorted."""
    def key(c, j):
        return tuple(c.codes[j].tolist()) + tuple(c.levels[j].tolist())

    index = {key(sub, j): j for j in range(sub.n_candidates)}
    return sorted(index[key(cands, j)] for j in members if key(cands, j) in index)


def _packing_rows(am, n_rows):
    """The ``n_rows`` rows :func:`reduction.add_clique_rows` added to ``am``: sorted ``(members, upper bound)``."""
    if not n_rows:
        return []
    rows, cols, _ = am.lm.entries[-1]
    block = am.lm.row_blocks["conflict_cliques"]
    upper = np.concatenate(am.lm.row_upper)
    position = {int(c): j for j, c in enumerate(am.y)}
    return sorted((sorted(position[int(c)] for c in cols[rows == r]), int(upper[r]))
                  for r in range(block.start, block.start + block.size))


@settings(max_examples=80, deadline=None)
@given(small_tables(n=(5, 10), m=(2, 4), k=(2, 3)), st.data())
def test_a_round_s_clique_rows_are_conflict_cliques_of_its_model_and_cut_off_no_table(case, data):
    """The whole model's conflict cliques (grown from every conflicting pair) added to a model over a random
    subset of its pairs (:func:`reduction.add_clique_rows`): each row holds exactly the clique's members the
    model holds (matched by their released values, not by index), every two of them conflict in that model
    (its own rows), and its MILP optimum is the same with the rows as without."""
    drawn = _random_round(case, data)
    if drawn is None:
        return
    k, whole, sub, kept, am = drawn
    a, b = conflicting_pairs(whole.pair_unit, whole.pair_cand, whole.instance.units.counts, k, whole.y.size)
    cliques = [list(q) for q in violated_cliques(a, b, np.ones(whole.y.size))]
    before = _milp_value(am.lm)
    n_rows = reduction.add_clique_rows(am, cliques, whole.instance.candidates, kept)
    expected = [_in_round(whole.instance.candidates, sub, q) for q in cliques]
    expected = sorted((q, 1) for q in expected if len(q) >= 2)
    got = _packing_rows(am, n_rows)
    assert got == expected and n_rows == len(expected)
    sa, sb = conflicting_pairs(am.pair_unit, am.pair_cand, am.instance.units.counts, k, am.y.size)
    edges = set(zip(sa.tolist(), sb.tolist()))
    assert all(pair in edges for q, _ in got for pair in itertools.combinations(q, 2))
    after = _milp_value(am.lm)
    assert (before is None and after is None) or after == pytest.approx(before)


@settings(max_examples=80, deadline=None)
@given(small_tables(n=(5, 10), m=(2, 4), k=(2, 3)), st.data())
def test_a_round_s_rank_rows_keep_their_right_hand_side_and_cut_off_no_table(case, data):
    """Rank rows of the whole model (random candidate sets ``S``, ``r = ⌊|R_S| / k⌋`` counted from the whole
    model's row types) added to a model over a random subset of its pairs: a row enters exactly when more
    than ``r`` of its members remain (matched by released values), with upper bound ``r``, and the model's
    MILP optimum is the same with the rows as without."""
    drawn = _random_round(case, data)
    if drawn is None:
        return
    k, whole, sub, kept, am = drawn
    cands, counts = whole.instance.candidates, whole.instance.types.counts
    if cands.n_candidates < 2:
        return
    sets = data.draw(st.lists(st.sets(st.integers(0, cands.n_candidates - 1), min_size=2, max_size=6),
                              min_size=1, max_size=5))
    rows_of = [set(cands.pair_type[cands.pair_cand == j].tolist()) for j in range(cands.n_candidates)]
    rank = [int(sum(counts[u] for u in set().union(*(rows_of[j] for j in q))) // k) for q in sets]
    before = _milp_value(am.lm)
    n_rows = reduction.add_clique_rows(am, [sorted(q) for q in sets], cands, kept, rank)
    expected = sorted((q, r) for q, r in ((_in_round(cands, sub, q), r) for q, r in zip(sets, rank)) if len(q) > r)
    assert _packing_rows(am, n_rows) == expected and n_rows == len(expected)
    after = _milp_value(am.lm)
    assert (before is None and after is None) or after == pytest.approx(before)


def _seeded_proofs(seed, tries, width, wanted):
    """``(table, k, result)`` of the reduction on random 10–12-row tables of ``width`` columns over ``width`` values
    (fixed seed) whose result passes ``wanted``; each checked optimal at brute force's optimum."""
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        frame = frame_from_array(rng.choice(width, size=(int(rng.integers(10, 13)), width)))
        k = int(rng.integers(2, 4))
        table = ma.Table.from_frame(frame, list(frame.columns))
        r = ma.anonymize(table, ma.KAnonymity(k), reduction="lagrangian")
        if r.reduction and wanted(r):
            assert r.status == "optimal" and r.objective == brute_force_k_anonymity(frame.to_numpy(), k)[0]
            yield table, k, r


def test_proofs_with_rank_rows_reach_the_brute_force_optimum_and_a_lowered_right_hand_side_fails():
    """Random 10–12-row tables (fixed seed) whose reduction used rank rows: the optimum is brute force's and
    ``certify`` accepts the report; a rank row's right-hand side lowered by one (its members not pairwise
    conflicting) makes it fail, as does a right-hand side that is not a whole number."""
    seen = 0
    for table, k, r in _seeded_proofs(7, 80, 3, lambda r: any(x != 1 for x in r.reduction.clique_rhs or [])):
        report = json.loads(r.to_json())
        request = ma.Request(ma.KAnonymity(k))
        assert certify(table, request, report).ok
        whole = pipeline.build_model(table, ma.Request(ma.KAnonymity(k), model=ma.ModelOptions(reduction="none")))
        a, b = conflicting_pairs(whole.pair_unit, whole.pair_cand, whole.instance.units.counts, k, whole.y.size)
        edges = set(zip(a.tolist(), b.tolist()))
        red = report["reduction"]
        i = next((i for i, (q, x) in enumerate(zip(red["cliques"], red["clique_rhs"]))
                  if x >= 2 and not all(p in edges for p in itertools.combinations(q, 2))), None)
        if i is None:
            continue
        seen += 1
        for wrong in (red["clique_rhs"][i] - 1, 2.5):
            bad = json.loads(json.dumps(report))
            bad["reduction"]["clique_rhs"][i] = wrong
            assert not certify(table, request, bad).ok
    assert seen >= 3


def test_rounds_with_clique_rows_reach_the_brute_force_optimum_and_certify():
    """Random 10–12-row tables (fixed seed) whose rounds held conflict-clique rows: the reduction's optimum
    is brute force's, and ``milp-anon certify`` accepts the report, but not one claiming more clique rows than
    cliques."""
    seen = 0
    for table, k, r in _seeded_proofs(5, 60, 4, lambda r: any(x.cliques for x in r.reduction.rounds)):
        seen += 1
        report = json.loads(r.to_json())
        assert certify(table, ma.Request(ma.KAnonymity(k)), report).ok
        held = next(x for x in report["reduction"]["rounds"] if x.get("cliques"))
        for wrong in (len(report["reduction"]["cliques"]) + 1, "many"):  # more rows than cliques, or not a count
            held["cliques"] = wrong
            assert not certify(table, ma.Request(ma.KAnonymity(k)), report).ok
    assert seen >= 3


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=60), st.integers(0, 40), st.integers(0, 30),
       st.integers(0, 20), st.integers(-1, 40), st.sampled_from([0.0, 0.25, 0.5, 0.9]))
@example(list(range(1, 11)), 20, 0, 3, -1, 0.5)  # S(7) holds 6 of S(20)'s 10 pairs: the proving round
@example(list(range(1, 11)), 20, 0, 2, -1, 0.5)  # S(5) holds 4: the round at 5
@example(list(range(1, 11)), 20, 0, 2, 6, 0.5)  # aimed at the last bound 6: S(6) holds 5, not more than half
def test_a_later_round_nearly_as_large_as_the_proving_round_is_the_proving_round(thresholds, ub, lb, last_pairs,
                                                                                  last_bound, share):
    """The next threshold with ``Tuning.proof_round_share`` = ``share`` is the one without it (share 1: never applies),
    unless a later round's ``S(G)`` would hold more than ``share`` of ``S(UB)``'s pairs: then it is ``UB``, the
    proving round. The first round (no round before) is ``LB`` + one step under any share."""
    red = reduction.LagrangianReduction.__new__(reduction.LagrangianReduction)
    red.thresholds = np.array(thresholds, dtype=float)
    red.by_threshold = np.sort(red.thresholds)
    red.grid = ObjectiveGrid.of_costs(np.array([1.0, 2.0]))
    red.lb, red.last_pairs, red.last_bound = float(min(lb, ub)), last_pairs, float(last_bound)
    red.best = type("Best", (), {"objective": float(ub)})()

    def next_g(s):
        red.solver = ma.SolverOptions(tuning=ma.Tuning(proof_round_share=s))
        return red.next_threshold()

    plain, g = next_g(1.0), next_g(share)
    assert plain <= ub
    if last_pairs == 0:
        assert g == plain == min(ub, red.lb + 1)
        return
    in_s_g = sum(t < plain for t in thresholds)
    in_s_ub = sum(t < ub for t in thresholds)
    assert g == (ub if plain < ub and in_s_g > share * in_s_ub else plain)


def _beside_lp(monkeypatch):
    """The search beside the column generation on for small tables: no least time, the master's first point."""
    from milp_anon.search import lns

    monkeypatch.setattr(reduction, "SEARCH_BESIDE_LP_MIN_SECONDS", 0.0)
    monkeypatch.setattr(reduction, "SEARCH_BESIDE_LP_GUIDE", 0.0)
    monkeypatch.setattr(lns, "_cores", lambda: 2)


def test_the_column_generation_in_its_own_process_gives_its_bounds_and_its_point():
    """The column generation as a job in its own process (:func:`milp_anon.bounds.lagrangian.column_generation_job`),
    restored here, equals the one in this process: multipliers, bound, cliques, every pair bound and the
    master's last point; with ``guide_after = 0`` its first master point reaches the caller (``lp_guide``), a
    point over every candidate and pair that meets the master's rows. The child takes its knobs from the options
    it is sent (``options.tuning``): here ones that change the column generation's course (no smoothing, a few
    candidates a round, never more: ``max_add`` grows by the measured times of master and pricing, which differ
    between two processes), which it follows as this process does."""
    from milp_anon.release.result import Timings
    from milp_anon.solvers.isolated import solve_isolated

    rng = np.random.default_rng(20261204)
    tuning = ma.Tuning(smoothing=0.0, max_add=1, max_add_most=1)
    changed = 0
    for _ in range(4):
        frame, table, k, whole = _random_case(rng)
        instance, _, why = pipeline.prepare(table, ma.Request(ma.KAnonymity(k), reduction="lagrangian"), Timings())
        assert not why
        cands, types = instance.candidates, instance.types
        keywords = dict(cliques=True, rank_rows=True, highs_options={"output_flag": False})
        here = column_generation(types.counts, cands.cost, cands.pair_type, cands.pair_cand, k, time_limit=60,
                                 tuning=tuning, **keywords)
        shipped = column_generation(types.counts, cands.cost, cands.pair_type, cands.pair_cand, k, time_limit=60,
                                    **keywords)
        changed += (shipped.iterations, shipped.master_pairs) != (here.iterations, here.master_pairs)
        guides = []
        job = (types.counts, cands.cost, cands.pair_type, cands.pair_cand, k, keywords, 0.0)
        out = solve_isolated(job, ma.SolverOptions(time_limit=60, tuning=tuning), ObjectiveGrid.of_costs(cands.cost),
                             solve_fn=lagrangian.column_generation_job,
                             on_fields=lambda f: guides.append(f.pop("lp_guide")) if "lp_guide" in f else None)
        assert out.job.prices is None  # nothing (P,) long crossed the pipe
        there = out.job.restored(types.counts, cands.cost, cands.pair_type, cands.pair_cand, k)
        assert np.array_equal(there.pi, here.pi) and there.bound == here.bound and there.converged
        assert (there.iterations, there.master_pairs) == (here.iterations, here.master_pairs)
        assert there.cliques == here.cliques
        assert np.array_equal(there.pair_bounds(cands.pair_cand), here.pair_bounds(cands.pair_cand))
        assert all(np.array_equal(a, b) for a, b in zip(there.primal, here.primal))
        assert len(guides) == 1
        y, g = lagrangian.dense_point(guides[0][1:], cands.n_candidates, cands.n_pairs)
        assert np.allclose(np.bincount(cands.pair_type, weights=g, minlength=types.t_in), types.counts)
        assert np.all(np.bincount(cands.pair_cand, weights=g, minlength=cands.n_candidates) >= k * y - 1e-7)
    assert changed  # the child followed knobs that matter


def test_the_search_beside_the_column_generation_starts_from_its_point_and_hands_on_its_table(monkeypatch):
    """With the column generation in its own process, the search here starts from the rounding of the point the
    child hands over (a verified table, labelled ``LP rounding``, at the cost the log gives); its table (stubbed:
    the whole model's optimum, labelled) becomes the incumbent, and the reduction ends proven at the whole
    model's optimum with the same bounds as without the search beside."""
    from milp_anon.search import lns

    _beside_lp(monkeypatch)
    rounds_alone = ma.Tuning(search_beside_rounds=False)  # the rounds alone: the search beside them aside
    cases = handed_on = 0
    for table, request, whole, optimum, _start in _cases_for_a_search(np.random.default_rng(20261205), 8):
        starts = []

        def search(table_, request_, release, seconds, solver, stop=None, on_better=None, memory=None, sub_solve=None):
            starts.append((release.source, release.objective))
            return optimum, lns.LnsLog(start=release.objective, end=optimum.objective)

        with monkeypatch.context() as mp:
            mp.setattr(lns, "improve", search)
            red = pipeline.solve(table, request, ma.SolverOptions(time_limit=120, lns=0.25, isolate="always",
                                                                  tuning=rounds_alone))
        alone = pipeline.solve(table, request, ma.SolverOptions(
            time_limit=120, lns=0.25, isolate="always",
            tuning=dataclasses.replace(rounds_alone, search_beside_lp=False)))
        said = red.reduction.lp_search
        assert said is not None and starts[0] == ("LP rounding", said["rounding"])
        assert said["search"]["end"] == optimum.objective <= said["rounding"]
        assert red.status == "optimal" and red.objective == whole.objective and red.verified
        # the search's table is the incumbent where strictly cheaper than the rounding (and nothing is cheaper)
        assert red.source == ("the search (test)" if optimum.objective < said["rounding"] else "LP rounding")
        handed_on += optimum.objective < said["rounding"]
        assert red.reduction.multipliers == alone.reduction.multipliers
        assert red.reduction.lp_bound == alone.reduction.lp_bound and alone.reduction.lp_search is None
        cases += 1
    assert cases and handed_on


def test_a_column_generation_that_dies_beside_the_search_leaves_the_start_s_bounds(monkeypatch):
    """Should the column generation's process die, the reduction keeps the bounds of its start (the lattice-flow
    multipliers, no master: ``cg_iterations`` 0), the search has no point to start from, and the rounds still end
    at the whole model's optimum."""
    import helpers

    _beside_lp(monkeypatch)
    monkeypatch.setattr(lagrangian, "column_generation_job", helpers.dying_column_generation)
    rng = np.random.default_rng(20261206)
    for _ in range(3):
        frame, table, k, whole = _random_case(rng)
        red = pipeline.solve(table, ma.Request(ma.KAnonymity(k), reduction="lagrangian"),
                             ma.SolverOptions(time_limit=120, lns=0.25, isolate="always"))
        assert red.reduction.cg_iterations == 0 and red.reduction.lp_search is None
        assert red.status == whole.status == "optimal" and red.objective == whole.objective


def test_no_search_beside_the_column_generation_where_it_must_not_run(monkeypatch):
    """The column generation runs beside the search only for k-anonymity's bounds, with ``Tuning.search_beside_lp``,
    the LP rounding and heuristics on, a search asked for (``lns > 0``), a column generation of
    ``SEARCH_BESIDE_LP_MIN_SECONDS`` or more, at most ``SEARCH_BESIDE_LP_MAX_PAIRS`` pairs, two cores and
    isolation allowed."""
    from milp_anon.release.result import ModelSize, Timings
    from milp_anon.search import lns
    from milp_anon.solvers import isolated

    frame = frame_from_array([[0, 1, 2], [0, 1, 2], [1, 1, 0], [1, 0, 0], [0, 0, 1], [1, 1, 1]])
    table = ma.Table.from_frame(frame, list(frame.columns))
    request = ma.Request(ma.KAnonymity(2), reduction="lagrangian")
    instance, _, why = pipeline.prepare(table, request, Timings())
    assert not why
    ok = ma.SolverOptions(time_limit=600, lns=0.25, isolate="always")
    monkeypatch.setattr(lns, "_cores", lambda: 2)

    def beside(options=ok, heuristics=True, limit=300.0, bounds=reduction.k_anonymity_bounds):
        red = reduction.LagrangianReduction(instance, request, options, Timings(), ModelSize(n_rows=6, t_in=5),
                                            bounds=bounds, heuristics=heuristics, sub_solve=pipeline_solve)
        return red.search_beside_lp(limit)

    assert beside()
    assert not beside(options=ma.SolverOptions(time_limit=600, lns=0.0, isolate="always"))  # lns = 0
    assert not beside(options=ma.SolverOptions(time_limit=600, isolate="always"))  # "auto" the pipeline left unresolved
    auto = ma.SolverOptions(time_limit=600, lns=0.25)  # isolated from ISOLATE_MIN_COLUMNS pairs on
    with monkeypatch.context() as mp:
        mp.setattr(isolated, "ISOLATE_MIN_COLUMNS", instance.candidates.n_pairs + 1)
        assert not beside(options=auto)
        mp.setattr(isolated, "ISOLATE_MIN_COLUMNS", instance.candidates.n_pairs)
        assert beside(options=auto)
    assert not beside(heuristics=False)
    assert not beside(limit=reduction.SEARCH_BESIDE_LP_MIN_SECONDS - 1) and not beside(limit=None)
    assert not beside(options=ma.SolverOptions(time_limit=600, lns=0.25, isolate="never"))
    assert not beside(bounds=reduction.block_bounds)
    assert not beside(options=dataclasses.replace(ok, tuning=ma.Tuning(search_beside_lp=False)))
    assert not beside(options=dataclasses.replace(ok, tuning=ma.Tuning(lp_rounding=False)))
    with monkeypatch.context() as mp:
        mp.setattr(reduction, "SEARCH_BESIDE_LP_MAX_PAIRS", instance.candidates.n_pairs - 1)
        assert not beside()
    monkeypatch.setattr(lns, "_cores", lambda: 1)
    assert not beside()


#: the most nested sub-multiset pairs :func:`large_k_tables` lets Blocki-Williams' recursion enumerate
CHECK_PAIRS = 4_000_000


@st.composite
def large_k_tables(draw):
    """(frame, qi, k) with k up to 10 and 2k to 4k − 1 rows (3k − 1 from k = 6: more than one class can pay) on 2–4
    columns: a few QI vectors repeated (dense, like real tables) or up to ten types of one row beside at most two
    larger ones (sparse). The recursion that checks them stays within seconds: it enumerates up to
    ``∏ (c + 1)(c + 2) / 2`` pairs of nested sub-multisets of the counts ``c``, and a draw above
    ``CHECK_PAIRS`` is rejected (the rare draw beyond costs the suite minutes, not evidence)."""
    k = draw(st.integers(2, 10))
    m = draw(st.integers(2, 4))
    n = draw(st.integers(2 * k, 4 * k - 1 if k <= 5 else 3 * k - 1))
    if draw(st.booleans()):  # sparse
        ones = draw(st.integers(min(n, 2), min(n, 10)))
        heavy = n - ones
        counts = [1] * ones + ([heavy] if heavy and draw(st.booleans()) else
                               [c for c in (heavy // 2, heavy - heavy // 2) if c])
    else:
        t = draw(st.integers(2, min(5, n)))
        cuts = sorted(draw(st.lists(st.integers(1, n - 1), min_size=t - 1, max_size=t - 1, unique=True)))
        counts = [b - a for a, b in zip([0] + cuts, cuts + [n])]
    assume(math.prod((c + 1) * (c + 2) // 2 for c in counts) <= CHECK_PAIRS)
    vectors = draw(st.lists(st.tuples(*[st.integers(0, 3)] * m), min_size=len(counts), max_size=len(counts),
                            unique=True))
    rows = [v for v, c in zip(vectors, counts) for _ in range(c)]
    return frame_from_array(np.array(rows)), [f"q{c}" for c in range(m)], k


@settings(max_examples=200, deadline=None)
@given(large_k_tables(), st.booleans())
def test_reduction_equals_divide_and_conquer_up_to_k_10(case, rounds_only):
    """Issue 93's test of the engine at k up to 10, dense and sparse tables: the reduction's optimum is the
    Blocki-Williams recursion's (itself checked against brute force, tests/test_exact_algorithms.py), and every
    bound it reports holds for that optimum: the LP's, the cliques', and each round's ``min(B, G)`` (a round proves
    its bound for the solutions cheaper than its threshold ``G``, the subtree it searches; ``empty``: ``G``).
    ``rounds_only``: no LP rounding and no polish, so that the rounds, not the first table, settle the solve."""
    frame, qi, k = case
    expected = divide_and_conquer(frame[qi].to_numpy(), k)[0]
    with pytest.MonkeyPatch.context() as mp:
        if rounds_only:
            mp.setattr(reduction, "ROUND_POLISH", 0.0)
        r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), reduction="lagrangian",
                         tuning=ma.Tuning(lp_rounding=not rounds_only))
    assert r.status == "optimal" and r.verified and r.objective == expected and r.bound == expected
    red = r.reduction
    assert red.lp_bound <= expected + 1e-6
    assert red.clique_bound is None or red.clique_bound <= expected + 1e-6
    for rnd in red.rounds:
        G = math.inf if rnd.G is None else rnd.G
        if rnd.status == "empty":
            assert G <= expected
        elif rnd.bound is not None:
            assert min(rnd.bound, G) <= expected + 1e-6


def _solve_recording_rounds(frame, qi, k, parallel_tree, memory_factor=None):
    """Solve k-anonymity by the reduction on two cores (no LP rounding, no polish: the rounds settle it) with
    ``LagrangianReduction.parallel_tree`` replaced by ``parallel_tree`` (and ``PARALLEL_TREE_MEMORY`` by
    ``memory_factor``). Returns the result, its rounds that were solved, and the options each solve was handed."""
    solved = []

    def spy(lm, options, *args, **kw):
        solved.append(options)
        return real_solve(lm, options, *args, **kw)

    real_solve = reduction.solve_model
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reduction, "ROUND_POLISH", 0.0)
        mp.setattr(reduction.LagrangianReduction, "parallel_tree", parallel_tree)
        if memory_factor is not None:
            mp.setattr(reduction, "PARALLEL_TREE_MEMORY", memory_factor)
        mp.setattr(lns, "_cores", lambda: 2)
        mp.setattr(reduction, "solve_model", spy)
        r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), reduction="lagrangian",
                         tuning=ma.Tuning(lp_rounding=False, parallel_tree_min_columns=0))
    ran = [rnd for rnd in r.reduction.rounds if rnd.status not in ("empty", "too large", "not started")]
    return r, ran, solved


@settings(max_examples=20, deadline=None)
@given(large_k_tables())
def test_rounds_on_the_parallel_tree_equal_divide_and_conquer(case):
    """Every round solved by HiGHS's parallel tree search (``Tuning.parallel_tree``, here from the first column on
    and at any gap, on two cores, in its own process): the optimum is the Blocki-Williams recursion's, dense and
    sparse tables, k up to 10, and each round's ``min(B, G)`` holds for it. No LP rounding and no polish: the rounds
    settle it. (When a round gets the parallel tree: ``test_the_parallel_tree_once_the_gap_is_small``.)"""
    frame, qi, k = case
    expected = divide_and_conquer(frame[qi].to_numpy(), k)[0]
    r, ran, solved = _solve_recording_rounds(
        frame, qi, k, lambda self, options, n_cols, room: reduction.parallel_tree_possible(options, n_cols))
    assert r.status == "optimal" and r.verified and r.objective == expected and r.bound == expected
    assert ran and len(ran) == len(solved)
    for rnd, options in zip(ran, solved):
        assert rnd.parallel_tree
        assert options.isolate == "always" and options.threads == 2 and ("parallel", "on") in options.highs_options
        G = math.inf if rnd.G is None else rnd.G
        assert rnd.bound is None or min(rnd.bound, G) <= expected + 1e-6


@settings(max_examples=100, deadline=None)
@given(large_k_tables(), st.booleans())
def test_rounds_under_the_cutoff_one_step_below_the_incumbent_equal_divide_and_conquer(case, isolate):
    """Every round with an incumbent hands HiGHS the cutoff one grid step below it (``Tuning.round_cutoff``; here no
    polish and, on half the draws, every round in its own process): the optimum and its proof are the
    Blocki-Williams recursion's, dense and sparse tables, k up to 10, also where the first table is already optimal
    (HiGHS then finds nothing below the cutoff) and where HiGHS ends a round at the cutoff with the incumbent it
    started from."""
    frame, qi, k = case
    expected = divide_and_conquer(frame[qi].to_numpy(), k)[0]
    handed, incumbents = [], []

    def spy_solve(lm, options, *args, **kw):
        handed.append(dict(options.highs_options).get("objective_bound"))
        return real_solve(lm, options, *args, **kw)

    def spy_round(self, *args, **kw):
        incumbents.append((self.ub, self.grid))
        return real_round(self, *args, **kw)

    real_solve, real_round = reduction.solve_model, reduction.LagrangianReduction._solve_round
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reduction, "ROUND_POLISH", 0.0)
        mp.setattr(reduction, "solve_model", spy_solve)
        mp.setattr(reduction.LagrangianReduction, "_solve_round", spy_round)
        # the limit only turns a cutoff that proves too little into a failure instead of rounds that never end
        r = ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), reduction="lagrangian",
                         isolate="always" if isolate else "never", time_limit=30)
    assert r.status == "optimal" and r.verified and r.objective == expected and r.bound == expected
    assert len(handed) == len(incumbents)
    for cutoff, (ub, grid) in zip(handed, incumbents):
        assert cutoff == (None if math.isinf(ub) else grid.cutoff_below(ub))


def test_no_round_cutoff_over_the_users_own_or_when_off():
    """The user's own HiGHS cutoff is left alone (``test_user_cutoff.py``), and ``round_cutoff=False`` hands none."""
    stub = reduction.LagrangianReduction.__new__(reduction.LagrangianReduction)
    stub.best, stub.grid = types.SimpleNamespace(objective=1000.0), ObjectiveGrid(1)
    stub.solver = ma.SolverOptions()
    assert stub.round_cutoff() == ObjectiveGrid(1).cutoff_below(1000.0)
    stub.solver = ma.SolverOptions(highs_options={"objective_bound": 1500.0})
    assert stub.round_cutoff() is None
    stub.solver = ma.SolverOptions(tuning=ma.Tuning(round_cutoff=False))
    assert stub.round_cutoff() is None
    stub.solver, stub.grid = ma.SolverOptions(), NO_GRID
    assert stub.round_cutoff() is None


@pytest.mark.parametrize("factor, tree", [(1.0, True), (1e15, False)])
def test_a_round_whose_parallel_tree_does_not_fit_the_memory_runs_on_one_thread(factor, tree):
    """The parallel tree holds up to ``PARALLEL_TREE_MEMORY`` times one thread's estimate: where that exceeds the
    memory allowed the same round runs on one thread (HiGHS's own threads, in process) instead of a smaller round or
    none (here every round may otherwise have it, at any gap). The optimum is Blocki-Williams' recursion's either
    way."""
    rng = np.random.default_rng(3)
    frame = frame_from_array(rng.integers(0, 2, size=(12, 4)))  # two rounds (no LP rounding)
    qi = list(frame.columns)
    expected = divide_and_conquer(frame[qi].to_numpy(), 3)[0]
    r, ran, solved = _solve_recording_rounds(
        frame, qi, 3, lambda self, options, n_cols, room: room and reduction.parallel_tree_possible(options, n_cols),
        memory_factor=factor)
    assert r.status == "optimal" and r.verified and r.objective == expected
    assert len(ran) == len(solved) == len(r.reduction.rounds) == 2  # the same rounds either way, none refused
    for rnd, options in zip(ran, solved):
        assert rnd.parallel_tree == tree
        assert (("parallel", "on") in options.highs_options) == tree and (options.threads == 2) == tree


def test_the_parallel_tree_is_left_to_a_user_who_sets_threads(monkeypatch):
    """``parallel_tree_possible``: HiGHS in bulk on two cores or more, isolation allowed, ``tuning.parallel_tree``
    on and enough columns; never over the user's own ``threads`` or ``parallel``."""
    monkeypatch.setattr(lns, "_cores", lambda: 2)
    possible = reduction.parallel_tree_possible
    base = ma.SolverOptions(time_limit=60)
    assert possible(base, 20_000) and not possible(base, 19_999)
    assert not possible(dataclasses.replace(base, threads=1), 10**6)
    assert not possible(ma.SolverOptions(time_limit=60, highs_options={"parallel": "off"}), 10**6)
    assert not possible(ma.SolverOptions(time_limit=60, highs_options={"threads": 1}), 10**6)
    assert not possible(dataclasses.replace(base, isolate="never"), 10**6)
    assert not possible(dataclasses.replace(base, tuning=ma.Tuning(parallel_tree=False)), 10**6)
    assert possible(ma.SolverOptions(time_limit=60, highs_options={"mip_heuristic_effort": 0.1}), 10**6)
    opts = reduction.parallel_tree_options(ma.SolverOptions(highs_options={"mip_heuristic_effort": 0.1}))
    assert opts.isolate == "always" and opts.threads == 2
    assert opts.highs_options == (("parallel", "on"), ("mip_heuristic_effort", 0.1))  # the user's last
    monkeypatch.setattr(lns, "_cores", lambda: 1)
    assert not possible(base, 10**6)


@pytest.mark.parametrize("lb, possible, room, other", [(980.0, True, True, "search"), (990.0, True, True, "tree"),
                                                       (995.0, True, True, "tree"), (995.0, False, True, "search"),
                                                       (995.0, True, False, "search")])
@pytest.mark.parametrize("grid", [ObjectiveGrid(1), NO_GRID])
def test_the_parallel_tree_once_the_gap_is_small(monkeypatch, lb, possible, room, other, grid):
    """HiGHS's parallel tree search solves a round only once a table lies within ``HEURISTIC_GAP`` of the bound
    (here the table costs 1,000: a bound of 990 is a gap of exactly 1 %; the bound is what is left), where it is
    possible and fits the memory allowed; otherwise the search runs beside the round where it can. Before the first
    table, never the tree."""
    monkeypatch.setattr(reduction, "parallel_tree_possible", lambda options, n_cols: possible)
    stub = reduction.LagrangianReduction.__new__(reduction.LagrangianReduction)
    monkeypatch.setattr(stub, "search_beside", lambda options, n_cols: True, raising=False)
    stub.best, stub.grid, stub.lb = types.SimpleNamespace(objective=1000.0), grid, lb
    assert stub.other_core(ma.SolverOptions(time_limit=600), 10**6, room) == other
    stub.best = None  # no table yet (UB infinite): the table is what is left
    assert stub.other_core(ma.SolverOptions(time_limit=600), 10**6, room) == "search"
    monkeypatch.setattr(stub, "search_beside", lambda options, n_cols: False, raising=False)
    assert stub.other_core(ma.SolverOptions(time_limit=600), 10**6, room) is None
