"""The large-neighbourhood search on one core against the split search on two, from the same start.

    python -m benchmarks.split_search --qis 8 --k 5 --seconds 240 [--start-limit 400] [--max-memory-gb 8]
                                      [--out benchmarks/results/split_search_8qi_k5]

Full Adult, k-anonymity by cell suppression, QIs the first ``q`` of sex, age,
race, marital-status, education, native-country, workclass, occupation. The
start is the pattern greedy's table (``milp_anon.search.starts.best_heuristic``)
and, with ``--start-limit``, also the table of a solve of that many seconds
(``lns=0.25``), nearer
the tables the search meets at the end of a 600-s run. From each start, one
after the other in this process: :func:`milp_anon.search.lns.improve` (one core)
and :func:`milp_anon.search.lns.improve_split` (two: a child process searches half
the classes) for ``--seconds`` each. Writes ``OUT.md`` and ``OUT.csv``.
"""

from __future__ import annotations

import argparse
import csv
import platform
import subprocess
import time

import milp_anon as ma
from milp_anon.api import Request
from milp_anon.pipeline.solve import solve
from milp_anon.search import lns
from milp_anon.search.starts import best_heuristic
from milp_anon.solvers import SolverOptions
from milp_anon.tables.datasets import load_adult

QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
COLUMNS = ["start", "start cost", "search", "seconds", "cost", "gain", "sub-problems", "improved", "passes", "splits"]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--qis", type=int, default=8)
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--seconds", type=float, default=240.0)
    p.add_argument("--start-limit", type=float, default=None)
    p.add_argument("--max-memory-gb", type=float, default=8.0)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    out = args.out or f"benchmarks/results/split_search_{args.qis}qi_k{args.k}"
    table = ma.Table.from_frame(load_adult(), qi=QI[:args.qis])
    request = Request(ma.KAnonymity(args.k))
    starts = [("pattern greedy", best_heuristic(table, request))]
    if args.start_limit:
        solved = ma.anonymize(table, ma.KAnonymity(args.k), time_limit=args.start_limit, lns=0.25,
                              max_memory_gb=args.max_memory_gb)
        starts.append((f"a {args.start_limit:g}-s solve", ma.release.Release.verified(table, request, solved.table)))
    solver = SolverOptions(time_limit=args.seconds, lns=0.25)
    rows = []
    for name, start in starts:
        for search, fn in (("one core (improve)", lns.improve), ("two cores (improve_split)", lns.improve_split)):
            t0 = time.perf_counter()
            found, log = fn(table, request, start, args.seconds, solver, sub_solve=solve)
            rows.append({"start": name, "start cost": start.objective, "search": search,
                         "seconds": round(time.perf_counter() - t0, 1), "cost": found.objective,
                         "gain": start.objective - found.objective, "sub-problems": log.solved,
                         "improved": log.improved, "passes": log.passes, "splits": log.epochs})
            print(rows[-1], flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    with open(out + ".csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    with open(out + ".md", "w") as fh:
        fh.write(f"# The search on one core against the split search on two, {args.qis} QIs, k = {args.k}, "
                 f"{args.seconds:g} s each, at {commit}\n\n")
        fh.write(f"`python -m benchmarks.split_search --qis {args.qis} --k {args.k} --seconds {args.seconds:g}"
                 + (f" --start-limit {args.start_limit:g}" if args.start_limit else "") + "`; "
                 f"{platform.machine()}, one process at a time.\n\n")
        fh.write("| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n")
        for r in rows:
            fh.write("| " + " | ".join(f"{r[c]:,.0f}" if isinstance(r[c], float) and c != "seconds" else str(r[c])
                                       for c in COLUMNS) + " |\n")


if __name__ == "__main__":
    main()
