"""The group blocks' bound stage with and without a known target: the subgradient ascent's Polyak step towards a
guessed target (``upper=None``, the package before) against the best heuristic table's objective (a verified
table's cost, an upper bound on the optimum).

Each case runs :func:`milp_anon.reduction.block_bounds` as a timed solve does (``--stage`` seconds: the bound stage's
share of a 600-s limit is 120 s), once per variant, in one process, one after the other; the heuristic table
is computed once per case, as the solve computes it. Sensitive ``occupation``, k = 5, the QIs of
``benchmarks.sensitive_goal``. Reports the bound at the k-anonymity LP's multipliers, the ascent's best bound, its
steps and seconds, and the optimum where a committed run proved it.

    python -m benchmarks.ascent_target [--qis 4,5] [--cases "frequency l=3,..."] [--stage 120] [--out ...]
"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import provenance_line, write_results
from benchmarks.sensitive_goal import CASES, QI_ORDER, criterion

#: optima proven by committed runs (benchmarks/results/sensitive_goal*.md, repair_beside_5qi*.md), for the last column
KNOWN_OPTIMA = {(4, "frequency l=3"): 2780, (4, "distinct l=3"): 1847, (4, "recursive c=3 l=2"): 1848,
                (4, "p=3"): 1847, (4, "t=0.2 ordered"): 1911, (4, "t=0.3 ordered"): 1847,
                (5, "distinct l=3"): 8539, (5, "p=3"): 8539, (5, "recursive c=3 l=2"): 8373,
                (5, "t=0.3 ordered"): 7976}


def prepared_case(n_qi: int, case: str):
    """Adult's first ``n_qi`` QIs with sensitive ``occupation``, k = 5 and the case's criterion, prepared as a solve
    prepares it: ``(table, request, instance, grid)``, or ``None`` where the solve would stop before its model."""
    import milp_anon as ma
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.release.result import Timings
    from milp_anon.runtime.grid import ObjectiveGrid
    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult(), QI_ORDER[:n_qi], "occupation")
    request = ma.Request(ma.KAnonymity(5), criterion(case))
    instance, _, why = pipeline.prepare(table, request, Timings())
    return None if why else (table, request, instance, ObjectiveGrid.of_costs(instance.candidates.cost))


def run_case(n_qi: int, case: str, stage: float) -> list[dict]:
    from milp_anon import reduction
    from milp_anon.search.starts import best_heuristic
    from milp_anon.solvers import SolverOptions

    prepared = prepared_case(n_qi, case)
    if prepared is None:
        return []
    table, request, instance, grid = prepared
    t0 = time.perf_counter()
    heuristic = best_heuristic(table, request)
    h_seconds = time.perf_counter() - t0
    rows = []
    for variant, upper in (("guessed-target", None), ("after", heuristic.objective)):
        t0 = time.perf_counter()
        pb = reduction.block_bounds(instance, request, grid, SolverOptions(), stage, upper=upper)
        log = pb.log
        rows.append({"qis": n_qi, "case": case, "variant": variant, "heuristic": heuristic.objective,
                     "heuristic_s": round(h_seconds, 1), "target": "–" if upper is None else upper,
                     "k_lp": log.lp_bound, "start": log.block_start, "bound": pb.bound,
                     "ceil": grid.ceil(pb.bound), "steps": log.ascent_steps, "ascent_s": log.ascent_seconds,
                     "stage_s": round(time.perf_counter() - t0, 1),
                     "optimum": KNOWN_OPTIMA.get((n_qi, case), "–")})
        print(rows[-1], flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", default="4,5")
    ap.add_argument("--cases", default="frequency l=3,recursive c=3 l=2,t=0.2 equal,t=0.3 hierarchical")
    ap.add_argument("--stage", type=float, default=120.0, help="the bound stage's seconds (0.2 of a 600-s limit)")
    ap.add_argument("--out", default="benchmarks/results/ascent_target")
    a = ap.parse_args(argv)
    cases = [c.strip() for c in a.cases.split(",")]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        ap.error(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(CASES)}")
    rows = []
    t_start = time.strftime("%H:%M", time.gmtime())
    for q in (int(x) for x in a.qis.split(",")):
        for case in cases:
            rows.extend(run_case(q, case, a.stage))
    intro = (f"{provenance_line('ascent_target')}; {t_start}–{time.strftime('%H:%M', time.gmtime())} UTC; "
             f"sensitive occupation, k = 5; the bound stage's {a.stage:g} s per variant, one after the other in "
             "one process. `start`: the blocks at the k-anonymity LP's multipliers; `bound`: the best L (the "
             "larger of it and the k-anonymity LP's); `ceil`: on the objective's grid.")
    cols = [("qis", "QIs"), ("case", "criterion"), ("variant", "variant"), ("heuristic", "heuristic table"),
            ("target", "target"), ("k_lp", "k-anonymity LP"), ("start", "blocks at its π"), ("bound", "bound"),
            ("ceil", "⌈bound⌉"), ("steps", "steps"), ("ascent_s", "ascent s"), ("stage_s", "stage s"),
            ("optimum", "optimum (proven elsewhere)")]
    write_results(a.out, rows, "The group blocks' ascent with a guessed target and with the heuristic table's "
                               "cost (issue 13)", cols, intro)


if __name__ == "__main__":
    main()
