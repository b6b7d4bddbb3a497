"""The assignment model shared by every problem (MODELS.md §2).

Variables: ``y_j`` binary (candidate ``j`` used) and ``g_ij >= 0`` for every
compatible (type, candidate) pair (rows of type ``i`` released as ``j``)::

    min   Σ_j w_j Σ_i g_ij
    s.t.  Σ_j g_ij = n_i            ∀ i      (every row released once)
          g_ij <= n_i · y_j         ∀ i, j   (only into used candidates)
          + the rows of each criterion (k-anonymity: Σ_i g_ij >= k · y_j)

For fixed ``y`` the rest is ROW ASSIGNMENT, a min-cost flow with integral
data (Bredereck et al. 2013, Lemma 1), so ``g`` is continuous and an optimal
vertex is integral. The solver's ``g`` is rounded and checked; if the check
fails (a non-vertex or tolerance drift) the assignment is re-solved exactly
for the chosen ``y`` with ``g`` integer.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from ..candidates import Candidates, lattice_candidates, pattern_candidates, suppression_candidates
from ..criteria import Criterion, KAnonymity
from ..errors import InputError, MilpAnonError, ModelTooLargeError, VerificationError
from ..model import LinearModel
from ..recoding import Patterns, Suppression, as_recoding
from ..result import Result
from ..rowtypes import RowTypes, Units
from ..solve import SolverOptions, StopAtBound, objective_grid, relative_gap, solve_model
from ..table import Table
from .. import verify as _verify

_log = logging.getLogger("milp_anon.reduction")

OBJECTIVES = ("cost", "rows", "types")
REDUCTIONS = ("auto", "lagrangian", "none")
#: the reduction's next threshold G is the largest whose restricted model has at most this many
#: times the pairs of the last round (and at least LB + one grid step): rounds below the optimum
#: stop as soon as their bound reaches G and are cheap; the round that holds the optimum is at
#: most about this factor larger than needed
ROUND_GROWTH = 2
#: the first round searches for incumbents this share of the remaining time (of this many seconds
#: without a time limit) before stopping at its threshold
ROUND_POLISH = 0.25
ROUND_POLISH_UNLIMITED = 300.0
#: under a time limit the heuristic table is computed after the first round when that round's
#: incumbent is further than this from the bound (on Adult it lands 3–6 % above the best known
#: and takes 10–40 s at 6–8 QIs, which would otherwise come after the limit)
HEURISTIC_GAP = 0.01
#: ... for which the first round leaves this share of the remaining time
HEURISTIC_SHARE = 0.25

#: bytes per nonzero / per column or row, measured on HiGHS MIP solves of this model (see benchmarks)
_BYTES_PER_NZ_HIGHS = 600
_BYTES_PER_VECTOR_HIGHS = 400
_BYTES_PER_COL_PULP = 1500
_BYTES_PER_NZ_PULP = 250


@dataclass
class AssignmentModel:
    """The built model and the arrays needed to read its solution back.

    ``pair_unit``/``pair_cand`` are the assignment pairs (unit, candidate),
    sorted by candidate; ``g[p]`` is the column of pair ``p``.
    """

    lm: LinearModel
    table: Table
    types: RowTypes
    cands: Candidates
    units: Units
    pair_unit: np.ndarray
    pair_cand: np.ndarray
    y: np.ndarray  # global column index of y_j
    g: np.ndarray  # global column index of g_p (x_{uj} when split)
    _size: np.ndarray | None = None
    _cells: dict = dataclasses.field(default_factory=dict)

    def size_vars(self) -> np.ndarray:
        """Columns ``s_j = Σ_u x_uj`` (group size of candidate ``j``), created once."""
        if self._size is None:
            C = self.cands.n_candidates
            s = self.lm.add_vars("size", C, lower=0, upper=self.cands.capacity.astype(float))
            P = self.pair_cand.shape[0]
            self.lm.add_rows("size_def", C, rows=np.concatenate([np.arange(C), self.pair_cand]),
                             cols=np.concatenate([s, self.g]), vals=np.concatenate([np.ones(C), -np.ones(P)]),
                             lower=0.0, upper=0.0)
            self._size = s
        return self._size

    def cells(self, column: int):
        """Count columns ``c_{jσ}`` for the (candidate, value) cells present in ``column``.

        Returns ``(cell_cand, cell_value, cell_var)``: a cell exists when some
        compatible unit of ``j`` carries value ``σ``; absent values count 0.
        """
        if column not in self._cells:
            V = len(self.table.sensitive_values[column])
            val = self.units.sensitive[self.pair_unit, column].astype(np.int64)
            key = self.pair_cand * V + val
            uniq, pair_cell = np.unique(key, return_inverse=True)
            pair_cell = pair_cell.ravel()
            n_cells = uniq.shape[0]
            cap = np.bincount(pair_cell, weights=self.units.counts[self.pair_unit], minlength=n_cells)
            cvar = self.lm.add_vars(f"count{column}", n_cells, lower=0, upper=cap)
            P = self.pair_cand.shape[0]
            self.lm.add_rows(f"count{column}_def", n_cells, rows=np.concatenate([np.arange(n_cells), pair_cell]),
                             cols=np.concatenate([cvar, self.g]), vals=np.concatenate([np.ones(n_cells), -np.ones(P)]),
                             lower=0.0, upper=0.0)
            self._cells[column] = (uniq // V, uniq % V, cvar)
        return self._cells[column]


def estimate_size(units: Units, n_pairs: int, cands: Candidates, criteria, table: Table) -> dict:
    """Model size and memory estimate, computed before anything is built.

    ``n_pairs`` is the number of (unit, candidate) assignment pairs.
    """
    C, P, U = cands.n_candidates, int(n_pairs), units.n_units
    dims = {"C": C, "P": P, "V": [len(v) for v in table.sensitive_values]}
    n_var, n_con, nnz = C + P, U + P, 3 * P
    n_int = C
    extra_size = False
    cells_done = set()
    for crit in criteria:
        v, c, z, i = crit.size_estimate(dims)
        n_var, n_con, nnz, n_int = n_var + v, n_con + c, nnz + z, n_int + i
        extra_size |= crit.uses_size
        for col in crit.columns(table) if crit.needs_sensitive else ():
            cells_done.add(col)
    if extra_size:
        n_var, n_con, nnz = n_var + C, n_con + C, nnz + C + P
    for col in cells_done:
        cells = min(P, C * dims["V"][col])
        n_var, n_con, nnz = n_var + cells, n_con + cells, nnz + cells + P
    if any(crit.integral_assignment for crit in criteria):
        n_int += P
    highs = _BYTES_PER_NZ_HIGHS * nnz + _BYTES_PER_VECTOR_HIGHS * (n_var + n_con)
    pulp_b = _BYTES_PER_COL_PULP * n_var + _BYTES_PER_NZ_PULP * nnz
    return {
        "n_variables": n_var,
        "n_integer": n_int,
        "n_constraints": n_con,
        "n_nonzeros": nnz,
        "bytes_highs": highs,
        "bytes_pulp": highs + pulp_b,
    }


def _objective_grid(cands: Candidates):
    """``(grid, step)``: the grid of feasible costs (``True`` for integers, ``D`` for multiples of
    ``1/D``, ``False`` for none, see :func:`~milp_anon.solve.objective_grid`) and one step on it."""
    integral = True if np.issubdtype(cands.cost.dtype, np.integer) else objective_grid(cands.cost)
    return integral, (1.0 if integral is True else (1.0 / integral if integral else 1e-6))


def _first_lower_bound(lagrangian_bound: float, cands: Candidates, grid) -> float:
    """The Lagrangian bound rounded up to the cost grid, and never below 0 (costs are >= 0)."""
    from ..lagrangian import grid_ceil

    return max(grid_ceil(lagrangian_bound, grid), float(min(0, cands.cost.min())))


def available_memory_bytes() -> int:
    """MemAvailable from /proc/meminfo (or physical memory) in bytes."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


class AssignmentFormulation:
    """Anonymization by suppression under a set of criteria, as one assignment MILP.

    Parameters
    ----------
    criteria
        Privacy criteria objects (at least one), e.g. ``[KAnonymity(5)]`` or
        ``[KAnonymity(5), LDiversity(3), TCloseness(0.2, distance="ordered")]``.
    recoding
        :class:`~milp_anon.recoding.Suppression` (default) or
        :class:`~milp_anon.recoding.Generalization` (local recoding with
        value hierarchies).
    closure
        Apply closure pruning to the candidates (exact for the cost
        objective and union-closed criteria; default on).
    assignment
        ``"continuous"`` (default) or ``"integer"`` assignment variables.
        With k-anonymity and p-sensitivity alone both are exact (ROW
        ASSIGNMENT and p-ROW ASSIGNMENT have integral vertices); frequency and
        recursive ℓ-diversity and t-closeness always use integer assignment
        variables (their coefficients break total unimodularity).
    reduction
        ``"auto"`` (default), ``"lagrangian"`` or ``"none"``. With k-anonymity
        alone and the cost objective (no budget, no ``t_out``), ``"auto"`` and
        ``"lagrangian"`` first solve the LP bound over every candidate by
        column generation and then solve models restricted to the pairs that
        a solution below a rising threshold ``G`` may use (exact Lagrangian
        reduced-cost fixing, :mod:`milp_anon.lagrangian`,
        ``formulations/reduction.md``); ``"none"`` builds the whole model.
        ``"lagrangian"`` where it does not apply is an error; ``"auto"``
        then builds the whole model.

    Examples
    --------
    >>> f = AssignmentFormulation([KAnonymity(2)])          # doctest: +SKIP
    >>> result = f.solve(table, SolverOptions(time_limit=60))  # doctest: +SKIP
    """

    def __init__(self, criteria, *, recoding=None, closure: bool = True, assignment: str = "continuous",
                 budget=None, t_out=None, t_out_min=None, t_out_max=None, objective: str = "cost",
                 warm_start: str = "none", reduction: str = "auto"):
        self.recoding = as_recoding(recoding)
        if reduction not in REDUCTIONS:
            raise InputError(f"reduction must be one of {', '.join(REDUCTIONS)}, got {reduction!r}")
        self.reduction = reduction
        if warm_start not in ("none", "greedy"):
            raise InputError(f"warm start must be 'none' or 'greedy', got {warm_start!r}")
        self.warm_start = warm_start
        if objective not in OBJECTIVES:
            raise InputError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
        if budget is not None and (isinstance(budget, bool) or not budget >= 0):
            raise InputError(f"budget must be a number >= 0, got {budget!r}")
        if objective == "types" and budget is None:
            raise InputError("objective 'types' (maximize the number of output types) needs a budget")
        for name, v in (("t_out", t_out), ("t_out_min", t_out_min), ("t_out_max", t_out_max)):
            if v is not None and (isinstance(v, bool) or int(v) != v or v < 1):
                raise InputError(f"{name} must be a whole number >= 1, got {v!r}")
        if t_out is not None and (t_out_min is not None or t_out_max is not None):
            raise InputError("give t_out, or t_out_min/t_out_max, not both")
        if t_out_min is not None and t_out_max is not None and t_out_min > t_out_max:
            raise InputError(f"t_out_min = {t_out_min} exceeds t_out_max = {t_out_max}")
        self.budget, self.objective = budget, objective
        self.t_out_min = t_out if t_out is not None else t_out_min
        self.t_out_max = t_out if t_out is not None else t_out_max
        # closure moves groups into other candidates, which can merge them: harmless for the cost,
        # a budget and an upper bound on output types, not for a lower bound or maximizing types
        if self.t_out_min is not None or objective == "types":
            closure = False
        if assignment not in ("continuous", "integer"):
            raise InputError(f"assignment must be 'continuous' or 'integer', got {assignment!r}")
        criteria = list(criteria)
        if not criteria:
            raise InputError("no privacy criterion given")
        for c in criteria:
            if not isinstance(c, Criterion):
                raise InputError(f"not a privacy criterion: {c!r}")
        if not any(isinstance(c, KAnonymity) for c in criteria):
            criteria.insert(0, KAnonymity(1))
        self.criteria = criteria
        self.closure = closure
        self.assignment = assignment

    # -- stages --------------------------------------------------------------------
    @property
    def split(self) -> bool:
        """Whether the assignment is split by sensitive values."""
        return any(c.needs_sensitive for c in self.criteria)

    @property
    def integral_assignment(self) -> bool:
        return self.assignment == "integer" or any(c.integral_assignment for c in self.criteria)

    def min_group_size(self) -> int:
        return max(c.min_group_size() for c in self.criteria)

    def validate(self, table: Table) -> None:
        """Bad input for this table (e.g. a sensitive criterion without a sensitive column)."""
        self._check_warm_start(table)
        for c in self.criteria:
            c.validate(table)
        self.lattices(table)  # hierarchy problems (missing value, cost weights) surface here

    def infeasibility(self, table: Table) -> str | None:
        for c in self.criteria:
            why = c.infeasibility(table)
            if why:
                return why
        return None

    def lattices(self, table: Table):
        """Per QI column generalization lattice of the recoding (cached per table)."""
        if getattr(self, "_lat_table", None) is not table:
            self._lat = self.recoding.lattices(table)
            self._lat_table = table
        return self._lat

    def candidates(self, types: RowTypes, table: Table | None = None) -> Candidates:
        if table is None:
            return suppression_candidates(types, self.min_group_size(), closure=self.closure)
        if isinstance(self.recoding, Patterns):
            return pattern_candidates(types, self.recoding.masks(table), self.min_group_size(), reduce=self.closure)
        return lattice_candidates(types, self.lattices(table), self.min_group_size(), closure=self.closure)

    def unhostable(self, table: Table, types: RowTypes, cands: Candidates) -> str | None:
        """Why some rows fit no candidate at all (pattern sets), naming them; else ``None``."""
        hosted = np.zeros(types.t_in, dtype=bool)
        hosted[cands.pair_type] = True
        if hosted.all():
            return None
        rows = np.flatnonzero(~hosted[types.row_type])
        shown = ", ".join(str(int(r) + 1) for r in rows[:10]) + (" ..." if rows.size > 10 else "")
        return (f"{rows.size} row(s) fit no pattern with enough compatible rows (data rows {shown}); "
                "add a pattern that suppresses more, e.g. the all-suppressed one")

    def prune_candidates(self, table: Table, units: Units, cands: Candidates) -> Candidates:
        """Criterion-specific safe pruning (e.g. too few distinct sensitive values)."""
        for c in self.criteria:
            cands = c.prune(table, units, cands)
        return cands

    def build(self, table: Table, types: RowTypes, cands: Candidates, units: Units | None = None) -> AssignmentModel:
        """Build the assignment model from grouped arrays."""
        units = units if units is not None else Units.of(table, types, self.split)
        pair_unit, pair_cand = units.expand_pairs(cands.pair_type, cands.pair_cand)
        lm = LinearModel(name="anonymization")
        C, P = cands.n_candidates, pair_unit.shape[0]
        y = lm.add_vars("y", C, lower=0, upper=1, integer=True)
        n_u = units.counts.astype(float)
        g = lm.add_vars("g", P, lower=0, upper=n_u[pair_unit], cost=cands.cost[pair_cand],
                        integer=self.integral_assignment)
        lm.add_rows("assign", units.n_units, rows=pair_unit, cols=g, vals=1.0, lower=n_u, upper=n_u)
        pr = np.arange(P)
        lm.add_rows("link", P, rows=np.concatenate([pr, pr]), cols=np.concatenate([g, y[pair_cand]]),
                    vals=np.concatenate([np.ones(P), -n_u[pair_unit]]), upper=0.0)
        am = AssignmentModel(lm=lm, table=table, types=types, cands=cands, units=units, pair_unit=pair_unit,
                             pair_cand=pair_cand, y=y, g=g)
        for crit in self.criteria:
            crit.add_to(am)
        self._add_options(am)
        return am

    def _add_options(self, am: AssignmentModel) -> None:
        """Budget, output homogeneity and the objective (MODELS.md §2, options)."""
        lm, c = am.lm, am.cands
        w = c.cost[am.pair_cand].astype(float)
        if self.budget is not None:  # Σ w_j g_ij <= s
            lm.add_rows("budget", 1, rows=np.zeros(am.g.shape[0], np.int64), cols=am.g, vals=w,
                        upper=float(self.budget))
        if self.t_out_min is not None or self.t_out_max is not None:
            C = c.n_candidates
            lm.add_rows("t_out", 1, rows=np.zeros(C, np.int64), cols=am.y, vals=1.0,
                        lower=float(self.t_out_min) if self.t_out_min is not None else -np.inf,
                        upper=float(self.t_out_max) if self.t_out_max is not None else np.inf)
        if self.objective == "rows":  # rows with at least one recoded cell (any level > 0, even at cost 0)
            lm.col_cost[1] = (c.levels > 0).any(axis=1)[am.pair_cand].astype(float)
        elif self.objective == "types":  # maximize Σ y_j  ==  minimize −Σ y_j
            lm.col_cost[1] = np.zeros(am.g.shape[0])
            lm.col_cost[0] = -np.ones(c.n_candidates)

    def to_pulp(self, table: Table):
        """The model of ``table`` as a :class:`pulp.LpProblem` (for export or other solvers)."""
        self.validate(table)
        types = RowTypes.from_table(table)
        units = Units.of(table, types, self.split)
        cands = self.prune_candidates(table, units, self.candidates(types, table))
        am = self.build(table, types, cands, units)
        return am.lm.to_pulp()[0]

    def inspect(self, table: Table, *, lp: bool = False, time_limit: float | None = None) -> dict:
        """Sizes of every stage (types, units, candidates per pruning, model estimate) without solving.

        With ``lp=True`` (k-anonymity alone) also the LP bound by column
        generation and, for thresholds ``G = ⌈LP⌉ + 1, 4, 16, 64`` grid steps,
        the pairs and candidates of the model the Lagrangian reduction would
        build (``formulations/reduction.md``).
        """
        self.validate(table)
        t0 = time.perf_counter()
        types = RowTypes.from_table(table)
        units = Units.of(table, types, self.split)
        why = self.infeasibility(table)
        info = {"n_rows": table.n, "m": table.m, "t_in": types.t_in, "criteria": [c.describe() for c in self.criteria],
                "infeasible": why}
        if self.split:
            info["n_units"] = units.n_units
        if not why:
            cands = self.prune_candidates(table, units, self.candidates(types, table))
            n_pairs = units.count_pairs(cands.pair_type, types.t_in)
            info.update(candidates=dict(cands.counts), n_candidates=cands.n_candidates, n_pairs=n_pairs,
                        **estimate_size(units, n_pairs, cands, self.criteria, table))
            if lp:
                info["lagrangian"] = self._inspect_lagrangian(table, types, cands, time_limit)
        info["seconds"] = round(time.perf_counter() - t0, 3)
        return info

    def _inspect_lagrangian(self, table: Table, types: RowTypes, cands: Candidates, time_limit) -> dict:
        from ..lagrangian import column_generation, pair_thresholds

        why = self.reduction_unavailable(SolverOptions(), False, cands, table.n)
        if why:
            raise InputError(f"--lp: the Lagrangian reduction does not apply here: {why}")
        k = self.min_group_size()
        cg = column_generation(types.counts, cands.cost, cands.pair_type, cands.pair_cand, k, time_limit=time_limit)
        integral, step = _objective_grid(cands)
        lb = _first_lower_bound(cg.bound, cands, integral)
        kept = {}
        thresholds = pair_thresholds(cg.prices, cands.pair_cand, integral)
        for mult in (1, 4, 16, 64):
            G = lb + mult * step
            sub = cands.restrict_pairs(thresholds < G, types.counts, k, "G")
            kept[f"{G:g}"] = {"pairs": sub.n_pairs, "candidates": sub.n_candidates}
        return {"lp_bound": cg.bound, "converged": cg.converged, "iterations": cg.iterations,
                "seconds": round(cg.seconds, 3), "master_candidates": cg.master_candidates,
                "master_pairs": cg.master_pairs, "kept_below": kept}

    def _option_names(self) -> tuple:
        out = []
        if self.budget is not None:
            out.append(f"budget {self.budget:g}")
        if self.t_out_min is not None and self.t_out_min == self.t_out_max:
            out.append(f"t_out = {self.t_out_min}")
        else:
            if self.t_out_min is not None:
                out.append(f"t_out >= {self.t_out_min}")
            if self.t_out_max is not None:
                out.append(f"t_out <= {self.t_out_max}")
        if self.objective != "cost":
            out.append(f"objective {self.objective}")
        return tuple(out)

    def _check_warm_start(self, table: Table) -> None:
        if self.warm_start == "greedy":
            if not isinstance(self.recoding, (Patterns, Suppression)):
                raise InputError("the greedy warm start applies to suppression and pattern-guided recoding")
            if self.split and isinstance(self.recoding, Patterns):
                raise InputError("the pattern greedy warm start applies to k-anonymity alone (no sensitive criteria)")

    def greedy_start(self, am: AssignmentModel):
        """A start from a verified heuristic table mapped onto candidates.

        Suppression: the cheaper of the plain suppression greedy (any
        criteria) and, for k alone, the pattern greedy over every mask;
        patterns: the pattern greedy (Algorithm 1). Returns ``(indices, values, cost)``;
        rows whose released vector is not a kept candidate are left out
        (HiGHS completes a partial start).
        """
        from ..heuristics import pattern_greedy, suppression_greedy

        table = am.table
        if isinstance(self.recoding, Patterns):
            out = pattern_greedy(table, self.min_group_size(), self.recoding.masks(table))
        else:
            out = suppression_greedy(table, self.criteria)
            if not self.split and table.m <= 16:  # k alone: also the pattern greedy over every mask
                masks = np.array(list(itertools.product([True, False], repeat=table.m)), dtype=bool)
                alt = pattern_greedy(table, self.min_group_size(), masks)
                if alt is not None and (out is None or alt[1] < out[1]):
                    out = alt
        if out is None:
            return None
        released, cost = out
        # the greedy's table must meet the criteria (else the greedy has a bug: raise); a table
        # outside a budget or t_out bound is merely no start
        v = _verify.verify_release(table.frame, released, table.qi, self.criteria, sensitive=table.sensitive,
                                   claimed_cost=cost, recoding=self.recoding)
        try:
            _verify.verify_options(table.frame, released, table.qi, v, budget=self.budget,
                                   t_out_min=self.t_out_min, t_out_max=self.t_out_max)
        except VerificationError:
            return None
        c = am.cands
        index = {(tuple(c.levels[j]), tuple(c.nodes[j])): j for j in range(c.n_candidates)}
        lat = self.lattices(table)
        stars = (released[list(table.qi)].astype(str) == "*").to_numpy()
        cand_of_row = np.full(table.n, -1, dtype=np.int64)
        for r in range(table.n):
            levels = tuple(int(x) for x in stars[r])
            nodes = tuple(int(lat[col].anc[table.codes[r, col], lv]) for col, lv in enumerate(levels))
            cand_of_row[r] = index.get((levels, nodes), -1)
        ok = cand_of_row >= 0
        g = np.zeros(am.g.shape[0])
        pair_index = {(int(u), int(j)): p for p, (u, j) in enumerate(zip(am.pair_unit, am.pair_cand))}
        for u, j in zip(am.units.row_unit[ok], cand_of_row[ok]):
            g[pair_index[(int(u), int(j))]] += 1
        used = np.zeros(c.n_candidates)
        used[np.unique(cand_of_row[ok])] = 1.0
        if ok.all():
            return np.concatenate([am.y, am.g]), np.concatenate([used, g]), cost
        have = np.flatnonzero(used)  # fix only the candidates that are fully described
        return am.y[have], used[have], cost

    def whole_table_start(self, am: AssignmentModel):
        """The whole table as one group, as a sparse start ``(indices, values)``.

        Every criterion is closed under union and the request passed the
        whole-table pre-check, so releasing every row as the closure of the
        whole table (the cheapest candidate whose capacity is ``n``) is
        feasible. HiGHS completes the auxiliary columns.
        """
        c = am.cands
        full = np.flatnonzero(c.capacity == am.table.n)
        if full.size == 0:
            return None
        root = int(full[np.argmin(c.cost[full])])
        idx = [am.y, am.g]
        val = [(np.arange(c.n_candidates) == root).astype(float),
               np.where(am.pair_cand == root, am.units.counts[am.pair_unit], 0).astype(float)]
        if am._size is not None:
            idx.append(am._size)
            val.append(np.where(np.arange(c.n_candidates) == root, float(am.table.n), 0.0))
        for col, (cell_cand, cell_val, cvar) in am._cells.items():
            counts = np.bincount(am.table.sensitive_codes[:, col], minlength=len(am.table.sensitive_values[col]))
            idx.append(cvar)
            val.append(np.where(cell_cand == root, counts[cell_val], 0).astype(float))
        return np.concatenate(idx), np.concatenate(val)

    def fallback(self, table: Table):
        """The best verified heuristic release when the solver has no incumbent.

        Suppression: the plain suppression greedy and (k alone) the pattern
        greedy over every mask; patterns: the pattern greedy;
        always also the whole table as one class (feasible whenever the request
        passed the whole-table pre-check). Returns ``(released, groups, cost,
        objective, how)`` for the cheapest that passes the verifier and the
        options, or ``None``.
        """
        from ..heuristics import pattern_greedy, suppression_greedy
        from ..partition import blocks_of, release_blocks

        tries = []
        try:
            if isinstance(self.recoding, Suppression):
                out = suppression_greedy(table, self.criteria)
                if out is not None:
                    tries.append(("suppression greedy", out[0]))
                if not self.split and table.m <= 16:
                    masks = np.array(list(itertools.product([True, False], repeat=table.m)), dtype=bool)
                    out = pattern_greedy(table, self.min_group_size(), masks)
                    if out is not None:
                        tries.append(("pattern greedy", out[0]))
            elif isinstance(self.recoding, Patterns) and not self.split:
                out = pattern_greedy(table, self.min_group_size(), self.recoding.masks(table))
                if out is not None:
                    tries.append(("pattern greedy", out[0]))
        except VerificationError:
            raise
        except MilpAnonError:
            pass
        try:
            tries.append(("whole table", release_blocks(table, [np.arange(table.n)], self.recoding)))
        except MilpAnonError:
            pass
        best = None
        for how, released in tries:
            try:
                v = _verify.verify_release(table.frame, released, table.qi, self.criteria,
                                           sensitive=table.sensitive, recoding=self.recoding)
                value = _verify.verify_options(table.frame, released, table.qi, v, budget=self.budget,
                                               t_out_min=self.t_out_min, t_out_max=self.t_out_max,
                                               objective=self.objective)
            except VerificationError:
                continue
            key = -value if self.objective == "types" else value
            if best is None or key < best[0]:
                blocks = blocks_of(released, table.qi)
                groups = np.empty(table.n, dtype=np.int64)
                for gi, b in enumerate(blocks):
                    groups[b] = gi
                best = (key, (released, groups, v.cost, value, how))
        return None if best is None else best[1]

    # -- solution --------------------------------------------------------------------
    def _check_assignment(self, am: AssignmentModel, used: np.ndarray, g: np.ndarray) -> str | None:
        if np.any(g < 0):
            return "negative assignment"
        per_unit = np.bincount(am.pair_unit, weights=g, minlength=am.units.n_units)
        if not np.array_equal(per_unit.astype(np.int64), am.units.counts):
            return "rows of some unit not released exactly once"
        if np.any((g > 0) & ~used[am.pair_cand]):
            return "rows released into an unused candidate"
        for crit in self.criteria:
            why = crit.check_assignment(am, used, g)
            if why:
                return why
        return None

    def _extract(self, am: AssignmentModel, x: np.ndarray, options: SolverOptions):
        used = x[am.y] > 0.5
        graw = x[am.g]
        g = np.rint(graw)
        integral = np.all(np.abs(graw - g) <= 1e-6)
        why = None if integral else "fractional assignment"
        why = why or self._check_assignment(am, used, g)
        if why is None:
            return used, g.astype(np.int64), None
        # exact repair: the assignment problem for the chosen y, with g integer
        lm = am.lm
        a = lm.arrays()
        lo, up, integer = a["lower"].copy(), a["upper"].copy(), a["integer"].copy()
        lo[am.y] = up[am.y] = used.astype(float)
        integer[am.g] = True
        fixed = dataclasses.replace(lm, col_lower=[lo], col_upper=[up], col_integer=[integer],
                                    var_blocks=dict(lm.var_blocks))
        out = solve_model(fixed, SolverOptions(time_limit=options.time_limit, threads=options.threads))
        if out.x is None:
            raise VerificationError(f"solver returned an invalid assignment ({why}) that could not be repaired")
        g2 = np.rint(out.x[am.g])
        why2 = self._check_assignment(am, used, g2)
        if why2:
            raise VerificationError(f"repaired assignment still invalid: {why2}")
        return used, g2.astype(np.int64), why

    def release(self, table: Table, am: AssignmentModel, g: np.ndarray):
        """The released table and per-row groups from an integral assignment."""
        c = am.cands
        order = np.lexsort((am.pair_cand, am.pair_unit))
        cand_of_sorted_row = np.repeat(am.pair_cand[order], g[order])
        rows_by_unit = np.argsort(am.units.row_unit, kind="stable")
        cand_of_row = np.empty(table.n, dtype=np.int64)
        cand_of_row[rows_by_unit] = cand_of_sorted_row
        out = table.frame.copy()
        for col_idx, (col, lat) in enumerate(zip(table.qi, self.lattices(table))):
            names = np.array(lat.names, dtype=object)
            out[col] = names[c.nodes[cand_of_row, col_idx]]
        _, groups = np.unique(cand_of_row, return_inverse=True)
        cost = c.cost[cand_of_row].sum()
        cost = int(cost) if np.issubdtype(c.cost.dtype, np.integer) else float(cost)
        return out, groups.ravel(), cost

    def verify(self, table: Table, released, cost) -> float:
        """Run the independent verifier for every criterion and option (raises on failure).

        Returns the objective value recounted from the released table.
        """
        v = _verify.verify_release(table.frame, released, table.qi, self.criteria, sensitive=table.sensitive,
                                   claimed_cost=cost, recoding=self.recoding)
        return _verify.verify_options(table.frame, released, table.qi, v, budget=self.budget,
                                      t_out_min=self.t_out_min, t_out_max=self.t_out_max,
                                      objective=self.objective)

    def _check_memory(self, table: Table, types: RowTypes, units: Units, cands: Candidates,
                      options: SolverOptions, export: bool) -> None:
        """Refuse, before building, a model estimated above the memory allowed."""
        n_pairs = units.count_pairs(cands.pair_type, types.t_in)
        est = estimate_size(units, n_pairs, cands, self.criteria, table)
        need = est["bytes_highs"] if (options.is_highs and not options.via_pulp and not export) \
            else est["bytes_pulp"]
        limit = options.max_memory_gb * 2**30 if options.max_memory_gb else 0.8 * available_memory_bytes()
        if need > limit:
            raise ModelTooLargeError(
                f"the model would need about {need / 2**30:.1f} GiB ({est['n_variables']:,} variables, "
                f"{est['n_nonzeros']:,} nonzeros) but {limit / 2**30:.1f} GiB is allowed; "
                "use fewer QI columns or a smaller table"
            )

    def reduction_unavailable(self, options: SolverOptions, export: bool = False,
                              cands: Candidates | None = None, n_rows: int | None = None) -> str | None:
        """Why the Lagrangian reduction does not apply to this request, or ``None`` if it does."""
        if self.split or not all(isinstance(c, KAnonymity) for c in self.criteria):
            return "it covers k-anonymity alone (no sensitive criterion)"
        if self.objective != "cost" or self.budget is not None or self.t_out_min is not None \
                or self.t_out_max is not None:
            return "it covers the cost objective without budget or t_out options"
        if not options.is_highs or options.via_pulp:
            return "it runs on HiGHS through highspy"
        if export:
            return "MPS/LP export writes the whole model"
        if cands is not None and not np.any(cands.capacity >= n_rows):
            # its first master is the whole table as one class (e.g. a pattern set without all-'*')
            return "no candidate holds the whole table"
        return None

    def _solve_reduced(self, table: Table, types: RowTypes, units: Units, cands: Candidates,
                       options: SolverOptions, secs: dict, sizes: dict, crit_names: tuple,
                       t_start: float) -> Result:
        """Exact Lagrangian reduction (``formulations/reduction.md``).

        1. LP bound over every candidate by column generation: multipliers
           ``π`` and ``L(π)``, the first lower bound ``LB`` (with the type
           bound: every type uses one of its pairs).
        2. Rounds with a threshold ``G <= UB``: ``LB`` + one step first, then
           from the pair count (``ROUND_GROWTH``) and the last round's bound.
           The model restricted to the pairs some solution cheaper than ``G``
           may use is built and solved, stopping once its bound reaches ``G``
           (the first round is polished first, ``ROUND_POLISH``). Its result
           ``c'`` (an upper bound when feasible) with its bound ``B`` gives
           ``LB = max(LB, min(B, G))``: a cheaper solution outside the
           restriction cannot exist. Stop when ``UB <= LB`` (optimal), at the
           requested gap, or at the time limit.
        """
        from ..lagrangian import column_generation, pair_thresholds

        k = self.min_group_size()
        n_t = types.counts
        integral, step = _objective_grid(cands)
        limit = options.time_limit

        def left():
            return None if limit is None else limit - (time.perf_counter() - t_solve)

        t_solve = time.perf_counter()
        cg = column_generation(n_t, cands.cost, cands.pair_type, cands.pair_cand, k,
                               time_limit=None if limit is None else 0.5 * limit, threads=options.threads)
        secs["lp"] = cg.seconds
        lb = _first_lower_bound(cg.bound, cands, integral)
        red = {"lp_bound": cg.bound, "lp_value": cg.lp_value, "lp_converged": cg.converged,
               "cg_iterations": cg.iterations, "master_candidates": cg.master_candidates,
               "master_pairs": cg.master_pairs, "full_candidates": cands.n_candidates,
               "full_pairs": cands.n_pairs, "rounds": []}
        sizes["reduction"] = red
        best = None  # (value, released, groups, cost, how)

        def heuristic():
            nonlocal best
            t = time.perf_counter()
            fb = self.fallback(table)
            secs["warm_start"] = time.perf_counter() - t
            if fb is not None:
                sizes["warm_start_cost"] = fb[2]
                if best is None or fb[3] < best[0] - 1e-9:
                    best = (float(fb[3]), fb[0], fb[1], fb[2], fb[4])
            return math.inf if best is None else best[0]

        if self.warm_start == "greedy":
            heuristic()
        ub = math.inf if best is None else best[0]
        solver_status, timed_out = "", False
        counts = dict(cands.counts)
        # S(G) = {pairs: threshold < G}; sorted, it gives the G of a wanted size at once
        thresholds = pair_thresholds(cg.prices, cands.pair_cand, integral)
        by_threshold = np.sort(thresholds)
        # every solution uses a pair of every type, and costs at least that pair's bound
        floor = np.full(types.t_in, np.inf)
        np.minimum.at(floor, cands.pair_type, thresholds)
        lb = max(lb, float(floor.max()))
        red["type_bound"] = float(floor.max())
        last_pairs, last_bound = 0, -math.inf

        def g_for(n_pairs):
            """The largest G whose S(G) has at most ``n_pairs`` pairs."""
            return float(by_threshold[n_pairs]) if n_pairs < by_threshold.shape[0] else math.inf
        while ub > lb + 1e-9 and not (options.gap and relative_gap(ub, lb) <= options.gap):
            remaining = left()
            if remaining is not None and remaining <= 0:
                timed_out = True
                break
            G = lb + step
            if last_pairs:
                G = max(G, g_for(ROUND_GROWTH * last_pairs))
                if last_bound > G:
                    # the last restriction's bound lies beyond: its optimum is at least that, so
                    # aim there, with up to ROUND_GROWTH² times the pairs
                    G = max(G, min(last_bound, g_for(ROUND_GROWTH ** 2 * last_pairs)))
            G = min(ub, G)
            keep = thresholds < G
            if keep.all():  # nothing is fixed: the whole model, whose optimum settles it
                G = ub
            rnd = {"G": G if math.isfinite(G) else None, "pairs": int(keep.sum())}
            red["rounds"].append(rnd)
            sub = cands.restrict_pairs(keep, n_t, k, "lagrangian")
            covered = np.zeros(types.t_in, dtype=bool)
            covered[sub.pair_type] = True
            if not covered.all():
                # some row type has no pair left: every solution costs at least G
                rnd.update(status="empty", candidates=0)
                lb = max(lb, G)
                continue
            counts = dict(sub.counts)
            first_built, last_pairs = not last_pairs, sub.n_pairs
            rnd.update(candidates=sub.n_candidates, pairs=sub.n_pairs)
            _log.info("reduction round %d: G = %g (LB %g, UB %g): %d pairs, %d candidates", len(red["rounds"]), G,
                      lb, ub, sub.n_pairs, sub.n_candidates)
            try:
                self._check_memory(table, types, units, sub, options, False)
            except ModelTooLargeError as exc:
                # a memory limit ends the rounds like a time limit: the incumbent (or the best
                # verified heuristic table) is released with the lower bound proven so far
                rnd["status"] = "too large"
                solver_status = f"stopped before round {len(red['rounds'])}: {exc}"
                timed_out = True
                break
            t = time.perf_counter()
            am = self.build(table, types, sub, units)
            secs["build"] = secs.get("build", 0.0) + time.perf_counter() - t
            sizes.update(n_candidates=sub.n_candidates, n_pairs=int(am.pair_unit.shape[0]),
                         n_variables=am.lm.n_cols, n_integer=am.lm.n_integer, n_constraints=am.lm.n_rows,
                         n_nonzeros=am.lm.n_nonzeros)
            t = time.perf_counter()
            if first_built and remaining is not None and self.warm_start != "greedy":
                # room for the heuristic table after the first round (below)
                remaining *= 1.0 - HEURISTIC_SHARE
            sub_opts = dataclasses.replace(options, time_limit=remaining)
            # only min(B, G) is used, so a round may stop once its bound reaches G; the first
            # (smallest) round first looks for a good incumbent for a while: the later rounds stop
            # early and find poor ones, and G = UB ends the rounds at once when UB is optimal
            polish = 0.0
            if first_built:
                polish = ROUND_POLISH * (remaining if remaining is not None else ROUND_POLISH_UNLIMITED)
            out = solve_model(am.lm, sub_opts, integral_objective=integral, hint=self.whole_table_start(am),
                              stop_bound=StopAtBound(G, polish) if math.isfinite(G) else None)
            secs["solve"] = secs.get("solve", 0.0) + time.perf_counter() - t
            solver_status = out.solver_status
            rnd.update(status=out.status, seconds=round(time.perf_counter() - t, 3))
            if out.x is not None:
                t = time.perf_counter()
                used, g, _ = self._extract(am, out.x, options)
                released, groups, cost = self.release(table, am, g)
                value = self.verify(table, released, cost)
                secs["verify"] = secs.get("verify", 0.0) + time.perf_counter() - t
                rnd["objective"] = float(value)
                if value < ub:
                    ub, best = float(value), (float(value), released, groups, cost, None)
            if out.status == "infeasible":
                sub_bound = math.inf
            else:
                sub_bound = -math.inf if out.bound is None else out.bound
            rnd["bound"] = None if not math.isfinite(sub_bound) else sub_bound
            last_bound = sub_bound
            if out.status in ("time_limit", "no_solution") and sub_bound >= G:
                rnd["status"] = "stopped at G"  # no solution cheaper than G in the restriction
            lb = max(lb, min(sub_bound, G))
            if first_built and limit is not None and left() > 0 and self.warm_start != "greedy" \
                    and (best is None or relative_gap(ub, lb) > HEURISTIC_GAP):
                # later rounds stop at G with poor incumbents: with a time limit, the heuristic
                # table now, inside the limit, when the first round left a gap
                ub = heuristic()
            if out.status in ("time_limit", "no_solution") and sub_bound < G:
                timed_out = True
                break
        secs["solve"] = secs.get("solve", 0.0) + secs["lp"]
        red["lower_bound"] = lb
        common = dict(seconds=secs, sizes=sizes, candidate_counts=counts, criteria=crit_names,
                      solver=options.solver, solver_status=solver_status)
        if best is None:
            # never empty-handed: the best verified heuristic table, labelled as a limit result
            t = time.perf_counter()
            fb = self.fallback(table)
            secs["fallback"] = time.perf_counter() - t
            if fb is None:
                secs["total"] = time.perf_counter() - t_start
                return Result(status="no_solution", bound=lb, **common)
            best = (float(fb[3]), fb[0], fb[1], fb[2], fb[4])
            ub = best[0]
        value, released, groups, cost, how = best
        if how is not None:
            sizes["fallback"] = how
        if lb > value + 1e-6:
            raise VerificationError(f"lower bound {lb} beyond the verified objective {value}")
        gap = relative_gap(value, lb)
        if gap == 0:
            status = "optimal"
        elif not timed_out and options.gap:
            status = "gap_limit"
        else:
            status = "time_limit"
        secs["total"] = time.perf_counter() - t_start
        return Result(status=status, objective=float(value), bound=lb, gap=gap, cost=float(cost), table=released,
                      groups=groups, verified=True, **common)

    # -- the whole pipeline ------------------------------------------------------------------
    def solve(self, table: Table, options: SolverOptions | None = None, *, mps: str | None = None,
              lp_file: str | None = None) -> Result:
        """Collapse, generate candidates, build, solve, verify.

        Returns a :class:`Result`; an infeasible request is a result with
        status ``infeasible`` and a ``reason``.
        """
        options = options or SolverOptions()
        self.validate(table)
        crit_names = tuple(c.describe() for c in self.criteria) + self._option_names()
        secs = {}
        t = time.perf_counter()
        t_start = t
        why = self.infeasibility(table)
        types = RowTypes.from_table(table)
        units = Units.of(table, types, self.split)
        secs["collapse"] = time.perf_counter() - t
        sizes = {"n_rows": table.n, "t_in": types.t_in}
        if self.split:
            sizes["n_units"] = units.n_units
        if why:
            secs["total"] = time.perf_counter() - t_start
            return Result(status="infeasible", reason=why, seconds=secs, sizes=sizes, criteria=crit_names,
                          solver=options.solver, solver_status="pre-check")
        t = time.perf_counter()
        cands = self.prune_candidates(table, units, self.candidates(types, table))
        secs["candidates"] = time.perf_counter() - t
        why = self.unhostable(table, types, cands)
        if why:
            secs["total"] = time.perf_counter() - t_start
            return Result(status="infeasible", reason=why, seconds=secs, sizes=sizes, criteria=crit_names,
                          candidate_counts=dict(cands.counts), solver=options.solver, solver_status="pre-check")
        export = bool(mps or lp_file)
        why_not = self.reduction_unavailable(options, export, cands, table.n)
        if self.reduction == "lagrangian" and why_not:
            raise InputError(f"the Lagrangian reduction does not apply here: {why_not}")
        if self.reduction != "none" and why_not is None:
            return self._solve_reduced(table, types, units, cands, options, secs, sizes, crit_names, t_start)
        self._check_memory(table, types, units, cands, options, export)
        t = time.perf_counter()
        am = self.build(table, types, cands, units)
        if mps or lp_file:
            prob, _ = am.lm.to_pulp()
            if mps:
                prob.writeMPS(mps)
            if lp_file:
                prob.writeLP(lp_file)
        secs["build"] = time.perf_counter() - t
        sizes.update(
            n_candidates=cands.n_candidates,
            n_pairs=int(am.pair_unit.shape[0]),
            n_variables=am.lm.n_cols,
            n_integer=am.lm.n_integer,
            n_constraints=am.lm.n_rows,
            n_nonzeros=am.lm.n_nonzeros,
        )
        t = time.perf_counter()
        hint = None
        if options.is_highs and not options.via_pulp:
            hint = self.whole_table_start(am)
            if self.warm_start == "greedy":
                t_ws = time.perf_counter()
                start = self.greedy_start(am)
                secs["warm_start"] = time.perf_counter() - t_ws
                if start is not None:
                    hint = start[:2]
                    sizes["warm_start_cost"] = start[2]
        # every feasible objective lies on a grid 1/D (D = 1: integers); bounds are rounded up to it
        integral = True if (np.issubdtype(cands.cost.dtype, np.integer) or self.objective != "cost") \
            else objective_grid(cands.cost)
        out = solve_model(am.lm, options, integral_objective=integral, hint=hint)
        secs["solve"] = time.perf_counter() - t
        common = dict(seconds=secs, sizes=sizes, candidate_counts=dict(cands.counts), criteria=crit_names,
                      solver=options.solver, solver_status=out.solver_status)
        if out.x is None and out.status in ("time_limit", "no_solution"):
            # never empty-handed: the solver stopped without an incumbent; release the best
            # verified heuristic table instead, labelled as a limit result with the bound
            t = time.perf_counter()
            fb = self.fallback(table)
            secs["fallback"] = time.perf_counter() - t
            if fb is not None:
                released, groups, cost, value, how = fb
                secs["total"] = time.perf_counter() - t_start
                sizes["fallback"] = how
                sign = -1.0 if self.objective == "types" else 1.0
                bound = out.bound
                if bound is not None and bound > sign * value + 1e-6:
                    raise VerificationError(f"bound {bound} beyond the verified fallback objective {value}")
                return Result(status="time_limit", objective=float(value),
                              bound=None if bound is None else sign * bound,
                              gap=relative_gap(sign * float(value), bound), cost=float(cost), table=released,
                              groups=groups, verified=True, **common)
        if out.x is None:
            secs["total"] = time.perf_counter() - t_start
            reason = "the solver proved the model infeasible" if out.status == "infeasible" else None
            return Result(status=out.status, bound=out.bound, reason=reason, **common)
        t = time.perf_counter()
        used, g, repaired = self._extract(am, out.x, options)
        released, groups, cost = self.release(table, am, g)
        value = self.verify(table, released, cost)
        secs["verify"] = time.perf_counter() - t
        secs["total"] = time.perf_counter() - t_start
        status, bound = out.status, out.bound
        sign = -1.0 if self.objective == "types" else 1.0  # the model minimizes −types
        if bound is not None and bound > sign * value + 1e-6:
            raise VerificationError(f"bound {bound} beyond the verified objective {value}")
        gap = relative_gap(sign * float(value), bound)
        if status == "optimal" and gap != 0:
            # the repaired or recounted objective is off the bound: not proven
            status = "gap_limit"
        if status == "time_limit" and gap:
            # stopped early: release the heuristic table instead when it is better than the incumbent
            t = time.perf_counter()
            fb = self.fallback(table)
            secs["fallback"] = time.perf_counter() - t
            secs["total"] = time.perf_counter() - t_start
            if fb is not None and sign * fb[3] < sign * float(value) - 1e-9:
                released, groups, cost, value, sizes["fallback"] = fb
                gap = relative_gap(sign * float(value), bound)
        return Result(status=status, objective=float(value), bound=None if bound is None else sign * bound,
                      gap=gap, cost=float(cost), table=released, groups=groups, verified=True, **common)
