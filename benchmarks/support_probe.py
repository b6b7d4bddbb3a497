"""Probe (not shipped): the rounds replaced by one model over the LP point's candidates and the incumbent's.

    python benchmarks/support_probe.py master|rounds QIS K LIMIT

Full Adult, k-anonymity by cell suppression, ``lns=0`` (no search: the tables are the rounding's and the
rounds' own). ``master`` patches the reduction so that its one round is the model over the candidates with
``y > 0`` in the column generation's point and the incumbent's, all their pairs, at ``G = UB``, from the
incumbent; ``rounds`` is the package as it is. Prints one line per run. Reads the table only: under ``master``
the bound and status it prints are not valid (the restriction is no superset of ``S(G)``)."""
import sys
import time

import numpy as np

import milp_anon as ma
from milp_anon import reduction as R
from milp_anon.tables.datasets import load_adult

QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
mode, q, k, lim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
info = {}
if mode == "master":
    orig_rounding = R.LagrangianReduction.rounding
    def rounding(self, guide):
        info["y"] = np.asarray(guide[0])
        return orig_rounding(self, guide)
    def next_threshold(self):
        return self.ub
    def restriction(self, G):
        inc = self.incumbent_pairs()
        c = self.instance.candidates
        on = np.zeros(c.n_candidates, dtype=bool)
        on[info["y"] > 1e-6] = True
        if inc is not None:
            on[c.pair_cand[inc > 0]] = True
        keep = on[c.pair_cand]
        info.update(support=int((info["y"] > 1e-6).sum()), cands=int(on.sum()), pairs=int(keep.sum()))
        return keep, inc, keep
    R.LagrangianReduction.rounding = rounding
    R.LagrangianReduction.next_threshold = next_threshold
    R.LagrangianReduction.restriction = restriction
table = ma.Table.from_frame(load_adult(), qi=QI[:q])
t0 = time.perf_counter()
r = ma.anonymize(table, ma.KAnonymity(k), time_limit=lim, lns=0.0, max_memory_gb=8)
red = r.reduction.as_dict() if r.reduction else {}
print(mode, q, k, lim, "objective", r.objective, "bound", r.bound, "rounding", red.get("rounding_objective"),
      "lp", red.get("lp_bound"), "rounds", [(x.get("G"), x.get("pairs"), x.get("status"), x.get("objective"))
                                             for x in red.get("rounds", [])], info, round(time.perf_counter() - t0, 1),
      flush=True)
