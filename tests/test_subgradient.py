"""The subgradient ascent's stopping rules (milp_anon.subgradient); its bounds are tested against brute force
in test_k_relaxation_bound.py."""

import numpy as np
import pytest

from milp_anon.lagrangian import BlockPrices
from milp_anon.subgradient import STALL_SHARE, STALL_WINDOW, subgradient_ascent


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
