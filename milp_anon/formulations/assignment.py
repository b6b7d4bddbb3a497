"""The assignment model shared by every problem (``formulations/k-anonymity.md``).

Variables: ``y_j`` binary (candidate ``j`` used) and ``g_uj >= 0`` for every
compatible (unit, candidate) pair (rows of unit ``u`` released as ``j``)::

    min   Σ_j w_j Σ_u g_uj
    s.t.  Σ_j g_uj = n_u            ∀ u      (every row released once)
          g_uj <= n_u · y_j         ∀ u, j   (only into used candidates)
          Σ_u g_uj >= f_j · y_j     ∀ j      (floor rows, where f_j > k: the fewest rows of a legal group)
          + the rows of each criterion (:mod:`.rows`) and option (:mod:`.options`)

With record suppression (``max_suppressed_records = N``) a column ``r_u``
per unit counts its withheld records: ``Σ_j g_uj + r_u = n_u``,
``Σ_u r_u <= N``, cost ``W`` (every QI cell at its root) per record
(``formulations/record-suppression.md``). An assignment vector is then
``[g, r]``: the pairs, then one withheld pseudo-pair per unit.

For fixed ``y`` the rest is ROW ASSIGNMENT, a min-cost flow with integral
data (Bredereck et al. 2013, Lemma 1), so ``g`` is continuous and an optimal
vertex is integral. The solver's ``g`` is rounded and checked against every
criterion's group test; if the check fails (a non-vertex or tolerance drift)
the assignment is re-solved exactly for the chosen ``y`` with ``g`` integer
(:func:`read_assignment`).

This module knows the model's columns and nothing of solving strategies,
heuristics or results.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from milp_anon.formulations.options import add_option_rows
from milp_anon.formulations.rows import rows_of
from milp_anon.instance.instance import Instance, group_floors
from milp_anon.privacy.criteria import GroupCounts, KAnonymity, first_violation
from milp_anon.runtime.errors import VerificationError
from milp_anon.solvers import SolverOptions, solve_model
from milp_anon.solvers.model import LinearModel

__all__ = ["AssignmentModel", "build", "read_assignment", "release_assignment"]


@dataclass
class AssignmentModel:
    """The built model and the arrays needed to read its solution back.

    ``pair_unit``/``pair_cand`` are the assignment pairs (unit, candidate),
    sorted by candidate; ``g[p]`` is the column of pair ``p``, ``y[j]`` that of
    candidate ``j``. Group sizes ``s_j`` and count cells ``c_jσ`` are created on
    first use by the criteria that need them.
    """

    lm: LinearModel
    instance: Instance
    pair_unit: np.ndarray
    pair_cand: np.ndarray
    y: np.ndarray
    g: np.ndarray
    size_columns: np.ndarray | None = None
    #: the withheld-record columns ``r_u`` (record suppression), else ``None``
    withheld: np.ndarray | None = None
    #: the record-suppression limit ``N``, else ``None``
    max_withheld: int | None = None
    #: per sensitive column: (cell_cand, cell_value, cell_columns, pair_cell)
    count_cells: dict = field(default_factory=dict)
    #: the assignment columns ``g`` are integer; sizes and counts (sums of them) are then declared
    #: integer too. Exact (a sum of integers), and it keeps HiGHS 1.10-1.15.1 with presolve off from
    #: wrong results seen on the continuous form (formulations/p-sensitivity.md, benchmarks/highs/).
    integer: bool = False
    #: the rows added by the sensitive criteria (every criterion but k-anonymity), then the floor rows they imply,
    #: ascending: each is a condition on one candidate's group, so leaving some out relaxes the model
    #: (:mod:`milp_anon.pipeline.row_generation`)
    criterion_rows: np.ndarray | None = None
    #: per t-closeness criterion and sensitive column: ``(row block, t, least ground distance)`` of its rows
    #: ``b Σ u_j − a·scale·n·s_j <= 0`` (one per candidate; ``t = a/b``), whose ``s_j`` coefficients the LP
    #: rounding's slack tightens (:func:`milp_anon.search.lp_rounding.slack_lp`)
    closeness_rows: list = field(default_factory=list)

    @property
    def table(self):
        return self.instance.table

    @property
    def cands(self):
        return self.instance.candidates

    @property
    def units(self):
        return self.instance.units

    def size_vars(self) -> np.ndarray:
        """Columns ``s_j = Σ_u g_uj`` (group size of candidate ``j``), created once."""
        if self.size_columns is None:
            C, P = self.cands.n_candidates, self.pair_cand.shape[0]
            s = self.lm.add_vars("size", C, lower=0, upper=self.cands.capacity.astype(float), integer=self.integer)
            self.lm.add_rows("size_def", C, rows=np.concatenate([np.arange(C), self.pair_cand]),
                             cols=np.concatenate([s, self.g]), vals=np.concatenate([np.ones(C), -np.ones(P)]),
                             lower=0.0, upper=0.0)
            self.size_columns = s
        return self.size_columns

    def cells(self, column: int):
        """Count columns ``c_{jσ}`` for the (candidate, value) cells present in sensitive ``column``.

        Returns ``(cell_cand, cell_value, cell_columns)``: a cell exists when
        some compatible unit of ``j`` carries value ``σ``; absent values count 0.
        """
        if column not in self.count_cells:
            V = len(self.table.sensitive_values[column])
            val = self.units.sensitive[self.pair_unit, column].astype(np.int64)
            uniq, pair_cell = np.unique(self.pair_cand * V + val, return_inverse=True)
            pair_cell = pair_cell.ravel()
            n_cells, P = uniq.shape[0], self.pair_cand.shape[0]
            cap = np.bincount(pair_cell, weights=self.units.counts[self.pair_unit], minlength=n_cells)
            cvar = self.lm.add_vars(f"count{column}", n_cells, lower=0, upper=cap, integer=self.integer)
            self.lm.add_rows(f"count{column}_def", n_cells, rows=np.concatenate([np.arange(n_cells), pair_cell]),
                             cols=np.concatenate([cvar, self.g]),
                             vals=np.concatenate([np.ones(n_cells), -np.ones(P)]), lower=0.0, upper=0.0)
            self.count_cells[column] = (uniq // V, uniq % V, cvar, pair_cell)
        return self.count_cells[column][:3]

    def row_candidates(self, rows: np.ndarray) -> np.ndarray:
        """The candidate each of ``rows`` constrains, ``-1`` for a row over several candidates or none.

        Read from the columns the row mentions that belong to one candidate:
        ``y_j``, the pairs ``g_uj``, the size ``s_j`` and the count cells
        ``c_jσ``. A row of auxiliary columns only (e.g. recursive ℓ-diversity's
        ``T_j >= q λ_j + Σ μ_jσ``) belongs to the candidate of the other rows
        among ``rows`` that mention those columns. Leaving out any row relaxes
        the model, so this decides what a relaxation drops, never its validity.
        """
        owner = np.full(self.lm.n_cols, -1, dtype=np.int64)
        owner[self.y] = np.arange(self.cands.n_candidates)
        owner[self.g] = self.pair_cand
        if self.size_columns is not None:
            owner[self.size_columns] = np.arange(self.cands.n_candidates)
        for cell_cand, _, cvar, _ in self.count_cells.values():
            owner[cvar] = cell_cand
        rows = np.asarray(rows, dtype=np.int64)
        at = np.full(self.lm.n_rows, -1, dtype=np.int64)
        at[rows] = np.arange(rows.shape[0])
        r = np.concatenate([e[0] for e in self.lm.entries])
        c = np.concatenate([e[1] for e in self.lm.entries])
        sel = at[r] >= 0
        r, c = at[r[sel]], c[sel]
        first = _unique_owner(r, owner[c], rows.shape[0])  # -1 mixed, -2 no owned column
        aux = owner[c] < 0
        col_owner = _unique_owner(c[aux], first[r[aux]], self.lm.n_cols)  # each auxiliary column's rows
        second = _unique_owner(r[aux], col_owner[c[aux]], rows.shape[0])
        return np.where(first >= 0, first, np.where((first == -2) & (second >= 0), second, -1))

    # -- solutions -------------------------------------------------------------------
    def split(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """An assignment vector as (rows per pair, withheld rows per unit); zeros without record suppression."""
        P = self.pair_cand.shape[0]
        g = np.asarray(g)
        w = g[P:] if g.shape[0] > P else np.zeros(self.units.n_units, dtype=g.dtype)
        return g[:P], w

    def start(self, g: np.ndarray):
        """A start ``(indices, values)`` releasing ``g[p]`` rows of pair ``p``: the ``y``, ``g``,
        group-size and count columns (HiGHS completes the criteria's auxiliary columns)."""
        C = self.cands.n_candidates
        g, w = self.split(np.asarray(g, dtype=float))
        per_cand = np.bincount(self.pair_cand, weights=g, minlength=C)
        idx, val = [self.y, self.g], [(per_cand > 0).astype(float), g]
        if self.withheld is not None:
            idx.append(self.withheld)
            val.append(w)
        if self.size_columns is not None:
            idx.append(self.size_columns)
            val.append(per_cand)
        for _, _, cvar, pair_cell in self.count_cells.values():
            idx.append(cvar)
            val.append(np.bincount(pair_cell, weights=g, minlength=cvar.shape[0]))
        return np.concatenate(idx), np.concatenate(val)

    def group_counts(self, g: np.ndarray) -> GroupCounts:
        """Size and sensitive counts of every used candidate's group under the assignment ``g``."""
        C, table = self.cands.n_candidates, self.table
        g, _ = self.split(g)
        size = np.bincount(self.pair_cand, weights=g, minlength=C)
        used = np.flatnonzero(size > 0)
        counts = []
        for col in range(self.units.sensitive.shape[1]):  # split units carry the sensitive values
            V = len(table.sensitive_values[col])
            key = self.pair_cand * V + self.units.sensitive[self.pair_unit, col]
            M = np.bincount(key, weights=g, minlength=C * V).reshape(C, V)
            counts.append(np.rint(M[used]).astype(np.int64))
        pop = None if self.cands.population is None else self.cands.population[used]  # k-map, δ-presence
        return GroupCounts.of(table, np.rint(size[used]).astype(np.int64), counts, population=pop)

    def check(self, used: np.ndarray, g: np.ndarray, criteria) -> str | None:
        """Why the integral assignment ``g`` (with candidates ``used``) is not a release meeting
        ``criteria``, or ``None``."""
        if np.any(g < 0):
            return "negative assignment"
        gp, w = self.split(g)
        per_unit = np.bincount(self.pair_unit, weights=gp, minlength=self.units.n_units) + w
        if not np.array_equal(per_unit.astype(np.int64), self.units.counts):
            return "rows of some unit not released exactly once"
        if self.withheld is None and w.any():
            return "rows withheld without record suppression"
        if self.withheld is not None and w.sum() > self.max_withheld:
            return f"{int(w.sum())} records withheld, more than {self.max_withheld}"
        if np.any((gp > 0) & ~used[self.pair_cand]):
            return "rows released into an unused candidate"
        return first_violation(criteria, self.group_counts(gp))

    def release(self, g: np.ndarray) -> tuple[pd.DataFrame, np.ndarray, float]:
        """The released table, per-row groups and cost of an integral assignment (:func:`release_assignment`)."""
        gp, w = self.split(g)
        return release_assignment(self.instance, self.pair_unit, self.pair_cand, gp, w)


def release_assignment(instance: Instance, pair_unit: np.ndarray, pair_cand: np.ndarray, gp: np.ndarray,
                       withheld: np.ndarray | None = None) -> tuple[pd.DataFrame, np.ndarray, float]:
    """The released table, per-row groups and cost of ``gp[p]`` rows of each (unit, candidate) pair.

    A withheld record (record suppression, ``withheld[u]`` per unit) is written with every QI cell at
    its root and has group ``-1``; it costs :attr:`Instance.record_cost`.
    """
    table, c, units = instance.table, instance.candidates, instance.units
    U = units.n_units
    w = np.zeros(U) if withheld is None else withheld
    unit = np.concatenate([pair_unit, np.arange(U)])
    cand = np.concatenate([pair_cand, np.full(U, -1)])  # -1: withheld, after the unit's released rows
    count = np.concatenate([gp, w]).astype(np.int64)
    order = np.lexsort((cand == -1, unit))
    cand_of_sorted_row = np.repeat(cand[order], count[order])
    rows_by_unit = np.argsort(units.row_unit, kind="stable")
    cand_of_row = np.empty(table.n, dtype=np.int64)
    cand_of_row[rows_by_unit] = cand_of_sorted_row
    kept = cand_of_row >= 0
    out = table.frame.copy()
    for col_idx, (col, lat) in enumerate(zip(table.qi, instance.lattices)):
        names = np.array(lat.names, dtype=object)
        node = c.nodes[np.where(kept, cand_of_row, 0), col_idx] if c.n_candidates else 0
        out[col] = names[np.where(kept, node, lat.anc[0, lat.height])]
    groups = np.full(table.n, -1, dtype=np.int64)
    _, groups[kept] = np.unique(cand_of_row[kept], return_inverse=True)
    cost = c.cost[cand_of_row[kept]].sum() + (~kept).sum() * instance.record_cost
    cost = int(cost) if np.issubdtype(np.asarray(cost).dtype, np.integer) else float(cost)
    return out, groups, cost


def _unique_owner(key: np.ndarray, value: np.ndarray, size: int) -> np.ndarray:
    """Per key in ``0..size-1``: the one value ``>= 0`` its entries carry, ``-1`` if several differ,
    ``-2`` if none (values below 0 are ignored)."""
    has = value >= 0
    hi = np.full(size, -1, dtype=np.int64)
    lo = np.full(size, np.iinfo(np.int64).max, dtype=np.int64)
    np.maximum.at(hi, key[has], value[has])
    np.minimum.at(lo, key[has], value[has])
    return np.where(hi < 0, -2, np.where(hi == lo, hi, -1))


def integer_assignment(request) -> bool:
    """Whether the assignment variables are integer (asked for, or needed by a criterion's rows)."""
    return request.model.assignment == "integer" or any(rows_of(c).integer_assignment(c) for c in request.criteria)


def build(instance: Instance, request) -> AssignmentModel:
    """Build the assignment model of ``instance`` for ``request`` from grouped arrays."""
    cands, units = instance.candidates, instance.units
    pair_unit, pair_cand = units.expand_pairs(cands.pair_type, cands.pair_cand)
    lm = LinearModel(name="anonymization")
    C, P = cands.n_candidates, pair_unit.shape[0]
    y = lm.add_vars("y", C, lower=0, upper=1, integer=True)
    n_u = units.counts.astype(float)
    integer = integer_assignment(request)
    g = lm.add_vars("g", P, lower=0, upper=n_u[pair_unit], cost=cands.cost[pair_cand], integer=integer)
    U, N = units.n_units, request.model.max_suppressed_records
    if N is None:
        lm.add_rows("assign", U, rows=pair_unit, cols=g, vals=1.0, lower=n_u, upper=n_u)
        r = None
    else:  # record suppression: r_u withheld records of unit u at the cost of every QI cell at its root
        r = lm.add_vars("withheld", U, lower=0, upper=n_u, cost=float(instance.record_cost),
                        integer=integer)
        lm.add_rows("assign", U, rows=np.concatenate([pair_unit, np.arange(U)]), cols=np.concatenate([g, r]),
                    vals=1.0, lower=n_u, upper=n_u)
        lm.add_rows("records", 1, rows=np.zeros(U, np.int64), cols=r, vals=1.0, upper=float(N))
    pr = np.arange(P)
    lm.add_rows("link", P, rows=np.concatenate([pr, pr]), cols=np.concatenate([g, y[pair_cand]]),
                vals=np.concatenate([np.ones(P), -n_u[pair_unit]]), upper=0.0)
    am = AssignmentModel(lm=lm, instance=instance, pair_unit=pair_unit, pair_cand=pair_cand, y=y, g=g,
                         withheld=r, max_withheld=N, integer=integer)
    lazy = []
    for crit in request.criteria:
        if cands.n_candidates:  # none (record suppression of every row): no group to constrain
            before = lm.n_rows
            rows_of(crit).add(crit, am)
            if not isinstance(crit, KAnonymity) and crit.per_group:  # a row over all candidates stays
                lazy.append(np.arange(before, lm.n_rows, dtype=np.int64))
    if cands.n_candidates:
        lazy.append(_add_floor_rows(am, request))
    am.criterion_rows = np.concatenate(lazy) if lazy else np.zeros(0, dtype=np.int64)
    add_option_rows(am, request.model)
    return am


def _add_floor_rows(am: AssignmentModel, request) -> np.ndarray:
    """``Σ_u g_uj >= f_j · y_j`` for the candidates whose floor ``f_j`` (:func:`~milp_anon.instance.instance.group_floors`:
    the fewest rows of a legal group released as ``j``) exceeds ``min_group_size()``; returns the rows.

    Every integer solution meets them, so the model's optimum is unchanged; its LP no longer opens a candidate
    for a group smaller than any legal one. They follow from the sensitive criteria, so they are criterion
    rows (:attr:`AssignmentModel.criterion_rows`): ``R(A)`` of the row generation keeps those of ``A``'s
    candidates, and ``R(∅)`` stays k-anonymity alone."""
    floors = group_floors(am.instance, request)
    lift = np.flatnonzero(floors > request.min_group_size())
    if not lift.size:
        return np.zeros(0, dtype=np.int64)
    at = np.searchsorted(lift, am.pair_cand)
    mine = np.flatnonzero(lift[np.minimum(at, lift.size - 1)] == am.pair_cand)
    return am.lm.add_rows("floor", lift.size, rows=np.concatenate([at[mine], np.arange(lift.size)]),
                          cols=np.concatenate([am.g[mine], am.y[lift]]),
                          vals=np.concatenate([np.ones(mine.size), -floors[lift].astype(float)]), lower=0.0)


def read_assignment(am: AssignmentModel, x: np.ndarray, criteria, options: SolverOptions,
                    lm: LinearModel | None = None):
    """The integral assignment ``g`` of a solver's column values ``x``, and why it was repaired (or ``None``).

    The rounded ``g`` is checked (:meth:`AssignmentModel.check`); if it fails,
    the assignment problem for the chosen ``y`` is re-solved exactly with
    ``g`` integer, in ``lm`` — the model ``x`` solved, when it is not
    ``am.lm`` itself (a relaxation of the row generation, with ``criteria``
    the ones it holds everywhere). Raises :class:`VerificationError` if that
    fails too.
    """
    lm = am.lm if lm is None else lm
    used = x[am.y] > 0.5
    graw = x[am.g] if am.withheld is None else np.concatenate([x[am.g], x[am.withheld]])
    g = np.rint(graw)
    why = None if np.all(np.abs(graw - g) <= 1e-6) else "fractional assignment"
    why = why or am.check(used, g, criteria)
    if why is None:
        return g.astype(np.int64), None
    # exact repair: the assignment problem for the chosen y, with g integer
    a = lm.arrays()
    lo, up, integer = a["lower"].copy(), a["upper"].copy(), a["integer"].copy()
    lo[am.y] = up[am.y] = used.astype(float)
    integer[am.g] = True
    if am.withheld is not None:
        integer[am.withheld] = True
    fixed = dataclasses.replace(lm, col_lower=[lo], col_upper=[up], col_integer=[integer],
                                var_blocks=dict(lm.var_blocks))
    out = solve_model(fixed, SolverOptions(time_limit=options.time_limit, threads=options.threads))
    if out.x is None:
        raise VerificationError(f"solver returned an invalid assignment ({why}) that could not be repaired")
    g2 = np.rint(out.x[am.g] if am.withheld is None else np.concatenate([out.x[am.g], out.x[am.withheld]]))
    why2 = am.check(used, g2, criteria)
    if why2:
        raise VerificationError(f"repaired assignment still invalid: {why2}")
    return g2.astype(np.int64), why
