"""Issue 14, "cuts across candidates": the set-partitioning master with subset-row cuts over sets
(:mod:`benchmarks.experiments.set_master`, branch-price-and-cut's root) against the LP, the same cuts in the
assignment model's variables, and HiGHS's root, on samples of Adult.

``benchmarks/experiments/subset_row_cuts.py`` measured the compact form of the cuts: on
ten 60-row samples at 8 QIs, k = 5 it closed 8 of the 25 whole units between
``⌈LP⌉`` and the optimum, HiGHS's root 13. This script adds the master's bound
(the best ``L(π, σ)``, valid at every iteration) to the same measurements,
in one run per sample: the assignment LP (column generation), the compact
cuts, HiGHS's bound after its root node (``mip_max_nodes = 1``), and the
MILP (HiGHS, presolve off, within ``--mip-limit``: its optimum when proven,
else its bound and table).

    python -m benchmarks.experiments.set_master_run [--qis 8] [--k 5] [--rows 60] [--seeds 10] [--mip-limit 120]
        [--master-limit 600] [--out benchmarks/results/set_master_8qi_60rows]
    python -m benchmarks.experiments.set_master_run --full --qis 6 --k 5 --master-limit 600 [--box 100] [--cuts-per-round 200]
        [--max-add 500] --out benchmarks/results/set_master_6qi
"""

from __future__ import annotations

import math

from benchmarks.common import provenance_line, run_serial, write_results
from benchmarks.experiments.subset_row_cuts import QI


def run_full(job):
    """The whole table: the LP and the master only (HiGHS's root on the whole model is in
    ``scip_engine.md`` / ``formulations/reduction.md``)."""
    q, k, master_limit, box, cuts_per_round, max_add = job
    from benchmarks.experiments.set_master import master_bound
    from benchmarks.experiments.subset_row_cuts import adult_instance
    from milp_anon.bounds.lagrangian import column_generation

    n, cost, pt, pc = adult_instance(q, k)
    cg = column_generation(n, cost, pt, pc, k)
    mb = master_bound(n, cost, pt, pc, k, pi=cg.pi, primal=cg.primal, time_limit=master_limit, box=box,
                      cuts_per_round=cuts_per_round, max_add=max_add, log=print)
    return dict(qis=q, k=k, box=box, cuts_per_round=cuts_per_round, max_add=max_add, rows=int(n.sum()),
                types=int(n.size), single=int((n == 1).sum()), pairs=int(pt.size),
                lp=cg.bound, master_lp=mb.lp, master=mb.bound, master_cuts=mb.cuts, master_columns=mb.columns,
                master_converged=mb.converged, master_s=round(mb.seconds, 1), master_iterations=mb.iterations,
                rounds=mb.rounds)


def run_one(job):
    q, k, rows, seed, mip_limit, master_limit = job
    import highspy

    from benchmarks.experiments.set_master import master_bound
    from benchmarks.experiments.subset_row_cuts import _model, adult_instance
    from benchmarks.experiments.subset_row_cuts import run_one as compact
    from milp_anon.bounds.lagrangian import column_generation

    row = compact((q, k, rows, seed, 0.0))  # the LP, the compact cuts and HiGHS's root (no MILP: limit 0)
    for key in ("optimum", "src_closed", "root_closed"):
        row.pop(key, None)
    n, cost, pt, pc = adult_instance(q, k, rows, seed)
    cg = column_generation(n, cost, pt, pc, k)
    mb = master_bound(n, cost, pt, pc, k, pi=cg.pi, primal=cg.primal, time_limit=master_limit)
    row.update(master_lp=mb.lp, master=mb.bound, master_cuts=mb.cuts, master_columns=mb.columns,
               master_converged=mb.converged, master_s=round(mb.seconds, 1), master_enum=mb.enumerated,
               master_programs=mb.programs)
    mip = _model(n, cost, pt, pc, k, integer=True)
    mip.setOptionValue("time_limit", float(mip_limit))
    mip.run()
    info = mip.getInfo()
    proven = mip.getModelStatus() == highspy.HighsModelStatus.kOptimal
    row.update(mip_value=info.objective_function_value, mip_bound=info.mip_dual_bound, proven=proven)
    best = info.objective_function_value if proven else None
    if best is not None and best > row["lp"] + 1e-6:
        units = int(round(best)) - math.ceil(row["lp"] - 1e-6)
        row["units"] = units
        for key, src in (("src_units", "lp_src"), ("root_units", "root"), ("master_units", "master")):
            row[key] = math.ceil(row[src] - 1e-6) - math.ceil(row["lp"] - 1e-6)
    return row


def main(argv=None):
    from benchmarks.experiments.subset_row_cuts import sample_arguments

    ap = sample_arguments(__doc__, "benchmarks/results/set_master_8qi_60rows")
    ap.add_argument("--master-limit", type=float, default=600.0)
    ap.add_argument("--full", action="store_true", help="the whole table: the LP and the master only")
    ap.add_argument("--box", type=float, default=100.0, help="the dual box's half-width (--full)")
    ap.add_argument("--cuts-per-round", type=int, default=200, help="cuts added per round (--full)")
    ap.add_argument("--max-add", type=int, default=500, help="columns entering per iteration (--full)")
    a = ap.parse_args(argv)
    if a.full:
        rows = run_serial(run_full, [(a.qis, a.k, a.master_limit, a.box, a.cuts_per_round, a.max_add)])
        columns = [("qis", "QIs"), ("k", "k"), ("box", "box"), ("cuts_per_round", "cuts per round"),
                   ("max_add", "columns per iteration"), ("types", "types"), ("single", "single-row types"),
                   ("pairs", "pairs"), ("lp", "LP"), ("master", "set master + subset-row cuts"),
                   ("master_cuts", "cuts"), ("master_columns", "columns"), ("master_iterations", "iterations"),
                   ("master_s", "master s"), ("master_converged", "converged")]
        intro = (provenance_line("set_master") + f"; full Adult, k-anonymity by suppression, k = {a.k}, QIs "
                 f"{', '.join(QI[:a.qis])}; the master within {a.master_limit:g} s (checked between iterations).")
        write_results(a.out, rows, f"The set master with subset-row cuts, full Adult at {a.qis} QIs, k = {a.k}",
                      columns, intro)
        return
    rows = run_serial(run_one, [(a.qis, a.k, a.rows, s, a.mip_limit, a.master_limit) for s in range(a.seeds)])
    columns = [("seed", "seed"), ("types", "types"), ("single", "single-row types"), ("pairs", "pairs"),
               ("lp", "LP"), ("lp_src", "LP + compact cuts"), ("root", "HiGHS after its root"),
               ("master", "set master + subset-row cuts"), ("master_cuts", "cuts (master)"),
               ("master_columns", "columns"), ("master_s", "master s"), ("master_converged", "converged"),
               ("mip_value", "MILP table"), ("mip_bound", "MILP bound"), ("proven", "proven"),
               ("units", "units ⌈LP⌉ → optimum"), ("src_units", "closed: compact"),
               ("root_units", "closed: HiGHS root"), ("master_units", "closed: master")]
    intro = (provenance_line("set_master") + f"; k-anonymity by suppression, k = {a.k}, QIs "
             f"{', '.join(QI[:a.qis])}; {a.rows} rows of Adult per sample (random_state = seed); HiGHS one "
             f"thread, presolve off; the master within {a.master_limit:g} s, the MILP within {a.mip_limit:g} s.")
    write_results(a.out, rows, f"The set master with subset-row cuts, {a.rows}-row samples of Adult at "
                  f"{a.qis} QIs, k = {a.k}", columns, intro)


if __name__ == "__main__":
    main()
