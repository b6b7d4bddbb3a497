"""Earth Mover's Distance of groups from the whole table: the t-closeness group test's arithmetic.

For a group of ``s`` rows with value counts ``c`` (in the metric's value
order) in a table of ``n`` rows with counts ``N``, let ``D = n·c − N·s``
(integers, ``Σ D = 0``). Then ``EMD · n · s`` is

* equal distance: ``Σ_σ |D_σ| / 2`` (the total variation);
* ordered distance: ``Σ_{a<V−1} |Σ_{b≤a} D_b| / (V − 1)``;
* hierarchical distance (``d = level(LCA)/H``): ``Σ_edges |Σ_{σ below} D_σ| / (2H)``
  (a tree metric with edge weight ``1/(2H)``);
* any metric: the transportation LP ``min Σ d_στ F_στ`` with margins ``N·s`` and ``n·c``.

The first three are exact in integers: a group is within ``t = a/b`` exactly
when ``b · L ≤ a · scale · n · s`` for the sums ``L`` and scales above
(:func:`within`). The model's rows use the same forms
(``formulations/t-closeness.md``); the verifier and brute force compute EMD
from the definitions on their own.

Complexity: ``O(G · V)`` for ``G`` groups (``O(G · V · E)`` with ``E`` tree
edges); for a general metric LPs of 64 transports (``V²`` columns each).
"""

from __future__ import annotations

import numpy as np

from milp_anon.runtime.grid import NO_GRID
from milp_anon.runtime.status import Status
from milp_anon.solvers import SolverOptions, solve_model
from milp_anon.solvers.model import LinearModel

__all__ = ["scaled_differences", "equal_sums", "ordered_sums", "tree_sums", "transport_emd", "transport_emds", "within"]


def scaled_differences(counts: np.ndarray, whole: np.ndarray, size: np.ndarray) -> np.ndarray:
    """``(G, V)`` ``D = n·c − N·s`` per group (rows of ``counts``), in integers."""
    n = int(whole.sum())
    return n * counts.astype(np.int64) - np.outer(size.astype(np.int64), whole.astype(np.int64))


def equal_sums(D: np.ndarray) -> tuple[np.ndarray, int]:
    """``(L, scale)`` of the equal distance: ``EMD = L / (scale · n · s)``."""
    return np.abs(D).sum(axis=1), 2


def ordered_sums(D: np.ndarray) -> tuple[np.ndarray, int]:
    """``(L, scale)`` of the ordered distance (``D`` in the value order)."""
    V = D.shape[1]
    if V <= 1:
        return np.zeros(D.shape[0], dtype=np.int64), 1
    return np.abs(np.cumsum(D, axis=1)[:, :-1]).sum(axis=1), V - 1


def tree_sums(D: np.ndarray, edges, height: int) -> tuple[np.ndarray, int]:
    """``(L, scale)`` of the hierarchical distance; ``edges`` lists the value indices below each tree edge."""
    L = np.zeros(D.shape[0], dtype=np.int64)
    for idxs in edges:
        L += np.abs(D[:, idxs].sum(axis=1))
    return L, 2 * height


def within(L: np.ndarray, scale: int, t, n: int, size: np.ndarray) -> np.ndarray:
    """``(G,)`` bool: ``L / (scale · n · s) <= t`` for the rational ``t``, in exact integer arithmetic."""
    lhs = t.denominator * L.astype(object)
    rhs = (t.numerator * scale * n) * size.astype(object)
    return np.asarray(lhs <= rhs, dtype=bool)


#: transports per LP in :func:`transport_emds`: one LP per transport pays HiGHS's set-up each time, and
#: the simplex's time grows faster than the LP (Adult's 1,690 4-QI classes, 14 values: 5.3 s one by
#: one, 4.9 s in one LP, 2.5 s in LPs of 64; 2.7 s of 16, 2.5 s of 256)
TRANSPORTS_PER_LP = 64


def transport_emd(p: np.ndarray, q: np.ndarray, d: np.ndarray) -> float:
    """``min Σ d_στ F_στ`` over transports ``F >= 0`` from margins ``p`` to ``q`` (equal totals)."""
    return float(transport_emds(np.asarray(p)[None, :], np.asarray(q)[None, :], d)[0])


def transport_emds(p: np.ndarray, q: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``(G,)`` :func:`transport_emd` of each row pair ``p[g]``, ``q[g]``, in LPs of
    :data:`TRANSPORTS_PER_LP` transports.

    The transports share no row or column, so an LP of several of them as
    independent blocks has an optimum that is optimal in each block (the group
    test of a matrix metric).
    """
    if len(p) == 0:
        return np.zeros(0)
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if p.shape[0] > TRANSPORTS_PER_LP:
        return np.concatenate([transport_emds(p[i:i + TRANSPORTS_PER_LP], q[i:i + TRANSPORTS_PER_LP], d)
                               for i in range(0, p.shape[0], TRANSPORTS_PER_LP)])
    G, V = p.shape
    d = np.asarray(d, dtype=float)
    lm = LinearModel(name="transport")
    F = lm.add_vars("F", G * V * V, cost=np.tile(d.ravel(), G))
    g, a, b = np.unravel_index(np.arange(G * V * V), (G, V, V))  # F[g, a, b]: from a (in p) to b (in q)
    lm.add_rows("out", G * V, rows=g * V + a, cols=F, vals=1.0, lower=p.ravel(), upper=p.ravel())
    lm.add_rows("in", G * V, rows=g * V + b, cols=F, vals=1.0, lower=q.ravel(), upper=q.ravel())
    out = solve_model(lm, SolverOptions(), NO_GRID)
    if out.status != Status.OPTIMAL:  # pragma: no cover - a transport LP with equal totals is always feasible
        raise ArithmeticError(f"the transport LP ended {out.solver_status}")
    return (np.asarray(out.x, dtype=float)[F].reshape(G, V * V) * d.ravel()).sum(axis=1)
