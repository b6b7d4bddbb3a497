"""Export a suite's instances as an MPS instance library with JSON sidecars."""

from __future__ import annotations

import json
import os

from ..errors import InfeasibleRequest
from ..pipeline import build_model
from ..request import Request
from ..solvers import SolverOptions
from .suite import Suite, build_problem


def export_suite(suite: Suite, out_dir: str, *, solve_limit: float | None = 60.0, log=print) -> list[dict]:
    """Write ``<instance>.mps`` and ``<instance>.json`` for every instance of ``suite``.

    The sidecar holds the problem (criteria, recoding), the instance's
    parameters, the model's sizes, and ``optimum`` when it is proven — by the
    instance's construction (gadgets) or by solving with ``solve_limit``
    seconds (``None``/0: do not solve); ``optimum_status`` says which.
    Files are written under a temporary name and renamed, so a failed export
    leaves no partial file.
    """
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for spec in suite.instances:
        problem = build_problem(spec)
        request = Request(problem.criteria, recoding=problem.recoding)
        side = {"instance": problem.name, "spec": {k: v for k, v in spec.items() if k != "name"},
                "problem": {"criteria": [c.describe() for c in problem.criteria],
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
        mps = os.path.join(out_dir, problem.name + ".mps")
        h = lm.to_highs()
        tmp = mps + ".part.mps"
        h.writeModel(tmp)
        os.replace(tmp, mps)
        if solve_limit and problem.known_optimum is None:
            r = request.solve(problem.table, SolverOptions(time_limit=solve_limit))
            side["solve"] = {"status": str(r.status), "cost": r.cost, "bound": r.bound, "gap": r.gap,
                             "seconds": r.timings.solve, "time_limit": solve_limit}
            if r.status == "optimal":
                side["optimum"], side["optimum_status"] = r.cost, "proven optimal by milp-anon (HiGHS, gap 0)"
        _write_json(os.path.join(out_dir, problem.name + ".json"), side)
        log(f"  {problem.name}: {lm.n_cols} columns, {lm.n_rows} rows; optimum {side['optimum']}")
        written.append(side)
    return written


def _write_json(path, data):
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, default=str)
        fh.write("\n")
    os.replace(tmp, path)
