"""Run a suite: one process per (instance, method, repetition), on a Dask cluster.

Each run builds its instance in a fresh process (:func:`execute`; on a Dask
worker or a thread of the local pool, :mod:`.executor`), runs the method, and sends
back the result with its wall time and peak memory: the most the run's process and its solver's processes
held at one time, sampled from outside every 50 ms (:class:`~milp_anon.runtime.memory.TreePeak`), and at least
the run process's own peak (``ru_maxrss``, which a sample may miss). The MILP
gets the suite's time limit as its solver limit (and returns its verified
incumbent, bound and gap at the limit); any run still alive at the limit plus
a margin (``max(10 s, 25 %)``, to allow for model building) is killed and
recorded as ``killed``. After all runs, every exact result is compared with
every other and with the instance's known optimum; a disagreement is printed
loudly and recorded (``milp-anon bench`` exits 6).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
import traceback

from milp_anon.bench.executor import executor
from milp_anon.bench.methods import run_method, skip_reason
from milp_anon.bench.report import render_markdown, render_plots
from milp_anon.bench.suite import Suite, build_problem
from milp_anon.runtime.cleanup import track_process, untrack_process
from milp_anon.runtime.errors import InputError
from milp_anon.runtime.memory import TreePeak

FIELDS = ["instance", "method", "rep", "status", "cost", "bound", "gap", "seconds", "peak_mb", "n", "m", "t_in",
          "k", "known_optimum", "n_candidates", "n_variables", "n_constraints", "n_nonzeros", "note"]
PROVEN = "optimal"


def kill_margin(time_limit: float) -> float:
    return max(10.0, 0.25 * time_limit)


def run_in_this_process(spec, method, time_limit) -> dict:
    """One run, here: build the instance, run the method, time it; the result with this process's own peak memory
    (``own_peak_mb``; :func:`execute` adds what its solver's processes held beside it)."""
    # everything the methods use is imported with this module, before the run is timed
    try:
        problem = build_problem(spec)
        t0 = time.perf_counter()
        out = run_method(method, problem, time_limit)
        out["seconds"] = time.perf_counter() - t0
        out["info"] = problem.info
        out["known_optimum"] = problem.known_optimum
    except Exception as exc:  # reported as a row, never lost
        out = {"status": "error", "note": f"{type(exc).__name__}: {exc}",
               "trace": traceback.format_exc(limit=3)}
    # not RUSAGE_CHILDREN: a child started by subprocess inherits this process's high-water mark (TreePeak)
    out["own_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return out


def execute(spec, method, time_limit) -> dict:
    """One run in its own process (``python -m milp_anon.bench.run_one``), killed past the limit.

    This is what a Dask worker, or a thread of the local pool, executes: a
    plain subprocess, so it works inside a daemonic worker process too.
    """
    job = json.dumps({"spec": spec, "method": method, "time_limit": time_limit})
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "milp_anon.bench.run_one"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_child_env())
    track_process(proc)  # a SIGTERM to the harness ends its runs too
    try:
        with TreePeak(proc.pid) as peak:
            stdout, stderr = proc.communicate(job, timeout=time_limit + kill_margin(time_limit))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"status": "killed", "seconds": time.perf_counter() - t0, "peak_mb": peak.until() / 2**20,
                "note": f"still running {kill_margin(time_limit):g} s after the {time_limit:g} s limit"}
    finally:
        untrack_process(proc)
    try:
        out = json.loads(stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        tail = (stderr.strip().splitlines() or [""])[-1][:200]
        return {"status": "error", "note": f"the run died (exit code {proc.returncode}) {tail}".strip()}
    out["peak_mb"] = max(peak.until() / 2**20, out.pop("own_peak_mb", 0.0))
    return out


def _child_env() -> dict:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _row(spec, method, rep, out) -> dict:
    info = out.get("info", {})
    sizes = out.get("sizes") or {}
    k = spec.get("k", 3 if spec["kind"] == "gadget" else 1)
    return {"instance": spec["name"], "method": method["label"], "rep": rep, "status": out.get("status"),
            "cost": out.get("cost"), "bound": out.get("bound"), "gap": out.get("gap"),
            "seconds": out.get("seconds"), "peak_mb": out.get("peak_mb"), "n": info.get("n"), "m": info.get("m"),
            "t_in": info.get("t_in"), "k": k, "known_optimum": out.get("known_optimum"),
            "n_candidates": sizes.get("n_candidates"), "n_variables": sizes.get("n_variables"),
            "n_constraints": sizes.get("n_constraints"), "n_nonzeros": sizes.get("n_nonzeros"),
            "note": out.get("note", "")}


_INT_FIELDS = ("rep", "n", "m", "t_in", "k", "n_candidates", "n_variables", "n_constraints", "n_nonzeros")
_FLOAT_FIELDS = ("cost", "bound", "gap", "seconds", "peak_mb", "known_optimum")


def read_rows(path: str) -> list[dict]:
    """The rows of a ``results.csv`` (as :func:`run_suite` appends them), typed back."""
    rows = []
    with open(path, newline="", encoding="utf-8") as fh:
        for raw in csv.DictReader(fh):
            row = {k: (raw.get(k) if raw.get(k) not in ("", None) else None) for k in FIELDS}
            for k in _INT_FIELDS:
                row[k] = None if row[k] is None else int(float(row[k]))
            for k in _FLOAT_FIELDS:
                row[k] = None if row[k] is None else float(row[k])
            row["note"] = row["note"] or ""
            rows.append(row)
    return rows


def _append(path: str, row: dict) -> None:
    """One finished run, appended at once: an interrupted sweep keeps it (``--resume`` skips it)."""
    with open(path, "a", newline="", encoding="utf-8") as fh:
        csv.DictWriter(fh, fieldnames=FIELDS).writerow({k: row.get(k) for k in FIELDS})
        fh.flush()
        os.fsync(fh.fileno())


def run_suite(suite: Suite, out_dir: str, *, workers: int | None = None, log=print, resume: bool = False,
              scheduler: str | None = None) -> dict:
    """Run every (instance, method, repetition); write ``results.csv``, ``results.json``, ``report.md``, plots.

    Each finished run is appended to ``results.csv`` at once; with
    ``resume`` the runs already there are kept and not run again. The runs
    execute on a Dask cluster (:func:`executor`: ``scheduler``'s, or a local
    one of ``workers`` workers), each in its own process. At the end
    the files are rewritten in the suite's order. Returns ``{"rows": [...],
    "disagreements": [...]}``.
    """
    os.makedirs(out_dir, exist_ok=True)
    workers = max(1, workers or suite.workers)
    suite = dataclasses.replace(suite, workers=workers)  # the report states the parallelism used
    jobs = [(spec, method, rep) for spec in suite.instances for method in suite.methods
            for rep in range(suite.repetitions)]
    csv_path = os.path.join(out_dir, "results.csv")
    wanted = {(s["name"], m["label"], r) for s, m, r in jobs}
    kept = []
    if resume and os.path.exists(csv_path):
        kept = [r for r in read_rows(csv_path) if (r["instance"], r["method"], r["rep"]) in wanted]
        done = {(r["instance"], r["method"], r["rep"]) for r in kept}
        jobs_left = [(s, m, r) for s, m, r in jobs if (s["name"], m["label"], r) not in done]
        log(f"resuming: {len(kept)} run(s) already in {csv_path}, {len(jobs_left)} to go")
    else:
        jobs_left = list(jobs)
    with open(csv_path, "w", newline="", encoding="utf-8") as fh:  # the kept rows, then each new one as it ends
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        for r in kept:
            w.writerow({k: r.get(k) for k in FIELDS})
    rows = list(kept)
    limit = suite.time_limit
    problems: dict = {}
    runnable = []
    for spec, method, rep in jobs_left:
        if spec["name"] not in problems:
            problems[spec["name"]] = build_problem(spec)
        problem = problems[spec["name"]]
        why = skip_reason(method, problem)
        if why:
            row = _row(spec, method, rep, {"status": "skipped", "note": why, "info": problem.info,
                                           "known_optimum": problem.known_optimum})
            rows.append(row)
            _append(csv_path, row)
            log(f"  {row['instance']:<32} {row['method']:<20} {'skipped':<12} ({why})")
        else:
            runnable.append((spec, method, rep))
    with executor(scheduler, workers) as (pool, where):
        log(f"suite {suite.name}: {len(suite.instances)} instances x {len(suite.methods)} methods x "
            f"{suite.repetitions} repetitions = {len(jobs)} runs ({len(runnable)} to run), {where}, "
            f"{limit:g} s each")
        futures = {pool.submit(execute, spec, method, method.get("time_limit", limit)): (spec, method, rep)
                   for spec, method, rep in runnable}
        for future in pool.as_completed(futures):
            spec, method, rep = futures[future]
            row = _row(spec, method, rep, future.result())
            rows.append(row)
            _append(csv_path, row)
            cost = "-" if row["cost"] is None else f"{row['cost']:g}"
            secs = "-" if row["seconds"] is None else f"{row['seconds']:.2f}s"
            log(f"  {row['instance']:<32} {row['method']:<20} {row['status']:<12} {cost:>10} {secs:>9}"
                + (f"  ({row['note']})" if row["note"] and row["status"] in ("error", "killed") else ""))
    order = {(s["name"], m["label"], r): i for i, (s, m, r) in enumerate(jobs)}
    rows.sort(key=lambda r: order[(r["instance"], r["method"], r["rep"])])
    disagreements = check_agreement(rows)
    for d in disagreements:
        print(f"!!! DISAGREEMENT on {d['instance']}: {d['message']}", file=sys.stderr)
    if write_results(rows, disagreements, out_dir, suite) is None:
        log("plots not drawn: matplotlib is not installed (pip install 'milp-anon[plot]')")
    return {"rows": rows, "disagreements": disagreements}


def check_agreement(rows, tol: float = 1e-6) -> list[dict]:
    """Disagreements between proven optima, known optima, incumbents and bounds of one instance."""
    out = []
    by_inst: dict = {}
    for r in rows:
        by_inst.setdefault(r["instance"], []).append(r)
    for inst, rs in by_inst.items():
        proven = [(r["method"], float(r["cost"])) for r in rs if r["status"] == PROVEN and r["cost"] is not None]
        known = next((r["known_optimum"] for r in rs if r.get("known_optimum") is not None), None)
        if known is not None:
            proven.append(("known optimum", float(known)))
        infeasible = [r["method"] for r in rs if r["status"] == "infeasible"]
        if proven:
            ref_m, ref = proven[0]
            for m, v in proven[1:]:
                if abs(v - ref) > tol * max(1.0, abs(ref)):
                    out.append({"instance": inst, "message": f"{m} proves {v:g} but {ref_m} proves {ref:g}"})
            for r in rs:
                if r["cost"] is not None and r["status"] != PROVEN and float(r["cost"]) < ref - tol:
                    out.append({"instance": inst, "message": f"{r['method']} found {r['cost']:g} below the "
                                f"optimum {ref:g} ({ref_m})"})
                if r["bound"] is not None and float(r["bound"]) > ref + tol * max(1.0, abs(ref)):
                    out.append({"instance": inst, "message": f"{r['method']} bound {r['bound']:g} above the "
                                f"optimum {ref:g} ({ref_m})"})
            if infeasible:
                out.append({"instance": inst, "message": f"{', '.join(infeasible)} say infeasible but "
                            f"{ref_m} proves {ref:g}"})
    return out


def write_results(rows, disagreements, out_dir, suite) -> None:
    with open(os.path.join(out_dir, "results.csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k) for k in FIELDS})
    with open(os.path.join(out_dir, "results.json"), "w", encoding="utf-8") as fh:
        json.dump({"suite": suite.name, "time_limit": suite.time_limit, "rows": rows,
                   "disagreements": disagreements}, fh, indent=1, default=str)
    plots = render_plots(rows, out_dir)
    with open(os.path.join(out_dir, "report.md"), "w", encoding="utf-8") as fh:
        fh.write(render_markdown(rows, disagreements, suite, plots))
    return plots


def render_existing(suite: Suite, out_dir: str) -> dict:
    """Re-render ``report.md`` and the plots from an existing ``results.json`` (no runs)."""
    path = os.path.join(out_dir, "results.json")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise InputError(f"no results to render: {path} not found") from None
    rows = data["rows"]
    disagreements = check_agreement(rows)
    write_results(rows, disagreements, out_dir, suite)
    return {"rows": rows, "disagreements": disagreements}
