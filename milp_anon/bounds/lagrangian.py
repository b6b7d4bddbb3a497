"""Lagrangian bound and exact reduced-cost fixing for the k-anonymity assignment model.

The assignment model of k-anonymity (``formulations/k-anonymity.md``)
couples its candidate blocks only through the rows ``Σ_j g_ij = n_i``. With
multipliers ``π`` on those rows the model falls apart into one problem per
candidate ``j`` (cost ``w_j`` per row)::

    rc_j(π) = min { Σ_i (w_j − π_i) g_i : 0 <= g_i <= n_i (i compatible with j), Σ_i g_i >= k }

solved by sorting: every unit with ``w_j − π_i < 0``, then the cheapest
units until ``k`` are taken. For **any** ``π``::

    L(π) = Σ_i π_i n_i + Σ_j min(0, rc_j(π))

is a lower bound on the optimum, and every solution that uses candidate ``j``
with at least one row of type ``i`` costs at least::

    L(π) − min(0, rc_j(π)) + rc_ij(π)

where ``rc_ij`` is the block optimum with ``g_i >= 1`` forced (one unit of
``i`` replaces the dearest unit taken to reach ``k``, or is added). Each
block's polytope is integral (a box cut by one cardinality row), so with the
LP's optimal duals ``L(π*)`` equals the LP bound (Lagrangian duality); the
duals come from :func:`column_generation`, which solves that LP over every
candidate while keeping only a small part of it in HiGHS.

**Fixing** (exact): a pair whose bound is at least ``G`` cannot be part of
any solution cheaper than ``G``, so the model restricted to the pairs below
``G`` has the same optimum as the whole model whenever that optimum is below
``G``; and if the restricted model has nothing below ``G``, no solution
does. :mod:`milp_anon.reduction` uses this with a rising ``G``
(``formulations/reduction.md``).

This module depends on numpy and highspy only: the bounds are real numbers
here; rounding them to the objective's grid is the caller's
(:class:`milp_anon.runtime.grid.ObjectiveGrid`).

This is the classical reduced-cost fixing of integer programming, done on
the Lagrangian blocks instead of the LP columns: the LP's own reduced costs
of ``y_j`` are all 0 here (the links ``g_ij <= n_i y_j`` are degenerate,
``benchmarks/results/scale.md``) and fix nothing.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from dataclasses import dataclass

import highspy
import numpy as np

from milp_anon.bounds.conflicts import (
    clique_bound,
    clique_bounds,
    conflicting_pairs,
    violated_cliques,
    violated_rank_rows,
)
from milp_anon.runtime.status import Status
from milp_anon.runtime.tuning import Tuning
from milp_anon.solvers.highs_banner import new_highs, run_here
from milp_anon.solvers.outcome import SolveOutcome

log = logging.getLogger("milp_anon.bounds.lagrangian")


@dataclass(frozen=True)
class BlockPrices:
    """Per-candidate block optima for one ``π`` (see the module docstring).

    Attributes
    ----------
    rc
        ``(C,)`` ``rc_j(π)``.
    take
        ``(P,)`` units of each pair in candidate ``j``'s best block solution.
    forced
        ``(P,)`` ``rc_ij(π)``: the block optimum with at least one unit of the pair forced in.
    bound
        ``L(π)``.
    """

    rc: np.ndarray
    take: np.ndarray
    forced: np.ndarray
    bound: float

    def pair_bounds(self, pair_cand: np.ndarray) -> np.ndarray:
        """``(P,)`` lower bound on every solution that uses the pair."""
        return self.bound - np.minimum(self.rc, 0.0)[pair_cand] + self.forced


def block_prices(pi, n, w, pair_type, pair_cand, k, shift=None, price_chunk: int | None = None) -> BlockPrices:
    """Solve every candidate's block for multipliers ``pi`` (vectorized over all pairs).

    Parameters
    ----------
    pi
        ``(T,)`` multipliers of the rows ``Σ_j g_ij = n_i``.
    n
        ``(T,)`` rows per type.
    w
        ``(C,)`` cost per row of each candidate.
    pair_type, pair_cand
        ``(P,)`` compatible pairs, sorted by candidate (unsorted pairs are solved in one piece).
    k
        Smallest group size, or ``(C,)`` one per candidate (the floors of
        :func:`~milp_anon.instance.instance.group_floors`).
    shift
        ``(P,)`` optional per-pair cost added to ``w_j − π_i`` (:mod:`milp_anon.bounds.blocks`' t-closeness terms).
    price_chunk
        Pairs solved at once (whole candidates; a candidate with more pairs is one chunk; ``None``:
        :attr:`Tuning.price_chunk <milp_anon.runtime.tuning.Tuning.price_chunk>`'s default): the outcome is the
        same, the working memory that of one chunk.

    Notes
    -----
    Pairs sorted by candidate (as :class:`~milp_anon.instance.candidates.Candidates` holds them): every unit with
    ``w_j − π_i < 0`` is taken, then at most ``k`` passes each take, in every candidate still short of
    ``k`` units, its cheapest pair left (a segment minimum): ``O(k P)`` without a sort, in chunks of
    ``price_chunk`` pairs holding whole candidates (the blocks are independent), so the working memory
    beyond the outcome's ``(P,)`` arrays is that of one chunk. Unsorted pairs: one ``lexsort`` by
    (candidate, ``w_j − π_i``), ``O(P log P)``. Both take tied pairs in their order in the arrays, so they
    give the same blocks.
    """
    rc, take, forced, bound = _price(pi, n, w, pair_type, pair_cand, k, shift, price_chunk, per_pair=True)
    return BlockPrices(rc=rc, take=take, forced=forced, bound=bound)


@dataclass(frozen=True)
class BlockValues:
    """The part of :class:`BlockPrices` a column generation's round needs (:func:`block_values`): ``rc`` (``(C,)``),
    ``taken`` (``(P,)`` bool: the pair's units are in its candidate's best block solution) and ``bound``
    ``= L(π)``, without the ``(P,)`` floats ``take`` and ``forced``."""

    rc: np.ndarray
    taken: np.ndarray
    bound: float


def block_values(pi, n, w, pair_type, pair_cand, k, shift=None, price_chunk: int | None = None, *,
                 negative_only: bool = False) -> BlockValues:
    """:func:`block_prices` without its per-pair values: the same ``rc`` and ``L(π)`` (bit for bit) and which
    pairs the blocks take, in one byte a pair instead of sixteen, and without the forced values' pass. At
    63 M pairs (8 QIs with hierarchies) the column generation held two outcomes' ``take`` and ``forced``
    (the best multipliers' and the current ones'), 1.9 GiB; now the full prices are computed once, at the
    best multipliers, at its end.

    ``negative_only``: only what a column generation's round reads is exact — ``rc_j`` where it is below 0, the
    pairs those blocks take, and ``L(π)`` (bit for bit); a candidate whose block cannot go below 0 gets a lower
    bound ``> 0`` on ``rc_j`` instead, and ``taken`` marks only its pairs with ``v_ij < 0`` (``v_ij = w_j − π_i``
    plus the shift). Its block is not solved: after its units with ``v_ij < 0`` (value ``s_j``, ``u_j`` units) it
    takes ``min(k_j, N_j) − u_j`` more (``N_j`` its rows), each of value at least ``m_j``, its least ``v_ij >= 0``;
    so ``rc_j >= s_j + (min(k_j, N_j) − u_j) m_j``, and where that is above 0 (beyond the sums' rounding),
    ``min(0, rc_j) = 0`` (and ``min(0, rc_j + m) = 0`` for any ``m >= 0``: the packing rows' opening costs) and the
    candidate does not price out. On interval models nearly every block is cut off so, and a round prices in a
    quarter to a half of the time (``benchmarks/results/block_screen_cg_90s.md``)."""
    rc, taken, _, bound = _price(pi, n, w, pair_type, pair_cand, k, shift, price_chunk, per_pair=False,
                                 screen=negative_only)
    return BlockValues(rc=rc, taken=taken, bound=bound)


def _price(pi, n, w, pair_type, pair_cand, k, shift, price_chunk, *, per_pair: bool, screen: bool = False):
    """``(rc, take, forced, bound)`` (``per_pair``) or ``(rc, taken, None, bound)``, chunk by chunk; ``screen``
    (not with ``per_pair``, pairs sorted by candidate): :func:`block_values`' ``negative_only``."""
    if screen and per_pair:
        raise ValueError("the screen leaves blocks unsolved: it gives no per-pair values")
    chunk = Tuning().price_chunk if price_chunk is None else int(price_chunk)
    pi = np.asarray(pi, dtype=float)
    n = np.asarray(n, dtype=float)
    w = np.asarray(w, dtype=float)
    C, P = w.shape[0], pair_type.shape[0]
    first = candidate_starts(pair_cand, C)
    blocks = _blocks_by_sorting if first is None else _blocks_by_passes
    if first is None or P <= chunk:
        cuts = np.array([0, P])
    else:
        cuts = first[np.searchsorted(first, np.arange(chunk, P, chunk), side="right") - 1]
        cuts = np.unique(np.concatenate([[0], cuts, [P]]))
    rc = np.zeros(C)
    take = np.empty(P) if per_pair else np.empty(P, dtype=bool)
    forced = np.empty(P) if per_pair else None
    whole = cuts.size == 2  # one piece: every candidate, also those without pairs
    for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        if b == a:
            continue
        lo, hi = (0, C) if whole else (int(pair_cand[a]), int(pair_cand[b - 1]) + 1)
        pt, pc = pair_type[a:b], (pair_cand[a:b] - lo if lo else pair_cand[a:b])
        kc = k if np.ndim(k) == 0 else np.asarray(k, dtype=float)[lo:hi]
        if screen and first is not None:
            v, t, floor = _blocks_screened(pi, n, w[lo:hi], pt, pc, kc, None if shift is None else shift[a:b],
                                           first[lo:hi + 1] - a)
            rc[lo:hi] = np.fmax(np.bincount(pc, weights=t * v, minlength=hi - lo), floor)  # floor: NaN or > 0
        else:
            v, t = blocks(pi, n, w[lo:hi], pt, pc, kc, None if shift is None else shift[a:b])
            rc[lo:hi] = np.bincount(pc, weights=t * v, minlength=hi - lo)
        if per_pair:
            take[a:b] = t
            forced[a:b] = _forced(n, pt, pc, kc, v, t, rc[lo:hi])
        else:
            take[a:b] = t > 0
    return rc, take, forced, float(pi @ n) + float(np.minimum(rc, 0.0).sum())


def candidate_starts(pair_cand: np.ndarray, C: int) -> np.ndarray | None:
    """``(C + 1,)`` each candidate's first pair (and the pair count last) when the pairs are sorted by candidate,
    else ``None``."""
    if np.any(pair_cand[1:] < pair_cand[:-1]):
        return None
    return np.searchsorted(pair_cand, np.arange(C + 1))


def _blocks_by_sorting(pi, n, w, pair_type, pair_cand, k, shift):
    """``(v, take)`` (``v = w_j − π_i``, plus the shift) of :func:`block_prices` for the candidates
    ``0 .. len(w) − 1``, any pair order: the pairs sorted by (candidate, ``v``), then each candidate's units
    taken in that order."""
    C, P = w.shape[0], pair_type.shape[0]
    v = w[pair_cand] - pi[pair_type]
    if shift is not None:
        v = v + shift
    order = np.lexsort((v, pair_cand))
    vs, ns, cs = v[order], n[pair_type[order]], pair_cand[order]
    cum = np.cumsum(ns)
    start = np.searchsorted(cs, np.arange(C))
    before_group = np.concatenate([[0.0], cum])[start]
    cum_before = cum - ns - before_group[cs]
    need = k if np.ndim(k) == 0 else k[cs]
    take_s = np.where(vs < 0, ns, np.clip(need - cum_before, 0.0, ns))
    take = np.empty(P)
    take[order] = take_s
    return v, take


def _blocks_by_passes(pi, n, w, pair_type, pair_cand, k, shift):
    """``(v, take)`` of :func:`block_prices` for the candidates ``0 .. len(w) − 1``, pairs sorted by
    candidate: the negative units, then per pass each short candidate's cheapest pair left (the first of
    its ties), as much of it as the candidate still needs. Every type has at least one row, so a pass
    takes at least one unit where one is needed: at most ``k`` passes, each over the pairs still open."""
    v, units, neg, take, need = _negative_units(pi, n, w, pair_type, pair_cand, k, shift)
    _fill(v, units, pair_cand, take, need, np.flatnonzero(~neg & (need[pair_cand] > 0)))
    return v, take


#: relative margin above 0 a block's lower bound must clear to be cut off (:func:`_blocks_screened`)
_SCREEN_MARGIN = 1e-9


def _blocks_screened(pi, n, w, pair_type, pair_cand, k, shift, starts):
    """``(v, take, floor)``: :func:`_blocks_by_passes` for the candidates whose block may end below 0, and for
    the others (``floor`` not NaN) their negative units only and the lower bound ``floor > 0`` on ``rc_j``
    (:func:`block_values`' ``negative_only``); ``starts``: each candidate's first pair, and the pair count."""
    C = w.shape[0]
    v, units, neg, take, need = _negative_units(pi, n, w, pair_type, pair_cand, k, shift)
    short = np.flatnonzero(need > 0)
    floor = np.full(C, np.nan)
    if short.size:
        # m_j: a candidate's least non-negative value (inf: it has none, and then nothing is added)
        nonempty = starts[:-1] < starts[1:]
        m = np.full(C, np.inf)
        m[nonempty] = np.minimum.reduceat(np.where(neg, np.inf, v), starts[:-1][nonempty])
        # units still to take: what is needed, or every non-negative unit where fewer are left
        rest = np.bincount(pair_cand, weights=np.where(neg, 0.0, units), minlength=C)
        more = np.minimum(need, rest)[short] * np.where(np.isfinite(m[short]), m[short], 0.0)
        s = np.bincount(pair_cand, weights=take * v, minlength=C)[short]
        lower = s + more
        # cut off only clearly above 0, beyond the sums' rounding: a block whose exact rc_j is below 0 is solved
        cut = lower > _SCREEN_MARGIN * (1.0 + np.abs(s) + more)
        floor[short[cut]] = lower[cut]
        solve = np.zeros(C, dtype=bool)
        solve[short[~cut]] = True
        _fill(v, units, pair_cand, take, need, np.flatnonzero(~neg & solve[pair_cand]))
    return v, take, floor


def _negative_units(pi, n, w, pair_type, pair_cand, k, shift):
    """A block's start: ``v = w_j − π_i`` (plus the shift), every pair's units, which are negative, their units
    taken, and each candidate's units still needed to reach ``k``."""
    C = w.shape[0]
    v = w[pair_cand] - pi[pair_type]
    if shift is not None:
        v = v + shift
    units = n[pair_type]
    neg = v < 0
    take = np.where(neg, units, 0.0)
    need = k - np.bincount(pair_cand, weights=take, minlength=C)
    return v, units, neg, take, need


def _fill(v, units, pair_cand, take, need, open_):
    """The passes of :func:`_blocks_by_passes` over the pairs ``open_`` (sorted by candidate): ``take`` and
    ``need`` in place."""
    while open_.size:
        oc, ov = pair_cand[open_], v[open_]
        head = np.ones(open_.size, dtype=bool)
        np.not_equal(oc[1:], oc[:-1], out=head[1:])
        seg = np.cumsum(head) - 1
        at_min = np.flatnonzero(ov == np.minimum.reduceat(ov, np.flatnonzero(head))[seg])
        firsts = at_min[np.concatenate([[True], seg[at_min[1:]] != seg[at_min[:-1]]])]
        chosen, cc = open_[firsts], oc[firsts]
        amount = np.minimum(units[chosen], need[cc])
        take[chosen] = amount
        need[cc] -= amount
        still = need[oc] > 0
        still[firsts] = False
        open_ = open_[still]


def _forced(n, pair_type, pair_cand, k, v, take, rc):
    """``(P,)`` ``rc_ij``: the block optimum with one unit of the pair forced in (it replaces the dearest unit
    taken to reach ``k``, or is added), from the blocks' solutions ``take`` and values ``rc``."""
    C = rc.shape[0]
    neg_units = np.bincount(pair_cand, weights=np.where(v < 0, n[pair_type], 0.0), minlength=C)
    dearest = np.full(C, -np.inf)
    taken = take > 0
    np.maximum.at(dearest, pair_cand[taken], v[taken])
    filled = neg_units < k  # k: a scalar or one per candidate
    extra = np.where(filled[pair_cand], v - dearest[pair_cand], np.maximum(v, 0.0))
    return rc[pair_cand] + np.where(taken, 0.0, extra)


@dataclass
class LagrangianLP:
    """Outcome of :func:`column_generation`.

    ``pi`` are the multipliers of the best bound found, ``bound = L(pi)``
    (valid whatever happened), ``lp_value`` the last restricted master's
    objective (an upper bound on the LP), ``converged`` whether no column
    priced out (then ``bound`` is the LP bound up to tolerance).
    """

    pi: np.ndarray
    bound: float
    lp_value: float
    converged: bool
    iterations: int
    seconds: float
    master_candidates: int
    master_pairs: int
    prices: BlockPrices
    #: the last master point ``(y (C,), g (P,))`` HiGHS gave values for, over every candidate and pair
    #: (zero outside the master), for :func:`milp_anon.search.lp_rounding.round_k_anonymity`; an unfinished run's is not always
    #: feasible; ``None`` when no run gave values
    primal: tuple[np.ndarray, np.ndarray] | None = None
    #: ``cliques=True``: the packing rows in the master (:mod:`milp_anon.bounds.conflicts`: conflict cliques, then with
    #: ``rank_rows`` rank rows), each a sorted tuple of candidates, their right-hand sides ``rhs`` (1 for a clique)
    #: and their multipliers ``mu`` at the best bound (``bound = L(pi, mu)``); the bound before the first row
    #: entered (the LP bound, when the column generation had converged), or ``None`` without cliques
    cliques: list = dataclasses.field(default_factory=list)
    mu: np.ndarray | None = None
    bound_without_cliques: float | None = None
    rhs: np.ndarray | None = None

    def portable(self) -> LagrangianLP:
        """This outcome without what is ``(P,)`` long, to cross a pipe (:func:`column_generation_job`):
        ``prices`` dropped (:meth:`restored` prices ``pi`` again, the same numbers), the primal point as
        its nonzero entries (``(C,)`` and ``(P,)`` arrays nearly all zero: the master holds a sliver of
        every pair)."""
        primal = None if self.primal is None else sparse_point(*self.primal)
        return dataclasses.replace(self, prices=None, primal=primal)

    def restored(self, n, w, pair_type, pair_cand, k, price_chunk: int | None = None) -> LagrangianLP:
        """:meth:`portable`'s outcome whole again, over the same instance (``price_chunk``: as
        :func:`block_prices`')."""
        primal = self.primal
        if primal is not None and len(primal) == 4:
            primal = dense_point(primal, w.shape[0], pair_type.shape[0])
        prices = self.prices if self.prices is not None else block_prices(self.pi, n, w, pair_type, pair_cand, k,
                                                                          price_chunk=price_chunk)
        return dataclasses.replace(self, prices=prices, primal=primal)

    def pair_bounds(self, pair_cand: np.ndarray) -> np.ndarray:
        """``(P,)`` lower bound on every solution that uses the pair, at ``(pi, mu)``."""
        if not self.cliques:
            return self.prices.pair_bounds(pair_cand)
        return clique_bounds(self.prices, self.cliques, self.mu, pair_cand, self.rhs)[1]


def sparse_point(y: np.ndarray, g: np.ndarray) -> tuple:
    """A master point ``(y (C,), g (P,))`` as ``(candidates, their y, pairs, their g)``, its nonzero entries."""
    ys, gs = np.flatnonzero(y), np.flatnonzero(g)
    return ys, y[ys], gs, g[gs]


def dense_point(point: tuple, n_candidates: int, n_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sparse_point`'s point as ``(y (C,), g (P,))`` again."""
    ys, yv, gs, gv = point
    y, g = np.zeros(n_candidates), np.zeros(n_pairs)
    y[ys], g[gs] = yv, gv
    return y, g


class RestrictedMaster:
    """The restricted master LP of :func:`column_generation`: the assignment LP (``y_j`` continuous)
    over the candidates and pairs added so far, kept in one HiGHS object and grown in place.

    Rows: ``Σ_j g_ij = n_i`` per type (first), ``Σ_i g_ij − k y_j >= 0`` per candidate, the
    links ``g_ij − n_i y_j <= 0`` per pair.

    ``separate_links``: instead of a link per pair, one row ``Σ_i g_ij − N_j y_j <= 0`` per candidate
    (``N_j`` its compatible rows over every pair, not only the master's), and after each master solved
    to optimality the links its point violates are added and it is solved again, until none is
    violated. The links are implied by the aggregated row for integer ``y`` but not for the LP, so a
    master is reported solved only once its point meets every link of its pairs: its value is then
    the master's. Most links are never needed (Adult, 8 QIs, k = 5: a few thousand of 130 k), and
    the masters are that many rows smaller.
    """

    def __init__(self, n, w, pair_type, pair_cand, k, highs_options=None, separate_links=False):
        self.n, self.w, self.pair_type, self.pair_cand, self.k = n, w, pair_type, pair_cand, k
        self.separate_links = False
        C, P, T = w.shape[0], pair_type.shape[0], n.shape[0]
        self.h = new_highs()
        for key, value in (highs_options or {}).items():
            self.h.setOptionValue(key, value)
        self.h.addRows(T, n, n, 0, np.zeros(T, np.int32), np.zeros(0, np.int32), np.zeros(0))
        self.cols, self.rows = 0, T
        self.in_master = np.zeros(C, dtype=bool)
        self.pair_in = np.zeros(P, dtype=bool)
        self.y_col = np.full(C, -1, dtype=np.int64)
        self.k_row = np.full(C, -1, dtype=np.int64)
        self.pair_col = np.full(P, -1, dtype=np.int64)
        self.link_in = np.zeros(P, dtype=bool)
        self.clique_rows: list[int] = []
        #: each candidate's first pair (``C + 1``), when the pairs are sorted by candidate; else ``None``
        self.first = candidate_starts(pair_cand, C)
        if separate_links:
            self.start_separating()

    def add_candidates(self, js: np.ndarray) -> None:
        """Columns ``y_j`` and rows ``Σ_i g_ij − k y_j >= 0`` (the ``g`` entries arrive with the pairs), and
        with ``separate_links`` the aggregated rows ``Σ_i g_ij − N_j y_j <= 0``."""
        q, h = js.shape[0], self.h
        h.addCols(q, np.zeros(q), np.zeros(q), np.ones(q), 0, np.zeros(q, np.int32), np.zeros(0, np.int32),
                  np.zeros(0))
        self.y_col[js] = np.arange(self.cols, self.cols + q)
        self.cols += q
        h.addRows(q, np.zeros(q), np.full(q, highspy.kHighsInf), q, np.arange(q, dtype=np.int32),
                  self.y_col[js].astype(np.int32), np.full(q, -float(self.k)))
        self.k_row[js] = np.arange(self.rows, self.rows + q)
        self.rows += q
        if self.separate_links:
            h.addRows(q, np.full(q, -highspy.kHighsInf), np.zeros(q), q, np.arange(q, dtype=np.int32),
                      self.y_col[js].astype(np.int32), -self.capacity[js])
            self.agg_row[js] = np.arange(self.rows, self.rows + q)
            self.rows += q
        self.in_master[js] = True

    def add_pairs(self, ps: np.ndarray) -> None:
        """Columns ``g_ij`` (in their type's and candidate's rows) and their links ``g_ij − n_i y_j <= 0``
        (with ``separate_links``: in the aggregated row instead, the link comes when violated)."""
        q = ps.shape[0]
        if q == 0:
            return
        n, pt, pc = self.n, self.pair_type[ps], self.pair_cand[ps]
        rows = [pt, self.k_row[pc]] + ([self.agg_row[pc]] if self.separate_links else [])
        per = len(rows)
        self.h.addCols(q, self.w[pc], np.zeros(q), n[pt], per * q, np.arange(0, per * q, per, dtype=np.int32),
                       np.column_stack(rows).ravel().astype(np.int32), np.ones(per * q))
        self.pair_col[ps] = np.arange(self.cols, self.cols + q)
        self.cols += q
        self.pair_in[ps] = True
        if not self.separate_links:
            self._add_links(ps)

    def start_separating(self) -> None:
        """From now on separate the links: an aggregated row for every candidate (over its master pairs so
        far; those keep their links), and the pairs to come enter without theirs."""
        if self.separate_links:
            return
        self.separate_links = True
        C = self.w.shape[0]
        self.capacity = np.bincount(self.pair_cand, weights=self.n[self.pair_type], minlength=C)
        self.agg_row = np.full(C, -1, dtype=np.int64)
        js = np.flatnonzero(self.in_master)
        ps = np.flatnonzero(self.pair_in)
        ps = ps[np.argsort(self.pair_cand[ps], kind="stable")]
        q = js.shape[0]
        if q == 0:  # an empty master: the candidates to come get their rows in add_candidates
            return
        at = np.full(C, -1, dtype=np.int64)
        at[js] = np.arange(q)
        per = np.bincount(at[self.pair_cand[ps]], minlength=q) + 1  # its pairs and y_j
        starts = np.concatenate([[0], np.cumsum(per)[:-1]]).astype(np.int32)
        idx = np.empty(int(per.sum()), dtype=np.int32)
        val = np.empty(idx.shape[0])
        idx[starts] = self.y_col[js]
        val[starts] = -self.capacity[js]
        rest = np.ones(idx.shape[0], dtype=bool)
        rest[starts] = False
        idx[rest] = self.pair_col[ps]  # pairs sorted by candidate, in the candidates' order
        val[rest] = 1.0
        self.h.addRows(q, np.full(q, -highspy.kHighsInf), np.zeros(q), idx.shape[0], starts, idx, val)
        self.agg_row[js] = np.arange(self.rows, self.rows + q)
        self.rows += q

    def _add_links(self, ps: np.ndarray) -> None:
        """Rows ``g_ij − n_i y_j <= 0`` of the master pairs ``ps``."""
        q = ps.shape[0]
        cols = np.column_stack([self.pair_col[ps], self.y_col[self.pair_cand[ps]]]).ravel().astype(np.int32)
        vals = np.column_stack([np.ones(q), -self.n[self.pair_type[ps]]]).ravel()
        self.h.addRows(q, np.full(q, -highspy.kHighsInf), np.zeros(q), 2 * q, np.arange(0, 2 * q, 2, dtype=np.int32),
                       cols, vals)
        self.rows += q
        self.link_in[ps] = True

    def add_with_pairs(self, js: np.ndarray, pair_mask: np.ndarray) -> None:
        """Candidates ``js`` with those of their pairs where ``pair_mask`` holds."""
        mask = np.zeros(self.w.shape[0], dtype=bool)
        mask[js] = True
        self.add_candidates(js)
        self.add_pairs(np.flatnonzero(mask[self.pair_cand] & pair_mask))

    def add_cliques(self, cliques, rhs=None) -> None:
        """Packing rows ``Σ_{j ∈ Q} y_j <= rhs_Q`` (``rhs`` ``None``: 1, conflict cliques) over master candidates
        (:mod:`milp_anon.bounds.conflicts`)."""
        q = len(cliques)
        if q == 0:
            return
        members = np.concatenate([np.asarray(c, dtype=np.int64) for c in cliques])
        if not self.in_master[members].all():
            raise ValueError("a clique row over a candidate outside the master")
        starts = np.concatenate([[0], np.cumsum([len(c) for c in cliques])[:-1]]).astype(np.int32)
        upper = np.ones(q) if rhs is None else np.asarray(rhs, dtype=float)
        self.h.addRows(q, np.full(q, -highspy.kHighsInf), upper, members.size, starts,
                       self.y_col[members].astype(np.int32), np.ones(members.size))
        self.clique_rows.extend(range(self.rows, self.rows + q))
        self.rows += q

    def primal(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The current solution as ``(y (C,), g (P,))``, zero outside the master; ``None`` without one."""
        sol = self.h.getSolution()
        if not sol.value_valid:
            return None
        x = np.asarray(sol.col_value, dtype=float)
        y = np.zeros(self.w.shape[0])
        y[self.in_master] = x[self.y_col[self.in_master]]
        g = np.zeros(self.pair_type.shape[0])
        g[self.pair_in] = x[self.pair_col[self.pair_in]]
        return y, g

    def solve(self, time_limit: float | None, cap: float | None = None):
        """``(LP value, row duals)``; the value is ``inf`` when HiGHS stopped at a limit (``time_limit``,
        ``cap`` or an iteration limit) before the optimum (the duals are then its current basis's, still a
        valid ``π`` for ``L``; the next solve continues from that basis); ``None`` when there are no duals.

        ``time_limit`` is this solve's: HiGHS (up to 1.x) checks its ``time_limit`` against the run time
        summed over every ``run()`` of the object (ERGO-Code/HiGHS#1331, #1477), so the option is that
        sum plus the limit. Set to the limit alone, a master stopped once the earlier masters' time
        exceeded what was left (6 QIs, k = 10: after 3 of the 8 rounds the column generation needs)."""
        t0 = time.perf_counter()
        while True:
            spent = time.perf_counter() - t0
            limits = [x - spent for x in (time_limit, cap) if x is not None]
            limit = highspy.kHighsInf if not limits else self.h.getRunTime() + max(0.0, float(min(limits)))
            self.h.setOptionValue("time_limit", limit)
            run_here(self.h)
            status, solution = self.h.getModelStatus(), self.h.getSolution()
            if status in _STOPPED and solution.dual_valid:
                return math.inf, np.asarray(solution.row_dual, dtype=float)
            if status != highspy.HighsModelStatus.kOptimal:
                return None
            duals = np.asarray(solution.row_dual, dtype=float)
            violated = self._violated_links() if self.separate_links else None
            if violated is None or violated.size == 0:
                return float(self.h.getInfo().objective_function_value), duals
            self._add_links(violated)
            spent = time.perf_counter() - t0
            if any(x is not None and x - spent <= 0 for x in (time_limit, cap)):
                return math.inf, duals  # not the master's optimum yet (links were missing): unfinished

    def priced_pairs(self, duals: np.ndarray) -> np.ndarray:
        """The absent pairs of master candidates whose reduced cost ``w_j − π_i − σ_j`` at the master's row
        ``duals`` is negative (``π`` of the type rows, ``σ`` of the candidates' size rows)."""
        sigma = np.zeros(self.w.shape[0])
        sigma[self.in_master] = duals[self.k_row[self.in_master]]
        ps = self._master_pairs()
        pc = self.pair_cand[ps]
        v = self.w[pc] - duals[: self.n.shape[0]][self.pair_type[ps]] - sigma[pc]
        return ps[(v < -1e-9) & ~self.pair_in[ps] & self.in_master[pc]]

    def _master_pairs(self) -> np.ndarray:
        """Every pair of the master's candidates (a range each when the pairs are sorted by candidate: the
        master holds a few thousand of up to a million candidates, so its pairs are a sliver of all)."""
        if self.first is None:
            return np.arange(self.pair_cand.shape[0])
        js = np.flatnonzero(self.in_master)
        lo, hi = self.first[js], self.first[js + 1]
        size = hi - lo
        return np.repeat(lo - np.cumsum(size) + size, size) + np.arange(int(size.sum()))

    def _violated_links(self) -> np.ndarray:
        """The master pairs without a link whose current point violates it."""
        y, g = self.primal()
        held = np.flatnonzero(self.pair_in & ~self.link_in)
        return held[g[held] > self.n[self.pair_type[held]] * y[self.pair_cand[held]] + 1e-7]


_STOPPED = (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kIterationLimit)


# The column generation's knobs (Wentges' smoothing, the candidates entering per round, a master run's seconds, the
# rank rows' tail, the masters' HiGHS options) are :class:`~milp_anon.runtime.tuning.Tuning`'s fields.
# Why ``separate_links=None`` (column_generation) waits for a master cut short by ``master_seconds`` before
# the masters separate their links (RestrictedMaster.start_separating): Adult, 8 QIs, k = 5, 300 s,
# separating from the start: bound 30,866 against 30,688 with every link
# (benchmarks/results/separated_links_master_8qi.md); 6 QIs, k = 5, where no master is cut: converged in
# 8.8 s against 5.1 s (ad hoc, same day). The rows saved pay only where the masters are slow.



def column_generation_job(job, options, grid, hint=None, *, on_improving=None, stop_bound=None, on_progress=None):
    """:func:`column_generation` as the ``solve_fn`` of a solve in its own process
    (:func:`~milp_anon.solvers.isolated.solve_isolated`), so that a search runs beside it on the other core:
    ``job = (n, w, pair_type, pair_cand, k, keywords, guide_after)`` for ``options.time_limit``
    seconds, ``keywords`` :func:`column_generation`'s (``highs_options``, ``cliques``, ``rank_rows``), its
    ``tuning`` the parent's, which ``options`` carry (``options.tuning``). The first master point given at least
    ``guide_after`` seconds after the start goes to the parent at once, as ``lp_guide`` (:func:`sparse_point`),
    for a table to search from while the column generation goes on. The outcome's ``job`` is
    :meth:`LagrangianLP.portable`'s. ``grid``, ``hint``, ``on_improving`` and ``stop_bound`` belong to a
    solver's signature and are unused."""

    n, w, pair_type, pair_cand, k, keywords, guide_after = job
    sent = []

    def on_master(y, g, seconds):
        if not sent and on_progress is not None and seconds >= guide_after:
            sent.append(seconds)
            on_progress(lp_guide=(round(seconds, 3),) + sparse_point(y, g))

    cg = column_generation(n, w, pair_type, pair_cand, k, time_limit=options.time_limit, on_master=on_master,
                           final_prices=False, tuning=options.tuning, **keywords)
    return SolveOutcome(Status.OPTIMAL if cg.converged else Status.TIME_LIMIT, None, None, None,
                        "column generation", cg.seconds, job=cg.portable())


def column_generation(n, w, pair_type, pair_cand, k, *, time_limit=None, highs_options=None, max_add=None,
                      smoothing=None, master_seconds=None, rel_tol=1e-9, separate_links=None,
                      cliques=False, rank_rows=False, on_master=None, final_prices=True,
                      tuning: Tuning | None = None) -> LagrangianLP:
    """The LP bound of the assignment model over every candidate, by stabilized column generation.

    The restricted master (:class:`RestrictedMaster`) starts with the
    whole-table candidate (the cheapest of full capacity, so the master is
    always feasible) and, per type, its cheapest compatible candidate. Each
    round prices every candidate's block (:func:`block_prices`) at the
    *smoothed* multipliers ``α π_best + (1 − α) π_master`` (Wentges 1997,
    "Weighted Dantzig–Wolfe decomposition for linear mixed-integer
    programming", Int. Trans. Oper. Res. 4): ``π_best`` the multipliers of
    the best ``L`` so far, ``α = smoothing``. A master's own duals are
    extreme (on Adult, 8 QIs, k = 5, the first master's give ``L = −139,067``
    against the lattice-flow start's 28,546) and the columns they price in
    are mostly useless; the smoothed point stays where ``L`` is good, and
    its ``L`` is itself a candidate for the best bound. When nothing prices
    out at the smoothed point (a mis-price), the round prices at the
    master's own duals instead, so convergence is tested exactly as without
    smoothing. Up to ``max_add`` candidates with ``rc_j < 0`` enter with the
    pairs of their block solution, and pairs of master candidates with a
    negative reduced cost (at the master's duals) enter alone; ``max_add``
    grows where the master is cheap beside the pricing (``tuning.max_add_most``).

    A master run stops after ``master_seconds``: its dual simplex's current
    duals are priced as they are (``L`` is valid for every ``π``, and the
    smoothing keeps a poor ``π_master`` from mattering), and the next run
    continues from that basis with the new columns. At 7–8 QIs one master
    takes 20–140 s; a bound that rises every 10 s instead of every 100 s
    rises further within the same time.

    Stops when nothing prices out at the duals of a master solved to
    optimality, when ``L(π)`` meets such a master's value, or at
    ``time_limit`` (the best ``L(π)`` so far is still a valid bound: every
    ``L(π)`` is, whatever ``π``). ``highs_options`` are set on the master's
    HiGHS (default: no log), after ``tuning.master_highs_options``. ``None``
    for ``max_add``, ``smoothing`` or ``master_seconds``: ``tuning``'s
    (:class:`~milp_anon.runtime.tuning.Tuning`; ``None``: the shipped one),
    which also gives ``rank_tail`` and ``price_chunk``. ``separate_links``: the masters add
    their links when violated (:class:`RestrictedMaster`); ``None``: from
    the first master run cut short by ``master_seconds`` on.

    ``cliques``: a relaxation stronger than the LP. Each time the master
    is solved and nothing prices out, the conflict cliques of its
    candidates that its point violates (:mod:`milp_anon.bounds.conflicts`) enter
    as rows ``Σ_{j ∈ Q} y_j <= 1``, and the column generation goes on; the
    bound is then ``L(π, μ)`` (:func:`milp_anon.bounds.conflicts.clique_bounds`)
    with ``μ`` the clique rows' multipliers, smoothed like ``π``. A clique
    holds master candidates only, so a candidate outside the master prices
    as before (``m_j = 0``). Stops when no clique is violated.

    ``rank_rows`` (with ``cliques``): once no clique is violated, the rank
    rows ``Σ_{j ∈ S} y_j <= ⌊|R_S| / k⌋`` the point violates
    (:func:`milp_anon.bounds.conflicts.violated_rank_rows`, ``R_S`` over every
    pair) enter the same way, with ``−rhs·μ`` in the bound; they stop
    entering once a round of them lifted the master by less than
    ``tuning.rank_tail`` of its value (their gains taper: 5 QIs ``lm`` k = 5,
    +3.4, +1.3, … +0.03 over 15 rounds).

    ``on_master(y, g, seconds)``: called after each master run that gave a point, with that point (over
    every candidate and pair, as ``primal``) and the seconds since the start. ``final_prices=False``: the
    outcome's ``prices`` is ``None`` (a caller in another process prices ``pi`` itself,
    :meth:`LagrangianLP.restored`).

    Not split further (the start, a round's pricing and the packing rows are :func:`_first_master`,
    :func:`_smoothed_round` and :class:`_Separation`): the rounds' loop carries ``finish``, ``best``,
    ``lp_value``, ``primal`` and ``it`` from round to round and leaves by ``break``/``continue`` on them.
    """
    t0 = time.perf_counter()
    tuning = Tuning() if tuning is None else tuning
    max_add = tuning.max_add if max_add is None else int(max_add)
    smoothing = tuning.smoothing if smoothing is None else float(smoothing)
    master_seconds = tuning.master_seconds if master_seconds is None else float(master_seconds)
    chunk = tuning.price_chunk
    if not 0.0 <= smoothing < 1.0:
        raise ValueError(f"smoothing must lie in [0, 1), not {smoothing}")
    n = np.asarray(n, dtype=float)
    w = np.asarray(w, dtype=float)
    T = n.shape[0]
    master, best = _first_master(n, w, pair_type, pair_cand, k, highs_options, separate_links, tuning)
    lp_value, converged, it, finish = math.inf, False, 0, False
    primal = None
    separate = _Separation(master, n, pair_type, pair_cand, k, w.shape[0], cliques, rank_rows, tuning.rank_tail)
    while True:
        left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        if left is not None and left <= 0:
            break
        capped = not finish and (left is None or master_seconds < left)
        t_master = time.perf_counter()
        solved = master.solve(left, master_seconds if capped else None)
        master_s = time.perf_counter() - t_master
        if solved is None:
            if not capped:
                break
            finish = True  # stopped before it had duals: the next run goes on to the optimum
            continue
        it += 1
        value, duals = solved
        if separate_links is None and capped and not math.isfinite(value):
            master.start_separating()  # a master cut short: smaller masters from now on
        # the last point with values: a run stopped by the overall time limit may end without any
        point = master.primal()
        primal = point or primal
        if point is not None and on_master is not None:
            on_master(*point, time.perf_counter() - t0)
        optimal = math.isfinite(value)
        if optimal:
            lp_value = value
        t_price = time.perf_counter()
        best, alpha, prices, bound, enter = _smoothed_round(master, duals, T, best, separate, smoothing,
                                                            (n, w, pair_type, pair_cand, k), chunk,
                                                            tuning.block_screen)
        price_s = time.perf_counter() - t_price
        log.info("column generation round %d: master LP %.4f%s, Lagrangian bound %.4f (best %.4f, smoothing "
                 "%.2f), master %d candidates, %d pairs, %.1f s", it, lp_value, "" if optimal else " (unfinished)",
                 bound, best[3], alpha, int(master.in_master.sum()), int(master.pair_in.sum()),
                 time.perf_counter() - t0)
        if optimal and best[3] >= lp_value - rel_tol * max(1.0, abs(lp_value)):
            if separate(lp_value, best[3]):
                continue
            converged = True
            break
        pair_enter = master.priced_pairs(duals)
        if enter.size == 0 and pair_enter.size == 0:
            if optimal:
                if separate(lp_value, best[3]):
                    continue
                converged = True  # alpha == 0 here: the master's duals price nothing out, so they are the LP's
                break
            finish = True  # an unfinished master with nothing to add: its next run goes on to the optimum
            continue
        finish = False
        if enter.size > max_add:
            enter = enter[np.argsort(prices.rc[enter], kind="stable")[:max_add]]
            if master_s < price_s:  # the master is cheap beside the pricing: more columns a round cost little
                max_add = max(max_add, min(2 * max_add, tuning.max_add_most))
        master.add_pairs(pair_enter)
        if enter.size:
            master.add_with_pairs(enter, prices.taken)
    used = separate.found[: best[1].size]  # the cliques present when the best bound was found
    # with the per-pair values, once
    prices = block_prices(best[0], n, w, pair_type, pair_cand, k, price_chunk=chunk) if final_prices else None
    return LagrangianLP(pi=best[0], bound=best[3], lp_value=lp_value, converged=converged, iterations=it,
                        seconds=time.perf_counter() - t0, master_candidates=int(master.in_master.sum()),
                        master_pairs=int(master.pair_in.sum()), prices=prices, primal=primal, cliques=used,
                        mu=best[1] if used else None,
                        bound_without_cliques=separate.without if cliques else None,
                        rhs=np.asarray(separate.found_rhs[: len(used)], dtype=np.int64) if used else None)


def _first_master(n, w, pair_type, pair_cand, k, highs_options, separate_links, tuning):
    """:func:`column_generation`'s start: the first restricted master and the lattice-flow bound ``(π, μ, blocks,
    L)`` kept if no master finishes; apart because it is a setup step that shares nothing with the rounds."""
    T, C, P = n.shape[0], w.shape[0], pair_type.shape[0]
    cap = np.bincount(pair_cand, weights=n[pair_type], minlength=C)
    full = np.flatnonzero(cap >= n.sum() - 0.5)
    if full.size == 0:
        raise ValueError("no candidate holds the whole table")
    root = int(full[np.argmin(w[full])])
    master = RestrictedMaster(n, w, pair_type, pair_cand, k,
                              {**dict(tuning.master_highs_options), **(highs_options or {})},
                              separate_links=bool(separate_links))
    # initial master: the whole table, and per type its cheapest candidate (ties: the largest)
    o = np.lexsort((-cap[pair_cand], w[pair_cand], pair_type))
    first = o[np.searchsorted(pair_type[o], np.arange(T))]
    master.add_with_pairs(np.union1d(pair_cand[first], [root]), np.ones(P, dtype=bool))

    # π_i = the cheapest cost of a row of type i: every v_ij >= 0, so L(π) = Σ_i n_i π_i (the LP
    # bound of the lattice-flow formulation, benchmarks/results/lattice_flow.md); the bound kept
    # when not even the first master LP finishes in time
    pi0 = np.full(T, np.inf)
    np.minimum.at(pi0, pair_type, w[pair_cand])
    values0 = block_values(pi0, n, w, pair_type, pair_cand, k, price_chunk=tuning.price_chunk,
                           negative_only=tuning.block_screen)
    return master, (pi0, np.zeros(0), values0, values0.bound)  # π, μ, the blocks at π, L(π, μ)


def _smoothed_round(master, duals, T, best, separation, smoothing, model, chunk, screen):
    """One round's pricing in :func:`column_generation`: at the smoothed multipliers, else (a mis-price) at the
    master's duals; returns the best ``(π, μ, blocks, L)``, the ``α`` used, the blocks, their bound and who enters."""
    n, w, pair_type, pair_cand, k = model
    found, found_rhs = separation.found, separation.found_rhs
    pi_master = duals[:T]
    mu_master = np.maximum(-duals[master.clique_rows], 0.0)  # rows <= 1: HiGHS's duals are <= 0
    alpha = smoothing
    while True:
        pi = pi_master if alpha == 0 else alpha * best[0] + (1.0 - alpha) * pi_master
        mu_best = np.concatenate([best[1], np.zeros(len(found) - best[1].size)])
        mu = mu_master if alpha == 0 else alpha * mu_best + (1.0 - alpha) * mu_master
        prices = block_values(pi, n, w, pair_type, pair_cand, k, price_chunk=chunk, negative_only=screen)
        bound = clique_bound(prices, found, mu, found_rhs) if found else prices.bound
        if bound > best[3]:
            best = (pi, mu, prices, bound)
        enter = np.flatnonzero((prices.rc < -1e-9) & ~master.in_master)
        if enter.size or alpha == 0:
            break
        alpha = 0.0  # a mis-price: nothing enters at the smoothed point, so price at the master's duals
    return best, alpha, prices, bound, enter


class _Separation:
    """:func:`column_generation`'s packing rows (conflict cliques, then rank rows) and the state they keep across
    rounds; a class so that the rounds' loop shares only :attr:`found`, :attr:`found_rhs` and :attr:`without`."""

    def __init__(self, master, n, pair_type, pair_cand, k, C, cliques, rank_rows, rank_tail):
        self.master, self.n, self.pair_type, self.pair_cand, self.k, self.C = master, n, pair_type, pair_cand, k, C
        self.cliques, self.rank_rows, self.rank_tail = cliques, rank_rows, rank_tail
        self.graph, self.found, self.known, self.without = None, [], set(), None
        self.found_rhs: list[int] = []
        self.rank_known: set = set()
        self.rank_last = None  # the master's value when rank rows last entered; None: none yet; -inf: stopped

    def __call__(self, lp_value, best_bound) -> bool:
        """Add the cliques the (optimal) master's point violates, else its violated rank rows; whether any was."""
        if not self.cliques:
            return False
        master, n, pair_type, pair_cand, k = self.master, self.n, self.pair_type, self.pair_cand, self.k
        if self.graph is None:
            self.graph = conflicting_pairs(pair_type, pair_cand, n, k, self.C)
        a, b = self.graph
        held = master.in_master[a] & master.in_master[b]
        y = master.primal()[0]
        new = violated_cliques(a[held], b[held], y, self.known)
        rhs = [1] * len(new)
        kind = "conflict cliques"
        if not new and self.rank_rows and self.rank_last != -math.inf:
            if self.rank_last is not None and lp_value - self.rank_last < self.rank_tail * max(1.0, abs(lp_value)):
                self.rank_last = -math.inf  # the last round gained too little: no more
                return False
            new, rhs = violated_rank_rows(pair_type, pair_cand, n.astype(np.int64), k, y, self.rank_known)
            self.rank_last, kind = lp_value, "rank rows"
        if not new:
            return False
        if self.without is None:
            self.without = best_bound
        master.add_cliques(new, rhs)
        self.found.extend(new)
        self.found_rhs.extend(rhs)
        log.info("column generation: %d %s enter the master (%d packing rows in all)", len(new), kind,
                 len(self.found))
        return True
