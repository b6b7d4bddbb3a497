"""The methods the harness runs — the MILP, the papers' exact algorithms, the heuristics — as one registry.

Each :class:`Method` states once when it applies and its size cap
(:attr:`Method.skip`: why not, or ``None``) and how it runs
(:attr:`Method.run`). A run returns a dict with ``status`` (``optimal``,
``time_limit``, ``gap_limit``, ``no_solution``, ``infeasible`` for the MILP
and the exact algorithms; ``feasible`` for a heuristic; ``skipped`` when the
method does not apply or the instance is above its size cap), ``cost``,
``bound`` and ``sizes``. Every table a method produces passes the
independent verifier before its cost is reported.

A suite's method entry may override a cap: ``max_rows`` (brute force, the
divide-and-conquer, the kernel's kernel size, split recursion, simplex
matching) and ``max_t_in`` (the FPT algorithms).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from milp_anon import exact
from milp_anon.api import OPTION_FIELDS as _OPTION_FIELDS
from milp_anon.api import ModelOptions, Request, split_options
from milp_anon.heuristics import mondrian, pattern_greedy, suppression_greedy
from milp_anon.privacy.criteria import KAnonymity, LDiversity, PSensitivity
from milp_anon.privacy.verify import verify_release
from milp_anon.release.partition import verified_release
from milp_anon.search.starts import ALL_MASKS_MAX_M, all_masks
from milp_anon.solvers import SolverOptions
from milp_anon.tables.recoding import Patterns, Suppression

__all__ = ["EXACT", "HEURISTIC", "METHODS", "Method", "run_method", "skip_reason"]


@dataclass(frozen=True)
class Method:
    """One benchmark method.

    ``skip(problem, entry)`` says why it does not run on ``problem`` (not
    applicable, or above its cap; ``entry`` is the suite's method entry, which
    may override caps), ``run(problem, entry, time_limit)`` runs it in the
    current process.
    """

    name: str
    kind: str  # "milp" | "exact" | "heuristic"
    skip: Callable
    run: Callable


# --- what an instance is --------------------------------------------------------------------

def _others(problem):
    return [c for c in problem.criteria if not isinstance(c, KAnonymity)]


def _k(problem) -> int:
    return max(c.k for c in problem.criteria if isinstance(c, KAnonymity))


def _arrays(problem):
    t = problem.table
    arr = t.frame[list(t.qi)].astype(str).to_numpy(dtype=object)
    sens = {c: t.frame[c].astype(str).tolist() for c in t.sensitive}
    return arr, sens, list(t.qi)


def _recoding(problem):
    return None if isinstance(problem.recoding, Suppression) else problem.recoding


def _is_p_sensitivity(problem) -> bool:
    """k-anonymity with at most one p-sensitivity criterion on one sensitive column."""
    o = _others(problem)
    return not o or (len(o) == 1 and isinstance(o[0], PSensitivity) and len(problem.table.sensitive) == 1)


def _is_two_diversity(problem) -> bool:
    """k-anonymity with at most frequency 2-diversity."""
    o = _others(problem)
    return not o or (len(o) == 1 and isinstance(o[0], LDiversity) and o[0].kind == "frequency" and o[0].l == 2)


# --- applicability and caps ------------------------------------------------------------------

def _rows_cap(default):
    def skip(problem, entry):
        cap = entry.get("max_rows", default)
        return f"n = {problem.info['n']} above max_rows {cap}" if problem.info["n"] > cap else None
    return skip


def _t_in_cap(problem, entry):
    cap = entry.get("max_t_in", 5)
    return f"t_in = {problem.info['t_in']} above max_t_in {cap}" if problem.info["t_in"] > cap else None


def _all(*checks):
    """The first reason of ``checks`` (each ``(problem, entry) -> str | None``), or ``None``."""
    def skip(problem, entry):
        return next((why for why in (c(problem, entry) for c in checks) if why), None)
    return skip


def _when(predicate, why):
    return lambda problem, entry: None if predicate(problem) else why


_k_only = _when(lambda p: not _others(p), "k-anonymity only")
_no_patterns = _when(lambda p: not isinstance(p.recoding, Patterns), "not for patterns")


# --- runs -----------------------------------------------------------------------------------

def _exact_result(cost_blocks):
    cost, blocks = cost_blocks
    if cost is None:
        return {"status": "infeasible"}
    return {"status": "optimal", "cost": float(cost), "bound": float(cost), "blocks": blocks}


def _run_milp(problem, entry, time_limit):
    # the entry's model and solver options (its time limit is the run's)
    model_kw, solver_kw = split_options({k: v for k, v in entry.items() if k in _OPTION_FIELDS and k != "time_limit"})
    request = Request(problem.criteria, recoding=problem.recoding,
                      model=ModelOptions(**{**model_kw, **problem.model_options}))
    r = request.solve(problem.table, SolverOptions(time_limit=time_limit, **solver_kw))
    return {"status": str(r.status), "cost": r.cost, "bound": r.bound, "gap": r.gap, "sizes": r.size.as_dict(),
            "note": r.reason or ""}


def _run_exact(algorithm):
    def run(problem, entry, time_limit):
        arr, sens, cols = _arrays(problem)
        return _exact_result(algorithm(problem, entry, arr, sens, _recoding(problem), cols))
    return run


def _kernel(problem, entry, time_limit):
    arr, _, cols = _arrays(problem)
    cap, kernel_rows = entry.get("max_rows", 16), []

    def solver(a, k_, r_, c_):
        kernel_rows.append(a.shape[0])
        if a.shape[0] > cap:
            raise _TooBig(f"kernel of {a.shape[0]} rows above max_rows {cap}")
        return exact.divide_and_conquer(a, k_, r_, c_)
    try:
        out = _exact_result(exact.kernel_then(arr, _k(problem), solver, _recoding(problem), cols))
    except _TooBig as exc:
        return {"status": "skipped", "note": str(exc)}
    out["note"] = f"kernel {kernel_rows[0] if kernel_rows else 0} of {arr.shape[0]} rows"
    return out


class _TooBig(Exception):
    pass


def _fpt_t_in(problem, entry, arr, sens, rec, cols):
    o = _others(problem)
    if not o:
        return exact.fpt_t_in(arr, _k(problem), rec, cols)
    return exact.fpt_t_in(arr, _k(problem), rec, cols, p=o[0].p, sensitive=next(iter(sens.values())))


def _simplex_matching(problem, entry, arr, sens, rec, cols):
    if not _others(problem):
        return exact.two_anonymity(arr, rec, cols)
    return exact.two_diversity(arr, sens, rec, cols)


def _heuristic(run):
    def wrapped(problem, entry, time_limit):
        res = run(problem)
        if res is None:
            return {"status": "infeasible"}
        return {"status": "feasible", "cost": float(res[1])}
    return wrapped


def _pattern_greedy(problem):
    rec = problem.recoding
    masks = rec.masks(problem.table) if isinstance(rec, Patterns) else all_masks(problem.table.m)
    res = pattern_greedy(problem.table, _k(problem), masks)
    if res is not None:  # verified like every other output
        verify_release(problem.table.frame, res[0], problem.table.qi, problem.criteria,
                       sensitive=problem.table.sensitive, claimed_cost=res[1], recoding=rec)
    return res


_METHODS = [
    Method("milp", "milp", lambda problem, entry: None, _run_milp),
    Method("brute_force", "exact", _rows_cap(10),
           _run_exact(lambda p, e, a, s, r, c: exact.brute_force(a, p.criteria, s, r, c))),
    Method("divide_and_conquer", "exact", _all(_rows_cap(16), _k_only),
           _run_exact(lambda p, e, a, s, r, c: exact.divide_and_conquer(a, _k(p), r, c))),
    Method("kernel", "exact", _k_only, _kernel),
    Method("fpt_t_in", "exact",
           _all(_t_in_cap, _when(lambda p: not isinstance(p.recoding, Patterns) and _is_p_sensitivity(p),
                                 "k-anonymity or p-sensitivity (one sensitive column), no patterns")),
           _run_exact(_fpt_t_in)),
    Method("fpt_patterns", "exact",
           _all(_k_only, _t_in_cap, _when(lambda p: isinstance(p.recoding, Patterns), "pattern-guided instances only")),
           _run_exact(lambda p, e, a, s, r, c: exact.fpt_patterns(a, _k(p), r.masks(p.table)))),
    Method("split_recursion", "exact", _rows_cap(16),
           _run_exact(lambda p, e, a, s, r, c: exact.split_recursion(a, p.criteria, s, r, c))),
    Method("simplex_matching", "exact",
           _all(_rows_cap(30), _when(lambda p: _k(p) <= 2 and not isinstance(p.recoding, Patterns)
                                     and _is_two_diversity(p), "2-anonymity / 2-diversity only")),
           _run_exact(_simplex_matching)),
    Method("greedy", "heuristic", _when(lambda p: isinstance(p.recoding, Suppression), "suppression only"),
           _heuristic(lambda p: suppression_greedy(p.table, p.criteria))),
    Method("mondrian", "heuristic", _no_patterns, _heuristic(lambda p: mondrian(p.table, p.criteria, p.recoding))),
    Method("pattern_greedy", "heuristic",
           _all(_k_only, _when(lambda p: isinstance(p.recoding, Patterns) or p.table.m <= ALL_MASKS_MAX_M,
                               f"all 2^m patterns: m above {ALL_MASKS_MAX_M}")),
           _heuristic(_pattern_greedy)),
]
METHODS = {m.name: m for m in _METHODS}
EXACT = tuple(m.name for m in _METHODS if m.kind == "exact")
HEURISTIC = tuple(m.name for m in _METHODS if m.kind == "heuristic")


def skip_reason(entry: dict, problem) -> str | None:
    """Why the suite's method ``entry`` does not run on ``problem`` (asked in the parent: skips cost no process)."""
    method = METHODS[entry["name"]]
    if problem.model_options and method.kind != "milp":
        return "record suppression: the MILP only"
    return method.skip(problem, entry)


def run_method(entry: dict, problem, time_limit: float) -> dict:
    """Run the suite's method ``entry`` on ``problem`` in the current process."""
    method = METHODS[entry["name"]]
    why = skip_reason(entry, problem)
    if why:
        return {"status": "skipped", "note": why}
    out = method.run(problem, entry, time_limit)
    if method.kind == "exact" and out.get("status") == "optimal":  # the exact algorithms' partitions are verified too
        _, cost = verified_release(problem.table, out.pop("blocks"), problem.criteria, _recoding(problem))
        if abs(cost - out["cost"]) > 1e-9 * max(1.0, abs(cost)):
            raise AssertionError(f"{method.name}: partition costs {cost}, algorithm said {out['cost']}")
    out.pop("blocks", None)
    return out
