"""Exact combinatorial algorithms from the papers (independent of the MILP)."""

from .brute_force import (brute_force, brute_force_k_anonymity, brute_force_options, emd_flow, set_partitions,
                          suppression_cost)

__all__ = ["brute_force", "brute_force_k_anonymity", "brute_force_options", "emd_flow", "set_partitions",
           "suppression_cost"]
