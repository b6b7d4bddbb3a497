"""Peers' releases scored by ``milp-anon gap`` as they come out of the tools, without hand conversion.

    python -m benchmarks.peers --peer-python /path/to/venv/bin/python [--limit SEC] [--out DIR]

The peers run in their own environment (``pip install anjana==1.2.3``:
anjana pins pycanon, which pins old numpy/pandas). Adult (the bundled ARX
preparation), QIs sex, age, race, marital-status, k = 5, on the first 2,000
rows and on all 30,162:

* anjana's k-anonymity (full-domain generalization with the ARX hierarchies;
  its ``supp_level`` withholds whole classes and drops them, adding an
  ``index`` column), at suppression levels 0 and 5 %;
* anjana's k-anonymity with one-level hierarchies (value → ``*``): full-domain
  suppression.

Each release is scored with ``milp-anon gap`` twice: against the optimum of
the same scheme (full-domain, same number of withheld records: like for like)
and against the local-recoding optimum (the MILP; same withheld records),
each solved once and reused through ``--optimum-from``. Results:
``benchmarks/results/peers.md`` and ``.csv``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from milp_anon.cli import main as cli
from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

from .common import ADULT_QI, fmt, optimum_cells, validity_cell, write_csv

QI = list(ADULT_QI[:4])
K = 5

PEER = r"""
import sys, pandas as pd
from anjana.anonymity import k_anonymity
src, out, supp, kind = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
qi = sys.argv[5].split(",")
data = pd.read_csv(src, sep=";", dtype=str, keep_default_na=False)
hier = {}
for c in qi:
    if kind == "suppression":
        vals = sorted(set(data[c]))
        hier[c] = {0: pd.Series(vals), 1: pd.Series(["*"] * len(vals))}
    else:
        h = pd.read_csv(sys.argv[6 + qi.index(c)], sep=";", header=None, dtype=str, keep_default_na=False)
        hier[c] = {i: h[i] for i in range(h.shape[1])}
anon = k_anonymity(data, [], qi, int(sys.argv[-1]), supp, hier)
anon.to_csv(out, sep=";", index=False)
"""


def _gap(orig, release, recoding_args, extra, report):
    """Run ``milp-anon gap``; the report as a dict (``valid`` False with the violation when invalid)."""
    code = cli(["gap", orig, release, "--qi", ",".join(QI), "--k", str(K), "--sep", ";", "--quiet",
                "--report", report, *recoding_args, *extra])
    with open(report, encoding="utf-8") as fh:
        return code, json.load(fh)


def _optimum(orig, recoding_args, withheld, limit, report):
    """Solve once with ``milp-anon solve`` (the report is reused by every peer file)."""
    args = ["solve", orig, "--qi", ",".join(QI), "--k", str(K), "--sep", ";", "--quiet", "--out",
            report + ".csv", "--report", report, "--time-limit", str(limit), *recoding_args]
    if withheld is not None:
        args += ["--max-suppressed-records", str(withheld)]
    t0 = time.perf_counter()
    cli(args)
    return time.perf_counter() - t0


def run(peer_python: str, limit: float, out_dir: str) -> list[dict]:
    frame = load_adult()
    hier_args = [a for c in QI for a in ("--hierarchy", f"{c}={adult_hierarchy_path(c)}")] + ["--cost", "lm"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (2000, len(frame)):
            orig = os.path.join(tmp, f"adult{n}.csv")
            frame.iloc[:n].to_csv(orig, sep=";", index=False)
            for kind in ("generalization", "suppression"):
                rec = hier_args if kind == "generalization" else []
                for supp in (0.0, 5.0):
                    release = os.path.join(tmp, f"anjana-{n}-{kind}-{supp:g}.csv")
                    t0 = time.perf_counter()
                    subprocess.run([peer_python, "-c", PEER, orig, release, str(supp), kind, ",".join(QI),
                                    *[adult_hierarchy_path(c) for c in QI], str(K)],
                                   check=True, capture_output=True, text=True)
                    peer_s = time.perf_counter() - t0
                    extra = ["--record-suppression", "--ignore", "index"] if supp else []
                    # first: how many records did the peer withhold (no optimum needed for that)
                    code, rep = _gap(orig, release, rec, [*extra, "--time-limit", "1"],
                                     os.path.join(tmp, "probe.json"))
                    withheld = rep.get("withheld_records") if supp else None
                    for scheme in ("full-domain", "local"):
                        opt = os.path.join(tmp, f"opt-{n}-{kind}-{scheme}-{withheld}.json")
                        solve_s = None
                        if not os.path.exists(opt):
                            solve_s = _optimum(orig, [*rec, "--scheme", scheme], withheld, limit, opt)
                        code, rep = _gap(orig, release, [*rec, "--scheme", scheme],
                                         [*extra, "--optimum-from", opt], os.path.join(tmp, "g.json"))
                        rows.append({"rows": n, "peer": f"anjana {kind}", "supp_level %": supp,
                                     "optimum of": scheme, "valid": rep["valid"], "withheld": rep["withheld_records"],
                                     "peer cost": rep["cost"], "status": rep["status"],
                                     "optimum": rep["optimum"], "best known": rep["best_known"],
                                     "bound": rep["bound"], "gap": rep["gap"],
                                     "gap to bound": rep["gap_to_bound"], "peer s": round(peer_s, 1),
                                     "solve s": None if solve_s is None else round(solve_s, 1),
                                     "violation": rep["violation"]})
                        print(json.dumps(rows[-1]), flush=True)
    os.makedirs(out_dir, exist_ok=True)
    write_csv(os.path.join(out_dir, "peers.csv"), rows)
    _markdown(rows, limit, os.path.join(out_dir, "peers.md"))
    return rows


def _markdown(rows, limit, path):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [f"# Peers' releases scored by `milp-anon gap` (Adult, QIs {', '.join(QI)}, k = {K})", "",
             f"Commit {commit}; optimum solves limited to {limit:g} s; one run at a time. Each anjana release "
             "is read as anjana writes it (suppressed records dropped, an `index` column added: "
             "`--record-suppression --ignore index`) and scored against the full-domain optimum (its own "
             "scheme) and the local-recoding optimum, each with the same number of withheld records.", "",
             "| rows | peer | supp_level | optimum of | valid | withheld | peer cost | optimum (or best known / bound) "
             "| gap | peer s | solve s |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        opt, gap = optimum_cells(r, 2, status=True)
        lines.append(f"| {r['rows']:,} | {r['peer']} | {r['supp_level %']:g} % | {r['optimum of']} | "
                     f"{validity_cell(r)} | {r['withheld']} | "
                     f"{fmt(r['peer cost'])} | {opt} | {gap} | {r['peer s']} | {fmt(r['solve s'])} |")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer-python", required=True, help="a Python with anjana installed")
    ap.add_argument("--limit", type=float, default=120.0, help="time limit of each optimum solve (s)")
    ap.add_argument("--out", default=os.path.join("benchmarks", "results"))
    args = ap.parse_args(argv)
    run(args.peer_python, args.limit, args.out)


if __name__ == "__main__":
    sys.exit(main())
