"""The greedy heuristic of pattern-guided k-anonymity.

Bredereck, Nichterlein, Niedermeier, *Pattern-Guided k-Anonymity*
(Algorithms 2013), Algorithm 1: patterns by increasing number of stars; for
every instance of a pattern (a distinct projection of the remaining rows onto
its kept columns) with at least ``k`` compatible remaining rows, release all
of them with that pattern and remove them. Time ``O(|P| · n · m)``; a factor-m
approximation, tight (their Thm. 4).

Rows left over at the end (fewer than ``k`` share an instance of any
pattern) are released fully suppressed, as in the paper. The paper allows
that all-``*`` group to have fewer than ``k`` rows; this implementation never
releases such a table: it moves rows from the largest groups that can spare
them until the all-``*`` group has ``k`` rows (which needs the all-``*``
pattern), and gives up (returns ``None``) otherwise.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from milp_anon.tables.table import SUPPRESSED, Table


def instance_passes(n: int, k: int, patterns, keys):
    """The passes of Algorithm 1: for each pattern ``p`` of ``patterns`` in turn, the remaining rows'
    instances of it (equal rows of ``keys(p, idx)``, an ``(len(idx), q)`` array; ``q = 0``: one instance)
    with at least ``k`` rows become classes and leave. Stops once fewer than ``k`` rows remain.

    Returns ``(group, pattern, left)``: per row its class (numbered from 0, ``-1`` if left over) and the
    pattern that formed it (``-1``), and the rows left over."""
    group = np.full(n, -1, dtype=np.int64)
    pattern = np.full(n, -1, dtype=np.int64)
    remaining = np.arange(n)
    n_groups = 0
    for p in patterns:
        if remaining.size < k:
            break
        key = keys(p, remaining)
        if key.shape[1]:
            _, inv, cnt = np.unique(key, axis=0, return_inverse=True, return_counts=True)
            inv = inv.ravel()
        else:
            inv, cnt = np.zeros(remaining.size, dtype=np.int64), np.array([remaining.size])
        big = cnt >= k
        if not big.any():
            continue
        sel = big[inv]
        ids = np.cumsum(big) - 1 + n_groups  # the instances kept, numbered on
        group[remaining[sel]] = ids[inv[sel]]
        pattern[remaining[sel]] = p
        n_groups += int(big.sum())
        remaining = remaining[~sel]
    return group, pattern, remaining


def pattern_greedy(table: Table, k: int, masks) -> tuple[pd.DataFrame, int] | None:
    """Run Algorithm 1.

    Parameters
    ----------
    table
        The input table.
    k
        Minimum class size.
    masks
        ``(|P|, m)`` bool keep-masks (see :meth:`milp_anon.tables.recoding.Patterns.masks`).

    Returns
    -------
    (released, cost) or None
        The released table (suppressed cells ``*``) and its number of stars;
        ``None`` if the leftovers cannot be made k-anonymous.
    """
    codes = table.codes
    masks = np.asarray(masks, dtype=bool)
    order = np.argsort((~masks).sum(axis=1), kind="stable")
    group_of_row, mask_of_row, left = instance_passes(codes.shape[0], k, order,
                                                      lambda p, idx: codes[idx][:, masks[p]])
    if left.size:
        all_star = np.flatnonzero(~masks.any(axis=1))
        if all_star.size == 0:
            return None
        star_rows = np.concatenate([np.flatnonzero(mask_of_row == all_star[0]), left])
        need = k - star_rows.size
        if need > 0:  # borrow rows from groups that stay >= k
            gids, sizes = np.unique(group_of_row[group_of_row >= 0], return_counts=True)
            for g_id, size in sorted(zip(gids, sizes), key=lambda t: -t[1]):
                if need <= 0:
                    break
                if mask_of_row[np.flatnonzero(group_of_row == g_id)[0]] == all_star[0]:
                    continue
                spare = min(int(size) - k, need)
                if spare > 0:
                    take = np.flatnonzero(group_of_row == g_id)[:spare]
                    mask_of_row[take] = all_star[0]
                    need -= spare
            if need > 0:
                return None
        mask_of_row[left] = all_star[0]
        mask_of_row[mask_of_row == all_star[0]] = all_star[0]
    released = table.frame.copy()
    cost = 0
    for c, col in enumerate(table.qi):
        kept = masks[mask_of_row, c]
        released[col] = np.where(kept, released[col].to_numpy(dtype=object), SUPPRESSED).astype(object)
        cost += int((~kept).sum())
    return released, cost
