"""milp_anon.privacy.emd: the group test's transport LP against brute force's exact min-cost flow."""

from fractions import Fraction

import pytest
from helpers import line_metric
from hypothesis import given, settings
from hypothesis import strategies as st

from milp_anon.exact import emd_flow
from milp_anon.privacy import emd
from milp_anon.privacy.emd import transport_emd, transport_emds


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_one_lp_of_many_transports_gives_each_group_its_own_emd(data):
    V = data.draw(st.integers(2, 5))
    whole = data.draw(st.lists(st.integers(0, 6), min_size=V, max_size=V).filter(lambda w: sum(w) > 0))
    groups = data.draw(st.lists(st.lists(st.integers(0, 4), min_size=V, max_size=V).filter(lambda c: sum(c) > 0),
                                min_size=1, max_size=6))
    d = data.draw(line_metric([str(v) for v in range(V)])).to_numpy()
    n = sum(whole)
    # the group test's margins: the whole table's counts times the group's size, the group's times n
    p = [[w * sum(c) for w in whole] for c in groups]
    q = [[n * x for x in c] for c in groups]
    got = transport_emds(p, q, d)
    assert got.shape == (len(groups),)
    was = emd.TRANSPORTS_PER_LP
    try:  # the same in LPs of two transports (the last one alone when odd)
        emd.TRANSPORTS_PER_LP = 2
        assert transport_emds(p, q, d) == pytest.approx(got, abs=1e-7 * max(1, n * max(map(sum, groups))))
    finally:
        emd.TRANSPORTS_PER_LP = was
    for g, c in enumerate(groups):
        # brute force's exact flow on the unscaled distributions, scaled back to the LP's margins
        expected = emd_flow(whole, c, d) * n * sum(c)
        assert got[g] == pytest.approx(float(expected), abs=1e-7 * max(1, n * sum(c)))
        assert transport_emd(p[g], q[g], d) == pytest.approx(got[g], abs=1e-7 * max(1, n * sum(c)))


def test_no_groups_no_lp():
    assert transport_emds([], [], [[0.0]]).shape == (0,)


def test_a_known_transport():
    # all mass moves from value 0 to value 2 at distance 1 (ordered on 3 values: 0, 1/2, 1)
    d = [[0, 0.5, 1], [0.5, 0, 0.5], [1, 0.5, 0]]
    assert transport_emds([[2, 0, 0], [1, 1, 0]], [[0, 0, 2], [1, 1, 0]], d).tolist() == pytest.approx([2.0, 0.0])
    assert Fraction(1) == emd_flow([1, 0, 0], [0, 0, 1], d)
