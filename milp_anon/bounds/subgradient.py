"""Lagrangian multipliers by subgradient ascent on ``L(π)``, with block solves only (no master LP).

``L(π) = Σ_u π_u n_u + Σ_j min(0, rc_j(π))`` is concave and piecewise
linear; at ``π`` the vector ``g_u = n_u − Σ_{j: rc_j < 0} x_uj`` (``x`` the
block solutions) is a supergradient. The step is Polyak's towards a target
value (Held, Wolfe and Crowder 1974; Polyak 1969)::

    π ← π + θ · (target − L(π)) / ‖g‖² · g

with the target above the best ``L`` found (a known upper bound, or the best
``L`` raised by a share that shrinks with ``θ``), ``θ`` halved after
``PATIENCE`` steps without a better bound and doubled (up to 1) after
``GROW_AFTER`` better steps in a row: started at multipliers where the first
long steps overshoot (the k-anonymity LP's, when pruning has already lifted
it), a θ that can only shrink crawls. The ascent also stops when the
best bound rose by less than ``STALL_SHARE`` of itself over the last
``STALL_WINDOW`` steps since its first gain: where the group blocks add little to the LP, the
time left goes to the search instead. Every ``L(π)`` is a valid lower
bound whatever the step does, so the method only decides *which* valid bound
is reported; the best one and its block prices are kept.

:func:`second_ascent` runs where time is left over: from the same start,
without the stall rule, a longer patience, and the step along a deflected
direction (Camerini, Fratta and Maffioli 1975) instead of ``g``.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from milp_anon.bounds.lagrangian import BlockPrices
from milp_anon.runtime.status import Status
from milp_anon.runtime.tuning import Tuning
from milp_anon.solvers.outcome import SolveOutcome

__all__ = ["Ascent", "PrimalAverage", "alternating_ascent", "second_ascent", "second_ascent_job",
           "subgradient_ascent"]

_log = logging.getLogger("milp_anon.bounds.subgradient")

#: steps without a better bound before θ is halved
PATIENCE = 5
#: better steps in a row before θ doubles again (up to ``THETA_START``)
GROW_AFTER = 3
#: θ at the start, and the smallest θ before the ascent stops
THETA_START, THETA_MIN = 1.0, 1e-3
#: stop when the best bound gained less than this share of itself over the last ``STALL_WINDOW`` steps
STALL_WINDOW, STALL_SHARE = 25, 5e-4
#: :func:`alternating_ascent` stops after a round (β steps, then π steps) that gained less than this share
ROUND_SHARE = 1e-3
#: π steps per round of :func:`alternating_ascent` after the first ascent
ROUND_STEPS = 100
#: without an upper bound, the target lies this share of |L| above the best bound (times θ)
TARGET_SHARE = 0.05
#: :func:`second_ascent`: steps without a better bound before θ is halved, and the deflection γ of its
#: directions (Camerini, Fratta and Maffioli 1975: ``d = g + γ max(0, −g·d')/‖d'‖² d'``; 0: the plain step)
SECOND_PATIENCE, SECOND_DEFLECTION = 15, 1.5
#: :func:`second_ascent`: an ascent that gained nothing waits for a lower target (a table of the search beside it),
#: asked for this often (seconds)
TARGET_WAIT = 0.2
# :func:`second_ascent` and the rounds of :func:`alternating_ascent` take no step they know (``Ascent.explored``),
# solve no start twice, and the second ascent ends (or waits) after an ascent without gain, unless the solve's
# ``tuning.known_steps`` is off (``known_steps``; its process gets it with its options).

#: :func:`second_ascent` where a pricing solves the EMD's integer programs (up to a minute each): first one
#: pricing at its start with all its time (so it reaches every candidate), then steps from θ = ``DEAR_THETA_START``
#: halved after every ``DEAR_PATIENCE`` steps without gain, not deflected. Why: the usual pricing stops after
#: ``blocks.EMD_PRICING_SECONDS``, and at 4 QIs (0.2 hierarchical) the second ascent's gain came from pricing its
#: start again, not from its steps; from ``π_LP`` (0.3 hierarchical, where a pricing reaches every candidate) the
#: usual steps (θ = 1, deflected) lost 14–464 in 4 steps (160 s), and θ = 0.05 halved after each gained nothing
#: in 6 (193 s). ``tuning.second_ascent_whole_pricing`` off (``whole``): the package before
DEAR_THETA_START, DEAR_PATIENCE = 0.05, 1

#: the shipped techniques (:class:`~milp_anon.runtime.tuning.Tuning`), where a caller gives none
_SHIPPED = Tuning()


def _reaches(bound: float, upper: float | None, rel_tol: float = 1e-6) -> bool:
    """Whether ``bound`` reaches the known upper bound ``upper`` (within ``rel_tol``): no step can gain."""
    return upper is not None and bound >= upper - rel_tol * max(1.0, abs(upper))


def _heard(prices_of, on_prices):
    """``prices_of`` telling ``on_prices`` each outcome."""
    def heard(pi):
        prices = prices_of(pi)
        on_prices(prices)
        return prices
    return heard


class PrimalAverage:
    """The average of the block solutions an ascent passes, heard through ``on_prices``: each ``π``'s pairs
    ``take`` in the candidates its blocks open (``rc_j(π) < 0``), ``0`` elsewhere, over the later steps only
    (from step ``2^(m−1)`` on once ``2^m`` steps are heard: between the last half and the last three quarters;
    two sums of one value per pair). Where the ascent nears the dual optimum this average nears a solution of
    the Dantzig–Wolfe master whose columns are the blocks' solutions (the ergodic sequences of subgradient
    methods: Larsson, Patriksson and Strömberg, Math. Program. 86 (1999) 283–312), with no LP solved: a point
    to round into a table where the LP does not finish (:meth:`assignment`). The early steps, far from the
    dual optimum, are left out: on Adult (6 QIs, frequency ℓ = 3, 144 steps) the average of all rounds to
    17,193, of the steps after the 60th to 16,889, the last step's solution alone to 17,279."""

    def __init__(self, pair_cand: np.ndarray):
        self.pair_cand = pair_cand
        self.earlier = np.zeros(pair_cand.shape[0])  # steps [2^(m-1), 2^m) (step 0 alone while 2^m = 1)
        self.later = np.zeros(pair_cand.shape[0])  # steps [2^m, now)
        self.count = 0  # steps heard
        self.segment = 0  # 2^m: where ``later`` began (0 before the second step)

    def __call__(self, prices: BlockPrices) -> None:
        if self.count == max(1, 2 * self.segment):  # a new segment: the one before it kept, the older dropped
            self.earlier, self.later = self.later, self.earlier
            self.later[:] = 0.0
            self.segment = self.count
        self.later += np.where((prices.rc < 0)[self.pair_cand], prices.take, 0.0)
        self.count += 1

    @property
    def averaged(self) -> int:
        """How many steps the average holds."""
        return self.count - self.segment // 2

    def assignment(self, n: np.ndarray, pair_unit: np.ndarray) -> np.ndarray | None:
        """The average with each unit's pairs scaled to its ``n`` rows (an assignment; a unit no block took
        stays at 0, for the rounding to place), or ``None`` before any step."""
        if self.count == 0:
            return None
        x = (self.earlier + self.later) / self.averaged
        cover = np.bincount(pair_unit, weights=x, minlength=n.shape[0])
        return x * np.where(cover > 0, n / np.maximum(cover, 1e-300), 0.0)[pair_unit]


@dataclass
class Ascent:
    """Outcome of :func:`subgradient_ascent`: the best multipliers, their prices (``bound = L(pi)``), the
    bound at the start, iterations and seconds; :func:`alternating_ascent` adds the ball multipliers."""

    pi: np.ndarray
    prices: BlockPrices
    start_bound: float
    iterations: int
    seconds: float
    betas: tuple = ()  # t-closeness's ball multipliers (:func:`alternating_ascent`)
    #: ``(θ, steps)``: every fresh start from ``pi`` (with ``betas``) with θ at most ``θ`` gains nothing in up to
    #: ``steps`` steps (:func:`subgradient_ascent`)
    explored: tuple = (0.0, 0)

    @property
    def bound(self) -> float:
        return self.prices.bound


def _stalled(history: list, it: int, gained_at: int | None, window: int, share: float) -> bool:
    """:func:`subgradient_ascent`'s stall rule: the best bound gained less than ``share`` of itself over the last
    ``window`` steps, counted from the first better step (``window=0``: never)."""
    if not (window and gained_at is not None and it - gained_at >= window):
        return False
    then = history[it - window]
    return history[it] - then < share * max(1.0, abs(then))


def _supergradient(prices: BlockPrices, n: np.ndarray, pair_unit, pair_cand) -> np.ndarray:
    """A supergradient of ``L`` at the blocks' ``π``: each unit's count less the rows the block solutions take."""
    used = (prices.rc < 0)[pair_cand]
    return n - np.bincount(pair_unit[used], weights=prices.take[used], minlength=n.shape[0])


def _deflected(g: np.ndarray, last: np.ndarray | None, deflection: float) -> tuple[np.ndarray, bool]:
    """``(d, deflected)``: ``g`` deflected along the last direction ``last`` (Camerini–Fratta–Maffioli) where
    the two point apart and ``deflection`` > 0, else ``g`` as it is."""
    if deflection > 0 and last is not None:
        along = float(g @ last)
        if along < 0:
            return g - deflection * along / float(last @ last) * last, True
    return g, False


def _polyak_step(theta: float, g: np.ndarray, L: float, best_L: float, upper: float | None) -> float:
    """Polyak's step length along ``g`` from ``L`` towards ``upper`` (none: θ·``TARGET_SHARE`` above the best)."""
    norm2 = float(g @ g)
    target = upper if upper is not None else best_L + theta * TARGET_SHARE * max(1.0, abs(best_L))
    return theta * max(target - L, 1e-9 * max(1.0, abs(L))) / norm2


def subgradient_ascent(prices_of: Callable[[np.ndarray], BlockPrices], pi0, n, pair_unit, pair_cand, *,
                       upper: float | None = None, time_limit: float | None = None,
                       max_iterations: int = 200, rel_tol: float = 1e-6,
                       stall_window: int = STALL_WINDOW, stall_share: float = STALL_SHARE,
                       stop: Callable[[], bool] | None = None, patience: int | None = None,
                       deflection: float = 0.0, theta_start: float = THETA_START,
                       on_prices: Callable[[BlockPrices], None] | None = None,
                       start: BlockPrices | None = None, explored: tuple = (0.0, 0)) -> Ascent:
    """Maximize ``L`` from ``pi0`` (module docstring); ``prices_of(pi)`` solves every block.

    Stops at ``max_iterations``, at ``time_limit``, when ``θ`` falls below
    ``THETA_MIN``, when the bound reaches ``upper`` (within ``rel_tol``), or
    when the best bound gained less than ``stall_share`` of itself over the
    last ``stall_window`` steps, counted from the first better step
    (``stall_window=0``: never), or once ``stop()`` is true (asked before every step). ``patience``:
    steps without a better bound before θ is halved (default ``PATIENCE``); ``deflection`` γ > 0 steps along
    ``d = g + γ max(0, −g·d')/‖d'‖² d'`` (``d'`` the last direction, forgotten at every restart from the best
    point) instead of ``g``: the Camerini–Fratta–Maffioli rule, which damps the zig-zag of successive
    supergradients; the step is Polyak's with ``‖d‖²``; ``theta_start``: θ at the start and its cap.
    ``on_prices`` hears the blocks' outcome at every
    ``π`` solved (the start's and each step's), as :class:`PrimalAverage` averages them. ``start``: the blocks'
    outcome at ``pi0`` where the caller has it, which is then not solved again (with the EMD's programs one
    pricing may take a minute). ``explored``: an earlier ascent's :attr:`Ascent.explored` at ``pi0`` towards the same
    ``upper`` with the same rules; while no step has gained, θ does not go down to its θ again (where this ascent
    may take no more than its steps).

    Why ``explored``: the steps are deterministic. From a point ``P`` with θ, ``stale = 0`` and no last direction (a
    fresh start: the ascent's own, or a restart from the best point) the steps are fixed, and without a gain they
    end in the fresh start from ``P`` with θ/2. So once θ has run down below ``THETA_MIN`` from a fresh start from
    the best point with θ_r, every fresh start from it with θ ≤ θ_r is known to gain nothing; an ascent restarted
    there (:func:`second_ascent`, a round of :func:`alternating_ascent`) used to take those steps again. An
    ascent that ends at ``max_iterations`` without a gain knows the same of its start for ascents given at most as
    many steps (with t-closeness's balls every ``π`` ascent after the first gets ``ROUND_STEPS``).
    """
    t0 = time.perf_counter()
    n = np.asarray(n, dtype=float)
    pi = np.asarray(pi0, dtype=float).copy()
    if on_prices is not None:
        prices_of = _heard(prices_of, on_prices)
        if start is not None:
            on_prices(start)
    prices = prices_of(pi) if start is None else start
    best = (pi.copy(), prices)
    start_bound = prices.bound
    theta, stale, better, it = theta_start, 0, 0, 0
    patience = PATIENCE if patience is None else patience
    last = None  # the last direction (deflection)
    history = [start_bound]  # the best bound after each step
    gained_at = None  # the first better step: the stall rule counts from there
    # a fresh start now; the θ of the first one from the best point; what the ascent ends knowing; a gain before
    fresh, ladder, known, gained = True, theta, (0.0, 0), False
    floor = explored[0] if max_iterations <= explored[1] else 0.0
    while it < max_iterations:
        if theta < THETA_MIN or (fresh and gained_at is None and theta <= floor):
            # every fresh start from the best point with θ <= ladder gains nothing (below the floor: in as many
            # steps as the earlier ascent knew)
            known = (ladder, math.inf if theta < THETA_MIN else explored[1])
            break
        if time_limit is not None and time.perf_counter() - t0 >= time_limit:
            break
        if stop is not None and stop():
            break
        if _stalled(history, it, gained_at, stall_window, stall_share):
            break
        L = prices.bound
        if _reaches(L, upper, rel_tol):
            break
        g = _supergradient(prices, n, pair_unit, pair_cand)
        if not g.any():  # the block solutions partition the rows: L(π) is the optimum
            break
        g, deflected = _deflected(g, last, deflection)
        if gained and not deflected:  # the first step from a new best point is a fresh start's: so is the rest
            ladder = theta
        last, gained = g, False
        best_L = best[1].bound
        pi = pi + _polyak_step(theta, g, L, best_L, upper) * g
        prices = prices_of(pi)
        it, fresh = it + 1, False
        if prices.bound > best_L + rel_tol * max(1.0, abs(best_L)):
            best, stale, better, ladder, gained = (pi.copy(), prices), 0, better + 1, None, True
            gained_at = it if gained_at is None else gained_at
            if better >= GROW_AFTER:  # steady gains: the step may be longer again
                theta, better = min(2 * theta, theta_start), 0
        else:
            better = 0
            stale += 1
            if stale >= patience:
                theta, stale = theta / 2, 0
                pi, prices, last = best[0].copy(), best[1], None  # restart from the best point
                fresh, ladder = True, theta if ladder is None else ladder
        history.append(best[1].bound)
        _log.debug("subgradient %d: L %.4f (best %.4f), θ %.3g", it, prices.bound, best[1].bound, theta)
    else:
        if gained_at is None:  # all its steps from the fresh start gained nothing: so would as many again
            known = (theta_start, max_iterations)
    _log.info("subgradient ascent: %.4f -> %.4f in %d steps, %.1f s", start_bound, best[1].bound, it,
              time.perf_counter() - t0)
    return Ascent(pi=best[0], prices=best[1], start_bound=start_bound, iterations=it,
                  seconds=time.perf_counter() - t0, explored=known)


def alternating_ascent(blocks, pi0, *, upper: float | None = None, time_limit: float | None = None,
                       betas0: tuple | None = None, max_iterations: int = 200,
                       stall_window: int = STALL_WINDOW, stop: Callable[[], bool] | None = None,
                       patience: int | None = None, deflection: float = 0.0, theta_start: float = THETA_START,
                       on_prices: Callable[[BlockPrices], None] | None = None,
                       start: BlockPrices | None = None, explored: tuple = (0.0, 0),
                       known_steps: bool | None = None) -> Ascent:
    """Maximize ``L(π, β)`` of blocks with t-closeness's ball multipliers
    (:class:`~milp_anon.bounds.blocks.RequestBlocks`): :func:`subgradient_ascent` over ``π`` with ``β = 0``,
    then rounds of ``β`` steps with ``π`` fixed (:meth:`~milp_anon.bounds.blocks.RequestBlocks.ascend_balls`, one
    Polyak step per candidate) and ``ROUND_STEPS`` ``π`` steps with ``β`` fixed, until a round gains less
    than ``ROUND_SHARE`` of the bound or the time is up.

    Why alternate: a joint Polyak step over ``(π, β)`` shares one step length between the units and every
    candidate's ``β_j``, and from the k-anonymity LP's ``π`` (where the pruned ``L`` is flat) it gained
    nothing in 50 steps on Adult (4 QIs, t = 0.2); with ``π`` fixed ``L`` separates by candidate, each with
    the known target 0. Every ``(π, β)`` gives a valid bound; the best is kept. ``upper``: a known upper
    bound on the optimum (a verified table's cost), the target of the ``π`` steps (:func:`subgradient_ascent`);
    ``betas0`` the ball multipliers to start from (default: the blocks' start); ``max_iterations`` and
    ``stall_window`` bound the first ``π`` ascent, ``patience``, ``deflection`` and ``theta_start`` rule every
    ``π`` ascent (:func:`subgradient_ascent`); ``stop()`` true ends it; ``on_prices`` hears every ``π`` step's blocks
    (:func:`subgradient_ascent`; not the ``β`` steps'); ``start``: the blocks' outcome at ``(pi0, betas0)`` where the
    caller has it, and ``explored`` what an earlier ascent knows there (:func:`subgradient_ascent`). A round's ``π``
    ascent starts from the ``β`` steps' outcome, not solving it again; where they gained nothing, from what the
    last ``π`` ascent knew (``known_steps``, default ``Tuning.known_steps``'s: whether so)."""
    t0 = time.perf_counter()
    known_steps = _SHIPPED.known_steps if known_steps is None else known_steps

    def left():
        return None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - t0))

    betas = blocks.start_betas() if betas0 is None else tuple(betas0)
    asc = subgradient_ascent(lambda pi: blocks.prices(pi, betas), pi0, blocks.n, blocks.pair_unit,
                             blocks.pair_cand, upper=upper, time_limit=left(), max_iterations=max_iterations,
                             stall_window=stall_window, stop=stop, patience=patience, deflection=deflection,
                             theta_start=theta_start, on_prices=on_prices, start=start, explored=explored)
    start_bound, steps = asc.start_bound, asc.iterations
    pi, prices = asc.pi, asc.prices
    while blocks.balls and (time_limit is None or left() > 0) and not (stop is not None and stop()):
        before, last = prices.bound, prices
        betas, prices = blocks.ascend_balls(pi, betas, prices, time_limit=left())
        fixed = betas
        asc = subgradient_ascent(lambda p: blocks.prices(p, fixed), pi, blocks.n, blocks.pair_unit,
                                 blocks.pair_cand, upper=upper, time_limit=left(), max_iterations=ROUND_STEPS,
                                 stop=stop, patience=patience, deflection=deflection, theta_start=theta_start,
                                 on_prices=on_prices, start=prices if known_steps else None,
                                 # β unchanged: the same point
                                 explored=asc.explored if known_steps and prices is last else (0.0, 0))
        steps += asc.iterations
        if asc.bound >= prices.bound:
            pi, prices = asc.pi, asc.prices
        _log.info("ball round: %.4f -> %.4f", before, prices.bound)
        if prices.bound - before < ROUND_SHARE * max(1.0, abs(before)):
            break
    return Ascent(pi=pi, prices=prices, start_bound=start_bound, iterations=steps,
                  seconds=time.perf_counter() - t0, betas=tuple(betas), explored=asc.explored)


def second_ascent(blocks, pi0, ascent: Ascent, *, upper: float | None, time_limit: float,
                   stop: Callable[[], bool] | None = None,
                   on_bound: Callable[[float], None] | None = None,
                   ceiling: Callable[[], float] | None = None, whole: bool | None = None,
                   known_steps: bool | None = None) -> Ascent:
    """A second ascent from ``pi0`` (the first's start, with the blocks' start ball multipliers) for
    ``time_limit`` seconds, towards ``upper`` (the best verified table's cost, often well below the one the
    first ascent aimed at), without the stall rule or a cap on the steps (with balls: ``ROUND_STEPS`` ``π``
    steps between their rounds), θ halved after ``SECOND_PATIENCE`` steps without gain and the directions
    deflected (``SECOND_DEFLECTION``): the pipeline gives it time nothing else uses
    (``formulations/reduction.md``, "The second ascent"). θ restarts at ``THETA_START`` from the best point whenever
    it falls below ``THETA_MIN`` while time is left, solving neither that point again nor the steps the last ascent
    took from it (``known_steps``, default ``Tuning.known_steps``'s); after an ascent without gain it ends, or with
    ``ceiling`` waits for a lower target; ``stop()`` true ends it; ``on_bound(L)`` hears each better bound as a
    restart finds it; ``ceiling()``, the cost of the best table found meanwhile (by a search beside it), lowers the
    target at each restart. Where
    a pricing solves the EMD's integer programs, the steps are ``DEAR_THETA_START`` and ``DEAR_PATIENCE``'s,
    undeflected, and without ``stop`` (in its own process beside the search, which ends it by its clock) one
    pricing at ``pi0`` with the whole time comes first, counted as a step (``whole``: whether so, default
    ``Tuning.second_ascent_whole_pricing``'s; a process beside the search gets the parent's with its options).
    Returns the better of ``ascent`` (the first) and what it found (``start_bound``: ``ascent``'s bound;
    ``iterations`` and ``seconds``: this call's).

    Why from ``pi0`` and not from the first ascent's multipliers: on Adult (5 QIs, frequency ℓ = 3) the same
    95 s of steps from where the first ascent stopped (θ run down) gained 5 (11,719 → 11,725), from ``pi0``
    21 (→ 11,740), two probes side by side; in the solve, 101 s alone gave 11,754."""
    t0 = time.perf_counter()
    # a pricing of the EMD's block may take a minute: it ends with the limit (its unreached candidates at their
    # k-block), so the ascent does not overrun it
    blocks = blocks.until(t0 + time_limit)
    best, steps = ascent, 0
    pi, betas = np.asarray(pi0, dtype=float), None
    theta, patience, deflection = THETA_START, SECOND_PATIENCE, SECOND_DEFLECTION
    whole = _SHIPPED.second_ascent_whole_pricing if whole is None else whole
    known_steps = _SHIPPED.known_steps if known_steps is None else known_steps
    if blocks.has_emd_blocks and whole:
        theta, patience, deflection = DEAR_THETA_START, DEAR_PATIENCE, 0.0
    priced = None  # the blocks' outcome at pi and betas, where known: the next ascent starts from it
    explored, aimed = (0.0, 0), None  # what the last ascent knew at pi and betas (Ascent.explored), its target
    if blocks.has_emd_blocks and whole and stop is None:  # nothing asks it to stop: it may take the whole time
        priced = blocks.until(t0 + time_limit, whole=True).prices(pi)
        steps += 1
        if priced.bound > best.bound:
            best = Ascent(pi=pi.copy(), prices=priced, start_bound=ascent.bound, iterations=0,
                          seconds=time.perf_counter() - t0, betas=blocks.start_betas())
            if on_bound is not None:
                on_bound(best.bound)
    while True:
        if ceiling is not None:
            upper = min(ceiling(), math.inf if upper is None else upper)
            upper = None if math.isinf(upper) else upper
        left = time_limit - (time.perf_counter() - t0)
        if left <= 0 or _reaches(best.bound, upper) or (stop is not None and stop()):
            break
        asc = alternating_ascent(blocks, pi, upper=upper, time_limit=left, betas0=betas,
                                 max_iterations=ROUND_STEPS if blocks.balls else 10 ** 9, stall_window=0,
                                 stop=stop, patience=patience, deflection=deflection, theta_start=theta,
                                 start=priced if known_steps else None, known_steps=known_steps,
                                 explored=explored if known_steps and upper == aimed else (0.0, 0))
        steps += asc.iterations
        # this ascent's best point: the next restart's, neither solved again nor its known steps taken again
        pi, betas, priced, explored, aimed = asc.pi, asc.betas or None, asc.prices, asc.explored, upper
        if asc.bound > best.bound:
            best = asc
            if on_bound is not None:
                on_bound(best.bound)
        if not known_steps and asc.iterations == 0:  # (the rule before; for benchmarks)
            break
        if known_steps and asc.bound <= asc.start_bound and not _lower_target(ceiling, upper, t0 + time_limit, stop):
            # nothing gained (the block solutions partition the rows, no time was left, or no step from here
            # towards this target gains): the ascent ends, unless the search beside it lowers the target
            break
    return dataclasses.replace(best, start_bound=ascent.bound, iterations=steps,
                               seconds=time.perf_counter() - t0)


def _lower_target(ceiling: Callable[[], float] | None, upper: float | None, end: float,
                  stop: Callable[[], bool] | None) -> bool:
    """Whether ``ceiling()`` (a search's best table, where one runs beside) falls below ``upper`` before ``end``,
    asked every ``TARGET_WAIT`` seconds; ``stop()`` true ends the wait."""
    if ceiling is None:
        return False
    while time.perf_counter() < end and not (stop is not None and stop()):
        lower = ceiling()
        if math.isfinite(lower) and (upper is None or lower < upper):
            return True
        time.sleep(min(TARGET_WAIT, max(0.0, end - time.perf_counter())))
    return False


def second_ascent_job(job, options, grid, hint=None, *, on_improving=None, stop_bound=None, on_progress=None,
                      ceiling=None):
    """:func:`second_ascent` as the ``solve_fn`` of a solve in its own process
    (:func:`~milp_anon.solvers.isolated.solve_isolated`), so it runs on another core beside the search:
    ``job = (blocks, pi0, ascent, upper)``, for ``options.time_limit`` seconds. Each better ``L(π)`` goes to the
    parent as ``solver_bound`` (kept should the process be killed); ``options.tuning``, the parent's, gives
    :func:`second_ascent`'s ``whole`` (``second_ascent_whole_pricing``) and ``known_steps``;
    ``ceiling()`` is the cost of the best table the parent's search has found (the target from the next restart
    on); the outcome's ``bound`` is the best ``L(π)``
    (not rounded: the caller rounds it to its grid), and its ``job`` the log (``start``, ``bound``, ``steps``,
    ``seconds``). ``hint``, ``on_improving`` and ``stop_bound`` belong to a solver's signature and are unused."""

    blocks, pi0, ascent, upper = job

    def tell(bound):
        if on_progress is not None:
            on_progress(solver_bound=float(bound))

    asc = second_ascent(blocks, pi0, ascent, upper=upper, time_limit=options.time_limit, on_bound=tell,
                        ceiling=ceiling, whole=options.tuning.second_ascent_whole_pricing,
                        known_steps=options.tuning.known_steps)
    log = dict(start=ascent.bound, bound=asc.bound, steps=asc.iterations, seconds=round(asc.seconds, 3))
    return SolveOutcome(Status.TIME_LIMIT, None, None, asc.bound, "second ascent", asc.seconds, job=log)
