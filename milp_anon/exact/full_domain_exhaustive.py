"""Full-domain generalization by exhaustion: every level vector, every withheld set.

Problem: one level per QI column for every row (each row's column ``c``
released as the ancestor at level ``l_c`` of its value; a column without a
hierarchy is kept or ``*``); the classes meet every criterion; with
``max_withheld = N`` up to ``N`` rows may be withheld (exempt from the
criteria, each costing every QI cell at its root). Minimize the cost.

Algorithm: for every level vector, every set of at most ``N`` withheld rows
(``O(Π_c (H_c + 1) · Σ_{i<=N} C(n, i))``; for ``n <= 10``), the classes of the
other rows checked by :func:`~milp_anon.exact.brute_force.group_condition`
(the criteria from their definitions). Independent of
:mod:`milp_anon.search.full_domain`, whose bounded search and whole-class
withholding rule it checks.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from milp_anon.exact.brute_force import _node_costs, _record_cost, group_condition
from milp_anon.tables.recoding import Generalization

__all__ = ["brute_force_full_domain"]


def brute_force_full_domain(table, criteria, sensitive: dict | None = None, recoding=None, columns=None,
                            max_withheld: int | None = None):
    """The full-domain optimum: ``(cost, levels)`` (``levels`` per column), or ``(None, None)``."""
    arr = np.asarray(table, dtype=object)
    n, m = arr.shape
    columns = list(columns) if columns is not None else [f"q{c}" for c in range(m)]
    hier = recoding.hierarchies if isinstance(recoding, Generalization) else {}
    costs = _node_costs(recoding, columns)
    record = _record_cost(recoding, columns)
    _, ok = group_condition(criteria, {c: list(map(str, v)) for c, v in (sensitive or {}).items()})
    k = max([getattr(c, "k", 1) for c in criteria] + [1])
    heights = [hier[c].height if c in hier else 1 for c in columns]

    def released(r, c, lvl):
        v = str(arr[r, c])
        if columns[c] in hier:
            return hier[columns[c]].paths[v][lvl]
        return v if lvl == 0 else "*"

    def cell_cost(r, c, lvl):
        if columns[c] not in hier:
            return Fraction(lvl)
        return costs[c][(lvl, released(r, c, lvl))]

    best = (None, None)
    for levels in itertools.product(*(range(h + 1) for h in heights)):
        row_cost = [sum(cell_cost(r, c, lv) for c, lv in enumerate(levels)) for r in range(n)]
        key = [tuple(released(r, c, lv) for c, lv in enumerate(levels)) for r in range(n)]
        for size in range(0, min(max_withheld or 0, n) + 1):
            for out in itertools.combinations(range(n), size):
                kept = [r for r in range(n) if r not in out]
                classes = {}
                for r in kept:
                    classes.setdefault(key[r], []).append(r)
                if any(len(b) < k or not ok(tuple(b)) for b in classes.values()):
                    continue
                total = sum(row_cost[r] for r in kept) + size * record
                if best[0] is None or total < best[0]:
                    best = (total, levels)
    return best
