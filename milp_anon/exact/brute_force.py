"""Brute force over set partitions of the rows.

Problem: given an ``n × m`` table of QI values, optional sensitive columns and
privacy criteria, partition the rows into groups that each meet every
criterion; a group's cost is its size times the number of QI columns on which
its rows are not all equal (those cells must be suppressed so the group is
one equivalence class; Blocki-Williams 2010, Def. 2-4). Minimize the total.

Algorithm: exhaustive search over every set partition, memoized on the set of
rows still to be placed (the block holding the lowest unplaced row is chosen
among all subsets of the rest). Every group condition is evaluated from its
definition here (Python counters, exact fractions, and the Earth Mover's
Distance as a min-cost flow in networkx); nothing is shared with the MILP or
with the verifier. Time ``O(3^n · m)``, memory ``O(2^n)``: for ``n <= 12``.
"""

from __future__ import annotations

import decimal
import itertools
import math
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import combinations

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
    exact,
)
from milp_anon.tables.recoding import Generalization, Patterns

MAX_ROWS = 12


def suppression_cost(table: np.ndarray, block) -> int:
    """Stars needed to make the rows ``block`` of ``table`` identical."""
    sub = np.asarray(table, dtype=object)[list(block)]
    varying = int(np.sum(np.any(sub != sub[0], axis=0)))
    return varying * len(block)


def emd_flow(p_counts, q_counts, dist) -> Fraction:
    """EMD between two count vectors under the metric ``dist`` as a min-cost flow, exactly.

    Masses are scaled to integers (``p = a/A``, ``q = b/B`` become ``a·B`` and
    ``b·A``) and distances to integers by the common denominator of their
    exact values (a ``Fraction`` as given; a float as the decimal it prints
    as, so ``0.1`` is ``1/10``), so networkx's network simplex runs on
    integers and the result is exact. Rounding the distances instead (to
    ``1/10⁶``) once made an ordered-distance group at exactly ``t = 0.4``
    (``1.2/3``) read as over ``t``.
    """
    A, B = sum(p_counts), sum(q_counts)
    V = len(p_counts)
    d = [[x if isinstance(x, Fraction) else Fraction(repr(float(x))) for x in row] for row in dist]
    scale = math.lcm(*(x.denominator for row in d for x in row))
    G = nx.DiGraph()
    for s in range(V):
        G.add_node(("p", s), demand=-int(p_counts[s]) * B)
        G.add_node(("q", s), demand=int(q_counts[s]) * A)
    for s in range(V):
        for t in range(V):
            G.add_edge(("p", s), ("q", t), weight=int(d[s][t] * scale))
    cost = nx.min_cost_flow_cost(G)
    return Fraction(cost, A * B * scale)


def group_condition(criteria, sensitive: dict):
    """A predicate on a block of row indices meeting every criterion, from the definitions.

    ``sensitive`` maps each sensitive column name to its list of values.
    """
    checks = []
    k = 1
    for crit in criteria:
        if isinstance(crit, KAnonymity):
            k = max(k, crit.k)
            continue
        if isinstance(crit, (KMap, DeltaPresence)):  # judged on the block's release: _population_cost
            continue
        if isinstance(crit, AverageRisk):  # on the partition, not a block: brute_force counts the blocks
            continue
        cols = [crit.column] if crit.column is not None else list(sensitive)
        for col in cols:
            vals = sensitive[col]
            if isinstance(crit, PSensitivity) or (isinstance(crit, LDiversity) and crit.kind == "distinct"):
                need = crit.p if isinstance(crit, PSensitivity) else crit.l
                checks.append(lambda b, v=vals, need=need: len({v[r] for r in b}) >= need)
            elif isinstance(crit, LDiversity) and crit.kind == "frequency":
                lf = exact(crit.l)
                checks.append(lambda b, v=vals, lf=lf: lf * max(Counter(v[r] for r in b).values()) <= len(b))
            elif isinstance(crit, LDiversity) and crit.kind == "entropy":
                ell_e = exact(crit.l)

                def ent(b, v=vals, ell_e=ell_e):
                    # −Σ p log p >= log ℓ, exponentiated: Π_s (|b| / c_s)^{c_s} >= ℓ^{|b|}, in fractions
                    c = Counter(v[r] for r in b).values()
                    return math.prod(Fraction(len(b), x) ** x for x in c) >= ell_e ** len(b)

                checks.append(ent)
            elif isinstance(crit, LDiversity):
                cf, ell = exact(crit.c), crit.l

                def rec(b, v=vals, cf=cf, ell=ell):
                    r = sorted(Counter(v[x] for x in b).values(), reverse=True)
                    return r[0] < cf * sum(r[ell - 1:])

                checks.append(rec)
            elif isinstance(crit, (DeltaDisclosure, BetaLikeness)):
                checks.append(_share_check(crit, vals))
            elif isinstance(crit, TCloseness):
                ref = crit.reference_for(col)  # a given distribution replaces the table's
                whole = Counter(vals) if ref is None else Counter(ref)
                dom = _domain(crit, list(vals) + list(whole))
                d = _metric(crit, dom)
                P = [whole.get(x, 0) for x in dom]
                tf = exact(crit.t)

                def close(b, v=vals, dom=dom, d=d, P=P, tf=tf):
                    c = Counter(v[r] for r in b)
                    return emd_flow(P, [c.get(x, 0) for x in dom], d) <= tf

                checks.append(close)
            else:  # pragma: no cover
                raise ValueError(f"no brute-force definition for {crit!r}")
    return k, (lambda block: all(f(block) for f in checks))


def _share_check(crit, vals):
    """δ-disclosure (``|ln(q/p)| < δ`` for every value of the table, an absent one failing) or β-likeness
    (``(q − p)/p <= β``, enhanced ``<= min(β, −ln p)``, where ``q > p``) of a block, from the definitions with
    60-digit decimal logarithms (a tie would need ``ln`` of a rational to equal a rational: only at 1, handled
    exactly)."""
    whole = Counter(vals)
    n = len(vals)
    D = decimal.Context(prec=60)

    def ln(x: Fraction):
        return D.ln(D.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator)))

    def frac(x: Fraction):
        return D.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))

    def ok(block):
        c = Counter(vals[r] for r in block)
        for v, N in whole.items():
            q, p = Fraction(c.get(v, 0), len(block)), Fraction(N, n)
            if isinstance(crit, DeltaDisclosure):
                if q == 0 or not abs(ln(q / p)) < frac(exact(crit.delta)):
                    return False
            elif q > p:
                bound = frac(exact(crit.beta))
                if crit.kind == "enhanced":
                    bound = min(bound, -ln(p))
                if frac((q - p) / p) > bound:
                    return False
        return True

    return ok


def _domain(crit, vals):
    present = sorted(set(vals))
    if crit.distance_kind == "ordered":
        return list(crit.order) if crit.order is not None else sorted(present, key=lambda x: (float(x), x))
    return present


def _metric(crit, dom):
    V = len(dom)
    if crit.distance_kind == "equal":
        return [[0 if i == j else 1 for j in range(V)] for i in range(V)]
    if crit.distance_kind == "ordered":
        return [[Fraction(abs(i - j), max(V - 1, 1)) for j in range(V)] for i in range(V)]
    if crit.distance_kind == "hierarchical":
        h = crit.hierarchy
        out = []
        for a in dom:
            row = []
            for b in dom:
                lvl = 0
                while h.paths[a][lvl] != h.paths[b][lvl]:
                    lvl += 1
                row.append(Fraction(lvl, h.height))
            out.append(row)
        return out
    m = crit.distance if isinstance(crit.distance, pd.DataFrame) else pd.DataFrame(crit.distance)
    m.index = [str(i) for i in m.index]
    m.columns = [str(c) for c in m.columns]
    return m.loc[dom, dom].to_numpy().tolist()


def _block_cost_fn(arr, columns, recoding):
    """Cost of releasing a block as one class: per column, the block's LCA node cost times its size."""
    cols = [list(arr[:, c]) for c in range(arr.shape[1])]
    if isinstance(recoding, Patterns):
        allowed = []
        for p in recoding.patterns:
            keep = [ch in "1□" for ch in p] if isinstance(p, str) else [c in p for c in columns]
            allowed.append(frozenset(c for c, k in enumerate(keep) if not k))

        def pattern_cost(block):
            varying = {c for c in range(len(cols)) if len({cols[c][r] for r in block}) > 1}
            fits = [len(st) for st in allowed if varying <= st]
            return None if not fits else len(block) * min(fits)

        return pattern_cost
    hier = recoding.hierarchies if isinstance(recoding, Generalization) else {}
    intervals = set(recoding.intervals) if isinstance(recoding, Generalization) else set()
    value_sets = set(recoding.value_sets) if isinstance(recoding, Generalization) else set()
    costs = _node_costs(recoding, columns)
    # interval columns: a block's range over the column's range; value sets: (|S| - 1)/(|D| - 1)
    numbers = {c: [Fraction(str(v)) for v in cols[c]] for c, name in enumerate(columns) if name in intervals}
    span = {c: max(x) - min(x) for c, x in numbers.items()}
    domain = {c: len(set(map(str, cols[c]))) for c, name in enumerate(columns) if name in value_sets}

    def cost(block):
        total = Fraction(0)
        for c, name in enumerate(columns):
            vals = {cols[c][r] for r in block}
            if name in intervals:
                x = [numbers[c][r] for r in block]
                total += len(block) * (max(x) - min(x)) / span[c] if span[c] else 0
                continue
            if name in value_sets:
                total += len(block) * Fraction(len({str(v) for v in vals}) - 1, max(domain[c] - 1, 1))
                continue
            h = hier.get(name)
            if h is None:
                total += len(block) * int(len(vals) > 1)
                continue
            lvl = 0
            while len({h.paths[str(v)][lvl] for v in vals}) > 1:
                lvl += 1
            total += len(block) * costs[c][(lvl, h.paths[str(next(iter(vals)))][lvl])]
        return total

    return cost


def _population_options(arr, columns, recoding, criteria):
    """``options(block)``: the released vectors a block may take as one class under k-map / δ-presence, as
    ``(cost, vector)`` cheapest first — per column the block's value or ``*`` (``*`` only where it varies), or
    with a hierarchy any ancestor of the block's values from their lowest common one up — whose population
    matches meet every criterion. A population record matches when every released cell covers its value
    (the value itself, ``*``, or the hierarchy node on its path at that level); counted record by record."""
    if isinstance(recoding, Generalization) and (recoding.intervals or recoding.value_sets):
        raise ValueError("brute force covers k-map and delta-presence with suppression, hierarchies and patterns")
    hier = recoding.hierarchies if isinstance(recoding, Generalization) else {}
    costs = _node_costs(recoding, columns)
    cols = [list(map(str, arr[:, c])) for c in range(arr.shape[1])]
    stars = None
    if isinstance(recoding, Patterns):
        stars = {frozenset(c for c, k_ in enumerate(
            [ch in "1□" for ch in p] if isinstance(p, str) else [c in p for c in columns]) if not k_)
            for p in recoding.patterns}
    pops = [[tuple(str(x) for x in r) for r in crit.population[columns].to_numpy().tolist()] for crit in criteria]

    def covers(c, lvl, node, value):
        h = hier.get(columns[c])
        if h is None:
            return lvl == 1 or value == node
        return value in h.paths and h.paths[value][lvl] == node

    def options(block):
        per_col = _column_releases(block, columns, cols, hier)
        out = []
        for vec in itertools.product(*per_col):
            if stars is not None and frozenset(c for c, (lv, _) in enumerate(vec) if lv > 0) not in stars:
                continue
            good = True
            for crit, pop in zip(criteria, pops):
                matches = sum(all(covers(c, lv, node, rec[c]) for c, (lv, node) in enumerate(vec)) for rec in pop)
                if isinstance(crit, KMap):
                    good &= matches >= crit.k
                else:
                    good &= matches > 0 and exact(crit.dmin) <= Fraction(len(block), matches) <= exact(crit.dmax)
            if good:
                total = sum((Fraction(lv) if costs[c] is None else costs[c][(lv, node)]) * len(block)
                            for c, (lv, node) in enumerate(vec))
                out.append((total, vec))
        return sorted(out, key=lambda x: x[0])

    return options


def _column_releases(block, columns, cols, hier) -> list:
    """Per column, the ``(level, node)`` a block may be released as, cheapest first: without a hierarchy its value
    (where the block shares one) and ``*``; with one, every ancestor of the block's values from their lowest
    common one up. ``cols``: the columns' values as text, row by row."""
    per_col = []
    for c, name in enumerate(columns):
        vals = {cols[c][r] for r in block}
        h = hier.get(name)
        if h is None:
            per_col.append([(0, next(iter(vals))), (1, "*")] if len(vals) == 1 else [(1, "*")])
            continue
        lvl = 0
        while len({h.paths[v][lvl] for v in vals}) > 1:
            lvl += 1
        path = h.paths[next(iter(vals))]
        per_col.append([(lv, path[lv]) for lv in range(lvl, h.height + 1)])
    return per_col


def _distinct_release_search(k, ok, options):
    """``best(rows)``: the cheapest partition of ``rows`` into blocks meeting ``ok`` (at least ``k`` rows), each
    released as one of ``options(block)``, no two blocks as the same vector (an equivalence class is every
    row released as that vector: two blocks released alike are one class, which δ-presence may forbid).
    Every set partition is listed; the vectors are chosen depth first with the cheapest rest as a bound."""

    @cache
    def opts(block):
        return options(block) if len(block) >= k and ok(block) else []

    def best(remaining):
        top = [None, None]
        for part in set_partitions(sorted(remaining)):
            part = [tuple(sorted(b)) for b in part]
            lists = [opts(b) for b in part]
            if any(not x for x in lists):
                continue
            rest = [sum(x[0][0] for x in lists[i:]) for i in range(len(lists))] + [0]

            def dfs(i, cost, used):
                if top[0] is not None and cost + rest[i] >= top[0]:
                    return
                if i == len(lists):
                    top[0], top[1] = cost, tuple(part)
                    return
                for c, vec in lists[i]:
                    if vec not in used:
                        dfs(i + 1, cost + c, used | {vec})

            dfs(0, Fraction(0), frozenset())
        return (top[0], top[1]) if top[0] is not None else (None, None)

    return best


def _node_costs(recoding, columns):
    """Per column ``{(level, node): cost}`` from the cost definitions (``None`` without a hierarchy)."""
    hier = recoding.hierarchies if hasattr(recoding, "hierarchies") else {}
    out = []
    for name in columns:
        h = hier.get(name)
        if h is None:
            out.append(None)
            continue
        leaves = Counter()
        for path in h.paths.values():
            for lv, node in enumerate(path):
                leaves[(lv, node)] += 1
        kind = recoding.cost if isinstance(recoding.cost, str) else "height"
        costs = {}
        for (lv, node), cnt in leaves.items():
            if isinstance(recoding.cost, dict) and name in recoding.cost:
                costs[(lv, node)] = Fraction(recoding.cost[name][lv]).limit_denominator(10**9)
            elif kind == "suppression":
                costs[(lv, node)] = Fraction(int(lv == h.height))
            elif kind == "height":
                costs[(lv, node)] = Fraction(lv, h.height)
            else:
                n_leaves = len(h.paths)
                costs[(lv, node)] = Fraction(cnt - 1, n_leaves - 1) if n_leaves > 1 else Fraction(int(lv > 0))
        out.append(costs)
    return out


def _record_cost(recoding, columns):
    """A withheld record's cost: per column the root's cost (1 for a column without a hierarchy)."""
    hier = recoding.hierarchies if isinstance(recoding, Generalization) else {}
    total = Fraction(0)
    for name, costs in zip(columns, _node_costs(recoding, columns)):
        h = hier.get(name)
        total += 1 if h is None else costs[(h.height, next(iter(h.paths.values()))[-1])]
    return total


def brute_force(table, criteria, sensitive: dict | None = None, recoding=None, columns=None,
                max_withheld: int | None = None):
    """Optimal anonymization by suppression under ``criteria``, by exhaustive search.

    Parameters
    ----------
    table
        ``(n, m)`` array-like of QI values (``n <= 12``).
    criteria
        Criterion objects (their parameters are read; their models are not).
    sensitive
        ``{column name: list of n values}`` for sensitive criteria.
    recoding
        ``None`` (suppression) or a :class:`~milp_anon.tables.recoding.Generalization`;
        a block then costs, per column, its size times the cost of the lowest
        common ancestor of its values.
    columns
        QI column names (to look up hierarchies); default ``q0, q1, ...``.
    max_withheld
        Record suppression: up to this many rows may be withheld, each exempt
        from the criteria at the cost of every QI cell at its root; every
        subset of at most that many rows is tried.

    Returns
    -------
    (cost, blocks)
        The optimum and an optimal partition, or ``(None, None)`` if none
        exists. With ``max_withheld`` the withheld rows are the last block,
        marked by a leading ``"withheld"``.
    """
    arr = np.asarray(table, dtype=object)
    if arr.ndim != 2:
        raise ValueError("table must be two-dimensional")
    n = arr.shape[0]
    if n > MAX_ROWS:
        raise ValueError(f"brute force is limited to {MAX_ROWS} rows, got {n}")
    k, ok = group_condition(criteria, {c: list(map(str, v)) for c, v in (sensitive or {}).items()})
    if n == 0:
        return 0, ()
    columns = list(columns) if columns is not None else [f"q{c}" for c in range(arr.shape[1])]
    block_cost = _block_cost_fn(arr, columns, recoding)
    # average re-identification risk: at most ⌊R n⌋ classes, the withheld records one of them (blocks sharing a
    # released vector merge into one class of the same cost, so an optimum has as many classes as blocks)
    risk = [c for c in criteria if isinstance(c, AverageRisk)]
    population = [c for c in criteria if isinstance(c, (KMap, DeltaPresence))]
    if risk and population:
        raise NotImplementedError("brute force: average risk together with k-map or δ-presence")
    if risk:
        counted = _counted_search(n, k, ok, block_cost)
        most = min(c.max_classes(n) for c in risk)
        plain = lambda rows, withheld=False: counted(rows, most - int(withheld))  # noqa: E731
    else:
        search = _partition_search(n, k, ok, block_cost) if not population else \
            _distinct_release_search(k, ok, _population_options(arr, columns, recoding, population))
        plain = lambda rows, withheld=False: search(rows)  # noqa: E731
    if max_withheld is not None:  # t-closeness still compares with the whole table's distribution
        record = _record_cost(recoding, columns)
        top = (None, None)
        for size in range(min(max_withheld, n) + 1):
            for out in combinations(range(n), size):
                sub_cost, sub_blocks = plain(frozenset(range(n)) - frozenset(out), bool(out))
                if sub_cost is None:
                    continue
                total = sub_cost + size * record
                if top[0] is None or total < top[0]:
                    top = (total, sub_blocks + ((("withheld",) + out),) if out else sub_blocks)
        return top
    return plain(frozenset(range(n)))


def _counted_search(n, k, ok, block_cost):
    """``best(rows, most)``: the cheapest partition of ``rows`` into at most ``most`` blocks meeting ``ok``."""

    @cache
    def good(block):
        return block_cost(block) is not None and ok(block)

    @cache
    def best(remaining: frozenset, most: int):
        if not remaining:
            return 0, ()
        if most <= 0:
            return None, None
        first = min(remaining)
        rest = sorted(remaining - {first})
        top = (None, None)
        for size in range(k - 1, len(rest) + 1):
            if 0 < len(rest) - size < k:
                continue
            for others in combinations(rest, size):
                block = (first,) + others
                if not good(block):
                    continue
                sub_cost, sub_blocks = best(remaining - frozenset(block), most - 1)
                if sub_cost is None:
                    continue
                total = block_cost(block) + sub_cost
                if top[0] is None or total < top[0]:
                    top = (total, (block,) + sub_blocks)
        return top

    return best


def _partition_search(n, k, ok, block_cost):
    """``best(rows)``: the cheapest partition of ``rows`` into blocks meeting ``ok`` (memoized)."""

    @cache
    def good(block):
        return block_cost(block) is not None and ok(block)

    @cache
    def best(remaining: frozenset):
        if not remaining:
            return 0, ()
        first = min(remaining)
        rest = sorted(remaining - {first})
        top = (None, None)
        for size in range(k - 1, len(rest) + 1):
            left_over = len(rest) - size
            if 0 < left_over < k:
                continue
            for others in combinations(rest, size):
                block = (first,) + others
                if not good(block):
                    continue
                sub_cost, sub_blocks = best(remaining - frozenset(block))
                if sub_cost is None:
                    continue
                total = block_cost(block) + sub_cost
                if top[0] is None or total < top[0]:
                    top = (total, (block,) + sub_blocks)
        return top

    return best


def brute_force_k_anonymity(table, k: int):
    """Optimal k-anonymity by suppression by exhaustive search (``(None, None)`` if ``k > n``)."""
    n = np.asarray(table, dtype=object).shape[0]
    if k > n:
        return None, None
    return brute_force(table, [KAnonymity(k)])


def set_partitions(items):
    """Every set partition of ``items`` (Bell(n) of them), as lists of tuples."""
    items = list(items)
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [(first,)] + part
        for i in range(len(part)):
            yield part[:i] + [(first,) + part[i]] + part[i + 1:]


def brute_force_options(table, criteria, sensitive=None, recoding=None, columns=None, *, budget=None,
                        t_out_min=None, t_out_max=None, objective="cost", max_rows: int = 9):
    """The optimum under a budget, output homogeneity and an objective, by listing every set partition.

    Objectives: ``cost`` (min cell cost), ``rows`` (min rows with a recoded
    cell: a row is recoded when its group varies in a column), ``types`` (max
    number of output types: distinct released rows, so two blocks released
    as the same vector are one type). Returns ``(value, partition)`` or
    ``(None, None)``.
    """
    arr = np.asarray(table, dtype=object)
    n = arr.shape[0]
    if n > max_rows:
        raise ValueError(f"listing partitions is limited to {max_rows} rows, got {n}")
    k, ok = group_condition(criteria, {c: list(map(str, v)) for c, v in (sensitive or {}).items()})
    if any(isinstance(c, AverageRisk) for c in criteria):
        raise ValueError("brute_force_options does not count classes for average risk (brute_force does)")
    columns = list(columns) if columns is not None else [f"q{c}" for c in range(arr.shape[1])]
    cols = [list(arr[:, c]) for c in range(arr.shape[1])]
    text = [list(map(str, col)) for col in cols]
    best_val, best_part = None, None
    hier = recoding.hierarchies if hasattr(recoding, "hierarchies") else {}

    def releases(block):
        """Every way to release a block as one vector: per column its LCA or any ancestor of it.

        Suppressing more than needed never helps the cost, but it can create
        an extra output type, which matters for a lower bound on output types
        and for maximizing them."""
        per_col = _column_releases(block, columns, text, hier)
        if not (t_out_min is not None or objective == "types"):
            per_col = [opts[:1] for opts in per_col]
        return list(itertools.product(*per_col))

    def vector_cost(vec):
        total = Fraction(0)
        for c, (name, (lvl, node)) in enumerate(zip(columns, vec)):
            h = hier.get(name)
            if h is None:
                total += lvl
            else:
                total += node_costs[c][(lvl, node)]
        return total

    node_costs = _node_costs(recoding, columns)

    patterns_ok = None
    if isinstance(recoding, Patterns):
        patterns_ok = {frozenset(c for c, k_ in enumerate(
            [ch in "1□" for ch in p] if isinstance(p, str) else [c in p for c in columns]) if not k_)
            for p in recoding.patterns}

    for part in set_partitions(range(n)):
        if any(len(b) < k for b in part) or not all(ok(b) for b in part):
            continue
        for choice in itertools.product(*[releases(b) for b in part]):
            if patterns_ok is not None and any(
                    frozenset(c for c, (lv, _) in enumerate(vec) if lv > 0) not in patterns_ok for vec in choice):
                continue
            n_types = len(set(choice))
            if t_out_min is not None and n_types < t_out_min or t_out_max is not None and n_types > t_out_max:
                continue
            costs = [len(b) * vector_cost(vec) for b, vec in zip(part, choice)]
            total = sum(costs)
            if budget is not None and total > Fraction(str(budget)) + Fraction(1, 10**9):
                continue
            if objective == "cost":
                val = total
            elif objective == "rows":
                val = sum(len(b) for b, vec in zip(part, choice) if any(lv > 0 for lv, _ in vec))
            else:
                val = -n_types
            if best_val is None or val < best_val:
                best_val, best_part = val, part
    if best_val is None:
        return None, None
    return (-best_val if objective == "types" else best_val), best_part
