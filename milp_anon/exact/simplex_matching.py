"""2-anonymity and 2-diversity through the simplex-matching hypergraph.

Problem: optimal 2-anonymity (Blocki-Williams 2010, Thm. 1; with monotone
hierarchies Thm. 8) and optimal 2-diversity — frequency ℓ-diversity with
ℓ = 2, no sensitive value in more than half of a group (Liang-Yuan, Thm. 11).

Both papers reduce the problem to Simplex Matching: some optimal solution
uses only groups of 2 or 3 rows (for 2-diversity: of pairwise distinct
sensitive values, Liang-Yuan Lemma 2); build the hypergraph whose 2- and
3-edges are the allowed groups with their costs ``C_ij``, ``C_ijk``; its
costs satisfy the simplex condition ``C_ijk >= (C_ij + C_jk + C_ik)/2``; a
minimum-cost perfect matching of it is an optimal solution. Anshelevich and
Karagiozova (SIAM J. Comput. 2011) solve Simplex Matching in polynomial time.

**What is implemented instead.** Their algorithm (augmentations certified by
"dual augmentors" on cubic graphs) is not implemented. This module builds the
same hypergraph (:func:`simplex_hypergraph`, which also checks the simplex
condition) and finds its minimum-cost perfect matching exactly by dynamic
programming over multisets of identical rows: the state is the count vector
of the rows not yet matched; the hyperedge covering the first remaining row
type is chosen among its 2- and 3-edges. Time ``O(U² · ∏_u (c_u + 1))`` for
``U`` distinct rows (units) with multiplicities ``c_u``: polynomial in ``n``
for a fixed number of distinct rows (``O(n^U)``), exponential in ``U`` in
general — *not* the polynomial bound of the papers.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations

from milp_anon.exact._multiset import INF, Instance, minus, solve_multiset
from milp_anon.privacy.criteria import KAnonymity, LDiversity


def _instance(table, diversity: bool, sensitive, recoding, columns):
    crits = [KAnonymity(2)] + ([LDiversity(2)] if diversity else [])
    return Instance(table, crits, sensitive, recoding, columns)


def _edge_ok(inst, vec, diversity):
    if inst.group(vec) == INF:
        return False
    if diversity:  # Liang-Yuan Lemma 2: groups of pairwise distinct sensitive values
        vals = [tuple(s[r] for s in inst.sensitive.values()) for r in inst.rows(vec)]
        return len(set(vals)) == len(vals)
    return True


def simplex_hypergraph(table, *, diversity: bool = False, sensitive=None, recoding=None, columns=None):
    """The simplex-matching hypergraph on the rows: ``{edge (row tuple): cost}``.

    Raises ``AssertionError`` if the simplex condition fails (it cannot, by
    Blocki-Williams Thm. 1 / Liang-Yuan Thm. 11).
    """
    inst = _instance(table, diversity, sensitive, recoding, columns)
    unit_of = {}
    for u, rows in enumerate(inst.unit_rows):
        for r in rows:
            unit_of[r] = u

    def vec(rows):
        v = [0] * len(inst.counts)
        for r in rows:
            v[unit_of[r]] += 1
        return tuple(v)

    edges = {}
    for size in (2, 3):
        for e in combinations(range(inst.n), size):
            v = vec(e)
            if _edge_ok(inst, v, diversity):
                edges[e] = Fraction(inst.group(v))
    for e, c in edges.items():
        if len(e) == 3:
            pairs = list(combinations(e, 2))
            assert all(p in edges for p in pairs), f"simplex condition: a sub-pair of {e} is not an edge"
            assert 2 * c >= sum(edges[p] for p in pairs), f"simplex condition fails on {e}"
    return edges


def simplex_matching(table, *, diversity: bool = False, sensitive=None, recoding=None, columns=None):
    """Optimal 2-anonymity (``diversity=False``) or 2-diversity (``True``) as a min-cost simplex matching.

    Returns ``(cost, blocks)`` or ``(None, None)`` if no perfect matching exists.
    """
    inst = _instance(table, diversity, sensitive, recoding, columns)
    U = len(inst.counts)

    @cache
    def edge(vec):
        return inst.group(vec) if _edge_ok(inst, vec, diversity) else INF

    @cache
    def f(vec):
        if not any(vec):
            return 0, ()
        u = next(i for i, c in enumerate(vec) if c)
        best = (INF, ())
        for a in range(u, U):  # second row
            for b in [None] + list(range(a, U)):  # optional third row
                g = [0] * U
                g[u] += 1
                g[a] += 1
                if b is not None:
                    g[b] += 1
                if any(x > y for x, y in zip(g, vec)):
                    continue
                g = tuple(g)
                c = edge(g)
                if c >= best[0]:
                    continue
                rest = f(minus(vec, g))
                if c + rest[0] < best[0]:
                    best = (c + rest[0], (g,) + rest[1])
        return best

    return solve_multiset(inst, f)


def two_anonymity(table, recoding=None, columns=None):
    """Optimal 2-anonymity (Blocki-Williams Thm. 1 and 8) via :func:`simplex_matching`."""
    return simplex_matching(table, recoding=recoding, columns=columns)


def two_diversity(table, sensitive, recoding=None, columns=None):
    """Optimal 2-diversity (Liang-Yuan Thm. 11) via :func:`simplex_matching`; ``sensitive`` = ``{col: values}``."""
    return simplex_matching(table, diversity=True, sensitive=sensitive, recoding=recoding, columns=columns)
