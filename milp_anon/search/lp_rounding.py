"""LP rounding with criteria: a release read off the LP relaxation of the whole assignment model.

Where the criteria bind for most groups (t-closeness under equal or hierarchical distance on Adult), the
greedies stay far from the LP: at 2 QIs (sex, age), 0.2-closeness (equal), the pattern greedy with criteria
suppresses 12,760 cells against an LP of 6,499, and HiGHS, started from that table, finds nothing better in
1,500 s. The LP's groups are close to meeting the criteria: it already splits every unit (a row type with one
sensitive value vector) among the candidates so that each group meets their rows, only fractionally.

**Rounding.** Per unit, every (unit, candidate) pair gets the floor of its LP value and the unit's remaining
rows go one each to its pairs with the largest fractional parts (largest remainder), so every row has a
candidate and every group keeps its LP composition to within a row per unit. A group that then fails the
criteria (or has fewer than ``k`` rows) releases its largest part that meets them, trimmed as in
:mod:`.criteria_greedy` (rows of the most over-represented sensitive value leave first).

**The rows trimmed** are placed by one pass over the candidates in order of cost per row: a candidate that
holds a group takes as many of the compatible rows as keep it meeting the criteria (rows of the values it
lacks most first; the largest number by doubling and bisection), and one without a group opens one with the
largest part of the compatible rows that meets them, when there are at least ``k``. The rows still left go
to the whole-table candidate as in the pattern greedy with criteria: groups lend it the values it lacks,
then are dissolved into it, until it meets the criteria. Every group is a candidate's, so the release is
the model's own (``release_assignment``) and goes through the verifier.

**Room for the rounding** (:func:`slack_lp`, t-closeness). The LP leaves most groups exactly at distance
``t``, and rounded to whole rows most of them fail. The LP solved again with each candidate's closeness row
tightened by one row's room (``t − d/s_j``, ``d`` the least ground distance) rounds into a far better table.

Time: the LP (the caller's), then ``O(C · n)`` for the pass plus ``O(log n)`` group tests per group. No
approximation guarantee; measured in ``benchmarks/results/lp_rounding_goal_4qi_*.md``.
"""

from __future__ import annotations

import numpy as np

from milp_anon.privacy.criteria import GroupCounts, TCloseness, first_violation
from milp_anon.formulations.assignment import release_assignment
from milp_anon.formulations.partial_split import _lookup
from milp_anon.search.starts import whole_table_candidate
from milp_anon.heuristics.criteria_greedy import _close_all_suppressed, _excess, _largest_meeting, _trimmed_column

__all__ = ["lp_rounding", "round_units", "slack_lp", "slack_support"]

#: the slack of the rounding's LP: each candidate's t-closeness row is tightened to ``t − SLACK_ROWS · d / s``,
#: ``s`` its group's size in the first LP (at least ``k``), ``d`` the metric's least ground distance, so the
#: group stays t-close when that many rows move that far; measured best at 1 on Adult at 2 and 3 QIs under
#: equal distance (0.5, 1.5 and 2: worse at both) and, with ``d = 1/2``, under the occupation hierarchy at
#: 3 QIs (``d = 1`` instead: 0.2 4,931 against 4,741, 0.3 2,282 against 2,097)
SLACK_ROWS = 1.0
#: ... and never below this share of ``t``
SLACK_FLOOR = 0.5
#: a candidate whose group the first LP leaves at most this size is closed in the slack LP
SUPPORT_TOL = 1e-9


def round_units(x: np.ndarray, pair_unit: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Integer rows per (unit, candidate) pair from LP values ``x``: the floors, then each unit's remaining
    rows one each to its pairs of largest fractional part. Every unit's rows sum to its count; ``None``
    when the floors alone exceed a unit's count or a value is not finite (``x`` far from the assignment
    rows)."""
    x = np.clip(np.asarray(x, dtype=float), 0.0, None)
    if not np.isfinite(x).all():
        return None
    g = np.floor(x + 1e-9).astype(np.int64)
    U = counts.shape[0]
    rest = np.asarray(counts, dtype=np.int64) - np.bincount(pair_unit, weights=g, minlength=U).astype(np.int64)
    if (rest < 0).any():
        return None
    order = np.lexsort((-(x - g), pair_unit))
    by_unit = pair_unit[order]
    rank = np.arange(order.size) - np.searchsorted(by_unit, np.arange(U))[by_unit]
    took = rank < rest[by_unit]
    g[order[took]] += 1
    # more rows left than pairs (LP values far from the assignment rows): the unit's first pair takes them
    short = rest - np.bincount(by_unit, weights=took, minlength=U).astype(np.int64)
    lack = np.flatnonzero(short > 0)
    g[order[np.searchsorted(by_unit, lack)]] += short[lack]
    return g


def slack_lp(lp, am, sizes: np.ndarray, k: int):
    """``lp`` (the LP relaxation of ``am``'s model) with room for the rounding: every candidate's t-closeness
    row tightened from ``t`` to ``t_j = max(t − SLACK_ROWS · d / max(s_j, k), SLACK_FLOOR · t)``, where
    ``s_j`` are the group sizes ``sizes`` of an optimal solution of ``lp``, ``k`` the least group size and
    ``d`` the metric's least ground distance (``None`` without t-closeness rows).

    Why. The LP puts nearly every group exactly at distance ``t``; rounded to whole rows most of them fail and
    are trimmed, and trimmed rows cost stars elsewhere (module docstring). One row moved into or out of a group
    of ``s`` rows changes its distribution by ``1/s`` in total variation, and its EMD by ``d/s`` when that
    mass moves the least distance (by at most ``1/s``: every ground distance is at most 1), so a group at
    ``t_j`` keeps one such row's change of slack. The LP's optimum
    over ``t_j`` is no bound (it is a restriction); it only guides the rounding, whose table is verified at
    ``t``. On Adult, 0.2-closeness (equal), the rounded table goes 7,860 → 7,358 at 2 QIs and 12,979 →
    10,877 at 3 QIs (uniformly tightened ``t`` at best 7,454 and 11,684).

    **Over the first LP's groups.** Every candidate whose group is empty in that solution (``s_j`` at most
    ``SUPPORT_TOL``) is closed (its ``y_j`` and pairs fixed at 0), except the whole-table candidate, which
    keeps the restriction feasible (all rows in it: distance 0). A restriction of a restriction, for speed:
    at 4 QIs, 0.2-closeness (equal), 714 of 1,840 candidates stay open, and the slack LP takes 21 s
    (presolve on) against more than 250 s over all of them, with LP 16,744 against 16,514 and the rounding
    17,773 against 17,818."""
    if not am.closeness_rows:
        return None
    sizes = np.asarray(sizes, dtype=float)
    floor = np.maximum(sizes, float(max(k, 1)))
    out = lp
    for block, t, d in am.closeness_rows:
        t = float(t)
        if t <= 0:  # t = 0 leaves no room to take
            continue
        t_j = np.maximum(t - SLACK_ROWS * d / floor, SLACK_FLOOR * t)
        out = out.with_scaled(block, am.size_columns, t_j / t)
    closed = ~slack_support(am, sizes)
    return out.with_fixed(np.concatenate([am.y[closed], am.g[closed[am.pair_cand]]]))


def slack_support(am, sizes: np.ndarray) -> np.ndarray:
    """The candidates open in the slack LP (:func:`slack_lp`), a bool per candidate: those whose group is not
    empty in the first LP's solution (group sizes ``sizes``) and the whole-table candidate; every candidate
    when there is none (nothing would keep the restriction feasible)."""
    root = whole_table_candidate(am.cands, am.table.n)
    if root is None:
        return np.ones(am.cands.n_candidates, dtype=bool)
    keep = np.asarray(sizes, dtype=float) > SUPPORT_TOL
    keep[root] = True
    return keep


def lp_rounding(instance, criteria, pair_unit: np.ndarray, pair_cand: np.ndarray, x: np.ndarray):
    """A release of ``instance`` meeting ``criteria`` from LP values ``x`` of the (unit, candidate) pairs
    (module docstring): ``(released frame, groups, cost)`` for :meth:`Release.verified`, or ``None`` when
    the instance has no whole-table candidate or no sensitive column."""
    table, cands, units = instance.table, instance.candidates, instance.units
    root = whole_table_candidate(cands, table.n)
    if root is None or not table.sensitive:
        return None
    criteria = list(criteria)
    k = max(c.min_group_size() for c in criteria)
    base = GroupCounts.of(table, [])
    col = _trimmed_column(criteria, table)
    V = len(table.sensitive_values[col])
    share = base.whole[col] / table.n
    closeness = any(isinstance(c, TCloseness) for c in criteria)
    values = table.sensitive_codes[:, col]

    def meets(rows) -> bool:
        return first_violation(criteria, base.of_rows(table, rows)) is None

    g = round_units(x, pair_unit, units.counts)
    if g is None:
        return None
    # the rows of each unit, dealt to its pairs in pair order
    rows_by_unit = np.argsort(units.row_unit, kind="stable")
    unit_start = np.searchsorted(units.row_unit[rows_by_unit], np.arange(units.n_units))
    order = np.lexsort((pair_cand, pair_unit))
    pu, pc, gs = pair_unit[order], pair_cand[order], g[order]
    before = np.cumsum(gs) - gs - np.concatenate([[0], np.cumsum(gs)])[np.searchsorted(pu, pu)]
    C = cands.n_candidates
    members: list[list[np.ndarray]] = [[] for _ in range(C)]
    for p in np.flatnonzero(gs > 0):
        s = unit_start[pu[p]] + before[p]
        members[pc[p]].append(rows_by_unit[s:s + gs[p]])
    groups: dict[int, np.ndarray] = {}
    left = []
    for j in range(C):
        if not members[j]:
            continue
        rows = np.concatenate(members[j])
        if j == root:
            left.append(rows)
            continue
        keep = _largest_meeting(rows, values[rows], V, share, closeness, k, meets) if rows.size >= k else None
        if keep is None:
            left.append(rows)
            continue
        groups[j] = keep
        if keep.size < rows.size:
            left.append(np.setdiff1d(rows, keep, assume_unique=True))
    left = np.concatenate(left) if left else np.zeros(0, dtype=np.int64)
    # the pass: every candidate but the root, cheapest first
    row_type = units.unit_type[units.row_unit]
    by_cand = np.argsort(cands.pair_cand, kind="stable")
    cand_start = np.searchsorted(cands.pair_cand[by_cand], np.arange(C + 1))
    for j in np.argsort(cands.cost, kind="stable"):
        if left.size == 0:
            break
        if j == root:
            continue
        types = cands.pair_type[by_cand[cand_start[j]:cand_start[j + 1]]]
        pool = left[np.isin(row_type[left], types)]
        if pool.size == 0:
            continue
        if j in groups:
            add = _largest_addition(groups[j], pool, values, V, share, closeness, meets)
            if add.size:
                groups[j] = np.concatenate([groups[j], add])
        elif pool.size >= k:
            add = _largest_meeting(pool, values[pool], V, share, closeness, k, meets)
            if add is None:
                continue
            groups[j] = add
        else:
            continue
        left = np.setdiff1d(left, add, assume_unique=True)
    # the whole-table candidate takes the rest (and what it must borrow or absorb to meet the criteria)
    ordered = sorted(groups.items(), key=lambda item: (-cands.cost[item[0]], -item[1].size))
    donors = [(rows, j) for j, rows in ordered]
    closed = _close_all_suppressed(left, donors, values, V, share, closeness, k, meets)
    if closed is None:  # the whole table meets the criteria (the pre-check), so this cannot happen
        return None
    absorbed = closed[1]
    cand_of_row = np.full(table.n, root, dtype=np.int64)
    for rows, j in donors[absorbed:]:
        cand_of_row[rows] = j
    # rows per (unit, candidate) pair of the instance's pairs
    key = units.row_unit.astype(np.int64) * C + cand_of_row
    pair_key = pair_unit.astype(np.int64) * C + pair_cand
    at = _lookup(pair_key, key)  # rows go to compatible candidates only, so every key is a pair's
    if not np.array_equal(pair_key[at], key):
        raise AssertionError("LP rounding placed a row in an incompatible candidate")
    gp = np.bincount(at, minlength=pair_key.size)
    return release_assignment(instance, pair_unit, pair_cand, gp)


def _largest_addition(rows, pool, values, V, share, closeness, meets) -> np.ndarray:
    """The most rows of ``pool`` that ``rows`` (a group meeting the criteria) can take and still meet them,
    in the order of :func:`_addition_order`: doubling, then bisection (the order makes the test close to
    monotone; whatever is returned was tested)."""
    order = _addition_order(values[rows], values[pool], V, share, closeness)
    good, n = 0, 1
    while n <= order.size and meets(np.concatenate([rows, pool[order[:n]]])):
        good, n = n, 2 * n
    hi = min(n, order.size + 1)
    while hi - good > 1:
        mid = (good + hi) // 2
        if meets(np.concatenate([rows, pool[order[:mid]]])):
            good = mid
        else:
            hi = mid
    return pool[order[:good]]


def _addition_order(group_values, pool_values, V, share, closeness) -> np.ndarray:
    """Positions in ``pool_values`` in the order they join a group with ``group_values``: each time a row of
    the value the group lacks most (the least :func:`~.criteria_greedy._excess` after the row joins)."""
    counts = np.bincount(group_values, minlength=V).astype(float)
    pos = [list(np.flatnonzero(pool_values == v)[::-1]) for v in range(V)]
    m = float(group_values.size)
    out = []
    for _ in range(pool_values.size):
        score = _excess(counts, m + 1, share, closeness)
        score[[not p for p in pos]] = np.inf
        v = int(np.argmin(score))
        out.append(pos[v].pop())
        counts[v] += 1
        m += 1
    return np.asarray(out, dtype=np.int64)
