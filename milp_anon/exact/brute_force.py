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

from collections import Counter
from fractions import Fraction
from functools import lru_cache
from itertools import combinations

import numpy as np

MAX_ROWS = 12


def suppression_cost(table: np.ndarray, block) -> int:
    """Stars needed to make the rows ``block`` of ``table`` identical."""
    sub = np.asarray(table, dtype=object)[list(block)]
    varying = int(np.sum(np.any(sub != sub[0], axis=0)))
    return varying * len(block)


def emd_flow(p_counts, q_counts, dist, scale: int = 10**6) -> Fraction:
    """EMD between two count vectors under the metric ``dist`` as a min-cost flow.

    Masses are scaled to integers (``p = a/A``, ``q = b/B`` become ``a·B`` and
    ``b·A``) and distances to integers of ``1/scale``, so networkx's network
    simplex is exact; the result is exact for distances that are multiples of
    ``1/scale``.
    """
    import networkx as nx

    A, B = sum(p_counts), sum(q_counts)
    G = nx.DiGraph()
    V = len(p_counts)
    for s in range(V):
        G.add_node(("p", s), demand=-int(p_counts[s]) * B)
        G.add_node(("q", s), demand=int(q_counts[s]) * A)
    for s in range(V):
        for t in range(V):
            G.add_edge(("p", s), ("q", t), weight=int(round(float(dist[s][t]) * scale)))
    cost = nx.min_cost_flow_cost(G)
    return Fraction(cost, A * B * scale)


def group_condition(criteria, sensitive: dict):
    """A predicate on a block of row indices meeting every criterion, from the definitions.

    ``sensitive`` maps each sensitive column name to its list of values.
    """
    from ..criteria import KAnonymity, LDiversity, PSensitivity, TCloseness, exact

    checks = []
    k = 1
    for crit in criteria:
        if isinstance(crit, KAnonymity):
            k = max(k, crit.k)
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
            elif isinstance(crit, LDiversity):
                cf, ell = exact(crit.c), crit.l

                def rec(b, v=vals, cf=cf, ell=ell):
                    r = sorted(Counter(v[x] for x in b).values(), reverse=True)
                    return r[0] < cf * sum(r[ell - 1:])

                checks.append(rec)
            elif isinstance(crit, TCloseness):
                dom = _domain(crit, vals)
                d = _metric(crit, dom)
                whole = Counter(vals)
                P = [whole.get(x, 0) for x in dom]
                tf = exact(crit.t)

                def close(b, v=vals, dom=dom, d=d, P=P, tf=tf):
                    c = Counter(v[r] for r in b)
                    return emd_flow(P, [c.get(x, 0) for x in dom], d) <= tf

                checks.append(close)
            else:  # pragma: no cover
                raise ValueError(f"no brute-force definition for {crit!r}")
    return k, (lambda block: all(f(block) for f in checks))


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
    import pandas as pd

    m = crit.distance if isinstance(crit.distance, pd.DataFrame) else pd.DataFrame(crit.distance)
    m.index = [str(i) for i in m.index]
    m.columns = [str(c) for c in m.columns]
    return m.loc[dom, dom].to_numpy().tolist()


def _block_cost_fn(arr, columns, recoding):
    """Cost of releasing a block as one class: per column, the block's LCA node cost times its size."""
    from ..recoding import Generalization, Patterns

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
    specs = []
    for c, name in enumerate(columns):
        h = hier.get(name)
        if h is None:
            specs.append(None)
            continue
        leaves = Counter()
        for path in h.paths.values():
            for lvl, node in enumerate(path):
                leaves[(lvl, node)] += 1
        specs.append((h, leaves, len(h.paths)))

    def node_cost(name, h, lvl, leaves, total):
        cost = recoding.cost
        if isinstance(cost, dict) and name in cost:
            return Fraction(cost[name][lvl]).limit_denominator(10**9)
        kind = cost if isinstance(cost, str) else "height"
        if kind == "suppression":
            return Fraction(int(lvl == h.height))
        if kind == "height":
            return Fraction(lvl, h.height)
        return Fraction(leaves - 1, total - 1) if total > 1 else Fraction(int(lvl > 0))

    def cost(block):
        total = Fraction(0)
        for c, name in enumerate(columns):
            vals = {cols[c][r] for r in block}
            if specs[c] is None:
                total += len(block) * int(len(vals) > 1)
                continue
            h, leaves, n_leaves = specs[c]
            lvl = 0
            while len({h.paths[str(v)][lvl] for v in vals}) > 1:
                lvl += 1
            node = h.paths[str(next(iter(vals)))][lvl]
            total += len(block) * node_cost(name, h, lvl, leaves[(lvl, node)], n_leaves)
        return total

    return cost


def brute_force(table, criteria, sensitive: dict | None = None, recoding=None, columns=None):
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
        ``None`` (suppression) or a :class:`~milp_anon.recoding.Generalization`;
        a block then costs, per column, its size times the cost of the lowest
        common ancestor of its values.
    columns
        QI column names (to look up hierarchies); default ``q0, q1, ...``.

    Returns
    -------
    (cost, blocks)
        The optimum and an optimal partition, or ``(None, None)`` if none exists.
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

    @lru_cache(maxsize=None)
    def good(block):
        return block_cost(block) is not None and ok(block)

    @lru_cache(maxsize=None)
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

    return best(frozenset(range(n)))


def brute_force_k_anonymity(table, k: int):
    """Optimal k-anonymity by suppression by exhaustive search (``(None, None)`` if ``k > n``)."""
    from ..criteria import KAnonymity

    n = np.asarray(table, dtype=object).shape[0]
    if k > n:
        return None, None
    return brute_force(table, [KAnonymity(k)])
