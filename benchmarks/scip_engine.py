"""Issue 14, "Engines": SCIP (through pyscipopt) against HiGHS on the whole k-anonymity model.

    pip install -e '.[scip]'
    python -m benchmarks.scip_engine --qis 6 --ks 5 --limit 600 [--engines scip,highs] [--out STEM]

Full Adult, QIs in the order sex, age, race, marital-status, education,
native-country, workclass, occupation (the first ``q``). The whole model
(``reduction="none"``) is written as MPS (as ``Request.write_model`` does) and read
by SCIP (its defaults, one thread), or solved by HiGHS as the toolkit does
(presolve off, one thread, isolated). Each run in its own process, one at a
time. SCIP's best solution is mapped back onto the model's columns by name
and released only through the verifier (``Release.verified``), so its cost
is the table's recounted cost. Reports the root bound (SCIP's
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
    import tempfile

    import numpy as np
    from pyscipopt import Model

    from milp_anon import pipeline
    from milp_anon.release import Release

    am = pipeline.build_model(table, request)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.mps")
        am.lm.to_pulp()[0].writeMPS(path)  # what Request.write_model writes, from the model built once
        m = Model()
        m.hideOutput()
        m.readProblem(path)
    m.setParam("limits/time", float(limit))
    m.setParam("parallel/maxnthreads", 1)
    m.optimize()
    root = m.getDualboundRoot()  # 1e20 when presolve alone solved it (no root LP)
    row = {"status": m.getStatus(), "bound": m.getDualbound(), "root bound": root if root < 1e19 else None,
           "nodes": m.getNNodes(), "objective": None}
    if m.getNSols():
        sol = m.getBestSol()
        index = {n: i for i, n in enumerate(am.lm.col_names())}
        x = np.zeros(am.lm.n_cols)
        for v in m.getVars():
            x[index[v.name]] = m.getSolVal(sol, v)
        released, groups, cost = am.release(np.rint(x[am.g]))
        rel = Release.verified(table, request, released, cost=cost, groups=groups, source="SCIP")
        row["objective"] = rel.objective
    return row


def _highs(table, request, limit):
    import milp_anon as ma

    r = ma.anonymize(table, *request.criteria, reduction="none", time_limit=limit, threads=1)
    return {"status": r.status, "bound": r.bound, "root bound": None, "nodes": None, "objective": r.objective}


def run(job):
    import resource
    import time

    import milp_anon as ma
    from milp_anon.datasets import load_adult

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
