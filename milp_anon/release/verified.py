"""A released table that passed the independent verifier: the only kind any stage hands on.

:meth:`Release.verified` runs the verifier (:mod:`milp_anon.privacy.verify`) on a
candidate table for a request — every criterion from its definition, the
recoding, the claimed cost, then the options (budget, number of output
groups) — and recounts the objective. A :class:`Release` exists only after
that passed, whether the table came from a solver, a heuristic or the whole
table as one group.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from milp_anon.privacy.verify import verify_options, verify_release
from milp_anon.release.partition import groups_of
from milp_anon.release.result import SOLVER, ModelSize, ReductionLog
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status

__all__ = ["Outcome", "Release"]


@dataclass(frozen=True)
class Release:
    """A verified release.

    Attributes
    ----------
    table
        The released rows (same columns and order as the input).
    groups
        ``(n,)`` each row's equivalence class (0-based).
    cost
        The cell cost (as counted by whoever made the table; the verifier
        checked it against its own recount), in the model's unit: plus
        ``request.recoding.cost_offset(table)`` (the entropy cost's constant, else 0).
    objective
        The objective recounted by the verifier (the cost, in the model's unit
        as ``cost``, rows with a recoded cell, or the number of groups).
    source
        ``"solver"`` or the heuristic that made the table.
    cost_by_column, class_sizes
        The verifier's recount per QI column, and the class sizes.
    """

    table: pd.DataFrame
    groups: np.ndarray
    cost: float
    objective: float
    source: str = SOLVER
    cost_by_column: dict | None = None
    class_sizes: tuple = ()
    #: ``(n,)`` withheld records (record suppression; group ``-1``), or ``None``
    withheld: np.ndarray | None = None

    @classmethod
    def verified(cls, table, request, released: pd.DataFrame, *, cost=None, groups=None,
                 source: str = SOLVER) -> Release:
        """Verify ``released`` against ``request`` on ``table``; raises
        :class:`~milp_anon.runtime.errors.VerificationError` on any violation.

        With record suppression, rows of group ``-1`` are the withheld records."""
        m = request.model
        withheld = None
        if m.withholds and groups is not None and np.any(np.asarray(groups) < 0):
            withheld = np.asarray(groups) < 0
        # the model's unit: the verifier's cost plus the recoding's constant (the entropy cost; 0 otherwise);
        # the pipeline's finish (milp_anon.pipeline.solve._finish) subtracts it again
        offset = request.recoding.cost_offset(table)
        v = verify_release(table.frame, released, table.qi, request.criteria, sensitive=table.sensitive,
                           claimed_cost=None if cost is None else cost - offset, recoding=request.recoding,
                           withheld=withheld)
        objective = verify_options(table.frame, released, table.qi, v, budget=m.budget, t_out_min=m.t_out_min,
                                   t_out_max=m.t_out_max, objective=m.objective,
                                   max_withheld=m.max_suppressed_records)
        if m.objective == "cost":
            objective += offset
        if groups is None:
            groups = groups_of(released, table.qi)
        return cls(released, np.asarray(groups), v.cost + offset if cost is None else cost, float(objective),
                   source, v.cost_by_column, v.class_sizes, withheld)


@dataclass
class Outcome:
    """What a solving stage (the whole model, or the reduction) hands to the pipeline's finish.

    ``bound`` is in the model's sense (a minimization: ``−types`` for the
    ``types`` objective), on the objective's ``grid``. ``status`` is the stage's status for its release;
    with ``bound_certifies`` a bound that reaches the verified objective makes
    it ``optimal`` (the reduction's composite certificate); without, only the
    solver's own Optimal does (the single-model certificate).
    """

    release: Release | None
    bound: float | None
    status: Status
    solver_status: str
    size: ModelSize
    candidate_counts: dict
    grid: ObjectiveGrid
    bound_certifies: bool = False
    reduction: ReductionLog | None = None
    warm_start_cost: float | None = None
    reason: str | None = None
    #: the full-domain search: lattice nodes, nodes evaluated, the chosen level per column
    full_domain: dict | None = None
    #: what the bound rests on when it is not the stage's own (e.g. the k-anonymity LP bound)
    bound_source: str | None = None
    #: the large-neighbourhood search's log (:class:`~milp_anon.search.lns.LnsLog`), when it ran
    lns: object | None = None
    #: the criteria's row generation (:class:`~milp_anon.pipeline.row_generation.RowGenerationLog`), when it ran
    row_generation: object | None = None
    #: the LP relaxation and its rounding before the whole model (:class:`~milp_anon.pipeline.relaxation.LpRoundingLog`)
    lp_rounding: object | None = None
    #: ``(blocks, pi0, ascent)`` of the group blocks' bound, for a second ascent in time nothing else uses
    #: (:func:`~milp_anon.bounds.subgradient.second_ascent`), or ``None`` (also once it ran beside the search)
    ascent: tuple | None = field(default=None, compare=False, repr=False)
    #: what the second ascent did (the first's bound, its own, target, steps, seconds), when it ran
    second_ascent: dict | None = None
    #: what the rounding of the group blocks' average did (steps averaged, its objective, refined, the heuristic
    #: table's, whether it replaced it, seconds), when it ran
    blocks_rounding: dict | None = None
