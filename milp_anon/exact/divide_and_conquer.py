"""Blocki-Williams divide and conquer for optimal k-anonymity.

Problem: optimal k-anonymity (suppression, a monotone generalization
hierarchy, or patterns): partition the rows into groups of at least ``k``
rows, a group costing its size times the cost of releasing it as one class.

Algorithm (Blocki-Williams 2010, Thm. 3): without loss of generality every
group has at most ``2k - 1`` rows (a larger group splits in two without
raising the cost, because a subgroup's lowest common ancestors are no higher).
Listing the groups in any order, some prefix — or the last group alone —
holds between ``|S|/2`` and ``|S|/2 + 2k`` rows, so

    Cost(S) = min over T ⊂ S, |S|/2 <= |T| <= |S|/2 + 2k of Cost(T) + Cost(S - T),

with ``Cost(S)`` = one group when ``k <= |S| <= 2k - 1``. Time
``O(4^n poly(n))``; here sub-problems are multisubsets (count vectors over
identical rows), which is never more and usually far less.
"""

from __future__ import annotations

from functools import cache

from milp_anon.exact._multiset import INF, Instance, minus, solve_multiset, submultisets
from milp_anon.privacy.criteria import KAnonymity


def divide_and_conquer(table, k: int, recoding=None, columns=None, *, instance: Instance | None = None):
    """Optimal k-anonymity by Blocki-Williams' recursion (Thm. 3).

    Parameters
    ----------
    table
        ``(n, m)`` array-like of QI values.
    k
        Minimum class size (``k >= 1``).
    recoding, columns
        As in :func:`~milp_anon.exact.brute_force`.

    Returns
    -------
    (cost, blocks)
        The optimum and an optimal partition into row blocks, ``(None, None)``
        if ``k > n``.
    """
    inst = instance or Instance(table, [KAnonymity(k)], None, recoding, columns)
    k = inst.k

    @cache
    def cost(vec):
        size = sum(vec)
        if size == 0:
            return 0, ()
        if size < k:
            return INF, ()
        if size <= 2 * k - 1:
            return inst.group(vec), (vec,)
        best = (INF, ())
        half = size / 2
        lo, hi = -(-size // 2), min(int(half + 2 * k), size - 1)
        for sub in submultisets(vec, lo, hi):
            a = cost(sub)
            if a[0] >= best[0]:
                continue
            b = cost(minus(vec, sub))
            if a[0] + b[0] < best[0]:
                best = (a[0] + b[0], a[1] + b[1])
        return best

    return solve_multiset(inst, cost)
