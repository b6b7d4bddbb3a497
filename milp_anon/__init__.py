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

The package's layers, bottom to top (``docs/architecture.md``): ``runtime``;
``solvers`` and ``tables``; ``privacy``; ``release``; ``heuristics`` and
``exact``; ``instance``; ``formulations``; ``bounds``; ``search``;
``reduction``; ``pipeline``; ``api``; ``scoring``, ``certify`` and ``bench``;
``cli``. A module imports only from layers below its own.
"""

from __future__ import annotations

from milp_anon._version import __version__
from milp_anon.api import ModelOptions, Request, anonymize
from milp_anon.instance.candidates import Candidates, suppression_candidates
from milp_anon.privacy.criteria import (
    AverageRisk,
    BetaLikeness,
    Criterion,
    DeltaDisclosure,
    DeltaPresence,
    KAnonymity,
    KMap,
    LDiversity,
    PSensitivity,
    TCloseness,
)
from milp_anon.release.result import ModelSize, ReductionLog, Result, Round, Timings
from milp_anon.runtime import errors
from milp_anon.runtime.errors import InputError, MilpAnonError, ModelTooLargeError, SolverError, VerificationError
from milp_anon.runtime.status import Status
from milp_anon.runtime.tuning import Tuning
from milp_anon.solvers import SolverOptions
from milp_anon.tables import datasets
from milp_anon.tables.hierarchy import Hierarchy
from milp_anon.tables.recoding import Generalization, Patterns, Recoding, Suppression
from milp_anon.tables.rowtypes import RowTypes
from milp_anon.tables.table import SUPPRESSED, Table, read_csv

__all__ = [
    "__version__",
    "Candidates",
    "Criterion",
    "DeltaPresence",
    "Generalization",
    "Hierarchy",
    "InputError",
    "KAnonymity",
    "KMap",
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
    "Tuning",
    "VerificationError",
    "anonymize",
    "datasets",
    "errors",
    "read_csv",
    "AverageRisk",
    "BetaLikeness",
    "DeltaDisclosure",
    "suppression_candidates",
]
