"""Issue 14: how much can any cut family gain while the LP's multipliers stay fixed outside the LP's
fractional part?

Stop 54's set master (:mod:`benchmarks.experiments.set_master`) did not converge after cuts
at full scale. The natural repair is to restrict it to the types the LP leaves
fractional and fix every other type's multiplier at the LP's ``π*``. This
script measures the best that repair can do, whatever the cuts: it solves the
restricted problem **as an integer program**, which is at least as strong as
the restricted master with every valid cut.

The relaxation. For a mask ``R`` of types (the region) relax the rows
``Σ_j g_ij = n_i`` of the types outside ``R`` with multipliers ``π*_i``. For
every integer solution of the original problem the relaxed objective equals
its cost, so (weak duality) its integer optimum plus ``Σ_{i∉R} π*_i n_i`` is
a lower bound. A candidate with no region type is then a block of its own
(:func:`milp_anon.bounds.lagrangian.block_prices`: one group at most, value
``min(0, rc_j)``), a constant. The others form a small MILP: the region's
rows exact, the outside rows free at cost ``w_j − π*_i``. Outside types of
nonnegative reduced cost only fill a group up to ``k`` rows, so each
candidate keeps only its cheapest ``k`` such rows (an exchange argument; the
integer optimum does not change). With ``R`` empty the bound is ``L(π*)``,
the LP's; with ``R`` every type it is the optimum. Its LP relaxation is the
assignment LP's value (complementary slackness).

    python -m benchmarks.experiments.fixed_multipliers [--qis 6] [--k 5] [--steps 0 1] [--limit 300]
        [--out benchmarks/results/fixed_multipliers_6qi_k5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.common import provenance_line, run_serial, write_results
from benchmarks.experiments.subset_row_cuts import QI, add_group_rows, adult_instance


def fractional_region(n, pair_type, pair_cand, y, g, tol=1e-6) -> np.ndarray:
    """The types the assignment LP's point ``(y, g)`` leaves fractional: split between candidates
    (``0 < g_ij < n_i``) or assigned to a candidate opened fractionally (``0 < y_j < 1``)."""
    split = (g > tol) & (g < n[pair_type] - tol)
    partly = ((y > tol) & (y < 1 - tol))[pair_cand] & (g > tol)
    mask = np.zeros(n.shape[0], bool)
    mask[pair_type[split | partly]] = True
    return mask


def grow(region, pair_type, pair_cand, g, tol=1e-6) -> np.ndarray:
    """The region and every type the LP point assigns to a candidate that holds a region type."""
    used = g > tol
    touch = np.zeros(int(pair_cand.max()) + 1, bool)
    touch[pair_cand[region[pair_type] & used]] = True
    out = region.copy()
    out[pair_type[touch[pair_cand] & used]] = True
    return out


def region_bound(n, w, pair_type, pair_cand, k, pi, region, time_limit=300.0):
    """The bound of the relaxation above (module docstring): ``dict(bound, proven, lp, const, ...)``.

    ``bound`` is the constant plus HiGHS's proven dual bound of the region's
    MILP (presolve off), valid whether or not it finished.
    """
    import highspy

    from milp_anon.bounds.lagrangian import block_prices
    from milp_anon.solvers.highs_banner import new_highs

    t0 = time.perf_counter()
    n, w, pi = np.asarray(n, float), np.asarray(w, float), np.asarray(pi, float)
    C = w.shape[0]
    pif = np.where(region, 0.0, pi)
    inm = np.zeros(C, bool)
    inm[pair_cand[region[pair_type]]] = True
    rc = block_prices(pif, n, w, pair_type, pair_cand, k).rc
    const = float(pif @ n) + float(np.minimum(rc[~inm], 0.0).sum())
    v_all = w[pair_cand] - pif[pair_type]
    # outside pairs of nonnegative reduced cost: the first k rows of each candidate, cheapest first
    order = np.lexsort((v_all, pair_cand))
    fill = np.where(~region[pair_type] & (v_all >= 0), n[pair_type], 0.0)[order]
    cum = np.cumsum(fill)
    first = np.searchsorted(pair_cand[order], pair_cand[order])
    before = cum - fill - np.where(first > 0, cum[first - 1], 0.0)
    cheap = np.zeros(pair_type.shape[0], bool)
    cheap[order] = before < k
    keep = np.flatnonzero(inm[pair_cand] & (region[pair_type] | (v_all < 0) | cheap))
    pt, v = pair_type[keep], v_all[keep]
    cands = np.flatnonzero(inm)
    cidx = np.full(C, -1)
    cidx[cands] = np.arange(cands.size)
    pc = cidx[pair_cand[keep]]
    P, Cm, Rn = keep.size, cands.size, int(region.sum())
    out = dict(region_types=Rn, region_rows=float(n[region].sum()), candidates=int(Cm), pairs=int(P),
               const=const)
    if Cm == 0:
        return dict(out, bound=const, proven=True, lp=const, seconds=time.perf_counter() - t0)
    h = new_highs()
    h.setOptionValue("presolve", "off")
    h.setOptionValue("time_limit", float(time_limit))
    h.addVars(P + Cm, np.zeros(P + Cm), np.concatenate([n[pt], np.ones(Cm)]))
    h.changeColsCost(P + Cm, np.arange(P + Cm, dtype=np.int32), np.concatenate([v, np.zeros(Cm)]))
    trow = np.full(n.shape[0], -1)
    trow[region] = np.arange(Rn)
    rp = np.flatnonzero(region[pt])
    rp = rp[np.argsort(trow[pt[rp]], kind="stable")]
    h.addRows(Rn, n[region], n[region], rp.size, np.searchsorted(trow[pt[rp]], np.arange(Rn)).astype(np.int32),
              rp.astype(np.int32), np.ones(rp.size))
    add_group_rows(h, n, pt, pc, k, Cm)
    h.run()  # its LP relaxation first: the assignment LP's value (a check of the construction)
    lp = const + h.getInfo().objective_function_value
    h.changeColsIntegrality(P + Cm, np.arange(P + Cm, dtype=np.int32),
                            np.full(P + Cm, highspy.HighsVarType.kInteger))
    h.run()
    info = h.getInfo()
    proven = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    if h.getModelStatus() not in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kTimeLimit):
        raise RuntimeError(f"region MILP: {h.modelStatusToString(h.getModelStatus())}")
    return dict(out, bound=const + info.mip_dual_bound, proven=proven, lp=lp,
                incumbent=const + info.objective_function_value, seconds=time.perf_counter() - t0)


def run_one(job):
    q, k, steps, limit = job
    from milp_anon.bounds.lagrangian import column_generation

    n, w, pt, pc = adult_instance(q, k)
    cg = column_generation(n, w, pt, pc, k)
    y, g = cg.primal
    region = fractional_region(n, pt, pc, y, g)
    for _ in range(steps):
        region = grow(region, pt, pc, g)
    r = region_bound(n, w, pt, pc, k, cg.pi, region, limit)
    return dict(qis=q, k=k, steps=steps, types=int(n.size), assignment_lp=cg.bound, region_types=r["region_types"],
                region_rows=int(r["region_rows"]), candidates=r["candidates"], pairs=r["pairs"],
                region_lp=r["lp"], bound=r["bound"], incumbent=r.get("incumbent"), proven=int(r["proven"]),
                gain=r["bound"] - cg.bound, seconds=round(r["seconds"], 1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qis", type=int, default=6)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--steps", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--limit", type=float, default=300.0)
    ap.add_argument("--out", default="benchmarks/results/fixed_multipliers_6qi_k5")
    a = ap.parse_args(argv)
    rows = run_serial(run_one, [(a.qis, a.k, s, a.limit) for s in a.steps])
    columns = [("qis", "QIs"), ("k", "k"), ("steps", "region grown"), ("types", "types"),
               ("region_types", "region types"), ("region_rows", "region rows"), ("candidates", "candidates"),
               ("pairs", "pairs"), ("assignment_lp", "LP"), ("region_lp", "region LP"), ("bound", "bound"),
               ("incumbent", "region's best solution"), ("proven", "proven"), ("gain", "bound − LP"),
               ("seconds", "s")]
    intro = (provenance_line("fixed_multipliers") + f"; full Adult, k-anonymity by suppression, k = {a.k}, QIs "
             f"{', '.join(QI[:a.qis])}; the region's MILP by HiGHS (presolve off) within {a.limit:g} s; "
             "`bound` = the constant plus its proven dual bound, `proven`: 1 = the region's MILP solved.")
    write_results(a.out, rows, f"The LP's multipliers fixed outside a region, the region exact: full Adult at "
                  f"{a.qis} QIs, k = {a.k}", columns, intro)


if __name__ == "__main__":
    main()
