"""Shared helpers: random small tables and a from-the-definition cost."""

import numpy as np
import pandas as pd
from hypothesis import strategies as st

import milp_anon as ma

LETTERS = "abc"


@st.composite
def small_tables(draw, n=(4, 10), m=(1, 4), alphabet=(2, 3), k=(2, 4)):
    """(frame, qi, k): a random table of letters and a k."""
    n_ = draw(st.integers(*n))
    m_ = draw(st.integers(*m))
    a = draw(st.integers(*alphabet))
    k_ = draw(st.integers(*k))
    cells = draw(st.lists(st.lists(st.integers(0, a - 1), min_size=m_, max_size=m_), min_size=n_, max_size=n_))
    qi = [f"q{c}" for c in range(m_)]
    frame = pd.DataFrame([[LETTERS[v] for v in row] for row in cells], columns=qi)
    return frame, qi, k_


def frame_from_array(arr, prefix="q"):
    arr = np.asarray(arr)
    return pd.DataFrame(arr.astype(str), columns=[f"{prefix}{c}" for c in range(arr.shape[1])])


def solve_k(frame, qi, k, **kw):
    return ma.anonymize(ma.Table.from_frame(frame, qi), ma.KAnonymity(k), **kw)


def edge_table(edges, n_vertices):
    """Blocki-Williams App. C: one row per edge, one binary column per vertex."""
    rows = np.zeros((len(edges), n_vertices), dtype=int)
    for r, (u, v) in enumerate(edges):
        rows[r, u] = rows[r, v] = 1
    return rows
