"""Re-check the Lagrangian part of a reduction's optimality proof from the table alone (no solver).

A proof through the Lagrangian reduction (``formulations/reduction.md``) is
composite:

1. ``L(π) = Σ_i π_i n_i + Σ_j min(0, rc_j(π))`` is a lower bound for the
   multipliers ``π`` in the report, whatever they are; with conflict cliques
   (:mod:`milp_anon.bounds.conflicts`) ``L(π, μ)``, for every ``μ >= 0``, provided
   every two candidates of every clique cannot both hold ``k`` rows
   (``|R_a ∪ R_b| < 2k``), which is checked pair by pair from the table;
   a rank row ``Σ_{j ∈ S} y_j <= r`` (``r >= 2``) holds when its members'
   rows number fewer than ``(r + 1) k`` together, checked from the table;
2. for each round with threshold ``G``, every (type, candidate) pair outside
   the restricted model has a pair bound ``b_ij(π) >= G`` (rounded up to the
   objective's grid), so no solution cheaper than ``G`` uses it;
3. each round's restricted model was solved by HiGHS, whose bound ``B`` (or
   "stopped once the bound reached ``G``") gives ``OPT >= min(B, G)``; a
   round solved through its root's cuts (:mod:`milp_anon.solvers.root_cuts`)
   rests on HiGHS's cuts, the weak-duality bound of the LP with them, the
   columns fixed by their reduced costs against ``G``, and HiGHS on the rest.

:func:`certify` recomputes 1 and 2 with numpy from the table, the request
and ``π`` — the row types, the candidates (the combinatorial layer with
its exact pruning rules), every block's sorted solution — and reports 3 as
what it rests on. It never calls a solver. When 1 (with the type bound and
the rounds whose restriction leaves some row type without a pair) reaches
the lower bound by itself, 3 is not needed (``solver_free``): the rounds
only found the table — on Adult with 8 QIs and k = 2, ``L(π, μ)`` is the
optimum 17,032.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from milp_anon.bounds.conflicts import clique_bounds
from milp_anon.bounds.lagrangian import block_prices
from milp_anon.pipeline.solve import prepare
from milp_anon.release.result import Timings
from milp_anon.runtime.errors import InputError
from milp_anon.runtime.grid import ObjectiveGrid

__all__ = ["Certificate", "certify"]


@dataclass
class Certificate:
    """What :func:`certify` recomputed: ``ok`` when every check passed; ``checks`` in words."""

    ok: bool
    lagrangian_bound: float
    type_bound: float
    lower_bound: float | None
    checks: list = field(default_factory=list)
    solver_side: list = field(default_factory=list)
    #: the bounds recomputed from the table alone (``L(π)``, the type bound, empty rounds) reach the lower bound
    #: (in an optimal report, the verified objective): the rounds only found the table, and the bound rests on no
    #: solver
    solver_free: bool = False

    def lines(self) -> list[str]:
        out = [f"{'ok  ' if ok else 'FAIL'}  {text}" for ok, text in self.checks]
        said = "HiGHS (not needed: the bounds recomputed above are as high)" if self.solver_free else "HiGHS"
        out += [f"{said} {text}" for text in self.solver_side]
        return out


def certify(table, request, report: dict) -> Certificate:
    """Recompute ``L(π)``, the type bound and every round's pair count from ``table`` and ``report``.

    One pass from the report to the verdict: the problem checked against the report, the multipliers'
    bound and the cliques recomputed, then each round (:func:`_round_checks`) and the closing comparison."""

    red = report.get("reduction") if isinstance(report, dict) else None
    if not isinstance(red, dict) or not red.get("multipliers"):
        raise InputError("the report has no reduction multipliers: only a solve through the Lagrangian reduction "
                         "(k-anonymity alone, --reduce auto or lagrangian) can be certified")
    prov = report.get("provenance") or {}
    if prov.get("input_sha256") is not None and table.source_sha256 is not None \
            and prov["input_sha256"] != table.source_sha256:
        raise InputError("the report was made from another input file (SHA-256 differs)")
    for key, here in (("criteria", [c.describe() for c in request.criteria]),
                      ("recoding", request.recoding.describe())):
        if key in prov and prov[key] != here:
            raise InputError(f"the report solved another problem: {key} {prov[key]!r}, here {here!r}")
    if not request.k_alone:
        raise InputError("certify covers the reduction of k-anonymity alone")
    instance, _, why = prepare(table, request, Timings())
    if why:
        raise InputError(f"the request is infeasible here ({why}): nothing to certify")
    types, cands = instance.types, instance.candidates
    pi = np.asarray(red["multipliers"], dtype=float)
    checks = []
    same = pi.shape[0] == types.t_in
    checks.append((same, f"{types.t_in} row types, {pi.shape[0]} multipliers"))
    if not same:
        return Certificate(False, float("nan"), float("nan"), None, checks)
    checks.append((cands.n_candidates == red.get("full_candidates") and cands.n_pairs == red.get("full_pairs"),
                   f"{cands.n_candidates:,} candidates and {cands.n_pairs:,} pairs regenerated "
                   f"(report: {red.get('full_candidates')}, {red.get('full_pairs')})"))
    grid = ObjectiveGrid.of_costs(cands.cost)
    k = request.min_group_size()
    prices = block_prices(pi, types.counts, cands.cost, cands.pair_type, cands.pair_cand, k)
    lagrangian, pair_bounds = prices.bound, prices.pair_bounds(cands.pair_cand)
    cliques = red.get("cliques")
    if cliques is not None:
        mu = np.asarray(red.get("clique_multipliers") or [], dtype=float)
        rhs = red.get("clique_rhs")
        rhs = [1] * len(cliques) if rhs is None else rhs
        wrong = _not_packing_rows(cliques, rhs, cands, types.counts, k)
        fine = not wrong and mu.shape == (len(cliques),) and bool(np.all(mu >= 0))
        ranks = sum(1 for r in rhs if r != 1)
        checks.append((fine, f"{len(cliques) - ranks} conflict cliques, every two members holding fewer than "
                             f"2k = {2 * k} rows together, and {ranks} rank rows Σ y_j <= r whose members hold "
                             f"fewer than (r + 1) k rows; {mu.size} multipliers μ >= 0"
                             + (f" (not: {wrong[:3]})" if wrong else "")))
        if not fine:
            return Certificate(False, float("nan"), float("nan"), None, checks)
        lagrangian, pair_bounds = clique_bounds(prices, cliques, mu, cands.pair_cand, np.asarray(rhs, dtype=float))
    L = grid.ceil(lagrangian)
    thresholds = grid.ceil_array(pair_bounds)
    floor = np.full(types.t_in, np.inf)
    np.minimum.at(floor, cands.pair_type, thresholds)
    type_bound = float(floor.max())
    lp = red.get("lp_bound") if cliques is None else red.get("clique_bound")
    checks.append((lp is None or L >= grid.ceil(lp) - 1e-9,
                   f"{'L(π)' if cliques is None else 'L(π, μ)'} = {lagrangian:,.6f}, on the grid {L:,.6g} "
                   f"(report's {'LP' if cliques is None else 'clique'} bound {lp})"))
    tb = red.get("type_bound")
    checks.append((tb is None or abs(type_bound - tb) <= 1e-9 * max(1.0, abs(tb)),
                   f"type bound max_i min_j b_ij = {type_bound:,.6g} (report: {tb})"))
    solver_side = []
    lower = max(L, type_bound)
    from_table = lower  # the part of the lower bound recomputed here, without any solver's word
    lower, from_table = _round_checks(red, cands.n_pairs, thresholds, floor, cliques, lower, from_table, checks,
                                      solver_side)
    objective = report.get("objective")
    if report.get("status") == "optimal" and objective is not None:
        checks.append((grid.equal(objective, lower) and grid.equal(lower, objective),  # neither above the other
                       f"the bounds reach the verified objective {objective:,.6g} (lower bound {lower:,.6g})"))
    # e.g. Adult, 8 QIs, k = 2: L(π, μ) with the conflict cliques is the optimum 17,032, and the one round only
    # found the table: what HiGHS proved in it adds nothing to the lower bound
    solver_free = not solver_side or grid.equal(lower, from_table)  # from_table reaches lower
    ok = all(c for c, _ in checks)
    return Certificate(ok, float(lagrangian), type_bound, lower, checks, solver_side, solver_free and ok)


def _round_checks(red: dict, n_pairs: int, thresholds: np.ndarray, floor: np.ndarray, cliques, lower: float,
                  from_table: float, checks: list, solver_side: list) -> tuple[float, float]:
    """Each round of the reduction's report: its pair count below ``G`` recomputed from ``thresholds``
    (appended to ``checks``), and what its bound rests on (to ``solver_side``). Returns ``(lower,
    from_table)`` raised by the rounds: ``from_table`` only by what needs no solver (an empty round)."""
    for i, rnd in enumerate(red.get("rounds") or [], 1):
        G, below = rnd.get("G"), rnd.get("below_G")
        if below is None:
            checks.append((False, f"round {i}: the report does not say how many pairs lie below G"))
            continue
        if below == n_pairs:
            checks.append((True, f"round {i}: the whole model ({below:,} pairs, none fixed)"))
        else:
            kept = int((thresholds < G).sum())
            checks.append((kept == below,
                           f"round {i}: {kept:,} pairs have a bound below G = {G:,.6g}, every other pair "
                           f"b_ij >= G (report: {below:,}; {rnd.get('pairs')} after support pruning)"))
        status, bound = rnd.get("status"), rnd.get("bound")
        if rnd.get("incumbent_pairs"):  # a superset of S(G): its bound still holds for every solution below G
            solver_side.append(f"round {i}: the restricted model held S(G) and {rnd['incumbent_pairs']:,} pairs "
                               "of the incumbent")
        if rnd.get("cliques"):
            # valid rows when every clique is (checked above): a round only drops pairs, so rows only shrink
            n_rows = rnd["cliques"]
            if not isinstance(n_rows, int) or cliques is None or n_rows > len(cliques):
                checks.append((False, f"round {i}: {n_rows!r} clique rows, but not so many cliques reported"))
            solver_side.append(f"round {i}: the restricted model held {n_rows!r} rows Σ y_j <= r of the "
                               "conflict cliques (r = 1) and rank rows")
        cuts = rnd.get("root_cuts") or {}
        if cuts.get("fixed") is not None:  # what the round's bound rests on besides HiGHS's own
            solver_side.append(f"round {i}: through HiGHS's root cuts: {cuts.get('cuts', 0):,} cuts, the LP with "
                               f"them bounds every solution by {cuts.get('cut_bound', float('nan')):,.6g} plus "
                               f"its reduced costs; {cuts['fixed']:,} columns with a reduced cost above the room "
                               f"below G fixed at 0, HiGHS on the {cuts.get('kept', 0):,} others")
        if status == "empty":
            empty = G is not None and bool(np.any(floor >= G))
            checks.append((empty, f"round {i}: some row type has no pair below G = {G}: OPT >= G"))
            if empty:
                lower, from_table = max(lower, G), max(from_table, G)
        elif status == "stopped at G":
            solver_side.append(f"round {i}: the restricted model's bound reached G = {G:,.6g}: OPT >= {G:,.6g}")
            lower = max(lower, G)
        elif status in ("optimal", "time_limit", "gap_limit") and bound is not None:
            reach = bound if G is None else min(bound, G)
            solver_side.append(f"round {i}: {status}, bound {bound:,.6g}: OPT >= {reach:,.6g}")
            lower = max(lower, reach)
        elif status == "infeasible" and G is not None:
            solver_side.append(f"round {i}: no solution below G = {G:,.6g}: OPT >= {G:,.6g}")
            lower = max(lower, G)
    return lower, from_table


def _not_packing_rows(cliques, rhs, cands, counts, k: int) -> list:
    """The rows ``Σ_{j ∈ Q} y_j <= r`` of ``cliques`` and ``rhs`` not shown valid from the regenerated pairs:
    ``r`` not a whole number >= 1 or ``Q`` not distinct candidates; else valid when the types its members can hold
    number fewer than ``(r + 1) k`` rows (at most ``r`` open), or when ``r >= 1`` and every two members
    conflict (rows of the types either can hold fewer than ``2k``). Returns the rows (or pairs) that fail."""
    order = np.argsort(cands.pair_cand, kind="stable")
    pc, pt = cands.pair_cand[order], cands.pair_type[order]
    start = np.searchsorted(pc, np.arange(cands.n_candidates + 1))
    wrong = []
    if len(rhs) != len(cliques):
        return [("clique_rhs", len(rhs))]
    for q, r in zip(cliques, rhs):
        if (not all(isinstance(j, int) and 0 <= j < cands.n_candidates for j in q) or len(set(q)) != len(q)
                or not isinstance(r, int) or r < 1):
            wrong.append(tuple(q))
            continue
        units = np.unique(np.concatenate([pt[start[j]:start[j + 1]] for j in q])) if q else np.zeros(0, np.int64)
        if counts[units].sum() < (r + 1) * k:
            continue
        for x, a in enumerate(q):
            for b in q[x + 1:]:
                held = np.union1d(pt[start[a]:start[a + 1]], pt[start[b]:start[b + 1]])
                if counts[held].sum() >= 2 * k:
                    wrong.append((a, b))
    return wrong
