"""LP rounding for k-anonymity: a table from the column generation's master LP, improved by local search.

Problem. Given the assignment model of k-anonymity over row types and
candidates (``formulations/k-anonymity.md``: ``n_i`` rows of type ``i``,
cost ``w_j`` per row released as candidate ``j``, compatible pairs ``(i, j)``,
smallest group size ``k``) and a fractional point ``(y, g)`` of its LP (the
restricted master of :func:`milp_anon.bounds.lagrangian.column_generation`), find a
cheap *integral* assignment: every row of every type released once, every
used candidate holding at least ``k`` rows. A heuristic: it proves nothing,
and its table goes through the verifier like any other
(:mod:`milp_anon.reduction`).

Why. The reduction's rounds stop as soon as their bound reaches ``G`` and
find poor tables, and the heuristics that ignore the LP land 3–6 % above the
best known on Adult (the pattern greedy). The LP optimum is mostly integral
(6 QIs, k = 5: 2,009 of the 2,208 candidates it uses are at ``y = 1``), so
rounding it and repairing the rest is a good start (``formulations/reduction.md``,
"Incumbents").

Steps (all numpy over pairs sorted by candidate, except the sequential
acceptance of the open and close moves, a loop over candidates that touches
only their own pairs):

1. **Round**: candidates at ``y = 1`` keep ``⌊g_ij⌋`` when that is at least
   ``k`` rows; the fractional ones, by decreasing ``y``, gather the rows
   still free on their LP pairs (then any compatible free rows) when they
   reach ``k``.
2. **Place** the rows left: each into the cheapest used compatible
   candidate (adding rows never breaks a group); failing that, the cheapest
   candidate holding ``k`` of them opens; the last fewer-than-``k`` go to
   the whole-table candidate, which takes rows from groups above ``k`` (or
   whole groups) until it has ``k``.
3. **Improve** until nothing gains or ``time_limit``:
   *re-assign* — for the used candidates fixed, the best assignment is a
   transportation problem with lower bounds ``k`` (a min-cost flow: its LP
   has an integral optimal vertex, Bredereck et al. 2013, Lemma 1), solved
   by HiGHS; *move* — rows to a cheaper used candidate, within the source
   group's surplus over ``k``; *close* — a group whose rows all have a
   cheaper used home elsewhere; *open* — an unused candidate that gathers
   at least ``k`` rows from dearer groups' surpluses (tried in the order of
   its block value :func:`~milp_anon.bounds.lagrangian.block_values` at the rows'
   current costs).

Every step keeps the assignment feasible; each improvement step only
accepts what lowers the cost.

Complexity: ``O(P log P)`` per pass over ``P`` pairs, plus the LP.
"""

from __future__ import annotations

import time

import highspy
import numpy as np

from milp_anon.runtime.errors import VerificationError
from milp_anon.solvers.highs_banner import new_highs
from milp_anon.bounds.lagrangian import block_values

__all__ = ["round_lp"]

_EPS = 1e-9


class _Assignment:
    """Rows per pair ``a`` (integral floats) over pairs sorted by candidate, with the lookups the steps use."""

    def __init__(self, n, w, pair_type, pair_cand, k):
        self.n = np.asarray(n, dtype=float)
        self.w = np.asarray(w, dtype=float)
        self.pt, self.pc, self.k = np.asarray(pair_type), np.asarray(pair_cand), float(k)
        T, C = self.n.shape[0], self.w.shape[0]
        self.T, self.C = T, C
        self.cstart = np.searchsorted(self.pc, np.arange(C + 1))
        cap = np.bincount(self.pc, weights=self.n[self.pt], minlength=C)
        full = np.flatnonzero(cap >= self.n.sum() - 0.5)
        if full.size == 0:
            raise ValueError("no candidate holds the whole table")
        self.root = int(full[np.argmin(self.w[full])])
        s, e = self.cstart[self.root], self.cstart[self.root + 1]
        self.root_pair = np.full(T, -1, dtype=np.int64)
        self.root_pair[self.pt[s:e]] = np.arange(s, e)
        self.a = np.zeros(self.pt.shape[0])

    # -- state ----------------------------------------------------------------------------
    def size(self) -> np.ndarray:
        return np.bincount(self.pc, weights=self.a, minlength=self.C)

    def cost(self) -> float:
        return float(self.a @ self.w[self.pc])

    def feasible(self, a=None) -> bool:
        a = self.a if a is None else a
        if np.any(a < 0) or np.any(np.abs(a - np.rint(a)) > 1e-6):
            return False
        if not np.allclose(np.bincount(self.pt, weights=a, minlength=self.T), self.n):
            return False
        size = np.bincount(self.pc, weights=a, minlength=self.C)
        return bool(np.all((size < 0.5) | (size >= self.k - 1e-6)))

    def _cheapest_used(self, used):
        """Per type: the cheapest used compatible candidate's pair (``-1``: none) and its cost."""
        ps = np.flatnonzero(used[self.pc])
        o = ps[np.lexsort((self.w[self.pc[ps]], self.pt[ps]))]
        at = np.minimum(np.searchsorted(self.pt[o], np.arange(self.T)), max(o.shape[0] - 1, 0))
        if o.shape[0] == 0:
            return np.full(self.T, -1, dtype=np.int64), np.full(self.T, np.inf)
        first = o[at]
        has = self.pt[first] == np.arange(self.T)
        return np.where(has, first, -1), np.where(has, self.w[self.pc[first]], np.inf)

    # -- 1. round ---------------------------------------------------------------------------
    def round(self, y, g) -> np.ndarray:
        """Rows from the LP point; returns the rows of each type still to place."""
        k, pt, pc = self.k, self.pt, self.pc
        y = np.asarray(y, dtype=float)
        a = np.floor(np.clip(np.asarray(g, dtype=float), 0.0, None) + 1e-6)
        a = np.minimum(a, self.n[pt])
        a[(np.bincount(pt, weights=a, minlength=self.T) > self.n)[pt]] = 0.0  # not a point of the LP
        keep = (y >= 1.0 - 1e-6) & (np.bincount(pc, weights=a, minlength=self.C) >= k)
        a[~keep[pc]] = 0.0
        free = self.n - np.bincount(pt, weights=a, minlength=self.T)
        frac = np.flatnonzero((y > 1e-6) & ~keep)
        for j in frac[np.argsort(-y[frac], kind="stable")]:
            s, e = self.cstart[j], self.cstart[j + 1]
            av = free[pt[s:e]]
            if av.sum() < k:
                continue
            take = np.where(g[s:e] > 1e-6, av, 0.0)
            if take.sum() < k:  # the candidate's own LP rows first, then any free compatible rows
                rest = np.flatnonzero((take == 0) & (av > 0))
                before = np.cumsum(av[rest]) - av[rest]
                take[rest] = np.clip(k - take.sum() - before, 0.0, av[rest])
            a[s:e] += take
            free[pt[s:e]] -= take
        self.a = a
        return free

    # -- 2. place ---------------------------------------------------------------------------
    def place(self, free) -> None:
        """Release the rows ``free`` of each type; the result is feasible."""
        k, pt, pc, w = self.k, self.pt, self.pc, self.w
        free = free.copy()
        while free.sum() > 0.5:
            size = self.size()
            pair, _ = self._cheapest_used(size > 0.5)
            homed = (free > 0) & (pair >= 0)
            if homed.any():
                t = np.flatnonzero(homed)
                self.a[pair[t]] += free[t]
                free[t] = 0.0
                continue
            cover = np.bincount(pc, weights=free[pt], minlength=self.C)
            ok = np.flatnonzero(cover >= k - 1e-9)
            if ok.size:
                j = int(ok[np.lexsort((-cover[ok], w[ok]))[0]])  # the cheapest; ties: the one holding most
                s, e = self.cstart[j], self.cstart[j + 1]
                self.a[s:e] += free[pt[s:e]]
                free[pt[s:e]] = 0.0
                continue
            self._fill_root(free)
            free[:] = 0.0

    def _fill_root(self, free) -> None:
        """Fewer than ``k`` rows with no used home: into the whole-table candidate, topped up to ``k``."""
        k, pc, w, root = self.k, self.pc, self.w, self.root
        self.a[self.root_pair] += free
        size = self.size()
        need = k - size[root]
        if need <= 0:
            return
        # rows from groups above k, the dearest candidates first (the least added cost)
        src = np.flatnonzero((self.a > 0) & (pc != root) & (size[pc] > k + 0.5))
        src = src[np.lexsort((-w[pc[src]], pc[src]))]  # by candidate (within: any order)
        if src.size:
            before = np.cumsum(self.a[src]) - self.a[src]
            first = np.searchsorted(pc[src], pc[src])
            within = before - before[first]
            allow = np.clip(size[pc[src]] - k - within, 0.0, self.a[src])
            by_cost = np.argsort(-w[pc[src]], kind="stable")
            cum = np.cumsum(allow[by_cost]) - allow[by_cost]
            mv = np.zeros(src.size)
            mv[by_cost] = np.clip(need - cum, 0.0, allow[by_cost])
            self.a[src] -= mv
            np.add.at(self.a, self.root_pair[self.pt[src]], mv)
            need -= mv.sum()
        while need > 0.5:  # no surplus left: whole groups, the cheapest to move first
            size = self.size()
            used = np.flatnonzero(size > 0.5)
            used = used[used != root]
            j = int(used[np.argmin(size[used] * (w[root] - w[used]))])
            s, e = self.cstart[j], self.cstart[j + 1]
            np.add.at(self.a, self.root_pair[self.pt[s:e]], self.a[s:e])
            need -= self.a[s:e].sum()
            self.a[s:e] = 0.0

    # -- 3. improve -------------------------------------------------------------------------
    def reassign(self, time_limit: float | None) -> float:
        """The best assignment to the used candidates (a transportation problem); returns the gain."""
        size = self.size()
        used = size > 0.5
        ps = np.flatnonzero(used[self.pc])
        q, T = ps.shape[0], self.T
        row_of = np.full(self.C, -1, dtype=np.int64)
        uj = np.flatnonzero(used)
        row_of[uj] = T + np.arange(uj.shape[0])
        h = new_highs()
        h.setOptionValue("threads", 1)
        if time_limit is not None:
            h.setOptionValue("time_limit", max(0.1, float(time_limit)))
        h.addRows(T, self.n, self.n, 0, np.zeros(T, np.int32), np.zeros(0, np.int32), np.zeros(0))
        m = uj.shape[0]
        h.addRows(m, np.full(m, self.k), np.full(m, highspy.kHighsInf), 0, np.zeros(m, np.int32),
                  np.zeros(0, np.int32), np.zeros(0))
        rows = np.column_stack([self.pt[ps], row_of[self.pc[ps]]]).ravel().astype(np.int32)
        h.addCols(q, self.w[self.pc[ps]], np.zeros(q), self.n[self.pt[ps]], 2 * q,
                  np.arange(0, 2 * q, 2, dtype=np.int32), rows, np.ones(2 * q))
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return 0.0
        b = np.zeros_like(self.a)
        b[ps] = np.rint(np.asarray(h.getSolution().col_value)[:q])
        gain = self.cost() - float(b @ self.w[self.pc])
        if gain > _EPS and self.feasible(b):  # a vertex is integral; anything else is not taken
            self.a = b
            return gain
        return 0.0

    def move(self) -> float:
        """Rows to the cheapest used compatible candidate, within each source group's surplus over ``k``."""
        k, pt, pc, w = self.k, self.pt, self.pc, self.w
        size = self.size()
        dest, best = self._cheapest_used(size > 0.5)
        gain = w[pc] - best[pt]
        src = np.flatnonzero((self.a > 0) & (gain > _EPS))
        if src.size == 0:
            return 0.0
        src = src[np.lexsort((-gain[src], pc[src]))]  # by candidate, the largest gain first
        before = np.cumsum(self.a[src]) - self.a[src]
        first = np.searchsorted(pc[src], pc[src])
        mv = np.clip(size[pc[src]] - k - (before - before[first]), 0.0, self.a[src])
        # a destination is the cheapest used home, so it never loses rows here: every group stays >= k
        self.a[src] -= mv
        np.add.at(self.a, dest[pt[src]], mv)
        return float(mv @ gain[src])

    def close(self) -> float:
        """Empty groups whose rows all have a cheaper used home elsewhere (the homes stay used)."""
        pt, pc, w = self.pt, self.pc, self.w
        size = self.size()
        used = size > 0.5
        cost = np.where(used[pc], w[pc], np.inf)
        o = np.lexsort((cost, pt))
        tstart = np.searchsorted(pt[o], np.arange(self.T))
        p1 = o[tstart]
        nxt = np.minimum(tstart + 1, o.shape[0] - 1)
        p2 = np.where((tstart + 1 < o.shape[0]) & (pt[o[nxt]] == np.arange(self.T)), o[nxt], -1)
        p2 = np.where((p2 >= 0) & np.isfinite(cost[np.maximum(p2, 0)]), p2, -1)
        held = np.flatnonzero(self.a > 0)
        alt = np.where(pc[p1[pt[held]]] != pc[held], p1[pt[held]], p2[pt[held]])
        no_home = (alt < 0) | (pc[np.maximum(alt, 0)] == pc[held])
        bad = np.bincount(pc[held], weights=no_home.astype(float), minlength=self.C) > 0
        delta = np.bincount(pc[held], weights=self.a[held] * (w[pc[np.maximum(alt, 0)]] - w[pc[held]]),
                            minlength=self.C)
        tries = np.flatnonzero(used & ~bad & (delta < -_EPS))
        if tries.size == 0:
            return 0.0
        tries = tries[np.argsort(delta[tries], kind="stable")]
        by_cand = np.searchsorted(pc[held], np.arange(self.C + 1))  # held is sorted by candidate
        closed = np.zeros(self.C, dtype=bool)
        locked = np.zeros(self.C, dtype=bool)
        gained = 0.0
        for j in tries:
            if locked[j]:
                continue
            hs = held[by_cand[j]:by_cand[j + 1]]
            to = alt[by_cand[j]:by_cand[j + 1]]
            if closed[pc[to]].any():
                continue
            np.add.at(self.a, to, self.a[hs])
            self.a[hs] = 0.0
            closed[j] = True
            locked[pc[to]] = True
            gained -= delta[j]
        return gained

    def open(self, deadline: float | None, max_tries: int = 5000) -> float:
        """Unused candidates that gather at least ``k`` rows from dearer groups' surpluses."""
        k, pt, pc, w = self.k, self.pt, self.pc, self.w
        size = self.size()
        held = np.flatnonzero(self.a > 0)
        held = held[np.argsort(pt[held], kind="stable")]
        hstart = np.searchsorted(pt[held], np.arange(self.T + 1))
        dearest = np.zeros(self.T)
        np.maximum.at(dearest, pt[held], w[pc[held]])
        rc = block_values(dearest, self.n, w, pt, pc, k).rc
        tries = np.flatnonzero((rc < -_EPS) & (size < 0.5))
        tries = tries[np.argsort(rc[tries], kind="stable")][:max_tries]
        gained = 0.0
        for j in tries:
            if deadline is not None and time.perf_counter() > deadline:
                break
            s, e = self.cstart[j], self.cstart[j + 1]
            types = pt[s:e]
            lo, hi = hstart[types], hstart[types + 1]
            cnt = hi - lo
            if cnt.sum() == 0:
                continue
            idx = held[np.repeat(lo - np.cumsum(cnt) + cnt, cnt) + np.arange(cnt.sum())]
            to = np.repeat(np.arange(s, e), cnt)  # the pair (type, j) of each source pair
            gain = w[pc[idx]] - w[j]
            ok = (gain > _EPS) & (self.a[idx] > 0)
            idx, to, gain = idx[ok], to[ok], gain[ok]
            if idx.size == 0:
                continue
            o = np.argsort(pc[idx], kind="stable")
            idx, to, gain = idx[o], to[o], gain[o]
            before = np.cumsum(self.a[idx]) - self.a[idx]
            first = np.searchsorted(pc[idx], pc[idx])
            mv = np.clip(size[pc[idx]] - k - (before - before[first]), 0.0, self.a[idx])
            # a source group whose rows can all move empties (it is no longer used)
            groups, inv = np.unique(pc[idx], return_inverse=True)
            whole = np.bincount(inv, weights=self.a[idx]) >= size[groups] - 0.5
            mv = np.where(whole[inv], self.a[idx], mv)
            if mv.sum() < k - _EPS:
                continue
            self.a[idx] -= mv
            np.add.at(self.a, to, mv)
            np.subtract.at(size, pc[idx], mv)
            size[j] += mv.sum()
            gained += float(mv @ gain)
        return gained

    def improve(self, time_limit: float | None) -> None:
        t0 = time.perf_counter()
        deadline = None if time_limit is None else t0 + time_limit
        while True:
            gain = self.move() + self.close() + self.move() + self.open(deadline) + self.move()
            left = None if deadline is None else deadline - time.perf_counter()
            if left is not None and left <= 0:
                break
            gain += self.reassign(left)
            if gain <= _EPS or (deadline is not None and time.perf_counter() >= deadline):
                break


def round_lp(n, w, pair_type, pair_cand, k, y, g, *, time_limit: float | None = None) -> np.ndarray:
    """Rows per pair of a feasible integral assignment near the LP point ``(y, g)`` (module docstring).

    Parameters
    ----------
    n
        ``(T,)`` rows per type.
    w
        ``(C,)`` cost per row of each candidate.
    pair_type, pair_cand
        ``(P,)`` compatible pairs, sorted by candidate; some candidate must hold the whole table.
    k
        Smallest group size (the whole table has at least ``k`` rows).
    y, g
        ``(C,)`` and ``(P,)``: any point (an LP optimum, an unfinished master's, zeros); the result is
        feasible whatever they are.
    time_limit
        Seconds for the improvement (the rounding and placing always finish).

    Returns
    -------
    ``(P,)`` integral rows per pair: every type's rows released once, every used candidate with at least
    ``k`` rows.
    """
    s = _Assignment(n, w, pair_type, pair_cand, k)
    s.place(s.round(y, g))
    if time_limit is None or time_limit > 0:
        s.improve(time_limit)
    if not s.feasible():  # pragma: no cover - every step keeps the assignment feasible
        raise VerificationError("the LP rounding produced an assignment that is not a k-anonymous release")
    return np.rint(s.a)

