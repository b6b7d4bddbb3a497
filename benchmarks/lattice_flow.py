"""Issue 6, direction "lattice-flow formulation": its size and LP bound against the direct arcs.

    python -m benchmarks.lattice_flow [--qis 4,5,6,7,8] [--ks 2,5,10] [--lp-qis 4,5] [--direct-qis 4,5,6] [--limit SEC]

The lattice-flow model of suppression k-anonymity: rows enter the lattice at
their type, climb it one star at a time (variable ``f_e`` per lattice edge
``u -> u + one star``, cost 1 per row and step) and are absorbed at a used
candidate (``a_j``, with ``k y_j <= a_j <= cap_j y_j``, ``y_j`` binary).
Conservation at every node ``u``: ``n_u + Σ_in f = Σ_out f + a_u``. A row's
path length is its candidate's number of stars, so the model is exact; its
nodes are every projection of a type (``generated``), its edges
``Σ_u (m − stars(u))``.

Its LP bound has a closed form: with ``y_j = a_j / cap_j`` the bounds on
``a_j`` always hold (``cap_j >= k``), so the LP routes each row along a
shortest path to any compatible candidate: ``Σ_i n_i min_{j ∋ i} w_j``. The
script checks this against HiGHS on the built LP (``--lp-qis``) and compares
it with the direct model's LP bound (the column generation of
``milp_anon.bounds.lagrangian``, ``--limit`` seconds, for ``--direct-qis``). Writes
``benchmarks/results/lattice_flow.{csv,md}``.
"""

from __future__ import annotations

import argparse
import os

from .common import ADULT_QI, run_to_files

QI = list(ADULT_QI)
OUT = os.path.join(os.path.dirname(__file__), "results")


def lattice_nodes(types):
    """Per mask (bit c set: column c starred), every type's node id; ids are global over masks."""
    import numpy as np

    m, codes = types.m, types.codes.astype(np.int64)
    radices = [int(v) + 1 for v in types.cardinalities]
    node_of, offset = {}, 0
    for mask in range(1 << m):
        key = np.zeros(types.t_in, dtype=np.int64)
        for c in range(m):
            key = key * radices[c] + (radices[c] - 1 if mask >> c & 1 else codes[:, c])
        uniq, inv = np.unique(key, return_inverse=True)
        node_of[mask] = (offset + inv.ravel(), uniq.shape[0])
        offset += uniq.shape[0]
    return node_of, offset


def lattice_flow_lp(types, cands, k):
    """Build the lattice-flow LP (``y`` continuous) in HiGHS and return its optimum."""
    import highspy
    import numpy as np

    m = types.m
    node_of, n_nodes = lattice_nodes(types)
    tails, heads = [], []
    for mask in range(1 << m):
        for c in range(m):
            if not mask >> c & 1:
                e = np.unique(np.column_stack([node_of[mask][0], node_of[mask | 1 << c][0]]), axis=0)
                tails.append(e[:, 0])
                heads.append(e[:, 1])
    tail, head = np.concatenate(tails), np.concatenate(heads)
    E, C = tail.shape[0], cands.n_candidates
    # candidate j's node: the node, at its mask, of any compatible type
    first_type = np.full(C, -1, dtype=np.int64)
    first_type[cands.pair_cand[::-1]] = cands.pair_type[::-1]
    masks = (cands.levels > 0).astype(np.int64) @ (1 << np.arange(m))
    cand_node = np.array([node_of[int(mk)][0][t] for mk, t in zip(masks, first_type)], dtype=np.int64)
    supply = np.zeros(n_nodes)
    np.add.at(supply, node_of[0][0], types.counts)
    # columns: f (E), a (C), y (C); rows: conservation (n_nodes), a - k y >= 0 (C), a - cap y <= 0 (C)
    inf = highspy.kHighsInf
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = E + 2 * C, n_nodes + 2 * C
    lp.col_cost_ = np.concatenate([np.ones(E), np.zeros(2 * C)])
    lp.col_lower_ = np.zeros(E + 2 * C)
    lp.col_upper_ = np.concatenate([np.full(E + C, inf), np.ones(C)])
    rows = np.concatenate([head, tail, cand_node, n_nodes + np.arange(C), n_nodes + C + np.arange(C),
                           n_nodes + np.arange(C), n_nodes + C + np.arange(C)])
    cols = np.concatenate([np.arange(E), np.arange(E), E + np.arange(C), E + np.arange(C), E + np.arange(C),
                           E + C + np.arange(C), E + C + np.arange(C)])
    vals = np.concatenate([np.ones(E), -np.ones(E), -np.ones(C), np.ones(C), np.ones(C),
                           np.full(C, -float(k)), -cands.capacity.astype(float)])
    # in - out - absorbed = -supply
    lp.row_lower_ = np.concatenate([-supply, np.zeros(C), np.full(C, -inf)])
    lp.row_upper_ = np.concatenate([-supply, np.full(C, inf), np.zeros(C)])
    order = np.lexsort((rows, cols))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.searchsorted(cols[order], np.arange(E + 2 * C + 1)).astype(np.int32)
    lp.a_matrix_.index_ = rows[order].astype(np.int32)
    lp.a_matrix_.value_ = vals[order]
    h.passModel(lp)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, h.modelStatusToString(h.getModelStatus())
    return float(h.getInfo().objective_function_value), E, n_nodes


def run(job):
    import time

    import numpy as np

    import milp_anon as ma
    from milp_anon.bounds.lagrangian import column_generation
    from milp_anon.instance.candidates import suppression_candidates
    from milp_anon.tables.datasets import load_adult
    from milp_anon.tables.rowtypes import RowTypes

    q, k, build_lp, direct, limit = job
    table = ma.Table.from_frame(load_adult(), qi=QI[:q])
    types = RowTypes.from_table(table)
    cands = suppression_candidates(types, k)
    n = types.counts.astype(float)
    # closed form of the lattice-flow LP: every row to its cheapest compatible candidate
    cheapest = np.full(types.t_in, np.inf)
    np.minimum.at(cheapest, cands.pair_type, cands.cost[cands.pair_cand].astype(float))
    closed_form = float(np.dot(n, cheapest))
    node_of, n_nodes = lattice_nodes(types)
    stars = np.array([bin(mask).count("1") for mask in range(1 << q)])
    edges = int(sum(node_of[mask][1] * (q - stars[mask]) for mask in range(1 << q)))
    row = {"qis": q, "k": k, "t_in": types.t_in, "candidates": cands.n_candidates,
           "direct_columns": cands.n_pairs + cands.n_candidates, "direct_rows": cands.n_pairs + types.t_in
           + cands.n_candidates, "flow_nodes": n_nodes, "flow_columns": edges + 2 * cands.n_candidates,
           "flow_rows": n_nodes + 2 * cands.n_candidates, "flow_lp_closed_form": closed_form}
    if build_lp:
        t = time.perf_counter()
        value, e_built, _ = lattice_flow_lp(types, cands, k)
        row.update(flow_lp_highs=value, flow_lp_seconds=round(time.perf_counter() - t, 1))
        assert e_built == edges
    if not direct:
        return row
    t = time.perf_counter()
    cg = column_generation(n, cands.cost, cands.pair_type, cands.pair_cand, k, time_limit=limit,
                           highs_options={"output_flag": False, "threads": 1})
    row.update(direct_lp=cg.bound, direct_lp_converged=cg.converged,
               direct_lp_seconds=round(time.perf_counter() - t, 1))
    return row


COLUMNS = [("qis", "QIs"), ("k", "k"), ("t_in", "types"), ("candidates", "candidates"),
           ("direct_columns", "direct columns"), ("direct_rows", "direct rows"), ("flow_nodes", "flow nodes"),
           ("flow_columns", "flow columns"), ("flow_rows", "flow rows"), ("direct_lp", "direct LP bound"),
           ("direct_lp_converged", "converged"), ("flow_lp_closed_form", "flow LP (closed form)"),
           ("flow_lp_highs", "flow LP (HiGHS)")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qis", default="4,5,6,7,8")
    ap.add_argument("--ks", default="2,5,10")
    ap.add_argument("--lp-qis", default="4,5", help="QI counts whose lattice-flow LP is built and solved")
    ap.add_argument("--direct-qis", default="4,5,6", help="QI counts whose direct LP bound is computed")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds for the direct LP's column generation")
    args = ap.parse_args(argv)
    lp_qis = {int(x) for x in args.lp_qis.split(",") if x}
    direct_qis = {int(x) for x in args.direct_qis.split(",") if x}
    jobs = [(int(q), int(k), int(q) in lp_qis, int(q) in direct_qis, args.limit)
            for q in args.qis.split(",") for k in args.ks.split(",")]
    run_to_files(run, jobs, os.path.join(OUT, "lattice_flow"),
                 "Lattice-flow formulation vs direct type -> candidate arcs, Adult (suppression)", COLUMNS)


if __name__ == "__main__":
    main()
