"""Issue 14: the linking rows ``g_ij <= n_i y_j`` separated from the LP instead of built (measured, not shipped).

    python -m benchmarks.separated_links whole --qis 6 --ks 5 --limit 300 [--recoding lm] [--out STEM]
    python -m benchmarks.separated_links master --qis 8 --ks 5 --limit 300 [--out STEM]

The links are one row per (type, candidate) pair: 3.3 M of the 3.46 M rows of
the whole model at 8 QIs. Replaced by one aggregated row per candidate,
``Σ_i g_ij <= N_j y_j`` (``N_j`` the rows compatible with ``j``), the model
has the same integer solutions (``y_j = 0`` forces every ``g_ij`` of ``j`` to
0, and ``g_ij <= n_i`` is a column bound), so the links are valid
inequalities that only tighten the LP: they can be added where the LP
violates them.

``whole``: the whole k-anonymity model (``pipeline.build_model``), HiGHS in
this process (presolve off, one thread), each variant in its own process,
one at a time:

* ``links``: as built;
* ``separated``: the aggregated rows, then the LP relaxation re-solved
  (dual simplex, warm) with the links it violates added, until none is
  violated or the LP rose by less than 1e-6 (relative) over 5 solves; then
  the MIP over the links found. The limit covers both.

The MIP's table is released only through the verifier (``Release.verified``).

``master``: the column generation (``lagrangian.column_generation``) with
every master pair's link built (``links``; before 2026-11-25 the only form,
called ``shipped`` in the first results), with the master's links separated
the same way after each master solve (``separated``), or as the package
does by default (``auto``: separated from the first master run cut short);
its ``L(π)`` is a bound whatever the master holds. (At 18894ba, where
``separated_links_master_8qi.md`` was measured, this script carried its own
subclass of the master; the package's ``RestrictedMaster(separate_links=True)``
is the same procedure.)
"""

from __future__ import annotations

import argparse
import os
import time

from .common import ADULT_QI, provenance_line, run_serial, write_results

QI = list(ADULT_QI)
OUT = os.path.join(os.path.dirname(__file__), "results")
#: the separation loop stops when the LP rose by less than this (relative) over ``STALL`` solves
STALL, STALL_TOL = 5, 1e-6


def _request(q, k, recoding):
    import milp_anon as ma
    from milp_anon.tables.datasets import adult_hierarchy_path, load_adult

    table = ma.Table.from_frame(load_adult(), qi=QI[:q])
    rec = None
    if recoding != "suppression":
        rec = ma.Generalization({c: adult_hierarchy_path(c) for c in QI[:q]}, cost=recoding)
    return table, ma.Request(ma.KAnonymity(k), recoding=rec)


def _set(h, **options):
    for key, value in options.items():
        h.setOptionValue(key, value)


def _separate(h, am, n_u, limit, t0):
    """Add the links the LP relaxation violates until none is (or it stalls); returns (links, solves,
    LP value, stalled)."""
    import highspy
    import numpy as np

    ncol = h.getNumCol()
    cols = np.arange(ncol, dtype=np.int32)
    h.changeColsIntegrality(ncol, cols, np.full(ncol, highspy.HighsVarType.kContinuous))
    P = am.g.shape[0]
    added = np.zeros(P, dtype=bool)
    history, solves = [], 0
    cap = n_u[am.pair_unit]
    while True:
        _set(h, time_limit=h.getRunTime() + max(0.0, limit - (time.perf_counter() - t0)))
        h.run()
        solves += 1
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return int(added.sum()), solves, None, False
        x = np.asarray(h.getSolution().col_value)
        value = h.getInfo().objective_function_value
        history.append(value)
        viol = np.flatnonzero(~added & (x[am.g] > cap * x[am.y[am.pair_cand]] + 1e-7))
        stalled = len(history) > STALL and history[-1] - history[-1 - STALL] <= STALL_TOL * max(1.0, abs(value))
        if viol.size == 0 or stalled:
            return int(added.sum()), solves, value, stalled and viol.size > 0
        m = viol.size
        idx = np.column_stack([am.g[viol], am.y[am.pair_cand[viol]]]).ravel().astype(np.int32)
        val = np.column_stack([np.ones(m), -cap[viol]]).ravel()
        h.addRows(m, np.full(m, -highspy.kHighsInf), np.zeros(m), 2 * m, np.arange(0, 2 * m, 2, dtype=np.int32),
                  idx, val)
        added[viol] = True


def run_whole(job):
    import resource

    import highspy
    import numpy as np

    from milp_anon.pipeline import solve as pipeline
    from milp_anon.release.verified import Release

    q, k, recoding, variant, limit = job
    table, request = _request(q, k, recoding)
    t0 = time.perf_counter()
    am = pipeline.build_model(table, request)
    lm = am.lm
    link = lm.row_blocks["link"]
    row = {"qis": q, "k": k, "recoding": recoding, "variant": variant, "limit": limit, "pairs": int(link.size),
           "links kept": None, "LP solves": None, "LP bound": None, "stalled": None, "separation s": None}
    n_u = am.instance.units.counts.astype(float)
    if variant == "links":
        model = lm
    else:
        keep = np.ones(lm.n_rows, dtype=bool)
        keep[link.start:link.start + link.size] = False
        model = lm.with_rows(keep)
        C, P = am.y.shape[0], am.g.shape[0]
        N = np.bincount(am.pair_cand, weights=n_u[am.pair_unit], minlength=C)
        model.add_rows("aggregated_link", C, rows=np.concatenate([am.pair_cand, np.arange(C)]),
                       cols=np.concatenate([am.g, am.y]), vals=np.concatenate([np.ones(P), -N]), upper=0.0)
    h = model.to_highs()
    _set(h, presolve="off", threads=1, output_flag=False, mip_rel_gap=0.0)
    if variant == "separated":
        links, solves, lp, stalled = _separate(h, am, n_u, limit, t0)
        row.update({"links kept": links, "LP solves": solves, "LP bound": lp, "stalled": stalled,
                    "separation s": time.perf_counter() - t0})
        integer = np.concatenate(model.col_integer)
        h.changeColsIntegrality(model.n_cols, np.arange(model.n_cols, dtype=np.int32),
                                np.where(integer, highspy.HighsVarType.kInteger, highspy.HighsVarType.kContinuous))
        h.clearSolver()  # the LP point would start a sub-MIP from it; the whole model gets no start either
    row["rows"] = h.getNumRow()
    _set(h, time_limit=h.getRunTime() + max(1.0, limit - (time.perf_counter() - t0)))
    h.run()
    info = h.getInfo()
    row.update({"status": h.modelStatusToString(h.getModelStatus()), "bound": info.mip_dual_bound,
                "nodes": info.mip_node_count, "objective": None})
    sol = h.getSolution()
    if sol.value_valid:
        x = np.asarray(sol.col_value)
        released, groups, cost = am.release(np.rint(x[am.g]))
        row["objective"] = Release.verified(table, request, released, cost=cost, groups=groups,
                                            source="HiGHS").objective
    row["wall s"] = time.perf_counter() - t0
    row["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return row


def run_master(job):
    import resource

    from milp_anon.bounds import lagrangian
    from milp_anon.pipeline.solve import prepare as _prepare
    from milp_anon.release.result import Timings

    q, k, recoding, variant, limit = job
    table, request = _request(q, k, recoding)
    instance, _, _ = _prepare(table, request, Timings())
    c, types = instance.candidates, instance.types
    separate = {"links": False, "shipped": False, "separated": True, "auto": None}[variant]
    cg = lagrangian.column_generation(types.counts, c.cost, c.pair_type, c.pair_cand, k, time_limit=limit,
                                      highs_options={"output_flag": False, "threads": 1, "presolve": "off"},
                                      separate_links=separate)
    return {"qis": q, "k": k, "recoding": recoding, "variant": variant, "limit": limit, "pairs": int(c.n_pairs),
            "bound": cg.bound, "LP bound": cg.lp_value if cg.converged else None, "converged": cg.converged,
            "CG rounds": cg.iterations, "master pairs": cg.master_pairs, "wall s": cg.seconds,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["whole", "master"])
    ap.add_argument("--qis", default="6")
    ap.add_argument("--ks", default="5")
    ap.add_argument("--recoding", default="suppression", choices=["suppression", "lm", "height"])
    ap.add_argument("--limit", type=float, default=300.0)
    ap.add_argument("--variants", default=None, help="whole: links,separated; master: links,separated,auto")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    names = ("links", "separated") if a.what == "whole" else ("links", "separated", "auto")
    variants = names if a.variants is None else tuple(v.strip() for v in a.variants.split(","))
    if any(v not in names for v in variants):
        ap.error(f"{a.what}'s variants are {', '.join(names)}")
    jobs = [(q, k, a.recoding, v, a.limit) for q in map(int, a.qis.split(",")) for k in map(int, a.ks.split(","))
            for v in variants]
    rows = run_serial(run_whole if a.what == "whole" else run_master, jobs)
    out = a.out or os.path.join(OUT, f"separated_links_{a.what}")
    intro = (f"{provenance_line('separated_links')}; full Adult, QIs in the order {', '.join(QI)} (the first "
             f"`qis`); one run at a time, each in its own process; HiGHS in that process, one thread, presolve off.")
    if a.what == "whole":
        cols = [("qis", "QIs"), ("k", "k"), ("recoding", "recoding"), ("variant", "variant"), ("pairs", "pairs"),
                ("rows", "rows given to the MIP"), ("links kept", "links kept"), ("LP solves", "LP solves"),
                ("LP bound", "LP bound"), ("separation s", "separation s"), ("status", "status"),
                ("objective", "verified cost"), ("bound", "bound"), ("nodes", "nodes"), ("wall s", "wall s"),
                ("peak_mb", "peak MB")]
    else:
        cols = [("qis", "QIs"), ("k", "k"), ("variant", "master"), ("pairs", "pairs"), ("bound", "L(π) bound"),
                ("converged", "converged"), ("LP bound", "LP bound"), ("CG rounds", "CG rounds"),
                ("master pairs", "master pairs"), ("wall s", "wall s"), ("peak_mb", "peak MB")]
    write_results(out, rows, f"Separated links ({a.what}), Adult", cols, intro)


if __name__ == "__main__":
    main()
