"""The techniques a solve uses and the knobs benchmarks vary: :class:`Tuning`, one frozen value.

Every technique the pipeline may use beside the model itself (a search beside a solve, a bound stage, a
rounding, a cut, ...) was measured against the package without it; the default is what the measurement chose
(each field names the results file under ``benchmarks/results/``). A benchmark's variant switches a technique
off, or back to the package before it, by a :class:`Tuning` of its own::

    tuning = dataclasses.replace(Tuning(), search_beside_lp=False)
    ma.anonymize(table, ma.KAnonymity(5), time_limit=600, tuning=tuning)

It travels inside :class:`~milp_anon.solvers.options.SolverOptions` (``solver.tuning``), so it reaches every stage,
and every child process, with the options each is solved under. The defaults are the shipped package: a user never
needs to give one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from milp_anon.runtime.errors import InputError

__all__ = ["Tuning"]


@dataclass(frozen=True)
class Tuning:
    """The techniques a solve uses and the numeric knobs benchmarks vary (module docstring); the defaults are the
    shipped package."""

    # -- k-anonymity's Lagrangian reduction (milp_anon.reduction) -------------------------------------------------
    #: round the column generation's LP point into a first table (:func:`milp_anon.search.lp_rounding.round_k_anonymity`); off: the rounds
    #: and the heuristic tables find the incumbents (``scale_reduction_rounding_6qi_60s.md``)
    lp_rounding: bool = True
    #: the polish time the first round does not use goes to the next rounds while the gap is above
    #: ``reduction.HEURISTIC_GAP``; off: only the first round polishes (``scale_reduction_union_6qi_60s.md``,
    #: ``scale_reduction_union_8qi.md``: ``no-union``)
    polish_shared: bool = True
    #: every round's model also holds the incumbent's pairs and starts from it; off: ``S(G)`` alone, started from the
    #: whole table as one group (``scale_reduction_union_6qi_60s.md``, ``scale_reduction_union_8qi.md``)
    round_holds_incumbent: bool = True
    #: a round that does not polish, of at least ``reduction.ROOT_CUTS_MIN_COLUMNS`` columns, is solved through its
    #: root's cuts (:mod:`milp_anon.solvers.root_cuts`); off: every round whole (``scale_reduction_root_cuts_6qi.md``,
    #: ``scale_reduction_root_cuts_7qi_k5.md``)
    round_root_cuts: bool = True
    #: the large-neighbourhood search runs beside a round solved in its own process, on the other core, from the
    #: incumbent, until the round ends (``lns > 0``, two cores, heuristics on): at 7–8 QIs the rounds hold the
    #: incumbent for minutes (``scale_reduction_beside_7qi.md``, ``scale_reduction_beside_8qi_k5.md``)
    search_beside_rounds: bool = True
    #: the reduction keeps the whole time limit when the search can run beside its rounds (its share is spent beside
    #: them instead of after them): 5 QIs, ``lm``, k = 10, 600 s, the search after the rounds found nothing and ended
    #: 96 s early while the last round stopped at the stage's limit (``scale_reduction_whole_limit_lm_5qi.md``)
    search_beside_keeps_limit: bool = True
    #: k-anonymity's column generation runs in its own process with the search beside it in this one, from the
    #: rounding of the master point the child hands over (Adult, 8 QIs, k = 5, 600 s: in process the other core
    #: waited 305 s; ``scale_reduction_search_beside_lp_8qi_k5.md``, ``scale_reduction_search_beside_lp_8qi_k10.md``)
    search_beside_lp: bool = True
    #: the column generation adds the conflict cliques its converged masters violate: a bound above the LP's, and
    #: pair bounds with the cliques' multipliers (``scale_reduction_cliques_lm_5qi_k10.md``,
    #: ``scale_reduction_cliques_8qi_k2_8gb.md``)
    cliques: bool = True
    #: each round's model holds those cliques as rows over its candidates, so its LP starts at least at the cliques'
    #: bound (``scale_reduction_round_cliques_lm_5qi_k5.md``, ``scale_reduction_round_cliques_height_5qi_k10.md``)
    round_cliques: bool = True
    #: once no clique is violated, the column generation adds the rank rows ``Σ_{j ∈ S} y_j <= ⌊|R_S| / k⌋`` its
    #: masters violate; they join the cliques in the bound, the pair bounds and the rounds' rows
    #: (``scale_reduction_rank_rows_lm_5qi_k10.md``, ``scale_reduction_rank_rows_height_5qi_k5.md``)
    rank_rows: bool = True
    #: a later round whose ``S(G)`` would hold more than this share of the proving round's pairs (``S(UB)``) is the
    #: proving round instead (``1 / reduction.ROUND_GROWTH``; 1 or more: off): 5 QIs, ``lm``, k = 5, an 802 k-pair
    #: round of 1.07 M took 174 s to reach ``G`` and left the whole model 178 s
    #: (``scale_reduction_proof_share_lm_5qi.md``, ``scale_reduction_proof_share_height_5qi.md``)
    proof_round_share: float = 0.5
    #: once the gap is at most ``reduction.HEURISTIC_GAP``, a round of at least ``parallel_tree_min_columns`` columns
    #: is solved by HiGHS's parallel tree search on every core this process may use (``threads``,
    #: ``parallel="on"``), in its own process: where the bound, not the table, is left, the other core grows the
    #: tree (HI, 6 QIs, k = 10 proven in 600 s in one run of two, military's bound one unit higher:
    #: ``suite_commits_parallel_tree_6qi_k10_600s.md``, ``parallel_tree_6qi_k10.md``); off: HiGHS's default threads,
    #: and the round in process below ``isolated.ISOLATE_MIN_COLUMNS`` columns
    parallel_tree: bool = True
    parallel_tree_min_columns: int = 20_000
    #: a round solved by HiGHS directly (not through its root's cuts, which aim below ``G`` themselves) gets the
    #: cutoff one grid step below the incumbent (:meth:`~milp_anon.runtime.grid.ObjectiveGrid.cutoff_below`): HiGHS
    #: cannot see that the objective lies on a grid (its costed assignment columns are continuous), so without it
    #: every node whose bound lies between ``UB`` − one step and ``UB`` stays open and its reduced-cost fixing
    #: allows one step more
    round_cutoff: bool = True

    # -- the column generation (milp_anon.bounds.lagrangian) ------------------------------------------------------
    #: Wentges smoothing ``α`` of the priced multipliers ``α π_best + (1 − α) π_master``; 0: the master's own duals
    #: (``scale_reduction_smoothing_6qi_60s.md``, ``k_ascent_smoothing.md``: ``unsmoothed``)
    smoothing: float = 0.8
    #: candidates that enter the master per round at most, the most negative ``rc_j`` first
    #: (``scale_reduction_smoothing_6qi_60s.md``: ``unsmoothed`` let 2,000 in)
    max_add: int = 300
    #: the most ``max_add`` grows to, doubling after each round whose master took less time than its pricing and
    #: more candidates priced out (``suite_commits_max_add.md``); measured times, so two runs' courses may differ
    #: (never the bound's validity), as with ``master_seconds``; ``max_add_most = max_add`` fixes the course
    max_add_most: int = 4800
    #: seconds of one master run at most before its current duals are priced, the next run continuing from its basis
    #: (``scale_reduction_smoothing_6qi_60s.md``: ``unsmoothed`` ran every master to its optimum;
    #: ``cg_converge_8qi_k5.md``)
    master_seconds: float = 10.0
    #: a round's pricing solves only the blocks that may end below 0: a block whose negative units and least
    #: further units cannot reach below 0 is cut off before the passes
    #: (:func:`~milp_anon.bounds.lagrangian.block_values`' ``negative_only``; the same bound and entering columns,
    #: a round priced in a quarter to a half of the time on interval models, ``block_screen_cg_90s.md``)
    block_screen: bool = True
    #: rank rows stop entering once a round of them lifted the master LP by less than this share of its value (their
    #: gains taper: 5 QIs ``lm`` k = 5, +3.4, +1.3, … +0.03 over 15 rounds; ``rank_rows.md``)
    rank_tail: float = 1e-4
    #: pairs whose blocks :func:`~milp_anon.bounds.lagrangian.block_prices` solves at once (whole candidates): its
    #: working arrays take about 100 bytes a pair, 5.9 GiB at once for the 63.9 M pairs of Adult's 8 QIs with
    #: hierarchies against 0.4 GiB a chunk, the same outcome (``scale_reduction_layer_8qi_lm.md``: ``unchunked``)
    price_chunk: int = 1 << 22
    #: HiGHS options of every master, before the caller's, as ``(name, value)`` pairs (empty: HiGHS's defaults, its
    #: dual simplex hot-started from the last basis). The primal simplex and interior point without crossover were
    #: no better: Adult, 8 QIs, k = 5, best ``L`` at 400 s 29,076 and 29,347 against 30,851
    #: (``cg_masters_8qi_k5.md``)
    master_highs_options: tuple = ()

    # -- the whole model's stages (milp_anon.pipeline) -------------------------------------------------------------
    #: the LP relaxation's stage runs the large-neighbourhood search beside an LP solved in its own process (two
    #: cores); off: the LP alone (``search_beside_4qi_t02equal.md``, ``search_beside_4qi_t02hierarchical.md``)
    search_beside_lp_stage: bool = True
    #: an LP of at most this many columns runs with HiGHS's presolve, in one piece: 4 QIs, 0.2-closeness
    #: (hierarchical), 163,022 columns, 280 s against 428 s without; a larger one, which may not finish, in pieces
    #: without presolve, keeping the best multipliers' bound (-1: always in pieces; ``lp_presolve_4qi_t02equal.md``,
    #: ``lp_presolve_4qi_t02hierarchical.md``)
    lp_presolve_max_columns: int = 300_000
    #: the restricted LP before an LP that may not finish: the same LP over this share of the pairs of least
    #: Lagrangian pair bound (0: none; 5 QIs, 0.2-closeness (equal), 30 % did not finish in 94 s and the whole LP's
    #: bound fell with the time it lost; ``restricted_5qi_t02equal.md``)
    restricted_share: float = 0.1
    #: the restricted model replaces the LP when the restricted LP's optimum shows the LP cannot raise the bound:
    #: frequency ℓ = 3 at 5 QIs, 337 s of it found 11,804 where the LP's rounding and the search had 12,011
    #: (``restricted_model_frequency.md``, ``restricted_model_6qi_frequency.md``)
    restricted_model: bool = True
    #: an LP that may not finish is skipped, with the whole model, when its restriction did not finish either and
    #: exact group blocks bound: the time goes to the search and the second ascent (Adult, 6 QIs, frequency ℓ = 3:
    #: 13,649 after 180 s against the blocks' 15,074; ``unfinished_skip_6qi_frequency.md``)
    unfinished_lp_skips: bool = True
    #: after an optimal LP, the slack LP (t-closeness rows tightened by one row's room) is solved and rounded too
    #: (3 QIs, 0.2-closeness (equal): 12,979 → 10,981; ``slack_3qi_t02equal.md``, ``slack_4qi_t02equal.md``)
    slack_lp: bool = True
    #: the large-neighbourhood search runs beside the whole model's solve after the LP stage (two cores, ``lns > 0``):
    #: at 4 QIs (0.3 equal, 600 s) 8,722 → 8,448 released, the same bound (``whole_search_4qi_t03equal.md``)
    search_beside_whole_model: bool = True
    #: price the group blocks at the LP's multipliers where t-closeness gives them the ball's or the EMD's integer
    #: block (``ball_blocks_4qi_t02equal.md``, ``ball_blocks_4qi_more.md``)
    blocks_at_lp: bool = True
    #: round the group blocks' average over the ascent into a table (Adult, 6 QIs, frequency ℓ = 3: 16,889 in about a
    #: second against the heuristic table's 18,119; ``blocks_rounding_6qi.md``)
    blocks_rounding: bool = True
    #: a second ascent of the group blocks in the time the stages leave (``second_ascent_5qi_frequency.md``)
    second_ascent: bool = True
    #: that second ascent beside the search after the stage, on the other core; off: only after the search, in what
    #: it leaves (``ascent_beside_6qi_frequency.md``)
    second_ascent_beside: bool = True

    # -- the row generation (milp_anon.pipeline.row_generation) ----------------------------------------------------
    #: solve each ``R(A)`` with the units split only for the candidates in ``A``; off: the whole model less the rows
    #: outside ``A`` (``sensitive_goal_partial_split_5qi.md``)
    partial_split: bool = True
    #: repair an ``R(A)`` solution by re-solving the failing classes' rows alone first (``resolve_5qi.md``,
    #: ``resolve_6qi.md``)
    resolve_failing: bool = True
    #: repair an ``R(A)`` solution while the next ``R(A)`` runs in its child process, on the other core; off: the
    #: repair first (``repair_beside_5qi.md``, ``repair_beside_5qi_t02ordered.md``)
    repair_beside: bool = True
    #: after that repair, the caller's search runs beside the ``R(A)`` until it ends, and such an ``R(A)`` may run to
    #: the whole limit's end; off: every ``R(A)`` within the stage's share (``search_beside_5qi.md``)
    search_beside_row_generation: bool = True
    #: solve ``R(∅)``, where it would be isolated, by the Lagrangian reduction of k-anonymity over the same
    #: candidates instead of one MILP (``first_reduction_6qi_t02ordered.md``)
    first_by_reduction: bool = True
    #: solve each ``R(A)`` after the first at the best bound of the earlier ones first, under that cutoff
    #: (``known_bound_5qi.md``, ``known_bound_5qi_t02ordered.md``)
    at_known_bound: bool = True

    # -- the group blocks and their ascents (milp_anon.bounds) -----------------------------------------------------
    #: t-closeness adds the ball's integer block where the blocks are priced once (at the first ascent's best
    #: multipliers, at the LP's) and in the second ascent (``ball_blocks_4qi_t02equal.md``, ``ball_blocks_4qi_more.md``)
    ball_blocks: bool = True
    #: t-closeness under the ordered and the hierarchical distance adds its exact integer block (each candidate's
    #: group problem as a small integer program) where the blocks are priced once (``emd_blocks_4qi_t02hier.md``,
    #: ``emd_blocks_4qi_t03hier.md``)
    emd_blocks: bool = True
    #: the second ascent where a pricing solves the EMD's integer programs: one pricing at its start with all its
    #: time first, then short undeflected steps (``emd_whole_pricing_4qi_t02hier.md``)
    second_ascent_whole_pricing: bool = True
    #: the ascents take no step they know, solve no start twice, and the second ascent ends (or waits for a lower
    #: target) after an ascent without gain (``known_steps_5qi_frequency.md``, ``known_steps_4qi_closeness.md``)
    known_steps: bool = True

    # -- the large-neighbourhood search (milp_anon.search.lns) ------------------------------------------------------
    #: carry a :class:`~milp_anon.search.lns.SearchMemory` from call to call where the caller gives one; off: every
    #: call starts afresh (``search_memory_5qi.md``)
    search_memory: bool = True
    #: the search on two cores where it runs alone (:func:`~milp_anon.search.lns.improve_split`); off: one core
    #: (``split_search_8qi_k5.md``)
    split_search: bool = True

    # -- solving a model (milp_anon.solvers) -----------------------------------------------------------------------
    #: through the root's cuts, stop HiGHS once it hands over its cuts: its root heuristics after them took 113 s on
    #: Adult (6 QIs, k = 5) and found nothing (``scale_reduction_root_cuts_6qi.md``)
    stop_at_cut_pool: bool = True
    #: solve a compact model again through its own root's cuts while it stays large and the fixing keeps taking a
    #: share (6 QIs, k = 5, 11,133.30 → 11,133.69; ``scale_reduction_root_cuts_6qi.md``,
    #: ``scale_reduction_ceiling_6qi_k5.md``)
    root_cuts_again: bool = True
    #: return the root's outcome as it is when it settles the model; off in tests only (steps 2 and 3 of
    #: :mod:`milp_anon.solvers.root_cuts` then run anyway)
    return_settled_root: bool = True
    #: seconds past the caller's end at which a child given the rest of its limit is killed: HiGHS on a 1.04 M-pair
    #: round (Adult, 7 QIs, k = 5) ran 56 s past its 350-s limit and the run took 654 s of its 600
    #: (``scale_reduction_hard_end_7qi_k5.md``; ``inf``: the child's own kill margins)
    hard_end_grace: float = 3.0

    def __post_init__(self):
        if isinstance(self.master_highs_options, dict):
            object.__setattr__(self, "master_highs_options", tuple(self.master_highs_options.items()))
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise InputError(f"tuning.{f.name} is True or False, got {value!r}")
        _number(self, "smoothing", 0.0, 1.0, high_open=True)
        _whole(self, "max_add", 1)
        _whole(self, "max_add_most", 1)
        _number(self, "master_seconds", 0.0, math.inf, low_open=True)
        _number(self, "rank_tail", 0.0, math.inf)
        _whole(self, "price_chunk", 1)
        _number(self, "proof_round_share", 0.0, math.inf)
        _number(self, "hard_end_grace", 0.0, math.inf)
        _whole(self, "lp_presolve_max_columns", None)
        _whole(self, "parallel_tree_min_columns", 0)
        _number(self, "restricted_share", 0.0, 1.0)
        pairs = self.master_highs_options
        if not isinstance(pairs, tuple) or not all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str)
                                                   for p in pairs):
            raise InputError(f"tuning.master_highs_options is (name, value) pairs or a dict, got {pairs!r}")
        if any(name == "threads" for name, _ in pairs):  # the masters run on the calling thread (highs_banner)
            raise InputError("tuning.master_highs_options cannot set 'threads': the column generation's masters run "
                             "on the calling thread with HiGHS's own thread count")


def _number(tuning: Tuning, name: str, low: float, high: float, *, low_open=False, high_open=False) -> None:
    value = getattr(tuning, name)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value) \
        and (value > low if low_open else value >= low) and (value < high if high_open else value <= high)
    if not ok:
        span = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        raise InputError(f"tuning.{name} must be a number in {span}, got {value!r}")


def _whole(tuning: Tuning, name: str, low: int | None) -> None:
    value = getattr(tuning, name)
    if isinstance(value, bool) or not isinstance(value, int) or (low is not None and value < low):
        raise InputError(f"tuning.{name} must be a whole number{'' if low is None else f' >= {low}'}, got {value!r}")
