"""A greedy for k-anonymity by local recoding with generalization hierarchies.

The pattern greedy of Bredereck, Nichterlein, Niedermeier (*Pattern-Guided
k-Anonymity*, Algorithms 2013, Algorithm 1) with generalization levels in
the place of suppression patterns: level vectors ``(l_1, …, l_m)`` (one
level per QI, ``0`` the value, ``H_c`` the root) by increasing mean cost
per row; for every instance of a level vector (a distinct generalized
projection of the remaining rows) with at least ``k`` remaining rows,
release them as one class and remove them. The cost of a level vector is
additive over the columns, so its mean over the table's rows is the sum of
per-column means: the order costs ``O(Π (H_c + 1) · m)``, the passes
``O(Π (H_c + 1) · n · m)`` in the worst case (each a ``numpy.unique`` of the
remaining rows; the loop stops once fewer than ``k`` rows remain).

Rows left over (fewer than ``k``; the root vector takes any ``k`` or more)
join, one at a time, the class whose cost rises least when it takes them
(its hull widened to hold the row). Each class is released at its hull
(the lowest common ancestor per column, :func:`milp_anon.release.partition.release_blocks`),
which can be cheaper than the level vector that formed it. No
approximation guarantee; it gives the reduction an incumbent that
generalizes instead of suppressing (issue: strong incumbents).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from milp_anon.heuristics.greedy import instance_passes
from milp_anon.privacy.criteria import KAnonymity
from milp_anon.release.partition import verified_release
from milp_anon.tables.table import Table

__all__ = ["MAX_LEVEL_VECTORS", "level_greedy"]

#: the greedy gives up (returns ``None``) beyond this many level vectors
MAX_LEVEL_VECTORS = 200_000


def level_greedy(table: Table, k: int, recoding):
    """Run the greedy for ``k``-anonymity under ``recoding`` (a :class:`~milp_anon.tables.recoding.Generalization`
    with hierarchy or suppressed columns).

    Returns
    -------
    (released, cost) or None
        The verified released table and its cost; ``None`` when the table
        has fewer than ``k`` rows or too many level vectors.
    """
    n, m = table.n, table.m
    if n < k:
        return None
    lattices = recoding.lattices(table)
    heights = [lat.height for lat in lattices]
    if math.prod(h + 1 for h in heights) > MAX_LEVEL_VECTORS:
        return None
    codes = table.codes
    # (n, H_c + 1) the cost of each row's ancestor at each level, per column
    row_cost = [lat.cost[lat.anc[codes[:, c]]].astype(float) for c, lat in enumerate(lattices)]
    mean = [rc.mean(axis=0) for rc in row_cost]
    vectors = np.array(list(itertools.product(*[range(h + 1) for h in heights])), dtype=np.int64).reshape(-1, m)
    key = np.zeros(vectors.shape[0])
    for c in range(m):
        key += mean[c][vectors[:, c]]

    def nodes(i, idx):  # the rows' ancestors at level vector i: its instances
        return np.column_stack([lattices[c].anc[codes[idx, c], vectors[i, c]] for c in range(m)]) if m else \
            np.zeros((idx.size, 0), dtype=np.int64)

    group, _, remaining = instance_passes(n, k, np.argsort(key, kind="stable"), nodes)
    for r in remaining:  # fewer than k: each joins the class it widens least
        group[r] = _cheapest_class(r, group, lattices, codes, row_cost)
    order = np.argsort(group, kind="stable")
    blocks = np.split(order, np.flatnonzero(np.diff(group[order])) + 1)
    return verified_release(table, blocks, [KAnonymity(k)], recoding)


def _hull_levels(members, lattices, codes) -> np.ndarray:
    """``(m,)`` the lowest level at which ``members`` share one ancestor, per column."""
    out = np.zeros(len(lattices), dtype=np.int64)
    for c, lat in enumerate(lattices):
        anc = lat.anc[codes[members, c]]
        same = np.all(anc == anc[:1], axis=0)
        out[c] = int(np.argmax(same))  # the root level is always shared
    return out


def _cheapest_class(r: int, group: np.ndarray, lattices, codes, row_cost) -> int:
    """The class (id in ``group``) whose cost rises least when row ``r`` joins it."""
    ids = np.unique(group[group >= 0])
    best, best_rise = -1, math.inf
    for g in ids:
        members = np.flatnonzero(group == g)
        before = _hull_levels(members, lattices, codes)
        after = _hull_levels(np.append(members, r), lattices, codes)
        rise = 0.0
        for c in range(len(lattices)):
            rise += row_cost[c][members, after[c]].sum() + row_cost[c][r, after[c]] \
                - row_cost[c][members, before[c]].sum()
        if rise < best_rise:
            best, best_rise = int(g), rise
    return best
