"""Issue 13, item 1 for t-closeness (equal distance): the LP bound against the Lagrangian bound with
**exact integer blocks** at the LP's own multipliers, on small QI sets, beside the whole model's result.

Sensitive ``occupation``, k = 5, Adult (30,162 rows). Per QI set, in one run, one job at a time, each in
its own process:

* ``blocks``: the units (row types with their occupation) and every candidate (each QI subset
  suppressed, the rest released: no pruning), built here from the frame; the LP relaxation of the
  compact model (``formulations/t-closeness.md``, equal distance, ``x`` continuous); its multipliers ``π``
  of the assignment rows; then ``L(π) = Σ_u π_u n_u + Σ_j min(0, rc_j(π))`` with every candidate's block
  — the cheapest non-empty integer group of its compatible rows, at least ``k`` rows, within total
  variation ``t`` of the table — solved as a small integer program by HiGHS (presolve off). The bound
  uses each block's **dual** bound, so it is valid when a block stops at its limit. Integer blocks
  are a restriction of the LP's continuous ones, so ``L(π_LP) >= LP``: the difference is what the
  integer blocks (the Dantzig–Wolfe bound) add at a point where the LP is already optimal;
* ``solve``: ``milp_anon.anonymize`` as shipped (presolve off) for ``--solve-limit`` seconds: the table
  and the bound a user gets.

    python -m benchmarks.t_closeness_dw [--qis "race,marital-status;sex,race"] [--t 0.2] \\
        [--solve-limit 300] [--block-limit 5] [--out benchmarks/results/t_closeness_dw]
"""

from __future__ import annotations

import argparse
import itertools
import resource
import time
from fractions import Fraction

from benchmarks.common import provenance_line, run_serial, write_results

QIS = "race,marital-status;sex,race;sex,marital-status;sex,race,marital-status"
K = 5


def _units_and_candidates(frame, qi):
    import numpy as np

    g = frame.groupby(qi + ["occupation"]).size().reset_index(name="n")
    values = sorted(frame["occupation"].unique())
    code = {v: i for i, v in enumerate(values)}
    n_u = g["n"].to_numpy().astype(float)
    sig = g["occupation"].map(code).to_numpy()
    cands = []  # (cost per row, compatible units)
    for mask in itertools.product([0, 1], repeat=len(qi)):
        kept = [q for q, m in zip(qi, mask) if not m]
        if not kept:
            cands.append((sum(mask), np.arange(len(g))))
            continue
        keys = g[kept].astype(str).agg("\x1f".join, axis=1).to_numpy()
        inv = np.unique(keys, return_inverse=True)[1].ravel()
        order = np.argsort(inv, kind="stable")
        for us in np.split(order, np.flatnonzero(np.diff(inv[order])) + 1):
            cands.append((sum(mask), np.sort(us)))
    return n_u, sig, len(values), cands


def _lp(n_u, sig, V, P, t, cands):
    """The compact model's LP (x continuous) and the multipliers of its assignment rows."""
    import highspy
    import numpy as np

    inf = highspy.kHighsInf
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    U = len(n_u)
    pair_c = np.concatenate([np.full(len(us), j) for j, (_, us) in enumerate(cands)])
    pair_u = np.concatenate([us for _, us in cands])
    cost = np.array([cands[j][0] for j in pair_c], dtype=float)
    nx = len(pair_u)
    h.addVars(nx, np.zeros(nx), n_u[pair_u])
    h.changeColsCost(nx, np.arange(nx, dtype=np.int32), cost)
    h.addVars(len(cands) * V, np.zeros(len(cands) * V), np.full(len(cands) * V, inf))
    for u in range(U):
        idx = np.flatnonzero(pair_u == u).astype(np.int32)
        h.addRow(n_u[u], n_u[u], len(idx), idx, np.ones(len(idx)))
    for j in range(len(cands)):
        idx = np.flatnonzero(pair_c == j).astype(np.int32)
        for s in range(V):  # v_js >= P_s · size − count_s
            ind = np.append(idx, nx + j * V + s).astype(np.int32)
            h.addRow(0, inf, len(ind), ind, np.append((sig[pair_u[idx]] == s) - P[s], 1.0))
        ind = np.concatenate([idx, nx + j * V + np.arange(V)]).astype(np.int32)  # Σ_s v_js <= t · size
        h.addRow(-inf, 0, len(ind), ind, np.concatenate([np.full(len(idx), -float(t)), np.ones(V)]))
    h.run()
    return h.getInfo().objective_function_value, np.array(h.getSolution().row_dual[:U])


def _block(w, us, pi, n_u, sig, V, P, t, limit):
    """``rc_j(π)``'s dual bound (``inf`` if no group exists) and whether the block was solved exactly."""
    import highspy
    import numpy as np

    inf = highspy.kHighsInf
    h = highspy.Highs()
    for key, value in {"output_flag": False, "presolve": "off", "mip_rel_gap": 0.0, "time_limit": limit}.items():
        h.setOptionValue(key, value)
    m = len(us)
    h.addVars(m, np.zeros(m), n_u[us])
    h.changeColsIntegrality(m, np.arange(m, dtype=np.int32), np.array([highspy.HighsVarType.kInteger] * m))
    h.changeColsCost(m, np.arange(m, dtype=np.int32), w - pi[us])
    h.addVars(V, np.zeros(V), np.full(V, inf))
    for s in range(V):
        ind = np.append(np.arange(m), m + s).astype(np.int32)
        h.addRow(0, inf, m + 1, ind, np.append((sig[us] == s) - P[s], 1.0))
    h.addRow(-inf, 0, m + V, np.arange(m + V, dtype=np.int32), np.concatenate([np.full(m, -float(t)), np.ones(V)]))
    h.addRow(K, inf, m, np.arange(m, dtype=np.int32), np.ones(m))
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return float("inf"), True
    return h.getInfo().mip_dual_bound, status == highspy.HighsModelStatus.kOptimal


def run_one(job):
    qis, t, variant, solve_limit, block_limit = job
    import numpy as np

    import milp_anon as ma
    from milp_anon.tables.datasets import load_adult

    qi = qis.split(",")
    frame = load_adult()
    row = {"qis": ", ".join(qi), "variant": variant}
    t0 = time.perf_counter()
    if variant == "blocks":
        n_u, sig, V, cands = _units_and_candidates(frame, qi)
        N = np.bincount(sig, weights=n_u, minlength=V)
        P = N / N.sum()
        lp, pi = _lp(n_u, sig, V, P, t, cands)
        row.update(units=len(n_u), candidates=len(cands), lp=lp, lp_s=time.perf_counter() - t0)
        L, exact = float(pi @ n_u), 0
        for w, us in cands:
            rc, solved = _block(w, us, pi, n_u, sig, V, P, t, block_limit)
            L += min(0.0, rc)
            exact += solved
        row.update(l_lp=L, exact_blocks=f"{exact} of {len(cands)}", gain=f"{100 * (L / lp - 1):.2f} %" if lp > 0 else "–")
    else:
        table = ma.Table.from_frame(frame, qi=qi, sensitive="occupation")
        r = ma.anonymize(table, ma.KAnonymity(K), ma.TCloseness(float(t), distance="equal"), time_limit=solve_limit)
        row.update(status=str(r.status), objective=r.objective, bound=r.bound, gap=r.gap)
    row.update(seconds=time.perf_counter() - t0, peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", default=QIS, help="QI sets, ';'-separated, each ','-separated")
    ap.add_argument("--t", default="0.2")
    ap.add_argument("--variants", default="blocks,solve")
    ap.add_argument("--solve-limit", type=float, default=300.0)
    ap.add_argument("--block-limit", type=float, default=5.0,
                    help="time limit of one block's integer program (s)")
    ap.add_argument("--out", default="benchmarks/results/t_closeness_dw")
    a = ap.parse_args(argv)
    t = Fraction(a.t).limit_denominator(10**6)
    variants = [v.strip() for v in a.variants.split(",")]
    if any(v not in ("blocks", "solve") for v in variants):
        ap.error("variants are blocks, solve")
    jobs = [(q.strip(), t, v, a.solve_limit, a.block_limit) for q in a.qis.split(";") for v in variants]
    rows = run_serial(run_one, jobs)
    columns = [("qis", "QIs"), ("variant", "variant"), ("units", "units"), ("candidates", "candidates"),
               ("lp", "LP bound"), ("l_lp", "L(π_LP), integer blocks"), ("gain", "L / LP − 1"),
               ("exact_blocks", "blocks solved exactly"), ("status", "status"), ("objective", "objective"),
               ("bound", "bound"), ("gap", "gap"), ("seconds", "s"), ("peak_mb", "peak MB")]
    intro = (provenance_line("t_closeness_dw") + f". Sensitive occupation, k = {K}, {float(t):g}-closeness "
             f"(equal distance); block limit {a.block_limit:g} s, solve limit {a.solve_limit:g} s; one run at a "
             "time, each in its own process.")
    write_results(a.out, rows, "t-closeness (equal): the LP bound and the Lagrangian bound of exact integer "
                  "blocks at the LP's multipliers (UCI Adult, 30,162 rows)", columns, intro)


if __name__ == "__main__":
    main()
