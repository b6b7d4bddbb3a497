"""The :class:`Result` of a solve."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .solve import STATUSES

PHASES = ("collapse", "candidates", "build", "solve", "verify")


@dataclass
class Result:
    """The outcome of an anonymization.

    Attributes
    ----------
    status
        One of ``optimal``, ``gap_limit``, ``time_limit``, ``no_solution``,
        ``infeasible`` (see :mod:`milp_anon.solve`).
    objective
        Value of the objective (default: the cost) recounted from the
        released table, or ``None``.
    cost
        Cell cost of the released table (equal to ``objective`` for the
        default objective).
    bound
        Best proven lower bound on the optimum, or ``None``.
    gap
        ``(objective - bound) / objective`` (0 when both are 0), or ``None``.
    seconds
        Wall-clock seconds per phase (``collapse``, ``candidates``, ``build``,
        ``solve``, ``verify``) and ``total``.
    sizes
        ``n_rows``, ``t_in``, ``n_candidates``, ``n_pairs``, ``n_variables``,
        ``n_integer``, ``n_constraints``, ``n_nonzeros``.
    table
        The anonymized table (same columns and row order as the input;
        suppressed QI cells are ``*``), only when a verified solution exists.
    groups
        ``(n,)`` the output group (0-based) of every row, with ``table``.
    candidate_counts
        Candidate counts after each pruning stage.
    reason
        Why the request is infeasible, when it is.
    """

    status: str
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    seconds: dict = field(default_factory=dict)
    sizes: dict = field(default_factory=dict)
    table: pd.DataFrame | None = None
    groups: np.ndarray | None = None
    candidate_counts: dict = field(default_factory=dict)
    reason: str | None = None
    solver: str = "HiGHS"
    solver_status: str = ""
    criteria: tuple = ()
    verified: bool = False
    cost: float | None = None

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        has_table = self.table is not None
        if self.status in ("optimal", "gap_limit", "time_limit") and not (has_table and self.verified):
            raise ValueError(f"status {self.status!r} needs a verified table")
        if self.status in ("infeasible", "no_solution") and has_table:
            raise ValueError(f"status {self.status!r} cannot carry a table")
        if self.cost is None and self.objective is not None:
            self.cost = self.objective
        if self.status == "optimal" and self.gap != 0:
            raise ValueError("an optimal result has gap 0")
        if self.groups is not None and has_table and len(self.groups) != len(self.table):
            raise ValueError("groups and table differ in length")

    @property
    def is_optimal(self) -> bool:
        return self.status == "optimal"

    @property
    def n_groups(self) -> int | None:
        return None if self.groups is None else int(np.unique(self.groups).size)

    def report(self) -> dict:
        """A JSON-serializable summary (the CLI's ``--report``)."""
        s = self.sizes
        clean = lambda v: None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v  # noqa: E731
        return {
            "status": self.status,
            "objective": clean(self.objective),
            "cost": clean(self.cost),
            "bound": clean(self.bound),
            "gap": clean(self.gap),
            "reason": self.reason,
            "criteria": list(self.criteria),
            "solver": self.solver,
            "solver_status": self.solver_status,
            "n_rows": s.get("n_rows"),
            "t_in": s.get("t_in"),
            "n_candidates": s.get("n_candidates"),
            "n_pairs": s.get("n_pairs"),
            "n_variables": s.get("n_variables"),
            "n_integer": s.get("n_integer"),
            "n_constraints": s.get("n_constraints"),
            "n_nonzeros": s.get("n_nonzeros"),
            "n_groups": self.n_groups,
            "candidate_counts": dict(self.candidate_counts),
            "seconds": {k: round(float(v), 4) for k, v in self.seconds.items()},
            "verified": self.verified,
            **({"reduction": s["reduction"]} if s.get("reduction") else {}),
            **({"fallback": s["fallback"]} if s.get("fallback") else {}),
        }

    def to_json(self) -> str:
        return json.dumps(self.report(), indent=2)

    def summary(self) -> str:
        """A human-readable multi-line summary."""
        fmt = lambda v: "-" if v is None else (f"{v:g}" if isinstance(v, float) else str(v))  # noqa: E731
        s, c = self.sizes, self.candidate_counts
        lines = [f"status        {self.status}" + (f"  ({self.reason})" if self.reason else "")]
        if self.criteria:
            lines.append(f"criteria      {', '.join(self.criteria)}")
        unit = " suppressed cells" if self.objective is not None and float(self.objective).is_integer() else ""
        lines.append(f"objective     {fmt(self.objective)}{unit}" if self.objective is not None
                     else "objective     -")
        gap = "-" if self.gap is None else f"{100 * self.gap:.4g} %"
        lines.append(f"bound         {fmt(self.bound)}   gap {gap}")
        if self.groups is not None:
            lines.append(f"groups        {self.n_groups}")
        lines.append(f"rows          {fmt(s.get('n_rows'))}   t_in {fmt(s.get('t_in'))}")
        if c:
            lines.append(
                "candidates    {kept} kept (generated {generated}, support {support}, closure {closure_only})".format(
                    **{k: c.get(k, "-") for k in ("kept", "generated", "support", "closure_only")}
                )
            )
        red = s.get("reduction")
        if red:
            lines.append(f"LP bound      {red['lp_bound']:.6g} by column generation ({red['cg_iterations']} rounds, "
                         f"master {red['master_pairs']} of {red['full_pairs']} pairs"
                         f"{'' if red['lp_converged'] else ', not converged'})")
            for i, rnd in enumerate(red["rounds"], 1):
                below = "the whole model" if rnd["G"] is None else f"below G = {rnd['G']:g}"
                lines.append(f"fixing {i:<6} {below}: {rnd.get('pairs', '-')} pairs, "
                             f"{rnd.get('candidates', '-')} candidates -> {rnd.get('status', '-')}"
                             + (f" {rnd['objective']:g}" if rnd.get("objective") is not None else ""))
        if "n_variables" in s:
            lines.append(
                f"model         {s['n_variables']} variables ({s.get('n_integer', '-')} integer), "
                f"{s['n_constraints']} constraints, {s.get('n_nonzeros', '-')} nonzeros"
                + (" (the last restricted model)" if red else "")
            )
        lines.append("seconds       " + "  ".join(f"{k} {v:.2f}" for k, v in self.seconds.items()))
        lines.append(f"solver        {self.solver} ({self.solver_status or '-'})")
        return "\n".join(lines)
