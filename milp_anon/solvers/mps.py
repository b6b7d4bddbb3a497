"""A model written as an MPS file by this package, the same bytes under every HiGHS release.

The instance library (``milp-anon export``, ``benchmarks/instances/``) is checked
by the SHA-256 of its files, so the files cannot depend on the solver installed:
HiGHS 1.15 writes numbers with 15 significant digits (0.0404040404040404, which
reads back as another number), HiGHS 1.16 with 17. :func:`write_mps` writes the
layout of HiGHS's own fixed-format writer (names padded to 8 characters, the
objective row ``Obj``, or ``NoObj`` without costs, columns ``c<j>``, rows ``r<i>``, the sections and bound
codes it chooses) with every number in ``%.17g``: exact (a double reads back as
itself), and byte for byte what HiGHS 1.16's ``writeModel`` gives for every
model without an empty column of zero cost (``tests/test_mps.py`` compares
both on random models). Such a column gets its integer markers here; HiGHS's
writer leaves them out, so one that follows an integer column reads back as
binary.

Complexity: ``O(nnz)`` lines; numbers are formatted once per distinct value.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["write_mps", "mps_lines"]

#: the objective row's name, as HiGHS's writer chooses it (``NoObj`` when every cost is 0)
OBJECTIVE, NO_OBJECTIVE = "Obj", "NoObj"


def _formatter(values: np.ndarray):
    """``fmt(x)``: ``%.17g`` of the float ``x``, computed once per distinct value of ``values``."""
    cache = {float(v): "%.17g" % float(v) for v in np.unique(values)}

    def fmt(x: float) -> str:
        s = cache.get(x)
        return s if s is not None else "%.17g" % x
    return fmt


def mps_lines(a: dict, name: str = ""):
    """The lines of the MPS file of the model ``a`` (:meth:`milp_anon.solvers.model.LinearModel.arrays`: minimize
    ``cost``, CSC matrix ``start``/``index``/``value``, ``lower``/``upper`` on columns and rows, ``integer``
    flags; ``±inf`` for no bound), each without its newline."""
    cost, lo, up, integer = (np.asarray(a[k]) for k in ("cost", "lower", "upper", "integer"))
    rlo, rup = np.asarray(a["row_lower"], dtype=float), np.asarray(a["row_upper"], dtype=float)
    start, index, value = np.asarray(a["start"]), np.asarray(a["index"]), np.asarray(a["value"], dtype=float)
    n_cols, n_rows = cost.shape[0], rlo.shape[0]
    col = [f"c{j:<7d}" if j < 10_000_000 else f"c{j}" for j in range(n_cols)]  # "%-8s" of "c<j>"
    row = [f"r{i:<7d}" if i < 10_000_000 else f"r{i}" for i in range(n_rows)]
    obj = f"{OBJECTIVE if np.any(cost != 0) else NO_OBJECTIVE:<8}"

    # a row is E (equal bounds), L (an upper bound; a range when the lower is finite too), G, or N (free)
    equal = rlo == rup
    has_up, has_lo = np.isfinite(rup), np.isfinite(rlo)
    kind = np.where(equal, "E", np.where(has_up, "L", np.where(has_lo, "G", "N")))
    rhs = np.where(equal, rlo, np.where(has_up, rup, np.where(has_lo, rlo, 0.0)))
    ranged = ~equal & has_up & has_lo
    ranges = np.zeros(n_rows)
    ranges[ranged] = rup[ranged] - rlo[ranged]
    fmt = _formatter(np.concatenate([value, cost, lo[np.isfinite(lo)], up[np.isfinite(up)], rhs, ranges]))

    yield f"NAME        {name}"
    yield "ROWS"
    yield f" N  {obj}"
    for i in range(n_rows):
        yield f" {kind[i]}  {row[i]}"
    yield "COLUMNS"
    marker, in_int = 0, False
    any_int = bool(integer.any())
    for j in range(n_cols):
        s, e = int(start[j]), int(start[j + 1])
        c = float(cost[j])
        if any_int and bool(integer[j]) != in_int:
            # before an empty column too (HiGHS's writer skips the markers there, so an empty continuous
            # column after an integer one would read back as a binary one)
            in_int = not in_int
            yield f"    MARK{marker:04d}  'MARKER'                 '{'INTORG' if in_int else 'INTEND'}'"
            marker += 1
        if c == 0 and s == e:  # an empty column keeps its place with a zero cost entry
            yield f"    {col[j]}  {obj}  0"
            continue
        if c != 0:
            yield f"    {col[j]}  {obj}  {fmt(c)}"
        for r, v in zip(index[s:e].tolist(), value[s:e].tolist()):
            yield f"    {col[j]}  {row[r]}  {fmt(v)}"
    if in_int:
        yield f"    MARK{marker:04d}  'MARKER'                 'INTEND'"
    yield "RHS"
    for i in np.flatnonzero(rhs != 0).tolist():
        yield f"    RHS_V     {row[i]}  {fmt(float(rhs[i]))}"
    if np.any(ranges != 0):
        yield "RANGES"
        for i in np.flatnonzero(ranges != 0).tolist():
            yield f"    RANGE     {row[i]}  {fmt(float(ranges[i]))}"
    if np.any(lo != 0) or np.any(np.isfinite(up)) or any_int:
        yield "BOUNDS"
        for j in range(n_cols):
            lb, ub = float(lo[j]), float(up[j])
            if lb == ub:
                yield f" FX BOUND     {col[j]}  {fmt(lb)}"
            elif math.isinf(lb) and math.isinf(ub):
                yield f" FR BOUND     {col[j]}"
            elif integer[j]:
                if lb == 0 and ub == 1:
                    yield f" BV BOUND     {col[j]}"
                    continue
                if math.isinf(lb):
                    yield f" MI BOUND     {col[j]}"
                elif lb != 0 or math.isinf(ub):
                    yield f" LI BOUND     {col[j]}  {fmt(lb)}"
                if not math.isinf(ub):
                    yield f" UI BOUND     {col[j]}  {fmt(ub)}"
            else:
                if math.isinf(lb):
                    yield f" MI BOUND     {col[j]}"
                elif lb != 0:
                    yield f" LO BOUND     {col[j]}  {fmt(lb)}"
                if not math.isinf(ub):
                    yield f" UP BOUND     {col[j]}  {fmt(ub)}"
    yield "ENDATA"


def write_mps(a: dict, path: str, name: str = "") -> None:
    """Write the model ``a`` (see :func:`mps_lines`) to ``path`` (the caller renames it into place)."""
    with open(path, "w", encoding="ascii", newline="\n") as fh:
        for line in mps_lines(a, name):
            fh.write(line)
            fh.write("\n")
