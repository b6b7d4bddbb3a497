"""Issue 93: a tree of its own — a branch-and-price prototype for k-anonymity by suppression.

Design note: ``benchmarks/experiments/branch_and_price.md``. Not the shipped engine: an experiment off the
package's path, with its tests (``test_branch_and_price.py``).

Model (``formulations/k-anonymity.md``): row types ``i`` (``n_i`` rows), candidates ``j`` (``w_j`` per row),
compatible pairs ``(i, j)``; ``y_j`` open, ``g_ij`` rows of ``i`` released as ``j``. Dualizing the rows
``Σ_j g_ij = n_i`` (multipliers ``π``) splits the model into one block per candidate, ``rc_j(π)``
(:func:`milp_anon.bounds.lagrangian.block_values`).

**Branching on ``y_j``.** A node fixes some candidates closed (``Z``) and some open (``O``). Neither changes
the blocks' structure, so the pricing stays exact and vectorized: a closed candidate's block is 0 (it is never
priced in), an open one's is ``rc_j(π)`` itself (its block at ``y_j = 1``: at least ``k`` units), a free one's
``min(0, rc_j(π))``. For **every** ``π``::

    L_node(π) = Σ_i π_i n_i + Σ_{j free} min(0, rc_j) + Σ_{j ∈ O} rc_j   <=   every solution of the node

(a solution of the node costs ``Σ_i π_i n_i + Σ_j Σ_i (w_j − π_i) g_ij``; an open candidate's block holds at least
``k`` units, so it contributes at least ``rc_j``; a free one ``rc_j`` or 0; a closed one 0). So a node is priced
first at its parent's multipliers (one pass over the pairs) and pruned there when that bound reaches the
incumbent, before any LP.

**Node LP.** One restricted master (:class:`milp_anon.bounds.lagrangian.RestrictedMaster`) for the whole tree: its
columns are kept from node to node; a node sets the bounds of its ``y`` columns (``[0, 0]`` on ``Z``, ``[1, 1]``
on ``O``) and runs the column generation from its parent's multipliers (Wentges smoothing, as the reduction's).
Artificial columns (cost ``M`` per row, one per type) keep every node's master feasible; they only cap ``π``, and
``L_node(π)`` is computed without them, so every bound stays valid. A node whose master converges with artificial
rows raises ``M`` until they leave or the bound reaches the incumbent (an infeasible node: ``L`` grows with ``M``).
When nothing prices out at the master's duals, ``L_node`` equals the node's LP.

**Closing a node.** A converged node whose master point has every ``y`` integral is solved: for the candidates at
``y = 1`` the assignment is a transportation problem (totally unimodular, Bredereck et al. 2013, Lemma 1), whose
optimum is at most the LP's and is integral; it becomes the incumbent and the node is closed.

**Reduced-cost fixing** against the incumbent ``U`` at every node (valid for the solutions cheaper than ``U``, the
only ones the tree still looks for): a free ``j`` with ``L − min(0, rc_j) + rc_j >= U`` is closed in the subtree,
one with ``L − min(0, rc_j) >= U`` opened.

**Order:** best bound first (ties: deeper first); nodes keep their parent's multipliers while fewer than
``max_open`` are open. **Incumbents:** the zero point rounded before the root (a limit reached in the root still
returns a table); the root's master point and every ``round_every``-th node's rounded by
:func:`milp_anon.search.lp_rounding.round_k_anonymity`; the restricted master heuristic (the MILP over the master's
candidates, at the root and every ``rmh_every``-th node: best-first never dives, and without it the first look
stayed 6 units above a bound already at the optimum); the closed nodes' transportation solutions. Every table the
wrapper :func:`solve` returns passed :meth:`milp_anon.release.verified.Release.verified`.

The tree's bound at any stop is the least bound of the open nodes (and of the node being solved), rounded up to
the objective's grid.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass, field

import highspy
import numpy as np

from milp_anon.bounds.lagrangian import _first_master, block_values
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.tuning import Tuning
from milp_anon.search.lp_rounding import round_k_anonymity
from milp_anon.solvers.highs_banner import new_highs

FREE, CLOSED, OPEN = 0, -1, 1
#: a y value this close to 0 or 1 counts as integral
INTEGRAL_TOL = 1e-6
#: the master's value and L agree to this relative tolerance: the node's LP has converged
CONVERGED_TOL = 1e-9
#: rounds of reduced-cost fixing per node (each may change the node's LP)
FIXING_ROUNDS = 3
#: the restricted master heuristic: at most this share of the time left, and this many seconds, per call
RMH_SHARE, RMH_SECONDS = 0.2, 10.0


@dataclass(order=True)
class _Node:
    key: tuple
    zero: tuple = field(compare=False)  # the branching's closed candidates (sorted)
    one: tuple = field(compare=False)  # ... and open ones
    fixed: dict = field(compare=False)  # reduced-cost fixings inherited: candidate -> CLOSED / OPEN
    pi: np.ndarray | None = field(compare=False)
    bound: float = field(compare=False)
    depth: int = field(compare=False)


@dataclass
class TreeOutcome:
    """What :class:`BranchAndPrice` ends with: the best assignment's rows per pair, its cost, the tree's bound (on
    the grid), the status and counts; ``trace`` (with ``trace=True``) one entry per node evaluated."""

    assignment: np.ndarray | None
    cost: float
    bound: float
    status: str
    nodes: int
    open_nodes: int
    pruned_early: int
    closed_integral: int
    root_lp: float
    root_bound: float
    first_incumbent: float
    seconds: float
    incumbents: list = field(default_factory=list)
    trace: list = field(default_factory=list)


class BranchAndPrice:
    """Best-first branch-and-price over the candidates' ``y_j`` (module docstring).

    ``accept(a)``: called with every integral assignment the tree finds (``(P,)`` rows per pair, feasible); returns
    its cost as verified by the caller (``None``: the arrays' own count). The tree keeps the cheapest."""

    def __init__(self, n, w, pair_type, pair_cand, k: int, *, grid: ObjectiveGrid | None = None,
                 time_limit: float | None = None, node_limit: int | None = None, rc_fixing: bool = True,
                 smoothing: float = 0.5, round_every: int = 10, max_open: int = 10_000, accept=None,
                 trace: bool = False, max_add: int = 300, rmh_every: int = 100, ub: float = math.inf):
        self.n = np.asarray(n, dtype=float)
        self.w = np.asarray(w, dtype=float)
        self.pt = np.asarray(pair_type, dtype=np.int64)
        self.pc = np.asarray(pair_cand, dtype=np.int64)
        self.k = int(k)
        self.T, self.C, self.P = self.n.size, self.w.size, self.pt.size
        self.grid = grid or ObjectiveGrid.of_costs(self.w)
        self.time_limit, self.node_limit = time_limit, node_limit
        self.rc_fixing, self.smoothing, self.round_every = rc_fixing, smoothing, round_every
        self.max_open, self.accept, self.tracing, self.max_add = max_open, accept, trace, max_add
        self.rmh_every = rmh_every
        self.t0 = time.perf_counter()
        self.ub, self.best = float(ub), None  # ub: a table known from outside (the tree seeks cheaper ones)
        self.incumbents: list = []
        self.trace: list = []
        self.counts = dict(nodes=0, pruned_early=0, closed_integral=0)
        self.master, start = _first_master(self.n, self.w, self.pt, self.pc, self.k, None, False, Tuning())
        self.pi_root = start[0]
        # artificial columns, two per type row (rows missing, rows in excess: open candidates may need more rows
        # than their types have), cost M per row; M above any table's cost to start with
        self.M = float(self.w.max() * self.n.sum() + 1.0)
        T2 = 2 * self.T
        self.art = np.arange(self.master.cols, self.master.cols + T2, dtype=np.int32)
        self.master.h.addCols(T2, np.full(T2, self.M), np.zeros(T2), np.full(T2, highspy.kHighsInf), T2,
                              np.arange(T2, dtype=np.int32), np.tile(np.arange(self.T, dtype=np.int32), 2),
                              np.repeat([1.0, -1.0], self.T))
        self.master.cols += T2
        self.ids = itertools.count()

    # -- bounds ------------------------------------------------------------------------------------
    def left(self) -> float | None:
        return None if self.time_limit is None else self.time_limit - (time.perf_counter() - self.t0)

    def price(self, pi, state):
        """``(L_node(π), blocks)`` for the node's candidate states (module docstring)."""
        bv = block_values(pi, self.n, self.w, self.pt, self.pc, self.k)
        rc = bv.rc
        value = float(pi @ self.n) + float(np.minimum(rc[state == FREE], 0.0).sum()) + float(rc[state == OPEN].sum())
        return value, bv

    def proven(self, value: float) -> float:
        """A bound on the grid (``±inf`` stay: a node without solutions, a node not priced yet)."""
        return value if not math.isfinite(value) else self.grid.ceil(value)

    def prunes(self, value: float) -> bool:
        return self.proven(value) >= self.ub - 1e-9

    # -- the node's LP -------------------------------------------------------------------------------
    def set_bounds(self, state) -> None:
        m = self.master
        js = np.flatnonzero(m.in_master)
        lo = (state[js] == OPEN).astype(float)
        hi = (state[js] != CLOSED).astype(float)
        m.h.changeColsBounds(js.size, m.y_col[js].astype(np.int32), lo, hi)

    def ensure_open_in_master(self, state) -> None:
        js = np.flatnonzero((state == OPEN) & ~self.master.in_master)
        if js.size:  # with all their pairs: a forced candidate must be able to hold k rows in the master
            self.master.add_with_pairs(js, np.ones(self.P, dtype=bool))

    def node_lp(self, state, pi_start, bound):
        """Column generation at the node: ``(bound, π_best, L_node(π_best), blocks there, converged, master point or
        None)``; stops as soon as the bound prunes the node. ``bound`` may exceed ``L_node(π_best)`` (it holds the
        parent's); the reduced-cost fixing needs the ``L`` of the ``π`` it prices at."""
        m, T = self.master, self.T
        self.ensure_open_in_master(state)
        self.set_bounds(state)
        best_pi = pi_start
        best_val, best_bv = self.price(pi_start, state)
        bound = max(bound, best_val)
        if self.prunes(bound):
            return bound, best_pi, best_val, best_bv, False, None
        while True:
            left = self.left()
            if left is not None and left <= 0:
                return bound, best_pi, best_val, best_bv, False, None
            solved = m.solve(left)
            if solved is None or not math.isfinite(solved[0]):
                if self.left() is None or self.left() > 0:  # pragma: no cover - the artificials keep it feasible
                    raise RuntimeError("the node's master failed before the time limit")
                return bound, best_pi, best_val, best_bv, False, None
            value, duals = solved
            pi_m = duals[:T]
            alpha = self.smoothing
            while True:  # price at the smoothed point; at the master's duals when nothing enters there
                pi = pi_m if alpha == 0 else alpha * best_pi + (1 - alpha) * pi_m
                val, bv = self.price(pi, state)
                if val > best_val:
                    best_val, best_pi, best_bv = val, pi, bv
                enter_c, enter_p = self.entering(state, bv)
                if enter_c.size or enter_p.size or alpha == 0:
                    break
                alpha = 0.0
            bound = max(bound, best_val)
            if self.prunes(bound):
                return bound, best_pi, best_val, best_bv, False, None
            converged = alpha == 0 and not enter_c.size and not enter_p.size
            converged |= best_val >= value - CONVERGED_TOL * max(1.0, abs(value))
            if converged:
                art = np.asarray(m.h.getSolution().col_value)[self.art]
                if art.sum() > 1e-9:  # the master needs its artificial rows: raise M (module docstring)
                    if self.M > 1e15:  # pragma: no cover - an infeasible node's L grows with M long before
                        raise RuntimeError("artificial rows left at M = 1e15")
                    self.M *= 10.0
                    m.h.changeColsCost(self.art.size, self.art, np.full(self.art.size, self.M))
                    continue
                return bound, best_pi, best_val, best_bv, True, m.primal()
            if enter_c.size > self.max_add:
                enter_c = enter_c[np.argsort(bv.rc[enter_c], kind="stable")[: self.max_add]]
            m.add_pairs(enter_p)
            if enter_c.size:
                m.add_with_pairs(enter_c, bv.taken)
                self.set_bounds(state)

    def entering(self, state, bv):
        """Candidates outside the master whose block is negative (free) or which are open, and pairs their block
        takes that the master lacks for its own candidates: nothing enters exactly when each block at ``π``
        equals its restriction to the master, i.e. ``L_node(π)`` is the master's value."""
        m = self.master
        relevant = (state == OPEN) | ((state == FREE) & (bv.rc < -1e-9))
        enter_c = np.flatnonzero(relevant & ~m.in_master)
        held = relevant & m.in_master
        enter_p = np.flatnonzero(bv.taken & held[self.pc] & ~m.pair_in)
        return enter_c, enter_p

    # -- incumbents ------------------------------------------------------------------------------------
    def offer(self, a: np.ndarray, source: str) -> None:
        cost = float(self.w[self.pc] @ a)
        if self.grid.ceil(cost) >= self.ub - 1e-9:
            return
        if self.accept is not None:
            verified = self.accept(a)
            cost = cost if verified is None else float(verified)
        if cost < self.ub - 1e-9:
            self.ub, self.best = cost, a
            self.incumbents.append((round(time.perf_counter() - self.t0, 3), cost, source))

    def round_point(self, y, g, source: str = "rounding") -> None:
        left = self.left()
        budget = 2.0 if left is None else max(0.0, min(2.0, 0.1 * left))
        self.offer(round_k_anonymity(self.n, self.w, self.pt, self.pc, self.k, y, g, time_limit=budget), source)

    def restricted_mip(self) -> None:
        """The restricted master heuristic (price-and-branch): the MILP over the master's candidates with all their
        pairs, by HiGHS within ``RMH_SHARE`` of the time left (at most ``RMH_SECONDS``), cut off at the incumbent;
        its ``y`` then gets the exact transportation assignment. The whole-table candidate is in every master,
        so the MILP is feasible; what it finds is an upper bound only."""
        left = self.left()
        limit = RMH_SECONDS if left is None else min(RMH_SECONDS, RMH_SHARE * left)
        if limit <= 0.05:
            return
        js = np.flatnonzero(self.master.in_master)
        at = np.full(self.C, -1, dtype=np.int64)
        at[js] = np.arange(js.size)
        ps = np.flatnonzero(at[self.pc] >= 0)
        q, c, T = ps.size, js.size, self.T
        h = new_highs()
        h.setOptionValue("time_limit", float(limit))
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("threads", 1)
        if math.isfinite(self.ub):
            h.setOptionValue("objective_bound", float(self.ub - 0.5 * self.grid.step))
        h.addVars(c, np.zeros(c), np.ones(c))
        h.changeColsIntegrality(c, np.arange(c, dtype=np.int32), np.full(c, highspy.HighsVarType.kInteger))
        h.addVars(q, np.zeros(q), self.n[self.pt[ps]])
        gcol = (c + np.arange(q)).astype(np.int32)
        h.changeColsCost(q, gcol, self.w[self.pc[ps]])
        # assign rows, then k rows, then links, row by row in CSR
        order = np.argsort(self.pt[ps], kind="stable")
        starts = np.searchsorted(self.pt[ps][order], np.arange(T)).astype(np.int32)
        h.addRows(T, self.n, self.n, q, starts, gcol[order], np.ones(q))
        ycol = at[self.pc[ps]].astype(np.int32)
        per = np.bincount(ycol, minlength=c) + 1
        kst = np.concatenate([[0], np.cumsum(per)[:-1]]).astype(np.int32)
        idx = np.empty(int(per.sum()), dtype=np.int32)
        val = np.ones(idx.size)
        idx[kst], val[kst] = np.arange(c, dtype=np.int32), -float(self.k)
        rest = np.ones(idx.size, dtype=bool)
        rest[kst] = False
        idx[rest] = gcol  # pairs are sorted by candidate, like js
        h.addRows(c, np.zeros(c), np.full(c, highspy.kHighsInf), idx.size, kst, idx, val)
        link_idx = np.column_stack([gcol, ycol]).ravel()
        link_val = np.column_stack([np.ones(q), -self.n[self.pt[ps]]]).ravel()
        h.addRows(q, np.full(q, -highspy.kHighsInf), np.zeros(q), 2 * q, np.arange(0, 2 * q, 2, dtype=np.int32),
                  link_idx, link_val)
        h.run()
        sol = h.getSolution()
        if not sol.value_valid or h.getInfo().primal_solution_status != 2:  # 2: a feasible solution
            return
        y = np.zeros(self.C, dtype=bool)
        y[js] = np.asarray(sol.col_value)[:c] > 0.5
        a = self.transport(y)
        if a is not None:
            self.offer(a, "restricted master MILP")

    def transport(self, open_mask: np.ndarray) -> np.ndarray | None:
        """The cheapest assignment into the candidates ``open_mask``, each holding at least ``k`` rows (a
        transportation problem: HiGHS's simplex vertex is integral); ``None`` if there is none."""
        ps = np.flatnonzero(open_mask[self.pc])
        js = np.flatnonzero(open_mask)
        at = np.full(self.C, -1, dtype=np.int64)
        at[js] = np.arange(js.size)
        h = new_highs()
        q = ps.size
        h.addRows(self.T, self.n, self.n, 0, np.zeros(self.T, np.int32), np.zeros(0, np.int32), np.zeros(0))
        h.addRows(js.size, np.full(js.size, float(self.k)), np.full(js.size, highspy.kHighsInf), 0,
                  np.zeros(js.size, np.int32), np.zeros(0, np.int32), np.zeros(0))
        rows = np.column_stack([self.pt[ps], self.T + at[self.pc[ps]]]).ravel().astype(np.int32)
        h.addCols(q, self.w[self.pc[ps]], np.zeros(q), self.n[self.pt[ps]], 2 * q,
                  np.arange(0, 2 * q, 2, dtype=np.int32), rows, np.ones(2 * q))
        h.setOptionValue("solver", "simplex")
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        a = np.zeros(self.P)
        a[ps] = np.rint(np.asarray(h.getSolution().col_value))
        placed = np.bincount(self.pt, weights=a, minlength=self.T)
        sizes = np.bincount(self.pc, weights=a, minlength=self.C)
        if not (np.allclose(placed, self.n) and np.all(sizes[js] >= self.k)):  # pragma: no cover - TU
            return None
        return a

    # -- reduced-cost fixing -----------------------------------------------------------------------------------
    def fixings(self, state, value, bv) -> dict:
        """Candidates fixed against the incumbent at ``(π, L = value)`` (module docstring)."""
        if not self.rc_fixing or not math.isfinite(self.ub):
            return {}
        rc = bv.rc
        base = value - np.minimum(rc, 0.0)
        free = state == FREE
        close = free & (self.grid.ceil_array(base + rc) >= self.ub - 1e-9)
        open_ = free & (rc < 0) & (self.grid.ceil_array(base) >= self.ub - 1e-9)
        out = {int(j): CLOSED for j in np.flatnonzero(close)}
        out.update({int(j): OPEN for j in np.flatnonzero(open_)})
        return out

    # -- the tree -----------------------------------------------------------------------------------------
    def state_of(self, node: _Node) -> np.ndarray:
        state = np.zeros(self.C, dtype=np.int8)
        for j, s in node.fixed.items():
            state[j] = s
        state[list(node.zero)] = CLOSED
        state[list(node.one)] = OPEN
        return state

    def solve_node(self, node: _Node, heap: list) -> float:
        """Evaluate one node: prune, close, or branch (children pushed); returns its final bound."""
        state = self.state_of(node)
        pi = self.pi_root if node.pi is None else node.pi
        early, _ = self.price(pi, state)
        bound = max(node.bound, early)
        if self.prunes(bound):
            self.counts["pruned_early"] += 1
            return bound
        fixed = dict(node.fixed)
        for _ in range(FIXING_ROUNDS + 1):
            bound, pi, value, bv, converged, point = self.node_lp(state, pi, bound)
            if self.prunes(bound) or not converged:
                break
            new = {j: s for j, s in self.fixings(state, value, bv).items() if state[j] == FREE}
            if not new:
                break
            fixed.update(new)
            for j, s in new.items():
                state[j] = s
        if self.prunes(bound):
            return bound
        if not converged:  # stopped by the time limit: the node stays open
            heapq.heappush(heap, _Node((bound, -node.depth, next(self.ids)), node.zero, node.one, fixed, pi, bound,
                                       node.depth))
            return bound
        y, g = point
        if self.counts["nodes"] == 1 or (self.round_every and self.counts["nodes"] % self.round_every == 0):
            self.round_point(y, g)
        if self.rmh_every and (self.counts["nodes"] - 1) % self.rmh_every == 0:
            self.restricted_mip()
        frac = np.minimum(y, 1.0 - y)
        if frac.max() <= INTEGRAL_TOL:  # an integral y: the transportation problem solves the node
            a = self.transport(y > 0.5)
            if a is not None:
                self.counts["closed_integral"] += 1
                self.offer(a, "integral node")
                if self.prunes(bound):
                    return bound
            raise RuntimeError("an integral master point without an equally cheap assignment")  # pragma: no cover
        j = int(np.argmax(frac - 1e-9 * self.w * (frac > INTEGRAL_TOL)))  # most fractional; ties: the cheapest
        keep_pi = pi if len(heap) < self.max_open else None
        for zero, one in ((node.zero + (j,), node.one), (node.zero, node.one + (j,))):
            heapq.heappush(heap, _Node((bound, -(node.depth + 1), next(self.ids)), tuple(sorted(zero)),
                                       tuple(sorted(one)), fixed, keep_pi, bound, node.depth + 1))
        return bound

    def run(self) -> TreeOutcome:
        heap = [_Node((-math.inf, 0, next(self.ids)), (), (), {}, None, -math.inf, 0)]
        root_bound, first, stop = -math.inf, math.inf, None
        # a table before any LP (the zero point rounded), so that a limit reached in the root still returns one
        if not math.isfinite(self.ub):
            self.round_point(np.zeros(self.C), np.zeros(self.P), source="zero point")
        while heap:
            left = self.left()
            if left is not None and left <= 0:
                stop = "time_limit"
                break
            if self.node_limit is not None and self.counts["nodes"] >= self.node_limit:
                stop = "node_limit"
                break
            node = heapq.heappop(heap)
            if self.prunes(node.bound):
                continue
            self.counts["nodes"] += 1
            ub_before = self.ub
            bound = self.solve_node(node, heap)
            if self.counts["nodes"] == 1:
                root_bound = bound
                first = self.ub  # the zero point's and the root's roundings
            if self.tracing:
                self.trace.append(dict(zero=node.zero, one=node.one, fixed=dict(node.fixed), bound=self.proven(bound),
                                       ub=ub_before))
        # open nodes whose bound reaches the incumbent are pruned: they do not lower the tree's bound
        tree_bound = min([self.ub] + [self.proven(nd.bound) for nd in heap])
        status = "optimal" if tree_bound >= self.ub - 1e-9 else (stop or "time_limit")
        return TreeOutcome(self.best, self.ub, tree_bound, status, self.counts["nodes"], len(heap),
                           self.counts["pruned_early"], self.counts["closed_integral"], root_bound,
                           self.proven(root_bound), first, time.perf_counter() - self.t0, self.incumbents, self.trace)


# -- a table and a request: the prototype end to end ---------------------------------------------------------
@dataclass
class Solved:
    """:func:`solve`'s outcome: the verified release, its cost, the tree's bound and the tree."""

    release: object
    cost: float
    bound: float
    status: str
    tree: TreeOutcome


def solve(table, k: int, *, time_limit: float | None = None, node_limit: int | None = None, **options) -> Solved:
    """k-anonymity by suppression of ``table`` (a :class:`milp_anon.Table`) by the prototype tree; every incumbent
    it keeps passed :meth:`Release.verified`."""
    import milp_anon as ma
    from milp_anon.formulations.assignment import release_assignment
    from milp_anon.pipeline.solve import prepare
    from milp_anon.release.result import Timings
    from milp_anon.release.verified import Release

    request = ma.Request(ma.KAnonymity(k))
    instance, _, why = prepare(table, request, Timings())
    if why:
        raise ValueError(why)
    c, ty = instance.candidates, instance.types
    releases = {}

    def accept(a):
        released, groups, cost = release_assignment(instance, c.pair_type, c.pair_cand, a)
        rel = Release.verified(instance.table, request, released, cost=cost, groups=groups, source="branch-and-price")
        releases[float(rel.objective)] = rel
        return rel.objective

    bp = BranchAndPrice(ty.counts, c.cost, c.pair_type, c.pair_cand, k, grid=ObjectiveGrid.of_costs(c.cost),
                        time_limit=time_limit, node_limit=node_limit, accept=accept, **options)
    out = bp.run()
    rel = releases.get(float(out.cost))
    return Solved(rel, out.cost, out.bound, out.status, out)


def first_look(rows: int, qis: int, k: int, limit: float) -> dict:
    """The prototype and ``ma.anonymize`` (defaults) on Adult's first ``rows`` rows at ``qis`` QIs, each for
    ``limit`` s, one after the other: a first look, not a benchmark."""
    import milp_anon as ma
    from benchmarks.common import ADULT_QI
    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult().head(rows), list(ADULT_QI[:qis]))
    t0 = time.perf_counter()
    s = solve(table, k, time_limit=limit)
    tree_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = ma.anonymize(table, ma.KAnonymity(k), time_limit=limit)
    tr = s.tree
    return dict(rows=rows, qis=list(ADULT_QI[:qis]), k=k, limit=limit,
                tree=dict(status=s.status, cost=s.cost, bound=s.bound, verified=s.release is not None,
                          root_bound=tr.root_bound, first=tr.first_incumbent, nodes=tr.nodes, open=tr.open_nodes,
                          pruned_early=tr.pruned_early, closed_integral=tr.closed_integral,
                          seconds=round(tree_seconds, 1), incumbents=tr.incumbents),
                anonymize=dict(status=str(r.status), cost=r.objective, bound=r.bound,
                               seconds=round(time.perf_counter() - t0, 1)))


if __name__ == "__main__":
    import argparse
    import json

    ap = argparse.ArgumentParser(description=first_look.__doc__)
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--qis", type=int, default=5)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--limit", type=float, default=25.0)
    a = ap.parse_args()
    print(json.dumps(first_look(a.rows, a.qis, a.k, a.limit), indent=1, default=str))
