"""Foundation benchmark: optimal k-anonymity by suppression on UCI Adult.

QIs ``sex, age, race, marital-status``, then adding ``education``, then
``native-country``; k = 2, 5, 10. Every run is a fresh process (so peak memory
is the run's own) and runs alone on the machine (no two runs share the
cores). Writes a Markdown table and a CSV under ``benchmarks/results/``.

    python -m benchmarks.k_anonymity [--time-limit 300] [--qis 4,5,6] [--ks 2,5,10]
           [--variants default,integer,no-closure] [--out benchmarks/results/k_anonymity]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import resource
import time

from benchmarks.common import fmt, run_serial, write_csv

ADULT_ORDER = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
               "occupation"]

#: model options and solver options of each variant ("default" is the product's default)
VARIANTS = {
    "default": (dict(closure=True, assignment="continuous"), dict()),
    "integer": (dict(closure=True, assignment="integer"), dict()),
    "no-closure": (dict(closure=False, assignment="continuous"), dict()),
    "presolve-on": (dict(closure=True, assignment="continuous"), dict(presolve="on")),
    "greedy-start": (dict(closure=True, assignment="continuous", warm_start="greedy"), dict()),
}


def run_one(args):
    n_qi, k, variant, time_limit, threads = args
    import milp_anon as ma
    from milp_anon.datasets import load_adult

    t0 = time.perf_counter()
    frame = load_adult()
    table = ma.Table.from_frame(frame, ADULT_ORDER[:n_qi])
    form_opts, solver_opts = VARIANTS[variant]
    r = ma.anonymize(table, ma.KAnonymity(k), model=ma.ModelOptions(**form_opts),
                     solver=ma.SolverOptions(time_limit=time_limit, threads=threads, **solver_opts))
    wall = time.perf_counter() - t0
    # the solver may run in a child process (isolate="auto"): the larger of the two peaks
    peak_mb = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    c = r.candidate_counts
    return {
        "qis": n_qi, "k": k, "variant": variant, "status": r.status,
        "objective": r.objective, "bound": r.bound, "gap": r.gap,
        "t_in": r.size.t_in, "generated": c.get("generated"), "support": c.get("support"),
        "closure": c.get("closure_only"), "kept": c.get("kept"),
        "variables": r.size.n_variables, "constraints": r.size.n_constraints,
        "nonzeros": r.size.n_nonzeros,
        "collapse_s": r.timings.collapse, "candidates_s": r.timings.candidates,
        "build_s": r.timings.build, "solve_s": r.timings.solve, "verify_s": r.timings.verify,
        "wall_s": wall, "peak_mb": peak_mb, "warm_start_cost": r.warm_start_cost,
        "warm_start_s": r.timings.warm_start, "fallback": r.fallback,
    }


def markdown(rows, meta) -> str:
    head = ["QIs", "k", "variant", "t_in", "cand. generated", "after support", "after closure", "kept (both)",
            "variables", "constraints", "build s", "solve s", "total s", "peak MB", "status", "objective",
            "bound", "gap"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        gap = "–" if r["gap"] is None else f"{100 * r['gap']:.3f} %"
        lines.append("| " + " | ".join([
            fmt(r["qis"]), fmt(r["k"]), r["variant"], fmt(r["t_in"]), fmt(r["generated"]), fmt(r["support"]),
            fmt(r["closure"]), fmt(r["kept"]), fmt(r["variables"]), fmt(r["constraints"]), fmt(r["build_s"]),
            fmt(r["solve_s"]), fmt(r["wall_s"]), fmt(r["peak_mb"], 0), r["status"],
            fmt(r["objective"], 0), fmt(r["bound"], 0), gap]) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--qis", default="4,5,6")
    ap.add_argument("--ks", default="2,5,10")
    ap.add_argument("--variants", default="default", help=f"comma-separated, from {', '.join(VARIANTS)}")
    ap.add_argument("--out", default="benchmarks/results/k_anonymity")
    a = ap.parse_args(argv)
    jobs = [(q, k, v, a.time_limit, a.threads) for v in a.variants.split(",") for q in map(int, a.qis.split(","))
            for k in map(int, a.ks.split(","))]
    rows = run_serial(run_one, jobs)
    import pulp

    meta = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "python": platform.python_version(),
            "highspy": importlib.metadata.version("highspy"), "pulp": pulp.__version__,
            "time_limit_s": a.time_limit, "date": time.strftime("%Y-%m-%d")}
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    write_csv(a.out + ".csv", rows)
    with open(a.out + ".md", "w") as fh:
        fh.write("# k-anonymity by suppression on UCI Adult (30,162 rows)\n\n")
        fh.write("Generated by `python -m benchmarks.k_anonymity`; " + ", ".join(f"{k} {v}" for k, v in meta.items())
                 + ". QIs in the order " + ", ".join(ADULT_ORDER[:max(map(int, a.qis.split(',')))])
                 + "; each run in its own process, one run at a time.\n\n")
        fh.write(markdown(rows, meta))
    print(f"wrote {a.out}.md and {a.out}.csv")


if __name__ == "__main__":
    main()
