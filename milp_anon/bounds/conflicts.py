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
(:func:`milp_anon.bounds.lagrangian.column_generation`, ``cliques``; ``formulations/reduction.md``).

**Rank rows** generalize the cliques to a right-hand side above 1: for a set ``S`` of candidates whose rows
together number ``|R_S| = |∪_{j ∈ S} R_j|``, at most ``⌊|R_S| / k⌋`` of them can be open (each open one holds
``k`` rows of ``R_S`` of its own), so ``Σ_{j ∈ S} y_j <= ⌊|R_S| / k⌋`` — the Chvátal–Gomory rounding of the
sum of the members' rows ``k y_j <= Σ_i g_ij``. Both are *packing rows* ``Σ_{j ∈ S} y_j <= r_S`` and enter the
Lagrangian bound the same way (``− Σ_q r_q μ_q``). Measured on the whole model's LP
(``benchmarks/results/rank_rows.md``): 5 QIs ``lm`` k = 5 LP 1,427.03, + cliques 1,454.23, + rank rows 1,461.25
(360 rows in 17 rounds), k = 10 2,575.42 → 2,589.03; 4 QIs 258.04 → 258.76 (optimum 261.85).
"""

from __future__ import annotations

import numpy as np

__all__ = ["clique_bound", "clique_bounds", "conflicting_pairs", "opening_costs", "violated_cliques",
           "violated_rank_rows"]


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


def violated_rank_rows(pair_unit, pair_cand, unit_rows, k: int, y, known: set | None = None, tol: float = 1e-6,
                       grow: int = 12, max_rows: int | None = None) -> tuple[list[tuple[int, ...]], list[int]]:
    """Rank rows ``Σ_{j ∈ S} y_j <= ⌊|R_S| / k⌋`` the point ``y`` violates, with their right-hand sides.

    From each candidate with a fractional ``y_j``, ``S`` grows by up to ``grow`` candidates of the point's
    support sharing a row type with it, each time the one that leaves ``Σ_S y − ⌊|R_S| / k⌋`` largest (ties: the
    fewest new rows), and stops at the first violated set. ``|R_S|`` counts every pair given (pass the whole
    model's, so the row holds wherever ``R_j`` is a subset); sets beyond ``max_rows`` rows (default ``6k``) are
    not tried: they would need many open members. ``known`` (updated): sets already found. Complexity:
    ``O(P log P)`` for the support's index, then per start ``O(grow · Σ_{u ∈ R_S} s_u)`` with ``s_u`` the
    support's candidates holding row type ``u``."""
    known = set() if known is None else known
    max_rows = 6 * k if max_rows is None else int(max_rows)
    y = np.asarray(y, dtype=float)
    pair_unit = np.asarray(pair_unit, dtype=np.int64)
    pair_cand = np.asarray(pair_cand, dtype=np.int64)
    unit_rows = np.asarray(unit_rows, dtype=np.int64)
    held = np.bincount(pair_cand, weights=unit_rows[pair_unit], minlength=y.size)
    small = (y > tol) & (held < max_rows)
    sel = small[pair_cand]
    pu, pc = pair_unit[sel], pair_cand[sel]
    by_cand = np.argsort(pc, kind="stable")
    cand_start = np.searchsorted(pc[by_cand], np.arange(y.size + 1))
    by_unit = np.argsort(pu, kind="stable")
    unit_start = np.searchsorted(pu[by_unit], np.arange(unit_rows.size + 1))

    def units_of(j):
        return pu[by_cand[cand_start[j]:cand_start[j + 1]]].tolist()

    def cands_of(u):
        return pc[by_unit[unit_start[u]:unit_start[u + 1]]].tolist()

    rows_out, rhs_out = [], []
    for j0 in np.flatnonzero(small & (y < 1 - tol)).tolist():
        S, U = {j0}, set(units_of(j0))
        total, sy = int(unit_rows[list(U)].sum()), float(y[j0])
        near = {c for u in U for c in cands_of(u)} - S
        for _ in range(grow):
            best = None
            for c in near:
                new = [u for u in units_of(c) if u not in U]
                more = int(unit_rows[new].sum()) if new else 0
                key = (sy + y[c] - (total + more) // k, -more, -c)
                if best is None or key > best[0]:
                    best = (key, c, new, more)
            if best is None or total + best[3] >= max_rows:
                break
            key, c, new, more = best
            S.add(c)
            U.update(new)
            near.discard(c)
            near.update(x for u in new for x in cands_of(u) if x not in S)
            total, sy = total + more, sy + float(y[c])
            if key[0] > tol:
                q = tuple(sorted(S))
                if q not in known:
                    known.add(q)
                    rows_out.append(q)
                    rhs_out.append(total // k)
                break
    return rows_out, rhs_out


def clique_bounds(prices, cliques, mu, pair_cand, rhs=None) -> tuple[float, np.ndarray]:
    """The Lagrangian bound with the packing rows (conflict cliques, rank rows) dualized too, and its pair bounds.

    ``prices``: :func:`milp_anon.bounds.lagrangian.block_prices` at multipliers ``π`` of the rows ``Σ_j g_ij = n_i``
    (its ``bound`` is ``L(π)``); ``mu[q] >= 0``: the multiplier of ``Σ_{j ∈ cliques[q]} y_j <= rhs[q]`` (``rhs``
    ``None``: every right-hand side 1, the cliques). Dualized, the rows add ``m_j = Σ_{q ∋ j} μ_q`` to candidate
    ``j``'s cost of opening and ``−Σ_q rhs_q μ_q`` to the bound, so the blocks stay separable::

        L(π, μ) = π·n − Σ_q rhs_q μ_q + Σ_j min(0, rc_j(π) + m_j)

    and a pair ``(i, j)`` forced in bounds every solution using it by ``L(π, μ) − min(0, rc_j + m_j) +
    rc_ij(π) + m_j``. At an optimal dual of the LP with the rows, ``L`` is that LP's value."""
    mu = np.maximum(np.asarray(mu, dtype=float), 0.0)
    m = opening_costs(cliques, mu, prices.rc.shape[0])
    bound = _bound(prices, m, mu, rhs)
    return bound, bound - np.minimum(prices.rc + m, 0.0)[pair_cand] + prices.forced + m[pair_cand]


def clique_bound(prices, cliques, mu, rhs=None) -> float:
    """``L(π, μ)`` of :func:`clique_bounds` alone (no pair bounds)."""
    mu = np.maximum(np.asarray(mu, dtype=float), 0.0)
    return _bound(prices, opening_costs(cliques, mu, prices.rc.shape[0]), mu, rhs)


def _bound(prices, m, mu, rhs) -> float:
    # L(π) with each block's term min(0, rc_j) replaced by min(0, rc_j + m_j), less the rows' Σ rhs_q μ_q
    spent = mu.sum() if rhs is None else float(np.dot(np.asarray(rhs, dtype=float), mu))
    return float(prices.bound - np.minimum(prices.rc, 0.0).sum() + np.minimum(prices.rc + m, 0.0).sum() - spent)
