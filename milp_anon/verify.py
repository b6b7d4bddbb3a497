"""The independent verifier: released tables checked from the definitions.

Nothing here uses the model, the row types or the candidates: it compares the
released table with the original cell by cell and groups the released rows by
their QI values (Blocki-Williams Def. 2-4; an equivalence class is a maximal
set of released rows identical on the QIs). Every solution passes it before it
is returned or written; a failure raises :class:`VerificationError`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import VerificationError
from .table import SUPPRESSED


@dataclass(frozen=True)
class Verification:
    """What the verifier counted."""

    cost: int
    n_groups: int
    min_group_size: int


def _fail(msg: str):
    raise VerificationError(f"verification failed: {msg}")


def check_suppression(original: pd.DataFrame, released: pd.DataFrame, qi) -> int:
    """Each released row equals its input row except QI cells replaced by ``*``.

    Returns the number of suppressed cells (the Meyerson-Williams cost).
    """
    if list(original.columns) != list(released.columns):
        _fail(f"columns differ: {list(released.columns)} vs {list(original.columns)}")
    if len(original) != len(released):
        _fail(f"{len(released)} released rows for {len(original)} input rows")
    qi = list(qi)
    for c in original.columns:
        if c in qi:
            continue
        a, b = original[c].reset_index(drop=True), released[c].reset_index(drop=True)
        same = (a == b) | (a.isna() & b.isna())
        if not bool(same.all()):
            r = int(np.flatnonzero(~same.to_numpy())[0])
            _fail(f"non-QI column {c!r} changed at data row {r + 1}")
    stars = 0
    for c in qi:
        a = original[c].astype(str).to_numpy()
        b = released[c].astype(str).to_numpy()
        star = b == SUPPRESSED
        bad = ~star & (a != b)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            _fail(f"QI column {c!r} at data row {r + 1} holds {b[r]!r}, neither the input {a[r]!r} nor '*'")
        stars += int(star.sum())
    return stars


def group_sizes(released: pd.DataFrame, qi) -> np.ndarray:
    """Sizes of the equivalence classes of the released table (rows equal on all QIs)."""
    sizes = released.groupby(list(qi), sort=False, dropna=False).size()
    return sizes.to_numpy()


def verify_k_anonymity(original, released, qi, k: int, claimed_cost=None) -> Verification:
    """Verify a suppression release for k-anonymity and recount its cost.

    Raises
    ------
    VerificationError
        If a cell was changed other than by suppression, a class has fewer
        than ``k`` rows, or ``claimed_cost`` differs from the recount.
    """
    cost = check_suppression(original, released, qi)
    sizes = group_sizes(released, qi)
    if sizes.size and sizes.min() < k:
        _fail(f"an equivalence class has {int(sizes.min())} rows, fewer than k = {k}")
    if claimed_cost is not None and abs(float(claimed_cost) - cost) > 1e-6:
        _fail(f"claimed cost {claimed_cost} but the table has {cost} suppressed cells")
    return Verification(cost=cost, n_groups=int(sizes.size), min_group_size=int(sizes.min()) if sizes.size else 0)
