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

from milp_anon.runtime.errors import InputError, ModelTooLargeError
from milp_anon.tables.recoding import _suppression_lattice
from milp_anon.tables.rowtypes import RowTypes

#: refuse enumerations above this many (type, mask) projections
MAX_PROJECTIONS = 400_000_000
#: stop enumerating interval / value-set candidates past this many (type, candidate) pairs
MAX_CELL_PAIRS = 40_000_000


@dataclass(frozen=True)
class Candidates:
    """Candidate output types and their compatible (type, candidate) pairs.

    Attributes
    ----------
    nodes
        ``(C, m)`` node id (in each column's :class:`~milp_anon.tables.recoding.ColumnLattice`)
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
    population
        ``(C,)`` ``pop(j)``, the population records each candidate's tuple covers (k-map, δ-presence:
        :func:`population_matches`), or ``None`` without a population table.
    """

    nodes: np.ndarray
    levels: np.ndarray
    cost: np.ndarray
    capacity: np.ndarray
    pair_type: np.ndarray
    pair_cand: np.ndarray
    codes: np.ndarray
    counts: dict = field(default_factory=dict)
    population: np.ndarray | None = None

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

    def subset(self, keep: np.ndarray, stage: str) -> Candidates:
        """The candidates where ``keep`` holds, re-indexed; ``counts[stage]`` records how many."""
        keep = np.asarray(keep, dtype=bool)
        return self._select(keep, keep[self.pair_cand], self.capacity, stage)

    def _select(self, keep: np.ndarray, pairs: np.ndarray, capacity: np.ndarray, stage: str) -> Candidates:
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
            population=None if self.population is None else self.population[keep],
        )

    def restrict_pairs(self, keep_pairs: np.ndarray, counts_per_type: np.ndarray, min_size: int,
                       stage: str) -> Candidates:
        """Only the pairs where ``keep_pairs`` holds; candidates left with fewer than ``min_size``
        compatible rows (``counts_per_type`` rows per type) are dropped with their pairs."""
        keep_pairs = np.asarray(keep_pairs, dtype=bool)
        cap = self._capacity(keep_pairs, counts_per_type)
        keep = cap >= min_size
        return self._select(keep, keep_pairs & keep[self.pair_cand], cap, stage)

    def kept_pairs(self, keep_pairs: np.ndarray, counts_per_type: np.ndarray, min_size: int) -> np.ndarray:
        """The pairs :meth:`restrict_pairs` keeps, as a mask over these pairs (in the same order)."""
        keep_pairs = np.asarray(keep_pairs, dtype=bool)
        return keep_pairs & (self._capacity(keep_pairs, counts_per_type) >= min_size)[self.pair_cand]

    def _capacity(self, keep_pairs: np.ndarray, counts_per_type: np.ndarray) -> np.ndarray:
        return np.bincount(self.pair_cand[keep_pairs], weights=counts_per_type[self.pair_type[keep_pairs]],
                           minlength=self.n_candidates).astype(np.int64)


class TooManyPairs(ModelTooLargeError):
    """The enumeration stopped once it held ``n_pairs`` pairs, more than the ``max_pairs`` allowed."""

    def __init__(self, n_pairs: int, max_pairs: int):
        super().__init__(f"{n_pairs:,} (row type, candidate) pairs, {max_pairs:,} allowed")
        self.n_pairs, self.max_pairs = n_pairs, max_pairs


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
    max_pairs: int | None = None,
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
        One :class:`~milp_anon.tables.recoding.ColumnLattice` per QI column.
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
    max_pairs
        Raise :class:`~milp_anon.runtime.errors.ModelTooLargeError` as soon as the
        kept (type, candidate) pairs exceed this many (the memory allowed,
        :func:`milp_anon.formulations.sizing.pair_limit`), before they are all held.

    Returns
    -------
    Candidates

    Notes
    -----
    Work ``O(Π_c (H_c + 1) · t_in log t_in)``, all inside numpy. Interval
    and value-set columns (``lattices[c].cells``) add their proper cells
    (:func:`_cell_candidates`).
    """
    if any(lat.cells is not None for lat in lattices) and level_vectors is None:
        if not (support and closure):
            raise InputError("interval and value-set cells are enumerated as hulls of their rows: they need the "
                             "cost objective without a lower bound on the number of groups (closure)")
        cands = _cell_candidates(types, lattices, min_size)
        if max_pairs is not None and cands.n_pairs > max_pairs:
            raise TooManyPairs(cands.n_pairs, max_pairs)
        return cands
    return _lattice_candidates(types, lattices, min_size, support=support, closure=closure,
                               level_vectors=level_vectors, max_pairs=max_pairs)


def _lattice_candidates(types: RowTypes, lattices, min_size: int, *, support: bool = True, closure: bool = True,
                        level_vectors=None, max_pairs: int | None = None) -> Candidates:
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
    generated = closure_only = supported = n_pairs = 0
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
        n_pairs += t_sel.size
        if max_pairs is not None and n_pairs > max_pairs:  # stop before holding them all
            raise TooManyPairs(n_pairs, max_pairs)
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
                       reduce: bool = True, max_pairs: int | None = None) -> Candidates:
    """Candidates of pattern-guided suppression (``formulations/patterns.md``).

    Only star sets that are masks of ``P``; closure is replaced by: drop
    ``j`` if a candidate with the same compatible set has fewer stars (its
    group moves there at lower cost, merging is harmless for union-closed
    criteria).
    """
    lattices = [_suppression_lattice(range(int(v))) for v in types.cardinalities]
    levels = [tuple(int(not k) for k in mask) for mask in masks]
    cands = lattice_candidates(types, lattices, min_size, support=support, closure=False, level_vectors=levels,
                               max_pairs=max_pairs)
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


# --- interval and value-set cells ---------------------------------------------------------------

def _by_candidate(pair_cand: np.ndarray, n: int):
    """Start of each candidate's pairs (pairs sorted by candidate; every candidate has one)."""
    return np.searchsorted(pair_cand, np.arange(n))


def _closed_cells(cands: Candidates, types: RowTypes, lattices) -> np.ndarray:
    """``(C,)`` candidates whose every cell is the cheapest one holding their compatible types.

    Per column: a generalized hierarchy node must have two compatible types in
    different children (as in :func:`lattice_candidates`); a range must have
    compatible types at both ends, a value set every listed value, and ``*``
    of an interval / value-set column the whole range / every value (else the
    hull, a proper cell of cost < 1, holds the same compatible types).
    """
    C = cands.n_candidates
    if C == 0:
        return np.zeros(0, dtype=bool)
    starts = _by_candidate(cands.pair_cand, C)
    ok = np.ones(C, dtype=bool)
    for c, lat in enumerate(lattices):
        gen = cands.levels[:, c] > 0
        if not gen.any():
            continue
        code = types.codes[cands.pair_type, c].astype(np.int64)
        if lat.cells is None:
            below = lat.anc[code, np.maximum(cands.levels[cands.pair_cand, c] - 1, 0)]
            lo, hi = np.minimum.reduceat(below, starts), np.maximum.reduceat(below, starts)
            ok &= ~gen | (lo != hi)
            continue
        cells, V = lat.cells, lat.cells.n_values
        node = cands.nodes[:, c]
        if cells.kind == "interval":
            r = cells.rank[code]
            lo, hi = np.minimum.reduceat(r, starts), np.maximum.reduceat(r, starts)
            star = node == V
            a, b = np.divmod(np.maximum(node - V - 1, 0), V)
            ok &= ~gen | np.where(star, (lo == 0) & (hi == V - 1), (lo == a) & (hi == b))
        else:
            present = np.zeros(C, dtype=np.int64)
            bits = np.unique(cands.pair_cand * 64 + code)  # (candidate, value) once each
            np.bitwise_or.at(present, bits // 64, np.left_shift(1, bits % 64))
            want = np.where(node == V, (1 << V) - 1, node - V - 1)
            ok &= ~gen | (present == want)
    return ok


def _proper_cells(cells, vals: np.ndarray, counts: np.ndarray, min_size: int):
    """The proper cells over the values ``vals`` (codes) of a set of types with ``counts`` rows:
    ``(node ids, member masks (cells, types))`` for the cells holding at least ``min_size`` rows."""
    V = cells.n_values
    if cells.kind == "interval":
        r = cells.rank[vals]
        u = np.unique(r)
        a, b = np.triu_indices(u.size, k=1)
        a, b = u[a], u[b]
        keep = ~((a == 0) & (b == V - 1))  # the whole range is '*'
        a, b = a[keep], b[keep]
        member = (r[None, :] >= a[:, None]) & (r[None, :] <= b[:, None])
        node = cells.interval_node(a, b)
    else:
        u = np.unique(vals)
        d = u.size
        masks = np.arange(1, 2**d, dtype=np.int64)
        sub = (masks[:, None] >> np.arange(d)[None, :]) & 1  # (subsets, present values)
        full = np.zeros(masks.size, dtype=np.int64)
        for i, v in enumerate(u):
            full |= sub[:, i] << int(v)
        keep = (sub.sum(axis=1) >= 2) & (full != (1 << V) - 1)
        sub, full = sub[keep].astype(bool), full[keep]
        member = sub[:, np.searchsorted(u, vals)]
        node = cells.set_node(full)
    cap = member @ counts
    keep = cap >= min_size
    return node[keep], member[keep]


def _cell_candidates(types: RowTypes, lattices, min_size: int) -> Candidates:
    """Candidates when some columns are interval or value-set columns (``formulations/intervals.md``).

    Level vectors where every cell column keeps its value or is ``*`` come
    from :func:`lattice_candidates` (the cell columns as suppression
    lattices). The others put at least one cell column in a *proper* cell:
    the types are grouped by the other columns' projections, and each group is
    split by every proper cell of its values (ranges with data values at both
    ends, sets of two or more present values), column after column, keeping
    only cells holding ``min_size`` rows. Closure (:func:`_closed_cells`) then
    keeps the candidates whose every cell is the hull of their compatible
    types. Exact for the cost objective: any group released in a cell larger
    than its hull can move to the hull's candidate at no more cost.
    """
    m = types.m
    is_cell = np.array([lat.cells is not None for lat in lattices], dtype=bool)
    base = _lattice_candidates(types, lattices, min_size, closure=True)
    codes, counts = types.codes, types.counts
    anc_t = [lat.anc[codes[:, c]] for c, lat in enumerate(lattices)]
    radices = [lat.n_nodes for lat in lattices]
    nodes, levels, ptype, pcand = [], [], [], []
    n_new = n_pairs = 0
    cell_cols = np.flatnonzero(is_cell)
    # modes: lattice columns their levels; cell columns 0 value, 1 '*', 2 proper (at least one)
    ranges = [range(lat.height + 1) if not is_cell[c] else range(3) for c, lat in enumerate(lattices)]
    for L in itertools.product(*ranges):
        L = np.array(L, dtype=np.int64)
        proper = [int(c) for c in cell_cols if L[c] == 2]
        if not proper:
            continue
        lvl = np.minimum(L, 1) * is_cell + L * ~is_cell
        key_cols = [c for c in range(m) if c not in proper]
        proj = np.column_stack([anc_t[c][:, lvl[c]] for c in range(m)])
        key = _group_keys(proj, radices, key_cols)
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        inv = inv.ravel()
        order = np.argsort(inv, kind="stable")
        bounds = np.searchsorted(inv[order], np.arange(first.size + 1))
        for g in range(first.size):
            S = order[bounds[g]:bounds[g + 1]]
            if counts[S].sum() < min_size:
                continue
            stack = [(S, {})]
            while stack:
                S, chosen = stack.pop()
                c = proper[len(chosen)]
                node, member = _proper_cells(lattices[c].cells, codes[S, c].astype(np.int64), counts[S], min_size)
                last = len(chosen) + 1 == len(proper)
                for j in range(node.size):
                    sub = S[member[j]]
                    if not last:
                        stack.append((sub, {**chosen, c: int(node[j])}))
                        continue
                    row = proj[sub[0]].copy()
                    for cc, nd in {**chosen, c: int(node[j])}.items():
                        row[cc] = nd
                    nodes.append(row)
                    levels.append(lvl)
                    ptype.append(sub)
                    pcand.append(np.full(sub.size, n_new, dtype=np.int64))
                    n_new += 1
                    n_pairs += sub.size
                if n_pairs > MAX_CELL_PAIRS:
                    raise InputError(
                        f"interval/value-set candidates passed {MAX_CELL_PAIRS:,} (type, candidate) pairs over "
                        f"{m} QI columns and {types.t_in} row types; use fewer QI columns or fewer "
                        "interval/value-set columns")
    if n_new == 0:
        return _with_cell_closure(base, types, lattices)
    new_nodes = np.array(nodes, dtype=np.int64)
    new_levels = np.array(levels, dtype=np.int64)
    new_ptype, new_pcand = np.concatenate(ptype), np.concatenate(pcand)
    order = np.lexsort((new_ptype, new_pcand))
    new_ptype, new_pcand = new_ptype[order], new_pcand[order]
    cap = np.bincount(new_pcand, weights=counts[new_ptype], minlength=n_new).astype(np.int64)
    new_codes = np.where(new_levels == 0, codes[new_ptype[_by_candidate(new_pcand, n_new)]], -1).astype(np.int64)
    cost = np.zeros(n_new)
    for c, lat in enumerate(lattices):
        cost += lat.cost[new_nodes[:, c]]
    B = base.n_candidates
    counts_out = dict(base.counts)
    counts_out["generated"] = counts_out.get("generated", 0) + n_new
    counts_out["support"] = counts_out.get("support", 0) + n_new
    merged = Candidates(
        nodes=np.concatenate([base.nodes, new_nodes]),
        levels=np.concatenate([base.levels, new_levels]),
        cost=np.concatenate([base.cost.astype(float), cost]),
        capacity=np.concatenate([base.capacity, cap]),
        pair_type=np.concatenate([base.pair_type, new_ptype]),
        pair_cand=np.concatenate([base.pair_cand, new_pcand + B]),
        codes=np.concatenate([base.codes, new_codes]),
        counts=counts_out,
    )
    return _with_cell_closure(merged, types, lattices)


def _with_cell_closure(cands: Candidates, types: RowTypes, lattices) -> Candidates:
    closed = _closed_cells(cands, types, lattices)
    counts = dict(cands.counts)
    counts["closure_only"] = int(closed.sum())
    out = cands.subset(closed, "closure")
    out.counts.update(counts)
    out.counts["kept"] = out.n_candidates
    return out


# --- matches in a population table (k-map, δ-presence) -----------------------------------------------------------

def population_nodes(lattices, values: np.ndarray, hierarchies) -> list[np.ndarray]:
    """Per QI column ``c``, ``(T, H_c + 1)``: the node id in ``lattices[c]`` of the ancestor of each population
    type's value (``values[:, c]``, strings) at every level, ``-1`` where that ancestor is no node of the lattice.

    The lattices are the input's: a population value the input lacks has no level-0 node (no candidate keeps
    it) but still has its ancestors — the root always, and, with a hierarchy (``hierarchies[c]``, else ``None``:
    a value or ``*``), every node above it that lies above some input value too. A value a hierarchy lacks is
    refused beforehand (:meth:`~milp_anon.privacy.criteria.KMap.check_recoding`); here it has only the root."""
    out = []
    for c, lat in enumerate(lattices):
        node_id = {(int(lv), str(name)): i for i, (name, lv) in enumerate(zip(lat.names, lat.level))}
        root = lat.names[int(lat.anc[0, lat.height])] if lat.anc.shape[0] else "*"
        uniq, inv = np.unique(values[:, c].astype(str), return_inverse=True)
        h = hierarchies[c]
        table = np.full((uniq.size, lat.height + 1), -1, dtype=np.int64)
        for u, v in enumerate(uniq):
            path = h.paths.get(v) if h is not None else (v, root)
            if path is None:
                path = (None,) * lat.height + (root,)
            for lv, name in enumerate(path):
                table[u, lv] = node_id.get((lv, name), -1)
        out.append(table[inv.ravel()])
    return out


def population_matches(cands: Candidates, lattices, nodes, counts: np.ndarray) -> np.ndarray:
    """``(C,)`` ``pop(j)``: the population records candidate ``j``'s released tuple covers.

    A population type (``nodes``: :func:`population_nodes`, ``counts`` its records) is covered by ``j``
    exactly when in every column its ancestor at ``j``'s level is ``j``'s node. The candidates are grouped
    by level vector; per vector the population types are projected once and counted per projection, and each
    candidate reads its own (``O(level vectors · T · m)``, in numpy)."""
    C, m = cands.n_candidates, len(lattices)
    out = np.zeros(C, dtype=np.int64)
    if C == 0 or counts.shape[0] == 0:
        return out
    levels, inv = np.unique(cands.levels, axis=0, return_inverse=True)
    inv = inv.ravel()
    radices = [lat.n_nodes for lat in lattices]
    cols = list(range(m))
    for i in range(levels.shape[0]):
        js = np.flatnonzero(inv == i)
        proj = np.column_stack([nodes[c][:, levels[i, c]] for c in cols]) if m else np.zeros((counts.size, 0), int)
        ok = np.all(proj >= 0, axis=1)
        if not ok.any():
            continue
        key = _group_keys(np.concatenate([proj[ok], cands.nodes[js]]), radices, cols)  # one keying for both
        kp, kc = key[:int(ok.sum())], key[int(ok.sum()):]
        uk, pinv = np.unique(kp, return_inverse=True)
        total = np.bincount(pinv.ravel(), weights=counts[ok], minlength=uk.size).round().astype(np.int64)
        at = np.minimum(np.searchsorted(uk, kc), uk.size - 1)
        out[js] = np.where(uk[at] == kc, total[at], 0)
    return out
