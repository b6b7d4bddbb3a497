"""The second ascent with and without the steps it knows (``Tuning.known_steps``): from the same start, towards
the same target, for the same seconds, in one process one after the other.

The subgradient steps are deterministic: from a point with θ, no last direction and ``stale = 0`` (a fresh start)
they are fixed. Before, each restart of the second ascent solved its start again and ran θ down from
``THETA_START`` through the values the last ascent had already tried from that point, and after an ascent without
gain it started the same steps again, to the end of its time. ``after`` skips what is known
(``formulations/reduction.md``, "The second ascent").

Each case runs the bound stage as a timed solve does (:func:`milp_anon.reduction.block_bounds`, ``--stage`` seconds),
then :func:`milp_anon.bounds.subgradient.second_ascent` from that stage's start for ``--seconds`` with each variant, towards
``--upper`` (default: the best table known for the case). Reports the bound, the steps, the points priced and how
many of them were new, and the seconds the ascent used (``after`` may end early: nothing left to try).
Sensitive ``occupation``, k = 5, the QIs of ``benchmarks.sensitive_goal``.

    python -m benchmarks.known_steps [--qis 5] [--cases "frequency l=3"] [--stage 120] [--seconds 180] [--out ...]
"""

from __future__ import annotations

import argparse
import time

from benchmarks.ascent_target import prepared_case
from benchmarks.common import provenance_line, write_results
from benchmarks.sensitive_goal import cases_and_qis

#: the best verified table known per case (benchmarks/results/issue13_frontier.md): the ascent's target
BEST_TABLES = {(5, "frequency l=3"): 11803, (4, "t=0.2 equal"): 17338, (4, "t=0.3 equal"): 8448,
               (6, "frequency l=3"): 15693}


def run_case(n_qi: int, case: str, stage: float, seconds: float, upper: float | None) -> list[dict]:
    import numpy as np

    from milp_anon import reduction
    from milp_anon.bounds import blocks, subgradient
    from milp_anon.solvers import SolverOptions

    prepared = prepared_case(n_qi, case)
    if prepared is None:
        return []
    _, request, instance, grid = prepared
    upper = BEST_TABLES[(n_qi, case)] if upper is None else upper
    t0 = time.perf_counter()
    pb = reduction.block_bounds(instance, request, grid, SolverOptions(), stage, upper=upper)
    stage_s = time.perf_counter() - t0
    rb, pi0, first = pb.ascent
    real = blocks.RequestBlocks.prices
    rows = []
    for variant, known in (("repeat-steps", False), ("after", True)):
        seen = []

        def recorded(self, pi, betas=None):
            seen.append(hash((np.asarray(pi).tobytes(),) + tuple(np.asarray(b).tobytes() for b in (betas or ()))))
            return real(self, pi, betas)

        blocks.RequestBlocks.prices = recorded
        try:
            t0 = time.perf_counter()
            asc = subgradient.second_ascent(rb, pi0, first, upper=upper, time_limit=seconds, known_steps=known)
            used = time.perf_counter() - t0
        finally:
            blocks.RequestBlocks.prices = real
        rows.append({"qis": n_qi, "case": case, "variant": variant, "target": upper,
                     "stage_bound": round(first.bound, 2), "stage_s": round(stage_s, 1),
                     "bound": round(asc.bound, 2), "ceil": grid.ceil(asc.bound), "steps": asc.iterations,
                     "priced": len(seen), "new_points": len(set(seen)), "seconds": round(used, 1)})
        print(rows[-1], flush=True)
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", default="5")
    ap.add_argument("--cases", default="frequency l=3")
    ap.add_argument("--stage", type=float, default=120.0, help="the bound stage's seconds (0.2 of a 600-s limit)")
    ap.add_argument("--seconds", type=float, default=180.0, help="each variant's second ascent")
    ap.add_argument("--upper", type=float, default=None, help="the target (default: the best table known)")
    ap.add_argument("--out", default="benchmarks/results/known_steps")
    a = ap.parse_args(argv)
    cases, qis = cases_and_qis(ap, a)
    missing = [f"{q} QIs, {c}" for q in qis for c in cases if a.upper is None and (q, c) not in BEST_TABLES]
    if missing:
        ap.error(f"no best table known for {'; '.join(missing)}: give --upper")
    rows = []
    t_start = time.strftime("%H:%M", time.gmtime())
    for q in qis:
        for case in cases:
            rows.extend(run_case(q, case, a.stage, a.seconds, a.upper))
    intro = (f"{provenance_line('known_steps')}; {t_start}–{time.strftime('%H:%M', time.gmtime())} UTC; "
             f"sensitive occupation, k = 5; the bound stage's {a.stage:g} s once, then each variant's second "
             f"ascent for {a.seconds:g} s from its start, one after the other in one process. `priced`: the "
             "points (π, β) whose blocks were solved; `new`: how many of them differ.")
    cols = [("qis", "QIs"), ("case", "criterion"), ("variant", "variant"), ("target", "target"),
            ("stage_bound", "stage's bound"), ("stage_s", "stage s"), ("bound", "bound"), ("ceil", "⌈bound⌉"),
            ("steps", "steps"), ("priced", "priced"), ("new_points", "new"), ("seconds", "ascent s")]
    write_results(a.out, rows, "The second ascent with and without the steps it knows (issue 13)", cols, intro)


if __name__ == "__main__":
    main()
