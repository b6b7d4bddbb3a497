"""The interval split heuristic: its segmentation against every split into consecutive segments, its tables
verified and never below the brute-force optimum, and the solve releasing its table where it is the best."""

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from milp_anon.exact import brute_force
from milp_anon.heuristics.interval_split import interval_split, segments
from milp_anon.privacy.verify import verify_release


def _best_consecutive(x, k, span):
    """The cheapest split of ``x``'s sorted distinct values into consecutive runs of at least ``k`` rows, by trying
    every set of cuts between two distinct values: ``Σ rows × (last − first) / span`` in exact fractions."""
    vals = sorted(set(x))
    count = {v: x.count(v) for v in vals}
    best = None
    for cuts in itertools.product([False, True], repeat=len(vals) - 1):
        runs, cur = [], [vals[0]]
        for v, cut in zip(vals[1:], cuts):
            if cut:
                runs.append(cur)
                cur = []
            cur.append(v)
        runs.append(cur)
        rows = [sum(count[v] for v in r) for r in runs]
        if min(rows) < k:
            continue
        cost = sum(Fraction(n) * (Fraction(r[-1]) - Fraction(r[0])) / span for n, r in zip(rows, runs))
        best = cost if best is None or cost < best else best
    return best


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-5, 12), min_size=1, max_size=14), st.integers(1, 5))
def test_segments_are_the_cheapest_consecutive_split(x, k):
    if len(x) < k:
        return
    span = max(max(x) - min(x), 1)
    parts = segments(np.array(x, dtype=float), k, float(span))
    pos = np.sort(np.concatenate(parts))
    assert pos.tolist() == list(range(len(x)))  # a partition of the positions
    assert all(p.size >= k for p in parts)
    xs = np.array(x)
    cost = sum(Fraction(int(p.size)) * (Fraction(int(xs[p].max())) - Fraction(int(xs[p].min()))) / span
               for p in parts)
    assert cost == _best_consecutive(x, k, span)
    # consecutive: no value of one segment lies strictly inside another's range
    for a, b in itertools.permutations(parts, 2):
        assert not ((xs[b] > xs[a].min()) & (xs[b] < xs[a].max())).any()


@st.composite
def tables(draw):
    """Small tables with one or two numeric interval columns and letter columns; sparse ones (many row types of
    one row) included."""
    n = draw(st.integers(2, 9))
    frame = pd.DataFrame({"x": [str(v) for v in draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))],
                          "y": draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n))})
    qi, intervals = ["x", "y"], ["x"]
    if draw(st.booleans()):
        frame["u"] = [str(v) for v in draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))]
        qi.append("u")
        if draw(st.booleans()):
            intervals.append("u")
    if draw(st.booleans()):
        frame["z"] = draw(st.lists(st.sampled_from("pq"), min_size=n, max_size=n))
        qi.append("z")
    return frame, qi, tuple(intervals), draw(st.integers(1, 4))


@settings(max_examples=80, deadline=None)
@given(tables())
def test_tables_are_valid_and_never_below_the_optimum(case):
    frame, qi, intervals, k = case
    table = ma.Table.from_frame(frame, qi)
    recoding = ma.Generalization(intervals=intervals)
    out = interval_split(table, k, recoding)
    if len(frame) < k:
        assert out is None
        return
    released, cost = out
    v = verify_release(frame, released, qi, [ma.KAnonymity(k)], recoding=recoding)  # raises on a violation
    assert v.cost == pytest.approx(cost)
    assert min(released.groupby(qi).size()) >= k
    optimum, _ = brute_force(frame[qi].to_numpy(), [ma.KAnonymity(k)], {}, recoding=recoding, columns=qi)
    assert cost >= float(optimum) - 1e-9


def test_a_worked_example():
    # two groups by y; a's ages 20, 21, 29, 30 split at k = 2 into 20-21 and 29-30 (width 1 each over the range
    # 20..40: 4 rows × 1/20); b's 38, 39, 40 stay together (3 rows × 2/20): 0.2 + 0.3
    frame = pd.DataFrame({"age": ["20", "21", "29", "30", "38", "39", "40"], "y": list("aaaabbb")})
    table = ma.Table.from_frame(frame, ["age", "y"])
    released, cost = interval_split(table, 2, ma.Generalization(intervals=("age",)))
    assert cost == pytest.approx(0.5)
    assert sorted(released["age"].unique()) == ["20-21", "29-30", "38-40"]


@pytest.mark.parametrize("intervals", [("age",), ()])
def test_the_reduction_offers_the_heuristics_before_its_rounds_with_intervals(monkeypatch, intervals):
    # with an interval column the first round (near the LP bound) can take the whole limit: the heuristic
    # tables (the interval split's among them) come before it; otherwise after it, when it left a gap
    from milp_anon import reduction

    events = []
    heuristic, run_round = reduction.best_heuristic, reduction.LagrangianReduction.run_round
    monkeypatch.setattr(reduction, "best_heuristic", lambda *a, **kw: events.append("heuristic") or heuristic(*a, **kw))
    monkeypatch.setattr(reduction.LagrangianReduction, "run_round",
                        lambda self, *a, **kw: events.append("round") or run_round(self, *a, **kw))
    rng = np.random.default_rng(3)
    n = 200
    frame = pd.DataFrame({"age": rng.integers(18, 80, n).astype(str), "sex": rng.choice(["f", "m"], n),
                          "region": rng.choice(list("abcde"), n)})
    table = ma.Table.from_frame(frame, ["age", "sex", "region"])
    r = ma.anonymize(table, ma.KAnonymity(5), recoding=ma.Generalization(intervals=intervals), time_limit=20)
    assert r.reduction is not None
    assert (events[:1] == ["heuristic"]) == bool(intervals), events
    if intervals:
        _, cost = interval_split(table, 5, ma.Generalization(intervals=intervals))
        assert r.objective <= cost + 1e-9 and r.warm_start_cost <= cost + 1e-9
