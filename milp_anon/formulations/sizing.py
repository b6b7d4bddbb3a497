"""Model size and memory, estimated before anything is built.

The estimate counts the assignment model's columns, rows and nonzeros from
the candidates and each criterion's own estimate
(:meth:`~milp_anon.formulations.rows.CriterionRows.estimate`), and converts
them to bytes with constants measured on HiGHS MIP solves of this model. A
model estimated above the memory allowed is refused before it is built.
(The allowance and what this process holds: :mod:`milp_anon.runtime.memory`.)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from milp_anon.formulations.rows import rows_of
from milp_anon.instance.instance import Instance
from milp_anon.runtime.errors import ModelTooLargeError
from milp_anon.runtime.memory import allowance, beside_held

__all__ = ["ModelEstimate", "check_memory", "estimate"]

#: bytes per nonzero / per column or row, measured on HiGHS MIP solves of this model: the peak of the
#: HiGHS process through root LP and separation at 8 QIs, k = 2 (1.4 M / 2.5 M / 3.4 M columns: 4.7 / 8.7 /
#: 11.0 GiB; formulations/reduction.md); 600 bytes per nonzero before undercounted them by 13-20 %
_BYTES_PER_NZ_HIGHS = 720
_BYTES_PER_VECTOR_HIGHS = 400
_BYTES_PER_COL_PULP = 1500
_BYTES_PER_NZ_PULP = 250
@dataclass(frozen=True)
class ModelEstimate:
    """Estimated dimensions and memory of the whole model of an instance."""

    n_variables: int
    n_integer: int
    n_constraints: int
    n_nonzeros: int
    bytes_highs: int
    bytes_pulp: int

    def as_dict(self) -> dict:
        return asdict(self)


def estimate(instance: Instance, criteria) -> ModelEstimate:
    """Dimensions and memory of the assignment model of ``instance`` under ``criteria``."""
    cands, table = instance.candidates, instance.table
    C, P, U = cands.n_candidates, instance.n_unit_pairs(), instance.units.n_units
    dims = {"C": C, "P": P, "V": [len(v) for v in table.sensitive_values]}
    n_var, n_con, nnz, n_int = C + P, U + P, 3 * P, C
    group_size, cell_columns, integer = False, set(), False
    for crit in criteria:
        rows = rows_of(crit)
        v, c, z, i = rows.estimate(crit, dims)
        n_var, n_con, nnz, n_int = n_var + v, n_con + c, nnz + z, n_int + i
        group_size |= rows.group_size(crit)
        integer |= rows.integer_assignment(crit)
        if crit.needs_sensitive:
            cell_columns.update(crit.columns(table))
    if group_size:
        n_var, n_con, nnz = n_var + C, n_con + C, nnz + C + P
    if cell_columns:  # the floor rows, at most one per candidate (formulations/k-anonymity.md)
        n_con, nnz = n_con + C, nnz + C + P
    for col in cell_columns:
        cells = min(P, C * dims["V"][col])
        n_var, n_con, nnz = n_var + cells, n_con + cells, nnz + cells + P
    if integer:
        n_int += P
    highs = _BYTES_PER_NZ_HIGHS * nnz + _BYTES_PER_VECTOR_HIGHS * (n_var + n_con)
    pulp_b = _BYTES_PER_COL_PULP * n_var + _BYTES_PER_NZ_PULP * nnz
    return ModelEstimate(n_var, n_int, n_con, nnz, highs, highs + pulp_b)


def check_memory(instance: Instance, criteria, max_memory_gb: float | None, *, pulp_model: bool,
                 solver_factor: float = 1.0) -> None:
    """Refuse, before building, a model estimated above ``max_memory_gb`` together with what this process
    holds now (default: the model alone above 80 % of the memory available now, which already leaves
    out what this process holds); ``pulp_model``: the model also becomes a PuLP problem (export, other
    solvers); ``solver_factor``: the solve holds that many times one thread's estimate (a parallel search)."""
    est = estimate(instance, criteria)
    need = (est.bytes_pulp if pulp_model else est.bytes_highs) * solver_factor
    limit, held = allowance(max_memory_gb)
    if need + held > limit:
        raise ModelTooLargeError(
            f"the model would need about {need / 2**30:.1f} GiB ({est.n_variables:,} variables, "
            f"{est.n_nonzeros:,} nonzeros){beside_held(held)} but {limit / 2**30:.1f} GiB is allowed; "
            "use fewer QI columns or a smaller table"
        )
