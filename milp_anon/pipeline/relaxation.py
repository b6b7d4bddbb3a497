"""The LP relaxation of the whole model as a bound and, rounded, as a start (issue 13, items 2 and 3).

Where the sensitive criteria bind for most groups (t-closeness under equal or hierarchical distance on
Adult) the row generation hands over to the whole model, whose root LP takes most of the time limit (4 QIs,
0.2-closeness (equal): 221 s by dual simplex), and HiGHS then seldom finds a table better than the
heuristic start: at 2 QIs it kept the pattern greedy's 12,760 for 1,500 s against an LP of 6,499. The LP's
own solution is a far better start: rounded (:mod:`milp_anon.search.lp_rounding`) it costs 7,963
there.

So, before the whole model under a time limit, its LP relaxation is solved (HiGHS dual simplex, at most
``LP_SHARE`` of the time left; with HiGHS's presolve, in one piece, up to ``tuning.lp_presolve_max_columns``
columns — 4 QIs, 0.2-closeness (hierarchical): 280 s against 428 s — else presolve as the request says, off
by default, in pieces: a presolved LP stopped by its limit returns no multipliers). **The bound** is the weak-
duality bound of HiGHS's row multipliers, evaluated in numpy (:mod:`milp_anon.solvers.dual_bound`): valid for any
multipliers, so it rests on no solver status and holds where the simplex stopped at its limit — a dual
simplex iterate's multipliers bound the LP from below and mostly rise towards its optimum (3 QIs: 7,466 /
8,689 / 8,843 after 2 / 4 / 5 s against 8,903 at 6.1 s), but not always: at 4 QIs (0.2-closeness,
hierarchical) three runs stopped at 6,759, −2,136 and 2,188. So the LP runs in ``LP_CHECKPOINT``-second
pieces, each continuing from the last basis, and keeps the best multipliers seen (the same case: 7,067 after
393 s). The interior point is not used: on the hierarchical
t-closeness model (4 QIs) it stops with "no progress" after 11 iterations and HiGHS restarts a simplex from
scratch. **The rounding** of an optimal LP solution, verified, becomes the whole model's start and the
fallback when it beats the best table so far. When the LP took longer than the time then left (or did not
finish), the whole model's own root LP would not finish either: the model is skipped and its time goes to
the large-neighbourhood search.

**The slack LP** (t-closeness). The LP puts nearly every group exactly at distance ``t``, so its groups
mostly fail once rounded to whole rows. After an optimal LP it is solved again with every candidate's
closeness row tightened by one row's room, over the candidates whose groups the LP opened
(:func:`~milp_anon.search.lp_rounding.slack_lp`), and that optimum is rounded too (3 QIs, 0.2-closeness
(equal): 12,979 → 10,981; 4 QIs: 22,625 → 17,773). It bounds nothing; its table is verified at ``t``. It
runs when its estimate (the first LP's seconds times the square of the share of pairs it keeps) is at most
``SLACK_START`` of the time then left (``LP_SHARE_BESIDE`` with the search beside it: the slack LP's own
limit).

**The search beside the LP.** A large LP is solved in its own process (:mod:`milp_anon.solvers.isolated`),
where it keeps one core busy while this process waits. With a search requested (``lns > 0``) and two cores,
the large-neighbourhood search runs in this process meanwhile, from the best table so far, until the LP
ends (checked between its sub-problems, at most ``lns.SUB_LIMIT`` s late) or reaches its limit; the LP
may then take ``LP_SHARE_BESIDE`` of the time left, as the table no longer waits for it. The better of the
search's table and the rounding becomes the start.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np

from milp_anon.formulations import build, read_assignment
from milp_anon.heuristics.refine import refine_release
from milp_anon.release.verified import Release
from milp_anon.runtime import interrupt
from milp_anon.runtime.memory import cap_bytes
from milp_anon.runtime.status import Status
from milp_anon.runtime.tuning import Tuning
from milp_anon.search.lns import beside as run_beside
from milp_anon.search.lns import beside_possible
from milp_anon.search.lp_rounding import round_with_criteria, slack_lp, slack_support
from milp_anon.search.starts import release_pairs, release_start
from milp_anon.solvers import SolverOptions, solve_model
from milp_anon.solvers.highs import solve_highs
from milp_anon.solvers.isolated import should_isolate, solve_isolated
from milp_anon.tables.recoding import Suppression
from milp_anon.tables.rowtypes import Units

__all__ = ["LP_BOUND_SOURCE", "LP_SHARE", "LP_SHARE_BESIDE", "LpRoundingLog", "PRESOLVE_SPEEDUP",
           "RESTRICTED_TIME_SHARE", "SLACK_START", "better_release", "lp_rounding_stage", "restricted_pairs",
           "rounded_release", "unavailable"]

#: share of the time left that the LP relaxation may take
LP_SHARE = 0.8
#: the same with the search beside it on the other core (its time is not lost to the table then;
#: ``tuning.search_beside_lp_stage``: the large-neighbourhood search beside an isolated LP, two cores at least)
LP_SHARE_BESIDE = 0.9
#: seconds between the LP's checkpoints, where the weak-duality bound of its multipliers is evaluated
LP_CHECKPOINT = 30.0
# An LP of at most ``tuning.lp_presolve_max_columns`` columns runs with HiGHS's presolve, in one piece (its
# multipliers' bound is evaluated at its end): 4 QIs, 0.2-closeness (hierarchical), 163,022 columns, 280 s against
# 428 s without; a presolved LP stopped by its limit has no multipliers (and a piece after it starts from scratch),
# so a larger LP, which may not finish (5 QIs, 0.2 equal and 0.3 hierarchical, 504,173 and 638,150 columns: not in
# 550 s with presolve), keeps the pieces and the bound of the best multipliers where it stops.
#: a larger LP (one that may not finish) is preceded by the **restricted LP**: the same LP over
#: ``tuning.restricted_share`` of the pairs, those of least Lagrangian pair bound (and every pair of the
#: whole-table candidate, which keeps it feasible), presolved, in one piece, for at most this share of the time;
#: its rounding (verified) starts the search beside the whole LP. 5 QIs, 0.2-closeness (equal): 30 % (55,589 of
#: 146,262 pairs) did not finish in 94 s, and the whole LP's bound fell with the time it lost (30,232 → 21,821, one
#: run at 69dcefa)
RESTRICTED_TIME_SHARE = 0.15
# The **restricted model** replaces the LP when the LP cannot raise the bound (``tuning.restricted_model``): the
# restricted LP lies above the whole LP (it is the same LP over fewer pairs), so when its optimum, rounded up to the
# grid, is at most the bound already proven (frequency ℓ = 3 at 5 QIs on Adult: restricted LP 11,701.6 against the group
# blocks' 11,720), the whole LP cannot raise the bound, nor, through its root LP, can the whole model in the
# time left. Both are skipped, and the time goes to the MILP over the restricted LP's pairs and the best
# table's (from that table, with the search beside it): there 337 s of it found 11,804 where the LP's rounding
# and the search beside the LP had reached 12,011. Not when the restricted LP did not finish, although exact
# group blocks (p, distinct, frequency, recursive (c, 2)) have a dual above the LP's: measured at 6 QIs
# (frequency ℓ = 3, 45,005 pairs, one core, 181 s), the model found nothing better than its start; nor beside
# an LP that may raise the bound, in place of the search's first part (5 QIs, 0.2-closeness (equal): 31,417
# pairs, one core, 178 s, nothing better than its start; 6c06888, dropped).
# An LP that may not finish is skipped, with the whole model, when its restriction did not finish either and exact
# group blocks bound (``tuning.unfinished_lp_skips``, :attr:`~milp_anon.bounds.blocks.RequestBlocks.exact`): the
# whole LP, over about ten times the pairs, would stop at its limit too, and an unfinished LP bounds by its last
# multipliers, below the LP's optimum and so below the blocks' Lagrangian dual, which the second ascent climbs
# beside the search (Adult, 6 QIs, frequency ℓ = 3: 13,649 after 180 s against the blocks' 15,074). The time goes
# to the search and that ascent.
#: the LP's seconds without presolve per second with it (428 / 280 s there): the whole model's root LP, which
#: runs without, is estimated from the presolved LP's time times this
PRESOLVE_SPEEDUP = 1.5
#: after an optimal LP, the slack LP (t-closeness rows tightened by one row's slack per group,
#: :func:`~milp_anon.search.lp_rounding.slack_lp`) is solved and rounded too (``tuning.slack_lp``) when its estimate
#: (the first LP's seconds times the square of the share of pairs it keeps open) is at most this share of the time
#: then left (``LP_SHARE_BESIDE`` with the search beside it, its own limit)
SLACK_START = 0.7

LP_BOUND_SOURCE = ("the LP relaxation of the whole model (every column continuous, the same rows): the weak-duality "
                   "bound of HiGHS's dual simplex multipliers, evaluated in numpy")


@dataclass(frozen=True)
class LpRoundingLog:
    """The stage in ``REPORT.json`` (``lp_rounding``): the LP's status, objective (at its optimum only),
    dual bound (weak duality at the best multipliers seen, before rounding to the grid; ``None`` without
    multipliers) and seconds, the rounded table's objective (``None``: no table), whether it became the
    start, whether the whole model was skipped (the LP took longer than the time left), and the search run
    beside the LP."""

    lp_status: str
    lp_objective: float | None
    lp_bound: float | None
    lp_seconds: float
    rounded: float | None
    rounding_seconds: float
    used: bool
    #: whether the LP ran with HiGHS's presolve, in one piece (``tuning.lp_presolve_max_columns``)
    lp_presolve: bool = False
    #: the rounded table's objective after the refinement (:mod:`milp_anon.heuristics.refine`; cell
    #: suppression), ``None`` where it gained nothing or does not apply
    refined: float | None = None
    model_skipped: bool = False
    #: why the whole model was not run, in words (the summary's), when ``model_skipped``
    model_skipped_why: str | None = None
    #: the large-neighbourhood search run beside the LP (:class:`~milp_anon.search.lns.LnsLog` as a dict), if any
    search: dict | None = None
    #: the slack LP (t-closeness with room for the rounding), when it ran: its status, objective (at its
    #: optimum; a restriction, not a bound), seconds, rounded and refined tables, and the search beside it
    slack_status: str | None = None
    slack_objective: float | None = None
    slack_seconds: float | None = None
    slack_rounded: float | None = None
    slack_refined: float | None = None
    slack_search: dict | None = None
    #: the restricted LP (before an LP that may not finish), when it ran: its pairs (of all), status,
    #: objective (at its optimum; a restriction, not a bound), seconds, rounded and refined tables, and the
    #: search beside it
    restricted_pairs: str | None = None
    restricted_status: str | None = None
    restricted_objective: float | None = None
    restricted_seconds: float | None = None
    restricted_rounded: float | None = None
    restricted_refined: float | None = None
    restricted_search: dict | None = None
    #: the restricted model (``tuning.restricted_model``), when it ran in place of the LP: its pairs (of all), HiGHS's
    #: status, the verified table's objective (``None``: no table), seconds, and the search beside it
    model_pairs: str | None = None
    model_status: str | None = None
    model_objective: float | None = None
    model_seconds: float | None = None
    model_search: dict | None = None
    #: the search beside the whole model's solve after this stage (``tuning.search_beside_whole_model``), when it
    #: ran: its log (:class:`~milp_anon.search.lns.LnsLog` as a dict)
    whole_search: dict | None = None
    #: the group blocks' Lagrangian bound at the LP's multipliers of the assignment rows (``tuning.blocks_at_lp``:
    #: t-closeness, whose ball block is integer) and the seconds it took, when priced
    blocks_at_lp: float | None = None
    blocks_at_lp_seconds: float | None = None

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def unavailable(request, solver: SolverOptions) -> str | None:
    """Why the stage does not run for ``request`` under ``solver``, or ``None``."""
    m = request.model
    if request.k_alone:
        return "k-anonymity alone: the reduction and the heuristics' tables serve it"
    if solver.time_limit is None:
        return "without a time limit the whole model is solved to its optimum"
    if not solver.in_bulk:
        return "the LP is solved by HiGHS through highspy"
    if m.withholds or m.objective != "cost" or m.budget is not None or m.t_out_min is not None \
            or m.t_out_max is not None:
        return "the rounding places rows by the criteria alone (no budget, t_out, withheld records or group count)"
    if not all(c.per_group for c in request.criteria):
        return "the rounding tests each group alone; average re-identification risk counts the classes together"
    return None


def _checkpointed(lm, options, grid, hint=None, on_improving=None, stop_bound=None):
    """HiGHS on the LP in ``LP_CHECKPOINT``-second pieces, keeping the best multipliers; with presolve, in
    one piece whose multipliers are evaluated at its end (module-level, so the isolated child can import
    it)."""
    return solve_highs(lm, options, grid, hint, on_improving=on_improving, stop_bound=stop_bound,
                       checkpoint=LP_CHECKPOINT if options.presolve == "off" else math.inf)


def _solve_lp(lp, options: SolverOptions, grid, cancel=None, pieces=True):
    """The LP under ``options``: in its own process when large (as
    :func:`solve_model` decides), by :func:`_checkpointed` (``pieces``) or in one run; ``cancel`` (an event)
    stops the process."""
    if should_isolate(options, lp.n_cols):
        return solve_isolated(lp, options, grid, solve_fn=_checkpointed if pieces else None, cancel=cancel)
    return (_checkpointed if pieces else solve_highs)(lp, options, grid)


def _lp_and_search(lp, options: SolverOptions, grid, beside: bool, search, incumbent, pieces=True):
    """``lp`` under ``options`` (``pieces`` as :func:`_solve_lp`); when ``beside``, in its own process while
    ``search(incumbent, seconds, stop)`` improves ``incumbent`` in this thread until the LP ends: ``(the LP's
    outcome, the search's release or None, its log as a dict or None)``."""
    if not beside:
        return _solve_lp(lp, options, grid, pieces=pieces), None, None
    # the LP in a child process (the thread only waits on its pipe); the search in this thread
    out, (searched, log) = run_beside(lambda cancel: _solve_lp(lp, options, grid, cancel, pieces),
                                      lambda done: search(incumbent, options.time_limit, done))
    return out, searched, log.as_dict()


def _rounded(am, request, x, label="LP rounding", deadline: float | None = None):
    """The verified rounding of the LP values ``x`` (all columns) of ``am``'s model: :func:`rounded_release`
    of its assignment columns."""
    return rounded_release(am.instance, request, am.pair_unit, am.pair_cand, x[am.g], label, deadline)


def rounded_release(instance, request, pair_unit, pair_cand, g, label: str, deadline: float | None = None):
    """The verified rounding of the values ``g`` of ``instance``'s (unit, candidate) pairs (an LP's, or the
    group blocks' average, :class:`~milp_anon.bounds.subgradient.PrimalAverage`), refined under local cell suppression
    until ``deadline`` (``time.perf_counter()``): ``(release or None, the rounding's objective or None, the
    refined objective or None)``."""
    rounded = round_with_criteria(instance, request.criteria, pair_unit, pair_cand, g)
    if rounded is None:
        return None, None, None
    released, groups, cost = rounded
    release = Release.verified(instance.table, request, released, cost=cost, groups=groups, source=label)
    objective, refined = release.objective, None
    if isinstance(request.recoding, Suppression) and request.recoding.scheme == "local" \
            and not request.recoding.weights:  # (the refinement counts cells unweighted)
        # the rounding trims failing groups whole-table-wise; their large classes split further
        better, cost = refine_release(instance.table, request.criteria, release.table, deadline)
        if cost < release.objective - 1e-9:
            release = Release.verified(instance.table, request, better, cost=cost, source=f"{label}, refined")
            refined = release.objective
    return release, objective, refined


def better_release(a: Release | None, b: Release | None) -> Release | None:
    """The release of smaller objective (``a`` on ties); either may be ``None``."""
    if a is None or (b is not None and b.objective < a.objective - 1e-9):
        return b
    return a


def restricted_pairs(am, pair_bounds, share: float | None = None) -> np.ndarray | None:
    """The restricted LP's pairs (a mask over ``am.instance``'s candidate pairs): the ``share`` (default
    ``Tuning.restricted_share``'s) of least ``pair_bounds`` and every pair of the whole-table candidate; ``None``
    without one (the restriction might have no solution), at a share of 0 or when the share keeps nearly every
    pair."""
    share = Tuning().restricted_share if share is None else share
    c = am.instance.candidates
    whole = c.capacity == am.instance.table.n
    if not whole.any() or share <= 0:
        return None
    cut = np.quantile(pair_bounds, share)
    keep = (pair_bounds <= cut) | whole[c.pair_cand]
    return keep if keep.mean() < 0.9 else None


def _restriction_rounded(lp, am, request, options: SolverOptions, grid, beside, search, incumbent, deadline,
                         name: str):
    """A restriction of the LP (``lp`` over ``am``'s columns: the slack LP, the restricted LP), presolved in
    one piece with the search beside it, and its optimum's verified rounding: ``(release or None, the
    search's release or None, the log's fields named after name)``. Only its values are used, and the table
    rounded from them is verified, so HiGHS's presolve risk does not reach a proof; nor are its multipliers."""
    options = dataclasses.replace(options, presolve="on")
    out, searched, search_log = _lp_and_search(lp, options, grid, beside, search, incumbent, pieces=False)
    release, rounded, refined = None, None, None
    if out.status == Status.OPTIMAL and out.x is not None:
        release, rounded, refined = _rounded(am, request, out.x, f"{name} LP rounding", deadline)
    fields = dict(status=out.solver_status, objective=out.objective if out.status == Status.OPTIMAL else None,
                  seconds=round(out.seconds, 3), rounded=rounded, refined=refined, search=search_log)
    return release, searched, {f"{name}_{k}": v for k, v in fields.items()}


def _restricted_lp(am, request, keep, options: SolverOptions, grid, beside, search, incumbent, deadline):
    """The LP over the pairs ``keep`` (:func:`restricted_pairs`) and its verified rounding: ``(release or
    None, the search's release or None, the log's restricted_* fields)``."""
    inst = am.instance
    sub = inst.candidates.restrict_pairs(keep, inst.types.counts, request.min_group_size(), "restricted LP")
    ram = build(inst.with_candidates(sub), request)
    release, searched, fields = _restriction_rounded(ram.lm.relaxed(), ram, request, options, grid, beside, search,
                                                     incumbent, deadline, "restricted")
    return release, searched, dict(fields, restricted_pairs=f"{sub.n_pairs} of {inst.candidates.n_pairs}")


def _table_pairs(am, release: Release) -> np.ndarray:
    """The (type, candidate) pairs of ``am``'s instance that ``release``'s rows use, as a mask (its rows counted
    per type, not per unit of a sensitive value)."""
    inst = am.instance
    by_type = dataclasses.replace(inst, units=Units.of(inst.table, inst.types, split=False))
    g, _ = release_pairs(by_type, inst.candidates.pair_type, inst.candidates.pair_cand, release)
    return g > 0


def _restricted_model(am, request, keep, options: SolverOptions, grid, beside, search, best: Release | None,
                      deadline):
    """The whole model (every criterion's rows) over the pairs ``keep`` and those ``best`` uses, solved by HiGHS
    from ``best`` (presolved: only its table is used, verified), with ``search`` beside it when ``beside``:
    ``(its verified release or None, the search's release or None, the log's model_* fields)``."""
    inst = am.instance
    if best is not None:
        keep = keep | _table_pairs(am, best)  # the best table stays a solution: the model starts from it
    sub = inst.candidates.restrict_pairs(keep, inst.types.counts, request.min_group_size(), "restricted model")
    ram = build(inst.with_candidates(sub), request)
    hint = None if best is None else release_start(ram, best)
    options = dataclasses.replace(options, presolve="on")
    end = time.perf_counter() + options.time_limit

    def solve(cancel=None):
        return solve_model(ram.lm, options, grid, hint=hint, cancel=cancel, hard_end=end + 5.0,
                           max_memory_bytes=cap_bytes(request.model.max_memory_gb))

    if beside and best is not None:
        out, (searched, log) = run_beside(solve, lambda done: search(best, options.time_limit, done))
        search_log = log.as_dict()
    else:
        out, searched, search_log = solve(), None, None
    release = None
    if out.x is not None:
        g, _ = read_assignment(ram, out.x, request.criteria, options)
        released, groups, cost = ram.release(g)
        release = Release.verified(inst.table, request, released, cost=cost, groups=groups, source="restricted model")
    fields = dict(model_pairs=f"{sub.n_pairs} of {inst.candidates.n_pairs}", model_status=out.solver_status,
                  model_objective=None if release is None else release.objective,
                  model_seconds=round(out.seconds, 3), model_search=search_log)
    return release, searched, fields


def _skipped(why: str, used: bool, **fields) -> LpRoundingLog:
    """The stage's log when it skipped the LP and the whole model (``model_skipped``), saying ``why``."""
    return LpRoundingLog(lp_status=f"skipped ({why})", lp_objective=None, lp_bound=None, lp_seconds=0.0, rounded=None,
                         rounding_seconds=0.0, used=used, model_skipped=True, **fields)


def _unrounded(out, lp_bound, search_log, presolve: str, restricted: dict) -> LpRoundingLog:
    """:func:`lp_rounding_stage`'s log when the LP gave no optimal solution to round (its bound still counts)."""
    return LpRoundingLog(lp_status=out.solver_status, lp_objective=None, lp_bound=lp_bound,
                         lp_seconds=round(out.seconds, 3), rounded=None, rounding_seconds=0.0,
                         used=False, search=search_log, lp_presolve=presolve == "on", **restricted)


def _tell_multipliers(on_multipliers, out, am) -> None:
    """Hand ``on_multipliers`` the LP's multipliers of the assignment rows (one per unit), when it returned any."""
    if out.row_dual is not None and "assign" in am.lm.row_blocks:
        rows = am.lm.row_blocks["assign"]
        on_multipliers(np.asarray(out.row_dual, dtype=float)[rows.start:rows.start + rows.size].copy())


def _slack_lp_in_time(lp, am, request, out, tuning, beside: bool, left: float):
    """The slack LP (:func:`slack_lp`) over the optimal LP solution ``out``'s groups, when it applies and its
    estimated time fits in ``left``; else ``None``. Apart from :func:`lp_rounding_stage` as the decision alone."""
    slack = None
    # one stopped by its limit gives no table but costs the whole model its time: the slack LP runs when its
    # estimate fits in its limit: the first LP's seconds times the square of the share of pairs it keeps open
    # (the simplex's time grows faster than the LP: 4 QIs, 0.2-closeness (equal), 212 s × (31,616 / 93,978)²
    # = 24 s against 21 s taken; 3 QIs 6.0 s × (13,114 / 24,003)² = 1.8 s against 1.3 s)
    start_share = LP_SHARE_BESIDE if beside else SLACK_START
    if tuning.slack_lp and am.size_columns is not None and not interrupt.stop_requested():  # Ctrl-C: no second LP
        sizes = out.x[am.size_columns]
        if out.seconds * float(slack_support(am, sizes)[am.pair_cand].mean()) ** 2 <= start_share * left:
            slack = slack_lp(lp, am, sizes, request.min_group_size())
    return slack


def lp_rounding_stage(am, request, solver: SolverOptions, grid, incumbent: Release | None, search=None,
                      pair_bounds=None, bound: float | None = None, blocks_exact: bool = False,
                      on_multipliers=None):
    """Solve the LP relaxation of ``am``'s model and round it: ``(bound or None, release or None, log)``.

    ``bound`` is the dual bound of the LP's best multipliers (the optimum's, or the best seen at the ends
    of its pieces) rounded up to ``grid``, optimal or not;
    ``release`` the best verified table better than ``incumbent`` (or any, if there is none): the rounding
    of an optimal LP solution, the rounding of the slack LP (t-closeness, :func:`slack_lp`, when time is
    left), or what ``search(incumbent, seconds, stop)`` (the large-neighbourhood search, when given) found
    while an LP ran in its own process on another core. The search stops when the LP ends (``stop()``) or
    at the LP's time limit. ``pair_bounds`` (Lagrangian, per candidate pair, when known) choose the pairs
    of the restricted LP solved first when the LP may not finish (``tuning.restricted_share``). ``bound``, the
    bound proven so far (on the grid): when the restricted LP's optimum does not exceed it, the LP is skipped
    for the restricted model (``tuning.restricted_model``); the log then says the whole model is skipped too.
    ``blocks_exact``: the exact group blocks bound (their Lagrangian dual, which the second ascent climbs
    beside the search, is at least the LP's); when the restricted LP does not finish, the LP and the whole
    model are then skipped (``tuning.unfinished_lp_skips``). The techniques are ``solver.tuning``'s
    (:class:`~milp_anon.runtime.tuning.Tuning`). ``on_multipliers(pi)`` hears the multipliers of the
    assignment rows (one per unit) at the LP's best bound, when the LP returned any: the group blocks'
    Lagrangian bound holds at any multipliers, so the caller may price them there
    (``formulations/reduction.md``, "The ball's integer block")."""
    t_start = time.perf_counter()
    tuning = solver.tuning
    lp = am.lm.relaxed()
    beside = search is not None and incumbent is not None and tuning.search_beside_lp_stage \
        and beside_possible(solver, lp.n_cols)
    share = LP_SHARE_BESIDE if beside else LP_SHARE
    # presolve for an LP that should finish (tuning.lp_presolve_max_columns): its bound is recomputed from its
    # multipliers (weak duality, in numpy), and its solution only guides roundings whose tables are verified,
    # so HiGHS's presolve risk does not reach a proof
    finishes = lp.n_cols <= tuning.lp_presolve_max_columns
    presolve = "on" if finishes else solver.presolve
    lp_options = dataclasses.replace(solver, time_limit=share * solver.time_limit, presolve=presolve,
                                     highs_options=(("solver", "simplex"),) + tuple(solver.highs_options),
                                     isolate="always" if beside else solver.isolate)
    deadline = t_start + solver.time_limit  # the refinements stop there (the stage's own end)
    best, restricted = incumbent, {}
    # by size, not by presolve: a user's presolve="on" does not make a large LP finish
    keep = None if pair_bounds is None or finishes or interrupt.stop_requested() \
        else restricted_pairs(am, pair_bounds, tuning.restricted_share)
    if keep is not None:
        # the LP may not finish: a smaller one first, for a table (presolved like the slack LP: no bound or
        # status of it is used, and its table is verified), then the LP for the bound in the time left
        r_options = dataclasses.replace(lp_options, time_limit=RESTRICTED_TIME_SHARE * solver.time_limit)
        release_r, searched_r, restricted = _restricted_lp(am, request, keep, r_options, grid, beside, search,
                                                           incumbent, deadline)
        best = better_release(better_release(best, searched_r), release_r)
        left = solver.time_limit - (time.perf_counter() - t_start)
        r_objective = restricted.get("restricted_objective")
        if tuning.restricted_model and bound is not None and r_objective is not None \
                and grid.ceil(r_objective) <= bound and not interrupt.stop_requested():
            # the LP cannot raise the bound (tuning.restricted_model): the restricted model takes its time
            # (not the LP's options: HiGHS's solver="simplex" would drop the integrality)
            m_options = dataclasses.replace(solver, time_limit=share * max(left, 0.0),
                                            isolate="always" if beside else solver.isolate)
            release_m, searched_m, fields = _restricted_model(am, request, keep, m_options, grid, beside, search,
                                                              best, deadline)
            found = better_release(better_release(best, searched_m), release_m)
            return None, (found if found is not incumbent else None), _skipped(
                "the restricted LP's optimum is at most the bound: the LP cannot raise it",
                used=found is release_m and release_m is not None, **restricted, **fields)
        if tuning.unfinished_lp_skips and blocks_exact and r_objective is None and not interrupt.stop_requested():
            # nor will the LP over all pairs finish, and its unfinished bound lies below the dual
            # (tuning.unfinished_lp_skips): the search takes its time
            found = best if best is not incumbent else None
            return None, found, _skipped("the restricted LP did not finish, and the exact group blocks' dual is at "
                                         "least the LP's", used=False, **restricted)
        lp_options = dataclasses.replace(lp_options, time_limit=share * max(left, 0.0))
    out, searched, search_log = _lp_and_search(lp, lp_options, grid, beside, search, best)
    best = better_release(best, searched)  # the table to beat
    lp_bound = out.multiplier_bound  # evaluated where the LP ran, at the ends of its pieces
    if on_multipliers is not None:
        _tell_multipliers(on_multipliers, out, am)
    bound = grid.ceil(lp_bound)
    if out.status != Status.OPTIMAL or out.x is None:
        found = best if best is not incumbent else None
        return bound, found, _unrounded(out, lp_bound, search_log, presolve, restricted)
    t0 = time.perf_counter()
    release, rounded_objective, refined = _rounded(am, request, out.x, deadline=deadline)
    rounding_seconds = time.perf_counter() - t0
    used = better_release(best, release) is not best
    best = better_release(best, release)
    log = LpRoundingLog(lp_status=out.solver_status, lp_objective=out.objective, lp_bound=lp_bound,
                        lp_seconds=round(out.seconds, 3), rounded=rounded_objective,
                        rounding_seconds=round(rounding_seconds, 3), used=used, search=search_log, refined=refined,
                        lp_presolve=presolve == "on", **restricted)
    left = solver.time_limit - (time.perf_counter() - t_start)
    slack = _slack_lp_in_time(lp, am, request, out, tuning, beside, left)
    if slack is not None:
        # the LP again with room for the rounding (t-closeness) over the first LP's groups: a second table,
        # often far better. Presolve on, from no basis: it drops the closed candidates' columns and rows (4 QIs:
        # 21 s; presolve off 45 s; from the first LP's basis 118 s)
        release2, searched2, fields = _restriction_rounded(
            slack, am, request, dataclasses.replace(lp_options, time_limit=share * left), grid,
            beside and best is not None, search, best, deadline, "slack")
        best = better_release(better_release(best, searched2), release2)
        log = dataclasses.replace(log, **fields, used=best is release or best is release2)
    return bound, (best if best is not incumbent else None), log
