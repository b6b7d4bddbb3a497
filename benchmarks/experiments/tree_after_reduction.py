"""Issue 93, second look: the prototype tree (``branch_and_price.py``) after the shipped pipeline, on the suite's
open cases.

Per case: ``milp-anon`` with default options for ``--first`` seconds gives the incumbent ``UB``; the column
generation (with conflict cliques and rank rows) gives multipliers whose pair bounds drop every pair no solution
cheaper than ``UB`` uses (the reduction's ``S(UB)``, ``formulations/reduction.md``); the tree then searches ``S(UB)``
from ``UB`` for the rest of the time. Proven: the tree's bound reaches ``UB`` (or a cheaper table it found, verified).
Beside it, in the same run, ``milp-anon`` alone with the whole time.

Run: ``python -m benchmarks.experiments.tree_after_reduction --only NAME [--first S] [--limit S]``; prints one JSON
line per case. Not a shipped path.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np


def reduced(instance, k, ub, grid, seconds):
    """``(keep (P,) bool, lp)``: the pairs some solution cheaper than ``ub`` may use, at the column generation's
    multipliers with cliques and rank rows."""
    from milp_anon.bounds.lagrangian import column_generation

    c, ty = instance.candidates, instance.types
    lp = column_generation(ty.counts, c.cost, c.pair_type, c.pair_cand, k, time_limit=seconds, cliques=True,
                           rank_rows=True)
    pb = lp.pair_bounds(c.pair_cand)
    keep = grid.ceil_array(pb) < ub - 1e-9
    # the cheapest candidate that holds the whole table keeps its pairs (a superset of S(ub) proves the same):
    # the tree's first master and the LP rounding start from it
    n = ty.counts.astype(float)
    cap = np.bincount(c.pair_cand, weights=n[c.pair_type], minlength=c.cost.size)
    full = np.flatnonzero(cap >= n.sum() - 0.5)
    keep |= c.pair_cand == full[np.argmin(c.cost[full])]
    return keep, lp


def run(spec, first: float, limit: float, alone: bool) -> dict:
    import milp_anon as ma
    from benchmarks.experiments.branch_and_price import BranchAndPrice
    from milp_anon.bench.suite import build_problem
    from milp_anon.formulations.assignment import release_assignment
    from milp_anon.pipeline.solve import prepare
    from milp_anon.release.result import Timings
    from milp_anon.release.verified import Release
    from milp_anon.runtime.grid import ObjectiveGrid

    p = build_problem(spec)
    (crit,) = p.criteria
    k = crit.k
    out = {"case": spec["name"], "rows": p.table.n}
    t0 = time.perf_counter()
    r = ma.Request(*p.criteria, recoding=p.recoding).solve(p.table, ma.SolverOptions(time_limit=first))
    out.update(pipeline=dict(status=str(r.status), table=r.objective, bound=r.bound,
                             seconds=round(time.perf_counter() - t0, 1)))
    if str(r.status) != "optimal":
        request = ma.Request(*p.criteria, recoding=p.recoding)
        instance, _, _ = prepare(p.table, request, Timings())
        c, ty = instance.candidates, instance.types
        grid = ObjectiveGrid.of_costs(c.cost)
        ub = float(r.objective)
        t1 = time.perf_counter()
        keep, lp = reduced(instance, k, ub, grid, max(1.0, limit - (t1 - t0)))
        ps = np.flatnonzero(keep)
        js, pc = np.unique(c.pair_cand[ps], return_inverse=True)
        out.update(reduction=dict(pairs=int(c.pair_type.size), kept=int(ps.size), candidates=int(c.cost.size),
                                  kept_candidates=int(js.size), types=int(ty.counts.size),
                                  lp_bound=lp.bound, seconds=round(time.perf_counter() - t1, 1)))
        found = {}

        def accept(a):
            full = np.zeros(c.pair_type.size)
            full[ps] = a
            released, groups, cost = release_assignment(instance, c.pair_type, c.pair_cand, full)
            rel = Release.verified(instance.table, request, released, cost=cost, groups=groups,
                                   source="branch-and-price")
            found[float(rel.objective)] = rel
            return rel.objective

        left = limit - (time.perf_counter() - t0)
        bp = BranchAndPrice(ty.counts, c.cost[js], c.pair_type[ps], pc, k, grid=grid, time_limit=max(1.0, left),
                            accept=accept, ub=ub)
        tr = bp.run()
        out["tree"] = dict(status=tr.status, table=min(ub, tr.cost), bound=tr.bound, nodes=tr.nodes,
                           open=tr.open_nodes, pruned_early=tr.pruned_early, root_bound=tr.root_bound,
                           incumbents=tr.incumbents, seconds=round(tr.seconds, 1))
    out["total_seconds"] = round(time.perf_counter() - t0, 1)
    if alone:
        t0 = time.perf_counter()
        r = ma.Request(*p.criteria, recoding=p.recoding).solve(p.table, ma.SolverOptions(time_limit=limit))
        out["alone"] = dict(status=str(r.status), table=r.objective, bound=r.bound,
                            seconds=round(time.perf_counter() - t0, 1))
    return out


def main() -> None:
    from milp_anon.bench.suite import load_suite

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite", nargs="?", default="benchmarks/suites/real_tables.toml")
    ap.add_argument("--only", action="append", required=True, help="case names (repeatable)")
    ap.add_argument("--first", type=float, default=60.0)
    ap.add_argument("--limit", type=float, default=600.0)
    ap.add_argument("--alone", action="store_true", help="also milp-anon alone for --limit seconds")
    a = ap.parse_args()
    specs = {s["name"]: s for s in load_suite(a.suite).instances}
    for name in a.only:
        print(json.dumps(run(specs[name], a.first, a.limit, a.alone), default=lambda v: None if (
            isinstance(v, float) and not math.isfinite(v)) else str(v)), flush=True)


if __name__ == "__main__":
    main()
