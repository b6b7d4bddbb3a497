"""Issue 6, direction "symmetry settings": HiGHS's symmetry detection on and off on the whole model.

    python -m benchmarks.highs_symmetry [--qis 6,7] [--k 2] [--stop 5500,8814]

Each run builds the whole k-anonymity model (suppression, Adult, ``--reduce
none``) and solves it with one HiGHS thread until HiGHS's dual bound reaches
``--stop`` (the known optimum: ``StopAtBound``), with
``mip_detect_symmetry`` on and off; seconds and the run's peak memory. One
run at a time, each in its own process. Writes
``benchmarks/results/highs_symmetry.{csv,md}``.
"""

from __future__ import annotations

import argparse
import os

from .common import ADULT_QI, run_to_files

QI = list(ADULT_QI)
OUT = os.path.join(os.path.dirname(__file__), "results")


def run(job):
    import resource
    import time

    import milp_anon as ma
    from milp_anon.pipeline.solve import build_model
    from milp_anon.runtime.grid import ObjectiveGrid
    from milp_anon.search.starts import whole_table_start
    from milp_anon.solvers import SolverOptions, StopAtBound
    from milp_anon.solvers.highs import solve_highs
    from milp_anon.tables.datasets import load_adult

    q, k, symmetry, stop = job
    table = ma.Table.from_frame(load_adult(), qi=QI[:q])
    am = build_model(table, ma.Request(ma.KAnonymity(k)))
    opts = SolverOptions(threads=1, time_limit=900, highs_options={"mip_detect_symmetry": symmetry})
    t = time.perf_counter()
    out = solve_highs(am.lm, opts, ObjectiveGrid(1), whole_table_start(am), stop_bound=StopAtBound(stop))
    return {"qis": q, "k": k, "symmetry": symmetry, "stop_at": stop, "bound": out.bound,
            "seconds": round(time.perf_counter() - t, 1), "columns": am.lm.n_cols, "nonzeros": am.lm.n_nonzeros,
            "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


COLUMNS = [("qis", "QIs"), ("k", "k"), ("symmetry", "symmetry detection"), ("stop_at", "stop at bound"),
           ("bound", "bound"), ("seconds", "solve s"), ("columns", "columns"), ("nonzeros", "nonzeros"),
           ("peak_mb", "peak MB")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qis", default="6,7")
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--stop", default="5500,8814", help="the bound to stop at, per QI count")
    args = ap.parse_args(argv)
    qis = [int(x) for x in args.qis.split(",")]
    stops = [float(x) for x in args.stop.split(",")]
    jobs = [(q, args.k, sym, s) for q, s in zip(qis, stops) for sym in (True, False)]
    run_to_files(run, jobs, os.path.join(OUT, "highs_symmetry"),
                 "HiGHS symmetry detection on the whole model, Adult, k = 2 (one run, same machine)", COLUMNS)


if __name__ == "__main__":
    main()
