"""Privacy criteria as composable objects (MODELS.md §2-5).

A criterion states (a) the smallest legal group size it implies, used by the
support pruning of the candidates, and any further safe pruning; (b) why a
table cannot meet it at all, if so: every criterion here is closed under
union of groups, so a request is feasible exactly when the whole table as one
group meets it; (c) the rows and variables it adds to the assignment model.

Criteria on a sensitive column apply to each sensitive column of the table
unless ``column=`` names one. The verifier does *not* use these classes'
models: it checks released tables from the definitions
(:mod:`milp_anon.verify`).
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .errors import InputError


def _positive_int(value, what: str) -> int:
    if isinstance(value, bool):
        raise InputError(f"{what} must be a whole number, got {value!r}")
    if not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise InputError(f"{what} must be a whole number, got {value!r}")
    if value < 1:
        raise InputError(f"{what} must be at least 1, got {value}")
    return int(value)


def _real(value, what: str, lo=None, hi=None) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{what} must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise InputError(f"{what} must be in {rng}, got {value}")
    return v


#: parameters (t, c, frequency ℓ) are read as the nearest fraction with at most this denominator
MAX_DENOMINATOR = 10**6


def exact(value) -> Fraction:
    """The exact rational a parameter stands for: the nearest fraction with a
    denominator of at most 10^6 (0.2 -> 1/5, 0.3333333333333333 -> 1/3).

    The model, the verifier and brute force all compare against this value,
    so a group exactly at the bound is legal everywhere.
    """
    f = Fraction(str(value)) if isinstance(value, float) else Fraction(value)
    return f.limit_denominator(MAX_DENOMINATOR)


class Criterion:
    """Base class: a condition on every output group."""

    name = "criterion"
    #: works on a sensitive column (splits the assignment by sensitive values)
    needs_sensitive = False
    #: needs integer assignment variables (coefficients break total unimodularity)
    integral_assignment = False
    #: uses the group-size columns ``s_j``
    uses_size = False

    def min_group_size(self) -> int:
        """Smallest group size any group meeting the criterion can have."""
        return 1

    def columns(self, table) -> list[int]:
        """Indices of the sensitive columns the criterion applies to."""
        return []

    def validate(self, table) -> None:
        """Raise :class:`InputError` if the criterion cannot be applied to ``table``."""

    def infeasibility(self, table) -> str | None:
        """Why no anonymization of ``table`` can meet the criterion (or ``None``)."""
        return None

    def prune(self, table, units, cands):
        """Drop candidates that provably cannot host a legal group (default: none)."""
        return cands

    def size_estimate(self, dims) -> tuple[int, int, int, int]:
        """(variables, constraints, nonzeros, integer variables) the criterion adds."""
        return 0, 0, 0, 0

    def add_to(self, am) -> None:  # pragma: no cover - interface
        """Add the criterion's rows to an :class:`AssignmentModel`."""
        raise NotImplementedError

    def check_assignment(self, am, y_used: np.ndarray, g: np.ndarray) -> str | None:
        """Check an integral assignment against the criterion; a message if violated."""
        return None

    def describe(self) -> str:
        return self.name


@dataclass(frozen=True)
class KAnonymity(Criterion):
    """k-anonymity: every output group has at least ``k`` rows.

    Adds ``Σ_u x_uj >= k · y_j`` for every candidate ``j`` (MODELS.md §2).
    """

    k: int

    name = "k-anonymity"

    def __post_init__(self):
        object.__setattr__(self, "k", _positive_int(self.k, "k"))

    def min_group_size(self) -> int:
        return self.k

    def infeasibility(self, table) -> str | None:
        if self.k > table.n:
            return f"k = {self.k} exceeds the number of rows n = {table.n}: no group can have k rows"
        return None

    def size_estimate(self, dims):
        return 0, dims["C"], dims["P"] + dims["C"], 0

    def add_to(self, am) -> None:
        C = am.cands.n_candidates
        P = am.pair_cand.shape[0]
        am.lm.add_rows(
            "kanon",
            C,
            rows=np.concatenate([am.pair_cand, np.arange(C)]),
            cols=np.concatenate([am.g, am.y]),
            vals=np.concatenate([np.ones(P), np.full(C, -float(self.k))]),
            lower=0.0,
        )

    def check_assignment(self, am, y_used, g) -> str | None:
        sizes = np.bincount(am.pair_cand, weights=g, minlength=am.cands.n_candidates)
        small = np.flatnonzero((sizes > 0) & (sizes < self.k))
        if small.size:
            return f"group of candidate {int(small[0])} has {int(sizes[small[0]])} < k = {self.k} rows"
        return None

    def describe(self) -> str:
        return f"{self.k}-anonymity"


class _SensitiveCriterion(Criterion):
    """Shared handling of the sensitive column(s) a criterion applies to."""

    needs_sensitive = True
    column: str | None = None

    def columns(self, table) -> list[int]:
        if self.column is None:
            return list(range(len(table.sensitive)))
        return [table.sensitive.index(self.column)]

    def validate(self, table) -> None:
        if not table.sensitive:
            raise InputError(f"{self.describe()} needs a sensitive column (give --sensitive / sensitive=)")
        if self.column is not None and self.column not in table.sensitive:
            raise InputError(
                f"{self.describe()} names column {self.column!r}, which is not a sensitive column "
                f"(sensitive: {', '.join(table.sensitive)})"
            )

    def _whole_table_counts(self, table, col):
        return Counter(table.frame[table.sensitive[col]].tolist())

    def _prune_distinct(self, table, units, cands, need: int):
        """Drop candidates whose compatible rows carry fewer than ``need`` distinct values.

        Safe: a group released as ``j`` holds only compatible rows; closure
        keeps the compatible set, so no closed candidate is lost wrongly.
        """
        if need <= 1:
            return cands
        keep = np.ones(cands.n_candidates, dtype=bool)
        pu, pc = units.expand_pairs(cands.pair_type, cands.pair_cand)
        for col in self.columns(table):
            V = len(table.sensitive_values[col])
            key = np.unique(pc * V + units.sensitive[pu, col])
            distinct = np.bincount(key // V, minlength=cands.n_candidates)
            keep &= distinct >= need
        return cands.subset(keep, stage=f"{self.name} distinct values")


def _column_label(column):
    return "" if column is None else f" on {column!r}"


@dataclass(frozen=True)
class PSensitivity(_SensitiveCriterion):
    """p-sensitivity: every group has at least ``p`` distinct sensitive values.

    The same as distinct ℓ-diversity (Bredereck et al. 2013, Def. 3). Adds
    binaries ``z_jσ <= c_jσ`` and ``Σ_σ z_jσ >= p · y_j`` (MODELS.md §3); for
    fixed ``y, z`` the assignment is p-ROW ASSIGNMENT, a flow with lower
    bounds (Lemma 3), so the assignment stays continuous.
    """

    p: int
    column: str | None = None

    name = "p-sensitivity"

    def __post_init__(self):
        object.__setattr__(self, "p", _positive_int(self.p, "p"))

    def min_group_size(self) -> int:
        return self.p

    def infeasibility(self, table) -> str | None:
        for col in self.columns(table):
            d = len(table.sensitive_values[col])
            if self.p > d:
                return (f"{self.describe()}: p = {self.p} exceeds the {d} distinct values of sensitive "
                        f"column {table.sensitive[col]!r}")
        return None

    def prune(self, table, units, cands):
        return self._prune_distinct(table, units, cands, self.p)

    def size_estimate(self, dims):
        cells = sum(min(dims["P"], dims["C"] * v) for v in dims["V"])
        return cells, cells + dims["C"], 2 * cells + dims["C"] * 2, cells

    def add_to(self, am) -> None:
        _add_distinct(am, self, self.p, "psens")

    def check_assignment(self, am, y_used, g) -> str | None:
        return _check_distinct(am, self, g, self.p)

    def describe(self) -> str:
        return f"{self.p}-sensitivity{_column_label(self.column)}"


def _add_distinct(am, crit, need: int, tag: str):
    C = am.cands.n_candidates
    for col in crit.columns(am.table):
        cell_cand, _, cvar = am.cells(col)
        n_cells = cell_cand.shape[0]
        z = am.lm.add_vars(f"{tag}{col}_z", n_cells, lower=0, upper=1, integer=True)
        r = np.arange(n_cells)
        am.lm.add_rows(f"{tag}{col}_present", n_cells, rows=np.concatenate([r, r]),
                       cols=np.concatenate([z, cvar]), vals=np.concatenate([np.ones(n_cells), -np.ones(n_cells)]),
                       upper=0.0)
        am.lm.add_rows(f"{tag}{col}", C, rows=np.concatenate([cell_cand, np.arange(C)]),
                       cols=np.concatenate([z, am.y]),
                       vals=np.concatenate([np.ones(n_cells), np.full(C, -float(need))]),
                       lower=0.0)


def _group_counts(am, col, g):
    """(C, V) matrix of sensitive counts per candidate from an assignment."""
    V = len(am.table.sensitive_values[col])
    val = am.units.sensitive[am.pair_unit, col]
    M = np.zeros((am.cands.n_candidates, V))
    np.add.at(M, (am.pair_cand, val), g)
    return M


def _check_distinct(am, crit, g, need):
    for col in crit.columns(am.table):
        M = _group_counts(am, col, g)
        used = M.sum(axis=1) > 0
        d = (M > 0).sum(axis=1)
        bad = np.flatnonzero(used & (d < need))
        if bad.size:
            return f"group {int(bad[0])} has {int(d[bad[0]])} distinct values < {need}"
    return None


@dataclass(frozen=True)
class LDiversity(_SensitiveCriterion):
    """ℓ-diversity of a sensitive column in every group.

    Parameters
    ----------
    l
        ℓ (``>= 1``).
    kind
        ``"frequency"`` (default): every value occurs at most ``|G|/ℓ`` times
        (Bredereck et al. 2013, Def. 4); ``"distinct"``: at least ``ℓ``
        distinct values (= p-sensitivity); ``"recursive"``: with the counts
        sorted ``r_1 >= r_2 >= ...``, ``r_1 < c · (r_ℓ + r_{ℓ+1} + ...)``
        (Machanavajjhala et al.).
    c
        The ``c`` of recursive (c,ℓ)-diversity (``>= 1``).
    column
        Restrict to one sensitive column (default: each sensitive column).
    """

    l: float  # noqa: E741 - the papers' name
    kind: str = "frequency"
    c: float | None = None
    column: str | None = None

    name = "l-diversity"

    def __post_init__(self):
        if self.kind not in ("frequency", "distinct", "recursive"):
            raise InputError(f"l-diversity kind must be frequency, distinct or recursive, got {self.kind!r}")
        if self.kind == "frequency":
            object.__setattr__(self, "l", _real(self.l, "l", lo=1))
        else:
            object.__setattr__(self, "l", _positive_int(self.l, "l"))
        if self.kind == "recursive":
            if self.c is None:
                raise InputError("recursive (c,l)-diversity needs c")
            object.__setattr__(self, "c", _real(self.c, "c", lo=1))
        elif self.c is not None:
            raise InputError(f"c applies to recursive l-diversity only, not to {self.kind}")

    @property
    def integral_assignment(self) -> bool:  # type: ignore[override]
        return self.kind != "distinct"

    @property
    def uses_size(self) -> bool:  # type: ignore[override]
        return self.kind != "distinct"

    def min_group_size(self) -> int:
        return math.ceil(self.l - 1e-12)

    def _distinct_needed(self) -> int:
        return math.ceil(self.l - 1e-12)

    def infeasibility(self, table) -> str | None:
        for col in self.columns(table):
            name = table.sensitive[col]
            counts = self._whole_table_counts(table, col)
            d = len(counts)
            if self._distinct_needed() > d:
                return f"{self.describe()}: l = {self.l:g} exceeds the {d} distinct values of sensitive column {name!r}"
            if self.kind == "frequency":
                value, top = counts.most_common(1)[0]
                if exact(self.l) * top > table.n:
                    return (f"{self.describe()}: value {value!r} of {name!r} occurs {top} times in {table.n} rows, "
                            f"more than n/l = {table.n / self.l:.4g}, so even the whole table is not l-diverse")
            if self.kind == "recursive":
                r = sorted(counts.values(), reverse=True)
                if not exact(r[0]) < exact(self.c) * sum(r[self.l - 1:]):
                    return (f"{self.describe()}: the whole table is not recursive ({self.c:g},{self.l})-diverse "
                            f"on {name!r} (r1 = {r[0]}, tail from r{self.l} = {sum(r[self.l - 1:])})")
        return None

    def prune(self, table, units, cands):
        return self._prune_distinct(table, units, cands, self._distinct_needed())

    def size_estimate(self, dims):
        cells = sum(min(dims["P"], dims["C"] * v) for v in dims["V"])
        if self.kind == "distinct":
            return cells, cells + dims["C"], 2 * cells + dims["C"] * 2, cells
        if self.kind == "frequency":
            return 0, cells, 2 * cells, 0
        return cells + 2 * dims["C"], 2 * cells + dims["C"], 8 * cells + 2 * dims["C"], 0

    def add_to(self, am) -> None:
        if self.kind == "distinct":
            _add_distinct(am, self, self.l, "ldiv")
            return
        size = am.size_vars()
        for col in self.columns(am.table):
            cell_cand, _, cvar = am.cells(col)
            n_cells = cell_cand.shape[0]
            r = np.arange(n_cells)
            if self.kind == "frequency":
                # ℓ · c_jσ <= s_j, with ℓ = a/b: a · c_jσ − b · s_j <= 0 (integer coefficients)
                lr = exact(self.l)
                am.lm.add_rows(f"ldiv{col}_freq", n_cells, rows=np.concatenate([r, r]),
                               cols=np.concatenate([cvar, size[cell_cand]]),
                               vals=np.concatenate([np.full(n_cells, float(lr.numerator)),
                                                    np.full(n_cells, -float(lr.denominator))]), upper=0.0)
            else:
                self._add_recursive(am, col, cell_cand, cvar, size)

    def _add_recursive(self, am, col, cell_cand, cvar, size):
        """``b·r_σ + a·T_j <= a·s_j − y_j`` with ``T_j >= top_{ℓ−1}(r)`` (c = a/b).

        ``top_q(r) = min_λ q·λ + Σ_σ max(0, r_σ − λ)`` (LP duality), so
        ``T_j = q·λ_j + Σ_σ μ_jσ`` with ``μ_jσ >= r_σ − λ_j``, ``μ, λ >= 0``
        is an exact upper description. All counts are integers, so the strict
        ``<`` becomes ``<= −1`` once ``y_j = 1``; an unused candidate has all
        zeros and meets the row with ``y_j = 0``.
        """
        C = am.cands.n_candidates
        n_cells = cell_cand.shape[0]
        frac = exact(self.c)
        a, b = float(frac.numerator), float(frac.denominator)
        q = self.l - 1
        r = np.arange(n_cells)
        lm = am.lm
        T = lm.add_vars(f"rdiv{col}_T", C, lower=0)
        if q > 0:
            lam = lm.add_vars(f"rdiv{col}_lambda", C, lower=0)
            mu = lm.add_vars(f"rdiv{col}_mu", n_cells, lower=0)
            # μ_jσ − c_jσ + λ_j >= 0
            lm.add_rows(f"rdiv{col}_mu_def", n_cells, rows=np.concatenate([r, r, r]),
                        cols=np.concatenate([mu, cvar, lam[cell_cand]]),
                        vals=np.concatenate([np.ones(n_cells), -np.ones(n_cells), np.ones(n_cells)]), lower=0.0)
            # T_j − q λ_j − Σ μ_jσ >= 0
            lm.add_rows(f"rdiv{col}_T_def", C, rows=np.concatenate([np.arange(C), np.arange(C), cell_cand]),
                        cols=np.concatenate([T, lam, mu]),
                        vals=np.concatenate([np.ones(C), np.full(C, -float(q)), -np.ones(n_cells)]), lower=0.0)
        # b c_jσ + a T_j − a s_j + y_j <= 0
        lm.add_rows(f"rdiv{col}", n_cells, rows=np.concatenate([r, r, r, r]),
                    cols=np.concatenate([cvar, T[cell_cand], size[cell_cand], am.y[cell_cand]]),
                    vals=np.concatenate([np.full(n_cells, b), np.full(n_cells, a), np.full(n_cells, -a),
                                         np.ones(n_cells)]), upper=0.0)

    def check_assignment(self, am, y_used, g) -> str | None:
        if self.kind == "distinct":
            return _check_distinct(am, self, g, self.l)
        for col in self.columns(am.table):
            M = _group_counts(am, col, g)
            s = M.sum(axis=1)
            for j in np.flatnonzero(s > 0):
                row = M[j]
                if self.kind == "frequency" and exact(self.l) * int(row.max()) > int(s[j]):
                    return f"group {j} not frequency {self.l:g}-diverse"
                if self.kind == "recursive":
                    r = sorted(row.astype(int).tolist(), reverse=True)
                    if not exact(r[0]) < exact(self.c) * sum(r[self.l - 1:]):
                        return f"group {j} not recursive ({self.c:g},{self.l})-diverse"
        return None

    def describe(self) -> str:
        if self.kind == "recursive":
            return f"recursive ({self.c:g},{self.l})-diversity{_column_label(self.column)}"
        return f"{self.kind} {self.l:g}-diversity{_column_label(self.column)}"


DISTANCES = ("equal", "ordered", "hierarchical")


@dataclass(frozen=True)
class TCloseness(_SensitiveCriterion):
    """t-closeness: the Earth Mover's Distance between each group's sensitive
    distribution and the whole table's is at most ``t`` (Liang-Yuan Sec. 2.1).

    Parameters
    ----------
    t
        In ``[0, 1]``.
    distance
        Ground metric: ``"equal"`` (``d = 1`` between distinct values; EMD is
        the total variation), ``"ordered"`` (``d(a,b) = |a − b|/(V − 1)`` on
        the value order), ``"hierarchical"`` (``d = level(LCA)/H`` in a value
        hierarchy), or a ``V × V`` matrix (a ``pandas.DataFrame`` indexed by
        the values, or a dict of dicts) that is a metric with values in ``[0, 1]``.
    order
        For ``"ordered"``: the values in order. Default: the distinct values of
        the column sorted numerically, which requires them all to be numbers.
    hierarchy
        For ``"hierarchical"``: an ARX hierarchy (path, DataFrame, dict or
        :class:`~milp_anon.hierarchy.Hierarchy`).
    column
        Restrict to one sensitive column (default: each sensitive column).

    Notes
    -----
    Modelled with transport variables (Liang-Yuan Thm. 9), in the compact
    exact form of each metric (MODELS.md §5), all scaled by ``n · s_j`` so the
    coefficients are integers except ``t``.
    """

    t: float
    distance: object = "equal"
    order: tuple | None = None
    hierarchy: object = None
    column: str | None = None

    name = "t-closeness"
    integral_assignment = True
    uses_size = True

    def __post_init__(self):
        object.__setattr__(self, "t", _real(self.t, "t", lo=0, hi=1))
        if isinstance(self.distance, str):
            if self.distance not in DISTANCES:
                raise InputError(f"distance must be one of {', '.join(DISTANCES)} or a matrix, got {self.distance!r}")
        if self.distance_kind == "hierarchical":
            if self.hierarchy is None:
                raise InputError("hierarchical distance needs a hierarchy (--sensitive-hierarchy FILE)")
            from .hierarchy import Hierarchy

            object.__setattr__(self, "hierarchy", Hierarchy.coerce(self.hierarchy))
        elif self.hierarchy is not None:
            raise InputError("a sensitive hierarchy is only used with distance='hierarchical'")
        if self.order is not None:
            if self.distance_kind != "ordered":
                raise InputError("an order is only used with distance='ordered'")
            order = tuple(str(v) for v in self.order)
            if len(set(order)) != len(order):
                raise InputError("the order lists a value twice")
            object.__setattr__(self, "order", order)

    @property
    def distance_kind(self) -> str:
        """``equal``, ``ordered``, ``hierarchical`` or ``matrix``."""
        return self.distance if isinstance(self.distance, str) else "matrix"

    # -- the metric on a column's values --------------------------------------------
    def domain(self, table, col) -> list[str]:
        """The column's values in the order the metric uses."""
        values = [str(v) for v in table.sensitive_values[col]]
        name = table.sensitive[col]
        if self.distance_kind == "ordered":
            if self.order is not None:
                missing = sorted(set(values) - set(self.order))
                extra = [v for v in self.order if v not in set(values)]
                if missing:
                    raise InputError(f"the order for {name!r} misses value(s) {', '.join(map(repr, missing[:5]))}")
                if extra:
                    raise InputError(f"the order for {name!r} lists value(s) not in the column: "
                                     f"{', '.join(map(repr, extra[:5]))}")
                return list(self.order)
            try:
                return sorted(values, key=lambda v: (float(v), v))
            except ValueError:
                raise InputError(
                    f"ordered distance on {name!r}: its values are not all numbers; give the order "
                    "(--order v1,v2,... / order=[...])"
                ) from None
        return values

    def metric(self, table, col) -> np.ndarray:
        """The ground-distance matrix over :meth:`domain` (used by tests and the general form)."""
        vals = self.domain(table, col)
        V = len(vals)
        if self.distance_kind == "equal":
            return 1.0 - np.eye(V)
        if self.distance_kind == "ordered":
            idx = np.arange(V)
            return np.abs(idx[:, None] - idx[None, :]) / max(V - 1, 1)
        if self.distance_kind == "hierarchical":
            return self.hierarchy.distance_matrix(vals)
        return _matrix_metric(self.distance, vals, table.sensitive[col])

    def validate(self, table) -> None:
        super().validate(table)
        for col in self.columns(table):
            self.domain(table, col)
            if self.distance_kind == "hierarchical":
                self.hierarchy.check_values(self.domain(table, col), table.sensitive[col])
            elif not isinstance(self.distance, str):
                self.metric(table, col)

    def size_estimate(self, dims):
        per = 0
        for V in dims["V"]:
            if self.distance_kind in ("equal", "ordered"):
                per += V
            elif self.distance_kind == "hierarchical":
                per += 2 * V
            else:
                per += V * V
        return dims["C"] * per, dims["C"] * per, 4 * dims["C"] * per + dims["P"], 0

    def add_to(self, am) -> None:
        size = am.size_vars()
        table = am.table
        n = float(table.n)
        C = am.cands.n_candidates
        lm = am.lm
        for col in self.columns(table):
            cell_cand, cell_val, cvar = am.cells(col)
            values = [str(v) for v in table.sensitive_values[col]]
            dom = self.domain(table, col)
            pos = {v: i for i, v in enumerate(dom)}
            # position of each cell's value in the metric's order; table counts N_σ in that order
            cell_pos = np.array([pos[values[v]] for v in cell_val], dtype=np.int64)
            N = np.bincount(np.array([pos[values[v]] for v in table.sensitive_codes[:, col]]), minlength=len(dom))
            V = len(dom)
            tag = f"tclose{col}"

            def mass_rows(name, groups):
                """Rows ``u_{j,e} >= ±Σ_{σ∈group e}(n c_jσ − N_σ s_j)`` for the value groups ``groups``.

                ``groups`` is a list of lists of positions; returns the ``u`` columns (C × E).
                """
                E = len(groups)
                u = lm.add_vars(f"{tag}_{name}", C * E, lower=0)
                member = np.zeros((E, V), dtype=bool)
                for e, grp in enumerate(groups):
                    member[e, grp] = True
                # entries from count cells: cell (j, σ) appears in row (j, e) for every e containing σ
                e_of, cell_of = np.nonzero(member[:, cell_pos])
                rows_c = cell_cand[cell_of] * E + e_of
                # size column per (j, e): coefficient −Σ_{σ∈e} N_σ
                NS = member.astype(float) @ N.astype(float)
                jj = np.repeat(np.arange(C), E)
                ee = np.tile(np.arange(E), C)
                rows_all = np.arange(C * E)
                for sign, label in ((1.0, "pos"), (-1.0, "neg")):
                    lm.add_rows(
                        f"{tag}_{name}_{label}", C * E,
                        rows=np.concatenate([rows_all, rows_c, rows_all]),
                        cols=np.concatenate([u, cvar[cell_of], size[jj]]),
                        vals=np.concatenate([np.ones(C * E), np.full(rows_c.shape[0], -sign * n),
                                             sign * NS[ee]]),
                        lower=0.0,
                    )
                return u, E

            if self.distance_kind == "equal":
                # EMD = Σ_σ max(0, P_σ − Q_σ):  v_jσ >= N_σ s_j − n c_jσ,  Σ_σ v_jσ <= t n s_j
                E = V
                v = lm.add_vars(f"{tag}_v", C * E, lower=0)
                rows_c = cell_cand * E + cell_pos
                rows_all = np.arange(C * E)
                lm.add_rows(f"{tag}_v_def", C * E, rows=np.concatenate([rows_all, rows_c, rows_all]),
                            cols=np.concatenate([v, cvar, size[np.repeat(np.arange(C), E)]]),
                            vals=np.concatenate([np.ones(C * E), np.full(rows_c.shape[0], n),
                                                 -np.tile(N.astype(float), C)]), lower=0.0)
                u, scale = v, 1.0
            elif self.distance_kind == "ordered":
                # EMD = (1/(V−1)) Σ_{a<V} |Σ_{b<=a}(Q_b − P_b)|
                u, E = mass_rows("cum", [list(range(a + 1)) for a in range(V - 1)])
                scale = float(max(V - 1, 1))
            elif self.distance_kind == "hierarchical":
                # tree EMD = Σ_edges |mass below the edge| / (2H)
                edges = self.hierarchy.edges_below(dom)
                u, E = mass_rows("edge", [idxs for _, _, idxs in edges])
                scale = 2.0 * self.hierarchy.height
            else:
                u, E, scale = self._add_transport(am, col, tag, cell_cand, cell_pos, cvar, size, N, dom), None, 1.0
                continue
            E = u.shape[0] // C
            # Σ_e u_je <= scale · t · n · s_j with t = a/b:  b Σ_e u_je − a · scale · n · s_j <= 0.
            # Every u is |integer| at a vertex, so a violation is >= 1, far above solver tolerances.
            tr = exact(self.t)
            lm.add_rows(f"{tag}", C, rows=np.concatenate([np.repeat(np.arange(C), E), np.arange(C)]),
                        cols=np.concatenate([u, size]),
                        vals=np.concatenate([np.full(C * E, float(tr.denominator)),
                                             np.full(C, -float(tr.numerator) * scale * n)]), upper=0.0)

    def _add_transport(self, am, col, tag, cell_cand, cell_pos, cvar, size, N, dom):
        """General metric: transport ``F_jστ`` (Liang-Yuan Thm. 9), net flow = n c_jσ − N_σ s_j."""
        lm, C, n = am.lm, am.cands.n_candidates, float(am.table.n)
        d = self.metric(am.table, col)
        V = len(dom)
        src, dst = np.nonzero(~np.eye(V, dtype=bool))
        A = src.shape[0]
        F = lm.add_vars(f"{tag}_F", C * A, lower=0)
        jj = np.repeat(np.arange(C), A)
        aa = np.tile(np.arange(A), C)
        # conservation per (j, σ): Σ_τ F_στ − Σ_τ F_τσ − n c_jσ + N_σ s_j = 0
        rows_out = jj * V + src[aa]
        rows_in = jj * V + dst[aa]
        rows_c = cell_cand * V + cell_pos
        rows_s = np.arange(C * V)
        lm.add_rows(f"{tag}_flow", C * V, rows=np.concatenate([rows_out, rows_in, rows_c, rows_s]),
                    cols=np.concatenate([F, F, cvar, size[np.repeat(np.arange(C), V)]]),
                    vals=np.concatenate([np.ones(C * A), -np.ones(C * A), np.full(rows_c.shape[0], -n),
                                         np.tile(N.astype(float), C)]), lower=0.0, upper=0.0)
        tr = exact(self.t)
        lm.add_rows(f"{tag}", C, rows=np.concatenate([jj, np.arange(C)]), cols=np.concatenate([F, size]),
                    vals=np.concatenate([np.tile(d[src, dst], C) * tr.denominator,
                                         np.full(C, -float(tr.numerator) * n)]), upper=0.0)
        return F

    def describe(self) -> str:
        dist = self.distance if isinstance(self.distance, str) else "matrix"
        return f"{self.t:g}-closeness ({dist}){_column_label(self.column)}"


def _matrix_metric(matrix, vals, name) -> np.ndarray:
    """A user's distance matrix over ``vals``, validated as a metric with max 1."""
    import pandas as pd

    if isinstance(matrix, dict):
        matrix = pd.DataFrame(matrix)
    if isinstance(matrix, pd.DataFrame):
        m = matrix.copy()
        m.index = [str(i) for i in m.index]
        m.columns = [str(c) for c in m.columns]
        missing = [v for v in vals if v not in m.index or v not in m.columns]
        if missing:
            raise InputError(f"the distance matrix has no entry for value {missing[0]!r} of {name!r}")
        d = m.loc[vals, vals].to_numpy(dtype=float)
    else:
        d = np.asarray(matrix, dtype=float)
        if d.shape != (len(vals), len(vals)):
            raise InputError(f"the distance matrix is {d.shape}, {name!r} has {len(vals)} values")
    if not np.all(np.isfinite(d)) or np.any(d < 0):
        raise InputError("the distance matrix must be finite and non-negative")
    if np.any(np.abs(np.diag(d)) > 0) or not np.allclose(d, d.T):
        raise InputError("the distance matrix must be symmetric with a zero diagonal")
    if d.size and d.max() > 1 + 1e-12:
        raise InputError(f"distances must be at most 1 (normalized), got {d.max():g}")
    V = len(vals)
    for k in range(V):
        if np.any(d > d[:, [k]] + d[[k], :] + 1e-12):
            raise InputError("the distance matrix violates the triangle inequality")
    return d
