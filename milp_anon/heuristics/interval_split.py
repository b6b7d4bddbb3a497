"""Interval split: a k-anonymous partition for interval recoding, by univariate segmentation within groups.

With an interval column a class pays the width of its range for each row, so a
good class holds rows that agree on the other QIs and lie close on the
interval column. The heuristic groups the rows by their other QIs (all kept
first), splits each group of at least ``k`` rows along an interval column into
segments of consecutive values, each of at least ``k`` rows, by the dynamic
programme of univariate microaggregation (Hansen & Mukherjee, "A polynomial
algorithm for optimal univariate microaggregation", IEEE TKDE 15(4), 2003;
here with the cost ``rows × width / range`` of ``formulations/intervals.md``):
the cheapest split into consecutive segments, ``O(V²)`` per group of ``V``
values. The rows of groups below ``k`` go up a level: one more QI is dropped
from the grouping (the one that puts the most of them into groups of ``k``),
until none is left; a last remainder below ``k`` joins the class whose cost it
raises least. Each class is released at its hull (:func:`verified_release`),
so the cost is the verifier's, whatever the segmentation assumed.

k-anonymity alone (the segments' only condition is their size). No optimality
claim: the grouping is greedy, and the segmentation is optimal only among
consecutive segments of one group on one column.
"""

from __future__ import annotations

import numpy as np

from milp_anon.privacy.criteria import KAnonymity
from milp_anon.release.partition import verified_release
from milp_anon.tables.cells import CellColumn
from milp_anon.tables.table import Table

__all__ = ["interval_split"]


def segments(x: np.ndarray, k: int, span: float) -> list[np.ndarray]:
    """Positions of ``x`` (one group's values on one column) split into consecutive segments of at least ``k``
    rows minimizing ``Σ rows × (max − min) / span``; ``len(x) >= k``."""
    vals, inv, cnt = np.unique(x, return_inverse=True, return_counts=True)
    V = vals.shape[0]
    pre = np.concatenate([[0], np.cumsum(cnt)])
    best = np.full(V + 1, np.inf)
    best[0] = 0.0
    cut = np.zeros(V + 1, dtype=np.int64)
    for j in range(1, V + 1):
        i = np.arange(j)  # segment of distinct values i .. j-1
        rows = pre[j] - pre[i]
        cost = best[i] + rows * (vals[j - 1] - vals[i]) / span
        cost[rows < k] = np.inf
        a = int(np.argmin(cost))
        best[j], cut[j] = cost[a], a
    bounds, j = [], V
    while j > 0:
        bounds.append((cut[j], j))
        j = cut[j]
    label = np.empty(V, dtype=np.int64)
    for s, (i, j) in enumerate(bounds):
        label[i:j] = s
    lab = label[inv]
    return [np.flatnonzero(lab == s) for s in range(len(bounds))]


def _block_cost(codes: np.ndarray, num: dict, spans: dict) -> float:
    """A block's cost as the segmentation reckons it: a column that varies costs 1 a row, an interval its width."""
    n = codes.shape[0]
    cost = 0.0
    for c in range(codes.shape[1]):
        if c in num:
            v = num[c][codes[:, c]]
            cost += n * (v.max() - v.min()) / spans[c]
        elif (codes[:, c] != codes[0, c]).any():
            cost += n
    return cost


def interval_split(table: Table, k: int, recoding):
    """A k-anonymous release of ``table`` under ``recoding`` (interval columns among its cells), or ``None`` when
    the table has fewer than ``k`` rows or no interval column. Returns ``(released, cost)``, verified."""
    cols = [table.qi.index(c) for c in getattr(recoding, "intervals", ()) if c in table.qi]
    if not cols or table.n < k:
        return None
    codes = table.codes
    num = {c: CellColumn.of("interval", table.values[c], table.qi[c]).numbers for c in cols}
    spans = {c: (num[c].max() - num[c].min()) or 1.0 for c in cols}
    # the interval column of most values carries the splits; the others group the rows like any other QI
    split = max(cols, key=lambda c: len(table.values[c]))
    others = [c for c in range(table.m) if c != split]
    blocks: list[np.ndarray] = []
    left = np.arange(table.n)
    keep = list(others)
    while left.size:
        key = _keys(codes[np.ix_(left, keep)]) if keep else np.zeros(left.size, dtype=np.int64)
        order = np.argsort(key, kind="stable")
        starts = np.flatnonzero(np.r_[True, key[order][1:] != key[order][:-1]])
        small = []
        for rows in np.split(left[order], starts[1:]):
            if rows.size < k:
                small.append(rows)
                continue
            blocks.extend(rows[s] for s in segments(num[split][codes[rows, split]], k, spans[split]))
        left = np.concatenate(small) if small else left[:0]
        if not left.size:
            break
        if not keep:  # fewer than k rows are left: they join the class they raise least
            cost = [_block_cost(codes[np.concatenate([b, left])], num, spans) - _block_cost(codes[b], num, spans)
                    for b in blocks]
            b = int(np.argmin(cost))
            blocks[b] = np.concatenate([blocks[b], left])
            break
        keep.remove(_column_to_drop(codes, left, keep, k))
    return verified_release(table, blocks, [KAnonymity(k)], recoding)


def _keys(codes: np.ndarray) -> np.ndarray:
    """One integer per row for its codes' combination."""
    _, key = np.unique(codes, axis=0, return_inverse=True)
    return key.reshape(-1)


def _column_to_drop(codes: np.ndarray, left: np.ndarray, keep: list, k: int) -> int:
    """The kept column whose dropping puts the most of ``left``'s rows into groups of at least ``k``."""
    def placed(c):
        rest = [d for d in keep if d != c]
        if not rest:
            return left.size if left.size >= k else 0
        _, cnt = np.unique(codes[np.ix_(left, rest)], axis=0, return_counts=True)
        return int(cnt[cnt >= k].sum())
    return max(keep, key=lambda c: (placed(c), -np.unique(codes[left, c]).size))
