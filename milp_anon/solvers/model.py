"""A solver-neutral linear model built from grouped arrays.

Formulations add blocks of variables and blocks of rows as numpy arrays (COO
triplets), never one expression at a time. The same :class:`LinearModel` is

* emitted as a :class:`pulp.LpProblem` (:meth:`LinearModel.to_pulp`), for
  export (MPS/LP) and for every solver PuLP knows, and
* passed to HiGHS in bulk as a column-wise sparse matrix
  (:meth:`LinearModel.to_highs`), which avoids PuLP's per-variable transfer.

Both carry the same variables, rows, names and coefficients.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import highspy
import numpy as np
import pulp

from milp_anon.solvers.highs_banner import new_highs

INF = float("inf")


def _unique(name: str, taken: dict) -> str:
    """``name``, or ``name_2``, ``name_3``, ... if taken (a criterion may appear twice)."""
    if name not in taken:
        return name
    i = 2
    while f"{name}_{i}" in taken:
        i += 1
    return f"{name}_{i}"


@dataclass
class VarBlock:
    name: str
    start: int
    size: int


@dataclass
class RowBlock:
    name: str
    start: int
    size: int


@dataclass
class LinearModel:
    """Minimize ``c·x`` s.t. ``row_lower <= A x <= row_upper``, bounds, integrality."""

    name: str = "milp_anon"
    col_cost: list = field(default_factory=list)
    col_lower: list = field(default_factory=list)
    col_upper: list = field(default_factory=list)
    col_integer: list = field(default_factory=list)
    row_lower: list = field(default_factory=list)
    row_upper: list = field(default_factory=list)
    entries: list = field(default_factory=list)  # (rows, cols, vals) global
    var_blocks: dict = field(default_factory=dict)
    row_blocks: dict = field(default_factory=dict)
    n_cols: int = 0
    n_rows: int = 0

    # -- building ------------------------------------------------------------
    def add_vars(self, name, size, *, lower=0.0, upper=INF, cost=0.0, integer=False) -> np.ndarray:
        """Add a block of ``size`` variables; returns their global indices."""
        size = int(size)
        name = _unique(name, self.var_blocks)
        self.var_blocks[name] = VarBlock(name, self.n_cols, size)
        bc = lambda v, dt=float: np.broadcast_to(np.asarray(v, dtype=dt), (size,)).copy()  # noqa: E731
        self.col_cost.append(bc(cost))
        self.col_lower.append(bc(lower))
        self.col_upper.append(bc(upper))
        self.col_integer.append(bc(integer, bool))
        idx = np.arange(self.n_cols, self.n_cols + size, dtype=np.int64)
        self.n_cols += size
        return idx

    def set_cost(self, name: str, cost) -> None:
        """Replace the objective coefficients of the variable block ``name``."""
        b = list(self.var_blocks).index(name)
        self.col_cost[b] = np.broadcast_to(np.asarray(cost, dtype=float), (self.var_blocks[name].size,)).copy()

    def add_rows(self, name, size, rows, cols, vals, *, lower=-INF, upper=INF) -> np.ndarray:
        """Add ``size`` rows from triplets; ``rows`` are local (0..size-1), ``cols`` global."""
        size = int(size)
        name = _unique(name, self.row_blocks)
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        vals = np.broadcast_to(np.asarray(vals, dtype=float), rows.shape).copy()
        if rows.shape != cols.shape:
            raise ValueError("rows and cols differ in shape")
        if rows.size and (rows.min() < 0 or rows.max() >= size):
            raise ValueError(f"row index out of range in block {name!r}")
        self.row_blocks[name] = RowBlock(name, self.n_rows, size)
        lo = np.broadcast_to(np.asarray(lower, dtype=float), (size,)).copy()
        up = np.broadcast_to(np.asarray(upper, dtype=float), (size,)).copy()
        self.row_lower.append(lo)
        self.row_upper.append(up)
        self.entries.append((rows + self.n_rows, cols, vals))
        idx = np.arange(self.n_rows, self.n_rows + size, dtype=np.int64)
        self.n_rows += size
        return idx

    # -- arrays ----------------------------------------------------------------
    def arrays(self):
        """Concatenated column/row data and the matrix in CSC form."""
        cat = lambda parts, dt=float: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)  # noqa: E731
        cost, lo, up = cat(self.col_cost), cat(self.col_lower), cat(self.col_upper)
        integer = cat(self.col_integer, bool)
        rlo, rup = cat(self.row_lower), cat(self.row_upper)
        r = cat([e[0] for e in self.entries], np.int64)
        c = cat([e[1] for e in self.entries], np.int64)
        v = cat([e[2] for e in self.entries])
        nz = v != 0
        r, c, v = r[nz], c[nz], v[nz]
        order = np.lexsort((r, c))
        r, c, v = r[order], c[order], v[order]
        start = np.zeros(self.n_cols + 1, dtype=np.int64)
        np.cumsum(np.bincount(c, minlength=self.n_cols), out=start[1:])
        return dict(cost=cost, lower=lo, upper=up, integer=integer, row_lower=rlo, row_upper=rup,
                    start=start, index=r, value=v)

    def with_rows(self, keep: np.ndarray) -> LinearModel:
        """The same columns with only the rows where ``keep`` (a bool per row) is true.

        Dropping rows relaxes the model. A column with zero cost that no kept
        row mentions is fixed at its lower bound (0 for every column this
        package builds), so the relaxation carries no free columns; its value
        is then meaningless, as the dropped rows were its only use.
        """
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self.n_rows,):
            raise ValueError("keep needs one flag per row")
        a = self.arrays()
        col = np.repeat(np.arange(self.n_cols), np.diff(a["start"]))
        ent = keep[a["index"]]
        new_row = np.cumsum(keep) - 1
        lo = a["lower"]
        mentioned = np.zeros(self.n_cols, dtype=bool)
        mentioned[col[ent]] = True
        up = np.where(~mentioned & (a["cost"] == 0), lo, a["upper"])
        out = LinearModel(name=self.name, col_cost=[a["cost"]], col_lower=[lo], col_upper=[up],
                          col_integer=[a["integer"]], row_lower=[a["row_lower"][keep]],
                          row_upper=[a["row_upper"][keep]],
                          entries=[(new_row[a["index"][ent]], col[ent], a["value"][ent])],
                          var_blocks=dict(self.var_blocks), n_cols=self.n_cols, n_rows=int(keep.sum()))
        for b in self.row_blocks.values():  # every block keeps its name, with the rows left in it
            left = int(keep[b.start:b.start + b.size].sum())
            if left:
                out.row_blocks[b.name] = RowBlock(b.name, int(new_row[b.start + b.size - 1]) - left + 1, left)
        return out

    def with_scaled(self, block: str, cols: np.ndarray, factor: np.ndarray) -> LinearModel:
        """The same model with the coefficients of row block ``block`` on the columns ``cols`` multiplied by
        ``factor[r]`` in the block's row ``r`` (a shallow copy; only the entries touched are new arrays)."""
        b = self.row_blocks[block]
        factor = np.asarray(factor, dtype=float)
        if factor.shape != (b.size,):
            raise ValueError(f"one factor per row of block {block!r} needed")
        on = np.zeros(self.n_cols, dtype=bool)
        on[np.asarray(cols, dtype=np.int64)] = True
        entries = []
        for rows, cs, vals in self.entries:
            hit = (rows >= b.start) & (rows < b.start + b.size) & on[cs]
            if hit.any():
                vals = vals.copy()
                vals[hit] *= factor[rows[hit] - b.start]
            entries.append((rows, cs, vals))
        return dataclasses.replace(self, entries=entries, col_cost=list(self.col_cost),
                                   col_lower=list(self.col_lower), col_upper=list(self.col_upper),
                                   col_integer=list(self.col_integer), row_lower=list(self.row_lower),
                                   row_upper=list(self.row_upper), var_blocks=dict(self.var_blocks),
                                   row_blocks=dict(self.row_blocks))

    def with_fixed(self, cols: np.ndarray) -> LinearModel:
        """The same model with the columns ``cols`` fixed at their lower bounds (a restriction; a shallow copy
        whose upper bounds are one new array)."""
        upper = np.concatenate(self.col_upper).astype(float) if self.col_upper else np.zeros(0)
        cols = np.asarray(cols, dtype=np.int64)
        upper[cols] = np.concatenate(self.col_lower).astype(float)[cols]
        return dataclasses.replace(self, col_upper=[upper], col_cost=list(self.col_cost),
                                   col_lower=list(self.col_lower), col_integer=list(self.col_integer),
                                   row_lower=list(self.row_lower), row_upper=list(self.row_upper),
                                   entries=list(self.entries), var_blocks=dict(self.var_blocks),
                                   row_blocks=dict(self.row_blocks))

    def with_rows_added(self, name: str, lower, upper, start, index, value) -> LinearModel:
        """The same model with more rows, given row-wise (row ``r`` holds ``value[start[r]:start[r+1]]`` on the
        columns ``index[start[r]:start[r+1]]``), as row block ``name`` (a shallow copy)."""
        lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
        start = np.asarray(start, dtype=np.int64)
        size = lower.shape[0]
        if upper.shape != (size,) or start.shape != (size + 1,):
            raise ValueError("one lower and upper side per row, and one more start than rows, needed")
        rows = np.repeat(np.arange(size, dtype=np.int64), np.diff(start)) + self.n_rows
        out = dataclasses.replace(self, entries=list(self.entries) + [(rows, np.asarray(index, dtype=np.int64),
                                                                       np.asarray(value, dtype=float))],
                                  row_lower=list(self.row_lower) + [lower], row_upper=list(self.row_upper) + [upper],
                                  col_cost=list(self.col_cost), col_lower=list(self.col_lower),
                                  col_upper=list(self.col_upper), col_integer=list(self.col_integer),
                                  var_blocks=dict(self.var_blocks), row_blocks=dict(self.row_blocks),
                                  n_rows=self.n_rows + size)
        out.row_blocks[name] = RowBlock(name, self.n_rows, size)
        return out

    def with_columns(self, keep: np.ndarray) -> LinearModel:
        """Only the columns where ``keep`` (a bool per column), renumbered in order; every row stays. With
        the columns dropped fixed at 0 this is the same model; the column blocks (whose ranges no longer hold)
        are not carried over."""
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self.n_cols,):
            raise ValueError("keep needs one flag per column")
        a = self.arrays()
        col = np.repeat(np.arange(self.n_cols), np.diff(a["start"]))
        ent = keep[col]
        new_col = np.cumsum(keep) - 1
        return LinearModel(name=self.name, col_cost=[a["cost"][keep]], col_lower=[a["lower"][keep]],
                           col_upper=[a["upper"][keep]], col_integer=[a["integer"][keep]],
                           row_lower=[a["row_lower"]], row_upper=[a["row_upper"]],
                           entries=[(a["index"][ent], new_col[col[ent]], a["value"][ent])],
                           row_blocks=dict(self.row_blocks), n_cols=int(keep.sum()), n_rows=self.n_rows)

    def relaxed(self) -> LinearModel:
        """The LP relaxation: the same model with every column continuous (a shallow copy; the arrays are
        shared, never written)."""
        return dataclasses.replace(self, col_integer=[np.zeros_like(b) for b in self.col_integer],
                                   col_cost=list(self.col_cost), col_lower=list(self.col_lower),
                                   col_upper=list(self.col_upper), row_lower=list(self.row_lower),
                                   row_upper=list(self.row_upper), entries=list(self.entries),
                                   var_blocks=dict(self.var_blocks), row_blocks=dict(self.row_blocks))

    @property
    def n_nonzeros(self) -> int:
        return int(sum(int(np.count_nonzero(e[2])) for e in self.entries))

    @property
    def n_integer(self) -> int:
        return int(sum(int(b.sum()) for b in self.col_integer))

    def col_names(self) -> list[str]:
        names: list[str] = []
        for b in self.var_blocks.values():
            names.extend(f"{b.name}_{i}" for i in range(b.size))
        return names

    def row_names(self) -> list[str]:
        names: list[str] = []
        for b in self.row_blocks.values():
            names.extend(f"{b.name}_{i}" for i in range(b.size))
        return names

    # -- backends ------------------------------------------------------------------
    def to_highs(self, highs=None):
        """Pass the model to a :class:`highspy.Highs` object in bulk; returns it."""
        a = self.arrays()
        h = highs if highs is not None else new_highs()
        lp = highspy.HighsLp()
        lp.num_col_ = self.n_cols
        lp.num_row_ = self.n_rows
        lp.col_cost_ = a["cost"]
        lp.col_lower_ = a["lower"]
        lp.col_upper_ = np.where(np.isinf(a["upper"]), highspy.kHighsInf, a["upper"])
        lp.row_lower_ = np.where(np.isinf(a["row_lower"]), -highspy.kHighsInf, a["row_lower"])
        lp.row_upper_ = np.where(np.isinf(a["row_upper"]), highspy.kHighsInf, a["row_upper"])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.num_col_ = self.n_cols
        lp.a_matrix_.num_row_ = self.n_rows
        lp.a_matrix_.start_ = a["start"].astype(np.int32)
        lp.a_matrix_.index_ = a["index"].astype(np.int32)
        lp.a_matrix_.value_ = a["value"]
        if a["integer"].any():
            lp.integrality_ = [
                highspy.HighsVarType.kInteger if f else highspy.HighsVarType.kContinuous for f in a["integer"]
            ]
        status = h.passModel(lp)
        if status == highspy.HighsStatus.kError:
            raise RuntimeError("HiGHS rejected the model (passModel returned an error)")
        return h

    def to_pulp(self):
        """Emit the same model as a :class:`pulp.LpProblem` (with named variables and rows).

        Returns
        -------
        (problem, variables)
            ``variables[k]`` is the PuLP variable of global column ``k``.
        """
        a = self.arrays()
        prob = pulp.LpProblem(self.name, pulp.LpMinimize)
        variables = []
        # PuLP >= 3.3 attaches variables to the problem; older versions construct them directly
        new_var = prob.add_variable if hasattr(prob, "add_variable") else pulp.LpVariable
        for b in self.var_blocks.values():
            sl = slice(b.start, b.start + b.size)
            for k, (lo, up, integer) in enumerate(zip(a["lower"][sl], a["upper"][sl], a["integer"][sl])):
                variables.append(
                    new_var(
                        f"{b.name}_{k}",
                        lowBound=None if np.isinf(lo) else float(lo),
                        upBound=None if np.isinf(up) else float(up),
                        cat=pulp.LpInteger if integer else pulp.LpContinuous,
                    )
                )
        cost = a["cost"]
        nzc = np.flatnonzero(cost)
        prob.setObjective(pulp.LpAffineExpression([(variables[k], float(cost[k])) for k in nzc]))
        # row-wise grouping of the entries (CSR) so every row is built once from its slice
        r = np.concatenate([e[0] for e in self.entries]) if self.entries else np.zeros(0, np.int64)
        c = np.concatenate([e[1] for e in self.entries]) if self.entries else np.zeros(0, np.int64)
        v = np.concatenate([e[2] for e in self.entries]) if self.entries else np.zeros(0)
        order = np.argsort(r, kind="stable")
        r, c, v = r[order], c[order], v[order]
        bounds = np.searchsorted(r, np.arange(self.n_rows + 1))
        names = self.row_names()
        for i in range(self.n_rows):
            lo, up = a["row_lower"][i], a["row_upper"][i]
            s, e = bounds[i], bounds[i + 1]
            expr = pulp.LpAffineExpression([(variables[k], float(x)) for k, x in zip(c[s:e], v[s:e]) if x != 0])
            if lo == up:
                prob.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintEQ, rhs=float(lo)), names[i])
            else:
                if not np.isinf(lo):
                    nm = names[i] if np.isinf(up) else names[i] + "_lo"
                    prob.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintGE, rhs=float(lo)), nm)
                if not np.isinf(up):
                    nm = names[i] if np.isinf(lo) else names[i] + "_up"
                    prob.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintLE, rhs=float(up)), nm)
        return prob, variables
