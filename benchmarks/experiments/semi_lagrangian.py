"""Issue 14: the semi-Lagrangian relaxation of k-anonymity's assignment model, measured.

Beltran-Royo, Vial, Alonso-Ayuso (Comput. Optim. Appl. 51, 2012) relax the rows ``Σ_j g_ij = n_i`` to
``Σ_j g_ij <= n_i`` and price them with ``π``::

    SLR(π) = Σ_i π_i n_i + min { Σ_ij (w_j − π_i) g_ij : Σ_j g_ij <= n_i, Σ_i g_ij >= k y_j,
                                  0 <= g_ij <= n_i y_j, g integer, y binary }

``SLR(π)`` is a lower bound for every ``π`` (a feasible ``g`` has ``Σ_j g_ij = n_i``), at least the Lagrangian
``L(π)`` (the subproblem's feasible set is smaller), nondecreasing in ``π`` (its slope ``n − Σ_j g`` is ``>= 0``),
and equal to the optimum once ``π`` is large enough: zero duality gap. When the subproblem's solution places
every row, it is a table of cost ``SLR(π)``: a proof.

The subproblem is the whole problem over fewer candidates, not a decomposition. Beltran et al. drop every pair
with ``w_j − π_i >= 0`` (facility location has no lower bound on a facility's clients); here that rule is
invalid (a group short of ``k`` needs such pairs to open: one rare row of type A, ``π_A = 3``, and a frequent
type B, ``π_B = 0``, sharing a candidate of cost 1, ``k = 2``: the subproblem opens the candidate with one A
and one B at ``−2 + 1``, ``SLR = 2 =`` the optimum; without B's pair it cannot open and ``SLR`` would read 3).
What is valid: a candidate whose block value ``rc_j(π)`` (:func:`milp_anon.bounds.lagrangian.block_values`, the
subproblem's part for ``j`` without the rows' coupling) is ``>= 0`` adds ``>= 0`` whatever rows it gets, so it
can be closed: the subproblem keeps the candidates with ``rc_j(π) < 0``, each with all its pairs.

This runs the column generation to the LP's multipliers ``π_LP`` (``SLR(π_LP)`` is the LP bound: no
``rc_j < 0``), then an ascent: the subproblem solved by HiGHS (presolve off, its default threads, ``--sub-limit`` s),
its dual bound taken as the subproblem's value (valid unfinished), and ``π_i += step`` on every type the
subproblem left rows of. Per step: candidates and pairs kept, seconds, ``SLR`` bound, rows left out.

    python -m benchmarks.experiments.semi_lagrangian --qis 6 --ks 5,10 --limit 600 [--step 1] [--sub-limit 120]
"""

from __future__ import annotations

import argparse
import math
import resource
import time

import numpy as np

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

#: optimum of each ``(QIs, k)`` known from committed runs (``benchmarks/results/catalogue.md``), checked against
#: every bound this script reports
KNOWN_OPTIMA = {(6, 5): 11_136, (6, 10): 16_170}
#: HiGHS options of every subproblem. ``mip_feasibility_tolerance``: at its default (1e-6), presolve off, HiGHS
#: 1.15.1 answered "Optimal" 15 units above a feasible solution of this very subproblem (6 QIs, k = 5, the
#: ascent's second step: a root cut removed it; ``benchmarks/highs/slr_cut_tolerance.py``); at 1e-9 it found that
#: solution. Every subproblem is also solved with presolve on (``CROSS_CHECK``); the bound is the lower of the two.
#: ``threads`` stays at HiGHS's default: the subproblems run on the caller's thread
#: (``milp_anon.solvers.highs_banner``).
SUBPROBLEM_OPTIONS = dict(presolve="off", mip_rel_gap=0.0, mip_abs_gap=1e-6, mip_feasibility_tolerance=1e-9)
CROSS_CHECK = dict(presolve="on", mip_feasibility_tolerance=1e-6)


def subproblem_model(pi, n, w, pair_type, pair_cand, k, keep_cand):
    """``(model, kept pairs, candidates kept)``: the subproblem over the candidates ``keep_cand`` (bool ``(C,)``),
    columns ``y`` (one per candidate kept) then ``g`` (one per kept pair), without the constant ``Σ π_i n_i``."""
    from milp_anon.solvers.model import LinearModel

    kept = np.flatnonzero(keep_cand[pair_cand])
    pt, pc = pair_type[kept], pair_cand[kept]
    cands, cl = np.unique(pc, return_inverse=True)
    types, tl = np.unique(pt, return_inverse=True)
    K, P = cands.size, kept.size
    m = LinearModel()
    y = m.add_vars("y", K, upper=1.0, integer=True)
    g = m.add_vars("g", P, upper=n[pt], cost=w[pc] - pi[pt], integer=True)
    m.add_rows("assign", types.size, tl, g, 1.0, upper=n[types])
    m.add_rows("size", K, np.concatenate([cl, np.arange(K)]), np.concatenate([g, y]),
               np.concatenate([np.ones(P), np.full(K, -float(k))]), lower=0.0)
    m.add_rows("link", P, np.concatenate([np.arange(P), np.arange(P)]), np.concatenate([g, y[cl]]),
               np.concatenate([np.ones(P), -n[pt]]), upper=0.0)
    return m, kept, K


def subproblem(pi, n, w, pair_type, pair_cand, k, keep_cand, time_limit, options=None):
    """``(value's lower bound, value, status, g over the kept pairs, the kept pairs)`` of the subproblem over
    the candidates ``keep_cand`` (bool ``(C,)``); ``value`` is the best solution's (``None`` without one)."""
    import highspy

    from milp_anon.solvers.highs_banner import new_highs

    m, kept, K = subproblem_model(pi, n, w, pair_type, pair_cand, k, keep_cand)
    if K == 0:
        return 0.0, 0.0, "optimal", np.zeros(0), kept
    h = new_highs()
    for key, v in {**SUBPROBLEM_OPTIONS, **(options or {}), "time_limit": float(time_limit)}.items():
        h.setOptionValue(key, v)
    m.to_highs(h)
    h.run()
    info, status = h.getInfo(), h.getModelStatus()
    sol = np.asarray(h.getSolution().col_value) if info.primal_solution_status else None
    value = info.objective_function_value if sol is not None else None
    dual = info.mip_dual_bound
    name = "optimal" if status == highspy.HighsModelStatus.kOptimal else h.modelStatusToString(status)
    return float(dual), value, name, (None if sol is None else np.rint(sol[K:])), kept


def run_one(job):
    q, k, limit, step, sub_limit = job
    import milp_anon as ma
    from milp_anon import reduction
    from milp_anon.bounds import lagrangian
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.release.result import Timings
    from milp_anon.solvers.options import SolverOptions
    from milp_anon.tables.datasets import load_adult

    t0 = time.perf_counter()
    table = ma.Table.from_frame(load_adult(), list(ADULT_QI[:q]))
    instance, _, why = pipeline.prepare(table, ma.Request(ma.KAnonymity(k)), Timings())
    assert not why, why
    c, ty = instance.candidates, instance.types
    n, w = ty.counts.astype(float), c.cost.astype(float)
    keywords = reduction._column_generation_keywords(SolverOptions(time_limit=limit))
    keywords["cliques"] = keywords["rank_rows"] = False  # the plain LP's multipliers: SLR(π_LP) = LP
    cg = lagrangian.column_generation(n, w, c.pair_type, c.pair_cand, k, time_limit=limit / 2, final_prices=False,
                                      **keywords)
    cg_s = time.perf_counter() - t0
    pi = np.array(cg.pi, dtype=float)
    steps, best, proven, table_cost = [], -math.inf, False, None
    while time.perf_counter() - t0 < limit and not proven:
        bv = lagrangian.block_values(pi, n, w, c.pair_type, c.pair_cand, k)
        keep = bv.rc < 1e-9
        left = limit - (time.perf_counter() - t0)
        s0 = time.perf_counter()
        dual, value, status, g, kept = subproblem(pi, n, w, c.pair_type, c.pair_cand, k, keep, min(sub_limit, left))
        left = max(1.0, limit - (time.perf_counter() - t0))
        check = subproblem(pi, n, w, c.pair_type, c.pair_cand, k, keep, min(sub_limit, left), CROSS_CHECK)
        base = float(pi @ n)
        bound = base + min(dual, check[0])
        best = max(best, bound)
        row = dict(step=len(steps), candidates=int(keep.sum()), pairs=int(kept.size), L=round(bv.bound, 2),
                   slr_bound=round(bound, 2), status=status, off=round(base + dual, 2), on=round(base + check[0], 2),
                   on_status=check[2], seconds=round(time.perf_counter() - s0, 1))
        if g is not None:
            placed = np.bincount(c.pair_type[kept], weights=g, minlength=n.size)
            short = n - placed
            row["rows_left"] = int(short.sum())
            row["types_left"] = int((short > 0.5).sum())
            if row["rows_left"] == 0:  # a table: every row placed, cost Σ w g; proven once the bound reaches it
                table_cost = float(w[c.pair_cand[kept]] @ g)
                proven = table_cost <= math.ceil(best - 1e-6) + 1e-9
            pi = pi + step * (short > 0.5)
        else:
            pi = pi + step  # no solution in time: no direction known
        steps.append(row)
        print(row, flush=True)
    known = KNOWN_OPTIMA.get((q, k))
    if known is not None:
        assert best <= known + 1e-6, f"SLR bound {best} above the known optimum {known}"
    return dict(qis=q, k=k, limit=limit, step=step, sub_limit=sub_limit, pairs=int(c.n_pairs),
                candidates=int(c.n_candidates), lp=round(float(cg.bound), 2), lp_converged=bool(cg.converged),
                cg_s=round(cg_s, 1), best_slr=round(best, 2), best_slr_ceil=math.ceil(best - 1e-6),
                known_optimum=known, proven=proven, table_cost=table_cost, n_steps=len(steps),
                seconds=round(time.perf_counter() - t0, 1),
                peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), steps=steps)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", type=int, default=6)
    ap.add_argument("--ks", default="5,10")
    ap.add_argument("--limit", type=float, default=600.0)
    ap.add_argument("--step", type=float, default=1.0)
    ap.add_argument("--sub-limit", type=float, default=120.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    out = a.out or f"benchmarks/results/semi_lagrangian_{a.qis}qi"
    jobs = [(a.qis, int(k), a.limit, a.step, a.sub_limit) for k in a.ks.split(",")]
    rows = run_serial(run_one, jobs)
    columns = [("qis", "QIs"), ("k", "k"), ("pairs", "pairs"), ("lp", "LP (CG)"), ("cg_s", "CG s"),
               ("best_slr", "best SLR bound"), ("best_slr_ceil", "rounded up"), ("known_optimum", "optimum known"),
               ("proven", "proven"), ("table_cost", "table of the last step"), ("n_steps", "steps"),
               ("seconds", "s"), ("tree_peak_mb", "peak MB")]
    intro = provenance_line("semi_lagrangian") + f"; {a.limit:g} s, step {a.step:g}, subproblem ≤ {a.sub_limit:g} s."
    write_results(out, rows, "Semi-Lagrangian relaxation of k-anonymity (UCI Adult, 30,162 rows)", columns, intro)


if __name__ == "__main__":
    main()
