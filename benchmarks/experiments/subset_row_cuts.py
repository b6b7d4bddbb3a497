"""Issue 14, "cuts across candidates": how much of k-anonymity's LP gap do subset-row cuts close, against
HiGHS's root, on small samples of Adult at 8 QIs?

At 8 QIs most row types are single rows (18,109 types for 30,162 rows), and
the LP optimum is a fractional set partitioning: a candidate ``j`` opened at
``y_j < 1`` holds ``k`` single rows at ``g_ij = y_j`` each. A single
candidate's block is its own convex hull (``formulations/reduction.md``), so
any stronger relaxation needs inequalities over several candidates. The
subset-row cuts of set partitioning (Jepsen, Petersen, Spoorendonk, Pisinger,
Oper. Res. 56 (2008)), for three single-row types ``R``, say that at most one
group holds two or more of them. In the assignment model's own variables,
with ``z_jR ∈ {0, 1}`` per candidate ``j`` holding two or more of ``R``::

    z_jR >= g_aj + g_bj − y_j    for every pair {a, b} ⊂ R held by j
    Σ_j z_jR <= 1

(valid: in an integer solution ``z_jR = 1`` exactly for the group holding two
or three of ``R``, and three rows lie in at most one such group). This
"compact" form is weaker than the cuts over sets (a candidate's LP point may
mix several sets), but needs no change to the column generation's pricing.

Per sample (``--rows`` rows drawn with ``random_state = seed``): the LP of the
whole model, the LP with separated compact subset-row cuts (rounds of at most
200 most violated, until none is violated), HiGHS's bound after its root node
(``mip_max_nodes = 1``, presolve off, cuts as HiGHS chooses), and the MILP's
optimum (HiGHS, presolve off; ``–`` when not proven within ``--mip-limit``).
Each model is built here from its definition, not by the package.

    python -m benchmarks.experiments.subset_row_cuts [--qis 8] [--k 5] [--rows 60] [--seeds 10]
        [--out benchmarks/results/subset_row_cuts_8qi]
"""

from __future__ import annotations

import argparse
import itertools
import time

from benchmarks.common import ADULT_QI, provenance_line, run_serial, write_results

QI = list(ADULT_QI)


def adult_instance(q, k, rows=None, seed=0):
    """k-anonymity by suppression on Adult's first ``q`` QIs (``rows`` sampled with ``random_state = seed``,
    or the whole table): ``(n, cost, pair_type, pair_cand)``. Also :mod:`benchmarks.experiments.set_master_run`'s and
    :mod:`benchmarks.experiments.fixed_multipliers`'."""
    import milp_anon as ma
    from milp_anon.instance.candidates import suppression_candidates
    from milp_anon.tables.datasets import load_adult
    from milp_anon.tables.rowtypes import RowTypes

    frame = load_adult() if rows is None else load_adult().sample(rows, random_state=seed)
    types = RowTypes.from_table(ma.Table.from_frame(frame, QI[:q]))
    c = suppression_candidates(types, k)
    return types.counts.astype(float), c.cost.astype(float), c.pair_type, c.pair_cand


def _model(n, cost, pt, pc, k, integer):
    """The assignment model: columns ``g`` (one per pair) then ``y`` (one per candidate)."""
    import highspy
    import numpy as np

    T, C, P = n.shape[0], cost.shape[0], pt.shape[0]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    h.addVars(P + C, np.zeros(P + C), np.concatenate([n[pt], np.ones(C)]))
    h.changeColsCost(P + C, np.arange(P + C, dtype=np.int32), np.concatenate([cost[pc], np.zeros(C)]))
    if integer:
        h.changeColsIntegrality(P + C, np.arange(P + C, dtype=np.int32),
                                np.full(P + C, highspy.HighsVarType.kInteger))
    by_type = np.argsort(pt, kind="stable")
    h.addRows(T, n, n, P, np.searchsorted(pt[by_type], np.arange(T)).astype(np.int32),
              by_type.astype(np.int32), np.ones(P))
    add_group_rows(h, n, pt, pc, k, C)
    return h


def add_group_rows(h, n, pt, pc, k, C):
    """The rows ``Σ_i g_ij >= k y_j`` and ``g_ij <= n_i y_j`` over HiGHS columns ``g`` (one per pair, first)
    then ``y`` (one per candidate ``0..C−1``). Also :mod:`benchmarks.experiments.fixed_multipliers`'s."""
    import highspy
    import numpy as np

    P = pt.shape[0]
    by_cand = np.argsort(pc, kind="stable")
    per = np.bincount(pc, minlength=C) + 1
    starts = np.concatenate([[0], np.cumsum(per)[:-1]]).astype(np.int32)
    idx, val = np.empty(per.sum(), np.int32), np.ones(per.sum())
    idx[starts], val[starts] = P + np.arange(C), -float(k)
    rest = np.ones(per.sum(), bool)
    rest[starts] = False
    idx[rest] = by_cand
    h.addRows(C, np.zeros(C), np.full(C, highspy.kHighsInf), idx.shape[0], starts, idx, val)
    h.addRows(P, np.full(P, -highspy.kHighsInf), np.zeros(P), 2 * P, np.arange(0, 2 * P, 2, dtype=np.int32),
              np.column_stack([np.arange(P), P + pc]).ravel().astype(np.int32),
              np.column_stack([np.ones(P), -n[pt]]).ravel())


def _separate(g, y, pt, pc, single, done):
    """Violated compact subset-row cuts: ``[(lhs, R)]`` for triples ``R`` of single-row types not in ``done``."""
    import numpy as np

    excess = {}
    for j in np.flatnonzero(y > 1e-6):
        ps = np.flatnonzero((pc == j) & single[pt] & (g > 1e-6))
        for p1, p2 in itertools.combinations(ps, 2):
            v = g[p1] + g[p2] - y[j]
            if v > 1e-6:
                excess.setdefault(tuple(sorted((int(pt[p1]), int(pt[p2])))), []).append((int(j), v))
    nbr = {}
    for a, b in excess:
        nbr.setdefault(a, set()).add(b)
        nbr.setdefault(b, set()).add(a)
    cuts, seen = [], set()
    for a in nbr:
        for b, c in itertools.combinations(sorted(nbr[a]), 2):
            R = tuple(sorted((a, b, c)))
            if R in done or R in seen:
                continue
            seen.add(R)
            per = {}
            for pair in itertools.combinations(R, 2):
                for j, v in excess.get(pair, []):
                    per[j] = max(per.get(j, 0.0), v)
            lhs = sum(per.values())
            if lhs > 1 + 1e-4:
                cuts.append((lhs, R))
    return sorted(cuts, reverse=True)


def run_one(job):
    q, k, rows, seed, mip_limit = job
    import highspy
    import numpy as np

    n, cost, pt, pc = adult_instance(q, k, rows, seed)
    P, C = pt.shape[0], cost.shape[0]
    row = {"qis": q, "k": k, "rows": rows, "seed": seed, "types": int(n.shape[0]),
           "single": int((n == 1).sum()), "pairs": int(P)}

    lp = _model(n, cost, pt, pc, k, integer=False)
    lp.run()
    row["lp"] = lp.getInfo().objective_function_value
    single, done, ncols, t0 = n == 1, set(), P + C, time.perf_counter()
    while True:
        x = np.asarray(lp.getSolution().col_value)
        cuts = _separate(x[:P], x[P:P + C], pt, pc, single, done)
        if not cuts:
            break
        for _, R in cuts[:200]:
            done.add(R)
            held = {}
            for t in R:
                for p in np.flatnonzero(pt == t):
                    held.setdefault(int(pc[p]), []).append(int(p))
            zs = []
            for j, ps in held.items():
                if len(ps) < 2:
                    continue
                lp.addVar(0.0, 1.0)
                zs.append(ncols)
                for p1, p2 in itertools.combinations(ps, 2):
                    lp.addRow(0.0, highspy.kHighsInf, 4, np.array([ncols, p1, p2, P + j], np.int32),
                              np.array([1.0, -1.0, -1.0, 1.0]))
                ncols += 1
            lp.addRow(-highspy.kHighsInf, 1.0, len(zs), np.array(zs, np.int32), np.ones(len(zs)))
        lp.run()
    row.update(lp_src=lp.getInfo().objective_function_value, cuts=len(done), cut_s=time.perf_counter() - t0)

    root = _model(n, cost, pt, pc, k, integer=True)
    root.setOptionValue("mip_max_nodes", 1)
    root.run()
    row["root"] = root.getInfo().mip_dual_bound
    mip = _model(n, cost, pt, pc, k, integer=True)
    mip.setOptionValue("time_limit", float(mip_limit))
    mip.run()
    proven = mip.getModelStatus() == highspy.HighsModelStatus.kOptimal
    row["optimum"] = mip.getInfo().objective_function_value if proven else None
    if proven and row["optimum"] > row["lp"] + 1e-6:
        gap = row["optimum"] - row["lp"]
        row["src_closed"] = 100.0 * (row["lp_src"] - row["lp"]) / gap
        row["root_closed"] = 100.0 * (row["root"] - row["lp"]) / gap
    return row


def sample_arguments(doc: str, out: str) -> argparse.ArgumentParser:
    """The sample runs' command line (also ``benchmarks/experiments/set_master_run.py``'s)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--qis", type=int, default=8)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--rows", type=int, default=60)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--mip-limit", type=float, default=120.0)
    ap.add_argument("--out", default=out)
    return ap


def main(argv=None):
    a = sample_arguments(__doc__, "benchmarks/results/subset_row_cuts_8qi").parse_args(argv)
    rows = run_serial(run_one, [(a.qis, a.k, a.rows, s, a.mip_limit) for s in range(a.seeds)])
    columns = [("seed", "seed"), ("types", "types"), ("single", "single-row types"), ("pairs", "pairs"),
               ("lp", "LP"), ("lp_src", "LP + subset-row cuts"), ("cuts", "cuts"), ("root", "HiGHS after its root"),
               ("optimum", "optimum"), ("src_closed", "gap closed by the cuts (%)"),
               ("root_closed", "gap closed by HiGHS's root (%)")]
    intro = (provenance_line("subset_row_cuts") + f"; k-anonymity by suppression, k = {a.k}, QIs "
             f"{', '.join(QI[:a.qis])}; {a.rows} rows of Adult per sample (random_state = seed); HiGHS one "
             f"thread, presolve off; the MILP within {a.mip_limit:g} s.")
    write_results(a.out, rows, f"Subset-row cuts on k-anonymity's LP, {a.rows}-row samples of Adult at {a.qis} QIs",
                  columns, intro)


if __name__ == "__main__":
    main()
