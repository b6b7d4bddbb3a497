"""Small instances as multisets of units, shared by the exact algorithms.

Rows with the same QI values and the same sensitive values ("units") are
interchangeable in every problem here, so a set of rows is represented by
its count vector over units and sub-problems are memoized on it (the
multisubsets of Blocki-Williams' proof of Thm. 3). Group costs and group
conditions come from the brute-force module's definitions, evaluated on
representative rows.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache

import numpy as np

from milp_anon.exact.brute_force import _block_cost_fn, group_condition

INF = float("inf")


class Instance:
    """Units, their multiplicities, and cached group cost/validity.

    Parameters
    ----------
    table
        ``(n, m)`` array-like of QI values.
    criteria
        Criterion objects (only their parameters are read).
    sensitive
        ``{column: list of n values}``.
    recoding
        ``None``/Suppression, Generalization or Patterns.
    columns
        QI names (to look up hierarchies).
    """

    def __init__(self, table, criteria, sensitive=None, recoding=None, columns=None):
        arr = np.asarray(table, dtype=object)
        if arr.ndim != 2:
            raise ValueError("table must be two-dimensional")
        self.arr = arr
        self.n, self.m = arr.shape
        sens = {c: list(map(str, v)) for c, v in (sensitive or {}).items()}
        self.sensitive = sens
        self.columns = list(columns) if columns is not None else [f"q{c}" for c in range(self.m)]
        self.k, self._ok = group_condition(criteria, sens)
        self._cost = _block_cost_fn(arr, self.columns, recoding)
        units: dict = {}
        for r in range(self.n):
            key = tuple(str(x) for x in arr[r]) + tuple(sens[c][r] for c in sens)
            units.setdefault(key, []).append(r)
        self.unit_keys = list(units)
        self.unit_rows = [units[u] for u in self.unit_keys]
        self.counts = tuple(len(r) for r in self.unit_rows)
        self.group = lru_cache(maxsize=None)(self._group)

    @classmethod
    def from_table(cls, table, criteria, recoding=None):
        """From a :class:`~milp_anon.tables.table.Table`."""
        arr = table.frame[list(table.qi)].astype(str).to_numpy(dtype=object)
        sens = {c: table.frame[c].astype(str).tolist() for c in table.sensitive}
        return cls(arr, criteria, sens, recoding, list(table.qi))

    def rows(self, vec) -> tuple:
        """Representative rows of the multiset ``vec`` (the first rows of each unit)."""
        return tuple(r for u, c in enumerate(vec) for r in self.unit_rows[u][:c])

    def _group(self, vec):
        """Cost of releasing ``vec`` as one class, or ``INF`` if that class is not allowed."""
        size = sum(vec)
        if size < self.k or size == 0:
            return INF
        rows = self.rows(vec)
        cost = self._cost(rows)
        if cost is None or not self._ok(rows):
            return INF
        return cost

    def blocks(self, vecs) -> list[tuple]:
        """Turn a list of count vectors (a partition of the whole multiset) into row blocks."""
        nxt = [0] * len(self.counts)
        out = []
        for vec in vecs:
            block = []
            for u, c in enumerate(vec):
                block.extend(self.unit_rows[u][nxt[u]:nxt[u] + c])
                nxt[u] += c
            out.append(tuple(block))
        if nxt != list(self.counts):
            raise AssertionError("the groups do not partition the rows")
        return out


def solve_multiset(inst: Instance, f):
    """Run the memoized recursion ``f(count vector) -> (cost, vectors)`` on the whole table.

    Returns ``(cost, blocks)`` with row blocks, or ``(None, None)`` when no
    partition is valid (cost ``INF``).
    """
    if inst.n == 0:
        return 0, []
    total, vecs = f(inst.counts)
    if total == INF:
        return None, None
    return as_number(total), inst.blocks(vecs)


def submultisets(vec, lo: int = 0, hi: int | None = None):
    """Every sub-multiset of ``vec`` with size in ``[lo, hi]`` (as tuples)."""
    hi = sum(vec) if hi is None else hi
    for sub in itertools.product(*(range(c + 1) for c in vec)):
        s = sum(sub)
        if lo <= s <= hi:
            yield sub


def minus(a, b) -> tuple:
    return tuple(x - y for x, y in zip(a, b))


def as_number(cost):
    """Integral Fractions as int, others as Fraction (exact comparisons across algorithms)."""
    if isinstance(cost, Fraction) and cost.denominator == 1:
        return int(cost)
    return cost
