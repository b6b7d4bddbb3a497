"""Brute force over set partitions of the rows.

Problem: given an ``n × m`` table and ``k``, partition the rows into groups of
at least ``k`` rows; a group's cost is its size times the number of columns on
which its rows are not all equal (those cells must be suppressed so the group
becomes one equivalence class; Blocki-Williams 2010, Def. 2-4). Minimize the
total cost.

Algorithm: exhaustive search over every set partition into blocks of size
``>= k``, memoized on the set of rows still to be placed (the block holding
the lowest unplaced row is chosen among all subsets of the rest). It uses no
row types, candidates or solver, so it is an independent reference for the
MILP. Time ``O(3^n · m)``, memory ``O(2^n)``: meant for ``n <= 12``.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

MAX_ROWS = 12


def suppression_cost(table: np.ndarray, block) -> int:
    """Stars needed to make the rows ``block`` of ``table`` identical."""
    sub = table[list(block)]
    varying = int(np.sum(np.any(sub != sub[0], axis=0)))
    return varying * len(block)


def brute_force_k_anonymity(table, k: int):
    """Optimal k-anonymity by suppression, by exhaustive search.

    Parameters
    ----------
    table
        ``(n, m)`` array-like of hashable values (``n <= 12``).
    k
        Minimum group size.

    Returns
    -------
    (cost, blocks)
        The optimum and an optimal partition (tuple of row-index tuples), or
        ``(None, None)`` when ``k > n``.
    """
    arr = np.asarray(table, dtype=object)
    if arr.ndim != 2:
        raise ValueError("table must be two-dimensional")
    n = arr.shape[0]
    if n > MAX_ROWS:
        raise ValueError(f"brute force is limited to {MAX_ROWS} rows, got {n}")
    if k > n:
        return None, None
    if n == 0:
        return 0, ()
    cols = [list(arr[:, c]) for c in range(arr.shape[1])]

    def block_cost(block):
        varying = sum(1 for col in cols if len({col[r] for r in block}) > 1)
        return varying * len(block)

    @lru_cache(maxsize=None)
    def best(remaining: frozenset):
        if not remaining:
            return 0, ()
        first = min(remaining)
        rest = sorted(remaining - {first})
        top = (None, None)
        for size in range(k - 1, len(rest) + 1):
            left_over = len(rest) - size
            if 0 < left_over < k:
                continue
            for others in combinations(rest, size):
                block = (first,) + others
                sub_cost, sub_blocks = best(remaining - frozenset(block))
                if sub_cost is None:
                    continue
                total = block_cost(block) + sub_cost
                if top[0] is None or total < top[0]:
                    top = (total, (block,) + sub_blocks)
        return top

    return best(frozenset(range(n)))
