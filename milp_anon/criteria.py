"""Privacy criteria as composable objects.

A criterion states (a) the smallest legal group size it implies, used by the
support pruning of the candidates; (b) why a table cannot meet it at all, if
so (every criterion here is closed under union of groups, so a request is
feasible exactly when the whole table as one group meets it); (c) the rows
and variables it adds to the assignment model (MODELS.md §2-5).

The verifier does *not* use these classes: it checks released tables from the
definitions in :mod:`milp_anon.verify`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .errors import InputError


class Criterion:
    """Base class: a condition on every output group."""

    #: name used in reports
    name: str = "criterion"

    def min_group_size(self) -> int:
        """Smallest group size any group meeting the criterion can have."""
        return 1

    def infeasibility(self, table) -> str | None:
        """Why no anonymization of ``table`` can meet the criterion (or ``None``)."""
        return None

    def add_to(self, am) -> None:  # pragma: no cover - interface
        """Add the criterion's rows to an :class:`AssignmentModel`."""
        raise NotImplementedError

    def check_assignment(self, am, y_used: np.ndarray, g: np.ndarray) -> str | None:
        """Check an integral assignment against the criterion; a message if violated."""
        return None

    def describe(self) -> str:
        return self.name


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


@dataclass(frozen=True)
class KAnonymity(Criterion):
    """k-anonymity: every output group has at least ``k`` rows.

    Adds ``Σ_i g_ij >= k · y_j`` for every candidate ``j`` (MODELS.md §2).
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

    def add_to(self, am) -> None:
        C = am.cands.n_candidates
        am.lm.add_rows(
            "kanon",
            C,
            rows=np.concatenate([am.cands.pair_cand, np.arange(C)]),
            cols=np.concatenate([am.g, am.y]),
            vals=np.concatenate([np.ones(am.cands.n_pairs), np.full(C, -float(self.k))]),
            lower=0.0,
        )

    def check_assignment(self, am, y_used, g) -> str | None:
        sizes = np.bincount(am.cands.pair_cand, weights=g, minlength=am.cands.n_candidates)
        small = np.flatnonzero((sizes > 0) & (sizes < self.k))
        if small.size:
            return f"group of candidate {int(small[0])} has {int(sizes[small[0]])} < k = {self.k} rows"
        return None

    def describe(self) -> str:
        return f"{self.k}-anonymity"
