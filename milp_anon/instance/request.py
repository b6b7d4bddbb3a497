"""What to solve: a frozen, validated :class:`Problem` — privacy criteria, a recoding and :class:`ModelOptions`.

A :class:`Problem` is a value: every stage below the pipeline reads it and
none solves it. The public :class:`milp_anon.api.Request` is a
:class:`Problem` with the methods that solve it (``solve``, ``inspect``,
``write_model``, ``to_pulp``). Every field of :class:`ModelOptions` and
:class:`~milp_anon.solvers.SolverOptions` may also be given by keyword; a
keyword that is neither is an error naming it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from milp_anon.privacy.criteria import Criterion, KAnonymity, LDiversity, PSensitivity
from milp_anon.runtime.errors import InputError
from milp_anon.solvers import SolverOptions
from milp_anon.tables.recoding import Patterns, Recoding, as_recoding

__all__ = ["CRITERIA_ROWS", "FULL_DOMAIN_WITHHOLDING", "OPTION_FIELDS", "ModelOptions", "Problem", "check_full_domain",
           "merged_options", "split_options"]

OBJECTIVES = ("cost", "rows", "types")
REDUCTIONS = ("auto", "lagrangian", "none")
ASSIGNMENTS = ("continuous", "integer")
WARM_STARTS = ("none", "greedy")
#: ``ModelOptions.criteria_rows``: ``"auto"`` generates them where
#: :func:`milp_anon.pipeline.row_generation.unavailable` says it applies (formulations/row-generation.md)
CRITERIA_ROWS = ("auto", "generated", "all")


def _whole(name, v):
    if v is not None and (isinstance(v, bool) or int(v) != v or v < 1):
        raise InputError(f"{name} must be a whole number >= 1, got {v!r}")


@dataclass(frozen=True)
class ModelOptions:
    """What model to build (how to solve it is :class:`~milp_anon.solvers.SolverOptions`).

    Parameters
    ----------
    closure
        Closure pruning of the candidates (exact for the cost objective and
        union-closed criteria; default on). Not applied where it is not
        exact: with ``t_out_min`` and the ``types`` objective (:attr:`closure_applies`).
    assignment
        ``"continuous"`` (default) or ``"integer"`` assignment variables.
        With k-anonymity and p-sensitivity alone both are exact (ROW
        ASSIGNMENT and p-ROW ASSIGNMENT have integral vertices); frequency and
        recursive ℓ-diversity and t-closeness always use integer assignment
        variables (their coefficients break total unimodularity).
    budget
        Total cost at most ``budget`` (the decision version; infeasible otherwise).
    t_out, t_out_min, t_out_max
        Exactly / at least / at most that many output groups.
    objective
        ``"cost"`` (default), ``"rows"`` (rows with a recoded cell) or
        ``"types"`` (maximize the number of output groups; needs a budget).
    warm_start
        ``"none"`` (default) or ``"greedy"``: start HiGHS from a verified
        heuristic table (suppression or pattern-guided recoding).
    reduction
        ``"auto"`` (default), ``"lagrangian"`` or ``"none"``. With k-anonymity
        alone and the cost objective (no budget, no ``t_out``), ``"auto"`` and
        ``"lagrangian"`` first solve the LP bound over every candidate by
        column generation and then solve models restricted to the pairs that
        a solution below a rising threshold ``G`` may use (exact Lagrangian
        reduced-cost fixing, ``formulations/reduction.md``); ``"none"`` builds
        the whole model. ``"lagrangian"`` where it does not apply is an
        error; ``"auto"`` then builds the whole model.
    criteria_rows
        ``"auto"`` (default), ``"generated"`` or ``"all"``. With sensitive
        criteria (p-sensitivity, ℓ-diversity, t-closeness) ``"auto"`` and
        ``"generated"`` solve models that hold the criteria's rows only for
        the candidates whose groups failed them in an earlier model, each a
        relaxation, until a solution meets every criterion
        (``formulations/row-generation.md``); ``"all"`` solves the whole
        model at once. ``"generated"`` where it does not apply is an error;
        ``"auto"`` then builds the whole model.
    max_memory_gb
        Refuse to build a model whose estimate, with what the process already
        holds, is above this many GiB (``None``: a model estimated above 80 %
        of the memory available now); the reduction runs the largest round
        that fits instead, and ends its rounds where none does. The candidate
        layer counts too (refused while enumerated, ``ModelTooLargeError``),
        and a solve in its own process is stopped once it and this process
        hold more (as at a time limit; only with an explicit value).
    max_suppressed_records
        Record suppression (``None``: off): at most this many records may be
        withheld. A withheld record is left out of the release and exempt
        from every criterion (ARX's definition); it costs what suppressing
        every QI cell of it costs (``formulations/record-suppression.md``).
    """

    closure: bool = True
    assignment: str = "continuous"
    budget: float | None = None
    t_out: int | None = None
    t_out_min: int | None = None
    t_out_max: int | None = None
    objective: str = "cost"
    warm_start: str = "none"
    reduction: str = "auto"
    criteria_rows: str = "auto"
    max_memory_gb: float | None = None
    max_suppressed_records: int | None = None

    def __post_init__(self):
        for name, value, allowed in (("reduction", self.reduction, REDUCTIONS),
                                     ("objective", self.objective, OBJECTIVES),
                                     ("assignment", self.assignment, ASSIGNMENTS),
                                     ("criteria_rows", self.criteria_rows, CRITERIA_ROWS)):
            if value not in allowed:
                raise InputError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
        if self.warm_start not in WARM_STARTS:
            raise InputError(f"warm start must be 'none' or 'greedy', got {self.warm_start!r}")
        if self.budget is not None and (isinstance(self.budget, bool) or not self.budget >= 0):
            raise InputError(f"budget must be a number >= 0, got {self.budget!r}")
        if self.objective == "types" and self.budget is None:
            raise InputError("objective 'types' (maximize the number of output types) needs a budget")
        r = self.max_suppressed_records
        if r is not None and (isinstance(r, bool) or not isinstance(r, (int, np.integer)) or r < 0):
            raise InputError(f"max_suppressed_records must be a whole number >= 0, got {r!r}")
        if r is not None and (self.objective != "cost" or self.budget is not None or self.t_out is not None
                              or self.t_out_min is not None or self.t_out_max is not None):
            raise InputError("record suppression (max_suppressed_records) takes the cost objective without "
                             "budget or t_out options")
        for name in ("t_out", "t_out_min", "t_out_max"):
            _whole(name, getattr(self, name))
        t = self.t_out
        if t is not None:
            if self.t_out_min not in (None, t) or self.t_out_max not in (None, t):
                raise InputError("give t_out, or t_out_min/t_out_max, not both")
            object.__setattr__(self, "t_out_min", t)
            object.__setattr__(self, "t_out_max", t)
        if self.t_out_min is not None and self.t_out_max is not None and self.t_out_min > self.t_out_max:
            raise InputError(f"t_out_min = {self.t_out_min} exceeds t_out_max = {self.t_out_max}")
        if self.max_memory_gb is not None and not self.max_memory_gb > 0:
            raise InputError(f"max memory must be positive, got {self.max_memory_gb}")

    @property
    def closure_applies(self) -> bool:
        """Closure pruning is asked for and exact here.

        Closure moves groups into other candidates, which can merge them:
        harmless for the cost, a budget and an upper bound on output groups,
        not for a lower bound or for maximizing the number of groups.
        """
        return self.closure and self.t_out_min is None and self.objective != "types"
    @property
    def has_side_constraints(self) -> bool:
        """A budget or a bound on the number of output groups."""
        return self.budget is not None or self.t_out_min is not None or self.t_out_max is not None

    @property
    def withholds(self) -> bool:
        """Record suppression is on (:attr:`max_suppressed_records`)."""
        return self.max_suppressed_records is not None

    def describe(self) -> tuple[str, ...]:
        """The options that change the problem, in words (for :attr:`Result.criteria`)."""
        out = []
        if self.withholds:
            out.append(f"at most {self.max_suppressed_records} withheld records")
        if self.budget is not None:
            out.append(f"budget {self.budget:g}")
        if self.t_out_min is not None and self.t_out_min == self.t_out_max:
            out.append(f"t_out = {self.t_out_min}")
        else:
            if self.t_out_min is not None:
                out.append(f"t_out >= {self.t_out_min}")
            if self.t_out_max is not None:
                out.append(f"t_out <= {self.t_out_max}")
        if self.objective != "cost":
            out.append(f"objective {self.objective}")
        return tuple(out)


_MODEL_FIELDS = frozenset(f.name for f in dataclasses.fields(ModelOptions))
_SOLVER_FIELDS = frozenset(f.name for f in dataclasses.fields(SolverOptions))
#: every option a keyword may name
OPTION_FIELDS = _MODEL_FIELDS | _SOLVER_FIELDS


def split_options(options: dict) -> tuple[dict, dict]:
    """Keyword options as ``(model options, solver options)``; an unknown keyword is an :class:`InputError`."""
    unknown = sorted(set(options) - _MODEL_FIELDS - _SOLVER_FIELDS)
    if unknown:
        raise InputError(f"unknown option(s) {', '.join(unknown)}: neither a model option "
                         f"({', '.join(sorted(_MODEL_FIELDS))}) nor a solver option ({', '.join(sorted(_SOLVER_FIELDS))})")
    return ({k: v for k, v in options.items() if k in _MODEL_FIELDS},
            {k: v for k, v in options.items() if k in _SOLVER_FIELDS})


def merged_options(cls, base, kwargs):
    """``base`` (an instance of ``cls``, or ``None`` for the defaults) with the fields in ``kwargs`` replaced."""
    if base is None:
        return cls(**kwargs)
    if not isinstance(base, cls):
        raise InputError(f"expected {cls.__name__}, got {type(base).__name__}")
    return dataclasses.replace(base, **kwargs) if kwargs else base


@dataclass(frozen=True, init=False)
class Problem:
    """Criteria, a recoding and model options: one anonymization problem, independent of any table.

    ``Problem(KAnonymity(5), LDiversity(3), recoding=Generalization(...), budget=2000)``;
    without a :class:`~milp_anon.privacy.criteria.KAnonymity` criterion, ``KAnonymity(1)``
    is added (every group is non-empty).
    """

    criteria: tuple
    recoding: Recoding
    model: ModelOptions

    def __init__(self, *criteria, recoding=None, model: ModelOptions | None = None, **model_options):
        if len(criteria) == 1 and isinstance(criteria[0], (list, tuple)):
            criteria = tuple(criteria[0])
        if not criteria:
            raise InputError("no privacy criterion given")
        for c in criteria:
            if not isinstance(c, Criterion):
                raise InputError(f"not a privacy criterion: {c!r}")
        if not any(isinstance(c, KAnonymity) for c in criteria):
            criteria = (KAnonymity(1),) + tuple(criteria)
        unknown = sorted(set(model_options) - _MODEL_FIELDS)
        if unknown:
            raise InputError(f"unknown model option(s) {', '.join(unknown)} (model options: "
                             f"{', '.join(sorted(_MODEL_FIELDS))})")
        object.__setattr__(self, "criteria", tuple(criteria))
        object.__setattr__(self, "recoding", as_recoding(recoding))
        object.__setattr__(self, "model", merged_options(ModelOptions, model, model_options))
        if self.recoding.scheme == "full-domain":
            check_full_domain(self)
        if self.model.budget is not None and not self.recoding.rational_costs:  # the model's unit adds Σ log2 N(v)
            raise InputError("a budget is not offered with the entropy cost (the model counts it plus a constant)")
        for c in self.criteria:
            c.check_recoding(self.recoding)

    # -- what the request implies ---------------------------------------------------
    @property
    def split(self) -> bool:
        """Whether the assignment is split by sensitive values (some criterion reads them)."""
        return any(c.needs_sensitive for c in self.criteria)

    @property
    def k_alone(self) -> bool:
        """Only k-anonymity (no criterion on a sensitive column)."""
        return all(isinstance(c, KAnonymity) for c in self.criteria)

    def min_group_size(self) -> int:
        """The smallest group any criterion allows (support pruning)."""
        return max(c.min_group_size() for c in self.criteria)

    def describe(self) -> tuple[str, ...]:
        """The criteria and the problem-changing options, in words."""
        return tuple(c.describe() for c in self.criteria) + self.model.describe()

    def validate(self, table) -> None:
        """Bad input for this table (e.g. a sensitive criterion without a sensitive column)."""
        if self.model.warm_start == "greedy":
            if getattr(self.recoding, "scheme", "local") == "full-domain":
                raise InputError("the greedy warm start applies to local recoding, not to the full-domain search")
            if self.split and isinstance(self.recoding, Patterns):
                raise InputError("the pattern greedy warm start applies to k-anonymity alone (no sensitive criteria)")
        for c in self.criteria:
            c.validate(table)

    def infeasibility(self, table) -> str | None:
        """Why no release of ``table`` can meet the request (the whole-table pre-check), or ``None``."""
        if self.model.withholds:
            return None  # withholding records may make a table feasible whose whole fails a criterion
        for c in self.criteria:
            why = c.infeasibility(table)
            if why:
                return why
        return None


#: criteria for which withholding whole failing classes is exact (see the module docstring)
FULL_DOMAIN_WITHHOLDING = "k-anonymity, p-sensitivity and distinct l-diversity"


def _withholding_exact(crit) -> bool:
    return isinstance(crit, (KAnonymity, PSensitivity)) or (isinstance(crit, LDiversity) and crit.kind == "distinct")


def check_full_domain(request) -> None:
    """Refuse what the full-domain search does not solve (before any work)."""
    m = request.model
    if m.objective != "cost" or m.has_side_constraints:
        raise InputError("full-domain generalization takes the cost objective without budget or t_out options")
    if m.max_suppressed_records and not all(_withholding_exact(c) for c in request.criteria):
        raise InputError(f"full-domain generalization with record suppression covers {FULL_DOMAIN_WITHHOLDING}; "
                         "for the other criteria withholding part of a class can pay, which it does not search")
    if m.reduction == "lagrangian":
        raise InputError("the Lagrangian reduction does not apply to full-domain generalization")
