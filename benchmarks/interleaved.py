"""Two commits of the package timed against each other in one run, interleaved.

k-anonymity by suppression on UCI Adult (30,162 rows; QIs in the order
sex, age, race, marital-status, education, native-country, …), with the
package's defaults and a time limit. Each case runs once per repetition in
each of two checkouts (``--before`` and ``--after``, e.g. git worktrees at two
commits), in a fresh process, one run at a time, the order alternating
(before, after; then after, before) so that drift of the machine falls on
both alike. Reports, per case, each side's status, objective, bound and
seconds, and the ratio of the medians after / before.

    python -m benchmarks.interleaved --before ../wt-before --after ../wt-after \\
        [--cases 4:2,4:5,4:10,5:2,5:5,5:10,6:2,6:5,6:10] [--time-limit 60] [--repetitions 2] \\
        [--out benchmarks/results/layout_interleaved]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from benchmarks.common import ADULT_QI, provenance_line, write_results

#: the solve in a checkout: the package imported from the working directory, the run's own wall time
SNIPPET = """
import json, sys, time
import milp_anon as ma
try:
    from milp_anon.tables.datasets import load_adult
except ImportError:
    from milp_anon.datasets import load_adult
qis, k, limit = json.loads(sys.argv[1])
table = ma.Table.from_frame(load_adult(), qi=qis)
t = time.perf_counter()
r = ma.anonymize(table, ma.KAnonymity(k), time_limit=limit)
print(json.dumps(dict(status=str(r.status), objective=r.objective, bound=r.bound,
                      seconds=round(time.perf_counter() - t, 2))))
"""


def _commit(path: str) -> str:
    return subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def run_case(checkout: str, qis: list, k: int, limit: float) -> dict:
    """One solve in ``checkout`` (a fresh interpreter whose working directory is the checkout)."""
    out = subprocess.run([sys.executable, "-c", SNIPPET, json.dumps([qis, k, limit])], cwd=checkout,
                         capture_output=True, text=True, timeout=limit * 3 + 120)
    if out.returncode != 0:
        raise SystemExit(f"{checkout}: {out.stderr.strip().splitlines()[-1]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--cases", default="4:2,4:5,4:10,5:2,5:5,5:10,6:2,6:5,6:10", help="QIs:k, comma-separated")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--repetitions", type=int, default=2)
    ap.add_argument("--out", default="benchmarks/results/layout_interleaved")
    args = ap.parse_args(argv)
    for side in (args.before, args.after):
        if not os.path.isdir(os.path.join(side, "milp_anon")):
            raise SystemExit(f"{side}: not a checkout of milp-anon (no milp_anon/ in it)")
    commits = {"before": _commit(args.before), "after": _commit(args.after)}
    cases = [tuple(int(v) for v in c.split(":")) for c in args.cases.split(",")]
    runs = {(c, side): [] for c in cases for side in ("before", "after")}
    for rep in range(args.repetitions):
        for c in cases:
            order = ("before", "after") if (rep + cases.index(c)) % 2 == 0 else ("after", "before")
            for side in order:
                got = run_case(getattr(args, side), list(ADULT_QI[:c[0]]), c[1], args.time_limit)
                runs[c, side].append(got)
                print(json.dumps(dict(qis=c[0], k=c[1], side=side, commit=commits[side], **got)), flush=True)
    rows = []
    for c in cases:
        row = dict(qis=c[0], k=c[1])
        for side in ("before", "after"):
            got = runs[c, side]
            row[f"{side} status"] = "/".join(sorted({g["status"] for g in got}))
            row[f"{side} objective"] = "/".join(sorted({f"{g['objective']:g}" for g in got if g["objective"] is not None}))
            row[f"{side} bound"] = "/".join(sorted({f"{g['bound']:g}" for g in got if g["bound"] is not None}))
            row[f"{side} s"] = statistics.median(g["seconds"] for g in got)
        row["after / before"] = round(row["after s"] / row["before s"], 3) if row["before s"] else None
        rows.append(row)
    intro = (f"{provenance_line('interleaved')}. Before: {commits['before']}, after: {commits['after']}; "
             f"time limit {args.time_limit:g} s, the package's defaults, {args.repetitions} repetitions, medians; "
             "runs interleaved, one at a time.")
    write_results(args.out, rows, "Two commits interleaved: k-anonymity by suppression on UCI Adult",
                  [(key, key) for key in rows[0]], intro)
    return 0


if __name__ == "__main__":
    sys.exit(main())
