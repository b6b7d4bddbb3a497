"""Heuristic baselines (no optimality claim; every table they return is verified)."""

from .criteria_greedy import criteria_pattern_greedy
from .greedy import pattern_greedy
from .level_greedy import level_greedy
from .mondrian import mondrian
from .refine import refine_release
from .suppression_greedy import suppression_greedy

__all__ = ["criteria_pattern_greedy", "level_greedy", "mondrian", "pattern_greedy", "refine_release",
           "suppression_greedy"]
