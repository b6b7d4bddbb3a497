"""Issue 6, directions measured without a solve: candidate generation, kernel, dominance.

    python -m benchmarks.scale_directions [--qis 4,5,6,7,8] [--ks 2,5,10] [--dominance-qis 4,5]

Per (QIs, k) on full Adult (suppression, QIs in the order of ``scale.py``):

* **candidate generation**: seconds of the mask-by-mask enumeration
  (``suppression_candidates``) and its counts. An LCM-style closed-itemset
  enumeration would only pay where this is a noticeable share of a solve.
* **kernel** (Blocki–Williams Lemma 2 / Algorithm 1): a type with more than
  ``T = k · 2k · 2^m`` rows can give away groups of ``k`` identical rows.
  The row-type model does not grow with ``n_i``, so it only helps if it
  removes whole types; reported: types above ``T`` and rows peeled.
* **dominance**: kept candidates ``j`` whose compatible set lies inside
  that of another candidate no dearer (their groups could move there). With
  closure pruning there are none: ``j`` is the column-wise LCA of its types,
  so a candidate holding all of them generalizes ``j`` and costs at least as
  much, equal only when identical. Counted on the pair incidence
  (``--dominance-qis``) as a check.

Writes ``benchmarks/results/scale_directions.{csv,md}``.
"""

from __future__ import annotations

import argparse
import os

from .common import ADULT_QI, run_to_files

QI = list(ADULT_QI)
OUT = os.path.join(os.path.dirname(__file__), "results")


def dominated(cands, t_in):
    """Kept candidates whose compatible set is inside that of another candidate at most as dear."""
    import numpy as np

    by_type = np.argsort(cands.pair_type, kind="stable")
    pt, pc = cands.pair_type[by_type], cands.pair_cand[by_type]
    deg = np.bincount(pt, minlength=t_in)
    start = np.concatenate([[0], np.cumsum(deg)[:-1]])
    # every ordered pair (j, j') of candidates sharing a type, once per shared type
    rep = np.repeat(np.arange(pt.shape[0]), deg[pt])
    within = np.arange(rep.shape[0]) - np.repeat(np.cumsum(deg[pt]) - deg[pt], deg[pt])
    j, jj = pc[rep], pc[start[pt[rep]] + within]
    key, shared = np.unique(j.astype(np.int64) * cands.n_candidates + jj, return_counts=True)
    j, jj = key // cands.n_candidates, key % cands.n_candidates
    size = np.bincount(cands.pair_cand, minlength=cands.n_candidates)
    hit = (j != jj) & (shared == size[j]) & (cands.cost[jj] <= cands.cost[j])
    return int(np.unique(j[hit]).size)


def run(job):
    import time

    import milp_anon as ma
    from milp_anon.instance.candidates import suppression_candidates
    from milp_anon.tables.datasets import load_adult
    from milp_anon.tables.rowtypes import RowTypes

    q, k, dom = job
    table = ma.Table.from_frame(load_adult(), qi=QI[:q])
    t = time.perf_counter()
    types = RowTypes.from_table(table)
    cands = suppression_candidates(types, k)
    gen = time.perf_counter() - t
    T = k * 2 * k * 2 ** q
    over = types.counts[types.counts > T]
    # Algorithm 1 peels k rows while more than T remain
    peeled = int(sum(k * -(-(int(c) - T) // k) for c in over))
    row = {"qis": q, "k": k, "t_in": types.t_in, "generation_s": round(gen, 2),
           "generated": cands.counts["generated"], "kept": cands.n_candidates, "pairs": cands.n_pairs,
           "max_type_rows": int(types.counts.max()), "kernel_T": T, "types_above_T": int(over.size),
           "rows_peeled": peeled}
    if dom:
        row["dominated"] = dominated(cands, types.t_in)
    return row


COLUMNS = [("qis", "QIs"), ("k", "k"), ("t_in", "types"), ("generation_s", "generation s"),
           ("generated", "projections"), ("kept", "candidates kept"), ("pairs", "pairs"),
           ("max_type_rows", "largest type"), ("kernel_T", "kernel T"), ("types_above_T", "types above T"),
           ("rows_peeled", "rows peeled"), ("dominated", "dominated candidates")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qis", default="4,5,6,7,8")
    ap.add_argument("--ks", default="2,5,10")
    ap.add_argument("--dominance-qis", default="4,5")
    args = ap.parse_args(argv)
    dom = {int(x) for x in args.dominance_qis.split(",") if x}
    jobs = [(int(q), int(k), int(q) in dom) for q in args.qis.split(",") for k in args.ks.split(",")]
    run_to_files(run, jobs, os.path.join(OUT, "scale_directions"),
                 "Candidate generation, kernel and dominance on Adult (suppression, one run)", COLUMNS)


if __name__ == "__main__":
    main()
