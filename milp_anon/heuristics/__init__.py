"""Heuristic baselines (no optimality claim; every table they return is verified)."""

from .greedy import pattern_greedy

__all__ = ["pattern_greedy"]
