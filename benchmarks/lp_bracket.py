"""Issue 14: where the LP bound of k-anonymity by suppression lies at 7–8 QIs, bracketed from both sides.

The reduction's bound at 8 QIs is the column generation's best ``L(π)``, which
is cut by time (``milp_anon.bounds.lagrangian.column_generation``). Whether the gap
to the best table is the column generation's (not converged) or the LP's own
(a weak relaxation) decides what to build next. This script brackets the LP
over every candidate:

* **below**: the best ``L(π)`` (Lagrangian bound, valid for every ``π``);
* **above**: the value of a restricted master solved to its optimum with
  every link ``g_ij <= n_i y_j`` of its pairs met: a feasible point of the LP
  over all candidates (its columns are a subset), so its value is at least
  the LP's.

Per case: the column generation as the reduction runs it, within ``--limit``
seconds (as in ``benchmarks/scale.py`` at 600 s: half the limit, minus the
set-up); then its master is finished: solved cold to its optimum, the links
its point violates added and solved again (warm: new rows keep the basis
dual feasible), until none is violated; the master's exact
duals priced (``L`` at them may raise the lower end); with ``--exact-rounds``
more, the candidates they price out enter and the master is finished again
(unsmoothed column generation with exact masters) within ``--finish-limit``.
The master is solved cold because continuing the warm basis stalled: at
8 QIs, k = 5, one warm run went on for more than 10 minutes where a cold
solve of a similar master took 26–62 s (``lp_bracket_8qi.md``).

    python -m benchmarks.lp_bracket [--cases "8:5:31596,8:10:40573"] [--limit 230]
        [--finish-limit 1200] [--exact-rounds 3] [--out benchmarks/results/lp_bracket]

``QIs:k:table``: ``table`` is the best table known (for the gap the bracket
implies; not computed here).
"""

from __future__ import annotations

import argparse
import resource
import time

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

QI = list(ADULT_QI)
CASES = "8:5:31596,8:10:40573"


def finish(master, time_limit: float):
    """Solve ``master`` to its optimum with every link of its pairs met (:meth:`RestrictedMaster.solve`, which
    re-solves warm after adding the violated links: new rows keep the basis dual feasible), from a cold
    start; ``(value, duals)``, ``(None, None)`` when ``time_limit`` ran out first."""
    import math

    if time_limit <= 0:
        return None, None
    master.h.clearSolver()  # cold: continuing the warm basis after new columns stalled (docstring)
    solved = master.solve(time_limit)
    if solved is None or not math.isfinite(solved[0]):
        return None, None
    return solved


def run_one(job):
    q, k, table_cost, limit, finish_limit, exact_rounds = job
    import numpy as np

    import milp_anon as ma
    from milp_anon.bounds import lagrangian
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.release.result import Timings
    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult(), QI[:q])
    instance, _, why = pipeline.prepare(table, ma.Request(ma.KAnonymity(k)), Timings())
    assert not why, why
    c, ty = instance.candidates, instance.types
    n, w = ty.counts.astype(float), c.cost.astype(float)
    T = ty.t_in
    masters = []

    class Kept(lagrangian.RestrictedMaster):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            masters.append(self)

    lagrangian.RestrictedMaster = Kept  # this process only (run_serial: one process per job)
    t0 = time.perf_counter()
    cg = lagrangian.column_generation(n, w, c.pair_type, c.pair_cand, k, time_limit=limit)
    row = {"qis": q, "k": k, "pairs": c.n_pairs, "table": table_cost, "cg_bound": cg.bound,
           "cg_rounds": cg.iterations, "cg_s": cg.seconds, "cg_converged": cg.converged}
    master, lower, upper, rounds = masters[0], cg.bound, None, 0
    t1 = time.perf_counter()
    while True:
        left = finish_limit - (time.perf_counter() - t1)
        value, duals = finish(master, left)
        if value is None:
            break
        upper = value if upper is None else min(upper, value)
        prices = lagrangian.block_prices(duals[:T], n, w, c.pair_type, c.pair_cand, k)
        lower = max(lower, prices.bound)
        enter = np.flatnonzero((prices.rc < -1e-9) & ~master.in_master)
        pair_enter = master.priced_pairs(duals)
        if (enter.size == 0 and pair_enter.size == 0) or lower >= upper - 1e-6 or rounds >= exact_rounds:
            break
        rounds += 1
        master.add_pairs(pair_enter)
        if enter.size:
            master.add_with_pairs(enter, prices.take > 0)
    row.update(lower=lower, upper=upper, finish_s=time.perf_counter() - t1, exact_rounds=rounds,
               width=None if upper is None else upper - lower,
               lp_gap_at_least=None if upper is None else 100.0 * (table_cost - upper) / table_cost,
               total_s=time.perf_counter() - t0,
               peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=CASES, help="QIs:k:best table known, comma-separated")
    ap.add_argument("--limit", type=float, default=230.0, help="seconds of column generation")
    ap.add_argument("--finish-limit", type=float, default=1200.0, help="seconds to finish the master(s)")
    ap.add_argument("--exact-rounds", type=int, default=3, help="exact-master pricing rounds after the first")
    ap.add_argument("--out", default="benchmarks/results/lp_bracket")
    a = ap.parse_args(argv)
    cases = [tuple(int(x) for x in s.split(":")) for s in a.cases.split(",")]
    rows = run_serial(run_one, [(q, k, u, a.limit, a.finish_limit, a.exact_rounds) for q, k, u in cases])
    columns = [("qis", "QIs"), ("k", "k"), ("pairs", "pairs"), ("cg_bound", "column generation's bound"),
               ("cg_rounds", "CG rounds"), ("cg_s", "CG s"), ("lower", "LP ≥"), ("upper", "LP ≤ (master)"),
               ("width", "bracket"), ("exact_rounds", "exact rounds"),
               ("finish_s", "finish s"), ("table", "best table known"), ("lp_gap_at_least", "table over the LP ≥ (%)"),
               ("peak_mb", "peak MB")]
    intro = (provenance_line("lp_bracket") + f"; k-anonymity by suppression, QIs {', '.join(QI)} (the first q); "
             f"column generation {a.limit:g} s, then the master finished within {a.finish_limit:g} s "
             f"(at most {a.exact_rounds} exact pricing rounds); one case at a time, each in its own process.")
    write_results(a.out, rows, "The LP bound of k-anonymity bracketed: the column generation's L(π) below, a "
                  "finished restricted master above (UCI Adult, 30,162 rows)", columns, intro)


if __name__ == "__main__":
    main()
