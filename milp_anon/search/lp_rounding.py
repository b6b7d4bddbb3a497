"""LP rounding: a verified table read off a fractional point of the assignment model's LP.

Two roundings, one per model (both heuristics: they prove nothing, and every
table they give goes through the verifier like any other):

* :func:`round_k_anonymity` — k-anonymity alone, from the column
  generation's master LP (the Lagrangian reduction's incumbents,
  :mod:`milp_anon.reduction`);
* :func:`round_with_criteria` — sensitive criteria, from the LP relaxation
  of the whole model (the relaxation stage,
  :mod:`milp_anon.pipeline.relaxation`), with :func:`slack_lp` giving the
  rounding room under t-closeness.

Rounding for k-anonymity
------------------------
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

Rounding with criteria
----------------------
Where the criteria bind for most groups (t-closeness under equal or hierarchical distance on Adult), the
greedies stay far from the LP: at 2 QIs (sex, age), 0.2-closeness (equal), the pattern greedy with criteria
suppresses 12,760 cells against an LP of 6,499, and HiGHS, started from that table, finds nothing better in
1,500 s. The LP's groups are close to meeting the criteria: it already splits every unit (a row type with one
sensitive value vector) among the candidates so that each group meets their rows, only fractionally.

**Rounding.** Per unit, every (unit, candidate) pair gets the floor of its LP value and the unit's remaining
rows go one each to its pairs with the largest fractional parts (largest remainder), so every row has a
candidate and every group keeps its LP composition to within a row per unit. A group that then fails the
criteria (or has fewer than ``k`` rows) releases its largest part that meets them, trimmed as in
:mod:`.criteria_greedy` (rows of the most over-represented sensitive value leave first).

**The rows trimmed** are placed by one pass over the candidates in order of cost per row: a candidate that
holds a group takes as many of the compatible rows as keep it meeting the criteria (rows of the values it
lacks most first; the largest number by doubling and bisection), and one without a group opens one with the
largest part of the compatible rows that meets them, when there are at least ``k``. The rows still left go
to the whole-table candidate as in the pattern greedy with criteria: groups lend it the values it lacks,
then are dissolved into it, until it meets the criteria. Every group is a candidate's, so the release is
the model's own (``release_assignment``) and goes through the verifier.

**Room for the rounding** (:func:`slack_lp`, t-closeness). The LP leaves most groups exactly at distance
``t``, and rounded to whole rows most of them fail. The LP solved again with each candidate's closeness row
tightened by one row's room (``t − d/s_j``, ``d`` the least ground distance) rounds into a far better table.

Time: the LP (the caller's), then ``O(C · n)`` for the pass plus ``O(log n)`` group tests per group. No
approximation guarantee; measured in ``benchmarks/results/lp_rounding_goal_4qi_*.md``.
"""

from __future__ import annotations

import time

import highspy
import numpy as np

from milp_anon.bounds.lagrangian import block_values
from milp_anon.formulations.assignment import release_assignment
from milp_anon.formulations.partial_split import _lookup
from milp_anon.heuristics.criteria_greedy import _close_all_suppressed, _excess, _largest_meeting, _trimmed_column
from milp_anon.privacy.criteria import GroupCounts, TCloseness, first_violation
from milp_anon.runtime.errors import VerificationError
from milp_anon.search.starts import whole_table_candidate
from milp_anon.solvers.highs_banner import new_highs, run_here

__all__ = ["round_k_anonymity", "round_units", "round_with_criteria", "slack_lp", "slack_support"]

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
        if time_limit is not None:
            h.setOptionValue("time_limit", max(0.1, float(time_limit)))
        h.addRows(T, self.n, self.n, 0, np.zeros(T, np.int32), np.zeros(0, np.int32), np.zeros(0))
        m = uj.shape[0]
        h.addRows(m, np.full(m, self.k), np.full(m, highspy.kHighsInf), 0, np.zeros(m, np.int32),
                  np.zeros(0, np.int32), np.zeros(0))
        rows = np.column_stack([self.pt[ps], row_of[self.pc[ps]]]).ravel().astype(np.int32)
        h.addCols(q, self.w[self.pc[ps]], np.zeros(q), self.n[self.pt[ps]], 2 * q,
                  np.arange(0, 2 * q, 2, dtype=np.int32), rows, np.ones(2 * q))
        run_here(h)
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


def round_k_anonymity(n, w, pair_type, pair_cand, k, y, g, *, time_limit: float | None = None) -> np.ndarray:
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


#: the slack of the rounding's LP: each candidate's t-closeness row is tightened to ``t − SLACK_ROWS · d / s``,
#: ``s`` its group's size in the first LP (at least ``k``), ``d`` the metric's least ground distance, so the
#: group stays t-close when that many rows move that far; measured best at 1 on Adult at 2 and 3 QIs under
#: equal distance (0.5, 1.5 and 2: worse at both) and, with ``d = 1/2``, under the occupation hierarchy at
#: 3 QIs (``d = 1`` instead: 0.2 4,931 against 4,741, 0.3 2,282 against 2,097)
SLACK_ROWS = 1.0
#: ... and never below this share of ``t``
SLACK_FLOOR = 0.5
#: a candidate whose group the first LP leaves at most this size is closed in the slack LP
SUPPORT_TOL = 1e-9


def round_units(x: np.ndarray, pair_unit: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Integer rows per (unit, candidate) pair from LP values ``x``: the floors, then each unit's remaining
    rows one each to its pairs of largest fractional part. Every unit's rows sum to its count; ``None``
    when the floors alone exceed a unit's count or a value is not finite (``x`` far from the assignment
    rows)."""
    x = np.clip(np.asarray(x, dtype=float), 0.0, None)
    if not np.isfinite(x).all():
        return None
    g = np.floor(x + 1e-9).astype(np.int64)
    U = counts.shape[0]
    rest = np.asarray(counts, dtype=np.int64) - np.bincount(pair_unit, weights=g, minlength=U).astype(np.int64)
    if (rest < 0).any():
        return None
    order = np.lexsort((-(x - g), pair_unit))
    by_unit = pair_unit[order]
    rank = np.arange(order.size) - np.searchsorted(by_unit, np.arange(U))[by_unit]
    took = rank < rest[by_unit]
    g[order[took]] += 1
    # more rows left than pairs (LP values far from the assignment rows): the unit's first pair takes them
    short = rest - np.bincount(by_unit, weights=took, minlength=U).astype(np.int64)
    lack = np.flatnonzero(short > 0)
    g[order[np.searchsorted(by_unit, lack)]] += short[lack]
    return g


def slack_lp(lp, am, sizes: np.ndarray, k: int):
    """``lp`` (the LP relaxation of ``am``'s model) with room for the rounding: every candidate's t-closeness
    row tightened from ``t`` to ``t_j = max(t − SLACK_ROWS · d / max(s_j, k), SLACK_FLOOR · t)``, where
    ``s_j`` are the group sizes ``sizes`` of an optimal solution of ``lp``, ``k`` the least group size and
    ``d`` the metric's least ground distance (``None`` without t-closeness rows).

    Why. The LP puts nearly every group exactly at distance ``t``; rounded to whole rows most of them fail and
    are trimmed, and trimmed rows cost stars elsewhere (module docstring). One row moved into or out of a group
    of ``s`` rows changes its distribution by ``1/s`` in total variation, and its EMD by ``d/s`` when that
    mass moves the least distance (by at most ``1/s``: every ground distance is at most 1), so a group at
    ``t_j`` keeps one such row's change of slack. The LP's optimum
    over ``t_j`` is no bound (it is a restriction); it only guides the rounding, whose table is verified at
    ``t``. On Adult, 0.2-closeness (equal), the rounded table goes 7,860 → 7,358 at 2 QIs and 12,979 →
    10,877 at 3 QIs (uniformly tightened ``t`` at best 7,454 and 11,684).

    **Over the first LP's groups.** Every candidate whose group is empty in that solution (``s_j`` at most
    ``SUPPORT_TOL``) is closed (its ``y_j`` and pairs fixed at 0), except the whole-table candidate, which
    keeps the restriction feasible (all rows in it: distance 0). A restriction of a restriction, for speed:
    at 4 QIs, 0.2-closeness (equal), 714 of 1,840 candidates stay open, and the slack LP takes 21 s
    (presolve on) against more than 250 s over all of them, with LP 16,744 against 16,514 and the rounding
    17,773 against 17,818."""
    if not am.closeness_rows:
        return None
    sizes = np.asarray(sizes, dtype=float)
    floor = np.maximum(sizes, float(max(k, 1)))
    out = lp
    for block, t, d in am.closeness_rows:
        t = float(t)
        if t <= 0:  # t = 0 leaves no room to take
            continue
        t_j = np.maximum(t - SLACK_ROWS * d / floor, SLACK_FLOOR * t)
        out = out.with_scaled(block, am.size_columns, t_j / t)
    closed = ~slack_support(am, sizes)
    return out.with_fixed(np.concatenate([am.y[closed], am.g[closed[am.pair_cand]]]))


def slack_support(am, sizes: np.ndarray) -> np.ndarray:
    """The candidates open in the slack LP (:func:`slack_lp`), a bool per candidate: those whose group is not
    empty in the first LP's solution (group sizes ``sizes``) and the whole-table candidate; every candidate
    when there is none (nothing would keep the restriction feasible)."""
    root = whole_table_candidate(am.cands, am.table.n)
    if root is None:
        return np.ones(am.cands.n_candidates, dtype=bool)
    keep = np.asarray(sizes, dtype=float) > SUPPORT_TOL
    keep[root] = True
    return keep


def round_with_criteria(instance, criteria, pair_unit: np.ndarray, pair_cand: np.ndarray, x: np.ndarray):
    """A release of ``instance`` meeting ``criteria`` from LP values ``x`` of the (unit, candidate) pairs
    (module docstring): ``(released frame, groups, cost)`` for :meth:`Release.verified`, or ``None`` when
    the instance has no whole-table candidate or no sensitive column."""
    table, cands, units = instance.table, instance.candidates, instance.units
    root = whole_table_candidate(cands, table.n)
    if root is None or not table.sensitive:
        return None
    criteria = list(criteria)
    k = max(c.min_group_size() for c in criteria)
    base = GroupCounts.of(table, [])
    col = _trimmed_column(criteria, table)
    V = len(table.sensitive_values[col])
    share = base.whole[col] / table.n
    closeness = any(isinstance(c, TCloseness) for c in criteria)
    values = table.sensitive_codes[:, col]

    def meets(rows) -> bool:
        return first_violation(criteria, base.of_rows(table, rows)) is None

    g = round_units(x, pair_unit, units.counts)
    if g is None:
        return None
    # the rows of each unit, dealt to its pairs in pair order
    rows_by_unit = np.argsort(units.row_unit, kind="stable")
    unit_start = np.searchsorted(units.row_unit[rows_by_unit], np.arange(units.n_units))
    order = np.lexsort((pair_cand, pair_unit))
    pu, pc, gs = pair_unit[order], pair_cand[order], g[order]
    before = np.cumsum(gs) - gs - np.concatenate([[0], np.cumsum(gs)])[np.searchsorted(pu, pu)]
    C = cands.n_candidates
    members: list[list[np.ndarray]] = [[] for _ in range(C)]
    for p in np.flatnonzero(gs > 0):
        s = unit_start[pu[p]] + before[p]
        members[pc[p]].append(rows_by_unit[s:s + gs[p]])
    groups: dict[int, np.ndarray] = {}
    left = []
    for j in range(C):
        if not members[j]:
            continue
        rows = np.concatenate(members[j])
        if j == root:
            left.append(rows)
            continue
        keep = _largest_meeting(rows, values[rows], V, share, closeness, k, meets) if rows.size >= k else None
        if keep is None:
            left.append(rows)
            continue
        groups[j] = keep
        if keep.size < rows.size:
            left.append(np.setdiff1d(rows, keep, assume_unique=True))
    left = np.concatenate(left) if left else np.zeros(0, dtype=np.int64)
    # the pass: every candidate but the root, cheapest first
    row_type = units.unit_type[units.row_unit]
    by_cand = np.argsort(cands.pair_cand, kind="stable")
    cand_start = np.searchsorted(cands.pair_cand[by_cand], np.arange(C + 1))
    for j in np.argsort(cands.cost, kind="stable"):
        if left.size == 0:
            break
        if j == root:
            continue
        types = cands.pair_type[by_cand[cand_start[j]:cand_start[j + 1]]]
        pool = left[np.isin(row_type[left], types)]
        if pool.size == 0:
            continue
        if j in groups:
            add = _largest_addition(groups[j], pool, values, V, share, closeness, meets)
            if add.size:
                groups[j] = np.concatenate([groups[j], add])
        elif pool.size >= k:
            add = _largest_meeting(pool, values[pool], V, share, closeness, k, meets)
            if add is None:
                continue
            groups[j] = add
        else:
            continue
        left = np.setdiff1d(left, add, assume_unique=True)
    # the whole-table candidate takes the rest (and what it must borrow or absorb to meet the criteria)
    ordered = sorted(groups.items(), key=lambda item: (-cands.cost[item[0]], -item[1].size))
    donors = [(rows, j) for j, rows in ordered]
    closed = _close_all_suppressed(left, donors, values, V, share, closeness, k, meets)
    if closed is None:  # the whole table meets the criteria (the pre-check), so this cannot happen
        return None
    absorbed = closed[1]
    cand_of_row = np.full(table.n, root, dtype=np.int64)
    for rows, j in donors[absorbed:]:
        cand_of_row[rows] = j
    # rows per (unit, candidate) pair of the instance's pairs
    key = units.row_unit.astype(np.int64) * C + cand_of_row
    pair_key = pair_unit.astype(np.int64) * C + pair_cand
    at = _lookup(pair_key, key)  # rows go to compatible candidates only, so every key is a pair's
    if not np.array_equal(pair_key[at], key):
        raise AssertionError("LP rounding placed a row in an incompatible candidate")
    gp = np.bincount(at, minlength=pair_key.size)
    return release_assignment(instance, pair_unit, pair_cand, gp)


def _largest_addition(rows, pool, values, V, share, closeness, meets) -> np.ndarray:
    """The most rows of ``pool`` that ``rows`` (a group meeting the criteria) can take and still meet them,
    in the order of :func:`_addition_order`: doubling, then bisection (the order makes the test close to
    monotone; whatever is returned was tested)."""
    order = _addition_order(values[rows], values[pool], V, share, closeness)
    good, n = 0, 1
    while n <= order.size and meets(np.concatenate([rows, pool[order[:n]]])):
        good, n = n, 2 * n
    hi = min(n, order.size + 1)
    while hi - good > 1:
        mid = (good + hi) // 2
        if meets(np.concatenate([rows, pool[order[:mid]]])):
            good = mid
        else:
            hi = mid
    return pool[order[:good]]


def _addition_order(group_values, pool_values, V, share, closeness) -> np.ndarray:
    """Positions in ``pool_values`` in the order they join a group with ``group_values``: each time a row of
    the value the group lacks most (the least :func:`~.criteria_greedy._excess` after the row joins)."""
    counts = np.bincount(group_values, minlength=V).astype(float)
    pos = [list(np.flatnonzero(pool_values == v)[::-1]) for v in range(V)]
    m = float(group_values.size)
    out = []
    for _ in range(pool_values.size):
        score = _excess(counts, m + 1, share, closeness)
        score[[not p for p in pos]] = np.inf
        v = int(np.argmin(score))
        out.append(pos[v].pop())
        counts[v] += 1
        m += 1
    return np.asarray(out, dtype=np.int64)
