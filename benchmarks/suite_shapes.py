"""The shapes of a suite's tables: rows, row types ``t_in`` per QI count, rows per type (issue 93).

Per distinct (table, QI columns, recoding) of the suite (criteria left out: the shape is the table's): rows,
``t_in``, mean rows per type, the share of types of one row and of rows in types smaller than 5 and 10 (rows that
k-anonymity must move: the hard part of a table with few rows per type).

Run: ``python -m benchmarks.suite_shapes [SUITE.toml]`` (default ``benchmarks/suites/real_tables.toml``) →
``benchmarks/results/<suite>_shapes.{md,csv}``.
"""

from __future__ import annotations

import sys

import numpy as np

from benchmarks.common import provenance_line, write_results
from milp_anon.bench.suite import build_problem, load_suite


def shape(spec: dict) -> dict:
    p = build_problem(spec)
    _, counts = np.unique(p.table.codes, axis=0, return_counts=True)
    n = int(counts.sum())
    table = spec["kind"] if spec["kind"] == "adult" else f"{spec['package']}::{spec['item']}"
    return {"table": table, "qi": p.table.m, "columns": ", ".join(p.table.qi),
            "intervals": ", ".join(spec.get("intervals", [])) or "–", "rows": n,
            "dropped": p.info.get("dropped_rows", 0), "t_in": int(counts.size),
            "rows_per_type": round(n / counts.size, 1), "single_types": round(float((counts == 1).mean()), 3),
            "rows_below_5": round(float(counts[counts < 5].sum() / n), 3),
            "rows_below_10": round(float(counts[counts < 10].sum() / n), 3)}


def main(path: str = "benchmarks/suites/real_tables.toml") -> None:
    suite = load_suite(path)
    seen, rows = set(), []
    for spec in suite.instances:
        key = (spec["kind"], spec.get("package"), spec.get("item"), spec.get("qi_count"),
               tuple(spec.get("intervals", [])))
        if key in seen:
            continue
        seen.add(key)
        rows.append(shape(spec))
        print(rows[-1], flush=True)
    columns = [("table", "table"), ("qi", "QIs"), ("columns", "QI columns"), ("intervals", "intervals"),
               ("rows", "rows"), ("dropped", "dropped (missing)"), ("t_in", "t_in"),
               ("rows_per_type", "rows / type"), ("single_types", "types of 1 row"),
               ("rows_below_5", "rows in types < 5"), ("rows_below_10", "rows in types < 10")]
    intro = (provenance_line("suite_shapes") + f". Suite `{path}`; shares are fractions (0.25 = a quarter). "
             "Row types count the QI values as released before recoding (intervals included).")
    write_results(f"benchmarks/results/{suite.name}_shapes", rows, f"The shapes of the {suite.name} suite",
                  columns, intro)


if __name__ == "__main__":
    main(*sys.argv[1:])
