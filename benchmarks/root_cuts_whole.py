"""Issue 14: the whole k-anonymity model on Adult solved through its root's cuts, against a cutoff.

    python -m benchmarks.root_cuts_whole --qis 6 --k 10 --cutoff 16169.5 [--limit 1000] \
        [--highs-option mip_feasibility_tolerance=1e-9 ...]

The first ``q`` QIs in the order of ``benchmarks.common.ADULT_QI``; the whole
model (``reduction="none"``) as a reduction round at ``G`` = ``cutoff + 1/2``
would see it: HiGHS's cutoff ``objective_bound`` = ``cutoff``, solved by
:func:`milp_anon.solvers.root_cuts.solve_by_root_cuts` (in its own process,
as the rounds are). A bound above the cutoff proves that no table costs less
than ``G``. ``--highs-option`` (as the CLI's) reaches every HiGHS solve of
the run: the root, the cuts' LP and each compact model. Prints the outcome
and the log of every level as one JSON line.
"""

from __future__ import annotations

import argparse
import functools
import json
import time

from benchmarks.common import ADULT_QI, add_highs_options, parsed_highs_options


def main(argv=None):
    import milp_anon as ma
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.runtime.grid import ObjectiveGrid
    from milp_anon.solvers import SolverOptions, solve_model
    from milp_anon.solvers.root_cuts import solve_by_root_cuts
    from milp_anon.tables.datasets import load_adult

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", type=int, default=6)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--cutoff", type=float, required=True)
    ap.add_argument("--limit", type=float, default=1000.0)
    add_highs_options(ap)
    args = ap.parse_args(argv)
    extra = parsed_highs_options(ap, args)
    table = ma.Table.from_frame(load_adult(), qi=list(ADULT_QI[:args.qis]))
    am = pipeline.build_model(table, ma.Request(ma.KAnonymity(args.k), model=ma.ModelOptions(reduction="none")))
    options = SolverOptions(time_limit=args.limit, threads=1,
                            highs_options=(("objective_bound", args.cutoff),) + extra)
    t = time.perf_counter()
    out = solve_model(am.lm, options, ObjectiveGrid(1),
                      method=functools.partial(solve_by_root_cuts, integral_assignment=True))
    print(json.dumps({"qis": args.qis, "k": args.k, "cutoff": args.cutoff, "highs_options": dict(extra),
                      "status": str(out.status),
                      "bound": out.bound, "seconds": round(time.perf_counter() - t, 1), "columns": am.lm.n_cols,
                      "root_cuts": out.root_cuts}, default=float))


if __name__ == "__main__":
    main()
