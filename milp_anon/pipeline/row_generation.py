"""Sensitive criteria by row generation (``formulations/row-generation.md``).

Problem: the assignment model with sensitive criteria (p-sensitivity,
ℓ-diversity, t-closeness) carries every criterion's rows for every candidate,
although in an optimum only a few groups are where the criteria bind. Each
criterion row is a condition on one candidate's group, so the model ``R(A)``
that keeps them only for the candidates in ``A`` (and k-anonymity, the
assignment and the options everywhere) is a relaxation: its proven bound is a
lower bound on the optimum, for every ``A``.

Algorithm: ``A = ∅``; solve ``R(A)``; put the used candidates whose groups
fail a criterion (the group test of :mod:`milp_anon.privacy.criteria`) into ``A``;
repeat until the solution's groups all meet the criteria. That solution is
then a release of the whole problem at the optimum of a relaxation: optimal.
``A`` only grows, so this ends, at worst with ``R(A)`` the whole model.
Under a time limit it stops with the best bound of any ``R(A)``. A large
``R(∅)`` (k-anonymity over the request's candidates) is solved by the
Lagrangian reduction of k-anonymity instead of one MILP
(:func:`_first_by_reduction`); when that does not prove it, its table is
repaired in the time left and the iteration stops (every later ``R(A)`` is
a larger MILP).

Incumbents: after an ``R(A)`` whose groups fail, first the rows of the
failing groups and of their neighbours (by released vector) are re-solved as
small sub-tables and spliced into the rest of that solution (:func:`milp_anon.search.lns.resolve_failing`; the other groups
already meet every criterion, and every criterion is closed under union);
when that finds nothing (:func:`repair`), the whole
model restricted to the candidates that solution uses, the whole-table
candidate and those of the best table so far (every criterion's rows, so
each of its solutions is a release) is solved for a short time; a verified
table that reaches the relaxations' bound ends the iteration as optimal.
Where the next ``R(A)`` is solved in a child process (large models under a
time limit), the repair runs in this process meanwhile, on the other core
(``tuning.repair_beside``): the two are independent (the cutoff solve of
:func:`_solve_relaxation` takes no start), so the repairs cost no time. The
large-neighbourhood search the caller asks for then follows the repair on that
core until the ``R(A)`` ends (``tuning.search_beside_row_generation``), and a table it finds at
the relaxations' bound ends the iteration as optimal; such an ``R(A)`` may run
to the end of the whole time limit (``search_end``), past the stage's share
(when it starts with the best table within :data:`EXTEND_GAP` of that bound:
by default always).

Complexity: one MILP per iteration; the iterations' models are the whole
model less the criterion rows of the candidates outside ``A``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from milp_anon.formulations import AssignmentModel, build, partial_split, read_assignment
from milp_anon.formulations.rows import add_gibbs_rows, entropy_cut
from milp_anon.instance.request import Problem
from milp_anon.privacy.criteria import KAnonymity, LDiversity, entropy_at_least, failing_groups, first_violation
from milp_anon.reduction import LagrangianReduction, k_anonymity_bounds, k_relaxation_unavailable
from milp_anon.release.result import ModelSize, Timings
from milp_anon.release.verified import Release
from milp_anon.runtime import interrupt, progress
from milp_anon.runtime.errors import VerificationError
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status
from milp_anon.search import lns
from milp_anon.search.starts import release_pairs, release_start, whole_table_start
from milp_anon.solvers import SolveOutcome, SolverOptions, StopAtBound, should_isolate, solve_model
from milp_anon.tables.rowtypes import Units

__all__ = ["CutPool", "Iteration", "RowGenerationLog", "needs_cuts", "repair", "row_generation", "unavailable"]

# The techniques (the solver options' :class:`~milp_anon.runtime.tuning.Tuning`): each ``R(A)`` with the units split
# only for the candidates in ``A`` (``partial_split``, :class:`~milp_anon.formulations.partial_split.PartialSplit`,
# where it applies; off: the whole model less the rows outside ``A``); the repair by re-solving the failing classes'
# rows alone first (``resolve_failing``, :func:`milp_anon.search.lns.resolve_failing`); the repair of an ``R(A)``
# solution while the next ``R(A)`` runs in its child process, on the other core, where it is isolated (``repair_beside``,
# :func:`_isolated`; off: the repair first, then the next ``R(A)`` from its table); after it, the caller's search from
# the best table in this process until that ``R(A)`` ends, such an ``R(A)`` then running to ``search_end`` (the whole
# time limit), not only to the stage's share of it (``search_beside_row_generation``; off: no search beside, every
# ``R(A)`` within the stage's share, the search after the stage alone); ``R(∅)``, where it would be isolated, by the
# Lagrangian reduction of k-anonymity over the same candidates (``first_by_reduction``, :func:`_first_by_reduction`;
# off: as every ``R(A)``); each ``R(A)`` after the first at the best bound of the earlier ones first
# (``at_known_bound``, :func:`_solve_relaxation`; off: from its start, as the first).


# --- entropy ℓ-diversity: its cuts generated (formulations/l-diversity.md, "Entropy ℓ-diversity") -------------

def cut_criteria(criteria) -> list:
    """The criteria whose model rows are cuts generated here, not an exact description: entropy ℓ-diversity."""
    return [c for c in criteria if isinstance(c, LDiversity) and c.kind == "entropy"]


def needs_cuts(request) -> bool:
    """Whether ``request`` holds a criterion modeled by generated cuts (:func:`cut_criteria`): it is solved by
    the row generation only, never as a whole model (whose solutions need not meet it)."""
    return bool(cut_criteria(request.criteria))


class CutPool:
    """The Gibbs cuts generated so far (:func:`~milp_anon.formulations.rows.entropy_cut`): each valid for every
    candidate, so every candidate in ``A`` gets every one. Only grows, so each ``R(A)`` restricts the earlier."""

    def __init__(self, request, table):
        self.cuts = []  # (criterion index, column, coefficients)
        self.keys = set()  # (criterion index, column, counts) of the groups cut
        self.crits = [(i, c) for i, c in enumerate(request.criteria) if isinstance(c, LDiversity)
                      and c.kind == "entropy"]
        self.table = table

    def __bool__(self) -> bool:
        return bool(self.crits)

    def separate(self, am: AssignmentModel, g: np.ndarray, fails: np.ndarray, was_active: np.ndarray) -> str | None:
        """Add a cut for every failing group's counts (``fails``: candidates, ``was_active``: which had the cuts
        when solved); why some group cannot be cut off (the iteration then stops unproven), or ``None``."""
        known = set(self.keys)  # the groups cut before this model was solved (their cuts were in it)
        counts = am.group_counts(g)
        size = np.bincount(am.pair_cand, weights=am.split(g)[0], minlength=am.cands.n_candidates)
        used = np.flatnonzero(size > 0)
        at = {int(j): i for i, j in enumerate(used)}
        for j in fails:
            row = at[int(j)]
            for ci, crit in self.crits:
                for col in crit.columns(self.table):
                    c = counts.counts[col][row]
                    if entropy_at_least(c, crit.l):
                        continue
                    key = (ci, col, tuple(int(x) for x in c))
                    if key in self.keys:
                        if was_active[j] and key in known:  # its cut was in that model, yet HiGHS gave it again
                            return f"a Gibbs cut did not separate the group {list(key[2])} (solver tolerance)"
                        continue
                    coef = entropy_cut(crit.l, c)
                    if coef is None:
                        return f"no Gibbs cut separates the group {list(key[2])} by a safe margin"
                    self.keys.add(key)
                    self.cuts.append((ci, col, coef))
        return None

    def add_to(self, am: AssignmentModel, cands: np.ndarray) -> int:
        """Every cut, as rows of ``am`` (its ``lm``) for its candidates ``cands``; returns the rows added."""
        added = 0
        for col in sorted({col for _, col, _ in self.cuts}):
            coefs = [a for _, c, a in self.cuts if c == col]
            added += add_gibbs_rows(am, col, coefs, cands, f"ediv{col}_cut").shape[0]
        return added


def _modeled(criteria) -> list:
    """The criteria whose rows describe them exactly (all but :func:`cut_criteria`'s)."""
    cut = cut_criteria(criteria)
    return [c for c in criteria if not any(c is x for x in cut)]


def unavailable(request, solver: SolverOptions) -> str | None:
    """Why the criteria's rows cannot be generated for ``request``, or ``None``."""
    if request.k_alone:
        return "k-anonymity alone has no criterion rows to generate (its reduction applies instead)"
    if request.model.objective == "types":
        return "the types objective is maximized"
    if not all(c.per_group for c in request.criteria):
        return "average re-identification risk counts the classes over the whole table"
    if not solver.in_bulk:
        return "row generation solves its models with HiGHS in bulk (solver 'highs')"
    return None


@dataclass
class Iteration:
    """One model ``R(A)``: ``active`` candidates with their criterion rows, of ``candidates``."""

    active: int
    rows: int
    status: str
    objective: float | None
    bound: float | None
    #: used candidates whose groups failed a criterion (they join ``A``), or ``None`` (no solution read)
    failing: int | None
    seconds: float
    #: the repair's verified objective (:func:`repair`) and seconds, when it ran
    repaired: float | None = None
    repair_seconds: float | None = None
    #: solved by the k-anonymity reduction (``R(∅)`` only, ``tuning.first_by_reduction``) instead of one MILP
    by_reduction: bool = False
    #: the best verified objective after the search beside the next ``R(A)`` (``tuning.search_beside_row_generation``), from this
    #: solution's repair on, and the search's seconds, when it ran
    searched: float | None = None
    search_seconds: float | None = None


@dataclass
class RowGenerationLog:
    """What the row generation did: every iteration, and whether the last one met every criterion."""

    candidates: int
    criterion_rows: int
    #: proven optimal: a solution of some ``R(A)`` met every criterion, or a repaired table reached the
    #: relaxations' bound
    converged: bool = False
    #: stopped because an iteration's share of failing groups exceeded ``max_failing`` (the whole model
    #: is then solved instead, ``criteria_rows="auto"``)
    handed_over: bool = False
    bound: float | None = None
    iterations: list = field(default_factory=list)

    def as_dict(self) -> dict:
        out = {k: v for k, v in dataclasses.asdict(self).items() if k != "iterations"}
        out["iterations"] = [dataclasses.asdict(it) for it in self.iterations]
        return out


#: at most this many seconds for each repair model (and a quarter of the time left, and the seconds of the
#: relaxation it follows, at least 1)
REPAIR_SECONDS = 30.0

#: an ``R(A)`` with the search beside it (``tuning.search_beside_row_generation``) runs past the stage's share only
#: when it starts with the best table within this share of the relaxations'
#: bound (farther, the search after the stage keeps its share). Unbounded: every such ``R(A)`` (a proof before a
#: better table). At 5 QIs on Adult, 600 s: with every one extended, recursive (3, 2) was proven in 532 s and
#: 0.2-closeness (ordered) ended at 8,190 and 8,200 / 8,135 (8,175 twice without the search beside); with
#: 0.25 % the recursive table stayed 0.39 % from the bound (the search beside ran weaker that time), no
#: relaxation was extended and the proof was lost (8,386 / 8,373), and 0.2-closeness still ended at 8,199
EXTEND_GAP = math.inf

#: ``R(∅)`` by the reduction (``tuning.first_by_reduction``) in at most this share of the time left
FIRST_SHARE = 0.3


def repair(am: AssignmentModel, request, solver: SolverOptions, grid: ObjectiveGrid, used: np.ndarray,
           best: Release | None, seconds: float, pool: CutPool | None = None) -> Release | None:
    """A verified release from the whole model restricted to the candidates ``used`` (an ``R(A)``
    solution's), the whole-table candidate and those of ``best``; ``None`` if none was found in time.

    The restriction holds every criterion's rows of its candidates, so any of
    its solutions is a release of the whole problem; it is started from
    ``best`` (or the whole table as one group, always feasible).
    """
    inst, cands = am.instance, am.cands
    keep = np.zeros(cands.n_candidates, dtype=bool)
    keep[used] = True
    keep[cands.capacity == am.table.n] = True  # the whole table as one group: the restriction is feasible
    if best is not None:
        _, of_row = release_pairs(inst, am.pair_unit, am.pair_cand, best)
        keep[of_row[of_row >= 0]] = True
    sub = build(inst.with_candidates(cands.subset(keep, "repair")), request)
    if pool:  # entropy ℓ-diversity: the cuts so far; its solution is then tested below, not taken on trust
        pool.add_to(sub, np.arange(sub.cands.n_candidates))
    hint = release_start(sub, best) if best is not None else whole_table_start(sub)
    with progress.muted():  # a restriction: its bound is not the problem's (its verified table is reported)
        out = solve_model(sub.lm, dataclasses.replace(solver, time_limit=seconds), grid, hint=hint)
    if out.x is None:
        return None
    g, _ = read_assignment(sub, out.x, _modeled(request.criteria), solver)
    if pool and first_violation(request.criteria, sub.group_counts(g)) is not None:
        return None  # the cuts so far admit groups that fail entropy ℓ-diversity: no table from this restriction
    released, groups, cost = sub.release(g)
    return Release.verified(am.table, request, released, cost=cost, groups=groups, source="row generation repair")


class _Iterations:
    """What the row generation's steps share (:func:`row_generation`): the best verified release
    (``incumbent``), the start of the next ``R(A)`` (``hint``, from it) and the best bound of any ``R(A)``
    (``best``); the repair of a solution whose groups fail, and the search beside a relaxation."""

    def __init__(self, am: AssignmentModel, request, solver: SolverOptions, grid: ObjectiveGrid,
                 deadline: float | None, last: float | None, hint, incumbent: Release | None, search, sub_solve):
        self.am, self.request, self.solver, self.grid = am, request, solver, grid
        self.deadline, self.last, self.search, self.sub_solve = deadline, last, search, sub_solve
        self.hint, self.incumbent, self.best = hint, incumbent, -math.inf
        self.pool = CutPool(request, am.table)  # entropy ℓ-diversity's cuts (empty and false without it)

    def improved(self, rel: Release) -> None:
        self.incumbent = rel
        self.hint = release_start(self.am, rel)  # the next R(A) starts from it (its cost bounds R(A)'s optimum)
        progress.report(incumbent=rel.objective)

    def at_bound(self) -> bool:  # a release at the relaxations' bound: optimal
        inc, best = self.incumbent, self.best
        return inc is not None and math.isfinite(best) and not self.grid.gap(inc.objective, best)

    def near(self) -> bool:  # the best table within EXTEND_GAP of the relaxations' bound
        inc, best = self.incumbent, self.best
        return inc is not None and math.isfinite(best) and (
            EXTEND_GAP == math.inf or inc.objective - best <= EXTEND_GAP * abs(inc.objective) + 1e-9)

    def repaired(self, owed, hand_over=False, seconds=None, end=None) -> bool:
        """Repair the solution ``owed`` (``pending``), in ``seconds`` if given, before ``end`` (``deadline``
        if not given); ``True`` when the incumbent then reaches ``best``."""
        it, g, failing, used, any_active = owed
        end = self.deadline if end is None else end
        left = None if end is None else end - time.perf_counter()
        if (left is not None and left <= 2.0) or interrupt.stop_requested():
            return False
        t1 = time.perf_counter()
        budget = seconds
        if budget is None:  # never longer than the relaxation it follows: where R(A) is quick, the next may converge
            budget = min(REPAIR_SECONDS, max(it.seconds, 1.0), math.inf if left is None else 0.25 * left)
        rel = None
        if self.solver.tuning.resolve_failing:  # also before a hand-over: the whole model then starts from its table
            released, groups, _ = self.am.release(g)
            resolved = lns.resolve_failing(self.am.table, self.request, released, groups, failing, budget,
                                           self.solver, sub_solve=self.sub_solve)
            rel = None if resolved is None else resolved[0]
        if rel is None and any_active and not hand_over:  # R(∅) is k-anonymity alone: too far to repair whole
            rel = repair(self.am, self.request, self.solver, self.grid, used, self.incumbent, pool=self.pool,
                         seconds=max(1.0, budget - (time.perf_counter() - t1)))
        it.repaired = None if rel is None else rel.objective
        it.repair_seconds = time.perf_counter() - t1
        if rel is not None and (self.incumbent is None or rel.objective < self.incumbent.objective - 1e-9):
            self.improved(rel)
        return self.at_bound()

    def searched(self, it: Iteration, relaxation: _Relaxation) -> bool:
        """The search from the best table until ``relaxation`` (beside it) ends, a table reaches the relaxations'
        bound, or ``last``; ``True`` in the second case. Its tables are verified releases (:func:`lns.improve`)."""
        left = self.last - time.perf_counter()
        if self.incumbent is None or left <= 2.0 or interrupt.stop_requested() or relaxation.finished.is_set():
            return False
        t1 = time.perf_counter()

        def better(rel):  # as found: the next R(A) starts from it, and one at the bound stops the search
            if rel.objective < self.incumbent.objective - 1e-9:
                self.improved(rel)

        rel, _ = self.search(self.incumbent, left, lambda: relaxation.finished.is_set() or self.at_bound(), better)
        better(rel)  # its final table (already kept where the search reported it)
        it.searched, it.search_seconds = self.incumbent.objective, time.perf_counter() - t1
        return self.at_bound()


def row_generation(am: AssignmentModel, request, solver: SolverOptions, grid: ObjectiveGrid, *, hint=None,
                   deadline: float | None = None, max_failing: float | None = None,
                   incumbent: Release | None = None, k_bounds=None, search=None, search_end: float | None = None,
                   sub_solve: lns.SubSolve, every: bool = False):
    """Run the row generation on the built whole model ``am``.

    Returns ``(release, bound, status, solver_status, log)``: the verified
    release of the last iteration when its groups meet every criterion (else
    ``None``), the best bound of any ``R(A)`` (on ``grid``; ``None`` if none
    was proven), the status (``optimal`` when the release's cost is that
    bound, ``infeasible`` when some ``R(A)`` is, ``time_limit`` otherwise).
    ``hint``: a start feasible for the whole model (hence for every ``R(A)``).
    ``max_failing``: stop (``log.handed_over``, status ``time_limit``) once
    more than this share of a solution's groups fail a criterion: the
    relaxations would soon hold most rows. ``incumbent``: a verified release
    to improve on (the repairs start from the best one); the best verified
    release found is returned when the iteration does not converge.
    ``search(release, seconds, stop, on_better)``: a search that improves a
    verified release (:func:`milp_anon.search.lns.improve`), run beside every ``R(A)``
    solved in a child process, after its repair (``tuning.search_beside_row_generation``); such an
    ``R(A)`` may run until ``search_end`` (a ``perf_counter`` time after
    ``deadline``: the whole time limit's end, where ``deadline`` is the stage's).
    ``every``: every candidate in ``A`` from the start (``criteria_rows="all"`` with entropy ℓ-diversity, whose
    cuts are generated however many rows the model holds).

    Entropy ℓ-diversity (:func:`needs_cuts`): a failing group's counts also give a Gibbs cut (:class:`CutPool`),
    valid for every candidate, which every candidate of ``A`` gets from then on; a group that fails again with its
    cut in the model (solver tolerance), or that no cut separates safely, stops the iteration unproven.

    The loop's steps that share its incumbent, start and bound (a repair, the search beside a relaxation) are
    :class:`_Iterations`'s; its setup and a solution's test are :func:`_lazy_rows` and :func:`_failing`.
    """
    lm, C = am.lm, am.cands.n_candidates
    lazy, lazy_owner, always = _lazy_rows(am)
    k_criteria = [c for c in request.criteria if isinstance(c, KAnonymity)]
    active = np.full(C, bool(every), dtype=bool)
    log = RowGenerationLog(candidates=int(C), criterion_rows=int(lazy.shape[0]))
    solver_status = ""
    tuning = solver.tuning
    merge = tuning.partial_split and partial_split.applies(request) and am.units.n_units > am.instance.types.t_in
    pending = None  # the last R(A) solution whose groups fail, to repair: (iteration, g, failing, used, A ≠ ∅)
    # an R(A) with the search beside it may run to the whole limit's end (``last``, while ``near()``); all else ends
    # at ``deadline``
    extended = tuning.search_beside_row_generation and tuning.repair_beside and search is not None and search_end is not None \
        and deadline is not None
    last = search_end if extended else deadline
    st = _Iterations(am, request, solver, grid, deadline, last, hint, incumbent, search, sub_solve)

    while True:
        left = None if last is None else last - time.perf_counter()
        if (left is not None and left <= 0) or interrupt.stop_requested():  # Ctrl-C: keep what is found
            return st.incumbent, _finite(st.best), Status.TIME_LIMIT, solver_status, log
        keep = always.copy()
        keep[lazy[active[lazy_owner]]] = True
        sub = lm.with_rows(keep)
        progress.report(phase=f"row generation {len(log.iterations) + 1}: criteria on {int(active.sum())} of "
                              f"{C} candidates")
        split = partial_split.PartialSplit.build(am, request, active) if merge and not active.all() else None
        if st.pool:  # the Gibbs cuts so far, for every candidate in A
            if split is None:
                st.pool.add_to(dataclasses.replace(am, lm=sub), np.flatnonzero(active))
            else:
                st.pool.add_to(split.part, np.arange(split.part.cands.n_candidates))
        model = sub if split is None else split.lm
        beside = pending is not None and tuning.repair_beside and _isolated(solver, model, last)
        with_search = beside and extended
        # past the stage's share while the table is near the bound (EXTEND_GAP): a proof is then what is missing
        end = last if with_search and st.near() else deadline
        if end is not None and time.perf_counter() >= end:
            return st.incumbent, _finite(st.best), Status.TIME_LIMIT, solver_status, log  # the stage's share is spent
        if pending is not None and not beside:  # the repair first: R(A) then starts from its table
            if st.repaired(pending):
                log.converged = True
                return st.incumbent, _finite(st.best), Status.OPTIMAL, solver_status, log
            pending = None
        first = None
        if not log.iterations and tuning.first_by_reduction and _isolated(solver, model, deadline):
            first = _first_by_reduction(am, request, solver, grid, deadline, k_bounds, sub_solve=sub_solve)
        if first is not None:
            out, g = first
            seconds = out.seconds
        else:
            relaxation = _Relaxation(model, solver, grid, st.hint if split is None else split.hint(st.hint),
                                     st.best, end)
            if beside:  # R(A) in its own process on the other core, the repair (then the search) here meanwhile
                with relaxation.beside():
                    if st.repaired(pending, end=end) \
                            or (with_search and st.searched(pending[0], relaxation)):
                        relaxation.cancel()
                        log.converged = True
                        return st.incumbent, _finite(st.best), Status.OPTIMAL, solver_status, log
            else:
                relaxation.run()
            out, seconds = relaxation.result()
        pending = None
        if split is not None and out.x is not None:
            out = dataclasses.replace(out, x=split.to_whole(out.x))
        solver_status = out.solver_status
        if out.bound is not None:
            st.best = max(st.best, out.bound)
            log.bound = _finite(st.best)
            progress.report(bound=st.best)
        it = Iteration(active=int(active.sum()), rows=int(model.n_rows), status=str(out.status),
                       objective=out.objective, bound=out.bound, failing=None, seconds=seconds,
                       by_reduction=first is not None)
        log.iterations.append(it)
        if out.status == Status.INFEASIBLE:  # a relaxation without a solution: nor has the whole model
            return None, None, Status.INFEASIBLE, solver_status, log
        if first is None:
            if out.x is None:
                return st.incumbent, _finite(st.best), Status.TIME_LIMIT, solver_status, log
            g, _ = read_assignment(am, out.x, k_criteria, solver, lm=sub)  # R(A) holds k-anonymity everywhere
        used, failing, fails = _failing(am, request, g)
        it.failing = int(fails.shape[0])
        if fails.size == 0:
            released, groups, cost = am.release(g)
            release = Release.verified(am.table, request, released, cost=cost, groups=groups)
            log.converged = out.status == Status.OPTIMAL
            if not log.converged and st.incumbent is not None and st.incumbent.objective < release.objective:
                release = st.incumbent  # stopped early: a repair's table may be better
            status = Status.OPTIMAL if log.converged else Status.TIME_LIMIT
            return release, _finite(st.best), status, solver_status, log
        if out.status != Status.OPTIMAL and first is None:
            # stopped with a solution that fails: no time for another model
            return st.incumbent, _finite(st.best), Status.TIME_LIMIT, solver_status, log
        pending = (it, g, failing, used, bool(active.any()))
        if max_failing is not None and fails.shape[0] > max_failing * used.shape[0]:
            # the relaxations would soon hold most rows: repair (the whole model starts from its table), hand over
            if st.repaired(pending, hand_over=True):
                log.converged = True
                return st.incumbent, _finite(st.best), Status.OPTIMAL, solver_status, log
            log.handed_over = True
            return st.incumbent, _finite(st.best), Status.TIME_LIMIT, solver_status, log
        if out.status != Status.OPTIMAL:
            # R(∅) by the reduction, not proven: every later R(A) is a larger MILP than the one it stood in for;
            # its table, repaired in the time left, is what this stage gives (the search improves it next)
            if st.repaired(pending, seconds=None if deadline is None else deadline - time.perf_counter()):
                log.converged = True
                return st.incumbent, _finite(st.best), Status.OPTIMAL, solver_status, log
            return st.incumbent, _finite(st.best), Status.TIME_LIMIT, solver_status, log
        if st.pool:
            why = st.pool.separate(am, g, fails, active)
            if why is not None:  # no progress can be proven: the best table so far, unproven
                return st.incumbent, _finite(st.best), Status.TIME_LIMIT, f"{solver_status}; {why}", log
        elif np.all(active[fails]):  # pragma: no cover - R(A) holds their rows, so its groups meet them
            raise VerificationError("row generation: a group fails criteria whose rows the model holds")
        active[fails] = True


def _lazy_rows(am: AssignmentModel):
    """``(lazy, lazy_owner, always)``: the criterion rows of one candidate each, those candidates, and the rows every
    ``R(A)`` keeps; :func:`row_generation`'s setup, apart because it reads ``am`` alone."""
    rows = am.criterion_rows
    owner = am.row_candidates(rows)
    lazy = rows[owner >= 0]
    lazy_owner = owner[owner >= 0]
    always = np.ones(am.lm.n_rows, dtype=bool)
    always[lazy] = False  # rows over several candidates (none today) stay in every R(A)
    return lazy, lazy_owner, always


def _failing(am: AssignmentModel, request, g: np.ndarray):
    """``(used, failing, fails)`` of an ``R(A)`` solution ``g``: its candidates, which of their groups fail a
    criterion, and the failing candidates; apart from :func:`row_generation`'s loop, which only reads the three."""
    gp, _ = am.split(g)
    size = np.bincount(am.pair_cand, weights=gp, minlength=am.cands.n_candidates)
    used = np.flatnonzero(size > 0)  # group_counts lists the used candidates in this order
    failing = failing_groups(request.criteria, am.group_counts(g))  # by group, in the order of ``used``
    return used, failing, used[failing]


def _first_by_reduction(am: AssignmentModel, request, solver: SolverOptions, grid: ObjectiveGrid,
                        deadline: float, k_bounds=None, *, sub_solve: lns.SubSolve
                        ) -> tuple[SolveOutcome, np.ndarray] | None:
    """``R(∅)`` by the Lagrangian reduction (:mod:`milp_anon.reduction`): ``(outcome, g)``, with ``g`` its
    table's rows per pair of ``am``, or ``None`` where the reduction does not apply or found no table of
    ``am``'s candidates.

    ``R(∅)`` holds no criterion row: it is k-anonymity over ``am``'s candidates, with the request's
    smallest group size (every group of a release meets it, so this is still a relaxation, and its
    tables are solutions of ``R(∅)``). One MILP of it does not finish at 6 QIs on Adult in 450 s; the
    reduction's rounds end within 0.1 % of it in 100 s. The outcome is ``optimal`` when the reduction
    proved its table optimal; its bound is the reduction's (a bound on ``R(∅)``, hence on the problem).

    ``k_bounds``: the k-anonymity LP's pair bounds over ``am``'s candidates from the bound stage
    (:attr:`~milp_anon.reduction.PairBounds.k_anonymity`); converged, they are the reduction's first stage
    already (the same column generation over the same row types and candidates), so it starts from them
    instead of solving that LP again (6 QIs on Adult: 15–25 s).
    """
    inst = am.instance
    if am.withheld is not None or k_relaxation_unavailable(request, solver, inst.candidates, inst.table.n):
        return None
    t0 = time.perf_counter()
    k_request = Problem(KAnonymity(request.min_group_size()), recoding=request.recoding, reduction="lagrangian",
                        max_memory_gb=request.model.max_memory_gb)
    k_inst = dataclasses.replace(inst, units=Units.of(inst.table, inst.types, split=False))
    options = dataclasses.replace(solver, time_limit=max(FIRST_SHARE * (deadline - t0), 1.0))
    size = ModelSize(n_rows=inst.table.n, t_in=inst.types.t_in)
    with progress.relaxed():  # its tables may fail the criteria: only its bound is the problem's
        # no heuristic table: those may use candidates the criteria pruned (and cost less than R(∅)'s optimum)
        done = LagrangianReduction(k_inst, k_request, options, Timings(), size, heuristics=False,
                                   bounds=_known_bounds(k_bounds, inst), sub_solve=sub_solve).run()
    rel = done.release
    if rel is None:
        return None
    g, of_row = release_pairs(inst, am.pair_unit, am.pair_cand, rel)
    if np.any(of_row < 0):  # pragma: no cover - without heuristics its tables are of these candidates
        return None
    bound = done.bound if done.bound is not None and math.isfinite(done.bound) else None
    optimal = bound is not None and grid.equal(rel.objective, bound)
    out = SolveOutcome(status=Status.OPTIMAL if optimal else Status.TIME_LIMIT, x=None, objective=rel.objective,
                       bound=bound, solver_status=f"R(∅) by the k-anonymity reduction ({done.solver_status})",
                       seconds=time.perf_counter() - t0)
    return out, g.astype(np.int64)


def _known_bounds(k_bounds, inst):
    """The reduction's first stage: ``k_bounds`` when they are the converged LP over ``inst``'s pairs,
    else :func:`~milp_anon.reduction.k_anonymity_bounds` (the column generation)."""
    if k_bounds is None or not k_bounds.log.lp_converged or k_bounds.thresholds.shape != (inst.candidates.n_pairs,):
        return k_anonymity_bounds
    # a fresh log: the reduction appends its rounds to the one it is given
    known = dataclasses.replace(k_bounds, log=dataclasses.replace(k_bounds.log, rounds=[]), seconds=0.0)
    return lambda *_: known


def _isolated(solver: SolverOptions, model, deadline: float | None) -> bool:
    """``model`` would be solved in a child process (:func:`~milp_anon.solvers.should_isolate`): only then is a
    repair run beside it (two HiGHS in one process share its task scheduler)."""
    return deadline is not None and should_isolate(
        dataclasses.replace(solver, time_limit=max(deadline - time.perf_counter(), 1e-3)), model.n_cols)


class _Relaxation:
    """One ``R(A)`` solve (:func:`_solve_relaxation`), run here (:meth:`run`) or in a thread (:meth:`beside`),
    whose solves then run in a child process that :meth:`cancel` stops."""

    def __init__(self, model, solver, grid, hint, known, deadline):
        self.args = (model, solver, grid, hint, known, deadline)
        self.stop = threading.Event()
        #: set once the solve has ended (its result is in)
        self.finished = threading.Event()
        self.box: dict = {}

    def run(self) -> None:
        t0 = time.perf_counter()
        try:
            with progress.relaxed():  # R(A)'s tables may fail the criteria: only its bound is the problem's
                self.box["out"] = _solve_relaxation(*self.args, cancel=self.stop)
        except BaseException as exc:  # re-raised by result(), in the caller's thread
            self.box["error"] = exc
        self.box["seconds"] = time.perf_counter() - t0
        self.finished.set()

    @contextlib.contextmanager
    def beside(self):
        """Run in a thread for the block's duration; joined when the block ends (cancelled if it raises)."""
        worker = threading.Thread(target=self.run, name="row-generation-relaxation", daemon=True)
        worker.start()
        try:
            yield
        except BaseException:
            self.stop.set()
            raise
        finally:
            worker.join()

    def cancel(self) -> None:
        self.stop.set()

    def result(self):
        """``(outcome, seconds)`` of a finished solve."""
        if "error" in self.box:
            raise self.box["error"]
        return self.box["out"], self.box["seconds"]


def _solve_relaxation(model, solver: SolverOptions, grid: ObjectiveGrid, hint, known: float,
                      deadline: float | None, cancel: threading.Event | None = None):
    """Solve ``R(A)`` (``model``), knowing that its optimum is at least ``known`` (the best bound of the
    earlier relaxations: ``A`` only grows, so ``R(A)`` restricts each of them); an outcome as
    :func:`~milp_anon.solvers.solve_model`'s, ``optimal`` once a solution at ``known`` is found.

    First only solutions at ``known`` are sought: HiGHS's cutoff ``known + step/2`` (no start: every start
    known lies above it) lets it fix columns by reduced cost against ``known`` instead of the start's cost,
    and it stops at the first such solution. When the relaxations' optimum stalls (5 QIs, recursive
    (3, 2): 8,373 for thirteen relaxations) that is all the solve needs. When there is none, the
    cutoff solve has proven ``R(A) >= known + step`` (a grid point: the costs are on the grid), and
    ``R(A)`` is solved from ``hint`` as usual, stopping at a solution that reaches that bound.
    """
    def left():
        return None if deadline is None else max(deadline - time.perf_counter(), 1e-3)

    def at(out, value):  # a solution at a proven bound ``value``: optimal, with that bound
        if out.objective is not None and grid.equal(out.objective, value):
            return dataclasses.replace(out, status=Status.OPTIMAL, bound=value)
        return None

    options = dict(solver.highs_options)
    # on a grid only: "none at ``known``" then means "none below the next grid point"
    if not (solver.tuning.at_known_bound and math.isfinite(known) and grid.denominator) or solver.gap > 0 \
            or "objective_bound" in options:
        return solve_model(model, dataclasses.replace(solver, time_limit=left()), grid, hint=hint, cancel=cancel)
    cut = solve_model(model, dataclasses.replace(solver, time_limit=left(), highs_options={
        **options, "objective_bound": known + 0.5 * grid.step}), grid, stop_bound=StopAtBound(known=known),
        cancel=cancel)
    if (done := at(cut, known)) is not None:
        return done
    if cut.status not in (Status.OPTIMAL, Status.GAP_LIMIT, Status.INFEASIBLE):  # stopped by the time limit
        return dataclasses.replace(cut, status=Status.TIME_LIMIT if cut.x is not None else Status.NO_SOLUTION,
                                   bound=None if cut.bound is None else min(cut.bound, known))
    # HiGHS ended the search under the cutoff without a solution at ``known`` (a solution it reports lies
    # above the cutoff, and so may its bound, which is not read): nothing below ``known + step``
    known += grid.step
    if cancel is not None and cancel.is_set():  # stopped before the second solve: ``known`` is what is proven
        return dataclasses.replace(cut, status=Status.TIME_LIMIT if cut.x is not None else Status.NO_SOLUTION,
                                   bound=known)
    out = solve_model(model, dataclasses.replace(solver, time_limit=left()), grid, hint=hint,
                      stop_bound=StopAtBound(known=known), cancel=cancel)
    if out.status == Status.INFEASIBLE:
        return out
    if (done := at(out, known)) is not None:
        return done
    return dataclasses.replace(out, bound=known if out.bound is None else max(out.bound, known))


def _finite(x: float) -> float | None:
    return None if not math.isfinite(x) else float(x)
