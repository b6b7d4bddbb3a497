"""The whole model of a request, written as MPS, solved by HiGHS (or SCIP) alone against a cutoff; its table verified.

    python -m benchmarks.experiments.whole_cutoff [--cutoff 124.5] [--limit 3000] [--engine highs|scip]
        [--highs-option KEY=VALUE ...] [--statistics] [--save SOLUTION.json] [--check SOLUTION.json]
        [--start SOLUTION.json]
        [--qis sex,race,marital-status] [--k 5] [--cases "frequency l=3;t=0.3 hierarchical"]

By default the README's ℓ + t example (Adult, QIs sex, race, marital-status, sensitive ``occupation``, k = 5,
frequency ℓ = 3, 0.3-closeness under the ARX occupation hierarchy); ``--cases`` takes the labels of
``benchmarks.sensitive_goal.criterion``. The model is the one ``Request.write_model`` writes
(``reduction="none"``, through PuLP, as MPS); HiGHS reads it and solves it with presolve off (the toolkit's setting
for proofs), its default threads (one on two cores), ``mip_rel_gap`` 0 and ``objective_bound`` = the cutoff: HiGHS
prunes every node whose bound reaches the cutoff, so "Optimal" at a cost below the cutoff proves that cost the
optimum, and "Infeasible" proves that no table costs less than the cutoff. HiGHS may still report a solution above the
cutoff (seen on tiny tables: "Optimal 8", dual bound 8, against the cutoff 3.5 where the optimum is 4): only a
cost below the cutoff is such a proof, and the ``bound`` printed is HiGHS's dual bound capped at the cutoff.
A solution is mapped back by column name, released and passed through the independent verifier
(``Release.verified``) before its cost is printed. Prints the engine's log, then one JSON line.

``--engine scip`` (``pip install -e '.[scip]'``) reads the same MPS with SCIP 10 (its defaults, its own
presolve, one thread, gap 0) and the cutoff as SCIP's objective limit: an engine sharing no code with HiGHS, to
cross-check a bound HiGHS alone proved; "infeasible" then is SCIP's claim that no table costs less than the
cutoff, and it can be wrong: on the README example SCIP answered it against 124.5 although a solution of 124
holds every row of the model exactly (``--check``; ``benchmarks/results/whole_cutoff_readme_lt.md``).

``--save`` writes the engine's solution (``{column name: value}``, JSON) before it is mapped back, so a solution
can be checked against the model's rows, or its table rebuilt, without solving again; an existing file is
refused before any work. ``--check`` solves nothing: it rebuilds the model, maps a saved solution back, passes
its table through the verifier and checks the point exactly (:func:`check_point`): does the model hold a
solution of that cost, whatever an engine's tolerance? ``--start`` hands a saved solution to the engine as its
first incumbent (SCIP checks it before it accepts it): with a known table, is the engine's proof of its
optimality the same as without it?
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import tempfile
import time


def _highs(path, cutoff, limit, extra, quiet, statistics=False, start=None):
    """HiGHS on the MPS at ``path``: presolve off, ``mip_rel_gap`` 0, ``objective_bound`` = cutoff; ``threads`` at
    HiGHS's default (one on two cores under 1.15), since it runs on the caller's thread
    (``milp_anon.solvers.highs_banner``)."""
    import highspy

    h = highspy.Highs()
    if quiet:
        h.setOptionValue("output_flag", False)
    h.readModel(path)
    cut = (("objective_bound", cutoff),) if cutoff is not None else ()
    for key, value in (("presolve", "off"), ("time_limit", limit), ("mip_rel_gap", 0.0),
                       *cut, *extra):
        h.setOptionValue(key, value)
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = [start.get(n, 0.0) for n in h.getLp().col_names_]
        sol.value_valid = True
        h.setSolution(sol)
    h.run()
    info, status = h.getInfo(), h.getModelStatus()
    out = {"status": h.modelStatusToString(status), "objective": info.objective_function_value,
           "dual_bound": info.mip_dual_bound, "nodes": info.mip_node_count, "columns": h.getNumCol(),
           "rows": h.getNumRow()}
    values = None
    if info.primal_solution_status == 2:  # a feasible solution
        values = dict(zip(h.getLp().col_names_, h.getSolution().col_value))
    return out, values


def _scip(path, cutoff, limit, extra, quiet, statistics=False, start=None):
    """SCIP on the MPS at ``path``: its defaults (its own presolve: an engine independent of HiGHS), one
    thread, gap 0, and the objective limit = cutoff: SCIP accepts no solution at or above it, so "infeasible"
    is SCIP's claim that no solution of the model costs less than the cutoff."""
    from pyscipopt import Model

    m = Model()
    if quiet:
        m.hideOutput()
    m.readProblem(path)
    for key, value in (("limits/time", float(limit)), ("limits/gap", 0.0), ("parallel/maxnthreads", 1), *extra):
        m.setParam(key, value)
    if cutoff is not None:
        m.setObjlimit(cutoff)
    if start is not None:  # SCIP checks the solution against the original problem before it keeps it
        sol = m.createOrigSol()
        for v in m.getVars():
            m.setSolVal(sol, v, start.get(v.name, 0.0))
        if not m.addSol(sol, free=True):
            raise ValueError("SCIP rejected the start solution as infeasible")
    m.optimize()
    if statistics:  # SCIP's tables: which presolvers, separators (cuts) and heuristics did the work
        m.printStatistics()
    root = m.getDualboundRoot()  # 1e20 when presolve alone solved it (no root LP)
    out = {"status": m.getStatus(), "objective": m.getObjVal() if m.getNSols() else None,
           "dual_bound": m.getDualbound(), "root_bound": root if root < 1e19 else None,
           "nodes": m.getNNodes(), "columns": m.getNVars(transformed=False),
           "rows": m.getNConss(transformed=False), "seconds_scip": round(m.getSolvingTime(), 1)}
    values = None
    if m.getNSols():
        sol = m.getBestSol()
        values = {v.name: m.getSolVal(sol, v) for v in m.getVars()}
    return out, values


ENGINES = {"highs": _highs, "scip": _scip}


def solve_whole_with_cutoff(table, request, cutoff: float | None, limit: float, extra=(), quiet: bool = False,
                            engine: str = "highs", statistics: bool = False, save: str | None = None,
                            start: dict | None = None) -> dict:
    """Write the whole model of ``request`` on ``table`` as MPS, solve it by ``engine`` alone against ``cutoff``
    (``None``: no cutoff; HiGHS: presolve off, its default threads, ``mip_rel_gap`` 0; SCIP: its defaults, one thread,
    gap 0; ``extra``: more ``(option, value)`` pairs for the engine; ``quiet``: no log) and verify the table of
    its solution, if any: the engine's status, objective and bound, and ``verified_cost``. ``statistics``: SCIP
    prints its statistics at the end (HiGHS's log already holds its own). ``save``: a path for the engine's
    solution as JSON (written before verification: a solution whose table fails it stays available).
    ``start``: a solution (``{column name: value}``) handed to the engine as its first incumbent."""
    from milp_anon.pipeline import solve as pipeline

    am = pipeline.build_model(table, request)
    problem, _ = am.lm.to_pulp()  # what Request.write_model writes
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "whole.mps")
        problem.writeMPS(path)
        result, values = ENGINES[engine](path, cutoff, limit, tuple(extra), quiet, statistics, start)
    out = {"engine": engine, "cutoff": cutoff, f"{engine}_options": dict(extra)}
    out |= {f"{engine}_{key}" if key in ("status", "objective", "dual_bound") else key: value
            for key, value in result.items()}
    # all the cutoff lets the engine prove: HiGHS's "dual bound" above it is a solution's value, not a bound
    out["bound"] = result["dual_bound"] if cutoff is None else min(result["dual_bound"], cutoff)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    if values is not None and save is not None:
        _write_new(save, json.dumps({"engine": engine, "cutoff": cutoff, "columns": values}))
    if values is not None:
        out |= _verified_table(am, request, values)
    return out


def check_point(lm, values: dict) -> dict:
    """Is the saved solution ``values`` (``{column name: value}``) a solution of the model ``lm``, exactly?

    Integer columns are rounded (their largest distance to an integer is reported); the continuous columns
    are re-solved by an LP with the integers fixed (HiGHS, presolve off), its values taken as the nearest
    fractions with denominators up to 10⁶, and every row and bound is checked in exact rationals against the
    model's coefficients. ``rows_violated == bounds_violated == 0`` proves that the model has a solution of
    cost ``objective``, independent of any engine's tolerance.
    """
    from fractions import Fraction

    import highspy
    import numpy as np

    a = lm.arrays()
    x = np.array([values.get(name, 0.0) for name in lm.col_names()])
    integer = a["integer"]
    n_rows = lm.n_rows
    out = {"max_fractionality": float(np.abs(x[integer] - np.rint(x[integer])).max()) if integer.any() else 0.0}
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    lm.to_highs(h)
    fixed = np.flatnonzero(integer)  # the integer columns at their rounded values, as continuous columns
    h.changeColsBounds(len(fixed), fixed.astype(np.int32), np.rint(x[fixed]), np.rint(x[fixed]))
    h.changeColsIntegrality(len(fixed), fixed.astype(np.int32),
                            np.full(len(fixed), highspy.HighsVarType.kContinuous))
    h.run()
    out["lp_with_integers_fixed"] = h.modelStatusToString(h.getModelStatus())
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return out | {"exact": False}
    xc = h.getSolution().col_value
    q = [Fraction(round(v)) if integer[j] else Fraction(v).limit_denominator(10**6) for j, v in enumerate(xc)]
    bound = lambda b: Fraction(float(b))  # noqa: E731  (the model's bounds and coefficients are floats)
    bounds_violated = sum(1 for j, v in enumerate(q)
                          if (np.isfinite(a["lower"][j]) and v < bound(a["lower"][j]))
                          or (np.isfinite(a["upper"][j]) and v > bound(a["upper"][j])))
    column = np.repeat(np.arange(len(x)), np.diff(a["start"]))
    order = np.argsort(a["index"], kind="stable")  # the CSC entries grouped by row
    row, col, val = a["index"][order], column[order], a["value"][order]
    starts = np.searchsorted(row, np.arange(n_rows + 1))
    rows_violated = 0
    for i in range(n_rows):
        act = sum((Fraction(float(val[e])) * q[col[e]] for e in range(starts[i], starts[i + 1])), Fraction(0))
        lo, up = a["row_lower"][i], a["row_upper"][i]
        rows_violated += bool((np.isfinite(lo) and act < bound(lo)) or (np.isfinite(up) and act > bound(up)))
    objective = sum((Fraction(float(a["cost"][j])) * q[j] for j in np.flatnonzero(a["cost"])), Fraction(0))
    return out | {"rows_violated": rows_violated, "bounds_violated": bounds_violated,
                  "objective": float(objective), "exact": rows_violated == 0 and bounds_violated == 0}


def check_saved(table, request, values: dict) -> dict:
    """A saved solution of the whole model of ``request`` on ``table``: its table verified, its point checked."""
    from milp_anon.pipeline import solve as pipeline

    am = pipeline.build_model(table, request)
    return _verified_table(am, request, values) | check_point(am.lm, values)


def _verified_table(am, request, values: dict) -> dict:
    """Map a solution (``{column name: value}``) back, release its table through the verifier: its cost."""
    import numpy as np

    from milp_anon.formulations import read_assignment
    from milp_anon.release.verified import Release
    from milp_anon.solvers import SolverOptions

    x = np.array([values.get(name, 0.0) for name in am.lm.col_names()])  # PuLP leaves out columns in no row
    g, _ = read_assignment(am, x, request.criteria, SolverOptions())
    released, groups, cost = am.release(g)
    rel = Release.verified(am.instance.table, request, released, cost=cost, groups=groups)
    return {"verified_cost": float(rel.objective), "groups": int(len(set(groups.tolist())))}


def _write_new(path, text):
    """Write ``text`` to the new file ``path`` whole or not at all (a temporary file, then a rename)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "x", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _read_saved(ap, flag, path):
    """The columns of a solution ``--save`` wrote, or one line naming why not (exit 2)."""
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            columns = json.load(f)["columns"]
        if not isinstance(columns, dict):
            raise TypeError
        return columns
    except OSError as exc:
        ap.error(f"{flag} {path}: cannot read it ({exc.strerror})")
    except (ValueError, KeyError, TypeError):
        ap.error(f"{flag} {path}: not a solution written by --save (JSON with 'columns')")


def main(argv=None):
    import milp_anon as ma
    from benchmarks.common import add_highs_options, parsed_highs_options
    from benchmarks.sensitive_goal import criterion
    from milp_anon.tables.datasets import load_adult

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", default="sex,race,marital-status")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--cases", default="frequency l=3;t=0.3 hierarchical", help="semicolon-separated")
    ap.add_argument("--cutoff", type=float, default=None, help="none by default: the engine alone")
    ap.add_argument("--limit", type=float, default=3000.0)
    ap.add_argument("--engine", choices=sorted(ENGINES), default="highs")
    ap.add_argument("--statistics", action="store_true", help="SCIP: print its statistics at the end")
    ap.add_argument("--save", default=None, metavar="SOLUTION.json",
                    help="write the engine's solution {column: value} to this new file")
    ap.add_argument("--start", default=None, metavar="SOLUTION.json",
                    help="hand a saved solution to the engine as its first incumbent")
    ap.add_argument("--check", default=None, metavar="SOLUTION.json",
                    help="solve nothing: verify the table of a saved solution and check its point exactly")
    add_highs_options(ap)
    a = ap.parse_args(argv)
    extra = parsed_highs_options(ap, a)
    if not a.limit > 0:
        ap.error(f"--limit must be a positive number of seconds, got {a.limit:g}")
    if extra and a.engine != "highs":
        ap.error("--highs-option needs --engine highs")
    if a.engine == "scip" and importlib.util.find_spec("pyscipopt") is None:
        ap.error("--engine scip needs pyscipopt: pip install -e '.[scip]'")
    saved = _read_saved(ap, "--check", a.check)
    start = _read_saved(ap, "--start", a.start)
    if a.save is not None:
        if os.path.exists(a.save):
            ap.error(f"--save {a.save}: the file exists (it is never overwritten)")
        if not os.path.isdir(os.path.dirname(os.path.abspath(a.save))):
            ap.error(f"--save {a.save}: no such directory")
    criteria = [ma.KAnonymity(a.k)]
    for case in a.cases.split(";"):
        try:
            criteria.append(criterion(case))
        except (ValueError, KeyError):
            ap.error(f"unknown case {case!r} (the labels of benchmarks.sensitive_goal.criterion)")
    table = ma.Table.from_frame(load_adult(), qi=a.qis.split(","), sensitive="occupation")
    request = ma.Request(*criteria, model=ma.ModelOptions(reduction="none"))
    if saved is not None:
        print(json.dumps({"qis": a.qis, "k": a.k, "cases": a.cases, "checked": a.check}
                         | check_saved(table, request, saved)))
        return
    out = solve_whole_with_cutoff(table, request, a.cutoff, a.limit, extra, engine=a.engine,
                                 statistics=a.statistics, save=a.save, start=start)
    print(json.dumps({"qis": a.qis, "k": a.k, "cases": a.cases} | out, default=float))


if __name__ == "__main__":
    main()
