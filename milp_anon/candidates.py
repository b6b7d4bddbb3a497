"""Candidate output types for suppression, with support and closure pruning.

A candidate ``j`` is a QI vector in which some columns are suppressed (``*``);
input type ``i`` is *compatible* with ``j`` when it agrees with ``j`` on every
kept column. Per-row cost ``w_j`` is the number of suppressed columns and the
capacity ``cap_j`` is the number of rows of compatible types.

Two rules drop candidates without losing any optimum (``formulations/k-anonymity.md``):

* **support**: ``cap_j >= L`` with ``L`` the smallest legal group size;
* **closure**: ``j`` must be the column-wise LCA of its compatible types, i.e.
  every suppressed column must take at least two values among them; otherwise
  keeping that column gives a candidate with the same compatible set and
  lower cost. Valid for the cost objective (not for lower bounds on the
  number of output types).

The surviving candidates are the closed itemsets of support ``>= L`` over
(column, value) items. They are generated here mask by mask (``2^m`` masks,
each one vectorized ``np.unique`` over the types), which is exact and fast up
to ``m`` of about 12; :func:`estimate_enumeration` tells the work up front.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError
from .recoding import _suppression_lattice
from .rowtypes import RowTypes

#: refuse enumerations above this many (type, mask) projections
MAX_PROJECTIONS = 400_000_000


@dataclass(frozen=True)
class Candidates:
    """Candidate output types and their compatible (type, candidate) pairs.

    Attributes
    ----------
    nodes
        ``(C, m)`` node id (in each column's :class:`~milp_anon.recoding.ColumnLattice`)
        of each candidate's cell.
    levels
        ``(C, m)`` the level of that node (0 = the value itself).
    cost
        ``(C,)`` per-row cost ``w_j`` (sum of node costs; the number of ``*``
        for suppression).
    capacity
        ``(C,)`` rows of compatible types.
    pair_type, pair_cand
        ``(P,)`` compatible pairs, sorted by candidate then type.
    codes
        ``(C, m)`` value codes where the candidate keeps the value, ``-1`` elsewhere.
    counts
        Candidate counts after each stage: ``generated`` (distinct
        projections over all level vectors), ``closure_only`` (closed, any
        support), ``support`` (support only), ``kept`` (after every rule).
    """

    nodes: np.ndarray
    levels: np.ndarray
    cost: np.ndarray
    capacity: np.ndarray
    pair_type: np.ndarray
    pair_cand: np.ndarray
    codes: np.ndarray
    counts: dict = field(default_factory=dict)

    @property
    def keep(self) -> np.ndarray:
        """``(C, m)`` bool: the candidate keeps the column's value."""
        return self.levels == 0

    @property
    def n_candidates(self) -> int:
        """Number of candidates kept."""
        return int(self.cost.shape[0])

    @property
    def n_pairs(self) -> int:
        """Number of compatible (type, candidate) pairs."""
        return int(self.pair_type.shape[0])

    def subset(self, keep: np.ndarray, stage: str) -> "Candidates":
        """The candidates where ``keep`` holds, re-indexed; ``counts[stage]`` records how many."""
        keep = np.asarray(keep, dtype=bool)
        return self._select(keep, keep[self.pair_cand], self.capacity, stage)

    def _select(self, keep: np.ndarray, pairs: np.ndarray, capacity: np.ndarray, stage: str) -> "Candidates":
        """Candidates ``keep`` (re-indexed) with the pairs ``pairs`` and capacities ``capacity``."""
        new_id = np.full(self.n_candidates, -1, dtype=np.int64)
        new_id[keep] = np.arange(int(keep.sum()))
        counts = dict(self.counts)
        counts[stage] = int(keep.sum())
        counts["kept"] = int(keep.sum())
        return Candidates(
            nodes=self.nodes[keep],
            levels=self.levels[keep],
            cost=self.cost[keep],
            capacity=capacity[keep],
            pair_type=self.pair_type[pairs],
            pair_cand=new_id[self.pair_cand[pairs]],
            codes=self.codes[keep],
            counts=counts,
        )

    def restrict_pairs(self, keep_pairs: np.ndarray, counts_per_type: np.ndarray, min_size: int,
                       stage: str) -> "Candidates":
        """Only the pairs where ``keep_pairs`` holds; candidates left with fewer than ``min_size``
        compatible rows (``counts_per_type`` rows per type) are dropped with their pairs."""
        keep_pairs = np.asarray(keep_pairs, dtype=bool)
        cap = np.bincount(self.pair_cand[keep_pairs], weights=counts_per_type[self.pair_type[keep_pairs]],
                          minlength=self.n_candidates).astype(np.int64)
        keep = cap >= min_size
        return self._select(keep, keep_pairs & keep[self.pair_cand], cap, stage)


def estimate_enumeration(m: int, t_in: int, lattice_sizes=None) -> int:
    """Number of (type, level vector) projections the enumeration touches."""
    if lattice_sizes is None:
        return int(t_in) * (1 << int(m))
    return int(t_in) * int(np.prod([int(x) for x in lattice_sizes], dtype=float))


def _group_keys(codes: np.ndarray, radices, cols) -> np.ndarray:
    """One integer key per row of ``codes[:, cols]`` (mixed radix, or row-wise unique)."""
    if len(cols) == 0:
        return np.zeros(codes.shape[0], dtype=np.int64)
    radix = np.prod([float(radices[c]) for c in cols])
    if radix < 2**62:
        key = np.zeros(codes.shape[0], dtype=np.int64)
        for c in cols:
            key = key * int(radices[c]) + codes[:, c].astype(np.int64)
        return key
    _, inv = np.unique(codes[:, cols], axis=0, return_inverse=True)
    return inv.ravel().astype(np.int64)


def suppression_candidates(types: RowTypes, min_size: int, *, support: bool = True,
                           closure: bool = True) -> Candidates:
    """Suppression candidates of ``types`` (see :func:`lattice_candidates`)."""
    lattices = [_suppression_lattice(range(int(v))) for v in types.cardinalities]
    return lattice_candidates(types, lattices, min_size, support=support, closure=closure)


def lattice_candidates(
    types: RowTypes,
    lattices,
    min_size: int,
    *,
    support: bool = True,
    closure: bool = True,
    level_vectors=None,
) -> Candidates:
    """Generate the candidates of ``types`` under per-column generalization lattices.

    For every level vector ``(l_1, ..., l_m)`` of the generalization lattice
    the types are projected onto their ancestors at those levels; each
    distinct projection is a candidate with its compatible types.

    Parameters
    ----------
    types
        The row types.
    lattices
        One :class:`~milp_anon.recoding.ColumnLattice` per QI column.
    min_size
        ``L``, the smallest legal group size (support pruning ``cap_j >= L``).
    level_vectors
        Only these level vectors (e.g. the masks of pattern-guided
        suppression); default: the whole lattice.
    support, closure
        Apply support pruning / closure pruning. Closure keeps ``j`` only if
        in every generalized column the compatible types' ancestors one level
        lower differ, i.e. ``j`` is the column-wise LCA of its compatible
        types (exact for the cost objective with monotone costs).

    Returns
    -------
    Candidates

    Notes
    -----
    Work ``O(Π_c (H_c + 1) · t_in log t_in)``, all inside numpy.
    """
    m, t_in = types.m, types.t_in
    sizes = [lat.height + 1 for lat in lattices]
    work = estimate_enumeration(m, t_in, sizes) if level_vectors is None else t_in * len(list(level_vectors))
    if work > MAX_PROJECTIONS:
        raise InputError(
            f"candidate enumeration over {m} QI columns ({' x '.join(map(str, sizes))} generalization levels) "
            f"and {t_in} row types would touch {work:,} projections (limit {MAX_PROJECTIONS:,}); "
            "use fewer QI columns or shallower hierarchies"
        )
    codes, counts = types.codes, types.counts
    # ancestors of every type at every level: anc_t[c][:, l]
    anc_t = [lat.anc[codes[:, c]] for c, lat in enumerate(lattices)]
    radices = [lat.n_nodes for lat in lattices]
    generated = closure_only = supported = 0
    out_nodes, out_levels, out_cap, out_ptype, out_pcand, out_codes = [], [], [], [], [], []
    next_id = 0
    if level_vectors is None:
        level_vectors = itertools.product(*[range(s) for s in sizes])
    level_vectors = sorted((tuple(int(x) for x in L) for L in level_vectors), key=lambda L: (sum(L), L))
    cols = np.arange(m)
    for L in level_vectors:
        L = np.array(L)
        proj = np.column_stack([anc_t[c][:, L[c]] for c in range(m)]) if m else np.zeros((t_in, 0), np.int64)
        key = _group_keys(proj, radices, list(cols))
        uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
        inv = inv.ravel()
        G = uniq.shape[0]
        cap = np.bincount(inv, weights=counts, minlength=G).astype(np.int64)
        generated += G
        gen_cols = cols[L > 0]
        if gen_cols.size:
            order = np.argsort(inv, kind="stable")
            starts = np.searchsorted(inv[order], np.arange(G))
            below = np.column_stack([anc_t[c][:, L[c] - 1] for c in gen_cols])[order]
            lo = np.minimum.reduceat(below, starts, axis=0)
            hi = np.maximum.reduceat(below, starts, axis=0)
            closed = np.all(lo != hi, axis=1)
        else:
            closed = np.ones(G, dtype=bool)
        ok_support = cap >= min_size
        closure_only += int(closed.sum())
        supported += int(ok_support.sum())
        keep_grp = np.ones(G, dtype=bool)
        if support:
            keep_grp &= ok_support
        if closure:
            keep_grp &= closed
        n_keep = int(keep_grp.sum())
        if n_keep == 0:
            continue
        new_id = np.full(G, -1, dtype=np.int64)
        new_id[keep_grp] = np.arange(next_id, next_id + n_keep)
        rep = first[keep_grp]
        out_nodes.append(proj[rep])
        out_levels.append(np.broadcast_to(L, (n_keep, m)).copy())
        c_codes = codes[rep].astype(np.int64).copy()
        c_codes[:, L > 0] = -1
        out_codes.append(c_codes)
        out_cap.append(cap[keep_grp])
        t_sel = np.flatnonzero(keep_grp[inv])
        out_ptype.append(t_sel)
        out_pcand.append(new_id[inv[t_sel]])
        next_id += n_keep

    cat = lambda parts, shape, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(shape, dt)  # noqa: E731
    nodes = cat(out_nodes, (0, m), np.int64)
    levels = cat(out_levels, (0, m), np.int64)
    cap = cat(out_cap, (0,), np.int64)
    ptype = cat(out_ptype, (0,), np.int64)
    pcand = cat(out_pcand, (0,), np.int64)
    ccodes = cat(out_codes, (0, m), np.int64)
    order = np.lexsort((ptype, pcand))
    node_cost = [lat.cost for lat in lattices]
    cost = np.zeros(nodes.shape[0])
    for c in range(m):
        cost += node_cost[c][nodes[:, c]]
    if all(np.all(nc == np.round(nc)) for nc in node_cost):
        cost = np.round(cost).astype(np.int64)
    return Candidates(
        nodes=nodes,
        levels=levels,
        cost=cost,
        capacity=cap,
        pair_type=ptype[order],
        pair_cand=pcand[order],
        codes=ccodes,
        counts={"generated": generated, "closure_only": closure_only, "support": supported, "kept": next_id},
    )


def pattern_candidates(types: RowTypes, masks: np.ndarray, min_size: int, *, support: bool = True,
                       reduce: bool = True) -> Candidates:
    """Candidates of pattern-guided suppression (``formulations/patterns.md``).

    Only star sets that are masks of ``P``; closure is replaced by: drop
    ``j`` if a candidate with the same compatible set has fewer stars (its
    group moves there at lower cost, merging is harmless for union-closed
    criteria).
    """
    lattices = [_suppression_lattice(range(int(v))) for v in types.cardinalities]
    levels = [tuple(int(not k) for k in mask) for mask in masks]
    cands = lattice_candidates(types, lattices, min_size, support=support, closure=False, level_vectors=levels)
    if not reduce or cands.n_candidates == 0:
        return cands
    # signature of each candidate's compatible set: its sorted type list
    bounds = np.searchsorted(cands.pair_cand, np.arange(cands.n_candidates + 1))
    best = {}
    for j in range(cands.n_candidates):
        sig = cands.pair_type[bounds[j]:bounds[j + 1]].tobytes()
        if sig not in best or cands.cost[j] < cands.cost[best[sig]]:
            best[sig] = j
    keep = np.zeros(cands.n_candidates, dtype=bool)
    keep[list(best.values())] = True
    return cands.subset(keep, stage="pattern dominance")
