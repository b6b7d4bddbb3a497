"""Faults and load, measured (issue 94, part 4): a battery, not a timed test.

    python -m benchmarks.fault_battery [--releases 10000] [--workers 2] [--kills 16] [--concurrent 50]
                                       [--parts releases,kill,disk,load] [--out benchmarks/results/fault_battery]

Four parts, each counted, never asserted (the result file says what held):

* ``releases``: random small tables (2-60 rows, 2-4 QIs of small domains, a
  sensitive column; a share sparse, with mostly unique rows), random criteria
  (k-anonymity, p-sensitivity, frequency / distinct / recursive l-diversity,
  t-closeness with equal, ordered, hierarchical, matrix distance and a given
  reference), random recodings (suppression, hierarchies under height, lm,
  suppression and per-level weights, intervals, value sets, patterns,
  full-domain with and without hierarchies), with and without record
  suppression, a share under a tiny time limit (the heuristic fallback). Each
  release is solved through the API (every 20th expressible one through the
  CLI's ``main`` in the worker) and re-checked three ways: the package's
  verifier (``milp_anon.privacy.verify``), a check written here from the
  definitions (no package code: cells, classes, criteria, exact EMD, the
  recounted cost, full-domain levels, patterns), and pycanon (k, distinct l,
  t for equal / ordered distance) in one batched subprocess per chunk. An
  ``infeasible`` answer is checked against the all-root table (a valid
  release of every local recoding whenever the whole table meets the criteria).
* ``kill``: ``solve``, ``export`` and ``bench --resume`` as subprocesses,
  SIGKILL or SIGTERM at a moment uniform over the measured run time; then no
  partial output (absent, or complete and valid), no temporary file left in
  the output directory or in a fresh ``TMPDIR``, no process left that carries
  the run's marker (an environment variable), and ``bench --resume`` completes
  with the uninterrupted run's results.
* ``disk``: ``solve`` writing to a 64 KiB tmpfs (mounted here, unmounted after)
  that cannot hold the table: the exit code, stderr's lines, the input's and
  an earlier output's SHA-256 before and after, no partial or temporary file.
* ``load``: 50 concurrent CLI solves (20 distinct problems) started at once
  on the machine's cores; each result (status, objective) against the same
  solve run alone; no leaked process or temporary file afterwards.

Results: ``benchmarks/results/fault_battery.md`` (summary) and ``.jsonl`` (every
kill, disk and load record, one line per release cell and per finding) and
``_releases.csv`` (one line per release).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import csv
import hashlib
import io
import json
import math
import multiprocessing as mp
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from fractions import Fraction

import networkx as nx
import pandas as pd
import psutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ADULT = os.path.join(ROOT, "milp_anon", "data", "adult", "adult.csv.gz")
#: pycanon's own environment (``make test`` makes it beside ``.venv``)
PYCANON = os.environ.get("MILP_ANON_PYCANON", os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    sys.executable))), ".venv-pycanon", "bin", "python"))
PYCANON_RUNNER = os.path.join(ROOT, "tests", "pycanon_runner.py")
CLI = [sys.executable, "-m", "milp_anon"]
MARK = "FAULT_BATTERY_MARK"
STAR = "*"
#: every release without a tiny limit still has this one (a few random cases run for minutes); a release it stops
#: is still verified, and counted apart (``capped``)
SAFETY_LIMIT = 2.0
T_GRID = [0, 0.1, 0.125, 0.2, 0.25, 0.3, 1 / 3, 0.4, 0.5, 0.6, 0.75, 1]


# =====================================================================================
# part 1: random releases
# =====================================================================================

def _hierarchy(rng: random.Random, values, tag: str, extra: str | None = None) -> dict:
    """A random hierarchy ``{value: [level1, ..., '*']}`` (levels named so no name repeats across levels)."""
    leaves = list(values) + ([extra] if extra else [])
    H = rng.randint(1, 3)
    parent = {v: v for v in leaves}
    paths = {v: [] for v in leaves}
    nodes = list(leaves)
    for lvl in range(1, H):
        groups = rng.randint(1, max(1, len(nodes)))
        assign = {nd: rng.randrange(groups) for nd in nodes}
        for v in leaves:
            parent[v] = f"{tag}L{lvl}g{assign[parent[v]]}"
            paths[v].append(parent[v])
        nodes = sorted(set(parent.values()))
    for v in leaves:
        paths[v].append(STAR)
    return paths


def make_case(i: int, seed: int) -> dict:
    """The random case of release ``i``: a plain description (lists, dicts, strings)."""
    rng = random.Random(seed * 1_000_003 + i)
    rec = rng.choice(["suppression", "suppression-fd", "hier-height", "hier-lm", "hier-suppression", "hier-weights",
                      "hier-fd", "intervals", "value-sets", "patterns"])
    cells = rec in ("intervals", "value-sets")  # ranges and sets of several columns: many candidates; kept small
    sparse = rng.random() < 0.2 and not cells
    m = rng.randint(2, 3) if cells else rng.randint(2, 4)
    n = rng.randint(4, 24) if cells else rng.randint(2, 60) if rng.random() < 0.15 else rng.randint(4, 30)
    kinds = [rng.choice(["num", "cat"]) for _ in range(m)]
    qi = [f"q{c}" for c in range(m)]
    domains = []
    for kind in kinds:
        size = rng.randint(3, 6) if sparse else rng.randint(2, 3) if cells else rng.randint(2, 4)
        if kind == "num":
            domains.append([str(x) for x in sorted(rng.sample(range(0, 90), size))])
        else:
            domains.append(rng.sample(["a", "b", "c", "d", "e", "f", "g"], size))
    V = rng.randint(2, 4) if not sparse else rng.randint(3, 5)
    time_limit = rng.choice([0.001, 0.005, 0.02, 0.05]) if rng.random() < 0.12 else None
    if time_limit is not None and rng.random() < 0.5 and not cells:  # a harder table for the tiny limit
        n += 30
    rows = [[rng.choice(d) for d in domains] + [str(rng.randint(1, V))] for _ in range(n)]
    case = {"i": i, "n": n, "m": m, "sparse": sparse, "qi": qi, "kinds": kinds, "rows": rows}
    present = sorted({r[-1] for r in rows}, key=int)

    # --- recoding
    recoding = {"kind": rec}
    if rec.startswith("hier"):
        cols = [c for c in range(m) if rng.random() < 0.75] or [0]
        recoding["hierarchies"] = {qi[c]: _hierarchy(rng, sorted({r[c] for r in rows}), f"{qi[c]}.",
                                                     extra="zz" if rng.random() < 0.3 else None) for c in cols}
        recoding["cost"] = {"hier-height": "height", "hier-lm": "lm", "hier-suppression": "suppression",
                            "hier-weights": "weights", "hier-fd": rng.choice(["height", "lm"])}[rec]
        if rec == "hier-weights":
            w = {}
            for c, h in recoding["hierarchies"].items():
                H = len(next(iter(h.values())))
                steps = sorted(rng.choice([0.1, 0.25, 0.5, 0.75, 1.0, 1.5]) for _ in range(H))
                w[c] = [0.0] + steps
            recoding["weights"] = w
    elif rec == "intervals":
        nums = [qi[c] for c in range(m) if kinds[c] == "num"]
        if not nums:  # make one column numeric
            rows_num = sorted(rng.sample(range(0, 90), 3))
            for r in rows:
                r[0] = str(rng.choice(rows_num))
            kinds[0] = "num"
            nums = [qi[0]]
        recoding["intervals"] = [c for c in nums if rng.random() < 0.8] or nums[:1]
        cats = [qi[c] for c in range(m) if kinds[c] == "cat"]
        recoding["value_sets"] = [c for c in cats if rng.random() < 0.5]
    elif rec == "value-sets":
        recoding["value_sets"] = [c for c in qi if rng.random() < 0.7] or [qi[0]]
    elif rec == "patterns":
        masks = {"".join(rng.choice("01") for _ in range(m)) for _ in range(rng.randint(1, 4))}
        if rng.random() < 0.6:
            masks.add("0" * m)
        if rng.random() < 0.5:
            masks.add("1" * m)
        recoding["patterns"] = sorted(masks)
    case["recoding"] = recoding

    # --- criteria: k, and zero to two criteria on the sensitive column
    crits = [{"kind": "k", "k": rng.choice([1, 2, 2, 3, 3, 4, 5])}]
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        kind = rng.choice(["p", "l-frequency", "l-distinct", "l-recursive", "t-equal", "t-ordered",
                           "t-hierarchical", "t-matrix", "t-reference"])
        if kind == "p":
            crits.append({"kind": kind, "p": rng.randint(1, 3)})
        elif kind == "l-frequency":
            crits.append({"kind": kind, "l": rng.choice([1, 1.5, 2, 2.5, 3])})
        elif kind == "l-distinct":
            crits.append({"kind": kind, "l": rng.randint(1, 3)})
        elif kind == "l-recursive":
            crits.append({"kind": kind, "l": rng.randint(1, 3), "c": rng.choice([1, 1.5, 2, 3])})
        else:
            c = {"kind": kind, "t": rng.choice(T_GRID)}
            if kind == "t-hierarchical":
                c["hierarchy"] = _hierarchy(rng, [str(v) for v in range(1, 6)], "s.")
            elif kind == "t-matrix":
                if len(present) < 2:
                    c["kind"] = "t-equal"
                else:
                    pts = [0, 4] + [rng.randint(0, 4) for _ in present[2:]]
                    rng.shuffle(pts)
                    c["matrix"] = {a: {b: abs(pa - pb) / 4 for b, pb in zip(present, pts)}
                                   for a, pa in zip(present, pts)}
            elif kind == "t-reference":
                counts = [0] * 5
                while not any(counts):
                    counts = [rng.randint(0, 4) for _ in range(5)]
                c["reference"] = {str(v + 1): cnt for v, cnt in enumerate(counts) if cnt or rng.random() < 0.5}
                c["distance"] = rng.choice(["equal", "ordered", "hierarchical"])
                if c["distance"] == "hierarchical":
                    c["hierarchy"] = _hierarchy(rng, [str(v) for v in range(1, 6)], "s.")
            crits.append(c)
    case["criteria"] = crits
    full_domain = rec in ("suppression-fd", "hier-fd")
    sens_only_distinct = all(c["kind"] in ("k", "p", "l-distinct") for c in crits)
    case["max_suppressed_records"] = (rng.randint(0, 4) if rng.random() < 0.3
                                      and (not full_domain or sens_only_distinct) else None)
    case["time_limit"] = time_limit
    return case


def case_labels(case) -> dict:
    crit = "+".join(c["kind"] for c in case["criteria"])
    return {"criteria": crit, "recoding": case["recoding"]["kind"],
            "record_suppression": case["max_suppressed_records"] is not None,
            "time_limit": case["time_limit"] is not None}


def package_objects(case):
    """The case as the package's criteria and recoding objects."""
    import milp_anon as ma

    crits = []
    for c in case["criteria"]:
        k = c["kind"]
        if k == "k":
            crits.append(ma.KAnonymity(c["k"]))
        elif k == "p":
            crits.append(ma.PSensitivity(c["p"]))
        elif k == "l-frequency":
            crits.append(ma.LDiversity(c["l"]))
        elif k == "l-distinct":
            crits.append(ma.LDiversity(c["l"], kind="distinct"))
        elif k == "l-recursive":
            crits.append(ma.LDiversity(c["l"], kind="recursive", c=c["c"]))
        elif k == "t-equal":
            crits.append(ma.TCloseness(c["t"]))
        elif k == "t-ordered":
            crits.append(ma.TCloseness(c["t"], distance="ordered"))
        elif k == "t-hierarchical":
            crits.append(ma.TCloseness(c["t"], distance="hierarchical", hierarchy=c["hierarchy"]))
        elif k == "t-matrix":
            crits.append(ma.TCloseness(c["t"], distance=pd.DataFrame(c["matrix"]).T))
        elif k == "t-reference":
            crits.append(ma.TCloseness(c["t"], distance=c["distance"], hierarchy=c.get("hierarchy"),
                                       reference={"s": c["reference"]}))
    r = case["recoding"]
    kind = r["kind"]
    if kind in ("suppression", "suppression-fd"):
        recoding = ma.Suppression(scheme="full-domain" if kind == "suppression-fd" else "local")
    elif kind.startswith("hier"):
        cost = r["weights"] if r["cost"] == "weights" else r["cost"]
        recoding = ma.Generalization(r["hierarchies"], cost=cost,
                                     scheme="full-domain" if kind == "hier-fd" else "local")
    elif kind in ("intervals", "value-sets"):
        recoding = ma.Generalization({}, intervals=tuple(r.get("intervals", ())),
                                     value_sets=tuple(r.get("value_sets", ())))
    else:
        recoding = ma.Patterns(list(r["patterns"]))
    return crits, recoding


def frame_of(case) -> pd.DataFrame:
    return pd.DataFrame(case["rows"], columns=case["qi"] + ["s"])


def cli_expressible(case) -> bool:
    r = case["recoding"]
    if r["kind"] == "hier-weights":
        return False
    kinds = [c["kind"] for c in case["criteria"]]
    if any(k in ("t-matrix", "t-reference") for k in kinds):
        return False
    if sum(k.startswith("t-") for k in kinds) > 1 or sum(k.startswith("l-") for k in kinds) > 1 \
            or kinds.count("p") > 1:
        return False  # the CLI takes one of each flag
    return True


def solve_cli(case, work: str) -> dict:
    """Solve through ``milp_anon.cli.main`` (files in, files out); what the API returns, read back."""
    from milp_anon.cli import main

    frame = frame_of(case)
    inp = os.path.join(work, "in.csv")
    frame.to_csv(inp, sep=";", index=False)
    argv = ["solve", inp, "--sep", ";", "--qi", ",".join(case["qi"]), "--sensitive", "s",
            "--out", os.path.join(work, "out.csv"), "--report", os.path.join(work, "report.json"), "--quiet"]

    def hier_file(name, h):
        path = os.path.join(work, name)
        with open(path, "w") as fh:
            for v, p in h.items():
                fh.write(";".join([v, *p]) + "\n")
        return path

    for c in case["criteria"]:
        k = c["kind"]
        if k == "k":
            argv += ["--k", str(c["k"])]
        elif k == "p":
            argv += ["--p", str(c["p"])]
        elif k.startswith("l-"):
            argv += ["--l", str(c["l"]), "--l-kind", k[2:]] + (["--c", str(c["c"])] if "c" in c else [])
        elif k.startswith("t-"):
            argv += ["--t", repr(c["t"]), "--distance", k[2:]]
            if k == "t-hierarchical":
                argv += ["--sensitive-hierarchy", hier_file("sens_h.csv", c["hierarchy"])]
    r = case["recoding"]
    if r["kind"] == "suppression-fd":
        argv += ["--scheme", "full-domain"]
    elif r["kind"].startswith("hier"):
        for col, h in r["hierarchies"].items():
            argv += ["--hierarchy", f"{col}={hier_file(f'h_{col}.csv', h)}"]
        argv += ["--cost", r["cost"]] + (["--scheme", "full-domain"] if r["kind"] == "hier-fd" else [])
    elif r["kind"] in ("intervals", "value-sets"):
        for col in r.get("intervals", ()):
            argv += ["--interval", col]
        for col in r.get("value_sets", ()):
            argv += ["--value-set", col]
    elif r["kind"] == "patterns":
        with open(os.path.join(work, "patterns.txt"), "w") as fh:
            fh.write("\n".join(r["patterns"]) + "\n")
        argv += ["--patterns", os.path.join(work, "patterns.txt")]
    if case["max_suppressed_records"] is not None:
        argv += ["--max-suppressed-records", str(case["max_suppressed_records"])]
    argv += ["--time-limit", str(case["time_limit"] if case["time_limit"] is not None else SAFETY_LIMIT)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(argv)
    out = {"exit": code, "stderr": err.getvalue().strip()[-300:]}
    rep_path = os.path.join(work, "report.json")
    rep = json.load(open(rep_path)) if os.path.exists(rep_path) else {}
    out["status"] = rep.get("status")
    out["cost"] = rep.get("cost")
    out["source"] = rep.get("source")
    out_path = os.path.join(work, "out.csv")
    if os.path.exists(out_path):
        released = pd.read_csv(out_path, sep=";", dtype=str, keep_default_na=False)
        withheld = [w - 1 for w in rep.get("withheld_rows", [])]
        kept = [j for j in range(len(frame)) if j not in set(withheld)]
        released.index = kept
        out["table"], out["withheld"] = released, tuple(withheld)
    else:
        out["table"], out["withheld"] = None, ()
    return out


# --- the independent check: from the definitions, no package code ----------------------

def _num(text):
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        return None


def _range_of(cell):
    """``(lo, hi)`` of ``lo-hi`` (values here are non-negative integers), or of a single number."""
    if "-" in cell:
        a, _, b = cell.partition("-")
        lo, hi = _num(a), _num(b)
        return (lo, hi) if lo is not None and hi is not None and lo <= hi else None
    x = _num(cell)
    return None if x is None else (x, x)


def _exact_t(t) -> Fraction:
    return Fraction(str(t)).limit_denominator(10**6)


def emd_flow(P: dict, Q: dict, dist) -> Fraction:
    """The earth mover's distance between ``P`` and ``Q`` (dicts of Fractions over one domain) under the ground
    distance ``dist(a, b)`` (Fractions): an integer min-cost flow after scaling, so exact."""
    dom = sorted(set(P) | set(Q))
    scale = math.lcm(*[x.denominator for x in list(P.values()) + list(Q.values())])
    dscale = math.lcm(*[dist(a, b).denominator for a in dom for b in dom])
    g = nx.DiGraph()
    for a in dom:
        g.add_node(("p", a), demand=-int(P.get(a, 0) * scale))
        g.add_node(("q", a), demand=int(Q.get(a, 0) * scale))
    for a in dom:
        for b in dom:
            g.add_edge(("p", a), ("q", b), weight=int(dist(a, b) * dscale))
    cost = nx.min_cost_flow_cost(g)
    return Fraction(cost, scale * dscale)


def independent_check(case, table, withheld, status, cost) -> list[str]:
    """Every way the release breaks the case's definitions (an empty list: none)."""
    bad = []
    frame = frame_of(case)
    qi, n = case["qi"], len(frame)
    rec = case["recoding"]
    kind = rec["kind"]
    withheld = sorted(withheld)
    limit = case["max_suppressed_records"] or 0
    if len(withheld) > limit:
        bad.append(f"{len(withheld)} withheld records, at most {limit}")
    kept = [j for j in range(n) if j not in set(withheld)]
    if sorted(table.index.tolist()) != kept:
        return bad + ["released rows are not the input's rows minus the withheld"]
    if list(table.columns) != list(frame.columns):
        return bad + ["columns differ"]
    if not (table["s"].astype(str).to_numpy() == frame.loc[kept, "s"].to_numpy()).all():
        bad.append("the sensitive column changed")
    hiers = rec.get("hierarchies", {})
    full_paths = {c: {v: [v, *p] for v, p in h.items()} for c, h in hiers.items()}
    total = 0 * Fraction(1)
    levels = {c: set() for c in qi}
    for j in kept:
        for c in qi:
            v, cell = frame.at[j, c], str(table.at[j, c])
            if kind == "patterns":
                ok = cell in (v, STAR)
                cst = Fraction(cell == STAR)
            elif c in full_paths:
                path = full_paths[c][v]
                ok = cell in path
                H = len(path) - 1
                lvl = path.index(cell) if ok else None
                if ok:
                    levels[c].add(lvl)
                    under = [w for w, p in full_paths[c].items() if p[lvl] == cell]
                    if rec["cost"] == "weights":
                        cst = Fraction(str(rec["weights"][c][lvl]))
                    elif rec["cost"] == "height":
                        cst = Fraction(lvl, H)
                    elif rec["cost"] == "suppression":
                        cst = Fraction(lvl == H)
                    else:  # lm
                        tot = len(full_paths[c])
                        cst = Fraction(len(under) - 1, tot - 1) if tot > 1 else Fraction(lvl > 0)
            elif c in rec.get("intervals", ()):
                col = [_num(x) for x in frame[c]]
                lo_all, hi_all = min(col), max(col)
                x = _num(v)
                if cell == STAR:
                    ok, cst = True, Fraction(1)
                else:
                    rg = _range_of(cell)
                    ok = rg is not None and rg[0] <= x <= rg[1]
                    if ok:
                        span = hi_all - lo_all
                        cst = (min(rg[1], hi_all) - max(rg[0], lo_all)) / span if span else Fraction(0)
            elif c in rec.get("value_sets", ()):
                dom = set(frame[c])
                if cell == STAR:
                    ok, cst = True, Fraction(1)
                else:
                    members = {x.strip() for x in cell.split(",")}
                    ok = v in members and members <= dom
                    if ok:
                        cst = Fraction(len(members) - 1, len(dom) - 1) if len(dom) > 1 else Fraction(0)
            else:
                ok = cell in (v, STAR)
                cst = Fraction(cell == STAR)
                levels[c].add(int(cell == STAR))
            if not ok:
                bad.append(f"row {j} column {c}: {cell!r} does not hold {v!r}")
                return bad
            total += cst
    for _ in withheld:  # each withheld record costs all its QI cells: the root's cost
        for c in qi:
            if c in full_paths and rec["cost"] == "weights":
                total += Fraction(str(rec["weights"][c][-1]))
            else:
                total += 1
    if cost is not None and abs(float(total) - float(cost)) > 1e-6 * max(1.0, float(total)):
        bad.append(f"claimed cost {cost}, recounted {float(total)}")
    if kind in ("suppression-fd", "hier-fd"):
        for c in qi:
            if len(levels[c]) > 1:
                bad.append(f"full-domain column {c} at levels {sorted(levels[c])}")
    if kind == "patterns" and kept:
        allowed = {p for p in rec["patterns"]}
        for j in kept:
            sig = "".join("0" if str(table.at[j, c]) == STAR else "1" for c in qi)
            if sig not in allowed and not any(  # an input cell that is itself '*' cannot be told apart
                    frame.at[j, c] == STAR for c in qi):
                bad.append(f"row {j} suppresses {sig}, no pattern")
                break
    # classes of the released (kept) rows
    classes = collections.defaultdict(list)
    for j in kept:
        classes[tuple(str(table.at[j, c]) for c in qi)].append(frame.at[j, "s"])
    whole = collections.Counter(frame["s"])
    for crit in case["criteria"]:
        for vals in classes.values():
            msg = check_class(crit, vals, whole, n)
            if msg:
                bad.append(msg)
                break
    return bad


def check_class(crit, vals, whole, n) -> str | None:
    """Whether one class (its sensitive values) meets one criterion; ``whole``: the input's value counts."""
    k = crit["kind"]
    cnt = collections.Counter(vals)
    g = len(vals)
    if k == "k":
        return None if g >= crit["k"] else f"a class of {g} < k={crit['k']}"
    if k == "p" or k == "l-distinct":
        need = crit.get("p", crit.get("l"))
        return None if len(cnt) >= need else f"{len(cnt)} distinct < {need} ({k})"
    if k == "l-frequency":
        return None if max(cnt.values()) * _exact_t(crit["l"]) <= g else f"frequency l={crit['l']} broken"
    if k == "l-recursive":
        r = sorted(cnt.values(), reverse=True)
        ok = Fraction(r[0]) < _exact_t(crit["c"]) * sum(r[crit["l"] - 1:])
        return None if ok else f"recursive ({crit['c']},{crit['l']}) broken: {r}"
    # t-closeness
    ref = crit.get("reference")
    base = {v: c for v, c in (ref or whole).items()}
    N = sum(base.values())
    dom = sorted(set(whole) | set(base), key=int)
    P = {v: Fraction(base.get(v, 0), N) for v in dom}
    Q = {v: Fraction(cnt.get(v, 0), g) for v in dom}
    distance = crit.get("distance") or k[2:]
    if distance == "equal":
        emd = sum(abs(P[v] - Q[v]) for v in dom) / 2
    elif distance == "ordered":
        acc, s = Fraction(0), Fraction(0)
        for v in dom:
            acc += P[v] - Q[v]
            s += abs(acc)
        emd = s / (len(dom) - 1) if len(dom) > 1 else Fraction(0)
    elif distance == "hierarchical":
        h = crit["hierarchy"]
        H = len(next(iter(h.values())))

        def dist(a, b):
            if a == b:
                return Fraction(0)
            pa, pb = h[a], h[b]
            lca = next(i for i in range(H) if pa[i] == pb[i]) + 1
            return Fraction(lca, H)

        emd = emd_flow(P, Q, dist)
    else:  # matrix
        mat = crit["matrix"]
        emd = emd_flow(P, Q, lambda a, b: Fraction(str(mat[a][b])))
    t = _exact_t(crit["t"])
    return None if emd <= t else f"a class at EMD {float(emd):.6g} > t={crit['t']} ({k})"


def all_root_feasible(case) -> bool:
    """Whether the all-root table (one class of every row) meets every criterion: then it is a valid release of
    every local recoding (patterns: when the all-suppress pattern is offered; full-domain: the top node)."""
    if case["recoding"]["kind"] == "patterns" and "0" * case["m"] not in case["recoding"]["patterns"]:
        return False
    frame = frame_of(case)
    vals = frame["s"].tolist()
    whole = collections.Counter(vals)
    return all(check_class(c, vals, whole, len(vals)) is None for c in case["criteria"])


def all_root_cost(case) -> Fraction:
    rec = case["recoding"]
    if rec.get("cost") == "weights":
        return sum(Fraction(str(rec["weights"][c][-1])) if c in rec["weights"] else Fraction(1)
                   for c in case["qi"]) * case["n"]
    return Fraction(case["m"] * case["n"])


def run_release(job):
    """Solve one random case and check the release; a record (and a pycanon job, when one applies)."""
    i, seed, work_root, via_cli_every = job
    import milp_anon as ma
    from milp_anon.privacy.verify import root_names, verify_options, verify_release
    from milp_anon.runtime.errors import MilpAnonError

    case = make_case(i, seed)
    rec = {"i": i, **case_labels(case), "n": case["n"], "m": case["m"], "sparse": case["sparse"]}
    work = os.path.join(work_root, f"r{i}")
    os.makedirs(work, exist_ok=True)
    try:
        crits, recoding = package_objects(case)
        frame = frame_of(case)
        t0 = time.perf_counter()
        rec["via"] = "cli" if cli_expressible(case) and i % via_cli_every == 0 else "api"
        if rec["via"] == "cli":
            out = solve_cli(case, work)
            status, cost, source, table, withheld = (out["status"], out["cost"], out["source"], out["table"],
                                                     out["withheld"])
            rec["exit"] = out["exit"]
            if out["exit"] not in (0, 3, 4):
                rec["error"] = out["stderr"]
        else:
            kw = {}
            if case["max_suppressed_records"] is not None:
                kw["max_suppressed_records"] = case["max_suppressed_records"]
            kw["time_limit"] = case["time_limit"] if case["time_limit"] is not None else SAFETY_LIMIT
            r = ma.anonymize(ma.Table.from_frame(frame, case["qi"], "s"), *crits, recoding=recoding, **kw)
            status, cost, source, table, withheld = str(r.status), r.cost, r.source, r.table, tuple(r.withheld)
        rec["seconds"] = round(time.perf_counter() - t0, 3)
    except MilpAnonError as exc:
        rec.update(status="error", error=f"{type(exc).__name__}: {exc}"[:300])
        return rec, None
    except Exception as exc:
        rec.update(status="crash", error=f"{type(exc).__name__}: {exc}"[:300], trace=traceback.format_exc(limit=4))
        return rec, None
    rec.update(status=status, source=source, cost=cost, withheld=len(withheld))
    rec["fallback"] = source not in (None, "solver")
    rec["capped"] = case["time_limit"] is None and status in ("time_limit", "no_solution")
    violations = []
    pyjob = None
    if table is None:
        if status not in ("infeasible", "no_solution"):
            violations.append(f"status {status} without a table")
        if status == "infeasible" and all_root_feasible(case) and case["recoding"]["kind"] != "patterns":
            violations.append("infeasible, but the all-root table meets every criterion")
        if status == "infeasible" and case["recoding"]["kind"] == "patterns" and all_root_feasible(case):
            violations.append("infeasible, but the all-suppress pattern's table meets every criterion")
    else:
        # the package's own verifier, on the full table (withheld records written at the root)
        try:
            full = frame.copy()
            full.loc[list(table.index), case["qi"]] = table[case["qi"]].astype(str).to_numpy()
            mask = [j in set(withheld) for j in range(len(frame))]
            roots = root_names(case["qi"], recoding)
            for j in withheld:
                for c in case["qi"]:
                    full.at[j, c] = roots[c]
            v = verify_release(frame, full, case["qi"], crits, sensitive=["s"], claimed_cost=cost,
                               recoding=recoding, withheld=mask if withheld else None)
            verify_options(frame, full, case["qi"], v, max_withheld=case["max_suppressed_records"])
            rec["verifier"] = "ok"
        except Exception as exc:
            rec["verifier"] = f"FAIL {exc}"[:300]
            violations.append("verifier: " + str(exc)[:200])
        bad = independent_check(case, table, withheld, status, cost)
        rec["independent"] = "ok" if not bad else "FAIL " + "; ".join(bad)[:300]
        violations += ["independent: " + b for b in bad]
        if status == "optimal" and all_root_feasible(case) and case["recoding"]["kind"] != "patterns" \
                and cost is not None and Fraction(cost).limit_denominator(10**6) > all_root_cost(case):
            violations.append(f"optimal {cost} above the all-root table's {float(all_root_cost(case))}")
        # pycanon: k, distinct l (a lower bound on every l kind), t with the default equal / ordered distance
        if len(table):
            ts = [c for c in case["criteria"] if c["kind"] in ("t-equal", "t-ordered")]
            path = os.path.join(work, "pycanon.csv")
            table[case["qi"] + ["s"]].to_csv(path, sep=";", index=False)
            pyjob = {"csv": path, "sep": ";", "qi": case["qi"], "sensitive": "s",
                     # pycanon's ordered EMD divides by (values - 1): one value is a ZeroDivisionError there
                     "numeric": bool(ts and ts[0]["kind"] == "t-ordered" and table["s"].nunique() > 1), "i": i,
                     "k": max(c["k"] for c in case["criteria"] if c["kind"] == "k"),
                     "l": max([c.get("p", 0) for c in case["criteria"] if c["kind"] == "p"]
                              + [math.ceil(c["l"]) for c in case["criteria"] if c["kind"].startswith("l-")] + [1]),
                     "t": (ts[0]["t"] if ts and not withheld else None)}
    rec["violations"] = violations
    return rec, pyjob


def run_pycanon(jobs, work) -> dict:
    """pycanon's k, l, t of every job's table, in one subprocess: ``{i: result}``; should pycanon fail on the
    batch, each job alone (a failing one: ``{"error": ...}``)."""
    spec = os.path.join(work, f"pycanon_{jobs[0]['i']}.json")
    with open(spec, "w") as fh:
        json.dump(jobs, fh)
    proc = subprocess.run([PYCANON, PYCANON_RUNNER, spec], capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        if len(jobs) == 1:
            return {jobs[0]["i"]: {"error": proc.stderr.strip().splitlines()[-1][:200]}}
        out = {}
        for job in jobs:
            out.update(run_pycanon([job], work))
        return out
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return {job["i"]: res for job, res in zip(jobs, got)}


def part_releases(n_releases, workers, seed, log) -> tuple[list, dict]:
    work = tempfile.mkdtemp(prefix="fb_releases_")
    jobs = [(i, seed, work, 20) for i in range(n_releases)]
    records, pyjobs = [], []
    t0 = time.time()
    ctx = mp.get_context("forkserver")
    with ctx.Pool(workers, maxtasksperchild=200) as pool:
        for done, (rec, pyjob) in enumerate(pool.imap_unordered(run_release, jobs, chunksize=4), 1):
            records.append(rec)
            if pyjob:
                pyjobs.append(pyjob)
            if done % 500 == 0:
                log(f"  releases: {done}/{n_releases} in {time.time() - t0:.0f} s")
    solve_seconds = time.time() - t0
    # pycanon, batched (its own venv), chunks of 1000 tables
    t1 = time.time()
    by_i = {r["i"]: r for r in records}
    pyjobs.sort(key=lambda j: j["i"])
    for start in range(0, len(pyjobs), 1000):
        chunk = pyjobs[start:start + 1000]
        res = run_pycanon([{k: j[k] for k in ("csv", "sep", "qi", "sensitive", "numeric")} | {"i": j["i"]}
                           for j in chunk], work)
        for j in chunk:
            got = res[j["i"]]
            r = by_i[j["i"]]
            if "error" in got:
                r["pycanon"] = "pycanon error: " + got["error"]
                continue
            r["pycanon"] = "ok"
            problems = []
            if got["k"] < j["k"]:
                problems.append(f"pycanon k={got['k']} < {j['k']}")
            if got["l"] < j["l"]:
                problems.append(f"pycanon l={got['l']} < {j['l']}")
            if j["t"] is not None and got["t"] > j["t"] + 1e-9:
                problems.append(f"pycanon t={got['t']:.6g} > {j['t']}")
            if problems:
                r["pycanon"] = "FAIL " + "; ".join(problems)
                r["violations"] = r["violations"] + ["pycanon: " + p for p in problems]
            r["pycanon_t"] = j["t"] is not None
    shutil.rmtree(work, ignore_errors=True)
    meta = {"releases_seconds": round(solve_seconds), "pycanon_seconds": round(time.time() - t1),
            "pycanon_tables": len(pyjobs)}
    log(f"  releases: {len(records)} solved and checked in {solve_seconds:.0f} s; pycanon {len(pyjobs)} tables "
        f"in {time.time() - t1:.0f} s")
    return records, meta



# =====================================================================================
# common: a marked subprocess, what it leaves behind
# =====================================================================================

def marked_env(tmpdir: str, mark: str) -> dict:
    env = dict(os.environ)
    env.update(TMPDIR=tmpdir, PYTHONPATH=ROOT + os.pathsep + env.get("PYTHONPATH", ""), **{MARK: mark})
    return env


def marked_processes(mark: str) -> list:
    """Live processes whose environment carries ``MARK=mark`` (the run's and every descendant's)."""
    found = []
    for p in psutil.process_iter(["pid"]):
        try:
            if p.environ().get(MARK) == mark and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def leaks(mark: str, waits=(2.0, 6.0)) -> dict:
    """Processes still alive ``waits`` seconds after the run ended (then ended by pid: they are ours)."""
    out = {"leaked_after_2s": 0, "leaked_after_6s": 0}
    t0 = time.time()
    for w in waits:
        time.sleep(max(0.0, t0 + w - time.time()))
        procs = marked_processes(mark)
        out[f"leaked_after_{w:g}s"] = len(procs)
        out.setdefault("leaked_cmd", [" ".join(p.cmdline())[:160] for p in procs][:3])
    for p in marked_processes(mark):
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    return out


def files_under(d: str) -> list[str]:
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs) + \
        sorted(os.path.relpath(os.path.join(r, x), d) + "/" for r, xs, _ in os.walk(d) for x in xs)


def run_marked(cmd, *, cwd, tmpdir, sig=None, after=None, timeout=600, waits=(2.0, 6.0)) -> dict:
    """Run ``cmd`` (a fresh ``TMPDIR``, a unique marker); with ``sig``, send it to the process ``after`` seconds.
    The exit code, wall time, stderr, and the leaks."""
    mark = uuid.uuid4().hex
    os.makedirs(tmpdir, exist_ok=True)
    err_path = os.path.join(tmpdir, "..", f"stderr_{mark}.txt")
    t0 = time.time()
    with open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=marked_env(tmpdir, mark), stdout=subprocess.DEVNULL, stderr=err)
        sent = None
        if sig is not None:
            try:
                proc.wait(timeout=after)
            except subprocess.TimeoutExpired:
                proc.send_signal(sig)
                sent = time.time() - t0
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = "hung (killed)"
            proc.wait()
    rec = {"exit": code, "seconds": round(time.time() - t0, 2), "signal_sent_at": None if sent is None
           else round(sent, 2)}
    with open(err_path) as fh:
        rec["stderr"] = [ln for ln in fh.read().splitlines() if ln.strip()]
    os.unlink(err_path)
    rec.update(leaks(mark, waits))
    rec["tmpdir_left"] = files_under(tmpdir)
    return rec


def sha(path: str) -> str | None:
    if not os.path.exists(path):
        return None
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


# =====================================================================================
# part 2: kill -9 and SIGTERM at random moments
# =====================================================================================

SOLVE_QI = "sex,age,race,marital-status"


def solve_cmd(out_dir, isolate):
    return CLI + ["solve", ADULT, "--sep", ";", "--qi", SOLVE_QI, "--k", "5", "--sensitive", "occupation",
                  "--out", os.path.join(out_dir, "out.csv"), "--report", os.path.join(out_dir, "report.json"),
                  "--quiet", "--time-limit", "60"] + (["--isolate", "always"] if isolate else [])


def check_solve_outputs(out_dir) -> dict:
    """Absent, or complete and valid: the table passes the verifier, the report parses, both or neither."""
    from milp_anon.privacy.criteria import KAnonymity
    from milp_anon.privacy.verify import verify_release
    from milp_anon.tables.table import read_csv

    names = sorted(os.listdir(out_dir))
    final = [f for f in names if f in ("out.csv", "report.json")]
    rec = {"outputs": final, "temp_left": [f for f in names if f not in ("out.csv", "report.json")], "partial": []}
    if len(final) == 1:
        rec["partial"].append(f"only {final[0]} (all or none)")
    if "report.json" in final:
        try:
            rep = json.load(open(os.path.join(out_dir, "report.json")))
            if rep.get("status") != "optimal":
                rec["partial"].append(f"report status {rep.get('status')}")
            rec["objective"] = rep.get("objective")
        except ValueError as exc:
            rec["partial"].append(f"report.json does not parse: {exc}")
    if "out.csv" in final:
        try:
            original = read_csv(ADULT, ";")
            released = read_csv(os.path.join(out_dir, "out.csv"), ";")
            v = verify_release(original, released, SOLVE_QI.split(","), [KAnonymity(5)], sensitive=["occupation"])
            if rec.get("objective") is not None and abs(v.cost - rec["objective"]) > 1e-6:
                rec["partial"].append(f"table costs {v.cost}, report says {rec['objective']}")
        except Exception as exc:
            rec["partial"].append(f"out.csv fails: {str(exc)[:200]}")
    return rec


EXPORT_SUITE = """[suite]
name = "fb_export"
time_limit = 10
workers = 1

[[instance]]
kind = "synthetic"
n = [12, 16, 20]
m = 3
alphabet = 3
seed = 0
k = 3

[[instance]]
kind = "adult"
qi = ["sex", "age", "race", "marital-status"]
qi_count = 4
rows = 3000
k = [2, 5]

[[method]]
name = "milp"
"""

BENCH_SUITE = """[suite]
name = "fb_bench"
time_limit = 20
workers = 2

[[instance]]
kind = "synthetic"
n = [10, 12, 14]
m = 3
alphabet = 2
seed = 0
k = [2, 3]

[[method]]
name = "milp"
[[method]]
name = "brute_force"
max_rows = 12
[[method]]
name = "greedy"
[[method]]
name = "mondrian"
"""


def check_export_outputs(out_dir, reference) -> dict:
    """Every file final and complete (an MPS equal to the uninterrupted export's, a sidecar that parses, an index
    whose rows name complete files); anything else is a temporary file left."""
    names = sorted(os.listdir(out_dir))
    rec = {"outputs": [], "temp_left": [], "partial": []}
    for f in names:
        path = os.path.join(out_dir, f)
        if f.endswith(".part") or ".part." in f or f.startswith("."):
            rec["temp_left"].append(f)
        elif f.endswith(".mps"):
            rec["outputs"].append(f)
            if sha(path) != reference.get(f):
                rec["partial"].append(f"{f} differs from the uninterrupted export's")
        elif f.endswith(".json"):
            rec["outputs"].append(f)
            try:
                side = json.load(open(path))
                if "file" in side and side.get("sha256") != reference.get(side["file"]):
                    rec["partial"].append(f"{f}: sha256 of {side['file']} differs")
            except ValueError:
                rec["partial"].append(f"{f} does not parse")
        elif f == "index.csv":
            rec["outputs"].append(f)
            with open(path, newline="") as fh:
                rows = list(csv.DictReader(fh))
            for r in rows:
                if r.get("sha256") != reference.get(r.get("file")) or not os.path.exists(os.path.join(out_dir, r["file"])):
                    rec["partial"].append(f"index row {r.get('name')} names no complete file")
        else:
            rec["temp_left"].append(f)
    return rec


def bench_results(out_dir) -> dict | None:
    path = os.path.join(out_dir, "results.json")
    if not os.path.exists(path):
        return None
    rows = json.load(open(path))["rows"]
    return {f"{r['instance']}|{r['method']}|{r['rep']}": (r["status"], r["cost"]) for r in rows}


def check_bench_outputs(out_dir) -> dict:
    rec = {"outputs": sorted(os.listdir(out_dir)), "partial": [], "temp_left": []}
    for f in rec["outputs"]:
        path = os.path.join(out_dir, f)
        if f == "results.csv":
            with open(path, newline="") as fh:
                text = fh.read()
            rows = list(csv.reader(io.StringIO(text)))
            if text and not text.endswith("\n"):
                rec["partial"].append("results.csv ends inside a row")
            if rows and any(len(r) != len(rows[0]) for r in rows[1:]):
                rec["partial"].append("results.csv has a short row")
        elif f == "results.json":
            try:
                json.load(open(path))
            except ValueError:
                rec["partial"].append("results.json does not parse")
        elif f == "report.md":
            with open(path) as fh:
                if not fh.read().rstrip().endswith(("|", ".", ")")):
                    rec["partial"].append("report.md looks cut")
        elif f.endswith((".png", ".svg")):
            pass
        else:
            rec["temp_left"].append(f)
    return rec


def part_kill(n_per, n_bench, seed, log) -> list[dict]:
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="fb_kill_")
    records = []
    # the uninterrupted runs: their times (the kills are uniform over them) and results
    ref = {}
    d = os.path.join(work, "ref_solve")
    os.makedirs(d)
    r = run_marked(solve_cmd(d, False), cwd=work, tmpdir=os.path.join(work, "tmp_ref_solve"))
    ref["solve"] = {"seconds": r["seconds"], **check_solve_outputs(d)}
    d = os.path.join(work, "ref_solve_iso")
    os.makedirs(d)
    r = run_marked(solve_cmd(d, True), cwd=work, tmpdir=os.path.join(work, "tmp_ref_iso"))
    ref["solve_isolated"] = {"seconds": r["seconds"], **check_solve_outputs(d)}
    with open(os.path.join(work, "export.toml"), "w") as fh:
        fh.write(EXPORT_SUITE)
    with open(os.path.join(work, "bench.toml"), "w") as fh:
        fh.write(BENCH_SUITE)
    d = os.path.join(work, "ref_export")
    r = run_marked(CLI + ["export", "export.toml", "--dir", d, "--time-limit", "10"], cwd=work,
                   tmpdir=os.path.join(work, "tmp_ref_export"))
    export_ref = {f: sha(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".mps")}
    ref["export"] = {"seconds": r["seconds"], "exit": r["exit"], "files": len(os.listdir(d))}
    d = os.path.join(work, "ref_bench")
    r = run_marked(CLI + ["bench", "bench.toml", "--out", d, "--resume"], cwd=work,
                   tmpdir=os.path.join(work, "tmp_ref_bench"))
    bench_ref = bench_results(d)
    ref["bench"] = {"seconds": r["seconds"], "exit": r["exit"], "runs": len(bench_ref or {}),
                    "leaked_after_6s": r["leaked_after_6s"], "tmpdir_left": r["tmpdir_left"]}
    log(f"  kill: reference runs {json.dumps({k: v.get('seconds') for k, v in ref.items()})}")
    records.append({"part": "kill", "kind": "reference", **ref})

    trials = []
    for j in range(n_per):
        trials.append(("solve", signal.SIGKILL if j % 2 == 0 else signal.SIGTERM, j % 4 >= 2))
        trials.append(("export", signal.SIGKILL if j % 2 == 0 else signal.SIGTERM, False))
    for j in range(n_bench):
        trials.append(("bench", signal.SIGKILL if j % 2 == 0 else signal.SIGTERM, False))
    rng.shuffle(trials)
    for t, (command, sig, isolate) in enumerate(trials):
        d = os.path.join(work, f"t{t}_{command}")
        tmp = os.path.join(work, f"tmp_t{t}")
        os.makedirs(d)
        if command == "solve":
            total = ref["solve_isolated" if isolate else "solve"]["seconds"]
            cmd = solve_cmd(d, isolate)
        elif command == "export":
            total, cmd = ref["export"]["seconds"], CLI + ["export", "export.toml", "--dir", d, "--time-limit", "10"]
        else:
            total, cmd = ref["bench"]["seconds"], CLI + ["bench", "bench.toml", "--out", d, "--resume"]
        after = rng.uniform(0, 0.95 * total)  # uniform over the run (5 % off: runs vary)
        r = run_marked(cmd, cwd=work, tmpdir=tmp, sig=sig, after=after)
        rec = {"part": "kill", "command": command + (" --isolate always" if isolate else ""),
               "signal": signal.Signals(sig).name, "at": round(after, 2), "of": total, **r}
        rec["killed"] = r["signal_sent_at"] is not None
        if command == "solve":
            rec.update(check_solve_outputs(d))
            rec["result_same"] = rec.get("objective") in (None, ref["solve"].get("objective"))
        elif command == "export":
            rec.update(check_export_outputs(d, export_ref))
        else:
            rec.update(check_bench_outputs(d))
            # resume to the end; the same results as the uninterrupted run
            r2 = run_marked(CLI + ["bench", "bench.toml", "--out", d, "--resume"], cwd=work, tmpdir=tmp + "_resume",
                            waits=(2.0,))
            got = bench_results(d)
            rec["resume_exit"] = r2["exit"]
            rec["resume_leaked"] = r2["leaked_after_2s"]
            rec["resume_tmpdir_left"] = r2["tmpdir_left"]
            diff = sorted(k for k in set(bench_ref) | set(got or {}) if (got or {}).get(k) != bench_ref.get(k))
            rec["result_same"] = got is not None and not diff
            rec["result_diff"] = [f"{k}: {(got or {}).get(k)} vs {bench_ref.get(k)}" for k in diff][:5]
        records.append(rec)
        log(f"  kill {t + 1}/{len(trials)}: {rec['command']} {rec['signal']} at {after:.1f}/{total:.1f} s -> "
            f"exit {rec['exit']}, partial {rec['partial']}, temp {rec['temp_left']}, tmpdir {rec['tmpdir_left']}, "
            f"leaked {rec['leaked_after_6s']}" + (f", resume same {rec['result_same']}" if command == "bench" else ""))
    shutil.rmtree(work, ignore_errors=True)
    return records


# =====================================================================================
# part 3: a full disk during the final write
# =====================================================================================

def part_disk(log) -> list[dict]:
    work = tempfile.mkdtemp(prefix="fb_disk_")
    disk = os.path.join(work, "disk")
    os.makedirs(disk)
    records = []
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        log(f"  disk: cannot mount a tmpfs: {mounted.stderr.strip()}")
        return [{"part": "disk", "error": mounted.stderr.strip()}]
    try:
        small = os.path.join(work, "small.csv")
        with open(small, "w") as fh:
            fh.write("a,b,s\n" + "".join(f"{x},{y},{z}\n" for x, y, z in
                                         [("1", "x", "p"), ("1", "y", "q"), ("2", "x", "p"), ("2", "y", "q")]))
        # an earlier output in the disk: a small solve's table and report, at the paths the big solve targets
        earlier = run_marked(CLI + ["solve", small, "--qi", "a,b", "--k", "2", "--out", os.path.join(disk, "out.csv"),
                                    "--report", os.path.join(disk, "report.json"), "--quiet"],
                             cwd=work, tmpdir=os.path.join(work, "tmp0"))
        cases = [
            ("table and report over the earlier output's paths", ["--out", "out.csv", "--report", "report.json"],
             True),
            ("a new table beside the earlier output, report elsewhere", ["--out", "new.csv", "--report",
                                                                          "@report.json"], True),
            ("a new table, messages on (no --quiet)", ["--out", "new2.csv"], False),
            ("control: the table to stdout, only the report (24 KB, fits) to the disk", ["--out", "-", "--report",
                                                                                       "rep2.json"], True),
        ]
        input_hash = sha(ADULT)
        for name, outs, quiet in cases:
            before = {f: sha(os.path.join(disk, f)) for f in os.listdir(disk)}
            args = []
            for a in outs:
                args.append(os.path.join(work, a[1:]) if a.startswith("@") else
                            a if a.startswith("--") or a == "-" else os.path.join(disk, a))
            cmd = CLI + ["solve", ADULT, "--sep", ";", "--qi", SOLVE_QI, "--k", "5", "--sensitive", "occupation",
                         *args] + (["--quiet"] if quiet else [])
            r = run_marked(cmd, cwd=work, tmpdir=os.path.join(work, f"tmp_{len(records)}"))
            after = {f: sha(os.path.join(disk, f)) for f in os.listdir(disk)}
            rec = {"part": "disk", "case": name, "exit": r["exit"], "stderr": r["stderr"],
                   "stderr_lines": len(r["stderr"]), "traceback": any("Traceback" in ln for ln in r["stderr"]),
                   "input_intact": sha(ADULT) == input_hash,
                   "earlier_intact": all(after.get(f) == h for f, h in before.items()),
                   "new_files": sorted(set(after) - set(before)),
                   "report_elsewhere_written": os.path.exists(os.path.join(work, "report.json")),
                   "leaked_after_6s": r["leaked_after_6s"], "tmpdir_left": r["tmpdir_left"],
                   "earlier_exit": earlier["exit"]}
            records.append(rec)
            log(f"  disk: {name}: exit {rec['exit']}, stderr {rec['stderr']}, earlier intact {rec['earlier_intact']}, "
                f"new files {rec['new_files']}")
        # a disk already full before the solve: the output check refuses before any work
        filler = os.path.join(disk, "filler")
        with contextlib.suppress(OSError), open(filler, "wb") as fh:
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
        before = {f: sha(os.path.join(disk, f)) for f in os.listdir(disk) if f != "filler"}
        r = run_marked(CLI + ["solve", ADULT, "--sep", ";", "--qi", SOLVE_QI, "--k", "5", "--out",
                              os.path.join(disk, "out.csv"), "--quiet"], cwd=work,
                       tmpdir=os.path.join(work, "tmp_full"))
        after = {f: sha(os.path.join(disk, f)) for f in os.listdir(disk) if f != "filler"}
        rec = {"part": "disk", "case": "the disk full before the solve (earlier out.csv at the path)",
               "exit": r["exit"], "stderr": r["stderr"], "stderr_lines": len(r["stderr"]),
               "traceback": any("Traceback" in ln for ln in r["stderr"]), "input_intact": sha(ADULT) == input_hash,
               "earlier_intact": before == {f: after.get(f) for f in before},
               "new_files": sorted(set(after) - set(before)), "seconds": r["seconds"],
               "leaked_after_6s": r["leaked_after_6s"], "tmpdir_left": r["tmpdir_left"]}
        records.append(rec)
        log(f"  disk: {rec['case']}: exit {rec['exit']}, stderr {rec['stderr']}, new files {rec['new_files']}")
    finally:
        subprocess.run(["umount", disk], check=False)
        shutil.rmtree(work, ignore_errors=True)
    return records


# =====================================================================================
# part 4: 50 concurrent CLI solves
# =====================================================================================

LOAD_CONFIGS = [("sex,age,race", "5", []), ("sex,age,marital-status", "3", []), ("age,race,marital-status", "10", []),
                ("sex,age,race,marital-status", "5", []), ("sex,race,marital-status,education", "2", ["--p", "2"])]


def part_load(n_concurrent, log) -> list[dict]:
    from milp_anon.tables.table import read_csv

    work = tempfile.mkdtemp(prefix="fb_load_")
    adult = read_csv(ADULT, ";")
    inputs = []
    for s, step in enumerate((7, 9, 11, 13)):
        path = os.path.join(work, f"adult_{step}.csv")
        adult.iloc[s::step].to_csv(path, sep=";", index=False)
        inputs.append(path)
    problems = [(inp, qi, k, extra) for inp in inputs for qi, k, extra in LOAD_CONFIGS]

    def cmd(p, d):
        inp, qi, k, extra = p
        return CLI + ["solve", inp, "--sep", ";", "--qi", qi, "--k", k, "--sensitive", "occupation", *extra,
                      "--out", os.path.join(d, "out.csv"), "--report", os.path.join(d, "report.json"), "--quiet"]

    def result(d):
        path = os.path.join(d, "report.json")
        if not os.path.exists(path):
            return None
        rep = json.load(open(path))
        return rep["status"], rep["objective"]

    alone = []
    t0 = time.time()
    for j, p in enumerate(problems):
        d = os.path.join(work, f"alone{j}")
        os.makedirs(d)
        r = run_marked(cmd(p, d), cwd=work, tmpdir=os.path.join(work, f"tmp_alone{j}"), waits=(0.5,))
        alone.append({"exit": r["exit"], "seconds": r["seconds"], "result": result(d)})
    log(f"  load: {len(problems)} problems alone in {time.time() - t0:.0f} s "
        f"({min(a['seconds'] for a in alone):.1f}-{max(a['seconds'] for a in alone):.1f} s each)")
    mark = uuid.uuid4().hex
    tmp = os.path.join(work, "tmp_load")
    os.makedirs(tmp)
    procs = []
    t0 = time.time()
    for j in range(n_concurrent):
        d = os.path.join(work, f"load{j}")
        os.makedirs(d)
        err = open(os.path.join(work, f"load{j}.err"), "w")
        procs.append((j, d, err, subprocess.Popen(cmd(problems[j % len(problems)], d), cwd=work,
                                                  env=marked_env(tmp, mark), stdout=subprocess.DEVNULL, stderr=err)))
    peak = 0
    while any(p.poll() is None for *_, p in procs):
        peak = max(peak, len(marked_processes(mark)))
        time.sleep(0.5)
    wall = time.time() - t0
    rows = []
    for j, d, err, p in procs:
        err.close()
        ref = alone[j % len(problems)]
        got = result(d)
        left = sorted(set(os.listdir(d)) - {"out.csv", "report.json"})
        rows.append({"j": j, "problem": j % len(problems), "exit": p.returncode, "result": got,
                     "alone": ref["result"], "same": got == ref["result"] and p.returncode == ref["exit"],
                     "out_dir_left": left, "stderr": open(os.path.join(work, f"load{j}.err")).read().strip()[-200:]})
    lk = leaks(mark)
    rec = {"part": "load", "concurrent": n_concurrent, "problems": len(problems), "cores": os.cpu_count(),
           "wall_seconds": round(wall, 1), "alone_seconds_sum": round(sum(a["seconds"] for a in alone), 1),
           "exit_0": sum(r["exit"] == 0 for r in rows), "same_as_alone": sum(r["same"] for r in rows),
           "peak_processes": peak, **lk, "tmpdir_left": files_under(tmp),
           "out_dirs_with_extra_files": sum(bool(r["out_dir_left"]) for r in rows),
           "different": [r for r in rows if not r["same"]][:5]}
    log(f"  load: {n_concurrent} at once in {wall:.0f} s: exit 0 {rec['exit_0']}, same as alone "
        f"{rec['same_as_alone']}, leaked {rec['leaked_after_6s']}, tmpdir left {rec['tmpdir_left']}")
    shutil.rmtree(work, ignore_errors=True)
    return [rec] + [{"part": "load-run", **r} for r in rows]


# =====================================================================================
# the result files
# =====================================================================================

def release_cells(records) -> list[dict]:
    """Releases by criterion kind x recoding x record suppression x time limit: counts, outcomes, violations."""
    cells = collections.OrderedDict()
    for r in records:
        for crit in sorted(set(r["criteria"].split("+"))):
            key = (crit, r["recoding"], r["record_suppression"], r["time_limit"])
            c = cells.setdefault(key, collections.Counter())
            c["releases"] += 1
            c[r["status"]] += 1
            c["fallback"] += bool(r.get("fallback"))
            c["violations"] += bool(r.get("violations"))
            c["pycanon"] += "pycanon" in r
    return [{"part": "release-cell", "criterion": k[0], "recoding": k[1], "record_suppression": k[2],
             "tiny_time_limit": k[3], **c} for k, c in sorted(cells.items())]


def _md_table(fh, columns, rows):
    fh.write("| " + " | ".join(h for _, h in columns) + " |\n|" + "---|" * len(columns) + "\n")
    for r in rows:
        fh.write("| " + " | ".join(str(r.get(k, "")) for k, _ in columns) + " |\n")
    fh.write("\n")


def write_report(stem, meta, releases, kills, disks, loads):
    from benchmarks.common import provenance_line

    os.makedirs(os.path.dirname(stem) or ".", exist_ok=True)
    cells = release_cells(releases)
    with open(stem + ".jsonl", "w") as fh:
        fh.write(json.dumps({"part": "meta", **meta}) + "\n")
        for r in cells + kills + disks + loads + [r for r in releases if r.get("violations") or r["status"] in
                                                   ("error", "crash")]:
            fh.write(json.dumps(r, default=str) + "\n")
    if releases:
        cols = ["i", "via", "criteria", "recoding", "record_suppression", "time_limit", "n", "m", "sparse", "status",
                "source", "fallback", "capped", "cost", "withheld", "seconds", "verifier", "independent", "pycanon",
                "pycanon_t", "violations", "error"]
        with open(stem + "_releases.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
            w.writeheader()
            for r in sorted(releases, key=lambda r: r["i"]):
                w.writerow({**r, "violations": "; ".join(r.get("violations", []))})
    with open(stem + ".md", "w") as fh:
        fh.write("# Fault battery: releases re-checked, kills, a full disk, concurrent solves (issue 94, part 4)\n\n")
        fh.write(provenance_line("fault_battery") + f"; full commit `{meta['commit']}`; whole battery "
                 f"{meta['seconds']:.0f} s (releases {meta.get('releases_seconds', '–')} s on {meta['workers']} "
                 f"workers, pycanon {meta.get('pycanon_seconds', '–')} s).\n\n")
        if releases:
            n = len(releases)
            viol = sum(bool(r.get("violations")) for r in releases)
            st = collections.Counter(r["status"] for r in releases)
            fh.write("## 1. Random releases re-checked\n\n")
            fh.write(f"**{n:,} releases, {viol} violations** (verifier, the independent check and pycanon). "
                     f"Outcomes: " + ", ".join(f"{k} {v:,}" for k, v in st.most_common()) +
                     f"; heuristic fallback released {sum(bool(r.get('fallback')) for r in releases):,}; stopped by "
                     f"the {SAFETY_LIMIT:g} s safety limit {sum(bool(r.get('capped')) for r in releases):,}; through "
                     f"the CLI {sum(r.get('via') == 'cli' for r in releases):,}; pycanon checked "
                     f"{sum(r.get('pycanon') == 'ok' for r in releases):,} tables (pycanon errors "
                     f"{sum(str(r.get('pycanon', '')).startswith('pycanon error') for r in releases)}; t also on "
                     f"{sum(bool(r.get('pycanon_t')) for r in releases):,}).\n\n")
            by = collections.defaultdict(collections.Counter)
            for r in releases:
                for crit in set(r["criteria"].split("+")):
                    c = by[("criterion", crit)]
                    c["releases"] += 1
                    c[r["status"]] += 1
                    c["violations"] += bool(r.get("violations"))
                c = by[("recoding", r["recoding"])]
                c["releases"] += 1
                c[r["status"]] += 1
                c["violations"] += bool(r.get("violations"))
                for name, flag in (("record suppression", r["record_suppression"]), ("tiny time limit", r["time_limit"]),
                                   ("heuristic fallback released", bool(r.get("fallback")))):
                    if flag:
                        c = by[("option", name)]
                        c["releases"] += 1
                        c[r["status"]] += 1
                        c["violations"] += bool(r.get("violations"))
            rows = [{"what": f"{k[0]}: {k[1]}", **{s: f"{v:,}" for s, v in c.items()}} for k, c in sorted(by.items())]
            for r in rows:
                r.setdefault("violations", "0")
            _md_table(fh, [("what", "criterion / recoding / option"), ("releases", "releases"),
                           ("optimal", "optimal"), ("time_limit", "time_limit"), ("no_solution", "no_solution"),
                           ("infeasible", "infeasible"), ("error", "error"), ("violations", "violations")], rows)
            fh.write("A release counts once per criterion kind it carries (k is in every one). The cells "
                     "criterion × recoding × record suppression × tiny limit are in the `.jsonl` "
                     "(`release-cell`); one line per release in `fault_battery_releases.csv`.\n\n")
        if kills:
            fh.write("## 2. kill -9 and SIGTERM at random moments\n\n")
            ref = kills[0]
            fh.write("Uninterrupted runs: " + ", ".join(f"{k} {v['seconds']} s" for k, v in ref.items()
                                                        if isinstance(v, dict) and "seconds" in v) + ".\n\n")
            agg = collections.OrderedDict()
            for r in kills[1:]:
                c = agg.setdefault((r["command"], r["signal"]), collections.Counter())
                c["trials"] += 1
                c["killed"] += r["killed"]
                c["exit 143"] += r["exit"] == 143
                c["exits"] = c.get("exits", "") + ("" if str(r["exit"]) in c.get("exits", "").split(",")
                                                   else ("," if c.get("exits") else "") + str(r["exit"]))
                c["partial files"] += len(r["partial"])
                c["temp files in out dir"] += len(r["temp_left"])
                c["runs leaving TMPDIR files"] += bool(r["tmpdir_left"])
                c["leaked processes (2 s)"] += r["leaked_after_2s"]
                c["leaked processes (6 s)"] += r["leaked_after_6s"]
                c["same result"] += bool(r.get("result_same", True))
            rows = [{"command": k[0], "signal": k[1], **c} for k, c in agg.items()]
            _md_table(fh, [("command", "command"), ("signal", "signal"), ("trials", "trials"),
                           ("killed", "signal landed"), ("exits", "exit codes seen"), ("exit 143", "exit 143"), ("partial files", "partial files"),
                           ("temp files in out dir", "temp files left in the output dir"),
                           ("runs leaving TMPDIR files", "runs leaving files in TMPDIR"),
                           ("leaked processes (2 s)", "processes left 2 s after"),
                           ("leaked processes (6 s)", "6 s after"),
                           ("same result", "resumed / written result = uninterrupted")], rows)
            left = collections.Counter(name for r in kills[1:] for name in
                                       {f.split("/")[0].split("-dask-")[0] + ("-dask-*" if "-dask-" in f else "")
                                        for f in r["tmpdir_left"]})
            if left:
                fh.write("Files left in the run's `TMPDIR`: " + ", ".join(f"`{k}` ({v} runs)" for k, v in
                                                                         left.items()) + ".\n\n")
        if disks:
            fh.write("## 3. A full disk during the final write (64 KiB tmpfs)\n\n")
            _md_table(fh, [("case", "case"), ("exit", "exit"), ("stderr_lines", "stderr lines"),
                           ("stderr", "stderr"), ("traceback", "traceback"), ("input_intact", "input intact"),
                           ("earlier_intact", "earlier output intact"), ("new_files", "new files on the disk"),
                           ("tmpdir_left", "TMPDIR left")],
                      [{**d, "stderr": "<br>".join(f"`{x}`" for x in d.get("stderr", []))} for d in disks])
        if loads:
            ld = loads[0]
            fh.write("## 4. Concurrent CLI solves\n\n")
            _md_table(fh, [(k, k) for k in ("concurrent", "problems", "cores", "wall_seconds", "alone_seconds_sum",
                                            "exit_0", "same_as_alone", "peak_processes", "leaked_after_2s",
                                            "leaked_after_6s", "tmpdir_left", "out_dirs_with_extra_files")], [ld])
        if meta.get("findings"):
            fh.write("## Findings\n\n" + "".join(f"- {f}\n" for f in meta["findings"]) + "\n")
    print(f"wrote {stem}.md, {stem}.jsonl" + (f", {stem}_releases.csv" if releases else ""))


FINDINGS = [
    "Fixed (commit 'Full disk during the final write'): before the fix, `solve` on a full disk ended with a "
    "traceback (exit 1) and left the hidden temporary file `.milp-anon-*.tmp` beside the output "
    "(`Outputs.commit` recorded the temporary file only after writing it); regression test "
    "`tests/test_full_disk.py`.",
    "Fixed (commit 'bench left dask-scratch-space ...'): `bench` on a local Dask cluster left `dask-scratch-space` in "
    "the temporary directory after every run, and after SIGTERM its scheduler's and workers' directories too; the "
    "cluster's scratch space is now the run's own directory, removed at the end and by SIGTERM "
    "(`tests/test_bench_scratch.py`).",
    "Fixed (commit 'The whole table as a heuristic start was offered unchecked ...'): with record suppression and "
    "t-closeness against a given reference, a solve sent to its heuristics (a tiny time limit) ended with "
    "`VerificationError` (exit 1): the whole table, offered as a start unchecked, breaks such a criterion "
    "(`tests/test_whole_table_start.py`). The verifier stopped every such table: none was released.",
]


def dynamic_findings(kills) -> list[str]:
    out = []
    early = [r for r in kills[1:] if r.get("signal") == "SIGTERM" and r["exit"] == -signal.SIGTERM]
    if early:
        out.append(f"{len(early)} SIGTERM trial(s) ended with the default action (exit -15), at "
                   f"{', '.join(str(r['signal_sent_at']) for r in early)} s: before the CLI had installed its "
                   "handler (`exit_on_signals`, installed after the imports: 0.7-0.9 s alone, longer under load); nothing "
                   "had been created yet, and nothing was left.")
    kill_left = [r for r in kills[1:] if r.get("signal") == "SIGKILL" and (r["temp_left"] or r["tmpdir_left"])]
    if kill_left:
        out.append(f"{len(kill_left)} SIGKILL trial(s) left temporary files (SIGKILL cannot be caught): "
                   + "; ".join(f"{r['command']}: {(r['temp_left'] + r['tmpdir_left'])[:3]}" for r in kill_left[:4]))
    return out



def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--kills", type=int, default=14, help="trials of solve and of export each, half SIGKILL")
    ap.add_argument("--bench-kills", type=int, default=6, help="trials of bench --resume, half SIGKILL")
    ap.add_argument("--concurrent", type=int, default=50)
    ap.add_argument("--parts", default="releases,kill,disk,load")
    ap.add_argument("--seed", type=int, default=94)
    ap.add_argument("--out", default=os.path.join("benchmarks", "results", "fault_battery"))
    args = ap.parse_args(argv)
    parts = set(args.parts.split(","))
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True,
                           cwd=ROOT).stdout.strip()
    meta = {"commit": commit + (" (with uncommitted changes)" if dirty else ""), "workers": args.workers,
            "seed": args.seed, "argv": sys.argv[1:], "findings": list(FINDINGS)}
    t0 = time.time()
    releases, kills, disks, loads = [], [], [], []
    if "releases" in parts:
        releases, m = part_releases(args.releases, args.workers, args.seed, _log)
        meta.update(m)
    if "kill" in parts:
        kills = part_kill(args.kills, args.bench_kills, args.seed, _log)
    if "disk" in parts:
        disks = part_disk(_log)
    if "load" in parts:
        loads = part_load(args.concurrent, _log)
    meta["seconds"] = time.time() - t0
    meta["findings"] += dynamic_findings(kills) if kills else []
    write_report(args.out, meta, releases, kills, disks, loads)


def _log(*a):
    print(*a, flush=True)


if __name__ == "__main__":
    main()
