"""Instance generators: synthetic tables and the hardness gadgets of the papers."""

from __future__ import annotations

import numpy as np
import pandas as pd


def synthetic_frame(n: int, m: int, alphabet: int, seed: int = 0, t_in: int | None = None,
                    sensitive_values: int | None = None) -> pd.DataFrame:
    """``n`` rows over ``m`` columns ``q0..`` with values ``0..alphabet-1``.

    With ``t_in``, ``t_in`` distinct rows are drawn first and the ``n`` rows are
    drawn from them (each used at least once), so the table has exactly
    ``t_in`` row types (``t_in <= min(n, alphabet^m)``). With
    ``sensitive_values``, a sensitive column ``s`` with that many values.
    """
    rng = np.random.default_rng(seed)
    if t_in is None:
        arr = rng.integers(0, alphabet, size=(n, m))
    else:
        if t_in > n or t_in > alphabet ** m:
            raise ValueError(f"t_in = {t_in} needs n >= t_in and alphabet^m >= t_in")
        codes = rng.choice(alphabet ** m, size=t_in, replace=False)
        types = np.array([[(c // alphabet ** j) % alphabet for j in range(m)] for c in codes])
        pick = np.concatenate([np.arange(t_in), rng.integers(0, t_in, size=n - t_in)])
        arr = types[rng.permutation(pick)]
    frame = pd.DataFrame(arr.astype(str), columns=[f"q{j}" for j in range(m)])
    if sensitive_values:
        frame["s"] = rng.integers(0, sensitive_values, size=n).astype(str)
    return frame


def edge_table(edges, n_vertices: int) -> pd.DataFrame:
    """Blocki-Williams App. C: one row per edge, one binary column per vertex (1 at its endpoints)."""
    rows = np.zeros((len(edges), n_vertices), dtype=int)
    for r, (u, v) in enumerate(edges):
        rows[r, u] = rows[r, v] = 1
    return pd.DataFrame(rows.astype(str), columns=[f"v{j}" for j in range(n_vertices)])


def planted_partition_graph(n_vertices: int, n_parts: int, seed: int = 0):
    """Edges that are a union of edge-disjoint triangles and 4-stars (K_{1,3}).

    The binary 3-anonymity table of such a graph has optimum exactly ``3|E|``
    (Blocki-Williams App. C): the three rows of a triangle or a 4-star differ
    in exactly 3 columns (3 stars per row), and no k = 3 solution does better.
    """
    rng = np.random.default_rng(seed)
    edges: set = set()
    for _ in range(100 * n_parts):
        if len(edges) >= 3 * n_parts:
            break
        vs = rng.choice(n_vertices, size=4, replace=False)
        part = ([(vs[0], vs[1]), (vs[1], vs[2]), (vs[0], vs[2])] if rng.random() < 0.5
                else [(vs[0], vs[1]), (vs[0], vs[2]), (vs[0], vs[3])])
        part = {tuple(sorted(map(int, e))) for e in part}
        if part & edges:
            continue
        edges |= part
    return sorted(edges)
