"""Exact Lagrangian blocks for sensitive criteria: the group problem of one candidate under ℓ-diversity
or p-sensitivity (and relaxations of t-closeness), for every candidate at once.

With multipliers ``π_u`` on the assignment rows ``Σ_j x_uj = n_u`` of the
split model (``formulations/p-sensitivity.md``; a unit is a row type with
one sensitive value vector) the model falls apart into one problem per
candidate ``j``, over its compatible units ``u`` with ``v_u = w_j − π_u``::

    rc_j(π) = min { Σ_u v_u x_u : x_u ∈ {0, …, n_u}, Σ_u x_u >= f_j, the group x meets the criterion }

with ``f_j >= k`` the fewest rows of a legal group released as ``j``
(:func:`~milp_anon.instance.instance.group_floors`; the size test every block below
applies with ``f_j`` for ``k``).

and ``L(π) = Σ_u π_u n_u + Σ_j min(0, rc_j(π))`` is a lower bound on the
optimum for **any** ``π``; ``forced`` (the block optimum with ``x_u >= 1``)
bounds every solution that uses the pair (``formulations/reduction.md``,
"Sensitive criteria"). Because the blocks are solved over the integers, the
best ``L(π)`` is the Dantzig–Wolfe bound, which may lie above the LP bound.

Block solvers (each exact; ``tests/test_blocks.py`` checks them against
enumeration):

* :func:`distinct_blocks` — at least ``D`` distinct values of one column
  (p-sensitivity ``p``, distinct ℓ-diversity ``ℓ``): every unit with
  ``v < 0``; then one row of each of the cheapest missing values; then the
  cheapest rows up to ``k``. An exchange argument shows the greedy exact:
  a missing value's cheapest row can replace any other row that covers a
  costlier value, and the size constraint is a plain cardinality. One
  ``lexsort`` of the pairs: ``O(P log P)``.
* :func:`frequency_blocks` — every value at most ``|G|/ℓ`` times (frequency
  ℓ-diversity, ``ℓ = a/b``): for a cap ``q`` on every value's count the
  group problem is a partition matroid with a cardinality floor
  ``max(k, ⌈a q / b⌉)``, solved by the same greedy within the caps; the
  optimum is the least over ``q`` (a group whose largest count is ``q*`` is
  feasible at ``q = q*``). ``O(Q · U_j)`` per candidate, run only where the
  k-anonymity block is negative (elsewhere it already gives ``rc_j >= 0``).
  Recursive (c, 2)-diversity, ``r_1 < c · (|G| − r_1)``, is the same block
  with a strict cap: ``|G| > (c + 1) q / c``.

* :func:`ball_blocks` — total variation at most ``τ`` from the reference (t-closeness's ball,
  ``τ = t / d_min``; t-closeness itself under the equal distance): per size, the cheapest full, partial and
  zero rows of the coverage ``Σ_σ min(c_σ, P_σ s) >= (1 − τ) s``, over the integers but for the partial
  rows' knapsack (bounded by its duals), and never below the fractional block of that size
  (``formulations/reduction.md``, "The ball's integer block"). ``O(S (U + V²))`` per candidate over its
  sizes ``S``, run where the k-anonymity block is negative.
* :func:`emd_blocks` — t-closeness under the ordered or hierarchical distance itself: one small integer
  program per candidate (counts ``x_u``, the EMD's flow, the closeness row of ``formulations/t-closeness.md``
  built by the same :func:`~milp_anon.formulations.rows.closeness_form`), solved by HiGHS with presolve off;
  the block's value is its proven dual bound (``formulations/reduction.md``, "The EMD's integer block").
  Priced once, at the LP's multipliers, within a time budget; a candidate not reached, or whose program
  stops at its limit, also gets its LP block (the same program without integrality) and keeps the larger.

Recursive (c, ℓ)-diversity with ``ℓ > 2`` is relaxed to the distinct block
with ``D = ℓ`` (``r_1 < c · (r_ℓ + …)`` needs ``r_ℓ > 0``). t-closeness is
relaxed to what every close group must hold: ``EMD >= d_min · TV`` (``d_min``
the least distance between distinct values) makes the values present carry
reference mass ``>= 1 − t/d_min`` (at least ``D`` values: the distinct block)
and keeps every value below ``(P_max + t/d_min) |G|`` (the frequency block);
both are vacuous for the ordered distance on many values. The same inequality puts every close group's
distribution in the ball ``TV(q, P) <= t/d_min``: per candidate, multipliers ``β_j`` add
``β_js − h(β_j)`` to the cost of each row of value ``s`` (:class:`TVBall`, :class:`RequestBlocks`), a
Lagrangian relaxation of the ball's rows inside every block. Several criteria (or several
sensitive columns) take the largest block value: each block is a
relaxation of the group problem, so every combination stays a valid bound.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from milp_anon.bounds.lagrangian import BlockPrices, block_prices
from milp_anon.formulations.rows import closeness_form
from milp_anon.instance.instance import group_floors
from milp_anon.privacy.criteria import KAnonymity, LDiversity, PSensitivity, TCloseness, entropy_top_share, exact
from milp_anon.runtime.tuning import Tuning
from milp_anon.solvers.highs_banner import new_highs, run_here

# Whether t-closeness adds the ball's integer block (:func:`ball_blocks`) to the distinct and cap blocks where they
# are priced once (:meth:`RequestBlocks.with_ball_blocks`), and the EMD's (:func:`emd_blocks`,
# :meth:`RequestBlocks.with_emd_blocks`), is the blocks' ``tuning`` (``ball_blocks``, ``emd_blocks``). The ball's block
# is in no step of the bound stage's first ascent: a step with it costs about ``BALL_STEP_FACTOR`` steps without
# (Adult, 4 QIs, occupation), so that ascent took its whole share of the limit and, at 0.2-closeness (hierarchical),
# the LP its time to finish (``benchmarks/results/ball_blocks_4qi_more.md``, ``ball_blocks_once_4qi.md``).

#: what a pricing with the ball's integer block costs in pricings without it, to decide whether one fits in the
#: time left (:meth:`RequestBlocks.ball_pricing_seconds`; measured: Adult, 4 QIs, occupation, the first ascent's
#: steps 2.6–3.2 s with it against about 0.1 s without, ``benchmarks/results/ball_blocks_4qi_more.md``)
BALL_STEP_FACTOR = 30
#: seconds one pricing of :func:`emd_blocks` may take over the integers (candidates most negative first; the rest
#: get their LP block), and seconds per candidate's program (its dual bound, at least its LP block's, where it
#: stops): 4 QIs, 0.2 hierarchical, at the LP's multipliers, 60 s gave 7,538.69 with 0.1 s per program against
#: 7,458.31 with 0.2 s, 7,322.30 with 2 s and 7,515.65 with 0.05 s (the LP 7,303.62; every program to its end
#: 7,573.44 in 220 s); 0.3 hierarchical 4,210.33 in 7.3 s (4,210.95 in 18.6 s with 2 s each)
EMD_PRICING_SECONDS, EMD_BLOCK_SECONDS = 60.0, 0.1
#: seconds the LP blocks of the candidates the integer pricing did not reach may take after it (1.2 s for all
#: 1,399 there; past it: their k-anonymity block, a valid bound far below)
EMD_LP_SECONDS = 10.0
#: steps of :meth:`RequestBlocks.ascend_balls` per call, and steps without a better bound before its θ halves
BALL_STEPS, BALL_PATIENCE = 30, 3

__all__ = ["EMDRows", "RequestBlocks", "TVBall", "ball_blocks", "combine", "distinct_blocks", "emd_blocks",
           "frequency_blocks", "request_blocks"]


@dataclass(frozen=True)
class TVBall:
    """What t-closeness on one sensitive column gives the blocks: every close group's distribution lies
    within total variation ``tau`` of ``P`` (:meth:`~milp_anon.privacy.criteria.TCloseness.tv_ball`).

    ``P`` is per value code of the column, ``absent`` the reference mass of values the table does not hold.
    """

    col: int
    P: np.ndarray
    absent: float
    tau: float

    def support(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(h, q)`` per row of ``b`` (``(C, V)``): ``h = max { b·q : TV(q, P) <= τ }`` over
        distributions ``q`` on the table's values, and a maximizer ``q``.

        Moving mass to the value of largest ``b`` gains most per unit of total variation: the mass the
        absent values must give up, then mass taken from the values of least ``b`` upward until ``τ`` is
        spent (a fractional knapsack with equal weights). ``O(C V log V)``."""
        C, V = b.shape
        order = np.argsort(b, axis=1)
        bs = np.take_along_axis(b, order, axis=1)
        Ps = self.P[order]
        budget = max(0.0, self.tau - self.absent)
        m = np.clip(budget - (np.cumsum(Ps, axis=1) - Ps), 0.0, Ps)  # mass taken, least b first
        m[:, -1] = 0.0  # the largest value keeps its own
        qs = Ps - m
        qs[:, -1] += self.absent + m.sum(axis=1)
        q = np.empty_like(qs)
        np.put_along_axis(q, order, qs, axis=1)
        return (qs * bs).sum(axis=1), q


@dataclass(frozen=True)
class EMDRows:
    """t-closeness on one sensitive column in the model's compact exact form
    (:func:`~milp_anon.formulations.rows.closeness_form`):
    ``Σ_e |Σ_{σ∈e} (n c_σ − N_σ s)| <= (a/b) · scale · n · s`` over the rows of ``member`` (mass groups ×
    positions in the metric's order), ``code_pos`` each value code's position, ``N`` the reference's count per
    position."""

    col: int
    code_pos: np.ndarray
    N: np.ndarray
    member: np.ndarray
    scale: float
    a: int
    b: int


@dataclass(frozen=True)
class RequestBlocks:
    """The block solver of one request over an instance's (unit, candidate) pairs (:func:`request_blocks`).

    ``pair_unit``/``pair_cand`` are the unit pairs in the order of
    :meth:`~milp_anon.tables.rowtypes.Units.expand_pairs` (each type pair's units
    together); ``specs`` are ``(kind, column, a, b)`` per exact block: ``("ball", col, TVBall, None)``,
    ``("distinct", col, D, None)``,
    ``("cap", col, a, b)`` (every value at most ``|G| b / a`` times) and ``("strict cap", col, a, b)``;
    ``balls`` one :class:`TVBall` per t-closeness column.

    Besides ``π`` per unit, each ball has multipliers ``β_j`` per candidate and value of its column. A
    t-close group ``G`` of candidate ``j`` has ``Σ_s (β_js − h(β_j)) |G_s| = |G| (β_j·q − h(β_j)) <= 0``
    (``q`` its distribution, :meth:`TVBall.support`), so adding ``β_js − h(β_j)`` to every row's cost in
    every block keeps each block a lower bound on the group problem, for any ``β``
    (``formulations/reduction.md``, "Sensitive criteria": the ball's rows).
    """

    n: np.ndarray
    w: np.ndarray
    unit_value: np.ndarray  # (U, S) sensitive codes
    pair_unit: np.ndarray
    pair_cand: np.ndarray
    type_pair_start: np.ndarray  # first unit pair of every type pair
    k: np.ndarray  # (C,) each candidate's floor (:func:`~milp_anon.instance.instance.group_floors`)
    specs: tuple
    balls: tuple = ()
    #: one :class:`EMDRows` per t-closeness column under the ordered or the hierarchical distance
    emds: tuple = ()
    #: whether the blocks are the request's group problem itself: one block (one criterion on one column),
    #: solved exactly, no criterion relaxed or left out. Then each candidate's block is the convex hull of its
    #: groups, inside the LP's rows for that candidate, so the Lagrangian dual is at least the whole model's
    #: LP bound (``formulations/reduction.md``, "Sensitive criteria: exact group blocks")
    exact: bool = False
    #: ``time.perf_counter()`` past which a pricing of the EMD's block solves nothing more (its candidates not
    #: reached keep their k-anonymity block, a valid bound): a caller's limit (:meth:`until`); ``None``: its budget
    deadline: float | None = None
    #: a pricing of the EMD's block may take every second to ``deadline`` over the integers, not only
    #: ``EMD_PRICING_SECONDS``, its programs sharing them (:meth:`until`, :func:`emd_blocks`'s ``share``)
    whole: bool = False
    #: the solve's techniques (:class:`~milp_anon.runtime.tuning.Tuning`): whether the integer blocks are added
    #: (``ball_blocks``, ``emd_blocks``) and the pricing's chunks (``price_chunk``); the bound stage sets its
    #: solver's (:func:`milp_anon.reduction.block_bounds`)
    tuning: Tuning = Tuning()

    def until(self, deadline: float | None, whole: bool = False) -> RequestBlocks:
        """The same blocks, their EMD pricings ended at ``deadline`` (``time.perf_counter()``): one pricing takes
        up to ``EMD_PRICING_SECONDS + EMD_LP_SECONDS``, so a caller that checks its clock between pricings would
        otherwise overrun its limit by that much. ``whole``: each may take all the time to ``deadline`` (the
        second ascent's one pricing that reaches every candidate, :func:`~milp_anon.bounds.subgradient.second_ascent`)."""
        return dataclasses.replace(self, deadline=deadline, whole=whole and deadline is not None)

    def with_ball_blocks(self) -> RequestBlocks:
        """The same blocks with the ball's integer block (:func:`ball_blocks`) of every ball added (itself where
        there is no ball, it has them already, or ``tuning.ball_blocks`` is off): a relaxation at least as strong at
        every ``π`` (:func:`combine` keeps the larger block), each pricing dearer."""
        return self._with("ball", self.tuning.ball_blocks, self.balls)

    @property
    def has_ball_blocks(self) -> bool:
        return self._has("ball")

    def with_emd_blocks(self) -> RequestBlocks:
        """The same blocks with the EMD's exact integer block (:func:`emd_blocks`) of every ordered or hierarchical
        t-closeness column added (itself where there is none, it has them already, or ``tuning.emd_blocks`` is off);
        each such pricing takes up to ``EMD_PRICING_SECONDS + EMD_LP_SECONDS`` more."""
        return self._with("emd", self.tuning.emd_blocks, self.emds)

    @property
    def has_emd_blocks(self) -> bool:
        return self._has("emd")

    def _with(self, kind: str, on: bool, items: tuple) -> RequestBlocks:
        """One spec ``(kind, column, item, None)`` per item (a :class:`TVBall` or an :class:`EMDRows`) added, unless
        ``on`` is off, there is none or they are there already."""
        if not on or not items or self._has(kind):
            return self
        return dataclasses.replace(self, specs=self.specs + tuple((kind, it.col, it, None) for it in items))

    def _has(self, kind: str) -> bool:
        return any(spec[0] == kind for spec in self.specs)

    @property
    def has_integer_blocks(self) -> bool:
        return self.has_ball_blocks or self.has_emd_blocks

    def with_integer_blocks(self) -> RequestBlocks:
        """The blocks priced once rather than in every step of the first ascent: the ball's integer block
        (:meth:`with_ball_blocks`) and the EMD's (:meth:`with_emd_blocks`)."""
        return self.with_ball_blocks().with_emd_blocks()

    def integer_pricing_seconds(self, ascent) -> float:
        """About what one pricing of :meth:`with_integer_blocks` takes, from ``ascent``'s steps over these blocks: a
        step (:meth:`ball_pricing_seconds` where the ball's blocks are added), plus ``EMD_LP_SECONDS`` where the
        EMD's are: the least worth giving them (their LP blocks, then the integer programs, fit in any time given by
        :meth:`until`; alone they take up to ``EMD_PRICING_SECONDS + EMD_LP_SECONDS``)."""
        wider = self.with_integer_blocks()
        step = ascent.seconds / (ascent.iterations + 1)
        return (self.ball_pricing_seconds(ascent) if wider.has_ball_blocks else step) \
            + (EMD_LP_SECONDS if wider.has_emd_blocks and not self.has_emd_blocks else 0.0)

    def ball_pricing_seconds(self, ascent) -> float:
        """About what one pricing of these blocks with the ball's integer block takes, from ``ascent``'s steps over
        them: a step, times ``BALL_STEP_FACTOR`` where they lack the ball's block."""
        step = ascent.seconds / (ascent.iterations + 1)
        return step if self.has_ball_blocks else BALL_STEP_FACTOR * step

    def start_betas(self) -> tuple:
        """Every ``β = 0``: the blocks without the t-closeness terms."""
        C = self.w.shape[0]
        return tuple(np.zeros((C, ball.P.shape[0])) for ball in self.balls)

    def _shift(self, betas):
        """Per pair, ``Σ_balls β_js − h(β_j)`` (``None`` without balls), and each ball's maximizers ``q``."""
        if not self.balls or betas is None:
            return None, []
        shift, qs = np.zeros(self.pair_unit.shape[0]), []
        for ball, beta in zip(self.balls, betas):
            h, q = ball.support(beta)
            shift += beta[self.pair_cand, self.unit_value[self.pair_unit, ball.col]] - h[self.pair_cand]
            qs.append(q)
        return shift, qs

    def prices(self, pi, betas=None) -> BlockPrices:
        """Every candidate's block for unit multipliers ``pi`` and ball multipliers ``betas`` (one ``(C, V)``
        array per ball; ``None``: all 0): the combination of k-anonymity's and each spec's (:func:`combine`)."""
        shift, _ = self._shift(betas)
        n, w, pu, pc, k = self.n, self.w, self.pair_unit, self.pair_cand, self.k
        kp = block_prices(pi, n, w, pu, pc, k, shift=shift, price_chunk=self.tuning.price_chunk)
        out = [kp]
        for kind, col, a, b in self.specs:
            value = self.unit_value[:, col]
            if kind == "distinct":
                out.append(distinct_blocks(pi, n, w, pu, pc, value, k, a, shift=shift))
            elif kind == "ball":
                out.append(ball_blocks(pi, n, w, pu, pc, value, k, a.P, a.tau, k_prices=kp, shift=shift))
            elif kind == "emd":
                out.append(emd_blocks(pi, n, w, pu, pc, value, k, a, k_prices=kp, shift=shift,
                                      seconds=math.inf if self.whole else None, deadline=self.deadline,
                                      share=self.whole))
            else:
                out.append(frequency_blocks(pi, n, w, pu, pc, value, k, a, b, k_prices=kp,
                                            strict=kind == "strict cap", shift=shift))
        return combine(out, pi, n, pc)

    def ball_supergradients(self, betas, prices: BlockPrices) -> list:
        """Per ball, a supergradient of every candidate's ``min(0, rc_j)`` in ``β_j``: ``|G_s| − |G| q_s``
        with ``G`` the block solution and ``q`` the maximizer of :meth:`TVBall.support` (0 where
        ``rc_j >= 0``)."""
        C = self.w.shape[0]
        used = (prices.rc < 0)[self.pair_cand]
        x = np.where(used, prices.take, 0.0)
        size = np.bincount(self.pair_cand, weights=x, minlength=C)
        _, qs = self._shift(betas)
        out = []
        for ball, q in zip(self.balls, qs):
            V = ball.P.shape[0]
            key = self.pair_cand * V + self.unit_value[self.pair_unit, ball.col]
            G = np.bincount(key, weights=x, minlength=C * V).reshape(C, V)
            out.append(np.where((prices.rc < 0)[:, None], G - size[:, None] * q, 0.0))
        return out

    def ascend_balls(self, pi, betas, prices: BlockPrices, *, iterations: int = BALL_STEPS,
                     time_limit: float | None = None):
        """Raise ``L`` over the ball multipliers with ``pi`` fixed: ``(betas, prices)`` of the best ``L``.

        With ``π`` fixed, ``L`` separates into one concave ``min(0, rc_j(β_j))`` per candidate whose
        largest possible value is 0, so each negative candidate takes its own Polyak step towards 0,
        ``β_j ← β_j + θ (−rc_j) / ‖g_j‖² · g_j`` (:meth:`ball_supergradients`); ``θ`` halves after
        ``BALL_PATIENCE`` steps without a better ``L`` (restarting from the best)."""
        t0 = time.perf_counter()
        best = (tuple(b.copy() for b in betas), prices)
        theta, stale = 1.0, 0
        for _ in range(iterations):
            if time_limit is not None and time.perf_counter() - t0 >= time_limit:
                break
            grads = self.ball_supergradients(betas, prices)
            norm2 = sum((g * g).sum(axis=1) for g in grads)
            move = (prices.rc < 0) & (norm2 > 0)
            if not move.any():
                break
            step = np.zeros_like(norm2)
            step[move] = theta * -prices.rc[move] / norm2[move]
            betas = tuple(b + step[:, None] * g for b, g in zip(betas, grads))
            prices = self.prices(pi, betas)
            if prices.bound > best[1].bound + 1e-9 * max(1.0, abs(best[1].bound)):
                best, stale = (betas, prices), 0
            else:
                stale += 1
                if stale >= BALL_PATIENCE:
                    theta, stale = theta / 2, 0
                    betas, prices = best
        return best

    def per_type_pair(self, unit_pair_values: np.ndarray) -> np.ndarray:
        """The least value over each type pair's unit pairs (a type pair is used iff one of its units is)."""
        return np.minimum.reduceat(unit_pair_values, self.type_pair_start)


def request_blocks(instance, request) -> RequestBlocks | None:
    """The exact blocks of ``request``, or ``None`` when no criterion adds one to k-anonymity's (t-closeness's
    ball's integer block is not among them: :meth:`RequestBlocks.with_ball_blocks` adds it).

    Per criterion and sensitive column it reads: p-sensitivity ``p`` and distinct ℓ-diversity ``ℓ`` give
    :func:`distinct_blocks`; frequency ℓ and recursive (c, 2) give :func:`frequency_blocks`; recursive
    (c, ℓ > 2) the distinct block with ``D = ℓ``, a relaxation; t-closeness the distinct and the
    frequency block of what every close group must hold (:meth:`~milp_anon.privacy.criteria.TCloseness.necessary_shape`),
    relaxations too, and under the ordered and the hierarchical distance its compact EMD rows (:class:`EMDRows`) for
    the EMD's integer block, which :meth:`RequestBlocks.with_emd_blocks` adds.
    The blocks of all of them are combined (:func:`combine`)."""
    specs, balls, emds = [], [], []
    relaxed = False  # a criterion replaced by a weaker block, or by none
    for crit in request.criteria:
        if isinstance(crit, TCloseness):
            relaxed = True
            for col in crit.applies_to(instance.table.sensitive):
                ball = crit.tv_ball(instance.table, col)
                if ball is not None:
                    balls.append(TVBall(col, ball[0], float(ball[1].sum()), ball[2]))
                if crit.distance_kind in ("ordered", "hierarchical"):
                    form = closeness_form(crit, instance.table, col)
                    member = np.zeros((len(form.groups), form.N.shape[0]), dtype=bool)
                    for e, grp in enumerate(form.groups):
                        member[e, grp] = True
                    t = exact(crit.t)
                    emds.append(EMDRows(col, form.code_pos, form.N, member, form.scale, t.numerator, t.denominator))
                D, cap = crit.necessary_shape(instance.table, col)
                if D > 1:
                    specs.append(("distinct", col, D, None))
                if cap is not None:  # every value at most cap · |G| times: the frequency block, ℓ = 1/cap
                    specs.append(("cap", col, cap.denominator, cap.numerator))
            continue
        if not isinstance(crit, (PSensitivity, LDiversity)):
            relaxed = relaxed or not isinstance(crit, KAnonymity)
            continue
        for col in crit.applies_to(instance.table.sensitive):
            # ℓ or p of 1 asks nothing beyond a non-empty group (recursive (c, 1): r_1 < c |G|, relaxed)
            if isinstance(crit, PSensitivity) or crit.kind == "distinct":
                need = crit.p if isinstance(crit, PSensitivity) else int(crit.l)
                if need > 1:
                    specs.append(("distinct", col, need, None))
            elif crit.kind == "frequency":
                f = exact(crit.l)
                if f > 1:
                    specs.append(("cap", col, f.numerator, f.denominator))
            elif crit.kind == "entropy":  # relaxed to what it implies: ⌈ℓ⌉ values, no share above p* (rounded up)
                need = math.ceil(crit.l - 1e-12)
                if need > 1:
                    specs.append(("distinct", col, need, None))
                p = entropy_top_share(crit.l, len(instance.table.sensitive_values[col]))
                if p < 1 - 1e-5:
                    cap = Fraction(math.ceil((p + 1e-6) * 10**6), 10**6)
                    specs.append(("cap", col, cap.denominator, cap.numerator))
                relaxed = True
            elif crit.l == 2:  # recursive: r_1 < c (|G| − r_1), i.e. (c + 1) r_1 < c |G|, a strict cap
                c = exact(crit.c)
                specs.append(("strict cap", col, c.numerator + c.denominator, c.numerator))
            elif crit.l > 2:  # recursive: r_ℓ > 0, at least ℓ values
                specs.append(("distinct", col, int(crit.l), None))
                relaxed = True
            else:  # recursive (c, 1): r_1 < c |G|, left out
                relaxed = True
    if not specs and not balls:
        # the EMD's block alone does not start the bound stage (its first ascent would price k-anonymity's block
        # alone, where the k-anonymity LP's bound serves): under the ordered distance on many values nothing else
        # applies, and its requests keep the path they were proven on
        return None
    units, cands = instance.units, instance.candidates
    pair_unit, pair_cand = units.expand_pairs(cands.pair_type, cands.pair_cand)
    per_type = np.diff(np.searchsorted(units.unit_type, np.arange(instance.types.t_in + 1)))
    reps = per_type[cands.pair_type]
    return RequestBlocks(n=units.counts.astype(float), w=cands.cost.astype(float), unit_value=units.sensitive,
                         pair_unit=pair_unit, pair_cand=pair_cand, type_pair_start=np.cumsum(reps) - reps,
                         k=group_floors(instance, request).astype(float), specs=tuple(specs), balls=tuple(balls),
                         emds=tuple(emds), exact=not relaxed and len(specs) == 1 and not balls)


def _group_start(keys: np.ndarray, n_groups: int) -> np.ndarray:
    """Index of each group's first element in ``keys`` (sorted)."""
    return np.searchsorted(keys, np.arange(n_groups))


def _fill(v, avail, cand, need, C):
    """Take the cheapest ``need[j]`` rows among ``avail`` rows of cost ``v`` per candidate.

    Returns ``(take (P,), cost (C,), short (C,) bool: fewer rows than needed, dearest (C,): the dearest cost
    taken, -inf when nothing)``."""
    order = np.lexsort((v, cand))
    ns, cs = avail[order], cand[order]
    cum = np.cumsum(ns)
    before = np.concatenate([[0.0], cum])[_group_start(cs, C)][cs]
    cum_before = cum - ns - before
    take_s = np.clip(need[cs] - cum_before, 0.0, ns)
    take = np.empty_like(take_s)
    take[order] = take_s
    cost = np.bincount(cand, weights=take * v, minlength=C)
    total = np.bincount(cand, weights=avail, minlength=C)
    dearest = np.full(C, -np.inf)
    got = take > 0
    np.maximum.at(dearest, cand[got], v[got])
    return take, cost, total < need - 1e-9, dearest


def distinct_blocks(pi, n, w, pair_unit, pair_cand, value, k: int, D: int, shift=None) -> BlockPrices:
    """Every candidate's block under "size >= k and at least ``D`` distinct values" (module docstring).

    Parameters
    ----------
    pi, n
        ``(U,)`` multipliers and rows per unit.
    w
        ``(C,)`` cost per row of each candidate.
    pair_unit, pair_cand
        ``(P,)`` compatible (unit, candidate) pairs.
    value
        ``(U,)`` the unit's value code in the column (``>= 0``).
    k, D
        Smallest group size (a scalar, or ``(C,)`` one per candidate); distinct values required.
    shift
        ``(P,)`` optional cost per row added to ``w_j − π_u`` (the t-closeness terms, :class:`RequestBlocks`).

    ``rc`` is ``+inf`` where no group meets the criterion; ``forced`` is exact
    (cases in the code, each derived from the greedy's structure).
    """
    pi, n, w = (np.asarray(a, dtype=float) for a in (pi, n, w))
    C = w.shape[0]
    v = w[pair_cand] - pi[pair_unit] + (0.0 if shift is None else shift)
    nu = n[pair_unit]
    val = np.asarray(value, dtype=np.int64)[pair_unit]
    V = int(val.max()) + 1 if val.size else 1
    cv = pair_cand * V + val  # (candidate, value) key
    neg = v < 0
    m0 = np.bincount(pair_cand, weights=np.where(neg, nu, 0.0), minlength=C)
    present_keys = np.unique(cv[neg])
    d0 = np.bincount(present_keys // V, minlength=C)
    r = np.maximum(0, D - d0)
    covered = np.isin(cv, present_keys)
    # the cheapest row of every missing value (its representative)
    miss = np.flatnonzero(~covered)
    o = miss[np.lexsort((v[miss], cv[miss]))]
    first = np.ones(o.shape[0], dtype=bool)
    first[1:] = cv[o[1:]] != cv[o[:-1]]
    rep_pair = o[first]  # one pair per missing (candidate, value), its cheapest
    rep_cand, rep_cost = pair_cand[rep_pair], v[rep_pair]
    ro = np.lexsort((rep_cost, rep_cand))
    rep_pair, rep_cand, rep_cost = rep_pair[ro], rep_cand[ro], rep_cost[ro]
    rank = np.arange(rep_pair.shape[0]) - _group_start(rep_cand, C)[rep_cand]
    chosen = rank < r[rep_cand]
    n_missing = np.bincount(rep_cand, minlength=C)
    infeasible = n_missing < r
    # the dearest chosen representative (the r-th), and each value's representative cost
    last_rep = np.full(C, -np.inf)
    np.maximum.at(last_rep, rep_cand[chosen], rep_cost[chosen])
    rep_take = np.zeros(v.shape[0])
    rep_take[rep_pair[chosen]] = 1.0
    is_chosen_value = np.isin(cv, cv[rep_pair[chosen]])
    value_rep_cost = np.full(v.shape[0], np.inf)
    chosen_keys, chosen_costs = cv[rep_pair[chosen]], rep_cost[chosen]
    ck = np.argsort(chosen_keys)
    pos = np.searchsorted(chosen_keys[ck], cv[is_chosen_value])
    value_rep_cost[is_chosen_value] = chosen_costs[ck][pos]
    # fill to k with the cheapest rows left
    f = np.maximum(0.0, k - m0 - np.minimum(r, n_missing))
    avail = np.where(neg, 0.0, nu - rep_take)
    fill, fill_cost, short, dearest = _fill(v, avail, pair_cand, f, C)
    infeasible |= short
    neg_cost = np.bincount(pair_cand, weights=np.where(neg, v * nu, 0.0), minlength=C)
    rep_sum = np.bincount(rep_cand[chosen], weights=rep_cost[chosen], minlength=C)
    rc = np.where(infeasible, np.inf, neg_cost + rep_sum + fill_cost)
    take = np.where(neg, nu, 0.0) + rep_take + fill
    take[infeasible[pair_cand]] = 0.0
    # forced: one row of an untaken unit u (v_u >= 0) is added and the dearest row it makes redundant
    # leaves: a fill row when the fill was needed (its value covered, or not needed), the value's
    # representative (a chosen value), or the r-th representative (a missing value not chosen)
    drop_fill = np.where(f > 0, dearest, -np.inf)[pair_cand]
    drop_fill_or_zero = np.where(f[pair_cand] > 0, drop_fill, 0.0)
    new_value = ~covered & ~is_chosen_value
    extra = np.where(is_chosen_value, v - np.maximum(value_rep_cost, drop_fill),
                     np.where(new_value & (r[pair_cand] > 0), v - np.maximum(last_rep[pair_cand], drop_fill),
                              v - drop_fill_or_zero))
    forced = rc[pair_cand] + np.where(take > 0, 0.0, extra)
    forced[infeasible[pair_cand]] = np.inf
    return _prices(pi, n, rc, take, forced)


def frequency_blocks(pi, n, w, pair_unit, pair_cand, value, k: int, a: int, b: int,
                     k_prices: BlockPrices | None = None, strict: bool = False, shift=None) -> BlockPrices:
    """Every candidate's block under "size >= k and every value at most ``|G| · b / a`` times"
    (``strict``: fewer than ``|G| · b / a`` times).

    Parameters as :func:`distinct_blocks` (``k_prices`` with the same ``shift``); ``ℓ = a/b`` for
    frequency ℓ-diversity. Recursive (c, 2)-diversity, ``r_1 < c · (|G| − r_1)``, is the strict form with
    ``a/b = (c + 1)/c``. Candidates whose k-anonymity block (``k_prices``, computed when not given) is
    non-negative keep it: the frequency block lies above it, and only
    ``min(0, rc_j)`` enters ``L``. ``forced`` is ``max(rc_j, forced_k)``, a
    lower bound on the exact forced block.
    """
    return _per_candidate(lambda v, n_, val, k_j: _frequency_one(v, n_, val, k_j, a, b, strict),
                          pi, n, w, pair_unit, pair_cand, value, k, k_prices, shift)


def _per_candidate(solve_one, pi, n, w, pair_unit, pair_cand, value, k, k_prices, shift) -> BlockPrices:
    """Every candidate's block by ``solve_one(v, n, value, k_j) -> (lower bound, take or None)`` over its pairs,
    run only where the k-anonymity block (``k_prices``, computed when not given) is negative: the block lies
    above it (a restriction, or a relaxation of the criterion that still holds ``size >= k``), and only
    ``min(0, rc_j)`` enters ``L``. Each candidate keeps the larger of the two values (both bound its group
    problem), with the take of the block that gives it (the criterion's block at a tie within ``1e-9``); ``forced``
    is ``max(rc_j, forced_k)``, a lower bound on the exact forced block."""
    pi, n, w = (np.asarray(a_, dtype=float) for a_ in (pi, n, w))
    C = w.shape[0]
    if k_prices is None:
        k_prices = block_prices(pi, n, w, pair_unit, pair_cand, k, shift=shift)
    v = w[pair_cand] - pi[pair_unit] + (0.0 if shift is None else shift)
    nu = n[pair_unit]
    val = np.asarray(value, dtype=np.int64)[pair_unit]
    rc = k_prices.rc.copy()
    take = k_prices.take.copy()
    order = np.argsort(pair_cand, kind="stable")
    start = np.searchsorted(pair_cand[order], np.arange(C + 1))
    neg = np.flatnonzero(k_prices.rc < -1e-12)
    for j in neg[np.argsort(k_prices.rc[neg], kind="stable")]:  # most negative first (a block may stop at a limit)
        idx = order[start[j]:start[j + 1]]
        best, x = solve_one(v[idx], nu[idx], val[idx], k if np.ndim(k) == 0 else k[j])
        if best >= rc[j] - 1e-9 * max(1.0, abs(rc[j])):  # a tie within tolerances keeps the stronger block's take
            rc[j] = max(rc[j], best)
            if x is not None:
                take[idx] = x
    forced = np.maximum(rc[pair_cand], k_prices.forced)
    return _prices(pi, n, rc, take, forced)


#: ``q`` values evaluated together in :func:`_frequency_one` at first; the chunk doubles up to
#: ``_Q_CHUNK_MAX`` (bounds its memory to about that many floats per unit)
_Q_CHUNK, _Q_CHUNK_MAX = 16, 512


def _frequency_one(v, n, val, k, a, b, strict=False):
    """One candidate's frequency block: ``(optimum or inf, take per unit)`` by the cap-``q`` greedy.

    ``q`` rises in chunks and stops once no larger cap can beat the best: for every ``q' >= q`` the
    cost is at least all negative rows plus the cheapest ``need(q) − (negative rows)`` non-negative
    rows without caps, with ``need(q) = max(k, ⌈a q / b⌉)`` (strict: ``⌊a q / b⌋ + 1``), the least
    size a group whose largest count is ``q`` may have."""

    def need_of(q):
        return np.maximum(k, (a * q) // b + 1 if strict else -((-a * q) // b))

    # units sorted by (value, cost): the rows before a unit within its value fill the cap first
    o = np.lexsort((v, val))
    v, n, val = v[o], n[o], val[o]
    cum = np.cumsum(n)
    vstart = np.searchsorted(val, val, side="left")
    before = cum - n - np.concatenate([[0.0], cum])[vstart]
    N_val = np.bincount(val, weights=n)
    Qmax = int(N_val.max()) if N_val.size else 0
    neg = v < 0
    # the fill order over the non-negative units: by cost
    nn = np.flatnonzero(~neg)
    nn = nn[np.argsort(v[nn], kind="stable")]
    neg_rows, neg_all = float(n[neg].sum()), float(v[neg] @ n[neg])
    nn_cum_n, nn_cum_v = np.cumsum(n[nn]), np.cumsum(n[nn] * v[nn])

    def uncapped(R):
        """The cheapest ``R`` non-negative rows without caps (inf when there are fewer)."""
        if R <= 0:
            return 0.0
        i = int(np.searchsorted(nn_cum_n, R))
        if i >= nn.shape[0]:
            return np.inf
        full_n = nn_cum_n[i - 1] if i else 0.0
        full_v = nn_cum_v[i - 1] if i else 0.0
        return float(full_v + (R - full_n) * v[nn[i]])

    best, best_q = math.inf, None
    q0, chunk = 1, _Q_CHUNK
    while q0 <= Qmax:
        if neg_all + uncapped(int(need_of(q0)) - neg_rows) >= best:
            break
        qi = np.arange(q0, min(q0 + chunk, Qmax + 1), dtype=np.int64)
        q = qi.astype(float)[:, None]
        pool = np.clip(q - before[None, :], 0.0, n[None, :])  # (Q, U) rows available under cap q
        need = need_of(qi).astype(float)
        negc = pool[:, neg].sum(axis=1)
        negv = pool[:, neg] @ v[neg]
        R = np.maximum(0.0, need - negc)
        pn = pool[:, nn]
        cb = np.cumsum(pn, axis=1) - pn
        fill = np.clip(R[:, None] - cb, 0.0, pn)
        cost = negv + fill @ v[nn]
        feasible = pn.sum(axis=1) >= R - 1e-9
        cost = np.where(feasible, cost, np.inf)
        i = int(np.argmin(cost))
        if cost[i] < best:
            best, best_q = float(cost[i]), (int(qi[i]), fill[i].copy())
        q0 += chunk
        chunk = min(2 * chunk, _Q_CHUNK_MAX)
    x = np.zeros(v.shape[0])
    if best_q is not None:
        qq, fill_row = best_q
        x[neg] = np.clip(qq - before[neg], 0.0, n[neg])
        x[nn] = fill_row
    out = np.empty_like(x)
    out[o] = x
    return best, out


#: sizes scanned together in :func:`_ball_one` at first (the chunk doubles up to ``_S_CHUNK_MAX``), and at most this many per candidate (beyond them the block takes
#: the k-anonymity bound of the remaining sizes, the cheapest rows without the ball: valid, weaker)
_S_CHUNK, _S_CHUNK_MAX, _S_CAP = 64, 1024, 1 << 13


def ball_blocks(pi, n, w, pair_unit, pair_cand, value, k, P, tau: float,
                k_prices: BlockPrices | None = None, shift=None) -> BlockPrices:
    """Every candidate's block under "size >= k and total variation ``TV(q, P) <= τ``", over the integers.

    Parameters as :func:`distinct_blocks`; ``P`` the reference share of each value code of the column
    (summing to less than 1 where the reference holds values the table lacks), ``τ`` the ball's radius
    (:meth:`~milp_anon.privacy.criteria.TCloseness.tv_ball`: ``t`` itself under the equal distance, where the ball
    *is* t-closeness). For a size ``s``, ``s · TV = s − Σ_σ min(c_σ, P_σ s)`` (the coverage of
    :func:`~milp_anon.privacy.criteria.least_ball_size`): the ``c``-th cheapest row of value ``σ`` covers 1 while
    ``c <= ⌊P_σ s⌋`` (a *full* row), ``frac(P_σ s)`` at ``c = ⌊P_σ s⌋ + 1`` (the value's *partial* row),
    0 after (a *zero* row), and a group of ``s`` rows must cover ``(1 − τ) s``. Exchanges (a dearer row of a
    value for a cheaper one of the same value never lowers the coverage) make the rows taken per value its
    cheapest, so per size the block is: ``A`` full rows, ``π`` partial rows and ``s − A − π`` zero rows, each
    the cheapest of its pool, with ``A + (the π largest fractions) >= (1 − τ) s``. Pricing the ``π`` partial
    rows at the ``π`` cheapest while crediting the ``π`` largest fractions is the one relaxation (exact when
    the fractions are equal, e.g. a uniform reference): a lower bound on the group problem, at or above the
    k-anonymity block, with integer counts (the LP's ball rows allow fractional ones). With ``A`` free the
    cost is convex in ``A``, so ``A`` is the unconstrained optimum (the cheapest ``s − π`` full or zero rows)
    or ``A_req``. ``O(S · (U + V) · V)`` per candidate over its sizes ``S``; run only where the k-anonymity
    block is negative, and ``forced`` is ``max(rc_j, forced_k)``, as in :func:`frequency_blocks`.
    """
    P = np.asarray(P, dtype=float)
    return _per_candidate(lambda v, n_, val, k_j: _ball_one(v, n_, val, k_j, P, tau),
                          pi, n, w, pair_unit, pair_cand, value, k, k_prices, shift)


def _prefix(cum_n, cum_v, c, q):
    """Per row of the ``(m, U)`` running counts/costs of a pool (units in cost order ``c``) and per query of
    ``q`` (``(m, Q)``), the cost of its cheapest ``q`` rows (inf where the pool holds fewer), the index of the
    unit holding the ``q``-th row, and the rows before that unit (each ``(m, Q)``)."""
    m, U = cum_n.shape
    if U == 0:
        return np.where(q <= 0, 0.0, np.inf), np.zeros(q.shape, dtype=np.int64), np.zeros(q.shape)
    span = float(cum_n[:, -1].max()) + 2.0
    off = (np.arange(m) * span)[:, None]
    i = np.searchsorted((cum_n + off).ravel(), (q + off - 1e-9).ravel(), side="left").reshape(q.shape)
    i = np.clip(i - np.arange(m)[:, None] * U, 0, U - 1)
    r = np.arange(m)[:, None]
    before_n = np.where(i > 0, cum_n[r, i - 1], 0.0)
    before_v = np.where(i > 0, cum_v[r, i - 1], 0.0)
    cost = before_v + (q - before_n) * c[i]
    cost = np.where(q <= 0, 0.0, np.where(q > cum_n[:, -1:] + 1e-9, np.inf, cost))
    return cost, i, before_n


def _ball_pools(S, P, val_s, before_s, n_s):
    """Per size (rows of ``S``) and unit (units sorted by (value, cost)): full rows, partial row (0/1) and the
    fraction of the value's reference mass its partial row covers (0 where none)."""
    Ps = P[None, :] * S[:, None].astype(float)
    fl = np.floor(Ps + 1e-9)
    fr = np.maximum(Ps - fl, 0.0)
    flu = fl[:, val_s]
    full = np.clip(flu - before_s[None, :], 0.0, n_s[None, :])
    part = (before_s[None, :] <= flu) & (flu < before_s[None, :] + n_s[None, :]) & (fr[:, val_s] > 0)
    return full, part.astype(float), np.where(part, fr[:, val_s], 0.0)


def _ball_one(v, n, val, k, P, tau):
    """One candidate's ball block: ``(lower bound on its group problem, take per unit or None)``
    (:func:`ball_blocks`).

    The fractional block ``V(s)`` (:func:`_ball_continuous`) is convex in the size ``s`` (the value of a
    linear program whose feasible set in ``(x, s)`` is convex) and lies below the integer block at every size,
    so the sizes are scanned outward from its least point, each side until ``V`` reaches ``min(0, best)``
    (only ``min(0, rc_j)`` enters ``L``), at each size the larger of the two; past ``_S_CAP`` sizes, ``V`` at
    the window's edges bounds every size outside it."""
    o = np.lexsort((v, val))  # by value, then cost: the rows before a unit within its value are cheaper
    v, n, val = v[o], n[o], val[o]
    cum = np.cumsum(n)
    vstart = np.searchsorted(val, val, side="left")
    before = cum - n - np.concatenate([[0.0], cum])[vstart]
    g = np.argsort(v, kind="stable")  # the pools' cost order
    c = v[g]
    lo_s, hi_s = int(k), int(n.sum())
    if lo_s > hi_s:
        return math.inf, None

    def cont(sizes):
        return _ball_continuous(np.asarray(sizes, dtype=np.int64), P, tau, val, before, n, g, c)

    a, b = lo_s, hi_s  # the least integer point of the convex V: its first size with V(s + 1) >= V(s)
    while a < b:
        mid = (a + b) // 2
        vm = cont([mid, mid + 1])
        if vm[1] >= vm[0] - 1e-12:
            b = mid
        else:
            a = mid + 1
    best, arg = math.inf, None
    left, right = a - 1, a  # sizes <= left and >= right are still to scan
    chunk, scanned = _S_CHUNK, 0
    while left >= lo_s or right <= hi_s:
        if scanned >= _S_CAP:  # V at the window's edges bounds every size left
            for edge in (left, right):
                if lo_s <= edge <= hi_s:
                    ve = float(cont([edge])[0])
                    if ve < best:
                        best, arg = ve, (edge, None)
            break
        sides = []
        if right <= hi_s:
            sides.append(np.arange(right, min(right + chunk, hi_s + 1), dtype=np.int64))
        if left >= lo_s:
            sides.append(np.arange(max(left - chunk + 1, lo_s), left + 1, dtype=np.int64))
        S = np.concatenate(sides)
        scanned += S.shape[0]
        chunk = min(2 * chunk, _S_CHUNK_MAX)
        val_s, cont_s, p_s = _ball_sizes(S, P, tau, val, before, n, g, c)
        per_size = np.maximum(val_s, cont_s)  # both bound every group of that size
        si = int(np.argmin(per_size))
        if per_size[si] < best:
            best = float(per_size[si])
            arg = (int(S[si]), int(p_s[si]) if val_s[si] >= cont_s[si] else None)  # p_s: (π, d) flattened
        stop = min(best, 0.0)
        if right <= hi_s:
            r_end = int(sides[0][-1])
            right = r_end + 1 if cont_s[S == r_end][0] < stop else hi_s + 1
        if left >= lo_s:
            l_end = int(sides[-1][0])
            left = l_end - 1 if cont_s[S == l_end][0] < stop else lo_s - 1
    if arg is None:
        return best, None
    return best, _ball_take(arg, v, n, val, before, g, c, P, tau, o)


#: multipliers ``μ`` of the partial rows' coverage at which :func:`_ball_sizes` prices every set of ``π`` partial
#: rows (each gives a lower bound on the cheapest ``π`` rows covering ``θ``; ``μ = 0`` alone: the ``π``
#: cheapest rows, whatever they cover)
_MU = np.array([0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0])


def _ball_sizes(S, P, tau, val, before, n, g, c):
    """Per size of ``S``: the integer block's value (:func:`ball_blocks`), the fractional block's, and the
    ``(π, d)`` of the integer block's best (``π`` partial rows that lower the full rows needed by ``d``).

    With ``need = (1 − τ) s`` and ``O`` the values whose partial row is taken, the group covers ``need`` iff
    its full rows number at least ``⌈need⌉ − d`` where ``Σ_O f >= θ_d = need − ⌈need⌉ + d``. Per ``(π, d)``
    the rest is the cheapest ``s − π`` full or zero rows with at least ``⌈need⌉ − d`` full (``H``), and the
    partial rows cost at least ``K(π, θ_d) >= μ θ_d + (the π least c − μ f)`` for every ``μ >= 0`` (weak
    duality of the small knapsack), infinite where the ``π`` largest fractions fall short of ``θ_d``."""
    V = P.shape[0]
    m = S.shape[0]
    full, part, frac = _ball_pools(S, P, val, before, n)
    full, part, frac = full[:, g], part[:, g], frac[:, g]
    zero = n[g][None, :] - full - part
    # the partial rows per size (at most one per value): cost and fraction, padded with (inf, 0)
    W = min(V, part.shape[1])
    has = part > 0
    rank = np.cumsum(has, axis=1) - 1
    pcost = np.full((m, W), np.inf)
    pfrac = np.zeros((m, W))
    rr, uu = np.nonzero(has)
    pcost[rr, rank[rr, uu]] = c[uu]
    pfrac[rr, rank[rr, uu]] = frac[rr, uu]
    top_f = np.concatenate([np.zeros((m, 1)), np.cumsum(-np.sort(-pfrac, axis=1), axis=1)], axis=1)  # (m, π)
    need = (1.0 - tau) * S - 1e-9 * S - 1e-7  # the coverage asked, erring towards keeping
    a0 = np.ceil(need)
    d = np.arange(W + 1)
    theta = (need - a0)[:, None] + d[None, :]  # (m, d)
    # K(π, θ_d) from below: the largest over μ of μ θ_d + (the π least c − μ f)
    adj = np.sort(pcost[:, None, :] - _MU[None, :, None] * pfrac[:, None, :], axis=2)  # (m, μ, W)
    least = np.concatenate([np.zeros((m, _MU.shape[0], 1)), np.cumsum(adj, axis=2)], axis=2)  # (m, μ, π)
    with np.errstate(invalid="ignore"):
        K = np.max(_MU[None, :, None, None] * theta[:, None, None, :] + least[:, :, :, None], axis=1)  # (m, π, d)
    K = np.where(np.isnan(K), np.inf, K)
    K = np.where(top_f[:, :, None] >= theta[:, None, :] - 1e-12, K, np.inf)
    K = np.where(d[None, None, :] <= np.arange(W + 1)[None, :, None], K, np.inf)
    # H(s − π, ⌈need⌉ − d)
    pi_ = np.arange(W + 1)
    rest = np.broadcast_to((S[:, None] - pi_[None, :]).astype(float)[:, :, None], K.shape)  # (m, π, d)
    a_req = np.broadcast_to(np.maximum(0.0, a0[:, None] - d[None, :])[:, None, :], K.shape)
    H = _cheapest_with_full(full, zero, c, rest.reshape(m, -1), a_req.reshape(m, -1)).reshape(K.shape)
    vals = np.where(rest >= 0, K + H, np.inf).reshape(m, -1)
    best = np.argmin(vals, axis=1)
    return vals[np.arange(m), best], _ball_continuous(S, P, tau, val, before, n, g, c), best


def _ball_continuous(S, P, tau, val, before, n, g, c):
    """Per size of ``S``, the block with fractional rows (the LP's group problem at that size): every row of
    value ``σ`` up to ``P_σ s`` covers 1, the rest 0, and ``(1 − τ) s`` must be covered."""
    full = np.clip(P[val][None, :] * S[:, None] - before[None, :], 0.0, n[None, :])[:, g]
    zero = n[g][None, :] - full
    need = np.maximum((1.0 - tau) * S - 1e-9 * S - 1e-7, 0.0)[:, None]
    return _cheapest_with_full(full, zero, c, S[:, None].astype(float), need)[:, 0]


def _cheapest_with_full(full, zero, c, rest, a_req):
    """Per row of the ``(m, U)`` pools (``full`` and ``zero`` rows per unit, units in cost order ``c``) and per
    query of ``rest``, ``a_req`` (``(m, Q)``): the cost of the cheapest ``rest`` rows of both pools with at least
    ``a_req`` full rows (inf where impossible). The cost is convex in the number of full rows taken, so it is
    the cheapest ``rest`` rows of the merged pool (a unit's full rows before its zero rows) where those hold
    ``a_req`` full rows, and else the cheapest ``a_req`` full rows plus the cheapest ``rest − a_req`` zero
    rows."""
    merged = full + zero
    cf, cfv = np.cumsum(full, axis=1), np.cumsum(full * c, axis=1)
    cz, czv = np.cumsum(zero, axis=1), np.cumsum(zero * c, axis=1)
    cm, cmv = np.cumsum(merged, axis=1), np.cumsum(merged * c, axis=1)
    m_cost, i, bn = _prefix(cm, cmv, c, rest)
    r = np.arange(full.shape[0])[:, None]
    a_star = np.where(i > 0, cf[r, i - 1], 0.0) + np.minimum(full[r, i], np.maximum(rest - bn, 0.0))
    f_cost, _, _ = _prefix(cf, cfv, c, a_req)
    z_cost, _, _ = _prefix(cz, czv, c, rest - a_req)
    bounded = np.where(rest - a_req < -1e-9, np.inf, f_cost + z_cost)
    return np.where(a_star >= a_req - 1e-9, m_cost, bounded)


def _ball_take(arg, v, n, val, before, g, c, P, tau, o):
    """The rows per unit (in the caller's order) of a solution at the integer block's best ``(s, π, d)``
    (:func:`_ball_sizes`; the ``π`` partial rows least in ``c − μ f`` at the ``μ`` that priced them), or of the
    fractional block at size ``s`` where the second item is ``None`` (:func:`_ball_one`)."""
    s, flat = arg
    if flat is None:
        return _ball_continuous_take(s, v, n, val, before, g, c, P, tau, o)
    full, part, frac = _ball_pools(np.asarray([s]), P, val, before, n)
    full, part, frac = full[0, g], part[0, g], frac[0, g]
    zero = n[g] - full - part
    units = np.flatnonzero(part > 0)
    W = min(P.shape[0], part.shape[0])
    p, d = divmod(flat, W + 1)
    need = (1.0 - tau) * s - 1e-9 * s - 1e-7
    theta = need - math.ceil(need) + d
    adj = c[units][None, :] - _MU[:, None] * frac[units][None, :]
    order = np.argsort(adj, axis=1)
    price = _MU * theta + np.take_along_axis(adj, order, axis=1)[:, :p].sum(axis=1)
    chosen = units[order[int(np.argmax(price)), :p]]
    x = np.zeros_like(c)
    x[chosen] += 1.0
    x += _take_with_full(full, zero, float(s - p), max(0.0, math.ceil(need) - d))
    return _in_caller_order(x, g, o)


def _ball_continuous_take(s, v, n, val, before, g, c, P, tau, o):
    """The fractional block's rows per unit at size ``s`` (:func:`_ball_continuous`), in the caller's order."""
    full = np.clip(P[val] * s - before, 0.0, n)[g]
    zero = n[g] - full
    need = max(0.0, (1.0 - tau) * s - 1e-9 * s - 1e-7)
    return _in_caller_order(_take_with_full(full, zero, float(s), need), g, o)


def _take_with_full(full, zero, rest, a_req):
    """The rows per unit (units in cost order) of :func:`_cheapest_with_full`'s solution for one pool."""

    def first(avail, q):  # the cheapest q rows of a pool, per unit
        return np.clip(q - (np.cumsum(avail) - avail), 0.0, avail)

    merged = first(full + zero, rest)
    if np.minimum(full, merged).sum() >= a_req - 1e-9:  # a unit's full rows before its zero rows
        return merged
    return first(full, a_req) + first(zero, rest - a_req)


def _in_caller_order(x, g, o):
    """``x`` per unit in the pools' cost order ``g`` of the (value, cost)-sorted units ``o``, back in the
    caller's unit order."""
    out_sorted = np.empty_like(x)
    out_sorted[g] = x
    out = np.empty_like(x)
    out[o] = out_sorted
    return out


def emd_blocks(pi, n, w, pair_unit, pair_cand, value, k, rows: EMDRows, k_prices: BlockPrices | None = None,
               shift=None, seconds: float | None = None, deadline: float | None = None,
               share: bool = False) -> BlockPrices:
    """Every candidate's block under "size >= k and t-closeness" in the compact exact form ``rows`` of the
    ordered or hierarchical distance (:class:`EMDRows`), over the integers: a small integer program per candidate
    (its units' rows ``x_u ∈ {0, …, n_u}``, one ``|·|`` column per mass group), solved by HiGHS (presolve off, one
    thread, ``EMD_BLOCK_SECONDS`` each) — the group problem itself, so its Lagrangian dual is the Dantzig–Wolfe
    bound of t-closeness (``formulations/reduction.md``, "The EMD's integer block").

    Each candidate's value is the program's dual bound (its optimum where it finishes), lowered by a relative
    ``1e-9`` against the solver's tolerances, so a program stopped at its limit still gives a valid bound. Run
    only where the k-anonymity block is negative, most negative first, for at most ``seconds``
    (``EMD_PRICING_SECONDS``). Every candidate the integer pricing does not reach, and every program stopped at
    its limit (whose bound may lie below its root LP's), also gets its **LP block** (the same program without
    integrality, lowered by ``1e-7`` relative) for up to ``EMD_LP_SECONDS`` more, and keeps the larger: at the LP's
    multipliers the LP blocks sum to the LP's optimum, so a pricing cut short still gives at least the LP, and the
    programs solved lift it. Past both budgets a candidate keeps its k-anonymity block (valid, far below). A
    ``deadline`` (``time.perf_counter()``) ends both phases by then, keeping up to a quarter of the time before it
    (at most ``EMD_LP_SECONDS``) for the LP blocks. ``share``: each program may take the integer pricing's time left
    over the candidates left, at least ``EMD_BLOCK_SECONDS`` (a pricing with time for all, :meth:`RequestBlocks.until`'s
    ``whole``: at 4 QIs, 0.2 hierarchical, 200 s at 0.1 s each gave 7,544.56 in 121 s, at 0.5 s each 7,569.93 in 207 s).
    ``forced`` is ``max(rc_j, forced_k)``, as in :func:`frequency_blocks`. Parameters as :func:`distinct_blocks`."""
    t0 = time.perf_counter()
    budget = EMD_PRICING_SECONDS if seconds is None else seconds
    lp_budget = EMD_LP_SECONDS
    if deadline is not None:  # both phases end by it, a quarter of the time kept for the LP blocks at most
        avail = max(deadline - t0, 0.0)
        lp_budget = min(lp_budget, avail / 4)
        budget = min(budget, avail - lp_budget)
    k_prices = block_prices(pi, n, w, pair_unit, pair_cand, k, shift=shift) if k_prices is None else k_prices
    left_count = [int(np.count_nonzero(k_prices.rc < -1e-12))]  # the candidates :func:`_per_candidate` will solve

    def solve_one(v, n_, val, k_j):
        spent = time.perf_counter() - t0
        pos = rows.code_pos[val]
        best, x, proven = -math.inf, None, False
        each = max(EMD_BLOCK_SECONDS, (budget - spent) / max(left_count[0], 1)) if share else EMD_BLOCK_SECONDS
        left_count[0] -= 1
        if spent < budget:
            best, x, proven = _emd_one(v, n_, pos, k_j, rows, min(each, budget - spent))
        if proven:
            return best, x
        # not reached, or stopped with a bound that may lie below the LP's (before its root LP ended)
        left = max(budget, 0.0) + lp_budget - (time.perf_counter() - t0)
        if left > 0:
            best = max(best, _emd_one(v, n_, pos, k_j, rows, left, relax=True)[0])
        return best, x

    return _per_candidate(solve_one, pi, n, w, pair_unit, pair_cand, value, k, k_prices, shift)


def _emd_one(v, n, pos, k, rows: EMDRows, limit: float, relax: bool = False):
    """One candidate's EMD block (:func:`emd_blocks`): ``(lower bound, take or None, whether the bound is the
    optimum)``; ``pos`` is each unit's value position; ``relax``: its LP (no take). Columns ``x_u`` (integer)
    then ``u_e >= 0``; rows ``Σ x >= k``,
    ``u_e ∓ Σ_u (n [pos_u ∈ e] − N_e) x_u >= 0`` and ``b Σ_e u_e − a · scale · n · Σ x <= 0``: the model's
    rows for one group (``formulations/t-closeness.md``), every coefficient an integer but ``scale``."""
    import highspy

    U, E = v.shape[0], rows.member.shape[0]
    n_all = float(rows.N.sum())
    inf = highspy.kHighsInf
    # mass rows: coefficient of x_u in group e's net mass n c_e − N_e s
    NE = rows.member.astype(float) @ rows.N
    coef = np.where(rows.member[:, pos], n_all, 0.0) - NE[:, None]  # (E, U)
    A = []  # (lower, upper, indices, values) per row
    A.append((float(k), inf, np.arange(U), np.ones(U)))
    for e in range(E):
        for sign in (1.0, -1.0):
            A.append((0.0, inf, np.append(np.arange(U), U + e), np.append(-sign * coef[e], 1.0)))
    A.append((-inf, 0.0, np.arange(U + E),
              np.concatenate([np.full(U, -float(rows.a) * rows.scale * n_all), np.full(E, float(rows.b))])))
    h = new_highs()
    for key, val in (("presolve", "off"), ("mip_rel_gap", 0.0), ("time_limit", max(float(limit), 0.01))):
        h.setOptionValue(key, val)
    h.addVars(U + E, np.zeros(U + E), np.concatenate([n, np.full(E, inf)]))
    h.changeColsCost(U + E, np.arange(U + E, dtype=np.int32), np.concatenate([v, np.zeros(E)]))
    if not relax:
        h.changeColsIntegrality(U, np.arange(U, dtype=np.int32), np.array([highspy.HighsVarType.kInteger] * U))
    starts = np.cumsum([0] + [len(r[2]) for r in A[:-1]])
    h.addRows(len(A), np.array([r[0] for r in A]), np.array([r[1] for r in A]), int(sum(len(r[2]) for r in A)),
              starts.astype(np.int32), np.concatenate([r[2] for r in A]).astype(np.int32),
              np.concatenate([r[3] for r in A]).astype(float))
    run_here(h)
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return math.inf, None, True
    info = h.getInfo()
    if relax:  # the LP's optimum; its tolerances (1e-7) allowed for
        if status != highspy.HighsModelStatus.kOptimal:
            return -math.inf, None, False
        bound = float(info.objective_function_value)
        return bound - 1e-7 * max(1.0, abs(bound)), None, False
    bound = float(info.mip_dual_bound)
    if status not in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kTimeLimit) \
            or not math.isfinite(bound):
        return -math.inf, None, False  # nothing proven: the k-anonymity block stays
    bound -= 1e-9 * max(1.0, abs(bound))
    take = None
    if info.primal_solution_status == 2:
        take = np.clip(np.rint(np.asarray(h.getSolution().col_value[:U])), 0.0, n)
    return bound, take, status == highspy.HighsModelStatus.kOptimal


def combine(blocks: list[BlockPrices], pi, n, pair_cand) -> BlockPrices:
    """The largest of several relaxations' block values, per candidate and per pair (each is a lower bound
    on the group problem of the request, so their maximum is too); ``take`` from the block that attains it."""
    if len(blocks) == 1:
        return blocks[0]
    rc = np.stack([b.rc for b in blocks])
    which = np.argmax(rc, axis=0)
    best_rc = rc[which, np.arange(rc.shape[1])]
    forced = np.max(np.stack([b.forced for b in blocks]), axis=0)
    takes = np.stack([b.take for b in blocks])
    take = takes[which[pair_cand], np.arange(takes.shape[1])]
    return _prices(pi, n, best_rc, take, forced)


def _prices(pi, n, rc, take, forced) -> BlockPrices:
    pi, n = np.asarray(pi, dtype=float), np.asarray(n, dtype=float)
    bound = float(pi @ n + np.minimum(rc, 0.0).sum())
    return BlockPrices(rc=rc, take=take, forced=forced, bound=bound)
