"""The pattern greedy with sensitive criteria: each pattern instance releases its largest part that meets them.

Bredereck, Nichterlein, Niedermeier, *Pattern-Guided k-Anonymity*
(Algorithms 2013), Algorithm 1 (:mod:`.greedy`) releases every instance of a
pattern (the remaining rows equal on its kept columns) that has at least
``k`` rows. With ℓ-diversity, p-sensitivity or t-closeness an instance may
fail the criteria as a whole while a large part of it meets them; the plain
suppression greedy (:mod:`.suppression_greedy`) merges whole row types
instead and never splits one, which at 5 QIs on Adult suppresses a quarter
of the cells. Here each instance is **trimmed**: rows of its most
over-represented sensitive value (the most frequent for ℓ-diversity; the one
furthest above the table's share for t-closeness) leave one at a time, and
the instance releases what is left after the fewest removals that make it
meet every criterion with at least ``k`` rows (found by doubling and
bisection on the number removed); the rows trimmed stay for the patterns
with more stars.

The last pattern suppresses every QI and takes every row left. When those
rows fail the criteria, groups (most stars first: a row moved from them
costs the fewest extra cells) lend it rows of the values it lacks as long
as they still meet the criteria without them; if that is not enough, groups
are dissolved into it in the same order until it meets them. The whole
table meets every criterion (checked first), so this ends.

Time: ``O(|P| · n log n)`` for the passes plus, per instance, ``O(m · V)``
for its removal order (``V`` sensitive values) and ``O(log m)`` group tests.
No approximation guarantee; a start for the solver and the
large-neighbourhood search, verified like every heuristic table.
"""

from __future__ import annotations

import numpy as np

from milp_anon.privacy.criteria import GroupCounts, TCloseness, first_violation
from milp_anon.release.partition import verified_release
from milp_anon.tables.table import Table

__all__ = ["criteria_pattern_greedy"]


def criteria_pattern_greedy(table: Table, criteria, masks):
    """Run the greedy over the keep-masks ``masks`` (``(|P|, m)`` bool, sorted here by stars).

    Returns ``(released, cost)`` (verified), or ``None`` when the masks lack the all-suppressed one or the
    whole table fails the criteria.
    """
    criteria = list(criteria)
    masks = np.asarray(masks, dtype=bool)
    all_star = np.flatnonzero(~masks.any(axis=1))
    if all_star.size == 0 or not table.sensitive:
        return None
    k = max(c.min_group_size() for c in criteria)
    base = GroupCounts.of(table, [])
    col = _trimmed_column(criteria, table)
    codes, s_codes = table.codes, table.sensitive_codes
    V = len(table.sensitive_values[col])
    share = base.whole[col] / table.n
    closeness = any(isinstance(c, TCloseness) for c in criteria)

    def meets(rows) -> bool:
        return first_violation(criteria, base.of_rows(table, rows)) is None

    if not meets(np.arange(table.n)):
        return None
    order = np.argsort((~masks).sum(axis=1), kind="stable")
    order = order[order != all_star[0]]
    groups: list[tuple[np.ndarray, int]] = []  # (rows, stars)
    remaining = np.arange(table.n)
    for p in order:
        if remaining.size < k:
            break
        key = codes[remaining][:, masks[p]]
        _, inv = np.unique(key, axis=0, return_inverse=True)
        inv = inv.ravel()
        by = np.argsort(inv, kind="stable")
        cuts = np.flatnonzero(np.diff(inv[by])) + 1
        taken = []
        for part in np.split(by, cuts):
            if part.size < k:
                continue
            rows = remaining[part]
            keep = _largest_meeting(rows, s_codes[rows, col], V, share, closeness, k, meets)
            if keep is not None:
                taken.append(keep)
                groups.append((keep, int((~masks[p]).sum())))
        if taken:
            remaining = np.setdiff1d(remaining, np.concatenate(taken), assume_unique=True)
    # the all-suppressed group: every row left, with rows borrowed from groups that can spare them (most stars
    # first), and if that is not enough, groups dissolved into it (most stars first) until it meets them
    groups.sort(key=lambda g: (-g[1], -g[0].size))
    closed = _close_all_suppressed(remaining, groups, s_codes[:, col], V, share, closeness, k, meets)
    if closed is None:  # cannot happen when the whole table meets the criteria
        return None
    left, absorbed = closed
    blocks = [rows for rows, _ in groups[absorbed:]]
    if left.size:
        blocks.append(left)
    return verified_release(table, blocks, criteria, None)


def _close_all_suppressed(left, groups, values, V, share, closeness, k, meets):
    """The all-suppressed group's rows once it meets the criteria, and how many of ``groups`` (``(rows, key)``
    in order, most stars first) it absorbed from the front: it borrows what it lacks (:func:`_borrow`,
    which updates ``groups`` in place), then absorbs whole groups in order. ``None`` if even every group
    is not enough (impossible when the whole table meets the criteria)."""
    if left.size and not (left.size >= k and meets(left)):
        left = _borrow(left, groups, values, V, share, closeness, k, meets)
    absorbed = 0
    while left.size and not (left.size >= k and meets(left)):
        if absorbed == len(groups):
            return None
        left = np.concatenate([left, groups[absorbed][0]])
        absorbed += 1
    return left, absorbed


def _borrow(left, groups, values, V, share, closeness, k, meets):
    """Rows moved into ``left`` (the all-suppressed group) from ``groups`` (in place; most stars first), one
    at a time, each of the value ``left`` most lacks (of those that help it: below the table's share for
    t-closeness, not its most frequent otherwise) that the donor has and can spare (it still meets the
    criteria without it), until ``left`` meets them or no donor can spare a row. Returns the new ``left``."""
    left = np.asarray(left, dtype=np.int64)
    counts = np.bincount(values[left], minlength=V).astype(float)
    ok = False
    for g, (rows, stars) in enumerate(groups):
        rows = np.asarray(rows, dtype=np.int64)
        moved = False
        while True:
            ok = left.size >= k and meets(left)
            if ok:
                break
            score = _excess(counts, left.size, share, closeness)
            # a row helps when its value is below the table's share (t-closeness) or not the most frequent
            helps = (score < 0) if closeness else (score < score.max())
            have = np.bincount(values[rows], minlength=V) > 0
            for v in np.argsort(score, kind="stable"):
                if not (have[v] and helps[v]):
                    continue
                at = int(np.flatnonzero(values[rows] == v)[-1])  # the last row of value v
                rest = np.delete(rows, at)
                if meets(rest):
                    left = np.append(left, rows[at])
                    rows = rest
                    counts[v] += 1
                    moved = True
                    break
            else:
                break  # this donor spares nothing the group lacks
        if moved:
            groups[g] = (rows, stars)
        if ok:  # (a donor that spared nothing left ``left`` as it was tested)
            break
    return left


def _trimmed_column(criteria, table) -> int:
    """The sensitive column whose values are trimmed: the first one a criterion reads."""
    for c in criteria:
        cols = c.applies_to(table.sensitive)
        if cols:
            return int(cols[0])
    return 0


def _largest_meeting(rows, values, V, share, closeness, k, meets):
    """The rows kept after the fewest removals, in ``rows``' removal order (module docstring), that leave at
    least ``k`` rows meeting the criteria; ``None`` if no number of removals does."""
    m = rows.size
    if meets(rows):
        return rows
    drop = _removal_order(values, V, share, closeness, m - k)
    # the smallest number of rows dropped that meets the criteria: doubling, then bisection (the order
    # makes the test close to monotone; whatever is found is tested)
    lo, hi = 0, 1
    while hi <= drop.size and not meets(np.delete(rows, drop[:hi])):
        lo, hi = hi, 2 * hi
    if hi > drop.size:
        hi = drop.size
        if hi == lo or not meets(np.delete(rows, drop[:hi])):
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if meets(np.delete(rows, drop[:mid])):
            hi = mid
        else:
            lo = mid
    return np.delete(rows, drop[:hi])


def _excess(counts, m, share, closeness):
    """How over-represented each sensitive value is in a group of ``m`` rows with ``counts``: its rows above
    the table's share of ``m`` for t-closeness, its rows otherwise (a new array)."""
    return counts - m * share if closeness else counts.copy()


def _removal_order(values, V, share, closeness, limit):
    """Positions in ``values`` (sensitive codes of an instance's rows) in the order they leave, at most
    ``limit`` of them: each time a row of the value with the most rows (t-closeness: the most rows above
    the table's share of the instance's current size)."""
    counts = np.bincount(values, minlength=V).astype(float)
    pos = [list(np.flatnonzero(values == v)) for v in range(V)]
    out = []
    m = float(values.size)
    for _ in range(max(0, limit)):
        score = _excess(counts, m, share, closeness)
        score[counts == 0] = -np.inf
        v = int(np.argmax(score))
        out.append(pos[v].pop())
        counts[v] -= 1
        m -= 1
    return np.asarray(out, dtype=np.int64)
