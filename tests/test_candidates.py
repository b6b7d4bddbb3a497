"""Candidates against a naive enumeration written from the definitions."""

from itertools import product

import numpy as np
import pandas as pd
from helpers import small_tables
from hypothesis import given, settings

import milp_anon as ma
from milp_anon.instance.candidates import suppression_candidates


def naive_candidates(rows, k):
    """Every (mask, values) vector from some row; support and closure by definition."""
    rows = [tuple(r) for r in rows]
    m = len(rows[0])
    out = {}
    for r in rows:
        for keep in product([True, False], repeat=m):
            vec = tuple(v if kp else "*" for v, kp in zip(r, keep))
            compat = [s for s in rows if all(x == "*" or x == y for x, y in zip(vec, s))]
            closed = all(vec[c] != "*" or len({s[c] for s in compat}) > 1 for c in range(m))
            out[vec] = (len(compat), closed)
    return out


@settings(max_examples=80)
@given(small_tables(n=(1, 10)))
def test_candidates_match_naive_definition(case):
    frame, qi, k = case
    table = ma.Table.from_frame(frame, qi)
    types = ma.RowTypes.from_table(table)
    naive = naive_candidates(frame.to_numpy().tolist(), k)
    c = suppression_candidates(types, k)
    got = set()
    for j in range(c.n_candidates):
        vec = tuple(table.values[col][c.codes[j, col]] if c.keep[j, col] else "*" for col in range(table.m))
        got.add(vec)
        assert naive[vec][0] == c.capacity[j]
        assert c.cost[j] == vec.count("*")
    expected = {v for v, (cap, closed) in naive.items() if cap >= k and closed}
    assert got == expected
    assert c.counts["generated"] == len(naive)
    assert c.counts["support"] == sum(cap >= k for cap, _ in naive.values())
    assert c.counts["closure_only"] == sum(closed for _, closed in naive.values())
    # pairs: exactly the compatible (type, candidate) pairs
    for j in range(c.n_candidates):
        types_j = c.pair_type[c.pair_cand == j]
        kept = c.keep[j]
        match = np.all((types.codes[:, kept] == c.codes[j, kept]), axis=1)
        assert set(types_j.tolist()) == set(np.flatnonzero(match).tolist())


def test_row_types_collapse():
    frame = pd.DataFrame({"a": list("xxyx"), "b": list("1122")})
    types = ma.RowTypes.from_table(ma.Table.from_frame(frame, ["a", "b"]))
    assert types.t_in == 3 and types.n == 4
    assert sorted(types.counts.tolist()) == [1, 1, 2]
    assert types.row_type[0] == types.row_type[1] != types.row_type[2]
