"""Optimal local recoding with intervals and value sets against ARX hierarchies and Mondrian, on Adult.

    python -m benchmarks.intervals --peer-python /path/to/venv/bin/python [--limit SEC] [--out DIR]

Adult (the bundled ARX preparation), QIs sex, age (interval), race (value
sets; sex too), sensitive salary-class carried, k = 5, on the first 2,000
rows and on all 30,162. Every release is scored by ``milp-anon gap`` under
one metric, the interval / value-set loss (``formulations/intervals.md``),
against the interval optimum solved once (``--optimum-from``):

* the interval optimum itself (``milp-anon solve --interval age --value-set sex,race``);
* the optimum with the ARX hierarchies (``lm``): as written it is not an
  interval release (the bundled ARX age hierarchy labels 30 as ``25-29`` and
  25 as ``20-24``: its labels are shifted by one), so it is also scored as
  its classes released at their hulls (the cheapest interval / value-set
  cells holding each class: what its partition costs under this metric);
* anonypy 0.2.1's Mondrian (``pip install anonypy==0.2.1`` in the peer
  environment), read as it writes it (``--count count``, list cells).

Results: ``benchmarks/results/intervals.md`` and ``.csv``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import pandas as pd

import milp_anon as ma
from milp_anon.cli import main as cli
from milp_anon.release.partition import blocks_of, release_blocks
from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

from .common import ADULT_QI, fmt, optimum_cells, validity_cell, write_csv

QI = list(ADULT_QI[:3])
SENSITIVE = "salary-class"
K = 5
CELLS = ["--interval", "age", "--value-set", "sex,race"]

PEER = r"""
import sys, pandas as pd
from anonypy import anonypy
src, out, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
qi, sens = sys.argv[4].split(","), sys.argv[5]
df = pd.read_csv(src, sep=";", dtype=str, keep_default_na=False)[qi + [sens]]
for c in qi + [sens]:
    df[c] = df[c].astype(int) if c == "age" else df[c].astype("category")
rows = anonypy.Preserver(df, qi, sens).anonymize_k_anonymity(k=k)
pd.DataFrame(rows).to_csv(out, sep=";", index=False)
"""


def _solve(orig, recoding_args, limit, report, out):
    args = ["solve", orig, "--qi", ",".join(QI), "--sensitive", SENSITIVE, "--k", str(K), "--sep", ";", "--quiet",
            "--out", out, "--report", report, "--time-limit", str(limit), *recoding_args]
    t0 = time.perf_counter()
    cli(args)
    return time.perf_counter() - t0


def _gap(orig, release, extra, opt, report):
    cli(["gap", orig, release, "--qi", ",".join(QI), "--sensitive", SENSITIVE, "--k", str(K), "--sep", ";",
         "--quiet", "--report", report, *CELLS, "--optimum-from", opt, *extra])
    with open(report, encoding="utf-8") as fh:
        return json.load(fh)


def run(peer_python: str, limit: float, out_dir: str) -> list[dict]:
    frame = load_adult()
    hier_args = [a for c in QI for a in ("--hierarchy", f"{c}={adult_hierarchy_path(c)}")] + ["--cost", "lm"]
    others = [c for c in frame.columns if c not in QI and c != SENSITIVE]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (2000, len(frame)):
            orig = os.path.join(tmp, f"adult{n}.csv")
            frame.iloc[:n].to_csv(orig, sep=";", index=False)
            opt = os.path.join(tmp, f"opt{n}.json")
            opt_s = _solve(orig, CELLS, limit, opt, os.path.join(tmp, f"opt{n}.csv"))
            hier_rep = os.path.join(tmp, f"hier{n}.json")
            hier_out = os.path.join(tmp, f"hier{n}.csv")
            hier_s = _solve(orig, hier_args, limit, hier_rep, hier_out)
            hull_out = os.path.join(tmp, f"hier{n}-hulls.csv")
            released = pd.read_csv(hier_out, sep=";", dtype=str, keep_default_na=False)
            table = ma.Table.from_frame(frame.iloc[:n].reset_index(drop=True), QI, SENSITIVE)
            rec = ma.Generalization(intervals=["age"], value_sets=["sex", "race"])
            release_blocks(table, blocks_of(released, QI), rec).to_csv(hull_out, sep=";", index=False)
            peer_out = os.path.join(tmp, f"anonypy{n}.csv")
            t0 = time.perf_counter()
            subprocess.run([peer_python, "-c", PEER, orig, peer_out, str(K), ",".join(QI), SENSITIVE], check=True,
                           capture_output=True, text=True)
            peer_s = time.perf_counter() - t0
            cases = [("optimum, intervals + value sets", os.path.join(tmp, f"opt{n}.csv"), [], opt_s, opt),
                     ("optimum, ARX hierarchies (lm), as written", hier_out, [], hier_s, hier_rep),
                     ("optimum, ARX hierarchies (lm), its classes at their hulls", hull_out, [], hier_s, hier_rep),
                     ("anonypy 0.2.1 Mondrian", peer_out, ["--count", "count", "--ignore", ",".join(others)],
                      peer_s, None)]
            for name, release, extra, secs, own in cases:
                rep = _gap(orig, release, extra, opt, os.path.join(tmp, "g.json"))
                own_status = None
                if own is not None:
                    with open(own, encoding="utf-8") as fh:
                        own_status = json.load(fh)["status"]
                rows.append({"rows": n, "release": name, "valid": rep["valid"], "cost": rep["cost"],
                             "status of the optimum": rep["status"], "optimum": rep["optimum"],
                             "best known": rep["best_known"], "bound": rep["bound"], "gap": rep["gap"],
                             "gap to bound": rep["gap_to_bound"], "seconds": round(secs, 1),
                             "own status": own_status, "violation": rep["violation"]})
                print(json.dumps(rows[-1]), flush=True)
    os.makedirs(out_dir, exist_ok=True)
    write_csv(os.path.join(out_dir, "intervals.csv"), rows)
    _markdown(rows, limit, os.path.join(out_dir, "intervals.md"))
    return rows


def _markdown(rows, limit, path):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [f"# Intervals and value sets vs ARX hierarchies vs Mondrian (Adult, QIs {', '.join(QI)}, k = {K})", "",
             f"Commit {commit}; solves limited to {limit:g} s; one run at a time, 2 cores. Every release is "
             "scored by `milp-anon gap` under one metric, the interval / value-set loss (a range costs its width "
             "over the column's range, a value set (|S| − 1)/(|D| − 1), `*` 1; formulations/intervals.md), "
             "against the optimum of local recoding with intervals (age) and value sets (sex, race).", "",
             "| rows | release | valid | cost (interval metric) | optimum (or best known / bound) | gap | "
             "seconds | status of its own solve |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        opt, gap = optimum_cells(r, 3)
        lines.append(f"| {r['rows']:,} | {r['release']} | {validity_cell(r)} "
                     f"| {fmt(r['cost'], 3)} | {opt} | {gap} | {r['seconds']} | {r['own status'] or '–'} |")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer-python", required=True, help="a Python with anonypy 0.2.1 installed")
    ap.add_argument("--limit", type=float, default=300.0, help="time limit of each solve (s)")
    ap.add_argument("--out", default=os.path.join("benchmarks", "results"))
    args = ap.parse_args(argv)
    run(args.peer_python, args.limit, args.out)


if __name__ == "__main__":
    sys.exit(main())
