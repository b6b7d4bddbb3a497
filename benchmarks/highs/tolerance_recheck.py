"""Does HiGHS's default ``mip_feasibility_tolerance`` change any optimum this toolkit proved? Re-solve and compare.

``benchmarks/highs/slr_cut_tolerance.py`` shows HiGHS 1.15.1 with presolve off (the toolkit's setting for proofs)
answering a wrong "Optimal" on a k-anonymity-shaped integer program at the default tolerance 1e-6, and the
right one at 1e-9. This re-solves proven goal cases of issues 13 and 14 on UCI Adult (the fast ones), each
twice in its own process: as the toolkit solves them, and with ``mip_feasibility_tolerance=1e-9`` added to
every HiGHS MIP (``SolverOptions.highs_options``). Both tables pass the verifier (``anonymize`` returns no
other); a case where both are optimal with different costs would be a wrong proof.

    python -m benchmarks.highs.tolerance_recheck [--cases ...] [--limit 600] [--out ...]
"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

#: case → (QIs, k, criterion or recoding label)
CASES = {
    "k=5, 5 QIs": (5, 5, "k"),
    "k=10, 5 QIs": (5, 10, "k"),
    "k=2, 6 QIs": (6, 2, "k"),
    "k=2, 7 QIs": (7, 2, "k"),
    "k=2, 8 QIs": (8, 2, "k"),
    "distinct l=3, 4 QIs": (4, 5, "distinct l=3"),
    "p=3, 4 QIs": (4, 5, "p=3"),
    "t=0.3 ordered, 4 QIs": (4, 5, "t=0.3 ordered"),
    "lm, k=2, 4 QIs": (4, 2, "lm"),
    "lm, k=5, 4 QIs": (4, 5, "lm"),
    # proofs that take a search tree (147–243 s each in the committed runs)
    "frequency l=3, 4 QIs": (4, 5, "frequency l=3"),
    "t=0.2 ordered, 4 QIs": (4, 5, "t=0.2 ordered"),
    "recursive c=3 l=2, 4 QIs": (4, 5, "recursive c=3 l=2"),
    "lm, k=2, 5 QIs": (5, 2, "lm"),
    # 5-QI proofs of issue 13 (140–481 s each in the committed runs)
    "t=0.3 ordered, 5 QIs": (5, 5, "t=0.3 ordered"),
    "distinct l=3, 5 QIs": (5, 5, "distinct l=3"),
}
VARIANTS = {"default": {}, "tolerance 1e-9": {"mip_feasibility_tolerance": 1e-9}}


def run_one(job):
    case, variant, limit = job
    import milp_anon as ma
    from benchmarks.sensitive_goal import criterion
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

    q, k, what = CASES[case]
    qis = list(ADULT_QI[:q])
    frame = load_adult()
    criteria, rec = [ma.KAnonymity(k)], None
    if what == "lm":
        rec = ma.Generalization({c: adult_hierarchy_path(c) for c in qis}, cost="lm")
    elif what != "k":
        criteria.append(criterion(what))
    table = ma.Table.from_frame(frame, qis, *(["occupation"] if what not in ("k", "lm") else []))
    t0 = time.perf_counter()
    r = ma.anonymize(table, *criteria, recoding=rec, time_limit=limit, highs_options=VARIANTS[variant])
    return dict(case=case, variant=variant, status=str(r.status.value), cost=float(r.cost),
                bound=None if r.bound is None else float(r.bound), seconds=round(time.perf_counter() - t0, 1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=";".join(CASES), help="semicolon-separated")
    ap.add_argument("--limit", type=float, default=600.0)
    ap.add_argument("--out", default="benchmarks/results/tolerance_recheck")
    a = ap.parse_args(argv)
    cases = a.cases.split(";")
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        ap.error(f"unknown case(s): {', '.join(unknown)}")
    rows = run_serial(run_one, [(c, v, a.limit) for c in cases for v in VARIANTS])
    columns = [("case", "case"), ("variant", "HiGHS MIP tolerance"), ("status", "status"), ("cost", "cost"),
               ("bound", "bound"), ("seconds", "s"), ("tree_peak_mb", "peak MB")]
    intro = provenance_line("highs.tolerance_recheck") + f"; {a.limit:g} s per run; UCI Adult, 30,162 rows."
    write_results(a.out, rows, "Proven optima re-solved at mip_feasibility_tolerance 1e-9", columns, intro)


if __name__ == "__main__":
    main()
