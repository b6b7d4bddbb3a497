"""Row types: identical QI vectors collapsed (Bredereck et al. 2013, Def. 1).

Every model of the toolkit is stated on row types, so its size depends on the
number of input types ``t_in``, not on the number of rows ``n``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .table import Table


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
    def from_table(cls, table: Table) -> "RowTypes":
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
