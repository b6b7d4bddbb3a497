"""The model options' rows and objectives (``formulations/options.md``).

* budget: ``Σ_{u,j} w_j g_uj <= s``;
* output homogeneity: ``t_out_min <= Σ_j y_j <= t_out_max``;
* objectives: ``cost`` (default), ``rows`` (rows with at least one recoded
  cell: weight 1 on every pair of a candidate with a level above 0, even at
  cost 0), ``types`` (maximize ``Σ_j y_j``, i.e. minimize ``−Σ_j y_j``).
"""

from __future__ import annotations

import numpy as np

from milp_anon.instance.request import ModelOptions

__all__ = ["add_option_rows"]


def add_option_rows(am, options: ModelOptions) -> None:
    """Budget, output homogeneity and the objective, added to ``am`` (the
    :class:`~milp_anon.formulations.assignment.AssignmentModel` being built, which calls this; not imported here,
    so that the model's module and its rows' modules do not import each other)."""
    lm, c = am.lm, am.cands
    w = c.cost[am.pair_cand].astype(float)
    if options.budget is not None:
        lm.add_rows("budget", 1, rows=np.zeros(am.g.shape[0], np.int64), cols=am.g, vals=w,
                    upper=float(options.budget))
    if options.t_out_min is not None or options.t_out_max is not None:
        lm.add_rows("t_out", 1, rows=np.zeros(c.n_candidates, np.int64), cols=am.y, vals=1.0,
                    lower=float(options.t_out_min) if options.t_out_min is not None else -np.inf,
                    upper=float(options.t_out_max) if options.t_out_max is not None else np.inf)
    if options.objective == "rows":
        lm.set_cost("g", (c.levels > 0).any(axis=1)[am.pair_cand])
    elif options.objective == "types":
        lm.set_cost("g", 0.0)
        lm.set_cost("y", -1.0)
