"""The pipeline: one table and one request, through small stages in one direction, to a :class:`Result`.

::

    validate ─► collapse ─► candidates ─► solve (whole model │ Lagrangian reduction) ─► finish
    request,    row types,   support,       build, start, HiGHS,   rounds of          bound vs verified
    lattices    units        closure,       read back, verify      restricted models   cost: status, gap

Stages and where they live: validation (:mod:`.request`, :mod:`.criteria`,
:mod:`.recoding`), collapse and candidates (:mod:`.instance`), the model
(:mod:`.formulations`), memory (:mod:`milp_anon.formulations.sizing`, :mod:`milp_anon.runtime.memory`), starts and fallbacks
(:mod:`.starts`), the solver (:mod:`.solvers`), the reduction
(:mod:`.reduction`), verified releases (:mod:`.release`). :func:`_finish` is
the one place where a bound meets a verified cost and becomes a status.
"""

from __future__ import annotations

import dataclasses
import os
import time

import numpy as np

from milp_anon import reduction as _reduction
from milp_anon.bounds import subgradient as _subgradient
from milp_anon.formulations import AssignmentModel, build, read_assignment
from milp_anon.formulations.sizing import check_memory, estimate
from milp_anon.instance.instance import Instance, collapse, generate_candidates
from milp_anon.pipeline import relaxation as _relaxation
from milp_anon.pipeline import row_generation as _rows
from milp_anon.release.provenance import provenance
from milp_anon.release.result import ModelSize, Result, Timings
from milp_anon.release.verified import Outcome, Release
from milp_anon.runtime import interrupt, progress
from milp_anon.runtime.errors import InfeasibleRequest, InputError, SolverError, VerificationError
from milp_anon.runtime.grid import NO_GRID, ObjectiveGrid, relative_gap
from milp_anon.runtime.memory import cap_bytes, resident_memory_bytes
from milp_anon.runtime.status import Status
from milp_anon.search import lns as _lns
from milp_anon.search.full_domain import solve_full_domain
from milp_anon.search.starts import best_heuristic, release_start, warm_start, whole_table_start
from milp_anon.solvers import SolverOptions, solve_model
from milp_anon.solvers.isolated import solve_isolated
from milp_anon.tables.files import Outputs
from milp_anon.tables.table import Table

__all__ = ["build_model", "inspect", "prepare", "solve", "write_model"]


def _collapsed(table, request, timings: Timings):
    """Validate and collapse: ``(lattices, types, units, size, why infeasible by the whole-table pre-check)``."""
    if not isinstance(table, Table):
        raise InputError("expected a milp_anon.Table; build one with Table.from_frame or Table.from_csv")
    request.validate(table)
    lattices = tuple(request.recoding.lattices(table))  # hierarchy problems surface here
    with timings.phase("collapse"):
        why = request.infeasibility(table)
        types, units = collapse(table, request)
    size = ModelSize(n_rows=table.n, t_in=types.t_in, n_units=units.n_units if request.split else None)
    return lattices, types, units, size, why


def prepare(table, request, timings: Timings):
    """Validate, collapse, generate candidates: ``(instance, size, why infeasible)``.

    ``instance`` is ``None`` when the whole-table pre-check fails (no
    candidates are generated); ``why`` is also set when some rows fit no
    candidate.
    """
    if request.recoding.scheme == "full-domain":
        raise InputError("full-domain generalization is solved by a lattice search (formulations/full-domain.md): "
                         "there is no MILP model to build, write or inspect")
    lattices, types, units, size, why = _collapsed(table, request, timings)
    if why:
        return None, size, why
    with timings.phase("candidates"):
        cands = generate_candidates(table, request, types, units, lattices)
    instance = Instance(table, lattices, types, units, cands)
    return instance, size, instance.unhostable(request.model.max_suppressed_records)


def solve(table: Table, request, solver: SolverOptions | None = None, *, start: Release | None = None) -> Result:
    """Collapse, generate candidates, solve (whole model or reduction), verify, finish.

    Returns a :class:`Result`; an infeasible request is a result with status
    ``infeasible`` and a ``reason``. Bad input raises
    :class:`~milp_anon.runtime.errors.InputError` before any work. ``start``, a
    verified release of ``table`` for ``request``, is the solve's first
    incumbent and its start (the large-neighbourhood search's sub-problems):
    the result is never worse than it.
    """
    solver = solver or SolverOptions()
    timings = Timings()
    origin = provenance(table, request, solver)
    no_rows = _rows.unavailable(request, solver)  # from the request alone: before any work
    if request.model.criteria_rows == "generated" and no_rows:
        raise InputError(f"the criteria's rows cannot be generated here: {no_rows}")
    if no_rows and _rows.needs_cuts(request) and request.recoding.scheme != "full-domain":
        raise InputError(f"entropy l-diversity is solved by generated cuts, which do not apply here: {no_rows}")
    if request.recoding.scheme == "full-domain":
        return _solve_full_domain(table, request, solver, timings, origin)
    instance, size, why = prepare(table, request, timings)
    if why:
        counts = {} if instance is None else dict(instance.candidates.counts)
        return Result(status=Status.INFEASIBLE, reason=why, size=size, timings=timings.stop(),
                      candidate_counts=counts, criteria=request.describe(), solver=solver.solver,
                      solver_status="pre-check", provenance=origin)
    why_not = _reduction.unavailable(request, solver, instance.candidates, table.n)
    if request.model.reduction == "lagrangian" and why_not:
        raise InputError(f"the Lagrangian reduction does not apply here: {why_not}")
    reduced = request.model.reduction != "none" and why_not is None
    # "auto" reads as off (SolverOptions.search_share) until the reduction is known, here
    solver = resolve_lns(solver, request, instance.candidates.n_pairs if reduced else None)
    searched = solver.time_limit is not None and solver.search_share > 0 and _lns.unavailable(request) is None
    stage = solver
    if searched and not (reduced and _reduction.keeps_whole_limit(request, solver, instance.candidates.n_pairs)):
        stage = dataclasses.replace(solver, time_limit=(1.0 - solver.search_share) * solver.time_limit)
    # one memory for every call of the search in this solve: each goes on where the last stopped (lns.SearchMemory)
    memory = _lns.SearchMemory() if searched else None
    if reduced:
        outcome = _reduction.LagrangianReduction(instance, request, stage, timings, size, start=start,
                                                 since=time.perf_counter() - timings.elapsed(),
                                                 search_memory=memory, sub_solve=solve).run()
    else:
        # the whole limit's end: an R(A) with the search beside it may run to it (tuning.search_beside_row_generation)
        end = time.perf_counter() + solver.time_limit - timings.elapsed() if searched else None
        outcome = _solve_whole(instance, request, stage, timings, size, start, search_end=end, memory=memory)
    if searched:  # in what is left (nothing, when the reduction kept the whole limit and used it)
        outcome = _improve(outcome, instance.table, request, solver, timings, memory)
    outcome = _second_ascent(outcome, solver, timings)
    return _finish(outcome, request, solver, timings, origin, request.recoding.cost_offset(table))


#: the share an ``lns="auto"`` solve gives the search where it runs beside the reduction's rounds; there the
#: reduction keeps the whole limit (``reduction.keeps_whole_limit``), so the share only sizes the search after the
#: rounds in what they leave (``suite_commits_lns_beside_adult_8qi_600s.md``, ``..._suppression_600s.md``)
AUTO_LNS_SHARE = 0.25


def resolve_lns(solver: SolverOptions, request, reduced_pairs: int | None = None) -> SolverOptions:
    """``solver`` with ``lns="auto"`` made a share: :data:`AUTO_LNS_SHARE` where the reduction of a model of
    ``reduced_pairs`` pairs would run the search beside its rounds and keep the whole limit
    (:func:`milp_anon.reduction.keeps_whole_limit`: two cores, a limit of 100 s or more, a request the search
    applies to), else 0 (off); ``reduced_pairs`` ``None``: no reduction. Interval and value-set columns: 0 — there
    the search beside the rounds measured no gain and 0.8-1.4 GB more
    (``benchmarks/results/suite_commits_lns_intervals_600s.md``). A share given is kept."""
    if solver.lns != "auto":
        return solver
    if solver.time_limit is None or getattr(request.recoding, "cell_columns", None):
        return dataclasses.replace(solver, lns=0.0)
    beside = dataclasses.replace(solver, lns=AUTO_LNS_SHARE)
    on = reduced_pairs is not None and _reduction.keeps_whole_limit(request, beside, reduced_pairs)
    return beside if on else dataclasses.replace(solver, lns=0.0)


def _improve(outcome: Outcome, table: Table, request, solver: SolverOptions, timings: Timings,
             memory: _lns.SearchMemory | None = None) -> Outcome:
    """The large-neighbourhood search (:mod:`.lns`) in what is left of the time limit, when the stage
    ended with a verified release and a gap; ``memory``: the stage's searches' (:class:`~.lns.SearchMemory`)."""
    rel, grid = outcome.release, outcome.grid
    left = solver.time_limit - timings.elapsed()
    if rel is None or left < 2.0 or interrupt.stop_requested() \
            or (outcome.bound is not None and not grid.gap(rel.objective, outcome.bound)):
        return outcome
    progress.report(phase="large-neighbourhood search")
    job = _ascent_job(outcome, solver, left)
    with timings.phase("lns"):
        if job is None:  # on two cores where it can (lns.improve_split): nothing else runs now
            better, log = _lns.improve_split(table, request, rel, left, solver, memory=memory, sub_solve=solve)
        else:
            # the second ascent on the other core for the whole time left, the search here until it idles
            end = time.perf_counter() + left
            options = SolverOptions(time_limit=left - SECOND_ASCENT_MARGIN, isolate="always", tuning=solver.tuning)
            found = [rel.objective]  # the search's best table, the ascent's target (its next restart's)

            def ascend(cancel):
                try:
                    return solve_isolated(job, options, grid, solve_fn=_subgradient.second_ascent_job,
                                          cancel=cancel, hard_end=end, ceiling=lambda: found[0],
                                          max_memory_bytes=cap_bytes(request.model.max_memory_gb))
                except SolverError:  # its process died: the bound stays the stage's, the search goes on
                    return None

            out, (better, log) = _lns.beside(
                ascend, lambda done: _lns.improve(table, request, rel, left, solver, stop=done,
                                                  on_better=lambda r: found.__setitem__(0, r.objective),
                                                  memory=memory, sub_solve=solve))
    outcome = dataclasses.replace(outcome, release=better, lns=log)
    if job is not None and out is not None:
        ascent = outcome.ascent[2]  # the first ascent, where this one started
        done = out.job or dict(start=ascent.bound, bound=out.bound if out.bound is not None else ascent.bound,
                                  steps=None, seconds=round(out.seconds, 3))
        # the outcome keeps no ascent: the time is spent, so no second one after the search
        outcome = _ascent_bound(dataclasses.replace(outcome, ascent=None),
                                dict(done, target=found[0], beside=True), done["bound"])
    return outcome


def _ascent_job(outcome: Outcome, solver: SolverOptions, left: float) -> tuple | None:
    """The second ascent's job for :func:`~milp_anon.bounds.subgradient.second_ascent_job` beside the search after the
    stage (``(blocks, pi0, first ascent, the released table's objective)``; its process takes ``solver.tuning`` with
    its options), or ``None`` where it cannot run there: no group blocks' ascent, ``tuning.second_ascent`` or
    ``tuning.second_ascent_beside`` off, fewer than two cores, a solver kept in this process (``isolate="never"``),
    or too little time."""
    if not (solver.tuning.second_ascent and solver.tuning.second_ascent_beside) or outcome.ascent is None \
            or outcome.bound is None \
            or solver.isolate == "never" or _lns._cores() < 2 \
            or left - SECOND_ASCENT_MARGIN < SECOND_ASCENT_MIN_SECONDS:
        return None
    blocks, pi0, ascent = outcome.ascent
    return blocks, pi0, ascent, outcome.release.objective


def _ascent_bound(outcome: Outcome, log: dict, bound: float) -> Outcome:
    """``outcome`` with the second ascent's ``log`` and its ``L(π)`` (``bound``) as the bound where it rounds up
    higher: every ``L(π)`` bounds every solution."""
    outcome = dataclasses.replace(outcome, second_ascent=log)
    bound = outcome.grid.ceil(bound)
    if bound > outcome.bound:
        progress.report(bound=bound)
        outcome = dataclasses.replace(outcome, bound=bound, bound_source=BLOCK_BOUND_SOURCE, bound_certifies=True)
    return outcome


#: the least time left (seconds) worth a second ascent of the group blocks (:func:`_second_ascent`)
SECOND_ASCENT_MIN_SECONDS = 2.0
#: seconds kept back from the limit: the ascent asks the clock between steps, and a step may take about one
SECOND_ASCENT_MARGIN = 1.0
# The techniques here are the solver options' ``tuning`` (:class:`~milp_anon.runtime.tuning.Tuning`): a second ascent
# in the time the stages left unused (``second_ascent``), beside the search after the stage on the other core rather
# than after it (``second_ascent_beside``), and the large-neighbourhood search beside the whole model's solve after
# the LP stage (``search_beside_whole_model``; two cores, ``lns > 0``): the model in its own process, the search here
# from the best table until it ends. Why: at 4 QIs (0.3-closeness, equal and hierarchical) HiGHS ran the whole model
# for 350–384 s without finding a better table while this process waited, and the search after it, in the 148 s
# left, still improved 63 of 293 neighbourhoods (``benchmarks/results/refresh_4qi_closeness_525047a.md``). Beside
# the model the search took 9,193 → 8,623 there (0.3 equal, 600 s): 8,722 → 8,448 released, the same bound
# (``benchmarks/results/whole_search_4qi_t03equal.md``).


def _second_ascent(outcome: Outcome, solver: SolverOptions, timings: Timings) -> Outcome:
    """A second ascent of the group blocks in what is left of the time limit, towards the released table's
    objective (:func:`~milp_anon.bounds.subgradient.second_ascent`), when the stages ended early
    with a gap (the search found no better table for ``lns.IDLE_PASSES`` passes): every ``L(π)`` bounds every
    solution, so a higher one replaces the bound (``formulations/reduction.md``, "The second ascent"). Only where the
    search was asked for (``lns > 0``): the search's own sub-problems (``lns = 0``) leave their time to it."""
    rel, grid = outcome.release, outcome.grid
    if not solver.tuning.second_ascent or outcome.ascent is None or rel is None or solver.time_limit is None or solver.search_share <= 0 \
            or outcome.bound is None or not grid.gap(rel.objective, outcome.bound):
        return outcome
    left = solver.time_limit - timings.elapsed() - SECOND_ASCENT_MARGIN
    if left < SECOND_ASCENT_MIN_SECONDS or interrupt.stop_requested():
        return outcome
    blocks, pi0, ascent = outcome.ascent
    progress.report(phase="the group blocks' ascent")
    with timings.phase("ascent"):
        asc = _subgradient.second_ascent(blocks, pi0, ascent, upper=rel.objective, time_limit=left,
                                         stop=interrupt.stop_requested,
                                         whole=solver.tuning.second_ascent_whole_pricing,
                                         known_steps=solver.tuning.known_steps)
    log = dict(start=ascent.bound, bound=asc.bound, target=rel.objective, steps=asc.iterations,
               seconds=round(asc.seconds, 3), beside=False)
    return _ascent_bound(dataclasses.replace(outcome, ascent=(blocks, pi0, asc)), log, asc.bound)


def _solve_full_domain(table, request, solver: SolverOptions, timings: Timings, origin: dict) -> Result:
    """Full-domain generalization: the bounded lattice search (:mod:`.full_domain`), no MILP."""
    lattices, types, _, size, why = _collapsed(table, request, timings)
    if why:
        return Result(status=Status.INFEASIBLE, reason=why, size=size,
                      timings=timings.stop(), criteria=request.describe(), solver="full-domain search",
                      solver_status="pre-check", provenance=origin)
    outcome = solve_full_domain(table, request, lattices, types, timings)
    return dataclasses.replace(_finish(outcome, request, solver, timings, origin), solver="full-domain search")


def _solve_whole(instance: Instance, request, solver: SolverOptions, timings: Timings, size: ModelSize,
                 start: Release | None = None, search_end: float | None = None,
                 memory: _lns.SearchMemory | None = None) -> Outcome:
    """The whole assignment model in one solver run; the certificate is the solver's own Optimal.
    A ``start`` release is the model's start and replaces the heuristic tables as the fallback. The outcome
    carries the group blocks' ascent, if its bound stage ran one, for :func:`_second_ascent`. ``search_end``:
    the whole time limit's end (``perf_counter``) where the search is asked for, past the stage's own limit
    (``solver``'s): the row generation's relaxations beside the search may run to it; ``memory``: what every
    search of this solve carries to the next (:class:`~.lns.SearchMemory`)."""
    held: dict = {}
    outcome = _solve_whole_model(instance, request, solver, timings, size, start, held, search_end, memory)
    return dataclasses.replace(outcome, ascent=held.get("ascent"), blocks_rounding=held.get("blocks_rounding"))


def _solve_whole_model(instance: Instance, request, solver: SolverOptions, timings: Timings, size: ModelSize,
                       start: Release | None, held: dict, search_end: float | None = None,
                       memory: _lns.SearchMemory | None = None) -> Outcome:
    """:func:`_solve_whole`'s body; ``held["ascent"]``: the bound stage's ascent, once it ran."""
    am, size, hint, ws_cost = _built_whole_model(instance, request, solver, timings, size, start)
    grid = ObjectiveGrid.for_objective(request.model.objective, instance.candidates.cost if not request.model.withholds
                                       else np.append(instance.candidates.cost, instance.record_cost))
    if request.model.objective == "cost" and not request.recoding.rational_costs:
        grid = NO_GRID  # log2 of counts: a float that looks like a fraction is no grid
    relaxed, relaxed_source, hs, pair_bounds, k_bounds, heuristic, held["ascent"] = _relaxation_bound(
        instance, request, solver, grid, timings, start, held)
    rows_log = None
    cuts = _rows.needs_cuts(request)  # entropy ℓ-diversity: by generated cuts always, never handed over
    if (request.model.criteria_rows != "all" or cuts) and _rows.unavailable(request, solver) is None:
        auto = request.model.criteria_rows == "auto" and not cuts
        t0 = time.perf_counter()
        rg = _generate_rows(am, request, hs, timings, size, grid, hint, ws_cost, start, relaxed, relaxed_source,
                            max_failing=ROW_GENERATION_MAX_FAILING if auto else None, k_bounds=k_bounds,
                            heuristic=heuristic, search_end=search_end, memory=memory,
                            every=cuts and request.model.criteria_rows == "all")
        left = None if hs.time_limit is None else hs.time_limit - (time.perf_counter() - t0)
        if not rg.row_generation.handed_over or (left is not None and left < 1.0) or interrupt.stop_requested():
            return rg
        # "auto", too many groups failed: the whole model in the time left, from the best table known,
        # keeping the relaxations' bound (ROW_GENERATION_MAX_FAILING, formulations/row-generation.md)
        hs, rows_log = dataclasses.replace(hs, time_limit=left), rg.row_generation
        relaxed, relaxed_source = rg.bound, rg.bound_source
        ws_cost = rg.warm_start_cost if ws_cost is None else ws_cost  # the heuristic table it started from
        if rg.release is not None:
            start = rg.release
            hint = release_start(am, start)
    lp_log = None
    if _relaxation.unavailable(request, hs) is None and not interrupt.stop_requested():
        # the LP relaxation: a bound, and its rounding a start (formulations/row-generation.md, "LP rounding")
        t0 = time.perf_counter()
        with timings.phase("lp_rounding"):
            if start is None:
                start = heuristic if heuristic is not None else best_heuristic(instance.table, request)
            search = None
            if hs.search_share > 0 and _lns.unavailable(request) is None:  # the search beside the LP, on another core
                def search(rel, seconds, stop):
                    return _lns.improve(instance.table, request, rel, seconds, hs, stop=stop, memory=memory,
                                        sub_solve=solve)
            exact = held.get("ascent") is not None and held["ascent"][0].exact and hs.tuning.second_ascent
            at_lp = []
            lp_bound, rounded, lp_log = _relaxation.lp_rounding_stage(
                am, request, hs, grid, start, search, pair_bounds, bound=relaxed, blocks_exact=exact,
                on_multipliers=at_lp.append if _prices_at_lp(held, hs) else None)
        if lp_bound is not None and (relaxed is None or lp_bound > relaxed):
            relaxed, relaxed_source = lp_bound, _relaxation.LP_BOUND_SOURCE
        asc = held.get("ascent")
        # one block solve with the ball's and the EMD's blocks: priced only where that fits in half the time left,
        # and the EMD's programs end by then
        half = None if hs.time_limit is None else 0.5 * (hs.time_limit - (time.perf_counter() - t0))
        if at_lp and half is not None and asc[0].integer_pricing_seconds(asc[2]) <= half:
            lp_log, blocks_bound = _blocks_at_lp(held, at_lp[-1], lp_log, timings, time.perf_counter() + half)
            if relaxed is None or grid.ceil(blocks_bound) > relaxed:
                relaxed, relaxed_source = grid.ceil(blocks_bound), BLOCK_LP_SOURCE
                progress.report(bound=relaxed)
        if rounded is not None:
            start, hint = rounded, release_start(am, rounded)
            progress.report(incumbent=rounded.objective)
        spent = time.perf_counter() - t0
        left = hs.time_limit - spent
        root = lp_log.lp_seconds * (_relaxation.PRESOLVE_SPEEDUP if lp_log.lp_presolve else 1.0)
        if start is not None and (lp_log.model_skipped or left < root):
            return _whole_model_skipped(instance, start, relaxed, relaxed_source, size, ws_cost, grid, rows_log,
                                        lp_log)
        hs = dataclasses.replace(hs, time_limit=max(left, 1.0))
    progress.report(solver_bound_is_global=True)  # the whole model: HiGHS's bound is the problem's
    with timings.phase("solve"):
        out, lp_log, start = _run_whole_model(am, instance, request, hs, grid, hint, start, lp_log, memory)
    if out.status == Status.INFEASIBLE and (cut := _user_cutoff_bound(hs, grid)) is not None:
        out = dataclasses.replace(out, status=Status.NO_SOLUTION, bound=cut)  # none below the user's cutoff
    # HiGHS's dual bound (its branch-and-bound's, rounded up to the grid) holds at a limit as at Optimal: when
    # a table found elsewhere (the search) reaches it, that is the same proof as its own Optimal (stricter:
    # no mip_rel_gap); a PuLP solver's report is trusted at Optimal only
    common = dict(solver_status=out.solver_status, size=size, candidate_counts=dict(instance.candidates.counts),
                  warm_start_cost=ws_cost, grid=grid, row_generation=rows_log, lp_rounding=lp_log,
                  bound_certifies=hs.in_bulk)
    if relaxed is not None and out.status != Status.INFEASIBLE and (out.bound is None or relaxed > out.bound):
        out = dataclasses.replace(out, bound=relaxed)
        # a proven bound: reaching the verified cost proves optimality
        common.update(bound_source=relaxed_source, bound_certifies=True)
    if out.x is None:
        release = None
        if out.status in (Status.TIME_LIMIT, Status.NO_SOLUTION):
            # never empty-handed: the solver stopped without an incumbent; release the best
            # verified heuristic table instead, labelled as a limit result with the bound
            release = _or_fallback(None, instance, request, start, timings)
        status = Status.TIME_LIMIT if release is not None else out.status
        reason = "the solver proved the model infeasible" if out.status == Status.INFEASIBLE else None
        return Outcome(release, out.bound, status, reason=reason, **common)
    with timings.phase("verify"):
        g, _ = read_assignment(am, out.x, request.criteria, solver)
        released, groups, cost = am.release(g)
        release = Release.verified(instance.table, request, released, cost=cost, groups=groups)
    if out.status == Status.TIME_LIMIT and grid.gap(_sense(request) * release.objective, out.bound) \
            and not interrupt.stop_requested():
        # stopped early: release the heuristic table instead when it is better than the incumbent
        release = _or_fallback(release, instance, request, start, timings)
    return Outcome(release, out.bound, out.status, **common)


def _built_whole_model(instance: Instance, request, solver: SolverOptions, timings: Timings, size: ModelSize,
                       start: Release | None):
    """``(am, size, hint, ws_cost)``: the whole model built and its start (the whole table, ``start`` or the greedy
    warm start, with its cost); :func:`_solve_whole_model`'s setup, apart because it reads only its arguments."""
    check_memory(instance, request.criteria, request.model.max_memory_gb, pulp_model=not solver.in_bulk)
    with timings.phase("build"):
        am = build(instance, request)
    size = ModelSize.of_model(am, size)
    hint, ws_cost = None, None
    if solver.in_bulk:
        hint = whole_table_start(am)
        if start is not None:
            hint, ws_cost = release_start(am, start), start.cost
        elif request.model.warm_start == "greedy":
            with timings.phase("warm_start"):
                ws = warm_start(am, request)  # (start, cost): not a release, so not ``start``
            if ws is not None:
                hint, ws_cost = ws
    return am, size, hint, ws_cost


def _whole_model_skipped(instance: Instance, start: Release, relaxed, relaxed_source, size: ModelSize, ws_cost,
                         grid: ObjectiveGrid, rows_log, lp_log) -> Outcome:
    """:func:`_solve_whole_model`'s outcome when the LP rounding stage leaves the whole model out: the best table
    and bound so far, and why; apart because it is a result assembly that returns at once."""
    # the whole model's root LP (presolve off) would not finish in the time left (the LP took longer,
    # or stopped at its share of the time), or could not raise the bound (the restricted model ran
    # instead, tuning.restricted_model; or its restriction did not finish under exact group blocks,
    # tuning.unfinished_lp_skips): the search gets the time instead
    if not lp_log.model_skipped:
        why = "its LP relaxation took longer than the time left"
    elif lp_log.model_status is not None:
        why = "its LP relaxation cannot raise the bound: the restricted model ran instead"
    else:
        why = "its restricted LP did not finish, and the group blocks' dual is at least the LP's"
    lp_log = dataclasses.replace(lp_log, model_skipped=True, model_skipped_why=why)
    return Outcome(start, relaxed, Status.TIME_LIMIT, solver_status=f"the whole model skipped ({why})",
                   size=size,
                   candidate_counts=dict(instance.candidates.counts), warm_start_cost=ws_cost, grid=grid,
                   row_generation=rows_log, bound_certifies=True, bound_source=relaxed_source,
                   lp_rounding=lp_log)


def _run_whole_model(am: AssignmentModel, instance: Instance, request, hs: SolverOptions, grid: ObjectiveGrid, hint,
                     start: Release | None, lp_log, memory: _lns.SearchMemory | None):
    """``(out, lp_log, start)``: the whole model's solver run, with the search beside it where that applies (its log
    in ``lp_log``, its table in ``start``); apart from :func:`_solve_whole_model` as its one solve step."""
    # a model in its own process is killed at the stage's end at the latest, not after its own margins
    end = None if hs.time_limit is None else time.perf_counter() + hs.time_limit
    cap = cap_bytes(request.model.max_memory_gb)
    if hs.tuning.search_beside_whole_model and lp_log is not None and start is not None and hs.search_share > 0 \
            and hs.time_limit is not None and _lns.unavailable(request) is None \
            and _lns.beside_possible(hs, am.lm.n_cols) and not interrupt.stop_requested():
        # the model in its own process on the other core, the search here from the best table until it ends
        # (tuning.search_beside_whole_model); HiGHS's bound is the problem's whichever table is released
        iso = dataclasses.replace(hs, isolate="always")
        out, (searched, search_log) = _lns.beside(
            lambda cancel: solve_model(am.lm, iso, grid, hint=hint, cancel=cancel, hard_end=end,
                                       max_memory_bytes=cap),
            lambda done: _lns.improve(instance.table, request, start, hs.time_limit, hs, stop=done,
                                      memory=memory, sub_solve=solve))
        lp_log = dataclasses.replace(lp_log, whole_search=search_log.as_dict())
        start = _relaxation.better_release(start, searched)
    else:
        out = solve_model(am.lm, hs, grid, hint=hint, hard_end=end, max_memory_bytes=cap)
    return out, lp_log, start


#: ``criteria_rows="auto"``: the row generation hands over to the whole model as soon as more than this share
#: of a solution's groups fail a criterion (the relaxations would soon hold most rows); the whole model then
#: runs in the time left, from the best table known, keeping the relaxations' bound
ROW_GENERATION_MAX_FAILING = 0.1

ROW_GENERATION_SOURCE = ("HiGHS's bound of the model with the criteria's rows on some candidates only "
                         "(a relaxation; formulations/row-generation.md)")


def _generate_rows(am: AssignmentModel, request, solver: SolverOptions, timings: Timings, size: ModelSize,
                   grid: ObjectiveGrid, hint, ws_cost, start: Release | None, relaxed, relaxed_source,
                   max_failing: float | None = None, k_bounds=None, heuristic: Release | None = None,
                   search_end: float | None = None, memory: _lns.SearchMemory | None = None,
                   every: bool = False) -> Outcome:
    """The whole model's criteria by row generation (:mod:`.row_generation`); the fallback table as for
    the whole model when it ends without a verified release or with a poorer one. ``k_bounds``: the bound
    stage's k-anonymity LP bounds over ``am``'s candidates (``R(∅)`` by the reduction reuses them);
    ``heuristic``: the best heuristic table when already computed (:func:`_relaxation_bound`);
    ``search_end``, ``memory``: as :func:`_solve_whole`'s (the search then runs beside the relaxations in their
    children)."""
    deadline = None if solver.time_limit is None else time.perf_counter() + solver.time_limit
    if start is None and not request.model.withholds:
        # the heuristic table first (seconds; it is the fallback anyway): the repairs start from it, every
        # R(A) gets it as its start, and a relaxation's bound that reaches it proves it optimal (withholding
        # skips the whole-table pre-check, so the heuristics may have no table to give there)
        if heuristic is None:
            with timings.phase("warm_start"):
                heuristic = best_heuristic(am.table, request)
        start = heuristic
        if start is not None:
            # a full start only: every R(A) split only in A (PartialSplit.hint) needs every row placed
            full = release_start(am, start, partial=False)
            hint = hint if full is None else full
            ws_cost = start.cost if ws_cost is None else ws_cost
            progress.report(incumbent=start.objective)
    search = None
    if search_end is not None and solver.search_share > 0 and _lns.unavailable(request) is None:
        def search(rel, seconds, stop, on_better):
            return _lns.improve(am.table, request, rel, seconds, solver, stop=stop, on_better=on_better,
                                memory=memory, sub_solve=solve)
    progress.report(solver_bound_is_global=True)  # every R(A) is a relaxation: its bound is the problem's
    with timings.phase("solve"):
        release, bound, status, solver_status, log = _rows.row_generation(am, request, solver, grid, hint=hint,
                                                                          deadline=deadline, max_failing=max_failing,
                                                                          incumbent=start, k_bounds=k_bounds,
                                                                          search=search, search_end=search_end,
                                                                          sub_solve=solve, every=every)
    common = dict(solver_status=solver_status, size=size, candidate_counts=dict(am.instance.candidates.counts),
                  warm_start_cost=ws_cost, grid=grid, row_generation=log, bound_certifies=True)
    if status == Status.INFEASIBLE and (cut := _user_cutoff_bound(solver, grid)) is not None:
        status, bound = Status.TIME_LIMIT, cut  # a relaxation has no solution below the user's cutoff
    elif status == Status.INFEASIBLE:
        return Outcome(None, None, status, reason="the solver proved a relaxation of the model infeasible",
                       **common)
    source = ROW_GENERATION_SOURCE if bound is not None else None
    if relaxed is not None and (bound is None or relaxed > bound):
        bound, source = relaxed, relaxed_source
    if status != Status.OPTIMAL and not log.handed_over and (release is None or not interrupt.stop_requested()):
        # (handed over: the whole model runs next, with its own fallback)
        release = _or_fallback(release, am.instance, request, start, timings)
    if release is None:
        status = Status.NO_SOLUTION
    return Outcome(release, bound, status, bound_source=source, **common)


def _user_cutoff_bound(solver: SolverOptions, grid: ObjectiveGrid) -> float | None:
    """What HiGHS's "infeasible" proves under the user's own cutoff (``objective_bound`` in ``highs_options``):
    it prunes every node whose bound reaches the cutoff, so no table costs less (the grid value at or above
    it). ``None`` without such a cutoff: "infeasible" then means what it says."""
    cutoff = dict(solver.highs_options).get("objective_bound")
    return None if cutoff is None else grid.ceil(float(cutoff))


def _or_fallback(release: Release | None, instance: Instance, request, start: Release | None,
                 timings: Timings) -> Release | None:
    """The better of ``release`` (or none) and the fallback table, released when the solver's is missing or
    poorer: the given start, else the best heuristic's."""
    with timings.phase("fallback"):
        alt = start if start is not None else best_heuristic(instance.table, request)
    if alt is not None and (release is None or _sense(request) * alt.objective < _sense(request) * release.objective
                            - 1e-9):
        return alt
    return release


K_BOUND_SOURCE = ("the k-anonymity LP bound over the same candidates (column generation, with the conflict "
                  "cliques its masters violate): every release "
                  "meeting the criteria is k-anonymous")
BLOCK_LP_SOURCE = ("the Lagrangian bound of the groups under the criteria at the LP relaxation's multipliers of "
                   "the assignment rows (every candidate's group problem solved over the integers; t-closeness "
                   "relaxed to the total-variation ball every close group lies in, exact under the equal "
                   "distance but for the partial rows' knapsack, bounded by its duals; under the ordered and the "
                   "hierarchical distance each group problem an integer program, its dual bound where it stopped, or "
                   "its LP where larger or not reached in the time)")
#: the release source of the group blocks' rounding (:func:`_blocks_rounding`)
BLOCKS_ROUNDING_SOURCE = "the group blocks' rounding"
BLOCK_BOUND_SOURCE = ("the Lagrangian bound of the groups under the criteria (every candidate's group problem "
                      "solved exactly, relaxed to what every group must hold for t-closeness and recursive "
                      "l > 2; multipliers by subgradient ascent from the k-anonymity LP's)")

#: share of a time limit given to the relaxation bound before a whole model with sensitive criteria
K_BOUND_SHARE = 0.2


#: share of the time limit the refinement of the group blocks' rounding (``tuning.blocks_rounding``) may take at most
BLOCKS_ROUNDING_REFINE_SHARE = 0.02


def _blocks_rounding(instance: Instance, request, pb, heuristic: Release | None, limit: float,
                     held: dict | None) -> Release | None:
    """The better of ``heuristic`` and the rounding of the group blocks' solutions averaged over the ascent's
    later steps (:class:`~milp_anon.bounds.subgradient.PrimalAverage`, rounded and verified as an LP's solution is,
    :func:`~milp_anon.pipeline.relaxation.rounded_release`): a table near the LP's where the LP does not finish (Adult,
    6 QIs, frequency ℓ = 3: 16,889 in about a second against the heuristic table's 18,119). What it did goes
    to ``held["blocks_rounding"]``."""
    t0 = time.perf_counter()
    blocks = pb.ascent[0]
    x = pb.primal.assignment(blocks.n, blocks.pair_unit)
    if x is None:
        return heuristic
    release, objective, refined = _relaxation.rounded_release(
        instance, request, blocks.pair_unit, blocks.pair_cand, x, BLOCKS_ROUNDING_SOURCE,
        deadline=time.perf_counter() + BLOCKS_ROUNDING_REFINE_SHARE * limit)
    used = _relaxation.better_release(heuristic, release) is not heuristic
    if held is not None:
        held["blocks_rounding"] = dict(steps=pb.primal.averaged, rounded=objective, refined=refined,
                                       heuristic=None if heuristic is None else heuristic.objective, used=used,
                                       seconds=round(time.perf_counter() - t0, 3))
    if used:
        progress.report(incumbent=release.objective)
        return release
    return heuristic


def _prices_at_lp(held: dict, solver: SolverOptions) -> bool:
    """Whether the bound stage's group blocks take the ball's or the EMD's integer block (t-closeness), so that pricing
    them with it at the LP's multipliers may lift the LP's bound (``solver.tuning.blocks_at_lp``; off: the package
    before)."""
    asc = held.get("ascent")
    return solver.tuning.blocks_at_lp and asc is not None and asc[0].with_integer_blocks().has_integer_blocks


def _blocks_at_lp(held: dict, pi: np.ndarray, lp_log, timings: Timings, deadline: float | None = None):
    """``(lp_log with the bound, L(π_LP))``: the group blocks, with the ball's and the EMD's integer blocks
    (:meth:`~milp_anon.bounds.blocks.RequestBlocks.with_integer_blocks`), priced at the LP's multipliers of the assignment
    rows. Where a candidate's block holds the criterion itself over the integers (the EMD's block under the ordered
    and the hierarchical distance; the ball's under the equal distance, but for its partial rows' knapsack), it lies
    at or above the candidate's LP rows, so at the LP's optimal multipliers ``L`` is at least the LP's optimum (the
    ball's alone, under the other distances, is wider than the LP's rows). At any multipliers it is a valid bound.
    Where it beats the bound stage's ascent, the second ascent starts there, with these blocks. ``deadline``
    (``time.perf_counter()``): where the EMD's programs end (:meth:`~milp_anon.bounds.blocks.RequestBlocks.until`)."""
    blocks, pi0, asc = held["ascent"]
    blocks = blocks.with_integer_blocks()
    t0 = time.perf_counter()
    with timings.phase("lp"):
        prices = blocks.until(deadline).prices(pi)
    seconds = time.perf_counter() - t0
    if prices.bound > asc.bound:
        # at β = 0: the ball multipliers of the first ascent belong to its own π
        asc = dataclasses.replace(asc, pi=pi, prices=prices, start_bound=prices.bound, betas=())
        held["ascent"] = (blocks, pi, asc)
    return dataclasses.replace(lp_log, blocks_at_lp=prices.bound, blocks_at_lp_seconds=round(seconds, 3)), \
        prices.bound


def _relaxation_bound(instance: Instance, request, solver: SolverOptions, grid: ObjectiveGrid, timings: Timings,
                      start: Release | None = None, held: dict | None = None):
    """``(bound or None, its source, solver options for the model, its pair bounds or None, the k-anonymity LP's
    :class:`~milp_anon.reduction.PairBounds` it started from or None, the heuristic table or None, the group
    blocks' ``(blocks, pi0, ascent)`` for a second ascent or None)``: under a time
    limit, sensitive criteria get a Lagrangian bound over the same candidates first (``K_BOUND_SHARE`` of
    the limit), so a model whose root LP does not finish still ends with a bound above 0 (issue 13, item
    3): the exact group blocks' where the criteria have them (:func:`~milp_anon.reduction.block_bounds`),
    else the k-anonymity LP bound; the pair bounds choose the restricted LP's pairs
    (:func:`~milp_anon.pipeline.relaxation.restricted_pairs`).

    Without a ``start`` the best heuristic table is computed first (the later stages start from it, so it is
    computed once): its objective is the group blocks' ascent's target, Polyak's step towards a known upper
    bound (``formulations/reduction.md``, "Multipliers"); the rounding of the blocks' average over the ascent
    replaces it where cheaper (:func:`_blocks_rounding`, which tells ``held``)."""
    limit = solver.time_limit
    if limit is None or request.k_alone or _reduction.k_relaxation_unavailable(
            request, solver, instance.candidates, instance.table.n):
        return None, None, solver, None, None, None, None
    t0 = time.perf_counter()
    heuristic = None
    if start is None:  # (the stage runs for the cost objective without withheld records alone)
        with timings.phase("warm_start"):
            heuristic = best_heuristic(instance.table, request)
    known = start if start is not None else heuristic
    upper = None if known is None else known.objective
    with timings.phase("lp"):
        pb = _reduction.block_bounds(instance, request, grid, solver, K_BOUND_SHARE * limit, upper=upper)
    if start is None and pb.primal is not None and solver.tuning.blocks_rounding:
        with timings.phase("warm_start"):
            heuristic = _blocks_rounding(instance, request, pb, heuristic, limit, held)
    left = max(limit - (time.perf_counter() - t0), 0.05 * limit)
    block = pb.log.block_bound is not None and pb.log.block_bound > pb.k_anonymity.bound
    return grid.ceil(pb.bound), BLOCK_BOUND_SOURCE if block else K_BOUND_SOURCE, \
        dataclasses.replace(solver, time_limit=left), pb.thresholds, pb.k_anonymity, heuristic, pb.ascent


def _sense(request) -> float:
    """The model minimizes ``−types`` for the ``types`` objective, the objective itself otherwise."""
    return -1.0 if request.model.objective == "types" else 1.0


def _finish(outcome: Outcome, request, solver: SolverOptions, timings: Timings, origin: dict,
            offset: float = 0.0) -> Result:
    """The one place where a bound meets the verified objective: check it, set gap and status, build the Result.

    ``offset``: the constant by which the model's unit exceeds the reported cost (``Recoding.cost_offset``: the
    entropy cost's ``Σ log2 N(v)``, else 0). Bound and objective are compared in the model's unit (the grid's
    tolerance); the Result's objective, bound, cost and gap are the reported cost's."""
    grid, sign = outcome.grid, _sense(request)
    rel, bound, status = outcome.release, outcome.bound, outcome.status
    obj_off = offset if request.model.objective == "cost" else 0.0
    out_bound = None if bound is None else sign * bound - obj_off
    warm = outcome.warm_start_cost
    common = dict(size=outcome.size, timings=timings.stop(), candidate_counts=outcome.candidate_counts,
                  reduction=outcome.reduction, bound_source=outcome.bound_source,
                  warm_start_cost=None if warm is None else warm - offset, full_domain=outcome.full_domain,
                  lns=outcome.lns,
                  row_generation=outcome.row_generation, lp_rounding=outcome.lp_rounding,
                  second_ascent=outcome.second_ascent, blocks_rounding=outcome.blocks_rounding,
                  criteria=request.describe(), solver=solver.solver,
                  solver_status=outcome.solver_status,
                  provenance=origin)
    if rel is None:
        return Result(status=status, bound=out_bound, reason=outcome.reason, **common)
    value = sign * rel.objective
    if bound is not None and bound > value + grid.tolerance(value):
        raise VerificationError(f"lower bound {bound} beyond the verified objective {value}")
    gap = grid.gap(value, bound)
    if obj_off and gap:  # equal or not in the model's unit; the gap relative to the reported cost
        gap = relative_gap(value - obj_off, bound - obj_off)
    if gap == 0 and (outcome.bound_certifies or status == Status.OPTIMAL):
        status = Status.OPTIMAL
    elif status == Status.OPTIMAL:
        status = Status.GAP_LIMIT  # the repaired or recounted objective is off the bound: not proven
    table, groups, withheld = rel.table, rel.groups, ()
    if rel.withheld is not None:  # withheld records leave the release (their input rows are listed)
        table, groups = table[~rel.withheld], groups[~rel.withheld]
        withheld = tuple(int(i) for i in np.flatnonzero(rel.withheld))
    return Result(status=status, objective=float(rel.objective) - obj_off, bound=out_bound,
                  gap=gap, cost=float(rel.cost) - offset, table=table, groups=groups, verified=True,
                  source=rel.source, cost_by_column=rel.cost_by_column, class_sizes=rel.class_sizes,
                  withheld=withheld, **common)


def build_model(table: Table, request) -> AssignmentModel:
    """The whole assignment model of ``table`` for ``request`` (no solving); raises
    :class:`~milp_anon.runtime.errors.InfeasibleRequest` when the pre-checks find no release."""
    _refuse_cut_model(request)
    instance, _, why = prepare(table, request, Timings())
    if why:
        raise InfeasibleRequest(why)
    return build(instance, request)


def _refuse_cut_model(request) -> None:
    """Entropy ℓ-diversity has no whole model (its cuts are generated during a solve): refuse to hand one out."""
    if _rows.needs_cuts(request):
        raise InputError("entropy l-diversity has no whole model to write: its cuts are generated during the solve "
                         "(formulations/l-diversity.md)")


def model_format(path: str, format: str | None = None) -> str:
    """``"mps"`` or ``"lp"``: ``format``, or by default from the name's ending."""
    format = format or os.path.splitext(str(path))[1].lower().lstrip(".")
    if format not in ("mps", "lp"):
        raise InputError(f"model file {path}: give format 'mps' or 'lp' (or a name ending in .mps or .lp)")
    return format


def write_model_file(table: Table, request, path: str, format: str) -> None:
    """Write the whole model to ``path`` as is (no checks of the path; :func:`write_model` has them)."""
    _refuse_cut_model(request)
    instance, _, why = prepare(table, request, Timings())
    if why:
        raise InfeasibleRequest(why)
    check_memory(instance, request.criteria, request.model.max_memory_gb, pulp_model=True)
    prob, _ = build(instance, request).lm.to_pulp()
    (prob.writeMPS if format == "mps" else prob.writeLP)(path)


def write_model(table: Table, request, path: str, format: str | None = None) -> None:
    """Write the whole model as MPS or LP through PuLP (named columns and rows).

    ``format``: ``"mps"`` or ``"lp"``; by default from the name's ending
    (``.mps``, ``.lp``). The path is checked before any work; the file is
    written under a temporary name in the same directory and renamed, so a
    failure leaves no partial file (:class:`~milp_anon.tables.files.Outputs`).
    Raises :class:`~milp_anon.runtime.errors.InfeasibleRequest` when the pre-checks
    find no release.
    """
    _refuse_cut_model(request)
    with Outputs() as outputs:
        path = outputs.add(path, "model file")
        format = model_format(path, format)
        write_model_file(table, request, outputs.staging(path), format)
        outputs.commit()


def inspect(table: Table, request, *, lp: bool = False, time_limit: float | None = None) -> dict:
    """Sizes of every stage (types, units, candidates per pruning, model estimate) without solving.

    With ``lp=True`` also the LP bound by column generation and, for
    thresholds ``G = ⌈LP⌉ + 1, 4, 16, 64`` grid steps, the pairs and
    candidates of the model the Lagrangian reduction would build
    (:func:`milp_anon.reduction.threshold_table`); with sensitive criteria,
    those of the k-anonymity relaxation over the request's candidates.
    """
    if time_limit is not None:
        SolverOptions(time_limit=time_limit)  # the same checks as a solve's limit, before any work
    timings = Timings()
    instance, size, why = prepare(table, request, timings)
    info = {"n_rows": table.n, "m": table.m, "t_in": size.t_in, "criteria": [c.describe() for c in request.criteria],
            "infeasible": why if instance is None else None}
    if request.split:
        info["n_units"] = size.n_units
    if instance is not None:
        cands = instance.candidates
        info.update(candidates=dict(cands.counts), n_candidates=cands.n_candidates,
                    n_pairs=instance.n_unit_pairs(), **estimate(instance, request.criteria).as_dict())
        # what the memory figures mean for a solve with default options: the whole model's estimate refuses a
        # model only where the whole model is built; the reduction builds restricted models, each checked alone
        reduced = request.model.reduction != "none" and _reduction.unavailable(
            request, SolverOptions(), cands, table.n) is None
        info["solved_by"] = "lagrangian reduction" if reduced else "whole model"
        if _rows.needs_cuts(request):  # no whole model: the estimate is of the initial rows, before any cut
            info["solved_by"] = "row generation with generated cuts (entropy l-diversity)"
        # a model is refused when it and what the process holds pass the memory allowed (check_memory): the
        # process (interpreter, table, candidates) is most of a small model's peak
        info["process_bytes"] = resident_memory_bytes()
        if lp:
            info["lagrangian"] = _reduction.threshold_table(instance, request, time_limit)
    info["seconds"] = round(timings.stop().total, 3)
    return info
