"""The :class:`Result` of a solve and the typed records it carries.

* :class:`ModelSize` — rows, types, candidates and the model's dimensions;
* :class:`Timings` — wall-clock seconds per phase (also the pipeline's stopwatch);
* :class:`ReductionLog` and :class:`Round` — what the Lagrangian reduction did;
* :class:`Result` — status (:class:`~milp_anon.runtime.status.Status`), objective,
  bound, gap, the verified table, and where that table came from.

:meth:`Result.report` (the CLI's ``REPORT.json``) is derived from these records.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from milp_anon.privacy.risk import risk_report
from milp_anon.privacy.utility import utility_metrics
from milp_anon.runtime import progress
from milp_anon.runtime.status import Status, counted, format_gap

__all__ = ["ModelSize", "ReductionLog", "Result", "Round", "Timings", "measure_lines"]

#: where a released table comes from when no heuristic replaced the solver's
SOLVER = "solver"


def _clean(v):
    """JSON-safe: non-finite floats become ``None``, numpy scalars plain numbers."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def measure_lines(risk: dict | None, utility: dict | None, width: int = 14) -> list[str]:
    """One ``risk`` line and one ``utility`` line of a summary (none for what is ``None``)."""
    lines = []
    pr = (risk or {}).get("prosecutor")
    if pr:
        g = lambda v: "-" if v is None else f"{v:.4g}"  # noqa: E731
        share = "" if pr["records_above_share"] is None else f" ({100 * pr['records_above_share']:.3g} %)"
        lines.append("risk".ljust(width) + f"prosecutor max {g(pr['max'])}  average {g(pr['average'])}  "
                     f"{counted(pr['records_above'], 'record')} above {pr['threshold']:g}{share}")
    jr = (risk or {}).get("journalist")
    if jr:
        lines.append("".ljust(width) + f"journalist max {jr['max']:.4g}  average {jr['average']:.4g}  "
                     f"{counted(jr['records_above'], 'record')} above {pr['threshold'] if pr else 0.2:g}")
    if utility:
        lines.append("utility".ljust(width) + f"loss {utility['loss']:.4g}  precision {utility['precision']:.4g}  "
                     f"non-uniform entropy {utility['non_uniform_entropy']:.6g} bits  discernibility "
                     f"{utility['discernibility']:.6g}  AECS {utility['aecs']:.4g}")
    return lines


@dataclass
class ModelSize:
    """Sizes of every stage (``None`` where the stage did not run).

    ``n_units`` is set when the assignment is split by sensitive values. With
    the Lagrangian reduction the model counts are those of the last
    restricted model.
    """

    n_rows: int | None = None
    t_in: int | None = None
    n_units: int | None = None
    n_candidates: int | None = None
    n_pairs: int | None = None
    n_variables: int | None = None
    n_integer: int | None = None
    n_constraints: int | None = None
    n_nonzeros: int | None = None

    @classmethod
    def of_model(cls, am, base: ModelSize) -> ModelSize:
        """``base`` with the dimensions of a built :class:`~milp_anon.formulations.AssignmentModel`."""
        lm = am.lm
        return dataclasses.replace(base, n_candidates=am.cands.n_candidates, n_pairs=int(am.pair_unit.shape[0]),
                                   n_variables=lm.n_cols, n_integer=lm.n_integer, n_constraints=lm.n_rows,
                                   n_nonzeros=lm.n_nonzeros)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass
class Timings:
    """Wall-clock seconds per phase, in pipeline order; ``None`` for a phase that did not run.

    ``solve`` includes ``lp`` (the reduction's column generation).
    """

    collapse: float | None = None
    candidates: float | None = None
    lp: float | None = None
    build: float | None = None
    warm_start: float | None = None
    lp_rounding: float | None = None
    solve: float | None = None
    verify: float | None = None
    fallback: float | None = None
    lns: float | None = None
    ascent: float | None = None  # the group blocks' second ascent after the search (pipeline._second_ascent)
    total: float | None = None
    _start: float = field(default_factory=time.perf_counter, repr=False, compare=False)

    def add(self, phase: str, seconds: float) -> None:
        """Add ``seconds`` to ``phase``."""
        setattr(self, phase, (getattr(self, phase) or 0.0) + float(seconds))

    @contextmanager
    def phase(self, name: str):
        """Time the block as (part of) phase ``name``; a progress listener shows ``name`` while it runs
        (:func:`~milp_anon.runtime.progress.phase`)."""
        t = time.perf_counter()
        try:
            with progress.phase(name):
                yield
        finally:
            self.add(name, time.perf_counter() - t)

    def elapsed(self) -> float:
        """Seconds since this stopwatch was made."""
        return time.perf_counter() - self._start

    def stop(self) -> Timings:
        """Set ``total`` to the time since this stopwatch was made."""
        self.total = self.elapsed()
        return self

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if not f.name.startswith("_") and getattr(self, f.name) is not None}


@dataclass
class Round:
    """One round of the reduction: the model restricted to the pairs below the threshold ``G``.

    ``G`` is ``None`` for the whole model; ``status`` is the round's solve
    status, ``"stopped at G"`` (its bound reached ``G``), ``"empty"`` (some
    row type had no pair left), ``"too large"`` (not built: memory) or
    ``"not started"`` (the time limit ran out while its model was built).
    """

    G: float | None
    pairs: int
    candidates: int | None = None
    status: str | None = None
    objective: float | None = None
    bound: float | None = None
    seconds: float | None = None
    #: pairs whose bound is below ``G`` (``pairs`` is what is left after the restricted model's support pruning)
    below_G: int | None = None
    #: pairs the incumbent uses outside ``S(G)``, added to the restricted model (any superset of ``S(G)``
    #: keeps its bound valid below ``G``)
    incumbent_pairs: int | None = None
    #: the large-neighbourhood search run beside the round (:class:`~milp_anon.search.lns.LnsLog` as a dict), if any
    search: dict | None = None
    #: what solving the round through its root's cuts did (:mod:`milp_anon.solvers.root_cuts`): cuts, the
    #: cuts' LP bound, columns fixed and kept, seconds per step; None when the round was solved whole
    root_cuts: dict | None = None
    #: packing rows ``Σ_{j ∈ Q} y_j <= r_Q`` the round's model held, one per conflict clique (``r_Q = 1``) or rank
    #: row of the reduction's bound with more than ``r_Q`` members in the round
    #: (:func:`milp_anon.reduction.add_clique_rows`); None or 0: none
    cliques: int | None = None
    #: the round's solver process was killed at the memory allowed (its bound and incumbent as told, like a kill at
    #: the time limit; :func:`milp_anon.solvers.isolated.solve_isolated`)
    memory_killed: bool = False
    #: HiGHS's parallel tree search solved the round, on every core, in its own process
    #: (``Tuning.parallel_tree``, :meth:`milp_anon.reduction.LagrangianReduction.parallel_tree`)
    parallel_tree: bool = False


@dataclass
class ReductionLog:
    """What the Lagrangian reduction did (``formulations/reduction.md``)."""

    lp_bound: float
    lp_value: float
    lp_converged: bool
    cg_iterations: int
    master_candidates: int
    master_pairs: int
    full_candidates: int
    full_pairs: int
    type_bound: float | None = None
    lower_bound: float | None = None
    rounds: list = field(default_factory=list)
    #: the multipliers ``π`` of the row types (in :class:`~milp_anon.tables.rowtypes.RowTypes` order) whose
    #: ``L(π)`` and pair bounds the rounds used: what ``milp-anon certify`` recomputes
    multipliers: list | None = field(default=None, repr=False)
    #: sensitive criteria (:func:`milp_anon.reduction.block_bounds`): the Lagrangian bound of the exact
    #: group blocks, its value at the k-anonymity LP's multipliers, the ascent's steps and seconds
    block_bound: float | None = None
    block_start: float | None = None
    ascent_steps: int | None = None
    ascent_seconds: float | None = None
    #: the LP rounding's verified objective (:func:`milp_anon.search.lp_rounding.round_k_anonymity`) and its seconds, or ``None``
    rounding_objective: float | None = None
    rounding_seconds: float | None = None
    #: the support round's record; the round was removed as no gain (``scale_reduction_support_round_8qi_k5.md``),
    #: so always ``None``: kept because REPORT.json's keys stay
    support_round: dict | None = None
    #: the search beside the column generation (:meth:`milp_anon.reduction.LagrangianReduction.bounds_beside_search`):
    #: ``guide_seconds`` (when the master's point was handed over), ``rounding`` (its rounding's objective),
    #: ``search`` (the search's log); ``None`` where it did not run or had no point to start from
    lp_search: dict | None = None
    #: the conflict cliques the column generation added (:mod:`milp_anon.bounds.conflicts`; candidates by index in
    #: the combinatorial layer's order) and their multipliers ``μ``: the bound is then ``clique_bound =
    #: L(π, μ)`` and ``lp_bound`` the LP's without them; ``None`` when no clique entered. With rank rows
    #: (``reduction.RANK_ROWS``) ``cliques`` lists every packing row ``Σ_{j ∈ Q} y_j <= r_Q`` and ``clique_rhs``
    #: their ``r_Q``: 1 for a conflict clique, ``⌊|R_Q| / k⌋ >= 2`` for a rank row
    clique_bound: float | None = None
    cliques: list | None = field(default=None, repr=False)
    clique_multipliers: list | None = field(default=None, repr=False)
    clique_rhs: list | None = field(default=None, repr=False)

    @property
    def rank_rows(self) -> int:
        """How many of ``cliques`` are rank rows (right-hand side above 1)."""
        return sum(1 for r in self.clique_rhs or [] if r != 1)

    def as_dict(self) -> dict:
        out = {k: _clean(v) for k, v in dataclasses.asdict(self).items()
               if k not in ("rounds", "multipliers", "cliques", "clique_multipliers", "clique_rhs")}
        out["rounds"] = [{k: _clean(v) for k, v in dataclasses.asdict(r).items()} for r in self.rounds]
        if self.multipliers is not None:
            out["multipliers"] = [float(x) for x in self.multipliers]  # repr floats: exact through JSON
        if self.cliques is not None:
            out["cliques"] = [[int(j) for j in q] for q in self.cliques]
            out["clique_multipliers"] = [float(x) for x in self.clique_multipliers]
            if self.clique_rhs is not None:
                out["clique_rhs"] = [int(r) for r in self.clique_rhs]
        return out


@dataclass
class Result:
    """The outcome of an anonymization.

    Attributes
    ----------
    status
        A :class:`~milp_anon.runtime.status.Status` (compares equal to its string).
    objective
        Value of the objective (default: the cost) recounted from the
        released table by the verifier, or ``None``.
    cost
        Cell cost of the released table (equal to ``objective`` for the
        default objective).
    bound
        Best proven lower bound on the optimum, or ``None``.
    gap
        ``(objective - bound) / objective`` (0 when both are 0), or ``None``.
    table
        The anonymized table (same columns and row order as the input;
        suppressed QI cells are ``*``), only when a verified solution exists.
        With record suppression the withheld records are left out (the
        index keeps the input's row labels).
    groups
        The output group (0-based) of every row of ``table``.
    withheld
        0-based input rows withheld (record suppression).
    bound_source
        What ``bound`` rests on when it is not the solver's bound of the model
        (or the reduction's): e.g. the k-anonymity LP bound over the same
        candidates, for a time-limited model with sensitive criteria.
    full_domain
        The full-domain search (``lattice_nodes``, ``evaluated``, the chosen
        ``levels`` per column): the proof of a full-domain optimum.
    size
        :class:`ModelSize`.
    timings
        :class:`Timings`.
    candidate_counts
        Candidate counts after each pruning stage.
    reduction
        :class:`ReductionLog` when the Lagrangian reduction ran.
    row_generation
        :class:`~milp_anon.pipeline.row_generation.RowGenerationLog` when the sensitive
        criteria's rows were generated (``formulations/row-generation.md``).
    lp_rounding
        :class:`~milp_anon.pipeline.relaxation.LpRoundingLog` when the LP relaxation
        was solved and rounded before the whole model (same document, "LP rounding").
    source
        ``"solver"``, or the heuristic whose verified table was released
        (``"suppression greedy"``, ``"pattern greedy"``, ``"whole table"``,
        ``"LP rounding"``).
    warm_start_cost
        Cost of the verified heuristic table the solve started from, if any.
    reason
        Why the request is infeasible, when it is.
    cost_by_column, class_sizes
        The verifier's cost of each QI column (they sum to ``cost``) and the
        sizes of the released equivalence classes.
    provenance
        Versions, machine, parameters and start time (:mod:`milp_anon.release.provenance`).
    """

    status: Status
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    cost: float | None = None
    table: pd.DataFrame | None = None
    groups: np.ndarray | None = None
    verified: bool = False
    size: ModelSize = field(default_factory=ModelSize)
    timings: Timings = field(default_factory=Timings)
    candidate_counts: dict = field(default_factory=dict)
    reduction: ReductionLog | None = None
    source: str = SOLVER
    warm_start_cost: float | None = None
    reason: str | None = None
    solver: str = "HiGHS"
    solver_status: str = ""
    criteria: tuple = ()
    cost_by_column: dict | None = None
    class_sizes: tuple = ()
    provenance: dict = field(default_factory=dict)
    withheld: tuple = ()
    full_domain: dict | None = None
    bound_source: str | None = None
    #: the large-neighbourhood search's log (:class:`~milp_anon.search.lns.LnsLog`), when it ran
    lns: object | None = None
    #: the criteria's row generation (:class:`~milp_anon.pipeline.row_generation.RowGenerationLog`), when it ran
    row_generation: object | None = None
    #: the LP relaxation and its rounding before the whole model (:class:`~milp_anon.pipeline.relaxation.LpRoundingLog`)
    lp_rounding: object | None = None
    #: the group blocks' second ascent, in time nothing else used: the first ascent's bound (``start``) and its
    #: own (``L``, before rounding to the grid), its target (the best table's objective), steps (``None`` when its
    #: process was stopped before it told them), seconds, and ``beside`` (on the other core beside the search,
    #: or after it)
    second_ascent: dict | None = None
    #: the rounding of the group blocks' solutions averaged over the ascent's later steps: ``steps`` averaged,
    #: its objective (``rounded``) and after the refinement (``refined``, or ``None``), the ``heuristic`` table's
    #: it was compared with, whether it was ``used`` as the start instead, ``seconds``
    blocks_rounding: dict | None = None
    #: re-identification risk of the released table (:mod:`milp_anon.privacy.risk`): ``{"prosecutor": {max,
    #: average, records_above, records_above_share, threshold}}``; set by :meth:`with_measures`
    risk: dict | None = None
    #: ARX's utility metrics of the released table (:func:`milp_anon.privacy.utility.utility_metrics`)
    utility: dict | None = None

    def __post_init__(self):
        try:
            self.status = Status(self.status)
        except ValueError:
            raise ValueError(f"unknown status {self.status!r}") from None
        has_table = self.table is not None
        if self.status.has_table and not (has_table and self.verified):
            raise ValueError(f"status {self.status!r} needs a verified table")
        if not self.status.has_table and has_table:
            raise ValueError(f"status {self.status!r} cannot carry a table")
        if self.cost is None and self.objective is not None:
            self.cost = self.objective
        if self.status == Status.OPTIMAL and self.gap != 0:
            raise ValueError("an optimal result has gap 0")
        if self.groups is not None and has_table and len(self.groups) != len(self.table):
            raise ValueError("groups and table differ in length")

    @property
    def is_optimal(self) -> bool:
        return self.status == Status.OPTIMAL

    @property
    def n_groups(self) -> int | None:
        return None if self.groups is None else int(np.unique(self.groups).size)

    @property
    def fallback(self) -> str | None:
        """The heuristic whose table was released instead of a solver's, or ``None``."""
        return None if self.source == SOLVER else self.source

    def report(self) -> dict:
        """A JSON-serializable summary (the CLI's ``--report``)."""
        out = {"status": str(self.status), "objective": _clean(self.objective), "cost": _clean(self.cost),
               "bound": _clean(self.bound), "gap": _clean(self.gap), "reason": self.reason,
               "criteria": list(self.criteria), "solver": self.solver, "solver_status": self.solver_status}
        out.update({k: _clean(v) for k, v in self.size.as_dict().items()})
        out.update(n_groups=self.n_groups, candidate_counts=dict(self.candidate_counts),
                   seconds={k: round(float(v), 4) for k, v in self.timings.as_dict().items()},
                   verified=self.verified, source=self.source, warm_start_cost=_clean(self.warm_start_cost))
        if self.reduction is not None:
            out["reduction"] = self.reduction.as_dict()
        if self.bound_source is not None:
            out["bound_source"] = self.bound_source
        if self.row_generation is not None:
            out["row_generation"] = self.row_generation.as_dict()
        if self.lp_rounding is not None:
            out["lp_rounding"] = {k: _clean(v) for k, v in self.lp_rounding.as_dict().items()}
        if self.full_domain is not None:
            out["full_domain"] = dict(self.full_domain)
        if self.lns is not None:
            out["lns"] = {k: _clean(v) for k, v in self.lns.as_dict().items()}
        if self.second_ascent is not None:
            out["second_ascent"] = {k: _clean(v) for k, v in self.second_ascent.items()}
        if self.blocks_rounding is not None:
            out["blocks_rounding"] = {k: _clean(v) for k, v in self.blocks_rounding.items()}
        if self.fallback:
            out["fallback"] = self.fallback
        if self.cost_by_column is not None:
            out["cost_by_column"] = {k: _clean(v) for k, v in self.cost_by_column.items()}
            out["cost_normalized"] = _clean(self.cost_normalized)
        if self.class_sizes:
            out["class_sizes"] = self.class_size_summary()
        if self.withheld or any("withheld records" in c for c in self.criteria):
            out["withheld_records"] = len(self.withheld)
            out["withheld_rows"] = [i + 1 for i in self.withheld]  # data rows, 1-based
            out["suppressed_records"] = list(out["withheld_rows"])  # issue 17's contract: the same rows by that name
        if self.risk is not None:
            out["risk"] = self.risk
        if self.utility is not None:
            out["utility"] = self.utility
        if self.provenance:
            out["provenance"] = self.provenance
        return out

    def with_measures(self, original: pd.DataFrame, qi, recoding=None, criteria=()) -> Result:
        """This result with ``risk`` and ``utility`` computed from its released table and ``original`` (the
        input frame): the withheld records are the rows :attr:`withheld` names; the journalist risk too when a
        criterion carries a population table. Unchanged without a table."""
        if self.table is None:
            return self
        full = original.copy()
        rows = original.index.get_indexer(self.table.index)
        if (rows < 0).any() or len(set(rows.tolist())) != len(rows):  # labels that do not name input rows
            rows = np.setdiff1d(np.arange(len(original)), np.asarray(self.withheld, dtype=np.int64))
        mask = np.zeros(len(original), dtype=bool)
        mask[list(self.withheld)] = True
        for c in qi:
            col = full[c].astype(object).to_numpy(copy=True)
            col[rows] = self.table[c].astype(object).to_numpy()
            full[c] = col
        return dataclasses.replace(self, risk=risk_report(full, qi, criteria, recoding, mask),
                                   utility=utility_metrics(original, full, qi, recoding, mask))

    @property
    def cost_normalized(self) -> float | None:
        """The cost per QI cell, in [0, 1]: the share of suppressed cells, or ARX's normalized loss."""
        if self.cost is None or not self.cost_by_column or self.table is None or len(self.table) == 0:
            return None
        return float(self.cost) / ((len(self.table) + len(self.withheld)) * len(self.cost_by_column))

    def class_size_summary(self) -> dict:
        """Classes, smallest, median and largest size, and how many classes have each size up to 2k."""
        sizes = np.sort(np.asarray(self.class_sizes, dtype=np.int64))
        if sizes.size == 0:
            return {}
        values, counts = np.unique(sizes, return_counts=True)
        return {"n_classes": int(sizes.size), "min": int(sizes[0]), "median": float(np.median(sizes)),
                "max": int(sizes[-1]), "histogram": {str(int(v)): int(c) for v, c in zip(values[:20], counts[:20])}}

    def __repr__(self) -> str:
        obj = "-" if self.objective is None else f"{self.objective:g}"  # one line, whatever the table
        bound = "-" if self.bound is None else f"{self.bound:g}"
        rows = "-" if self.table is None else str(len(self.table))
        return (f"Result(status={str(self.status)!r}, objective={obj}, bound={bound}, rows={rows}, "
                f"groups={self.n_groups}, source={self.source!r})")

    def to_json(self) -> str:
        return json.dumps(self.report(), indent=2)

    def _unit(self) -> str:
        """The objective's unit in words, with the cost per QI cell (ARX's normalized loss)."""
        origin = self.provenance or {}
        objective = origin.get("model_options", {}).get("objective", "cost")
        if objective != "cost":
            return " rows with a recoded cell" if objective == "rows" else " output groups"
        share = self.cost_normalized
        recoding = origin.get("recoding", "suppression")
        if recoding.startswith("generalization (entropy"):
            return f" bits of non-uniform entropy ({recoding})" + ("" if share is None else f"; {share:.4g} per QI cell")
        if recoding.startswith(("suppression", "pattern")) and "weights" not in recoding:
            return " suppressed cells" + ("" if share is None else f" ({100 * share:.3g} % of the QI cells)")
        return f" ({recoding})" + ("" if share is None else f"; {share:.4g} per QI cell")

    def summary(self) -> str:
        """A human-readable multi-line summary: the release, then each stage that ran, then the model and times."""
        fmt = lambda v: "-" if v is None else (f"{v:g}" if isinstance(v, float) else str(v))  # noqa: E731
        s, c = self.size, self.candidate_counts
        lines = [f"status        {self.status}" + (f"  ({self.reason})" if self.reason else "")]
        if self.criteria:
            lines.append(f"criteria      {', '.join(self.criteria)}")
        lines.append(f"objective     {fmt(self.objective)}{self._unit()}" if self.objective is not None
                     else "objective     -")
        if self.cost_by_column:
            lines.append("by column     " + "  ".join(f"{c} {v:g}" for c, v in self.cost_by_column.items()))
        if self.class_sizes:
            cs = self.class_size_summary()
            lines.append(f"class sizes   min {cs['min']}  median {cs['median']:g}  max {cs['max']}  "
                         f"({counted(cs['n_classes'], 'class', 'classes')})")
        lines += measure_lines(self.risk, self.utility)
        lines.append(f"bound         {fmt(self.bound)}   gap {format_gap(self.gap)}"
                     + (f"   ({self.bound_source})" if self.bound_source else ""))
        if self.groups is not None:
            lines.append(f"groups        {self.n_groups}" + (f"   (released: {self.fallback})" if self.fallback else ""))
        if self.withheld:
            shown = ", ".join(str(i + 1) for i in self.withheld[:10]) + (" ..." if len(self.withheld) > 10 else "")
            lines.append(f"withheld      {counted(len(self.withheld), 'record')} (data rows {shown}), left out of the table")
        lines.append(f"rows          {fmt(s.n_rows)}   t_in {fmt(s.t_in)}")
        if c:
            lines.append(
                "candidates    {kept} kept (generated {generated}, support {support}, closure {closure_only})".format(
                    **{k: c.get(k, "-") for k in ("kept", "generated", "support", "closure_only")}
                )
            )
        lines += self._reduction_lines(fmt) + self._row_generation_lines(fmt) + self._lp_rounding_lines()
        lines += self._stage_lines()
        red = self.reduction
        if s.n_variables is not None:
            lines.append(f"model         {s.n_variables} variables ({fmt(s.n_integer)} integer), "
                         f"{s.n_constraints} constraints, {fmt(s.n_nonzeros)} nonzeros"
                         + (" (the last restricted model)" if red else ""))
        lines.append("seconds       " + "  ".join(f"{k} {v:.2f}" for k, v in self.timings.as_dict().items()))
        lines.append(f"solver        {self.solver}" + (f" ({self.solver_status})" if self.solver_status else ""))
        return "\n".join(lines)

    def _reduction_lines(self, fmt) -> list[str]:
        """The Lagrangian reduction's lines of :meth:`summary`: its bounds and each round."""
        lines: list[str] = []
        red = self.reduction
        if red:
            lines.append(f"LP bound      {red.lp_bound:.6g} by column generation ({red.cg_iterations} rounds, "
                         f"master {red.master_pairs} of {red.full_pairs} pairs"
                         f"{'' if red.lp_converged else ', not converged'})")
            if red.clique_bound is not None:
                ranks = red.rank_rows
                lines.append(f"clique bound  {red.clique_bound:.6g} with {len(red.cliques) - ranks} conflict cliques"
                             + (f" and {ranks} rank rows" if ranks else ""))
            for i, rnd in enumerate(red.rounds, 1):
                below = "the whole model" if rnd.G is None else f"below G = {rnd.G:g}"
                status = "stopped once its bound reached G" if rnd.status == "stopped at G" else (rnd.status or "-")
                if rnd.memory_killed:
                    status += " (its process killed at the memory allowed)"
                if rnd.parallel_tree:
                    status += " (HiGHS's parallel tree)"
                held = f" (with {fmt(rnd.incumbent_pairs)} of the incumbent)" if rnd.incumbent_pairs else ""
                cl = f", {fmt(rnd.cliques)} clique rows" if rnd.cliques else ""
                lines.append(f"fixing {i:<6} {below}: {fmt(rnd.pairs)} pairs{held}, {fmt(rnd.candidates)} "
                             f"candidates{cl} -> "
                             f"{status}" + (f"; incumbent {rnd.objective:g}" if rnd.objective is not None else "")
                             + self._round_bound(rnd, red)
                             + (f"; search beside it {rnd.search['start']:g} -> {rnd.search['end']:g}"
                                if rnd.search else ""))
        return lines

    @staticmethod
    def _round_bound(rnd, red) -> str:
        """A round's own bound in the summary: its restricted model's, labelled so, and said to add nothing when it
        lies below the LP bound (HiGHS stopped before its root: e.g. 0)."""
        if rnd.bound is None:
            return ""
        low = red.lp_bound is not None and rnd.bound < math.floor(red.lp_bound)
        return f"; its restricted model's own bound {rnd.bound:g}" + (" (below the LP bound: adds nothing)" if low
                                                                       else "")

    def _row_generation_lines(self, fmt) -> list[str]:
        """Row generation's line of :meth:`summary`."""
        lines: list[str] = []
        rg = self.row_generation
        if rg is not None:
            last = rg.iterations[-1] if rg.iterations else None
            lines.append(f"row gen.      {counted(len(rg.iterations), 'model')}; criteria rows on "
                         f"{fmt(last.active if last else 0)} of {fmt(rg.candidates)} candidates"
                         + ("; proven (a verified table at a relaxation's bound)" if rg.converged else
                            "; stopped, too many groups failing the criteria: handed over to the LP rounding and "
                            "the whole model (below)" if rg.handed_over else
                            "; not converged"))
        return lines

    def _lp_rounding_lines(self) -> list[str]:
        """The relaxation stage's line of :meth:`summary` (LP, rounding, restricted model, searches)."""
        lines: list[str] = []
        lr = self.lp_rounding
        if lr is not None:
            lines.append(f"LP rounding   LP {lr.lp_status}" + (f" {lr.lp_objective:.6g}" if lr.lp_objective is not None
                                                            else "") + f" in {lr.lp_seconds:.1f} s"
                         + (f", dual bound {lr.lp_bound:.6g}" if lr.lp_bound is not None else "")
                         + (f"; rounded table {lr.rounded:g}" if lr.rounded is not None else "")
                         + (f", refined {lr.refined:g}" if lr.refined is not None else "")
                         + ("" if lr.used or lr.rounded is None else " (not better than the start)")
                         + (f"; search beside it {lr.search['start']:g} -> {lr.search['end']:g}" if lr.search else "")
                         + ("" if lr.slack_status is None else
                            f"; slack LP {lr.slack_status}" + (f" {lr.slack_objective:.6g}" if lr.slack_objective
                                                                is not None else "") + f" in {lr.slack_seconds:.1f} s"
                            + (f", rounded {lr.slack_rounded:g}" if lr.slack_rounded is not None else "")
                            + (f", refined {lr.slack_refined:g}" if lr.slack_refined is not None else "")
                            + (f", search beside it {lr.slack_search['start']:g} -> {lr.slack_search['end']:g}"
                               if lr.slack_search else ""))
                         + ("" if lr.model_status is None else
                            f"; restricted model ({lr.model_pairs} pairs) {lr.model_status} in {lr.model_seconds:.1f} s"
                            + (f", table {lr.model_objective:g}" if lr.model_objective is not None else "")
                            + (f", search beside it {lr.model_search['start']:g} -> {lr.model_search['end']:g}"
                               if lr.model_search else ""))
                         + (f"; the whole model not run: {lr.model_skipped_why or 'its LP would not finish'}"
                            if lr.model_skipped else "")
                         + (f"; search beside the whole model {lr.whole_search['start']:g} -> "
                            f"{lr.whole_search['end']:g}" if lr.whole_search else ""))
        return lines

    def _stage_lines(self) -> list[str]:
        """The full-domain search's, the search's, the blocks' rounding's and the second ascent's lines of :meth:`summary`."""
        lines: list[str] = []
        if self.full_domain is not None:
            fd = self.full_domain
            lines.append("levels        " + "  ".join(f"{c} {v}" for c, v in fd.get("levels", {}).items())
                         + f"   (full-domain: {fd['evaluated']} of {fd['lattice_nodes']} lattice nodes evaluated, "
                           "the rest bounded by the optimum)")
        if self.lns is not None:
            ln = self.lns
            lines.append(f"LNS           {ln.start:g} -> {ln.end:g} in {ln.seconds:.1f} s ({ln.passes} passes, "
                         f"{ln.solved} sub-problems, {ln.improved} improved, {ln.proven} proven, "
                         f"{ln.refined} refined; "
                         f"neighbourhoods up to {ln.max_rows} rows"
                         + (f"; on two cores, {ln.epochs} splits into halves" if ln.epochs else "") + ")")
        if self.blocks_rounding is not None:
            br = self.blocks_rounding
            got = "-" if br["rounded"] is None else f"{br['rounded']:g}" + (
                "" if br["refined"] is None else f" (refined {br['refined']:g})")
            heur = "" if br["heuristic"] is None else f" against the heuristic table's {br['heuristic']:g}"
            lines.append(f"rounding      the group blocks' average over {br['steps']} steps rounded: {got}{heur}"
                         f"{', the start' if br['used'] else ''} in {br['seconds']:.1f} s")
        if self.second_ascent is not None:
            ra = self.second_ascent
            when = "beside the search" if ra.get("beside") else "after the search"
            steps = "" if ra.get("steps") is None else f"{ra['steps']} steps "
            lines.append(f"ascent        the group blocks' second ascent, {when}: L {ra['start']:.6g} -> "
                         f"{ra['bound']:.6g} in {ra['seconds']:.1f} s ({steps}towards {ra['target']:g})")
        return lines
