"""ROW ASSIGNMENT and p-ROW ASSIGNMENT as minimum-cost flows, and the FPT algorithms built on them.

Bredereck, Nichterlein, Niedermeier, Philip (DMKD 2013), Algorithm 1: with
``t_in`` input row types, an optimal k-anonymous table has ``t_out <= t_in``
output types (Lemma 2). Phase 1 guesses which input types map to which output
type (a 0/1 matrix ``t_in × t_out``); each output type's entries then follow
(a column is kept where its input types agree, otherwise suppressed — or,
with a hierarchy, generalized to the lowest common ancestor, Thm. 5); Phase 2
assigns the rows to the guessed output types at minimum cost, with every
output type receiving at least ``k`` rows: ROW ASSIGNMENT, a min-cost flow
(Lemma 1). For p-sensitivity the flow gets per-sensitive-value nodes with
unit capacities and a lower bound ``p`` (p-ROW ASSIGNMENT, Lemma 3).
Time ``O(nm + 2^{t_in·t_out} · poly)``.

Here the guess is the set of output types, each given by the set of input
types that may map to it (a column of the matrix); which of those arcs carry
rows is left to the flow — a superset of each matrix's feasible assignments,
at the same costs, so the minimum over guesses is the same. Guesses are
the families of at most ``min(t_in, ⌊n/k⌋)`` distinct non-empty subsets of
input types that cover every input type.

Pattern-guided k-anonymity (Bredereck, Nichterlein, Niedermeier,
Algorithms 2013, Thm. 3): the output types are pattern instances (a pattern
and the values of some input type on its kept columns); guess the used
instances, then ROW ASSIGNMENT with arcs from each input type to the
instances it matches. FPT in (t_in, |P|).

Flows are solved with networkx's network simplex on integer costs (costs
are scaled by their common denominator), so every optimum is exact.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import networkx as nx
import numpy as np

from milp_anon.exact._multiset import as_number
from milp_anon.exact.brute_force import _block_cost_fn


def _integer_costs(costs):
    den = 1
    for c in costs:
        den = math.lcm(den, Fraction(c).denominator)
    return [int(Fraction(c) * den) for c in costs], den


def row_assignment_flow(n_in, omega, arcs, k: int):
    """ROW ASSIGNMENT (Lemma 1) as an uncapacitated min-cost flow.

    Parameters
    ----------
    n_in
        Rows per input type.
    omega
        Cost per row of each output type (numbers; made integral internally).
    arcs
        Pairs ``(i, j)``: input type ``i`` may be released as output type ``j``.
    k
        Every output type receives at least ``k`` rows.

    Returns
    -------
    (cost, flow) or None
        ``flow[(i, j)]`` rows of type ``i`` go to output type ``j``; ``None`` if
        no assignment exists.
    """
    n, t_out = int(sum(n_in)), len(omega)
    if n - k * t_out < 0:
        return None
    w, den = _integer_costs(omega)
    G = nx.DiGraph()
    for i, c in enumerate(n_in):
        G.add_node(("in", i), demand=-int(c))
    for j in range(t_out):
        G.add_node(("out", j), demand=k)
        G.add_edge(("out", j), "sink", weight=0, capacity=n)
    G.add_node("sink", demand=n - k * t_out)
    for i, j in arcs:
        G.add_edge(("in", i), ("out", j), weight=w[j], capacity=n)
    try:
        cost, flow = nx.network_simplex(G)
    except nx.NetworkXUnfeasible:
        return None
    out = {(i, j): flow[("in", i)][("out", j)] for i, j in arcs if flow[("in", i)][("out", j)]}
    return Fraction(cost, den), out


def p_row_assignment_flow(n_in_sigma, omega, arcs, k: int, p: int):
    """p-ROW ASSIGNMENT (Lemma 3) as a capacitated min-cost flow with lower bounds.

    ``n_in_sigma[(i, s)]`` rows of input type ``i`` have sensitive value ``s``.
    Each output type ``j`` receives ``>= k`` rows, ``p`` of them through
    distinct sensitive values (arcs ``(u_{j,s}, u_j^p)`` of capacity 1 and the
    arc ``(u_j^p, u_j)`` with lower = upper bound ``p``, removed by the usual
    demand shift: ``u_j^p`` demands ``p``, ``u_j`` demands ``k - p``).

    Returns ``(cost, flow)`` with ``flow[(i, s, j)]`` rows, or ``None``.
    """
    n, t_out = int(sum(n_in_sigma.values())), len(omega)
    if n - k * t_out < 0:
        return None
    w, den = _integer_costs(omega)
    sigmas = sorted({s for _, s in n_in_sigma})
    G = nx.DiGraph()
    for (i, s), c in n_in_sigma.items():
        G.add_node(("v", i, s), demand=-int(c))
    G.add_node("sink", demand=n - k * t_out)
    for j in range(t_out):
        G.add_node(("u", j), demand=k - p)
        G.add_node(("up", j), demand=p)
        G.add_edge(("u", j), "sink", weight=0, capacity=n)
        for s in sigmas:
            G.add_edge(("us", j, s), ("up", j), weight=0, capacity=1)
    for i, j in arcs:
        for s in sigmas:
            if (i, s) in n_in_sigma:
                G.add_edge(("v", i, s), ("us", j, s), weight=0, capacity=n)
                G.add_edge(("v", i, s), ("u", j), weight=w[j], capacity=n)
    try:
        cost, flow = nx.network_simplex(G)
    except nx.NetworkXUnfeasible:
        return None
    cost += p * sum(w)  # the forced p units of every output type
    out = {}
    for (i, s) in n_in_sigma:
        for tgt, f in flow[("v", i, s)].items():
            if f:
                j = tgt[1]
                out[(i, s, j)] = out.get((i, s, j), 0) + f
    return Fraction(cost, den), out


def _types(arr, sens=None):
    """Input row types: representative row tuples and row lists (optionally per sensitive value)."""
    by_type: dict = {}
    for r in range(arr.shape[0]):
        by_type.setdefault(tuple(arr[r]), []).append(r)
    keys = list(by_type)
    return keys, [by_type[t] for t in keys]


def fpt_t_in(table, k: int, recoding=None, columns=None, *, p: int | None = None, sensitive=None):
    """Bredereck et al. Algorithm 1: optimal k-anonymity (and p-sensitivity) FPT in ``t_in``.

    Parameters
    ----------
    table
        ``(n, m)`` array-like of QI values.
    k
        Minimum class size.
    recoding
        ``None`` (suppression, Thm. 2), a Generalization (Thm. 5) or Patterns.
    p, sensitive
        With ``p``: p-sensitivity on the single sensitive column ``sensitive``
        (a list of ``n`` values), by p-ROW ASSIGNMENT (Thm. 4 / Lemma 3).

    Returns
    -------
    (cost, blocks) or (None, None)
    """
    arr = np.asarray(table, dtype=object)
    n, m = arr.shape
    if n == 0:
        return 0, []
    cols = list(columns) if columns is not None else [f"q{c}" for c in range(m)]
    block_cost = _block_cost_fn(arr, cols, recoding)
    keys, rows = _types(arr)
    t_in = len(keys)
    full = (1 << t_in) - 1
    subsets = []  # (bitmask, cost per row)
    for mask in range(1, full + 1):
        rep = tuple(rows[i][0] for i in range(t_in) if mask >> i & 1)
        c = block_cost(rep)
        if c is not None:
            subsets.append((mask, Fraction(c) / len(rep)))
    n_in = [len(r) for r in rows]
    if p is not None:
        sens = [str(v) for v in sensitive]
        n_is: dict = {}
        rows_is: dict = {}
        for i, rl in enumerate(rows):
            for r in rl:
                n_is[(i, sens[r])] = n_is.get((i, sens[r]), 0) + 1
                rows_is.setdefault((i, sens[r]), []).append(r)
    best = None
    for t_out in range(1, min(t_in, n // k) + 1):
        for guess in itertools.combinations(subsets, t_out):
            cover = 0
            for mask, _ in guess:
                cover |= mask
            if cover != full:
                continue
            omega = [c for _, c in guess]
            arcs = [(i, j) for j, (mask, _) in enumerate(guess) for i in range(t_in) if mask >> i & 1]
            res = (row_assignment_flow(n_in, omega, arcs, k) if p is None
                   else p_row_assignment_flow(n_is, omega, arcs, k, p))
            if res is not None and (best is None or res[0] < best[0]):
                best = (res[0], t_out, res[1])
    if best is None:
        return None, None
    cost, t_out, flow = best
    if p is None:
        return as_number(cost), _groups(flow, dict(enumerate(rows)), t_out)
    return as_number(cost), _groups({((i, s), j): f for (i, s, j), f in flow.items()}, rows_is, t_out)


def fpt_patterns(table, k: int, patterns):
    """Pattern-guided k-anonymity, Bredereck-Nichterlein-Niedermeier Thm. 3.

    ``patterns``: ``(|P|, m)`` bool keep-masks. Output types are the pattern
    instances of the input types; every set of at most ``min(t_in, ⌊n/k⌋)``
    instances that covers all input types is tried with ROW ASSIGNMENT.
    """
    arr = np.asarray(table, dtype=object)
    n, m = arr.shape
    if n == 0:
        return 0, []
    masks = np.asarray(patterns, dtype=bool).reshape(-1, m)
    keys, rows = _types(arr)
    t_in = len(keys)
    instances = {}
    for pi, keep in enumerate(masks):
        for key in keys:
            inst = (pi, tuple(v for v, kp in zip(key, keep) if kp))
            instances.setdefault(inst, None)
    inst_list = list(instances)
    matches = []
    for pi, vals in inst_list:
        keep = masks[pi]
        matches.append([i for i, key in enumerate(keys) if tuple(v for v, kp in zip(key, keep) if kp) == vals])
    stars = [int((~masks[pi]).sum()) for pi, _ in inst_list]
    n_in = [len(r) for r in rows]
    best = None
    for t_out in range(1, min(t_in, n // k) + 1):
        for guess in itertools.combinations(range(len(inst_list)), t_out):
            covered = set()
            for j in guess:
                covered.update(matches[j])
            if len(covered) != t_in:
                continue
            arcs = [(i, a) for a, j in enumerate(guess) for i in matches[j]]
            res = row_assignment_flow(n_in, [stars[j] for j in guess], arcs, k)
            if res is not None and (best is None or res[0] < best[0]):
                best = (res[0], t_out, res[1])
    if best is None:
        return None, None
    cost, t_out, flow = best
    return as_number(cost), _groups(flow, dict(enumerate(rows)), t_out)


def _groups(flow, rows_of, t_out):
    """Row blocks from a flow ``{(source, output type): rows}``; ``rows_of[source]`` lists its rows."""
    groups = [[] for _ in range(t_out)]
    nxt = {key: 0 for key in rows_of}
    for (src, j), f in sorted(flow.items()):
        groups[j].extend(rows_of[src][nxt[src]:nxt[src] + f])
        nxt[src] += f
    return [tuple(sorted(g)) for g in groups if g]
