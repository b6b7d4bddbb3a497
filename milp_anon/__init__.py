"""milp-anon: provably optimal table anonymization as mixed-integer programs.

Quick start::

    import milp_anon as ma
    table = ma.Table.from_csv("adult.csv", qi=["sex", "age", "race"], sep=";")
    result = ma.anonymize(table, ma.KAnonymity(5), time_limit=60)
    print(result.summary())
    result.table.head()
"""

from __future__ import annotations

from .candidates import Candidates, suppression_candidates
from .criteria import Criterion, KAnonymity, LDiversity, PSensitivity, TCloseness
from .errors import InputError, MilpAnonError, ModelTooLargeError, SolverError, VerificationError
from .hierarchy import Hierarchy
from .recoding import Generalization, Patterns, Recoding, Suppression
from .formulations import AssignmentFormulation, KAnonymityProblem
from .result import Result
from .rowtypes import RowTypes
from .solve import SolverOptions
from .table import SUPPRESSED, Table, read_csv

__version__ = "0.1.0"


def anonymize(table, *criteria, recoding=None, closure: bool = True, reduction: str = "auto",
              mps: str | None = None, lp_file: str | None = None, **solver_options) -> Result:
    """Anonymize ``table`` optimally under ``criteria``.

    Parameters
    ----------
    table
        A :class:`Table`.
    *criteria
        Privacy criteria, e.g. ``KAnonymity(5)``, ``LDiversity(3)``, ``TCloseness(0.2)``.
    recoding
        ``Suppression()`` (default) or ``Generalization({column: hierarchy}, cost=...)``.
    closure
        Closure pruning of the candidates (exact; default on).
    reduction
        ``"auto"`` (default), ``"lagrangian"`` or ``"none"``: exact Lagrangian
        reduced-cost fixing for k-anonymity alone (see
        :class:`~milp_anon.formulations.AssignmentFormulation`).
    mps, lp_file
        Also write the model to these paths.
    **solver_options
        Fields of :class:`SolverOptions` (``time_limit``, ``threads``, ``gap``,
        ``solver``, ``msg``, ...).
    """
    if not isinstance(table, Table):
        raise InputError("anonymize() takes a milp_anon.Table; build one with Table.from_frame or from_csv")
    options = SolverOptions(**solver_options)
    form = AssignmentFormulation(criteria, recoding=recoding, closure=closure, reduction=reduction)
    return form.solve(table, options, mps=mps, lp_file=lp_file)


__all__ = [
    "AssignmentFormulation",
    "Candidates",
    "Criterion",
    "InputError",
    "KAnonymity",
    "KAnonymityProblem",
    "LDiversity",
    "PSensitivity",
    "TCloseness",
    "Hierarchy",
    "Generalization",
    "Patterns",
    "Recoding",
    "Suppression",
    "MilpAnonError",
    "ModelTooLargeError",
    "Result",
    "RowTypes",
    "SUPPRESSED",
    "SolverError",
    "SolverOptions",
    "Table",
    "VerificationError",
    "anonymize",
    "read_csv",
    "suppression_candidates",
]
