"""Heuristic baselines (no optimality claim; every table they return is verified)."""

from milp_anon.heuristics.criteria_greedy import criteria_pattern_greedy
from milp_anon.heuristics.greedy import pattern_greedy
from milp_anon.heuristics.interval_split import interval_split
from milp_anon.heuristics.level_greedy import level_greedy
from milp_anon.heuristics.mondrian import mondrian
from milp_anon.heuristics.refine import refine_release
from milp_anon.heuristics.suppression_greedy import suppression_greedy

__all__ = ["criteria_pattern_greedy", "interval_split", "level_greedy", "mondrian", "pattern_greedy", "refine_release",
           "suppression_greedy"]
