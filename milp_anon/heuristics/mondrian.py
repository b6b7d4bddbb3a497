"""Mondrian: greedy top-down multidimensional partitioning.

LeFevre, DeWitt, Ramakrishnan, *Mondrian Multidimensional k-Anonymity*
(ICDE 2006), strict partitioning: starting from the whole table, split a
partition on the column with the widest normalized range (distinct values in
the partition over distinct values in the table, in the column's order) at
the median; a split is allowed when both halves meet every criterion; a
partition with no allowed split becomes one class. Time ``O(n log n · m)``
splits plus the criteria checks.

Output: each class released at its cheapest recoding (suppression of
varying columns, or their lowest common ancestor in a hierarchy — not
Mondrian's numeric ranges, so the output is comparable with the optimum).
"""

from __future__ import annotations

import numpy as np

from milp_anon.privacy.criteria import group_test
from milp_anon.release.partition import verified_release
from milp_anon.tables.table import Table


def _column_rank(values, hierarchy=None) -> np.ndarray:
    """Rank of each distinct value: numeric order if all parse, else the hierarchy's leaf order, else text."""
    vals = [str(v) for v in values]
    try:
        keys = [float(v) for v in vals]
        order = sorted(range(len(vals)), key=lambda i: (keys[i], vals[i]))
    except ValueError:
        if hierarchy is not None:
            leaf_pos = {v: i for i, v in enumerate(hierarchy.paths)}
            order = sorted(range(len(vals)), key=lambda i: (leaf_pos.get(vals[i], len(leaf_pos)), vals[i]))
        else:
            order = sorted(range(len(vals)), key=lambda i: vals[i])
    rank = np.empty(len(vals), dtype=np.int64)
    rank[order] = np.arange(len(vals))
    return rank


def mondrian(table: Table, criteria, recoding=None):
    """Run strict Mondrian.

    Returns
    -------
    (released, cost) or None
        The verified released table and its cost; ``None`` if the whole
        table does not meet the criteria (no anonymization exists).
    """
    ok = group_test(table, criteria)
    rows = np.arange(table.n)
    if not ok(rows):
        return None
    hier = getattr(recoding, "hierarchies", {}) or {}
    ranks = np.column_stack([_column_rank(table.values[c], hier.get(col))[table.codes[:, c]]
                             for c, col in enumerate(table.qi)]) if table.m else np.zeros((table.n, 0), int)
    spread = np.array([max(len(v), 1) for v in table.values], dtype=float)
    final, stack = [], [rows]
    while stack:
        part = stack.pop()
        r = ranks[part]
        width = np.array([len(np.unique(r[:, c])) for c in range(table.m)]) / spread
        done = True
        for c in np.argsort(-width, kind="stable"):
            if width[c] * spread[c] <= 1:
                break
            col = r[:, c]
            med = np.sort(col)[(len(col) - 1) // 2]
            left = col <= med
            if left.all():
                left = col < med
            if not left.any() or left.all():
                continue
            a, b = part[left], part[~left]
            if ok(a) and ok(b):
                stack.extend([a, b])
                done = False
                break
        if done:
            final.append(part)
    return verified_release(table, final, criteria, recoding)
