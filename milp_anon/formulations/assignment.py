"""The assignment model shared by every problem (MODELS.md §2).

Variables: ``y_j`` binary (candidate ``j`` used) and ``g_ij >= 0`` for every
compatible (type, candidate) pair (rows of type ``i`` released as ``j``)::

    min   Σ_j w_j Σ_i g_ij
    s.t.  Σ_j g_ij = n_i            ∀ i      (every row released once)
          g_ij <= n_i · y_j         ∀ i, j   (only into used candidates)
          + the rows of each criterion (k-anonymity: Σ_i g_ij >= k · y_j)

For fixed ``y`` the rest is ROW ASSIGNMENT, a min-cost flow with integral
data (Bredereck et al. 2013, Lemma 1), so ``g`` is continuous and an optimal
vertex is integral. The solver's ``g`` is rounded and checked; if the check
fails (a non-vertex or tolerance drift) the assignment is re-solved exactly
for the chosen ``y`` with ``g`` integer.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass

import numpy as np

from ..candidates import Candidates, suppression_candidates
from ..criteria import Criterion, KAnonymity
from ..errors import InputError, ModelTooLargeError, VerificationError
from ..model import LinearModel
from ..result import Result
from ..rowtypes import RowTypes
from ..solve import SolverOptions, relative_gap, solve_model
from ..table import SUPPRESSED, Table
from .. import verify as _verify

#: bytes per nonzero / per column or row, measured on HiGHS MIP solves of this model (see benchmarks)
_BYTES_PER_NZ_HIGHS = 600
_BYTES_PER_VECTOR_HIGHS = 400
_BYTES_PER_COL_PULP = 1500
_BYTES_PER_NZ_PULP = 250


@dataclass
class AssignmentModel:
    """The built model and the arrays needed to read its solution back."""

    lm: LinearModel
    types: RowTypes
    cands: Candidates
    y: np.ndarray  # global column index of y_j
    g: np.ndarray  # global column index of g_ij, aligned with cands.pair_*


def estimate_size(types: RowTypes, cands: Candidates, criteria) -> dict:
    """Model size and memory estimate, computed before anything is built."""
    C, P, T = cands.n_candidates, cands.n_pairs, types.t_in
    n_var = C + P
    n_con = T + P
    nnz = P + 2 * P
    for crit in criteria:
        if isinstance(crit, KAnonymity):
            n_con += C
            nnz += P + C
    highs = _BYTES_PER_NZ_HIGHS * nnz + _BYTES_PER_VECTOR_HIGHS * (n_var + n_con)
    pulp_b = _BYTES_PER_COL_PULP * n_var + _BYTES_PER_NZ_PULP * nnz
    return {
        "n_variables": n_var,
        "n_integer": C,
        "n_constraints": n_con,
        "n_nonzeros": nnz,
        "bytes_highs": highs,
        "bytes_pulp": highs + pulp_b,
    }


def available_memory_bytes() -> int:
    """MemAvailable from /proc/meminfo (or physical memory) in bytes."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


class AssignmentFormulation:
    """Anonymization by suppression under a set of criteria, as one assignment MILP.

    Parameters
    ----------
    criteria
        Privacy criteria objects (at least one), e.g. ``[KAnonymity(5)]``.
    closure
        Apply closure pruning to the candidates (exact for the cost
        objective; default on).
    assignment
        ``"continuous"`` (default) or ``"integer"`` assignment variables
        ``g``. Both are exact (ROW ASSIGNMENT has integral vertices); the
        benchmark in ``benchmarks/results/k_anonymity.md`` compares them.

    Examples
    --------
    >>> f = AssignmentFormulation([KAnonymity(2)])          # doctest: +SKIP
    >>> result = f.solve(table, SolverOptions(time_limit=60))  # doctest: +SKIP
    """

    def __init__(self, criteria, *, closure: bool = True, assignment: str = "continuous"):
        if assignment not in ("continuous", "integer"):
            raise InputError(f"assignment must be 'continuous' or 'integer', got {assignment!r}")
        self.assignment = assignment
        criteria = list(criteria)
        if not criteria:
            raise InputError("no privacy criterion given")
        for c in criteria:
            if not isinstance(c, Criterion):
                raise InputError(f"not a privacy criterion: {c!r}")
        if not any(isinstance(c, KAnonymity) for c in criteria):
            criteria.insert(0, KAnonymity(1))
        self.criteria = criteria
        self.closure = closure

    # -- stages --------------------------------------------------------------------
    def min_group_size(self) -> int:
        return max(c.min_group_size() for c in self.criteria)

    def infeasibility(self, table: Table) -> str | None:
        for c in self.criteria:
            why = c.infeasibility(table)
            if why:
                return why
        return None

    def candidates(self, types: RowTypes) -> Candidates:
        return suppression_candidates(types, self.min_group_size(), closure=self.closure)

    def build(self, types: RowTypes, cands: Candidates) -> AssignmentModel:
        """Build the assignment model from grouped arrays."""
        lm = LinearModel(name="anonymization")
        C, P = cands.n_candidates, cands.n_pairs
        y = lm.add_vars("y", C, lower=0, upper=1, integer=True)
        n_i = types.counts.astype(float)
        g = lm.add_vars("g", P, lower=0, upper=n_i[cands.pair_type], cost=cands.cost[cands.pair_cand],
                        integer=self.assignment == "integer")
        lm.add_rows("assign", types.t_in, rows=cands.pair_type, cols=g, vals=1.0,
                    lower=n_i, upper=n_i)
        pr = np.arange(P)
        lm.add_rows("link", P, rows=np.concatenate([pr, pr]), cols=np.concatenate([g, y[cands.pair_cand]]),
                    vals=np.concatenate([np.ones(P), -n_i[cands.pair_type]]), upper=0.0)
        am = AssignmentModel(lm=lm, types=types, cands=cands, y=y, g=g)
        for crit in self.criteria:
            crit.add_to(am)
        return am

    def to_pulp(self, table: Table):
        """The model of ``table`` as a :class:`pulp.LpProblem` (for export or other solvers)."""
        types = RowTypes.from_table(table)
        am = self.build(types, self.candidates(types))
        return am.lm.to_pulp()[0]

    # -- solution --------------------------------------------------------------------
    def _check_assignment(self, am: AssignmentModel, used: np.ndarray, g: np.ndarray) -> str | None:
        c = am.cands
        if np.any(g < 0):
            return "negative assignment"
        per_type = np.bincount(c.pair_type, weights=g, minlength=am.types.t_in)
        if not np.array_equal(per_type.astype(np.int64), am.types.counts):
            return "rows of some type not released exactly once"
        if np.any((g > 0) & ~used[c.pair_cand]):
            return "rows released into an unused candidate"
        for crit in self.criteria:
            why = crit.check_assignment(am, used, g)
            if why:
                return why
        return None

    def _extract(self, am: AssignmentModel, x: np.ndarray, options: SolverOptions):
        used = x[am.y] > 0.5
        graw = x[am.g]
        g = np.rint(graw)
        integral = np.all(np.abs(graw - g) <= 1e-6)
        why = None if integral else "fractional assignment"
        why = why or self._check_assignment(am, used, g)
        if why is None:
            return used, g.astype(np.int64), None
        # exact repair: ROW ASSIGNMENT for the chosen y, with g integer
        lm = am.lm
        a = lm.arrays()
        lo, up, integer = a["lower"].copy(), a["upper"].copy(), a["integer"].copy()
        lo[am.y] = up[am.y] = used.astype(float)
        integer[am.g] = True
        fixed = dataclasses.replace(lm, col_lower=[lo], col_upper=[up], col_integer=[integer],
                                    var_blocks=dict(lm.var_blocks))
        out = solve_model(fixed, SolverOptions(time_limit=options.time_limit, threads=options.threads))
        if out.x is None:
            raise VerificationError(f"solver returned an invalid assignment ({why}) that could not be repaired")
        g2 = np.rint(out.x[am.g])
        why2 = self._check_assignment(am, used, g2)
        if why2:
            raise VerificationError(f"repaired assignment still invalid: {why2}")
        return used, g2.astype(np.int64), why

    def release(self, table: Table, am: AssignmentModel, g: np.ndarray):
        """The released table and per-row groups from an integral assignment."""
        c, types = am.cands, am.types
        order = np.lexsort((c.pair_cand, c.pair_type))
        cand_of_sorted_row = np.repeat(c.pair_cand[order], g[order])
        rows_by_type = np.argsort(types.row_type, kind="stable")
        cand_of_row = np.empty(table.n, dtype=np.int64)
        cand_of_row[rows_by_type] = cand_of_sorted_row
        out = table.frame.copy()
        for col_idx, col in enumerate(table.qi):
            keep = c.keep[cand_of_row, col_idx]
            vals = out[col].to_numpy(dtype=object)
            out[col] = np.where(keep, vals, SUPPRESSED).astype(object)
        _, groups = np.unique(cand_of_row, return_inverse=True)
        cost = int(c.cost[cand_of_row].sum())
        return out, groups.ravel(), cost

    def verify(self, table: Table, released, cost) -> None:
        """Run the independent verifier for every criterion (raises on failure)."""
        original = table.frame
        for crit in self.criteria:
            if isinstance(crit, KAnonymity):
                _verify.verify_k_anonymity(original, released, table.qi, crit.k, claimed_cost=cost)
            else:  # pragma: no cover - every criterion must have a verifier
                raise VerificationError(f"no verifier for criterion {crit.describe()}")

    # -- the whole pipeline ------------------------------------------------------------------
    def solve(self, table: Table, options: SolverOptions | None = None, *, mps: str | None = None,
              lp_file: str | None = None) -> Result:
        """Collapse, generate candidates, build, solve, verify.

        Returns a :class:`Result`; an infeasible request is a result with
        status ``infeasible`` and a ``reason``.
        """
        options = options or SolverOptions()
        crit_names = tuple(c.describe() for c in self.criteria)
        secs = {}
        t = time.perf_counter()
        t_start = t
        why = self.infeasibility(table)
        types = RowTypes.from_table(table)
        secs["collapse"] = time.perf_counter() - t
        sizes = {"n_rows": table.n, "t_in": types.t_in}
        if why:
            secs["total"] = time.perf_counter() - t_start
            return Result(status="infeasible", reason=why, seconds=secs, sizes=sizes, criteria=crit_names,
                          solver=options.solver, solver_status="pre-check")
        t = time.perf_counter()
        cands = self.candidates(types)
        secs["candidates"] = time.perf_counter() - t
        est = estimate_size(types, cands, self.criteria)
        need = est["bytes_highs"] if (options.is_highs and not options.via_pulp and not mps and not lp_file) \
            else est["bytes_pulp"]
        limit = options.max_memory_gb * 2**30 if options.max_memory_gb else 0.8 * available_memory_bytes()
        if need > limit:
            raise ModelTooLargeError(
                f"the model would need about {need / 2**30:.1f} GiB ({est['n_variables']:,} variables, "
                f"{est['n_nonzeros']:,} nonzeros) but {limit / 2**30:.1f} GiB is allowed; "
                "use fewer QI columns or a smaller table"
            )
        t = time.perf_counter()
        am = self.build(types, cands)
        if mps or lp_file:
            prob, _ = am.lm.to_pulp()
            if mps:
                prob.writeMPS(mps)
            if lp_file:
                prob.writeLP(lp_file)
        secs["build"] = time.perf_counter() - t
        sizes.update(
            n_candidates=cands.n_candidates,
            n_pairs=cands.n_pairs,
            n_variables=am.lm.n_cols,
            n_integer=am.lm.n_integer,
            n_constraints=am.lm.n_rows,
            n_nonzeros=am.lm.n_nonzeros,
        )
        t = time.perf_counter()
        out = solve_model(am.lm, options, integral_objective=True)
        secs["solve"] = time.perf_counter() - t
        common = dict(seconds=secs, sizes=sizes, candidate_counts=dict(cands.counts), criteria=crit_names,
                      solver=options.solver, solver_status=out.solver_status)
        if out.x is None:
            secs["total"] = time.perf_counter() - t_start
            reason = "the solver proved the model infeasible" if out.status == "infeasible" else None
            return Result(status=out.status, bound=out.bound, reason=reason, **common)
        t = time.perf_counter()
        used, g, repaired = self._extract(am, out.x, options)
        released, groups, cost = self.release(table, am, g)
        self.verify(table, released, cost)
        secs["verify"] = time.perf_counter() - t
        secs["total"] = time.perf_counter() - t_start
        status, bound = out.status, out.bound
        if bound is not None and bound > cost + 1e-6:
            raise VerificationError(f"bound {bound} above the verified cost {cost}")
        gap = relative_gap(float(cost), bound)
        if status == "optimal" and gap != 0:
            # the repaired or recounted cost is above the bound: not proven
            status = "gap_limit"
        return Result(status=status, objective=float(cost), bound=bound, gap=gap, table=released,
                      groups=groups, verified=True, **common)
