"""Large-neighbourhood search: re-solve the rows of a few released classes exactly, keep what is cheaper.

Problem. Given a verified release of a table for a request, find a cheaper
verified release by changing only the rows of a *neighbourhood*: a union of
whole released equivalence classes. The rows of the neighbourhood form a
sub-table, which is solved for the same request by the same pipeline (whole
model or Lagrangian reduction) under a short time limit; when its verified
release costs less than those rows cost now, it replaces them.

Why the splice is a release (issue 13, item 2). Every criterion is closed
under union (k-anonymity, p-sensitivity, every ℓ-diversity; t-closeness
against a *fixed* distribution, as EMD to it is convex): the classes outside
the neighbourhood are unchanged, each new class meets the criteria in the
sub-table, and where a new class has the released vector of an outside class
the merged class meets them too. t-closeness compares a class with the whole
table's distribution, which a sub-table does not have: its sub-problems are
solved with that distribution given as the criterion's ``reference``
(:func:`sub_criteria`), so a class that meets it there meets it in the whole
table (δ-disclosure and β-likeness likewise: per-value bounds on a class's share
relative to the whole table's, an interval, convex). The cell cost is a sum over cells, so the total changes by exactly the
difference on the neighbourhood. The spliced table still goes through the
verifier before it is handed on; nothing here is trusted.

Cells. An interval cell costs its width over the column's range, a value
set its size less one over the column's values less one, and a sub-table has
a range and values of its own: priced by them, its cheaper release could be a
dearer table (the verifier caught it: HI, 5 QIs, k = 5, intervals, 600 s with
``lns=0.25`` raised at 267.865 against 252.25,
``benchmarks/results/lns_intervals_splice_failure.md``). So a sub-problem
weights each such column by the sub-table's spread over the whole table's
(:func:`_sub_problem`; the column weights of
:class:`~milp_anon.tables.recoding.Generalization`, model and verifier alike):
every range and set then costs what it costs in the whole table. ``*`` costs
the weight too, as the sub-table's covering cell does (its least to greatest
value, all its values), which in the whole table costs exactly that while
``*`` costs 1; so each ``*`` of such a column is written as the covering cell
before it is spliced (:func:`_in_whole_cells`: the same rows, the same
classes). A current release's cell is priced in the sub-table at most at its
whole-table cost (clipped to the sub-table's range), so a sub-problem's gain
is at most the table's.

Where it does not apply (:func:`unavailable`): full-domain generalization
(one level per column for every row), record suppression (a table-wide count
of withheld records), the budget, ``t_out`` and group-count objectives, and
average re-identification risk (they count over the whole table).

Neighbourhoods. The classes are sorted by their released vectors, read in a
column order that rotates from pass to pass, and cut into runs of
consecutive classes of at most ``max_rows`` rows (a larger class alone), so
each neighbourhood holds classes that agree on the leading columns — the
ones whose rows can be regrouped more cheaply. ``max_rows`` doubles after a
pass whose sub-problems were all proven optimal quickly and halves after one
whose sub-problems mostly reached their limit.

Refinement. Under cell suppression each pass first refines the classes
(:mod:`milp_anon.heuristics.refine`: a class is split by a suppressed
column where the parts meet the criteria and the rest still does). A class
larger than ``max_rows`` is a neighbourhood alone, and a model over
thousands of rows seldom improves within ``SUB_LIMIT``; the split reaches
them at once (Adult, occupation, frequency ℓ = 3, k = 5: the pattern greedy
with criteria's 14,786 → 14,027 at 5 QIs and 19,470 → 18,119 at 6 QIs, in
under a second, where 600 s of sub-problems had reached 14,313 and
18,987). The greedy tables are refined before the solve as well
(:func:`milp_anon.search.starts.heuristic_tables`).

Memory. One solve may run the search several times on the same table and
request: beside each round of the reduction, each relaxation of the row
generation, the LP, then after the stage. Each call used to start again at
the first column order with ``START_ROWS``, so it re-solved the
neighbourhoods the last call had solved before it reached new ones. A
:class:`SearchMemory` carries the pass count and ``max_rows`` from call to
call, and what was learnt of each neighbourhood: a sub-problem proven
optimal gives the least cost of its rows in any release (the rows' current
classes are a solution of it), so while the rows cost no more than that it
is skipped — exact; one that ended at its limit without a gain is skipped
when asked again with the same rows released the same way (its inputs are
identical; a heuristic skip, as the limit is).

Two cores. Where the search runs alone (after the stage) it may use both:
:func:`improve_split` cuts the classes into two halves, searches one in a
child process and the other here, splices and verifies both, and cuts again
in the next column order every ``SPLIT_EPOCH`` seconds.

Complexity: one pass solves about ``n / max_rows`` sub-problems, each a
full pipeline run on at most ``max_rows`` rows (or one class) with at most
``SUB_LIMIT`` seconds; sorting and splicing are ``O(n log n)`` numpy.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import pandas as pd

from milp_anon.heuristics.refine import refine_release
from milp_anon.instance.request import Problem
from milp_anon.privacy.criteria import BetaLikeness, DeltaDisclosure, TCloseness
from milp_anon.release.result import Result
from milp_anon.release.verified import Release
from milp_anon.runtime import interrupt, progress
from milp_anon.runtime.errors import SolverError, VerificationError
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.memory import cap_bytes
from milp_anon.runtime.status import Status
from milp_anon.solvers import SolverOptions
from milp_anon.solvers.isolated import should_isolate, solve_isolated
from milp_anon.solvers.outcome import SolveOutcome
from milp_anon.tables.cells import CellColumn
from milp_anon.tables.recoding import Suppression
from milp_anon.tables.table import SUPPRESSED, Table

__all__ = ["LNS_SOURCE", "RESOLVE_SOURCE", "LnsLog", "SearchMemory", "SubSolve", "beside", "beside_possible", "halves",
           "improve", "improve_split", "neighbourhoods", "resolve_failing", "search_job", "split_possible",
           "sub_criteria", "unavailable"]

#: how a sub-problem is solved: ``sub_solve(table, request, solver, start=release) -> Result``, the pipeline's
#: own :func:`milp_anon.pipeline.solve.solve`, given by the caller (the search sits below the pipeline that
#: solves its sub-problems, so it takes the solve as an argument instead of importing it). A module-level
#: function, so that it reaches a child process by name (:func:`search_job`).
SubSolve = Callable[..., Result]

T = TypeVar("T")
S = TypeVar("S")

#: the ``source`` of a release the search improved
LNS_SOURCE = "large-neighbourhood search"

#: the ``source`` of a release :func:`resolve_failing` made
RESOLVE_SOURCE = "failing classes re-solved"

#: :func:`resolve_failing` gives up once a piece would hold more rows than this
RESOLVE_MAX_ROWS = 5_000

#: classes on either side of a failing class (sorted by released vector) that :func:`resolve_failing` re-solves
#: with it: with none, the failing rows alone were dearer (Adult, 5 QIs, recursive (3, 2): the first relaxation's
#: 60 failing classes re-solved as one sub-table of 800 rows cost 9,764 after 30 s, with one neighbour each
#: (2,847 rows) 8,713)
RESOLVE_REACH = 1

#: rows of a neighbourhood at the start (it adapts: see the module docstring)
START_ROWS = 300
MIN_ROWS, MAX_ROWS = 100, 20_000

#: seconds for one sub-problem at most
SUB_LIMIT = 5.0

#: a sub-problem proven within this share of its limit counts as "quick"
QUICK = 0.25

#: stop after this many passes in a row without an improvement
IDLE_PASSES = 3


@dataclass
class LnsLog:
    """What the search did: passes, sub-problems, improvements, the objective before and after."""

    start: float
    end: float
    passes: int = 0
    solved: int = 0
    improved: int = 0
    proven: int = 0
    #: passes whose refinement of the classes (:mod:`milp_anon.heuristics.refine`) lowered the cost
    refined: int = 0
    max_rows: int = START_ROWS
    seconds: float = 0.0
    #: neighbourhoods skipped as already solved (:class:`SearchMemory`)
    known: int = 0
    #: processes searching at once (:func:`improve_split`: 2)
    workers: int = 1
    #: splits into halves (:func:`improve_split`)
    epochs: int = 0

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass
class SearchMemory:
    """What the search learnt on one table for one request, kept from call to call (module docstring, "Memory").

    Bound to the first ``(table, request)`` it is used with; :func:`improve` ignores it for any other."""

    #: passes run so far (the next pass's column order)
    passes: int = 0
    #: read when the memory starts (not when this class is defined), so the start size can be set
    max_rows: int = dataclasses.field(default_factory=lambda: START_ROWS)
    #: neighbourhood (its rows) → its sub-problem's proven optimum: the least its rows can cost
    least: dict = dataclasses.field(default_factory=dict)
    #: neighbourhoods (rows and their released values) whose sub-problem ended at its limit without a gain
    tried: set = dataclasses.field(default_factory=set)
    owner: tuple | None = dataclasses.field(default=None, repr=False)

    def usable(self, table: Table, request) -> bool:
        """Whether this memory is ``table``'s for ``request`` (binding it to them on first use)."""
        if self.owner is None:
            self.owner = (table, request)
        return self.owner[0] is table and self.owner[1] is request


def _memory_for(memory: SearchMemory | None, table: Table, request, solver: SolverOptions) -> SearchMemory:
    """``memory`` where it is ``table``'s for ``request`` and ``solver.tuning.search_memory`` is on (carried from call
    to call; off: every call starts afresh, the package before), else a fresh one."""
    return memory if memory is not None and solver.tuning.search_memory and memory.usable(table, request) \
        else SearchMemory()


def _rows_key(rows: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(rows, dtype=np.int64).tobytes(), digest_size=16).digest()


def _start_key(key: bytes, rows: np.ndarray, released) -> bytes:
    """``rows``' key (:func:`_rows_key`) with their released values."""
    values = pd.util.hash_pandas_object(released.iloc[rows], index=False).to_numpy()
    return hashlib.blake2b(key + values.tobytes(), digest_size=16).digest()


def _cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def beside_possible(solver: SolverOptions, n_cols: int) -> bool:
    """Whether a model of ``n_cols`` columns under ``solver`` may be solved in its own process with the search
    beside it in this one (:func:`beside`): at least two cores, and a model large enough to be isolated
    anyway (:func:`~milp_anon.solvers.isolated.should_isolate`) unless isolation is forbidden."""
    return solver.isolate != "never" and _cores() >= 2 and should_isolate(solver, n_cols)


def beside(work: Callable[[threading.Event], T], search: Callable[[Callable[[], bool]], S]) -> tuple[T, S]:
    """``work(cancel)`` in a thread while ``search(done)`` runs in this one: ``(work's result, search's)``.

    ``work`` should solve in a child process (:func:`beside_possible`), so the two use two cores and the
    thread only waits on a pipe; ``done()`` turns true once ``work`` has returned, and the search, which asks
    between sub-problems, ends within one of them (``SUB_LIMIT``). When the search raises, ``cancel`` is set
    and its exception propagates once ``work`` has stopped; ``work``'s own exception is re-raised here."""
    box: dict = {}
    cancel = threading.Event()

    def run():
        try:
            box["out"] = work(cancel)
        except BaseException as exc:  # re-raised below, in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="beside-search", daemon=True)
    worker.start()
    try:
        found = search(lambda: not worker.is_alive())
    except BaseException:
        cancel.set()  # the search failed: stop the work now rather than wait for its limit
        raise
    finally:
        worker.join()
    if "error" in box:
        raise box["error"]
    return box["out"], found


def unavailable(request) -> str | None:
    """Why the search cannot improve a release for ``request``, or ``None`` (module docstring)."""
    m = request.model
    if request.recoding.scheme == "full-domain":
        return "full-domain generalization recodes a column for every row at once"
    if m.withholds:
        return "record suppression counts withheld records over the whole table"
    if m.objective != "cost" or m.budget is not None or m.t_out_min is not None or m.t_out_max is not None:
        return "a budget, t_out or the group-count objective counts over the whole table"
    if not all(c.union_closed for c in request.criteria):
        return "δ-presence is not closed under union: spliced pieces releasing the same tuple merge into one class"
    if not all(c.per_group for c in request.criteria):
        return "average re-identification risk counts the classes over the whole table"
    if not request.recoding.rational_costs:
        return "the entropy cost counts N(v) over the whole table: a sub-table's counts differ"
    return None


def _sorted_classes(released, groups: np.ndarray, order) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(class ids, their sizes, the classes' positions in ids sorted by their released vectors read in
    order)``."""
    ids, first, sizes = np.unique(groups, return_index=True, return_counts=True)
    keys = [released[c].to_numpy().astype(str)[first] for c in order]
    return ids, sizes, np.lexsort(keys[::-1]) if keys else np.arange(ids.size)


def _column_order(qi: list, passes: int) -> list:
    """The QI columns read from the ``passes``-th (rotating): each pass sorts the classes in another order."""
    return qi[passes % len(qi):] + qi[:passes % len(qi)]


def neighbourhoods(released, groups: np.ndarray, order, max_rows: int, min_rows: int) -> list[np.ndarray]:
    """Row indices of each neighbourhood: the classes sorted by their released vectors read in
    ``order``, cut into runs of consecutive classes of at most ``max_rows`` rows (a larger class alone);
    runs of fewer than ``min_rows`` rows are left out (a class of fewer than 2k rows cannot be split)."""
    groups = np.asarray(groups)
    _, sizes, sorted_classes = _sorted_classes(released, groups, order)
    runs, run, rows = [], [], 0
    for c in sorted_classes:
        if run and rows + sizes[c] > max_rows:
            runs.append(run)
            run, rows = [], 0
        run.append(c)
        rows += sizes[c]
    if run:
        runs.append(run)
    return _rows_of_classes(groups, sizes, runs, min_rows)


def _rows_of_classes(groups: np.ndarray, sizes: np.ndarray, unions: list, min_rows: int) -> list[np.ndarray]:
    """The sorted row indices of each union of classes in ``unions`` (class positions in ``np.unique(groups)``,
    ``sizes`` their row counts) holding at least ``min_rows`` rows."""
    members = np.argsort(groups, kind="stable")  # rows by class, classes in ids order
    starts = np.concatenate([[0], np.cumsum(sizes)])
    return [np.sort(np.concatenate([members[starts[c]:starts[c + 1]] for c in union]))
            for union in unions if sizes[union].sum() >= min_rows]


def sub_criteria(table: Table, criteria) -> tuple:
    """``criteria`` for a sub-table of ``table``: t-closeness without a ``reference`` is given ``table``'s
    distribution of every sensitive column it reads (module docstring); the others are unchanged."""
    out = []
    for crit in criteria:
        if isinstance(crit, (TCloseness, DeltaDisclosure, BetaLikeness)) and crit.reference is None:
            ref = {table.sensitive[c]: dict(zip(map(str, table.sensitive_values[c]),
                                                np.bincount(table.sensitive_codes[:, c],
                                                            minlength=len(table.sensitive_values[c])).tolist()))
                   for c in crit.columns(table)}
            crit = dataclasses.replace(crit, reference=ref)
        out.append(crit)
    return tuple(out)


def _sub_request(table: Table, request):
    """The request a sub-table of ``table`` is solved for (:func:`sub_criteria`); sub-problems are small: the
    whole model, started from the current rows, beats the reduction's rounds."""
    return Problem(*sub_criteria(table, request.criteria), recoding=request.recoding,
                   model=dataclasses.replace(request.model, reduction="none", criteria_rows="all"))


def _sub_table(table: Table, rows: np.ndarray) -> Table:
    return Table.from_frame(table.frame.iloc[rows], list(table.qi), list(table.sensitive), sep=table.sep)


def _sub_problem(table: Table, request, rows: np.ndarray, sub_request) -> tuple[Table, object]:
    """The sub-table of ``rows`` and the request it is solved for: ``sub_request`` (:func:`_sub_request`), its
    interval and value-set columns weighted so that each cell costs what it costs in ``table`` (module
    docstring, "Cells")."""
    sub = _sub_table(table, rows)
    cells = getattr(request.recoding, "cell_columns", None)
    if not cells:
        return sub, sub_request
    weights = dict(request.recoding.weights)
    for col, kind in cells.items():
        c = table.qi.index(col)
        whole, part = CellColumn.of(kind, table.values[c], col), CellColumn.of(kind, sub.values[c], col)
        if whole.spread > 0 and part.spread > 0:
            weights[col] = weights.get(col, 1.0) * part.spread / whole.spread
    recoding = dataclasses.replace(request.recoding, weights=tuple(weights.items()))
    return sub, Problem(*sub_request.criteria, recoding=recoding, model=sub_request.model)


def _in_whole_cells(table: Table, sub: Table, request, released: pd.DataFrame) -> np.ndarray:
    """``released`` (a release of ``sub``, in ``table``'s column order) with each ``*`` of an interval or
    value-set column written as the sub-table's covering cell: the same cost there, and in ``table`` the price
    :func:`_sub_problem` gave it (module docstring, "Cells")."""
    out = released.copy()
    for col, kind in (getattr(request.recoding, "cell_columns", None) or {}).items():
        covering = CellColumn.of(kind, sub.values[sub.qi.index(col)], col).covering_text
        out[col] = out[col].astype(str).where(out[col].astype(str) != SUPPRESSED, covering)
    return out.to_numpy()


def improve(table: Table, request, release: Release, seconds: float, solver,
            stop: Callable[[], bool] | None = None,
            on_better: Callable[[Release], None] | None = None,
            memory: SearchMemory | None = None, *, sub_solve: SubSolve) -> tuple[Release, LnsLog]:
    """Improve ``release`` for ``seconds`` at most (module docstring), or until ``stop()`` is true (asked
    between sub-problems); the result is verified, never worse. ``on_better`` gets every verified table
    cheaper than the last, as it is found. ``memory``: the last calls' on this table and request, continued
    (:class:`SearchMemory`; a fresh one where none is given). ``sub_solve`` solves each sub-problem
    (:data:`SubSolve`: the pipeline's own solve)."""

    t0 = time.perf_counter()
    deadline = t0 + seconds
    log = LnsLog(start=release.objective, end=release.objective)
    released = release.table.copy()
    groups = np.asarray(release.groups)
    best = release
    qi = list(table.qi)
    idle = 0
    memory = _memory_for(memory, table, request, solver)
    max_rows = memory.max_rows
    sub_request = _sub_request(table, request)
    stop = stop or (lambda: False)
    refinable = isinstance(request.recoding, Suppression)  # cell suppression: the refinement's cost model
    while idle < IDLE_PASSES and time.perf_counter() < deadline - 1.0 and not interrupt.stop_requested() \
            and not stop():
        order = _column_order(qi, memory.passes)
        memory.passes += 1
        log.passes += 1
        refined_now = False
        if refinable:
            # split the large classes first: the neighbourhoods below hold one of them alone
            refined = _refined(table, request, released, best, deadline, log, on_better)
            if refined is not None:
                best, released, groups = refined
                refined_now = True
        gained, quick, limited = 0, 0, 0
        hoods = []
        min_rows = 2 * request.min_group_size()
        for rows in neighbourhoods(released, groups, order, max_rows, min_rows):
            if time.perf_counter() > deadline - 1.0:
                break
            sub, sub_req = _sub_problem(table, request, rows, sub_request)
            try:
                now = Release.verified(sub, sub_req, released.iloc[rows].reset_index(drop=True))
            except VerificationError:  # a value set naming a value none of its rows holds is no cell of the sub-table
                continue
            if now.objective <= 0:
                continue
            key = _rows_key(rows)
            if now.objective <= memory.least.get(key, -np.inf) + 1e-9:
                log.known += 1
                quick += 1  # proven before: as if proven at once now
                continue
            started = _start_key(key, rows, released)
            if started in memory.tried:
                log.known += 1
                continue
            hoods.append((rows, sub, sub_req, now, key, started))
        hoods.sort(key=lambda h: -h[3].objective)  # the costliest first: they have the most to give
        for rows, sub, sub_req, now, key, started in hoods:
            left = deadline - time.perf_counter()
            if left < 1.0 or interrupt.stop_requested() or stop():
                memory.passes -= 1  # cut short: the next call resumes this pass (what it solved is known)
                break
            limit = min(SUB_LIMIT, left)
            with progress.muted():
                res = sub_solve(sub, sub_req, dataclasses.replace(solver, time_limit=limit, gap=0.0, lns=0.0),
                                start=now)
            log.solved += 1
            if res.is_optimal:
                log.proven += 1
                quick += res.timings.total <= QUICK * limit
                memory.least[key] = res.objective
            else:
                limited += 1
            if res.table is not None and res.objective < now.objective - 1e-9:
                released.iloc[rows] = _in_whole_cells(table, sub, request, res.table[released.columns])
                gained += 1
            elif not res.is_optimal and limit >= SUB_LIMIT and not interrupt.stop_requested():
                memory.tried.add(started)  # (not one cut short by the call's end: it may gain with its full time)
        if gained:
            best = _spliced(table, request, released, release, gained, log, on_better)
            groups = best.groups
            idle = 0
        else:
            idle = 0 if refined_now else idle + 1
        max_rows = _next_max_rows(max_rows, quick, limited)
        memory.max_rows = max_rows
    log.end, log.max_rows = best.objective, max_rows
    log.seconds = round(time.perf_counter() - t0, 3)
    return best, log


def _refined(table: Table, request, released, best: Release, deadline: float, log: LnsLog, on_better):
    """A pass's refinement (:func:`improve`, cell suppression): ``(best, released, groups)`` after splitting the
    large classes of ``released`` (``best``'s table) where that is cheaper, reported as found; else ``None``."""
    if request.recoding.recounted:  # the refinement counts cells unweighted
        return None
    refined, cost = refine_release(table, request.criteria, released, deadline - 1.0)
    if cost < best.objective - 1e-9:  # ``released`` is ``best``'s table here; its cost is its objective
        best = Release.verified(table, request, refined, source=LNS_SOURCE)
        released, groups = best.table.copy(), np.asarray(best.groups)
        log.refined += 1
        progress.report(incumbent=best.objective)
        if on_better is not None:
            on_better(best)
        return best, released, groups
    return None


def _spliced(table: Table, request, released, release: Release, gained: int, log: LnsLog, on_better) -> Release:
    """The verified table of a pass of :func:`improve` that spliced ``gained`` sub-solutions into ``released``,
    reported as found; cheaper than ``release`` (the call's start) by the splice argument."""
    best = Release.verified(table, request, released, source=LNS_SOURCE)
    if best.objective > release.objective - 1e-9:  # pragma: no cover - the splice argument failed
        raise VerificationError(f"the large-neighbourhood search spliced a table of objective "
                                f"{best.objective:g} onto one of {release.objective:g}")
    log.improved += gained
    progress.report(incumbent=best.objective)
    if on_better is not None:
        on_better(best)
    return best


def _next_max_rows(max_rows: int, quick: int, limited: int) -> int:
    """The next pass's neighbourhood size: halved when most sub-problems hit their limit, doubled when none did."""
    if limited > (quick + limited) // 2:
        return max(MIN_ROWS, max_rows // 2)
    if quick and not limited:
        return min(MAX_ROWS, max_rows * 2)
    return max_rows


#: the least rows a table needs for :func:`improve_split` (a half must hold several neighbourhoods)
SPLIT_MIN_ROWS = 4 * START_ROWS

#: seconds of one split: the halves are cut again (in the next column order) after it, so classes on either side
#: of a cut meet in a neighbourhood again
SPLIT_EPOCH = 60.0

#: the least seconds worth a split: the child process's start (an interpreter, imports, its half read back) takes 2-3
SPLIT_MIN_SECONDS = 20.0


def split_possible(table: Table, request, solver, seconds: float) -> bool:
    """Whether :func:`improve_split` may run: ``solver.tuning.split_search`` (off: one core, the package before),
    two cores, isolation allowed, a search that applies, a table of ``SPLIT_MIN_ROWS`` rows or more and
    ``SPLIT_MIN_SECONDS`` or more."""
    return solver.tuning.split_search and solver.isolate != "never" and _cores() >= 2 and unavailable(request) is None \
        and table.n >= SPLIT_MIN_ROWS and seconds >= SPLIT_MIN_SECONDS


def halves(released, groups: np.ndarray, order) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of two halves of a release: its classes sorted by their released vectors read in ``order``
    (as :func:`neighbourhoods` does), cut where the first half reaches half the rows. Each half is a union of
    whole classes."""
    groups = np.asarray(groups)
    ids, sizes, sorted_classes = _sorted_classes(released, groups, order)
    cut = int(np.searchsorted(np.cumsum(sizes[sorted_classes]), groups.size / 2.0)) + 1
    in_first = np.zeros(ids.size, dtype=bool)
    in_first[sorted_classes[:cut]] = True
    row_first = in_first[np.searchsorted(ids, groups)]
    return np.flatnonzero(row_first), np.flatnonzero(~row_first)


def search_job(job, options, grid, hint=None, *, on_improving=None, stop_bound=None, on_progress=None):
    """:func:`improve` as the ``solve_fn`` of a solve in its own process
    (:func:`~milp_anon.solvers.isolated.solve_isolated`), for :func:`improve_split`'s other half:
    ``job = (frame, qi, sensitive, sep, request, released, solver, max_rows, sub_solve)`` for ``options.time_limit`` seconds,
    ``released`` the half's current release, ``solver`` the sub-problems' options (the parent's),
    ``max_rows`` the neighbourhoods' size to start with. Each cheaper
    verified table goes to the parent at once, as ``search_table`` (its released values), so a kill loses none;
    the outcome's ``job`` holds the last one and the search's log. ``grid``, ``hint``, ``on_improving`` and
    ``stop_bound`` belong to a solver's signature and are unused."""

    frame, qi, sensitive, sep, request, released, solver, max_rows, sub_solve = job
    table = Table.from_frame(frame, qi, sensitive, sep=sep)
    start = Release.verified(table, request, released)

    def told(rel):
        if on_progress is not None:
            on_progress(search_table=rel.table[list(released.columns)].to_numpy())

    found, log = improve(table, request, start, options.time_limit, solver, on_better=told,
                         memory=SearchMemory(max_rows=max_rows), sub_solve=sub_solve)
    return SolveOutcome(Status.TIME_LIMIT, None, found.objective, None, "large-neighbourhood search", log.seconds,
                        job=dict(values=found.table[list(released.columns)].to_numpy(), log=log.as_dict()))


def improve_split(table: Table, request, release: Release, seconds: float, solver,
                  stop: Callable[[], bool] | None = None,
                  on_better: Callable[[Release], None] | None = None,
                  memory: SearchMemory | None = None, *, sub_solve: SubSolve) -> tuple[Release, LnsLog]:
    """:func:`improve` on two cores: the classes are cut into two halves (:func:`halves`), one searched in a
    child process (:func:`search_job`), the other here, for ``SPLIT_EPOCH`` seconds; both halves' tables are
    spliced and verified, and the halves are cut again in the next column order, until ``seconds`` end, ``stop()``
    is true, or two splits in a row gain nothing.

    Why the splice is a release: each half is a union of whole classes, solved as a sub-table for the request
    of its sub-problems (:func:`sub_criteria`: t-closeness against the whole table's distribution; interval and
    value-set columns priced as in the whole table, :func:`_sub_problem`), so the
    module docstring's union argument applies to the two halves as to any neighbourhood. The splice is verified
    before it is kept. Why halves rather than two workers on one pass: the sub-problems' HiGHS runs could share
    one process only through HiGHS's global task scheduler, which two instances in two threads may corrupt
    (HiGHS issue 3141); two processes share nothing. The cost: a neighbourhood never crosses the cut within one
    split; the next split's cut lies elsewhere.

    Falls back on :func:`improve` where :func:`split_possible` is false. ``memory`` gives the neighbourhoods'
    size to start with and keeps the last one; what it learnt of single neighbourhoods is keyed by the whole
    table's rows and is not used in halves."""

    if not split_possible(table, request, solver, seconds):
        return improve(table, request, release, seconds, solver, stop=stop, on_better=on_better, memory=memory,
                       sub_solve=sub_solve)
    t0 = time.perf_counter()
    deadline = t0 + seconds
    stop = stop or (lambda: False)
    memory = _memory_for(memory, table, request, solver)
    log = LnsLog(start=release.objective, end=release.objective, max_rows=memory.max_rows, workers=2)
    best = release
    qi, cols = list(table.qi), list(release.table.columns)
    half_request = _sub_request(table, request)
    idle, unsplit = 0, False
    while idle < 2 and deadline - time.perf_counter() >= SPLIT_MIN_SECONDS and not interrupt.stop_requested() \
            and not stop():
        ours, theirs = halves(best.table, best.groups, _column_order(qi, memory.passes))
        if ours.size == 0 or theirs.size == 0:  # one class holds half the rows or more: nothing to split
            unsplit = True
            break
        # each half priced as the whole table (its neighbourhoods' weights then compose: module docstring, "Cells")
        sub_ours, request_ours = _sub_problem(table, request, ours, half_request)
        sub_theirs, request_theirs = _sub_problem(table, request, theirs, half_request)
        try:
            start_ours = Release.verified(sub_ours, request_ours, best.table.iloc[ours].reset_index(drop=True))
            if getattr(request.recoding, "cell_columns", None):  # the child's start, read here rather than die there
                Release.verified(sub_theirs, request_theirs, best.table.iloc[theirs].reset_index(drop=True))
        except VerificationError:  # a value set naming a value no row of its half holds: no cell of the half
            unsplit = True
            break
        memory.passes += 1
        epoch = min(SPLIT_EPOCH, deadline - time.perf_counter())
        if deadline - time.perf_counter() - epoch < SPLIT_MIN_SECONDS:
            epoch = deadline - time.perf_counter()  # no room for another split after this one: all of it now
        job = (sub_theirs.frame, qi, list(table.sensitive), table.sep, request_theirs,
               best.table.iloc[theirs].reset_index(drop=True), solver, memory.max_rows, sub_solve)
        told: list = []  # the child's cheaper tables, from the reader's thread

        def take(fields):
            if "search_table" in fields:
                told.append(fields.pop("search_table"))

        def work(cancel):
            try:
                return solve_isolated(job, dataclasses.replace(solver, time_limit=epoch), ObjectiveGrid(None),
                                      solve_fn=search_job, cancel=cancel, hard_end=deadline,
                                      max_memory_bytes=cap_bytes(request.model.max_memory_gb), on_fields=take)
            except SolverError:  # its process died: its half keeps the tables it told
                return None

        def search(done):
            return improve(sub_ours, request_ours, start_ours, epoch, solver, stop=stop,
                           memory=SearchMemory(max_rows=memory.max_rows), sub_solve=sub_solve)

        with progress.muted():  # the halves' costs are not the table's
            out, (found, half_log) = beside(work, search)
        said = None if out is None else out.job  # None: the child was killed or died
        values = said["values"] if said is not None else told[-1] if told else None
        released = best.table.copy()
        released.iloc[ours] = found.table[cols].to_numpy()
        if values is not None:
            released.iloc[theirs] = values
        now = Release.verified(table, request, released, source=LNS_SOURCE)
        memory.max_rows = half_log.max_rows
        log.epochs += 1
        _add_counts(log, [half_log.as_dict()] + ([said["log"]] if said is not None else []))
        if now.objective < best.objective - 1e-9:
            best, idle = now, 0
            progress.report(incumbent=best.objective)
            if on_better is not None:
                on_better(best)
        else:
            idle += 1
    left = deadline - time.perf_counter()
    if unsplit and left >= 1.0 and not interrupt.stop_requested() and not stop():  # the rest on one core
        best, rest = improve(table, request, best, left, solver, stop=stop, on_better=on_better, memory=memory,
                             sub_solve=sub_solve)
        _add_counts(log, [rest.as_dict()])
    log.end, log.max_rows = best.objective, memory.max_rows
    log.seconds = round(time.perf_counter() - t0, 3)
    return best, log


def _add_counts(log: LnsLog, parts: list[dict]) -> None:
    """Add the counts of other searches' logs (as dicts) to ``log``."""
    for part in parts:
        for name in ("passes", "solved", "improved", "proven", "refined", "known"):
            setattr(log, name, getattr(log, name) + part[name])


def _class_order(released, groups: np.ndarray, qi, n_classes: int) -> np.ndarray:
    """Position of each class (``0..n_classes-1``) when the classes are sorted by their released vectors."""
    first = np.zeros(n_classes, dtype=np.int64)
    kept = np.flatnonzero(groups >= 0)
    ids, at = np.unique(groups[kept], return_index=True)
    first[ids] = kept[at]  # a row of each class
    keys = [released[c].to_numpy().astype(str)[first] for c in qi]
    order = np.lexsort(keys[::-1]) if keys else np.arange(n_classes)
    pos = np.empty(n_classes, dtype=np.int64)
    pos[order] = np.arange(n_classes)
    return pos


def resolve_failing(table: Table, request, released, groups: np.ndarray, failing: np.ndarray, seconds: float,
                    solver, *, sub_solve: SubSolve) -> tuple[Release, np.ndarray] | None:
    """A verified release from a table whose classes meet every criterion but the ``failing`` ones.

    Problem. ``released`` (classes ``groups``, ``0..C-1``) is, say, the
    solution of a relaxation that dropped some criteria's rows
    (:mod:`milp_anon.pipeline.row_generation`): k-anonymous, with a few classes
    (``failing[c]``) that fail a criterion. Keep every class far from the
    failing ones and re-solve the rest in pieces: with the classes sorted by
    their released vectors, each failing class and the :data:`RESOLVE_REACH`
    classes on either side of it form a sub-table (overlapping ones merge),
    solved by the same pipeline; a piece with no release (too few rows, or
    sensitive values, to meet the criteria alone) or none found in time
    doubles its reach and merges with the pieces it then overlaps. In the time
    left, the pieces' rows are re-solved once more as one sub-table, started
    from the pieces' tables (rows may then move between pieces). The splice
    is a release for the reason given in the module docstring (every
    criterion is closed under union).

    Returns the verified release and the rows re-solved (every other row is
    released as in ``released``), or ``None`` when some piece found nothing
    within ``seconds`` or outgrew :data:`RESOLVE_MAX_ROWS` rows. Cost: one
    pipeline run per piece and growth step, on a few classes each (``sub_solve``, :data:`SubSolve`).
    """

    if unavailable(request) is not None or not np.any(failing):
        return None
    deadline = time.perf_counter() + seconds
    groups = np.asarray(groups)
    n_classes = failing.shape[0]
    pos = _class_order(released, groups, list(table.qi), n_classes)
    row_pos = np.where(groups >= 0, pos[np.maximum(groups, 0)], -1)
    sub_request = _sub_request(table, request)

    def merged(pieces):  # [lo, hi, reach, table or None] by position; overlapping pieces merge (and re-solve)
        pieces.sort(key=lambda q: q[0])
        out = []
        for q in pieces:
            if out and q[0] <= out[-1][1]:
                last = out[-1]
                out[-1] = [last[0], max(last[1], q[1]), max(last[2], q[2]), None]
            else:
                out.append(q)
        return out

    def span(p, reach):
        return [max(0, p - reach), min(n_classes - 1, p + reach), reach, None]

    pieces = merged([span(p, RESOLVE_REACH) for p in np.sort(pos[failing])])
    while True:
        todo = [q for q in pieces if q[3] is None]
        if not todo:
            break
        q = todo[0]
        left = deadline - time.perf_counter()
        if left < 0.5 or interrupt.stop_requested():
            return None
        rows = np.flatnonzero((row_pos >= q[0]) & (row_pos <= q[1]))
        if rows.size > RESOLVE_MAX_ROWS:
            return None
        sub, sub_req = _sub_problem(table, request, rows, sub_request)
        with progress.muted():
            res = sub_solve(sub, sub_req,
                            dataclasses.replace(solver, time_limit=min(left, max(SUB_LIMIT, left / len(todo))),
                                                gap=0.0, lns=0.0))
        if res.table is not None:
            q[3] = (rows, _in_whole_cells(table, sub, request, res.table[released.columns]))
            continue
        if q[0] == 0 and q[1] == n_classes - 1:
            return None
        reach = max(1, 2 * q[2])  # 1, 2, 4, ... more classes on either side
        grown = [max(0, q[0] - reach), min(n_classes - 1, q[1] + reach), reach, None]
        pieces = merged([p for p in pieces if p is not q] + [grown])
    out = released.copy()
    for _, _, _, (rows, values) in pieces:
        out.iloc[rows] = values
    rows = np.sort(np.concatenate([q[3][0] for q in pieces]))
    left = deadline - time.perf_counter()
    if len(pieces) > 1 and left >= 1.0 and not interrupt.stop_requested():
        # the pieces together, started from their tables: rows may now move between pieces
        sub, sub_req = _sub_problem(table, request, rows, sub_request)
        start = Release.verified(sub, sub_req, out.iloc[rows].reset_index(drop=True))
        with progress.muted():
            res = sub_solve(sub, sub_req, dataclasses.replace(solver, time_limit=left, gap=0.0, lns=0.0),
                            start=start)
        if res.table is not None and res.objective < start.objective - 1e-9:
            out.iloc[rows] = _in_whole_cells(table, sub, request, res.table[released.columns])
    return Release.verified(table, request, out, source=RESOLVE_SOURCE), rows
