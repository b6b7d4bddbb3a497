"""Interval and value-set cells: the recodings Mondrian and ARX's interval hierarchies release.

A cell of an **interval** column (a numeric QI) is the value itself, an
inclusive range ``lo-hi`` of two data values (``28-29``, ``-5--1``,
``2.5-7``) or ``*``; it costs its width over the column's range,
``(hi − lo) / (max − min)`` (ARX's loss metric for intervals; ``*`` costs
1). A cell of a **value-set** column (a categorical QI) is the value, a set
of two or more of the column's values written ``a,b`` (Mondrian's form), or
``*``; it costs ``(|S| − 1) / (|D| − 1)`` with ``D`` the column's values
(the loss metric's share of covered values; ``*`` = ``D`` costs 1).

Unlike a hierarchy, cells overlap (``35-39`` and ``38-40`` may both be
released), so they are not ancestors at levels: a :class:`CellColumn` numbers
every cell arithmetically and the candidate generator
(:func:`milp_anon.instance.candidates.lattice_candidates`) enumerates the cells that
can occur in an optimum (``formulations/intervals.md``). The domain ``D``
and the range ``[min, max]`` are the input column's, so costs are those of
the data, not of a wider code book.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from milp_anon.runtime.errors import InputError
from milp_anon.tables.table import SUPPRESSED

__all__ = ["CELL_KINDS", "MAX_SET_VALUES", "CellColumn", "set_text"]

CELL_KINDS = ("interval", "set")
#: a value-set column numbers all 2^|D| subsets
MAX_SET_VALUES = 16
#: the separator of a value set's text
SET_SEPARATOR = ","


def set_text(values) -> str:
    """The released text of a value set: its values in sorted order, ``,``-separated."""
    return SET_SEPARATOR.join(sorted(str(v) for v in values))


def _numbers(values, col: str) -> np.ndarray:
    out = []
    for v in values:
        try:
            x = float(str(v))
        except ValueError:
            raise InputError(f"--interval {col}: value {str(v)!r} is not a number") from None
        if not math.isfinite(x):
            raise InputError(f"--interval {col}: value {str(v)!r} is not a finite number")
        out.append(x)
    return np.array(out, dtype=float)


@dataclass(frozen=True)
class CellColumn:
    """The cells of one interval or value-set column.

    Node ids (the :class:`~milp_anon.tables.recoding.ColumnLattice` of the column
    uses the same): ``0 .. V−1`` the values (their codes in the table),
    ``V`` the ``*``, then the proper cells: for intervals ``V + 1 + a·V + b``
    for the ranks ``a < b`` in numeric order, for value sets ``V + 1 + mask``
    for a bit mask over the value codes.
    """

    kind: str
    texts: tuple
    #: numeric order: ``rank[code]`` (intervals); ``order[rank]`` is the code
    rank: np.ndarray
    numbers: np.ndarray

    @classmethod
    def of(cls, kind: str, values, col: str) -> CellColumn:
        texts = tuple(str(v) for v in values)
        V = len(texts)
        if kind == "interval":
            nums = _numbers(texts, col)
            order = np.lexsort((np.arange(V), nums))
            if V > 1 and np.any(np.diff(nums[order]) == 0):
                i = int(np.flatnonzero(np.diff(nums[order]) == 0)[0])
                raise InputError(f"--interval {col}: values {texts[order[i]]!r} and {texts[order[i + 1]]!r} are "
                                 "the same number")
            rank = np.empty(V, dtype=np.int64)
            rank[order] = np.arange(V)
            return cls(kind, texts, rank, nums)
        if kind != "set":
            raise InputError(f"cell kind must be one of {', '.join(CELL_KINDS)}, got {kind!r}")
        if V > MAX_SET_VALUES:
            raise InputError(f"--value-set {col}: {V} distinct values; value sets are enumerated as subsets, "
                             f"up to {MAX_SET_VALUES} values")
        bad = [t for t in texts if SET_SEPARATOR in t or t == SUPPRESSED]
        if bad:
            raise InputError(f"--value-set {col}: value {bad[0]!r} contains {SET_SEPARATOR!r} or is '*'; "
                             "a released set could not be read back")
        return cls(kind, texts, np.arange(V), np.zeros(V))

    @property
    def n_values(self) -> int:
        return len(self.texts)

    @property
    def n_nodes(self) -> int:
        V = self.n_values
        return V + 1 + (V * V if self.kind == "interval" else 2**V)

    def interval_node(self, a, b):
        """Node ids of the ranges between ranks ``a < b`` (arrays allowed)."""
        return self.n_values + 1 + np.asarray(a) * self.n_values + np.asarray(b)

    def set_node(self, mask):
        """Node ids of the value sets ``mask`` (bit ``c`` = value code ``c``)."""
        return self.n_values + 1 + np.asarray(mask)

    @property
    def spread(self) -> float:
        """The denominator of the column's cell costs: ``max − min`` (intervals), ``|D| − 1`` (value sets); 0 for
        a column of one value, whose cells are all the value."""
        if self.kind == "interval":
            return float(self.numbers.max() - self.numbers.min()) if self.n_values > 1 else 0.0
        return float(self.n_values - 1)

    @property
    def covering_text(self) -> str:
        """The released text of the least cell holding every value: the range from the least to the greatest
        (intervals), the set of all values (value sets), the value itself in a column of one. It costs 1, as
        ``*`` does, and holds the same rows; in a table with more values it costs less."""
        if self.n_values == 1:
            return self.texts[0]
        if self.kind == "interval":
            order = np.argsort(self.rank)
            return f"{self.texts[order[0]]}-{self.texts[order[-1]]}"
        return set_text(self.texts)

    def names_and_costs(self) -> tuple[tuple, np.ndarray]:
        """Released text and cost of every node id (unused ids: empty text, cost 1)."""
        V = self.n_values
        names = list(self.texts) + [SUPPRESSED]
        cost = [0.0] * V + [1.0]
        if self.kind == "interval":
            order = np.argsort(self.rank)
            span = self.spread or 1.0
            for a in range(V):
                for b in range(V):
                    ok = a < b
                    names.append(f"{self.texts[order[a]]}-{self.texts[order[b]]}" if ok else "")
                    cost.append((self.numbers[order[b]] - self.numbers[order[a]]) / span if ok else 1.0)
        else:
            for mask in range(2**V):
                members = [self.texts[c] for c in range(V) if mask >> c & 1]
                names.append(set_text(members) if len(members) >= 2 else "")
                cost.append((len(members) - 1) / self.spread if len(members) >= 2 else 1.0)
        return tuple(names), np.array(cost)
