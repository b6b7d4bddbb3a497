"""The independent verifier: released tables checked from the definitions.

Nothing here uses the model, the row types or the candidates: it compares the
released table with the original cell by cell and groups the released rows by
their QI values (Blocki-Williams Def. 2-4; an equivalence class is a maximal
set of released rows identical on the QIs). Every solution passes it before it
is returned or written; a failure raises :class:`VerificationError`.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import networkx as nx
import numpy as np
import pandas as pd

from milp_anon.privacy.criteria import (
    AverageRisk,
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    KAnonymity,
    KMap,
    LDiversity,
    PSensitivity,
    TCloseness,
    _matrix_metric,
    exact,
)
from milp_anon.runtime.errors import OptionViolation, VerificationError
from milp_anon.tables.recoding import Generalization, Patterns
from milp_anon.tables.table import SUPPRESSED


@dataclass(frozen=True)
class Verification:
    """What the verifier counted."""

    cost: float
    n_groups: int
    min_group_size: int
    #: the cost of each QI column (they sum to ``cost``)
    cost_by_column: dict = None
    #: the sizes of the equivalence classes
    class_sizes: tuple = ()
    #: withheld records (record suppression)
    n_withheld: int = 0


def _fail(msg: str):
    raise VerificationError(f"verification failed: {msg}")


def _check_shape_and_carried(original: pd.DataFrame, released: pd.DataFrame, qi: list) -> None:
    """Same columns, same number of rows, and every non-QI column unchanged (row by row)."""
    if list(original.columns) != list(released.columns):
        _fail(f"columns differ: {list(released.columns)} vs {list(original.columns)}")
    if len(original) != len(released):
        _fail(f"{len(released)} released rows for {len(original)} input rows")
    for c in original.columns:
        if c in qi:
            continue
        a, b = original[c].reset_index(drop=True), released[c].reset_index(drop=True)
        same = (a == b) | (a.isna() & b.isna())
        if not bool(same.all()):
            _fail(f"non-QI column {c!r} changed at data row {int(np.flatnonzero(~same.to_numpy())[0]) + 1}")


def check_suppression(original: pd.DataFrame, released: pd.DataFrame, qi) -> int:
    """Each released row equals its input row except QI cells replaced by ``*``.

    Returns the number of suppressed cells (the Meyerson-Williams cost).
    """
    return sum(suppression_by_column(original, released, qi).values())


def suppression_by_column(original: pd.DataFrame, released: pd.DataFrame, qi) -> dict:
    """:func:`check_suppression`, column by column: ``{column: suppressed cells}``."""
    qi = list(qi)
    _check_shape_and_carried(original, released, qi)
    return {c: _suppressed_stars(original[c].astype(str).to_numpy(), released[c].astype(str).to_numpy(), c)
            for c in qi}


def _suppressed_stars(a: np.ndarray, b: np.ndarray, col: str) -> int:
    """Released column ``b`` is input column ``a`` with some cells ``*``; returns the stars."""
    star = b == SUPPRESSED
    bad = ~star & (a != b)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        _fail(f"QI column {col!r} at data row {r + 1} holds {b[r]!r}, neither the input {a[r]!r} nor '*'")
    return int(star.sum())


def check_generalization(original: pd.DataFrame, released: pd.DataFrame, qi, recoding) -> float:
    """Each released QI cell is its input value or an ancestor in the column's hierarchy
    (``*`` for columns without one); everything else is unchanged.

    Returns the cost recounted from the definitions of the node costs:
    ``suppression`` (root 1), ``height`` (``l/H``), ``lm``
    (``(leaves under the node − 1)/(leaves − 1)``) or per-level weights.
    """
    return sum(generalization_by_column(original, released, qi, recoding).values())


def generalization_by_column(original: pd.DataFrame, released: pd.DataFrame, qi, recoding) -> dict:
    """:func:`check_generalization`, column by column: ``{column: cost}``."""
    qi = list(qi)
    _check_shape_and_carried(original, released, qi)
    if recoding.cost == "entropy":
        return entropy_by_column(original, released, qi, recoding)
    by_column = {}
    for c in qi:
        a = original[c].astype(str).to_numpy()
        b = released[c].astype(str).to_numpy()
        if c in recoding.intervals:
            by_column[c] = _interval_cells(a, b, c)
            continue
        if c in recoding.value_sets:
            by_column[c] = _set_cells(a, b, c)
            continue
        h = recoding.hierarchies.get(c)
        if h is None:  # suppressed column: value or *, cost 1 per star
            by_column[c] = float(_suppressed_stars(a, b, c))
            continue
        total = 0.0
        leaves_under = Counter()
        for path in h.paths.values():
            for lvl, node in enumerate(path):
                leaves_under[(lvl, node)] += 1
        n_leaves = len(h.paths)
        for r, (v, out) in enumerate(zip(a, b)):
            path = h.paths.get(v)
            if path is None or out not in path:
                _fail(f"QI column {c!r} at data row {r + 1} holds {out!r}, which is not {v!r} or an ancestor of it")
            lvl = path.index(out)
            total += _node_cost(recoding, c, h, lvl, leaves_under[(lvl, out)], n_leaves)
        by_column[c] = total
    return by_column


def entropy_by_column(original: pd.DataFrame, released: pd.DataFrame, qi, recoding) -> dict:
    """The entropy cost, column by column, from its definition: ``{column: bits}``.

    Non-uniform entropy (De Waal & Willenborg 1999; Gionis & Tassa 2009): a cell of input value ``v``
    released as a cell covering the values ``S`` costs ``log2(N(S) / N(v))`` bits, ``N`` counted over the
    original column (every record, withheld ones too: they are written at the root, which covers every value).
    ``S`` is read from the released text alone: the values ``u`` of the column it can be a recoding of
    (:func:`cell_holds`: the value itself, ``*``, a hierarchy node above ``u``, a range holding ``u``, a set
    listing ``u``). Each released cell must hold its own input value."""
    by_column = {}
    for c in qi:
        a = original[c].astype(str).to_numpy()
        b = released[c].astype(str).to_numpy()
        count = Counter(a.tolist())
        total = 0.0
        covered: dict = {}
        for (v, out), times in Counter(zip(a.tolist(), b.tolist())).items():
            h = recoding.hierarchies.get(c)
            if not cell_holds(recoding, c, v, out) or (h is not None and out not in h.paths.get(v, (v,))):
                r = int(np.flatnonzero((a == v) & (b == out))[0])
                _fail(f"QI column {c!r} at data row {r + 1} holds {out!r}, which cannot be a recoding of {v!r}")
            if out not in covered:
                covered[out] = sum(k for u, k in count.items() if cell_holds(recoding, c, u, out)
                                   and (h is None or out in h.paths.get(u, (u,))))
            total += times * (math.log2(covered[out]) - math.log2(count[v]))
        by_column[c] = total
    return by_column


def parse_range(text: str):
    """``(lo, hi)`` of a released range ``lo-hi`` or ``[lo, hi]`` (negatives and decimals allowed), or ``None``."""
    t = text.strip()
    if t.startswith("[") and t.endswith("]") and t.count(",") == 1:
        parts = t[1:-1].split(",")
    else:
        parts = None
        for i in range(1, len(t)):  # the '-' between two numbers: "-5--1" splits after "-5"
            if t[i] == "-" and _number(t[:i]) is not None and _number(t[i + 1:]) is not None:
                parts = [t[:i], t[i + 1:]]
                break
    if parts is None:
        return None
    lo, hi = _number(parts[0]), _number(parts[1])
    if lo is None or hi is None or lo > hi:
        return None
    return lo, hi


def _cell_range(cell: str):
    """``(lo, hi)`` of an interval column's released cell: a range, or a single number as ``(x, x)``; else ``None``."""
    rng = parse_range(cell)
    x = _number(cell) if rng is None else None
    return rng if rng is not None else (None if x is None else (x, x))


def _number(text: str):
    try:
        x = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        return None
    return x


def cell_holds(recoding, col: str, value: str, cell: str) -> bool:
    """Whether the released ``cell`` of QI column ``col`` can be a recoding of the input ``value``."""
    if cell == value or cell == SUPPRESSED:
        return True
    if not isinstance(recoding, Generalization):
        return False
    if col in recoding.intervals:
        rng, x = _cell_range(cell), _number(value)
        return rng is not None and x is not None and rng[0] <= x <= rng[1]
    if col in recoding.value_sets:
        return value in {x.strip() for x in cell.split(",")}
    h = recoding.hierarchies.get(col)
    return h is not None and value in h.paths and cell in h.paths[value]


def _cell_total(a: np.ndarray, b: np.ndarray, col: str, what: str, cost_of) -> float:
    """The summed cost of released column ``b`` over input column ``a``: 0 for the value, 1 for ``*``,
    ``cost_of(value, cell)`` otherwise (``None``: the cell does not hold the value). Each distinct
    (value, cell) pair is read once."""
    total = Fraction(0)
    pairs = Counter(zip(a.tolist(), b.tolist()))
    for (v, out), times in pairs.items():
        if out == v:
            continue
        cost = Fraction(1) if out == SUPPRESSED else cost_of(v, out)
        if cost is None:
            r = int(np.flatnonzero((a == v) & (b == out))[0])
            _fail(f"QI column {col!r} at data row {r + 1} holds {out!r}, which is not {v!r}, '*' or {what} "
                  "holding it")
        total += times * cost
    return float(total)


def _interval_cells(a: np.ndarray, b: np.ndarray, col: str) -> float:
    """Each released cell is the input value, ``*`` or a range holding it; the cost is each range's width
    within the input column's range over that range (``*``: 1)."""
    values = {v: _number(v) for v in set(a)}
    bad = [v for v, x in values.items() if x is None]
    if bad:
        _fail(f"interval column {col!r} holds the non-number {bad[0]!r}")
    lo_all, hi_all = min(values.values()), max(values.values())
    span = hi_all - lo_all

    def cost_of(v, out):
        rng = _cell_range(out)
        if rng is None or not rng[0] <= values[v] <= rng[1]:
            return None
        return (min(rng[1], hi_all) - max(rng[0], lo_all)) / span if span else Fraction(0)

    return _cell_total(a, b, col, "a range", cost_of)


def _set_cells(a: np.ndarray, b: np.ndarray, col: str) -> float:
    """Each released cell is the input value, ``*`` or a ``,``-separated set of the column's values holding
    it; the cost is ``(|S| − 1)/(|D| − 1)`` (``*``: 1)."""
    domain = set(a)

    def cost_of(v, out):
        members = {x.strip() for x in out.split(",")}
        if v not in members or not members <= domain:
            return None
        return Fraction(len(members) - 1, len(domain) - 1) if len(domain) > 1 else Fraction(0)

    return _cell_total(a, b, col, "a set of the column's values", cost_of)


def _node_cost(recoding, col, h, level, leaves, n_leaves) -> float:
    cost = recoding.cost
    if isinstance(cost, dict) and col in cost:
        return float(cost[col][level])
    kind = cost if isinstance(cost, str) else "height"
    if kind == "suppression":
        return 1.0 if level == h.height else 0.0
    if kind == "height":
        return level / h.height
    return (leaves - 1) / (n_leaves - 1) if n_leaves > 1 else float(level > 0)


def check_patterns(released: pd.DataFrame, qi, patterns) -> None:
    """Every released row's set of suppressed QI cells is exactly one pattern's."""
    qi = list(qi)
    allowed = set()
    for p in patterns.patterns:
        if isinstance(p, str):
            allowed.add(tuple(ch in "1□" for ch in p))
        else:
            allowed.add(tuple(c in p for c in qi))
    kept = (released[qi].astype(str) != SUPPRESSED).to_numpy()
    for r, row in enumerate(map(tuple, kept)):
        if row not in allowed:
            _fail(f"data row {r + 1} has suppressed cells {[c for c, k in zip(qi, row) if not k]}, "
                  "which match no pattern")


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
    return verify_release(original, released, qi, [KAnonymity(k)], claimed_cost=claimed_cost)


# --- sensitive criteria, from their definitions ------------------------------------------

def _classes(released, qi):
    """Row indices of each equivalence class of the released table."""
    return list(released.reset_index(drop=True).groupby(list(qi), sort=False, dropna=False).indices.values())


def emd_equal(p, q) -> Fraction:
    """EMD under equal distance = total variation = ½ Σ |p − q| (exact)."""
    return sum((abs(a - b) for a, b in zip(p, q)), Fraction(0)) / 2


def emd_ordered(p, q) -> Fraction:
    """EMD under ordered distance = Σ_a |Σ_{b<=a} (p_b − q_b)| / (V − 1) (exact)."""
    V = len(p)
    if V <= 1:
        return Fraction(0)
    run, total = Fraction(0), Fraction(0)
    for a in range(V - 1):
        run += p[a] - q[a]
        total += abs(run)
    return total / (V - 1)


def emd_hierarchical(p, q, dom, hierarchy) -> Fraction:
    """EMD under the hierarchical distance ``d(a, b) = level(LCA(a, b)) / H``, exactly.

    ``(1/H) Σ_{l < H} Σ_{node N at level l} max(0, Σ_{leaves a under N} (p_a − q_a))``: the surplus of the
    subtree of a level-``l`` node must leave it, and every unit leaving it travels one more ``1/H`` step up
    the tree; settling each surplus inside the lowest subtree that can absorb it attains this (Li, Li and
    Venkatasubramanian 2007, Sec. 4.2, the hierarchical distance). ``O(V·H)``; the hierarchy is a tree
    (``Hierarchy.from_rows``), so a node is its text at its level.
    """
    H = hierarchy.height
    total = Fraction(0)
    for level in range(H):
        surplus = {}
        for a, pa, qa in zip(dom, p, q):
            node = hierarchy.paths[a][level]
            surplus[node] = surplus.get(node, Fraction(0)) + pa - qa
        total += sum((x for x in surplus.values() if x > 0), Fraction(0))
    return total / H


def emd_network(p, q, d) -> Fraction:
    """EMD as the transportation problem ``min Σ d_στ F_στ`` with margins ``p`` and ``q``, exactly: the
    masses and the distances (each its :func:`exact` rational) scaled to integers by their common
    denominators and solved by networkx's network simplex, which is exact on integers."""
    V = len(p)
    d = [[exact(float(x)) for x in row] for row in np.asarray(d, dtype=float)]
    mass = math.lcm(*(Fraction(x).denominator for x in (*p, *q)))
    scale = math.lcm(*(x.denominator for row in d for x in row))
    G = nx.DiGraph()
    for s in range(V):
        G.add_node(("supply", s), demand=-int(Fraction(p[s]) * mass))
        G.add_node(("demand", s), demand=int(Fraction(q[s]) * mass))
        for t in range(V):
            G.add_edge(("supply", s), ("demand", t), weight=int(d[s][t] * scale))
    cost, _ = nx.network_simplex(G)
    return Fraction(cost, mass * scale)


def root_names(qi, recoding=None) -> dict:
    """The released text of each QI column's root: ``*``, or the root of the column's hierarchy."""
    hier = recoding.hierarchies if isinstance(recoding, Generalization) else {}
    return {c: str(next(iter(hier[c].paths.values()))[-1]) if c in hier else SUPPRESSED for c in qi}


def withheld_rows(released, qi, recoding=None) -> np.ndarray:
    """Rows whose every QI cell is at its root: the records ARX's record suppression withholds."""
    top = np.ones(len(released), dtype=bool)
    for c, root in root_names(qi, recoding).items():
        top &= released[c].astype(str).to_numpy() == root
    return top


def verify_release(original, released, qi, criteria, sensitive=(), claimed_cost=None,
                   recoding=None, withheld=None) -> Verification:
    """Verify a suppression release against every criterion object in ``criteria``.

    Each criterion is checked from its definition on the released classes;
    only the parameters (``k``, ``p``, ``ℓ``, ``c``, ``t``, the metric) are read
    from the criterion objects. A criterion without ``column`` applies to every
    column in ``sensitive``.

    ``withheld`` (record suppression): a boolean mask of withheld records.
    Each must be written with every QI cell at its root (so the recount
    charges it every cell); they are exempt from every criterion (ARX's
    definition), and t-closeness compares classes with the whole original
    table's distribution (or with the criterion's ``reference``, when given).
    """
    if isinstance(recoding, Generalization):
        by_column = generalization_by_column(original, released, qi, recoding)
    else:
        by_column = suppression_by_column(original, released, qi)
    weights = dict(getattr(recoding, "weights", ()) or ())
    if weights:  # per-column importance: each cell cost of a column times the column's weight
        by_column = {c: v * weights.get(c, 1) for c, v in by_column.items()}
    cost = sum(by_column.values())
    all_values = {c: original[c].astype(str).to_numpy() for c in sensitive}
    n_withheld = 0
    if withheld is not None:
        withheld = np.asarray(withheld, dtype=bool)
        if withheld.shape != (len(released),):
            _fail(f"a withheld mask of {withheld.shape[0]} rows for {len(released)} rows")
        bad = withheld & ~withheld_rows(released, qi, recoding)
        if bad.any():
            _fail(f"data row {int(np.flatnonzero(bad)[0]) + 1} is withheld but not written at the root "
                  "in every QI")
        n_withheld = int(withheld.sum())
        released = released[~withheld].reset_index(drop=True)
        original = original[~withheld].reset_index(drop=True)
    if isinstance(recoding, Patterns):
        check_patterns(released, qi, recoding)
    sizes = group_sizes(released, qi)
    if claimed_cost is not None and abs(float(claimed_cost) - cost) > 1e-6 * max(1.0, abs(cost)):
        _fail(f"claimed cost {claimed_cost} but the released table costs {cost}")
    classes = None
    for crit in criteria:
        if isinstance(crit, KAnonymity):
            if sizes.size and sizes.min() < crit.k:
                _fail(f"an equivalence class has {int(sizes.min())} rows, fewer than k = {crit.k}")
            continue
        if isinstance(crit, AverageRisk):
            _check_average_risk(crit, sizes, n_withheld)
            continue
        if classes is None:
            classes = _classes(released, qi)
        if isinstance(crit, (KMap, DeltaPresence)):
            _check_population(crit, released, qi, recoding, classes)
            continue
        cols = [crit.column] if crit.column is not None else list(sensitive)
        if not cols:
            _fail(f"{crit.describe()} without a sensitive column")
        for col in cols:
            values = original[col].astype(str).to_numpy()
            if isinstance(crit, PSensitivity) or (isinstance(crit, LDiversity) and crit.kind == "distinct"):
                need = crit.p if isinstance(crit, PSensitivity) else crit.l
                for rows in classes:
                    d = len(set(values[rows]))
                    if d < need:
                        _fail(f"a class has {d} distinct values of {col!r}, fewer than {need} ({crit.describe()})")
            elif isinstance(crit, LDiversity) and crit.kind == "frequency":
                l_exact = exact(crit.l)
                for rows in classes:
                    top = max(Counter(values[rows]).values())
                    if l_exact * top > len(rows):
                        _fail(f"a class of {len(rows)} rows has a value of {col!r} {top} times, "
                              f"more than |G|/l ({crit.describe()})")
            elif isinstance(crit, LDiversity) and crit.kind == "recursive":
                c_exact = exact(crit.c)
                for rows in classes:
                    r = sorted(Counter(values[rows]).values(), reverse=True)
                    if not Fraction(r[0]) < c_exact * sum(r[crit.l - 1:]):
                        _fail(f"a class is not recursive ({crit.c:g},{crit.l})-diverse on {col!r}: counts {r}")
            elif isinstance(crit, LDiversity) and crit.kind == "entropy":
                for rows in classes:
                    if not _entropy_diverse(Counter(values[rows]).values(), crit.l):
                        _fail(f"a class of {len(rows)} rows has entropy of {col!r} below log l "
                              f"({crit.describe()}): counts {sorted(Counter(values[rows]).values(), reverse=True)}")
            elif isinstance(crit, TCloseness):
                _check_t_closeness(crit, values, classes, col, all_values.get(col))
            elif isinstance(crit, (DeltaDisclosure, BetaLikeness)):
                _check_shares(crit, values, classes, col, all_values.get(col))
            else:  # pragma: no cover
                raise VerificationError(f"verification failed: no verifier for {crit.describe()}")
    return Verification(cost=cost, n_groups=int(sizes.size), min_group_size=int(sizes.min()) if sizes.size else 0,
                        cost_by_column=by_column, class_sizes=tuple(int(x) for x in sizes), n_withheld=n_withheld)


def _entropy_diverse(counts, l) -> bool:
    """Entropy ℓ-diversity of one class from the definition (Machanavajjhala et al., TKDD 2007, Def. 4.1):
    ``−Σ_s p_s log p_s >= log ℓ`` with ``p_s = n_s / n``. Exponentiated and multiplied by ``n^n``:
    ``Π_s (n / n_s)^{n_s} >= ℓ^n``, i.e. with ``ℓ = a/b``, ``(b · n)^n >= a^n · Π_s n_s^{n_s}``: integers only,
    no logarithm, no tolerance."""
    ell = exact(l)
    n_s = [int(c) for c in counts if c]
    n = sum(n_s)
    lhs = (ell.denominator * n) ** n
    rhs = ell.numerator ** n
    for c in n_s:
        rhs *= c ** c
    return lhs >= rhs


def _check_t_closeness(crit, values, classes, col, table_values=None):
    """Each class's distribution within ``t`` of the table's (``table_values``: the whole original column,
    withheld records included; default ``values``)."""
    table_values = values if table_values is None else table_values
    ref = crit.reference_for(col)  # a given distribution replaces the table's
    whole = Counter(table_values) if ref is None else Counter(ref)
    n = sum(whole.values())
    dom = _t_domain(crit, list(table_values) + list(whole))
    P = [Fraction(whole.get(v, 0), n) for v in dom]
    t_exact = exact(crit.t)
    d = None
    for rows in classes:
        cnt = Counter(values[rows])
        Q = [Fraction(cnt.get(v, 0), len(rows)) for v in dom]
        if crit.distance_kind == "equal":
            emd = emd_equal(P, Q)
        elif crit.distance_kind == "ordered":
            emd = emd_ordered(P, Q)
        elif crit.distance_kind == "hierarchical":
            emd = emd_hierarchical(P, Q, dom, crit.hierarchy)
        else:
            if d is None:
                d = _t_metric(crit, dom, col)
            emd = emd_network(P, Q, d)
        if emd > t_exact:  # exact rationals: no tolerance
            _fail(f"a class of {len(rows)} rows is at EMD {float(emd):.6g} > t = {crit.t:g} (over by "
                  f"{float(emd - t_exact):.3g}, exactly) on {col!r} "
                  f"({crit.describe()})")


def exp_sign(x, r) -> int:
    """The sign of ``e^x − r`` for rationals ``x`` and ``r``, exactly (``0`` only for ``x = 0, r = 1``: ``e^x`` is
    irrational for every other rational ``x``, Lindemann).

    Where a float comparison is clear by a relative ``10^-9`` (``math.exp`` is within an ulp or two, ``|x| < 710``),
    it decides; otherwise the Taylor partial sums ``S_k = Σ_{i<=k} x^i/i!`` (``x > 0``) rise to ``e^x`` and the tail
    after them is at most ``t_{k+1} / (1 − x/(k+2))`` once ``k + 2 > x``, so ``S_k > r`` or ``S_k + tail < r``
    settles it in exact rationals. ``x < 0``: ``sign(e^x − r) = −sign(e^{−x} − 1/r)``."""
    x, r = Fraction(x), Fraction(r)
    if r <= 0:
        return 1
    if x == 0:
        return (r < 1) - (r > 1)
    if x < 0:
        return -exp_sign(-x, 1 / r)
    try:
        f, g = math.exp(float(x)), float(r)
        if f > g * (1 + 1e-9):
            return 1
        if f < g * (1 - 1e-9):
            return -1
    except OverflowError:
        pass
    S, term, k = Fraction(0), Fraction(1), 0
    while True:
        S += term  # S = Σ_{i<=k} x^i / i!
        if S > r:
            return 1
        k += 1
        term = term * x / k  # x^k / k!, the first term left out
        if k + 1 > x and S + term / (1 - x / (k + 1)) < r:
            return -1


def _check_shares(crit, values, classes, col, table_values=None):
    """δ-disclosure privacy (Brickell-Shmatikov Def. 4: ``|ln(q/p)| < δ`` for every value of the table, an absent
    value failing) or β-likeness (Cao-Karras Def. 2, 4: ``(q − p)/p <= β``, enhanced ``<= min(β, −ln p)``, for
    every value with ``q > p``), each class's share ``q`` against the whole original column's ``p`` (or the
    criterion's ``reference``), in exact rationals and :func:`exp_sign`."""
    table_values = values if table_values is None else table_values
    ref = crit.reference_for(col)
    whole = Counter(table_values) if ref is None else Counter(ref)
    n = sum(whole.values())
    dom = sorted(set(whole) | set(values))
    for rows in classes:
        cnt = Counter(values[rows])
        for v in dom:
            q, p = Fraction(cnt.get(v, 0), len(rows)), Fraction(whole.get(v, 0), n)
            if isinstance(crit, DeltaDisclosure):
                if p == 0 and q == 0:
                    continue  # not a value of the table
                d = exact(crit.delta)
                # ln(q/p) < δ  ⇔  q/p < e^δ;  ln(q/p) > −δ  ⇔  q/p > e^−δ  (q = 0 or p = 0: infinite)
                ok = p > 0 and q > 0 and exp_sign(d, q / p) > 0 and exp_sign(-d, q / p) < 0
                if not ok:
                    _fail(f"a class of {len(rows)} rows has value {v!r} of {col!r} at share {q} against {p} in the "
                          f"table: |ln(q/p)| >= delta ({crit.describe()})")
            elif q > p:
                b = exact(crit.beta)
                gain = None if p == 0 else (q - p) / p
                # enhanced: gain <= −ln p  ⇔  p <= e^{−gain}
                ok = gain is not None and gain <= b and (crit.kind == "basic" or exp_sign(-gain, p) >= 0)
                if not ok:
                    _fail(f"a class of {len(rows)} rows has value {v!r} of {col!r} at share {q} against {p} in the "
                          f"table, a relative gain above what {crit.describe()} allows")


def _check_average_risk(crit, sizes, n_withheld: int):
    """ARX's average re-identification risk (prosecutor model): the mean over every record of ``1/|its class|``,
    the withheld records forming one class, at most ``R`` (exact rationals)."""
    classes = [int(s) for s in sizes] + ([n_withheld] if n_withheld else [])
    n = sum(classes)
    if not n:
        return
    risk = sum((Fraction(1, s) * s for s in classes), Fraction(0)) / n
    if risk > exact(crit.risk):
        _fail(f"{len(classes)} classes over {n} records: an average re-identification risk of {float(risk):.4g} > "
              f"{crit.risk:g} ({crit.describe()})")


def _t_domain(crit, values):
    present = sorted(set(values))
    if crit.distance_kind == "ordered":
        if crit.order is not None:
            return list(crit.order)
        return sorted(present, key=lambda v: (float(v), v))
    return present


def _t_metric(crit, dom, col):
    """The user's ground metric over ``dom``, validated (the hierarchical distance has its closed form)."""
    return _matrix_metric(crit.distance, dom, col)


def verify_options(original, released, qi, verification: Verification, *, budget=None, t_out_min=None,
                   t_out_max=None, objective="cost", max_withheld=None) -> float:
    """Check a budget and output homogeneity on the released table; return the objective value.

    Objectives: ``cost`` (the recounted cell cost), ``rows`` (rows with at
    least one recoded QI cell), ``types`` (number of equivalence classes).
    """
    qi = list(qi)
    if verification.n_withheld and (max_withheld is None or verification.n_withheld > max_withheld):
        raise OptionViolation(f"verification failed: {verification.n_withheld} records withheld, more than "
                              f"{max_withheld or 0}")
    if budget is not None and verification.cost > budget + 1e-9:
        raise OptionViolation(f"verification failed: cost {verification.cost} exceeds the budget {budget}")
    n_types = verification.n_groups
    if t_out_min is not None and n_types < t_out_min:
        raise OptionViolation(f"verification failed: {n_types} output types, fewer than {t_out_min}")
    if t_out_max is not None and n_types > t_out_max:
        raise OptionViolation(f"verification failed: {n_types} output types, more than {t_out_max}")
    if objective == "rows":
        changed = (original[qi].astype(str).to_numpy() != released[qi].astype(str).to_numpy()).any(axis=1)
        return float(changed.sum())
    if objective == "types":
        return float(n_types)
    return float(verification.cost)


# --- k-map and δ-presence, from their definitions ------------------------------------------------------------

def class_population_matches(released: pd.DataFrame, qi, population: pd.DataFrame, recoding=None, classes=None):
    """``(classes, matches)``: the released table's equivalence classes (row indices) and, per class, the
    population records whose QI values its released tuple covers, read cell by cell (:func:`cell_holds`: the
    value, ``*``, a hierarchy node above it, a range ``lo-hi`` holding it, a value set ``a,b`` listing it).

    Independent of the model's ``pop(j)``: every population value is compared with every distinct released
    cell of its column, then a class counts the population records covered in every column."""
    qi = list(qi)
    released = released.reset_index(drop=True)
    classes = _classes(released, qi) if classes is None else classes
    missing = [c for c in qi if c not in population.columns]
    if missing:
        _fail(f"the population table has no column(s) {', '.join(missing)}")
    types = Counter(map(tuple, population[qi].astype(str).to_numpy().tolist()))
    keys = list(types)
    weight = np.array([types[t] for t in keys], dtype=np.int64)
    tuples = [tuple(str(released[c].iat[rows[0]]) for c in qi) for rows in classes]
    covered = np.ones((len(classes), len(keys)), dtype=bool)
    for c_idx, col in enumerate(qi):
        pop_vals = [t[c_idx] for t in keys]
        distinct = sorted(set(pop_vals))
        at = {v: i for i, v in enumerate(distinct)}
        code = np.array([at[v] for v in pop_vals], dtype=np.int64)
        holds = {}
        for g, tup in enumerate(tuples):
            cell = tup[c_idx]
            if cell not in holds:
                holds[cell] = np.array([cell_holds(recoding, col, v, cell) for v in distinct], dtype=bool)
            covered[g] &= holds[cell][code]
    matches = covered.astype(np.int64) @ weight if keys else np.zeros(len(classes), dtype=np.int64)
    return classes, [int(x) for x in matches]


def _check_population(crit, released, qi, recoding, classes) -> None:
    """k-map: every class matches at least ``k`` population records; δ-presence: every class's rows over its
    matching population records lie in ``[δ_min, δ_max]`` (exact rationals)."""
    classes, matches = class_population_matches(released, qi, crit.population, recoding, classes)
    for rows, pop in zip(classes, matches):
        if isinstance(crit, KMap):
            if pop < crit.k:
                _fail(f"a class of {len(rows)} rows matches {pop} population records, fewer than k = {crit.k} "
                      f"({crit.describe()})")
            continue
        if pop == 0 or not exact(crit.dmin) <= Fraction(len(rows), pop) <= exact(crit.dmax):
            _fail(f"a class of {len(rows)} rows matches {pop} population records, a share outside "
                  f"[{crit.dmin:g}, {crit.dmax:g}] ({crit.describe()})")
