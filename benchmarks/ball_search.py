"""The search with sorted runs alone against sorted runs and balls in turn, from the same start.

    python -m benchmarks.ball_search --qis 8 --k 5 --seconds 240 [--start-limit 400] [--hierarchies lm]
                                     [--start-csv FILE] [--max-memory-gb 8] [--out benchmarks/results/NAME]

Full Adult, QIs the first ``q`` of sex, age, race, marital-status,
education, native-country, workclass, occupation; k-anonymity by cell
suppression, or with ``--hierarchies lm|height`` local recoding with the
ARX hierarchies. The start is the table of a solve of ``--start-limit``
seconds (``lns=0.25``; the level the search meets late in a 600-s run), or
the released table in ``--start-csv``. From it, one after the other in this
process, :func:`milp_anon.search.lns.improve` (one core) for ``--seconds`` each:
with ``lns.BALLS`` off (every pass takes runs of the classes sorted by their
released vectors) and on (every other pass takes balls around seed classes by
the rows' original values, :func:`milp_anon.search.lns.balls`). Writes ``OUT.md``
and ``OUT.csv``.
"""

from __future__ import annotations

import argparse
import sys
import time

import pandas as pd

import milp_anon as ma
from milp_anon.search import lns
from milp_anon.tables.datasets import load_adult
from milp_anon.release.verified import Release
from milp_anon.api import Request
from milp_anon.solvers import SolverOptions
from milp_anon.pipeline.solve import solve as pipeline_solve

from .common import ADULT_QI as QI, provenance_line, write_csv, write_md_table

COLUMNS = ["start cost", "neighbourhoods", "seconds", "cost", "gain", "sub-problems", "improved", "passes"]


def _request(args) -> Request:
    if args.hierarchies is None:
        return Request(ma.KAnonymity(args.k))
    from milp_anon.tables.datasets import adult_hierarchy_path

    recoding = ma.Generalization({c: adult_hierarchy_path(c) for c in QI[:args.qis]}, cost=args.hierarchies)
    return Request(ma.KAnonymity(args.k), recoding=recoding)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--qis", type=int, default=8)
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--seconds", type=float, default=240.0)
    p.add_argument("--start-limit", type=float, default=400.0)
    p.add_argument("--start-csv", default=None)
    p.add_argument("--hierarchies", choices=["lm", "height"], default=None)
    p.add_argument("--max-memory-gb", type=float, default=8.0)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    name = f"{args.qis}qi_k{args.k}" + (f"_{args.hierarchies}" if args.hierarchies else "")
    out = args.out or f"benchmarks/results/ball_search_{name}"
    table = ma.Table.from_frame(load_adult(), qi=list(QI[:args.qis]))
    request = _request(args)
    if args.start_csv:
        released = pd.read_csv(args.start_csv, dtype=str, keep_default_na=False)
    else:
        solved = ma.anonymize(table, *request.criteria, recoding=request.recoding, time_limit=args.start_limit,
                              lns=0.25, max_memory_gb=args.max_memory_gb)
        released = solved.table
    start = Release.verified(table, request, released)
    solver = SolverOptions(time_limit=args.seconds, lns=0.25)
    rows = []
    for label, flag in (("sorted runs", False), ("sorted runs and balls in turn", True)):
        lns.BALLS = flag
        t0 = time.perf_counter()
        found, log = lns.improve(table, request, start, args.seconds, solver, sub_solve=pipeline_solve)
        rows.append({"start cost": start.objective, "neighbourhoods": label,
                     "seconds": round(time.perf_counter() - t0, 1), "cost": found.objective,
                     "gain": start.objective - found.objective, "sub-problems": log.solved,
                     "improved": log.improved, "passes": log.passes})
        print(rows[-1], flush=True)
    command = " ".join(sys.argv[1:] if argv is None else argv)
    write_csv(out + ".csv", rows)
    write_md_table(out + ".md", f"The search with sorted runs against sorted runs and balls, {name}, "
                   f"{args.seconds:g} s each", [(c, c) for c in COLUMNS], rows,
                   intro=f"`python -m benchmarks.ball_search {command}`. {provenance_line('ball_search')}.")


if __name__ == "__main__":
    main()
