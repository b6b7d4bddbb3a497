"""The heuristic tables for sensitive criteria on Adult: the plain suppression greedy against the pattern greedy
with criteria, issue 13's sensitive cases (occupation, k = 5) at 4–7 QIs.

Both heuristics run in one process, one after the other, per case; each table
is verified (the heuristics verify what they return). Their costs are
deterministic; the seconds are wall time on this machine.

    python -m benchmarks.criteria_greedy [--qis 4,5,6,7] [--cases ...] [--out benchmarks/results/criteria_greedy]
"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import provenance_line, write_results
from benchmarks.sensitive_goal import CASES, QI_ORDER, cases_and_qis, criterion


def run(qis, cases):
    import milp_anon as ma
    from milp_anon.heuristics import criteria_pattern_greedy, suppression_greedy
    from milp_anon.search.starts import all_masks
    from milp_anon.tables.datasets import load_adult

    frame = load_adult()
    rows = []
    for q in qis:
        table = ma.Table.from_frame(frame, QI_ORDER[:q], "occupation")
        for case in cases:
            crit = [ma.KAnonymity(5), criterion(case)]
            t0 = time.perf_counter()
            plain = suppression_greedy(table, crit)
            t1 = time.perf_counter()
            trim = criteria_pattern_greedy(table, crit, all_masks(q))
            t2 = time.perf_counter()
            a, b = (None if plain is None else plain[1]), (None if trim is None else trim[1])
            rows.append({"qis": q, "case": crit[1].describe(), "suppression_greedy": a, "greedy_s": t1 - t0,
                         "pattern_criteria": b, "pattern_s": t2 - t1,
                         "ratio": None if a is None or b is None else b / a})
            print(rows[-1], flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", default="4,5,6,7")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", default="benchmarks/results/criteria_greedy")
    a = ap.parse_args(argv)
    cases, qis = cases_and_qis(ap, a)
    rows = run(qis, cases)
    intro = (f"{provenance_line('criteria_greedy')}; sensitive occupation, k = 5, QIs in the order "
             f"{', '.join(QI_ORDER)}; both heuristics in one process, one after the other. Cost = suppressed "
             "cells of the verified table; ratio = pattern greedy with criteria / suppression greedy.")
    cols = [("qis", "QIs"), ("case", "criterion (with k = 5)"), ("suppression_greedy", "suppression greedy"),
            ("greedy_s", "s"), ("pattern_criteria", "pattern greedy with criteria"), ("pattern_s", "s"),
            ("ratio", "ratio")]
    write_results(a.out, rows, "Heuristic tables for sensitive criteria on UCI Adult (30,162 rows)", cols, intro)


if __name__ == "__main__":
    main()
