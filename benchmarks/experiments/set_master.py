"""The set-partitioning master of k-anonymity with subset-row cuts over sets: a bound above the LP.

Problem. k-anonymity by suppression over row types ``i`` (``n_i`` rows)
and candidates ``j`` (cost ``w_j`` per row), as in
:mod:`milp_anon.bounds.lagrangian`. A **column** ``p`` is a group: a candidate ``j``
and ``a_ip`` rows of each compatible type (``0 <= a_ip <= n_i``,
``Σ_i a_ip >= k``), cost ``c_p = w_j Σ_i a_ip``::

    min  Σ_p c_p λ_p
    s.t. Σ_p a_ip λ_p = n_i                    every type i              (duals π_i)
         Σ_{p of j} λ_p <= 1                    every candidate j         (μ_j <= 0)
         Σ_p ⌊a_p(R) / 2⌋ λ_p <= 1              cut R: three single-row types, a_p(R) = Σ_{i∈R} a_ip  (σ_R <= 0)
         λ >= 0

Without cuts its LP is the assignment model's (each candidate's block is
its own convex hull, ``formulations/reduction.md``). A **subset-row cut**
(Jepsen, Petersen, Spoorendonk, Pisinger, "Subset-row inequalities applied
to the vehicle-routing problem with time windows", Oper. Res. 56 (2008)) says
that at most one group holds two or more of three rows; it is a Chvátal–Gomory
cut of rank 1 (multipliers ½ on three rows whose right-hand sides are 1), so
every integer solution meets it, and in these variables it is stronger than
its form in the assignment model's variables
(``benchmarks/results/subset_row_cuts_8qi.md``).

Pricing is exact. A column of ``j`` has reduced cost
``Σ_i (w_j − π_i) a_i − μ_j + Σ_R ρ_R ⌊a(R) / 2⌋`` with ``ρ_R = −σ_R >= 0``.
Where no cut with a positive ``ρ_R`` has two or more rows compatible with
``j``, this is :func:`milp_anon.bounds.lagrangian.block_prices` (a sort). Otherwise
every subset of the cut rows ``K`` compatible with ``j`` is enumerated
(``|K| <= ENUMERATE``: ``2^|K|`` subsets, vectorized) and the other types
are filled by the sort; a larger ``K`` goes to a small integer program whose
proven bound is used. Hence, for **every** ``(π, σ <= 0)``::

    L(π, σ) = Σ_i π_i n_i + Σ_R σ_R + Σ_j min(0, rc_j(π, σ))  <=  OPT

(the candidate's convexity row kept in its block: one group per candidate).
The bound reported is the best ``L`` seen, valid at every iteration whether
or not the column generation converged.

The master. Its LP is solved by HiGHS's interior point without crossover:
the master is dual degenerate (thousands of types, few columns each), and
a vertex's duals price poor columns; an interior point's are central.
Per type a surplus and a slack column keep ``π`` within a box around a
centre (du Merle, Villeneuve, Desrosiers, Hansen, Discrete Math. 194 (1999));
per cut a slack keeps ``−σ_R`` below the box width. The box moves to the
current duals when it binds and nothing prices out inside it (BoxStep,
Marsten, Hogan, Blankenship, Math. Program. 9 (1975)). The master starts
from the assignment LP's optimal point, split into integer groups
(:func:`decompose`).

Separation. Every triangle ``{a, b, c}`` of single-row types whose pairs
share columns of positive value: with ``P_ab`` the weight of the columns
holding ``a`` and ``b`` and ``T_abc`` of those holding all three, the cut's
left side is ``P_ab + P_ac + P_bc − 2 T_abc``. A violated cut needs all
three pairs (``a``'s columns weigh 1 in all, so two pairs alone sum to at
most 1 when the third is empty).

Complexity: a pricing round is ``O(P log P)`` plus ``2^|K|`` per candidate
touched by the cuts; the master is an LP over the columns generated.

What it is for: measuring the bound of branch-price-and-cut's root against
the LP and HiGHS's root (``benchmarks/experiments/set_master_run.py``,
``formulations/reduction.md``). It is not used by :func:`milp_anon.anonymize`.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import highspy
import numpy as np

from milp_anon.bounds.lagrangian import block_prices
from milp_anon.solvers.highs_banner import new_highs

__all__ = ["SetMaster", "MasterBound", "master_bound", "price", "decompose", "separate"]

#: the largest number of cut rows of one candidate priced by enumeration (2^ENUMERATE subsets)
ENUMERATE = 14
#: the dual box's default half-width (cost units): wide enough that the box is a safeguard, not a step. At
#: full scale it lets the duals after cuts run far (``L`` near −10⁷, ``set_master_6qi_k5.md``); ``box = 2``
#: converges there (``benchmarks/results/set_master_6qi_k5_box2.md``)
BOX = 100.0
#: the master's value and the best ``L`` closer than this (relative) end a column generation
GAP_TOL = 1e-6
INF = highspy.kHighsInf


def _empty():
    return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)


def _memberships(types, cut_types):
    """Every (entry, cut) with the entry's type among the cut's three: ``(entry index, cut index)``,
    for ``types`` ``(E,)`` and ``cut_types`` ``(R, 3)``."""
    mt = cut_types.ravel()
    mc = np.repeat(np.arange(cut_types.shape[0]), 3)
    o = np.argsort(mt, kind="stable")
    mt, mc = mt[o], mc[o]
    lo, hi = np.searchsorted(mt, types, "left"), np.searchsorted(mt, types, "right")
    cnt = hi - lo
    rep = np.repeat(np.arange(types.size), cnt)
    # position within the sorted memberships: lo of the entry plus its offset among its own
    pos = np.repeat(lo - np.concatenate([[0], np.cumsum(cnt)[:-1]]), cnt) + np.arange(rep.size)
    return rep, mc[pos]


class SetMaster:
    """The restricted set-partitioning master: rows, columns, cuts, and its HiGHS LP (module docstring)."""

    def __init__(self, n, w, pair_type, pair_cand, k):
        self.n = np.asarray(n, float)
        self.w = np.asarray(w, float)
        self.pt, self.pc, self.k = pair_type, pair_cand, k
        self.T, self.C = self.n.shape[0], self.w.shape[0]
        self.single = self.n == 1
        self.pstart = np.searchsorted(pair_cand, np.arange(self.C + 1))
        h = new_highs()
        h.setOptionValue("presolve", "off")
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "off")
        T, C = self.T, self.C
        h.addRows(T, self.n, self.n, 0, np.zeros(T, np.int32), np.zeros(0, np.int32), np.zeros(0))
        h.addRows(C, np.full(C, -INF), np.ones(C), 0, np.zeros(C, np.int32), np.zeros(0, np.int32), np.zeros(0))
        idx = np.arange(T, dtype=np.int32)
        h.addCols(2 * T, np.zeros(2 * T), np.zeros(2 * T), np.full(2 * T, INF), 2 * T,
                  np.arange(2 * T, dtype=np.int32), np.concatenate([idx, idx]),
                  np.concatenate([np.ones(T), -np.ones(T)]))
        self.h = h
        self.n_hcols = 2 * T
        self.col_hidx = np.zeros(0, np.int64)  # HiGHS's index of each group column
        self.cut_slack = np.zeros(0, np.int64)
        self.e_col, self.e_type, self.e_amt = _empty()  # the group columns' entries
        self.col_cand = np.zeros(0, np.int64)
        self.cuts: list[tuple[int, int, int]] = []
        self.cut_set: set[tuple[int, int, int]] = set()
        self.width = BOX

    @property
    def n_cols(self) -> int:
        return int(self.col_cand.shape[0])

    def pairs_of(self, j) -> np.ndarray:
        return np.arange(self.pstart[j], self.pstart[j + 1])

    def box(self, centre, width):
        """Keep ``π`` within ``centre ± width`` and every ``−σ_R`` below ``width``."""
        T = self.T
        self.h.changeColsCost(2 * T, np.arange(2 * T, dtype=np.int32),
                              np.concatenate([centre + width, -(centre - width)]))
        self.width = width
        if self.cut_slack.size:
            self.h.changeColsCost(self.cut_slack.size, self.cut_slack.astype(np.int32),
                                  np.full(self.cut_slack.size, width))

    def boxed(self, x) -> bool:
        """Whether a box column is in use: the master's value is then not its LP's."""
        used = x[:2 * self.T].max(initial=0.0)
        if self.cut_slack.size:
            used = max(used, x[self.cut_slack].max())
        return bool(used > 1e-6)

    def _cut_coefs(self, e_col, e_type, e_amt, cut_ids):
        """``(column, cut, coefficient ⌊a(R)/2⌋)`` over the given entries and cuts, nonzero ones only."""
        if not cut_ids.size or not e_col.size:
            return _empty()
        rep, cut = _memberships(e_type, np.array([self.cuts[c] for c in cut_ids], np.int64))
        if not rep.size:
            return _empty()
        nc = len(self.cuts)
        u, inv = np.unique(e_col[rep] * nc + cut_ids[cut], return_inverse=True)
        coef = np.floor(np.bincount(inv, weights=e_amt[rep]) / 2 + 1e-9)
        keep = coef > 0
        return u[keep] // nc, u[keep] % nc, coef[keep]

    def add_columns(self, cols) -> None:
        """Add groups ``(cand, starts, types, amounts)``: group ``r`` holds ``types[starts[r]:starts[r+1]]``."""
        cand, starts, types, amts = cols
        m = cand.shape[0]
        if m == 0:
            return
        base = self.n_cols
        e_col = np.repeat(np.arange(base, base + m), np.diff(starts))
        cc, cr, cv = self._cut_coefs(e_col, types, amts, np.arange(len(self.cuts)))
        rows = np.concatenate([types, self.T + cand, self.T + self.C + cr])
        cols_ = np.concatenate([e_col, np.arange(base, base + m), cc])
        vals = np.concatenate([amts, np.ones(m), cv])
        o = np.lexsort((rows, cols_))
        rows, cols_, vals = rows[o], cols_[o], vals[o]
        cstart = np.searchsorted(cols_, np.arange(base, base + m)).astype(np.int32)
        cost = self.w[cand] * np.bincount(e_col - base, weights=amts, minlength=m)
        self.h.addCols(m, cost, np.zeros(m), np.full(m, INF), rows.shape[0], cstart, rows.astype(np.int32), vals)
        self.col_hidx = np.concatenate([self.col_hidx, self.n_hcols + np.arange(m)])
        self.n_hcols += m
        self.e_col = np.concatenate([self.e_col, e_col])
        self.e_type = np.concatenate([self.e_type, types])
        self.e_amt = np.concatenate([self.e_amt, amts])
        self.col_cand = np.concatenate([self.col_cand, cand])

    def add_cuts(self, triples) -> int:
        """Add the subset-row cuts over ``triples`` (sorted type triples) not in yet; returns how many."""
        new = [t for t in triples if t not in self.cut_set]
        if not new:
            return 0
        first = len(self.cuts)
        self.cuts.extend(new)
        self.cut_set.update(new)
        ids = np.arange(first, len(self.cuts))
        cc, cr, cv = self._cut_coefs(self.e_col, self.e_type, self.e_amt, ids)
        o = np.lexsort((cc, cr))
        cc, cr, cv = cc[o], cr[o], cv[o]
        starts = np.searchsorted(cr, ids).astype(np.int32)
        self.h.addRows(ids.size, np.full(ids.size, -INF), np.ones(ids.size), cc.shape[0], starts,
                       self.col_hidx[cc].astype(np.int32), cv)
        rows = (self.T + self.C + ids).astype(np.int32)
        self.h.addCols(ids.size, np.full(ids.size, self.width), np.zeros(ids.size), np.full(ids.size, INF),
                       ids.size, np.arange(ids.size, dtype=np.int32), rows, -np.ones(ids.size))
        self.cut_slack = np.concatenate([self.cut_slack, self.n_hcols + np.arange(ids.size)])
        self.n_hcols += ids.size
        return len(new)

    def reduced_costs(self, cols, pi, mu, sigma) -> np.ndarray:
        """Each of ``cols``' reduced cost at the duals ``(pi, mu, sigma)``."""
        cand, starts, types, amts = cols
        m = cand.shape[0]
        e_col = np.repeat(np.arange(m), np.diff(starts))
        rc = (self.w[cand] * np.bincount(e_col, weights=amts, minlength=m)
              - np.bincount(e_col, weights=amts * pi[types], minlength=m) - mu[cand])
        cc, cr, cv = self._cut_coefs(e_col, types, amts, np.arange(len(self.cuts)))
        return rc - np.bincount(cc, weights=cv * sigma[cr], minlength=m)

    def solve(self):
        """``(value, π, μ, σ, λ of the groups, x of every HiGHS column)``; ``σ`` clipped to ``<= 0``."""
        self.h.run()
        info = self.h.getInfo()
        sol = self.h.getSolution()
        y, x = np.asarray(sol.row_dual), np.asarray(sol.col_value)
        T, C = self.T, self.C
        return (info.objective_function_value, y[:T], np.minimum(y[T:T + C], 0.0),
                np.minimum(y[T + C:], 0.0), x[self.col_hidx], x)


def _columns(m: SetMaster, groups):
    """``[(j, pairs, amounts)]`` as ``(cand, starts, types, amounts)``."""
    cand, starts, types, amts = [], [0], [], []
    for j, ps, a in groups:
        nz = a > 0.5
        if not nz.any():
            continue
        cand.append(j)
        types.append(m.pt[ps][nz])
        amts.append(a[nz])
        starts.append(starts[-1] + int(nz.sum()))
    if not cand:
        return np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return (np.asarray(cand, np.int64), np.asarray(starts, np.int64), np.concatenate(types),
            np.concatenate(amts))


def _select(cols, keep):
    cand, starts, types, amts = cols
    lens = np.diff(starts)
    e = np.repeat(keep, lens)
    return cand[keep], np.concatenate([[0], np.cumsum(lens[keep])]).astype(np.int64), types[e], amts[e]


def price(m: SetMaster, pi, mu, sigma, eps=1e-7):
    """Exact pricing at ``(π, μ, σ)``: ``(L(π, σ), rc (C,), entering columns, #enumerated, #integer programs)``.

    ``rc_j`` is candidate ``j``'s block value without ``μ_j``; a column enters
    when ``rc_j − μ_j < −eps``.
    """
    n, w, pt, pc, k = m.n, m.w, m.pt, m.pc, m.k
    sigma = np.minimum(np.asarray(sigma, float), 0.0)
    bp = block_prices(pi, n, w, pt, pc, k)
    rc = bp.rc.copy()
    exact = {}
    n_enum = n_mip = 0
    active = np.flatnonzero(-sigma > 1e-9)
    if active.size:
        cut_types = np.array([m.cuts[c] for c in active], np.int64)
        rho = -sigma[active]
        rep, cut = _memberships(pt, cut_types)
        A = active.size
        u, per = np.unique(pc[rep] * A + cut, return_counts=True)
        touch = u[per >= 2]  # (candidate, cut) with two or more of the cut's rows compatible
        tj = touch // A
        for j in np.unique(tj):
            if bp.rc[j] >= -eps:
                continue  # the penalties only raise the block: still not negative
            ps = m.pairs_of(j)
            cuts_j = touch[tj == j] % A
            v = w[j] - pi[pt[ps]]
            val, a = _enumerate(v, n[pt[ps]], pt[ps], k, cut_types[cuts_j], rho[cuts_j])
            if a is None:
                n_mip += 1
                val, a = _integer_program(v, n[pt[ps]], pt[ps], k, cut_types[cuts_j], rho[cuts_j])
            else:
                n_enum += 1
            rc[j] = val
            exact[int(j)] = (ps, a)
    L = float(pi @ n + sigma.sum() + np.minimum(rc, 0.0).sum())
    groups = []
    for j in np.flatnonzero(rc - mu < -eps):
        ps, a = exact.get(int(j)) or (m.pairs_of(j), None)
        groups.append((int(j), ps, bp.take[ps] if a is None else a))
    return L, rc, _columns(m, groups), n_enum, n_mip


def _enumerate(v, nn, ti, k, cut_types, rho):
    """The block with cut penalties over every subset of its cut rows; ``(value, a)``, or ``(None, None)``
    when they are more than ``ENUMERATE``."""
    in_cut = np.isin(ti, cut_types)
    K = np.flatnonzero(in_cut)
    if K.size > ENUMERATE:
        return None, None
    O = np.flatnonzero(~in_cut)
    vo, no = v[O], nn[O]
    neg = vo < 0
    base_v, base_n = float(vo[neg] @ no[neg]), float(no[neg].sum())
    rest = np.flatnonzero(~neg)
    rest = rest[np.argsort(vo[rest], kind="stable")]
    cum_n = np.concatenate([[0.0], np.cumsum(no[rest])])
    cum_v = np.concatenate([[0.0], np.cumsum(no[rest] * vo[rest])])
    bits = ((np.arange(1 << K.size)[:, None] >> np.arange(K.size)[None, :]) & 1).astype(float)
    size = bits.sum(1)
    memb = (ti[K][:, None, None] == cut_types[None, :, :]).any(2).astype(float)  # (|K|, cuts)
    pen = np.floor(bits @ memb / 2 + 1e-9) @ rho
    need = np.maximum(0.0, k - size - base_n)
    # the sort's fill: the cheapest units up to `need` (unit costs are constant within a type)
    fill = np.interp(need, cum_n, cum_v)
    val = np.where(need <= cum_n[-1] + 1e-9, bits @ v[K] + pen + base_v + fill, np.inf)
    b = int(np.argmin(val))
    if not np.isfinite(val[b]):
        return math.inf, np.zeros(v.size)
    a = np.zeros(v.size)
    a[K] = bits[b]
    a[O[neg]] = no[neg]
    r = need[b]
    for i in rest:
        if r <= 0:
            break
        a[O[i]] += min(no[i], r)
        r -= min(no[i], r)
    return float(val[b]), a


def _integer_program(v, nn, ti, k, cut_types, rho):
    """The same block as a small integer program; ``(its proven lower bound, its solution)``."""
    m, R = v.size, cut_types.shape[0]
    h = new_highs()
    h.setOptionValue("presolve", "off")
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 1e-9)
    h.addVars(m + R, np.zeros(m + R), np.concatenate([nn, np.ones(R)]))
    h.changeColsCost(m + R, np.arange(m + R, dtype=np.int32), np.concatenate([v, rho]))
    h.changeColsIntegrality(m + R, np.arange(m + R, dtype=np.int32),
                            np.full(m + R, highspy.HighsVarType.kInteger))
    h.addRow(k, INF, m, np.arange(m, dtype=np.int32), np.ones(m))
    for r in range(R):  # z_R >= ⌊a(R)/2⌋:  a(R) − 2 z_R <= 1
        mem = np.flatnonzero(np.isin(ti, cut_types[r]))
        h.addRow(-INF, 1.0, mem.size + 1, np.array([*mem, m + r], np.int32), np.array([*np.ones(mem.size), -2.0]))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"pricing program: {h.modelStatusToString(h.getModelStatus())}")
    x = np.round(np.asarray(h.getSolution().col_value))
    return float(h.getInfo().mip_dual_bound), x[:m]


def decompose(m: SetMaster, y, g):
    """The assignment LP's point ``(y, g)`` as groups with weights (``(cols, weights)``).

    Each open candidate's ``x = g_·j / y_j`` is split by systematic rounding:
    ``a_i(u) = ⌊x_i⌋ + #{integers in [F_{i−1} − u, F_i − u)}`` with ``F`` the
    cumulative fractional parts and ``u`` uniform on ``[0, 1)``, so
    ``E_u[a] = x`` and ``Σ_i a_i(u) >= ⌊Σ_i x_i⌋ >= k``; ``a(u)`` changes only
    at the fractional parts of ``F``, one group per interval, weighted
    ``y_j`` times its length.
    """
    groups, weights = [], []
    for j in np.flatnonzero(y > 1e-9):
        ps = m.pairs_of(j)
        x = np.clip(g[ps] / y[j], 0.0, m.n[m.pt[ps]])
        keep = x > 1e-9
        ps, x = ps[keep], x[keep]
        if x.sum() < m.k - 1e-6:
            continue
        fl = np.floor(x + 1e-9)
        F = np.concatenate([[0.0], np.cumsum(np.clip(x - fl, 0.0, None))])
        cuts = np.unique(np.concatenate([[0.0, 1.0], np.mod(F, 1.0)]))
        for u0, u1 in zip(cuts[:-1], cuts[1:]):
            if u1 - u0 < 1e-12:
                continue
            u = 0.5 * (u0 + u1)
            a = fl + np.floor(F[1:] - u + 1.0) - np.floor(F[:-1] - u + 1.0)
            if a.sum() >= m.k - 1e-9:
                groups.append((int(j), ps, a))
                weights.append(y[j] * (u1 - u0))
    return _columns(m, groups), np.asarray(weights)


def separate(m: SetMaster, lam, max_cuts) -> list[tuple[float, tuple[int, int, int]]]:
    """The most violated subset-row cuts of ``lam`` (module docstring): ``[(left side, (a, b, c))]``."""
    sup = np.flatnonzero(lam > 1e-9)
    if not sup.size:
        return []
    insup = np.zeros(m.n_cols, bool)
    insup[sup] = True
    e = insup[m.e_col] & m.single[m.e_type] & (m.e_amt > 0.5)
    ec, et = m.e_col[e], m.e_type[e]
    o = np.lexsort((et, ec))
    ec, et = ec[o], et[o]
    lo, hi = np.searchsorted(ec, sup), np.searchsorted(ec, sup, "right")
    P, holds = {}, {}
    for col, a0, a1 in zip(sup.tolist(), lo.tolist(), hi.tolist()):
        rows, lw = et[a0:a1].tolist(), float(lam[col])
        for r in rows:
            holds.setdefault(r, {})[col] = lw
        for a, b in itertools.combinations(rows, 2):
            P[(a, b)] = P.get((a, b), 0.0) + lw
    adj = {}
    for a, b in P:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    found = []
    for (a, b), pab in P.items():
        for c in adj[a] & adj[b]:
            if c <= b:
                continue
            s = pab + P[(a, c)] + P[(b, c)]
            if s <= 1 + 1e-4:
                continue
            ha, hb, hc = holds[a], holds[b], holds[c]
            lhs = s - 2 * sum(lw for col, lw in ha.items() if col in hb and col in hc)
            if lhs > 1 + 1e-4 and (a, b, c) not in m.cut_set:
                found.append((lhs, (a, b, c)))
    found.sort(reverse=True)
    return found[:max_cuts]


@dataclass
class MasterBound:
    """Outcome of :func:`master_bound`. ``bound`` is the best ``L(π, σ)`` (valid whatever happened);
    ``lp`` the master's LP value before any cut (the assignment LP's, up to ``GAP_TOL``), ``converged``
    whether the last column generation ended with nothing pricing out and no cut left violated."""

    bound: float
    lp: float | None
    converged: bool
    cuts: int
    columns: int
    iterations: int
    enumerated: int
    programs: int
    seconds: float
    rounds: list = field(default_factory=list)


def master_bound(n, w, pair_type, pair_cand, k, *, pi=None, primal=None, cuts=True, time_limit=600.0,
                 cuts_per_round=200, max_add=500, box=BOX, eps=1e-6, log=None) -> MasterBound:
    """Column generation of the set master, separating subset-row cuts whenever it converges.

    ``pi`` and ``primal = (y, g)``: the assignment LP's multipliers and point
    (:func:`milp_anon.bounds.lagrangian.column_generation`): the box's first centre
    and the first columns. Up to ``max_add`` columns of least reduced cost
    enter per iteration, up to ``cuts_per_round`` most violated cuts per
    round. ``box``: the half-width of the dual box, and the cost of a cut's
    slack (so ``−σ_R <= box``). Stops when no cut is violated, or at
    ``time_limit`` seconds (checked between iterations).
    """
    t0 = time.perf_counter()
    m = SetMaster(n, w, pair_type, pair_cand, k)
    if pi is None:
        # each type's cheapest cost: every block is >= 0 and L = Σ_i n_i π_i
        pi = np.full(m.T, np.inf)
        np.minimum.at(pi, pair_type, m.w[pair_cand])
    pi = np.asarray(pi, float)
    if primal is not None:
        m.add_columns(decompose(m, *primal)[0])
    best, *_ = price(m, pi, np.zeros(m.C), np.zeros(0), eps)
    m.box(pi, box)
    lp, rounds = None, []
    it = n_enum = n_ip = 0
    converged = False
    while True:
        value, pi_m, mu, sigma, lam, x = m.solve()
        it += 1
        L, _, cols, ne, ni = price(m, pi_m, mu, sigma, eps)
        n_enum, n_ip = n_enum + ne, n_ip + ni
        best = max(best, L)
        if cols[0].size:
            # only columns the master itself prices out enter (an interior point's duals are inexact):
            # a column already in does not price out beyond the solver's tolerance, so every iteration
            # adds new columns or ends the column generation
            rcm = m.reduced_costs(cols, pi_m, mu, sigma)
            keep = rcm < -eps * max(1.0, abs(value))
            if keep.sum() > max_add:
                keep &= rcm <= np.sort(rcm[keep])[max_add - 1]
            cols = _select(cols, keep)
        boxed = m.boxed(x)
        if not boxed and value - best <= GAP_TOL * max(1.0, abs(value)):
            cols = _select(cols, np.zeros(cols[0].size, bool))  # L meets the master: its LP optimum
        elapsed = time.perf_counter() - t0
        if cols[0].size == 0 and not boxed:
            rounds.append(dict(cuts=len(m.cuts), lp=value, bound=best, iterations=it, columns=m.n_cols,
                               seconds=round(elapsed, 2)))
            if log:
                log(f"set master: {len(m.cuts)} cuts, LP {value:.4f}, bound {best:.4f}, {it} iterations, "
                    f"{m.n_cols} columns, {elapsed:.1f} s")
            lp = value if lp is None else lp
            if not cuts:
                converged = True
                break
            found = separate(m, lam, cuts_per_round)
            if not found:
                converged = True
                break
            if elapsed > time_limit:
                break
            m.add_cuts([t for _, t in found])
            m.box(pi_m, box)  # the new round's box around the last converged duals
            continue
        if elapsed > time_limit:
            break
        if cols[0].size == 0:
            m.box(pi_m, box)  # the box binds and nothing prices out inside it: move it
            continue
        m.add_columns(cols)
    return MasterBound(bound=best, lp=lp, converged=converged, cuts=len(m.cuts), columns=m.n_cols,
                       iterations=it, enumerated=n_enum, programs=n_ip, seconds=time.perf_counter() - t0,
                       rounds=rounds)
