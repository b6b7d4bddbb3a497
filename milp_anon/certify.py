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

:func:`exact_certificate` writes the same proof as a file that a third party checks with
:mod:`milp_anon.certificate_check` (standard library only, exact arithmetic): the instance, the multipliers rounded
to dyadic rationals (finer until the exact bound is as high as the float one), the packing rows, the released
assignment, and — when ``L(π, μ)`` and the type bound fall short of the objective — the one restricted model at
``G`` = the objective, re-solved by a second engine (CBC, or SCIP) instead of resting on HiGHS's word.
"""

from __future__ import annotations

import math
import subprocess
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pulp

from milp_anon import certificate_check as check
from milp_anon.bounds.conflicts import clique_bounds
from milp_anon.bounds.lagrangian import block_prices
from milp_anon.formulations import build
from milp_anon.pipeline.solve import prepare
from milp_anon.reduction import add_clique_rows
from milp_anon.release.result import Timings
from milp_anon.release.verified import Release
from milp_anon.runtime.errors import InputError, VerificationError
from milp_anon.runtime.grid import ObjectiveGrid
from milp_anon.runtime.status import Status
from milp_anon.search.starts import release_pairs
from milp_anon.solvers import SolverOptions, solve_model

__all__ = ["Certificate", "certify", "exact_certificate"]


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

    red, instance = _problem(table, request, report)
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


def _problem(table, request, report: dict):
    """``(the report's reduction log, the instance regenerated from the table)``, after checking that the report
    solved this table and this problem (:class:`InputError` otherwise)."""
    if not request.recoding.rational_costs:  # the checker's arithmetic is exact, in integers
        raise InputError("the entropy cost (log2 of counts) is irrational: no exact certificate")
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
    return red, instance


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
        if rnd.get("parallel_tree"):  # the same model: only who grows HiGHS's tree differs
            solver_side.append(f"round {i}: HiGHS's parallel tree search (its bound, as any HiGHS bound)")
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


#: the multipliers are rounded to multiples of 2^-bits, finer until the exact bounds reach the float ones (any
#: multipliers give a valid bound; rounding only moves its value); ``None``: each float as the exact dyadic it is
PI_BITS = (20, 32, 48, None)
#: the engines a restricted model can be re-solved by (PuLP's names): CBC ships with PuLP; SCIP needs the extra
ENGINES = {"cbc": "PULP_CBC_CMD", "scip": "SCIP_PY"}


def exact_certificate(table, request, report: dict, released, engine: str = "cbc",
                      engine_time_limit: float | None = 600.0) -> dict:
    """The certificate that :mod:`milp_anon.certificate_check` checks (``docs/certify.md``), as a JSON-ready dict.

    ``released``: the released table (a data frame, rows in the input's order) whose assignment the report's
    objective is the cost of. The multipliers and packing rows are the report's, rounded to rationals; the exact
    bounds are the checker's own functions. When they fall short of the objective, one restricted model settles
    it: ``K``, the pairs whose exact bound lies below ``G`` = the objective (those of candidates still holding
    ``k`` rows through them), with the packing rows; ``OPT >= min(OPT(K), G)``. Its ``OPT(K) >= G`` is then
    re-solved by ``engine`` (``cbc`` or ``scip``), and the certificate says which engine confirmed it. The model
    is the one a reduction round builds over ``K`` (:func:`milp_anon.formulations.build`, the clique rows of
    :func:`milp_anon.reduction.add_clique_rows`): any superset of ``S(G)`` keeps the bound, and the smallest
    is the fastest to re-solve."""
    red, instance = _problem(table, request, report)
    types, cands = instance.types, instance.candidates
    grid = ObjectiveGrid.of_costs(cands.cost)
    D = grid.denominator
    if not D:
        raise InputError("the costs lie on no grid of 1/10^6: no exact certificate")
    w = np.rint(np.asarray(cands.cost, dtype=float) * D).astype(np.int64)
    k = int(request.min_group_size())
    cert: dict = {
        "format": "milp-anon certificate 1",
        "problem": {"input_sha256": table.source_sha256, "qi": list(table.qi),
                    "criteria": [c.describe() for c in request.criteria], "recoding": request.recoding.describe(),
                    "n_rows": int(table.n)},
        "k": k, "rows_per_type": [int(x) for x in types.counts],
        "cost": {"denominator": D, "numerators": w.tolist()},
        "pairs": {"type": cands.pair_type.astype(np.int64).tolist(),
                  "candidate": cands.pair_cand.astype(np.int64).tolist()},
    }
    cert["instance_sha256"] = check.instance_sha256(cert)
    g = _assignment(instance, table, request, released)
    used = np.flatnonzero(g)
    cost = int(np.dot(g[used], w[cands.pair_cand[used]]))
    objective = Fraction(cost, D)
    if report.get("objective") is None or abs(float(objective) - report["objective"]) > 1e-6 * max(1.0, abs(objective)):
        raise InputError(f"the released table costs {float(objective):,.6g}, the report says {report.get('objective')}")
    cert["assignment"] = {"pairs": used.tolist(), "rows": g[used].tolist()}
    cert["objective"] = str(objective)
    cliques = red.get("cliques") or []
    rhs = red.get("clique_rhs") or [1] * len(cliques)
    mu = np.maximum(np.asarray(red.get("clique_multipliers") or [0.0] * len(cliques), dtype=float), 0.0)
    pi = np.asarray(red["multipliers"], dtype=float)
    if pi.shape[0] != types.t_in:
        raise InputError(f"{pi.shape[0]} multipliers for {types.t_in} row types")
    target = _float_lower(cert, pi, mu, cliques, rhs, D)
    for bits in PI_BITS:  # the coarsest rounding whose exact bound is as high as the float one
        _rationals(cert, pi, mu, cliques, rhs, bits)
        L, b = check.blocks(cert, *_scaled_multipliers(cert))
        S = _scale(cert)
        lower = max(_ticks(L, S, D), _type_bound(b, cert, S, D))
        if lower >= target:
            break
    cert["rounds"] = []
    if lower < cost:  # one restricted model at G = the objective: what L(π, μ) alone leaves
        cert["rounds"].append(_round(instance, request, grid, cert, b, S, cliques, rhs, engine, engine_time_limit))
    cert["lower_bound"] = str(objective)
    return cert


def _assignment(instance, table, request, released) -> np.ndarray:
    """``(P,)`` integer rows of each pair in the released table (verified first)."""
    try:
        rel = Release.verified(table, request, released)
    except VerificationError as exc:
        raise InputError(f"the released table does not verify: {exc}") from None
    g, cand_of_row = release_pairs(instance, instance.candidates.pair_type, instance.candidates.pair_cand, rel)
    if np.any(cand_of_row < 0):
        raise InputError(f"{int((cand_of_row < 0).sum())} released rows are no candidate of the reduction")
    return np.rint(g).astype(np.int64)


def _float_lower(cert, pi, mu, cliques, rhs, D) -> int:
    """The float bound (``L(π, μ)`` and the type bound, on the grid, in steps ``1/D``) the exact one aims at."""
    n = np.asarray(cert["rows_per_type"], dtype=float)
    w = np.asarray(cert["cost"]["numerators"], dtype=float) / D
    pt, pc = (np.asarray(cert["pairs"][key], dtype=np.int64) for key in ("type", "candidate"))
    prices = block_prices(pi, n, w, pt, pc, cert["k"])
    L, b = prices.bound, prices.pair_bounds(pc)
    if cliques:
        L, b = clique_bounds(prices, cliques, mu, pc, np.asarray(rhs, dtype=float))
    grid = ObjectiveGrid(D)
    floor = np.full(n.shape[0], np.inf)
    np.minimum.at(floor, pt, grid.ceil_array(b))
    return int(round(max(grid.ceil(L), float(floor.max())) * D))


def _rationals(cert, pi, mu, cliques, rhs, bits) -> None:
    """The multipliers ``π`` and ``μ`` as integers over a power of two (``bits``; ``None``: exactly)."""
    def dyadic(x):
        if bits is not None:
            d = 1 << bits
            return {"denominator": d, "numerators": [int(v) for v in np.rint(np.asarray(x) * d)]}
        fr = [Fraction(float(v)) for v in x]  # a float is a dyadic rational: exactly
        d = max((f.denominator for f in fr), default=1)
        return {"denominator": d, "numerators": [int(f * d) for f in fr]}

    cert["multipliers"] = dyadic(pi)
    cert["packing_rows"] = {"members": [[int(j) for j in q] for q in cliques], "rhs": [int(r) for r in rhs],
                            "multipliers": dyadic(np.maximum(mu, 0.0))}


def _scale(cert) -> int:
    return math.lcm(cert["cost"]["denominator"], cert["multipliers"]["denominator"],
                    cert["packing_rows"]["multipliers"]["denominator"])


def _scaled_multipliers(cert) -> tuple:
    """``(π·S, μ·S, S)`` as integers, the arguments of :func:`milp_anon.certificate_check.blocks`."""
    S = _scale(cert)
    pi, mu = cert["multipliers"], cert["packing_rows"]["multipliers"]
    return ([x * (S // pi["denominator"]) for x in pi["numerators"]],
            [x * (S // mu["denominator"]) for x in mu["numerators"]], S)


def _ticks(x: int, S: int, D: int) -> int:
    return -((-x * D) // S)


def _type_bound(b, cert, S, D) -> int:
    best: dict = {}
    for i, x in zip(cert["pairs"]["type"], b):
        if x is not None:
            best[i] = min(best.get(i, x), x)
    return _ticks(max(best.values()), S, D) if len(best) == len(cert["rows_per_type"]) else 0


def _round(instance, request, grid, cert, b, S, cliques, rhs, engine, time_limit) -> dict:
    """The restricted model at ``G`` = the objective over the exact ``S(G)``, re-solved by ``engine``."""
    cands, counts, k = instance.candidates, instance.types.counts, cert["k"]
    D, G = cert["cost"]["denominator"], Fraction(cert["objective"])
    below = np.array([x is not None and _ticks(x, S, D) < G * D for x in b], dtype=bool)
    kept = cands.kept_pairs(below, counts, k)
    rnd: dict = {"G": str(G), "pairs": np.flatnonzero(kept).tolist(), "engine": None}
    covered = np.zeros(instance.types.t_in, dtype=bool)
    covered[cands.pair_type[kept]] = True
    if not covered.all():
        return rnd  # a row type without a pair below G: OPT >= G with no solver
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}: {', '.join(ENGINES)}")
    options = SolverOptions(solver=ENGINES[engine], time_limit=time_limit)
    sub = cands.restrict_pairs(kept, counts, k, "lagrangian")
    am = build(instance.with_candidates(sub), request)
    if cliques:
        add_clique_rows(am, cliques, cands, kept, rhs)
    out = solve_model(am.lm, options, grid)
    said = {"engine": _engine_version(engine), "status": str(out.status), "seconds": round(out.seconds, 3),
            "claim": str(G), "confirmed": False,
            # the model's rows by kind (assignment, links, groups of k, clique rows): nothing else cuts OPT(K)
            "model": {"columns": int(am.lm.n_cols), **{name: int(b.size) for name, b in am.lm.row_blocks.items()}}}
    if out.status == Status.INFEASIBLE:
        said["confirmed"], said["value"] = True, "infeasible"
    elif out.status == Status.OPTIMAL and out.objective is not None:
        value = Fraction(round(grid.ceil(out.objective) * D), D)
        said["value"], said["confirmed"] = str(value), value >= G
    rnd["engine"] = said
    return rnd


def _engine_version(engine: str) -> str:
    """The engine's name and version, as it reports them."""
    if engine == "scip":
        import pyscipopt  # type: ignore[import-not-found]

        return f"SCIP {pyscipopt.Model().version()} (pyscipopt {pyscipopt.__version__})"
    try:
        text = subprocess.run([pulp.PULP_CBC_CMD().path, "-quit"], capture_output=True, text=True, timeout=30).stdout
        version = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Version"))
    except (OSError, StopIteration, subprocess.SubprocessError):
        version = "?"
    return f"CBC {version} (through PuLP {pulp.__version__})"
