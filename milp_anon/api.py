"""The public API: :func:`anonymize` and :class:`Request`, a :class:`~milp_anon.instance.request.Problem` that solves.

The public API has one shape::

    anonymize(table, *criteria, recoding=None, model=ModelOptions(...), solver=SolverOptions(...))

and the object form takes the same arguments (``Request(*criteria,
recoding=..., model=...).solve(table, solver=...)``, plus
:meth:`Request.inspect`, :meth:`Request.write_model`, :meth:`Request.to_pulp`).
Every field of :class:`ModelOptions` and :class:`~milp_anon.solvers.SolverOptions`
may also be given by keyword (``anonymize(table, KAnonymity(5), budget=2000,
time_limit=60)``); a keyword that is neither is an error naming it.
"""

from __future__ import annotations

import pandas as pd

from milp_anon.instance.request import OPTION_FIELDS, ModelOptions, Problem, merged_options, split_options
from milp_anon.pipeline import solve as pipeline
from milp_anon.runtime import progress as _progress
from milp_anon.runtime.errors import InputError
from milp_anon.solvers import SolverOptions
from milp_anon.tables.table import Table

__all__ = ["OPTION_FIELDS", "ModelOptions", "Request", "anonymize", "as_table", "split_options"]


def as_table(table, qi=None, sensitive=None) -> Table:
    """``table`` as a :class:`~milp_anon.tables.table.Table`: a ``pandas.DataFrame`` with ``qi`` (and
    ``sensitive``) becomes one by :meth:`Table.from_frame`; anything else is an :class:`InputError` saying how."""
    if isinstance(table, Table):
        if qi is not None or sensitive is not None:
            raise InputError("qi= and sensitive= go with a DataFrame; a Table already has its columns' roles")
        return table
    if isinstance(table, pd.DataFrame):
        if qi is None:
            raise InputError("a DataFrame needs its quasi-identifiers: anonymize(frame, ..., qi=[...], "
                             "sensitive=...) or ma.Table.from_frame(frame, qi=[...], sensitive=...)")
        return Table.from_frame(table, qi, sensitive)
    raise InputError(f"expected a milp_anon Table or a pandas DataFrame, got {type(table).__name__} "
                     "(ma.Table.from_frame(frame, qi=[...]) or ma.Table.from_csv(path, qi=[...]))")


class Request(Problem):
    """Criteria, a recoding and model options (a :class:`~milp_anon.instance.request.Problem`), with the
    methods that solve it.

    ``Request(KAnonymity(5), LDiversity(3), recoding=Generalization(...), budget=2000)``;
    without a :class:`~milp_anon.criteria.KAnonymity` criterion, ``KAnonymity(1)``
    is added (every group is non-empty).
    """

    # -- the object form of the API ---------------------------------------------------
    def solve(self, table, solver: SolverOptions | str | None = None, *, progress=None, **solver_options):
        """Solve ``table`` (:func:`milp_anon.pipeline.solve.solve`); keywords are fields of :class:`SolverOptions`.

        ``solver``: a :class:`SolverOptions`, or a solver's name (``"HiGHS"``,
        ``"cbc"``, any PuLP solver) for ``SolverOptions(solver=...)``.
        ``progress``: called with a :class:`~milp_anon.runtime.progress.Progress`
        (phase, elapsed, incumbent, bound, gap) whenever the solve learns
        something (e.g. ``progress=lambda p: print(p.line())``).
        """
        if isinstance(solver, str):
            solver, solver_options = None, {"solver": solver, **solver_options}
        options = merged_options(SolverOptions, solver, solver_options)
        table = as_table(table)
        with _progress.reporting(progress):
            result = pipeline.solve(table, self, options)
        # the risk and utility users read, from the released table (the pipeline's own sub-solves skip them)
        return result.with_measures(table.frame, table.qi, self.recoding, self.criteria)

    def inspect(self, table, *, lp: bool = False, time_limit: float | None = None) -> dict:
        """Sizes of every stage without solving (:func:`milp_anon.pipeline.solve.inspect`)."""
        return pipeline.inspect(as_table(table), self, lp=lp, time_limit=time_limit)

    def write_model(self, table, path: str, format: str | None = None) -> None:
        """Write the whole model of ``table`` as MPS or LP (:func:`milp_anon.pipeline.solve.write_model`)."""
        pipeline.write_model(as_table(table), self, path, format)

    def to_pulp(self, table):
        """The whole model of ``table`` as a :class:`pulp.LpProblem` (for export or any solver PuLP knows)."""
        return pipeline.build_model(as_table(table), self).lm.to_pulp()[0]



def anonymize(table, *criteria, recoding=None, model: ModelOptions | None = None,
              solver: SolverOptions | str | None = None, progress=None, qi=None, sensitive=None, **options):
    """Anonymize ``table`` optimally under ``criteria``; returns a :class:`~milp_anon.release.result.Result`.

    Parameters
    ----------
    table
        A :class:`~milp_anon.tables.table.Table`, or a ``pandas.DataFrame`` with ``qi`` (and ``sensitive``).
    *criteria
        Privacy criteria, e.g. ``KAnonymity(5)``, ``LDiversity(3)``, ``TCloseness(0.2)``.
    recoding
        ``Suppression()`` (default), ``Generalization({column: hierarchy}, cost=...)``
        or ``Patterns([...])``.
    model, solver
        :class:`ModelOptions` and :class:`~milp_anon.solvers.SolverOptions` (or a solver's name).
    progress
        A callback taking a :class:`~milp_anon.runtime.progress.Progress` while the solve runs.
    qi, sensitive
        With a DataFrame: its quasi-identifier and sensitive columns (:meth:`Table.from_frame`).
    **options
        Any field of either, by name (``time_limit=60``, ``reduction="none"``, ``budget=2000``).
    """
    table = as_table(table, qi, sensitive)
    model_kw, solver_kw = split_options(options)
    return Request(*criteria, recoding=recoding, model=model, **model_kw).solve(table, solver, progress=progress,
                                                                                **solver_kw)
