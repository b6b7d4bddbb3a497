"""Score an externally anonymized table against the proven optimum.

``score_release`` checks that a released table is a recoding of the
original (same rows in the same order, every QI cell its input value, ``*``,
or an ancestor in the column's hierarchy; every other column unchanged),
that every criterion holds (the independent verifier), counts its cost under
the chosen metric, and solves the optimum with the MILP.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from . import verify as _verify
from .errors import InputError, VerificationError
from .recoding import Generalization
from .request import Request


@dataclass
class GapReport:
    """The score of one anonymized table.

    ``gap`` is ``(cost - optimum) / optimum`` (0 when both are 0) against the
    proven optimum; when the optimum is not proven (a limit), ``optimum`` is
    the best solution found, ``bound`` the proven lower bound, and
    ``gap_to_bound`` = ``(cost - bound) / cost`` the largest the true gap
    can be in the other direction.
    """

    valid: bool
    cost: float | None
    optimum: float | None
    gap: float | None
    status: str | None
    bound: float | None = None
    gap_to_bound: float | None = None
    violation: str | None = None
    n_rows: int = 0
    n_groups: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _rel(cost, ref):
    if cost is None or ref is None:
        return None
    if ref == 0:
        return 0.0 if cost == 0 else float("inf")
    return (float(cost) - float(ref)) / float(ref)


def score_release(table, released: pd.DataFrame, criteria, recoding=None, options=None,
                  solve: bool = True) -> GapReport:
    """Check ``released`` against ``table`` and the criteria, and compare its cost with the optimum.

    Parameters
    ----------
    table
        The original :class:`~milp_anon.table.Table`.
    released
        The anonymized rows (same columns, same row order).
    criteria, recoding
        As for :class:`~milp_anon.request.Request`; the cost metric is the recoding's.
    options
        :class:`~milp_anon.solvers.SolverOptions` for the optimum.
    solve
        Also solve the optimum (skipped for an invalid table).
    """
    original = table.frame
    if set(released.columns) != set(original.columns):
        missing = [c for c in original.columns if c not in released.columns]
        extra = [c for c in released.columns if c not in original.columns]
        raise InputError("the anonymized table must have the original's columns"
                         + (f"; missing {', '.join(missing)}" if missing else "")
                         + (f"; unexpected {', '.join(extra)}" if extra else ""))
    released = released[list(original.columns)].reset_index(drop=True)
    report = GapReport(valid=False, cost=None, optimum=None, gap=None, status=None, n_rows=len(released))
    try:
        if isinstance(recoding, Generalization):
            report.cost = _verify.check_generalization(original, released, table.qi, recoding)
        else:
            report.cost = _verify.check_suppression(original, released, table.qi)
        v = _verify.verify_release(original, released, table.qi, criteria, sensitive=table.sensitive,
                                   recoding=recoding)
        report.n_groups = v.n_groups
    except VerificationError as exc:
        report.violation = str(exc).removeprefix("verification failed: ")
        return report
    report.valid = True
    if not solve:
        return report
    result = Request(criteria, recoding=recoding).solve(table, options)
    report.status = result.status
    report.optimum = result.cost
    report.bound = result.bound
    report.gap = _rel(report.cost, report.optimum)
    if report.bound is not None and report.cost:
        report.gap_to_bound = (float(report.cost) - float(report.bound)) / float(report.cost)
    elif report.bound is not None:
        report.gap_to_bound = 0.0
    return report
