"""HiGHS (presolve off) claims a wrong optimum on a 34-column model when its assignment columns are continuous.

``rdiv_continuous_g.npz`` is a relaxation ``R(A)`` of the row generation (``criteria_rows="generated"``) for
the 4-row table q0 = a b a c, q1 = b b a a, s = 1 1 3 2 (QIs q0, q1), k = 1, recursive (3, 2)-diversity,
exactly as the package passes it in bulk (``LinearModel.arrays()``, its column order), with the pairs ``g``
declared continuous and the sizes and counts integer (``formulations/p-sensitivity.md``: an exact form, not
the shipped one, where ``g`` is integer), and the sparse start the row generation gave it (with the feasibility
jump off, as the package does with a start). With the start and ``g`` continuous, HiGHS 1.15.1 answers
"Optimal 7"; without the start, or with ``g`` integer, "Optimal 6" (the integer model's optimum, so a
solution of cost 6 is feasible in the continuous form too). The package keeps ``g`` integer.

    python benchmarks/highs/rdiv_continuous_g.py benchmarks/highs/rdiv_continuous_g.npz

prints the four combinations (start yes/no, ``g`` integer yes/no). It builds the model from the arrays with
highspy alone (as ``LinearModel.to_highs`` does), so the report needs nothing of this package.
"""
import sys

import highspy
import numpy as np


def main(path):
    d = np.load(path)
    for with_start in (False, True):
        for integer_g in (False, True):
            integer = d["integer"].copy()
            if integer_g:
                integer |= np.char.startswith(d["col_names"].astype(str), "g_")
            lp = highspy.HighsLp()
            n, m = d["cost"].shape[0], d["row_lower"].shape[0]
            lp.num_col_, lp.num_row_ = n, m
            lp.col_cost_, lp.col_lower_ = d["cost"], d["lower"]
            inf = highspy.kHighsInf
            lp.col_upper_ = np.where(np.isinf(d["upper"]), inf, d["upper"])
            lp.row_lower_ = np.where(np.isinf(d["row_lower"]), -inf, d["row_lower"])
            lp.row_upper_ = np.where(np.isinf(d["row_upper"]), inf, d["row_upper"])
            lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
            lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
            lp.a_matrix_.start_ = d["start"].astype(np.int32)
            lp.a_matrix_.index_ = d["index"].astype(np.int32)
            lp.a_matrix_.value_ = d["value"]
            kinds = (highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger)
            lp.integrality_ = [kinds[int(f)] for f in integer]
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            h.setOptionValue("presolve", "off")
            h.setOptionValue("mip_rel_gap", 0.0)
            h.passModel(lp)
            if with_start:
                idx = d["hint_index"].astype(np.int32)
                h.setSolution(len(idx), idx, d["hint_value"].astype(float))
                h.setOptionValue("mip_heuristic_run_feasibility_jump", False)
            h.run()
            print(f"start={with_start} g_integer={integer_g}: {h.modelStatusToString(h.getModelStatus())} "
                  f"{h.getInfo().objective_function_value:g}, bound {h.getInfo().mip_dual_bound:g}")


if __name__ == "__main__":
    main(sys.argv[1])
