"""Conflicts between candidates: two candidates that cannot both hold a group of ``k`` rows.

Problem. In every model of the toolkit an open candidate ``j`` (``y_j = 1``) holds at least ``k`` rows, drawn
from the rows it can hold, ``R_j`` (the row types paired with it, counted with their rows). Two candidates
``a``, ``b`` *conflict* when ``|R_a ∪ R_b| < 2k``: both open, each would need ``k`` rows of its own (a row
goes to one candidate), so ``y_a + y_b <= 1`` holds for every table of the model; so does the clique
inequality ``Σ_{j ∈ Q} y_j <= 1`` for every clique ``Q`` of the conflict graph. Conversely two candidates
with ``|R_a|, |R_b| >= k`` and ``|R_a ∪ R_b| >= 2k`` can both hold ``k`` rows (Hall's condition for two sets),
so the graph holds exactly the pairs that cannot both hold ``k`` rows. The model's LP sees only
``k (y_a + y_b) <= |R_a ∪ R_b|`` through its rows; ``y_a + y_b <= 1`` is its Chvátal–Gomory rounding, and
such two-candidate rows are among the cuts HiGHS's root finds on local recoding (from probing).

Only candidates with ``k <= |R_j| < 2k`` can conflict (a larger one leaves the other its rows), and two of
them only through a shared row type. Complexity: ``O(P log P + Σ_u s_u²)`` for ``P`` pairs and ``s_u``
such candidates holding row type ``u``; the cliques are grown greedily at a point ``y`` (``O(deg²)`` per
violated edge).

Measured (``benchmarks/conflict_cliques.py``, full Adult, k = 5, the whole model's LP): 5 QIs with ARX
hierarchies (``lm``) 1,427.0 → 1,454.2 with 171 cliques (the best table 1,481.09); k = 10 2,539.5 → 2,575.4,
above every bound the reduction had proven. The reduction's column generation adds them to its masters
(:func:`milp_anon.lagrangian.column_generation`, ``cliques``; ``formulations/reduction.md``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["clique_bound", "clique_bounds", "conflicting_pairs", "opening_costs", "violated_cliques"]


def conflicting_pairs(pair_unit, pair_cand, unit_rows, k: int, n_cand: int) -> tuple[np.ndarray, np.ndarray]:
    """The conflicting candidate pairs ``(a, b)``, ``a < b``, of a model whose assignment pairs are
    ``(pair_unit[p], pair_cand[p])`` and whose row type (unit) ``u`` has ``unit_rows[u]`` rows."""
    pair_unit = np.asarray(pair_unit, dtype=np.int64)
    pair_cand = np.asarray(pair_cand, dtype=np.int64)
    unit_rows = np.asarray(unit_rows, dtype=np.int64)
    held = np.bincount(pair_cand, weights=unit_rows[pair_unit], minlength=n_cand)
    small = (held >= k) & (held < 2 * k)
    sel = small[pair_cand]
    pu, pc = pair_unit[sel], pair_cand[sel]
    order = np.lexsort((pc, pu))
    pu, pc = pu[order], pc[order]
    edges = np.flatnonzero(np.diff(np.r_[-1, pu, -1]))
    first, end = edges[:-1], edges[1:]
    shared_by = (end - first) >= 2
    parts_a, parts_b, parts_w = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for s, e in zip(first[shared_by], end[shared_by]):  # the small candidates sharing row type pu[s]
        i, j = np.triu_indices(e - s, 1)
        parts_a.append(pc[s:e][i])
        parts_b.append(pc[s:e][j])
        parts_w.append(np.full(i.size, unit_rows[pu[s]]))
    a, b, w = np.concatenate(parts_a), np.concatenate(parts_b), np.concatenate(parts_w)
    key, inverse = np.unique(a * n_cand + b, return_inverse=True)
    shared = np.bincount(inverse, weights=w, minlength=key.size)
    a, b = key // n_cand, key % n_cand
    conflict = held[a] + held[b] - shared < 2 * k
    return a[conflict], b[conflict]


def violated_cliques(a, b, y, known: set | None = None, tol: float = 1e-6) -> list[tuple[int, ...]]:
    """Cliques ``Q`` of the conflict graph with edges ``(a, b)`` whose inequality ``Σ_{j ∈ Q} y_j <= 1`` the point
    ``y`` (indexed by candidate) violates: from each violated edge, the clique grown greedily by the common
    neighbour of largest ``y`` (ties: the smaller index). Each is returned sorted, once; ``known`` (updated):
    cliques already found, not returned again."""
    known = set() if known is None else known
    y = np.asarray(y, dtype=float)
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    neighbours: dict[int, set] = {}
    for u, v in zip(a.tolist(), b.tolist()):
        neighbours.setdefault(u, set()).add(v)
        neighbours.setdefault(v, set()).add(u)
    out = []
    for u, v in zip(a.tolist(), b.tolist()):
        if y[u] + y[v] <= 1 + tol:
            continue
        clique, common = [u, v], neighbours[u] & neighbours[v]
        while common:
            w = max(common, key=lambda z: (y[z], -z))
            clique.append(w)
            common &= neighbours[w]
        q = tuple(sorted(clique))
        if q not in known and y[list(q)].sum() > 1 + tol:
            known.add(q)
            out.append(q)
    return out


def opening_costs(cliques, mu, n_cand: int) -> np.ndarray:
    """``(n_cand,)`` ``m_j = Σ_{q ∋ j} μ_q``: what the dualized cliques add to each candidate's cost of opening."""
    m = np.zeros(n_cand)
    if len(cliques):
        members = np.concatenate([np.asarray(q, dtype=np.int64) for q in cliques])
        owner = np.repeat(np.arange(len(cliques)), [len(q) for q in cliques])
        np.add.at(m, members, np.asarray(mu, dtype=float)[owner])
    return m


def clique_bounds(prices, cliques, mu, pair_cand) -> tuple[float, np.ndarray]:
    """The Lagrangian bound with the clique inequalities dualized too, and its pair bounds.

    ``prices``: :func:`milp_anon.lagrangian.block_prices` at multipliers ``π`` of the rows ``Σ_j g_ij = n_i``
    (its ``bound`` is ``L(π)``); ``mu[q] >= 0``: the multiplier of ``Σ_{j ∈ cliques[q]} y_j <= 1``. Dualized,
    the cliques add ``m_j = Σ_{q ∋ j} μ_q`` to candidate ``j``'s cost of opening and ``−Σ_q μ_q`` to the bound,
    so the blocks stay separable::

        L(π, μ) = π·n − Σ_q μ_q + Σ_j min(0, rc_j(π) + m_j)

    and a pair ``(i, j)`` forced in bounds every solution using it by ``L(π, μ) − min(0, rc_j + m_j) +
    rc_ij(π) + m_j``. At an optimal dual of the LP with the cliques, ``L`` is that LP's value."""
    mu = np.maximum(np.asarray(mu, dtype=float), 0.0)
    m = opening_costs(cliques, mu, prices.rc.shape[0])
    bound = _bound(prices, m, mu)
    return bound, bound - np.minimum(prices.rc + m, 0.0)[pair_cand] + prices.forced + m[pair_cand]


def clique_bound(prices, cliques, mu) -> float:
    """``L(π, μ)`` of :func:`clique_bounds` alone (no pair bounds)."""
    mu = np.maximum(np.asarray(mu, dtype=float), 0.0)
    return _bound(prices, opening_costs(cliques, mu, prices.rc.shape[0]), mu)


def _bound(prices, m, mu) -> float:
    # L(π) with each block's term min(0, rc_j) replaced by min(0, rc_j + m_j)
    return float(prices.bound - np.minimum(prices.rc, 0.0).sum() + np.minimum(prices.rc + m, 0.0).sum() - mu.sum())
