"""milp-anon: provably optimal table anonymization as mixed-integer programs.

Quick start::

    import milp_anon as ma
    table = ma.Table.from_frame(ma.datasets.load_adult(), qi=["sex", "age", "race"])
    result = ma.anonymize(table, ma.KAnonymity(5), time_limit=60)
    print(result.summary())
    result.table.head()

One API shape: ``anonymize(table, *criteria, recoding=None, model=ModelOptions(...),
solver=SolverOptions(...))`` (every option field also by keyword), and the
object form ``Request(*criteria, recoding=..., model=...)`` with ``solve``,
``inspect``, ``write_model`` and ``to_pulp``.
"""

from __future__ import annotations

from . import datasets
from .candidates import Candidates, suppression_candidates
from .criteria import Criterion, KAnonymity, LDiversity, PSensitivity, TCloseness
from .errors import InputError, MilpAnonError, ModelTooLargeError, SolverError, VerificationError
from .hierarchy import Hierarchy
from .recoding import Generalization, Patterns, Recoding, Suppression
from .request import ModelOptions, Request, anonymize
from .result import ModelSize, ReductionLog, Result, Round, Timings
from .rowtypes import RowTypes
from .solvers import SolverOptions
from .status import Status
from .table import SUPPRESSED, Table, read_csv
from ._version import __version__

__all__ = [
    "__version__",
    "Candidates",
    "Criterion",
    "Generalization",
    "Hierarchy",
    "InputError",
    "KAnonymity",
    "LDiversity",
    "MilpAnonError",
    "ModelOptions",
    "ModelSize",
    "ModelTooLargeError",
    "PSensitivity",
    "Patterns",
    "Recoding",
    "ReductionLog",
    "Request",
    "Result",
    "Round",
    "RowTypes",
    "SUPPRESSED",
    "SolverError",
    "SolverOptions",
    "Status",
    "Suppression",
    "TCloseness",
    "Table",
    "Timings",
    "VerificationError",
    "anonymize",
    "datasets",
    "read_csv",
    "suppression_candidates",
]
