"""Before/after: the large-neighbourhood search (milp_anon.search.lns) on Adult, same time limit, in one run.

"before": ``lns=0`` (the stage has the whole limit); "after": ``lns=0.5``
(the stage has half, the search the rest when the stage ends with a gap).
Cases: ARX hierarchies at 5 QIs (k = 5, 10; lm, height), and sensitive
``occupation`` at 4 QIs with frequency ℓ = 3 and recursive (3, 2) ℓ-diversity
(k = 5). One job at a time, each in its own process.

``--cases t-closeness``: sensitive ``occupation`` at 4 QIs, k = 5, t = 0.2
and 0.3 under equal, ordered (the ARX hierarchy's leaf order) and
hierarchical (the ARX occupation hierarchy) distance, each ``--time-limit``
seconds (sub-problems solved against the whole table's distribution).

    python -m benchmarks.lns [--time-limit 120] [--sensitive-time-limit 60] [--out benchmarks/results/lns]
    python -m benchmarks.lns --cases t-closeness --time-limit 120 --out benchmarks/results/lns_t_closeness
"""

from __future__ import annotations

import argparse
import resource
import time

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

QI_ORDER = list(ADULT_QI)


def run_one(job):
    case, k, share, time_limit = job
    import milp_anon as ma
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

    frame = load_adult()
    if case in ("lm", "height"):
        qi = QI_ORDER[:5]
        table = ma.Table.from_frame(frame, qi)
        request = ma.Request(ma.KAnonymity(k), recoding=ma.Generalization(
            {c: adult_hierarchy_path(c) for c in qi}, cost=case))
        label = f"hierarchies, {case}, 5 QIs"
    elif case.startswith("t="):
        from milp_anon.tables.hierarchy import Hierarchy

        qi = QI_ORDER[:4]
        table = ma.Table.from_frame(frame, qi, "occupation")
        t, distance = case[2:].split()
        hier = Hierarchy.from_csv(adult_hierarchy_path("occupation"))
        kw = {"ordered": {"order": list(hier.paths)}, "hierarchical": {"hierarchy": hier}}.get(distance, {})
        crit = ma.TCloseness(float(t), distance=distance, **kw)
        request = ma.Request(ma.KAnonymity(k), crit)
        label = f"{crit.describe()}, occupation, 4 QIs"
    else:
        qi = QI_ORDER[:4]
        table = ma.Table.from_frame(frame, qi, "occupation")
        crit = ma.LDiversity(3) if case == "frequency" else ma.LDiversity(3, kind="recursive", c=2)
        request = ma.Request(ma.KAnonymity(k), crit)
        label = f"{crit.describe()}, occupation, 4 QIs"
    t0 = time.perf_counter()
    r = request.solve(table, time_limit=time_limit, lns=share)
    ln = r.lns
    return {"case": label, "k": k, "limit": time_limit, "variant": "after" if share else "before", "status": r.status,
            "objective": r.objective, "bound": r.bound, "gap": r.gap, "released_by": r.source,
            "lns": "–" if ln is None else (f"{ln.start:.6g} → {ln.end:.6g}: {ln.solved} sub-problems, "
                                           f"{ln.improved} improved, {ln.proven} proven, {ln.seconds:.0f} s"),
            "wall_s": time.perf_counter() - t0, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--sensitive-time-limit", type=float, default=60.0)
    ap.add_argument("--share", type=float, default=0.5)
    ap.add_argument("--out", default="benchmarks/results/lns")
    ap.add_argument("--cases", choices=("default", "t-closeness"), default="default")
    a = ap.parse_args(argv)
    if a.cases == "t-closeness":
        jobs = [(f"t={t} {d}", 5, share, a.time_limit) for t in (0.2, 0.3) for d in ("equal", "ordered", "hierarchical")
                for share in (0.0, a.share)]
    else:
        jobs = [(case, k, share, a.time_limit) for case in ("lm", "height") for k in (5, 10)
                for share in (0.0, a.share)]
        jobs += [(case, 5, share, a.sensitive_time_limit) for case in ("frequency", "recursive")
                 for share in (0.0, a.share)]
    rows = run_serial(run_one, jobs)
    intro = (f"{provenance_line('lns')}; one run at a time, each in its own process. \"before\": `lns=0`; "
             f"\"after\": `lns={a.share:g}` (the stage gets {100 * (1 - a.share):g} % of the limit, the search the "
             "rest once the stage ends with a gap). Peak MB is the parent process (an isolated HiGHS child is not "
             "counted).")
    cols = [("case", "case"), ("k", "k"), ("limit", "limit s"), ("variant", "variant"), ("status", "status"),
            ("objective", "objective"), ("bound", "bound"), ("gap", "gap"), ("released_by", "released by"),
            ("lns", "search"), ("wall_s", "total s"), ("peak_mb", "peak MB")]
    write_results(a.out, rows, "The large-neighbourhood search on UCI Adult (30,162 rows), before/after", cols, intro)


if __name__ == "__main__":
    main()
