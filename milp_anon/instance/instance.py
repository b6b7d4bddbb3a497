"""One table prepared for one request: the combinatorial layer's output, built once per solve.

:func:`prepare` collapses the rows into row types and assignment units
(:mod:`milp_anon.tables.rowtypes`) and generates the candidates that can occur in an
optimum (:mod:`milp_anon.instance.candidates`: support, closure or pattern dominance,
then each criterion's safe pruning). Every later stage — model building, the
reduction, warm starts, release — reads the :class:`Instance` and never
recomputes it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from milp_anon.instance.candidates import (
    Candidates,
    TooManyPairs,
    lattice_candidates,
    pattern_candidates,
    population_matches,
    population_nodes,
)
from milp_anon.runtime import memory
from milp_anon.runtime.errors import InputError
from milp_anon.tables.recoding import ColumnLattice, Generalization, Patterns, record_cost
from milp_anon.tables.rowtypes import RowTypes, Units
from milp_anon.tables.table import Table

__all__ = ["Instance", "collapse", "generate_candidates", "group_floors"]


@dataclass(frozen=True)
class Instance:
    """A table with its recoding lattices, row types, units and candidates."""

    table: Table
    lattices: tuple[ColumnLattice, ...]
    types: RowTypes
    units: Units
    candidates: Candidates

    def with_candidates(self, candidates: Candidates) -> Instance:
        """The same instance restricted to ``candidates`` (the reduction's rounds)."""
        return dataclasses.replace(self, candidates=candidates)

    def n_unit_pairs(self) -> int:
        """Number of (unit, candidate) assignment pairs of the model."""
        return self.units.count_pairs(self.candidates.pair_type, self.types.t_in)

    @property
    def record_cost(self) -> float | int:
        """The cost of one withheld record: every QI cell at its column's root (``m`` for suppression)."""
        return record_cost(self.lattices)

    def unhostable(self, max_withheld: int | None = None) -> str | None:
        """Why some rows fit no candidate at all (pattern sets), naming them; else ``None``.

        With record suppression such rows can be withheld, up to ``max_withheld`` of them."""
        hosted = np.zeros(self.types.t_in, dtype=bool)
        hosted[self.candidates.pair_type] = True
        if hosted.all():
            return None
        rows = np.flatnonzero(~hosted[self.types.row_type])
        if max_withheld is not None:
            if rows.size <= max_withheld:
                return None
            return (f"{rows.size} row(s) fit no candidate, more than the {max_withheld} records that may be "
                    "withheld")
        shown = ", ".join(str(int(r) + 1) for r in rows[:10]) + (" ..." if rows.size > 10 else "")
        if self.candidates.population is not None:  # k-map, δ-presence dropped every release of these rows
            return (f"{rows.size} row(s) fit no release whose population matches a class of them can meet "
                    f"(data rows {shown})")
        return (f"{rows.size} row(s) fit no pattern with enough compatible rows (data rows {shown}); "
                "add a pattern that suppresses more, e.g. the all-suppressed one")


def collapse(table: Table, request) -> tuple[RowTypes, Units]:
    """Row types, and the assignment units (types split by sensitive values when a criterion reads them)."""
    types = RowTypes.from_table(table)
    return types, Units.of(table, types, request.split)


def generate_candidates(table: Table, request, types: RowTypes, units: Units, lattices) -> Candidates:
    """The candidates of the request's recoding, pruned by every criterion (all rules exact)."""
    L = request.min_group_size()
    closure = request.model.closure_applies and all(c.closure_safe for c in request.criteria)
    gb = request.model.max_memory_gb
    limit = memory.pair_limit(gb)  # the layer's own memory: refused before it is all held
    try:
        if isinstance(request.recoding, Patterns):
            cands = pattern_candidates(types, request.recoding.masks(table), L, reduce=closure, max_pairs=limit)
        else:
            cands = lattice_candidates(types, lattices, L, closure=closure, max_pairs=limit)
    except TooManyPairs as exc:
        raise memory.layer_too_large(exc.n_pairs, gb, partial=True) from None
    cands = with_population(cands, table, request, lattices)
    for c in request.criteria:
        cands = c.prune(table, units, cands, min_size=L)
    return cands


def with_population(cands: Candidates, table: Table, request, lattices) -> Candidates:
    """``cands`` with ``pop(j)`` (:func:`~milp_anon.instance.candidates.population_matches`) when a criterion reads
    a population table (k-map, δ-presence; all of them the same table), else as they are."""
    crits = [c for c in request.criteria if hasattr(c, "population_types")]
    if not crits:
        return cands
    if any(not c.population.equals(crits[0].population) for c in crits[1:]):
        raise InputError("k-map and delta-presence must be given the same population table")
    values, counts = crits[0].population_types(table.qi)
    hier = request.recoding.hierarchies if isinstance(request.recoding, Generalization) else {}
    nodes = population_nodes(lattices, values, [hier.get(c) for c in table.qi])
    return dataclasses.replace(cands, population=population_matches(cands, lattices, nodes, counts))


def group_floors(instance: Instance, request) -> np.ndarray:
    """``(C,)`` per candidate the fewest rows a legal group released as it may hold: the request's
    ``min_group_size()`` raised by every criterion's :meth:`~milp_anon.privacy.criteria.Criterion.least_sizes` over the
    candidate's compatible rows (one more than them where no legal group exists: the candidate stays unused).

    The model's floor rows ``Σ_u g_uj >= f_j y_j`` and the group blocks' size floors
    (``formulations/k-anonymity.md``, "Floor rows"): the k of k-anonymity's row, per candidate."""
    cands = instance.candidates
    floors = np.full(cands.n_candidates, request.min_group_size(), dtype=np.int64)
    for crit in request.criteria:
        least = crit.least_sizes(instance.table, instance.units, cands, request.min_group_size())
        if least is not None:
            floors = np.where(least < 0, cands.capacity + 1, np.maximum(floors, least))
    return floors
