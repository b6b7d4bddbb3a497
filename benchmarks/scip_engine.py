"""Issue 14, "Engines": SCIP (through pyscipopt) against HiGHS on the whole k-anonymity model.

    pip install -e '.[scip]'
    python -m benchmarks.scip_engine --qis 6 --ks 5 --limit 600 [--engines scip,highs] [--out STEM]

Full Adult, QIs in the order sex, age, race, marital-status, education,
native-country, workclass, occupation (the first ``q``). The whole model
(``reduction="none"``) is written as MPS (as ``Request.write_model`` does) and read
by SCIP (its defaults, one thread), or solved by HiGHS as the toolkit does
(presolve off, one thread, isolated). Each run in its own process, one at a
time. SCIP runs through ``benchmarks.experiments.whole_cutoff`` (no cutoff): its best
solution is mapped back onto the model's columns by name and released only
through the verifier (``Release.verified``), so its cost is the table's
recounted cost. Reports the root bound (SCIP's
``getDualboundRoot``; HiGHS's is in its log), the final bound, the best
table and the peak memory of the run's process and its children.
"""

from __future__ import annotations

import argparse
import os

from .common import ADULT_QI, provenance_line, run_serial, write_results

QI = list(ADULT_QI)
OUT = os.path.join(os.path.dirname(__file__), "results")


def _scip(table, request, limit):
    from .experiments.whole_cutoff import solve_whole_with_cutoff

    out = solve_whole_with_cutoff(table, request, None, limit, quiet=True, engine="scip")
    return {"status": out["scip_status"], "bound": out["bound"], "root bound": out["root_bound"],
            "nodes": out["nodes"], "objective": out.get("verified_cost")}


def _highs(table, request, limit):
    import milp_anon as ma

    r = ma.anonymize(table, *request.criteria, reduction="none", time_limit=limit, threads=1)
    return {"status": r.status, "bound": r.bound, "root bound": None, "nodes": None, "objective": r.objective}


def run(job):
    import resource
    import time

    import milp_anon as ma
    from milp_anon.tables.datasets import load_adult

    q, k, engine, limit = job
    table = ma.Table.from_frame(load_adult(), qi=QI[:q])
    request = ma.Request(ma.KAnonymity(k), model=ma.ModelOptions(reduction="none"))
    t = time.perf_counter()
    row = (_scip if engine == "scip" else _highs)(table, request, limit)
    wall = time.perf_counter() - t
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    gap = None
    if row["objective"] is not None and row["bound"] is not None:
        gap = (row["objective"] - row["bound"]) / max(abs(row["objective"]), 1e-9)
    return {"qis": q, "k": k, "engine": engine, "limit": limit, **row, "gap": gap, "seconds": round(wall, 1),
            "peak_mb": round(peak)}


COLUMNS = [("qis", "QIs"), ("k", "k"), ("engine", "engine"), ("limit", "limit s"), ("status", "status"),
           ("objective", "verified cost"), ("bound", "bound"), ("gap", "gap"), ("root bound", "root bound"),
           ("nodes", "nodes"), ("seconds", "wall s"), ("peak_mb", "peak MB")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", default="6")
    ap.add_argument("--ks", default="5")
    ap.add_argument("--engines", default="scip,highs")
    ap.add_argument("--limit", type=float, default=600.0)
    ap.add_argument("--out", default=os.path.join(OUT, "scip_engine"))
    args = ap.parse_args(argv)
    jobs = [(int(q), int(k), e, args.limit) for q in args.qis.split(",") for k in args.ks.split(",")
            for e in args.engines.split(",")]
    rows = run_serial(run, jobs)
    write_results(args.out, rows, "SCIP against HiGHS on the whole k-anonymity model, Adult",
                  COLUMNS, provenance_line("scip_engine"))


if __name__ == "__main__":
    main()
