"""HiGHS (presolve off, default ``mip_feasibility_tolerance``) claims a wrong optimum on a pure integer program.

The program is the semi-Lagrangian subproblem of k-anonymity (``benchmarks/experiments/semi_lagrangian.py``) on UCI Adult,
QIs sex, age, race, marital-status, education, native-country, k = 5, at the multipliers
``slr_cut_tolerance.npz`` (the ascent's second step): 3,576 binary ``y``, 48,583 integer ``g``, 59,804 rows::

    min Σ (w_j − π_i) g_ij  s.t.  Σ_j g_ij <= n_i,  Σ_i g_ij − k y_j >= 0,  g_ij − n_i y_j <= 0

HiGHS 1.15.1 with presolve off answers "Optimal −3,121.62" after one node (its root cuts lift the bound from
−3,139.46 past −3,136.59); with ``mip_feasibility_tolerance=1e-9``, or with presolve on, it answers
"Optimal −3,136.59", and that solution passes every row and bound exactly (checked here in numpy, rounded to
integers). Not the symmetry detection, the heuristics or the restarts (each off: still −3,121.62), nor the
costs below 1e-9 (set to 0: the same). Same class as ERGO-Code/HiGHS#1959 (presolve off, fixed by the lower
tolerance).

    python benchmarks/highs/slr_cut_tolerance.py

prints each setting's status, objective, dual bound and whether its rounded solution is feasible.
"""
import os
import sys

import highspy
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

import milp_anon as ma  # noqa: E402
from benchmarks.experiments.semi_lagrangian import subproblem_model  # noqa: E402
from milp_anon.bounds.lagrangian import block_values  # noqa: E402
from milp_anon.pipeline import solve as pipeline  # noqa: E402
from milp_anon.release.result import Timings  # noqa: E402
from milp_anon.tables.datasets import load_adult  # noqa: E402

QIS = ["sex", "age", "race", "marital-status", "education", "native-country"]
K = 5
SETTINGS = {
    "presolve off, tolerance 1e-6 (default)": dict(presolve="off"),
    "presolve off, tolerance 1e-9": dict(presolve="off", mip_feasibility_tolerance=1e-9),
    "presolve on, tolerance 1e-6": dict(presolve="on"),
}


def model(pi):
    table = ma.Table.from_frame(load_adult(), QIS)
    inst, _, why = pipeline.prepare(table, ma.Request(ma.KAnonymity(K)), Timings())
    assert not why, why
    c, n = inst.candidates, inst.types.counts.astype(float)
    w = c.cost.astype(float)
    keep = block_values(pi, n, w, c.pair_type, c.pair_cand, K).rc < 1e-9
    return subproblem_model(pi, n, w, c.pair_type, c.pair_cand, K, keep)[0]


def feasible(a, x):
    """Every row and bound of the arrays ``a`` holds exactly at the integer point ``x``."""
    ax = np.zeros(a["row_lower"].size)
    np.add.at(ax, a["index"], a["value"] * np.repeat(x, np.diff(a["start"])))
    return bool(np.all(ax >= a["row_lower"] - 1e-9) and np.all(ax <= a["row_upper"] + 1e-9)
                and np.all(x >= a["lower"]) and np.all(x <= a["upper"]))


def main():
    pi = np.load(os.path.join(os.path.dirname(__file__), "slr_cut_tolerance.npz"))["pi"]
    m = model(pi)
    a = m.arrays()
    print(f"{m.n_cols} columns, {m.n_rows} rows, HiGHS {highspy.Highs().version()}")
    for name, options in SETTINGS.items():
        h = m.to_highs()
        for key, v in {**options, "threads": 1, "mip_rel_gap": 0.0, "time_limit": 600.0}.items():
            h.setOptionValue(key, v)
        h.run()
        x = np.rint(np.asarray(h.getSolution().col_value))
        print(f"{name}: {h.modelStatusToString(h.getModelStatus())}, objective "
              f"{h.getInfo().objective_function_value:.2f}, dual bound {h.getInfo().mip_dual_bound:.2f}, "
              f"rounded solution feasible: {feasible(a, x)} (objective {a['cost'] @ x:.2f})")


if __name__ == "__main__":
    main()
