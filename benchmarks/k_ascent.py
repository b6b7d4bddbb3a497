"""Issue 14, first direction: k-anonymity's Lagrangian multipliers without a converged master LP: the
column generation as shipped against its unstabilized form and against subgradient ascent (block solves
only, no master LP).

Adult, QIs in the order sex, age, race, marital-status, education,
native-country, workclass, occupation (the first ``q``). Per case, in one run,
one job at a time, each in its own process (``--variants`` picks them):

* ``cg``: the column generation (``milp_anon.bounds.lagrangian.column_generation``)
  within ``--limit`` seconds, as the reduction runs it (Wentges smoothing,
  ``Tuning.smoothing``, at most ``Tuning.max_add`` candidates per round, master runs cut
  at ``Tuning.master_seconds``);
* ``cg-unsmoothed``: the same as before 2026-11-25 (candidates priced at the
  master's own duals, up to 2,000 per round, every master run to its optimum);
* ``ascent``: Polyak subgradient ascent (``milp_anon.bounds.subgradient``) from the
  lattice-flow multipliers (``π_i`` = the cheapest cost of a row of type
  ``i``, where ``L(π)`` is the lattice-flow LP bound), towards ``--upper``
  (a known table's cost), within ``--limit`` seconds, without the stall rule.

For k-anonymity alone each block is its own convex hull, so the best ``L`` is
the LP bound: the question is only how fast each method gets there.

    python -m benchmarks.k_ascent [--cases "6:10:16171,8:5:33558"] [--limit 120]
        [--variants cg-unsmoothed,cg,ascent] [--out ...]
"""

from __future__ import annotations

import argparse
import math
import resource
import time

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

QI = list(ADULT_QI)
CASES = "6:10:16171,8:5:33558"


def run_one(job):
    q, k, upper, variant, limit = job
    import numpy as np

    import milp_anon as ma
    from milp_anon.bounds.lagrangian import block_prices, column_generation
    from milp_anon.bounds.subgradient import subgradient_ascent
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.release.result import Timings
    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult(), QI[:q])
    instance, _, why = pipeline.prepare(table, ma.Request(ma.KAnonymity(k)), Timings())
    assert not why, why
    c, ty = instance.candidates, instance.types
    n, w = ty.counts.astype(float), c.cost.astype(float)
    pi0 = np.full(ty.t_in, np.inf)
    np.minimum.at(pi0, c.pair_type, w[c.pair_cand])
    row = {"qis": q, "k": k, "variant": variant, "pairs": c.n_pairs, "upper": upper,
           "lattice_flow": block_prices(pi0, n, w, c.pair_type, c.pair_cand, k).bound}
    t0 = time.perf_counter()
    if variant in ("cg", "cg-unsmoothed"):
        kw = dict(smoothing=0.0, max_add=2000, master_seconds=math.inf) if variant == "cg-unsmoothed" else {}
        cg = column_generation(n, w, c.pair_type, c.pair_cand, k, time_limit=limit, **kw)
        row.update(bound=cg.bound, steps=cg.iterations, converged=cg.converged)
    else:
        asc = subgradient_ascent(lambda pi: block_prices(pi, n, w, c.pair_type, c.pair_cand, k), pi0, n,
                                 c.pair_type, c.pair_cand, upper=upper, time_limit=limit, max_iterations=100_000,
                                 stall_window=0)
        row.update(bound=asc.bound, steps=asc.iterations, converged=None)
    row.update(seconds=time.perf_counter() - t0, peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=CASES, help="QIs:k:upper, comma-separated")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per method")
    ap.add_argument("--variants", default="cg,ascent", help="comma-separated: cg-unsmoothed, cg, ascent")
    ap.add_argument("--out", default="benchmarks/results/k_ascent")
    a = ap.parse_args(argv)
    cases = [tuple(float(x) if i == 2 else int(x) for i, x in enumerate(s.split(":"))) for s in a.cases.split(",")]
    rows = run_serial(run_one, [(q, k, u, v, a.limit) for q, k, u in cases
                                  for v in a.variants.split(",")])
    columns = [("qis", "QIs"), ("k", "k"), ("variant", "method"), ("pairs", "pairs"),
               ("lattice_flow", "lattice-flow bound"), ("upper", "target"), ("bound", "bound"),
               ("converged", "LP converged"), ("steps", "rounds / steps"), ("seconds", "s"), ("peak_mb", "peak MB")]
    intro = (provenance_line("k_ascent") + f"; k-anonymity by suppression, QIs {', '.join(QI)} (the first q); "
             f"{a.limit:g} s per method; one run at a time, each in its own process.")
    write_results(a.out, rows, "k-anonymity's multipliers: the column generation (as shipped, unsmoothed) and "
                  "subgradient ascent from the lattice-flow bound (UCI Adult, 30,162 rows)", columns, intro)


if __name__ == "__main__":
    main()
