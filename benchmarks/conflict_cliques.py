"""Issues 13 and 14: how much of the LP's gap the candidates' conflict cliques close (a relaxation stronger
than the LP, built from the table alone).

Two candidates conflict when the rows they can hold number fewer than ``2k`` together; the cliques of the
conflict graph give ``Σ_{j ∈ Q} y_j <= 1`` (:mod:`milp_anon.bounds.conflicts`, which finds both).

Per case: the whole assignment model's LP (HiGHS, presolve off, one thread); then rounds of separation
at the LP's point (:func:`milp_anon.bounds.conflicts.violated_cliques`), the LP re-solved from its basis, until
no clique is violated; then the rank rows ``Σ_{j ∈ S} y_j <= ⌊|R_S| / k⌋``
(:func:`milp_anon.bounds.conflicts.violated_rank_rows`) the same way, cliques first in each round, until none is
violated or a round lifts the LP by less than ``Tuning.rank_tail`` of its value (the package's rule).
HiGHS's own root is measured by ``benchmarks/root_cuts_whole.py``; the
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
from milp_anon.bounds.conflicts import clique_bounds, conflicting_pairs, violated_cliques, violated_rank_rows
from milp_anon.bounds.lagrangian import block_prices
from milp_anon.runtime.tuning import Tuning

QI = ADULT_QI
CASES = ("4:5:lm:solve:0,5:5:lm:1481.09:1471.43,5:10:lm:2643.41:2598.21,5:5:height:3762.92:3722,"
         "5:10:height:6308.25:6230.75,6:5:suppression:11136:11136,6:10:suppression:16170:16170")


def run_one(job):
    import milp_anon as ma
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

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
    a, b = conflicting_pairs(am.pair_unit, am.pair_cand, rows, k, am.y.size)
    held = np.bincount(am.pair_cand, weights=rows[am.pair_unit], minlength=am.y.size)
    small = int(((held >= k) & (held < 2 * k)).sum())
    graph_s = time.perf_counter() - t
    h = am.lm.relaxed().to_highs()
    for name, value in (("output_flag", False), ("presolve", "off"), ("threads", 1)):
        h.setOptionValue(name, value)
    t = time.perf_counter()
    h.run()
    lp = h.getInfo().objective_function_value
    lp_s = time.perf_counter() - t
    assign = am.lm.row_blocks["assign"]

    def pair_bounds(cliques, rhs=None):  # the Lagrangian pair bounds at the LP's duals (formulations/reduction.md)
        dual = np.asarray(h.getSolution().row_dual)
        pi = dual[assign.start:assign.start + assign.size]
        prices = block_prices(pi, rows, am.instance.candidates.cost, am.pair_unit, am.pair_cand, k)
        return clique_bounds(prices, cliques, -dual[am.lm.n_rows:], am.pair_cand, rhs)[1]

    def add_rows(found, rhs):
        sizes = np.array([len(c) for c in found])
        starts = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int32)
        index = am.y[np.concatenate([np.array(c) for c in found])].astype(np.int32)
        h.addRows(len(found), np.full(len(found), -np.inf), np.asarray(rhs, dtype=float), index.size, starts, index,
                  np.ones(index.size))
        h.run()

    before = pair_bounds([])
    t = time.perf_counter()
    known: set = set()
    added: list = []  # the LP's clique rows, in the order added
    rounds = 0
    while True:
        y = np.asarray(h.getSolution().col_value)[am.y]
        cliques = violated_cliques(a, b, y, known)
        if not cliques:
            break
        added += cliques
        rounds += 1
        add_rows(cliques, np.ones(len(cliques)))
    cut = h.getInfo().objective_function_value
    after = pair_bounds(added)
    sizes = [len(c) for c in added]
    cut_s = time.perf_counter() - t
    n_cliques = len(added)
    t = time.perf_counter()
    rhs = [1] * len(added)
    rank_known: set = set()
    n_rank, rank_rounds, last = 0, 0, None  # last: the LP when rank rows last entered
    while True:
        value = h.getInfo().objective_function_value
        y = np.asarray(h.getSolution().col_value)[am.y]
        found, r = violated_cliques(a, b, y, known), None
        if found:
            r = [1] * len(found)
        else:
            if last is not None and value - last < Tuning().rank_tail * max(1.0, abs(value)):
                break  # as the column generation: the last rank rows and the cliques since gained too little
            found, r = violated_rank_rows(am.pair_unit, am.pair_cand, rows.astype(np.int64), k, y, rank_known)
            n_rank, last = n_rank + len(found), value
        if not found:
            break
        rank_rounds += 1
        added += found
        rhs += r
        add_rows(found, r)
    rank_lp = h.getInfo().objective_function_value
    with_rank = pair_bounds(added, np.asarray(rhs, dtype=float))
    rank_s = time.perf_counter() - t
    if table_cost == "solve":
        m = am.lm.to_highs()
        for name, value in (("output_flag", False), ("presolve", "off"), ("threads", 1), ("mip_rel_gap", 0.0),
                            ("mip_abs_gap", 0.0), ("time_limit", solve_limit)):
            m.setOptionValue(name, value)
        m.run()
        table_cost, bound_known = m.getInfo().objective_function_value, m.getInfo().mip_dual_bound
    table_cost, bound_known = float(table_cost), float(bound_known)
    kept = {}
    for tag, pb in (("lp", before), ("cliques", after), ("rank", with_rank)):
        for name, G in (("table", table_cost), ("bound", bound_known)):
            kept[f"s_{name}_{tag}"] = int((pb <= G + 1e-6).sum()) if G else None
    return dict(qis=q, k=k, recoding=recoding, pairs=int(am.g.size), candidates=int(am.y.size), small=small,
                conflicts=int(a.size), build_s=round(build_s, 1), graph_s=round(graph_s, 2), lp=lp,
                lp_s=round(lp_s, 1), cliques=n_cliques, clique_max=max(sizes, default=0), rounds=rounds,
                cut_lp=cut, cut_s=round(cut_s, 1), rank_rows=n_rank, rank_rounds=rank_rounds, rank_lp=rank_lp,
                rank_s=round(rank_s, 1), table=table_cost or None, bound_known=bound_known or None,
                closed=(cut - lp) / (table_cost - lp) if table_cost and table_cost > lp else None,
                closed_rank=(rank_lp - lp) / (table_cost - lp) if table_cost and table_cost > lp else None,
                peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), **kept)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=CASES,
                    help="QIs:k:recoding:best table known (or solve):best bound known (0: none), comma-separated")
    ap.add_argument("--solve-limit", type=float, default=600.0, help="seconds for a case's table 'solve'")
    ap.add_argument("--out", default="benchmarks/results/conflict_cliques")
    a = ap.parse_args(argv)
    cases = [(int(q), int(k), r, u if u == "solve" else float(u), float(lb), a.solve_limit)
             for q, k, r, u, lb in (s.split(":") for s in a.cases.split(","))]
    rows = run_serial(run_one, cases)
    columns = [("qis", "QIs"), ("k", "k"), ("recoding", "recoding"), ("pairs", "pairs"), ("candidates", "candidates"),
               ("small", "candidates holding k to 2k − 1 rows"), ("conflicts", "conflicting pairs"),
               ("graph_s", "graph s"),
               ("lp", "LP"), ("lp_s", "LP s"), ("cliques", "cliques added"), ("clique_max", "largest"),
               ("rounds", "rounds"), ("cut_lp", "LP + cliques"), ("cut_s", "cliques s"),
               ("rank_rows", "rank rows added"), ("rank_rounds", "rank rounds"),
               ("rank_lp", "LP + cliques + rank rows"),
               ("rank_s", "rank rows s"), ("table", "best table known"),
               ("bound_known", "best bound known"), ("closed", "share of the gap to the table closed"),
               ("closed_rank", "… with rank rows"),
               ("s_bound_lp", "pairs with bound ≤ best bound known: LP"), ("s_bound_cliques", "… with cliques"),
               ("s_bound_rank", "… with rank rows"),
               ("s_table_lp", "pairs with bound ≤ best table: LP"), ("s_table_cliques", "… with cliques"),
               ("s_table_rank", "… with rank rows"),
               ("peak_mb", "peak MB")]
    intro = (provenance_line("conflict_cliques") + f"; k-anonymity on full Adult, QIs {', '.join(QI)} (the first q); "
             "the whole model's LP, then the conflict cliques separated at its point until none is violated; "
             "one case at a time, each in its own process.")
    write_results(a.out, rows, "The candidates' conflict cliques on the LP of k-anonymity (UCI Adult, 30,162 rows)",
                  columns, intro)


if __name__ == "__main__":
    main()
