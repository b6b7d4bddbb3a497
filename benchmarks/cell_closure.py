"""Closure while interval candidates are enumerated: before/after on the real-table suite's interval cases.

Per distinct (table, QIs, intervals) of the suite's interval cases at k = 2 (the enumeration keeps cells of at least
``k`` rows; k = 2 enumerates the most): the candidate enumeration (``prepare``: collapse, candidates) with the closure
tested while the candidates are enumerated (``_cells_are_hulls``, ``_levels_are_closed``; as shipped) and with those
tests disabled (the closure after the enumeration alone, as before), one after the other in one process, each
twice; seconds, kept candidates and pairs, or the refusal (more than ``MAX_CELL_PAIRS`` pairs enumerated) and when.

Run: ``python -m benchmarks.cell_closure [SUITE.toml]`` → ``benchmarks/results/cell_closure.{md,csv}``.
"""

from __future__ import annotations

import sys
import time

from benchmarks.common import provenance_line, write_results
from milp_anon.bench.suite import build_problem, load_suite


def _enumerate(spec) -> dict:
    import milp_anon as ma
    from milp_anon.pipeline.solve import prepare
    from milp_anon.release.result import Timings

    p = build_problem(spec)
    request = ma.Request(*p.criteria, recoding=p.recoding)
    t0 = time.perf_counter()
    try:
        instance, _, _ = prepare(p.table, request, Timings())
    except ma.InputError as exc:
        return {"outcome": "refused" if "passed" in str(exc) else f"error: {exc}",
                "seconds": round(time.perf_counter() - t0, 2), "candidates": None, "pairs": None}
    c = instance.candidates
    return {"outcome": "built", "seconds": round(time.perf_counter() - t0, 2), "candidates": c.n_candidates,
            "pairs": int(c.pair_type.size)}


def main() -> None:
    from milp_anon.instance import candidates as module

    path = sys.argv[1] if len(sys.argv) > 1 else "benchmarks/suites/real_tables.toml"
    suite = load_suite(path)
    specs = [s for s in suite.instances if s.get("intervals") and int(s["k"]) == 2]
    shipped = module._cells_are_hulls, module._levels_are_closed
    rows = []
    for spec in specs:
        for rep in range(2):
            for mode in ("during", "after only"):
                if mode == "after only":
                    module._cells_are_hulls = module._levels_are_closed = lambda *a: True
                try:
                    out = _enumerate(spec)
                finally:
                    module._cells_are_hulls, module._levels_are_closed = shipped
                row = {"case": spec["name"].replace("-k2", ""), "closure": mode, "repetition": rep + 1, **out}
                print(row, flush=True)
                rows.append(row)
    columns = [("case", "case"), ("closure", "closure tested"), ("repetition", "rep"), ("outcome", "outcome"),
               ("seconds", "seconds"), ("candidates", "candidates"), ("pairs", "pairs")]
    intro = (provenance_line("cell_closure") + f". Suite `{path}`, its interval cases at k = 2, the candidate "
             "enumeration (`prepare`) with the closure tested during the enumeration (shipped) and after it only "
             "(before), alternating in one process, twice each. `refused`: more than 40,000,000 pairs enumerated.")
    write_results("benchmarks/results/cell_closure", rows, "Closure while interval candidates are enumerated",
                  columns, intro)


if __name__ == "__main__":
    main()
