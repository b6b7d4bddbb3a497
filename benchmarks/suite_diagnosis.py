"""Diagnose a suite before building (issue 93, item 2): where does each case stop, and why?

Per case of a suite (k-anonymity, suppression or intervals): ``milp-anon`` with default options under a time
limit — status, table, bound, the LP bound (column generation) and the clique bound, seconds — and, where it
does not prove the optimum, HiGHS alone on the whole model (presolve off, no start) at the same limit. The
verdict compares the two: *incumbent-limited* when HiGHS alone found a cheaper table, *bound-limited* when it
proved a higher bound, *both*, or *open* when neither beats milp-anon (the gap lies between its table and its
bound, and only a tree can tell which side moves).

Run: ``python -m benchmarks.suite_diagnosis [--limit S] [--max-qi Q] [--only SUBSTRING] [--lns SHARE] [SUITE.toml]`` →
``benchmarks/results/<suite>_diagnosis_<S>s.{md,csv}``. One case at a time, each in a fresh process.
"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import provenance_line, run_serial, write_results
from milp_anon.bench.suite import build_problem, load_suite


def _milp_anon(job) -> dict:
    import milp_anon as ma

    spec, limit, share = job
    p = build_problem(spec)
    t0 = time.perf_counter()
    try:
        options = ma.SolverOptions(time_limit=limit) if share is None else ma.SolverOptions(time_limit=limit, lns=share)
        r = ma.Request(*p.criteria, recoding=p.recoding).solve(p.table, options)
    except (ma.InputError, ma.ModelTooLargeError) as exc:  # a model the product refuses: its reason is the row
        return {"case": spec["name"], "rows": p.table.n, "t_in": p.info["t_in"], "status": "refused",
                "reason": str(exc), "seconds": round(time.perf_counter() - t0, 1), "measured_until": time.time()}
    red = r.reduction
    return {"case": spec["name"], "rows": p.table.n, "t_in": p.info["t_in"], "status": str(r.status),
            "objective": r.objective, "bound": r.bound, "gap": r.gap,
            "lp_bound": None if red is None else red.lp_bound,
            "clique_bound": None if red is None else red.clique_bound,
            "seconds": round(time.perf_counter() - t0, 1), "measured_until": time.time()}


def _highs_alone(job) -> dict:
    import milp_anon as ma
    from milp_anon.pipeline.solve import build_model
    from milp_anon.solvers import solve_model

    spec, limit = job
    p = build_problem(spec)
    t0 = time.perf_counter()
    am = build_model(p.table, ma.Request(*p.criteria, recoding=p.recoding))
    left = max(1.0, limit - (time.perf_counter() - t0))  # the build counts against the same limit
    out = solve_model(am.lm, ma.SolverOptions(time_limit=left))
    return {"case": spec["name"], "highs_status": str(out.status), "highs_objective": out.objective,
            "highs_bound": out.bound, "highs_seconds": round(time.perf_counter() - t0, 1),
            "measured_until": time.time()}


def _qi_count(spec: dict) -> int:
    from milp_anon.tables.datasets import ADULT_QI

    return int(spec.get("qi_count") or len(spec.get("qi", ADULT_QI)))


def verdict(r: dict) -> str:
    if r["status"] == "optimal":
        return "proven"
    if r["status"] == "refused":
        return "refused: " + r["reason"]
    if r.get("highs_status") is None:
        return "open"
    cheaper = r["highs_objective"] is not None and r["highs_objective"] < r["objective"] - 1e-6
    higher = r["highs_bound"] is not None and r["highs_bound"] > r["bound"] + 1e-6
    return {(True, True): "both", (True, False): "incumbent-limited", (False, True): "bound-limited",
            (False, False): "open"}[(cheaper, higher)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite", nargs="?", default="benchmarks/suites/real_tables.toml")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--max-qi", type=int, default=6, help="cases with at most this many QIs (default 6)")
    ap.add_argument("--only", default=None, help="cases whose name contains this")
    ap.add_argument("--intervals", action="store_true", help="the cases with interval QIs (default: without)")
    ap.add_argument("--case", action="append", default=None,
                    help="this case only (repeatable; with or without intervals, whatever its QIs)")
    ap.add_argument("--no-highs", action="store_true", help="skip HiGHS alone")
    ap.add_argument("--lns", type=float, default=None,
                    help="milp-anon's --lns share (default: the package's default, auto)")
    args = ap.parse_args()
    suite = load_suite(args.suite)
    specs = [s for s in suite.instances if (_qi_count(s) <= args.max_qi or args.case is not None)
             and (args.case is not None or bool(s.get("intervals")) == args.intervals)
             and (args.only is None or args.only in s["name"]) and (args.case is None or s["name"] in args.case)]
    rows = run_serial(_milp_anon, [(s, args.limit, args.lns) for s in specs])
    open_specs = [] if args.no_highs else [(s, args.limit) for s, r in zip(specs, rows)
                                           if r["status"] not in ("optimal", "refused")]
    highs = {h["case"]: h for h in run_serial(_highs_alone, open_specs)}
    for r in rows:
        h = highs.get(r["case"], {})
        r.update({key: value for key, value in h.items() if key.startswith("highs_")})
        r["highs_peak_mb"] = h.get("tree_peak_mb")
        r["verdict"] = verdict(r)
    columns = [("case", "case"), ("rows", "rows"), ("t_in", "t_in"), ("status", "status"),
               ("objective", "table"), ("bound", "bound"), ("gap", "gap"), ("lp_bound", "LP bound"),
               ("clique_bound", "clique bound"), ("seconds", "seconds"), ("tree_peak_mb", "peak MiB"),
               ("highs_status", "HiGHS alone"), ("highs_objective", "HiGHS table"), ("highs_bound", "HiGHS bound"),
               ("verdict", "verdict")]
    intro = (provenance_line("suite_diagnosis") + f". Suite `{args.suite}`, cases with at most {args.max_qi} QIs, "
             f"{args.limit:.0f} s per run, one at a time"
             + (", the cases with interval QIs" if args.intervals else "")
             + (f", the cases {', '.join(args.case)}" if args.case else "")
             + (". milp-anon with default options" if args.lns is None else f". milp-anon with --lns {args.lns:g}")
             + "; HiGHS alone on the whole model (presolve off, no start; the "
             "model's build counts against its limit) only where milp-anon did not prove the optimum"
             + (" (skipped here: --no-highs)" if args.no_highs else "")
             + ". Verdict: see the script's docstring.")
    which = "_intervals" if args.intervals else ("_open" if args.case else "")
    stem = f"benchmarks/results/{suite.name}{which}_diagnosis_{args.limit:.0f}s"
    write_results(stem, rows, f"Diagnosis of the {suite.name} suite at {args.limit:.0f} s", columns, intro)


if __name__ == "__main__":
    main()
