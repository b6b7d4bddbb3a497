"""Issue 13, the closeness cells' bound: which integrality the LP relaxation of the whole model gives up.

Sensitive ``occupation``, k = 5, Adult (30,162 rows). For a QI set and a
case of :mod:`benchmarks.sensitive_goal`, the whole model (``build_model``,
what ``milp-anon export`` writes) is solved by HiGHS, presolve off, four
ways, one at a time, each in its own process:

* ``LP``: every column continuous (the LP relaxation);
* ``y``: the candidates' opening variables ``y_j`` integer, every count continuous: a group is
  opened whole (at least its floor of rows) but may hold fractions of rows;
* ``y + size``: also each group's size integer;
* ``MILP``: the model as it is (every count integer), within the same limit.

Each relaxation is a bound on the optimum; where ``y`` ends at the LP, the
LP's weakness is not fractional openings (what the conflict cliques, rank
rows and floor rows address) but fractional compositions: the rows of each
value a group holds. Each solve has ``--limit`` seconds; its dual bound is
reported (HiGHS's ``mip_dual_bound``; the LP's objective).

    python -m benchmarks.closeness_integrality [--qis "race,marital-status;sex,race,marital-status"] \\
        [--cases "t=0.2 equal"] [--limit 300] [--out benchmarks/results/closeness_integrality]
"""

from __future__ import annotations

import argparse
import resource
import time

from benchmarks.common import provenance_line, run_serial, write_results

QIS = "race,marital-status;sex,race;sex,marital-status;sex,race,marital-status"
K = 5
WAYS = ("LP", "y", "y + size", "MILP")


def run_one(job):
    qis, case, way, limit = job
    import highspy
    import numpy as np

    import milp_anon as ma
    from benchmarks.sensitive_goal import criterion
    from milp_anon.pipeline.solve import build_model
    from milp_anon.tables.datasets import load_adult

    qi = qis.split(",")
    table = ma.Table.from_frame(load_adult(), qi, "occupation")
    request = ma.Request(ma.KAnonymity(K), criterion(case))
    t0 = time.perf_counter()
    lm = build_model(table, request).lm
    h = lm.to_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("time_limit", float(limit))
    keep = {"LP": (), "y": ("y",), "y + size": ("y", "size"), "MILP": None}[way]
    integer = np.concatenate(lm.col_integer).astype(bool)  # (``to_highs`` built the matrix once already)
    if keep is not None:
        kept = np.zeros(lm.n_cols, dtype=bool)
        for name, block in lm.var_blocks.items():
            if name in keep:
                kept[block.start:block.start + block.size] = True
        relax = np.flatnonzero(integer & ~kept).astype(np.int32)
        if relax.size:
            h.changeColsIntegrality(relax.size, relax,
                                    np.array([highspy.HighsVarType.kContinuous] * relax.size))
        integer = integer & kept
    built = time.perf_counter() - t0
    h.run()
    info = h.getInfo()
    status = h.modelStatusToString(h.getModelStatus())
    if integer.any():
        bound = info.mip_dual_bound
        table_cost = info.objective_function_value if info.primal_solution_status == 2 else None
    else:
        bound = info.objective_function_value if status == "Optimal" else None
        table_cost = None
    blocks = {name: b.size for name, b in lm.var_blocks.items()}
    return {"qis": ", ".join(qi), "case": case, "way": way, "columns": lm.n_cols,
            "integer": int(integer.sum()), "blocks": ", ".join(f"{k} {v:,}" for k, v in blocks.items()),
            "status": status, "bound": bound, "objective": table_cost, "build_s": built,
            "seconds": time.perf_counter() - t0,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", default=QIS, help="QI sets, ';'-separated, each ','-separated")
    ap.add_argument("--cases", default="t=0.2 equal", help="cases of benchmarks.sensitive_goal, ','-separated")
    ap.add_argument("--ways", default=",".join(WAYS))
    ap.add_argument("--limit", type=float, default=300.0, help="seconds per solve")
    ap.add_argument("--out", default="benchmarks/results/closeness_integrality")
    a = ap.parse_args(argv)
    ways = [w.strip() for w in a.ways.split(",")]
    if any(w not in WAYS for w in ways):
        ap.error(f"ways are {', '.join(WAYS)}")
    jobs = [(q.strip(), c.strip(), w, a.limit) for q in a.qis.split(";") for c in a.cases.split(",")
            for w in ways]
    rows = run_serial(run_one, jobs)
    columns = [("qis", "QIs"), ("case", "case"), ("way", "integer columns kept"), ("columns", "columns"),
               ("integer", "integer"), ("status", "status"), ("bound", "bound"), ("objective", "solution found"),
               ("build_s", "build s"), ("seconds", "s"), ("peak_mb", "peak MB"), ("blocks", "column blocks")]
    intro = (provenance_line("closeness_integrality") + f". Sensitive occupation, k = {K}; the whole model, "
             f"HiGHS presolve off, {a.limit:g} s per solve; one run at a time, each in its own process.")
    write_results(a.out, rows, "t-closeness: the whole model's bound with the openings, the sizes or every "
                  "count kept integer (UCI Adult, 30,162 rows)", columns, intro)


if __name__ == "__main__":
    main()
