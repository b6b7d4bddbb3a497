"""Export a suite's instances as an MPS instance library with JSON sidecars and an ``index.csv``.

The files are deterministic: the same suite gives byte-identical MPS files
(gzip without a time stamp with ``compress=True``), written by
:mod:`milp_anon.solvers.mps` and not by the installed HiGHS (whose number format
changed between releases), so a committed library can be checked against a
fresh export by the SHA-256 in its index.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import os

from milp_anon.api import Request
from milp_anon.bench.suite import Suite, build_problem
from milp_anon.pipeline.solve import build_model
from milp_anon.runtime.errors import InfeasibleRequest
from milp_anon.solvers import SolverOptions
from milp_anon.solvers.mps import write_mps

#: the columns of ``index.csv`` (``status``: ``optimal`` or ``time_limit``; ``objective``: the best verified
#: cost; ``bound``: the proven lower bound)
INDEX_FIELDS = ("name", "file", "sha256", "status", "objective", "bound", "how", "criteria", "recoding", "table_rows",
                "columns", "rows", "nonzeros", "in_repo")


def export_suite(suite: Suite, out_dir: str, *, solve_limit: float | None = 60.0, log=print,
                 compress: bool = False) -> list[dict]:
    """Write ``<instance>.mps`` (``.mps.gz`` with ``compress``) and ``<instance>.json`` for every instance of
    ``suite``, and ``index.csv`` (:data:`INDEX_FIELDS`) over those with a model.

    The sidecar holds the problem (criteria, recoding), the instance's
    parameters, the model's sizes, and ``optimum`` when it is proven — by the
    instance's construction (gadgets) or by solving with ``solve_limit``
    seconds (``None``/0: do not solve); ``optimum_status`` says which.
    Files are written under a temporary name and renamed, so a failed export
    leaves no partial file. ``index.csv`` is updated, not replaced: rows of
    instances this suite does not name are kept, so several suites (the
    committed small tier and the large tier whose files stay out of the
    repository, ``commit_files = false``) share one index.
    """
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for spec in suite.instances:
        problem = build_problem(spec)
        request = Request(problem.criteria, recoding=problem.recoding, **problem.model_options)
        side = {"instance": problem.name, "spec": {k: v for k, v in spec.items() if k != "name" and k[0] != "_"},
                "problem": {"criteria": list(request.describe()),
                            "recoding": problem.recoding.describe(),
                            "objective": "minimize cost (suppressed cells / generalization cost)"},
                "table": problem.info, "optimum": problem.known_optimum,
                "optimum_status": "known by construction" if problem.known_optimum is not None else None}
        try:
            am = build_model(problem.table, request)
        except InfeasibleRequest as exc:
            side.update(optimum_status="infeasible (pre-check)", reason=exc.reason)
            _write_json(os.path.join(out_dir, problem.name + ".json"), side)
            log(f"  {problem.name}: infeasible ({exc.reason}); sidecar only")
            written.append(side)
            continue
        lm = am.lm
        side["model"] = {"n_variables": lm.n_cols, "n_integer": lm.n_integer, "n_constraints": lm.n_rows,
                         "n_nonzeros": lm.n_nonzeros, "n_candidates": am.cands.n_candidates,
                         "objective_integral": bool(am.cands.cost.dtype.kind in "iu")}
        mps = os.path.join(out_dir, problem.name + (".mps.gz" if compress else ".mps"))
        tmp = os.path.join(out_dir, problem.name + ".part.mps")
        write_mps(lm.arrays(), tmp)  # the same bytes under every HiGHS release (milp_anon.solvers.mps)
        del lm, am  # the whole model is not needed while solving (8 QIs: millions of columns)
        if compress:
            with open(tmp, "rb") as src, open(mps + ".part", "wb") as raw, \
                    gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as dst:
                dst.write(src.read())
            os.unlink(tmp)
            tmp = mps + ".part"
        os.replace(tmp, mps)
        with open(mps, "rb") as fh:
            side["file"], side["sha256"] = os.path.basename(mps), hashlib.sha256(fh.read()).hexdigest()
        side["in_repo"] = suite.commit_files
        if solve_limit and problem.known_optimum is None:
            r = request.solve(problem.table, SolverOptions(time_limit=solve_limit))
            side["solve"] = {"status": str(r.status), "cost": r.cost, "bound": r.bound, "gap": r.gap,
                             "seconds": r.timings.solve, "time_limit": solve_limit}
            if r.reduction is not None:
                side["solve"]["reduction"] = r.reduction.as_dict()
            how = ("Lagrangian reduction, then HiGHS on the restricted model (sidecar: solve.reduction)"
                   if r.reduction is not None else "HiGHS")
            if r.status == "optimal":
                side["optimum"], side["optimum_status"] = r.cost, f"proven optimal by milp-anon ({how}, gap 0)"
            elif r.table is not None:
                side["optimum_status"] = (f"{r.status}: verified incumbent and proven bound after {solve_limit:g} s "
                                          f"({how})")
        _write_json(os.path.join(out_dir, problem.name + ".json"), side)
        m = side["model"]
        log(f"  {problem.name}: {m['n_variables']} columns, {m['n_constraints']} rows; optimum {side['optimum']}")
        written.append(side)
        _write_index(out_dir, written)  # after each instance: an interrupted export keeps what it finished
    return written


def _index_row(side: dict) -> dict | None:
    if "file" not in side:
        return None
    solve = side.get("solve") or {}
    if side.get("optimum") is not None:
        status, objective, bound = "optimal", side["optimum"], side["optimum"]
    elif solve.get("cost") is not None:
        status, objective, bound = "time_limit", solve["cost"], solve.get("bound")
    else:
        return None  # not solved: nothing to index
    m = side["model"]
    return {"name": side["instance"], "file": side["file"], "sha256": side["sha256"], "status": status,
            "objective": objective, "bound": bound, "how": side.get("optimum_status"),
            "criteria": "; ".join(side["problem"]["criteria"]), "recoding": side["problem"]["recoding"],
            "table_rows": side["table"].get("n"), "columns": m["n_variables"], "rows": m["n_constraints"],
            "nonzeros": m["n_nonzeros"], "in_repo": "yes" if side.get("in_repo", True) else "no"}


def _write_index(out_dir: str, sides: list[dict]) -> None:
    new = [r for r in map(_index_row, sides) if r is not None]
    path = os.path.join(out_dir, "index.csv")
    rows = []
    if os.path.exists(path):  # keep the index's order: replace rows in place, append new instances
        with open(path, newline="", encoding="utf-8") as fh:
            rows = [dict(r, in_repo=r.get("in_repo") or "yes") for r in csv.DictReader(fh)]
    exported = {s["instance"] for s in sides}
    by_name = {r["name"]: r for r in new}
    rows = [by_name.pop(r["name"], r) for r in rows if r["name"] not in exported or r["name"] in by_name]
    rows += [r for r in new if r["name"] in by_name]
    with open(path + ".part", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=INDEX_FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace(path + ".part", path)


def _write_json(path, data):
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, default=str)
        fh.write("\n")
    os.replace(tmp, path)
