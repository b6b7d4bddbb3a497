"""Formulation classes: named problems composed into one assignment model."""

from .assignment import AssignmentFormulation, AssignmentModel, estimate_size
from .k_anonymity import KAnonymityProblem

__all__ = ["AssignmentFormulation", "AssignmentModel", "KAnonymityProblem", "estimate_size"]
