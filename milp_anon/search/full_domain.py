"""Full-domain generalization: one hierarchy level per QI column, the same for every row.

Problem: choose a level vector ``L = (l_1, ..., l_m)`` of the columns'
hierarchies (a node of the generalization lattice; suppression is the
hierarchy of height 1: keep or ``*``) and release every row's column ``c`` at
level ``l_c``; the released classes must meet every criterion. With record
suppression (``max_suppressed_records = N``) up to ``N`` records may be
withheld (ARX's global recoding with a suppression limit, anjana's
``supp_level``). Minimize the recoding's cost (``formulations/full-domain.md``).

Algorithm: exact search over the lattice, bounded. A node's cost is at
least ``LB(L) = Σ_c Σ_rows cost_c(l_c)`` — the cost of releasing every row at
``L`` — because a withheld record costs every cell at its root, which is at
least its node cost. Nodes are evaluated in increasing ``LB`` order and the
search stops when ``LB`` reaches the best feasible cost: every node not
evaluated is bounded by it. This is the search space of ARX's Flash and of
OLA (El Emam et al. 2009), without their monotonicity shortcuts (which do
not hold with record suppression under a cost that is not monotone); the
certificate is the bound ordering itself.

At a node the classes are fixed. For k-anonymity, p-sensitivity and
distinct ℓ-diversity a subset of a failing class fails too (fewer rows,
fewer distinct values), so the cheapest way to meet them is to withhold
every failing class whole and nothing else; for frequency and recursive
ℓ-diversity and t-closeness withholding part of a class can repair it, which
this search does not cover, so they are solved without record suppression
only. Time ``O(|lattice| · t_in · m)`` (numpy over row types per node).
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from milp_anon.privacy.criteria import GroupCounts, KAnonymity, PSensitivity, first_violation
from milp_anon.release.partition import groups_of
from milp_anon.release.result import ModelSize
from milp_anon.release.verified import Outcome, Release
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status
from milp_anon.tables.recoding import record_cost
from milp_anon.tables.rowtypes import RowTypes

__all__ = ["solve_full_domain"]

def _failing(crit, groups: GroupCounts) -> np.ndarray:
    """Classes that fail ``crit`` (k-anonymity, p-sensitivity, distinct ℓ-diversity)."""
    if isinstance(crit, KAnonymity):
        return groups.size < crit.k
    return crit.distinct_failing(groups, crit.p if isinstance(crit, PSensitivity) else crit.l)


class _Lattice:
    """The level vectors of the columns' hierarchies and what each costs, over row types."""

    def __init__(self, table, lattices, types: RowTypes):
        self.table, self.lattices, self.types = table, lattices, types
        self.heights = [lat.height for lat in lattices]
        w = types.counts.astype(float)
        # cost of column c at level l for the whole table: Σ_types n_i · cost(anc(code_ic, l))
        self.column_cost = [np.array([float(w @ lat.cost[lat.anc[types.codes[:, c], lvl]])
                                      for lvl in range(lat.height + 1)]) for c, lat in enumerate(lattices)]
        self.record_cost = float(record_cost(lattices))

    def nodes(self) -> tuple[np.ndarray, np.ndarray]:
        """Every level vector ``(N, m)`` and its lower bound, sorted by the bound (ties: lower levels first)."""
        levels = np.array(list(itertools.product(*(range(h + 1) for h in self.heights))), dtype=np.int64)
        lb = sum(self.column_cost[c][levels[:, c]] for c in range(levels.shape[1]))
        order = np.lexsort((levels.sum(axis=1), lb))
        return levels[order], lb[order]

    def classes(self, level: np.ndarray, sensitive: bool):
        """The class of every row type at ``level`` and the classes' :class:`GroupCounts`."""
        codes = self.types.codes
        key = np.zeros(codes.shape[0], dtype=np.int64)
        for c, lat in enumerate(self.lattices):
            key = key * lat.n_nodes + lat.anc[codes[:, c], level[c]]
        uniq, inv = np.unique(key, return_inverse=True)
        inv = inv.ravel()
        G = uniq.shape[0]
        size = np.bincount(inv, weights=self.types.counts, minlength=G).astype(np.int64)
        counts = ()
        if sensitive:
            out = []
            for sc in self.types.sensitive_counts:
                M = np.zeros((G, sc.shape[1]), dtype=np.int64)
                np.add.at(M, inv, sc)
                out.append(M)
            counts = tuple(out)
        return inv, GroupCounts.of(self.table, size, counts)

    def type_cost(self, level: np.ndarray) -> np.ndarray:
        """Per row type, the cost of one row released at ``level``."""
        return sum(lat.cost[lat.anc[self.types.codes[:, c], level[c]]] for c, lat in enumerate(self.lattices))


def solve_full_domain(table, request, lattices, types: RowTypes, timings) -> Outcome:
    """The optimal full-domain release (bounded lattice search); the outcome's bound is the optimum."""
    criteria, N = request.criteria, request.model.max_suppressed_records
    lat = _Lattice(table, lattices, types)
    sensitive = any(c.needs_sensitive for c in criteria)
    levels, lb = lat.nodes()
    best = None  # (cost, level, withheld-class mask, inv)
    evaluated = 0
    t0 = time.perf_counter()
    with timings.phase("solve"):
        for level, bound in zip(levels, lb):
            if best is not None and bound >= best[0] - 1e-9:
                break  # every node from here on costs at least its bound >= the best found
            evaluated += 1
            inv, groups = lat.classes(level, sensitive)
            if N is None or N == 0:
                if first_violation(criteria, groups) is not None:
                    continue
                cost, failing = float(bound), np.zeros(groups.size.shape[0], dtype=bool)
            else:
                failing = np.zeros(groups.size.shape[0], dtype=bool)
                for crit in criteria:
                    failing |= _failing(crit, groups)
                withheld = int(groups.size[failing].sum())
                if withheld > N:
                    continue
                w_types = failing[inv]
                per_type = lat.type_cost(level)
                cost = float(types.counts[~w_types] @ per_type[~w_types]) + withheld * lat.record_cost
            if best is None or cost < best[0] - 1e-9:
                best = (cost, level.copy(), failing, inv)
    seconds = time.perf_counter() - t0
    search = {"lattice_nodes": int(levels.shape[0]), "evaluated": evaluated, "seconds": round(seconds, 3)}
    size = ModelSize(n_rows=table.n, t_in=types.t_in)
    grid = ObjectiveGrid.of_costs(np.concatenate([lt.cost for lt in lattices]))
    common = dict(solver_status=f"{evaluated} of {levels.shape[0]} lattice nodes evaluated",
                  size=size, candidate_counts={}, grid=grid)
    if best is None:
        return Outcome(None, None, Status.INFEASIBLE, reason="no level vector of the lattice meets the criteria"
                       + (f" withholding at most {N} records" if N else ""), **common)
    cost, level, failing, inv = best
    with timings.phase("verify"):
        released, groups = _release(table, lattices, types, level, failing[inv])
        release = Release.verified(table, request, released, groups=groups)
    search["levels"] = {c: int(lv) for c, lv in zip(table.qi, level)}
    return Outcome(release, grid.ceil(cost), Status.OPTIMAL, bound_certifies=True, full_domain=search, **common)


def _release(table, lattices, types: RowTypes, level, withheld_type: np.ndarray):
    """The released table at ``level`` (withheld rows at the root in every QI, group ``-1``)."""
    out = table.frame.copy()
    row_withheld = withheld_type[types.row_type]
    for c, (col, lat) in enumerate(zip(table.qi, lattices)):
        names = np.array(lat.names, dtype=object)
        node = np.where(row_withheld, lat.anc[0, lat.height], lat.anc[table.codes[:, c], level[c]])
        out[col] = names[node]
    groups = groups_of(out, table.qi).astype(np.int64)
    groups[row_withheld] = -1
    return out, groups
