"""The methods the harness runs: the MILP, the papers' exact algorithms and the heuristics.

Each method takes a :class:`~milp_anon.bench.suite.Problem` and its options
and returns a dict with ``status`` (``optimal``, ``time_limit``,
``gap_limit``, ``no_solution``, ``infeasible`` for the MILP and the exact
algorithms; ``feasible`` for a heuristic; ``skipped`` when the method does
not apply or the instance is above its size cap), ``cost``, ``bound`` and
``sizes``. Every table a method produces passes the independent verifier
before its cost is reported.
"""

from __future__ import annotations

from ..criteria import KAnonymity, LDiversity, PSensitivity
from ..recoding import Patterns, Suppression

EXACT = ("brute_force", "divide_and_conquer", "kernel", "fpt_t_in", "fpt_patterns", "split_recursion",
         "simplex_matching")
HEURISTIC = ("greedy", "mondrian", "pattern_greedy")


def _only_k(problem) -> bool:
    return all(isinstance(c, KAnonymity) for c in problem.criteria)


def _k(problem) -> int:
    return max(c.k for c in problem.criteria if isinstance(c, KAnonymity))


def _arrays(problem):
    t = problem.table
    arr = t.frame[list(t.qi)].astype(str).to_numpy(dtype=object)
    sens = {c: t.frame[c].astype(str).tolist() for c in t.sensitive}
    return arr, sens, list(t.qi)


def _recoding(problem):
    return None if isinstance(problem.recoding, Suppression) else problem.recoding


def _skip(why):
    return {"status": "skipped", "note": why}


def _exact(problem, blocks_cost):
    cost, blocks = blocks_cost
    if cost is None:
        return {"status": "infeasible"}
    return {"status": "optimal", "cost": float(cost), "bound": float(cost), "blocks": blocks}


def run_milp(problem, opts, time_limit):
    from ..formulations import AssignmentFormulation
    from ..solve import SolverOptions

    form_keys = ("closure", "warm_start", "objective")
    solver_keys = ("presolve", "threads", "gap", "solver", "highs_options", "max_memory_gb")
    form = AssignmentFormulation(problem.criteria, recoding=problem.recoding,
                                 **{k: opts[k] for k in form_keys if k in opts})
    options = SolverOptions(time_limit=time_limit, **{k: opts[k] for k in solver_keys if k in opts})
    r = form.solve(problem.table, options)
    return {"status": r.status, "cost": r.cost, "bound": r.bound, "gap": r.gap, "sizes": dict(r.sizes),
            "note": r.reason or ""}


def run_exact(name, problem, opts):
    arr, sens, cols = _arrays(problem)
    rec = _recoding(problem)
    n = arr.shape[0]
    cap = opts.get("max_rows")
    from .. import exact

    if name == "brute_force":
        if n > (cap or 10):
            return _skip(f"n = {n} above max_rows {cap or 10}")
        return _exact(problem, exact.brute_force(arr, problem.criteria, sens, rec, cols))
    if name == "split_recursion":
        if n > (cap or 16):
            return _skip(f"n = {n} above max_rows {cap or 16}")
        return _exact(problem, exact.split_recursion(arr, problem.criteria, sens, rec, cols))
    if not _only_k(problem) and name not in ("fpt_t_in", "simplex_matching"):
        return _skip("k-anonymity only")
    k = _k(problem)
    if name == "divide_and_conquer":
        if n > (cap or 16):
            return _skip(f"n = {n} above max_rows {cap or 16}")
        return _exact(problem, exact.divide_and_conquer(arr, k, rec, cols))
    if name == "kernel":
        kernel_rows = []

        def solver(a, k_, r_, c_):
            kernel_rows.append(a.shape[0])
            if a.shape[0] > (cap or 16):
                raise _TooBig(f"kernel of {a.shape[0]} rows above max_rows {cap or 16}")
            return exact.divide_and_conquer(a, k_, r_, c_)
        try:
            res = exact.kernel_then(arr, k, solver, rec, cols)
        except _TooBig as exc:
            return _skip(str(exc))
        out = _exact(problem, res)
        out["note"] = f"kernel {kernel_rows[0] if kernel_rows else 0} of {n} rows"
        return out
    if name == "fpt_t_in":
        t_in = problem.info["t_in"]
        if t_in > opts.get("max_t_in", 5):
            return _skip(f"t_in = {t_in} above max_t_in {opts.get('max_t_in', 5)}")
        others = [c for c in problem.criteria if not isinstance(c, KAnonymity)]
        if isinstance(rec, Patterns):
            return _skip("patterns: use fpt_patterns")
        if not others:
            return _exact(problem, exact.fpt_t_in(arr, k, rec, cols))
        if (len(others) == 1 and isinstance(others[0], PSensitivity) and len(sens) == 1):
            return _exact(problem, exact.fpt_t_in(arr, k, rec, cols, p=others[0].p,
                                                  sensitive=next(iter(sens.values()))))
        return _skip("k-anonymity or p-sensitivity (one sensitive column) only")
    if name == "fpt_patterns":
        if not isinstance(rec, Patterns):
            return _skip("pattern-guided instances only")
        if problem.info["t_in"] > opts.get("max_t_in", 5):
            return _skip(f"t_in above max_t_in {opts.get('max_t_in', 5)}")
        return _exact(problem, exact.fpt_patterns(arr, k, rec.masks(problem.table)))
    if name == "simplex_matching":
        others = [c for c in problem.criteria if not isinstance(c, KAnonymity)]
        if k > 2 or isinstance(rec, Patterns):
            return _skip("2-anonymity / 2-diversity (suppression or hierarchies) only")
        if not others:
            return _exact(problem, exact.two_anonymity(arr, rec, cols))
        if (len(others) == 1 and isinstance(others[0], LDiversity) and others[0].kind == "frequency"
                and others[0].l == 2):
            return _exact(problem, exact.two_diversity(arr, sens, rec, cols))
        return _skip("2-anonymity / 2-diversity only")
    raise ValueError(name)  # pragma: no cover


class _TooBig(Exception):
    pass


def run_heuristic(name, problem, opts):
    from ..heuristics import mondrian, pattern_greedy, suppression_greedy

    rec = problem.recoding
    if name == "greedy":
        if not isinstance(rec, Suppression):
            return _skip("suppression only")
        res = suppression_greedy(problem.table, problem.criteria)
    elif name == "mondrian":
        if isinstance(rec, Patterns):
            return _skip("not for patterns")
        res = mondrian(problem.table, problem.criteria, rec)
    else:
        if not _only_k(problem):
            return _skip("k-anonymity only")
        masks = rec.masks(problem.table) if isinstance(rec, Patterns) else None
        if masks is None:
            import numpy as np

            m = problem.table.m  # every mask: pattern greedy over all suppression patterns
            if m > 12:
                return _skip("all 2^m patterns: m too large")
            masks = np.array([[(i >> j) & 1 == 1 for j in range(m)] for i in range(2 ** m)])
        res = pattern_greedy(problem.table, _k(problem), masks)
        if res is not None:  # verify like every other output
            from ..verify import verify_release

            verify_release(problem.table.frame, res[0], problem.table.qi, problem.criteria,
                           sensitive=problem.table.sensitive, claimed_cost=res[1], recoding=rec)
    if res is None:
        return {"status": "infeasible"}
    return {"status": "feasible", "cost": float(res[1])}


def skip_reason(method: dict, problem) -> str | None:
    """Why ``method`` does not run on ``problem`` (not applicable, or above its size cap), or ``None``.

    The harness asks this in the parent process, so skipped pairs cost no process.
    """
    name = method["name"]
    n, t_in = problem.info["n"], problem.info["t_in"]
    rec = problem.recoding
    others = [c for c in problem.criteria if not isinstance(c, KAnonymity)]
    caps = {"brute_force": 10, "split_recursion": 16, "divide_and_conquer": 16, "kernel": 16,
            "simplex_matching": 30}
    if name in caps and name != "kernel" and n > method.get("max_rows", caps[name]):
        return f"n = {n} above max_rows {method.get('max_rows', caps[name])}"
    if name in ("divide_and_conquer", "kernel", "fpt_patterns", "pattern_greedy") and others:
        return "k-anonymity only"
    if name in ("fpt_t_in", "fpt_patterns") and t_in > method.get("max_t_in", 5):
        return f"t_in = {t_in} above max_t_in {method.get('max_t_in', 5)}"
    if name == "fpt_t_in" and (isinstance(rec, Patterns) or not (
            not others or (len(others) == 1 and isinstance(others[0], PSensitivity)
                           and len(problem.table.sensitive) == 1))):
        return "k-anonymity or p-sensitivity (one sensitive column), no patterns"
    if name == "fpt_patterns" and not isinstance(rec, Patterns):
        return "pattern-guided instances only"
    if name == "simplex_matching" and (_k(problem) > 2 or isinstance(rec, Patterns) or not (
            not others or (len(others) == 1 and isinstance(others[0], LDiversity)
                           and others[0].kind == "frequency" and others[0].l == 2))):
        return "2-anonymity / 2-diversity only"
    if name == "greedy" and not isinstance(rec, Suppression):
        return "suppression only"
    if name == "mondrian" and isinstance(rec, Patterns):
        return "not for patterns"
    return None


def run_method(method: dict, problem, time_limit: float) -> dict:
    """Run one method on one problem (in the current process)."""
    name = method["name"]
    if name == "milp":
        return run_milp(problem, method, time_limit)
    if name in EXACT:
        out = run_exact(name, problem, method)
        if out.get("status") == "optimal":  # the exact algorithms' partitions are verified too
            from ..partition import verified_release

            _, cost = verified_release(problem.table, out.pop("blocks"), problem.criteria, _recoding(problem))
            if abs(cost - out["cost"]) > 1e-9 * max(1.0, abs(cost)):
                raise AssertionError(f"{name}: partition costs {cost}, algorithm said {out['cost']}")
        out.pop("blocks", None)
        return out
    return run_heuristic(name, problem, method)


METHODS = ("milp",) + EXACT + HEURISTIC
