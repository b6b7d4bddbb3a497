"""Liang-Yuan's exact recursion for t-closeness (and any per-group criterion).

Problem: partition the rows into groups that each meet the criteria (for
t-closeness: each group's sensitive distribution within EMD ``t`` of the
whole table's), minimizing the total cost.

Algorithm (Liang and Yuan, Thm. 8): in an optimal partition of a set ``S``
either one group has more than ``|S|/2`` rows, or the groups split into two
unions ``A``, ``S - A`` with ``|S|/4 <= |A| <= 3|S|/4`` (balance the two sides;
each group has at most ``|S|/2`` rows). Hence

    f(S) = min( min over A, |S|/4 <= |A| <= 3|S|/4 of f(A) + f(S - A),
                min over valid groups G ⊆ S, |G| > |S|/2 of cost(G) + f(S - G) ).

Single exponential in ``n`` (their bound ``O*(c^n)``); sub-problems are
multisubsets here. The argument only needs each group's validity to depend on
the group alone (and fixed whole-table statistics), so it is exact for every
criterion of the toolkit and every recoding.
"""

from __future__ import annotations

from functools import cache

from milp_anon.exact._multiset import INF, Instance, minus, solve_multiset, submultisets
from milp_anon.privacy.criteria import KAnonymity, TCloseness


def split_recursion(table, criteria, sensitive=None, recoding=None, columns=None, *,
                    instance: Instance | None = None):
    """Optimal anonymization under ``criteria`` by Liang-Yuan's recursion (Thm. 8).

    Returns ``(cost, blocks)`` or ``(None, None)`` if no partition is valid.
    """
    inst = instance or Instance(table, criteria, sensitive, recoding, columns)

    @cache
    def f(vec):
        size = sum(vec)
        if size == 0:
            return 0, ()
        best = (INF, ())
        # one group with more than half the rows (this includes S itself)
        for g in submultisets(vec, size // 2 + 1, size):
            c = inst.group(g)
            if c >= best[0]:
                continue
            rest = f(minus(vec, g))
            if c + rest[0] < best[0]:
                best = (c + rest[0], (g,) + rest[1])
        lo, hi = -(-size // 4), (3 * size) // 4
        for a in submultisets(vec, max(lo, 1), min(hi, size - 1)):
            fa = f(a)
            if fa[0] >= best[0]:
                continue
            fb = f(minus(vec, a))
            if fa[0] + fb[0] < best[0]:
                best = (fa[0] + fb[0], fa[1] + fb[1])
        return best

    return solve_multiset(inst, f)


def t_closeness_exact(table, t, sensitive, k: int = 1, distance="equal", recoding=None, columns=None, **kw):
    """Optimal t-closeness (plus k-anonymity) by :func:`split_recursion`.

    ``sensitive`` is ``{column: values}``; ``distance``, ``order``,
    ``hierarchy`` as in :class:`~milp_anon.privacy.criteria.TCloseness`.
    """
    crits = [KAnonymity(k), TCloseness(t, distance=distance, **kw)]
    return split_recursion(table, crits, sensitive, recoding, columns)
