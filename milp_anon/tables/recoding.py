"""Recodings: which generalized values a cell may take and what they cost.

A recoding is chosen separately from the privacy criteria (as in ARX):

* :class:`Suppression` — a cell keeps its value or becomes ``*`` (cost 1);
* :class:`Generalization` — a cell may become any ancestor of its value in a
  per-column hierarchy (ARX CSV format); node costs are ``"suppression"``
  (the root costs 1, other nodes 0), ``"height"`` (a node at level ``l`` of a
  hierarchy of height ``H`` costs ``l/H``), ``"lm"`` (loss metric:
  ``(leaves under the node − 1)/(leaves of the hierarchy − 1)``) or user
  weights per level, or ``"entropy"`` (non-uniform entropy: a node costs
  ``log2 N(node)``, the rows of the table whose value it covers; see
  :meth:`Recoding.cost_offset`). Columns without a hierarchy are suppressed (a
  hierarchy of height 1 whose root costs 1).

Both become, per QI column, a :class:`ColumnLattice`: the ancestor of every
data value at every level, with node names and node costs. Costs must be
monotone (a parent costs at least its child; leaves cost 0): checked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from milp_anon.runtime.errors import InputError
from milp_anon.tables.cells import CellColumn
from milp_anon.tables.hierarchy import Hierarchy
from milp_anon.tables.table import SUPPRESSED

COSTS = ("suppression", "height", "lm", "entropy")


@dataclass(frozen=True)
class ColumnLattice:
    """Generalization of one QI column.

    Attributes
    ----------
    height
        ``H``; level 0 is the value, level ``H`` the root.
    anc
        ``(V, H + 1)`` node id of the ancestor of each value code at each level.
    names
        Node id -> released text.
    level
        Node id -> level.
    cost
        Node id -> cost per cell.
    cells
        For an interval or value-set column (:mod:`milp_anon.tables.cells`): its
        cells, numbered after the value and ``*`` (``height`` 1, ``anc`` as
        for suppression; the proper cells are at level 1 but are nobody's
        ancestor).
    """

    height: int
    anc: np.ndarray
    names: tuple
    level: np.ndarray
    cost: np.ndarray
    cells: CellColumn | None = None

    @property
    def n_nodes(self) -> int:
        return len(self.names)


SCHEMES = ("local", "full-domain")


def _check_scheme(scheme) -> None:
    if scheme not in SCHEMES:
        raise InputError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")


def record_cost(lattices) -> float | int:
    """The cost of one withheld record: every QI cell at its column's root (``m`` for suppression)."""
    costs = [lat.cost[lat.anc[0, lat.height]] for lat in lattices]
    total = sum(costs)
    return int(total) if all(float(c).is_integer() for c in costs) else float(total)


def column_weights(weights) -> tuple:
    """Per-column importance ``{column: w}`` (``w > 0``, finite) as the tuple of pairs a recoding keeps;
    ``InputError`` naming the first bad one."""
    if weights is None:
        return ()
    items = weights.items() if isinstance(weights, dict) else weights
    out: dict[str, float] = {}
    try:
        pairs = [(str(c), w) for c, w in items]
    except (TypeError, ValueError):
        raise InputError("weights must be a dict {column: weight}") from None
    for col, w in pairs:
        if isinstance(w, bool) or not isinstance(w, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(w)) or float(w) <= 0:
            raise InputError(f"weight of column {col!r} must be a finite number > 0, got {w!r}")
        if col in out:
            raise InputError(f"column {col!r} has two weights")
        out[col] = float(w)
    return tuple(out.items())


def weighted(lattices: list, table, weights: tuple) -> list:
    """``lattices`` (in ``table.qi`` order) with each named column's node costs times its weight: every cell
    cost of the column, suppression and generalization alike, scaled (per-column importance)."""
    if not weights:
        return lattices
    w = dict(weights)
    unknown = [c for c in w if c not in table.qi]
    if unknown:
        raise InputError(f"weight given for column(s) that are not QI columns: {', '.join(unknown)}")
    return [lat if w.get(col, 1.0) == 1.0 else ColumnLattice(lat.height, lat.anc, lat.names, lat.level,
                                                             lat.cost * w[col], lat.cells)
            for col, lat in zip(table.qi, lattices)]


def _weights_text(weights: tuple) -> str:
    return "" if not weights else "; weights " + ", ".join(f"{c} {w:g}" for c, w in weights)


class Recoding:
    """Base class of recodings.

    ``scheme``: ``"local"`` recodes each row on its own (the MILP);
    ``"full-domain"`` recodes each column to one level for every row
    (ARX's global recoding; :mod:`milp_anon.search.full_domain`).
    ``weights``: per-column importance, ``((column, w), ...)`` from a dict
    ``{column: w}`` (``w > 0``): each cell cost of a column times its weight
    (:func:`weighted`); the verifier recounts with the same weights.
    """

    scheme = "local"
    weights: tuple = ()

    def lattices(self, table) -> list[ColumnLattice]:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def recounted(self) -> bool:
        """Whether a heuristic's own count of cells is not the cost (column weights, the entropy cost): the
        verifier's recount is."""
        return bool(self.weights)

    @property
    def rational_costs(self) -> bool:
        """Whether every cost is a rational (then the objective may lie on a grid); the entropy cost is not."""
        return True

    def cost_offset(self, table) -> float:
        """The constant the model's objective adds to the reported cost: 0, but for the entropy cost
        (:func:`entropy_offset`). The model's unit is the reported cost plus this, everywhere inside a solve."""
        return 0.0

    def describe(self) -> str:
        return type(self).__name__.lower()


def _cell_lattice(kind: str, values, col: str) -> ColumnLattice:
    cells = CellColumn.of(kind, values, col)
    names, cost = cells.names_and_costs()
    V = cells.n_values
    anc = np.column_stack([np.arange(V), np.full(V, V)])
    level = np.ones(len(names), dtype=np.int64)
    level[:V] = 0
    return ColumnLattice(1, anc, names, level, cost, cells)


def _suppression_lattice(values) -> ColumnLattice:
    V = len(values)
    anc = np.column_stack([np.arange(V), np.full(V, V)])
    names = tuple(str(v) for v in values) + (SUPPRESSED,)
    level = np.array([0] * V + [1])
    cost = np.array([0.0] * V + [1.0])
    return ColumnLattice(1, anc, names, level, cost)


@dataclass(frozen=True)
class Suppression(Recoding):
    """Cell suppression: a value or ``*`` (Meyerson-Williams cost 1 per ``*``); with
    ``scheme="full-domain"`` each column is kept or suppressed whole."""

    scheme: str = "local"
    weights: tuple = ()

    def __post_init__(self):
        _check_scheme(self.scheme)
        object.__setattr__(self, "weights", column_weights(self.weights))

    def lattices(self, table) -> list[ColumnLattice]:
        return weighted([_suppression_lattice(v) for v in table.values], table, self.weights)

    def describe(self) -> str:
        return "suppression" + (", full-domain" if self.scheme == "full-domain" else "") + _weights_text(self.weights)


@dataclass(frozen=True)
class Generalization(Recoding):
    """Local recoding with value hierarchies.

    Parameters
    ----------
    hierarchies
        ``{column: hierarchy}``; a hierarchy is a path to an ARX CSV file, a
        DataFrame, a dict ``{value: [level1, ..., root]}`` or a
        :class:`~milp_anon.tables.hierarchy.Hierarchy`. QI columns without one are
        suppressed.
    cost
        ``"suppression"``, ``"height"`` (default), ``"lm"``, or a dict
        ``{column: [w_0, ..., w_H]}`` of weights per level (``w_0 = 0``,
        non-decreasing); columns it does not name cost as ``"height"``.
        ``"entropy"``: non-uniform entropy in bits (De Waal & Willenborg 1999;
        Gionis & Tassa 2009), every cell of every QI — hierarchy node, range,
        value set or ``*`` — costing ``log2(N(covered) / N(v))``; with no
        hierarchies it is cell suppression under that cost. Local scheme only;
        no budget; no exact certificate (``formulations/generalization.md``).
    scheme
        ``"local"`` (default: each row its own level) or ``"full-domain"``
        (one level per column for every row; ``formulations/full-domain.md``).
    intervals
        Numeric QI columns released as ranges ``lo-hi`` (:mod:`milp_anon.tables.cells`;
        cost: width over the column's range, whatever ``cost`` says).
    value_sets
        Categorical QI columns released as value sets ``a,b`` (cost
        ``(|S| − 1)/(|D| − 1)``).
    weights
        ``{column: w}``, ``w > 0``: every cell cost of the column (its hierarchy's, its cells', its
        suppression's) times ``w`` (per-column importance; :class:`Recoding`).
    """

    hierarchies: dict = field(default_factory=dict)
    cost: object = "height"
    scheme: str = "local"
    intervals: tuple = ()
    value_sets: tuple = ()
    weights: tuple = ()

    def __post_init__(self):
        _check_scheme(self.scheme)
        object.__setattr__(self, "weights", column_weights(self.weights))
        for name in ("intervals", "value_sets"):
            cols = getattr(self, name)
            cols = (cols,) if isinstance(cols, str) else tuple(str(c) for c in cols)
            if len(set(cols)) != len(cols):
                raise InputError(f"{name}: a column is named twice")
            object.__setattr__(self, name, cols)
        both = set(self.intervals) & set(self.value_sets)
        if both:
            raise InputError(f"column {sorted(both)[0]!r} is given as an interval and as a value-set column")
        if self.cell_columns and self.scheme == "full-domain":
            raise InputError("full-domain generalization recodes by hierarchy levels; interval and value-set "
                             "cells are local recodings")
        if not isinstance(self.hierarchies, dict):
            raise InputError("hierarchies must be a dict {column: hierarchy}")
        hs = {}
        for col, h in self.hierarchies.items():
            hs[str(col)] = Hierarchy.coerce(h, source=f"<hierarchy of {col}>")
        object.__setattr__(self, "hierarchies", hs)
        clash = [c for c in self.cell_columns if c in hs]
        if clash:
            raise InputError(f"column {clash[0]!r} has a hierarchy and is given as an interval/value-set column")
        if self.cost == "entropy" and self.scheme == "full-domain":
            raise InputError("the entropy cost is a local recoding's (its lattice search is not written for it): "
                             "use --scheme local")
        if isinstance(self.cost, str):
            if self.cost not in COSTS:
                raise InputError(f"cost must be one of {', '.join(COSTS)} or per-level weights, got {self.cost!r}")
        elif not isinstance(self.cost, dict):
            raise InputError("cost must be a name or a dict {column: [w_0, ..., w_H]}")

    @property
    def cell_columns(self) -> dict:
        """``{column: "interval" | "set"}``."""
        return {**{c: "interval" for c in self.intervals}, **{c: "set" for c in self.value_sets}}

    def lattices(self, table) -> list[ColumnLattice]:
        unknown = [c for c in self.hierarchies if c not in table.qi]
        if unknown:
            raise InputError(f"hierarchy given for column(s) that are not QI columns: {', '.join(unknown)}")
        unknown = [c for c in self.cell_columns if c not in table.qi]
        if unknown:
            raise InputError(f"interval/value-set column(s) that are not QI columns: {', '.join(unknown)}")
        out = []
        for c_idx, col in enumerate(table.qi):
            values = [str(v) for v in table.values[c_idx]]
            if col in self.cell_columns:
                out.append(_cell_lattice(self.cell_columns[col], values, col))
                continue
            h = self.hierarchies.get(col)
            if h is None:
                lat = _suppression_lattice(values)
                out.append(lat)
                continue
            h.check_values(values, col)
            out.append(_hierarchy_lattice(h, values, self._cost_of(col, h), col))
        if self.cost == "entropy":
            out = [_entropy_lattice(lat, np.bincount(table.codes[:, c], minlength=len(table.values[c])))
                   for c, lat in enumerate(out)]
        return weighted(out, table, self.weights)

    @property
    def recounted(self) -> bool:
        return bool(self.weights) or self.cost == "entropy"

    @property
    def rational_costs(self) -> bool:
        return self.cost != "entropy"

    def cost_offset(self, table) -> float:
        if self.cost != "entropy":
            return 0.0
        w = dict(self.weights)
        return sum(w.get(col, 1.0) * off for col, off in entropy_offset(table).items())

    def _cost_of(self, col, h: Hierarchy):
        if isinstance(self.cost, dict) and col in self.cost:
            w = [float(x) for x in self.cost[col]]
            if len(w) != h.height + 1:
                raise InputError(f"cost weights for {col!r} need {h.height + 1} levels (0..{h.height}), got {len(w)}")
            if w[0] != 0:
                raise InputError(f"cost weight of level 0 for {col!r} must be 0 (an unchanged value costs nothing)")
            if any(b < a for a, b in zip(w, w[1:])) or any(not math.isfinite(x) or x < 0 for x in w):
                raise InputError(f"cost weights for {col!r} must be finite, non-negative and non-decreasing: {w}")
            return lambda level, leaves, total: w[level]
        kind = self.cost if isinstance(self.cost, str) and self.cost != "entropy" else "height"  # entropy: after
        if kind == "suppression":
            return lambda level, leaves, total: 1.0 if level == h.height else 0.0
        if kind == "height":
            return lambda level, leaves, total: level / h.height
        return lambda level, leaves, total: (leaves - 1) / (total - 1) if total > 1 else (1.0 if level else 0.0)

    def describe(self) -> str:
        """What is recoded how and what it costs: the hierarchies' cost names only the columns it applies to
        (intervals cost their width, value sets their size, whatever ``cost`` says; other QIs are suppressed)."""
        if self.cost == "entropy":  # every cell — node, range, set or '*' — costs its bits
            parts = [f"hierarchies: {', '.join(self.hierarchies) or 'none'}"]
            parts += [f"{name}: {', '.join(cols)}" for name, cols in
                      (("intervals", self.intervals), ("value sets", self.value_sets)) if cols]
            return f"generalization (entropy; {'; '.join(parts)}; other QIs suppressed{_weights_text(self.weights)})"
        cost = self.cost if isinstance(self.cost, str) else "weights"
        scheme = ", full-domain" if self.scheme == "full-domain" else ""
        parts = [f"{cost}; hierarchies: {', '.join(self.hierarchies)}"] if self.hierarchies else []
        parts += [f"{name}: {', '.join(cols)} ({what})" for name, cols, what in
                  (("intervals", self.intervals, "cost: width over the column's range"),
                   ("value sets", self.value_sets, "cost: (|S| - 1)/(|D| - 1)")) if cols]
        if not parts:
            parts = [f"{cost}; hierarchies: none"]
        return f"generalization ({'; '.join(parts)}; other QIs suppressed{scheme}{_weights_text(self.weights)})"

    def __repr__(self) -> str:  # one line, not every hierarchy row
        cols = ", ".join(f"{c}: {len(h.paths)} values, height {h.height}" for c, h in self.hierarchies.items())
        cost = self.cost if isinstance(self.cost, str) else "weights"
        scheme = ", scheme='full-domain'" if self.scheme == "full-domain" else ""
        cells = "".join(f", {name}={cols!r}" for name, cols in
                        (("intervals", self.intervals), ("value_sets", self.value_sets)) if cols)
        return f"Generalization({{{cols}}}, cost={cost!r}{scheme}{cells})"


def _hierarchy_lattice(h: Hierarchy, values, cost_fn, col) -> ColumnLattice:
    H = h.height
    # leaves under each node of the whole hierarchy (for the loss metric)
    leaves: dict[tuple[int, str], int] = {}
    for path in h.paths.values():
        for lvl in range(H + 1):
            leaves[(lvl, path[lvl])] = leaves.get((lvl, path[lvl]), 0) + 1
    total = len(h.paths)
    node_id: dict[tuple[int, str], int] = {}
    names: list[str] = []
    level: list[int] = []
    costs: list[float] = []
    anc = np.zeros((len(values), H + 1), dtype=np.int64)
    for v_idx, v in enumerate(values):
        path = h.paths[v]
        seen: dict[str, int] = {}
        for lvl in range(H + 1):
            name = path[lvl]
            if name in seen and seen[name] != lvl:
                raise InputError(
                    f"hierarchy {h.source}: {name!r} appears at levels {seen[name]} and {lvl} above {v!r} "
                    f"(column {col!r}); released cells could not tell the two apart"
                )
            seen[name] = lvl
            key = (lvl, name)
            if key not in node_id:
                node_id[key] = len(names)
                names.append(name)
                level.append(lvl)
                costs.append(float(cost_fn(lvl, leaves[key], total)))
            anc[v_idx, lvl] = node_id[key]
    cost = np.array(costs)
    # monotone: parent >= child, leaves 0
    for v_idx in range(len(values)):
        c = cost[anc[v_idx]]
        if c[0] != 0:
            raise InputError(f"cost of the unchanged value {values[v_idx]!r} of {col!r} must be 0")
        if np.any(np.diff(c) < -1e-12):
            raise InputError(f"node costs of {col!r} are not monotone above {values[v_idx]!r}: {c.tolist()}")
    return ColumnLattice(H, anc, tuple(names), np.array(level), cost)


def entropy_offset(table) -> dict:
    """``{column: C_c}``, ``C_c = Σ_rows log2 N(v)``: the constant by which the entropy cost's model exceeds the
    non-uniform entropy (``formulations/generalization.md``).

    Non-uniform entropy charges a cell of value ``v`` released as a cell covering ``S`` the bits
    ``log2 N(S) − log2 N(v)`` (``N`` counted over the table's column). Summed over every cell of the table
    (withheld records too: their cells cover the whole column), ``Σ log2 N(v)`` does not depend on the release,
    so the model charges each cell ``log2 N(S)`` alone — a cost of the released node, so of the candidate — and
    minimizes the entropy plus ``C = Σ_c C_c``."""
    out = {}
    for c, col in enumerate(table.qi):
        n_v = np.bincount(table.codes[:, c], minlength=len(table.values[c])).astype(float)
        n_v = n_v[n_v > 0]
        out[col] = float(np.dot(n_v, np.log2(n_v)))
    return out


def _entropy_lattice(lat: ColumnLattice, counts: np.ndarray) -> ColumnLattice:
    """``lat`` with the entropy cost: each node costs ``log2 N(node)``, ``N(node)`` the rows whose value it
    covers (``counts[v]`` rows of value code ``v``). A coarser node covers a superset, so costs stay monotone.
    Interval and value-set cells cover the values within their range / in their set; ids no cell uses cost as
    ``*`` (no candidate takes them)."""
    counts = np.asarray(counts, dtype=float)
    N = np.zeros(lat.n_nodes)
    for lvl in range(lat.height + 1):  # a node lies at one level: its rows are counted once
        N += np.bincount(lat.anc[:, lvl], weights=counts, minlength=lat.n_nodes)[:lat.n_nodes]
    cells = lat.cells
    if cells is not None:
        V = cells.n_values
        if cells.kind == "interval":
            by_rank = counts[np.argsort(cells.rank)]
            within = np.concatenate([[0.0], np.cumsum(by_rank)])
            a, b = np.divmod(np.arange(V * V), V)
            N[V + 1:] = np.where(a < b, within[b + 1] - within[np.minimum(a, b)], 0.0)
        else:
            masks = np.arange(2**V)
            N[V + 1:] = ((masks[:, None] >> np.arange(V)[None, :]) & 1) @ counts
    total = float(counts.sum())
    N[N <= 0] = total  # ids no cell uses: as '*'
    return ColumnLattice(lat.height, lat.anc, lat.names, lat.level, np.log2(N), lat.cells)


def as_recoding(value) -> Recoding:
    """``None`` -> Suppression; a Recoding as is."""
    if value is None:
        return Suppression()
    if isinstance(value, Recoding):
        return value
    raise InputError(f"not a recoding: {value!r}")


KEEP_CHARS = {"1": True, "□": True, "0": False, "☆": False}


@dataclass(frozen=True)
class Patterns(Recoding):
    """Pattern-guided suppression (Bredereck-Nichterlein-Niedermeier 2013, Def. 2).

    Every released row is its input row with exactly the cells of one pattern
    suppressed.

    Parameters
    ----------
    patterns
        Each pattern is a list of the QI columns it *keeps*, or a string over
        the QI order with ``1``/``□`` for keep and ``0``/``☆`` for suppress.
    """

    patterns: tuple = ()
    weights: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "weights", column_weights(self.weights))
        pats = list(self.patterns)
        if not pats:
            raise InputError("the pattern set is empty")
        object.__setattr__(self, "patterns", tuple(p if isinstance(p, str) else tuple(p) for p in pats))

    def masks(self, table) -> np.ndarray:
        """``(|P|, m)`` bool keep-masks over the table's QI order (duplicates removed)."""
        m = len(table.qi)
        out = []
        for p in self.patterns:
            if isinstance(p, str):
                if len(p) != m or any(ch not in KEEP_CHARS for ch in p):
                    raise InputError(
                        f"pattern {p!r} must have {m} characters from 1/□ (keep) and 0/☆ (suppress), one per QI"
                    )
                out.append([KEEP_CHARS[ch] for ch in p])
            else:
                unknown = [c for c in p if c not in table.qi]
                if unknown:
                    raise InputError(f"pattern names column(s) that are not QI columns: {', '.join(unknown)}")
                out.append([c in p for c in table.qi])
        return np.unique(np.array(out, dtype=bool), axis=0)

    def lattices(self, table) -> list[ColumnLattice]:
        self.masks(table)  # validate
        return weighted([_suppression_lattice(v) for v in table.values], table, self.weights)

    def describe(self) -> str:
        return f"patterns ({len(self.patterns)}){_weights_text(self.weights)}"
