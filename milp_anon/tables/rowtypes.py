"""Row types: identical QI vectors collapsed (Bredereck et al. 2013, Def. 1).

Every model of the toolkit is stated on row types, so its size depends on the
number of input types ``t_in``, not on the number of rows ``n``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from milp_anon.tables.table import Table


@dataclass(frozen=True)
class RowTypes:
    """The distinct QI vectors of a table and how often each occurs.

    Attributes
    ----------
    codes
        ``(t_in, m)`` integer codes of each type's QI vector.
    counts
        ``(t_in,)`` number of rows ``n_i`` of each type.
    row_type
        ``(n,)`` the type of every input row.
    cardinalities
        ``(m,)`` number of distinct values per QI column.
    sensitive_counts
        ``(t_in, V)`` per sensitive column ``s`` the counts ``n_{iσ}``; an empty
        tuple without sensitive columns.
    """

    codes: np.ndarray
    counts: np.ndarray
    row_type: np.ndarray
    cardinalities: np.ndarray
    sensitive_counts: tuple[np.ndarray, ...] = ()

    @classmethod
    def from_table(cls, table: Table) -> RowTypes:
        """Collapse ``table``'s identical QI vectors (one ``np.unique`` over rows)."""
        codes, row_type, counts = np.unique(table.codes, axis=0, return_inverse=True, return_counts=True)
        row_type = row_type.ravel().astype(np.int64)
        sens = []
        for s in range(table.sensitive_codes.shape[1]):
            V = len(table.sensitive_values[s])
            mat = np.zeros((codes.shape[0], V), dtype=np.int64)
            np.add.at(mat, (row_type, table.sensitive_codes[:, s]), 1)
            sens.append(mat)
        return cls(
            codes=codes.astype(np.int32),
            counts=counts.astype(np.int64),
            row_type=row_type,
            cardinalities=table.cardinalities,
            sensitive_counts=tuple(sens),
        )

    @property
    def t_in(self) -> int:
        """Number of input row types."""
        return int(self.codes.shape[0])

    @property
    def n(self) -> int:
        """Number of rows."""
        return int(self.counts.sum())

    @property
    def m(self) -> int:
        """Number of QI columns."""
        return int(self.codes.shape[1])


@dataclass(frozen=True)
class Units:
    """The assignment's units: row types, split by sensitive values when needed.

    Without a sensitive criterion a unit is a row type. With one, a unit is a
    row type together with one joint vector of sensitive values (all
    sensitive columns at once, so the split stays exact with several
    sensitive columns): ``x_{uj}`` then counts rows of unit ``u`` released as
    candidate ``j`` (``formulations/p-sensitivity.md``).

    Attributes
    ----------
    unit_type
        ``(U,)`` the row type of each unit, sorted.
    counts
        ``(U,)`` rows per unit.
    sensitive
        ``(U, S)`` sensitive value codes of each unit (``S = 0`` when not split).
    row_unit
        ``(n,)`` the unit of every row.
    """

    unit_type: np.ndarray
    counts: np.ndarray
    sensitive: np.ndarray
    row_unit: np.ndarray

    @classmethod
    def of(cls, table: Table, types: RowTypes, split: bool) -> Units:
        if not split or table.sensitive_codes.shape[1] == 0:
            t = np.arange(types.t_in, dtype=np.int64)
            return cls(t, types.counts.copy(), np.zeros((types.t_in, 0), np.int32), types.row_type.copy())
        key = np.column_stack([types.row_type, table.sensitive_codes])
        uniq, row_unit, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
        return cls(uniq[:, 0].astype(np.int64), counts.astype(np.int64), uniq[:, 1:].astype(np.int32),
                   row_unit.ravel().astype(np.int64))

    @property
    def n_units(self) -> int:
        return int(self.counts.shape[0])

    def count_pairs(self, pair_type: np.ndarray, t_in: int) -> int:
        """Number of unit-level pairs the type-level pairs ``pair_type`` expand to (:meth:`expand_pairs`)."""
        per_type = np.diff(np.searchsorted(self.unit_type, np.arange(t_in + 1)))
        return int(per_type[pair_type].sum())

    def expand_pairs(self, pair_type: np.ndarray, pair_cand: np.ndarray):
        """Type-level compatible pairs -> unit-level pairs (unit, candidate)."""
        first = np.searchsorted(self.unit_type, np.arange(int(self.unit_type.max()) + 2 if self.unit_type.size else 1))
        per_type = np.diff(first)
        reps = per_type[pair_type]
        rep_pair = np.repeat(np.arange(pair_type.shape[0]), reps)
        offset = np.arange(rep_pair.shape[0]) - np.repeat(np.cumsum(reps) - reps, reps)
        unit = first[pair_type][rep_pair] + offset
        return unit.astype(np.int64), pair_cand[rep_pair].astype(np.int64)
