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

from ..table import SUPPRESSED, Table


def pattern_greedy(table: Table, k: int, masks) -> tuple[pd.DataFrame, int] | None:
    """Run Algorithm 1.

    Parameters
    ----------
    table
        The input table.
    k
        Minimum class size.
    masks
        ``(|P|, m)`` bool keep-masks (see :meth:`milp_anon.recoding.Patterns.masks`).

    Returns
    -------
    (released, cost) or None
        The released table (suppressed cells ``*``) and its number of stars;
        ``None`` if the leftovers cannot be made k-anonymous.
    """
    codes = table.codes
    n, m = codes.shape
    masks = np.asarray(masks, dtype=bool)
    order = np.argsort((~masks).sum(axis=1), kind="stable")
    mask_of_row = np.full(n, -1, dtype=np.int64)
    group_of_row = np.full(n, -1, dtype=np.int64)
    remaining = np.ones(n, dtype=bool)
    next_group = 0
    for p in order:
        keep = masks[p]
        idx = np.flatnonzero(remaining)
        if idx.size < k:
            break
        if keep.any():
            _, inv, cnt = np.unique(codes[idx][:, keep], axis=0, return_inverse=True, return_counts=True)
            inv = inv.ravel()
        else:
            inv, cnt = np.zeros(idx.size, dtype=np.int64), np.array([idx.size])
        big = cnt >= k
        sel = big[inv]
        if not sel.any():
            continue
        rows = idx[sel]
        mask_of_row[rows] = p
        group_of_row[rows] = next_group + inv[sel]
        next_group += int(cnt.size)
        remaining[rows] = False
    left = np.flatnonzero(remaining)
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
