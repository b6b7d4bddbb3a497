"""Exact combinatorial algorithms from the papers (independent of the MILP)."""

from .brute_force import brute_force, brute_force_k_anonymity, emd_flow, suppression_cost

__all__ = ["brute_force", "brute_force_k_anonymity", "emd_flow", "suppression_cost"]
