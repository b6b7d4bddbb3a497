"""k-anonymity by cell suppression (Meyerson-Williams cost), MODELS.md §2."""

from __future__ import annotations

from ..criteria import KAnonymity
from .assignment import AssignmentFormulation


class KAnonymityProblem(AssignmentFormulation):
    """Optimal k-anonymity by suppression: fewest ``*`` cells such that every
    class of rows equal on the QIs has at least ``k`` rows.

    NP-hard for ``k >= 3`` even on binary tables (Blocki-Williams 2010,
    Cor. 2); polynomial for ``k = 2`` (their Thm. 1). Model size depends on
    the number of row types and surviving candidates, not on ``n``.
    """

    def __init__(self, k: int, *, closure: bool = True, assignment: str = "continuous", reduction: str = "auto"):
        super().__init__([KAnonymity(k)], closure=closure, assignment=assignment, reduction=reduction)
        self.k = self.criteria[0].k
