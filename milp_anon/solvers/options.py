"""How to solve a model: :class:`SolverOptions`, :class:`StopAtBound`, and the HiGHS options they imply.

:func:`highs_option_values` is the one place that turns solver options into
HiGHS option values; the bulk in-process solve, the isolated child, PuLP's
HiGHS and the Lagrangian column generation's master LP all take theirs from it.
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass

import highspy
import pulp

from milp_anon.runtime.errors import InputError
from milp_anon.runtime.tuning import Tuning
from milp_anon.solvers.highs_banner import new_highs

__all__ = ["HIGHS_PRESOLVE_DEFAULT", "SolverOptions", "StopAtBound", "highs_option_values", "parse_highs_option",
           "pulp_solver_keywords"]

#: HiGHS's MIP presolve is off by default. In HiGHS 1.15.1 it returned a wrong
#: "Optimal" on small models of this toolkit twice (objective 2 where brute force,
#: CBC and HiGHS without presolve all give 0): once through the Aggregator rule,
#: once through Forcing row / Sparsify with the Aggregator off. Both models are in
#: ``tests/data/``. ``presolve="on"`` (``--presolve on``) trades that risk for speed.
HIGHS_PRESOLVE_DEFAULT = "off"

_ALIASES = {"highs": "HiGHS", "cbc": "PULP_CBC_CMD", "highs_cmd": "HiGHS_CMD", "glpk": "GLPK_CMD"}


@dataclass(frozen=True)
class SolverOptions:
    """How to solve a model (what to build is :class:`~milp_anon.api.ModelOptions`).

    Parameters
    ----------
    solver
        A PuLP solver name; ``"HiGHS"`` (default) passes the model to highspy
        in bulk. Aliases: ``highs``, ``cbc``.
    time_limit
        Seconds for the whole solve (``None``: no limit).
    threads
        Solver threads (``None``: the solver's default).
    gap
        Relative MIP gap at which to stop; 0 (default) proves optimality.
    msg
        Show the solver's log.
    via_pulp
        Route HiGHS through PuLP's own HiGHS interface instead of the bulk
        transfer (same model; slower to load; used to cross-check).
    presolve
        HiGHS presolve: ``"off"`` (default; see ``HIGHS_PRESOLVE_DEFAULT``)
        or ``"on"``.
    highs_options
        Extra HiGHS options as ``(name, value)`` pairs or a dict, applied
        last (e.g. ``{"mip_heuristic_effort": 0.2}``).
    isolate
        Run HiGHS in a child process that is killed if it is still running
        a margin after the time limit (HiGHS does not always stop at its
        limit or at an interrupt; :func:`~milp_anon.solvers.isolated.hard_limit_margin`).
        The incumbents and bounds it reports on the way are kept. ``"auto"``
        (default): with a time limit and at least ``ISOLATE_MIN_COLUMNS``
        columns; ``"always"``; ``"never"``.
    lns
        Under a time limit, the share of it kept for the large-neighbourhood
        search (:mod:`milp_anon.search.lns`), which improves the released table when
        the solve ends with a gap (0: off, so a proof keeps the whole limit;
        requests it does not apply to keep it too). Where the search runs
        beside the reduction's rounds, the reduction keeps the whole limit
        (:func:`milp_anon.reduction.keeps_whole_limit`). ``"auto"`` (default):
        the search runs only where it takes no time from the solve — beside
        the reduction's rounds, on the core HiGHS leaves idle
        (:func:`milp_anon.pipeline.solve.resolve_lns`) — and is off elsewhere.
    tuning
        The techniques the solve uses and the knobs benchmarks vary
        (:class:`~milp_anon.runtime.tuning.Tuning`; default: the shipped package). It travels with these
        options into every stage and child process.
    """

    solver: str = "HiGHS"
    time_limit: float | None = None
    threads: int | None = None
    gap: float = 0.0
    msg: bool = False
    via_pulp: bool = False
    presolve: str = HIGHS_PRESOLVE_DEFAULT
    highs_options: tuple = ()
    isolate: str = "auto"
    lns: float | str = "auto"
    tuning: Tuning = Tuning()

    def __post_init__(self):
        if self.isolate not in ("auto", "always", "never"):
            raise InputError(f"isolate must be 'auto', 'always' or 'never', got {self.isolate!r}")
        if self.presolve not in ("on", "off"):
            raise InputError(f"presolve must be 'on' or 'off', got {self.presolve!r}")
        if isinstance(self.highs_options, dict):
            object.__setattr__(self, "highs_options", tuple(self.highs_options.items()))
        name = _ALIASES.get(str(self.solver).lower(), str(self.solver))
        object.__setattr__(self, "solver", name)
        if self.time_limit is not None and not (self.time_limit > 0 and math.isfinite(self.time_limit)):
            raise InputError(f"time limit must be a positive number of seconds, got {self.time_limit}")
        if self.threads is not None and (int(self.threads) != self.threads or self.threads < 1):
            raise InputError(f"threads must be a whole number >= 1, got {self.threads}")
        if not (0 <= self.gap < 1):
            raise InputError(f"relative gap must be in [0, 1), got {self.gap}")
        if self.lns != "auto" and (isinstance(self.lns, (bool, str)) or not (0 <= self.lns < 1)):
            raise InputError(f"the large-neighbourhood search's share of the time limit must be 'auto' or in "
                             f"[0, 1), got {self.lns!r}")
        if not isinstance(self.tuning, Tuning):
            raise InputError(f"tuning must be a milp_anon.Tuning, got {type(self.tuning).__name__}")
        if self.search_share > 0 and self.time_limit is None:
            raise InputError("the large-neighbourhood search takes a share of the time limit: give a time limit")
        if not self.is_highs:
            pulp_solver_keywords(self)  # refuses an unknown or absent solver, or an option it cannot take
        _check_highs_options(self.highs_options)

    @property
    def search_share(self) -> float:
        """The share of the time limit the search has: ``lns``, with ``"auto"`` not yet resolved
        (:func:`milp_anon.pipeline.solve.resolve_lns`) as 0 — off."""
        return 0.0 if self.lns == "auto" else float(self.lns)

    @property
    def is_highs(self) -> bool:
        """The solver is HiGHS (in bulk through highspy, or through PuLP with ``via_pulp``)."""
        return self.solver == "HiGHS"

    @property
    def in_bulk(self) -> bool:
        """HiGHS through highspy with the model passed in bulk (needed for starts, callbacks, the reduction)."""
        return self.is_highs and not self.via_pulp


@dataclass(frozen=True)
class StopAtBound:
    """Stop HiGHS once its dual bound reaches ``bound``, but not before ``after`` seconds of the solve;
    or once it holds a solution of objective at most ``known``.

    ``after`` lets the solve keep improving its incumbent for a while (the
    bound is already proven); HiGHS still stops by itself when optimal.
    ``known``: a lower bound on the model's optimum proven outside this solve
    (the row generation's relaxations, :mod:`milp_anon.pipeline.row_generation`), so a
    solution that reaches it is optimal and the rest of the search would only
    re-prove it; the caller, who knows the bound, reads it so.
    """

    bound: float = math.inf
    after: float = 0.0
    known: float = -math.inf


def highs_option_values(options: SolverOptions, *, master_lp: bool = False) -> dict:
    """The HiGHS options of a solve under ``options``.

    ``master_lp``: for the LP masters of the column generation, which only
    take the log setting (their bound is recomputed exactly from the duals,
    :mod:`milp_anon.bounds.lagrangian`, so presolve is left at HiGHS's default
    there; they run on the calling thread, which takes no thread count:
    :mod:`milp_anon.solvers.highs_banner`).
    """
    values: dict[str, object] = {"output_flag": False if master_lp else bool(options.msg)}
    if master_lp:
        return values
    if options.threads is not None:
        values["threads"] = int(options.threads)
    values.update(presolve=options.presolve, mip_rel_gap=float(options.gap),
                  mip_abs_gap=0.0 if options.gap == 0 else 1e-6)
    if options.time_limit is not None:
        values["time_limit"] = float(options.time_limit)
    values.update(dict(options.highs_options))  # the user's own, last
    return values


@functools.cache
def _pulp_solver(name: str):
    """PuLP's solver class called ``name``, its keyword parameters (``None``: any), and whether it is installed."""
    known = list(dict.fromkeys(pulp.listSolvers()))
    if name not in known:
        raise InputError(f"unknown solver {name!r}; PuLP knows: {', '.join(known)}")
    cls = next(c for c in pulp.apis._all_solvers if c.name == name)
    params = inspect.signature(cls.__init__).parameters
    takes = None if any(p.kind is p.VAR_KEYWORD for p in params.values()) else frozenset(params)
    return cls, takes, name in pulp.listSolvers(onlyAvailable=True)


def pulp_solver_keywords(options: SolverOptions) -> dict:
    """The keywords of PuLP's solver ``options.solver`` for ``options``: only those it takes.

    Time limit and log are passed where the solver takes them; a gap of 0
    is the default of every solver, so it is passed only where it can be;
    a gap above 0, threads or HiGHS options that the solver cannot take are
    an :class:`InputError` (never silently dropped).
    """
    cls, takes, installed = _pulp_solver(options.solver)
    if not installed:
        available = ", ".join(pulp.listSolvers(onlyAvailable=True)) or "none"
        raise InputError(f"solver {options.solver!r} is not installed on this machine; available: {available}")

    def accepts(key):
        return takes is None or key in takes

    kwargs = {k: v for k, v in (("msg", bool(options.msg)), ("timeLimit", options.time_limit)) if accepts(k)}
    if accepts("gapRel"):
        kwargs["gapRel"] = options.gap
    elif options.gap > 0:
        raise InputError(f"solver {options.solver} does not take a relative gap through PuLP (gap {options.gap:g})")
    if options.threads is not None:
        if not accepts("threads"):
            raise InputError(f"solver {options.solver} does not take a thread count through PuLP")
        kwargs["threads"] = int(options.threads)
    if options.highs_options and options.solver != "HiGHS":
        raise InputError(f"HiGHS options apply to HiGHS only, not to {options.solver}")
    return kwargs


def _scratch_highs():
    return new_highs()  # output off: an unknown name is reported here, not printed by HiGHS


def parse_highs_option(text: str) -> tuple:
    """``"KEY=VALUE"`` as ``(key, value)`` with the value of the type HiGHS gives that option."""
    if "=" not in text:
        raise InputError(f"a HiGHS option is KEY=VALUE, got {text!r}")
    key, raw = (part.strip() for part in text.split("=", 1))
    status, kind = _scratch_highs().getOptionType(key)
    if status != highspy.HighsStatus.kOk:
        raise InputError(f"HiGHS has no option {key!r}")
    value: bool | int | float | str
    try:
        if kind == highspy.HighsOptionType.kBool:
            value = {"true": True, "on": True, "1": True, "false": False, "off": False, "0": False}[raw.lower()]
        elif kind == highspy.HighsOptionType.kInt:
            value = int(raw)
        elif kind == highspy.HighsOptionType.kDouble:
            value = float(raw)
        else:
            value = raw
    except (KeyError, ValueError):
        wanted = {highspy.HighsOptionType.kBool: "true or false", highspy.HighsOptionType.kInt: "an integer",
                  highspy.HighsOptionType.kDouble: "a number"}.get(kind, "text")
        raise InputError(f"HiGHS option {key} takes {wanted}, got {raw!r}") from None
    return key, value


def _check_highs_options(pairs) -> None:
    if not pairs:
        return
    h = _scratch_highs()
    for key, value in pairs:
        if h.setOptionValue(key, value) != highspy.HighsStatus.kOk:
            raise InputError(f"HiGHS refuses option {key} = {value!r} (unknown name, wrong type or out of range)")
