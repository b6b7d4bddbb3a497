"""A plain greedy for anonymization by cell suppression.

Start from the row types as clusters; a cluster meeting every criterion is
kept; the others, smallest first, are merged into the cluster whose merge
adds the fewest stars (``|A ∪ B| · |varying(A ∪ B)| - cost(A) - cost(B)``;
ties to the larger cluster), until every cluster meets the criteria. Each
merge scans all clusters with numpy: ``O(t_in² · m)`` time overall. No
approximation guarantee; a baseline for the gap to the optimum.
"""

from __future__ import annotations

import numpy as np

from milp_anon.privacy.criteria import group_test
from milp_anon.release.partition import verified_release
from milp_anon.tables.table import Table


def suppression_greedy(table: Table, criteria):
    """Run the greedy.

    Returns ``(released, cost)`` (verified) or ``None`` if the whole table does
    not meet the criteria.
    """
    ok = group_test(table, criteria)
    if not ok(np.arange(table.n)):
        return None
    codes = table.codes
    _, first, inv = np.unique(codes, axis=0, return_index=True, return_inverse=True)
    inv = inv.ravel()
    order = np.argsort(inv, kind="stable")
    bounds = np.flatnonzero(np.diff(inv[order])) + 1
    members = [list(b) for b in np.split(order, bounds)]
    vec = codes[first].astype(np.int64)  # -1 marks a varying (suppressed) column
    size = np.array([len(b) for b in members], dtype=np.int64)
    alive = np.ones(len(members), dtype=bool)
    valid = np.array([ok(np.asarray(b)) for b in members])
    while True:
        bad = np.flatnonzero(alive & ~valid)
        if bad.size == 0:
            break
        a = bad[np.argmin(size[bad])]
        others = np.flatnonzero(alive)
        others = others[others != a]
        if others.size == 0:  # cannot happen: the whole table is valid
            raise AssertionError("greedy left a single invalid cluster")
        var_a = vec[a] < 0
        var_o = vec[others] < 0
        merged_var = (var_o | var_a[None, :] | (vec[others] != vec[a][None, :])).sum(axis=1)
        delta = (size[others] + size[a]) * merged_var - size[others] * var_o.sum(axis=1) - size[a] * var_a.sum()
        best = others[np.lexsort((-size[others], delta))[0]]
        new = np.where((vec[best] == vec[a]) & (vec[a] >= 0), vec[a], -1)
        vec[best] = new
        members[best].extend(members[a])
        size[best] += size[a]
        alive[a] = False
        valid[best] = ok(np.asarray(members[best]))
    blocks = [members[i] for i in np.flatnonzero(alive)]
    return verified_release(table, blocks, criteria, None)
