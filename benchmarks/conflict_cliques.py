"""Issues 13 and 14: how much of the LP's gap the candidates' conflict cliques close (a relaxation stronger
than the LP, built from the table alone).

Two candidates ``a``, ``b`` *conflict* when the rows they can hold number fewer than ``2k`` together
(``|R_a ∪ R_b| < 2k``, rows counted with their multiplicity): both open, each needs ``k`` of its own, so
``y_a + y_b <= 1`` holds for every table of the model, and so does ``Σ_{j ∈ Q} y_j <= 1`` for every clique
``Q`` of the conflict graph. Only candidates with ``k <= |R_j| < 2k`` can conflict (a larger one leaves the
other its rows), and two such only through a shared row type, so the graph is found from the pairs of the
row types they share (``O(Σ_u s_u²)`` for ``s_u`` small candidates holding row type ``u``).

Per case: the whole assignment model's LP (HiGHS, presolve off, one thread); then rounds of separation
at the LP's point: from every conflicting pair ``y_a + y_b > 1`` a clique grown greedily (the neighbour
of largest ``y`` shared by all members), added when violated and new; the LP re-solved from its basis,
until no clique is violated. HiGHS's own root is measured by ``benchmarks/root_cuts_whole.py``; the
tables and bounds the gap is measured against are the committed ones named in the case.

    python -m benchmarks.conflict_cliques [--cases "4:5:lm:solve:0,5:5:lm:1481.09:1469.15"] [--out ...]

A case is ``QIs:k:recoding:best table known:best bound known`` (recoding ``suppression``, ``lm`` or
``height``; ``0``: none); the table ``solve`` solves the whole MILP here (HiGHS, presolve off, one thread,
``--solve-limit`` seconds) and takes its table and bound.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

QI = ADULT_QI
CASES = ("4:5:lm:solve:0,5:5:lm:1481.09:1469.15,5:10:lm:2645.51:2571.99,5:5:height:3791.58:3720.08,"
         "5:10:height:6342.75:6193.58,6:5:suppression:11136:11136,6:10:suppression:16170:16170")


def conflicting_pairs(pair_unit, pair_cand, unit_rows, k, n_cand):
    """The candidate pairs ``(a, b)``, ``a < b``, holding fewer than ``2k`` rows together, and ``|R_j|``."""
    held = np.bincount(pair_cand, weights=unit_rows[pair_unit], minlength=n_cand)
    small = (held >= k) & (held < 2 * k)
    sel = small[pair_cand]
    pu, pc = pair_unit[sel], pair_cand[sel]
    order = np.lexsort((pc, pu))
    pu, pc = pu[order], pc[order]
    edges = np.flatnonzero(np.diff(np.r_[-1, pu, -1]))
    firsts, ends = edges[:-1], edges[1:]
    A, B, W = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0)]
    for s, e in zip(firsts[ends - firsts >= 2], ends[ends - firsts >= 2]):  # the pairs sharing row type pu[s]
        i, j = np.triu_indices(e - s, 1)
        A.append(pc[s:e][i]); B.append(pc[s:e][j]); W.append(np.full(i.size, float(unit_rows[pu[s]])))
    A, B, W = np.concatenate(A), np.concatenate(B), np.concatenate(W)
    key, inv = np.unique(A * n_cand + B, return_inverse=True)
    shared = np.bincount(inv, weights=W)
    a, b = key // n_cand, key % n_cand
    conflict = held[a] + held[b] - shared < 2 * k
    return a[conflict], b[conflict], held, int(small.sum())


def greedy_cliques(edges, y, known):
    """Violated cliques grown from the violated edges (``known``: cliques already added, skipped)."""
    import networkx as nx

    g = nx.Graph()
    g.add_edges_from(edges)
    out = []
    for u, v in edges:
        if y[u] + y[v] <= 1 + 1e-6:
            continue
        clique, common = [u, v], set(g[u]) & set(g[v])
        while common:
            w = max(common, key=lambda z: (y[z], -z))
            clique.append(w)
            common &= set(g[w])
        key = tuple(sorted(clique))
        if key not in known and y[list(key)].sum() > 1 + 1e-6:
            known.add(key)
            out.append(key)
    return out


def run_one(job):
    import milp_anon as ma
    from milp_anon import pipeline
    from milp_anon.datasets import adult_hierarchy_path, load_adult

    q, k, recoding, table_cost, bound_known, solve_limit = job
    t0 = time.perf_counter()
    table = ma.Table.from_frame(load_adult(), qi=QI[:q])
    rec = None if recoding == "suppression" else ma.Generalization(
        {c: adult_hierarchy_path(c) for c in QI[:q]}, cost=recoding)
    am = pipeline.build_model(table, ma.Request(ma.KAnonymity(k), recoding=rec,
                                                model=ma.ModelOptions(reduction="none")))
    build_s = time.perf_counter() - t0
    rows = am.instance.units.counts.astype(float)
    t = time.perf_counter()
    a, b, held, small = conflicting_pairs(am.pair_unit.astype(np.int64), am.pair_cand.astype(np.int64), rows, k,
                                          am.y.size)
    graph_s = time.perf_counter() - t
    h = am.lm.relaxed().to_highs()
    for name, value in (("output_flag", False), ("presolve", "off"), ("threads", 1)):
        h.setOptionValue(name, value)
    t = time.perf_counter()
    h.run()
    lp = h.getInfo().objective_function_value
    lp_s = time.perf_counter() - t
    t = time.perf_counter()
    known: set = set()
    edges = list(zip(a.tolist(), b.tolist()))
    rounds = 0
    while True:
        y = np.asarray(h.getSolution().col_value)[am.y]
        cliques = greedy_cliques(edges, y, known)
        if not cliques:
            break
        rounds += 1
        sizes = np.array([len(c) for c in cliques])
        starts = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int32)
        index = am.y[np.concatenate([np.array(c) for c in cliques])].astype(np.int32)
        h.addRows(len(cliques), np.full(len(cliques), -np.inf), np.ones(len(cliques)), index.size, starts, index,
                  np.ones(index.size))
        h.run()
    cut = h.getInfo().objective_function_value
    sizes = [len(c) for c in known]
    cut_s = time.perf_counter() - t
    if table_cost == "solve":
        m = am.lm.to_highs()
        for name, value in (("output_flag", False), ("presolve", "off"), ("threads", 1), ("mip_rel_gap", 0.0),
                            ("mip_abs_gap", 0.0), ("time_limit", solve_limit)):
            m.setOptionValue(name, value)
        m.run()
        table_cost, bound_known = m.getInfo().objective_function_value, m.getInfo().mip_dual_bound
    table_cost, bound_known = float(table_cost), float(bound_known)
    return dict(qis=q, k=k, recoding=recoding, pairs=int(am.g.size), candidates=int(am.y.size), small=small,
                conflicts=int(a.size), build_s=round(build_s, 1), graph_s=round(graph_s, 2), lp=lp,
                lp_s=round(lp_s, 1), cliques=len(known), clique_max=max(sizes, default=0), rounds=rounds,
                cut_lp=cut, cut_s=round(cut_s, 1), table=table_cost or None, bound_known=bound_known or None,
                closed=(cut - lp) / (table_cost - lp) if table_cost and table_cost > lp else None,
                peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=CASES, help="QIs:k:recoding:best table known (or solve):best bound known (0: none), comma-separated")
    ap.add_argument("--solve-limit", type=float, default=600.0, help="seconds for a case's table 'solve'")
    ap.add_argument("--out", default="benchmarks/results/conflict_cliques")
    a = ap.parse_args(argv)
    cases = [(int(q), int(k), r, u if u == "solve" else float(u), float(lb), a.solve_limit)
             for q, k, r, u, lb in (s.split(":") for s in a.cases.split(","))]
    rows = run_serial(run_one, cases)
    columns = [("qis", "QIs"), ("k", "k"), ("recoding", "recoding"), ("pairs", "pairs"), ("candidates", "candidates"),
               ("small", "candidates holding k to 2k − 1 rows"), ("conflicts", "conflicting pairs"), ("graph_s", "graph s"),
               ("lp", "LP"), ("lp_s", "LP s"), ("cliques", "cliques added"), ("clique_max", "largest"),
               ("rounds", "rounds"), ("cut_lp", "LP + cliques"), ("cut_s", "cliques s"), ("table", "best table known"),
               ("bound_known", "best bound known"), ("closed", "share of the gap to the table closed"), ("peak_mb", "peak MB")]
    intro = (provenance_line("conflict_cliques") + f"; k-anonymity on full Adult, QIs {', '.join(QI)} (the first q); "
             "the whole model's LP, then the conflict cliques separated at its point until none is violated; "
             "one case at a time, each in its own process.")
    write_results(a.out, rows, "The candidates' conflict cliques on the LP of k-anonymity (UCI Adult, 30,162 rows)",
                  columns, intro)


if __name__ == "__main__":
    main()
