"""ARX's privacy models solved to optimality beside heuristic releases (issue 95's goal table).

Adult (the bundled ARX preparation), QIs sex, age, race, marital-status, sensitive occupation, k = 5, cell
suppression; on the first 2,000 rows and on all 30,162. For each model: the optimum (or the table, bound and gap
at the limit) of ``milp-anon`` with default options, beside the heuristic releases the package ships (Mondrian,
the suppression greedy: each verified against the same criteria, or "none" where it finds no valid table) and,
with ``--peer-python``, anjana's where it implements the model (full-domain suppression, scored as written by
``milp-anon gap --score-only``); for
every release its cost, the prosecutor risk and ARX's utility metrics (``milp_anon.privacy.risk`` and
``.utility``, computed from the released table). k-map and δ-presence take the whole Adult table as the
population of the 2,000-row research subset (not run on the full table: it would be its own population).

Run: ``python -m benchmarks.arx_models [--limit S] [--only NAME]`` → ``benchmarks/results/arx_models.{md,csv}``.
One solve at a time, each in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import time

from benchmarks.common import fmt, provenance_line, run_serial, write_csv

QI = ["sex", "age", "race", "marital-status"]
#: the frontier's QIs in the order of the other Adult benchmarks (QI first)
ADULT_QI = QI + ["education", "native-country", "workclass", "salary-class"]
SENSITIVE = "occupation"
K = 5

#: anjana's function and the CLI flags of each model it implements (full-domain generalization; here with one-level
#: hierarchies value → ``*``: full-domain suppression), run in the peers' environment (``--peer-python``)
ANJANA = {"entropy-l": ("entropy_l_diversity", 3, ["--l", "3", "--l-kind", "entropy"]),
          "delta-disclosure": ("delta_disclosure", 1.2, ["--delta-disclosure", "1.2"]),
          "beta-basic": ("basic_beta_likeness", 1.0, ["--beta", "1", "--beta-kind", "basic"]),
          "beta-enhanced": ("enhanced_beta_likeness", 1.0, ["--beta", "1", "--beta-kind", "enhanced"])}

PEER = r"""
import sys, pandas as pd
import anjana.anonymity as an
src, out, fn, param, k = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
qi, sens = sys.argv[6].split(","), sys.argv[7]
data = pd.read_csv(src, sep=";", dtype=str, keep_default_na=False)
hier = {c: {0: pd.Series(sorted(set(data[c]))), 1: pd.Series(["*"] * len(set(data[c])))} for c in qi}
param = int(param) if fn == "entropy_l_diversity" else param
getattr(an, fn)(data, [], qi, sens, k, param, 0, hier).to_csv(out, sep=";", index=False)
"""

#: (name, criterion's words, the criteria beside k-anonymity, needs the population)
MODELS = [
    ("k-anonymity", "k = 5 alone", lambda pop: [], False),
    ("entropy-l", "entropy ℓ-diversity, ℓ = 3", lambda pop: [_ma().LDiversity(3, kind="entropy")], False),
    ("delta-disclosure", "δ-disclosure, δ = 1.2", lambda pop: [_ma().DeltaDisclosure(1.2)], False),
    ("beta-basic", "basic β-likeness, β = 1", lambda pop: [_ma().BetaLikeness(1.0, kind="basic")], False),
    ("beta-enhanced", "enhanced β-likeness, β = 1", lambda pop: [_ma().BetaLikeness(1.0, kind="enhanced")], False),
    ("average-risk", "average risk ≤ 0.05", lambda pop: [_ma().AverageRisk(0.05)], False),
    ("k-map", "k-map, K = 20 (population: all of Adult)", lambda pop: [_ma().KMap(20, pop)], True),
    ("delta-presence", "δ-presence in [0, 0.15] (population: all of Adult)",
     lambda pop: [_ma().DeltaPresence(0.0, 0.15, pop)], True),
]


def _ma():
    import milp_anon as ma

    return ma


def _measures(frame, released, withheld=None) -> dict:
    from milp_anon.privacy.risk import prosecutor_risk
    from milp_anon.privacy.utility import utility_metrics

    risk = prosecutor_risk(released, QI, withheld)
    util = utility_metrics(frame, released, QI, None, withheld)
    return {"risk_max": risk["max"], "risk_average": risk["average"], "records_above": risk["records_above"],
            "loss": util["loss"], "precision": util["precision"], "entropy_bits": util["non_uniform_entropy"],
            "discernibility": util["discernibility"], "aecs": util["aecs"]}


def _anjana(frame, name: str, peer_python: str) -> dict:
    """anjana's release of ``name`` on ``frame``, scored as written by ``milp-anon gap --score-only``."""
    import json
    import os
    import subprocess
    import tempfile

    from milp_anon.cli import main as cli

    fn, param, flags = ANJANA[name]
    with tempfile.TemporaryDirectory() as tmp:
        src, out, rep = (os.path.join(tmp, f) for f in ("in.csv", "anjana.csv", "r.json"))
        frame.to_csv(src, sep=";", index=False)
        t0 = time.perf_counter()
        proc = subprocess.run([peer_python, "-c", PEER, src, out, fn, str(param), str(K), ",".join(QI), SENSITIVE],
                              capture_output=True, text=True)
        seconds = round(time.perf_counter() - t0, 1)
        if proc.returncode != 0 or not os.path.exists(out):
            return {"method": "anjana 1.2.3", "status": "failed: " + proc.stderr.strip().splitlines()[-1][:80],
                    "seconds": seconds}
        cli(["gap", src, out, "--qi", ",".join(QI), "--sensitive", SENSITIVE, "--k", str(K), "--sep", ";",
            "--score-only", "--quiet", "--report", rep, *flags])
        with open(rep, encoding="utf-8") as fh:
            r = json.load(fh)
    row = {"method": "anjana 1.2.3 (full-domain)", "seconds": seconds,
           "status": "valid" if r.get("valid") else f"invalid: {r.get('violation')}"[:80], "cost": r.get("cost")}
    if r.get("valid"):
        pr, ut = r["risk"]["prosecutor"], r["utility"]
        row.update(risk_max=pr["max"], risk_average=pr["average"], records_above=pr["records_above"],
                   loss=ut["loss"], precision=ut["precision"], entropy_bits=ut["non_uniform_entropy"],
                   discernibility=ut["discernibility"], aecs=ut["aecs"])
    return row


def run(job) -> list:
    import milp_anon as ma
    from milp_anon.heuristics import mondrian, suppression_greedy
    from milp_anon.tables.datasets import load_adult

    rows_n, name, limit, peer_python, n_qi = job
    qi = ADULT_QI[:n_qi]
    whole = load_adult()
    frame = (whole if rows_n is None else whole.iloc[:rows_n]).reset_index(drop=True)
    _, words, extra, _ = next(m for m in MODELS if m[0] == name)
    criteria = [ma.KAnonymity(K), *extra(whole[qi])]
    table = ma.Table.from_frame(frame[qi + [SENSITIVE]], qi, [SENSITIVE])
    base = {"table": f"Adult {'all' if rows_n is None else f'first {rows_n:,}'}", "qis": n_qi, "model": words}
    out = []
    t0 = time.perf_counter()
    r = ma.Request(*criteria).solve(table, ma.SolverOptions(time_limit=limit))
    row = dict(base, method="milp-anon", status=str(r.status), cost=r.objective, bound=r.bound, gap=r.gap,
               seconds=round(time.perf_counter() - t0, 1))
    if r.table is not None:
        risk, util = r.risk["prosecutor"], r.utility
        row.update(risk_max=risk["max"], risk_average=risk["average"], records_above=risk["records_above"],
                   loss=util["loss"], precision=util["precision"], entropy_bits=util["non_uniform_entropy"],
                   discernibility=util["discernibility"], aecs=util["aecs"])
    out.append(row)
    if n_qi != len(QI):  # the frontier: the optimum alone
        return out
    for label, fn in (("Mondrian", lambda: mondrian(table, criteria)),
                      ("suppression greedy", lambda: suppression_greedy(table, criteria))):
        t0 = time.perf_counter()
        try:
            got = fn()
        except ma.errors.MilpAnonError as exc:  # a heuristic that cannot take this criterion
            got, why = None, str(exc)
        else:
            why = "no valid table"
        row = dict(base, method=label, seconds=round(time.perf_counter() - t0, 1))
        if got is None:
            row["status"] = why
        else:
            released, cost = got
            row.update(status="valid", cost=float(cost), **_measures(frame[QI], released[QI]))
        out.append(row)
    if peer_python and name in ANJANA:
        out.append(dict(base, **_anjana(frame[QI + [SENSITIVE]], name, peer_python)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per milp-anon solve (default 600)")
    ap.add_argument("--only", default=None, help="the models whose name contains this")
    ap.add_argument("--tables", default="2000,all", help="comma-separated: 2000 and/or all (default both)")
    ap.add_argument("--qis", type=int, default=len(QI),
                    help=f"QI count (default {len(QI)}; more: the frontier, milp-anon alone, the other Adult QIs next)")
    ap.add_argument("--peer-python", default=None,
                    help="a Python with anjana 1.2.3 (pip install anjana==1.2.3): its releases beside the others")
    ap.add_argument("--from-log", default=None, metavar="FILE",
                    help="write the result files from a run's printed rows (a run stopped before its end), "
                         "with --commit the commit it ran at")
    ap.add_argument("--commit", default=None, help="with --from-log: the commit the run was at")
    args = ap.parse_args()
    if args.from_log:
        with open(args.from_log, encoding="utf-8") as fh:
            rows = [r for line in fh if line.startswith("[") for r in json.loads(line)]
        return _write(rows, args, f"Rows of a run at commit {args.commit}, written from its log by "
                                  f"`--from-log` (the jobs after the last row did not run). ")
    jobs = []
    for t in args.tables.split(","):
        rows_n = None if t == "all" else int(t)
        for name, _, _, population in MODELS:
            if (args.only is None or args.only in name) and not (population and rows_n is None):
                jobs.append((rows_n, name, args.limit, args.peer_python, args.qis))
    rows = [r for batch in run_serial(run, jobs) for r in batch]
    _write(rows, args, provenance_line("arx_models") + ". ")


def _write(rows, args, head: str) -> None:
    """The result files of ``rows``: ``stem.csv`` and a markdown table under ``head``."""
    for r in rows:
        r.pop("tree_peak_mb", None)
    stem = "benchmarks/results/arx_models" + ("" if args.qis == len(QI) else f"_{args.qis}qi")
    write_csv(stem + ".csv", rows)
    cols = [("table", "table"), ("qis", "QIs"), ("model", "model"), ("method", "method"), ("status", "status"), ("cost", "cost"),
            ("bound", "bound"), ("gap", "gap"), ("seconds", "s"), ("risk_max", "risk max"),
            ("risk_average", "risk avg"), ("records_above", "records > 0.2"), ("loss", "loss"),
            ("precision", "precision"), ("entropy_bits", "NU entropy (bits)"),
            ("discernibility", "discernibility"), ("aecs", "AECS")]

    def cell(key, v):
        if key == "gap":
            return "–" if v is None else f"{100 * v:.3g} %"
        if key in ("risk_max", "risk_average", "loss", "precision"):
            return "–" if v is None else f"{v:.4f}"
        return fmt(v, 1) if isinstance(v, float) else fmt(v)

    with open(stem + ".md", "w") as fh:
        fh.write("# ARX's privacy models: the optimum beside heuristic releases\n\n")
        fh.write(head + f"milp-anon's limit {args.limit:.0f} s per solve, default "
                 "options; the heuristics unlimited. " + __doc__.split("\n\n")[1].replace("\n", " ") + "\n\n")
        fh.write("| " + " | ".join(h for _, h in cols) + " |\n|" + "---|" * len(cols) + "\n")
        for r in rows:
            fh.write("| " + " | ".join(cell(k, r.get(k)) for k, _ in cols) + " |\n")
    print(f"wrote {stem}.md and .csv")


if __name__ == "__main__":
    main()
