"""Exact combinatorial algorithms from the papers (independent of the MILP).

One family per module:

* :mod:`.brute_force` — every set partition (every problem and criterion);
* :mod:`.full_domain` — full-domain generalization: every level vector and withheld set;
* :mod:`.divide_and_conquer` — Blocki-Williams Thm. 3, ``O(4^n poly n)``;
* :mod:`.kernel` — Blocki-Williams Lemma 2 / Algorithm 1, then any exact solver;
* :mod:`.row_assignment` — Bredereck et al. Algorithm 1 (FPT in ``t_in``) with
  ROW ASSIGNMENT / p-ROW ASSIGNMENT as min-cost flows (Lemmas 1, 3; Thm. 2, 4, 5)
  and pattern-guided k-anonymity (Bredereck-Nichterlein-Niedermeier Thm. 3);
* :mod:`.split_recursion` — Liang-Yuan Thm. 8 (t-closeness; any per-group criterion);
* :mod:`.simplex_matching` — 2-anonymity / 2-diversity through the simplex-matching
  hypergraph (Blocki-Williams Thm. 1, Liang-Yuan Thm. 11), solved by an exact DP.
"""

from milp_anon.exact.brute_force import (
                          brute_force,
                          brute_force_k_anonymity,
                          brute_force_options,
                          emd_flow,
                          set_partitions,
                          suppression_cost,
)
from milp_anon.exact.divide_and_conquer import divide_and_conquer
from milp_anon.exact.full_domain_exhaustive import brute_force_full_domain
from milp_anon.exact.kernel import kernel_then, kernelize
from milp_anon.exact.row_assignment import fpt_patterns, fpt_t_in, p_row_assignment_flow, row_assignment_flow
from milp_anon.exact.simplex_matching import simplex_hypergraph, simplex_matching, two_anonymity, two_diversity
from milp_anon.exact.split_recursion import split_recursion, t_closeness_exact

__all__ = ["brute_force", "brute_force_full_domain", "brute_force_k_anonymity", "brute_force_options", "divide_and_conquer", "emd_flow",
           "fpt_patterns", "fpt_t_in", "kernel_then", "kernelize", "p_row_assignment_flow", "row_assignment_flow",
           "set_partitions", "simplex_hypergraph", "simplex_matching", "split_recursion", "suppression_cost",
           "t_closeness_exact", "two_anonymity", "two_diversity"]
