"""Issue 13, item 1 for t-closeness: the Lagrangian bound stage with and without the ball multipliers,
against the LP of the whole model.

Sensitive ``occupation``, k = 5, Adult, QIs sex, age, race, marital-status
(4 QIs). Per case, in one run, one job at a time, each in its own process:

* ``shapes``: the blocks of what every close group holds (distinct values,
  a cap), multipliers by subgradient ascent over ``π`` alone (the balls
  switched off in that process);
* ``balls``: as shipped — also the ball multipliers ``β`` (``TV(q, P) <= τ``)
  by the alternating ascent (``milp_anon.bounds.subgradient.alternating_ascent``);
* ``lp``: the LP relaxation of the whole model (HiGHS, interior point,
  presolve off), for scale: what a master LP with the t rows would reach.

    python -m benchmarks.t_ball [--stage 120] [--lp-limit 600] [--cases ...] [--out benchmarks/results/t_ball]
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import time

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

QI = list(ADULT_QI[:4])
CASES = ("t=0.2 equal", "t=0.3 equal", "t=0.2 hierarchical", "t=0.3 hierarchical")


def criterion(case):
    import milp_anon as ma
    from milp_anon.tables.datasets import adult_hierarchy_path
    from milp_anon.tables.hierarchy import Hierarchy

    t, distance = case[2:].split()
    kw = {"hierarchy": Hierarchy.from_csv(adult_hierarchy_path("occupation"))} if distance == "hierarchical" else {}
    return ma.TCloseness(float(t), distance=distance, **kw)


def run_one(job):
    case, variant, stage, lp_limit = job
    import highspy
    import numpy as np

    import milp_anon as ma
    from milp_anon import reduction
    from milp_anon.formulations import build
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.release.result import Timings
    from milp_anon.runtime.grid import ObjectiveGrid
    from milp_anon.solvers import SolverOptions
    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult(), QI, "occupation")
    request = ma.Request(ma.KAnonymity(5), criterion(case))
    instance, _, why = pipeline.prepare(table, request, Timings())
    assert not why, why
    row = {"case": case, "variant": variant, "candidates": instance.candidates.n_candidates}
    t0 = time.perf_counter()
    if variant == "lp":
        lm = build(instance, request).lm
        lm.col_integer = [np.zeros_like(np.asarray(a), dtype=bool) for a in lm.col_integer]
        h = lm.to_highs()
        for key, value in {"presolve": "off", "solver": "ipm", "time_limit": lp_limit, "output_flag": False}.items():
            h.setOptionValue(key, value)
        h.run()
        status = h.modelStatusToString(h.getModelStatus())
        row.update(bound=h.getInfo().objective_function_value if h.getModelStatus() == highspy.HighsModelStatus.kOptimal
                   else None, status=status, steps=None)
    else:
        if variant == "shapes":  # this process only (run_serial spawns one per run)
            real = reduction.request_blocks
            reduction.request_blocks = lambda i, r: dataclasses.replace(real(i, r), balls=())
        grid = ObjectiveGrid.for_objective("cost", instance.candidates.cost)
        pb = reduction.block_bounds(instance, request, grid, SolverOptions(), stage)
        row.update(k_lp=pb.log.lp_bound, start=pb.log.block_start, bound=pb.log.block_bound, status="",
                   steps=pb.log.ascent_steps)
    row.update(seconds=time.perf_counter() - t0, peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stage", type=float, default=120.0, help="time limit of the bound stage (s)")
    ap.add_argument("--lp-limit", type=float, default=600.0)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--variants", default="shapes,balls,lp")
    ap.add_argument("--out", default="benchmarks/results/t_ball")
    a = ap.parse_args(argv)
    cases = [c.strip() for c in a.cases.split(",")]
    if any(c not in CASES for c in cases):
        ap.error(f"cases are {', '.join(CASES)}")
    variants = [v.strip() for v in a.variants.split(",")]
    if any(v not in ("shapes", "balls", "lp") for v in variants):
        ap.error("variants are shapes, balls, lp")
    rows = run_serial(run_one, [(c, v, a.stage, a.lp_limit) for c in cases for v in variants])
    columns = [("case", "criterion (k = 5)"), ("variant", "variant"), ("candidates", "candidates"),
               ("k_lp", "k-anonymity LP"), ("start", "block bound at the LP's π"), ("bound", "bound"),
               ("status", "LP status"), ("steps", "steps"), ("seconds", "s"), ("peak_mb", "peak MB")]
    intro = (provenance_line("t_ball") + f". 4 QIs ({', '.join(QI)}), sensitive occupation, k = 5; "
             f"bound stage limit {a.stage:g} s (half for the column generation), whole-model LP limit "
             f"{a.lp_limit:g} s; one run at a time, each in its own process.")
    write_results(a.out, rows, "t-closeness: the bound stage with and without the ball multipliers, and the LP of "
                  "the whole model (UCI Adult, 30,162 rows)", columns, intro)


if __name__ == "__main__":
    main()
