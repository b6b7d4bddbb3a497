"""Candidate output types for suppression, with support and closure pruning.

A candidate ``j`` is a QI vector in which some columns are suppressed (``*``);
input type ``i`` is *compatible* with ``j`` when it agrees with ``j`` on every
kept column. Per-row cost ``w_j`` is the number of suppressed columns and the
capacity ``cap_j`` is the number of rows of compatible types.

Two rules drop candidates without losing any optimum (MODELS.md §1):

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

from dataclasses import dataclass, field

import numpy as np

from .errors import InputError
from .rowtypes import RowTypes

#: refuse enumerations above this many (type, mask) projections
MAX_PROJECTIONS = 400_000_000


@dataclass(frozen=True)
class Candidates:
    """Candidate output types and their compatible (type, candidate) pairs.

    Attributes
    ----------
    keep
        ``(C, m)`` bool, ``True`` where the candidate keeps the column's value.
    codes
        ``(C, m)`` value codes, ``-1`` where suppressed.
    cost
        ``(C,)`` per-row cost ``w_j`` (number of suppressed cells).
    capacity
        ``(C,)`` rows of compatible types.
    pair_type, pair_cand
        ``(P,)`` compatible pairs, sorted by candidate then type.
    counts
        Candidate counts after each stage: ``generated`` (distinct
        projections over all masks), ``closure_only`` (closed, any support),
        ``support`` (support only), ``kept`` (support and closure).
    """

    keep: np.ndarray
    codes: np.ndarray
    cost: np.ndarray
    capacity: np.ndarray
    pair_type: np.ndarray
    pair_cand: np.ndarray
    counts: dict = field(default_factory=dict)

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
        new_id = np.full(self.n_candidates, -1, dtype=np.int64)
        new_id[keep] = np.arange(int(keep.sum()))
        sel = keep[self.pair_cand]
        counts = dict(self.counts)
        counts[stage] = int(keep.sum())
        counts["kept"] = int(keep.sum())
        return Candidates(
            keep=self.keep[keep],
            codes=self.codes[keep],
            cost=self.cost[keep],
            capacity=self.capacity[keep],
            pair_type=self.pair_type[sel],
            pair_cand=new_id[self.pair_cand[sel]],
            counts=counts,
        )


def estimate_enumeration(m: int, t_in: int) -> int:
    """Number of (type, mask) projections the mask enumeration touches."""
    return int(t_in) * (1 << int(m))


def _group_keys(codes: np.ndarray, cards: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """One integer key per type for its projection onto ``cols`` (mixed radix)."""
    if cols.size == 0:
        return np.zeros(codes.shape[0], dtype=np.int64)
    radix = np.prod(cards[cols].astype(float))
    if radix < 2**62:
        key = np.zeros(codes.shape[0], dtype=np.int64)
        for c in cols:
            key = key * int(cards[c]) + codes[:, c].astype(np.int64)
        return key
    # too many combinations for one int64: fall back to row-wise unique
    _, inv = np.unique(codes[:, cols], axis=0, return_inverse=True)
    return inv.ravel().astype(np.int64)


def suppression_candidates(
    types: RowTypes,
    min_size: int,
    *,
    support: bool = True,
    closure: bool = True,
) -> Candidates:
    """Generate the suppression candidates of ``types``.

    Parameters
    ----------
    types
        The row types.
    min_size
        ``L``, the smallest legal group size (``k`` for k-anonymity).
    support, closure
        Apply support pruning / closure pruning (both exact for the cost
        objective; turn closure off for lower bounds on output types).

    Returns
    -------
    Candidates
        Sorted by number of suppressed cells, then mask, then values.

    Notes
    -----
    Work ``O(2^m · t_in log t_in)``, all inside numpy.
    """
    m, t_in = types.m, types.t_in
    work = estimate_enumeration(m, t_in)
    if work > MAX_PROJECTIONS:
        raise InputError(
            f"candidate enumeration over {m} QI columns and {t_in} row types would touch "
            f"{work:,} projections (limit {MAX_PROJECTIONS:,}); use fewer QI columns"
        )
    codes, counts, cards = types.codes, types.counts, types.cardinalities
    all_cols = np.arange(m)
    generated = closure_only = supported = 0
    out_keep, out_codes, out_cap, out_ptype, out_pcand_local = [], [], [], [], []
    next_id = 0
    # masks in order of increasing number of stars, so candidates come out cheapest first
    masks = sorted(range(1 << m), key=lambda b: (m - bin(b).count("1"), -b))
    for bits in masks:
        keep_mask = np.array([(bits >> (m - 1 - c)) & 1 for c in range(m)], dtype=bool)
        kept = all_cols[keep_mask]
        starred = all_cols[~keep_mask]
        key = _group_keys(codes, cards, kept)
        uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
        inv = inv.ravel()
        G = uniq.shape[0]
        cap = np.bincount(inv, weights=counts, minlength=G).astype(np.int64)
        generated += G
        if starred.size:
            order = np.argsort(inv, kind="stable")
            starts = np.searchsorted(inv[order], np.arange(G))
            sub = codes[order][:, starred]
            lo = np.minimum.reduceat(sub, starts, axis=0)
            hi = np.maximum.reduceat(sub, starts, axis=0)
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
        cand_codes = codes[rep].copy()
        cand_codes[:, ~keep_mask] = -1
        out_codes.append(cand_codes)
        out_keep.append(np.broadcast_to(keep_mask, (n_keep, m)).copy())
        out_cap.append(cap[keep_grp])
        t_sel = np.flatnonzero(keep_grp[inv])
        out_ptype.append(t_sel)
        out_pcand_local.append(new_id[inv[t_sel]])
        next_id += n_keep

    keep = np.concatenate(out_keep) if out_keep else np.zeros((0, m), bool)
    ccodes = np.concatenate(out_codes) if out_codes else np.zeros((0, m), np.int32)
    cap = np.concatenate(out_cap) if out_cap else np.zeros(0, np.int64)
    ptype = np.concatenate(out_ptype) if out_ptype else np.zeros(0, np.int64)
    pcand = np.concatenate(out_pcand_local) if out_pcand_local else np.zeros(0, np.int64)
    order = np.lexsort((ptype, pcand))
    cost = (m - keep.sum(axis=1)).astype(np.int64)
    return Candidates(
        keep=keep,
        codes=ccodes.astype(np.int32),
        cost=cost,
        capacity=cap,
        pair_type=ptype[order].astype(np.int64),
        pair_cand=pcand[order].astype(np.int64),
        counts={
            "generated": generated,
            "closure_only": closure_only,
            "support": supported,
            "kept": next_id,
        },
    )
