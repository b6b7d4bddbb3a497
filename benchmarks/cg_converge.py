"""Issue 14: where k-anonymity's column generation goes when it is given the time: its bound per round.

At 8 QIs the reduction's column generation stops at its share of the limit (about 300 s of 600) unconverged,
so the bound reported there is its last smoothed ``L(π)``, not the LP's. This runs
:func:`milp_anon.bounds.lagrangian.column_generation` alone, as the reduction calls it (cliques and rank rows per
``Tuning.cliques`` / ``rank_rows``, the master's HiGHS options), for ``--limit`` seconds, and records each
round: seconds, the master's value (when solved to optimality), the best ``L`` so far. One run per variant,
one at a time, each in its own process. Variants (``Tuning.master_highs_options``): ``default`` (HiGHS's dual
simplex, hot-started), ``primal`` (``simplex_strategy=4``: the last basis stays primal feasible when columns
enter), ``ipm`` (interior point without crossover: a cold start per master, but central duals).

    python -m benchmarks.cg_converge --qis 8 --k 5 --limit 1800 [--variants default,primal,ipm] [--out ...]
"""

from __future__ import annotations

import argparse
import logging
import re
import resource
import time

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

_ROUND = re.compile(r"column generation round (\d+): master LP ([-\d.inf]+)( \(unfinished\))?, Lagrangian bound "
                    r"([-\d.]+) \(best ([-\d.]+),.*master (\d+) candidates, (\d+) pairs, ([\d.]+) s")


class _Rounds(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.rows = []

    def emit(self, record):
        m = _ROUND.search(record.getMessage())
        if m:
            self.rows.append(dict(round=int(m[1]), master_lp=None if m[3] else float(m[2]), bound=float(m[5]),
                                  candidates=int(m[6]), pairs=int(m[7]), seconds=float(m[8])))


VARIANTS = {"default": {}, "primal": {"simplex_strategy": 4}, "ipm": {"solver": "ipm", "run_crossover": "off"}}


def run_one(job):
    q, k, limit, variant = job
    import numpy as np

    import milp_anon as ma
    from milp_anon import reduction
    from milp_anon.bounds import lagrangian
    from milp_anon.pipeline import solve as pipeline
    from milp_anon.release.result import Timings
    from milp_anon.solvers.options import SolverOptions
    from milp_anon.tables.datasets import load_adult

    table = ma.Table.from_frame(load_adult(), list(ADULT_QI[:q]))
    instance, _, why = pipeline.prepare(table, ma.Request(ma.KAnonymity(k)), Timings())
    assert not why, why
    c, ty = instance.candidates, instance.types
    n, w = ty.counts.astype(float), c.cost.astype(float)
    options = SolverOptions(time_limit=limit, tuning=ma.Tuning(master_highs_options=VARIANTS[variant]))
    handler = _Rounds()
    lg = logging.getLogger(lagrangian.__name__)
    lg.addHandler(handler)
    lg.setLevel(logging.INFO)
    keywords = reduction._column_generation_keywords(options)
    t0 = time.perf_counter()
    cg = lagrangian.column_generation(n, w, c.pair_type, c.pair_cand, k, time_limit=limit, final_prices=False,
                                      tuning=options.tuning, **keywords)
    seconds = time.perf_counter() - t0
    first = {}
    for r in handler.rows:  # the first second at which the best bound passed each mark
        for mark in (0.995, 0.999, 0.9999):
            if mark not in first and r["bound"] >= mark * cg.bound:
                first[mark] = r["seconds"]
    return dict(qis=q, k=k, variant=variant, limit=limit, pairs=int(c.n_pairs), candidates=int(c.n_candidates),
                bound=float(cg.bound), lp_value=float(cg.lp_value), converged=bool(cg.converged),
                rounds=int(cg.iterations), cliques=len(cg.cliques or []), seconds=round(seconds, 1),
                at_300=max((r["bound"] for r in handler.rows if r["seconds"] <= 300), default=None),
                at_600=max((r["bound"] for r in handler.rows if r["seconds"] <= 600), default=None),
                s_to_995=first.get(0.995), s_to_999=first.get(0.999), s_to_9999=first.get(0.9999),
                master_candidates=cg.master_candidates, master_pairs=cg.master_pairs,
                peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                trajectory=[(r["round"], r["seconds"], r["master_lp"], round(r["bound"], 2)) for r in handler.rows],
                options=str(sorted({**dict(options.tuning.master_highs_options), **keywords["highs_options"]}.items())),
                np_version=np.__version__)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", type=int, default=8)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--limit", type=float, default=1800.0)
    ap.add_argument("--variants", default="default", help="comma-separated: " + ", ".join(VARIANTS))
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    out = a.out or f"benchmarks/results/cg_converge_{a.qis}qi_k{a.k}"
    rows = run_serial(run_one, [(a.qis, a.k, a.limit, v) for v in a.variants.split(",")])
    columns = [("qis", "QIs"), ("k", "k"), ("variant", "masters"), ("pairs", "pairs"), ("bound", "best L"), ("lp_value", "last master LP"),
               ("converged", "converged"), ("rounds", "rounds"), ("cliques", "cliques + rank rows"),
               ("at_300", "best L at 300 s"), ("at_600", "best L at 600 s"), ("s_to_995", "s to 99.5 %"),
               ("s_to_999", "s to 99.9 %"), ("s_to_9999", "s to 99.99 %"), ("seconds", "s"),
               ("master_pairs", "master pairs"), ("tree_peak_mb", "peak MB")]
    intro = provenance_line("cg_converge") + f"; {a.limit:g} s; the column generation alone, in its own process."
    write_results(out, rows, "k-anonymity's column generation given the time (UCI Adult, 30,162 rows)", columns,
                  intro)


if __name__ == "__main__":
    main()
