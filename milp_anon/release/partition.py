"""Release a table from a partition of its rows into groups.

The exact algorithms and the heuristics produce partitions (blocks of row
indices); this module turns a partition into the released table every other
part of the toolkit uses — each block released as one equivalence class at
its cheapest recoding — so the same independent verifier checks all of them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from milp_anon.privacy.verify import verify_release
from milp_anon.runtime.errors import InputError
from milp_anon.tables.recoding import Generalization, Patterns
from milp_anon.tables.table import SUPPRESSED, Table


def release_blocks(table: Table, blocks, recoding=None) -> pd.DataFrame:
    """The released table where each block of ``blocks`` is one class.

    Per block and QI column: the common value if the block agrees; otherwise,
    with a hierarchy, the block's lowest common ancestor, and ``*`` without
    one. With patterns, the block takes the pattern with the fewest stars
    whose suppressed columns cover every column on which it varies (all of
    that pattern's columns are suppressed).

    Raises :class:`InputError` if the blocks do not partition the rows or a
    block fits no pattern.
    """
    n = table.n
    seen = np.zeros(n, dtype=np.int64)
    blocks = [np.asarray(b, dtype=np.int64) for b in blocks]
    for b in blocks:
        np.add.at(seen, b, 1)
    if not np.all(seen == 1):
        raise InputError("the blocks must partition the rows: every row exactly once")
    codes = table.codes
    out = table.frame.copy()
    hier = recoding.hierarchies if isinstance(recoding, Generalization) else {}
    lattices = recoding.lattices(table) if isinstance(recoding, Generalization) and recoding.cell_columns else None
    masks = recoding.masks(table) if isinstance(recoding, Patterns) else None
    for col_idx, col in enumerate(table.qi):
        column = out[col].to_numpy(dtype=object).copy()
        h = hier.get(col)
        cells = lattices[col_idx].cells if lattices is not None else None
        for b in blocks:
            vals = set(codes[b, col_idx].tolist())
            if masks is not None:
                continue
            if len(vals) == 1:
                continue
            if cells is not None:
                column[b] = lattices[col_idx].names[hull_node(cells, np.array(sorted(vals)))]
                continue
            if h is None:
                column[b] = SUPPRESSED
                continue
            names = [str(v) for v in table.frame[col].to_numpy()[b]]
            lvl = 0
            while len({h.paths[v][lvl] for v in names}) > 1:
                lvl += 1
            column[b] = h.paths[names[0]][lvl]
        out[col] = column
    if masks is not None:
        stars = (~masks).sum(axis=1)
        for b in blocks:
            varying = np.array([len(set(codes[b, c].tolist())) > 1 for c in range(table.m)])
            fits = np.flatnonzero(~np.any(masks & varying[None, :], axis=1))
            if fits.size == 0:
                raise InputError("a block varies on a column every pattern keeps")
            keep = masks[fits[np.argmin(stars[fits])]]
            for c in np.flatnonzero(~keep):
                col = table.qi[c]
                col_values = out[col].to_numpy(dtype=object).copy()
                col_values[b] = SUPPRESSED
                out[col] = col_values
    return out


def hull_node(cells, codes: np.ndarray) -> int:
    """The node of the cheapest cell of an interval / value-set column holding the value codes ``codes``
    (two or more distinct): their range or set, ``*`` when that is the whole column."""
    V = cells.n_values
    if cells.kind == "interval":
        r = cells.rank[codes]
        a, b = int(r.min()), int(r.max())
        return V if (a, b) == (0, V - 1) else int(cells.interval_node(a, b))
    mask = int(np.bitwise_or.reduce(np.left_shift(1, codes.astype(np.int64))))
    return V if mask == (1 << V) - 1 else int(cells.set_node(mask))


def groups_of(released: pd.DataFrame, qi) -> np.ndarray:
    """``(n,)`` the equivalence class (0-based) of every row of a released table."""
    # per column codes in sorted order of the cell texts, then the rows' code tuples in lexicographic
    # order: the classes numbered in sorted order of their released QI values
    codes = np.column_stack([pd.factorize(released[c].astype(str), sort=True)[0] for c in qi]) \
        if len(qi) else np.zeros((len(released), 1), dtype=np.int64)
    return np.unique(codes, axis=0, return_inverse=True)[1].ravel()


def blocks_of(released: pd.DataFrame, qi) -> list[np.ndarray]:
    """The equivalence classes of a released table, as arrays of row positions."""
    inv = groups_of(released, qi)
    order = np.argsort(inv, kind="stable")
    bounds = np.flatnonzero(np.diff(inv[order])) + 1
    return np.split(order, bounds)


def verified_release(table: Table, blocks, criteria, recoding=None):
    """Release ``blocks`` and run the independent verifier on it.

    Returns ``(released, cost)``; raises
    :class:`~milp_anon.runtime.errors.VerificationError` if a criterion fails.
    """
    released = release_blocks(table, blocks, recoding)
    v = verify_release(table.frame, released, table.qi, criteria, sensitive=table.sensitive, recoding=recoding)
    return released, v.cost
