"""The exact Lagrangian reduction: restricted models under a rising threshold (``formulations/reduction.md``).

1. A Lagrangian relaxation over the assignment rows gives a lower bound and,
   for every (type, candidate) pair, a bound on every solution that uses it
   (:class:`PairBounds`; for k-anonymity alone :func:`k_anonymity_bounds`,
   the LP bound by column generation, :mod:`milp_anon.bounds.lagrangian`).
2. Rounds with a threshold ``G <= UB`` (:meth:`LagrangianReduction.next_threshold`):
   the model restricted to the pairs some solution cheaper than ``G`` may use
   is built and solved, stopping once its bound reaches ``G`` (the first round
   is polished first, ``ROUND_POLISH``). Its result ``c'`` (an upper bound
   when feasible) with its bound ``B`` gives ``LB = max(LB, min(B, G))``: a
   cheaper solution outside the restriction cannot exist
   (:meth:`LagrangianReduction.run_round`). Stop when ``UB <= LB`` (optimal),
   at the requested gap, or at a time or memory limit.

The rounds know the pair bounds only through :class:`PairBounds`, so another
criterion's block solver plugs in by providing one.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from milp_anon.bounds import lagrangian
from milp_anon.bounds.blocks import request_blocks
from milp_anon.bounds.lagrangian import column_generation, dense_point
from milp_anon.bounds.subgradient import PrimalAverage, alternating_ascent
from milp_anon.formulations import build, read_assignment, release_assignment
from milp_anon.formulations.sizing import check_memory
from milp_anon.instance.instance import Instance
from milp_anon.release.result import SOLVER, ModelSize, ReductionLog, Round, Timings
from milp_anon.release.verified import Outcome, Release
from milp_anon.runtime import interrupt, progress
from milp_anon.runtime.errors import InputError, ModelTooLargeError, SolverError
from milp_anon.runtime.grid import NO_GRID, ObjectiveGrid
from milp_anon.runtime.memory import cap_bytes
from milp_anon.runtime.status import Status
from milp_anon.search import lns
from milp_anon.search.lp_rounding import round_k_anonymity
from milp_anon.search.starts import best_heuristic, interval_split_applies, release_pairs, whole_table_start
from milp_anon.solvers import SolverOptions, StopAtBound, highs_option_values, solve_model
from milp_anon.solvers.isolated import solve_isolated
from milp_anon.solvers.root_cuts import solve_by_root_cuts

__all__ = ["LagrangianReduction", "PairBounds", "block_bounds", "keeps_whole_limit", "k_anonymity_bounds",
           "threshold_table", "unavailable"]

_log = logging.getLogger("milp_anon.reduction")

#: the next threshold G is the largest whose restricted model has at most this many times the pairs
#: of the last round (and at least LB + one grid step): rounds below the optimum stop as soon as
#: their bound reaches G and are cheap; the round that holds the optimum is at most about this
#: factor larger than needed
ROUND_GROWTH = 2
# A later round whose ``S(G)`` would hold more than ``tuning.proof_round_share`` (``1 / ROUND_GROWTH``) of the
# proving round's pairs (``S(UB)``) is the proving round instead: the round after it would hold nearly all of
# ``S(UB)`` anyway, and a restricted round stops at ``G`` while redoing nearly the whole model's root (5 QIs, ``lm``,
# k = 5: an 802 k-pair round of 1.07 M took 174 s to reach ``G`` and left the whole model 178 s).
#: the first round searches for incumbents this share of the remaining time (of this many seconds
#: without a time limit) before stopping at its threshold
ROUND_POLISH = 0.25
ROUND_POLISH_UNLIMITED = 300.0
# The polish time the first round does not use (it was proven optimal sooner) goes to the next rounds
# (``tuning.polish_shared``), while the gap is above ``HEURISTIC_GAP`` (below it the incumbent is close enough, and a
# round that searched on after reaching its threshold would only delay the proof).
#: under a time limit the heuristic table is computed after the first round when that round's
#: incumbent is further than this from the bound (on Adult it lands 3–6 % above the best known
#: and takes 10–40 s at 6–8 QIs, which would otherwise come after the limit)
HEURISTIC_GAP = 0.01
#: ... for which the first round leaves this share of the remaining time
HEURISTIC_SHARE = 0.25
#: the LP rounding (:func:`milp_anon.search.lp_rounding.round_k_anonymity`) improves its table for at most this share of the time
#: left after the bounds (of this many seconds without a time limit); on Adult it stops by itself
#: within 1–2 s at 6 QIs and 20 s at 8 QIs
ROUNDING_SHARE = 0.1
ROUNDING_SECONDS_UNLIMITED = 60.0
# The techniques of the rounds are the solver options' ``tuning`` (:class:`~milp_anon.runtime.tuning.Tuning`):
# ``lp_rounding`` (the LP point rounded into a first table), ``round_root_cuts``, ``round_holds_incumbent``,
# ``search_beside_rounds``, ``search_beside_keeps_limit``, ``search_beside_lp``, ``cliques``, ``round_cliques``,
# ``rank_rows``, ``proof_round_share``, ``polish_shared``.
#: a round that does not polish, of at least this many columns, is solved through its root's cuts
#: (``tuning.round_root_cuts``, :mod:`milp_anon.solvers.root_cuts`): HiGHS's root, then its cuts' reduced costs fix
#: the columns no solution below ``G`` uses, and the MILP over the rest (its nodes a fraction of the size)
ROOT_CUTS_MIN_COLUMNS = 100_000
# Every round's model also holds the incumbent's pairs and starts from it (``tuning.round_holds_incumbent``; off:
# ``S(G)`` alone, started from the whole table as one group); any superset of ``S(G)`` keeps ``OPT >= min(B, G)``.
# A round solved in its own process has the large-neighbourhood search run beside it in this one, on the other
# core (``tuning.search_beside_rounds``; ``solver.lns > 0``, two cores, heuristics on,
# :func:`milp_anon.search.lns.beside_possible`), from the incumbent, until the round ends: HiGHS uses one core, and
# at 7–8 QIs the rounds hold the incumbent for minutes (8 QIs, k = 5: one 155 s round that found nothing below the
# LP rounding's table) ...
#: ... when the round has at least this many seconds: a round that ends waits for the search's sub-problem
#: (at most ``lns.SUB_LIMIT``), which short limits with several rounds (6 QIs, 60 s) cannot spare
SEARCH_BESIDE_MIN_SECONDS = 100.0
# The reduction keeps the whole time limit when the search can run beside its rounds
# (``tuning.search_beside_keeps_limit``, :func:`keeps_whole_limit`): the search's share (``solver.lns``) is then
# spent beside the rounds, on the other core, instead of after them on one (5 QIs, ``lm``, k = 10, 600 s: the search
# after the rounds found nothing and ended 96 s early, while the last round had stopped at the stage's limit).

# k-anonymity's column generation runs in its own process with the large-neighbourhood search beside it in this
# one, on the other core (``tuning.search_beside_lp``, :meth:`LagrangianReduction.bounds_beside_search`; two cores,
# ``lns > 0``, heuristics and ``tuning.lp_rounding`` on, a column generation of ``SEARCH_BESIDE_LP_MIN_SECONDS`` or
# more: below, its process's start and the wait for a point cost more than the search gains): in process the other
# core waits while it runs, half the limit (Adult, 8 QIs, k = 5, 600 s: 305 s, then its LP rounding 31,991, which
# the search beside the rounds took to 31,572 in the rest; given 1,800 s, to 31,332). The search starts from
# the rounding of the master's point the child hands over ``SEARCH_BESIDE_LP_GUIDE`` of the way through; a
# start from the pattern greedy gains too slowly (8 QIs, k = 5: 33,558 → 32,616 in 300 s)
SEARCH_BESIDE_LP_GUIDE = 0.25
SEARCH_BESIDE_LP_MIN_SECONDS = 100.0
#: ... for layers of at most this many pairs: the child holds its own copy of the pairs beside this process's
SEARCH_BESIDE_LP_MAX_PAIRS = 8_000_000
#: seconds between two looks of the search for the child's master point
GUIDE_POLL = 0.1
#: HiGHS's parallel tree search (``tuning.parallel_tree``) holds up to this many times one thread's memory: the
#: solves' peaks rose 1.2–2 times (``benchmarks/results/suite_commits_parallel_tree_6qi_k10_600s.md``,
#: ``suite_commits_parallel_tree_78qi_k5_600s.md``); a round where that does not fit runs on one thread
PARALLEL_TREE_MEMORY = 2.0

# The column generation adds the conflict cliques its converged masters violate (``tuning.cliques``,
# :func:`milp_anon.bounds.lagrangian.column_generation`): a bound above the LP's, and pair bounds with the cliques'
# multipliers (``formulations/reduction.md``, "Conflict cliques"). Each round's model holds those cliques as rows
# ``Σ_{j ∈ Q} y_j <= 1`` over the round's candidates (``tuning.round_cliques``, :func:`add_clique_rows`): valid there,
# as a round only removes pairs, so two candidates' rows only shrink; the round's LP then starts at least at the
# cliques' bound instead of the LP's. Once no clique is violated, the column generation adds the rank rows
# ``Σ_{j ∈ S} y_j <= ⌊|R_S| / k⌋`` its masters violate (``tuning.rank_rows``,
# :func:`milp_anon.bounds.conflicts.violated_rank_rows`); they join the cliques in the bound, the pair bounds and the
# rounds' rows.


def unavailable(request, solver: SolverOptions, candidates=None, n_rows: int | None = None) -> str | None:
    """Why the Lagrangian reduction does not apply to ``request`` under ``solver``, or ``None`` if it does."""
    if not request.k_alone:
        return "it covers k-anonymity alone (no sensitive criterion)"
    return k_relaxation_unavailable(request, solver, candidates, n_rows)


def k_relaxation_unavailable(request, solver: SolverOptions, candidates=None, n_rows: int | None = None) -> str | None:
    """Why the k-anonymity LP bound over ``candidates`` (:func:`k_anonymity_bounds`) is not a bound for
    ``request``, or ``None`` when it is: the cost objective without side constraints or withheld records.

    With sensitive criteria it is still a bound: every release meeting them is k-anonymous (with the
    request's smallest group size) over the same candidates and costs, so the k-anonymity optimum over
    those candidates, and its LP bound, lie below the request's optimum."""
    if request.model.objective != "cost" or request.model.has_side_constraints:
        return "it covers the cost objective without budget or t_out options"
    if request.model.withholds:
        return "it does not cover record suppression"
    if not solver.in_bulk:
        return "it runs on HiGHS through highspy"
    if candidates is not None and not np.any(candidates.capacity >= n_rows):
        # its first master is the whole table as one class (e.g. a pattern set without all-'*')
        return "no candidate holds the whole table"
    return None


@dataclass
class PairBounds:
    """A Lagrangian relaxation's bounds: ``bound`` on every solution, ``thresholds[p]`` (rounded up to
    the objective's grid) on every solution that uses pair ``p``; ``log`` records how they were found."""

    bound: float
    thresholds: np.ndarray
    log: ReductionLog
    seconds: float
    #: a point ``(y, g)`` of the LP over the candidates and pairs to round into a first table
    #: (:func:`milp_anon.search.lp_rounding.round_k_anonymity`), or ``None``
    guide: tuple | None = None
    #: the k-anonymity LP's bounds these were built on (:func:`block_bounds`), which bound k-anonymity over
    #: the same candidates too (the row generation's ``R(∅)`` reuses them), or ``None``
    k_anonymity: PairBounds | None = None
    #: ``(blocks, pi0, ascent)`` of the group blocks (:func:`block_bounds`): the ascent's start and outcome, for
    #: a second ascent in time left over (:func:`~milp_anon.bounds.subgradient.second_ascent`), or ``None``
    ascent: tuple | None = field(default=None, compare=False, repr=False)
    #: the group blocks' solutions averaged over the ascent's later steps
    #: (:class:`~milp_anon.bounds.subgradient.PrimalAverage`), a point to round into a table, or ``None``
    primal: PrimalAverage | None = field(default=None, compare=False, repr=False)


def _search_fits_beside(request, options: SolverOptions, n_cols: int) -> bool:
    """Whether the search may run beside a model of ``n_cols`` columns solved under ``options`` for ``request``
    (``options.tuning.search_beside_rounds``, a limit of ``SEARCH_BESIDE_MIN_SECONDS`` or more,
    :func:`_search_possible`), the incumbent and ``heuristics`` aside."""
    return options.tuning.search_beside_rounds and options.time_limit is not None \
        and options.time_limit >= SEARCH_BESIDE_MIN_SECONDS \
        and _search_possible(request, options, n_cols)


def _search_possible(request, options: SolverOptions, n_cols: int) -> bool:
    """Whether a search asked for (``lns > 0``) that applies to ``request`` can run beside a model of ``n_cols``
    columns in its own process under ``options`` (:func:`milp_anon.search.lns.beside_possible`: two cores, isolation)."""
    return options.search_share > 0 and lns.unavailable(request) is None and lns.beside_possible(options, n_cols)


def keeps_whole_limit(request, solver: SolverOptions, n_pairs: int) -> bool:
    """Whether the reduction of a model of ``n_pairs`` pairs keeps ``solver``'s whole time limit although a
    search is asked for (``solver.tuning.search_beside_keeps_limit``): it runs beside the rounds, so it needs no time
    of its own."""
    return solver.tuning.search_beside_keeps_limit and _search_fits_beside(request, solver, n_pairs)


def k_anonymity_bounds(instance: Instance, request, grid: ObjectiveGrid, solver: SolverOptions,
                       time_limit: float | None) -> PairBounds:
    """The LP bound over every candidate by column generation, and the pair bounds of its multipliers."""
    cands, types = instance.candidates, instance.types
    cg = column_generation(types.counts, cands.cost, cands.pair_type, cands.pair_cand, request.min_group_size(),
                           time_limit=time_limit, tuning=solver.tuning, **_column_generation_keywords(solver))
    return _k_pair_bounds(instance, grid, cg)


def _column_generation_keywords(solver: SolverOptions) -> dict:
    """:func:`~milp_anon.bounds.lagrangian.column_generation`'s keywords under ``solver`` but its ``tuning`` (which
    :func:`~milp_anon.bounds.lagrangian.column_generation_job` takes from the options it is sent)."""
    return dict(highs_options=highs_option_values(solver, master_lp=True), cliques=solver.tuning.cliques,
                rank_rows=solver.tuning.rank_rows)


def _k_pair_bounds(instance: Instance, grid: ObjectiveGrid, cg) -> PairBounds:
    """:func:`k_anonymity_bounds`'s outcome from the column generation's ``cg``."""
    cands = instance.candidates
    with_cliques = bool(cg.cliques)
    log = ReductionLog(lp_bound=cg.bound_without_cliques if with_cliques else cg.bound, lp_value=cg.lp_value,
                       lp_converged=cg.converged, cg_iterations=cg.iterations, master_candidates=cg.master_candidates,
                       master_pairs=cg.master_pairs, full_candidates=cands.n_candidates, full_pairs=cands.n_pairs,
                       multipliers=np.asarray(cg.pi, dtype=float).tolist(),
                       clique_bound=cg.bound if with_cliques else None,
                       cliques=[list(q) for q in cg.cliques] if with_cliques else None,
                       clique_multipliers=np.asarray(cg.mu, dtype=float).tolist() if with_cliques else None,
                       clique_rhs=np.asarray(cg.rhs).tolist() if with_cliques else None)
    return PairBounds(cg.bound, grid.ceil_array(cg.pair_bounds(cands.pair_cand)), log, cg.seconds,
                      guide=cg.primal)


#: share of :func:`block_bounds`'s time limit for the column generation that gives its first multipliers
BLOCK_CG_SHARE = 0.5


def block_bounds(instance: Instance, request, grid: ObjectiveGrid, solver: SolverOptions,
                 time_limit: float | None, upper: float | None = None) -> PairBounds:
    """The Lagrangian bound of the request's exact group blocks (:mod:`milp_anon.bounds.blocks`), and its pair
    bounds; the k-anonymity LP bound (:func:`k_anonymity_bounds`) where no criterion adds a block.

    The multipliers start at the k-anonymity LP's (each unit takes its row type's), where the bound is at
    least the LP bound, and rise by subgradient ascent (:mod:`milp_anon.bounds.subgradient`) in the time left.
    Both relaxations bound every solution, so the larger bound and, per pair, the larger pair bound hold
    (``formulations/reduction.md``, "Sensitive criteria"). ``upper``, a verified table's objective, is the
    ascent's target (Polyak's step towards a known upper bound); without it the target is guessed."""
    t0 = time.perf_counter()
    kb = k_anonymity_bounds(instance, request, grid, solver,
                            None if time_limit is None else BLOCK_CG_SHARE * time_limit)
    blocks = request_blocks(instance, request)
    if blocks is None:
        return dataclasses.replace(kb, k_anonymity=kb)
    blocks = dataclasses.replace(blocks, tuning=solver.tuning)  # the integer blocks it adds, its pricing's chunks
    pi0 = np.asarray(kb.log.multipliers, dtype=float)[instance.units.unit_type]
    left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - t0))
    primal = PrimalAverage(blocks.pair_cand)
    asc = alternating_ascent(blocks, pi0, upper=upper, time_limit=left, on_prices=primal,
                             known_steps=solver.tuning.known_steps)
    blocks, asc = _with_ball_blocks(blocks, asc,
                                    None if time_limit is None else time_limit - (time.perf_counter() - t0))
    log = dataclasses.replace(kb.log, block_bound=asc.bound, block_start=asc.start_bound,
                              ascent_steps=asc.iterations, ascent_seconds=round(asc.seconds, 3),
                              multipliers=None)  # per unit, not the row types' (certify reads k alone)
    pair = blocks.per_type_pair(grid.ceil_array(asc.prices.pair_bounds(blocks.pair_cand)))
    return PairBounds(max(kb.bound, asc.bound), np.maximum(kb.thresholds, pair), log,
                      time.perf_counter() - t0, k_anonymity=kb, ascent=(blocks, pi0, asc), primal=primal)


def _with_ball_blocks(blocks, asc, left: float | None):
    """``(blocks, asc)`` after pricing the blocks with the ball's integer block (t-closeness,
    :meth:`~milp_anon.bounds.blocks.RequestBlocks.with_ball_blocks`) once at the ascent's best multipliers, where one such
    pricing (:meth:`~milp_anon.bounds.blocks.RequestBlocks.ball_pricing_seconds`) fits in the time ``left`` of the
    stage: the larger ``L`` at the same ``(π, β)`` (:func:`~milp_anon.bounds.blocks.combine` keeps every candidate's larger
    block), and the blocks with the ball's block for every later pricing. Unchanged where it does not raise ``L``."""
    wider = blocks.with_ball_blocks()
    if wider is blocks or (left is not None and blocks.ball_pricing_seconds(asc) > left):
        return blocks, asc
    prices = wider.prices(asc.pi, asc.betas or None)
    if prices.bound <= asc.bound:
        return blocks, asc
    return wider, dataclasses.replace(asc, prices=prices)


class LagrangianReduction:
    """The rounds of the reduction on one instance (module docstring).

    State: the lower bound ``lb``, the best verified release and its value
    ``ub``, the last round's pair count and bound; :meth:`run` returns the
    :class:`~milp_anon.release.verified.Outcome`.
    """

    def __init__(self, instance: Instance, request, solver: SolverOptions, timings: Timings, size: ModelSize,
                 bounds: Callable = k_anonymity_bounds, start: Release | None = None, heuristics: bool = True,
                 since: float | None = None, search_memory: lns.SearchMemory | None = None, *, sub_solve: lns.SubSolve):
        self.instance, self.request, self.solver, self.timings = instance, request, solver, timings
        #: how the search beside the rounds solves its sub-problems (:data:`~milp_anon.search.lns.SubSolve`)
        self.sub_solve = sub_solve
        #: what the search beside each round carries to the next (:class:`~milp_anon.search.lns.SearchMemory`)
        self.search_memory = search_memory
        #: whether heuristic tables may be incumbents (and the fallback); off: every table the reduction
        #: returns is a solution of the model over ``instance``'s candidates (the heuristics' may use others)
        self.heuristics = heuristics
        self.size = size
        self.bounds_fn = bounds
        self.grid = ObjectiveGrid.of_costs(instance.candidates.cost) if request.recoding.rational_costs else NO_GRID
        #: the ``time.perf_counter()`` instant the time limit counts from (``since``: the solve's call, so the
        #: candidates' generation before the reduction is inside it; default: now)
        self.t0 = time.perf_counter() if since is None else float(since)
        self.best: Release | None = start  # a given verified release is the first incumbent
        #: the incumbent's rows per (type, candidate) pair of the whole instance, once known (``False``:
        #: some row's released vector is not a candidate)
        self.best_pairs: np.ndarray | bool | None = None
        self.lb = -math.inf
        self.last_pairs, self.last_bound = 0, -math.inf
        self.last_G = -math.inf  # the threshold of the last round built
        self.polish_left = 0.0  # seconds of incumbent search left to the rounds (set by the first)
        self.stopped_by_limit = False
        #: the most pairs a round may hold: below those of a round whose process was killed at the memory allowed
        self.max_round_pairs = math.inf
        self.solver_status = ""
        self.counts = dict(instance.candidates.counts)
        self.warm_start_cost = None if start is None else start.cost  # reported like a heuristic start

    # -- bookkeeping ----------------------------------------------------------------------
    @property
    def ub(self) -> float:
        return math.inf if self.best is None else self.best.objective

    def left(self) -> float | None:
        """Seconds left of the time limit (``None``: no limit)."""
        limit = self.solver.time_limit
        return None if limit is None else limit - (time.perf_counter() - self.t0)

    def hard_end(self) -> float | None:
        """The end of the time limit, which a round solved in its own process must not overrun (it is killed just
        after, :func:`~milp_anon.solvers.isolated.solve_isolated`); ``None``: no limit. HiGHS overruns its limit on
        the largest rounds, by up to the kill's own margins (15 %)."""
        limit = self.solver.time_limit
        return None if limit is None else self.t0 + limit

    def max_memory_bytes(self) -> float | None:
        """What this process and a round's child process may hold together (``max_memory_gb``), or ``None``."""
        return cap_bytes(self.request.model.max_memory_gb)

    def done(self) -> bool:
        """Optimal (``UB`` reaches ``LB``) or within the requested gap."""
        if self.best is not None and self.grid.equal(self.ub, self.lb):
            return True
        gap = self.solver.gap
        return bool(gap) and self.best is not None and self.grid.gap(self.ub, self.lb) <= gap

    def heuristic(self) -> None:
        """The best verified heuristic table replaces a poorer incumbent (unless ``heuristics`` is off)."""
        if not self.heuristics:
            return
        with self.timings.phase("warm_start"):
            rel = best_heuristic(self.instance.table, self.request)
        if rel is not None:
            self.warm_start_cost = rel.cost if self.warm_start_cost is None else min(self.warm_start_cost, rel.cost)
            if rel.objective < self.ub - 1e-9:
                self.best, self.best_pairs = rel, None

    def offer(self, rel: Release, pairs: np.ndarray | None = None) -> None:
        """A verified table (its rows per pair, if known) becomes the incumbent when cheaper."""
        if rel.objective < self.ub - 1e-9:
            self.best, self.best_pairs = rel, pairs
            progress.report(incumbent=self.ub)

    def rounded(self, guide) -> tuple[Release, np.ndarray]:
        """The point ``guide = (y, g)`` rounded into a verified table (:func:`milp_anon.search.lp_rounding.round_k_anonymity`) within
        ``ROUNDING_SHARE`` of the time left, and its rows per pair."""
        left = self.left()
        budget = ROUNDING_SECONDS_UNLIMITED if left is None else max(0.0, ROUNDING_SHARE * left)
        inst = self.instance
        cands, types = inst.candidates, inst.types
        a = round_k_anonymity(types.counts, cands.cost, cands.pair_type, cands.pair_cand, self.request.min_group_size(),
                     *guide, time_limit=budget)
        released, groups, cost = release_assignment(inst, cands.pair_type, cands.pair_cand, a)
        return Release.verified(inst.table, self.request, released, cost=cost, groups=groups,
                                source="LP rounding"), a

    def rounding(self, guide) -> None:
        """The LP point rounded into a verified table (:func:`milp_anon.search.lp_rounding.round_k_anonymity`), the incumbent when cheaper."""
        inst = self.instance
        if inst.units.n_units != inst.types.t_in:  # pragma: no cover - k-anonymity alone does not split types
            return
        t0 = time.perf_counter()
        with self.timings.phase("warm_start"):
            rel, a = self.rounded(guide)
        self.log.rounding_objective = rel.objective
        self.log.rounding_seconds = round(time.perf_counter() - t0, 3)
        _log.info("LP rounding: %g in %.1f s", rel.objective, self.log.rounding_seconds)
        self.offer(rel, a)

    # -- the procedure ----------------------------------------------------------------------
    def run(self) -> Outcome:
        limit = self.solver.time_limit
        lp_limit = None if limit is None else 0.5 * limit
        # the rounds' phase once the LP ends (each round names itself when its model is built; a step between
        # them, e.g. the LP point's rounding, gives the label back to this one, not to the solve's first)
        progress.report(phase="fixing")
        with progress.phase("lp"):  # timed by the bounds themselves (pb.seconds), shown while they run
            if self.search_beside_lp(lp_limit):
                pb, lp_search = self.bounds_beside_search(lp_limit)
            else:
                pb, lp_search = self.bounds_fn(self.instance, self.request, self.grid, self.solver, lp_limit), None
        self.log = pb.log
        self.log.lp_search = lp_search
        self.timings.add("lp", pb.seconds)
        cands = self.instance.candidates
        self.lb = max(self.grid.ceil(pb.bound), float(min(0, cands.cost.min())))  # costs are >= 0
        self.thresholds = pb.thresholds
        self.by_threshold = np.sort(pb.thresholds)  # S(G) sorted: the G of a wanted size at once
        # every solution uses a pair of every type, and costs at least that pair's bound
        floor = np.full(self.instance.types.t_in, np.inf)
        np.minimum.at(floor, cands.pair_type, pb.thresholds)
        self.log.type_bound = float(floor.max())
        self.lb = max(self.lb, self.log.type_bound)
        progress.report(bound=self.lb)
        if self.solver.tuning.lp_rounding and pb.guide is not None and self.request.k_alone:
            self.rounding(pb.guide)
        if self.heuristic_first():
            self.heuristic()
        while not self.done():
            remaining = self.left()
            if (remaining is not None and remaining <= 0) or interrupt.stop_requested():
                self.stopped_by_limit = True
                break
            if not self.run_round(self.next_threshold(), remaining):
                break
        self.timings.add("solve", self.timings.lp or 0.0)
        self.log.lower_bound = self.lb
        return self.outcome()

    def heuristic_first(self) -> bool:
        """Whether the heuristic tables come before the rounds rather than after the first: asked for
        (``warm_start="greedy"``), or k-anonymity with an interval column, whose first round (the restriction near
        the LP bound) can take the whole limit while the interval split (:func:`~milp_anon.heuristics.interval_split`)
        finds a far better table than the LP rounding in a fraction of a second (``suite_commits_interval_split.md``)."""
        return self.request.model.warm_start == "greedy" or interval_split_applies(self.request)

    def search_beside_lp(self, lp_limit: float | None) -> bool:
        """Whether the column generation runs in its own process with the search beside it
        (``tuning.search_beside_lp``): k-anonymity's bounds, heuristics and ``tuning.lp_rounding`` on, a column
        generation of ``SEARCH_BESIDE_LP_MIN_SECONDS`` or more, at most ``SEARCH_BESIDE_LP_MAX_PAIRS`` pairs, and
        :func:`_search_possible` (with as many columns as pairs)."""
        n_pairs = self.instance.candidates.n_pairs
        tuning = self.solver.tuning
        return tuning.search_beside_lp and tuning.lp_rounding and self.bounds_fn is k_anonymity_bounds \
            and self.heuristics \
            and self.instance.units.n_units == self.instance.types.t_in \
            and lp_limit is not None and lp_limit >= SEARCH_BESIDE_LP_MIN_SECONDS \
            and n_pairs <= SEARCH_BESIDE_LP_MAX_PAIRS \
            and _search_possible(self.request, dataclasses.replace(self.solver, time_limit=lp_limit), n_pairs)

    def bounds_beside_search(self, lp_limit: float) -> tuple[PairBounds, dict]:
        """:func:`k_anonymity_bounds` in its own process (:func:`~milp_anon.bounds.lagrangian.column_generation_job`)
        while this one searches (:func:`milp_anon.search.lns.beside`): from the rounding of the master point the child
        hands over after ``SEARCH_BESIDE_LP_GUIDE`` of ``lp_limit``, or the incumbent where cheaper, until the
        column generation ends. Its table becomes the incumbent where cheaper. Should the child end without
        its outcome (killed at the memory allowed, stopped, died), the bounds are those of the column
        generation's start, the lattice-flow multipliers (:func:`k_anonymity_bounds` without time). Returns
        ``(the bounds, what the search did: the seconds at which the point was handed over, its rounding's
        objective, the search's log)``."""

        inst = self.instance
        cands, types = inst.candidates, inst.types
        job = (types.counts, cands.cost, cands.pair_type, cands.pair_cand, self.request.min_group_size(),
               _column_generation_keywords(self.solver), SEARCH_BESIDE_LP_GUIDE * lp_limit)
        guides: list = []  # the child's master point, from the reader's thread
        options = dataclasses.replace(self.solver, time_limit=lp_limit)  # its tuning goes to the child with them

        def take_guide(fields):
            if "lp_guide" in fields:
                guides.append(fields.pop("lp_guide"))

        def work(cancel):
            try:
                return solve_isolated(job, options, self.grid, solve_fn=lagrangian.column_generation_job,
                                      cancel=cancel, hard_end=self.hard_end(),
                                      max_memory_bytes=self.max_memory_bytes(), on_fields=take_guide)
            except SolverError as exc:  # its process died: the bounds of the start below
                _log.warning("column generation beside the search: %s", exc)
                return None

        def search(done):
            while not guides and not done() and not interrupt.stop_requested():
                time.sleep(GUIDE_POLL)
            if not guides or interrupt.stop_requested():  # a point that came as the child ended is still rounded
                return None
            seconds, *point = guides[0]
            with self.timings.phase("warm_start"):
                rel, a = self.rounded(dense_point(point, cands.n_candidates, cands.n_pairs))
            said = dict(guide_seconds=seconds, rounding=rel.objective)
            self.offer(rel, a)
            found, log = lns.improve(inst.table, self.request, self.best, lp_limit, self.solver, stop=done,
                                     memory=self.search_memory, sub_solve=self.sub_solve)
            return found, dict(said, search=log.as_dict())

        out, searched = lns.beside(work, search)
        said = None
        if searched is not None:
            found, said = searched
            self.offer(found)
        cg = None if out is None else out.job
        if cg is None:
            return k_anonymity_bounds(inst, self.request, self.grid, self.solver, 0.0), said
        cg = cg.restored(types.counts, cands.cost, cands.pair_type, cands.pair_cand, self.request.min_group_size(),
                         price_chunk=self.solver.tuning.price_chunk)
        return _k_pair_bounds(inst, self.grid, cg), said

    def incumbent_pairs(self) -> np.ndarray | None:
        """The incumbent's rows per pair of the whole instance, or ``None`` (none, or not all of its
        released vectors are candidates)."""
        if self.best is None:
            return None
        if self.best_pairs is None:
            inst = self.instance
            c = inst.candidates
            a, cand_of_row = release_pairs(inst, c.pair_type, c.pair_cand, self.best)
            self.best_pairs = a if np.all(cand_of_row >= 0) else False
        return None if self.best_pairs is False else self.best_pairs

    def restriction(self, G: float) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """``(below, inc, keep)``: the pairs of ``S(G)``, the incumbent's rows per pair (``None``: none
        held), and the round's pairs at ``G``.

        The restriction may be any superset of ``S(G)``: a solution cheaper than ``G`` uses pairs of
        ``S(G)`` only, so it still costs at least the restricted model's bound ``B``. It also holds the
        incumbent's pairs, so it is feasible and starts from the incumbent (HiGHS improves from it)."""
        below = self.thresholds < G
        inc = self.incumbent_pairs() if self.solver.tuning.round_holds_incumbent else None
        return below, inc, (below if inc is None else below | (inc > 0))

    def too_large(self, sub, solver_factor: float = 1.0) -> ModelTooLargeError | None:
        """Why the model over the candidates ``sub`` does not fit the memory allowed, or ``None``; ``solver_factor``:
        its solve holds that many times one thread's estimate (:func:`~milp_anon.formulations.sizing.check_memory`)."""
        if sub.n_pairs > self.max_round_pairs:
            return ModelTooLargeError(f"a round of {self.max_round_pairs + 1:,} pairs or more was killed at the memory "
                                      f"allowed, and this one holds {sub.n_pairs:,}")
        try:
            check_memory(self.instance.with_candidates(sub), self.request.criteria,
                         self.request.model.max_memory_gb, pulp_model=False, solver_factor=solver_factor)
        except ModelTooLargeError as exc:
            return exc
        return None

    def parallel_tree_fits(self, sub) -> bool:
        """Whether HiGHS's parallel tree search on the model over the candidates ``sub`` fits the memory allowed: its
        workers hold up to :data:`PARALLEL_TREE_MEMORY` times one thread's estimate. Where it does not, the round
        runs on one thread (the same round, not a smaller one)."""
        return self.too_large(sub, PARALLEL_TREE_MEMORY) is None

    def fits(self, G: float) -> bool:
        """Whether the round at threshold ``G`` (with the incumbent's pairs) fits the memory allowed."""
        _, _, keep = self.restriction(G)
        sub = self.instance.candidates.restrict_pairs(keep, self.instance.types.counts,
                                                      self.request.min_group_size(), "lagrangian")
        return self.too_large(sub) is None

    def fitting_threshold(self, G: float) -> float | None:
        """The largest threshold below ``G`` whose round fits the memory allowed and lies above both ``LB`` and
        the last built round's (a round at or below either adds nothing), or ``None``: a round too large for
        memory gives way to the largest that fits instead of ending the rounds. Bisection on the pair count
        (``S(G)`` grows with ``G``, and so does the estimate), to within 1 % of the pairs."""
        floor = max(self.lb, self.last_G)
        lo = int(np.searchsorted(self.by_threshold, floor, side="right"))  # the first count with g_for > floor
        hi = int(np.count_nonzero(self.thresholds < G)) - 1  # strictly fewer pairs than S(G)
        if lo > hi or not self.fits(self.g_for(lo)):
            return None
        while hi - lo > max(1, hi // 100):
            mid = (lo + hi + 1) // 2
            if self.fits(self.g_for(mid)):
                lo = mid
            else:
                hi = mid - 1
        G2 = self.g_for(lo)
        return G2 if floor < G2 < G else None

    def g_for(self, n_pairs: int) -> float:
        """The largest ``G`` whose ``S(G)`` has at most ``n_pairs`` pairs."""
        return float(self.by_threshold[n_pairs]) if n_pairs < self.by_threshold.shape[0] else math.inf

    def next_threshold(self) -> float:
        """``LB`` + one step first; then from the pair count (``ROUND_GROWTH``) and the last round's bound; a later
        round nearly as large as the proving round is the proving round (``tuning.proof_round_share``)."""
        G = self.lb + self.grid.step
        if self.last_pairs:
            G = max(G, self.g_for(ROUND_GROWTH * self.last_pairs))
            if self.last_bound > G:
                # the last restriction's bound lies beyond: its optimum is at least that, so aim
                # there, with up to ROUND_GROWTH² times the pairs
                G = max(G, min(self.last_bound, self.g_for(ROUND_GROWTH ** 2 * self.last_pairs)))
            if G < self.ub and self.nearly_proving(G):
                G = self.ub
        return min(self.ub, G)

    def nearly_proving(self, G: float) -> bool:
        """Whether ``S(G)`` holds more than ``tuning.proof_round_share`` of the pairs of ``S(UB)``."""
        def count_below(v):  # the pair bounds are sorted once (``by_threshold``): a lookup, not a pass
            return int(np.searchsorted(self.by_threshold, v, side="left"))

        return count_below(G) > self.solver.tuning.proof_round_share * count_below(self.ub)

    def run_round(self, G: float, remaining: float | None, fitted: bool = False) -> bool:
        """Build and solve the model restricted to ``S(G)``; update ``LB``/``UB``. False ends the rounds.
        ``fitted``: ``G`` comes from :meth:`fitting_threshold`, whose check of this very restriction is not
        repeated (the process's resident memory creeps up between two checks, by what the bisection itself
        allocated and glibc keeps, so a round found to fit at the 1 % edge was refused again, one edge lower each
        time: 27 times at Adult, 7 QIs, ``lm``, k = 2, 8 GB; a round that then outgrows the memory allowed is
        killed, :func:`~milp_anon.solvers.isolated.solve_isolated`)."""
        inst = self.instance
        k, counts = self.request.min_group_size(), inst.types.counts
        below, inc, keep = self.restriction(G)
        if keep.all():  # nothing is fixed: the whole model, whose optimum settles it
            G = self.ub
            below = self.thresholds < G
        rnd = Round(G=G if math.isfinite(G) else None, pairs=int(keep.sum()), below_G=int(below.sum()),
                    incumbent_pairs=int((keep & ~below).sum()))
        self.log.rounds.append(rnd)
        covered = np.zeros(inst.types.t_in, dtype=bool)
        covered[inst.candidates.pair_type[inst.candidates.kept_pairs(below, counts, k)]] = True
        if not covered.all():
            # some row type has no pair in S(G): every solution costs at least G
            rnd.status, rnd.candidates = "empty", 0
            self.lb = max(self.lb, G)
            return True
        kept = inst.candidates.kept_pairs(keep, counts, k)
        sub = inst.candidates.restrict_pairs(keep, counts, k, "lagrangian")
        full = np.flatnonzero(kept)  # the restricted model's pairs among the whole instance's
        rnd.candidates, rnd.pairs = sub.n_candidates, sub.n_pairs
        exc = None if fitted else self.too_large(sub)
        if exc is not None:
            rnd.status = "too large"
            smaller = self.fitting_threshold(G)
            if smaller is not None:
                # the largest restriction that fits, instead of none: it still lifts LB and searches
                _log.info("reduction round %d too large (%s): G = %g instead", len(self.log.rounds), exc, smaller)
                return self.run_round(smaller, remaining, fitted=True)
            # a memory limit ends the rounds like a time limit: the incumbent (or the best
            # verified heuristic table) is released with the lower bound proven so far
            self.solver_status = f"stopped before round {len(self.log.rounds)}: {exc}"
            self.stopped_by_limit = True
            return False
        self.counts = dict(sub.counts)
        first = not self.last_pairs
        self.last_pairs, self.last_G = sub.n_pairs, G
        _log.info("reduction round %d: G = %g (LB %g, UB %g): %d pairs, %d candidates", len(self.log.rounds), G,
                  self.lb, self.ub, sub.n_pairs, sub.n_candidates)
        progress.report(phase=f"round {len(self.log.rounds)}, G = {G:g}", bound=self.lb,
                        incumbent=self.ub if math.isfinite(self.ub) else None, solver_bound_is_global=False)
        with self.timings.phase("build"):
            am = build(inst.with_candidates(sub), self.request)
        if self.solver.tuning.round_cliques and self.log.cliques:
            rnd.cliques = add_clique_rows(am, self.log.cliques, inst.candidates, kept, self.log.clique_rhs)
        self.size = ModelSize.of_model(am, self.size)
        hint = None
        if inc is not None and np.array_equal(am.pair_cand, sub.pair_cand) and inc[full].sum() == inc.sum():
            hint = am.start(inc[full])
        if remaining is not None:
            # the restriction and its model were built inside the limit too: the solve gets what is left
            remaining = self.left()
            if remaining <= 0:
                rnd.status = "not started"
                self.stopped_by_limit = True
                return False
        room = self.parallel_tree_fits(sub)
        out, rnd.search, rnd.parallel_tree = self._solve_round(am, G, remaining, first, hint, room)
        rnd.status, rnd.seconds, rnd.root_cuts = out.status, round(out.seconds, 3), out.root_cuts
        if out.memory_killed:  # HiGHS's search outgrew the estimate: no round this large again (too_large)
            rnd.memory_killed = True
            self.max_round_pairs = min(self.max_round_pairs, sub.n_pairs - 1)
        if out.x is not None:
            rel, pairs = self._restricted_table(am, out.x, sub, full)
            rnd.objective = rel.objective
            if rel.objective < self.ub:
                self.best, self.best_pairs = rel, pairs
        bound = math.inf if out.status == Status.INFEASIBLE else (-math.inf if out.bound is None else out.bound)
        below = rnd.objective is not None and rnd.objective < G  # a table cheaper than G found
        rnd.bound = bound if math.isfinite(bound) else None
        self.last_bound = bound
        limited = out.status in (Status.TIME_LIMIT, Status.NO_SOLUTION)
        if limited and bound >= G and not below:
            rnd.status = "stopped at G"  # no solution cheaper than G in the restriction
        self.lb = max(self.lb, min(bound, G))
        progress.report(bound=self.lb, incumbent=self.ub if math.isfinite(self.ub) else None)
        if first and (self.left() is None or self.left() > 0) \
                and not self.heuristic_first() \
                and (self.best is None or self.grid.gap(self.ub, self.lb) > HEURISTIC_GAP):
            # later rounds stop at G with poor incumbents: the heuristic table now (inside a time
            # limit, not after it), when the first round left a gap
            self.heuristic()
        if limited and bound < G:
            self.stopped_by_limit = True
            return False
        return True

    def _restricted_table(self, am, x, sub, full: np.ndarray, source: str = SOLVER):
        """The verified table of a restricted model's solution ``x`` (model ``am`` over the candidates ``sub``,
        whose pairs are the whole instance's ``full``) and its rows per pair of the whole instance, or ``None``
        where the model's pairs are not ``sub``'s."""
        with self.timings.phase("verify"):
            g, _ = read_assignment(am, x, self.request.criteria, self.solver)
            released, groups, cost = am.release(g)
            rel = Release.verified(self.instance.table, self.request, released, cost=cost, groups=groups,
                                   source=source)
        pairs = None
        if np.array_equal(am.pair_cand, sub.pair_cand) and g.shape[0] == full.shape[0]:
            pairs = np.zeros(self.instance.candidates.n_pairs)
            pairs[full] = g
        return rel, pairs

    def _solve_round(self, am, G: float, remaining: float | None, first: bool, hint=None, room: bool = True):
        """One restricted model from ``hint`` (else the whole table as one group): stop at ``G``; the first
        round is polished, and leaves room for the heuristic; ``room``: HiGHS's parallel tree search on it fits the
        memory allowed (:meth:`parallel_tree_fits`). Returns ``(outcome, the log of the search beside the
        round or None, whether HiGHS's parallel tree search solved it)``."""
        if first and remaining is not None and not self.heuristic_first() and self.heuristics:
            remaining *= 1.0 - HEURISTIC_SHARE  # room for the heuristic table after the first round
        # only min(B, G) is used, so a round may stop once its bound reaches G; the first
        # (smallest) round first looks for a good incumbent for a while: the later rounds stop
        # early and find poor ones, and G = UB ends the rounds at once when UB is optimal
        if first:
            self.polish_left = ROUND_POLISH * (remaining if remaining is not None else ROUND_POLISH_UNLIMITED)
        tuning = self.solver.tuning
        wanted = first or (tuning.polish_shared
                           and (self.best is None or self.grid.gap(self.ub, self.lb) > HEURISTIC_GAP))
        polish = self.polish_left if wanted else 0.0
        options = dataclasses.replace(self.solver, time_limit=remaining)
        start = whole_table_start(am) if hint is None else hint
        stop = StopAtBound(G, polish) if math.isfinite(G) else None
        method = None
        if tuning.round_root_cuts and not polish and self.grid.denominator and am.lm.n_cols >= ROOT_CUTS_MIN_COLUMNS:
            # for fixed y the assignment LP has an integral optimum (a transportation problem)
            method = functools.partial(solve_by_root_cuts, integral_assignment=True,
                                       below=G if math.isfinite(G) else None)
        if method is None and (cutoff := self.round_cutoff()) is not None:
            options = dataclasses.replace(options, highs_options=(*options.highs_options, ("objective_bound", cutoff)))
        search, other = None, self.other_core(options, am.lm.n_cols, room)
        with self.timings.phase("solve"):
            if other == "search":
                out, search = self._round_and_search(am, dataclasses.replace(options, isolate="always"), start,
                                                     stop, method)
            else:
                if other == "tree":
                    options = parallel_tree_options(options)
                out = solve_model(am.lm, options, self.grid, hint=start, stop_bound=stop, method=method,
                                  hard_end=self.hard_end(), max_memory_bytes=self.max_memory_bytes())
        self.polish_left = max(0.0, self.polish_left - min(out.seconds, polish))
        self.solver_status = out.solver_status
        return out, search, other == "tree"

    def round_cutoff(self) -> float | None:
        """HiGHS's cutoff for a round (``tuning.round_cutoff``): one grid step below the incumbent, as only a cheaper
        table helps (:meth:`~milp_anon.runtime.grid.ObjectiveGrid.cutoff_below`). HiGHS keeps the incumbent the
        round starts from as its own (above the cutoff) and prunes at the cutoff; what it then proves is read by
        :func:`~milp_anon.solvers.highs.map_status`. ``None`` without an incumbent, a grid, HiGHS in bulk, or where
        the user set a cutoff of their own."""
        if not (self.solver.tuning.round_cutoff and self.best is not None and self.grid.denominator
                and self.solver.in_bulk) or "objective_bound" in dict(self.solver.highs_options):
            return None
        return self.grid.cutoff_below(self.ub)

    def other_core(self, options: SolverOptions, n_cols: int, room: bool) -> str | None:
        """What the core HiGHS's one thread leaves runs during a round of ``n_cols`` columns: ``"tree"``, HiGHS's
        parallel tree search on the round itself (:meth:`parallel_tree`); else ``"search"``, the large-neighbourhood
        search beside it (:meth:`search_beside`); else ``None``."""
        if self.parallel_tree(options, n_cols, room):
            return "tree"
        return "search" if self.search_beside(options, n_cols) else None

    def parallel_tree(self, options: SolverOptions, n_cols: int, room: bool) -> bool:
        """Whether a round of ``n_cols`` columns under ``options`` is solved by HiGHS's parallel tree search: once
        the gap is at most ``HEURISTIC_GAP`` (the table is close: the bound is what is left, and the other core
        grows the tree instead of running the search beside the round), where :func:`parallel_tree_possible` and
        ``room`` (it fits the memory allowed, :meth:`parallel_tree_fits`). Above that gap the round keeps one
        thread (interval models, where no search runs beside the rounds: no gain, a dearer table on one of two,
        ``benchmarks/results/suite_commits_parallel_tree_intervals_600s.md``)."""
        return room and self.best is not None and self.grid.gap(self.ub, self.lb) <= HEURISTIC_GAP \
            and parallel_tree_possible(options, n_cols)

    def search_beside(self, options: SolverOptions, n_cols: int) -> bool:
        """Whether a round of ``n_cols`` columns under ``options`` may have the search beside it
        (``tuning.search_beside_rounds``); :meth:`parallel_tree` goes first (:meth:`other_core`)."""
        return self.heuristics and self.best is not None and _search_fits_beside(self.request, options, n_cols)

    def _round_and_search(self, am, options: SolverOptions, hint, stop, method=None):
        """The round in its own process, the large-neighbourhood search from the incumbent in this one until it
        ends (:func:`milp_anon.search.lns.beside`); the search's table becomes the incumbent when it is cheaper (the
        round's own is compared after). :meth:`search_beside` asks for ``heuristics``: the search's
        sub-problems choose their own candidates, which the instance may not hold. Returns ``(outcome, the
        search's log as a dict)``. A round through its root's cuts aims below the search's best table as it is
        found (``ceiling``): at ``G`` = ``UB`` that narrows the room its reduced costs are held against."""
        known = [self.ub]  # the cost of the best verified table, as the search finds it (read by the round's child)
        out, (found, log) = lns.beside(
            lambda cancel: solve_model(am.lm, options, self.grid, hint=hint, stop_bound=stop, cancel=cancel,
                                       method=method, ceiling=lambda: known[0], hard_end=self.hard_end(),
                                       max_memory_bytes=self.max_memory_bytes()),
            lambda done: lns.improve(self.instance.table, self.request, self.best, options.time_limit, self.solver,
                                     stop=done, on_better=lambda rel: known.__setitem__(0, min(known[0],
                                                                                               rel.objective)),
                                     memory=self.search_memory, sub_solve=self.sub_solve))
        self.offer(found)
        return out, log.as_dict()

    def outcome(self) -> Outcome:
        """The best verified release (or the fallback heuristic's) with the bound proven."""
        if self.best is None and self.heuristics:
            # never empty-handed: the best verified heuristic table, labelled as a limit result
            with self.timings.phase("fallback"):
                self.best = best_heuristic(self.instance.table, self.request)
        status = Status.GAP_LIMIT if (not self.stopped_by_limit and self.solver.gap) else Status.TIME_LIMIT
        if self.best is None:
            status = Status.NO_SOLUTION
        return Outcome(release=self.best, bound=self.lb, status=status, solver_status=self.solver_status,
                       size=self.size, candidate_counts=self.counts, grid=self.grid, bound_certifies=True,
                       reduction=self.log,
                       warm_start_cost=self.warm_start_cost)


def parallel_tree_possible(options: SolverOptions, n_cols: int) -> bool:
    """Whether a model of ``n_cols`` columns may be solved under ``options`` by HiGHS's parallel tree search in its
    own process (``options.tuning.parallel_tree``): HiGHS in bulk, two cores or more, isolation allowed, threads and
    ``parallel`` left to the package (a user who gives either, as ``threads`` or as a HiGHS option, decides), and
    ``tuning.parallel_tree_min_columns`` columns or more."""
    tuning = options.tuning
    return tuning.parallel_tree and options.in_bulk and options.threads is None and options.isolate != "never" \
        and not {"parallel", "threads"} & set(dict(options.highs_options)) \
        and n_cols >= tuning.parallel_tree_min_columns \
        and lns._cores() >= 2


def parallel_tree_options(options: SolverOptions) -> SolverOptions:
    """``options`` for HiGHS's parallel tree search on every core this process may use, in a child process (HiGHS
    keeps one task scheduler per thread, at the thread count of its first run: :mod:`milp_anon.solvers.highs_banner`;
    a child's is its own)."""
    return dataclasses.replace(options, isolate="always", threads=lns._cores(),
                               highs_options=(("parallel", "on"),) + tuple(options.highs_options))


def add_clique_rows(am, cliques, candidates, kept_pairs: np.ndarray, rhs=None) -> int:
    """Add to ``am`` (the model over the candidates that ``kept_pairs`` leaves of ``candidates``, in their order)
    the packing rows ``Σ_{j ∈ Q} y_j <= r_Q`` of ``cliques`` (lists of ``candidates``' indices; ``rhs``: their
    ``r_Q``, ``None``: all 1), each over its members the model holds; returns how many rows (those with more
    than ``r_Q`` such members: the others hold anyway).

    Valid: two members of a clique conflict when the rows they can hold number fewer than ``2k``
    (:func:`milp_anon.bounds.conflicts.conflicting_pairs`), a rank row's members hold ``|R_Q| < (r_Q + 1) k`` rows
    together, and the model only drops pairs, so that stays true."""
    held = np.zeros(candidates.n_candidates, dtype=bool)
    held[candidates.pair_cand[kept_pairs]] = True
    if am.y.shape[0] != int(held.sum()):
        raise ValueError("the model's candidates are not those its kept pairs leave")
    new_id = np.cumsum(held) - 1
    rhs = np.ones(len(cliques), dtype=np.int64) if rhs is None else np.asarray(rhs, dtype=np.int64)
    members = [q[held[q]] for q in (np.asarray(q, dtype=np.int64) for q in cliques)]
    keep = [i for i, q in enumerate(members) if q.size > rhs[i]]
    if not keep:
        return 0
    members = [members[i] for i in keep]
    rows = np.repeat(np.arange(len(members)), [q.size for q in members])
    am.lm.add_rows("conflict_cliques", len(members), rows, am.y[new_id[np.concatenate(members)]], 1.0,
                   upper=rhs[keep].astype(float))
    return len(members)


def threshold_table(instance: Instance, request, time_limit: float | None) -> dict:
    """``inspect --lp``: the LP bound and, for ``G = ⌈bound⌉ + 1, 4, 16, 64`` grid steps, the (row type,
    candidate) pairs and candidates of the model the reduction would build (of ``type_pairs`` in all).

    With sensitive criteria the bound is :func:`block_bounds`' (the exact group blocks' where the
    criteria have them, ``block_bound``, beside the k-anonymity LP bound over the request's candidates,
    ``lp_bound``); the pair counts are those of its pair bounds; the reduction's rounds do not run there
    (``rounds`` says so)."""
    why = k_relaxation_unavailable(request, SolverOptions(), instance.candidates, instance.table.n)
    if why:
        raise InputError(f"--lp: the Lagrangian reduction does not apply here: {why}")
    grid = ObjectiveGrid.of_costs(instance.candidates.cost) if request.recoding.rational_costs else NO_GRID
    pb = (k_anonymity_bounds if request.k_alone else block_bounds)(instance, request, grid, SolverOptions(),
                                                                   time_limit)
    lb = max(grid.ceil(pb.bound), float(min(0, instance.candidates.cost.min())))
    kept = {}
    for mult in (1, 4, 16, 64):
        G = lb + mult * grid.step
        sub = instance.candidates.restrict_pairs(pb.thresholds < G, instance.types.counts,
                                                 request.min_group_size(), "G")
        kept[f"{G:g}"] = {"pairs": sub.n_pairs, "candidates": sub.n_candidates}
    log = pb.log
    rounds = unavailable(request, SolverOptions(), instance.candidates, instance.table.n)
    out = {"lp_bound": log.lp_bound, "converged": log.lp_converged, "iterations": log.cg_iterations,
           "seconds": round(pb.seconds, 3), "master_candidates": log.master_candidates,
           "master_pairs": log.master_pairs, "kept_below": kept, "type_pairs": instance.candidates.n_pairs,
           "relaxation": "k-anonymity" if request.k_alone else
           "k-anonymity over the request's candidates (its other criteria relaxed)",
           "rounds": "run by a solve" if rounds is None else f"not run: {rounds}"}
    if log.clique_bound is not None:
        out.update(clique_bound=log.clique_bound, cliques=len(log.cliques) - log.rank_rows, rank_rows=log.rank_rows)
    if log.block_bound is not None:
        out.update(relaxation="the groups under the criteria (exact blocks per candidate; for t-closeness and "
                              "recursive l > 2, of what every group must hold)",
                   block_bound=log.block_bound, block_start=log.block_start, ascent_steps=log.ascent_steps,
                   ascent_seconds=log.ascent_seconds, bound=pb.bound)
    return out
