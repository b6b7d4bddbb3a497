"""Refinement of a suppression release: split each class by one of its suppressed columns, keep what meets.

Problem. Given the classes of a verified cell-suppression release (blocks of
rows; a block releases the columns on which its rows agree and suppresses the
others), find a release with fewer suppressed cells by *splitting* classes.

Move. For a class ``B`` and a column ``q`` that varies in it, the rows of
``B`` fall into parts with one value of ``q`` each. Each part of at least
``k`` rows keeps its largest sub-part that meets the criteria (the trimming
of :mod:`.criteria_greedy`: rows of the most over-represented sensitive value
leave first); those sub-parts become classes that release ``q`` (and any
other column they agree on). The rows left over (the *residual*) stay a class
with ``q`` suppressed; when it fails the criteria it borrows rows of the
values it lacks from the new classes that can spare them and, if that is not
enough, takes new classes back whole, smallest first (as the greedy's
all-suppressed group does). ``B`` itself meets the criteria, so this ends,
at worst with ``B`` unchanged. The move is kept when it suppresses fewer
cells. Every new class and the residual meet the criteria on their own; a
new class whose released vector equals another class's merges with it in
the release, and every criterion is closed under union (t-closeness against
the fixed table distribution, as EMD to it is convex).

Why. The large-neighbourhood search (:mod:`milp_anon.search.lns`) re-solves runs
of up to a few hundred rows; a class larger than that is a sub-problem of
its own, whose model under a few seconds seldom improves. The classes with
most stars are the largest ones (on Adult with t-closeness, thousands of
rows in the classes that suppress ``age``), and this move splits them
directly.

Order: classes by cells suppressed (most first), columns by the number of
their distinct values in the class (fewest first: larger parts); the classes
a kept move creates are queued again. Every class is tried with every
varying column at most once per round; rounds repeat while one improves.

Complexity: per class and column, ``O(|B| log |B|)`` to split plus
``O(log |B|)`` group tests per part (the trimming's bisection), each
``O(V)``. No guarantee; the result goes through the verifier.
"""

from __future__ import annotations

import time

import numpy as np

from milp_anon.heuristics.criteria_greedy import _borrow, _largest_meeting, _trimmed_column
from milp_anon.privacy.criteria import GroupCounts, TCloseness, first_violation
from milp_anon.release.partition import blocks_of, verified_release
from milp_anon.tables.table import Table

__all__ = ["refine_blocks", "refine_release"]


def _varying(codes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``(m,)`` bool: the columns on which ``rows`` do not all agree."""
    block = codes[rows]
    return (block != block[:1]).any(axis=0)


def refine_blocks(table: Table, criteria, blocks, deadline: float | None = None):
    """Blocks (arrays of row positions, each meeting ``criteria``) refined by the module's move until no
    move suppresses fewer cells (or ``time.perf_counter()`` passes ``deadline``). Returns the new blocks
    (a new list; the input is not changed)."""
    criteria = list(criteria)
    k = max(c.min_group_size() for c in criteria)
    codes, s_codes = table.codes, table.sensitive_codes
    base = GroupCounts.of(table, [])
    sensitive = any(c.needs_sensitive for c in criteria)
    col = _trimmed_column(criteria, table) if sensitive else 0
    closeness = any(isinstance(c, TCloseness) for c in criteria)
    if sensitive:
        values = s_codes[:, col]
        V = len(table.sensitive_values[col])
        share = base.whole[col] / table.n
    else:  # k-anonymity alone: no value to trim, a part meets as soon as it has k rows
        values, V, share = np.zeros(table.n, dtype=np.int64), 1, np.ones(1)

    def meets(rows) -> bool:
        return first_violation(criteria, base.of_rows(table, rows, sensitive=sensitive)) is None

    out = [np.asarray(b, dtype=np.int64) for b in blocks]
    improved = True
    while improved:
        improved = False
        queue = sorted(range(len(out)), key=lambda i: -int(_varying(codes, out[i]).sum()) * out[i].size)
        done = set()
        while queue:
            if deadline is not None and time.perf_counter() > deadline:
                return out
            i = queue.pop(0)
            rows = out[i]
            if rows.size < 2 * k:
                continue  # no split leaves two classes of k rows
            vary = _varying(codes, rows)
            before = int(vary.sum()) * rows.size
            cols = np.flatnonzero(vary)
            distinct = [np.unique(codes[rows, q]).size for q in cols]
            for q in cols[np.argsort(distinct, kind="stable")]:
                if (i, int(q)) in done:
                    continue
                done.add((i, int(q)))
                split = _split(rows, codes[rows, q], values, V, share, closeness, k, meets)
                if split is None:
                    continue
                cost = sum(int(_varying(codes, b).sum()) * b.size for b in split)
                if cost < before:
                    out[i] = split[0]
                    queue.append(i)
                    for b in split[1:]:
                        out.append(b)
                        queue.append(len(out) - 1)
                    improved = True
                    break
    return out


def _split(rows, column, values, V, share, closeness, k, meets):
    """The move for one class and column: ``[residual, new classes...]`` (the residual may be empty and is
    then left out) or ``None`` when no part could leave. Parts leave one at a time, largest first: each
    keeps its largest sub-part that meets the criteria, then hands back to the residual the rows of the
    values the residual lacks most while it can spare them (:func:`_borrow`), and leaves only if the
    residual then meets the criteria (or is empty)."""
    order = np.argsort(column, kind="stable")
    cuts = np.flatnonzero(np.diff(column[order])) + 1
    parts = sorted(np.split(rows[order], cuts), key=lambda b: -b.size)
    residual, new = rows, []
    for part in parts:
        if part.size < k:
            continue
        keep = _largest_meeting(part, values[part], V, share, closeness, k, meets)
        if keep is None or keep.size == residual.size:
            continue
        left = np.setdiff1d(residual, keep, assume_unique=True)
        if left.size and not (left.size >= k and meets(left)):
            donor = [(keep, 0)]
            left = _borrow(left, donor, values, V, share, closeness, k, meets)
            if not (left.size >= k and meets(left)):
                continue
            keep = donor[0][0]
        residual = left
        new.append(keep)
    if not new:
        return None
    return ([residual] if residual.size else []) + new


def refine_release(table: Table, criteria, released, deadline: float | None = None):
    """A cell-suppression release (a frame of ``table``'s shape) refined (:func:`refine_blocks`):
    ``(released, cost)``, verified. The classes are read from ``released``."""
    blocks = refine_blocks(table, criteria, blocks_of(released, table.qi), deadline)
    return verified_release(table, blocks, criteria, None)
