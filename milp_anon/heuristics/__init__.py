"""Heuristic baselines (no optimality claim; every table they return is verified)."""

from .greedy import pattern_greedy
from .level_greedy import level_greedy
from .mondrian import mondrian
from .suppression_greedy import suppression_greedy

__all__ = ["level_greedy", "mondrian", "pattern_greedy", "suppression_greedy"]
