"""The subgradient ascent's stopping rules (milp_anon.bounds.subgradient); its bounds are tested against brute force
in test_k_relaxation_bound.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from milp_anon.bounds.lagrangian import BlockPrices
from milp_anon.bounds.subgradient import STALL_SHARE, STALL_WINDOW, PrimalAverage, subgradient_ascent


def _rising(per_step, flat=0):
    """Block prices whose bound stays at 100 for the first ``flat`` calls after the start, then rises by
    ``per_step`` at every call, whatever ``π`` (one unit, one candidate that takes nothing: the
    supergradient is never 0)."""
    calls = []

    def prices_of(pi):
        calls.append(1)
        return BlockPrices(rc=np.array([-1.0]), take=np.array([0.0]), forced=np.array([0.0]),
                           bound=100.0 + per_step * max(0, len(calls) - 1 - flat))
    return prices_of


@pytest.mark.parametrize("per_step, flat, window, steps", [
    (0.001, 0, STALL_WINDOW, STALL_WINDOW + 1),  # from the first gain, 25 steps gain 0.025 < 5e-4 · 100
    (0.001, 0, 0, 200),           # the stall rule off: every step is better, so up to max_iterations
    (0.01, 0, STALL_WINDOW, 200),  # 25 steps gain 0.25: not stalled
    (0.01, 30, STALL_WINDOW, 200),  # 30 flat steps first (θ halves to 1/64): the rule counts from the gain
])
def test_stall_stop(per_step, flat, window, steps):
    assert STALL_SHARE * 100 == pytest.approx(0.05)
    one = np.array([0])
    asc = subgradient_ascent(_rising(per_step, flat), [0.0], [1.0], one, one, stall_window=window)
    assert asc.iterations == steps
    assert asc.bound == pytest.approx(100.0 + per_step * (steps - flat))  # the best bound is kept


def test_the_ascent_stops_at_a_known_upper_bound():
    one = np.array([0])
    asc = subgradient_ascent(_rising(1.0), [0.0], [1.0], one, one, upper=102.0)
    assert asc.iterations == 2 and asc.bound == 102.0



@settings(max_examples=60, deadline=None)
@given(steps=st.integers(1, 70), seed=st.integers(0, 10 ** 6))
def test_the_primal_average_holds_the_later_steps(steps, seed):
    """PrimalAverage over ``steps`` random block outcomes: the average of the open candidates' ``take`` over
    the steps from half the largest power of two below ``steps`` on (computed here from the list of
    outcomes), and its assignment scales each unit's pairs to its rows (units no open block took stay 0)."""
    rng = np.random.default_rng(seed)
    pair_unit, pair_cand = np.array([0, 0, 1, 2, 2]), np.array([0, 1, 1, 0, 2])
    n = np.array([3.0, 2.0, 4.0, 1.0])  # unit 3 has no pair
    heard, avg = [], PrimalAverage(pair_cand)
    for _ in range(steps):
        rc, take = rng.normal(size=3), rng.integers(0, 3, size=5).astype(float)
        heard.append(np.where(rc[pair_cand] < 0, take, 0.0))
        avg(BlockPrices(rc=rc, take=take, forced=np.zeros(5), bound=0.0))
    power = 1
    while 2 * power < steps:
        power *= 2
    first = power // 2 if steps > 1 else 0
    expected = np.mean(heard[first:], axis=0)
    assert avg.averaged == steps - first
    cover = np.bincount(pair_unit, weights=expected, minlength=4)
    x = avg.assignment(n, pair_unit)
    scaled = np.where(cover > 0, n / np.where(cover > 0, cover, 1.0), 0.0)
    assert x == pytest.approx(expected * scaled[pair_unit])
    covered = np.bincount(pair_unit, weights=x, minlength=4)
    assert covered[cover > 0] == pytest.approx(n[cover > 0]) and (covered[cover == 0] == 0).all()
    assert PrimalAverage(pair_cand).assignment(n, pair_unit) is None
